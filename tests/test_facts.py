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
]


@pytest.mark.parametrize(("line", "fact", "value"), FACT_LINES, ids=[f"{f}:{i}" for i, (_, f, _) in enumerate(FACT_LINES)])
def test_fact_is_read_from_its_source_line(line, fact, value):
    assert facts_of(line).get(fact) == value


NEAR_MISSES = [
    # (line, fact that must NOT be extracted)
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
     ("H20", "9.0")],
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
