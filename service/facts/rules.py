"""Signature rules: a failure's distinctive message, the facts that raise or lower it, the entry it proposes.

One explicit registry (``RULES``), in priority order. A rule fires when a line matches one of its
``match`` patterns and, where ``needs`` is set, the log also contains one of those patterns anywhere.
``boosts`` raise (or, negative, lower) its strength when a fact or co-occurring line says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Boost:
    """Raise a rule's strength by ``delta`` when ``fact`` matches ``value`` (or ``line`` occurs in the log)."""

    delta: float
    reason: str
    fact: str | None = None
    value: str | None = None
    line: str | None = None


@dataclass(frozen=True)
class Rule:
    id: str
    entry: str
    match: tuple[str, ...]
    strength: float
    needs: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()
    boosts: tuple[Boost, ...] = ()
    compiled: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", tuple(re.compile(p) for p in self.match))


RULES: tuple[Rule, ...] = (
    # --- cuda ---
    Rule(
        "fused-adam-illegal-access",
        "deepspeed-fusedadam-illegal-memory-access",
        # "RuntimeError: CUDA error: an illegal memory access was encountered" raised from
        # "deepspeed/ops/adam/fused_adam.py" / "multi_tensor_apply" / apex "fused_adam_cuda"
        (r"illegal memory access was encountered", r"CUDA error: an illegal memory access"),
        0.55,
        needs=(r"fused_adam|FusedAdam|multi_tensor_adam|multi_tensor_apply|fused=True|adamw_torch_fused",),
        boosts=(
            Boost(0.25, "optimizer is a fused Adam", fact="optimizer", value=r"(?i)fused"),
            Boost(0.15, "traceback goes through the fused Adam step", line=r"fused_adam\.py|multi_tensor_apply|_fused_adam|multi_tensor_adam"),
            Boost(0.05, "Hopper or A100-80GB GPU", fact="gpu_model", value=r"H100|H200|H800|A100.*80"),
        ),
    ),
    Rule(
        "illegal-memory-access",
        "cuda-illegal-memory-access",
        # "RuntimeError: CUDA error: an illegal memory access was encountered"; "cudaErrorIllegalAddress"
        (r"illegal memory access was encountered", r"cudaErrorIllegalAddress", r"an illegal memory access"),
        0.6,
    ),
    Rule(
        "device-side-assert",
        "cuda-device-side-assert",
        # "RuntimeError: CUDA error: device-side assert triggered"; "Assertion `srcIndex < srcSelectDimSize` failed."
        (r"device-side assert triggered", r"Assertion `.*` failed", r"cudaErrorAssert"),
        0.85,
    ),
    Rule(
        "no-kernel-image",
        "cuda-no-kernel-image",
        # "CUDA error: no kernel image is available for execution on the device";
        # "NVIDIA H100 80GB HBM3 with CUDA capability sm_90 is not compatible with the current PyTorch installation."
        (r"no kernel image is available for execution", r"with CUDA capability sm_\d+ is not compatible", r"cudaErrorNoKernelImageForDevice"),
        0.9,
    ),
    Rule(
        "driver-too-old",
        "cuda-driver-too-old",
        # "The NVIDIA driver on your system is too old (found version 11040)."; "CUDA driver version is insufficient for CUDA runtime version"
        (r"NVIDIA driver on your system is too old", r"driver version is insufficient for CUDA runtime", r"cudaErrorInsufficientDriver", r"CUDA_ERROR_SYSTEM_DRIVER_MISMATCH|forward compatibility was attempted on non supported HW"),
        0.9,
    ),
    Rule(
        "cuda-not-available",
        "cuda-not-available",
        # "AssertionError: Torch not compiled with CUDA enabled"; "RuntimeError: No CUDA GPUs are available"
        (r"Torch not compiled with CUDA enabled", r"No CUDA GPUs are available", r"Found no NVIDIA driver on your system", r"CUDA driver initialization failed, you might not have a CUDA gpu", r"torch\.cuda\.is_available\(\) (?:is|returned) False"),
        0.85,
    ),
    Rule(
        "cuda-reinit-fork",
        "cuda-reinit-forked-subprocess",
        # "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method"
        (r"Cannot re-initialize CUDA in forked subprocess",),
        0.95,
    ),
    Rule(
        "cublas",
        "cublas-failure",
        # "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx(...)`"
        (r"CUBLAS_STATUS_\w+",),
        0.6,
    ),
    Rule(
        "cudnn",
        "cudnn-failure",
        # "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR"
        (r"CUDNN_STATUS_\w+", r"cuDNN error"),
        0.65,
    ),
    Rule(
        "launch-failure",
        "cuda-launch-failure",
        # "RuntimeError: CUDA error: unspecified launch failure"; "the launch timed out and was terminated"
        (r"unspecified launch failure", r"the launch timed out and was terminated", r"cudaErrorLaunchFailure"),
        0.7,
    ),
    # --- memory ---
    Rule(
        "cuda-oom-fragmentation",
        "cuda-oom-fragmentation",
        # "... 14.20 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"
        (r"CUDA out of memory",),
        0.3,
        needs=(r"reserved by PyTorch but unallocated|reserved in total by PyTorch",),
        boosts=(Boost(0.45, "a large share of reserved memory is unallocated", fact="oom_fragmented", value="yes"),),
    ),
    Rule(
        "cuda-oom",
        "cuda-oom",
        # "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB"
        (r"CUDA out of memory", r"OutOfMemoryError", r"CUDA error: out of memory", r"cudaErrorMemoryAllocation"),
        0.75,
    ),
    Rule(
        "host-oom",
        "host-oom-killed",
        # dmesg "Out of memory: Killed process 1234 (python)"; k8s "OOMKilled"; slurm "oom-kill event"
        (r"Out of memory: Kill(?:ed)? process", r"\bOOMKilled\b", r"oom-kill event", r"oom_kill_process", r"Some of your processes may have been killed by the cgroup out-of-memory handler"),
        0.85,
    ),
    # --- distributed ---
    Rule(
        "nccl-watchdog",
        "nccl-watchdog-timeout",
        # "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1021, OpType=ALLREDUCE, ...) ran for 1800000 milliseconds before timing out."
        (r"Watchdog caught collective operation timeout", r"ran for \d+ milliseconds before timing out", r"Some NCCL operations have failed or timed out"),
        0.45,
    ),
    Rule(
        "child-failed",
        "torchrun-child-failed",
        # "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:"
        (r"ChildFailedError",),
        0.2,
    ),
)


def compiled_needs(rule: Rule) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in rule.needs)
