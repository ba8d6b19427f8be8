"""Rule table rows for the kb-torch domains (CUDA runtime/driver, containers, PyTorch core and distributed,
compile, Triton, JAX, clusters): real log lines that must fire each rule, and near misses that must not.
Joined to tests/test_rules.py's tables."""

from __future__ import annotations

FIRES: list[tuple[str, str | tuple[str, ...]]] = [
    ("nvml-driver-library-mismatch", "Failed to initialize NVML: Driver/library version mismatch"),
    ("nvml-driver-library-mismatch", "[ 1234.567890] NVRM: API mismatch: the client has the version 550.127.05, but"),
    ("nvml-driver-library-mismatch", ("stderr: Auto-detected mode as 'legacy'",
                                      "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown")),
    ("fabric-manager-not-ready", "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda "
                                 "functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized"),
    ("fabric-manager-not-ready", "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorSystemNotReady: system not yet initialized"),
    ("cuda-device-busy", "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable"),
    ("cuda-device-busy", "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorDevicesUnavailable: CUDA-capable device(s) is/are busy or unavailable"),
    ("container-gpu-runtime-missing", 'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].'),
    ("container-gpu-runtime-missing", "docker: Error response from daemon: unknown or invalid runtime name: nvidia."),
    ("nvidia-container-cli", "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown."),
    ("nvidia-container-cli", "nvidia-container-cli: device error: 4: unknown device: unknown"),
    ("container-require-cuda", "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver to a newer version, or use an earlier cuda container: unknown."),
    ("backward-non-scalar", "RuntimeError: grad can be implicitly created only for scalar outputs"),
    ("backward-non-scalar", "RuntimeError: grad can be implicitly created only for real scalar outputs but got torch.int64"),
    ("embedding-index-out-of-range", "IndexError: index out of range in self"),
    ("loss-target-out-of-bounds", "IndexError: Target 5 is out of bounds."),
    ("loss-target-out-of-bounds", "[rank3]: IndexError: Target -1 is out of bounds."),
    ("ddp-params-mismatch", "[rank0]: RuntimeError: DDP expects same model across all ranks, but Rank 0 has 6 params, while rank 1 has inconsistent 4 params."),
    ("ddp-params-mismatch", "[rank1]: RuntimeError: [1]: params[0] in this process with sizes [32008, 16] appears not to match sizes of the same param in process 0."),
    ("dcp-missing-key", "[rank0]: RuntimeError: Missing key in checkpoint state_dict: model.adapter.weight."),
    ("dcp-missing-key-legacy", ("torch.distributed.checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys([0, 1])",
                                '  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/checkpoint/default_planner.py", line 254, in create_default_local_load_plan',
                                "KeyError: 'model.output.weight'")),
    ("dtensor-mixed-tensor", "[rank1]: RuntimeError: aten.mul.Tensor got mixed torch.Tensor and DTensor, need to convert all torch.Tensor to DTensor before calling distributed operators!"),
    ("sdpa-no-available-kernel", "RuntimeError: No available kernel.  Aborting execution."),
    ("module-missing-forward", 'NotImplementedError: Module [ModuleList] is missing the required "forward" function'),
    ("dataloader-timeout", "[rank2]: RuntimeError: DataLoader timed out after 120 seconds"),
    ("triton-out-of-shared-memory", "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 131072, Hardware limit: 101376. Reducing block sizes or `num_stages` may help."),
    ("dynamo-fullgraph-graph-break", "torch._dynamo.exc.Unsupported: Attempted to call function marked as skipped"),
    ("dynamo-fullgraph-graph-break", "torch._dynamo.exc.UserError: Consider annotating your code using torch._check*(). Could not guard on data-dependent expression zuf0 > 0.0 (unhinted: zuf0 > 0.0).  (Size-like symbols: none)"),
    ("inference-tensor-in-autograd", "RuntimeError: Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in computation tracked by autograd."),
    ("inference-tensor-in-autograd", "RuntimeError: Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal tensor before doing inplace update."),
    ("checkpoint-cuda-device-ordinal", "RuntimeError: Attempting to deserialize object on CUDA device 3 but torch.cuda.device_count() is 1. Please use torch.load with map_location to map your storages to an existing device."),
    ("cudagraph-output-overwritten", "RuntimeError: Error: accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run. Stack trace: File \"/app/model.py\", line 88, in forward."),
    ("cudagraph-output-overwritten", "RuntimeError: Error: accessing gradient tensor output of CUDAGraphs that has been overwritten by a subsequent run. Stack trace: [Could not find stack trace]."),
    ("jax-cudnn-version-mismatch", "E1130 10:11:12.345678 4021 cuda_dnn.cc:535] Loaded runtime CuDNN library: 8.6.0 but source was compiled with: 8.9.4.  CuDNN library needs to have matching major version and equal or higher minor version."),
    ("jax-cuda-backend-missing", "WARNING:jax._src.xla_bridge:An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu."),
    ("jax-cuda-backend-missing", "RuntimeError: Unable to initialize backend 'cuda': FAILED_PRECONDITION: No visible GPU devices. (set JAX_PLATFORMS='' to automatically choose an available backend)"),
    ("lightning-slurm-task-mismatch", "ValueError: You set `devices=8` in Lightning, but the number of tasks per node configured in SLURM `--ntasks-per-node=1` does not match. HINT: Set `devices=1`."),
    ("lightning-slurm-task-mismatch", "RuntimeError: You set `--ntasks=16` in your SLURM bash script, but this variable is not supported. HINT: Use `--ntasks-per-node=16` instead."),
    ("k8s-evicted-ephemeral-storage", "  Message:          Pod ephemeral local storage usage exceeds the total limit of containers 50Gi."),
    ("k8s-evicted-ephemeral-storage", "  Warning  Evicted  2m  kubelet  The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 8Gi."),
    ("dtensor-mixed-tensor", "RuntimeError: aten.add.Tensor: got mixed torch.Tensor and DTensor, need to convert all torch.Tensor to DTensor before calling distributed operators!"),
]

NEAR_MISSES: list[tuple[str, str | tuple[str, ...]]] = [
    # the host mismatch seen through the container hook belongs to the mismatch entry, not the hook's
    ("nvidia-container-cli", "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown"),
    # error 803 alone is the driver entry's (compat libraries, too-old drivers) unless NVML or the kernel says mismatch
    ("nvml-driver-library-mismatch", "Error 803: system has unsupported display driver / cuda driver combination"),
    ("fabric-manager-not-ready", "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 803: system has unsupported display driver / cuda driver combination"),
    ("nvidia-container-cli", "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver to a newer version, or use an earlier cuda container: unknown."),
    ("embedding-index-out-of-range", "IndexError: list index out of range"),
    ("loss-target-out-of-bounds", "IndexError: index 5 is out of bounds for dimension 0 with size 5"),
    ("ddp-params-mismatch", "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one."),
    ("dcp-missing-key", "Missing key(s) in state_dict: \"classifier.weight\", \"classifier.bias\"."),
    ("checkpoint-cuda-device-ordinal", "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to the CPU."),
    ("dynamo-fullgraph-graph-break", "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:"),
    ("dataloader-timeout", "RuntimeError: DataLoader worker (pid(s) 4121) exited unexpectedly"),
    ("sdpa-no-available-kernel", "UserWarning: Flash attention kernel not used because: (Triggered internally at ../aten/src/ATen/native/transformers/sdp_utils_cpp.cpp:99.)"),
    ("k8s-evicted-ephemeral-storage", "  Reason:       OOMKilled"),
    ("jax-cudnn-version-mismatch", "I1130 10:11:12.345678 4021 cuda_dnn.cc:530] Loaded cuDNN version 8907"),
    ("cuda-device-busy", "NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1b000"),
]

DECIDED_BY_CONTEXT: list[tuple[tuple[str, ...], str]] = [
    # Triton's shared-memory refusal wrapped by Inductor: the specific entry, not the generic compile failure
    (("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:",
      "OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: 65536. Reducing block sizes or `num_stages` may help."),
     "triton-out-of-shared-memory"),
    # nvidia-smi's NVML mismatch next to torch's error 803: the mismatch entry, not the too-old driver
    (("Failed to initialize NVML: Driver/library version mismatch",
      "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
      "NumCudaDevices() that might have already set an error? Error 803: system has unsupported display driver / cuda driver combination"),
     "nvml-driver-library-mismatch"),
]
