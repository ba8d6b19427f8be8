"""CUDA runtime and driver set-up: a node whose driver, fabric or compute mode stops CUDA from starting."""

from __future__ import annotations

from service.facts.rules.base import Boost, Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "nvml-driver-library-mismatch",
        "nvml-driver-library-mismatch",
        (
            # nvidia-smi: "Failed to initialize NVML: Driver/library version mismatch"; nvidia-container-cli:
            # "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown"
            r"(?i:driver/library version mismatch)",
            # dmesg: "NVRM: API mismatch: the client has the version 550.127.05, but"
            #        "NVRM: this kernel module has the version 550.90.07.  Please make sure that this kernel module and all NVIDIA driver components have the same version."
            r"NVRM: API mismatch: the client has the version",
            r"NVRM: this kernel module has the version",
        ),
        0.93,
    ),
    Rule(
        "fabric-manager-not-ready",
        "nvidia-fabric-manager-not-running",
        (
            # torch: "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). ... Error 802: system not yet initialized"
            r"system not yet initialized",
            # runtime / driver API names: "cudaErrorSystemNotReady", "CUDA_ERROR_SYSTEM_NOT_READY"
            r"cudaErrorSystemNotReady|CUDA_ERROR_SYSTEM_NOT_READY",
        ),
        0.92,
        boosts=(
            # "nvidia-fabricmanager.service ... failed" / "Unit nvidia-fabricmanager.service could not be found"
            Boost(0.04, "the Fabric Manager service is named in the log", line=r"(?i)fabric.?manager"),
        ),
    ),
    Rule(
        "cuda-device-busy",
        "cuda-device-busy-unavailable",
        (
            # "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable"
            r"CUDA-capable device\(s\) is/are busy or unavailable",
            # cupy "CUDARuntimeError: cudaErrorDevicesUnavailable"; driver API "CUDA_ERROR_DEVICE_UNAVAILABLE"
            r"cudaErrorDevicesUnavailable|CUDA_ERROR_DEVICE_UNAVAILABLE",
        ),
        0.92,
        boosts=(
            # nvidia-smi -q -d COMPUTE: "    Compute Mode                          : Exclusive_Process"
            Boost(0.04, "the GPU is in an exclusive or prohibited compute mode", line=r"Compute Mode\s*:\s*(?:Exclusive_Process|Prohibited)"),
        ),
    ),
)
