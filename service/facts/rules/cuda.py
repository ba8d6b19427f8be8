"""CUDA and device errors: kernels, architectures, drivers, cuBLAS and cuDNN."""

from __future__ import annotations

from service.facts.rules.base import Boost, Rule

# Async CUDA errors surface at a later call: an error raised first by a kernel assert, an illegal
# access or an OOM is the cause, and a cuBLAS/cuDNN/NCCL failure printed with or after it is its echo.
DEVICE_ASSERT = r"device-side assert triggered|block: \[\d+,\d+,\d+\], thread: \[\d+,\d+,\d+\] Assertion `"
ILLEGAL_ACCESS = r"an illegal memory access was encountered|cudaErrorIllegalAddress|CUDA_ERROR_ILLEGAL_ADDRESS"
# Xid codes of a failing GPU (48 double-bit ECC, 63/64 row remapping, 79 fallen off the bus, 94/95 ECC containment,
# 119/120 the GPU's GSP firmware timing out or failing: "Timeout after 6s of waiting for RPC response from GPU5 GSP!")
HARDWARE_XID = r"^(?:48|63|64|79|94|95|119|120)$"
CUDA_OOM = r"CUDA out of memory\. Tried to allocate|OutOfMemoryError: CUDA out of memory"
# Fused Adam in the traceback: DeepSpeed "deepspeed/ops/adam/fused_adam.py", "multi_tensor_applier(self.multi_tensor_adam",
# apex "apex/optimizers/fused_adam.py", "amp_C.multi_tensor_adam", torch "_fused_adamw" / "torch/optim/_functional"
FUSED_ADAM_FRAMES = r"ops/adam/fused_adam\.py|ops/adam/multi_tensor_apply\.py|multi_tensor_adam|apex/optimizers/fused_adam\.py|_fused_adamw?\b|fused_adam_cuda"

RULES: tuple[Rule, ...] = (
    Rule(
        "fused-adam-illegal-access",
        "deepspeed-fusedadam-illegal-memory-access",
        (
            # "RuntimeError: CUDA error: an illegal memory access was encountered" (any call after the fused step)
            r"an illegal memory access was encountered",
            # cupy / driver API forms: "cudaErrorIllegalAddress", "CUDA_ERROR_ILLEGAL_ADDRESS"
            r"cudaErrorIllegalAddress|CUDA_ERROR_ILLEGAL_ADDRESS",
        ),
        0.45,
        # the run uses a fused Adam at all: "DeepSpeed Basic Optimizer = FusedAdam", "Time to load fused_adam op",
        # a traceback through fused_adam.py, HF "optim=adamw_torch_fused", torch "AdamW(..., fused=True)"
        needs=(r"FusedAdam|fused_adam|multi_tensor_adam|adamw_torch_fused|fused=True|FusedLamb",),
        boosts=(
            Boost(0.3, "the traceback goes through the fused Adam step", line=FUSED_ADAM_FRAMES),
            Boost(0.1, "the optimizer is a fused Adam", fact="optimizer", value=r"(?i)fused"),
            Boost(0.2, "a tensor the optimizer steps has more than 2^31 elements", fact="tensor_over_int32", value="yes"),
            Boost(0.05, "an 80 GB-class GPU, where such partitions fit", fact="gpu_model", value=r"H100|H200|H800|GH200|A100.*80|B200"),
            Boost(-0.3, "the optimizer state is offloaded to CPU (DeepSpeedCPUAdam, not FusedAdam)", fact="optimizer", value=r"CPUAdam"),
            Boost(-0.3, "a device-side assert came first", line=DEVICE_ASSERT),
        ),
    ),
    Rule(
        "illegal-memory-access",
        "cuda-illegal-memory-access",
        (
            # "RuntimeError: CUDA error: an illegal memory access was encountered";
            # Triton: "Triton Error [CUDA]: an illegal memory access was encountered";
            # NCCL: "NCCL WARN Cuda failure 'an illegal memory access was encountered'"
            r"an illegal memory access was encountered",
            # cupy "CUDARuntimeError: cudaErrorIllegalAddress"; driver API "CUDA_ERROR_ILLEGAL_ADDRESS"
            r"cudaErrorIllegalAddress|CUDA_ERROR_ILLEGAL_ADDRESS",
            # dmesg for the same fault: "NVRM: Xid (PCI:0000:3b:00): 31, pid=1234, ... MMU Fault: ... Fault is of type FAULT_PDE"
            r"Fault is of type FAULT_\w+",
        ),
        0.6,
        boosts=(
            Boost(-0.2, "the traceback goes through a fused Adam step (see the FusedAdam entry)", line=FUSED_ADAM_FRAMES),
            Boost(-0.35, "a device-side assert came first", line=DEVICE_ASSERT),
            Boost(-0.3, "the GPU reported a hardware fault (Xid 48/63/64/79/94/95/119/120)", fact="xid", value=HARDWARE_XID),
            Boost(0.05, "a custom kernel (Triton, flash-attn, xformers, torch.compile) is in the traceback", line=r"triton|flash_attn|xformers|torch/_inductor"),
        ),
    ),
    Rule(
        "device-side-assert",
        "cuda-device-side-assert",
        (
            # "RuntimeError: CUDA error: device-side assert triggered"
            r"device-side assert triggered",
            # "../aten/src/ATen/native/cuda/Indexing.cu:1146: indexSelectLargeIndex: block: [123,0,0], thread: [64,0,0]
            #  Assertion `srcIndex < srcSelectDimSize` failed."
            r"block: \[\d+,\d+,\d+\], thread: \[\d+,\d+,\d+\] Assertion `",
            # the kernel assert without the block prefix (wrapped lines): "Assertion `t >= 0 && t < n_classes` failed."
            r"Assertion `[^`']+` failed",
            # cupy / driver API: "cudaErrorAssert", "CUDA_ERROR_ASSERT"
            r"cudaErrorAssert\b|CUDA_ERROR_ASSERT\b",
        ),
        0.9,
    ),
    Rule(
        "no-kernel-image",
        "cuda-no-kernel-image",
        (
            # "RuntimeError: CUDA error: no kernel image is available for execution on the device"
            r"no kernel image is available for execution on the device",
            # "cudaErrorNoKernelImageForDevice"; driver API "CUDA_ERROR_NO_BINARY_FOR_GPU"
            r"cudaErrorNoKernelImageForDevice|CUDA_ERROR_NO_BINARY_FOR_GPU",
            # "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation."
            r"with CUDA capability sm_\d+ is not compatible with the current PyTorch installation",
            # "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90."
            r"The current PyTorch install supports CUDA capabilities",
            # "Found GPU0 Tesla K80 which is of cuda capability 3.7. PyTorch no longer supports this GPU because it is too old."
            r"PyTorch no longer supports this GPU because it is too old",
        ),
        0.9,
    ),
    Rule(
        "invalid-device-function",
        "cuda-no-kernel-image",
        # "RuntimeError: CUDA error: invalid device function" (an extension or library without this GPU's arch)
        (r"CUDA error: invalid device function", r"cudaErrorInvalidDeviceFunction"),
        0.7,
    ),
    Rule(
        "driver-too-old",
        "cuda-driver-too-old",
        (
            # "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver"
            r"NVIDIA driver on your system is too old",
            # "CUDA driver version is insufficient for CUDA runtime version"
            r"CUDA driver version is insufficient for CUDA runtime version",
            # "cudaErrorInsufficientDriver"; driver API "CUDA_ERROR_INSUFFICIENT_DRIVER"
            r"cudaErrorInsufficientDriver|CUDA_ERROR_INSUFFICIENT_DRIVER",
            # "Error 804: forward compatibility was attempted on non supported HW"
            r"forward compatibility was attempted on non supported HW",
            # "Error 803: system has unsupported display driver / cuda driver combination"
            r"system has unsupported display driver / cuda driver combination",
            # Triton / ptxas: "CUDA error: the provided PTX was compiled with an unsupported toolchain."
            r"the provided PTX was compiled with an unsupported toolchain",
        ),
        0.9,
    ),
    Rule(
        "cuda-not-available",
        "cuda-not-available",
        (
            # "AssertionError: Torch not compiled with CUDA enabled"
            r"Torch not compiled with CUDA enabled",
            # "RuntimeError: No CUDA GPUs are available"
            r"No CUDA GPUs are available",
            # "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver"
            r"Found no NVIDIA driver on your system",
            # "RuntimeError: Distributed package doesn't have NCCL built in"
            r"Distributed package doesn't have NCCL built in",
            # "AttributeError: module 'torch._C' has no attribute '_cuda_setDevice'"
            r"has no attribute '_cuda_setDevice'",
            # "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False."
            # (the ordinal form, "on CUDA device 3 but torch.cuda.device_count() is 1", is checkpoint-cuda-device-ordinal's)
            r"Attempting to deserialize object on a CUDA device",
            # "ProcessGroupNCCL is only supported with GPUs, no GPUs found!"
            r"ProcessGroupNCCL is only supported with GPUs, no GPUs found",
        ),
        0.85,
        boosts=(
            Boost(-0.3, "the driver is too old for this CUDA runtime", line=r"NVIDIA driver on your system is too old|driver version is insufficient"),
            Boost(0.05, "torch is a CPU-only build", line=r"torch\S*\+cpu\b|CUDA used to build PyTorch: (?:None|Could not collect)"),
        ),
    ),
    Rule(
        "cuda-not-available-environment",
        "cuda-not-available",
        (
            # "RuntimeError: CUDA error: invalid device ordinal" (asking for a GPU that CUDA_VISIBLE_DEVICES hides)
            r"invalid device ordinal",
            # "UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up environment"
            r"CUDA unknown error - this may be due to an incorrectly set up environment",
            # "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
            r"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver",
            # "Failed to initialize NVML: Unknown Error" (container lost its device nodes)
            r"Failed to initialize NVML: Unknown Error",
        ),
        0.7,
        boosts=(Boost(-0.3, "the driver is too old for this CUDA runtime", line=r"NVIDIA driver on your system is too old|driver version is insufficient"),),
    ),
    Rule(
        "cuda-reinit-fork",
        "cuda-reinit-forked-subprocess",
        (
            # "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing,
            #  you must use the 'spawn' start method"
            r"Cannot re-initialize CUDA in forked subprocess",
        ),
        0.95,
    ),
    Rule(
        "cuda-init-error-in-child",
        "cuda-reinit-forked-subprocess",
        # "RuntimeError: CUDA error: initialization error" / "cudaErrorInitializationError" inside a forked worker
        (r"CUDA error: initialization error", r"cudaErrorInitializationError"),
        0.45,
        boosts=(
            Boost(0.35, "raised inside a forked worker (DataLoader, multiprocessing, datasets.map)",
                  line=r"in DataLoader worker process|multiprocessing/(?:pool|process)\.py|fork|num_proc"),
        ),
    ),
    Rule(
        "cublas",
        "cublas-failure",
        (
            # "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, ...)`"
            # "CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`"
            r"CUBLAS_STATUS_[A-Z_]+",
        ),
        0.65,
        boosts=(
            Boost(-0.35, "a device-side assert came first (cuBLAS only reports it)", line=DEVICE_ASSERT),
            Boost(-0.3, "an illegal memory access came first", line=ILLEGAL_ACCESS),
            Boost(-0.25, "a CUDA out-of-memory error is in the log", line=CUDA_OOM),
            Boost(-0.35, "the GPU reported a hardware fault (Xid 48/63/64/79/94/95/119/120)", fact="xid", value=HARDWARE_XID),
        ),
    ),
    Rule(
        "cublas-deterministic-workspace",
        "cublas-failure",
        (
            # "RuntimeError: Deterministic behavior was enabled with either `torch.use_deterministic_algorithms(True)` or
            #  `at::Context::setDeterministicAlgorithms(true)`, but this operation is not deterministic because it uses CuBLAS
            #  and you have CUDA >= 10.2. To enable deterministic behavior ... set ... CUBLAS_WORKSPACE_CONFIG=:4096:8"
            r"it uses CuBLAS and you have CUDA >= 10\.2",
        ),
        0.9,
    ),
    Rule(
        "cudnn",
        "cudnn-failure",
        (
            # "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR"; "CUDNN_STATUS_NOT_SUPPORTED. This error may appear if
            #  you passed in a non-contiguous input."; "cudnnFinalize Descriptor Failed cudnn_status: CUDNN_STATUS_NOT_SUPPORTED"
            r"CUDNN_STATUS_[A-Z_]+",
            # "RuntimeError: Unable to find a valid cuDNN algorithm to run convolution"
            r"Unable to find a valid cuDNN algorithm",
            # cuDNN v8/v9 frontend: "RuntimeError: GET was unable to find an engine to execute this computation"
            r"GET was unable to find an engine to execute this computation",
            # "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 9, 2) but found runtime version (8, 5, 0)."
            r"cuDNN version incompatibility",
            # "Could not load library libcudnn_cnn_infer.so.8. Error: libnvrtc.so: cannot open shared object file"
            r"Could not load library libcudnn\w*\.so",
        ),
        0.7,
        boosts=(
            Boost(-0.35, "a device-side assert came first", line=DEVICE_ASSERT),
            Boost(-0.3, "an illegal memory access came first", line=ILLEGAL_ACCESS),
            Boost(-0.2, "a CUDA out-of-memory error is in the log", line=CUDA_OOM),
            Boost(-0.35, "the GPU reported a hardware fault (Xid 48/63/64/79/94/95/119/120)", fact="xid", value=HARDWARE_XID),
        ),
    ),
    Rule(
        "launch-failure",
        "cuda-launch-failure",
        (
            # "RuntimeError: CUDA error: unspecified launch failure"; Triton "Triton Error [CUDA]: unspecified launch failure";
            # NCCL "Cuda failure 'unspecified launch failure'"
            r"unspecified launch failure",
            # "cudaErrorLaunchFailure"; driver API "CUDA_ERROR_LAUNCH_FAILED"
            r"cudaErrorLaunchFailure|CUDA_ERROR_LAUNCH_FAILED",
            # Windows TDR / display GPU: "CUDA error: the launch timed out and was terminated"; "cudaErrorLaunchTimeout"
            r"the launch timed out and was terminated|cudaErrorLaunchTimeout",
            # "CUDA error: too many resources requested for launch"; "cudaErrorLaunchOutOfResources"
            r"too many resources requested for launch|cudaErrorLaunchOutOfResources",
        ),
        0.8,
        boosts=(
            Boost(-0.35, "the GPU fell off the bus or reported an ECC error", fact="xid", value=HARDWARE_XID),
            Boost(0.05, "dmesg shows an Xid for the GPU (13, 31, 43 or 62)", fact="xid", value=r"^(?:13|31|43|62)$"),
        ),
    ),
)
