"""Multi-rank logs: every launcher's way of naming ranks, one timeline across ranks and files, the rank that
failed first, and the collateral labelled with its rank, line and reason. Hand-built logs in real formats; the
logs of real failing torchrun jobs are in test_ranks_generated.py."""

from __future__ import annotations

import json

import pytest

from service.facts import extract_facts
from service.facts.ranks import file_rank, file_ranks, line_rank, rank_map
from service.models import Facts, MaskedFile, MaskedLog

WATCHDOG = ("[E ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1021, "
            "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800126 milliseconds before timing out.")
TRACEBACK = ("Traceback (most recent call last):", '  File "/workspace/train.py", line 212, in <module>', "    loss.backward()")


def one_file(*lines: str, name: str = "train.log") -> MaskedLog:
    return MaskedLog(files=[MaskedFile(name=name, lines=list(lines))])


def files(**named: list[str]) -> MaskedLog:
    return MaskedLog(files=[MaskedFile(name=name.replace("__", "/").replace("_dot_", "."), lines=lines) for name, lines in named.items()])


def assert_collateral_is_explained(facts: Facts, initiating: int) -> None:
    assert facts.collateral, "the other ranks' errors must be listed as collateral"
    for c in facts.collateral:
        assert c.why and c.line > 0 and c.text
    assert all(c.rank != initiating or "launcher" in c.why or "NCCL" in c.why or "watchdog" in c.why for c in facts.collateral)


# --- prefixes ---


@pytest.mark.parametrize(
    ("line", "rank"),
    [
        ("[rank3]:[W ProcessGroupNCCL.cpp:1234] Warning: something", 3),  # torch >= 2.2 c10d logs and worker output
        ("[default3]:[rank3]: Traceback (most recent call last):", 3),  # torchrun --tee with torch >= 2.3
        ("worker-1: [rank9]: RuntimeError: boom", 9),  # pdsh host prefix first
        ("[1,3]<stderr>:RuntimeError: boom", 3),  # Open MPI --tag-output
        ("[rank: 2] Seed set to 42", 2),  # Lightning
        ("[node-1:5] RuntimeError: boom", 5),  # host:rank
        ("[<HOST_1>:5]: RuntimeError: boom", 5),  # masked host:rank
        ("11: Traceback (most recent call last):", 11),  # srun -l
        ("gpu-h02: 11: RuntimeError: boom", 11),  # srun -l after pdsh
        ("2024-05-01 10:00:00 | rank=3 | loss 1.2", 3),  # loguru-style
        ("Epoch: 1: loss 0.3", None),  # not a host prefix
        ("41:    parser.add_argument('--local_rank', type=int, default=0)", 41),  # bare numbers are trusted only per file (below)
        ("RuntimeError: CUDA error", None),
        ("[gpu-a017:81234] *** An error occurred in MPI_Allreduce", None),  # Open MPI's host:pid, not a host:rank
        ("[train.py:212] step 4100 loss 2.113", None),  # a logger's file:line
        ("[sft.py:88] rank=6 local_rank=6 device=cuda:6 world_size=8", None),  # ... whose own words name the rank in the message
        ("[gpu-a017:81234] Local abort before MPI_INIT completed completed successfully, but am not able to aggregate error messages", None),
    ],
)
def test_line_prefixes(line, rank):
    assert line_rank(line) == rank


@pytest.mark.parametrize(
    ("name", "rank"),
    [
        ("rank_3.log", 3), ("logs/rank-12.out", 12), ("worker3.log", 3), ("proc_7.txt", 7), ("gpu3.log", 3),
        ("logs/run/attempt_0/3/stderr.log", 3),  # torchrun --log-dir (a local rank)
        ("logs/run/attempt_0/3/error.json", 3),
        ("out/1/rank.3/stderr", 3),  # Open MPI --output-filename
        ("train.log", None), ("slurm-4242.out", None),
    ],
)
def test_file_names(name, rank):
    assert file_rank(name) == rank


def test_node_folders_turn_local_ranks_into_global_ones():
    names = [f"node{n}/run/attempt_0/{r}/stderr.log" for n in (0, 1) for r in range(4)]
    ranks = file_ranks(names)
    assert ranks["node1/run/attempt_0/2/stderr.log"] == 6 and ranks["node0/run/attempt_0/3/stderr.log"] == 3


def test_a_few_numbered_lines_are_not_srun_prefixes():
    code = ["Traceback (most recent call last):", "41:    parser.add_argument('--local_rank')", "176:    torch.cuda.set_device(args.local_rank)",
            "RuntimeError: invalid usage"]
    facts = extract_facts(one_file(*code))
    assert 41 not in facts.ranks_seen and 176 not in facts.ranks_seen


# --- the case: a failure on rank 5 under 40 lines of collateral from 7 other ranks ---


def test_rank5_failure_under_forty_lines_of_collateral():
    lines = [f"[rank{r}]: step 1200 | loss 1.93 | lr 3.0e-04" for r in range(8)]
    lines += [f"[rank5]: {t}" for t in TRACEBACK]
    lines += ["[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 5 has a total capacity of 79.15 GiB of which 1.02 GiB is free."]
    collateral_lines = []
    for r in (0, 1, 2, 3, 4, 6, 7):
        collateral_lines += [
            f"[rank{r}]:{WATCHDOG.format(r=r)}",
            f"[rank{r}]:[E ProcessGroupNCCL.cpp:577] [Rank {r}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
            f"[rank{r}]:[E ProcessGroupNCCL.cpp:583] [Rank {r}] To avoid data inconsistency, we are taking the entire process down.",
            f"[rank{r}]: RuntimeError: NCCL communicator was aborted on rank {r}.",
            f"[rank{r}]:terminate called after throwing an instance of 'c10::DistBackendError'",
        ]
    collateral_lines += [
        "W0501 10:30:02.100000 1234 torch/distributed/elastic/multiprocessing/api.py:858] Sending process 4411 closing signal SIGTERM",
        "E0501 10:30:03.200000 1234 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: -6) local_rank: 0 (pid: 4410) of binary: /usr/bin/python",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    ]
    assert len(collateral_lines) >= 38
    facts = extract_facts(one_file(*lines, *collateral_lines))
    assert facts.initiating_rank == 5
    assert facts.initiating_event is not None and "OutOfMemoryError" in facts.initiating_event.ref.text
    assert {c.rank for c in facts.collateral} >= {0, 1, 2, 3, 4, 6, 7}
    assert_collateral_is_explained(facts, 5)
    assert facts.rule_hits[0].entry_id == "cuda-oom"
    assert any("watchdog" in c.why or "collective" in c.why for c in facts.collateral if c.rank == 3)


def test_events_carry_their_time_and_the_first_failure_its_timestamp_fact():
    facts = extract_facts(one_file("[2024-05-01 10:00:03,120] [INFO] step 5", "E0501 10:00:04.000000 1234 api.py:10] RuntimeError: CUDA error: device-side assert triggered"))
    assert facts.events[0].timestamp == "E0501 10:00:04.000000"  # as printed
    assert facts.values["failure_time"].value == "E0501 10:00:04.000000" and facts.values["failure_time"].line == 2


def test_rank5_in_per_rank_files_where_the_collateral_comes_first_in_file_order():
    """rank_0.log sorts first and only holds collateral; timestamps put rank 5's error first."""
    log = files(**{
        f"rank_{r}_dot_log": [f"[2024-05-01 10:00:0{r}] step 1200 | loss 1.9", f"[2024-05-01 10:30:0{r}] {WATCHDOG.format(r=r)}",
                              f"[2024-05-01 10:30:0{r}] RuntimeError: NCCL communicator was aborted on rank {r}."]
        for r in (0, 1, 2, 3, 4, 6, 7)
    } | {"rank_5_dot_log": ["[2024-05-01 10:00:05] step 1200 | loss 1.9", *TRACEBACK,
                            "[2024-05-01 10:00:09] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB."]})
    facts = extract_facts(log)
    assert facts.initiating_rank == 5
    assert {c.rank for c in facts.collateral} == {0, 1, 2, 3, 4, 6, 7}
    assert_collateral_is_explained(facts, 5)


# --- every launcher's format names the right rank ---


def test_torchrun_tee_default_prefixes():
    facts = extract_facts(one_file(
        "[default0]:step 10 | loss 2.1", "[default3]:step 10 | loss 2.1",
        *(f"[default3]:{t}" for t in TRACEBACK), "[default3]:ValueError: sample 8123 of shard 7 has 3 labels, expected 2",
        "[default1]:RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [127.0.0.1]:41234",
    ))
    assert facts.initiating_rank == 3


def test_srun_direct_task_prefixes():
    lines = [f"{r}: step 100 | loss 2.0" for r in range(8)]
    lines += ["6: Traceback (most recent call last):", "6: RuntimeError: CUDA error: device-side assert triggered",
              "2: RuntimeError: Connection reset by peer", "srun: error: gpu-02: task 6: Exited with exit code 1"]
    facts = extract_facts(one_file("+ srun -l --ntasks=8 python train.py", *lines))
    assert facts.initiating_rank == 6


def test_srun_over_torchrun_numbers_nodes_and_default_numbers_local_ranks():
    """srun -l starts one torchrun per node: '1: [default1]:' is node 1, local rank 1 = global rank 5 with 4 per node."""
    lines = ["$ srun -l --nodes 2 torchrun --nnodes 2 --nproc_per_node 4 train.py"]
    lines += [f"{n}: [default{r}]:step 100 | loss 2.0" for n in (0, 1) for r in range(4)]
    lines += ["1: [default1]:RuntimeError: DataLoader worker (pid 51873) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory.",
              "0: [default2]:" + WATCHDOG.format(r=2)]
    facts = extract_facts(one_file(*lines))
    assert facts.initiating_rank == 5


def test_open_mpi_tags():
    facts = extract_facts(one_file(
        "$ mpirun -np 16 --tag-output python train.py", "[1,0]<stdout>:step 5", "[1,8]<stderr>:AssertionError: Gradient accumulation steps: 0 has to be greater than 0",
        "[1,3]<stderr>:RuntimeError: Connection reset by peer",
    ))
    assert facts.initiating_rank == 8


def test_lightning_rank_prefix():
    facts = extract_facts(one_file("[rank: 0] Seed set to 42", "[rank: 2] RuntimeError: CUDA error: an illegal memory access was encountered"))
    assert facts.initiating_rank == 2


def test_deepspeed_pdsh_host_prefix_with_rank_mapping_and_the_gpu_of_the_oom():
    facts = extract_facts(one_file(
        "worker-0: [2024-01-01 10:00:00,000] [INFO] [launch.py:162:main] global_rank_mapping=defaultdict(<class 'list'>, "
        "{'worker-0': [0, 1, 2, 3, 4, 5, 6, 7], 'worker-1': [8, 9, 10, 11, 12, 13, 14, 15]})",
        "worker-1: Traceback (most recent call last):",
        "worker-1: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB (GPU 3; 79.15 GiB total capacity; 55.87 GiB already allocated)",
        "worker-0: [E ProcessGroupNCCL.cpp:828] " + WATCHDOG.format(r=6),
    ))
    assert facts.initiating_rank == 11


def test_deepspeed_world_info_and_nccl_device_index():
    facts = extract_facts(one_file(
        "node-a: [2024-06-03 13:05:24,417] [INFO] [launch.py:145:main] WORLD INFO DICT: {'node-a': [0, 1, 2, 3, 4, 5, 6, 7], 'node-b': [0, 1, 2, 3, 4, 5, 6, 7], 'node-c': [0, 1, 2, 3, 4, 5, 6, 7]}",
        "node-c: node-c:77311:78420 [1] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.0.0.12<52718> with error 12, opcode 0, len 0, vendor err 129 (Recv)",
    ))
    assert facts.initiating_rank == 17


def test_deepspeed_spawned_process_ids_name_the_rank_of_a_dmesg_xid():
    facts = extract_facts(one_file(
        "[2023-07-03 16:40:00,000] [INFO] [launch.py:253:main] process 28810 spawned with command: ['python', '-u', 'train.py', '--local_rank=0']",
        "[2023-07-03 16:40:00,000] [INFO] [launch.py:253:main] process 28813 spawned with command: ['python', '-u', 'train.py', '--local_rank=1']",
        "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k, ...)`",
        "[1953696.301455] NVRM: Xid (PCI:0000:07:00): 48, pid=28813, name=python, An uncorrectable double bit error (DBE) has been detected on GPU",
    ))
    assert facts.initiating_rank == 1


def test_nccl_process_ids_name_the_rank_of_a_warn_line():
    facts = extract_facts(one_file(
        "gpu-a:411:469 [0] NCCL INFO comm 0x55 rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId 1b000 commId 0x1 - Init START",
        "gpu-a:413:474 [2] NCCL INFO comm 0x57 rank 2 nranks 4 cudaDev 2 nvmlDev 2 busId 1d000 commId 0x1 - Init START",
        "gpu-a:413:474 [2] misc/shmutils.cc:113 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-FnGcO9 (size 9637888)",
        "gpu-a:411:469 [0] misc/shmutils.cc:113 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-FPw5p1 (size 9637888)",
    ))
    assert facts.initiating_rank == 2


def test_nvidia_smi_bus_ids_name_the_rank_of_a_lost_gpu():
    facts = extract_facts(one_file(
        "WORLD_SIZE=4",
        *(f"|   {i}  NVIDIA A10G                    On  | 00000000:00:{0x1B + i:02X}.0 Off |                    0 |" for i in range(4)),
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1691, unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
        "Unable to determine the device handle for GPU0000:00:1D.0: GPU is lost.  Reboot the system to recover this GPU",
    ))
    assert facts.initiating_rank == 2


def test_ray_worker_process_ids():
    facts = extract_facts(one_file(
        "(TorchTrainer pid=18233, ip=10.0.12.7) - (ip=10.0.12.7, pid=18301) world_rank=0, local_rank=0, node_rank=0",
        "(TorchTrainer pid=18233, ip=10.0.12.7) - (ip=10.0.12.7, pid=18302) world_rank=1, local_rank=1, node_rank=0",
        "ray.exceptions.RayTaskError(RuntimeError): ray::_RayTrainWorker__execute.get_next() (pid=18302, ip=10.0.12.7, actor_id=e989)",
        *TRACEBACK,
        "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float",
    ))
    assert facts.initiating_rank == 1


def test_mp_spawn_names_the_process_that_raised():
    facts = extract_facts(one_file(
        "torch.multiprocessing.spawn.ProcessRaisedException: ", "", "-- Process 2 terminated with the following error:", *TRACEBACK,
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:2 and cpu!",
    ))
    assert facts.initiating_rank == 2


def test_a_message_that_names_its_own_rank():
    facts = extract_facts(one_file(
        *TRACEBACK,
        "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one.",
        "Parameter indices which did not receive grad for rank 1: 197 198",
    ))
    assert facts.initiating_rank == 1


def test_torchrun_default_prefix_with_the_global_rank_in_the_message_learns_the_node_offset():
    facts = extract_facts(files(**{
        "gpu-a100-102_dot_log": [
            "[default5]:[E ProcessGroupNCCL.cpp:475] " + WATCHDOG.format(r=13),
            "[default5]:" + WATCHDOG.format(r=13),
            "[default3]:" + WATCHDOG.format(r=11),
        ],
    }))
    assert 13 in facts.ranks_seen and 11 in facts.ranks_seen and 5 not in facts.ranks_seen


# --- torchrun's summaries: the error files and the 'first observed failure' block ---


def _error_json(message: str, timestamp: int) -> list[str]:
    return [json.dumps({"message": {"message": message, "extraInfo": {"py_callstack": "Traceback ...", "timestamp": str(timestamp)}}})]


def test_torchrun_error_files_order_the_failures_by_their_own_time():
    log = files(**{
        "run__attempt_0__0__error_dot_json": _error_json("RuntimeError: Connection closed by peer [127.0.0.1]:41234", 1714567900),
        "run__attempt_0__2__error_dot_json": _error_json("ValueError: sample 8123 of shard 7 has 3 labels", 1714567890),
        "run__attempt_0__3__error_dot_json": _error_json("RuntimeError: Connection closed by peer [127.0.0.1]:41299", 1714567901),
    })
    facts = extract_facts(log)
    assert facts.initiating_rank == 2
    assert {c.rank for c in facts.collateral} == {0, 3}


BLOCK = [
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    "============================================================",
    "train.py FAILED",
    "------------------------------------------------------------",
    "Failures:",
    "[1]:",
    "  time      : 2024-05-01_10:00:05",
    "  host      : node-1",
    "  rank      : 0 (local_rank: 0)",
    "  exitcode  : -15 (pid: 1234)  (SIGTERM)",
    "  error_file: <N/A>",
    "  traceback : Signal 15 (SIGTERM) received by PID 1234",
    "------------------------------------------------------------",
    "Root Cause (first observed failure):",
    "[0]:",
    "  time      : 2024-05-01_10:00:04",
    "  host      : node-1",
    "  rank      : 1 (local_rank: 1)",
    "  exitcode  : -9 (pid: 1235)",
    "  error_file: <N/A>",
    "  traceback : Signal 9 (SIGKILL) received by PID 1235",
    "============================================================",
]


def test_a_silent_sigkill_is_found_in_torchruns_summary():
    facts = extract_facts(one_file("step 100 | loss 2.0", *BLOCK))
    assert facts.initiating_rank == 1
    assert facts.values["signal"].value == "SIGKILL" and facts.rule_hits[0].entry_id == "process-killed-sigkill"


def test_the_root_cause_block_of_a_tie_is_only_a_fallback():
    """Every rank failed with the same error at once and no error files: torchrun breaks the tie by rank order."""
    block = [
        "Failures:", "[1]:", "  time      : 2024-05-01_10:00:04", "  rank      : 1 (local_rank: 1)", "  exitcode  : 1 (pid: 1235)",
        "  error_file: <N/A>", "Root Cause (first observed failure):", "[0]:", "  time      : 2024-05-01_10:00:04",
        "  rank      : 0 (local_rank: 0)", "  exitcode  : 1 (pid: 1234)", "  error_file: <N/A>", "=" * 60,
    ]
    printed_first = extract_facts(one_file(
        "[rank1]: RuntimeError: CUDA error: an illegal memory access was encountered",
        "[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered", *block,
    ))
    assert printed_first.initiating_rank == 1
    unprefixed = extract_facts(one_file(
        "RuntimeError: CUDA error: an illegal memory access was encountered",
        "RuntimeError: CUDA error: an illegal memory access was encountered", *block,
    ))
    assert unprefixed.initiating_rank == 0 and any("tie" in n for n in unprefixed.notes)


def test_an_informative_root_cause_decides_between_ranks_that_failed_the_same_way():
    block = ["Failures:", "  <NO_OTHER_FAILURES>", "Root Cause (first observed failure):", "[0]:", "  time      : 2024-06-03_21:40:14",
             "  rank      : 3 (local_rank: 3)", "  exitcode  : 1 (pid: 4431)", "  error_file: <N/A>", "=" * 60]
    facts = extract_facts(one_file(
        "[rank5]:ImportError: flash_attn_2_cuda.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationESs",
        "[rank3]:ImportError: flash_attn_2_cuda.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationESs", *block,
    ))
    assert facts.initiating_rank == 3


# --- collective timeouts: the rank the others waited for ---


def test_the_one_rank_that_never_timed_out_is_the_one_the_others_waited_for():
    lines = ["WORLD_SIZE=8"] + [f"[rank{r}]:{WATCHDOG.format(r=r)}" for r in range(8) if r != 4]
    facts = extract_facts(one_file(*lines))
    assert facts.initiating_rank == 4
    assert facts.initiating_event is None and any("did not report" in n for n in facts.notes)
    assert facts.rule_hits[0].entry_id == "nccl-watchdog-timeout"


def test_the_rank_in_a_different_collective_diverged():
    lines = [f"[E ProcessGroupNCCL.cpp:475] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2217604, "
             f"OpType={'ALLREDUCE' if r == 3 else '_ALLGATHER_BASE'}, NumelIn=4, NumelOut=4, Timeout(ms)=1800000) ran for 1800412 milliseconds before timing out."
             for r in range(8)]
    facts = extract_facts(one_file(*lines))
    assert facts.initiating_rank == 3
    assert facts.values["collectives_differ"].value == "yes"


def test_a_monitored_barrier_names_the_rank_that_did_not_join():
    facts = extract_facts(one_file("[rank0]: RuntimeError: Rank 5 failed to pass monitoredBarrier in 1800000 ms", "[rank1]: RuntimeError: Connection closed by peer"))
    assert facts.initiating_rank == 5


# --- collateral ---


def test_network_errors_on_the_survivors_side_of_a_killed_peer_are_collateral():
    lines = ["$ srun -l --nodes 2 torchrun --nnodes 2 --nproc_per_node 8 train.py"]
    lines += [f"{n}: [2024-12-09 05:52:1{n}] step 9200 | loss 0.139" for n in (0, 1, 0, 1, 0, 1)]
    lines += ["1: E1209 05:53:21.890003 88514 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 5 (pid: 88535) of binary: python",
              "0: gpu-a:31232:31422 [2] transport/net_ib.cc:1733 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<46867> with error 12, opcode 0, len 0, vendor err 129 (Recv)"]
    facts = extract_facts(one_file(*lines))
    assert facts.initiating_rank == 13
    net = [c for c in facts.collateral if "NET/IB" in c.text]
    assert net and "network" in net[0].why


def test_a_watchdog_abort_on_a_timed_out_rank_is_collateral():
    facts = extract_facts(one_file(
        "[rank3]: ValueError: bad sample",
        f"[rank1]:{WATCHDOG.format(r=1)}",
        "[rank1]:terminate called after throwing an instance of 'std::runtime_error'",
        "[rank1]:  what():  [Rank 1] NCCL watchdog thread terminated with exception: [Rank 1] Watchdog caught collective operation timeout",
        "[rank1]: Fatal Python error: Aborted",
    ))
    assert facts.initiating_rank == 3
    assert all(c.rank == 1 for c in facts.collateral) and len(facts.collateral) >= 3


def test_without_rank_information_it_says_so():
    facts = extract_facts(one_file(*TRACEBACK, "ValueError: bad"))
    assert facts.initiating_rank is None and facts.ranks_seen == []
    assert any("no rank information" in n for n in facts.notes)


def test_the_rank_map_is_built_once_per_log():
    rm = rank_map([MaskedFile(name="x.log", lines=[
        "gpu-a:411:469 [0] NCCL INFO comm 0x55 rank 7 nranks 8 cudaDev 0 nvmlDev 0 busId 1b000 commId 0x1 - Init START"])])
    assert rm.by_pid == {411: 7}
    assert rm.rank_of("x.log", "gpu-a:411:469 [0] misc/socket.cc:49 NCCL WARN socketProgressOpt: Call to recv failed") == 7


# --- the forms real pasted logs take (issue 17): each a real line, the rank it must yield, and near misses ---

ILLEGAL_ACCESS_WATCHDOG = ("[rank3]:[E ProcessGroupNCCL.cpp:1414] [PG 2 Rank 3] Process group watchdog thread terminated with exception: "
                           "CUDA error: an illegal memory access was encountered")
MISMATCH = ("[rank{r}]: RuntimeError: Detected mismatch between collectives on ranks. Rank {r} is running collective: "
            "CollectiveFingerPrint(SequenceNumber=3, OpType={own}, TensorShape=[4096], TensorDtypes=Float, TensorDeviceTypes="
            "TensorOptions(dtype=float (default), device=cpu)), but Rank {o} is running collective: CollectiveFingerPrint("
            "SequenceNumber=3, OpType={theirs}, TensorShape=[4096], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float "
            "(default), device=cpu)).")


# Open MPI's fatal error handler (help-mpi-errors.txt and errhandler_predefined.c, read in libmpi 4.1.4 and 5.0.11)
MPI_INIT_FAILED = ["*** An error occurred in MPI_Init", "*** on a NULL communicator",
                   "*** MPI_ERRORS_ARE_FATAL (processes in this communicator will now abort,", "***    and potentially your MPI job)",
                   "[gpu-a018:81261] Local abort before MPI_INIT completed completed successfully, but am not able to aggregate error "
                   "messages, and not able to guarantee that all other processes were killed!"]
MPI_REPORTED = ["[gpu-a017:81243] *** An error occurred in MPI_Allreduce", "[gpu-a017:81243] *** reported by process [3415277569,3]",
                "[gpu-a017:81243] *** on communicator MPI_COMM_WORLD", "[gpu-a017:81243] *** MPI_ERR_TRUNCATE: message truncated",
                "[gpu-a017:81243] *** MPI_ERRORS_ARE_FATAL (processes in this communicator will now abort,",
                "[gpu-a017:81243] ***    and potentially your MPI job)"]


@pytest.mark.parametrize(
    ("lines", "rank"),
    [
        # a single visible rank, whose watchdog died of its own GPU fault
        ([ILLEGAL_ACCESS_WATCHDOG], 3),
        # torch >= 2.5 names the process group by id and GUID
        (["[PG ID 0 PG GUID 0(default_pg) Rank 6] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered"], 6),
        # the launcher's summary is the only marker: compact (line breaks lost in a paste) ...
        (["torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
          "Root Cause (first observed failure): [0]: time : 2024-05-01_12:00:03 host : gpu-01 rank2 (local rank: 2)exitcode: -9 (pid: 4242) "
          "error_file: <N/A> traceback : Signal 9 (SIGKILL) received by PID 4242"], 2),
        # ... and the agent's own line of older releases
        (["ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 3 (pid: 14020) of binary: /opt/conda/bin/python",
          "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:"], 3),
        # a mismatch report from every rank: the odd one out
        ([MISMATCH.format(r=r, own="ALLREDUCE", o=2, theirs="BROADCAST") for r in (0, 1, 3)]
         + [MISMATCH.format(r=2, own="BROADCAST", o=0, theirs="ALLREDUCE")], 2),
        # ... from one rank only: rank 0 found rank 1 agreed with it and rank 2 did not
        ([MISMATCH.format(r=0, own="ALLREDUCE", o=2, theirs="BROADCAST")], 2),
        # an OOM named only by its GPU, where the script printed which rank drives which GPU, before another rank's watchdog
        (["[sft.py:88] rank=5 local_rank=5 device=cuda:5 world_size=8", "[sft.py:88] rank=6 local_rank=6 device=cuda:6 world_size=8",
          *TRACEBACK, "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB. GPU 6 has a total capacty of 79.11 GiB of which 1.23 GiB is free.",
          WATCHDOG.format(r=3)], 6),
        # Open MPI's error handler before MPI_Init completed, under srun -l: the task prefix names the rank
        ([f"{t}: {text}" for t in (4, 0) for text in MPI_INIT_FAILED], 4),
        # ... and after it, under mpirun: the process's own "reported by process [jobid,vpid]" line names it
        (MPI_REPORTED, 3),
    ],
    ids=["single-rank-watchdog-cuda", "pg-guid", "compact-summary", "agent-line", "mismatch-all", "mismatch-one", "oom-gpu-mapped",
         "mpi-init-srun", "mpi-reported-by"],
)
def test_the_rank_real_pastes_name(lines, rank):
    facts = extract_facts(one_file(*lines))
    assert facts.initiating_rank == rank, facts.notes


def test_the_oom_rank_is_first_and_the_watchdog_rank_collateral():
    facts = extract_facts(one_file("[sft.py:88] rank=1 local_rank=1 device=cuda:1 world_size=4", *TRACEBACK,
                                   "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.15 GiB",
                                   WATCHDOG.format(r=3)))
    assert facts.initiating_rank == 1
    assert [c.rank for c in facts.collateral] == [3] and "collective" in facts.collateral[0].why


@pytest.mark.parametrize(
    ("lines", "rank"),
    [
        # the watchdog on a rank that only waited: collateral, and the rank it names is not a first failure
        (["[rank1]:[E ProcessGroupNCCL.cpp:1414] [PG 0 Rank 1] Process group watchdog thread terminated with exception: "
          "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE) ran for 600031 milliseconds before timing out."], None),
        # one device per rank through CUDA_VISIBLE_DEVICES: every rank's OOM says GPU 0, which is not rank 0
        (["LOCAL_RANK=2 CUDA_VISIBLE_DEVICES=2", "LOCAL_RANK=3 CUDA_VISIBLE_DEVICES=3", "world_size=4",
          "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB"], None),
        # a device mismatch names two devices, not the rank's own
        (["rank=2 local_rank=2 world_size=4",
          "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cuda:3!"], None),
        # Open MPI's block without a launcher prefix: its host:pid is no rank, and before MPI_Init no process reports its rank
        (["world_size=2", *(f"[gpu-a017:81234] {text}" for text in MPI_INIT_FAILED[:4])], None),
    ],
    ids=["watchdog-timeout", "one-visible-device", "device-mismatch", "mpi-host-pid"],
)
def test_near_misses_name_no_rank(lines, rank):
    assert extract_facts(one_file(*lines)).initiating_rank == rank


@pytest.mark.parametrize(
    ("named", "rank"),
    [
        # Open MPI names the rank that died, about itself
        ({"mpirun_dot_out": ["[1,0]<stdout>:step 100", "[1,11]<stdout>:step 100",
                             "mpirun noticed that process rank 11 with PID 48213 on node gpu-b07 exited on signal 9 (Killed)."]}, 11),
        # torch.distributed.launch (torch < 1.9) names the local rank whose command failed
        ({"train_dot_log": ["world_size=2", "RuntimeError: cublas runtime error : the GPU program failed to execute at THCBlas.cu:331",
                            "subprocess.CalledProcessError: Command '['/opt/conda/bin/python', '-u', 'run_squad.py', '--local_rank=1', "
                            "'--do_train']' returned non-zero exit status 1."]}, 1),
        # DeepSpeed's launcher prints the command of the LAST process it spawned (launch.py's sigkill_handler logs its loop
        # variable), whichever exited: its --local_rank names nobody, and the host's line names no local rank either
        ({"pdsh_dot_log": ["worker-1: [INFO] [launch.py:162:main] global_rank_mapping=defaultdict(<class 'list'>, "
                           "{'worker-0': [0, 1, 2, 3], 'worker-1': [4, 5, 6, 7]})",
                           "worker-1: ImportError: libstdc++.so.6: version `GLIBCXX_3.4.29' not found",
                           "worker-1: [2024-04-09 22:03:33,282] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', "
                           "'pretrain.py', '--local_rank=3', '--deepspeed'] exits with return code = 1"]}, None),
        # gloo: every rank but one saw its peer hang up; that one's own error went to a redirected file
        ({"console_dot_log": ["world_size=4", *(f"[rank{r}]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:553] "
                                               f"Connection closed by peer [127.0.0.1]:6368{r}" for r in (0, 1, 3))]}, 2),
        # a pod's file ("worker-0" of a PyTorchJob holds ranks 4-7): its name is no rank, and its agent's local 1 is rank 5
        ({"kubectl_worker0_dot_log": [*(f"[rank{r}] 2024-05-14 08:02:42,004 INFO world_size=8" for r in range(4, 8)),
                                      "RuntimeError: DataLoader worker (pid 3318) is killed by signal: Segmentation fault.",
                                      "[2024-05-14 08:51:50,243] torch.distributed.elastic.multiprocessing.api: [ERROR] failed "
                                      "(exitcode: 1) local_rank: 1 (pid: 3102) of binary: /usr/local/bin/python"]}, 5),
    ],
    ids=["mpirun-noticed", "launch-calledprocesserror", "deepspeed-exits", "gloo-peer-hung-up-but-one", "pod-file"],
)
def test_launchers_name_the_rank_when_the_lines_do_not(named, rank):
    facts = extract_facts(files(**named))
    assert facts.initiating_rank == rank, facts.notes


@pytest.mark.parametrize(
    ("line", "rank"),
    [
        ("[rank4] 2024-05-14 08:02:42,004 INFO epoch 0 step 50/8383 loss 7.4031", 4),  # a script's logger
        ("[rank 3] scoring 504 utterances (8 batches)", 3),  # ... with a space
        ("[rank 3]scoring", None),
        ("[rank4]x not a prefix", None),
        ("[ranks 4] RuntimeError: boom", None),
    ],
)
def test_logger_rank_prefix(line, rank):
    assert line_rank(line) == rank


def test_a_rank_file_whose_lines_agree_keeps_its_rank():
    log = files(rank_3_dot_log=["[rank3] 2024-05-14 08:02:42,004 INFO start", "RuntimeError: CUDA error: device-side assert triggered"])
    assert extract_facts(log).initiating_rank == 3


BUILD_FAILED = "[rank0]: RuntimeError: Error building extension 'cpu_adam'"
NO_LIBRARY = ("[rank1]: ImportError: /home/u/.cache/torch_extensions/py312_cu124/{op}/{op}.so: cannot open shared object file: "
              "No such file or directory")
DESTRUCTOR = "AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'"


@pytest.mark.parametrize(
    ("lines", "rank", "collateral"),
    [
        # the rank that built the op is first although the waiting rank's ImportError was printed before it
        ([NO_LIBRARY.format(op="cpu_adam"), DESTRUCTOR, BUILD_FAILED], 0, {NO_LIBRARY.format(op="cpu_adam"), DESTRUCTOR}),
        # near miss: another op's library is missing, which the failed build does not explain
        ([NO_LIBRARY.format(op="fused_lamb"), BUILD_FAILED], 1, {BUILD_FAILED}),
        # near miss: no failed build anywhere: the missing library is the cause
        ([NO_LIBRARY.format(op="cpu_adam")], 1, set()),
    ],
    ids=["build-explains-load", "other-op", "no-build"],
)
def test_an_error_that_explains_the_others_comes_first(lines, rank, collateral):
    facts = extract_facts(one_file("[2024-08-30 22:15:01,000] [INFO] [launch.py:256:main] world_size=2", *lines))
    assert facts.initiating_rank == rank, facts.notes
    assert {c.text for c in facts.collateral} == collateral


# --- the first failure names no rank: what the rest of the log says (service/facts/unnamed.py), each with a near miss ---

AGENT = "W1003 03:13:56.761658 77410 torch/distributed/elastic/agent/server/api.py:696] Received 1 death signal, shutting down workers"
STOPS = "W1003 03:13:56.763658 77410 torch/distributed/elastic/multiprocessing/api.py:897] Sending process {pid} closing signal SIGHUP"
NCCL_INIT = "h100-a0{n}:{pid}:77734 [{local}] NCCL INFO comm 0x55dce74e9b86 rank {rank} nranks 4 cudaDev {local} busId 18000 commId 0xd9 - Init COMPLETE"
PEER_RANK = ("[rank{r}]:[E1003 03:14:04.765579272 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank {r}] Process group watchdog "
             "thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.20.5")
NET_IB = "h100-a02:51921:52132 [1] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.1.0.11<52969> with error 12, opcode 0, len 0, vendor err 129 (Recv)"
GLOO_SIZE = ("  what():  [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456] op.preamble.length <= "
             "op.nbytes. 224 vs 216. Received data size doesn't match expected size. Is there a distributed collective mismatch?")
# the kernel's OOM killer in dmesg: "[Tue May 14 08:51:49 2024] Out of memory: Killed process 28813 (python) total-vm:..."
OOM_KILL = ("[Tue May 14 08:51:49 2024] Out of memory: Killed process 28813 (python) total-vm:301123456kB, anon-rss:250123456kB, "
            "file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:503456kB oom_score_adj:0")
DS_MAPPING = ("worker-1: [2024-04-09 22:03:21,239] [INFO] [launch.py:162:main] global_rank_mapping=defaultdict(<class 'list'>, "
              "{'worker-0': [0, 1, 2, 3], 'worker-1': [4, 5, 6, 7]})")
STORE_WAIT = "{host}: torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 4/8 clients joined."
CUT_TRACEBACK = ["Traceback (most recent call last):", '  File "/workspace/sft.py", line 264, in <module>', "    main()",
                 '  File "/workspace/sft.py", line 239, in main', "    engine.step()"]


@pytest.mark.parametrize(
    ("named", "rank"),
    [
        # torchrun's agent on node 0 got SIGHUP (its SSH session closed) and stopped its own workers, ranks 0-1, before node 1's
        # ranks saw their peers vanish
        ({"node0_dot_log": [NCCL_INIT.format(n=1, pid=77430, local=0, rank=0), NCCL_INIT.format(n=1, pid=77431, local=1, rank=1),
                            AGENT, STOPS.format(pid=77430), STOPS.format(pid=77431)],
          "node1_dot_log": [NCCL_INIT.format(n=2, pid=51920, local=0, rank=2), NCCL_INIT.format(n=2, pid=51921, local=1, rank=3),
                            NET_IB, PEER_RANK.format(r=3)]}, 0),
        # gloo prints no NCCL INFO: the ranks the agent's own file names are its workers (torch 2.13, two agents on a machine)
        ({"node0_dot_log": ["[rank 0] world 4, gloo", "[rank 1] world 4, gloo", AGENT, STOPS.format(pid=4157), STOPS.format(pid=4159)],
          "node1_dot_log": ["[rank 2] world 4, gloo", "[rank 3] world 4, gloo",
                            "[rank3]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error "
                            "[127.0.0.1]:9647: Connection reset by peer."]}, 0),
        # ... and on one node whose lines name no rank, its n workers are ranks 0..n-1
        ({"console_dot_log": [AGENT, STOPS.format(pid=1860), STOPS.format(pid=1861)]}, 0),
        # near miss: another node's lines name ranks beyond its workers' number, and nothing ties its processes to ranks
        ({"node0_dot_log": [AGENT, STOPS.format(pid=77430)], "node1_dot_log": [PEER_RANK.format(r=3)]}, None),
        # rank 0 alone runs the store server, and only the server waits for the other ranks to join
        ({"pdsh_dot_log": ["gpu-a: torch.distributed.DistStoreError: Timed out after 1800 seconds waiting for clients. 24/32 clients joined."]}, 0),
        # near miss: a client's timeout names no rank
        ({"pdsh_dot_log": ["gpu-b: torch.distributed.DistNetworkError: The client socket has timed out after 1800000ms while trying to "
                           "connect to (gpu-a, 29600)."]}, None),
        # NCCL names the reporting rank first ("rank %d and rank %d", rank then the peer it collides with: init.cc, read in the
        # 2.18.1 binary): the first traceback is rank 1's
        ({"run_dot_log": ["world_size=4", "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
                          "ProcessGroupNCCL.cpp:1331, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.18.1",
                          "Last error:", "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000"]}, 1),
        # two ranks, two tracebacks cut before their error lines, nothing naming a rank: every rank raised; rank 0 is reported
        ({"ds_dot_log": ["dist_world_size=2", "world_size=2", *CUT_TRACEBACK, *CUT_TRACEBACK]}, 0),
        # near miss: the launcher's own tracebacks and tracebacks that name their rank are not unnamed ranks'
        ({"ds_dot_log": ["world_size=2", AGENT, "Traceback (most recent call last):", '  File "/opt/venv/bin/torchrun", line 6, in <module>',
                         "    sys.exit(main())", "[rank1]: Traceback (most recent call last):", '[rank1]:   File "/w/job.py", line 9'],
          }, None),
        # near miss: one process's chained exception prints two tracebacks
        ({"ds_dot_log": ["world_size=2", *CUT_TRACEBACK, "RuntimeError: boom", "",
                         "During handling of the above exception, another exception occurred:", "", *CUT_TRACEBACK]}, None),
        # gloo's size check on a collective, and one rank whose own line differs from the others' in a number: its data is odd
        ({"eval_dot_log": ["[rank 0] scoring 502 utterances (8 batches)", "[rank 2] scoring 502 utterances (8 batches)",
                           "[rank 3] scoring 504 utterances (8 batches)", "[rank 1] scoring 502 utterances (8 batches)",
                           "terminate called after throwing an instance of 'gloo::EnforceNotMet'", GLOO_SIZE]}, 3),
        # near miss: the ranks' lines differ on two ranks: no odd one
        ({"eval_dot_log": ["[rank 0] scoring 502 utterances (8 batches)", "[rank 2] scoring 503 utterances (8 batches)",
                           "[rank 3] scoring 504 utterances (8 batches)", "[rank 1] scoring 502 utterances (8 batches)",
                           "terminate called after throwing an instance of 'gloo::EnforceNotMet'", GLOO_SIZE]}, None),

        # the first failure is in a file naming no rank (the host's kernel log), and the run shows one rank only, by its file
        ({"dmesg_dot_log": [OOM_KILL], "rank_3_dot_log": ["epoch 3 step 4100 loss 2.113", "epoch 3 step 4200 loss 2.108"]}, 3),
        # near miss: two per-rank files: which of them is no fallback's to say
        ({"dmesg_dot_log": [OOM_KILL], "rank_3_dot_log": ["epoch 3 step 4100 loss 2.113"],
          "rank_5_dot_log": ["epoch 3 step 4100 loss 2.113"]}, None),
        # near miss: a line elsewhere names another rank
        ({"dmesg_dot_log": [OOM_KILL, "[rank1]: step 4100"], "rank_3_dot_log": ["epoch 3 step 4100 loss 2.113"]}, None),
        # the first failure is on a node whose lines name no rank; the rank 0 that later timed out waiting for that node's
        # ranks is on another node, so it is not the first failure's rank
        ({"pdsh_dot_log": [DS_MAPPING, "worker-1: ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.29' not found",
                           STORE_WAIT.format(host="worker-0")]}, None),
        # near miss: the ranked error is on the first failure's own node
        ({"pdsh_dot_log": [DS_MAPPING, "worker-0: ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.29' not found",
                           STORE_WAIT.format(host="worker-0")]}, 0),
    ],
    ids=["agent-signalled", "agent-signalled-file-ranks", "agent-signalled-one-node", "agent-signalled-unknown-pids", "store-server-waits", "store-client", "duplicate-gpu-reporter",
         "every-rank-raised", "launcher-and-named-tracebacks", "chained-exception", "odd-sized-rank", "no-odd-rank",
         "only-rank-file", "two-rank-files", "another-rank-named", "ranked-error-on-another-node", "ranked-error-on-its-node"],
)
def test_what_the_log_says_when_the_first_failure_names_no_rank(named, rank):
    facts = extract_facts(files(**named))
    assert facts.initiating_rank == rank, facts.notes
