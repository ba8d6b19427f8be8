"""Memory: GPU OOM and its three look-alikes (fragmentation, a leak, the host OOM killer), shared memory, workers."""

from __future__ import annotations

from service.facts.rules.base import Boost, Rule

# "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB ..."
# "torch.cuda.OutOfMemoryError: CUDA out of memory."; "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; ...)"
GPU_OOM = r"CUDA out of memory"
# Explicit OOM-killer records: dmesg "Out of memory: Killed process 1234 (python)", "Memory cgroup out of memory: Killed process",
# "python invoked oom-killer: gfp_mask=...", Slurm "Detected 1 oom_kill event in StepId=123.0", "oom-kill event",
# Kubernetes "Reason: OOMKilled", Slurm "Some of your processes may have been killed by the cgroup out-of-memory handler"
OOM_KILLER = (
    r"Out of memory: Kill(?:ed)? process|Memory cgroup out of memory|invoked oom-killer|oom[-_]kill(?:_process)? event|"
    r"\bOOMKilled\b|killed by the cgroup out-of-memory handler|oom_kill_process|Detected \d+ oom[-_]kill"
)
# A process ended by SIGKILL: torchrun "exitcode  : -9", "Signal 9 (SIGKILL) received by PID 1234",
# multiprocessing "died with <Signals.SIGKILL: 9>", DeepSpeed "exits with return code = -9", bash "Killed", "exit code 137"
# Kubernetes "Exit Code:    137"; bash on a killed job: "slurm_script: line 12: 31337 Killed                  python train.py"
SIGKILLED = (
    r"exitcode\s*:\s*-9\b|Signal 9 \(SIGKILL\)|<Signals\.SIGKILL: 9>|exits with return code = -9\b|"
    r"(?i:exit(?:ed with)? code|exit status|ExitCode)\s*[ :=]\s*137\b|^(?:.*\s)?Killed\s*$|\bkilled by signal: Killed\b|\b\d+ Killed {2,}\S"
)
# the scheduler or the user stopped the job: its kills are not the host's OOM killer
SCHEDULER_KILL = r"DUE TO TIME LIMIT|DUE TO PREEMPTION|\*\*\* (?:JOB|STEP) [\d.]+ ON \S+ CANCELLED AT|TERM_RUNLIMIT|walltime \d+ exceeded|Received 1 death signal"
# Memory pressure on the host right before a kill: loading whole checkpoints per rank, CPU offload, DeepSpeed's report
HOST_MEMORY_PRESSURE = r"Loading checkpoint shards|offload_(?:optimizer|param)|DeepSpeedCPUAdam|CPU Virtual Memory:.*percent = 9\d"

RULES: tuple[Rule, ...] = (
    Rule(
        "cuda-oom-fragmentation",
        "cuda-oom-fragmentation",
        # the OOM line itself; the fragmentation evidence is the numbers in it (fact oom_fragmented)
        (GPU_OOM,),
        0.3,
        # new format "... 14.20 GiB is reserved by PyTorch but unallocated."; old format "... 30.12 GiB reserved in total by PyTorch)"
        needs=(r"reserved by PyTorch but unallocated|reserved in total by PyTorch",),
        boosts=(
            Boost(0.5, "reserved-but-unallocated memory is larger than the failed request and a sizable share of the GPU", fact="oom_fragmented", value="yes"),
            # DeepSpeed ZeRO-3: "pytorch allocator cache flushes since last step. this happens when there is high memory pressure"
            Boost(0.1, "DeepSpeed warned about allocator cache flushes", line=r"allocator cache flushes since last step"),
            Boost(-0.2, "expandable_segments is already on", line=r"PYTORCH_CUDA_ALLOC_CONF=\S*expandable_segments:True", not_with=r"expandable_segments:True\S* to avoid"),
        ),
    ),
    Rule(
        "cuda-memory-leak-growth",
        "cuda-memory-leak-growth",
        (GPU_OOM,),
        0.3,
        boosts=(
            Boost(0.45, "allocated memory rose step after step before the OOM", fact="memory_growth", value="yes"),
            # HF Trainer evaluation keeping every batch's logits on the GPU: "in nested_concat", "torch_pad_and_concatenate"
            Boost(0.35, "the OOM is in the evaluation loop accumulating outputs", line=r"in nested_concat|torch_pad_and_concatenate|in evaluation_loop"),
            Boost(0.05, "the run had completed many steps", fact="failure_step", value=r"^\d{3,}$"),
        ),
    ),
    Rule(
        "cuda-oom",
        "cuda-oom",
        (
            # "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
            GPU_OOM,
            # "RuntimeError: CUDA error: out of memory"; cupy "cudaErrorMemoryAllocation"
            r"CUDA error: out of memory|cudaErrorMemoryAllocation",
            # accelerate find_executable_batch_size: "RuntimeError: No executable batch size found, reached zero."
            r"No executable batch size found, reached zero",
            # JAX/XLA: "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1.5GiB"; TF "OOM when allocating tensor with shape"
            r"RESOURCE_EXHAUSTED: Out of memory while trying to allocate|OOM when allocating tensor with shape",
        ),
        0.75,
        boosts=(
            Boost(-0.2, "reserved-but-unallocated memory is large (fragmentation)", fact="oom_fragmented", value="yes"),
            Boost(-0.25, "allocated memory grew step after step (a leak)", fact="memory_growth", value="yes"),
            Boost(-0.1, "the OOM is in the evaluation loop accumulating outputs", line=r"in nested_concat|torch_pad_and_concatenate"),
            # vLLM sizing its KV cache: "while processing method initialize_cache" / "determine_num_available_blocks" / "profile_run"
            Boost(-0.2, "vLLM ran out of memory while sizing its cache (see the vLLM entries)",
                  line=r"while processing method (?:initialize_cache|determine_num_available_blocks)|in determine_num_available_blocks|in profile_run"),
        ),
    ),
    Rule(
        "host-oom",
        "host-oom-killed",
        (OOM_KILLER,),
        0.9,
    ),
    Rule(
        "host-oom-sigkill",
        "host-oom-killed",
        # a SIGKILL with no message of its own: the usual culprit is the kernel's OOM killer
        (SIGKILLED,),
        0.45,
        unless=(OOM_KILLER, SCHEDULER_KILL, r"failed liveness probe"),
        boosts=(
            Boost(0.2, "host memory was under pressure before the kill (checkpoint loading, CPU offload, tokenising)", line=HOST_MEMORY_PRESSURE),
            Boost(-0.2, "a GPU out-of-memory error is in the log", line=GPU_OOM),
        ),
    ),
    Rule(
        "shm-exhausted",
        "dataloader-shm-exhausted",
        (
            # "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."
            r"insufficient shared memory \(shm\)",
            # "RuntimeError: DataLoader worker (pid 1234) is killed by signal: Bus error. It is possible that dataloader's
            #  workers are out of shared memory. Please try to raise your shared memory limit."
            r"dataloader's workers are out of shared memory",
            # "RuntimeError: unable to allocate shared memory(shm) for file </torch_1234_567_0>: Resource temporarily unavailable (11)"
            r"unable to allocate shared memory\(shm\)",
            # "RuntimeError: unable to write to file </torch_1234_567_0>: No space left on device (28)"; "unable to mmap 1234 bytes from file </torch_"
            r"unable to (?:write to file|mmap \d+ bytes from file|open shared memory object) </torch_",
            # "DataLoader worker (pid 1234) is killed by signal: Bus error."
            r"is killed by signal: Bus error",
        ),
        0.9,
    ),
    Rule(
        "bus-error",
        "dataloader-shm-exhausted",
        # bash / the runtime: "Bus error (core dumped)"; faulthandler "Fatal Python error: Bus error"
        (r"Bus error \(core dumped\)|Fatal Python error: Bus error",),
        0.45,
        boosts=(Boost(0.25, "DataLoader workers are in use", line=r"DataLoader|num_workers|_MultiProcessingDataLoaderIter"),),
    ),
    Rule(
        "dataloader-worker-died",
        "dataloader-worker-crash",
        (
            # "RuntimeError: DataLoader worker (pid(s) 1234, 1235) exited unexpectedly"
            r"DataLoader worker \(pids?\(?s?\)? [\d, ]+\) exited unexpectedly",
            # "RuntimeError: DataLoader worker (pid 1234) is killed by signal: Segmentation fault." / "Aborted." / "Floating point exception."
            r"DataLoader worker \(pid \d+\) is killed by signal: (?:Segmentation fault|Aborted|Floating point exception|Illegal instruction)",
            # "ERROR: Unexpected segmentation fault encountered in worker."; "ERROR: Unexpected floating-point exception encountered in worker."
            r"Unexpected (?:segmentation fault|floating-point exception) encountered in worker",
            # "RuntimeError: DataLoader timed out after 120 seconds"
            r"DataLoader timed out after \d+ seconds",
        ),
        0.8,
        boosts=(Boost(-0.3, "shared memory ran out (see the shm entry)", line=r"shared memory|/dev/shm|Bus error"),),
    ),
    Rule(
        "dataloader-worker-exception",
        "dataloader-worker-crash",
        (
            # "ValueError: Caught ValueError in DataLoader worker process 3." (the inner error follows "Original Traceback":
            # when a rule names that one, this wrapper steps aside)
            r"Caught \w+ in DataLoader worker process \d+",
        ),
        0.75,
        consequence=True,
    ),
    Rule(
        "dataloader-worker-killed",
        "dataloader-worker-crash",
        # "RuntimeError: DataLoader worker (pid 1234) is killed by signal: Killed." (SIGKILL: usually the OOM killer)
        (r"DataLoader worker \(pid \d+\) is killed by signal: Killed",),
        0.55,
        boosts=(Boost(-0.3, "the kernel or the scheduler recorded an OOM kill", line=OOM_KILLER),),
    ),
    Rule(
        "collate-unequal",
        "collate-unequal-sample-shapes",
        (
            # "RuntimeError: stack expects each tensor to be equal size, but got [3, 224, 224] at entry 0 and [1, 224, 224] at entry 5"
            r"stack expects each tensor to be equal size, but got",
            # "RuntimeError: each element in list of batch should be of equal size"
            r"each element in list of batch should be of equal size",
            # transformers: "ValueError: Unable to create tensor, you should probably activate truncation and/or padding with
            #  'padding=True' 'truncation=True' to have batched tensors with the same length."
            r"Unable to create tensor, you should probably activate truncation and/or padding",
            # "ValueError: expected sequence of length 128 at dim 1 (got 97)"
            r"expected sequence of length \d+ at dim \d+ \(got \d+\)",
            # NumPy: "ValueError: setting an array element with a sequence. The requested array has an inhomogeneous shape after 1 dimensions."
            r"The requested array has an inhomogeneous shape after",
        ),
        0.85,
        boosts=(Boost(0.05, "the traceback goes through the collate function", line=r"collate_tensor_fn|default_collate|collate_fn|DataCollator"),),
    ),
    Rule(
        "collate-resize-storage",
        "collate-unequal-sample-shapes",
        # worker collate into shared memory: "RuntimeError: Trying to resize storage that is not resizable"
        (r"Trying to resize storage that is not resizable",),
        0.6,
        boosts=(Boost(0.2, "raised while collating a batch", line=r"collate_tensor_fn|default_collate|collate\.py"),),
    ),
)
