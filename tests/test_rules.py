"""Signature rules: real log lines that must fire each rule, near misses that must not, and the cases where
facts and the rank timeline decide between look-alikes."""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

import pytest
import yaml

from retrieval.kb import load_kb
from service.facts import extract_facts
from service.facts.hits import _INDEX, _PATTERNS
from service.facts.literals import LiteralIndex, required_literals
from service.facts.rules import MODULES, RULES
from service.models import MaskedFile, MaskedLog

REPO = Path(__file__).resolve().parent.parent
CATALOG = REPO.parent / "shared" / "failure-catalog.yaml"
KB = load_kb(REPO / "kb")


def log_of(*lines: str, name: str = "train.log") -> MaskedLog:
    return MaskedLog(files=[MaskedFile(name=name, lines=list(lines))])


def hits_of(*lines: str) -> dict[str, float]:
    return {h.rule_id: h.strength for h in extract_facts(log_of(*lines)).rule_hits}


def top_entry(*lines: str) -> str | None:
    hits = extract_facts(log_of(*lines)).rule_hits
    return hits[0].entry_id if hits else None


FSDP = "FullyShardedDataParallel(\n  (_fsdp_wrapped_module): LlamaForCausalLM("
# (rule id, the line or lines of a log that must fire it)
FIRES: list[tuple[str, str | tuple[str, ...]]] = [
    # --- cuda ---
    ("fused-adam-illegal-access", ("[Rank 0] DeepSpeed Basic Optimizer = FusedAdam",
                                   "RuntimeError: CUDA error: an illegal memory access was encountered")),
    ("illegal-memory-access", "RuntimeError: CUDA error: an illegal memory access was encountered"),
    ("illegal-memory-access", "triton.runtime.errors.PTXASError: Triton Error [CUDA]: an illegal memory access was encountered"),
    ("illegal-memory-access", "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorIllegalAddress: an illegal memory access was encountered"),
    ("device-side-assert", "RuntimeError: CUDA error: device-side assert triggered"),
    ("device-side-assert", "../aten/src/ATen/native/cuda/Indexing.cu:1146: indexSelectLargeIndex: block: [123,0,0], thread: [64,0,0] Assertion `srcIndex < srcSelectDimSize` failed."),
    ("device-side-assert", "/pytorch/aten/src/ATen/native/cuda/Loss.cu:240: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed."),
    ("no-kernel-image", "RuntimeError: CUDA error: no kernel image is available for execution on the device"),
    ("no-kernel-image", "UserWarning: NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation."),
    ("no-kernel-image", "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90."),
    ("no-kernel-image", "Found GPU0 Tesla K80 which is of cuda capability 3.7. PyTorch no longer supports this GPU because it is too old."),
    ("invalid-device-function", "RuntimeError: CUDA error: invalid device function"),
    ("driver-too-old", "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx"),
    ("driver-too-old", "RuntimeError: CUDA driver version is insufficient for CUDA runtime version"),
    ("driver-too-old", "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on non supported HW"),
    ("cuda-not-available", "AssertionError: Torch not compiled with CUDA enabled"),
    ("cuda-not-available", "RuntimeError: No CUDA GPUs are available"),
    ("cuda-not-available", "RuntimeError: Distributed package doesn't have NCCL built in"),
    ("cuda-not-available", "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu')"),
    ("cuda-not-available-environment", "RuntimeError: CUDA error: invalid device ordinal"),
    ("cuda-not-available-environment", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running."),
    ("cuda-reinit-fork", "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method"),
    ("cuda-init-error-in-child", "RuntimeError: CUDA error: initialization error"),
    ("cublas", "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, ldc, CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`"),
    ("cublas", "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`"),
    ("cublas-deterministic-workspace", "RuntimeError: Deterministic behavior was enabled with either `torch.use_deterministic_algorithms(True)` or `at::Context::setDeterministicAlgorithms(true)`, but this operation is not deterministic because it uses CuBLAS and you have CUDA >= 10.2. To enable deterministic behavior in this case, you must set an environment variable before running your PyTorch application: CUBLAS_WORKSPACE_CONFIG=:4096:8 or CUBLAS_WORKSPACE_CONFIG=:16:8."),
    ("cudnn", "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR"),
    ("cudnn", "RuntimeError: Unable to find a valid cuDNN algorithm to run convolution"),
    ("cudnn", "RuntimeError: GET was unable to find an engine to execute this computation"),
    ("cudnn", "Could not load library libcudnn_cnn_infer.so.8. Error: libnvrtc.so: cannot open shared object file: No such file or directory"),
    ("launch-failure", "RuntimeError: CUDA error: unspecified launch failure"),
    ("launch-failure", "RuntimeError: CUDA error: the launch timed out and was terminated"),
    ("launch-failure", "RuntimeError: CUDA error: too many resources requested for launch"),
    # --- memory ---
    ("cuda-oom", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.02 GiB is free."),
    ("cuda-oom", "RuntimeError: CUDA error: out of memory"),
    ("cuda-oom", "RuntimeError: No executable batch size found, reached zero."),
    ("cuda-oom-fragmentation", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.10 GiB is free. Including non-PyTorch memory, this process has 78.04 GiB memory in use. Of the allocated memory 60.12 GiB is allocated by PyTorch, and 16.40 GiB is reserved by PyTorch but unallocated."),
    ("cuda-memory-leak-growth", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 40.06 GiB."),
    ("host-oom", "[Mon Jul 22 14:30:57 2024] Out of memory: Killed process 31337 (python) total-vm:98765432kB, anon-rss:65432100kB"),
    ("host-oom", "[Mon Jul 22 14:30:57 2024] Memory cgroup out of memory: Killed process 31337 (python)"),
    ("host-oom", "slurmstepd: error: Detected 1 oom_kill event in StepId=771204.0. Some of your processes may have been killed by the cgroup out-of-memory handler."),
    ("host-oom", "      Reason:       OOMKilled"),
    ("host-oom-sigkill", "    exitcode  : -9 (pid: 31337)"),
    ("host-oom-sigkill", "/var/spool/slurmd/job123/slurm_script: line 12: 31337 Killed                  python train.py"),
    ("shm-exhausted", "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."),
    ("shm-exhausted", "RuntimeError: DataLoader worker (pid 51873) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit."),
    ("shm-exhausted", "RuntimeError: unable to write to file </torch_1234_567_0>: No space left on device (28)"),
    ("bus-error", "Bus error (core dumped)"),
    ("dataloader-worker-died", "RuntimeError: DataLoader worker (pid(s) 4512, 4513) exited unexpectedly"),
    ("dataloader-worker-died", "RuntimeError: DataLoader worker (pid 4512) is killed by signal: Segmentation fault."),
    ("dataloader-worker-died", "RuntimeError: DataLoader timed out after 120 seconds"),
    ("dataloader-worker-exception", "OSError: Caught OSError in DataLoader worker process 3."),
    ("dataloader-worker-killed", "RuntimeError: DataLoader worker (pid 4512) is killed by signal: Killed."),
    ("collate-unequal", "RuntimeError: stack expects each tensor to be equal size, but got [3, 224, 224] at entry 0 and [1, 224, 224] at entry 5"),
    ("collate-unequal", "ValueError: Unable to create tensor, you should probably activate truncation and/or padding with 'padding=True' 'truncation=True' to have batched tensors with the same length. Perhaps your features (`labels` in this case) have excessive nesting (inputs type `list` where type `int` is expected)."),
    ("collate-unequal", "ValueError: expected sequence of length 128 at dim 1 (got 97)"),
    ("collate-resize-storage", "RuntimeError: Trying to resize storage that is not resizable"),
    # --- hardware ---
    ("gpu-fell-off-bus", "[1808708.703249] NVRM: Xid (PCI:0000:87:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."),
    ("gpu-fell-off-bus", "Unable to determine the device handle for GPU0000:00:1D.0: GPU is lost.  Reboot the system to recover this GPU"),
    ("gpu-ecc", "RuntimeError: CUDA error: uncorrectable ECC error encountered"),
    ("gpu-ecc", "[1953696.301455] NVRM: Xid (PCI:0000:07:00): 48, pid=28813, name=python, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0."),
    ("gpu-ecc", "[ 8822.120012] NVRM: Xid (PCI:0000:3b:00): 94, pid=4411, name=python, Contained: SM (0x1). RST: No, D-RST: No"),
    ("p2p-unsupported", "RuntimeError: CUDA error: peer access is not supported between these two devices"),
    ("p2p-unsupported", "ValueError: Using RTX 4000 series doesn't support faster communication broadband via P2P or IB. Please set `NCCL_P2P_DISABLE=\"1\"` and `NCCL_IB_DISABLE=\"1\" or use `accelerate launch` which will do this automatically."),
    ("p2p-hang", ("gpu-vm:3811:3906 [0] NCCL INFO Channel 00/0 : 0[5000] -> 1[6000] via P2P/IPC",
                  "[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800412 milliseconds before timing out.")),
    # --- inference ---
    ("vllm-kv-cache", "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (13376). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."),
    ("vllm-kv-cache", "ValueError: To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (7.44 GiB). Based on the available memory, the estimated maximum model length is 60928. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."),
    ("vllm-kv-cache", "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."),
    ("vllm-kv-cache-hint", "RuntimeError: engine startup failed: Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."),
    ("vllm-memory-in-use", "ValueError: Free memory on device (10.5/23.6 GiB) on startup is less than desired GPU memory utilization (0.9, 21.24 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes."),
    ("vllm-memory-in-use", "AssertionError: Error in memory profiling. Initial free memory 20.1 GiB, current free memory 22.3 GiB. This happens when the GPU memory was not properly cleaned up before initializing the vLLM instance."),
    ("vllm-oom-other-process", "(VllmWorkerProcess pid=2411) ERROR 08-14 02:18:26 multiproc_worker_utils.py:226] Exception in worker VllmWorkerProcess while processing method initialize_cache: CUDA out of memory. Tried to allocate 649.00 MiB."),
    # --- deepspeed ---
    ("ds-batch-config", "AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size 64 != 4 * 8 * 4"),
    ("ds-batch-config", "AssertionError: Gradient accumulation steps: 0 has to be greater than 0"),
    ("ds-batch-config", "ValueError: Please correct the following DeepSpeed config values that mismatch TrainingArguments values:"),
    ("ds-op-build", "RuntimeError: Error building extension 'fused_adam'"),
    ("ds-op-build", "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root."),
    ("ds-op-build", "deepspeed.ops.op_builder.builder.MissingCUDAException: CUDA_HOME does not exist, unable to compile CUDA op(s)"),
    ("ds-op-build", "AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'"),
    ("ds-op-build", "/usr/local/cuda/include/crt/host_config.h:143:2: error: #error -- unsupported GNU version! gcc versions later than 12 are not supported! The nvcc flag '-allow-unsupported-compiler' can be used to override this version check"),
    ("ninja-build-stopped", "ninja: build stopped: subcommand failed."),
    ("ds-zero3-empty-param", ("[Rank 0] Creating torch.bfloat16 ZeRO stage 3 optimizer",
                              "\tsize mismatch for score.weight: copying a param with shape torch.Size([3, 4096]) from checkpoint, the shape in current model is torch.Size([0]).")),
    ("ds-zero3-empty-param", "RuntimeError: 'weight' must be 2-D"),
    ("ds-zero-topology", "deepspeed.runtime.zero.utils.ZeRORuntimeException: The checkpoint being loaded used a DP world size of 16 but the current world size is 8. Automatic adjustment of ZeRO's optimizer state partitioning with a new world size is not currently supported."),
    ("ds-zero-topology", "FileNotFoundError: [Errno 2] No such file or directory: 'ckpt/global_step500/zero_pp_rank_9_mp_rank_00_optim_states.pt'"),
    ("ds-universal-missing", "AssertionError: /ckpt/run7/latest_universal does not exist"),
    ("ds-grad-reduced-twice", "AssertionError: The parameter 127 has already been reduced. Gradient computed twice for this partition. Multiple gradient reduction is currently not supported"),
    ("ds-ssh-unreachable", "pdsh@worker-0: worker-1: ssh exited with exit code 255"),
    ("ds-ssh-unreachable", "RuntimeError: Host worker-1 was not reachable via ssh. If you are running with a single node please remove /job/hostfile or set --num_nodes=1"),
    ("ds-ssh-publickey", "worker-1: Permission denied (publickey,password)."),
    # --- distributed ---
    ("nccl-watchdog", "[E ProcessGroupNCCL.cpp:475] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1021, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800126 milliseconds before timing out."),
    ("nccl-watchdog", "[rank7]:[E1015 07:46:11.027961942 ProcessGroupNCCL.cpp:1709] [PG 0 (default_pg) Rank 7] Timeout at NCCL work: 55126, last enqueued NCCL work: 55127, last completed NCCL work: 55125."),
    ("nccl-watchdog", "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 120000ms for recv operation to complete"),
    ("collective-mismatch", "RuntimeError: Detected mismatch between collectives on ranks. Rank 3 is running collective: CollectiveFingerPrint(SequenceNumber=23, OpType=ALLREDUCE, TensorShape=[1024], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda)), but Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=23, OpType=BROADCAST)."),
    ("collective-mismatch", "what():  [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456] op.preamble.length <= op.nbytes. 224 vs 216. Received data size doesn't match expected size. Is there a distributed collective mismatch in your code?"),
    ("collective-mismatch-barrier", "RuntimeError: Rank 0 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 1. Please check rank 1 logs for faulty rank."),
    ("collective-mismatch-lone-rank", ("[rank3]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:11696. This is typically caused by a remote worker crashing.",
                                       "Failures:", "  <NO_OTHER_FAILURES>")),
    ("collective-mismatch-watchdog", "[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2217604, OpType=_ALLGATHER_BASE, NumelIn=5242880, NumelOut=41943040, Timeout(ms)=1800000) ran for 1800475 milliseconds before timing out."),
    ("nccl-system-error", "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1"),
    ("nccl-system-error", "<HOST_2>:413:474 [2] misc/shmutils.cc:113 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-FnGcO9 (size 9637888)"),
    ("nccl-system-error", "gpu-a:1234:1300 [0] misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/nccl-nWkmFN to 9637892 bytes"),
    ("nccl-cuda-error", "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3"),
    ("nccl-cuda-error", "node-3:77311:78420 [1] include/alloc.h:103 NCCL WARN Cuda failure 'out of memory'"),
    ("nccl-invalid-usage", "gpu-dev:3815:4227 [0] init.cc:665 NCCL WARN Duplicate GPU detected : rank 4 and rank 0 both on CUDA device 1b0"),
    ("nccl-invalid-usage", "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1331, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.18.1"),
    ("nccl-network", "node-3:77311:78420 [1] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.0.0.12<52718> with error 12, opcode 0, len 0, vendor err 129 (Recv)"),
    ("nccl-network", "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."),
    ("peer-connection-reset", "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [10.0.0.2]:41234"),
    ("collective-mismatch-flight-recorder", "[flight recorder] pg=0 (default_pg) seq=5 op=gloo:barrier in=[] out=[] dtypes=[] state=scheduled frames=/workspace/job/job.py:71 main < /workspace/job/job.py:79 <module>"),
    ("rendezvous-timeout", "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError"),
    ("rendezvous-timeout", "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined."),
    ("rendezvous-timeout", "RuntimeError: The client socket has timed out after 900000ms while trying to connect to (10.0.0.1, 29500)."),
    ("rendezvous-timeout", "RuntimeError: Timed out initializing process group in store based barrier on rank: 3, for key: store_based_barrier_key:1 (world_size=16, worker_count=8, timeout=0:30:00)"),
    ("rendezvous-timeout", "torch.distributed.DistStoreError: Timed out initializing process group in store based barrier on rank 5, for key: store_based_barrier_key:1 (world_size=8, num_workers_joined=4, timeout=0:10:00 error=Wait timeout)"),
    ("store-socket-timeout", "RuntimeError: Socket Timeout"),
    ("address-in-use", "RuntimeError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use)."),
    ("address-in-use", "OSError: [Errno 98] Address already in use"),
    ("ddp-unused-params", "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This error indicates that your module has parameters that were not used in producing loss."),
    ("ddp-unused-params", "Parameter indices which did not receive grad for rank 1: 197 198"),
    ("ddp-ready-twice", "RuntimeError: Expected to mark a variable ready only once. This error is caused by one of the following reasons: 1) Use of a module parameter outside the `forward` function."),
    ("ddp-ready-twice", "Parameter at index 195 with name bert.encoder.layer.11.output.dense.weight has been marked as ready twice. This means that multiple autograd engine  hooks have fired for this particular parameter during this iteration."),
    ("fsdp-flatten", "ValueError: Must flatten tensors with uniform `requires_grad` when `use_orig_params=False`"),
    ("fsdp-flatten", "ValueError: Must flatten tensors with uniform dtype but got torch.bfloat16 and torch.float32"),
    ("fsdp-flatten", "RuntimeError: Error(s) in loading state_dict for FullyShardedDataParallel:"),
    ("fsdp-sharded-weight", (FSDP, "RuntimeError: 'weight' must be 2-D")),
    ("fsdp-flat-param", (FSDP, "RuntimeError: shape mismatch in _fsdp_wrapped_module._flat_param")),
    ("child-failed", "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "),
    ("child-failed", "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 4431) of binary: /usr/bin/python3"),
    # --- numerics ---
    ("loss-scale-floor", "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run."),
    ("loss-scale-overflow", "[2024-02-01 10:00:00,000] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 2, reducing to 1"),
    ("loss-scale-overflow", "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 0.5"),
    ("loss-nan", "{'loss': nan, 'grad_norm': nan, 'learning_rate': 1.9e-05, 'epoch': 0.42}"),
    ("loss-nan", "[2024-05-30 21:03:12] step 1200 | loss: nan | lr 3.0e-04"),
    ("loss-nan", "RuntimeError: Function 'LogSoftmaxBackward0' returned nan values in its 0th output."),
    ("loss-nan", "RuntimeError: The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"),
    ("nan-downstream", "RuntimeError: probability tensor contains either `inf`, `nan` or element < 0"),
    ("bf16-unsupported", "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU with cuda>=11.0"),
    ("bf16-unsupported", "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU has compute capability 7.5. You can use float16 instead by explicitly setting the`dtype` flag in CLI, for example: --dtype=half."),
    ("bf16-cublas-pre-ampere", ("GPU 0: Tesla V100-SXM2-32GB", "bf16=True,",
                                "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16BF, lda, b, CUDA_R_16BF, ldb, &fbeta, c, CUDA_R_16BF, ldc, CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`")),
    ("fp8-unsupported", "AssertionError: Device compute capability 8.9 or higher required for FP8 execution."),
    ("fp8-unsupported", "RuntimeError: torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 or 8.9, or ROCm MI300+"),
    ("fp8-unsupported", "ValueError: The quantization method fp8 is not supported for the current GPU. Minimum capability: 89. Current capability: 75."),
    ("fp8-alignment", "AssertionError: FP8 execution requires 2D input matrices with height divisible by 8 and width divisible by 16, but got tensor with dims=[4081, 4096]"),
    ("fp8-alignment", "RuntimeError: Expected trailing dimension of mat1 to be divisible by 16 but got mat1 shape: (4081x768)."),
    ("fp8-alignment-generic", "RuntimeError: mat2 must be col_major"),
    ("dtype-mismatch", "RuntimeError: expected scalar type Half but found Float"),
    ("dtype-mismatch", "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: c10::BFloat16 != float"),
    ("dtype-mismatch", "RuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should be the same"),
    ("dtype-mismatch", "RuntimeError: Input type (torch.FloatTensor) and weight type (torch.DoubleTensor) should be the same"),
    ("dtype-mismatch", "RuntimeError: expected scalar type Long but found Int"),
    # --- autograd ---
    ("inplace-modified", "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.cuda.FloatTensor [1024, 1]], which is output 0 of AsStridedBackward0, is at version 2; expected version 1 instead."),
    ("inplace-view", "RuntimeError: Output 0 of SplitBackward0 is a view and is being modified inplace. This view is the output of a function that returns multiple views."),
    ("backward-twice", "RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward."),
    ("no-grad-fn", "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"),
    ("no-grad-fn-reentrant-warning", "UserWarning: None of the inputs have requires_grad=True. Gradients will be None"),
    # --- model ---
    ("shape-mismatch", "RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x2048 and 512x10)"),
    ("shape-mismatch", "RuntimeError: The size of tensor a (4096) must match the size of tensor b (2048) at non-singleton dimension 3"),
    ("shape-mismatch", "RuntimeError: shape '[8, 128, 32, 128]' is invalid for input of size 2097152"),
    ("shape-mismatch", "RuntimeError: Given groups=1, weight of size [64, 3, 7, 7], expected input[8, 1, 224, 224] to have 3 channels, but got 1 channels instead"),
    ("shape-mismatch", "ValueError: Expected input batch_size (512) to match target batch_size (8)."),
    ("view-stride", "RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead."),
    ("device-mismatch", "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument index in method wrapper_CUDA__index_select)"),
    ("device-mismatch", "RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same or input should be a MKLDNN tensor and weight is a dense tensor"),
    ("device-mismatch", "RuntimeError: No backend type associated with device type cpu"),
    # --- checkpoint ---
    ("state-dict-keys", "\tMissing key(s) in state_dict: \"transformer.wte.weight\", \"transformer.wpe.weight\"."),
    ("state-dict-keys", "\tUnexpected key(s) in state_dict: \"_orig_mod.transformer.wte.weight\"."),
    ("state-dict-header", "RuntimeError: Error(s) in loading state_dict for ResNet:"),
    ("hf-unused-weights", "Some weights of the model checkpoint at bert-base-uncased were not used when initializing BertModel: ['cls.predictions.bias']"),
    ("state-dict-size", "\tsize mismatch for fc.weight: copying a param with shape torch.Size([1000, 2048]) from checkpoint, the shape in current model is torch.Size([10, 2048])."),
    ("state-dict-size", "You may consider adding `ignore_mismatched_sizes=True` in the model `from_pretrained` method."),
    ("weights-only", "_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint."),
    ("weights-only", "WeightsUnpickler error: Unsupported global: GLOBAL argparse.Namespace was not an allowed global by default. Please use `torch.serialization.add_safe_globals([Namespace])` to allowlist this global if you trust this class/function."),
    ("checkpoint-corrupt", "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory"),
    ("checkpoint-corrupt", "_pickle.UnpicklingError: invalid load key, 'v'."),
    ("checkpoint-corrupt", "safetensors_rust.SafetensorError: Error while deserializing header: MetadataIncompleteBuffer"),
    ("checkpoint-corrupt", "Unsupported operand 118"),
    ("pickle-eof", "EOFError: Ran out of input"),
    # --- environment ---
    ("undefined-torch-symbol", "ImportError: /opt/conda/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi"),
    ("undefined-torch-symbol", "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for: PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.2.0+cu121)"),
    ("undefined-torch-symbol", "RuntimeError: operator torchvision::nms does not exist"),
    ("undefined-symbol", "ImportError: /usr/lib/python3/dist-packages/apex_C.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZNK6google8protobuf7Message11GetTypeNameEv"),
    ("xformers-no-operator", "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:"),
    ("cuda-version-mismatch-build", "RuntimeError: The detected CUDA version (12.4) mismatches the version that was used to compile PyTorch (11.8). Please make sure to use the same CUDA versions."),
    ("cuda-version-mismatch-build", "deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version 12.2 does not match the version torch was compiled with 11.8, unable to compile cuda/cpp extensions without a matching cuda version."),
    ("toolkit-too-old-for-build", "RuntimeError: FlashAttention is only supported on CUDA 11.6 and above.  Note: make sure nvcc has a supported version by running nvcc -V."),
    ("bitsandbytes", "RuntimeError: CUDA Setup failed despite GPU being available. Please run the following command to get more information:"),
    ("bitsandbytes", "NameError: name 'str2optimizer8bit_blockwise' is not defined"),
    ("bitsandbytes", "AttributeError: /usr/local/lib/python3.10/dist-packages/bitsandbytes/libbitsandbytes_cpu.so: undefined symbol: cget_col_row_stats"),
    ("bitsandbytes-libcudart", "CUDA SETUP: WARNING! libcudart.so not found in any environmental path. Searching in backup paths..."),
    ("protobuf-old-generated-code", "TypeError: Descriptors cannot be created directly."),
    ("protobuf-old-generated-code", "TypeError: Descriptors cannot not be created directly."),
    ("protobuf-old-generated-code", "If this call came from a _pb2.py file, your generated code is out of date and must be regenerated with protoc >= 3.19.0."),
    ("numpy-abi", "A module that was compiled using NumPy 1.x cannot be run in NumPy 2.0.1 as it may crash. To support both 1.x and 2.x versions of NumPy, modules must be compiled with NumPy 2.0."),
    ("numpy-abi", "ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject"),
    ("numpy-unavailable", "RuntimeError: Numpy is not available"),
    ("glibcxx", "ImportError: /opt/conda/lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by /opt/conda/lib/python3.10/site-packages/torch/lib/libtorch_python.so)"),
    ("glibc", "ImportError: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.32' not found (required by /opt/venv/lib/python3.10/site-packages/xformers/_C.so)"),
    ("torch-compile", "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:"),
    ("torch-compile", "torch._inductor.exc.InvalidCxxCompiler: No working C++ compiler found in torch._inductor.config.cpp.cxx: (None, 'g++')"),
    ("torch-compile", "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: 65536. Reducing block sizes or `num_stages` may help."),
    ("python-h-missing", "/tmp/tmpq2_3b8xz/main.c:5:10: fatal error: Python.h: No such file or directory"),
    ("hf-hub", "OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached files and it looks like meta-llama/Llama-2-7b-hf is not the path to a directory containing a file named config.json."),
    ("hf-hub", "OSError: You are trying to access a gated repo. Make sure to have access to it at https://huggingface.co/meta-llama/Meta-Llama-3-8B-Instruct."),
    ("hf-hub", "OSError: models/llama-7b is not a local folder and is not a valid model identifier listed on 'https://huggingface.co/models'"),
    ("hf-tokenizer-load", "OSError: Can't load tokenizer for 'meta-llama/Llama-2-7b-hf'. If you were trying to load it from 'https://huggingface.co/models', make sure you don't have a local directory with the same name."),
    # --- infra ---
    ("too-many-open-files", "OSError: [Errno 24] Too many open files: '/data/shards/part-01234.parquet'"),
    ("too-many-open-files", "RuntimeError: received 0 items of ancdata"),
    ("disk-full", "OSError: [Errno 28] No space left on device: '/checkpoints/step_1200/pytorch_model.bin'"),
    ("disk-full", "RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 1493571328 vs 1493571216"),
    ("disk-full", "OSError: [Errno 122] Disk quota exceeded"),
    ("no-space-left", "tar: checkpoints/step_1200.tar: Cannot write: No space left on device"),
    ("slurm-time-limit", "slurmstepd: error: *** JOB 123456 ON gpu-01 CANCELLED AT 2024-05-01T10:00:00 DUE TO TIME LIMIT ***"),
    ("slurm-time-limit", "slurmstepd: error: *** STEP 881203.0 ON a100-spot-03 CANCELLED AT 2024-09-04T10:47:41 DUE TO PREEMPTION ***"),
    ("slurm-cancelled", "slurmstepd: error: *** JOB 771204 ON gpu-02 CANCELLED AT 2023-04-03T04:01:12 ***"),
    ("sighup", "W1003 03:13:56.761658 77410 torch/distributed/elastic/agent/server/api.py:696] Received 1 death signal, shutting down workers"),
    ("sighup", "torch.distributed.elastic.multiprocessing.api.SignalException: Process 77410 got signal: 1"),
    ("sigkill", "  traceback : Signal 9 (SIGKILL) received by PID 31337"),
    ("sigkill", "[2024-02-20 12:01:02,796] [ERROR] [launch.py:322:sigkill_handler] ['/usr/bin/python3', '-u', 'train.py', '--local_rank=3'] exits with return code = -9"),
    ("sigkill", "    Last State:     Terminated\n      Exit Code:    137"),
    ("k8s-liveness-kill", "  Normal   Killing    4m42s                kubelet  Container trainer failed liveness probe, will be restarted"),
]

# (rule id, lines that look related but must not fire it)
NEAR_MISSES: list[tuple[str, str | tuple[str, ...]]] = [
    ("fused-adam-illegal-access", "RuntimeError: CUDA error: an illegal memory access was encountered"),  # no fused Adam in the run
    ("illegal-memory-access", "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect."),
    ("device-side-assert", "python: ../nptl/pthread_mutex_lock.c:81: __pthread_mutex_lock: Assertion `mutex->__data.__owner == 0' failed."),
    ("device-side-assert", "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."),
    ("no-kernel-image", "torch.cuda.get_arch_list(): ['sm_80', 'sm_86', 'sm_90']"),
    ("driver-too-old", "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |"),
    ("cuda-not-available", "torch.cuda.is_available(): True"),
    ("cuda-reinit-fork", "multiprocessing start method: fork"),
    ("cublas", "CUBLAS_WORKSPACE_CONFIG=:4096:8"),
    ("cudnn", "torch.backends.cudnn.benchmark = True"),
    ("cuda-oom", "INFO: memory_allocated 12.3 GiB, max 14.0 GiB"),
    ("cuda-oom", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"),
    ("cuda-oom-fragmentation", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."),  # no reserved figures
    ("host-oom", "Memory usage: 61.2 GiB of 64 GiB (oom_score_adj=0)"),
    ("host-oom-sigkill", ("    exitcode  : -9 (pid: 31337)",
                          "slurmstepd: error: *** JOB 1234 ON gpu-01 CANCELLED AT 2024-05-01T10:00:00 DUE TO TIME LIMIT ***")),
    ("shm-exhausted", "df -h /dev/shm"),
    ("dataloader-worker-died", "DataLoader will create 8 worker processes in total."),
    ("collate-unequal", "stack trace follows"),
    ("gpu-fell-off-bus", "NVRM: Xid (PCI:0000:3b:00): 13, pid=1234, name=python, Graphics SM Warp Exception"),
    ("gpu-ecc", "| N/A   32C    P0    70W / 700W |      4MiB / 81559MiB |      0%      Default |"),
    ("p2p-hang", "[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE)"),  # no P2P
    ("vllm-kv-cache", "INFO 06-30 08:41:26 [gpu_worker.py:227] Available KV cache memory: 18.52 GiB"),
    ("vllm-memory-in-use", "gpu_memory_utilization=0.9"),
    ("ds-batch-config", '"train_batch_size": 64,'),
    ("ds-op-build", "Using /root/.cache/torch_extensions/py310_cu121 as PyTorch extensions root..."),
    ("ds-zero-topology", "[INFO] [torch_checkpoint_engine.py:27:load] [Torch] Loading checkpoint from ckpt/global_step500/zero_pp_rank_0_mp_rank_00_optim_states.pt..."),
    ("ds-grad-reduced-twice", "reduce_bucket_size: 500000000"),
    ("ds-ssh-unreachable", "cmd = pdsh -S -f 1024 -w worker-0,worker-1 export PYTHONPATH=/workspace"),
    ("nccl-watchdog", "NCCL_TIMEOUT=1800"),
    ("collective-mismatch", "TORCH_DISTRIBUTED_DEBUG=DETAIL"),
    ("collective-mismatch-lone-rank", ("RuntimeError: Connection closed by peer [10.0.0.2]:41234",)),  # other ranks may have failed
    ("nccl-system-error", "NCCL_SHM_DISABLE=0"),
    ("nccl-network", "gpu-a:1234:1300 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>"),
    ("rendezvous-timeout", "rdzv_configs             : {'timeout': 900}"),
    ("address-in-use", "master_port=29500"),
    ("ddp-unused-params", "UserWarning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused parameters in the forward pass."),
    ("ddp-ready-twice", "gradient_checkpointing=True, ddp_find_unused_parameters=True"),
    ("fsdp-sharded-weight", "RuntimeError: 'weight' must be 2-D"),  # no FSDP in the run
    ("child-failed", "torch.distributed.elastic.multiprocessing.errors is imported"),
    ("loss-scale-overflow", "loss scale: 65536.0"),
    ("loss-nan", "step 100 | loss 2.4339 | nan_count 0"),
    ("loss-nan", "val_loss: 0.4312"),
    ("bf16-unsupported", "torch.cuda.is_bf16_supported(): True"),
    ("fp8-unsupported", "fp8 recipe: DelayedScaling(margin=0, fp8_format=HYBRID)"),
    ("fp8-alignment", "pad_to_multiple_of=16"),
    ("dtype-mismatch", "dtype=torch.bfloat16"),
    ("dtype-mismatch", "RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same"),
    ("device-mismatch", "RuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should be the same"),
    ("inplace-modified", "nn.ReLU(inplace=True)"),
    ("backward-twice", "loss.backward(retain_graph=True)"),
    ("no-grad-fn", "trainable params: 4,194,304 || all params: 6,742,609,920 || trainable%: 0.0622"),
    ("shape-mismatch", "model output shape: torch.Size([8, 10])"),
    ("state-dict-keys", "All keys matched successfully"),
    ("state-dict-size", "size of the dataset: 120000"),
    ("weights-only", "FutureWarning: You are using `torch.load` with `weights_only=False` (the current default value), which uses the default pickle module implicitly."),
    ("checkpoint-corrupt", "Loading checkpoint shards: 100%|██████████| 2/2 [00:03<00:00,  1.52s/it]"),
    ("undefined-torch-symbol", "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory"),
    ("cuda-version-mismatch-build", "CUDA used to build PyTorch: 12.1"),
    ("bitsandbytes", "bitsandbytes 0.43.1"),
    ("numpy-abi", "numpy 1.26.4"),
    ("protobuf-old-generated-code", "TypeError: Couldn't build proto file into descriptor pool: duplicate file name (tensorboard/compat/proto/summary.proto)"),
    ("protobuf-old-generated-code", "TypeError: Objects of type MessageMeta may not be created directly."),
    ("glibcxx", "GLIBCXX_3.4.30 is provided by /usr/lib/x86_64-linux-gnu/libstdc++.so.6"),
    ("torch-compile", "torch.compile(model, mode='max-autotune')"),
    ("hf-hub", "Downloading shards: 100%|██████████| 2/2"),
    ("too-many-open-files", "ulimit -n 1048576"),
    ("disk-full", "Filesystem      Size  Used Avail Use% Mounted on"),
    ("no-space-left", "unable to write to file </torch_1234_567_0>: No space left on device (28)"),
    ("slurm-time-limit", "#SBATCH --time=24:00:00"),
    ("sighup", "I1130 03:11:17.349000 14954 torch/distributed/launcher/api.py:254]   signals_to_handle        : SIGTERM,SIGINT,SIGHUP,SIGQUIT"),
    ("sigkill", "kill -9 is not needed"),
    ("sigkill", ("    exitcode  : -9 (pid: 31337)", "[Mon Jul 22 14:30:57 2024] Out of memory: Killed process 31337 (python)")),
]


# The tables of the rule modules added per domain live beside this file, one module a domain
# (tests/rule_tables/<domain>.py, each with FIRES, NEAR_MISSES and optionally DECIDED_BY_CONTEXT), so that
# work on several domains at once adds rows without editing the same lines. They join the tables above.
def _domain_tables() -> list[object]:
    modules = []
    for path in sorted((Path(__file__).parent / "rule_tables").glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"rule_tables_{path.stem}", path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        modules.append(module)
    return modules


DOMAIN_TABLES = _domain_tables()
for _table in DOMAIN_TABLES:
    FIRES += _table.FIRES  # type: ignore[attr-defined]
    NEAR_MISSES += _table.NEAR_MISSES  # type: ignore[attr-defined]


def _ids(table: list[tuple[str, str | tuple[str, ...]]]) -> list[str]:
    return [f"{rule}-{i}" for i, (rule, _) in enumerate(table)]


def _lines(lines: str | tuple[str, ...]) -> tuple[str, ...]:
    return (lines,) if isinstance(lines, str) else lines


@pytest.mark.parametrize(("rule_id", "lines"), FIRES, ids=_ids(FIRES))
def test_rule_fires_on_the_real_message(rule_id, lines):
    assert rule_id in hits_of(*_lines(lines))


@pytest.mark.parametrize(("rule_id", "lines"), NEAR_MISSES, ids=_ids(NEAR_MISSES))
def test_rule_does_not_fire_on_a_near_miss(rule_id, lines):
    assert rule_id not in hits_of(*_lines(lines))


# (log lines, the catalogue id that must come first, why)
DECIDED_BY_CONTEXT: list[tuple[tuple[str, ...], str]] = [
    # FusedAdam + a partition over 2^31 elements + an illegal access: the FusedAdam entry; the same error alone: the generic one
    (("[Rank 0] DeepSpeed Basic Optimizer = FusedAdam", "Rank: 0 partition count [2] and sizes[(3369207808, False)]",
      "RuntimeError: CUDA error: an illegal memory access was encountered"), "deepspeed-fusedadam-illegal-memory-access"),
    (('  File "/usr/local/lib/python3.10/dist-packages/deepspeed/ops/adam/fused_adam.py", line 191, in step',
      "RuntimeError: CUDA error: an illegal memory access was encountered"), "deepspeed-fusedadam-illegal-memory-access"),
    (("optimizer: AdamW", "RuntimeError: CUDA error: an illegal memory access was encountered"), "cuda-illegal-memory-access"),
    # ZeRO-Offload runs DeepSpeedCPUAdam, not FusedAdam
    (("[Rank 0] DeepSpeed Basic Optimizer = DeepSpeedCPUAdam", "fused_adam is mentioned in a config comment",
      "RuntimeError: CUDA error: an illegal memory access was encountered"), "cuda-illegal-memory-access"),
    # OOM vs fragmentation vs a leak
    (("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.15 GiB of which 3.19 MiB is free. "
      "Of the allocated memory 78.50 GiB is allocated by PyTorch, and 120.00 MiB is reserved by PyTorch but unallocated.",), "cuda-oom"),
    (("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.10 GiB is free. "
      "Of the allocated memory 60.12 GiB is allocated by PyTorch, and 16.40 GiB is reserved by PyTorch but unallocated.",), "cuda-oom-fragmentation"),
    (("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 8.21 GiB already allocated; 3.19 MiB free; 14.53 GiB reserved in total by PyTorch)",),
     "cuda-oom-fragmentation"),
    (("[mem] step=20 allocated=7.30GiB", "[mem] step=40 allocated=8.95GiB", "[mem] step=60 allocated=10.61GiB", "[mem] step=80 allocated=12.25GiB",
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 128.00 MiB."), "cuda-memory-leak-growth"),
    (('  File "/usr/local/lib/python3.10/dist-packages/transformers/trainer_pt_utils.py", line 123, in nested_concat',
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 40.06 GiB."), "cuda-memory-leak-growth"),
    (("(VllmWorkerProcess pid=2411) ERROR 08-14 02:18:26 multiproc_worker_utils.py:226] Exception in worker VllmWorkerProcess while processing method "
      "initialize_cache: CUDA out of memory. Tried to allocate 649.00 MiB. Process 41234 has 38.60 GiB memory in use.",), "vllm-gpu-memory-in-use"),
    # cuBLAS / cuDNN / NCCL failures that only echo an earlier device-side assert, illegal access, OOM or a dying GPU
    (("/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1146: indexSelectLargeIndex: block: [0,0,0], thread: [0,0,0] Assertion `srcIndex < srcSelectDimSize` failed.",
      "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k, ...)`"), "cuda-device-side-assert"),
    (("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.", "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR"), "cuda-oom"),
    (("RuntimeError: CUDA error: an illegal memory access was encountered",
      "node-1:1234:1300 [0] include/alloc.h:103 NCCL WARN Cuda failure 'an illegal memory access was encountered'",
      "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1691, unhandled cuda error"), "cuda-illegal-memory-access"),
    (("RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k, ...)`",
      "[1953696.301455] NVRM: Xid (PCI:0000:07:00): 48, pid=28813, name=python, An uncorrectable double bit error (DBE) has been detected on GPU"),
     "gpu-ecc-error"),
    # the watchdog is the cause only when no rank failed first; ChildFailedError only when nothing better
    (("[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
      "[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1021, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800126 milliseconds before timing out.",
      "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "), "cuda-oom"),
    (("[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800126 milliseconds before timing out.",
      "[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800131 milliseconds before timing out.",
      "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "), "nccl-watchdog-timeout"),
    (("[rank2]: ValueError: Caught ValueError in DataLoader worker process 0.", "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "),
     "dataloader-worker-crash"),
    (("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 4431) of binary: /usr/bin/python3",
      "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "  exitcode  : 1 (pid: 4431)", "  error_file: <N/A>"), "torchrun-child-failed"),
    (("RuntimeError: stack expects each tensor to be equal size, but got [3, 224, 224] at entry 0 and [1, 224, 224] at entry 5",
      "RuntimeError: Caught RuntimeError in DataLoader worker process 0."), "collate-unequal-sample-shapes"),
    # a kill with no message: SIGKILL, the OOM killer, the scheduler's time limit, a hang-up
    (("Root Cause (first observed failure):", "[0]:", "  rank      : 1 (local_rank: 1)", "  exitcode  : -9 (pid: 31337)",
      "  traceback : Signal 9 (SIGKILL) received by PID 31337"), "process-killed-sigkill"),
    (("  exitcode  : -9 (pid: 31337)", "[Mon Jul 22 14:30:57 2024] Out of memory: Killed process 31337 (python) total-vm:98765432kB"), "host-oom-killed"),
    (("  exitcode  : -9 (pid: 31337)", "slurmstepd: error: *** JOB 1234 ON gpu-01 CANCELLED AT 2024-05-01T10:00:00 DUE TO TIME LIMIT ***"), "slurm-time-limit"),
    (("W1003 03:13:56.761658 77410 torch/distributed/elastic/agent/server/api.py:696] Received 1 death signal, shutting down workers",
      "W1003 03:13:56.763658 77410 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 77430 closing signal SIGHUP",
      "  exitcode  : -1 (pid: 77430)"), "sighup-session-hangup"),
    # a network error on the survivor's side of a peer that was killed first is collateral
    (("$ srun -l --nodes 2 --ntasks-per-node 1 torchrun --nnodes 2 --nproc_per_node 8 train.py",
      *(f"{node}: [2024-12-09 05:52:{10 + node}] step 9200 | loss 0.139" for node in (0, 1, 0, 1, 0, 1)),
      "1: E1209 05:53:21.890003 88514 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 5 (pid: 88535) of binary: /opt/venv/bin/python",
      "0: node-0:31232:31422 [2] transport/net_ib.cc:1733 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<46867> with error 12, opcode 0, len 0, vendor err 129 (Recv)",
      "0: [rank2]: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."), "process-killed-sigkill"),
    # bf16 on a V100 surfaces as a cuBLAS NOT_SUPPORTED
    (("GPU 0: Tesla V100-SXM2-32GB", "bf16=True,",
      "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16BF, lda, ...)`"),
     "bf16-unsupported"),
    # ZeRO-3's [0] shapes vs an honest size mismatch
    (("[Rank 0] Creating torch.bfloat16 ZeRO stage 3 optimizer",
      "\tsize mismatch for score.weight: copying a param with shape torch.Size([3, 4096]) from checkpoint, the shape in current model is torch.Size([0])."),
     "deepspeed-zero3-shape-mismatch"),
    (("\tsize mismatch for fc.weight: copying a param with shape torch.Size([1000, 2048]) from checkpoint, the shape in current model is torch.Size([10, 2048]).",),
     "checkpoint-size-mismatch"),
    # a git-lfs pointer under weights_only is a corrupt checkpoint, not a weights_only refusal
    (("_pickle.UnpicklingError: Weights only load failed. In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`.",
      "Unsupported operand 118"), "checkpoint-corrupt"),
]
for _table in DOMAIN_TABLES:
    DECIDED_BY_CONTEXT += getattr(_table, "DECIDED_BY_CONTEXT", [])


@pytest.mark.parametrize(("lines", "entry"), DECIDED_BY_CONTEXT, ids=[f"{e}-{i}" for i, (_, e) in enumerate(DECIDED_BY_CONTEXT)])
def test_facts_and_the_timeline_decide_between_look_alikes(lines, entry):
    assert top_entry(*lines) == entry


def test_every_hit_explains_its_adjustments():
    hits = extract_facts(log_of(
        "[Rank 0] DeepSpeed Basic Optimizer = FusedAdam", "Rank: 0 partition count [2] and sizes[(3369207808, False)]",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    )).rule_hits
    fused = next(h for h in hits if h.rule_id == "fused-adam-illegal-access")
    assert any("2^31" in r for r in fused.reasons) and fused.lines and fused.lines[0].line == 3


# --- the registry itself ---


def test_rule_ids_are_unique_and_name_kb_entries():
    ids = [r.id for r in RULES]
    assert len(ids) == len(set(ids))
    assert {r.entry for r in RULES} - set(KB.entries) == set()  # kb/ is the catalogue of record


def test_every_kb_entry_and_every_catalogue_id_has_a_rule():
    assert set(KB.entries) - {r.entry for r in RULES} == set()
    if not CATALOG.exists():
        pytest.skip("the failure catalogue is not beside this checkout")
    catalogue = {f["id"] for f in yaml.safe_load(CATALOG.read_text())["failures"]}
    assert catalogue - {r.entry for r in RULES} == set()


def test_every_rule_has_a_table_row_that_fires_it():
    assert {r.id for r in RULES} - {rule for rule, _ in FIRES} == set()


def test_every_rule_module_is_in_the_registry():
    """A new module in service/facts/rules/ must be registered, or its rules never fire and escape the tests."""
    import pkgutil

    import service.facts.rules as package

    found = {m.name for m in pkgutil.iter_modules(package.__path__)} - {"base"}
    assert found == {m.__name__.rsplit(".", 1)[1] for m in MODULES}


def test_every_pattern_has_a_comment_naming_its_log_line():
    for module in MODULES:
        source = inspect.getsource(module).splitlines()
        for rule in module.RULES:
            for pattern in rule.match:
                literal = next((i for i, line in enumerate(source) if repr(pattern)[1:-1][:40] in line or pattern[:40] in line), None)
                if literal is None:  # a shared constant, commented where it is defined
                    continue
                above = source[max(0, literal - 6) : literal + 1]
                assert any(line.strip().startswith("#") for line in above), f"{rule.id}: {pattern[:60]} has no comment"


def test_strengths_are_in_range():
    assert all(0.0 < r.strength <= 1.0 for r in RULES)


# --- the literal prefilter never hides a match ---


@pytest.mark.parametrize(
    ("pattern", "literals"),
    [
        (r"Cannot re-initialize CUDA in forked subprocess", ("cannot re-initialize cuda in forked subprocess",)),
        (r"unhandled system error|ncclSystemError", ("ncclsystemerror", "unhandled system error")),
        (r"CUBLAS_STATUS_[A-Z_]+", ("cublas_status_",)),
        (r"(?i:loss (?:is|became|was) nan)", ("loss ",)),
        (r"\d+", ()),  # nothing literal: always searched
        (r"(?:ab)?cd", ()),  # too short to filter
    ],
)
def test_required_literals(pattern, literals):
    assert required_literals(pattern) == literals


def test_the_prefilter_keeps_every_pattern_that_matches_a_table_line():
    lines = [line for _, ls in FIRES + NEAR_MISSES for line in _lines(ls)]
    for text in lines:
        candidates = set(_INDEX.candidates(text.lower()))
        for index, (_, pattern, _) in enumerate(_PATTERNS):
            if pattern.search(text):
                assert index in candidates, f"{pattern.pattern[:60]} matches {text[:60]} but was filtered out"


def test_literal_index_is_case_insensitive_and_keeps_unfilterable_patterns():
    index = LiteralIndex([("cublas_status_",), (), ("nccl warn",)])
    assert index.candidates("RuntimeError: CUBLAS_STATUS_EXECUTION_FAILED".lower()) == [0, 1]
    assert index.candidates("nothing here") == [1]


def test_literal_index_finds_exactly_the_literals_a_substring_test_finds():
    """The RE2 set reports every literal the line holds (overlapping ones, punctuation, non-ASCII, a literal
    inside another) and none it does not: the same answer as ``lit in line`` for every pattern."""
    sets = [lits for _, _, lits in _PATTERNS] + [("a.b",), ("(x)", "é€"), ("nccl", "nccl warn"), ("\\n[",), ("cl w",)]
    index = LiteralIndex(sets)
    lines = [line for _, ls in FIRES + NEAR_MISSES for line in _lines(ls)]
    lines += ["axb a.b", "(x) é€ nccl warn", "literal \\n[ here", "NCCL WARN", "", "ab"]
    for text in lines:
        low = text.lower()
        want = [i for i, lits in enumerate(sets) if not lits or any(lit in low for lit in lits)]
        assert index.candidates(low) == want, text[:80]
