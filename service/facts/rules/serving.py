"""Serving engines and the large-scale training stacks (kb-serve's domain): vLLM and SGLang configuration checks,
DeepSpeed ZeRO-Offload's optimizer check, Megatron-Core's and NeMo's parallel layout checks.

Every pattern quotes the line it was written for; the texts were read from the released artifacts named in each
entry's ``affected.software`` (vLLM 0.11.2 and 0.33.0 wheels, DeepSpeed 0.16.4 and 0.19.8 sdists, megatron-core
0.16.1 and nemo-toolkit 2.7.3 wheels).
"""

from __future__ import annotations

from service.facts.rules.base import Rule

RULES: tuple[Rule, ...] = (
    # --- vLLM: start-up configuration checks ---
    Rule(
        "vllm-unsupported-architecture",
        "vllm-unsupported-architecture",
        (
            # registry.py _raise_for_unsupported: "ValueError: Model architectures ['Qwen3NextForCausalLM'] are not supported
            #  for now. Supported architectures: dict_keys(['AquilaModel', ...])" (0.10+: inside "1 validation error for
            #  ModelConfig / Value error, Model architectures [...] are not supported for now. ...")
            r"Model architectures \[[^\]]*\] are not supported for now",
            # "ValueError: Model architecture MPTForCausalLM was supported in vLLM until v0.10.2, and is not supported anymore."
            r"Model architecture \S+ was supported in vLLM until v[\d.]+, and is not supported anymore",
            # 0.33: "ValueError: Model architecture X is not supported in-tree anymore. Please install the plugin at <url>"
            r"Model architecture \S+ is not supported in-tree anymore",
        ),
        0.93,
    ),
    Rule(
        "vllm-tp-heads-not-divisible",
        "vllm-tp-heads-not-divisible",
        # config/model.py verify_with_parallel_config: "ValueError: Total number of attention heads (28) must be divisible
        #  by tensor parallel size (8)." (0.10+: "Value error, Total number of attention heads (28) must be ...")
        (
            r"Total number of attention heads \(\d+\) must be divisible by tensor parallel size \(\d+\)",
            # a model class's own check (0.33 step5): "ValueError: Step5 attention heads must be divisible by tensor
            #  parallel size: num_heads=64, tp_size=6."
            r"attention heads must be divisible by tensor parallel size: num_heads=\d+, tp_size=\d+",
        ),
        0.95,
    ),
    Rule(
        "vllm-max-model-len-exceeds-config",
        "vllm-max-model-len-exceeds-config",
        (
            # config/model.py _get_and_verify_max_len: "ValueError: User-specified max_model_len (32768) is greater than the
            #  derived max_model_len (max_position_embeddings=8192 or model_max_length=None in model's config.json). To
            #  allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. ..."
            r"User-specified max_model_len \(\d+\) is greater than the derived max_model_len",
            # the same text wrapped at another width, or only its advice kept by an orchestrator
            r"To allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1",
        ),
        0.93,
        # with VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 the same text is a warning and the engine goes on
        not_with=(r"^\s*(?:\(\w+ pid=\d+\) )?WARNING\b",),
    ),
    # --- DeepSpeed ---
    Rule(
        "deepspeed-offload-client-optimizer",
        "deepspeed-offload-client-optimizer",
        (
            # engine.py _configure_optimizer: "deepspeed.runtime.zero.utils.ZeRORuntimeException: You are using ZeRO-Offload
            #  with a client provided optimizer (<class 'torch.optim.adamw.AdamW'>) which in most cases will yield poor
            #  performance. Please either use deepspeed.ops.adam.DeepSpeedCPUAdam or set an optimizer in your ds-config ..."
            r"You are using ZeRO-Offload with a client provided optimizer",
            r"Please either use deepspeed\.ops\.adam\.DeepSpeedCPUAdam or set an optimizer in your ds-config",
        ),
        0.95,
    ),
    # --- Megatron-Core and NeMo ---
    Rule(
        "megatron-parallel-sizes-invalid",
        "megatron-parallel-sizes-invalid",
        (
            # parallel_state.initialize_model_parallel: "RuntimeError: world_size (12) is not divisible by 8"
            r"\bworld_size \(\d+\) is not divisible by \d+\s*$",
            # NeMo 2 megatron_init.fake_initialize_model_parallel: "AssertionError: world_size: 8 must be divisible by total
            #  world_size: (decoder_)tensor_model_parallel_size 4 * (decoder_)pipeline_model_parallel_size 4 * ..."
            r"world_size: \d+ must be divisible by total world_size: \(decoder_\)tensor_model_parallel_size",
            # NeMo 2 _strategy_lib.init_parallel_ranks: "ValueError: Expected world_size (4) to be greater than/equal to
            #  pipeline size (8)"
            r"Expected world_size \(\d+\) to be greater than/equal to pipeline size \(\d+\)",
            # transformer_config.py: "ValueError: num_attention_heads (28) must be a multiple of tensor_model_parallel_size (8)."
            r"num_attention_heads \(\d+\) must be a multiple of tensor_model_parallel_size \(\d+\)",
            # "ValueError: num_query_groups (4) must be a multiple or divisor of tensor_model_parallel_size (6)."
            r"num_query_groups \(\d+\) must be a multiple or divisor of tensor_model_parallel_size \(\d+\)",
        ),
        0.93,
    ),
)
