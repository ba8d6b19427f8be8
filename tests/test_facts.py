"""Facts: real-format lines per fact source, near misses that must not fire, ranks and collateral."""

from __future__ import annotations

import pytest

from service.facts import extract_facts
from service.facts.gpus import compute_capability
from service.facts.ranks import line_rank, timestamp_key
from service.models import MaskedFile, MaskedLog


def log_of(*lines: str, name: str = "train.log") -> MaskedLog:
    return MaskedLog(files=[MaskedFile(name=name, lines=list(lines))])


def facts_of(*lines: str) -> dict[str, str]:
    """The facts a log of these lines yields, name -> value."""
    return {k: v.value for k, v in extract_facts(log_of(*lines)).values.items()}


FACT_LINES = [
    # (line, fact, value)
    ("GPU 0: NVIDIA H100 80GB HBM3", "gpu_model", "H100 80GB HBM3"),
    ("|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |", "gpu_model", "A100-SXM4-80GB"),
    ("|   0  Tesla V100-SXM2-32GB           On  | 00000000:06:00.0 Off |                    0 |", "gpu_model", "Tesla V100-SXM2-32GB"),
    ("| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |", "driver_version", "535.104.05"),
    ("Nvidia driver version: 550.54.15", "driver_version", "550.54.15"),
    ("CUDA used to build PyTorch: 12.1", "cuda_version", "12.1"),
    ("PyTorch version: 2.1.2+cu118", "torch_version", "2.1.2"),
    ("PyTorch version: 2.1.2+cu118", "cuda_version", "11.8"),
    ("torch==2.3.0+cu121", "torch_version", "2.3.0"),
    ("gpu-node-1:1234:1234 [0] NCCL INFO NCCL version 2.18.1+cuda12.1", "nccl_version", "2.18.1"),
    ("deepspeed info ................... 0.12.6, unknown, unknown", "deepspeed_version", "0.12.6"),
    ("[2024-05-01 10:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.14.2, git-hash=unknown", "deepspeed_version", "0.14.2"),
    ("Python version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)", "python_version", "3.10.12"),
    ("[2024-05-01 10:00:00,000] torch.distributed.run: [WARNING] ", "launcher", "torchrun"),
    ("[2024-05-01 10:00:00,000] [INFO] [launch.py:152:main] nnodes=2, num_local_procs=8, node_rank=0", "launcher", "deepspeed"),
    ("[2024-05-01 10:00:00,000] [INFO] [launch.py:152:main] nnodes=2, num_local_procs=8, node_rank=0", "num_nodes", "2"),
    ("slurmstepd: error: *** STEP 4242.0 ON gpu-01 CANCELLED AT 2024-05-01T10:00:00 ***", "launcher", "srun"),
    ("  world_size ................... 16", "world_size", "16"),
    ("bf16=True,", "precision", "bf16"),
    ('json = {"fp16": {"enabled": true, "loss_scale": 0}}', "precision", "fp16"),
    ("accelerate launch --mixed_precision bf16 train.py", "precision", "bf16"),
    ("[Rank 0] DeepSpeed Basic Optimizer = FusedAdam", "optimizer", "FusedAdam"),
    ('"zero_optimization": {"stage": 3, "overlap_comm": true}', "zero_stage", "3"),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.02 GiB is free.", "oom_tried_to_allocate", "2.50 GiB"),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.02 GiB is free.", "oom_total_capacity", "79.15 GiB"),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.02 GiB is free.", "oom_free", "1.02 GiB"),
    ("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 14.21 GiB already allocated; 3.19 MiB free; 14.53 GiB reserved in total by PyTorch)", "oom_free", "3.19 MiB"),
    ("    exitcode  : -9 (pid: 31337)", "exit_code", "-9"),
    ("    error_file: <N/A>  traceback : Signal 9 (SIGKILL) received by PID 31337", "signal", "SIGKILL"),
    ("[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.", "xid", "79"),
    (" 37%|███▋      | 1850/5000 [1:02:11<1:45:50,  2.02s/it]", "failure_step", "1850"),
    # collect_env
    ("GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090", "gpu_model", "GeForce RTX 4090"),
    ("CUDA runtime version: 12.1.105", "cuda_toolkit_version", "12.1"),
    ("OS: Ubuntu 22.04.3 LTS (x86_64)", "os", "Ubuntu 22.04.3 LTS"),
    ("Libc version: glibc-2.35", "glibc_version", "2.35"),
    ("[pip3] torch==2.1.2", "torch_version", "2.1.2"),
    ("[pip3] numpy==1.26.2", "numpy_version", "1.26.2"),
    # ds_report
    ("torch version .................... 2.1.2+cu121", "torch_version", "2.1.2"),
    ("torch cuda version ............... 12.1", "cuda_version", "12.1"),
    ("nvcc version ..................... 11.8", "cuda_toolkit_version", "11.8"),
    ("shared memory (/dev/shm) size .... 64.00 MB", "shm_size", "64.00 MB"),
    # nvidia-smi: the table, -L, CSV queries
    ("|   0  A10G                On   | 00000000:00:1E.0 Off |                    0 |", "gpu_model", "A10G"),
    ("|   0  Tesla T4            Off  | 00000000:00:04.0 Off |                    0 |", "gpu_model", "Tesla T4"),
    ("| NVIDIA-SMI 525.105.17  Driver Version: 525.105.17   CUDA Version: 12.0      |", "driver_cuda_version", "12.0"),
    ("GPU 0: NVIDIA A10G (UUID: GPU-5e1f2c3a-90b1-7d44-2a8e-61c9f0d3b7a2)", "gpu_model", "A10G"),
    ("Tesla T4, 7.5, 535.104.05", "gpu_model", "Tesla T4"),
    ("Tesla T4, 7.5, 535.104.05", "compute_capability", "7.5"),
    ("Tesla T4, 7.5, 535.104.05", "driver_version", "535.104.05"),
    ("0, NVIDIA A100-PCIE-40GB, 40960 MiB, 4 MiB", "gpu_model", "A100-PCIE-40GB"),
    # NCCL INFO
    ("gpu-node-1:4431:4609 [0] NCCL INFO comm 0xeccfe401 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 10000 commId 0x38 - Init START", "world_size", "16"),
    ("gpu-node-1:4431:4431 [0] NCCL INFO cudaDriverVersion 12020", "driver_cuda_version", "12.2"),
    ("gpu-node-1:4431:4431 [0] NCCL INFO NCCL version 2.18.1+cuda12.1", "cuda_version", "12.1"),
    # DeepSpeed: launcher, engine and config printouts
    ("[2024-05-01 10:00:00,000] [INFO] [launch.py:163:main] dist_world_size=16", "world_size", "16"),
    ("[2024-05-01 10:00:00,000] [INFO] [launch.py:151:main] nnodes=2, num_local_procs=8, node_rank=0", "nproc_per_node", "8"),
    ("[2024-05-01 10:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] Creating torch.bfloat16 ZeRO stage 2 optimizer", "precision", "bf16"),
    ("[2024-05-01 10:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] Creating torch.bfloat16 ZeRO stage 2 optimizer", "zero_stage", "2"),
    ("[2024-05-01 10:00:00,000] [INFO] [config.py:988:print]   zero_optimization_stage ...... 3", "zero_stage", "3"),
    ("[2024-05-01 10:00:00,000] [INFO] [config.py:988:print]   fp16_enabled ................. True", "precision", "fp16"),
    ("[2024-05-01 10:00:00,000] [INFO] [stage_1_and_2.py:143:__init__] Using DeepSpeed Optimizer param name adamw as basic optimizer", "optimizer", None),
    # HF TrainingArguments, accelerate and transformers-cli env
    ("optim=OptimizerNames.ADAMW_TORCH,", "optimizer", "AdamW"),
    ("--optim adamw_bnb_8bit", "optimizer", "AdamW8bit"),
    ("Mixed precision type: fp16", "precision", "fp16"),
    ("Num processes: 4", "world_size", "4"),
    ("- `Accelerate` version: 0.25.0", "accelerate_version", "0.25.0"),
    ("- `transformers` version: 4.36.2", "transformers_version", "4.36.2"),
    ("- PyTorch version (GPU?): 2.1.2+cu118 (True)", "cuda_version", "11.8"),
    ("- GPU type: Tesla V100-SXM2-32GB", "gpu_model", "Tesla V100-SXM2-32GB"),
    ("Using cuda_amp half precision backend", "precision", "fp16"),
    ("Using bfloat16 Automatic Mixed Precision (AMP)", "precision", "bf16"),
    # pip list / freeze and install logs
    ("transformers              4.36.2", "transformers_version", "4.36.2"),
    ("flash-attn==2.5.8", "flash_attn_version", "2.5.8"),
    ("nvidia-nccl-cu12==2.18.1", "nccl_version", "2.18.1"),
    ("Successfully installed torch-2.1.2+cu121 triton-2.1.0", "cuda_version", "12.1"),
    ("bitsandbytes 0.41.3.post2", "bitsandbytes_version", "0.41.3.post2"),
    # banners
    ("11/03/2023 13:31:19 - INFO - __main__ - torch 2.1.0+cu121, transformers 4.34.1, peft 0.6.2, accelerate 0.24.1", "accelerate_version", "0.24.1"),
    ("ppe-detector | Ultralytics YOLOv8.0.196 🚀 Python-3.11.11 torch-2.6.0+cu124 CUDA:0 (NVIDIA L4, 22478MiB)", "python_version", "3.11.11"),
    ("2.0.1+cu118 11.8 True", "torch_version", "2.0.1"),
    # torchrun headers and the agent
    ("$ torchrun --nnodes=2 --nproc_per_node=8 --rdzv_backend c10d train.py", "num_nodes", "2"),
    ("I1130 03:11:17.349000 14954 torch/distributed/launcher/api.py:254]   nproc_per_node           : 4", "nproc_per_node", "4"),
    ("I1130 04:45:06.358000 22846 torch/distributed/elastic/agent/server/api.py:553]   global_world_sizes=[4, 4, 4, 4]", "world_size", "4"),
    ("E1130 03:10:46.119000 14646 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -6) local_rank: 0 (pid: 14657) of binary: python", "exit_code", "-6"),
    ("E1130 03:10:46.119000 14646 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -6) local_rank: 0 (pid: 14657) of binary: python", "signal", "SIGABRT"),
    # Slurm headers and the scheduler
    ("SLURM_NNODES=2", "num_nodes", "2"),
    ("#SBATCH --nodes=4", "num_nodes", "4"),
    ("SLURM_NTASKS=16", "slurm_ntasks", "16"),
    ("+ srun -l --ntasks=8 --gpus-per-task=1 python train.py", "launcher", "srun"),
    ("    Exit Code:    137", "exit_code", "137"),
    ("    Exit Code:    137", "signal", "SIGKILL"),
    # dmesg
    ("[Mon Jul 22 14:30:57 2024] Out of memory: Killed process 31337 (python) total-vm:98765432kB", "oom_killed_process", "31337 (python)"),
    ("[  5.123456] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024", "driver_version", "550.54.15"),
    # parallelism
    ("INFO 06-30 08:41:20 [config.py:1234] tensor_parallel_size=4, pipeline_parallel_size=2", "tensor_parallel_size", "4"),
    ("INFO 06-30 08:41:20 [config.py:1234] tensor_parallel_size=4, pipeline_parallel_size=2", "pipeline_parallel_size", "2"),
    ("sharding_strategy=ShardingStrategy.FULL_SHARD", "fsdp", "FULL_SHARD"),
    ("distributed_type: FSDP", "fsdp", "yes"),
    # precision hints, launchers, optimizers from command lines
    ("+ python train.py --config configs/llama-8b-fp8.yaml --fp8 hybrid", "precision", "fp8"),
    ("torch 2.3.0+cu121 | GPU NVIDIA GeForce RTX 4090 (23.65 GiB) | amp fp16 | channels_last", "precision", "fp16"),
    ("(sd) C:\\Users\\dev\\lora>python train_lora.py --resolution 768", "launcher", "python"),
    ("+ exec python3 -m vllm.entrypoints.openai.api_server --model meta-llama/Meta-Llama-3-8B-Instruct", "launcher", "python"),
    ("$ mpirun -np 16 -hostfile hosts python train.py", "launcher", "mpirun"),
    ("$ mpirun -np 16 -hostfile hosts python train.py", "world_size", "16"),
    ("(RayTrainWorker pid=18301, ip=10.0.12.7) Setting up process group for: env:// [rank=0, world_size=2]", "launcher", "ray"),
    ("Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4", "world_size", "4"),
]


@pytest.mark.parametrize(("line", "fact", "value"), FACT_LINES, ids=[f"{f}:{i}" for i, (_, f, _) in enumerate(FACT_LINES)])
def test_fact_is_read_from_its_source_line(line, fact, value):
    assert facts_of(line).get(fact) == value


def test_every_fact_cites_the_line_and_the_rule_it_came_from():
    facts = extract_facts(log_of("step 1 | loss 2.0", "PyTorch version: 2.1.2+cu121")).values
    assert facts["torch_version"].line == 2 and facts["torch_version"].source == "collect_env.torch"
    assert facts["cuda_version"].file == "train.log"


NEAR_MISSES = [
    # (line, fact that must NOT be extracted)
    ("Found existing installation: torch 2.0.1+cu117", "torch_version"),  # the version being removed
    ("I1130 03:11:17.349000 14954 torch/distributed/launcher/api.py:254]   signals_to_handle        : SIGTERM,SIGINT,SIGHUP,SIGQUIT", "signal"),
    ("W1130 03:10:46.050000 14646 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 14658 closing signal SIGTERM", "signal"),
    ("AssertionError: Device compute capability 8.9 or higher required for FP8 execution.", "compute_capability"),  # a requirement
    ("|   0  Tesla V100-SXM2...  On   | 00000000:00:1E.0 Off |                    0 |", "gpu_model"),  # truncated by nvidia-smi
    ("+ python -m torch.utils.collect_env", "launcher"),
    ("pdsh@worker-0: worker-1: ssh exited with exit code 250", "exit_code"),
    ("grad norm (inf) on rank 11 at step 8423; zeroing grads and retry", "failure_step"),
    ("max_steps=5000,", "failure_step"),
    ("Generating train split: 100%|██████████| 61135/61135 [00:02<00:00, 27544.12 examples/s]", "failure_step"),  # a finished data pass
    ("ModuleNotFoundError: No module named 'torch.distributed.elastic'", "gpu_model"),
    ("Loaded 1,234 examples from the GPU-poor split", "gpu_model"),
    ("epoch 3 learning_rate 0.0003", "failure_step"),
    ("NCCL_DEBUG=INFO", "nccl_version"),
    ("We recommend fp16 for speed; this run keeps fp32", "precision"),
    ("Driver version check skipped", "driver_version"),
]


@pytest.mark.parametrize(("line", "fact"), NEAR_MISSES)
def test_near_misses_do_not_fire(line, fact):
    assert fact not in facts_of(line)


@pytest.mark.parametrize(
    ("model", "cap"),
    [("H100 80GB HBM3", "9.0"), ("A100-SXM4-80GB", "8.0"), ("A10G", "8.6"), ("GeForce RTX 4090", "8.9"),
     ("L40S", "8.9"), ("L4", "8.9"), ("T4", "7.5"), ("V100-SXM2-32GB", "7.0"), ("B200", "10.0"), ("GeForce RTX 3090", "8.6"),
     ("H20", "9.0"), ("GeForce RTX 5090", "12.0"), ("Tesla T4", "7.5"), ("A100 80GB PCIe", "8.0")],
)
def test_compute_capability_of_gpu_models(model, cap):
    assert compute_capability(model) == cap


def test_capability_and_arch_are_derived_from_the_gpu_line():
    f = facts_of("GPU 0: NVIDIA H100 80GB HBM3")
    assert f["compute_capability"] == "9.0" and f["gpu_arch"] == "sm_90"


@pytest.mark.parametrize(
    ("line", "rank"),
    [
        ("[rank3]: Traceback (most recent call last):", 3),
        ("[default5]:[W ProcessGroupNCCL.cpp:1234] Warning", 5),
        ("12: RuntimeError: CUDA error", 12),
        ("[1,7]<stderr>:RuntimeError: boom", 7),
        ("node-3: [rank17]: torch.OutOfMemoryError: CUDA out of memory.", 17),
        ("RuntimeError: CUDA error", None),
        ("2024-05-01 10:00:00 INFO step 3", None),
    ],
)
def test_rank_prefixes_in_every_launcher_format(line, rank):
    assert line_rank(line) == rank


def test_timestamps_sort_across_formats():
    iso = timestamp_key("[2024-05-01 10:00:03,120] [INFO] x")
    glog = timestamp_key("[E501 10:00:04.000000 1234 ProcessGroupNCCL.cpp:1316] boom")
    assert iso is not None and glog is not None and iso < glog


def test_the_first_real_failure_wins_over_later_collateral_on_other_ranks():
    lines = [f"[rank{r}]: step 100 loss 1.2" for r in range(8)]
    lines += ["[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."]
    for r in (0, 1, 2, 3, 4, 6, 7):
        lines += [
            f"[rank{r}]:[E ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=1021, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800126 milliseconds before timing out.",
            f"[rank{r}]: RuntimeError: NCCL communicator was aborted on rank {r}.",
        ]
    lines += ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "]
    facts = extract_facts(log_of(*lines))
    assert facts.initiating_rank == 5
    assert {c.rank for c in facts.collateral} >= {0, 1, 2, 3, 4, 6, 7}
    assert all(c.why for c in facts.collateral)
    assert facts.rule_hits[0].entry_id == "cuda-oom"


def test_per_rank_files_give_the_rank_of_unprefixed_lines():
    log = MaskedLog(files=[
        MaskedFile(name="logs/rank_0.log", lines=["[2024-05-01 10:05:00] RuntimeError: Connection reset by peer"]),
        MaskedFile(name="logs/rank_3.log", lines=["[2024-05-01 10:01:00] RuntimeError: CUDA error: device-side assert triggered"]),
    ])
    facts = extract_facts(log)
    assert facts.initiating_rank == 3
    assert facts.collateral[0].rank == 0


def test_no_rank_information_is_said_plainly():
    facts = extract_facts(log_of("Traceback (most recent call last):", "ValueError: bad"))
    assert facts.initiating_rank is None
    assert any("no rank information" in n for n in facts.notes)


# --- priorities: when sources disagree, the more authoritative one wins ---


@pytest.mark.parametrize(
    ("lines", "fact", "value"),
    [
        # DeepSpeed's own optimizer over the HF argument it replaced
        (("optim=OptimizerNames.ADAMW_TORCH,", "[Rank 0] DeepSpeed Basic Optimizer = FusedAdam"), "optimizer", "FusedAdam"),
        # the launcher that started the ranks: torchrun inside an srun job script
        (("+ srun --nodes 2 bash -c 'torchrun --nnodes 2 --nproc_per_node 8 train.py'", "[default3]:step 1"), "launcher", "torchrun"),
        (("+ accelerate launch --num_processes 4 train.py", "torch.distributed.elastic.multiprocessing.errors.ChildFailedError"), "launcher", "accelerate"),
        # the failing rank's signal, not the launcher's SIGTERM to the others
        (("Sending process 14658 closing signal SIGTERM", "  exitcode  : -15 (pid: 14658)  (SIGTERM)", "  exitcode  : -6 (pid: 14657)  (SIGABRT)"), "signal", "SIGABRT"),
        # the GPU's own name over a truncated table row
        (("|   0  Tesla V100-SXM2...  On   | 00000000:00:1E.0 Off |", "Tesla V100-SXM2-32GB"), "gpu_model", "Tesla V100-SXM2-32GB"),
        # the CUDA torch was built with, not the driver's maximum
        (("| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |", "torch 2.1.2+cu118"), "cuda_version", "11.8"),
        # the installed version, not the one pip removed
        (("Found existing installation: torch 2.0.1+cu117", "Successfully installed torch-2.1.2+cu121 triton-2.1.0"), "cuda_version", "12.1"),
    ],
)
def test_the_more_authoritative_source_wins(lines, fact, value):
    assert facts_of(*lines).get(fact) == value


# --- counted and derived facts ---


@pytest.mark.parametrize(
    ("lines", "fact", "value"),
    [
        (tuple(f"|   {i}  NVIDIA H100 80GB HBM3          On  | 00000000:{0x18 + i:02X}:00.0 Off |                    0 |" for i in range(8)), "gpu_count", "8"),
        (("GPU 0: NVIDIA A10G (UUID: GPU-1)", "GPU 1: NVIDIA A10G (UUID: GPU-2)"), "gpu_count", "2"),
        # nodes x ranks per node
        (("$ torchrun --nnodes=2 --nproc_per_node=8 train.py",), "world_size", "16"),
        # srun starting the ranks itself: its task count
        (("+ srun -l --ntasks=8 python train.py",), "world_size", "8"),
        # reserved-but-unallocated larger than the request and >= 5% of the GPU
        (("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.10 GiB is free. "
          "Of the allocated memory 60.12 GiB is allocated by PyTorch, and 16.40 GiB is reserved by PyTorch but unallocated.",), "oom_fragmented", "yes"),
        # memory rising on the loop's own progress lines
        (("epoch 0 step 100/1251 loss 6.887 mem 7.87GiB", "epoch 0 step 200/1251 loss 6.847 mem 7.87GiB", "val 5/1563 running_loss 6.408 mem 19.51GiB",
          "val 10/1563 running_loss 6.426 mem 31.12GiB"), "memory_growth", "yes"),
        # a ZeRO partition over 2^31 - 1 elements
        (("Rank: 0 partition count [2] and sizes[(3369207808, False)]",), "tensor_over_int32", "yes"),
        # timed-out collectives that differ between ranks
        (("[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=20, OpType=ALLGATHER_BASE, NumelIn=1)",
          "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=20, OpType=ALLREDUCE, NumelIn=4)"), "collectives_differ", "yes"),
        # the training bar (the longest unfinished one), not the evaluation loop's
        ((" 52%|█████▏    | 500/959 [33:21<30:37,  4.00s/it]", "  6%|▋         | 4/63 [00:04<01:00,  1.02s/it]"), "failure_step", "500"),
        (("[2024-12-09 05:52:37] (step=0009200) Train Loss: 0.1390",), "failure_step", "9200"),
        # a pretty-printed DeepSpeed config
        (('    "bf16": {', '        "enabled": true', "    },"), "precision", "bf16"),
        # nvcc builds with another CUDA than torch's
        (("torch 2.1.2+cu121", "Cuda compilation tools, release 11.5, V11.5.119"), "toolkit_differs", "yes"),
        # a plain Python process: no launcher, a traceback
        (("Traceback (most recent call last):", "ValueError: bad"), "launcher", "python"),
    ],
)
def test_counted_and_derived_facts(lines, fact, value):
    assert facts_of(*lines).get(fact) == value


@pytest.mark.parametrize(
    ("lines", "fact"),
    [
        # set-up reports rise too (a model, then its optimizer states): not a leak
        (("[INFO] [utils.py:786:see_memory_usage] MA 27.86 GB         Max_MA 29.48 GB",
          "[INFO] [utils.py:786:see_memory_usage] MA 34.36 GB         Max_MA 37.61 GB",
          "[INFO] [utils.py:786:see_memory_usage] MA 34.36 GB         Max_MA 34.36 GB"), "memory_growth"),
        # a small unallocated share is not fragmentation
        (("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.10 GiB is free. "
          "Of the allocated memory 77.12 GiB is allocated by PyTorch, and 300.00 MiB is reserved by PyTorch but unallocated.",), "oom_fragmented"),
        (("Rank: 0 partition count [8] and sizes[(421150976, False)]",), "tensor_over_int32"),
        (("torch 2.1.2+cu121", "Cuda compilation tools, release 12.1, V12.1.105"), "toolkit_differs"),
    ],
)
def test_derived_facts_near_misses(lines, fact):
    assert fact not in facts_of(*lines)


# ---------------------------------------------------------------- tracebacks no error pattern closes

_FRAMES = [
    "Traceback (most recent call last):",
    '  File "/work/train.py", line 341, in <module>',
    "    main(opt)",
    '  File "/opt/conda/lib/python3.11/site-packages/torch/serialization.py", line 1470, in load',
    "    raise pickle.UnpicklingError(_get_wo_message(str(e))) from None",
]


def test_a_log_cut_inside_a_traceback_has_its_cut_line_as_the_failure():
    facts = extract_facts(log_of("epoch 3 step 1200 loss 1.93", *_FRAMES))
    first = facts.initiating_event
    assert first is not None and not first.collateral
    assert first.ref.line == len(_FRAMES) + 1 and "raise pickle.UnpicklingError" in first.ref.text
    assert "cut off" in first.why


def test_a_cut_exception_line_and_interleaved_ranks_are_read_per_rank():
    lines = [f"[rank0]:{t}" for t in _FRAMES] + [f"[rank1]:{t}" for t in _FRAMES] + ["[rank0]:_pickle.Unpick", "", "[log-shipper] rotated"]
    first = extract_facts(log_of(*lines)).initiating_event
    assert first is not None and first.ref.text == "[rank0]:_pickle.Unpick" and first.ref.rank == 0


def test_an_exception_type_no_pattern_knows_ends_its_traceback():
    facts = extract_facts(log_of(*_FRAMES, "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:", "more text"))
    assert facts.initiating_event is not None
    assert facts.initiating_event.ref.text.startswith("torch._dynamo.exc.BackendCompilerFailed")


@pytest.mark.parametrize(
    "after",
    [
        ["RuntimeError: CUDA error: an illegal memory access was encountered"],  # closed by a known pattern: one event
        ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "],  # a launcher's summary: collateral only
        ["epoch 4 step 1300 loss 1.90"] * 6,  # frames, then training went on: a printed traceback, not a cut
    ],
)
def test_a_traceback_that_is_closed_or_followed_by_more_log_adds_no_cut_event(after):
    facts = extract_facts(log_of(*_FRAMES, *after))
    assert not any("cut off" in e.why for e in facts.events)
    assert len([e for e in facts.events if not e.collateral]) <= 1
