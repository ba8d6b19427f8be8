"""Inference engines (vLLM, SGLang): the KV cache too small for the context, GPU memory held by others."""

from __future__ import annotations

from service.facts.rules.base import Boost, Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "vllm-kv-cache",
        "vllm-kv-cache-too-small",
        (
            # vLLM v0: "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be
            #  stored in KV cache (13376). Try increasing `gpu_memory_utilization` or decreasing `max_model_len`"
            r"larger than the maximum number of tokens that can be stored in KV cache",
            # vLLM: "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`"
            r"No available memory for the cache blocks",
            # vLLM v1: "ValueError: To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is
            #  needed, which is larger than the available KV cache memory (7.44 GiB). Based on the available memory, the
            #  estimated maximum model length is 60928."
            r"KV cache is needed, which is larger than the available KV cache memory",
            r"To serve at least one request with the models's max seq len",
            r"Based on the available memory, the estimated maximum model length is",
            # SGLang: "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."
            r"Not enough memory\. Please try to increase --mem-fraction-static",
        ),
        0.95,
    ),
    Rule(
        "vllm-kv-cache-hint",
        "vllm-kv-cache-too-small",
        # the advice alone (wrapped by a server or an orchestrator): "Try increasing `gpu_memory_utilization` or decreasing `max_model_len`"
        (r"Try increasing `gpu_memory_utilization` or decreasing `max_model_len`",),
        0.8,
        unless=(r"is less than desired GPU memory utilization",),
    ),
    Rule(
        "vllm-memory-in-use",
        "vllm-gpu-memory-in-use",
        (
            # vLLM: "ValueError: Free memory on device (10.5/23.6 GiB) on startup is less than desired GPU memory utilization
            #  (0.9, 21.24 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes."
            r"is less than desired GPU memory utilization",
            r"Decrease GPU memory utilization or reduce GPU memory used by other processes",
            # vLLM: "AssertionError: Error in memory profiling. Initial free memory 20.1 GiB, current free memory 22.3 GiB.
            #  This happens when the GPU memory was not properly cleaned up before initializing the vLLM instance."
            r"Error in memory profiling",
            r"GPU memory was not properly cleaned up before initializing the vLLM instance",
        ),
        0.9,
    ),
    Rule(
        "vllm-oom-other-process",
        "vllm-gpu-memory-in-use",
        # vLLM worker: "RuntimeError: Worker failed with error 'CUDA out of memory ...', please check the stack trace above
        #  for the root cause" / "while processing method initialize_cache: CUDA out of memory"
        (r"while processing method (?:initialize_cache|determine_num_available_blocks)[^\n]*(?:CUDA out of memory|OutOfMemoryError)",),
        0.75,
        boosts=(
            # the OOM message lists other processes: "Process 41234 has 9.50 GiB memory in use."
            Boost(0.1, "the OOM message lists another process holding GPU memory", line=r"Process \d+ has [\d.]+ [KMG]iB memory in use"),
        ),
    ),
)
