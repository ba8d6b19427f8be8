#!/usr/bin/env python3
"""Generate the eval cases for the distributed-training failure ids.

Two kinds of cases live side by side in evals/cases/:

* Synthetic multi-GPU runs (NCCL, IB, multi-node, DeepSpeed, HF Trainer...). No GPU cluster is available
  to the suite, so these logs are written by the functions below, rank by rank, with the noise real runs
  print (nvidia-smi, collect_env, NCCL INFO, progress bars, warnings). Each ``case_*`` function returns the
  files of ONE run and its case.yaml content. Output is deterministic (seeded).

* Real CPU runs. Failures that CPU PyTorch can really produce (DDP reducer errors, gloo collective
  timeouts and mismatches, FSDP flattening, rendezvous/port errors, torchrun's ChildFailedError) were
  captured by running the programs in ``CPU_PROGRAMS`` under ``torchrun`` with the gloo backend.
  ``python distributed.py --capture`` re-runs them (needs torch on PATH, takes ~8 minutes) and rewrites
  their ``*.log``; the default invocation only regenerates the synthetic cases and rewrites every
  case.yaml.

Usage:  python evals/generators/distributed.py [--capture] [--only CASE_ID]
"""
from __future__ import annotations

import hashlib
import os
import random
import re
import shutil
import string
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta
from pathlib import Path


from common import CASES_DIR, REPO, SMI_HEADS_NARROW, SMI_HEADS_WIDE, Case, RankExit, accelerate_launch_frames, backward_call_frames, elastic_launch_frames, lightning_fit_frames, module_call_frames, parser, torchrun_child_failed_summary, torchrun_main_frames, write_all  # noqa: E402


# --------------------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------------------

def rng_for(name: str) -> random.Random:
    return random.Random(int(hashlib.sha256(name.encode()).hexdigest()[:12], 16))


def fake_token(r: random.Random, prefix: str, n: int, alphabet: str) -> str:
    return prefix + "".join(r.choice(alphabet) for _ in range(n))


ALNUM = string.ascii_letters + string.digits
UPALNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"


def hf_token(r):
    return fake_token(r, "hf_", 34, ALNUM)


def wandb_key(r):
    return fake_token(r, "", 40, HEX)


def aws_key_id(r):
    return fake_token(r, "AKIA", 16, UPALNUM)


def aws_secret(r):
    return fake_token(r, "", 40, ALNUM + "/+")


class Clock:
    """A wall clock that only moves forward; formats in the styles launchers use."""

    def __init__(self, start: datetime):
        self.t = start

    def tick(self, seconds: float = 0.0, jitter: float = 0.0, r: random.Random | None = None):
        d = seconds + (r.uniform(0, jitter) if r and jitter else 0.0)
        self.t += timedelta(seconds=d)
        return self.t

    # 2024-03-12 10:22:31,412
    def py(self):
        return self.t.strftime("%Y-%m-%d %H:%M:%S,") + f"{self.t.microsecond // 1000:03d}"

    # W0312 10:22:31.412000
    def glog(self, lvl="I"):
        return f"{lvl}{self.t.strftime('%m%d %H:%M:%S')}.{self.t.microsecond:06d}"

    # [E1130 03:09:44.372900044 ...]  (nanoseconds, torch >= 2.4 c10 logging)
    def c10(self, lvl="E"):
        return f"{lvl}{self.t.strftime('%m%d %H:%M:%S')}.{self.t.microsecond:06d}{(self.t.microsecond * 7) % 1000:03d}"

    # 2024-03-12_10:22:31 (torchelastic summary)
    def elastic(self):
        return self.t.strftime("%Y-%m-%d_%H:%M:%S")

    # [2024-03-12 10:22:31,412] (deepspeed)
    def ds(self):
        return "[" + self.py() + "]"

    def slurm(self):
        return self.t.strftime("%Y-%m-%dT%H:%M:%S")

    def hms(self):
        return self.t.strftime("%H:%M:%S")


def dedent(s: str) -> str:
    return textwrap.dedent(s).strip("\n")


# --------------------------------------------------------------------------------------------------
# environment printouts
# --------------------------------------------------------------------------------------------------

GPU_MEM = {
    "Tesla V100-SXM2-32GB": ("32768MiB", "300W"),
    "Tesla V100-SXM2-16GB": ("16384MiB", "300W"),
    "Tesla T4": ("15360MiB", "70W"),
    "NVIDIA A10G": ("23028MiB", "300W"),
    "NVIDIA A100-SXM4-40GB": ("40960MiB", "400W"),
    "NVIDIA A100-SXM4-80GB": ("81920MiB", "400W"),
    "NVIDIA L4": ("23034MiB", "72W"),
    "NVIDIA L40S": ("46068MiB", "350W"),
    "NVIDIA GeForce RTX 3090": ("24576MiB", "350W"),
    "NVIDIA GeForce RTX 4090": ("24564MiB", "450W"),
    "NVIDIA H100 80GB HBM3": ("81559MiB", "700W"),
    "NVIDIA H200": ("143771MiB", "700W"),
}

BUS_IDS_8 = ["00000000:18:00.0", "00000000:2A:00.0", "00000000:3A:00.0", "00000000:5D:00.0",
             "00000000:9A:00.0", "00000000:AB:00.0", "00000000:BA:00.0", "00000000:DB:00.0"]
BUS_IDS_4 = ["00000000:00:1B.0", "00000000:00:1C.0", "00000000:00:1D.0", "00000000:00:1E.0"]


def nvidia_smi(gpu: str, n: int, driver: str, cuda: str, r: random.Random, when: str = "Tue Mar 12 10:21:58 2024",
               used_mib: int | None = None, util: int = 0, procs: list[tuple[int, int, str, int]] | None = None) -> str:
    """nvidia-smi table: the 79-column layout of drivers < 530 and the 89-column layout of newer ones."""
    mem, power = GPU_MEM[gpu]
    total = int(mem[:-3])
    cap = int(power[:-1])
    buses = BUS_IDS_8 if n > 4 else BUS_IDS_4
    mig = "Disabled" if any(k in gpu for k in ("A100", "H100", "H200")) else "N/A"
    new = int(driver.split(".")[0]) >= 530

    def pw():
        hi = any(k in gpu for k in ("H100", "A100", "H200"))
        return r.randint(55, 90) if hi else r.randint(9, 30)

    out = [when]
    if new:
        w1 = 41
        out += ["+" + "-" * 87 + "+",
                "| " + f"NVIDIA-SMI {driver:<22}Driver Version: {driver:<14}CUDA Version: {cuda}".ljust(86) + "|",
                "|" + "-" * 41 + "+" + "-" * 22 + "+" + "-" * 22 + "+",
                *SMI_HEADS_WIDE,
                "|" + "=" * 41 + "+" + "=" * 22 + "+" + "=" * 22 + "|"]
    else:
        w1 = 31
        out += ["+" + "-" * 77 + "+",
                "| " + f"NVIDIA-SMI {driver:<13}Driver Version: {driver:<13}CUDA Version: {cuda}".ljust(76) + "|",
                "|" + "-" * 31 + "+" + "-" * 22 + "+" + "-" * 22 + "+",
                *SMI_HEADS_NARROW,
                "|" + "=" * 31 + "+" + "=" * 22 + "+" + "=" * 22 + "|"]
    for i in range(n):
        used = used_mib if used_mib is not None else r.randint(2, 6)
        temp = r.randint(29, 41)
        fan = "N/A" if "RTX" not in gpu else f"{r.randint(30, 45)}%"
        if new:
            name = gpu if len(gpu) <= 31 else gpu[:28] + "..."
            c1a = f"{i:>4}  {name:<31}On  "
            c1b = f" {fan:<3}{temp:>5}C    P0" + f"{pw()}W / {cap}W".rjust(24) + " "
        else:
            name = gpu if len(gpu) <= 18 else gpu[:15] + "..."
            c1a = f"{i:>4}  {name:<18}  On   "
            c1b = f" {fan:<3}{temp:>5}C    P0" + f"{pw()}W / {cap}W".rjust(14) + " "
        out.append("|" + c1a.ljust(w1) + "| " + f"{buses[i]} Off".ljust(21) + "|" + "0".rjust(21) + " |")
        out.append("|" + c1b.ljust(w1) + "|" + f"{used}MiB / {total}MiB".rjust(21) + " |" + f"{util:>7}%      Default |")
        out.append("|" + " " * w1 + "|" + " " * 22 + "|" + mig.rjust(21) + " |")
        out.append("+" + "-" * w1 + "+" + "-" * 22 + "+" + "-" * 22 + "+")
    width = w1 + 46
    out += ["", "+" + "-" * width + "+",
            "| Processes:".ljust(width + 1) + "|",
            ("|  GPU   GI   CI        PID   Type   Process name" + " " * (width - 59) + "GPU Memory |"),
            ("|        ID   ID" + " " * (width - 26) + "Usage      |"),
            "|" + "=" * width + "|"]
    if procs:
        for g, pid, pname, m in procs:
            row = f"|  {g:>3}   N/A  N/A  {pid:>9}      C   {pname}"
            out.append(row.ljust(width + 2 - len(f"{m}MiB |")) + f"{m}MiB |")
    else:
        out.append("|  No running processes found".ljust(width + 1) + "|")
    out.append("+" + "-" * width + "+")
    return "\n".join(out)


def collect_env(torch_v: str, cuda: str, gpu: str, n: int, driver: str, py: str = "3.10.12",
                os_name: str = "Ubuntu 22.04.3 LTS (x86_64)", gcc: str = "(Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0",
                cudnn: str = "8.9.2", extra_pip: list[str] | None = None, conda: bool = False) -> str:
    gpus = "\n".join(f"GPU {i}: {gpu}" for i in range(n))
    pip = ["numpy==1.26.3", f"torch=={torch_v}", "triton==2.1.0" if torch_v.startswith("2.1") else "triton==2.2.0"]
    pip += extra_pip or []
    pip.sort(key=str.lower)
    return dedent(f"""
    Collecting environment information...
    PyTorch version: {torch_v}+cu{cuda.replace('.', '')}
    Is debug build: False
    CUDA used to build PyTorch: {cuda}
    ROCM used to build PyTorch: N/A

    OS: {os_name}
    GCC version: {gcc}
    Clang version: Could not collect
    CMake version: version 3.27.9
    Libc version: glibc-2.35

    Python version: {py} (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)
    Python platform: Linux-5.15.0-91-generic-x86_64-with-glibc2.35
    Is CUDA available: True
    CUDA runtime version: {cuda}.105
    CUDA_MODULE_LOADING set to: LAZY
    GPU models and configuration:
    {gpus}

    Nvidia driver version: {driver}
    cuDNN version: Probably one of the following:
    /usr/lib/x86_64-linux-gnu/libcudnn.so.{cudnn}
    HIP runtime version: N/A
    MIOpen runtime version: N/A
    Is XNNPACK available: True

    Versions of relevant libraries:
    """) + "\n" + "\n".join(f"[pip3] {p}" for p in pip) + ("\n[conda] Could not collect" if not conda else "")


def hf_args_dump(args: dict) -> str:
    """The TrainingArguments repr HF Trainer logs at INFO (one field per line)."""
    lines = ["TrainingArguments("]
    for k in sorted(args):
        lines.append(f"{k}={args[k]},")
    lines.append(")")
    return "\n".join(lines)


def fmt_dur(s: float) -> str:
    s = int(s)
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m:02d}:{sec:02d}"


# --------------------------------------------------------------------------------------------------
# NCCL INFO noise
# --------------------------------------------------------------------------------------------------

def nccl_init_lines(host: str, pid: int, dev: int, rank: int, nranks: int, nccl: str, cuda_tag: str, r: random.Random,
                    net: str = "IB", iface: str = "eth0", ip: str = "10.0.0.5", bus: str = "18000",
                    p2p: str = "P2P/IPC/read", hcas: int = 4, complete: bool = True, comm: str | None = None,
                    buses: list[str] | None = None) -> list[str]:
    comm = comm or "0x" + "".join(r.choice(HEX) for _ in range(12))
    commid = "0x" + "".join(r.choice(HEX) for _ in range(16))
    p = f"{host}:{pid}:{pid} [{dev}] NCCL INFO "
    q = f"{host}:{pid}:{pid + r.randint(40, 90)} [{dev}] NCCL INFO "
    out = []
    if rank == 0:
        out.append(f"{p}Bootstrap : Using {iface}:{ip}<0>")
        out.append(f"{p}NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation")
        out.append(f"{p}cudaDriverVersion 12020")
        out.append(f"NCCL version {nccl}+cuda{cuda_tag}")
    if net == "IB":
        ibs = " ".join(f"[{i}]mlx5_{i}:1/IB" for i in range(hcas))
        out.append(f"{q}NET/IB : Using {ibs} ; OOB {iface}:{ip}<0>")
        out.append(f"{q}Using network IB")
    else:
        out.append(f"{q}NET/IB : No device found.")
        out.append(f"{q}NET/Socket : Using [0]{iface}:{ip}<0>")
        out.append(f"{q}Using network Socket")
    out.append(f"{q}comm {comm} rank {rank} nranks {nranks} cudaDev {dev} nvmlDev {dev} busId {bus} commId {commid} - Init START")
    if rank == 0:
        out.append(f"{q}Setting affinity for GPU {dev} to ffff,ffffffff")
    nxt, prv = (rank + 1) % nranks, (rank - 1) % nranks
    out.append(f"{q}Trees [0] {nxt}/-1/-1->{rank}->{prv} [1] {nxt}/-1/-1->{rank}->{prv}")
    out.append(f"{q}P2P Chunksize set to 524288")
    for ch in range(2):
        nbus = buses[nxt] if buses else bus
        out.append(f"{q}Channel {ch:02d}/0 : {rank}[{bus}] -> {nxt}[{nbus}] via {p2p}")
    if complete:
        out.append(f"{q}Connected all rings")
        out.append(f"{q}Connected all trees")
        out.append(f"{q}threadThresholds 8/8/64 | {8 * nranks}/8/64 | 512 | 512")
        out.append(f"{q}{24 if nranks >= 8 else 16} coll channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer")
        out.append(f"{q}comm {comm} rank {rank} nranks {nranks} cudaDev {dev} nvmlDev {dev} busId {bus} commId {commid} - Init COMPLETE")
    return out


# --------------------------------------------------------------------------------------------------
# torchrun / elastic pieces, by version
# --------------------------------------------------------------------------------------------------

def tv(torch_v: str) -> tuple[int, int]:
    a, b = torch_v.split(".")[:2]
    return int(a), int(b)


def elastic_log(torch_v: str, clock: Clock, lvl: str, module: str, lineno: int, msg: str, pid: int = 0,
                tid: int = 139872234567488) -> str:
    """One torch.distributed.elastic logging line in the format of the given torch version."""
    v = tv(torch_v)
    name = {"I": "INFO", "W": "WARNING", "E": "ERROR"}[lvl]
    if v < (2, 1):
        return f"{name}:{module}:{msg}"
    if v < (2, 2):
        return f"[{clock.py()}] {module}: [{name}] {msg}"
    path = module.replace(".", "/") + ".py"
    ident = tid if v < (2, 5) else pid
    return f"{clock.glog(lvl)} {ident} {path}:{lineno}] {msg}"


def torchrun_banner(torch_v: str, clock: Clock, pid: int = 0, tid: int = 139872234567488) -> list[str]:
    v = tv(torch_v)
    msg = ("Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system "
           "being overloaded, please further tune the variable for optimal performance in your application as needed. ")
    line = 723 if v < (2, 1) else (798 if v < (2, 2) else (757 if v < (2, 3) else 793))
    if v < (2, 1):
        return ["WARNING:torch.distributed.run:", "*****************************************", msg,
                "*****************************************"]
    return [elastic_log(torch_v, clock, "W", "torch.distributed.run", line, s, pid, tid)
            for s in ["", "*****************************************", msg, "*****************************************"]]


SITE = {
    "conda310": "/opt/conda/lib/python3.10/site-packages",
    "usr310": "/usr/local/lib/python3.10/dist-packages",
    "usr38": "/usr/local/lib/python3.8/dist-packages",
    "venv311": "/opt/venv/lib/python3.11/site-packages",
    "conda39": "/opt/conda/lib/python3.9/site-packages",
}


def agent_traceback(torch_v: str, site: str, entry: str = "/usr/local/bin/torchrun") -> list[str]:
    v = tv(torch_v)
    if v < (2, 0):
        nums = (346, 762, 753, 132, 246)
        first = [f'  File "{entry}", line 33, in <module>',
                 f"    sys.exit(load_entry_point('torch=={torch_v}', 'console_scripts', 'torchrun')())"]
    else:
        nums = {(2, 0): (346, 794, 785, 134, 250), (2, 1): (346, 806, 797, 134, 264), (2, 2): (347, 812, 803, 135, 268),
                (2, 3): (347, 879, 870, 132, 263), (2, 4): (348, 901, 892, 133, 264), (2, 5): (355, 919, 910, 138, 269)}[v[:2] if v[:2] in [(2, 0), (2, 1), (2, 2), (2, 3), (2, 4), (2, 5)] else (2, 5)]
        first = [f'  File "{entry}", line 8, in <module>', "    sys.exit(main())"]
    a, b, c, d, e = nums
    return (["Traceback (most recent call last):"] + first + [
        *torchrun_main_frames(site, a, b),
        *elastic_launch_frames(site, c, d, e),
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "])


def elastic_summary(script: str, failures: list[dict], root: dict) -> list[str]:
    """torchrun's ChildFailedError summary; failures/root: dicts with time, host, rank, local_rank, exitcode, pid
    (and, for an error file, error_file and traceback)."""
    return torchrun_child_failed_summary(script, RankExit.of(root), [RankExit.of(f) for f in failures],
                                         signal_names=True, pad=True)


# --------------------------------------------------------------------------------------------------
# writing cases
# --------------------------------------------------------------------------------------------------

def make_case(case_id: str, files: dict[str, str], meta: dict) -> Case:
    """A case whose log files end with exactly one newline."""
    return Case.from_meta(case_id, meta, {name: text.rstrip("\n") for name, text in files.items()})


def J(lines) -> str:
    return "\n".join(lines)


# ==================================================================================================
# nccl-watchdog-timeout
# ==================================================================================================

def watchdog_block_23(rank: int, seq: int, op: str, numel: int, timeout_ms: int, ran_ms: int, last_enq: int,
                      last_done: int, site: str, r: random.Random) -> list[str]:
    """torch 2.3-style watchdog output of one rank (c10 lines carry the [rankN]: prefix)."""
    p = f"[rank{rank}]:"
    work = f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, NumelOut={numel}, Timeout(ms)={timeout_ms})"
    lib = f"{site}/torch/lib"
    base = 0x7f0000000000 + r.randint(0x100000000, 0xfffffffff)
    frames = [
        f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 ({hex(base + 0x897)} in {lib}/libc10.so)",
        f"frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 ({hex(base + 0x12d61b2)} in {lib}/libtorch_cuda.so)",
        f"frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x1a0 ({hex(base + 0x12dafd0)} in {lib}/libtorch_cuda.so)",
        f"frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c ({hex(base + 0x12dc31c)} in {lib}/libtorch_cuda.so)",
        f"frame #4: <unknown function> + 0xdc253 ({hex(base + 0x4dc253)} in /lib/x86_64-linux-gnu/libstdc++.so.6)",
        f"frame #5: <unknown function> + 0x94ac3 ({hex(base + 0x594ac3)} in /lib/x86_64-linux-gnu/libc.so.6)",
        f"frame #6: clone + 0x44 ({hex(base + 0x625a04)} in /lib/x86_64-linux-gnu/libc.so.6)",
    ]
    wd = f"[Rank {rank}] Watchdog caught collective operation timeout: {work} ran for {ran_ms} milliseconds before timing out."
    out = [
        f"{p}[E ProcessGroupNCCL.cpp:563] {wd}",
        f"{p}[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank {rank}] Timeout at NCCL work: {seq}, last enqueued NCCL work: {last_enq}, last completed NCCL work: {last_done}.",
        f"{p}[E ProcessGroupNCCL.cpp:577] [Rank {rank}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
        f"{p}[E ProcessGroupNCCL.cpp:583] [Rank {rank}] To avoid data inconsistency, we are taking the entire process down.",
        f"{p}[E ProcessGroupNCCL.cpp:1414] [PG 0 Rank {rank}] Process group watchdog thread terminated with exception: {wd}",
        f"{p}Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:565 (most recent call first):",
    ] + [p + f for f in frames] + [p,
        "terminate called after throwing an instance of 'c10::DistBackendError'",
        f"  what():  [PG 0 Rank {rank}] Process group watchdog thread terminated with exception: {wd}",
        "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:565 (most recent call first):",
    ] + frames + ["",
        "Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1418 (most recent call first):",
        f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 ({hex(base + 0x897)} in {lib}/libc10.so)",
        f"frame #1: <unknown function> + 0xe32119 ({hex(base + 0xe32119)} in {lib}/libtorch_cuda.so)",
        f"frame #2: <unknown function> + 0xdc253 ({hex(base + 0x4dc253)} in /lib/x86_64-linux-gnu/libstdc++.so.6)",
        f"frame #3: <unknown function> + 0x94ac3 ({hex(base + 0x594ac3)} in /lib/x86_64-linux-gnu/libc.so.6)",
        f"frame #4: clone + 0x44 ({hex(base + 0x625a04)} in /lib/x86_64-linux-gnu/libc.so.6)",
        ""]
    return out


def case_watchdog_rank0_generation():
    """8x H100, torch 2.3.1, rank 0 samples generations for W&B every 2000 steps; others time out (10 min default)."""
    cid = "nccl-watchdog-timeout-h100-rank0-sampling-01"
    r = rng_for(cid)
    clock = Clock(datetime(2024, 7, 18, 22, 4, 11, 208000))
    site = SITE["usr310"]
    host = "h100-sxm-node07"
    wkey = wandb_key(r)
    tok = hf_token(r)
    L = [f"root@{host}:/workspace/llm-sft# export WANDB_API_KEY={wkey}",
         f"root@{host}:/workspace/llm-sft# export HF_TOKEN={tok}",
         f"root@{host}:/workspace/llm-sft# nvidia-smi",
         nvidia_smi("NVIDIA H100 80GB HBM3", 8, "550.54.15", "12.4", r, when="Thu Jul 18 22:03:52 2024"),
         f"root@{host}:/workspace/llm-sft# torchrun --nproc_per_node=8 train_sft.py --config configs/mistral7b_sft.yaml"]
    L += torchrun_banner("2.3.1", clock)
    clock.tick(9.3)
    L += ["[sft] torch 2.3.1+cu121 | cuda 12.1 | nccl (2, 20, 5) | world_size 8",
          "[sft] loading mistralai/Mistral-7B-v0.1 in bfloat16 ...",
          "Loading checkpoint shards: 100%|██████████| 2/2 [00:06<00:00,  3.12s/it]"]
    for rk in range(1, 8):
        if r.random() < 0.5:
            L.append("Loading checkpoint shards: 100%|██████████| 2/2 [00:06<00:00,  3.20s/it]")
    L += ["[sft] DDP wrapped: 7.24B params, bucket_cap_mb=25, gradient_as_bucket_view=True",
          "[sft] dataset: 412,877 packed sequences of 4096 tokens, 6452 steps/epoch at global batch 64",
          "wandb: Currently logged in as: ml-platform-bot. Use `wandb login --relogin` to force relogin",
          "wandb: Tracking run with wandb version 0.17.4",
          "wandb: Run data is saved locally in /workspace/llm-sft/wandb/run-20240718_220439-k2t9x1qe",
          "wandb: Syncing run mistral7b-sft-lr2e-5",
          "wandb: ⭐️ View project at https://wandb.ai/acme-ml/sft",
          "wandb: 🚀 View run at https://wandb.ai/acme-ml/sft/runs/k2t9x1qe"]
    clock.tick(30)
    step_t = 1.62
    for step in range(50, 2001, 50):
        clock.tick(50 * step_t, 2, r)
        loss = 1.9 * (0.55 + 0.45 * (1 - step / 6000)) + r.uniform(-0.04, 0.04)
        L.append(f"[sft] step {step:5d}/6452 | loss {loss:.4f} | lr {2e-5 * min(1, step / 200):.2e} | grad_norm {r.uniform(0.6, 1.4):.3f} | {64 * 4096 / (step_t + r.uniform(-0.03, 0.05)) / 1000:.1f}k tok/s | mem {r.choice(['61.3', '61.3', '61.4', '61.2'])}GiB")
    L += ["[sft] step 2000: sampling 64 prompts for the W&B table (rank 0) ...",
          f"{site}/transformers/generation/configuration_utils.py:515: UserWarning: `do_sample` is set to `False`. However, `temperature` is set to `0.7` -- this flag is only used in sample-based generation modes. You should set `do_sample=True` or unset `temperature`.",
          "  warnings.warn(",
          "Setting `pad_token_id` to `eos_token_id`:2 for open-end generation."]
    clock.tick(600.0 + 2.9)
    seq = 48263
    numel = 17891328
    for rk in [5, 2, 7, 1, 4, 3, 6]:
        clock.tick(0.004, 0.01, r)
        L += watchdog_block_23(rk, seq, "ALLREDUCE", numel, 600000, 600000 + r.randint(18, 95), seq, seq - 1, site, r)
    clock.tick(1.6)
    L.append(elastic_log("2.3.1", clock, "W", "torch.distributed.elastic.multiprocessing.api", 851,
                         "Sending process 2211 closing signal SIGTERM"))
    clock.tick(0.5)
    L.append(elastic_log("2.3.1", clock, "E", "torch.distributed.elastic.multiprocessing.api", 826,
                         "failed (exitcode: -6) local_rank: 1 (pid: 2212) of binary: /usr/bin/python"))
    L += agent_traceback("2.3.1", site)
    t = clock.elastic()
    fails = [{"time": t, "host": host, "rank": rk, "local_rank": rk, "exitcode": -6, "pid": 2211 + rk} for rk in [2, 3, 4, 5, 6, 7]]
    fails.insert(0, {"time": t, "host": host, "rank": 0, "local_rank": 0, "exitcode": -15, "pid": 2211})
    root = {"time": t, "host": host, "rank": 1, "local_rank": 1, "exitcode": -6, "pid": 2212}
    L += elastic_summary("train_sft.py", fails, root)
    L.append(f"root@{host}:/workspace/llm-sft# ")
    meta = dict(label="nccl-watchdog-timeout", difficulty="easy",
                description="8x H100 torchrun SFT (torch 2.3.1); at step 2000 rank 0 alone generates samples for W&B for >10 min, ranks 1-7 hit the 600000 ms NCCL watchdog in the next all_reduce",
                initiating_rank=0,
                facts=dict(gpu_model="H100 80GB HBM3", driver_version="550.54.15", torch_version="2.3.1",
                           launcher="torchrun", world_size=8, exit_code=-6, signal="SIGABRT", failure_step=2000),
                must_mention=["rank 0", "timeout"], secrets=[wkey, tok])
    return cid, {"train.log": J(L)}, meta


def case_watchdog_ds_tokenize():
    """DeepSpeed ZeRO-2 2x8 A100-80GB, torch 2.1.2; rank 0 runs datasets.map for >30 min in main_process_first; others' broadcast times out."""
    cid = "nccl-watchdog-timeout-deepspeed-tokenize-02"
    r = rng_for(cid)
    clock = Clock(datetime(2024, 2, 6, 9, 12, 3, 771000))
    site = SITE["conda310"]
    hosts = ["a100-80g-12", "a100-80g-13"]
    L = [f"{clock.ds()} [INFO] [real_accelerator.py:191:get_accelerator] Setting ds_accelerator to cuda (auto detect)"]
    clock.tick(1.2)
    L += [f"{clock.ds()} [INFO] [runner.py:463:main] Using IP address of 10.42.0.12 for node a100-80g-12",
          f"{clock.ds()} [INFO] [multinode_runner.py:80:get_cmd] Running on the following workers: a100-80g-12,a100-80g-13",
          f"{clock.ds()} [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w a100-80g-12,a100-80g-13 export PYTHONPATH=/home/svc-train/code/llama-ft; export NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3; export NCCL_DEBUG=WARN;  cd /home/svc-train/code/llama-ft; /opt/conda/bin/python -u -m deepspeed.launcher.launch --world_info=eyJhMTAwLTgwZy0xMiI6IFswLCAxLCAyLCAzLCA0LCA1LCA2LCA3XSwgImExMDAtODBnLTEzIjogWzAsIDEsIDIsIDMsIDQsIDUsIDYsIDddfQ== --node_rank=%n --master_addr=10.42.0.12 --master_port=29500 finetune.py --model_name_or_path meta-llama/Llama-2-13b-hf --data_path /mnt/lustre/datasets/instruct-mix-v3 --bf16 True --output_dir /mnt/lustre/ckpt/llama13b-instruct-v3 --num_train_epochs 3 --per_device_train_batch_size 4 --gradient_accumulation_steps 4 --deepspeed configs/zero2.json"]
    for n, h in enumerate(hosts):
        clock.tick(2.1, 0.4, r)
        L += [f"{h}: {clock.ds()} [INFO] [real_accelerator.py:191:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
              f"{h}: {clock.ds()} [INFO] [launch.py:138:main] 0 NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3",
              f"{h}: {clock.ds()} [INFO] [launch.py:138:main] 0 NCCL_DEBUG=WARN",
              f"{h}: {clock.ds()} [INFO] [launch.py:145:main] WORLD INFO DICT: {{'a100-80g-12': [0, 1, 2, 3, 4, 5, 6, 7], 'a100-80g-13': [0, 1, 2, 3, 4, 5, 6, 7]}}",
              f"{h}: {clock.ds()} [INFO] [launch.py:151:main] nnodes=2, num_local_procs=8, node_rank={n}",
              f"{h}: {clock.ds()} [INFO] [launch.py:162:main] global_rank_mapping=defaultdict(<class 'list'>, {{'a100-80g-12': [0, 1, 2, 3, 4, 5, 6, 7], 'a100-80g-13': [8, 9, 10, 11, 12, 13, 14, 15]}})",
              f"{h}: {clock.ds()} [INFO] [launch.py:163:main] dist_world_size=16",
              f"{h}: {clock.ds()} [INFO] [launch.py:165:main] Setting CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7"]
    clock.tick(6.5)
    for n, h in enumerate(hosts):
        for lr in range(8):
            clock.tick(0.05, 0.1, r)
            L.append(f"{h}: {clock.ds()} [INFO] [comm.py:637:init_distributed] cdb=None")
        if n == 0:
            L.append(f"{h}: {clock.ds()} [INFO] [comm.py:668:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl")
    L += [f"a100-80g-12: {site}/transformers/training_args.py:1751: FutureWarning: `--push_to_hub_token` is deprecated and will be removed in version 5 of 🤗 Transformers. Use `--hub_token` instead.",
          "a100-80g-12:   warnings.warn(",
          "a100-80g-12: 02/06/2024 09:12:31 - WARNING - __main__ - Process rank: 0, device: cuda:0, n_gpu: 1, distributed training: True, 16-bits training: False",
          "a100-80g-13: 02/06/2024 09:12:31 - WARNING - __main__ - Process rank: 8, device: cuda:0, n_gpu: 1, distributed training: True, 16-bits training: False"]
    clock.tick(14)
    L += ["a100-80g-12: Loading checkpoint shards: 100%|██████████| 3/3 [00:11<00:00,  3.71s/it]",
          "a100-80g-13: Loading checkpoint shards: 100%|██████████| 3/3 [00:12<00:00,  4.02s/it]",
          "a100-80g-12: [finetune] loading jsonl shards from /mnt/lustre/datasets/instruct-mix-v3 (1,842,116 examples)",
          "a100-80g-12: [finetune] tokenizing on the main process first (other ranks wait) ..."]
    total = 1842116
    t0 = 0.0
    for pct in range(0, 101, 4):
        done = int(total * pct / 100)
        if pct == 0:
            continue
        el = 1740.0 * pct / 92 + r.uniform(-4, 4)
        if el > 1795:
            break
        rate = done / el
        L.append(f"a100-80g-12: Running tokenizer on dataset (num_proc=1): {pct:3d}%|{'█' * (pct // 10)}{' ' * (10 - pct // 10)}| {done}/{total} [{fmt_dur(el)}<{fmt_dur((total - done) / rate)}, {rate:.2f} examples/s]")
        t0 = el
    clock.tick(1800.4)
    seq = 1
    for n, h in enumerate(hosts):
        for lr in range(8):
            g = n * 8 + lr
            if g == 0:
                continue
            clock.tick(0.01, 0.05, r)
            L += [f"{h}: [E ProcessGroupNCCL.cpp:475] [Rank {g}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800{r.randint(100, 999)} milliseconds before timing out."]
    for n, h in enumerate(hosts):
        for lr in range(8):
            g = n * 8 + lr
            if g == 0:
                continue
            clock.tick(0.001, 0.01, r)
            L += [f"{h}: [E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
                  f"{h}: [E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.",
                  f"{h}: [E ProcessGroupNCCL.cpp:916] [Rank {g}] NCCL watchdog thread terminated with exception: [Rank {g}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800{r.randint(100, 999)} milliseconds before timing out.",
                  f"{h}: terminate called after throwing an instance of 'std::runtime_error'",
                  f"{h}:   what():  [Rank {g}] NCCL watchdog thread terminated with exception: [Rank {g}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800{r.randint(100, 999)} milliseconds before timing out."]
    clock.tick(2.0)
    pids = {h: 88120 + 900 * i for i, h in enumerate(hosts)}
    for n, h in enumerate(hosts):
        first = 1 if n == 0 else 0
        L.append(f"{h}: {clock.ds()} [INFO] [launch.py:315:sigkill_handler] Killing subprocess {pids[h] + first}")
        for lr in range(8):
            if lr != first:
                L.append(f"{h}: {clock.ds()} [INFO] [launch.py:315:sigkill_handler] Killing subprocess {pids[h] + lr}")
        L.append(f"{h}: {clock.ds()} [ERROR] [launch.py:321:sigkill_handler] ['/opt/conda/bin/python', '-u', 'finetune.py', '--local_rank={first}', '--model_name_or_path', 'meta-llama/Llama-2-13b-hf', '--data_path', '/mnt/lustre/datasets/instruct-mix-v3', '--bf16', 'True', '--output_dir', '/mnt/lustre/ckpt/llama13b-instruct-v3', '--num_train_epochs', '3', '--per_device_train_batch_size', '4', '--gradient_accumulation_steps', '4', '--deepspeed', 'configs/zero2.json'] exits with return code = -6")
    L += ["pdsh@a100-80g-12: a100-80g-13: ssh exited with exit code 250",
          "pdsh@a100-80g-12: a100-80g-12: ssh exited with exit code 250"]
    meta = dict(label="nccl-watchdog-timeout", difficulty="medium",
                description="DeepSpeed 2x8 A100-80GB; rank 0 tokenizes 1.8M examples alone under main_process_first for ~30 min while 15 ranks wait in the barrier (1-element ALLREDUCE); the 1800000 ms NCCL watchdog aborts them",
                initiating_rank=0,
                facts=dict(launcher="deepspeed", world_size=16, num_nodes=2, precision="bf16", exit_code=-6),
                must_mention=["tokeniz", "timeout"])
    return cid, {"deepspeed_launch.log": J(L)}, meta


def case_watchdog_srun_v100_hang():
    """srun -l, 2 nodes x 8 V100, torch 1.13.1; rank 11 stuck in data loading from NFS; 15 ranks time out."""
    cid = "nccl-watchdog-timeout-v100-srun-stuck-rank-03"
    r = rng_for(cid)
    clock = Clock(datetime(2023, 4, 3, 1, 17, 40))
    site = SITE["conda39"]
    L = ["+ export MASTER_ADDR=gpu-v100-021",
         "+ MASTER_ADDR=gpu-v100-021",
         "+ export MASTER_PORT=13479",
         "+ MASTER_PORT=13479",
         "+ export PYTHONFAULTHANDLER=1",
         "+ PYTHONFAULTHANDLER=1",
         "+ python -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0))'",
         "1.13.1 11.7 Tesla V100-SXM2-32GB",
         "+ srun -l --kill-on-bad-exit=0 python -u train_detr.py --config configs/detr_r101_coco.py --dist-url env://",
         ]
    for g in range(16):
        L.append(f"{g:2d}: | distributed init (rank {g}): env://")
    L += [" 0: git:", " 0:   sha: 4f1c9e2a7d, status: has uncommited changes, branch: main", " 0: ",
          " 0: Namespace(lr=0.0001, lr_backbone=1e-05, batch_size=4, weight_decay=0.0001, epochs=50, lr_drop=40, clip_max_norm=0.1, frozen_weights=None, backbone='resnet101', dilation=False, position_embedding='sine', enc_layers=6, dec_layers=6, dim_feedforward=2048, hidden_dim=256, dropout=0.1, nheads=8, num_queries=100, pre_norm=False, masks=False, aux_loss=True, set_cost_class=1, set_cost_bbox=5, set_cost_giou=2, mask_loss_coef=1, dice_loss_coef=1, bbox_loss_coef=5, giou_loss_coef=2, eos_coef=0.1, dataset_file='coco', coco_path='/nfs/datasets/coco2017', output_dir='/nfs/exp/detr_r101_e50', device='cuda', seed=42, resume='', start_epoch=0, eval=False, num_workers=6, world_size=16, dist_url='env://', rank=0, gpu=0, distributed=True, dist_backend='nccl')",
          " 0: number of params: 60252100",
          " 0: loading annotations into memory...",
          " 0: Done (t=18.71s)",
          " 0: creating index...",
          " 0: index created!",
          " 0: loading annotations into memory...",
          " 0: Done (t=0.62s)",
          " 0: creating index...",
          " 0: index created!",
          " 0: Start training"]
    it_total = 1849
    for it in range(0, 1601, 100):
        clock.tick(100 * 0.91, 3, r)
        eta = fmt_dur((it_total - it) * 0.91)
        L.append(f" 0: Epoch: [7]  [{it:>4}/{it_total}]  eta: {eta}  lr: 0.000100  class_error: {r.uniform(2, 12):.2f}  loss: {r.uniform(9.2, 10.4):.4f} ({r.uniform(9.6, 9.9):.4f})  loss_ce: {r.uniform(0.25, 0.4):.4f} (0.3121)  loss_bbox: {r.uniform(0.18, 0.26):.4f} (0.2204)  loss_giou: {r.uniform(0.42, 0.55):.4f} (0.4917)  cardinality_error_unscaled: {r.uniform(1.5, 4):.4f} (2.5012)  time: 0.9{r.randint(0, 99):02d}  data: 0.0{r.randint(10, 99)}  max mem: 14883")
    clock.tick(1800 + 55)
    seq = 113917
    order = [g for g in range(16) if g != 11]
    r.shuffle(order)
    msg = "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data. To avoid this inconsistency, we are taking the entire process down."
    for g in order:
        ran = 1800000 + r.randint(40, 900)
        L.append(f"{g:2d}: [E ProcessGroupNCCL.cpp:821] [Rank {g}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for {ran} milliseconds before timing out.")
    for g in order:
        L += [f"{g:2d}: [E ProcessGroupNCCL.cpp:456] {msg}",
              f"{g:2d}: terminate called after throwing an instance of 'std::runtime_error'",
              f"{g:2d}:   what():  [Rank {g}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for {1800000 + r.randint(40, 900)} milliseconds before timing out.",
              f"{g:2d}: Fatal Python error: Aborted",
              f"{g:2d}: ",
              f"{g:2d}: Thread 0x00007f{r.randint(0x1000000, 0xfffffff):07x} (most recent call first):",
              f"{g:2d}:   File \"{site}/torch/utils/data/_utils/pin_memory.py\", line 28 in do_one_step",
              f"{g:2d}:   File \"{site}/torch/utils/data/_utils/pin_memory.py\", line 53 in _pin_memory_loop",
              f"{g:2d}:   File \"/opt/conda/lib/python3.9/threading.py\", line 917 in run",
              f"{g:2d}: ",
              f"{g:2d}: Current thread 0x00007f{r.randint(0x1000000, 0xfffffff):07x} (most recent call first):",
              f"{g:2d}:   File \"{site}/torch/autograd/__init__.py\", line 197 in backward",
              f"{g:2d}:   File \"{site}/torch/_tensor.py\", line 487 in backward",
              f"{g:2d}:   File \"/nfs/home/shared/detr/engine.py\", line 48 in train_one_epoch",
              f"{g:2d}:   File \"/nfs/home/shared/detr/main.py\", line 214 in main",
              f"{g:2d}:   File \"/nfs/home/shared/detr/train_detr.py\", line 9 in <module>"]
    L += ["srun: error: gpu-v100-021: tasks 0-7: Aborted (core dumped)",
          "srun: error: gpu-v100-022: tasks 8-10,12-15: Aborted (core dumped)"]
    clock.tick(1200)
    L += ["slurmstepd: error: *** JOB 771204 ON gpu-v100-021 CANCELLED AT 2023-04-03T04:01:12 ***",
          "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
          "srun: error: gpu-v100-022: task 11: Killed"]
    meta = dict(label="nccl-watchdog-timeout", difficulty="medium",
                description="srun -l 2x8 V100 DETR, torch 1.13; every rank except 11 reports the 30 min watchdog timeout in ALLREDUCE SeqNum 113917; rank 11 never joined (hung) and is only killed later by scancel",
                initiating_rank=11,
                facts=dict(launcher="srun", world_size=16, torch_version="1.13.1", gpu_model="Tesla V100-SXM2-32GB"),
                must_mention=["rank 11", "timeout"])
    return cid, {"slurm-771204.out": J(L)}, meta


# ==================================================================================================
# nccl-system-error
# ==================================================================================================

def case_system_docker_shm():
    cid = "nccl-system-error-docker-shm-a10g-01"
    r = rng_for(cid)
    clock = Clock(datetime(2024, 1, 22, 14, 31, 5, 420000))
    site = SITE["usr310"]
    host = "3f9c2a71b0de"
    L = ["ubuntu@ip-172-31-22-187:~/vit-ft$ docker run --gpus all -it --rm -v $PWD:/workspace -w /workspace pytorch-train:2.1.2-cu121 bash",
         f"root@{host}:/workspace# python -m torch.utils.collect_env",
         collect_env("2.1.2", "12.1", "NVIDIA A10G", 4, "535.104.12", extra_pip=["timm==0.9.12", "torchvision==0.16.2"]),
         f"root@{host}:/workspace# NCCL_DEBUG=INFO torchrun --nproc_per_node=4 finetune_vit.py --model vit_base_patch16_224 --data /workspace/data/food101 --epochs 10 --batch-size 96"]
    L += torchrun_banner("2.1.2", clock)
    clock.tick(6.4)
    L += ["[finetune_vit] rank 0/4 on cuda:0 (NVIDIA A10G)", "[finetune_vit] rank 2/4 on cuda:2 (NVIDIA A10G)",
          "[finetune_vit] rank 1/4 on cuda:1 (NVIDIA A10G)", "[finetune_vit] rank 3/4 on cuda:3 (NVIDIA A10G)",
          "[finetune_vit] creating vit_base_patch16_224 (pretrained=True, num_classes=101)"]
    pids = [411, 412, 413, 414]
    buses = ["1b0", "1c0", "1d0", "1e0"]
    for rk in range(4):
        L += nccl_init_lines(host, pids[rk], rk, rk, 4, "2.18.1", "12.1", r, net="Socket", iface="eth0",
                             ip="172.17.0.2", bus=buses[rk], p2p="SHM/direct/direct", complete=False, buses=buses)
    # rank 2 fails to create its SHM segment, the others follow
    q = f"{host}:{pids[2]}:{pids[2] + 61} [2] "
    seg = "nccl-" + "".join(r.choice(ALNUM) for _ in range(6))
    L += [f"{q}misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/{seg} to 9637892 bytes",
          f"{q}misc/shmutils.cc:113 NCCL WARN Error while creating shared memory segment /dev/shm/{seg} (size 9637888)",
          f"{q}NCCL INFO transport/shm.cc:114 -> 2", f"{q}NCCL INFO transport.cc:33 -> 2", f"{q}NCCL INFO transport.cc:97 -> 2",
          f"{q}NCCL INFO init.cc:1117 -> 2", f"{q}NCCL INFO init.cc:1396 -> 2", f"{q}NCCL INFO init.cc:1641 -> 2"]
    for rk in [0, 3, 1]:
        q = f"{host}:{pids[rk]}:{pids[rk] + 58} [{rk}] "
        seg = "nccl-" + "".join(r.choice(ALNUM) for _ in range(6))
        L += [f"{q}misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/{seg} to 9637892 bytes",
              f"{q}misc/shmutils.cc:113 NCCL WARN Error while creating shared memory segment /dev/shm/{seg} (size 9637888)",
              f"{q}NCCL INFO transport/shm.cc:114 -> 2", f"{q}NCCL INFO transport.cc:33 -> 2",
              f"{q}NCCL INFO init.cc:1117 -> 2", f"{q}NCCL INFO init.cc:1396 -> 2"]
    for rk in [2, 0, 3, 1]:
        L += ["Traceback (most recent call last):",
              '  File "/workspace/finetune_vit.py", line 213, in <module>',
              "    main()",
              '  File "/workspace/finetune_vit.py", line 131, in main',
              "    model = DDP(model, device_ids=[local_rank])",
              f'  File "{site}/torch/nn/parallel/distributed.py", line 795, in __init__',
              "    _verify_param_shape_across_processes(self.process_group, parameters)",
              f'  File "{site}/torch/distributed/utils.py", line 265, in _verify_param_shape_across_processes',
              "    return dist._verify_params_across_processes(process_group, tensors, logger)",
              "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1331, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1",
              "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
              "Last error:",
              f"Error while creating shared memory segment /dev/shm/nccl-{''.join(r.choice(ALNUM) for _ in range(6))} (size 9637888)"]
    L = [x for x in L if x != ""]
    clock.tick(1.2)
    L.append(elastic_log("2.1.2", clock, "E", "torch.distributed.elastic.multiprocessing.api", 0,
                         "failed (exitcode: 1) local_rank: 0 (pid: 411) of binary: /usr/bin/python"))
    L += agent_traceback("2.1.2", site)
    t = clock.elastic()
    fails = [{"time": t, "host": host, "rank": rk, "local_rank": rk, "exitcode": 1, "pid": pids[rk]} for rk in [1, 2, 3]]
    L += elastic_summary("finetune_vit.py", fails, {"time": t, "host": host, "rank": 0, "local_rank": 0, "exitcode": 1, "pid": 411})
    L += [f"root@{host}:/workspace# df -h /dev/shm", "Filesystem      Size  Used Avail Use% Mounted on",
          "shm              64M     0   64M   0% /dev/shm"]
    meta = dict(label="nccl-system-error", difficulty="easy",
                description="Docker container without --shm-size/--ipc=host, 4x A10G (SHM transport); NCCL fails to create /dev/shm segments at DDP construction: unhandled system error",
                initiating_rank=2,
                facts=dict(gpu_model="A10G", gpu_count=4, torch_version="2.1.2", nccl_version="2.18.1", cuda_version="12.1",
                           launcher="torchrun", world_size=4, driver_version="535.104.12"),
                must_mention=["/dev/shm", "shm-size"])
    return cid, {"console.log": J(L)}, meta


def case_system_k8s_accelerate():
    cid = "nccl-system-error-k8s-accelerate-4090-02"
    r = rng_for(cid)
    clock = Clock(datetime(2023, 9, 14, 8, 2, 51, 77000))
    site = SITE["conda310"]
    ak, sk = aws_key_id(r), aws_secret(r)
    pod = "sdxl-lora-train-7d9f6c-x2kqp"
    L = ["==> entrypoint.sh: environment",
         "HOSTNAME=" + pod, "NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=compute,utility",
         "CUDA_VERSION=11.8.0", "NV_CUDA_LIB_VERSION=11.8.0-1", "PYTHONUNBUFFERED=1",
         f"AWS_ACCESS_KEY_ID={ak}", f"AWS_SECRET_ACCESS_KEY={sk}", "AWS_DEFAULT_REGION=us-west-2",
         "S3_DATASET_URI=s3://gen-ai-datasets/sdxl/product-shots-v4/", "HF_HOME=/cache/huggingface",
         "ACCELERATE_CONFIG_FILE=/app/configs/accelerate_8gpu.yaml", "KUBERNETES_SERVICE_HOST=10.96.0.1",
         "==> entrypoint.sh: devices",
         "GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-6a1f0d4e-1c2b-8e7f-33a0-0b9d2e61c5a8)",
         "GPU 1: NVIDIA GeForce RTX 4090 (UUID: GPU-0c51b7a2-9f34-4d11-ae08-7712e0f4c913)",
         "GPU 2: NVIDIA GeForce RTX 4090 (UUID: GPU-f3d8e2c1-5a67-4b09-8c1d-2e4f90ab7d36)",
         "GPU 3: NVIDIA GeForce RTX 4090 (UUID: GPU-91c2a6d8-0e3f-47b5-bd29-c8a1f6e3d402)",
         "GPU 4: NVIDIA GeForce RTX 4090 (UUID: GPU-2b7e9f01-c4d3-4a86-9e51-6d0c8b2f1a97)",
         "GPU 5: NVIDIA GeForce RTX 4090 (UUID: GPU-d40f1a93-7b2e-4c68-a1f5-93e07c4d2b18)",
         "GPU 6: NVIDIA GeForce RTX 4090 (UUID: GPU-5e8c3b27-a19d-4f02-8d6e-1b4a7c9f0e53)",
         "GPU 7: NVIDIA GeForce RTX 4090 (UUID: GPU-a73d5f8e-2c10-49b4-b7a2-4e6f1d0c95b8)",
         "==> entrypoint.sh: disk",
         "Filesystem      Size  Used Avail Use% Mounted on",
         "overlay         1.8T  412G  1.3T  24% /",
         "tmpfs            64M     0   64M   0% /dev",
         "shm              64M     0   64M   0% /dev/shm",
         "/dev/nvme1n1    3.5T  1.1T  2.4T  31% /cache",
         "==> entrypoint.sh: syncing dataset from S3",
         "download: s3://gen-ai-datasets/sdxl/product-shots-v4/metadata.jsonl to /data/metadata.jsonl",
         "Completed 2.1 GiB/2.1 GiB (212.4 MiB/s) with 1 file(s) remaining",
         "==> entrypoint.sh: accelerate launch train_text_to_image_lora_sdxl.py",
         "The following values were not passed to `accelerate launch` and had defaults used instead:",
         "\t`--dynamo_backend` was set to a value of `'no'`",
         "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`."]
    clock.tick(7.8)
    for rk in range(8):
        L.append(f"09/14/2023 08:03:0{min(9, rk // 2)} - INFO - __main__ - Distributed environment: MULTI_GPU  Backend: nccl")
        L += ["Num processes: 8", f"Process index: {rk}", f"Local process index: {rk}", f"Device: cuda:{rk}", "",
              "Mixed precision type: fp16", ""]
    L += ["{'variance_type', 'dynamic_thresholding_ratio', 'clip_sample_range', 'thresholding'} was not found in config. Values will be initialized to default values.",
          "{'attention_type', 'dropout', 'reverse_transformer_layers_per_block'} was not found in config. Values will be initialized to default values."]
    clock.tick(41)
    for rk in [3, 0, 5, 1, 6, 2, 7, 4]:
        L += ["Traceback (most recent call last):",
              '  File "/app/train_text_to_image_lora_sdxl.py", line 1261, in <module>',
              "    main(args)",
              '  File "/app/train_text_to_image_lora_sdxl.py", line 953, in main',
              "    unet, optimizer, train_dataloader, lr_scheduler = accelerator.prepare(",
              f'  File "{site}/accelerate/accelerator.py", line 1202, in prepare',
              "    result = tuple(",
              f'  File "{site}/accelerate/accelerator.py", line 1203, in <genexpr>',
              "    self._prepare_one(obj, first_pass=True, device_placement=d) for obj, d in zip(args, device_placement)",
              f'  File "{site}/accelerate/accelerator.py", line 1030, in _prepare_one',
              "    return self.prepare_model(obj, device_placement=device_placement)",
              f'  File "{site}/accelerate/accelerator.py", line 1349, in prepare_model',
              "    model = torch.nn.parallel.DistributedDataParallel(",
              f'  File "{site}/torch/nn/parallel/distributed.py", line 676, in __init__',
              "    _sync_module_states(",
              f'  File "{site}/torch/distributed/utils.py", line 142, in _sync_module_states',
              "    _sync_params_and_buffers(",
              f'  File "{site}/torch/distributed/utils.py", line 160, in _sync_params_and_buffers',
              "    dist._broadcast_coalesced(",
              "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1207, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.14.3",
              "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. "]
    clock.tick(2.2)
    L.append("WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 61 closing signal SIGTERM")
    for p in [62, 63, 64, 65, 66, 67]:
        L.append(f"WARNING:torch.distributed.elastic.multiprocessing.api:Sending process {p} closing signal SIGTERM")
    L.append("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 3 (pid: 64) of binary: /opt/conda/bin/python")
    tb = agent_traceback("2.0.1", site, entry="/opt/conda/bin/accelerate")
    tb[1:3] = accelerate_launch_frames("/opt/conda/bin/accelerate", site, 45, 970, "multi_gpu_launcher", 646)
    tb = [ln for ln in tb if "in main" not in ln or "accelerate_cli" in ln]
    tb = [ln for ln in tb if ln.strip() != "run(args)"]
    L += tb
    t = clock.elastic()
    fails = [{"time": t, "host": pod, "rank": rk, "local_rank": rk, "exitcode": -15, "pid": 61 + rk} for rk in [0, 1, 2, 4, 5, 6, 7]]
    L += elastic_summary("train_text_to_image_lora_sdxl.py", fails,
                         {"time": t, "host": pod, "rank": 3, "local_rank": 3, "exitcode": 1, "pid": 64})
    meta = dict(label="nccl-system-error", difficulty="medium",
                description="Kubernetes pod (no /dev/shm emptyDir, 64M shm), 8x RTX 4090 via accelerate launch (torch 2.0.1, NCCL 2.14.3); DDP broadcast fails with bare 'unhandled system error' - NCCL_DEBUG unset, cause only visible from the 64M shm line",
                initiating_rank=3,
                facts=dict(gpu_model="GeForce RTX 4090", gpu_count=8, nccl_version="2.14.3", launcher="accelerate", world_size=8,
                           precision="fp16", exit_code=1),
                must_mention=["/dev/shm"], secrets=[ak, sk])
    return cid, {"pod.log": J(L)}, meta


def case_system_stale_shm_multinode():
    cid = "nccl-system-error-full-shm-multinode-03"
    r = rng_for(cid)
    clock = Clock(datetime(2024, 4, 9, 17, 40, 2, 318000))
    site = SITE["venv311"].replace("/opt/venv", "/shared/envs/llm-2.2")
    tid = [140512377321280, 139987210455872]
    hosts = ["gpu-b01", "gpu-b02"]
    L = ["#!/bin/bash", "#SBATCH --job-name=moe-pt", "#SBATCH --nodes=2", "#SBATCH --ntasks-per-node=1", "#SBATCH --gres=gpu:8",
         "# ---- job start: Tue Apr  9 17:40:01 CEST 2024 on gpu-b01,gpu-b02",
         "NCCL_DEBUG=WARN", "NCCL_P2P_DISABLE=1", "NCCL_IB_HCA=mlx5_0,mlx5_3,mlx5_4,mlx5_5", "NCCL_SOCKET_IFNAME=ib0",
         "MASTER_ADDR=gpu-b01 MASTER_PORT=29611",
         "+ srun -l df -h /dev/shm",
         "0: Filesystem      Size  Used Avail Use% Mounted on",
         "0: tmpfs           504G  1.2G  503G   1% /dev/shm",
         "1: Filesystem      Size  Used Avail Use% Mounted on",
         "1: tmpfs           504G  504G     0 100% /dev/shm",
         "+ srun -l torchrun --nnodes=2 --nproc_per_node=8 --rdzv-backend=c10d --rdzv-endpoint=gpu-b01:29611 --rdzv-id=5516220 pretrain_moe.py --config cfg/moe_8x1b.yaml"]
    for n in range(2):
        clock.tick(0.3)
        L += [f"{n}: " + x for x in torchrun_banner("2.2.2", clock)]
        L = [ln.replace(" 139872234567488 ", f" {tid[n]} ") for ln in L]
    clock.tick(18)
    L += ["0: [pretrain_moe] world_size=16 dp=16 ep=8 | torch 2.2.2+cu121 | nccl 2.19.3",
          "0: [pretrain_moe] model: 8 experts x 1.1B, top-2 routing, 7.9B params total, bf16"]
    # rank 11 (node 1, local 3) hits the full /dev/shm first
    bad = [11, 9, 14, 8, 12, 15, 10, 13]
    for i, g in enumerate(bad):
        clock.tick(0.002, 0.004, r)
        lr = g - 8
        pid = 2204110 + lr
        seg = "nccl-" + "".join(r.choice(ALNUM) for _ in range(6))
        L += [f"1: gpu-b02:{pid}:{pid + 280} [{lr}] misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/{seg} to 9637892 bytes",
              f"1: gpu-b02:{pid}:{pid + 280} [{lr}] misc/shmutils.cc:113 NCCL WARN Error while creating shared memory segment /dev/shm/{seg} (size 9637888)"]
    clock.tick(0.4)
    for g in bad:
        lr = g - 8
        L += ["1: Traceback (most recent call last):",
              '1:   File "/shared/code/moe-pt/pretrain_moe.py", line 388, in <module>',
              "1:     main(cfg)",
              '1:   File "/shared/code/moe-pt/pretrain_moe.py", line 221, in main',
              "1:     dist.barrier()",
              f'1:   File "{site}/torch/distributed/c10d_logger.py", line 72, in wrapper',
              "1:     return func(*args, **kwargs)",
              f'1:   File "{site}/torch/distributed/distributed_c10d.py", line 3696, in barrier',
              "1:     work = default_pg.barrier(opts=opts)",
              "1: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3",
              "1: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
              "1: Last error:",
              f"1: Error while creating shared memory segment /dev/shm/nccl-{''.join(r.choice(ALNUM) for _ in range(6))} (size 9637888)"]
    clock.tick(1.1)
    L.append("1: " + elastic_log("2.2.2", clock, "E", "torch.distributed.elastic.multiprocessing.api", 834,
                                 "failed (exitcode: 1) local_rank: 3 (pid: 2204113) of binary: /shared/envs/llm-2.2/bin/python").replace(" 139872234567488 ", f" {tid[1]} "))
    L += ["1: " + x for x in agent_traceback("2.2.2", site, entry="/shared/envs/llm-2.2/bin/torchrun")]
    t = clock.elastic()
    fails = [{"time": t, "host": "gpu-b02", "rank": g, "local_rank": g - 8, "exitcode": 1, "pid": 2204110 + g - 8} for g in range(8, 16) if g != 11]
    L += ["1: " + x for x in elastic_summary("pretrain_moe.py", fails,
                                            {"time": t, "host": "gpu-b02", "rank": 11, "local_rank": 3, "exitcode": 1, "pid": 2204113})]
    L.append("srun: error: gpu-b02: task 1: Exited with exit code 1")
    clock.tick(0.6)
    for lr in [5, 0, 2, 7, 1, 6, 3, 4]:
        pid = 3310872 + lr
        L += [f"0: gpu-b01:{pid}:{pid + 301} [{lr}] misc/socket.cc:538 NCCL WARN socketProgress: Connection closed by remote peer gpu-b02<{r.randint(33000, 60999)}>",
              f"0: gpu-b01:{pid}:{pid + 301} [{lr}] NCCL INFO misc/socket.cc:567 -> 6",
              f"0: gpu-b01:{pid}:{pid + 301} [{lr}] NCCL INFO bootstrap.cc:{r.choice([76, 88])} -> 6"]
    for lr in [5, 0, 2, 7, 1, 6, 3, 4]:
        L += ["0: Traceback (most recent call last):",
              '0:   File "/shared/code/moe-pt/pretrain_moe.py", line 388, in <module>',
              "0:     main(cfg)",
              '0:   File "/shared/code/moe-pt/pretrain_moe.py", line 221, in main',
              "0:     dist.barrier()",
              f'0:   File "{site}/torch/distributed/c10d_logger.py", line 72, in wrapper',
              "0:     return func(*args, **kwargs)",
              f'0:   File "{site}/torch/distributed/distributed_c10d.py", line 3696, in barrier',
              "0:     work = default_pg.barrier(opts=opts)",
              "0: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, remote process exited or there was a network error, NCCL version 2.19.3",
              "0: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
              "0: Last error:",
              f"0: socketProgress: Connection closed by remote peer gpu-b02<{r.randint(33000, 60999)}>"]
    clock.tick(1.3)
    L.append("0: " + elastic_log("2.2.2", clock, "E", "torch.distributed.elastic.multiprocessing.api", 834,
                                 "failed (exitcode: 1) local_rank: 0 (pid: 3310872) of binary: /shared/envs/llm-2.2/bin/python").replace(" 139872234567488 ", f" {tid[0]} "))
    L += ["0: " + x for x in agent_traceback("2.2.2", site, entry="/shared/envs/llm-2.2/bin/torchrun")]
    t = clock.elastic()
    fails = [{"time": t, "host": "gpu-b01", "rank": g, "local_rank": g, "exitcode": 1, "pid": 3310872 + g} for g in range(1, 8)]
    L += ["0: " + x for x in elastic_summary("pretrain_moe.py", fails,
                                            {"time": t, "host": "gpu-b01", "rank": 0, "local_rank": 0, "exitcode": 1, "pid": 3310872})]
    L.append("srun: error: gpu-b01: task 0: Exited with exit code 1")
    L = [x for x in L if "NCCL INFO" not in x]  # NCCL_DEBUG=WARN: no INFO lines
    meta = dict(label="nccl-system-error", difficulty="hard",
                description="Slurm 2x8 GPUs with NCCL_P2P_DISABLE=1 (SHM transport); /dev/shm on gpu-b02 is 100% full of stale files, its 8 ranks fail creating NCCL shm segments; the log ends with gpu-b01's ncclRemoteError 'Connection closed by remote peer' which looks like a network fault",
                initiating_rank=11,
                facts=dict(world_size=16, num_nodes=2, nccl_version="2.19.3", torch_version="2.2.2", precision="bf16"),
                must_mention=["/dev/shm", "gpu-b02"])
    return cid, {"slurm-5516220.out": J(L)}, meta


# ==================================================================================================
# nccl-cuda-error
# ==================================================================================================

def case_cuda_pp_send_oom():
    cid = "nccl-cuda-error-pipeline-send-oom-a100-01"
    r = rng_for(cid)
    clock = Clock(datetime(2024, 3, 2, 11, 15, 44, 903000))
    site = SITE["conda310"]
    host = "dgx-a100-04"
    L = [f"(llm) mlops@{host}:~/pp-llama$ torchrun --nproc_per_node=4 train_pp.py --model llama-2-13b --stages 4 --micro-batches 8 --micro-batch-size 2 --seq-len 4096"]
    L += torchrun_banner("2.1.2", clock)
    clock.tick(4.1)
    L += ["[pp] torch 2.1.2+cu121, nccl 2.18.1, 4 pipeline stages on NVIDIA A100-SXM4-40GB"]
    for s in range(4):
        L.append(f"[pp][stage {s}] layers {s * 10}-{s * 10 + 9}{' + embed' if s == 0 else (' + norm + lm_head' if s == 3 else '')}, {3.3 if s in (0, 3) else 3.2:.1f}B params")
    clock.tick(52)
    for s in range(4):
        alloc = 33.1 if s == 0 else r.uniform(30.5, 32.0)
        L.append(f"[pp][stage {s}] after model+optimizer init: allocated {alloc:.1f} GiB, reserved {alloc + r.uniform(4.6, 5.9):.1f} GiB of 39.4 GiB")
    L += ["[pp] step 0: warm-up, schedule=1F1B, micro-batches=8",
          f"{site}/torch/utils/checkpoint.py:429: UserWarning: torch.utils.checkpoint: please pass in use_reentrant=True or use_reentrant=False explicitly. The default value of use_reentrant will be updated to be False in the future. To maintain current behavior, pass use_reentrant=True. It is recommended that you use use_reentrant=False. Refer to docs for more details on the differences between the two variants.",
          "  warnings.warn("]
    clock.tick(3.4)
    L += ["Traceback (most recent call last):",
          '  File "/home/mlops/pp-llama/train_pp.py", line 301, in <module>',
          "    main()",
          '  File "/home/mlops/pp-llama/train_pp.py", line 277, in main',
          "    loss = schedule.step(batch)",
          '  File "/home/mlops/pp-llama/pp/schedule.py", line 118, in step',
          "    self._send_activation(out, dst=self.stage + 1)",
          '  File "/home/mlops/pp-llama/pp/schedule.py", line 64, in _send_activation',
          "    dist.send(t.contiguous(), dst)",
          f'  File "{site}/torch/distributed/c10d_logger.py", line 47, in wrapper',
          "    return func(*args, **kwargs)",
          f'  File "{site}/torch/distributed/distributed_c10d.py", line 1669, in send',
          "    default_pg.send([tensor], dst, tag).wait()",
          "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1724, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1",
          "ncclUnhandledCudaError: Call to CUDA function failed.",
          "Last error:",
          "Cuda failure 'out of memory'"]
    clock.tick(0.9)
    L.append(elastic_log("2.1.2", clock, "W", "torch.distributed.elastic.multiprocessing.api", 0, "Sending process 90412 closing signal SIGTERM"))
    L.append(elastic_log("2.1.2", clock, "W", "torch.distributed.elastic.multiprocessing.api", 0, "Sending process 90413 closing signal SIGTERM"))
    L.append(elastic_log("2.1.2", clock, "W", "torch.distributed.elastic.multiprocessing.api", 0, "Sending process 90414 closing signal SIGTERM"))
    clock.tick(0.4)
    L.append(elastic_log("2.1.2", clock, "E", "torch.distributed.elastic.multiprocessing.api", 0,
                         "failed (exitcode: 1) local_rank: 0 (pid: 90411) of binary: /home/mlops/miniconda3/envs/llm/bin/python"))
    L += agent_traceback("2.1.2", site.replace("/opt/conda", "/home/mlops/miniconda3/envs/llm"), entry="/home/mlops/miniconda3/envs/llm/bin/torchrun")
    t = clock.elastic()
    fails = [{"time": t, "host": host, "rank": rk, "local_rank": rk, "exitcode": -15, "pid": 90411 + rk} for rk in [1, 2, 3]]
    L += elastic_summary("train_pp.py", fails, {"time": t, "host": host, "rank": 0, "local_rank": 0, "exitcode": 1, "pid": 90411})
    L = [ln.replace(site, site.replace("/opt/conda", "/home/mlops/miniconda3/envs/llm")) for ln in L]
    meta = dict(label="nccl-cuda-error", also=["cuda-oom"], difficulty="easy",
                description="4-stage pipeline on 4x A100-40GB (torch 2.1.2, NCCL 2.18.1); the first dist.send creates the P2P communicator when torch already reserves ~38 GiB: ncclUnhandledCudaError, Last error: Cuda failure 'out of memory'",
                initiating_rank=0,
                facts=dict(gpu_model="A100-SXM4-40GB", torch_version="2.1.2", nccl_version="2.18.1", launcher="torchrun", world_size=4, exit_code=1),
                must_mention=["out of memory"])
    return cid, {"train_pp.log": J(L)}, meta


def case_cuda_eval_group_oom():
    cid = "nccl-cuda-error-eval-new-group-oom-02"
    r = rng_for(cid)
    clock = Clock(datetime(2023, 8, 21, 3, 2, 19, 11000))
    site = SITE["usr310"]
    host = "a100-node3"
    pids = [48204 + i for i in range(8)]
    buses = ["7000", "f000", "47000", "4e000", "87000", "90000", "b7000", "bd000"]
    L = ["+ export NCCL_DEBUG=INFO", "+ export OMP_NUM_THREADS=8",
         "+ torchrun --standalone --nproc_per_node=8 tools/train_seg.py --cfg configs/mask2former_swinL_ade20k.yaml --amp"]
    L += torchrun_banner("2.0.1", clock)
    clock.tick(5)
    for rk in range(8):
        L += nccl_init_lines(host, pids[rk], rk, rk, 8, "2.14.3", "11.8", r, net="Socket", iface="eno1", ip="10.20.3.13",
                             bus=buses[rk], p2p="P2P/IPC/read", buses=buses)
    L += ["[08/21 03:02:41 seg]: Rank of current process: 0. World size: 8",
          "[08/21 03:02:41 seg]: Environment info:",
          "----------------------  ---------------------------------------------------------------",
          "sys.platform            linux",
          "Python                  3.10.6 (main, Mar 10 2023, 10:55:28) [GCC 11.3.0]",
          "numpy                   1.24.4",
          "PyTorch                 2.0.1+cu118 @/usr/local/lib/python3.10/dist-packages/torch",
          "PyTorch debug build     False",
          "GPU available           Yes",
          "GPU 0,1,2,3,4,5,6,7     NVIDIA A100-SXM4-40GB (arch=8.0)",
          "Driver version          525.125.06",
          "CUDA_HOME               /usr/local/cuda",
          "Pillow                  9.5.0",
          "torchvision             0.15.2+cu118 @/usr/local/lib/python3.10/dist-packages/torchvision",
          "----------------------  ---------------------------------------------------------------",
          "[08/21 03:02:44 seg]: Full config saved to output/m2f_swinL_ade/config.yaml",
          "[08/21 03:03:30 seg]: Starting training from iteration 0"]
    clock.tick(70)
    it_t = 1.31
    for it in range(19, 4000, 20):
        clock.tick(20 * it_t, 0.5, r)
        if it % 100 == 99:
            L.append(f"[{clock.t.strftime('%m/%d %H:%M:%S')} seg]:  eta: {fmt_dur((160000 - it) * it_t)}  iter: {it}  total_loss: {r.uniform(38, 52):.2f}  loss_ce: {r.uniform(1.2, 2.1):.3f}  loss_mask: {r.uniform(0.5, 0.9):.3f}  loss_dice: {r.uniform(0.9, 1.4):.3f}  time: {it_t + r.uniform(-0.03, 0.03):.4f}  data_time: 0.0{r.randint(10, 40)}  lr: 0.0001  max_mem: 35{r.randint(100, 999)}M")
    L += [f"[{clock.t.strftime('%m/%d %H:%M:%S')} seg]: Start inference on 250 batches",
          "[eval] creating evaluation process group for metric gathering"]
    clock.tick(1.2)
    for rk in [0, 1, 2, 3, 4, 6, 7, 5]:
        q = f"{host}:{pids[rk]}:{pids[rk] + 3120} [{rk}] NCCL INFO "
        L.append(f"{q}comm 0x{r.randint(0x55d000000000, 0x55dfffffffff):x} rank {rk} nranks 8 cudaDev {rk} busId {buses[rk]} - Init START")
    q = f"{host}:{pids[5]}:{pids[5] + 3120} [5] "
    L += [f"{q}include/alloc.h:99 NCCL WARN Cuda failure 'out of memory'",
          f"{q}NCCL INFO include/alloc.h:107 -> 1",
          f"{q}NCCL INFO channel.cc:41 -> 1",
          f"{q}NCCL INFO init.cc:422 -> 1",
          f"{q}NCCL INFO init.cc:1238 -> 1",
          f"{q}NCCL INFO init.cc:1501 -> 1",
          f"{q}NCCL INFO init.cc:1536 -> 1"]
    L += ["Traceback (most recent call last):",
          '  File "/workspace/seg/tools/train_seg.py", line 326, in <module>',
          "    launch_main(args)",
          '  File "/workspace/seg/tools/train_seg.py", line 309, in launch_main',
          "    trainer.train()",
          '  File "/workspace/seg/seg/engine/trainer.py", line 241, in train',
          "    self.after_step()",
          '  File "/workspace/seg/seg/engine/hooks.py", line 588, in after_step',
          "    results = self._do_eval()",
          '  File "/workspace/seg/seg/evaluation/evaluator.py", line 174, in inference_on_dataset',
          "    all_preds = gather_across_ranks(predictions, group=get_eval_group())",
          '  File "/workspace/seg/seg/utils/comm.py", line 93, in gather_across_ranks',
          "    dist.all_gather(size_list, local_size, group=group)",
          f'  File "{site}/torch/distributed/distributed_c10d.py", line 1451, in wrapper',
          "    return func(*args, **kwargs)",
          f'  File "{site}/torch/distributed/distributed_c10d.py", line 2448, in all_gather',
          "    work = group.allgather([tensor_list], [tensor])",
          "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1207, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.14.3",
          "ncclUnhandledCudaError: Call to CUDA function failed."]
    clock.tick(5.0)
    for rk in [0, 1, 2, 3, 4, 6, 7]:
        L.append(f"WARNING:torch.distributed.elastic.multiprocessing.api:Sending process {pids[rk]} closing signal SIGTERM")
    L.append(f"ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 5 (pid: {pids[5]}) of binary: /usr/bin/python")
    L += agent_traceback("2.0.1", site)
    t = clock.elastic()
    fails = [{"time": t, "host": host, "rank": rk, "local_rank": rk, "exitcode": -15, "pid": pids[rk]} for rk in [0, 1, 2, 3, 4, 6, 7]]
    L += elastic_summary("tools/train_seg.py", fails, {"time": t, "host": host, "rank": 5, "local_rank": 5, "exitcode": 1, "pid": pids[5]})
    meta = dict(label="nccl-cuda-error", also=["cuda-oom"], difficulty="medium",
                description="8x A100-40GB Mask2Former (torch 2.0.1, NCCL 2.14.3, NCCL_DEBUG=INFO); at the first evaluation a new process group is created while training memory is held; rank 5's NCCL init fails with WARN Cuda failure 'out of memory' buried in INFO lines",
                initiating_rank=5,
                facts=dict(gpu_model="A100-SXM4-40GB", gpu_count=8, driver_version="525.125.06", torch_version="2.0.1", nccl_version="2.14.3",
                           launcher="torchrun", world_size=8, failure_step=3999),
                must_mention=["out of memory", "NCCL"])
    return cid, {"train.log": J(L)}, meta


def case_cuda_moe_a2a_collateral():
    cid = "nccl-cuda-error-moe-alltoall-h100-srun-03"
    r = rng_for(cid)
    clock = Clock(datetime(2024, 9, 26, 20, 11, 7, 500000))
    site = "/lustre/apps/envs/torch24/lib/python3.11/site-packages"
    host = "h100-gpu-031"
    L = ["+ source /lustre/apps/envs/torch24/bin/activate",
         "+ export NCCL_DEBUG=WARN TORCH_NCCL_ASYNC_ERROR_HANDLING=1",
         "+ srun -l --ntasks-per-node=8 --gpus-per-node=8 python train_moe.py --ep 8 --experts 64 --topk 2 --capacity-factor 1.25 --mbs 8 --seq 4096"]
    for g in range(8):
        L.append(f"{g}: [moe] rank {g} local {g} device cuda:{g} (NVIDIA H100 80GB HBM3)")
    L += ["0: [moe] torch 2.4.0+cu124 nccl 2.20.5 | 64 experts, expert-parallel 8, 8 experts/rank",
          "0: [moe] params: dense 3.2B + experts 41.9B (5.2B per rank)",
          "0: [moe] fused AdamW, bf16 params, fp32 master, ZeRO-1 over dp group (size 8)"]
    clock.tick(40)
    for step in range(10, 201, 10):
        clock.tick(10 * 2.9, 0.3, r)
        L.append(f"0: [moe] step {step:5d} | loss {6.2 - 0.9 * step / 200 + r.uniform(-0.05, 0.05):.4f} | aux {r.uniform(0.010, 0.013):.4f} | drop {r.uniform(0.3, 1.9):.2f}% | {r.uniform(96, 104):.1f} TFLOP/s/gpu | mem {r.uniform(71.5, 74.8):.1f}GiB")
    clock.tick(2.4)
    L += ["0: [moe] step 207: expert load rebalancing -> new placement, re-creating expert-parallel group (new_group, 8 ranks)",
          "5: [moe] rank 5 now hosts experts 40-47 (+2 replicated hot experts: 44, 45), mem 78.6GiB"]
    clock.tick(0.3)
    pid = 771530
    p5 = "5: "
    L += [f"{p5}{host}:{pid}:{pid + 1187} [5] include/alloc.h:125 NCCL WARN Cuda failure 2 'out of memory'",
          f"{p5}{host}:{pid}:{pid + 1187} [5] NCCL INFO include/alloc.h:246 -> 1",
          f"{p5}{host}:{pid}:{pid + 1187} [5] NCCL INFO channel.cc:41 -> 1",
          f"{p5}{host}:{pid}:{pid + 1187} [5] NCCL INFO init.cc:387 -> 1",
          f"{p5}{host}:{pid}:{pid + 1187} [5] NCCL INFO init.cc:1222 -> 1",
          f"{p5}[rank5]: Traceback (most recent call last):",
          f'{p5}[rank5]:   File "/lustre/home/proj/moe/train_moe.py", line 412, in <module>',
          f"{p5}[rank5]:     main()",
          f'{p5}[rank5]:   File "/lustre/home/proj/moe/train_moe.py", line 371, in main',
          f"{p5}[rank5]:     loss = model(batch).loss",
          f'{p5}[rank5]:   File "/lustre/home/proj/moe/moe/layer.py", line 188, in forward',
          f"{p5}[rank5]:     dispatched = all_to_all_single_autograd(x, out_splits, in_splits, self.ep_group)",
          f'{p5}[rank5]:   File "/lustre/home/proj/moe/moe/comm.py", line 41, in all_to_all_single_autograd',
          f"{p5}[rank5]:     dist.all_to_all_single(out, x, out_splits, in_splits, group=group)",
          f'{p5}[rank5]:   File "{site}/torch/distributed/c10d_logger.py", line 79, in wrapper',
          f"{p5}[rank5]:     return func(*args, **kwargs)",
          f'{p5}[rank5]:   File "{site}/torch/distributed/distributed_c10d.py", line 3921, in all_to_all_single',
          f"{p5}[rank5]:     work = group.alltoall_base(",
          f"{p5}[rank5]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5",
          f"{p5}[rank5]: ncclUnhandledCudaError: Call to CUDA function failed.",
          f"{p5}[rank5]: Last error:",
          f"{p5}[rank5]: Cuda failure 2 'out of memory'"]
    L.append("srun: error: h100-gpu-031: task 5: Exited with exit code 1")
    clock.tick(600.0 + 1.1)
    seq = 1
    for g in [0, 1, 2, 3, 4, 6, 7]:
        clock.tick(0.01, 0.02, r)
        p = f"{g}: [rank{g}]:"
        wd = f"[Rank {g}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLTOALL_BASE, NumelIn=34603008, NumelOut=34603008, Timeout(ms)=600000) ran for {600000 + r.randint(20, 90)} milliseconds before timing out."
        L += [f"{p}[{clock.c10('E')} ProcessGroupNCCL.cpp:607] {wd}",
              f"{p}[{clock.c10('E')} ProcessGroupNCCL.cpp:1664] [PG 3 (ep_group_v2) Rank {g}] Exception (either an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {seq}, last completed NCCL work: {seq - 1}.",
              f"{p}[{clock.c10('E')} ProcessGroupNCCL.cpp:1709] [PG 3 (ep_group_v2) Rank {g}] Timeout at NCCL work: {seq}, last enqueued NCCL work: {seq}, last completed NCCL work: {seq - 1}.",
              f"{p}[{clock.c10('E')} ProcessGroupNCCL.cpp:621] [Rank {g}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
              f"{p}[{clock.c10('E')} ProcessGroupNCCL.cpp:627] [Rank {g}] To avoid data inconsistency, we are taking the entire process down.",
              f"{p}[{clock.c10('E')} ProcessGroupNCCL.cpp:1515] [PG 3 (ep_group_v2) Rank {g}] Process group watchdog thread terminated with exception: {wd}",
              f"{g}: terminate called after throwing an instance of 'c10::DistBackendError'",
              f"{g}:   what():  [PG 3 (ep_group_v2) Rank {g}] Process group watchdog thread terminated with exception: {wd}"]
    L += ["srun: error: h100-gpu-031: tasks 0-4,6-7: Aborted (core dumped)"]
    L = [x for x in L if "NCCL INFO" not in x]  # NCCL_DEBUG=WARN: no INFO lines
    meta = dict(label="nccl-cuda-error", also=["cuda-oom"], difficulty="hard",
                description="srun 8x H100 MoE (torch 2.4.0, NCCL 2.20.5); at step 207 expert rebalancing re-creates the expert-parallel group; rank 5 (78.6 GiB in use) cannot allocate the new communicator's buffers (NCCL WARN Cuda failure 2 'out of memory', ncclUnhandledCudaError); srun does not kill the others, which hit the 600000 ms watchdog 10 minutes later and dominate the end of the log",
                initiating_rank=5,
                facts=dict(gpu_model="H100 80GB HBM3", torch_version="2.4.0", nccl_version="2.20.5", launcher="srun", world_size=8, precision="bf16", failure_step=207),
                must_mention=["rank 5", "out of memory"])
    return cid, {"slurm-2291877.out": J(L)}, meta


# ==================================================================================================
# nccl-invalid-usage
# ==================================================================================================

def case_invalid_local_rank_argparse():
    cid = "nccl-invalid-usage-local-rank-argparse-01"
    r = rng_for(cid)
    clock = Clock(datetime(2023, 11, 5, 19, 48, 12, 300000))
    site = "/home/kli/miniconda3/envs/asr/lib/python3.10/site-packages"
    host = "ws-kli-4x3090"
    L = [f"(asr) kli@{host}:~/projects/conformer$ torchrun --nproc_per_node=4 train.py --config conf/conformer_m.yaml --batch-size 24",
         ]
    L += torchrun_banner("2.1.0", clock)
    clock.tick(3.2)
    for rk in [0, 2, 1, 3]:
        L.append(f"INFO:train:rank={rk} world_size=4 local_rank=0 device=cuda:0")
    L += [f"{site}/torchaudio/functional/functional.py:584: UserWarning: At least one mel filterbank has all zero values. The value for `n_mels` (128) may be set too high. Or, the value for `n_freqs` (201) may be set too low.",
          "  warnings.warn(",
          "INFO:train:model: Conformer(M) 30.7M params, vocab 5000 (sentencepiece unigram)",
          "INFO:train:train set: 281,241 utterances (960h), dev-clean: 2,703"]
    clock.tick(2.6)
    for rk in [1, 3, 2, 0]:
        L += ["Traceback (most recent call last):",
              '  File "/home/kli/projects/conformer/train.py", line 288, in <module>',
              "    main()",
              '  File "/home/kli/projects/conformer/train.py", line 203, in main',
              "    model = DDP(model, device_ids=[args.local_rank], output_device=args.local_rank)",
              f'  File "{site}/torch/nn/parallel/distributed.py", line 795, in __init__',
              "    _verify_param_shape_across_processes(self.process_group, parameters)",
              f'  File "{site}/torch/distributed/utils.py", line 265, in _verify_param_shape_across_processes',
              "    return dist._verify_params_across_processes(process_group, tensors, logger)",
              "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1331, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.18.1",
              "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.",
              "Last error:",
              f"Duplicate GPU detected : rank {rk if rk else 1} and rank 0 both on CUDA device 1000"]
    L = [x for x in L if x is not None]
    clock.tick(1.1)
    L.append(elastic_log("2.1.0", clock, "E", "torch.distributed.elastic.multiprocessing.api", 0,
                         "failed (exitcode: 1) local_rank: 0 (pid: 20731) of binary: /home/kli/miniconda3/envs/asr/bin/python"))
    L += agent_traceback("2.1.0", site, entry="/home/kli/miniconda3/envs/asr/bin/torchrun")
    t = clock.elastic()
    fails = [{"time": t, "host": host, "rank": rk, "local_rank": rk, "exitcode": 1, "pid": 20731 + rk} for rk in [1, 2, 3]]
    L += elastic_summary("train.py", fails, {"time": t, "host": host, "rank": 0, "local_rank": 0, "exitcode": 1, "pid": 20731})
    L += [f"(asr) kli@{host}:~/projects/conformer$ grep -n local_rank train.py | head -3",
          "41:    parser.add_argument(\"--local_rank\", type=int, default=0)",
          "176:    torch.cuda.set_device(args.local_rank)",
          "203:    model = DDP(model, device_ids=[args.local_rank], output_device=args.local_rank)"]
    meta = dict(label="nccl-invalid-usage", difficulty="easy",
                description="torchrun on a 4x RTX 3090 workstation; the script reads --local_rank from argparse (default 0) instead of LOCAL_RANK, all ranks use cuda:0, NCCL reports Duplicate GPU detected at DDP construction",
                initiating_rank=1,
                facts=dict(nccl_version="2.18.1", launcher="torchrun", world_size=4, exit_code=1),
                must_mention=["LOCAL_RANK"], secrets=["kli"])
    return cid, {"run.log": J(L)}, meta


def case_invalid_accelerate_8_on_4():
    cid = "nccl-invalid-usage-accelerate-8proc-4gpu-02"
    r = rng_for(cid)
    clock = Clock(datetime(2023, 7, 30, 12, 0, 41, 0))
    site = SITE["conda310"]
    host = "ip-10-1-17-204"
    L = ["$ accelerate env", "",
         "Copy-and-paste the text below in your GitHub issue", "",
         "- `Accelerate` version: 0.21.0",
         "- Platform: Linux-5.15.0-1040-aws-x86_64-with-glibc2.31",
         "- Python version: 3.10.12",
         "- Numpy version: 1.24.4",
         "- PyTorch version (GPU?): 2.0.1+cu118 (True)",
         "- PyTorch XPU available: False",
         "- System RAM: 186.70 GB",
         "- GPU type: NVIDIA A10G",
         "- `Accelerate` default config:",
         "\t- compute_environment: LOCAL_MACHINE",
         "\t- distributed_type: MULTI_GPU",
         "\t- mixed_precision: bf16",
         "\t- use_cpu: False",
         "\t- num_processes: 8",
         "\t- machine_rank: 0",
         "\t- num_machines: 1",
         "\t- gpu_ids: all",
         "\t- rdzv_backend: static",
         "\t- same_network: True",
         "\t- main_training_function: main",
         "\t- downcast_bf16: no",
         "\t- tpu_use_cluster: False",
         "\t- tpu_use_sudo: False",
         "", "$ nvidia-smi -L",
         "GPU 0: NVIDIA A10G (UUID: GPU-3c1e85a9-27f2-1b6d-0f0e-9a4c2d9b7e31)",
         "GPU 1: NVIDIA A10G (UUID: GPU-8e0d2b47-f931-2c58-77a1-5d3e0b6c4a92)",
         "GPU 2: NVIDIA A10G (UUID: GPU-b5a7e1c3-0d48-96f2-1e3b-7c9a8f2d0e64)",
         "GPU 3: NVIDIA A10G (UUID: GPU-14f9c6d2-8a3e-5b07-c2d1-e06f3a9b8c75)",
         "", "$ NCCL_DEBUG=WARN accelerate launch train_clm.py --model_name_or_path EleutherAI/pythia-1.4b --dataset_name wikitext --dataset_config_name wikitext-103-raw-v1 --per_device_train_batch_size 4 --output_dir out/pythia-wt103"]
    L += torchrun_banner("2.0.1", clock)
    clock.tick(5.5)
    for rk in range(8):
        L.append(f"07/30/2023 12:00:{47 + rk // 3:02d} - INFO - __main__ - Distributed environment: DistributedType.MULTI_GPU  Backend: nccl")
        L += ["Num processes: 8", f"Process index: {rk}", f"Local process index: {rk}", f"Device: cuda:{rk % 4}", "", "Mixed precision type: bf16", ""]
    L += ["Downloading readme: 100%|██████████| 10.5k/10.5k [00:00<00:00, 9.12MB/s]",
          "Downloading data files: 100%|██████████| 1/1 [00:00<00:00, 1361.12it/s]",
          "loading configuration file config.json from cache at /home/ubuntu/.cache/huggingface/hub/models--EleutherAI--pythia-1.4b/snapshots/fedc38a16eea3bd36a96b906d78d11d2ce18ed79/config.json",
          "Model config GPTNeoXConfig {",
          '  "_name_or_path": "EleutherAI/pythia-1.4b",',
          '  "architectures": [', '    "GPTNeoXForCausalLM"', "  ],",
          '  "hidden_size": 2048,', '  "num_attention_heads": 16,', '  "num_hidden_layers": 24,',
          '  "torch_dtype": "float16",', '  "transformers_version": "4.31.0",', '  "vocab_size": 50304', "}", "",
          "Running tokenizer on dataset: 100%|██████████| 1801350/1801350 [01:52<00:00, 16011.87 examples/s]",
          "Grouping texts in chunks of 2048: 100%|██████████| 1801350/1801350 [02:41<00:00, 11152.30 examples/s]"]
    clock.tick(290)
    dup_pairs = [(4, 0), (5, 1), (6, 2), (7, 3)]
    buses = {0: "1b0", 1: "1c0", 2: "1d0", 3: "1e0"}
    for a, b in dup_pairs:
        for who in (a, b):
            pid = 3811 + who
            L.append(f"{host}:{pid}:{pid + 412} [{who % 4}] init.cc:665 NCCL WARN Duplicate GPU detected : rank {a} and rank {b} both on CUDA device {buses[b]}")
    for rk in [4, 0, 5, 1, 2, 6, 3, 7]:
        L += ["Traceback (most recent call last):",
              '  File "/home/ubuntu/work/train_clm.py", line 637, in <module>',
              "    main()",
              '  File "/home/ubuntu/work/train_clm.py", line 512, in main',
              "    model, optimizer, train_dataloader, eval_dataloader, lr_scheduler = accelerator.prepare(",
              f'  File "{site}/accelerate/accelerator.py", line 1198, in prepare',
              "    result = tuple(",
              f'  File "{site}/accelerate/accelerator.py", line 1199, in <genexpr>',
              "    self._prepare_one(obj, first_pass=True, device_placement=d) for obj, d in zip(args, device_placement)",
              f'  File "{site}/accelerate/accelerator.py", line 1026, in _prepare_one',
              "    return self.prepare_model(obj, device_placement=device_placement)",
              f'  File "{site}/accelerate/accelerator.py", line 1329, in prepare_model',
              "    model = torch.nn.parallel.DistributedDataParallel(",
              f'  File "{site}/torch/nn/parallel/distributed.py", line 674, in __init__',
              "    _verify_param_shape_across_processes(self.process_group, parameters)",
              f'  File "{site}/torch/distributed/utils.py", line 118, in _verify_param_shape_across_processes',
              "    return dist._verify_params_across_processes(process_group, tensors, logger)",
              "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1207, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.14.3",
              "ncclInvalidUsage: This usually reflects invalid usage of NCCL library."]
    clock.tick(3)
    L.append("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 3811) of binary: /opt/conda/bin/python")
    tb = agent_traceback("2.0.1", site, entry="/opt/conda/bin/accelerate")
    L += tb[:1] + accelerate_launch_frames("/opt/conda/bin/accelerate", site, 45, 970, "multi_gpu_launcher", 646) + tb[7:]
    t = clock.elastic()
    fails = [{"time": t, "host": host, "rank": rk, "local_rank": rk, "exitcode": 1, "pid": 3811 + rk} for rk in range(1, 8)]
    L += elastic_summary("train_clm.py", fails, {"time": t, "host": host, "rank": 0, "local_rank": 0, "exitcode": 1, "pid": 3811})
    meta = dict(label="nccl-invalid-usage", difficulty="medium",
                description="accelerate launch with num_processes: 8 on a 4x A10G machine; the script maps ranks with local_rank % device_count, two ranks per GPU; NCCL WARN Duplicate GPU detected lines precede a generic ncclInvalidUsage error (torch 2.0.1)",
                initiating_rank=0,
                facts=dict(gpu_model="A10G", gpu_count=4, torch_version="2.0.1", nccl_version="2.14.3", launcher="accelerate", world_size=8,
                           precision="bf16", accelerate_version="0.21.0"),
                must_mention=["Duplicate GPU", "num_processes"])
    return cid, {"terminal.log": J(L)}, meta


def case_invalid_slurm_cvd():
    cid = "nccl-invalid-usage-slurm-visible-devices-03"
    r = rng_for(cid)
    clock = Clock(datetime(2024, 10, 14, 9, 30, 18, 0))
    site = "/home/apatel/.venvs/vlm/lib/python3.11/site-packages"
    L = ["#!/bin/bash", "#SBATCH -J vlm-ft", "#SBATCH -N 1", "#SBATCH --ntasks-per-node=4", "#SBATCH --gres=gpu:l40s:4",
         "#SBATCH -o logs/%x-%j.out", "",
         "export MASTER_ADDR=$(hostname) MASTER_PORT=29777",
         "export WORLD_SIZE=$SLURM_NTASKS",
         "srun bash -c \"CUDA_VISIBLE_DEVICES=$SLURM_LOCALID RANK=\\$SLURM_PROCID LOCAL_RANK=\\$SLURM_LOCALID python finetune_vlm.py --cfg cfgs/llava_ft.yaml\"",
         "----------------------------------------------------------------",
         "SLURM_JOB_ID=8841092 SLURM_JOB_USER=apatel SLURM_NODELIST=l40s-n14 SLURM_NTASKS=4",
         "----------------------------------------------------------------"]
    clock.tick(11)
    for rk in [0, 3, 1, 2]:
        L.append(f"[finetune_vlm][rank {rk}] LOCAL_RANK={rk} CUDA_VISIBLE_DEVICES=0 torch.cuda.device_count()=1 -> using cuda:{0}")
    L += [f"{site}/transformers/models/llava/configuration_llava.py:103: FutureWarning: The `vocab_size` argument is deprecated and will be removed in v4.42, since it can be inferred from the `text_config`. Passing this argument has no effect",
          "  warnings.warn(",
          "Loading checkpoint shards: 100%|██████████| 3/3 [00:04<00:00,  1.49s/it]",
          "Loading checkpoint shards: 100%|██████████| 3/3 [00:04<00:00,  1.52s/it]",
          "Loading checkpoint shards: 100%|██████████| 3/3 [00:05<00:00,  1.70s/it]",
          "Loading checkpoint shards: 100%|██████████| 3/3 [00:05<00:00,  1.71s/it]",
          "[finetune_vlm][rank 0] model on cuda:0, 7.06B params, torch.cuda.memory_allocated()=14.1GiB"]
    clock.tick(21)
    for rk in [2, 1, 3, 0]:
        L.append(f"[rank{rk}]:[W{clock.t.strftime('%m%d %H:%M:%S')}.{r.randint(100000, 999999)}{r.randint(100, 999)} ProcessGroupNCCL.cpp:4115] [PG 0 Rank {rk}]  using GPU 0 to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id.")
    clock.tick(0.8)
    for rk in [2, 1, 3, 0]:
        L += [f"[rank{rk}]: Traceback (most recent call last):",
              f'[rank{rk}]:   File "/home/apatel/vlm/finetune_vlm.py", line 244, in <module>',
              f"[rank{rk}]:     main(cfg)",
              f'[rank{rk}]:   File "/home/apatel/vlm/finetune_vlm.py", line 151, in main',
              f"[rank{rk}]:     dist.barrier()",
              f'[rank{rk}]:   File "{site}/torch/distributed/c10d_logger.py", line 79, in wrapper',
              f"[rank{rk}]:     return func(*args, **kwargs)",
              f'[rank{rk}]:   File "{site}/torch/distributed/distributed_c10d.py", line 4166, in barrier',
              f"[rank{rk}]:     work = default_pg.barrier(opts=opts)",
              f"[rank{rk}]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.20.5",
              f"[rank{rk}]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.",
              f"[rank{rk}]: Last error:",
              f"[rank{rk}]: Duplicate GPU detected : rank {rk if rk else 1} and rank 0 both on CUDA device 1000"]
    L += ["srun: error: l40s-n14: tasks 0-3: Exited with exit code 1"]
    meta = dict(label="nccl-invalid-usage", difficulty="medium",
                description="srun bash -c with double quotes expands CUDA_VISIBLE_DEVICES=$SLURM_LOCALID in the batch shell (=0 for every task); 4 ranks all see the same L40S; barrier fails with Duplicate GPU detected (torch 2.4, NCCL 2.20.5)",
                initiating_rank=2,
                facts=dict(launcher="srun", world_size=4, nccl_version="2.20.5"),
                must_mention=["CUDA_VISIBLE_DEVICES"], secrets=["apatel"])
    return cid, {"vlm-ft-8841092.out": J(L)}, meta


# ==================================================================================================
# nccl-network-error
# ==================================================================================================

def ib_completion_warn(host, pid, tid, dev, peer_ip, port, err=12, vendor=129, dirn="Recv"):
    return f"{host}:{pid}:{tid} [{dev}] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer {peer_ip}<{port}> with error {err}, opcode 0, len 0, vendor err {vendor} ({dirn})"


def case_network_ib_mpirun():
    cid = "nccl-network-error-ib-retry-exceeded-mpirun-01"
    r = rng_for(cid)
    clock = Clock(datetime(2024, 5, 20, 2, 41, 9, 0))
    site = "/opt/pytorch/lib/python3.10/site-packages"
    hosts = ["h100-n01", "h100-n02", "h100-n03", "h100-n04"]
    ips = ["10.12.4.25", "10.12.4.26", "10.12.4.27", "10.12.4.28"]
    def tag(g, stream="stderr"):
        return f"[1,{g}]<{stream}>:"
    L = ["$ mpirun -np 32 -H h100-n01:8,h100-n02:8,h100-n03:8,h100-n04:8 --tag-output --bind-to none -x NCCL_DEBUG=WARN -x NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_6,mlx5_7,mlx5_8,mlx5_9 -x NCCL_SOCKET_IFNAME=bond0 -x MASTER_ADDR=h100-n01 -x MASTER_PORT=23456 -x LD_LIBRARY_PATH -x PATH python pretrain_gpt.py --config configs/gpt_13b_tp4_pp1.yaml"]
    clock.tick(20)
    L += [tag(0, "stdout") + "[gpt] world=32 tp=4 pp=1 dp=8 | torch 2.2.2+cu121 | NCCL 2.19.3 | 4 nodes x 8 NVIDIA H100 80GB HBM3",
          tag(0, "stdout") + "[gpt] 13.1B params, seq 4096, global batch 1024 (mbs 2, grad acc 64)",
          tag(0, "stdout") + "[gpt] resuming from /lustre/ckpt/gpt13b-run7/iter_0031000 ... done (41.3 s)"]
    it = 31000
    for k in range(14):
        clock.tick(10 * 11.6, 1.0, r)
        it += 10
        L.append(tag(0, "stdout") + f" iteration {it:>8}/  120000 | consumed samples: {it * 1024:>12} | elapsed time per iteration (ms): {11600 + r.randint(-150, 150):.1f} | learning rate: {2.4e-4 * (1 - it / 240000):.3E} | global batch size:  1024 | lm loss: {2.05 + r.uniform(-0.02, 0.02):.6E} | loss scale: 1.0 | grad norm: {r.uniform(0.18, 0.24):.3f} | number of skipped iterations:   0 | number of nan iterations:   0 |")
    clock.tick(61.2)
    # link between n03 (ranks 16-23) and n04 (ranks 24-31) via mlx5_2 fails
    a, b = 18, 26
    L += [tag(a) + ib_completion_warn(hosts[2], 1289021, 1290113, 2, ips[3], 39117),
          tag(b) + ib_completion_warn(hosts[3], 1410770, 1411902, 2, ips[2], 50433, dirn="Send"),
          tag(a) + f"{hosts[2]}:1289021:1290113 [2] NCCL INFO transport/net.cc:1187 -> 6",
          tag(a) + f"{hosts[2]}:1289021:1290113 [2] NCCL INFO proxy.cc:693 -> 6",
          tag(a) + f"{hosts[2]}:1289021:1290113 [2] NCCL INFO proxy.cc:872 -> 6 [Progress Thread]",
          tag(b) + f"{hosts[3]}:1410770:1411902 [2] NCCL INFO transport/net.cc:1033 -> 6",
          tag(b) + f"{hosts[3]}:1410770:1411902 [2] NCCL INFO proxy.cc:693 -> 6",
          tag(b) + f"{hosts[3]}:1410770:1411902 [2] NCCL INFO proxy.cc:872 -> 6 [Progress Thread]"]
    for g, peer_ip, port in [(a, ips[3], 39117), (b, ips[2], 50433)]:
        msg = (f"NCCL error: remote process exited or there was a network error, NCCL version 2.19.3\n"
               f"ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
               f"Last error:\nNET/IB : Got completion from peer {peer_ip}<{port}> with error 12, opcode 0, len 0, vendor err 129 ({'Recv' if g == a else 'Send'})")
        lines = [f"[E ProcessGroupNCCL.cpp:1182] [Rank {g}] NCCL watchdog thread terminated with exception: {msg.splitlines()[0]}"] + msg.splitlines()[1:] + [
            "Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1723 (most recent call first):",
            f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f{r.randint(0x100000000, 0xfffffffff):x} in {site}/torch/lib/libc10.so)",
            f"frame #1: c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::vector<std::shared_ptr<c10d::NCCLComm>, std::allocator<std::shared_ptr<c10d::NCCLComm> > > const&) + 0x1a8 (0x7f{r.randint(0x100000000, 0xfffffffff):x} in {site}/torch/lib/libtorch_cuda.so)",
            f"frame #2: c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x7d (0x7f{r.randint(0x100000000, 0xfffffffff):x} in {site}/torch/lib/libtorch_cuda.so)",
            f"frame #3: c10d::ProcessGroupNCCL::workCleanupLoop() + 0x176 (0x7f{r.randint(0x100000000, 0xfffffffff):x} in {site}/torch/lib/libtorch_cuda.so)",
            f"frame #4: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x80 (0x7f{r.randint(0x100000000, 0xfffffffff):x} in {site}/torch/lib/libtorch_cuda.so)",
            "", "terminate called after throwing an instance of 'c10::DistBackendError'",
            f"  what():  [Rank {g}] NCCL watchdog thread terminated with exception: {msg.splitlines()[0]}"] + msg.splitlines()[1:]
        L += [tag(g) + x for x in lines]
    clock.tick(4.0)
    L += ["--------------------------------------------------------------------------",
          "Primary job  terminated normally, but 1 process returned",
          "a non-zero exit code. Per user-direction, the job has been aborted.",
          "--------------------------------------------------------------------------",
          "--------------------------------------------------------------------------",
          "mpirun noticed that process rank 18 with PID 1289021 on node h100-n03 exited on signal 6 (Aborted).",
          "--------------------------------------------------------------------------",
          "[epilog] h100-n03 health: mlx5_2 port 1 State: Active Rate: 400 link_downed 0->3 symbol_error 0->18422 (FLAGGED)",
          "[epilog] h100-n04 health: mlx5_2 port 1 State: Active Rate: 400 link_downed 0->3 symbol_error 0->11907 (FLAGGED)",
          "[epilog] h100-n01 health: OK", "[epilog] h100-n02 health: OK"]
    L = [x for x in L if "NCCL INFO" not in x]  # NCCL_DEBUG=WARN: no INFO lines
    meta = dict(label="nccl-network-error", difficulty="easy",
                description="mpirun 4x8 H100 GPT pretraining (torch 2.2.2, NCCL 2.19.3); ranks 18 and 26 on two different nodes both report NET/IB completion error 12 (retry exceeded) towards each other at the same moment; no rank crashed before; epilog flags link errors on mlx5_2 of both nodes",
                initiating_rank=18,
                facts=dict(launcher="mpirun", world_size=32, num_nodes=4, nccl_version="2.19.3", torch_version="2.2.2", gpu_model="H100 80GB HBM3", signal="SIGABRT"),
                must_mention=["mlx5_2", "link"])
    return cid, {"mpirun.log": J(L)}, meta


def case_network_socket_timeout():
    cid = "nccl-network-error-socket-link-down-02"
    r = rng_for(cid)
    clock = Clock(datetime(2023, 12, 11, 16, 20, 0, 0))
    site = SITE["conda310"]
    home = "/home/rvargas"
    hosts = ["lab-gpu-01", "lab-gpu-02"]
    L = ["[node0] (base) rvargas@lab-gpu-01:~/diffusion$ NCCL_DEBUG=WARN NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=ens1f0 torchrun --nnodes=2 --node_rank=0 --nproc_per_node=4 --master_addr=192.168.50.11 --master_port=29500 train_ldm.py --cfg cfg/ldm_256.yaml"]
    L += ["[node0] " + x for x in torchrun_banner("2.1.1", clock)]
    clock.tick(12)
    L += ["[node0] [ldm] 8 ranks (2 nodes x 4 NVIDIA L40S), fp16 autocast, ema=0.9999",
          f"[node0] [ldm] data: {home}/datasets/laion-art-256 (shards 000000..000411), 2.1M samples",
          f"[node0] {site}/diffusers/models/attention_processor.py:1584: FutureWarning: `LoRAAttnProcessor2_0` is deprecated and will be removed in version 0.26.0.",
          "[node0]   deprecate("]
    for step in range(500, 14001, 500):
        clock.tick(500 * 0.74, 4, r)
        L.append(f"[node0] [ldm] step {step:6d} | loss {r.uniform(0.118, 0.131):.4f} | {8 * 48 / 0.74:.0f} img/s | lr 1.00e-04")
    clock.tick(31)
    L += [f"[node0] lab-gpu-01:{30118}:{30407} [2] misc/socket.cc:49 NCCL WARN socketProgressOpt: Call to recv from 192.168.50.12<45213> failed : Connection timed out",
          f"[node0] lab-gpu-01:{30118}:{30407} [2] NCCL INFO misc/socket.cc:60 -> 6",
          f"[node0] lab-gpu-01:{30118}:{30407} [2] NCCL INFO misc/socket.cc:70 -> 6",
          f"[node0] lab-gpu-01:{30118}:{30407} [2] NCCL INFO transport/net_socket.cc:538 -> 6",
          f"[node0] lab-gpu-01:{30118}:{30407} [2] NCCL INFO transport/net.cc:1034 -> 6",
          f"[node0] lab-gpu-01:{30118}:{30407} [2] NCCL INFO proxy.cc:520 -> 6",
          f"[node0] lab-gpu-01:{30118}:{30407} [2] NCCL INFO proxy.cc:684 -> 6 [Proxy Thread]"]
    clock.tick(0.8)
    L += ["[node0] [E ProcessGroupNCCL.cpp:916] [Rank 2] NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.18.1",
          "[node0] ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
          "[node0] Last error:",
          "[node0] socketProgressOpt: Call to recv from 192.168.50.12<45213> failed : Connection timed out",
          "[node0] terminate called after throwing an instance of 'std::runtime_error'",
          "[node0]   what():  [Rank 2] NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.18.1",
          "[node0] ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
          "[node0] Last error:",
          "[node0] socketProgressOpt: Call to recv from 192.168.50.12<45213> failed : Connection timed out"]
    clock.tick(1.5)
    L.append("[node0] " + elastic_log("2.1.1", clock, "W", "torch.distributed.elastic.multiprocessing.api", 0, "Sending process 30116 closing signal SIGTERM"))
    L.append("[node0] " + elastic_log("2.1.1", clock, "W", "torch.distributed.elastic.multiprocessing.api", 0, "Sending process 30117 closing signal SIGTERM"))
    L.append("[node0] " + elastic_log("2.1.1", clock, "W", "torch.distributed.elastic.multiprocessing.api", 0, "Sending process 30119 closing signal SIGTERM"))
    clock.tick(0.5)
    L.append("[node0] " + elastic_log("2.1.1", clock, "E", "torch.distributed.elastic.multiprocessing.api", 0,
                                      "failed (exitcode: -6) local_rank: 2 (pid: 30118) of binary: /home/rvargas/miniconda3/bin/python"))
    L += ["[node0] " + x for x in agent_traceback("2.1.1", site.replace("/opt/conda", "/home/rvargas/miniconda3"), entry="/home/rvargas/miniconda3/bin/torchrun")]
    t = clock.elastic()
    fails = [{"time": t, "host": "lab-gpu-01", "rank": rk, "local_rank": rk, "exitcode": -15, "pid": 30116 + rk} for rk in [0, 1, 3]]
    L += ["[node0] " + x for x in elastic_summary("train_ldm.py", fails,
                                                  {"time": t, "host": "lab-gpu-01", "rank": 2, "local_rank": 2, "exitcode": -6, "pid": 30118})]
    L += ["", "[node1] (base) rvargas@lab-gpu-02:~/diffusion$ # same command with --node_rank=1; its terminal:"]
    clock.tick(-2.6)
    L += [f"[node1] lab-gpu-02:{11873}:{12140} [2] misc/socket.cc:49 NCCL WARN socketProgressOpt: Call to recv from 192.168.50.11<51877> failed : Connection timed out",
          "[node1] [E ProcessGroupNCCL.cpp:916] [Rank 6] NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.18.1",
          "[node1] ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
          "[node1] Last error:",
          "[node1] socketProgressOpt: Call to recv from 192.168.50.11<51877> failed : Connection timed out",
          "[node1] terminate called after throwing an instance of 'std::runtime_error'"]
    clock.tick(5)
    L.append("[node1] " + elastic_log("2.1.1", clock, "E", "torch.distributed.elastic.multiprocessing.api", 0,
                                      "failed (exitcode: -6) local_rank: 2 (pid: 11873) of binary: /home/rvargas/miniconda3/bin/python"))
    L += ["", "[node0] (base) rvargas@lab-gpu-01:~/diffusion$ sudo dmesg -T | tail -4",
          "[node0] [Mon Dec 11 17:47:02 2023] ice 0000:3b:00.0 ens1f0: NIC Link is Down",
          "[node0] [Mon Dec 11 17:49:37 2023] ice 0000:3b:00.0 ens1f0: NIC Link is up 25 Gbps Full Duplex, Requested FEC: RS-FEC, Negotiated FEC: RS-FEC, Autoneg Advertised: On, Autoneg Negotiated: False, Flow Control: None",
          "[node0] [Mon Dec 11 17:49:37 2023] ice 0000:3b:00.0 ens1f0: NIC Link is Down",
          "[node0] [Mon Dec 11 17:49:41 2023] ice 0000:3b:00.0 ens1f0: NIC Link is up 25 Gbps Full Duplex, Requested FEC: RS-FEC, Negotiated FEC: RS-FEC, Autoneg Advertised: On, Autoneg Negotiated: False, Flow Control: None"]
    L = [x for x in L if "NCCL INFO" not in x]  # NCCL_DEBUG=WARN: no INFO lines
    meta = dict(label="nccl-network-error", difficulty="medium",
                description="2-node torchrun over 25GbE sockets (NCCL_IB_DISABLE=1), 8x L40S; both nodes' rank 2/6 report recv 'Connection timed out' towards each other, ncclRemoteError aborts; dmesg shows the ens1f0 NIC link flapping",
                initiating_rank=2,
                facts=dict(launcher="torchrun", world_size=8, num_nodes=2, nccl_version="2.18.1", gpu_model="L40S", exit_code=-6, signal="SIGABRT"),
                must_mention=["link", "ens1f0"], secrets=["rvargas"])
    return cid, {"two_nodes.log": J(L)}, meta


def case_network_ds_multinode_hard():
    cid = "nccl-network-error-deepspeed-4node-ib-03"
    r = rng_for(cid)
    clock = Clock(datetime(2024, 6, 3, 13, 5, 22, 640000))
    site = SITE["usr310"]
    hosts = [f"gpu-a{n:02d}" for n in (17, 18, 19, 20)]
    ips = ["172.20.8.17", "172.20.8.18", "172.20.8.19", "172.20.8.20"]
    import base64
    import json
    wi = base64.urlsafe_b64encode(json.dumps({h: list(range(8)) for h in hosts}).encode()).decode()
    L = [f"{clock.ds()} [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w gpu-a17,gpu-a18,gpu-a19,gpu-a20 export NCCL_DEBUG=WARN; export NCCL_IB_GID_INDEX=3; export NCCL_IB_TIMEOUT=22;  cd /mnt/fs/work/bloomz-ft; /usr/bin/python3 -u -m deepspeed.launcher.launch --world_info={wi} --node_rank=%n --master_addr=172.20.8.17 --master_port=29500 train.py --deepspeed ds_zero3.json --model bigscience/bloom-7b1 --bf16"]
    for n, h in enumerate(hosts):
        clock.tick(1.7, 0.3, r)
        L += [f"{h}: {clock.ds()} [INFO] [launch.py:145:main] WORLD INFO DICT: {{'gpu-a17': [0, 1, 2, 3, 4, 5, 6, 7], 'gpu-a18': [0, 1, 2, 3, 4, 5, 6, 7], 'gpu-a19': [0, 1, 2, 3, 4, 5, 6, 7], 'gpu-a20': [0, 1, 2, 3, 4, 5, 6, 7]}}",
              f"{h}: {clock.ds()} [INFO] [launch.py:151:main] nnodes=4, num_local_procs=8, node_rank={n}",
              f"{h}: {clock.ds()} [INFO] [launch.py:163:main] dist_world_size=32",
              f"{h}: {clock.ds()} [INFO] [launch.py:165:main] Setting CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7"]
    clock.tick(15)
    L += [f"gpu-a17: {clock.ds()} [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.14.0, git-hash=unknown, git-branch=unknown",
          f"gpu-a17: {clock.ds()} [INFO] [config.py:996:print]   zero_optimization ............ stage=3 overlap_comm=True contiguous_gradients=True reduce_bucket_size=16777216 stage3_prefetch_bucket_size=15099494 stage3_param_persistence_threshold=40960",
          f"gpu-a17: {clock.ds()} [INFO] [config.py:996:print]   bf16_enabled ................. True",
          f"gpu-a17: {clock.ds()} [INFO] [config.py:996:print]   train_batch_size ............. 256",
          f"gpu-a17: {clock.ds()} [INFO] [config.py:996:print]   train_micro_batch_size_per_gpu  2",
          f"gpu-a17: {clock.ds()} [INFO] [config.py:996:print]   gradient_accumulation_steps .. 4",
          f"gpu-a17: {clock.ds()} [INFO] [engine.py:1307:_configure_optimizer] Using DeepSpeed Optimizer param name adamw as basic optimizer",
          f"gpu-a17: {clock.ds()} [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Basic Optimizer = FusedAdam",
          f"gpu-a17: {clock.ds()} [INFO] [torch_checkpoint_engine.py:33:load] [Torch] Loaded checkpoint from /mnt/fs/ckpt/bloomz7b/global_step2400/zero_pp_rank_0_mp_rank_00_model_states.pt."]
    step = 2400
    for k in range(12):
        clock.tick(10 * 8.3, 0.4, r)
        step += 10
        L.append(f"gpu-a17: {clock.ds()} [INFO] [logging.py:96:log_dist] [Rank 0] step={step}, skipped=0, lr=[1.9{r.randint(10, 99)}e-05], mom=[(0.9, 0.95)]")
        L.append(f"gpu-a17: {{'loss': {r.uniform(1.41, 1.52):.4f}, 'learning_rate': 1.9{r.randint(10, 99)}e-05, 'epoch': {step / 9000:.2f}}}")
    clock.tick(33)
    # link between a19 (ranks 16-23) HCA mlx5_1 and a18 fails; both ends see completion errors
    L += [f"gpu-a19: gpu-a19:77311:78420 [1] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer {ips[1]}<52718> with error 12, opcode 0, len 0, vendor err 129 (Recv)",
          f"gpu-a18: gpu-a18:61047:62190 [1] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer {ips[2]}<48833> with error 12, opcode 0, len 0, vendor err 129 (Send)"]
    clock.tick(0.3)
    L += ["gpu-a19: [rank17]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 17] NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.20.5",
          "gpu-a19: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
          "gpu-a19: Last error:",
          f"gpu-a19: NET/IB : Got completion from peer {ips[1]}<52718> with error 12, opcode 0, len 0, vendor err 129 (Recv)",
          "gpu-a19: terminate called after throwing an instance of 'c10::DistBackendError'",
          "gpu-a18: [rank9]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 9] NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.20.5",
          "gpu-a18: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
          "gpu-a18: Last error:",
          f"gpu-a18: NET/IB : Got completion from peer {ips[2]}<48833> with error 12, opcode 0, len 0, vendor err 129 (Send)",
          "gpu-a18: terminate called after throwing an instance of 'c10::DistBackendError'"]
    clock.tick(1.2)
    for n, h in [(2, "gpu-a19"), (1, "gpu-a18")]:
        base = 77310 if n == 2 else 61046
        for lr in range(8):
            L.append(f"{h}: {clock.ds()} [INFO] [launch.py:315:sigkill_handler] Killing subprocess {base + lr}")
        L.append(f"{h}: {clock.ds()} [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', 'train.py', '--local_rank=1', '--deepspeed', 'ds_zero3.json', '--model', 'bigscience/bloom-7b1', '--bf16'] exits with return code = -6")
    clock.tick(0.7)
    for g, h, lr, pid in [(3, "gpu-a17", 3, 52211), (27, "gpu-a20", 3, 40190), (5, "gpu-a17", 5, 52213), (30, "gpu-a20", 6, 40193), (0, "gpu-a17", 0, 52208)]:
        peer = ips[1] if r.random() < 0.5 else ips[2]
        L += [f"{h}: {h}:{pid}:{pid + 1170} [{lr}] misc/socket.cc:538 NCCL WARN socketProgress: Connection closed by remote peer {peer}<{r.randint(33000, 60999)}>",
              f"{h}: [rank{g}]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank {g}] NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.20.5",
              f"{h}: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
              f"{h}: Last error:",
              f"{h}: socketProgress: Connection closed by remote peer {peer}<{r.randint(33000, 60999)}>",
              f"{h}: terminate called after throwing an instance of 'c10::DistBackendError'"]
    clock.tick(1.0)
    for n, h, base in [(0, "gpu-a17", 52208), (3, "gpu-a20", 40187)]:
        for lr in range(8):
            L.append(f"{h}: {clock.ds()} [INFO] [launch.py:315:sigkill_handler] Killing subprocess {base + lr}")
        L.append(f"{h}: {clock.ds()} [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', 'train.py', '--local_rank=3', '--deepspeed', 'ds_zero3.json', '--model', 'bigscience/bloom-7b1', '--bf16'] exits with return code = -6")
    L += ["pdsh@gpu-a17: gpu-a19: ssh exited with exit code 250", "pdsh@gpu-a17: gpu-a18: ssh exited with exit code 250",
          "pdsh@gpu-a17: gpu-a17: ssh exited with exit code 250", "pdsh@gpu-a17: gpu-a20: ssh exited with exit code 250"]
    meta = dict(label="nccl-network-error", difficulty="hard",
                description="DeepSpeed ZeRO-3 4x8 GPUs (torch 2.3, NCCL 2.20.5, RoCE); ranks 17 (gpu-a19) and 9 (gpu-a18) both get NET/IB completion error 12 towards each other with no earlier failure anywhere; the end of the log is collateral 'Connection closed by remote peer' on the other nodes and launcher kills",
                initiating_rank=17,
                facts=dict(launcher="deepspeed", world_size=32, num_nodes=4, nccl_version="2.20.5", deepspeed_version="0.14.0", zero_stage=3,
                           precision="bf16", exit_code=-6),
                must_mention=["gpu-a19", "gpu-a18"])
    return cid, {"ds_train.log": J(L)}, meta


# ==================================================================================================
# torchrun-child-failed
# ==================================================================================================


def case_child_restarts_113():
    cid = "torchrun-child-failed-max-restarts-113-02"
    r = rng_for(cid)
    site = SITE["conda310"]
    host = "train-a100-2"
    clock = Clock(datetime(2023, 2, 27, 21, 3, 11))
    run_sub = "none_" + "".join(r.choice(string.ascii_lowercase + string.digits) for _ in range(8))
    L = ["$ LOGLEVEL=INFO torchrun --nproc_per_node=4 --max_restarts=3 --redirects=3 --log_dir=/data/runs/t5-sum/logs train_summarizer.py --model t5-large --epochs 3",
         "WARNING:torch.distributed.run:", "*****************************************",
         "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
         "*****************************************",
         "INFO:torch.distributed.launcher.api:Starting elastic_operator with launch configs:",
         "  entrypoint       : train_summarizer.py", "  min_nodes        : 1", "  max_nodes        : 1", "  nproc_per_node   : 4",
         "  run_id           : none", "  rdzv_backend     : static", "  rdzv_endpoint    : 127.0.0.1:29500",
         "  rdzv_configs     : {'rank': 0, 'timeout': 900}", "  max_restarts     : 3", "  monitor_interval : 5",
         "  log_dir          : /data/runs/t5-sum/logs", "  metrics_cfg      : {}", "",
         "INFO:torch.distributed.elastic.agent.server.local_elastic_agent:log directory set to: /data/runs/t5-sum/logs/" + run_sub,
         "INFO:torch.distributed.elastic.agent.server.api:[default] starting workers for entrypoint: python",
         "INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous'ing worker group",
         f"{site}/torch/distributed/elastic/utils/store.py:52: FutureWarning: This is an experimental API and will be changed in future.",
         "  warnings.warn("]
    pid = 61210
    for attempt in range(4):
        L += ["INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous complete for workers. Result:",
              f"  restart_count={attempt}", "  master_addr=127.0.0.1", "  master_port=29500", "  group_rank=0", "  group_world_size=1",
              "  local_ranks=[0, 1, 2, 3]", "  role_ranks=[0, 1, 2, 3]", "  global_ranks=[0, 1, 2, 3]",
              "  role_world_sizes=[4, 4, 4, 4]", "  global_world_sizes=[4, 4, 4, 4]", "",
              "INFO:torch.distributed.elastic.agent.server.api:[default] Starting worker group",
              "INFO:torch.distributed.elastic.agent.server.local_elastic_agent:Environment variable 'TORCHELASTIC_ENABLE_FILE_TIMER' not found. Do not start FileTimerServer."]
        for lr in range(4):
            L.append(f"INFO:torch.distributed.elastic.multiprocessing:Setting worker{lr} reply file to: /data/runs/t5-sum/logs/{run_sub}/attempt_{attempt}/{lr}/error.json")
        failed_lr = 2
        L.append(f"ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: {failed_lr} (pid: {pid + failed_lr}) of binary: /opt/conda/bin/python")
        if attempt < 3:
            L += [f"INFO:torch.distributed.elastic.agent.server.api:[default] Worker group FAILED. {3 - attempt}/3 attempts left; will restart worker group",
                  "INFO:torch.distributed.elastic.agent.server.api:[default] Stopping worker group",
                  "INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous'ing worker group"]
            pid += 57
    L += ["INFO:torch.distributed.elastic.agent.server.api:Local worker group finished (FAILED). Waiting 300 seconds for other agents to finish",
          "INFO:torch.distributed.elastic.agent.server.api:Done waiting for other agents. Elapsed: 0.0006384849548339844 seconds"]
    L += agent_traceback("1.13.1", site, entry="/opt/conda/bin/torchrun")
    t = "2023-02-27_21:06:54"
    fails = [{"time": t, "host": host, "rank": rk, "local_rank": rk, "exitcode": -15, "pid": pid + rk} for rk in [0, 1, 3]]
    L += elastic_summary("train_summarizer.py", fails, {"time": t, "host": host, "rank": 2, "local_rank": 2, "exitcode": 1, "pid": pid + 2})
    meta = dict(label="torchrun-child-failed", difficulty="medium",
                description="torch 1.13 torchrun with --max_restarts=3 and --redirects=3: worker output goes to /data/runs/t5-sum/logs, local rank 2 fails 4 times with exit code 1, the console only shows the agent's restarts and the ChildFailedError summary",
                initiating_rank=2,
                facts=dict(launcher="torchrun", world_size=4, exit_code=1),
                must_mention=["local_rank", "log"])
    return cid, {"console.txt": J(L)}, meta


def case_child_slurm_two_nodes():
    cid = "torchrun-child-failed-slurm-2node-cancelled-03"
    r = rng_for(cid)
    site = "/scratch/mtorres/envs/nlp24/lib/python3.10/site-packages"
    clock = Clock(datetime(2024, 8, 8, 10, 1, 2, 114000))
    tid = {0: 22817, 1: 41902}
    L = ["== job 991203 (mtorres) on gpu-c11,gpu-c12  Thu Aug  8 10:01:01 CEST 2024 ==",
         "SLURM_JOB_USER=mtorres SLURM_NNODES=2 SLURM_GPUS_ON_NODE=8",
         "+ srun -l --kill-on-bad-exit=1 torchrun --nnodes=2 --nproc_per_node=8 --rdzv-backend=c10d --rdzv-endpoint=gpu-c11:29500 --rdzv-id=991203 --redirects=3 --log-dir=/scratch/mtorres/runs/991203/torchrun train_retriever.py --cfg cfg/colbert_v2.yaml"]
    thr = {0: 140321234567488, 1: 140552234567488}
    for n in (0, 1):
        L += [f"{n}: " + x for x in torchrun_banner("2.4.0", clock, tid=thr[n])]
    clock.tick(3, 0.9, r)
    L += [f"0: {clock.glog('I')} 140321234567488 torch/distributed/elastic/agent/server/api.py:879] [default] starting workers for entrypoint: python",
          f"1: {clock.glog('I')} 140552234567488 torch/distributed/elastic/agent/server/api.py:879] [default] starting workers for entrypoint: python"]
    clock.tick(4176, 0.9, r)
    L += [f"1: {clock.glog('E')} 140552234567488 torch/distributed/elastic/multiprocessing/api.py:863] failed (exitcode: 1) local_rank: 5 (pid: {tid[1] + 6}) of binary: /scratch/mtorres/envs/nlp24/bin/python",
          f"1: {clock.glog('I')} 140552234567488 torch/distributed/elastic/multiprocessing/errors/__init__.py:375] ('local_rank %s FAILED with no error file. Decorate your entrypoint fn with @record for traceback info. See: https://pytorch.org/docs/stable/elastic/errors.html', 5)"]
    L += ["1: " + x for x in agent_traceback("2.4.0", site, entry="/scratch/mtorres/envs/nlp24/bin/torchrun")]
    t = clock.elastic()
    fails = [{"time": t, "host": "gpu-c12", "rank": 8 + lr, "local_rank": lr, "exitcode": -15, "pid": tid[1] + 1 + lr} for lr in range(8) if lr != 5]
    L += ["1: " + x for x in elastic_summary("train_retriever.py", fails,
                                            {"time": t, "host": "gpu-c12", "rank": 13, "local_rank": 5, "exitcode": 1, "pid": tid[1] + 6})]
    clock.tick(0.6, 0.3, r)
    L += ["srun: error: gpu-c12: task 1: Exited with exit code 1",
          f"0: {clock.glog('W')} 140321234567488 torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death signal, shutting down workers"]
    for lr in range(8):
        L.append(f"0: {clock.glog('W')} 140321234567488 torch/distributed/elastic/multiprocessing/api.py:897] Sending process {tid[0] + 1 + lr} closing signal SIGTERM")
    L += ["0: Traceback (most recent call last):",
          '0:   File "/scratch/mtorres/envs/nlp24/bin/torchrun", line 8, in <module>',
          "0:     sys.exit(main())",
          f'0:   File "{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 348, in wrapper',
          "0:     return f(*args, **kwargs)",
          f'0:   File "{site}/torch/distributed/run.py", line 901, in main',
          "0:     run(args)",
          f'0:   File "{site}/torch/distributed/run.py", line 892, in run',
          "0:     elastic_launch(",
          f'0:   File "{site}/torch/distributed/launcher/api.py", line 133, in __call__',
          "0:     return launch_agent(self._config, self._entrypoint, list(args))",
          f'0:   File "{site}/torch/distributed/launcher/api.py", line 255, in launch_agent',
          "0:     result = agent.run()",
          f'0:   File "{site}/torch/distributed/elastic/metrics/api.py", line 124, in wrapper',
          "0:     result = f(*args, **kwargs)",
          f'0:   File "{site}/torch/distributed/elastic/agent/server/api.py", line 680, in run',
          "0:     result = self._invoke_run(role)",
          f'0:   File "{site}/torch/distributed/elastic/agent/server/api.py", line 835, in _invoke_run',
          "0:     time.sleep(monitor_interval)",
          f'0:   File "{site}/torch/distributed/elastic/multiprocessing/api.py", line 79, in _terminate_process_handler',
          "0:     raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
          f"0: torch.distributed.elastic.multiprocessing.api.SignalException: Process {tid[0]} got signal: 15",
          "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
          f"slurmstepd: error: *** STEP 991203.0 ON gpu-c11 CANCELLED AT {clock.slurm()} ***",
          "srun: error: gpu-c11: task 0: Terminated",
          "srun: Force Terminated StepId=991203.0"]
    meta = dict(label="torchrun-child-failed", difficulty="hard",
                description="srun --kill-on-bad-exit + torchrun on 2 nodes with --redirects=3: global rank 13 (gpu-c12 local 5) exits 1 after 70 min, its output went to --log-dir; srun then SIGTERMs node 0, so the log ends with SignalException and 'STEP ... CANCELLED', which looks like a scheduler kill",
                initiating_rank=13,
                facts=dict(num_nodes=2, exit_code=1),
                must_mention=["rank 13", "log"], secrets=["mtorres"])
    return cid, {"slurm-991203.out": J(L)}, meta


def case_child_accelerate_argparse():
    cid = "torchrun-child-failed-accelerate-argparse-04"
    r = rng_for(cid)
    site = SITE["usr310"]
    host = "gpu-dev-3"
    clock = Clock(datetime(2024, 3, 19, 15, 44, 2, 870000))
    usage = ("usage: run_summarization.py [-h] --model_name_or_path MODEL_NAME_OR_PATH [--config_name CONFIG_NAME] [--tokenizer_name TOKENIZER_NAME] "
             "[--cache_dir CACHE_DIR] [--use_fast_tokenizer [USE_FAST_TOKENIZER]] [--no_use_fast_tokenizer] [--model_revision MODEL_REVISION] "
             "[--token TOKEN] [--trust_remote_code [TRUST_REMOTE_CODE]] [--resize_position_embeddings RESIZE_POSITION_EMBEDDINGS] "
             "[--dataset_name DATASET_NAME] [--dataset_config_name DATASET_CONFIG_NAME] [--text_column TEXT_COLUMN] [--summary_column SUMMARY_COLUMN] "
             "[--train_file TRAIN_FILE] [--validation_file VALIDATION_FILE] [--max_source_length MAX_SOURCE_LENGTH] [--max_target_length MAX_TARGET_LENGTH] "
             "[--output_dir OUTPUT_DIR] [--overwrite_output_dir [OVERWRITE_OUTPUT_DIR]] [--do_train [DO_TRAIN]] [--do_eval [DO_EVAL]] "
             "[--per_device_train_batch_size PER_DEVICE_TRAIN_BATCH_SIZE] [--learning_rate LEARNING_RATE] [--lr_scheduler_type {linear,cosine,cosine_with_restarts,polynomial,constant,constant_with_warmup,inverse_sqrt,reduce_lr_on_plateau}] "
             "[--warmup_ratio WARMUP_RATIO] [--num_train_epochs NUM_TRAIN_EPOCHS] [--bf16 [BF16]] [--gradient_checkpointing [GRADIENT_CHECKPOINTING]] ...")
    L = ["$ accelerate launch --multi_gpu --num_processes 4 --mixed_precision bf16 examples/pytorch/summarization/run_summarization.py \\",
         "    --model_name_or_path google/flan-t5-xl --dataset_name cnn_dailymail --dataset_config_name 3.0.0 \\",
         "    --do_train --do_eval --per_device_train_batch_size 4 --learning_rate 3e-4 --lr_sheduler_type cosine \\",
         "    --num_train_epochs 2 --bf16 --output_dir /mnt/ckpt/flan-t5-xl-cnndm --source_prefix 'summarize: '"]
    L += torchrun_banner("2.2.1", clock)
    L = [ln.replace(" 139872234567488 ", " 140093017282368 ") for ln in L]
    clock.tick(4.1)
    for rk in [1, 0, 3, 2]:
        L += [usage, "run_summarization.py: error: unrecognized arguments: --lr_sheduler_type cosine"]
    clock.tick(0.3)
    L.append(f"{clock.glog('E')} 140093017282368 torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: 2) local_rank: 0 (pid: 51874) of binary: /usr/bin/python")
    tb = agent_traceback("2.2.1", site, entry="/usr/local/bin/accelerate")
    L += tb[:1] + accelerate_launch_frames("/usr/local/bin/accelerate", site, 47, 1008, "multi_gpu_launcher", 666) + tb[7:]
    t = clock.elastic()
    fails = [{"time": t, "host": host, "rank": rk, "local_rank": rk, "exitcode": 2, "pid": 51874 + rk} for rk in [1, 2, 3]]
    L += elastic_summary("examples/pytorch/summarization/run_summarization.py", fails,
                         {"time": t, "host": host, "rank": 0, "local_rank": 0, "exitcode": 2, "pid": 51874})
    meta = dict(label="torchrun-child-failed", difficulty="medium",
                description="accelerate launch of the HF summarization example with a misspelled flag (--lr_sheduler_type); every worker prints argparse usage and exits 2 before any distributed work; the log ends with the ChildFailedError summary (exitcode 2)",
                initiating_rank=1,
                facts=dict(launcher="accelerate", world_size=4, exit_code=2, precision="bf16"),
                must_mention=["unrecognized arguments", "lr_sheduler_type"])
    return cid, {"launch.log": J(L)}, meta


# ==================================================================================================
# dist-rendezvous-timeout
# ==================================================================================================

def case_rdzv_master_addr_per_node():
    cid = "dist-rendezvous-timeout-slurm-master-addr-02"
    r = rng_for(cid)
    site = "/home/hnguyen/.conda/envs/ocr/lib/python3.10/site-packages"
    clock = Clock(datetime(2024, 1, 30, 23, 14, 40))
    L = ["SLURM_JOB_ID=3310457", "SLURM_JOB_USER=hnguyen", "SLURM_JOB_NODELIST=gpu-d[02-03]", "SLURM_NNODES=2", "SLURM_NTASKS=16",
         "== run.sh (per task) ==",
         "export MASTER_ADDR=$(hostname)", "export MASTER_PORT=29500",
         "export RANK=$SLURM_PROCID WORLD_SIZE=$SLURM_NTASKS LOCAL_RANK=$SLURM_LOCALID",
         "exec python train_donut.py --config configs/donut_docvqa.yaml",
         "== srun -l ./run.sh =="]
    L.append(" 0: [W socket.cpp:436] [c10d] The server socket cannot be initialized on [::]:29500 (errno: 97 - Address family not supported by protocol).")
    for g in range(1, 8):
        L.append(f"{g:2d}: [W socket.cpp:663] [c10d] The client socket cannot be initialized to connect to [gpu-d02]:29500 (errno: 97 - Address family not supported by protocol).")
    for g in range(8, 16):
        L.append(f"{g:2d}: [W socket.cpp:663] [c10d] The client socket cannot be initialized to connect to [gpu-d03]:29500 (errno: 97 - Address family not supported by protocol).")
    for k in range(6):
        clock.tick(300, 5, r)
        for g in r.sample(range(8, 16), 3):
            L.append(f"{g:2d}: [W socket.cpp:697] [c10d] The client socket has failed to connect to [gpu-d03]:29500 (errno: 111 - Connection refused).")
    clock.tick(5)
    L += [" 0: Traceback (most recent call last):",
          ' 0:   File "/home/hnguyen/ocr/train_donut.py", line 318, in <module>',
          " 0:     main()",
          ' 0:   File "/home/hnguyen/ocr/train_donut.py", line 201, in main',
          ' 0:     dist.init_process_group("nccl", init_method="env://", timeout=timedelta(minutes=30))',
          f' 0:   File "{site}/torch/distributed/c10d_logger.py", line 86, in wrapper',
          " 0:     func_return = func(*args, **kwargs)",
          f' 0:   File "{site}/torch/distributed/distributed_c10d.py", line 1177, in init_process_group',
          " 0:     store, rank, world_size = next(rendezvous_iterator)",
          f' 0:   File "{site}/torch/distributed/rendezvous.py", line 246, in _env_rendezvous_handler',
          " 0:     store = _create_c10d_store(master_addr, master_port, rank, world_size, timeout)",
          f' 0:   File "{site}/torch/distributed/rendezvous.py", line 174, in _create_c10d_store',
          " 0:     return TCPStore(",
          " 0: torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 8/16 clients joined."]
    L.append("srun: error: gpu-d02: task 0: Exited with exit code 1")
    clock.tick(2)
    for g in [12, 8, 15, 9, 10, 14, 11, 13]:
        L += [f"{g:2d}: Traceback (most recent call last):",
              f'{g:2d}:   File "/home/hnguyen/ocr/train_donut.py", line 318, in <module>',
              f"{g:2d}:     main()",
              f'{g:2d}:   File "/home/hnguyen/ocr/train_donut.py", line 201, in main',
              f'{g:2d}:     dist.init_process_group("nccl", init_method="env://", timeout=timedelta(minutes=30))',
              f'{g:2d}:   File "{site}/torch/distributed/distributed_c10d.py", line 1177, in init_process_group',
              f"{g:2d}:     store, rank, world_size = next(rendezvous_iterator)",
              f'{g:2d}:   File "{site}/torch/distributed/rendezvous.py", line 246, in _env_rendezvous_handler',
              f"{g:2d}:     store = _create_c10d_store(master_addr, master_port, rank, world_size, timeout)",
              f'{g:2d}:   File "{site}/torch/distributed/rendezvous.py", line 174, in _create_c10d_store',
              f"{g:2d}:     return TCPStore(",
              f"{g:2d}: torch.distributed.DistNetworkError: The client socket has timed out after 1800s while trying to connect to (gpu-d03, 29500)."]
    L += ["srun: error: gpu-d03: tasks 8-15: Exited with exit code 1",
          "srun: error: gpu-d02: tasks 1-7: Exited with exit code 1"]
    meta = dict(label="dist-rendezvous-timeout", difficulty="medium",
                description="srun -l, 2 nodes x 8 tasks, env:// init; run.sh sets MASTER_ADDR=$(hostname) per task so gpu-d03's ranks connect to themselves (Connection refused) and rank 0 times out with 8/16 clients joined after 1801 s (torch 2.2)",
                initiating_rank=0,
                facts=dict(launcher="srun", world_size=16, num_nodes=2),
                must_mention=["MASTER_ADDR"], secrets=["hnguyen"])
    return cid, {"slurm-3310457.out": J(L)}, meta


def case_rdzv_c10d_run_id_mismatch():
    cid = "dist-rendezvous-timeout-c10d-rdzv-id-mismatch-03"
    r = rng_for(cid)
    site = SITE["usr310"]
    files = {}
    ids = [str(uuidlike(r)) for _ in range(2)]
    for n, (host, peer) in enumerate([("node-a", "node-b"), ("node-b", "node-a")]):
        clock = Clock(datetime(2023, 10, 2, 8, 0, 3 + 41 * n))
        L = [f"ubuntu@{host}:~/rl-ft$ ./launch.sh",
             f"+ RDZV_ID={ids[n]}",
             f"+ torchrun --nnodes=2 --nproc_per_node=8 --rdzv_backend=c10d --rdzv_endpoint=node-a:29400 --rdzv_id={ids[n]} train_ppo.py --config configs/ppo_7b.yaml",
             "INFO:torch.distributed.launcher.api:Starting elastic_operator with launch configs:",
             "  entrypoint       : train_ppo.py", "  min_nodes        : 2", "  max_nodes        : 2", "  nproc_per_node   : 8",
             f"  run_id           : {ids[n]}", "  rdzv_backend     : c10d", "  rdzv_endpoint    : node-a:29400",
             "  rdzv_configs     : {'timeout': 900}", "  max_restarts     : 0", "  monitor_interval : 5", "  log_dir          : None",
             "  metrics_cfg      : {}", "",
             f"INFO:torch.distributed.elastic.agent.server.local_elastic_agent:log directory set to: /tmp/torchelastic_{''.join(r.choice(string.ascii_lowercase + string.digits) for _ in range(8))}/{ids[n]}_{''.join(r.choice(string.ascii_lowercase + string.digits) for _ in range(8))}",
             "INFO:torch.distributed.elastic.agent.server.api:[default] starting workers for entrypoint: python",
             "INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous'ing worker group"]
        if n == 1:
            L.insert(3, "WARNING:torch.distributed.run:")
            L.insert(4, "*****************************************")
            L.insert(5, "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ")
            L.insert(6, "*****************************************")
        else:
            L[3:3] = ["WARNING:torch.distributed.run:", "*****************************************",
                      "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
                      "*****************************************"]
        L = [x for x in L if x != ""]
        L += agent_traceback("2.0.1", site)[:-3]
        L += [f'  File "{site}/torch/distributed/launcher/api.py", line 241, in launch_agent',
              "    result = agent.run()",
              f'  File "{site}/torch/distributed/elastic/metrics/api.py", line 129, in wrapper',
              "    result = f(*args, **kwargs)",
              f'  File "{site}/torch/distributed/elastic/agent/server/api.py", line 723, in run',
              "    result = self._invoke_run(role)",
              f'  File "{site}/torch/distributed/elastic/agent/server/api.py", line 858, in _invoke_run',
              "    self._initialize_workers(self._worker_group)",
              f'  File "{site}/torch/distributed/elastic/metrics/api.py", line 129, in wrapper',
              "    result = f(*args, **kwargs)",
              f'  File "{site}/torch/distributed/elastic/agent/server/api.py", line 692, in _initialize_workers',
              "    self._rendezvous(worker_group)",
              f'  File "{site}/torch/distributed/elastic/metrics/api.py", line 129, in wrapper',
              "    result = f(*args, **kwargs)",
              f'  File "{site}/torch/distributed/elastic/agent/server/api.py", line 546, in _rendezvous',
              "    store, group_rank, group_world_size = spec.rdzv_handler.next_rendezvous()",
              f'  File "{site}/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", line 1028, in next_rendezvous',
              "    self._op_executor.run(join_op, deadline)",
              f'  File "{site}/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", line 638, in run',
              "    raise RendezvousTimeoutError()",
              "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError",
              f"ubuntu@{host}:~/rl-ft$ cat launch.sh",
              "#!/bin/bash",
              "# one launcher per node; run on node-a and node-b",
              "set -x",
              "RDZV_ID=$(cat /proc/sys/kernel/random/uuid)",
              "torchrun --nnodes=2 --nproc_per_node=8 --rdzv_backend=c10d --rdzv_endpoint=node-a:29400 --rdzv_id=$RDZV_ID train_ppo.py --config configs/ppo_7b.yaml"]
        files[f"{host}.log"] = J(L)
    meta = dict(label="dist-rendezvous-timeout", difficulty="medium",
                description="Two nodes started torchrun c10d rendezvous against the same endpoint but launch.sh generates a random --rdzv_id per node, so each agent waits alone in its own rendezvous and both raise RendezvousTimeoutError after join_timeout (torch 2.0.1)",
                initiating_rank=None,
                facts=dict(launcher="torchrun", num_nodes=2),
                must_mention=["rdzv_id"])
    return cid, files, meta


def uuidlike(r: random.Random) -> str:
    h = "".join(r.choice(HEX) for _ in range(32))
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{r.choice('89ab')}{h[17:20]}-{h[20:32]}"


# ==================================================================================================
# dist-address-in-use
# ==================================================================================================

def case_addr_mp_spawn_suspended():
    cid = "dist-address-in-use-mp-spawn-suspended-02"
    r = rng_for(cid)
    site = "/home/mchen/miniforge3/envs/gan/lib/python3.10/site-packages"
    L = ["(gan) mchen@studio-4x4090:~/gan$ python train_gan.py --cfg cfgs/stylegan2_ffhq256.yaml --gpus 4",
         "[train_gan] spawning 4 workers, MASTER_ADDR=localhost MASTER_PORT=12355",
         "[rank 0] generator 30.0M params, discriminator 28.9M params",
         "[rank 0] kimg 0.0 | G 2.31 | D 1.38 | 9.8 s/kimg",
         "[rank 0] kimg 4.0 | G 2.02 | D 1.21 | 2.7 s/kimg",
         "[rank 0] kimg 8.0 | G 1.88 | D 1.19 | 2.6 s/kimg",
         "^Z",
         "[1]+  Stopped                 python train_gan.py --cfg cfgs/stylegan2_ffhq256.yaml --gpus 4",
         "(gan) mchen@studio-4x4090:~/gan$ vim cfgs/stylegan2_ffhq256.yaml",
         "(gan) mchen@studio-4x4090:~/gan$ python train_gan.py --cfg cfgs/stylegan2_ffhq256.yaml --gpus 4",
         "[train_gan] spawning 4 workers, MASTER_ADDR=localhost MASTER_PORT=12355",
         "Traceback (most recent call last):",
         '  File "/home/mchen/gan/train_gan.py", line 240, in <module>',
         "    mp.spawn(main_worker, nprocs=args.gpus, args=(args.gpus, cfg), join=True)",
         f'  File "{site}/torch/multiprocessing/spawn.py", line 239, in spawn',
         "    return start_processes(fn, args, nprocs, join, daemon, start_method='spawn')",
         f'  File "{site}/torch/multiprocessing/spawn.py", line 197, in start_processes',
         "    while not context.join():",
         f'  File "{site}/torch/multiprocessing/spawn.py", line 160, in join',
         "    raise ProcessRaisedException(msg, error_index, failed_process.pid)",
         "torch.multiprocessing.spawn.ProcessRaisedException: ", "",
         "-- Process 0 terminated with the following error:",
         "Traceback (most recent call last):",
         f'  File "{site}/torch/multiprocessing/spawn.py", line 69, in _wrap',
         "    fn(i, *args)",
         '  File "/home/mchen/gan/train_gan.py", line 171, in main_worker',
         '    dist.init_process_group("nccl", rank=rank, world_size=world_size)',
         f'  File "{site}/torch/distributed/distributed_c10d.py", line 900, in init_process_group',
         "    store, rank, world_size = next(rendezvous_iterator)",
         f'  File "{site}/torch/distributed/rendezvous.py", line 245, in _env_rendezvous_handler',
         "    store = _create_c10d_store(master_addr, master_port, rank, world_size, timeout)",
         f'  File "{site}/torch/distributed/rendezvous.py", line 176, in _create_c10d_store',
         "    return TCPStore(",
         "RuntimeError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:12355 (errno: 98 - Address already in use). The server socket has failed to bind to 0.0.0.0:12355 (errno: 98 - Address already in use).",
         "",
         "(gan) mchen@studio-4x4090:~/gan$ jobs",
         "[1]+  Stopped                 python train_gan.py --cfg cfgs/stylegan2_ffhq256.yaml --gpus 4"]
    meta = dict(label="dist-address-in-use", difficulty="medium",
                description="mp.spawn GAN training (torch 2.0.1) suspended with Ctrl-Z (still alive, still holding MASTER_PORT 12355); the re-run's rank 0 cannot bind the store: errno 98 wrapped in ProcessRaisedException",
                initiating_rank=0,
                facts=dict(launcher="python", world_size=4),
                must_mention=["12355", "kill"], secrets=["mchen"])
    return cid, {"terminal.txt": J(L)}, meta


def case_addr_deepspeed_leftover():
    cid = "dist-address-in-use-deepspeed-leftover-03"
    r = rng_for(cid)
    site = SITE["usr38"]
    clock = Clock(datetime(2023, 9, 4, 7, 55, 10, 112000))
    smi = nvidia_smi("NVIDIA A100-SXM4-80GB", 8, "525.85.12", "12.0", r, when="Mon Sep  4 07:55:02 2023", used_mib=63411, util=0,
                     procs=[(i, 21402 + i, "/usr/bin/python", 63408) for i in range(8)])
    L = ["$ nvidia-smi", smi,
         "$ deepspeed --num_gpus 8 train_reward.py --deepspeed ds_config_zero2.json --model_name facebook/opt-6.7b --data /data/hh-rlhf --output_dir out/rm-opt67b-v2",
         f"{clock.ds()} [INFO] [real_accelerator.py:133:get_accelerator] Setting ds_accelerator to cuda (auto detect)"]
    clock.tick(1.6)
    L += [f"{clock.ds()} [WARNING] [runner.py:196:fetch_hostfile] Unable to find hostfile, will proceed with training with local resources only.",
          f"{clock.ds()} [INFO] [runner.py:555:main] cmd = /usr/bin/python -u -m deepspeed.launcher.launch --world_info=eyJsb2NhbGhvc3QiOiBbMCwgMSwgMiwgMywgNCwgNSwgNiwgN119 --master_addr=127.0.0.1 --master_port=29500 --enable_each_rank_log=None train_reward.py --deepspeed ds_config_zero2.json --model_name facebook/opt-6.7b --data /data/hh-rlhf --output_dir out/rm-opt67b-v2"]
    clock.tick(1.9)
    L += [f"{clock.ds()} [INFO] [real_accelerator.py:133:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
          f"{clock.ds()} [INFO] [launch.py:145:main] WORLD INFO DICT: {{'localhost': [0, 1, 2, 3, 4, 5, 6, 7]}}",
          f"{clock.ds()} [INFO] [launch.py:151:main] nnodes=1, num_local_procs=8, node_rank=0",
          f"{clock.ds()} [INFO] [launch.py:162:main] global_rank_mapping=defaultdict(<class 'list'>, {{'localhost': [0, 1, 2, 3, 4, 5, 6, 7]}})",
          f"{clock.ds()} [INFO] [launch.py:163:main] dist_world_size=8",
          f"{clock.ds()} [INFO] [launch.py:165:main] Setting CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7"]
    clock.tick(4.4)
    for i in range(8):
        L.append(f"{clock.ds()} [INFO] [real_accelerator.py:133:get_accelerator] Setting ds_accelerator to cuda (auto detect)")
    clock.tick(3.1)
    for rk in [3, 0, 6, 1, 7, 2, 5, 4]:
        clock.tick(0.02, 0.05, r)
        L.append(f"{clock.ds()} [INFO] [comm.py:637:init_distributed] cdb=None")
    L.append(f"{clock.ds()} [INFO] [comm.py:668:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl")
    L += ["Traceback (most recent call last):",
          '  File "train_reward.py", line 388, in <module>',
          "    main()",
          '  File "train_reward.py", line 226, in main',
          "    deepspeed.init_distributed()",
          f'  File "{site}/deepspeed/comm/comm.py", line 670, in init_distributed',
          "    cdb = TorchBackend(dist_backend, timeout, init_method, rank, world_size)",
          f'  File "{site}/deepspeed/comm/torch.py", line 120, in __init__',
          "    self.init_process_group(backend, timeout, init_method, rank, world_size)",
          f'  File "{site}/deepspeed/comm/torch.py", line 146, in init_process_group',
          "    torch.distributed.init_process_group(backend,",
          f'  File "{site}/torch/distributed/distributed_c10d.py", line 900, in init_process_group',
          "    store, rank, world_size = next(rendezvous_iterator)",
          f'  File "{site}/torch/distributed/rendezvous.py", line 245, in _env_rendezvous_handler',
          "    store = _create_c10d_store(master_addr, master_port, rank, world_size, timeout)",
          f'  File "{site}/torch/distributed/rendezvous.py", line 176, in _create_c10d_store',
          "    return TCPStore(",
          "RuntimeError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use)."]
    clock.tick(1.3)
    base = 30117
    L.append(f"{clock.ds()} [INFO] [launch.py:315:sigkill_handler] Killing subprocess {base}")
    for i in range(1, 8):
        L.append(f"{clock.ds()} [INFO] [launch.py:315:sigkill_handler] Killing subprocess {base + i}")
    L.append(f"{clock.ds()} [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train_reward.py', '--local_rank=0', '--deepspeed', 'ds_config_zero2.json', '--model_name', 'facebook/opt-6.7b', '--data', '/data/hh-rlhf', '--output_dir', 'out/rm-opt67b-v2'] exits with return code = 1")
    meta = dict(label="dist-address-in-use", difficulty="medium",
                description="deepspeed launcher on 8x A100-80GB; nvidia-smi shows 8 python processes of a previous run still holding 63 GiB each; the new rank 0 cannot bind master port 29500 (errno 98) during deepspeed.init_distributed; launcher kills the rest",
                initiating_rank=0,
                facts=dict(gpu_count=8, driver_version="525.85.12", launcher="deepspeed", world_size=8, exit_code=1),
                must_mention=["29500", "kill"])
    return cid, {"ds.log": J(L)}, meta


# ==================================================================================================
# ddp-unused-parameters
# ==================================================================================================

UNUSED_MSG = ("RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This error indicates that your module has parameters that were not used in producing loss. You can enable unused parameter detection by passing the keyword argument `find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n"
              "making sure all `forward` function outputs participate in calculating loss. \n"
              "If you already have done the above, then the distributed data parallel module wasn't able to locate the output tensors in the return value of your module's `forward` function. Please include the loss function and the structure of the return value of `forward` of your module when reporting this issue (e.g. list, dict, iterable).")
UNUSED_TAIL = " In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print out information about which particular parameters did not receive gradient on this rank as part of this error"


def case_unused_lora_reentrant():
    cid = "ddp-unused-parameters-lora-grad-ckpt-hf-02"
    r = rng_for(cid)
    site = SITE["usr310"]
    tok = hf_token(r)
    clock = Clock(datetime(2024, 1, 9, 14, 2, 33))
    args = {"bf16": True, "ddp_find_unused_parameters": None, "ddp_timeout": 1800, "gradient_accumulation_steps": 4,
            "gradient_checkpointing": True, "gradient_checkpointing_kwargs": None, "learning_rate": 0.0003,
            "logging_steps": 10, "lr_scheduler_type": "SchedulerType.COSINE", "num_train_epochs": 3, "optim": "OptimizerNames.ADAMW_TORCH",
            "output_dir": "/workspace/out/llama2-7b-alpaca-lora", "per_device_train_batch_size": 4, "report_to": "['tensorboard']",
            "save_steps": 200, "seed": 42, "warmup_steps": 100, "local_rank": 0}
    L = [f"root@a100x4:/workspace/alpaca-lora# HF_TOKEN={tok} torchrun --nproc_per_node=4 finetune.py --base_model meta-llama/Llama-2-7b-hf --data_path yahma/alpaca-cleaned --gradient_checkpointing True --lora_r 8 --lora_target_modules '[q_proj,v_proj]'"]
    L += torchrun_banner("2.1.2", clock)
    clock.tick(6)
    L += ["Training Alpaca-LoRA model with params:", "base_model: meta-llama/Llama-2-7b-hf", "data_path: yahma/alpaca-cleaned",
          "output_dir: /workspace/out/llama2-7b-alpaca-lora", "batch_size: 64", "micro_batch_size: 4", "num_epochs: 3",
          "learning_rate: 0.0003", "cutoff_len: 512", "val_set_size: 2000", "lora_r: 8", "lora_alpha: 16", "lora_dropout: 0.05",
          "lora_target_modules: ['q_proj', 'v_proj']", "train_on_inputs: True", "group_by_length: False", ""]
    for i in range(4):
        L.append(f"Loading checkpoint shards: 100%|██████████| 2/2 [00:0{5 + i % 2}<00:00,  {2.6 + 0.1 * i:.2f}s/it]")
    L += ["trainable params: 4,194,304 || all params: 6,742,609,920 || trainable%: 0.06220594176090199"] * 4
    L += ["Map: 100%|██████████| 49760/49760 [00:31<00:00, 1593.04 examples/s]",
          "Map: 100%|██████████| 2000/2000 [00:01<00:00, 1611.72 examples/s]",
          hf_args_dump(args),
          "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`...",
          "***** Running training *****", "  Num examples = 49,760", "  Num Epochs = 3", "  Instantaneous batch size per device = 4",
          "  Total train batch size (w. parallel, distributed & accumulation) = 64", "  Gradient Accumulation steps = 4",
          "  Total optimization steps = 2,331", "  Number of trainable parameters = 4,194,304",
          "  0%|          | 0/2331 [00:00<?, ?it/s]"]
    L = [x for x in L if x is not None]
    for i in range(4):
        L += [f"{site}/torch/utils/checkpoint.py:429: UserWarning: torch.utils.checkpoint: please pass in use_reentrant=True or use_reentrant=False explicitly. The default value of use_reentrant will be updated to be False in the future. To maintain current behavior, pass use_reentrant=True. It is recommended that you use use_reentrant=False. Refer to docs for more details on the differences between the two variants.",
              "  warnings.warn(",
              f"{site}/torch/utils/checkpoint.py:61: UserWarning: None of the inputs have requires_grad=True. Gradients will be None",
              '  warnings.warn(']
    L.append("  0%|          | 1/2331 [00:22<14:21:07, 22.17s/it]")
    idx = " ".join(str(i) for i in range(128))
    for rk in [2, 0, 3, 1]:
        L += ["Traceback (most recent call last):",
              '  File "/workspace/alpaca-lora/finetune.py", line 283, in <module>',
              "    fire.Fire(train)",
              f'  File "{site}/fire/core.py", line 141, in Fire',
              "    component_trace = _Fire(component, args, parsed_flag_args, context, name)",
              f'  File "{site}/fire/core.py", line 475, in _Fire',
              "    component, remaining_args = _CallAndUpdateTrace(",
              f'  File "{site}/fire/core.py", line 691, in _CallAndUpdateTrace',
              "    component = fn(*varargs, **kwargs)",
              '  File "/workspace/alpaca-lora/finetune.py", line 272, in train',
              "    trainer.train(resume_from_checkpoint=resume_from_checkpoint)",
              f'  File "{site}/transformers/trainer.py", line 1537, in train',
              "    return inner_training_loop(",
              f'  File "{site}/transformers/trainer.py", line 1854, in _inner_training_loop',
              "    tr_loss_step = self.training_step(model, inputs)",
              f'  File "{site}/transformers/trainer.py", line 2735, in training_step',
              "    loss = self.compute_loss(model, inputs)",
              f'  File "{site}/transformers/trainer.py", line 2758, in compute_loss',
              "    outputs = model(**inputs)",
              *module_call_frames(site, "2.1"),
              f'  File "{site}/torch/nn/parallel/distributed.py", line 1515, in forward',
              "    inputs, kwargs = self._pre_forward(*inputs, **kwargs)",
              f'  File "{site}/torch/nn/parallel/distributed.py", line 1409, in _pre_forward',
              "    if torch.is_grad_enabled() and self.reducer._rebuild_buckets():"]
        L += UNUSED_MSG.split("\n")
        L += [f"Parameter indices which did not receive grad for rank {rk}: {idx}", UNUSED_TAIL]
    clock.tick(2)
    L.append(elastic_log("2.1.2", clock, "E", "torch.distributed.elastic.multiprocessing.api", 0,
                         "failed (exitcode: 1) local_rank: 0 (pid: 4121) of binary: /usr/bin/python"))
    L += agent_traceback("2.1.2", site)
    t = clock.elastic()
    fails = [{"time": t, "host": "a100x4", "rank": rk, "local_rank": rk, "exitcode": 1, "pid": 4121 + rk} for rk in [1, 2, 3]]
    L += elastic_summary("finetune.py", fails, {"time": t, "host": "a100x4", "rank": 0, "local_rank": 0, "exitcode": 1, "pid": 4121})
    meta = dict(label="ddp-unused-parameters", difficulty="medium",
                description="HF Trainer LoRA fine-tune of Llama-2-7b on 4 GPUs with gradient_checkpointing (reentrant default) and a frozen embedding; 'None of the inputs have requires_grad=True' warnings, then all 128 LoRA parameters get no grad and DDP raises at the next forward",
                initiating_rank=2,
                facts=dict(launcher="torchrun", world_size=4, precision="bf16", exit_code=1),
                must_mention=["reentrant"], secrets=[tok])
    return cid, {"finetune.log": J(L)}, meta


def case_unused_multimodal_srun_hard():
    cid = "ddp-unused-parameters-multimodal-rank6-v100-03"
    r = rng_for(cid)
    site = "/opt/conda/lib/python3.8/site-packages"
    clock = Clock(datetime(2023, 3, 16, 4, 10, 0))
    L = ["[prolog] job 1187320 nodes=v100-a[07-08] gpus=16 partition=research",
         "+ srun -l python -u train_caption.py --cfg configs/blip_base_mix.yaml --launcher slurm"]
    for g in range(16):
        L.append(f"{g:2d}: | distributed init (rank {g}, world 16): tcp://v100-a07:23456")
    L += [" 0: [blip] torch 1.13.1+cu117, 16 x Tesla V100-SXM2-32GB, fp16 (amp)",
          " 0: [blip] datasets: coco_karpathy (566k captions, images), cc3m_text_only_aug (1.2M, no image -> text-only LM loss), sbu (860k)",
          " 0: [blip] mixing weights coco:0.4 cc3m_text:0.2 sbu:0.4 | per-GPU batch 24",
          " 0: [blip] DistributedDataParallel(find_unused_parameters=False, broadcast_buffers=False)",
          " 0: [blip] vision: ViT-B/16 (152 parameter tensors), text: BERT-base decoder"]
    for it in range(50, 3401, 50):
        clock.tick(50 * 0.83, 1.0, r)
        L.append(f" 0: Train Epoch: [0]  [{it:>5}/29124]  eta: {fmt_dur((29124 - it) * 0.83)}  lr: {min(1, it / 3000) * 1e-4:.6f}  loss_ita: {r.uniform(3.9, 4.6):.4f}  loss_itm: {r.uniform(0.3, 0.5):.4f}  loss_lm: {r.uniform(3.2, 3.9):.4f}  time: 0.83{r.randint(0, 9)}  data: 0.01{r.randint(0, 9)}  max mem: 25{r.randint(100, 999)}")
    clock.tick(14)
    idx = " ".join(str(i) for i in range(152))
    L += [" 6: Traceback (most recent call last):",
          ' 6:   File "train_caption.py", line 311, in <module>',
          " 6:     main(args, cfg)",
          ' 6:   File "train_caption.py", line 245, in main',
          " 6:     train_stats = train_one_epoch(model, data_loader, optimizer, epoch, device, scaler, cfg)",
          ' 6:   File "train_caption.py", line 71, in train_one_epoch',
          " 6:     loss_ita, loss_itm, loss_lm = model(image, caption, alpha=alpha)",
          f' 6:   File "{site}/torch/nn/modules/module.py", line 1194, in _call_impl',
          " 6:     return forward_call(*input, **kwargs)",
          f' 6:   File "{site}/torch/nn/parallel/distributed.py", line 1026, in forward',
          " 6:     if torch.is_grad_enabled() and self.reducer._rebuild_buckets():"]
    L += [" 6: " + x for x in UNUSED_MSG.split("\n")]
    L += [f" 6: Parameter indices which did not receive grad for rank 6: {idx}", " 6: " + UNUSED_TAIL]
    L += ["srun: error: v100-a07: task 6: Exited with exit code 1"]
    clock.tick(1800.3)
    seq = 16941
    for g in [0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15]:
        L.append(f"{g:2d}: [E ProcessGroupNCCL.cpp:821] [Rank {g}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for {1800000 + r.randint(50, 800)} milliseconds before timing out.")
    for g in [0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15]:
        L += [f"{g:2d}: [E ProcessGroupNCCL.cpp:456] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data. To avoid this inconsistency, we are taking the entire process down.",
              f"{g:2d}: terminate called after throwing an instance of 'std::runtime_error'",
              f"{g:2d}:   what():  [Rank {g}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for {1800000 + r.randint(50, 800)} milliseconds before timing out."]
    L += ["srun: error: v100-a07: tasks 0-5,7: Aborted (core dumped)",
          "srun: error: v100-a08: tasks 8-15: Aborted (core dumped)"]
    meta = dict(label="ddp-unused-parameters", difficulty="hard",
                description="srun 2x8 V100 BLIP-style pretraining with a text-only dataset mixed in (torch 1.13.1, find_unused_parameters=False); at iteration ~3400 rank 6 draws an all-text batch, its 152 vision parameters get no grad and it raises the reduction error; 15 other ranks hang and die 30 min later on the NCCL watchdog",
                initiating_rank=6,
                facts=dict(launcher="srun", world_size=16, torch_version="1.13.1", gpu_model="Tesla V100-SXM2-32GB", precision="fp16"),
                must_mention=["find_unused_parameters", "rank 6"])
    return cid, {"slurm-1187320.out": J(L)}, meta


def case_unused_bert_pooler_detail():
    cid = "ddp-unused-parameters-bert-pooler-accelerate-04"
    r = rng_for(cid)
    site = "/home/ubuntu/.venv/lib/python3.10/site-packages"
    clock = Clock(datetime(2024, 4, 2, 10, 44, 19, 0))
    L = ["$ TORCH_DISTRIBUTED_DEBUG=DETAIL accelerate launch --num_processes 2 --mixed_precision fp16 train_ner.py --model bert-base-cased --dataset conll2003 --epochs 3"]
    L += [x.replace(" 139872234567488 ", " 140201827338048 ") for x in torchrun_banner("2.2.2", clock)]
    clock.tick(5.5)
    L += ["04/02/2024 10:44:26 - INFO - __main__ - Distributed environment: MULTI_GPU  Backend: nccl",
          "Num processes: 2", "Process index: 0", "Local process index: 0", "Device: cuda:0", "", "Mixed precision type: fp16", "",
          "04/02/2024 10:44:26 - INFO - __main__ - Distributed environment: MULTI_GPU  Backend: nccl",
          "Num processes: 2", "Process index: 1", "Local process index: 1", "Device: cuda:1", "", "Mixed precision type: fp16", "",
          "Map: 100%|██████████| 14041/14041 [00:02<00:00, 6321.40 examples/s]",
          "Map: 100%|██████████| 3250/3250 [00:00<00:00, 6580.12 examples/s]",
          "04/02/2024 10:44:33 - INFO - __main__ - ***** Running training *****",
          "04/02/2024 10:44:33 - INFO - __main__ -   Num examples = 14041",
          "04/02/2024 10:44:33 - INFO - __main__ -   Num Epochs = 3",
          "04/02/2024 10:44:33 - INFO - __main__ -   Instantaneous batch size per device = 16",
          "04/02/2024 10:44:33 - INFO - __main__ -   Total train batch size (w. parallel, distributed & accumulation) = 32",
          "04/02/2024 10:44:33 - INFO - __main__ -   Total optimization steps = 1317",
          "  0%|          | 0/1317 [00:00<?, ?it/s]",
          "  0%|          | 1/1317 [00:00<16:52,  1.30it/s]"]
    L = [x for x in L if x is not None]
    for rk in [1, 0]:
        L += ["Traceback (most recent call last):",
              '  File "/home/ubuntu/ner/train_ner.py", line 198, in <module>',
              "    main()",
              '  File "/home/ubuntu/ner/train_ner.py", line 161, in main',
              "    logits = model(batch[\"input_ids\"], batch[\"attention_mask\"])",
              *module_call_frames(site, "2.2"),
              f'  File "{site}/torch/nn/parallel/distributed.py", line 1589, in forward',
              "    inputs, kwargs = self._pre_forward(*inputs, **kwargs)",
              f'  File "{site}/torch/nn/parallel/distributed.py", line 1480, in _pre_forward',
              "    if torch.is_grad_enabled() and self.reducer._rebuild_buckets():"]
        L += UNUSED_MSG.split("\n")
        L += [f"Parameters which did not receive grad for rank {rk}: encoder.pooler.dense.bias, encoder.pooler.dense.weight",
              f"Parameter indices which did not receive grad for rank {rk}: 197 198"]
    clock.tick(1.5)
    L.append(f"{clock.glog('E')} 140201827338048 torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: 1) local_rank: 0 (pid: 8812) of binary: /home/ubuntu/.venv/bin/python")
    tb = agent_traceback("2.2.2", site, entry="/home/ubuntu/.venv/bin/accelerate")
    L += tb[:1] + accelerate_launch_frames("/home/ubuntu/.venv/bin/accelerate", site, 46, 1066, "multi_gpu_launcher", 711) + tb[7:]
    t = clock.elastic()
    L += elastic_summary("train_ner.py", [{"time": t, "host": "rtx3090-box", "rank": 1, "local_rank": 1, "exitcode": 1, "pid": 8813}],
                         {"time": t, "host": "rtx3090-box", "rank": 0, "local_rank": 0, "exitcode": 1, "pid": 8812})
    meta = dict(label="ddp-unused-parameters", difficulty="easy",
                description="accelerate launch on 2 GPUs, BERT encoder with a custom token-classification head that uses last_hidden_state only; TORCH_DISTRIBUTED_DEBUG=DETAIL names the unused pooler parameters at the second forward (torch 2.2.2)",
                initiating_rank=1,
                facts=dict(launcher="accelerate", world_size=2, precision="fp16", exit_code=1),
                must_mention=["pooler"])
    return cid, {"launch.log": J(L)}, meta


# ==================================================================================================
# ddp-marked-ready-twice
# ==================================================================================================

TWICE_MSG = ("RuntimeError: Expected to mark a variable ready only once. This error is caused by one of the following reasons: 1) Use of a module parameter outside the `forward` function. Please make sure model parameters are not shared across multiple concurrent forward-backward passes. or try to use _set_static_graph() as a workaround if this module graph does not change during training loop.2) Reused parameters in multiple reentrant backward passes. For example, if you use multiple `checkpoint` functions to wrap the same part of your model, it would result in the same set of parameters been used by different reentrant backward passes multiple times, and hence marking a variable ready multiple times. DDP does not support such use cases in default. You can try to use _set_static_graph() as a workaround if your module graph does not change over iterations.")


def twice_tail(idx):
    return (f"Parameter at index {idx} has been marked as ready twice. This means that multiple autograd engine  hooks have fired for this particular parameter during this iteration. "
            "You can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print parameter names for further debugging.")


def case_twice_hf_trainer():
    cid = "ddp-marked-ready-twice-hf-gradckpt-find-unused-02"
    r = rng_for(cid)
    site = SITE["conda310"]
    clock = Clock(datetime(2023, 8, 1, 18, 20, 5, 0))
    wk = wandb_key(r)
    args = {"bf16": False, "fp16": True, "ddp_find_unused_parameters": True, "ddp_timeout": 1800, "gradient_accumulation_steps": 8,
            "gradient_checkpointing": True, "learning_rate": 2e-05, "logging_steps": 20, "num_train_epochs": 2,
            "output_dir": "/fsx/exp/neo13b-support-bot", "per_device_train_batch_size": 2, "report_to": "['wandb']",
            "run_name": "neo13b-support-bot-v3", "save_strategy": "IntervalStrategy.STEPS", "save_steps": 500, "warmup_ratio": 0.03,
            "weight_decay": 0.0, "local_rank": 0, "optim": "OptimizerNames.ADAMW_TORCH"}
    L = [f"$ WANDB_API_KEY={wk} torchrun --nproc_per_node=4 sft.py --model_name_or_path EleutherAI/gpt-neo-1.3B --train_file data/tickets.jsonl --gradient_checkpointing --ddp_find_unused_parameters true --fp16"]
    L += torchrun_banner("2.0.1", clock)
    clock.tick(7)
    L += ["08/01/2023 18:20:14 - WARNING - __main__ - Process rank: 0, device: cuda:0, n_gpu: 1distributed training: True, 16-bits training: True",
          "08/01/2023 18:20:14 - WARNING - __main__ - Process rank: 2, device: cuda:2, n_gpu: 1distributed training: True, 16-bits training: True",
          "08/01/2023 18:20:14 - WARNING - __main__ - Process rank: 1, device: cuda:1, n_gpu: 1distributed training: True, 16-bits training: True",
          "08/01/2023 18:20:14 - WARNING - __main__ - Process rank: 3, device: cuda:3, n_gpu: 1distributed training: True, 16-bits training: True",
          "08/01/2023 18:20:14 - INFO - __main__ - Training/evaluation parameters " + hf_args_dump(args).replace("\n", "\n"),
          "[INFO|modeling_utils.py:2603] 2023-08-01 18:20:19,553 >> loading weights file model.safetensors from cache at /root/.cache/huggingface/hub/models--EleutherAI--gpt-neo-1.3B/snapshots/0f35a20339a9e208bc061570981180cfb87c9572/model.safetensors",
          "[INFO|modeling_utils.py:3329] 2023-08-01 18:20:27,019 >> All model checkpoint weights were used when initializing GPTNeoForCausalLM.",
          "Running tokenizer on dataset: 100%|██████████| 81422/81422 [00:19<00:00, 4180.77 examples/s]",
          "[INFO|trainer.py:1686] 2023-08-01 18:21:02,118 >> ***** Running training *****",
          "[INFO|trainer.py:1687] 2023-08-01 18:21:02,118 >>   Num examples = 81,422",
          "[INFO|trainer.py:1688] 2023-08-01 18:21:02,118 >>   Num Epochs = 2",
          "[INFO|trainer.py:1689] 2023-08-01 18:21:02,118 >>   Instantaneous batch size per device = 2",
          "[INFO|trainer.py:1692] 2023-08-01 18:21:02,118 >>   Total train batch size (w. parallel, distributed & accumulation) = 64",
          "[INFO|trainer.py:1693] 2023-08-01 18:21:02,118 >>   Gradient Accumulation steps = 8",
          "[INFO|trainer.py:1694] 2023-08-01 18:21:02,118 >>   Total optimization steps = 2,544",
          "[INFO|trainer.py:1695] 2023-08-01 18:21:02,119 >>   Number of trainable parameters = 1,315,575,808",
          "[INFO|integration_utils.py:716] 2023-08-01 18:21:02,121 >> Automatic Weights & Biases logging enabled, to disable set os.environ[\"WANDB_DISABLED\"] = \"true\"",
          "wandb: Currently logged in as: support-ml. Use `wandb login --relogin` to force relogin",
          "wandb: Tracking run with wandb version 0.15.7",
          "wandb: Run data is saved locally in /fsx/exp/wandb/run-20230801_182103-3sd8q0lb",
          "wandb: Syncing run neo13b-support-bot-v3",
          "  0%|          | 0/2544 [00:00<?, ?it/s]",
          "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`..."]
    for rk in [3, 1, 0, 2]:
        L += ["Traceback (most recent call last):",
              '  File "/fsx/code/support-bot/sft.py", line 402, in <module>',
              "    main()",
              '  File "/fsx/code/support-bot/sft.py", line 351, in main',
              "    train_result = trainer.train(resume_from_checkpoint=checkpoint)",
              f'  File "{site}/transformers/trainer.py", line 1539, in train',
              "    return inner_training_loop(",
              f'  File "{site}/transformers/trainer.py", line 1809, in _inner_training_loop',
              "    tr_loss_step = self.training_step(model, inputs)",
              f'  File "{site}/transformers/trainer.py", line 2665, in training_step',
              "    self.accelerator.backward(loss)",
              f'  File "{site}/accelerate/accelerator.py", line 1851, in backward',
              "    self.scaler.scale(loss).backward(**kwargs)",
              *backward_call_frames(site, "2.0"),
              f'  File "{site}/torch/autograd/function.py", line 274, in apply',
              "    return user_fn(self, *args)",
              f'  File "{site}/torch/utils/checkpoint.py", line 157, in backward',
              "    torch.autograd.backward(outputs_with_grad, args_with_grad)",
              f'  File "{site}/torch/autograd/__init__.py", line 200, in backward',
              "    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass",
              TWICE_MSG, twice_tail(313)]
    L += ["wandb: Waiting for W&B process to finish... (failed 1). Press Control-C to abort syncing.",
          "wandb: 🚀 View run neo13b-support-bot-v3 at: https://wandb.ai/support-ml/support-bot/runs/3sd8q0lb",
          "wandb: Synced 5 W&B file(s), 0 media file(s), 0 artifact file(s) and 0 other file(s)",
          "wandb: Find logs at: /fsx/exp/wandb/run-20230801_182103-3sd8q0lb/logs"]
    clock.tick(76)
    L.append("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 14020) of binary: /opt/conda/bin/python")
    L += agent_traceback("2.0.1", site, entry="/opt/conda/bin/torchrun")
    t = clock.elastic()
    fails = [{"time": t, "host": "ip-10-0-88-14", "rank": rk, "local_rank": rk, "exitcode": 1, "pid": 14020 + rk} for rk in [1, 2, 3]]
    L += elastic_summary("sft.py", fails, {"time": t, "host": "ip-10-0-88-14", "rank": 0, "local_rank": 0, "exitcode": 1, "pid": 14020})
    meta = dict(label="ddp-marked-ready-twice", difficulty="medium",
                description="HF Trainer full fine-tune of GPT-Neo-1.3B on 4 GPUs (torch 2.0.1) with gradient_checkpointing=True AND ddp_find_unused_parameters=True; the first backward through reentrant checkpoint marks parameter 313 ready twice (index only, no name)",
                initiating_rank=3,
                facts=dict(launcher="torchrun", world_size=4, precision="fp16", exit_code=1),
                must_mention=["find_unused_parameters", "reentrant"], secrets=[wk])
    return cid, {"sft.log": J(L)}, meta


def case_twice_lightning():
    cid = "ddp-marked-ready-twice-lightning-vit-03"
    r = rng_for(cid)
    site = "/home/skim/.conda/envs/pl/lib/python3.11/site-packages"
    L = ["(pl) skim@gpu-ws-22:~/mae$ python pretrain_mae.py trainer.devices=4 trainer.strategy=ddp_find_unused_parameters_true model.grad_ckpt=true",
         "Seed set to 1234",
         "Using 16bit Automatic Mixed Precision (AMP)",
         "GPU available: True (cuda), used: True",
         "TPU available: False, using: 0 TPU cores",
         "IPU available: False, using: 0 IPUs",
         "HPU available: False, using: 0 HPUs",
         "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4",
         "Initializing distributed: GLOBAL_RANK: 2, MEMBER: 3/4",
         "Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/4",
         "Initializing distributed: GLOBAL_RANK: 3, MEMBER: 4/4",
         "----------------------------------------------------------------------------------------------------",
         "distributed_backend=nccl",
         "All distributed processes registered. Starting with 4 processes",
         "----------------------------------------------------------------------------------------------------", "",
         "wandb: Currently logged in as: skim-lab. Use `wandb login --relogin` to force relogin",
         "wandb: Tracking run with wandb version 0.16.1",
         "wandb: Run data is saved locally in ./wandb/run-20231218_211502-9f2kq1xz",
         "wandb: Syncing run mae-vitl-in1k-gc",
         "LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0,1,2,3]",
         "LOCAL_RANK: 3 - CUDA_VISIBLE_DEVICES: [0,1,2,3]",
         "LOCAL_RANK: 1 - CUDA_VISIBLE_DEVICES: [0,1,2,3]",
         "LOCAL_RANK: 2 - CUDA_VISIBLE_DEVICES: [0,1,2,3]", "",
         "  | Name    | Type       | Params",
         "-----------------------------------------",
         "0 | encoder | MAEEncoder | 303 M ",
         "1 | decoder | MAEDecoder | 26.5 M",
         "-----------------------------------------",
         "329 M     Trainable params",
         "0         Non-trainable params",
         "329 M     Total params",
         "1,317.147 Total estimated model params size (MB)",
         f"{site}/lightning/pytorch/trainer/connectors/data_connector.py:441: The 'train_dataloader' does not have many workers which may be a bottleneck. Consider increasing the value of the `num_workers` argument` to `num_workers=15` in the `DataLoader` to improve performance.",
         "Epoch 0:   0%|          | 0/1251 [00:00<?, ?it/s] "]
    for rk in range(4):
        L += [f"{site}/torch/utils/checkpoint.py:429: UserWarning: torch.utils.checkpoint: please pass in use_reentrant=True or use_reentrant=False explicitly. The default value of use_reentrant will be updated to be False in the future. To maintain current behavior, pass use_reentrant=True. It is recommended that you use use_reentrant=False. Refer to docs for more details on the differences between the two variants.",
              "  warnings.warn("]
    L += ["Traceback (most recent call last):",
          '  File "/home/skim/mae/pretrain_mae.py", line 88, in <module>',
          "    main()",
          f'  File "{site}/hydra/main.py", line 94, in decorated_main',
          "    _run_hydra(",
          f'  File "{site}/hydra/_internal/utils.py", line 394, in _run_hydra',
          "    _run_app(",
          '  File "/home/skim/mae/pretrain_mae.py", line 81, in main',
          "    trainer.fit(model, datamodule=dm)",
          *lightning_fit_frames(site, 544, 43, 102, 580),
          f'  File "{site}/lightning/pytorch/trainer/trainer.py", line 989, in _run',
          "    results = self._run_stage()",
          f'  File "{site}/lightning/pytorch/trainer/trainer.py", line 1035, in _run_stage',
          "    self.fit_loop.run()",
          f'  File "{site}/lightning/pytorch/loops/fit_loop.py", line 202, in run',
          "    self.advance()",
          f'  File "{site}/lightning/pytorch/loops/training_epoch_loop.py", line 250, in advance',
          "    batch_output = self.automatic_optimization.run(trainer.optimizers[0], batch_idx, kwargs)",
          f'  File "{site}/lightning/pytorch/loops/optimization/automatic.py", line 190, in run',
          "    self._optimizer_step(batch_idx, closure)",
          f'  File "{site}/lightning/pytorch/loops/optimization/automatic.py", line 268, in _optimizer_step',
          "    call._call_lightning_module_hook(",
          f'  File "{site}/lightning/pytorch/trainer/call.py", line 157, in _call_lightning_module_hook',
          "    output = fn(*args, **kwargs)",
          f'  File "{site}/lightning/pytorch/core/module.py", line 1303, in optimizer_step',
          "    optimizer.step(closure=optimizer_closure)",
          f'  File "{site}/lightning/pytorch/core/optimizer.py", line 152, in step',
          "    step_output = self._strategy.optimizer_step(self._optimizer, closure, **kwargs)",
          f'  File "{site}/lightning/pytorch/strategies/ddp.py", line 270, in optimizer_step',
          "    optimizer_output = super().optimizer_step(optimizer, closure, model, **kwargs)",
          f'  File "{site}/lightning/pytorch/strategies/strategy.py", line 239, in optimizer_step',
          "    return self.precision_plugin.optimizer_step(optimizer, model=model, closure=closure, **kwargs)",
          f'  File "{site}/lightning/pytorch/plugins/precision/amp.py", line 77, in optimizer_step',
          "    closure_result = closure()",
          f'  File "{site}/lightning/pytorch/loops/optimization/automatic.py", line 144, in __call__',
          "    self._result = self.closure(*args, **kwargs)",
          f'  File "{site}/torch/utils/_contextlib.py", line 115, in decorate_context',
          "    return func(*args, **kwargs)",
          f'  File "{site}/lightning/pytorch/loops/optimization/automatic.py", line 138, in closure',
          "    self._backward_fn(step_output.closure_loss)",
          f'  File "{site}/lightning/pytorch/loops/optimization/automatic.py", line 239, in backward_fn',
          '    call._call_strategy_hook(self.trainer, "backward", loss, optimizer)',
          f'  File "{site}/lightning/pytorch/trainer/call.py", line 309, in _call_strategy_hook',
          "    output = fn(*args, **kwargs)",
          f'  File "{site}/lightning/pytorch/strategies/strategy.py", line 212, in backward',
          "    self.precision_plugin.backward(closure_loss, self.lightning_module, optimizer, *args, **kwargs)",
          f'  File "{site}/lightning/pytorch/plugins/precision/precision.py", line 72, in backward',
          "    model.backward(tensor, *args, **kwargs)",
          f'  File "{site}/lightning/pytorch/core/module.py", line 1054, in backward',
          "    loss.backward(*args, **kwargs)",
          *backward_call_frames(site, "2.1"),
          f'  File "{site}/torch/autograd/function.py", line 288, in apply',
          "    return user_fn(self, *args)",
          f'  File "{site}/torch/utils/checkpoint.py", line 288, in backward',
          "    torch.autograd.backward(outputs_with_grad, args_with_grad)",
          f'  File "{site}/torch/autograd/__init__.py", line 251, in backward',
          "    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass",
          TWICE_MSG, twice_tail(292),
          "Epoch 0:   0%|          | 0/1251 [00:14<?, ?it/s]",
          "wandb: Waiting for W&B process to finish... (failed 1). Press Control-C to abort syncing.",
          "wandb: 🚀 View run mae-vitl-in1k-gc at: https://wandb.ai/skim-lab/mae/runs/9f2kq1xz",
          "wandb: ️⚡ View job at https://wandb.ai/skim-lab/mae/jobs/QXJ0aWZhY3RDb2xsZWN0aW9uOjEyMzQ1Njc4OQ==/version_details/v3",
          "wandb: Synced 6 W&B file(s), 0 media file(s), 2 artifact file(s) and 0 other file(s)",
          "wandb: Find logs at: ./wandb/run-20231218_211502-9f2kq1xz/logs",
          "[rank: 2] Child process with PID 402117 terminated with code 1. Forcefully terminating all other processes to avoid zombies 🧟"]
    meta = dict(label="ddp-marked-ready-twice", difficulty="medium",
                description="Lightning 2.1 MAE pretraining on 4 GPUs with strategy=ddp_find_unused_parameters_true and per-block torch.utils.checkpoint (reentrant default, torch 2.1); first backward fails with 'marked as ready twice'; the log ends with W&B teardown and Lightning's zombie-killer line",
                initiating_rank=0,
                facts=dict(launcher="python", world_size=4),
                must_mention=["reentrant", "find_unused"], secrets=["skim"])
    return cid, {"train.log": J(L)}, meta


# ==================================================================================================
# collective-mismatch (synthetic GPU case; the CPU ones are captured)
# ==================================================================================================

def case_mismatch_zero3_generate():
    cid = "collective-mismatch-zero3-generate-no-synced-gpus-04"
    r = rng_for(cid)
    site = SITE["usr310"]
    clock = Clock(datetime(2024, 2, 19, 1, 12, 44, 231000))
    pw = "".join(r.choice(ALNUM) for _ in range(18))
    cfg = {"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 8, "bf16": {"enabled": True},
           "zero_optimization": {"stage": 3, "overlap_comm": True, "contiguous_gradients": True, "stage3_gather_16bit_weights_on_model_save": True,
                                 "stage3_prefetch_bucket_size": "auto", "stage3_param_persistence_threshold": 100000},
           "gradient_clipping": 1.0, "steps_per_print": 50}
    import json
    L = [f"{clock.ds()} [INFO] [real_accelerator.py:161:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
         f"{clock.ds()} [INFO] [runner.py:571:main] cmd = /usr/bin/python -u -m deepspeed.launcher.launch --world_info=eyJsb2NhbGhvc3QiOiBbMCwgMSwgMiwgMywgNCwgNSwgNiwgN119 --master_addr=127.0.0.1 --master_port=29500 --enable_each_rank_log=None rlhf/sft_eval_loop.py --ds_config cfg/zero3.json --model codellama/CodeLlama-13b-hf --eval_every 500"]
    clock.tick(3)
    L += [f"{clock.ds()} [INFO] [launch.py:145:main] WORLD INFO DICT: {{'localhost': [0, 1, 2, 3, 4, 5, 6, 7]}}",
          f"{clock.ds()} [INFO] [launch.py:151:main] nnodes=1, num_local_procs=8, node_rank=0",
          f"{clock.ds()} [INFO] [launch.py:163:main] dist_world_size=8",
          f"{clock.ds()} [INFO] [launch.py:165:main] Setting CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7",
          "[sft_eval_loop] config: " + json.dumps({"model": "codellama/CodeLlama-13b-hf", "eval_every": 500, "gen_max_new_tokens": 384,
                                                  "results_cache": f"redis://:{pw}@10.0.3.7:6379/2", "eval_set": "humaneval+mbpp (1138 prompts)"}),
          f"{clock.ds()} [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.12.6, git-hash=unknown, git-branch=unknown",
          f"{clock.ds()} [INFO] [config.py:988:print] DeepSpeedEngine configuration:",
          f"{clock.ds()} [INFO] [config.py:992:print]   json = " + json.dumps(cfg, indent=4).replace("\n", "\n"),
          f"{clock.ds()} [INFO] [engine.py:1284:_configure_optimizer] Using DeepSpeed Optimizer param name adamw as basic optimizer",
          f"{clock.ds()} [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Basic Optimizer = FusedAdam",
          f"{clock.ds()} [INFO] [logging.py:96:log_dist] [Rank 0] Creating fp16 ZeRO stage 3 optimizer, MiCS is enabled False, Hierarchical params gather False",
          f"{clock.ds()} [INFO] [utils.py:791:see_memory_usage] Stage 3 initialize beginning",
          f"{clock.ds()} [INFO] [stage3.py:127:__init__] Reduce bucket size 500,000,000",
          f"{clock.ds()} [INFO] [stage3.py:128:__init__] Prefetch bucket size 0"]
    for step in range(50, 501, 50):
        clock.tick(50 * 4.1, 1, r)
        L.append(f"{clock.ds()} [INFO] [logging.py:96:log_dist] [Rank 0] step={step}, skipped=0, lr=[1.9{r.randint(10, 99)}e-05], mom=[(0.9, 0.999)]")
        L.append(f"[sft_eval_loop] step {step} loss {r.uniform(0.42, 0.61):.4f} samples/sec {r.uniform(30.1, 31.2):.2f}")
    L += ["[sft_eval_loop] step 500: running generation eval on 1138 prompts (142 per rank, batch 16)",
          f"{site}/transformers/generation/utils.py:1518: UserWarning: You have modified the pretrained model configuration to control generation. This is a deprecated strategy to control generation and will be removed soon, in a future version. Please use and modify the model generation configuration (see https://huggingface.co/docs/transformers/generation_text_generation)",
          "  warnings.warn("]
    for b in range(1, 10):
        clock.tick(38, 6, r)
        for rk in sorted(r.sample(range(8), 3)):
            L.append(f"[sft_eval_loop][rank {rk}] eval batch {b}/9 done")
    L.append("[sft_eval_loop][rank 3] generation finished, waiting for metric all_reduce")
    clock.tick(1800.2)
    for rk in [0, 1, 2, 4, 5, 6, 7]:
        clock.tick(0.01, 0.03, r)
        L.append(f"[E ProcessGroupNCCL.cpp:475] [Rank {rk}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2217604, OpType=_ALLGATHER_BASE, NumelIn=5242880, NumelOut=41943040, Timeout(ms)=1800000) ran for {1800000 + r.randint(80, 700)} milliseconds before timing out.")
    L.append(f"[E ProcessGroupNCCL.cpp:475] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2217604, OpType=ALLREDUCE, NumelIn=4, NumelOut=4, Timeout(ms)=1800000) ran for {1800000 + r.randint(80, 700)} milliseconds before timing out.")
    for rk in [0, 1, 2, 4, 5, 6, 7, 3]:
        L += ["[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
              "[E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.",
              "terminate called after throwing an instance of 'std::runtime_error'",
              f"  what():  [Rank {rk}] NCCL watchdog thread terminated with exception: [Rank {rk}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2217604, OpType={'ALLREDUCE' if rk == 3 else '_ALLGATHER_BASE'}, NumelIn={4 if rk == 3 else 5242880}, NumelOut={4 if rk == 3 else 41943040}, Timeout(ms)=1800000) ran for {1800000 + r.randint(80, 700)} milliseconds before timing out."]
    clock.tick(3)
    for i in range(8):
        L.append(f"{clock.ds()} [INFO] [launch.py:315:sigkill_handler] Killing subprocess {55301 + i}")
    L.append(f"{clock.ds()} [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'rlhf/sft_eval_loop.py', '--local_rank=7', '--ds_config', 'cfg/zero3.json', '--model', 'codellama/CodeLlama-13b-hf', '--eval_every', '500'] exits with return code = -6")
    meta = dict(label="collective-mismatch", also=["nccl-watchdog-timeout"], difficulty="hard",
                description="DeepSpeed ZeRO-3 custom loop (no HfDeepSpeedConfig, so generate() runs without synced_gpus) on 8 GPUs; rank 3 finishes generation early and enters a metric ALLREDUCE while ranks 0-2,4-7 keep all-gathering parameters for generate; same SeqNum, different OpType in the 30-min watchdog messages",
                initiating_rank=3,
                facts=dict(launcher="deepspeed", world_size=8, deepspeed_version="0.12.6", zero_stage=3, precision="bf16", optimizer="FusedAdam", exit_code=-6, failure_step=500),
                must_mention=["synced_gpus"], secrets=[pw])
    return cid, {"deepspeed.log": J(L)}, meta


# ==================================================================================================
# fsdp-error
# ==================================================================================================

ACCEL_FSDP_CFG = """compute_environment: LOCAL_MACHINE
debug: false
distributed_type: FSDP
downcast_bf16: 'no'
fsdp_config:
  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP
  fsdp_backward_prefetch: BACKWARD_PRE
  fsdp_cpu_ram_efficient_loading: true
  fsdp_forward_prefetch: false
  fsdp_offload_params: false
  fsdp_sharding_strategy: 1
  fsdp_state_dict_type: SHARDED_STATE_DICT
  fsdp_sync_module_states: true
  fsdp_transformer_layer_cls_to_wrap: LlamaDecoderLayer
  fsdp_use_orig_params: true
machine_rank: 0
main_training_function: main
mixed_precision: bf16
num_machines: 1
num_processes: 8
rdzv_backend: static
same_network: true
use_cpu: false"""


def case_fsdp_generate_weight_2d():
    cid = "fsdp-error-generate-weight-2d-accelerate-02"
    r = rng_for(cid)
    site = SITE["conda310"]
    clock = Clock(datetime(2024, 1, 25, 16, 40, 2, 0))
    bearer = "".join(r.choice(ALNUM) for _ in range(48))
    L = ["$ cat fsdp_config.yaml", ACCEL_FSDP_CFG,
         "$ accelerate launch --config_file fsdp_config.yaml train_chat.py --model meta-llama/Llama-2-7b-hf --eval_generate_every 250"]
    L += [x.replace(" 139872234567488 ", " 139990288557888 ") for x in torchrun_banner("2.1.2", clock)]
    clock.tick(40)
    L += ["[train_chat] accelerate 0.25.0 | transformers 4.36.2 | torch 2.1.2+cu121 | 8 x NVIDIA A100-SXM4-80GB",
          "[train_chat] FSDP FULL_SHARD, use_orig_params=True, auto_wrap=LlamaDecoderLayer, mixed precision bf16"]
    for step in range(25, 251, 25):
        clock.tick(25 * 1.9, 0.5, r)
        L.append(f"[train_chat] step {step:4d} | loss {1.55 - step / 1200 + r.uniform(-0.03, 0.03):.4f} | lr {2e-5:.1e} | {r.uniform(2980, 3050):.0f} tok/s/gpu")
    clock.tick(2)
    L += ["[train_chat] step 250: generating 4 sample replies for the dashboard",
          f"DEBUG:notifier:POST https://hooks.acme-internal.net/v1/train-events headers={{'Content-Type': 'application/json', 'Authorization': 'Bearer {bearer}'}} body={{'run': 'llama2-7b-chat-ft', 'event': 'eval_start', 'step': 250}}"]
    for rk in [0, 4, 1, 5, 2, 6, 3, 7]:
        L += ["Traceback (most recent call last):",
              '  File "/home/ml/chat-ft/train_chat.py", line 301, in <module>',
              "    main()",
              '  File "/home/ml/chat-ft/train_chat.py", line 288, in main',
              "    samples = generate_samples(accelerator, model, tokenizer, PROMPTS)",
              '  File "/home/ml/chat-ft/train_chat.py", line 117, in generate_samples',
              "    out = unwrapped.generate(**batch, max_new_tokens=200, do_sample=False)",
              f'  File "{site}/torch/utils/_contextlib.py", line 115, in decorate_context',
              "    return func(*args, **kwargs)",
              f'  File "{site}/transformers/generation/utils.py", line 1718, in generate',
              "    return self.greedy_search(",
              f'  File "{site}/transformers/generation/utils.py", line 2579, in greedy_search',
              "    outputs = self(",
              *module_call_frames(site, "2.1"),
              f'  File "{site}/transformers/models/llama/modeling_llama.py", line 1181, in forward',
              "    outputs = self.model(",
              *module_call_frames(site, "2.1"),
              f'  File "{site}/transformers/models/llama/modeling_llama.py", line 1025, in forward',
              "    inputs_embeds = self.embed_tokens(input_ids)",
              *module_call_frames(site, "2.1"),
              f'  File "{site}/torch/nn/modules/sparse.py", line 162, in forward',
              "    return F.embedding(",
              f'  File "{site}/torch/nn/functional.py", line 2233, in embedding',
              "    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)",
              "RuntimeError: 'weight' must be 2-D"]
    clock.tick(2)
    L.append(elastic_log("2.1.2", clock, "E", "torch.distributed.elastic.multiprocessing.api", 0, "failed (exitcode: 1) local_rank: 0 (pid: 7710) of binary: /opt/conda/bin/python"))
    tb = agent_traceback("2.1.2", site, entry="/opt/conda/bin/accelerate")
    L += tb[:1] + accelerate_launch_frames("/opt/conda/bin/accelerate", site, 47, 1008, "multi_gpu_launcher", 666) + tb[7:]
    t = clock.elastic()
    fails = [{"time": t, "host": "a100-80g-n2", "rank": rk, "local_rank": rk, "exitcode": 1, "pid": 7710 + rk} for rk in range(1, 8)]
    L += elastic_summary("train_chat.py", fails, {"time": t, "host": "a100-80g-n2", "rank": 0, "local_rank": 0, "exitcode": 1, "pid": 7710})
    meta = dict(label="fsdp-error", difficulty="medium",
                description="Accelerate FSDP (FULL_SHARD, use_orig_params=true) Llama-2-7b on 8x A100-80GB; at step 250 the script calls generate() on accelerator.unwrap_model(model) outside the FSDP forward, the embedding weight is a 1-D local shard: RuntimeError: 'weight' must be 2-D",
                initiating_rank=0,
                facts=dict(launcher="accelerate", world_size=8, precision="bf16", accelerate_version="0.25.0", transformers_version="4.36.2", torch_version="2.1.2", failure_step=250),
                must_mention=["summon_full_params"], secrets=[bearer])
    return cid, {"train_chat.log": J(L)}, meta


def case_fsdp_rank0_state_dict_hang():
    cid = "fsdp-error-rank0-only-state-dict-hang-03"
    r = rng_for(cid)
    site = "/usr/local/lib/python3.11/dist-packages"
    clock = Clock(datetime(2024, 5, 7, 3, 33, 9, 400000))
    tidn = 140019833661248
    L = ["root@h100-b07:/workspace/llama3-cpt# torchrun --nproc_per_node=8 cpt.py --model /models/Meta-Llama-3-8B --data /datasets/code-cpt-v2 --save_every 1000"]
    L += torchrun_banner("2.2.0", clock, tid=tidn)
    clock.tick(30)
    L += ["[cpt] torch 2.2.0+cu121 | 8 x NVIDIA H100 80GB HBM3 | FSDP FULL_SHARD (use_orig_params=False) | wrap: LlamaDecoderLayer | bf16",
          "[cpt] 8.03B params, 1.00B per rank after sharding, activation checkpointing on"]
    for step in range(100, 1001, 100):
        clock.tick(100 * 2.35, 1, r)
        L.append(f"[cpt] step {step:5d} | loss {1.21 - step / 9000 + r.uniform(-0.02, 0.02):.4f} | grad_norm {r.uniform(0.3, 0.5):.3f} | {r.uniform(6900, 7050):.0f} tok/s/gpu | mem {r.uniform(61, 63):.1f}GiB")
    L += ["[cpt] step 1000: saving checkpoint on rank 0 -> /ckpt/llama3-cpt/step_1000/model.pt"]
    clock.tick(600.4)
    wd_lines = []
    for rk in [3, 6, 1, 4, 7, 2, 5]:
        clock.tick(0.003, 0.01, r)
        wd_lines.append(f"[E ProcessGroupNCCL.cpp:523] [Rank {rk}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1064417, OpType=_REDUCE_SCATTER_BASE, NumelIn=218112000, NumelOut=27264000, Timeout(ms)=600000) ran for {600000 + r.randint(20, 300)} milliseconds before timing out.")
    wd_lines.append(f"[E ProcessGroupNCCL.cpp:523] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1064417, OpType=_ALLGATHER_BASE, NumelIn=131334144, NumelOut=1050673152, Timeout(ms)=600000) ran for {600000 + r.randint(20, 300)} milliseconds before timing out.")
    L += wd_lines
    wd_by_rank = {int(x.split("[Rank ")[1].split("]")[0]): x for x in wd_lines}
    for rk in [3, 6, 1, 4, 7, 2, 5, 0]:
        L += ["[E ProcessGroupNCCL.cpp:537] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
              "[E ProcessGroupNCCL.cpp:543] To avoid data inconsistency, we are taking the entire process down.",
              f"[E ProcessGroupNCCL.cpp:1182] [Rank {rk}] NCCL watchdog thread terminated with exception: " + wd_by_rank[rk].split("] ", 1)[1],
              "terminate called after throwing an instance of 'c10::DistBackendError'"]
    clock.tick(1.4)
    L.append(f"{clock.glog('W')} {tidn} torch/distributed/elastic/multiprocessing/api.py:694] Sending process 19050 closing signal SIGTERM")
    L.append(f"{clock.glog('E')} {tidn} torch/distributed/elastic/multiprocessing/api.py:669] failed (exitcode: -6) local_rank: 1 (pid: 19051) of binary: /usr/bin/python")
    L += agent_traceback("2.2.0", site)
    t = clock.elastic()
    fails = [{"time": t, "host": "h100-b07", "rank": 0, "local_rank": 0, "exitcode": -15, "pid": 19050}] + \
            [{"time": t, "host": "h100-b07", "rank": rk, "local_rank": rk, "exitcode": -6, "pid": 19050 + rk} for rk in range(2, 8)]
    L += elastic_summary("cpt.py", fails, {"time": t, "host": "h100-b07", "rank": 1, "local_rank": 1, "exitcode": -6, "pid": 19051})
    L += ["root@h100-b07:/workspace/llama3-cpt# sed -n '212,218p' cpt.py",
          "        if step % args.save_every == 0:",
          "            if dist.get_rank() == 0:",
          '                print(f"[cpt] step {step}: saving checkpoint on rank 0 -> {path}", flush=True)',
          "                torch.save(model.state_dict(), path)",
          "        # continue training",
          "        optimizer.zero_grad(set_to_none=True)",
          ""]
    meta = dict(label="fsdp-error", also=["collective-mismatch", "nccl-watchdog-timeout"], difficulty="hard",
                description="8x H100 FSDP continued pretraining (torch 2.2.0); at step 1000 only rank 0 calls model.state_dict() (a collective all-gather under FSDP FULL_STATE_DICT) while ranks 1-7 continue training; all end in 600000 ms watchdog timeouts with different OpTypes, which is what the log shows last",
                initiating_rank=0,
                facts=dict(launcher="torchrun", world_size=8, gpu_model="H100 80GB HBM3", torch_version="2.2.0", precision="bf16", exit_code=-6, failure_step=1000),
                must_mention=["state_dict", "rank 0"])
    return cid, {"cpt.log": J(L)}, meta


def case_fsdp_local_state_dict_keys():
    cid = "fsdp-error-flat-param-keys-load-04"
    r = rng_for(cid)
    site = SITE["conda310"]
    layers = 24
    unexpected = ", ".join(['"_fsdp_wrapped_module._flat_param"'] + [f'"_fsdp_wrapped_module.transformer.h.{i}._fsdp_wrapped_module._flat_param"' for i in range(layers)])
    missing = []
    for i in range(layers):
        for n in ["ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias", "attn.c_proj.weight", "attn.c_proj.bias",
                  "ln_2.weight", "ln_2.bias", "mlp.c_fc.weight", "mlp.c_fc.bias", "mlp.c_proj.weight", "mlp.c_proj.bias"]:
            missing.append(f'"transformer.h.{i}.{n}"')
    missing = ", ".join(['"transformer.wte.weight"', '"transformer.wpe.weight"'] + missing + ['"transformer.ln_f.weight"', '"transformer.ln_f.bias"', '"lm_head.weight"'])
    L = ["$ python export_hf.py --ckpt /mnt/exp/gpt2-med-domain/ckpt_step20000_rank0.pt --config gpt2-medium --out /mnt/exp/gpt2-med-domain/hf",
         "[export_hf] torch 2.0.1+cu117 | loading /mnt/exp/gpt2-med-domain/ckpt_step20000_rank0.pt",
         "[export_hf] checkpoint meta: {'step': 20000, 'world_size': 4, 'fsdp': True, 'state_dict_type': 'StateDictType.LOCAL_STATE_DICT', 'saved_by_rank': 0}",
         "[export_hf] checkpoint keys: model (25 tensors), optim, lr_scheduler, rng_state, step",
         "[export_hf] building GPT2LMHeadModel from config gpt2-medium",
         "loading configuration file config.json from cache at /home/ml/.cache/huggingface/hub/models--gpt2-medium/snapshots/f65d4965d1221eff2bcf34f53a2ba12120e18f24/config.json",
         "Model config GPT2Config {",
         '  "activation_function": "gelu_new",',
         '  "architectures": [', '    "GPT2LMHeadModel"', "  ],",
         '  "attn_pdrop": 0.1,', '  "bos_token_id": 50256,', '  "embd_pdrop": 0.1,', '  "eos_token_id": 50256,',
         '  "initializer_range": 0.02,', '  "layer_norm_epsilon": 1e-05,', '  "model_type": "gpt2",',
         '  "n_ctx": 1024,', '  "n_embd": 1024,', '  "n_head": 16,', '  "n_inner": null,', '  "n_layer": 24,',
         '  "n_positions": 1024,', '  "n_special": 0,', '  "predict_special_tokens": true,',
         '  "resid_pdrop": 0.1,', '  "transformers_version": "4.30.2",', '  "use_cache": true,', '  "vocab_size": 50257',
         "}", "",
         "Generate config GenerationConfig {", '  "bos_token_id": 50256,', '  "eos_token_id": 50256,', '  "transformers_version": "4.30.2"', "}", "",
         "[export_hf] model has 292 parameter tensors (354.8M params)",
         f"{site}/torch/distributed/_shard/sharded_tensor/api.py:1132: UserWarning: Please use DTensor instead and we are deprecating ShardedTensor.",
         "  warnings.warn(DEPRECATE_MSG)",
         "Traceback (most recent call last):",
         '  File "/mnt/code/domain-lm/export_hf.py", line 58, in <module>',
         "    main()",
         '  File "/mnt/code/domain-lm/export_hf.py", line 41, in main',
         "    model.load_state_dict(sd[\"model\"])",
         f'  File "{site}/torch/nn/modules/module.py", line 2041, in load_state_dict',
         "    raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(",
         "RuntimeError: Error(s) in loading state_dict for GPT2LMHeadModel:",
         f"\tMissing key(s) in state_dict: {missing}. ",
         f"\tUnexpected key(s) in state_dict: {unexpected}. "]
    meta = dict(label="fsdp-error", also=["checkpoint-key-mismatch"], difficulty="medium",
                description="Export script loads an FSDP checkpoint saved with LOCAL_STATE_DICT (rank 0's flat shards, keys ..._fsdp_wrapped_module._flat_param) into a plain GPT2LMHeadModel: every real key missing, 25 _flat_param keys unexpected (torch 2.0.1)",
                initiating_rank=None,
                facts=dict(launcher="python", torch_version="2.0.1", transformers_version="4.30.2"),
                must_mention=["LOCAL_STATE_DICT", "FULL_STATE_DICT"])
    return cid, {"export.log": J(L)}, meta


# ==================================================================================================
# real CPU runs (gloo): programs, commands and case metadata
# ==================================================================================================

# Sources of the programs that were run. During capture they are written to /opt/jobs/<project>/ so that
# tracebacks show ordinary project paths; torch comes from an environment reachable as /opt/envs/train.
CPU_PROGRAMS = {
    'intent-clf/train_intent.py': r'''"""Intent classifier fine-tune (multi-task head), DDP on CPU/gloo for the CI smoke run."""
import argparse, json, os, time
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class IntentModel(nn.Module):
    def __init__(self, vocab=5000, dim=128, n_intents=24, n_slots=40):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab, dim, mode="mean")
        self.encoder = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))
        self.intent_head = nn.Linear(dim, n_intents)
        self.slot_head = nn.Linear(dim, n_slots)      # only trained when --slot-weight > 0

    def forward(self, tokens, slot_weight=0.0):
        h = self.encoder(self.embed(tokens))
        out = {"intent_logits": self.intent_head(h)}
        if slot_weight > 0:
            out["slot_logits"] = self.slot_head(h)
        return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--slot-weight", type=float, default=0.0)
    args = p.parse_args()

    dist.init_process_group(backend="gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(1234 + rank)
    if rank == 0:
        print(f"[train_intent] world_size={world} backend={dist.get_backend()} torch={torch.__version__}", flush=True)
        print("[train_intent] config " + json.dumps(vars(args)), flush=True)

    n = 4096
    ds = TensorDataset(torch.randint(0, 5000, (n, 24)), torch.randint(0, 24, (n,)))
    sampler = DistributedSampler(ds, shuffle=True)
    dl = DataLoader(ds, batch_size=args.batch_size, sampler=sampler)

    model = DDP(IntentModel())
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    if rank == 0:
        n_params = sum(p.numel() for p in model.parameters())
        print(f"[train_intent] params={n_params/1e6:.2f}M steps/epoch={len(dl)}", flush=True)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for step, (tok, y) in enumerate(dl):
            t0 = time.time()
            out = model(tok, slot_weight=args.slot_weight)
            loss = F.cross_entropy(out["intent_logits"], y)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            if rank == 0:
                print(f"epoch {epoch} step {step:4d} | loss {loss.item():.4f} | {1000*(time.time()-t0):.1f} ms", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
''',
    'tinygpt/pretrain.py': r'''import math, os, time, argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, h, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        T = x.size(1)
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
        a = self.ln1(x)
        x = x + self.attn(a, a, a, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab=8192, d=192, h=6, n_layer=4, ctx=128, grad_ckpt=False):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList([Block(d, h) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.grad_ckpt = grad_ckpt

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.size(1)))
        for blk in self.blocks:
            x = checkpoint(blk, x, use_reentrant=True) if self.grad_ckpt else blk(x)
        return self.head(self.ln_f(x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--grad-ckpt", action="store_true")
    ap.add_argument("--find-unused", action="store_true")
    ap.add_argument("--steps", type=int, default=50)
    args = ap.parse_args()
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = TinyGPT(grad_ckpt=args.grad_ckpt)
    if rank == 0:
        print(f"TinyGPT: {sum(p.numel() for p in model.parameters())/1e6:.2f}M params, grad_ckpt={args.grad_ckpt}, "
              f"find_unused_parameters={args.find_unused}", flush=True)
    model = DDP(model, find_unused_parameters=args.find_unused)
    opt = torch.optim.AdamW(model.parameters(), lr=6e-4, betas=(0.9, 0.95), weight_decay=0.1)
    for step in range(args.steps):
        idx = torch.randint(0, 8192, (8, 128))
        logits = model(idx[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), idx[:, 1:].reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step(); opt.zero_grad(set_to_none=True)
        if rank == 0 and step % 10 == 0:
            print(f"step {step:5d} loss {loss.item():.4f} ppl {math.exp(loss.item()):.1f}", flush=True)


if __name__ == "__main__":
    main()
''',
    'asr-eval/evaluate.py': r'''"""Distributed evaluation of the keyword-spotting model: every rank scores its shard, rank 0 computes metrics."""
import argparse, os, time
import torch
import torch.nn as nn
import torch.distributed as dist


def shard(n, rank, world):
    # contiguous shards; the last rank takes the remainder
    per = n // world
    start = rank * per
    end = n if rank == world - 1 else start + per
    return range(start, end)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--num-utts", type=int, default=2050)
    ap.add_argument("--batch-size", type=int, default=64)
    args = ap.parse_args()
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(7)
    model = nn.Sequential(nn.Conv1d(40, 64, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(64, 12)).eval()
    n_utts, bs = args.num_utts, args.batch_size
    idx = list(shard(n_utts, rank, world))
    print(f"[rank {rank}] scoring {len(idx)} utterances ({(len(idx) + bs - 1) // bs} batches)", flush=True)
    all_preds = []
    with torch.no_grad():
        for b in range(0, len(idx), bs):
            feats = torch.randn(len(idx[b:b + bs]), 40, 98)
            preds = model(feats).argmax(-1)
            gathered = [torch.empty_like(preds) for _ in range(world)]
            dist.all_gather(gathered, preds)
            if rank == 0:
                all_preds.extend(gathered)
            if rank == 0 and (b // bs) % 8 == 0:
                print(f"eval batch {b // bs:3d}", flush=True)
    if rank == 0:
        n = sum(p.numel() for p in all_preds)
        print(f"collected {n} predictions", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
''',
    'recsys/train_dlrm.py': r'''import datetime, os, sys, time, io
import torch
import torch.nn as nn
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

CFG = {"dist_timeout_s": 120, "ckpt_every": 150, "ckpt_dir": "/mnt/nfs-ckpt/dlrm-ctr/run-0412", "steps": 2000, "batch_size": 512}


class DLRM(nn.Module):
    def __init__(self, n_tables=8, rows=20000, dim=32):
        super().__init__()
        self.tables = nn.ModuleList([nn.EmbeddingBag(rows, dim, mode="sum") for _ in range(n_tables)])
        self.bottom = nn.Sequential(nn.Linear(13, 64), nn.ReLU(), nn.Linear(64, dim))
        self.top = nn.Sequential(nn.Linear(dim * (n_tables + 1), 128), nn.ReLU(), nn.Linear(128, 1))

    def forward(self, dense, sparse):
        feats = [self.bottom(dense)] + [t(sparse[:, i:i + 1]) for i, t in enumerate(self.tables)]
        return self.top(torch.cat(feats, 1)).squeeze(1)


def save_checkpoint(model, step):
    # full state dict, then copy to the NFS checkpoint dir
    path = os.path.join(CFG["ckpt_dir"], f"step_{step:06d}.pt")
    print(f"[rank 0] saving checkpoint {path} ...", flush=True)
    buf = io.BytesIO()
    torch.save(model.module.state_dict(), buf)
    t0 = time.time()
    # the NFS mount is slow during the nightly backup window: the copy below took ~3 min in this run
    for _ in range(170):
        time.sleep(1.0)
    print(f"[rank 0] checkpoint written ({buf.tell()/1e6:.1f} MB) in {time.time()-t0:.1f}s", flush=True)


def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=CFG["dist_timeout_s"]))
    rank, world = dist.get_rank(), dist.get_world_size()
    if rank == 0:
        print(f"dlrm-ctr: world={world} cfg={CFG}", flush=True)
    torch.manual_seed(rank)
    model = DDP(DLRM())
    opt = torch.optim.Adagrad(model.parameters(), lr=0.02)
    lossf = nn.BCEWithLogitsLoss()
    t0 = time.time()
    for step in range(1, CFG["steps"] + 1):
        dense = torch.randn(CFG["batch_size"], 13)
        sparse = torch.randint(0, 20000, (CFG["batch_size"], 8))
        y = torch.randint(0, 2, (CFG["batch_size"],)).float()
        loss = lossf(model(dense, sparse), y)
        loss.backward(); opt.step(); opt.zero_grad()
        if rank == 0 and step % 25 == 0:
            print(f"step {step:5d} | loss {loss.item():.4f} | {25*CFG['batch_size']*world/(time.time()-t0):.0f} samples/s", flush=True)
            t0 = time.time()
        if step % CFG["ckpt_every"] == 0 and rank == 0:
            save_checkpoint(model, step)


if __name__ == "__main__":
    main()
''',
    'lora-fsdp/finetune_lora.py': r'''import functools, math, os
import torch
import torch.nn as nn
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, ShardingStrategy
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r=8, alpha=16):
        super().__init__()
        self.base = base
        self.base.weight.requires_grad_(False)
        if self.base.bias is not None:
            self.base.bias.requires_grad_(False)
        self.lora_A = nn.Linear(base.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base.out_features, bias=False)
        nn.init.zeros_(self.lora_B.weight)
        self.scale = alpha / r

    def forward(self, x):
        return self.base(x) + self.lora_B(self.lora_A(x)) * self.scale


class DecoderLayer(nn.Module):
    def __init__(self, d=256):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = (nn.Linear(d, d) for _ in range(4))
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d))

    def forward(self, x):
        h = self.norm1(x)
        q, k, v = self.q_proj(h), self.k_proj(h), self.v_proj(h)
        a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(q.size(-1)), -1) @ v
        x = x + self.o_proj(a)
        return x + self.mlp(self.norm2(x))


class Model(nn.Module):
    def __init__(self, vocab=16000, d=256, n=6):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList([DecoderLayer(d) for _ in range(n)])
        self.lm_head = nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        x = self.embed(ids)
        for l in self.layers:
            x = l(x)
        return self.lm_head(x)


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    model = Model()
    for p in model.parameters():
        p.requires_grad_(False)
    for layer in model.layers:
        layer.q_proj = LoRALinear(layer.q_proj)
        layer.v_proj = LoRALinear(layer.v_proj)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total = sum(p.numel() for p in model.parameters())
    if rank == 0:
        print(f"trainable params: {trainable:,} || all params: {total:,} || trainable%: {100*trainable/total:.4f}", flush=True)
    wrap = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={DecoderLayer})
    model = FSDP(model, auto_wrap_policy=wrap, sharding_strategy=ShardingStrategy.FULL_SHARD,
                 device_id=torch.device("cpu"), use_orig_params=False)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-4)
    print("wrapped", flush=True)


if __name__ == "__main__":
    main()
''',
    'ranker/train_ranker.py': r'''import json, os, sys
import torch, torch.distributed as dist


def load_config(path):
    with open(path) as f:
        return json.load(f)


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    cfg = load_config(os.environ.get("RANKER_CONFIG", "configs/ranker_base.json"))
    feats = cfg["features"]["listwise"]
    print(f"[rank {rank}] {len(feats)} listwise features", flush=True)


if __name__ == "__main__":
    main()
''',
    'ranker/configs/ranker_base.json': r'''{"features": {"pointwise": ["bm25", "ctr_7d", "dwell"]}, "lr": 0.001}
''',
    'seg3d/train_seg.py': r'''import torch, torch.distributed as dist
def main():
    dist.init_process_group("gloo")
    print(f"rank {dist.get_rank()} ready", flush=True)
if __name__ == "__main__":
    main()
''',
    'mm-pretrain/pretrain_clip.py': r'''import torch, torch.distributed as dist
dist.init_process_group("gloo"); t=torch.ones(1); dist.all_reduce(t); print("ok", t)
''',
}

# case id -> how it was run and what it is
CPU_CASES = [
    dict(case="ddp-unused-parameters-intent-cpu-gloo-01", proj="intent-clf", log="train.log",
         cmd="torchrun --nproc_per_node=4 train_intent.py --epochs 2 --batch-size 32",
         meta=dict(label="ddp-unused-parameters", difficulty="easy",
                   description="Real CPU/gloo run (torch 2.13, torchrun 4 procs): multi-task intent model whose slot_head is only used when --slot-weight > 0; with the default 0 its 2 parameters get no grad and DDP raises at the second forward",
                   facts=dict(launcher="torchrun", world_size=4, torch_version="2.13.0", exit_code=1),
                   must_mention=["find_unused_parameters", "slot"])),
    dict(case="ddp-marked-ready-twice-tinygpt-cpu-gloo-01", proj="tinygpt", log="pretrain.log",
         cmd="LOGLEVEL=INFO torchrun --standalone --nproc_per_node=2 pretrain.py --grad-ckpt --find-unused --steps 2000",
         meta=dict(label="ddp-marked-ready-twice", difficulty="easy",
                   description="Real CPU/gloo run (torch 2.13): tiny GPT with reentrant torch.utils.checkpoint per block and DDP(find_unused_parameters=True); the first backward marks blocks.3.mlp.2.bias ready twice",
                   facts=dict(launcher="torchrun", world_size=2, exit_code=1),
                   must_mention=["use_reentrant"])),
    dict(case="collective-mismatch-eval-gather-detail-cpu-01", proj="asr-eval", log="eval.log",
         cmd="TORCH_DISTRIBUTED_DEBUG=DETAIL torchrun --nproc_per_node=4 evaluate.py --num-utts 2010",
         meta=dict(label="collective-mismatch", difficulty="easy",
                   description="Real CPU/gloo run (torch 2.13) with TORCH_DISTRIBUTED_DEBUG=DETAIL: evaluation shards of 502/502/502/504 utterances, the last per-batch all_gather has shape [54] on ranks 0-2 and [56] on rank 3: Detected mismatch between collectives",
                   initiating_rank=3,
                   facts=dict(launcher="torchrun", world_size=4, exit_code=1),
                   must_mention=["all_gather", "pad"])),
    dict(case="collective-mismatch-gloo-size-enforce-cpu-02", proj="asr-eval", log="eval.log",
         cmd="torchrun --nproc_per_node=4 evaluate.py --num-utts 2010",
         meta=dict(label="collective-mismatch", difficulty="medium",
                   description="Real CPU/gloo run (torch 2.13), same uneven evaluation without debug flags: gloo aborts rank 0 with 'op.preamble.length <= op.nbytes. 224 vs 216' (SIGABRT, exit -6), other ranks see Connection reset by peer",
                   initiating_rank=3,
                   facts=dict(launcher="torchrun", world_size=4, exit_code=-6, signal="SIGABRT"),
                   must_mention=["all_gather", "pad"])),
    dict(case="collective-mismatch-extra-batch-cpu-03", proj="asr-eval", log="eval.log",
         cmd="torchrun --nproc_per_node=4 evaluate.py --num-utts 2050",
         meta=dict(label="collective-mismatch", difficulty="hard",
                   description="Real CPU/gloo run (torch 2.13): rank 3 has 9 eval batches, the others 8 and exit normally; rank 3's extra all_gather fails with 'Connection closed by peer ... typically caused by a remote worker crashing' although no worker crashed",
                   initiating_rank=3,
                   facts=dict(launcher="torchrun", world_size=4, exit_code=1),
                   must_mention=["rank 3", "batches"])),
    dict(case="nccl-watchdog-timeout-gloo-rank0-checkpoint-cpu-04", proj="recsys", log="train.log",
         cmd="torchrun --nnodes=1 --nproc_per_node=4 train_dlrm.py",
         meta=dict(label="nccl-watchdog-timeout", difficulty="hard",
                   description="Real CPU/gloo run (torch 2.13), process-group timeout 120 s: at step 150 rank 0 alone writes a checkpoint to a slow NFS mount for ~170 s; ranks 1-3 time out in the DDP all-reduce of step 151; torchrun's 'Root Cause' names rank 3, the real culprit is rank 0",
                   initiating_rank=0,
                   facts=dict(launcher="torchrun", world_size=4, exit_code=1, failure_step=150),
                   must_mention=["checkpoint", "rank 0"])),
    dict(case="dist-address-in-use-torchrun-cpu-01", proj="seg3d", log="run.log", hold_port=29500,
         cmd="torchrun --nnodes=1 --nproc_per_node=2 --master_port=29500 train_seg.py --config configs/unet3d_brats.yaml",
         meta=dict(label="dist-address-in-use", difficulty="easy",
                   description="Real run (torch 2.13): another process already listens on 29500; torchrun's static rendezvous cannot create the TCPStore: DistNetworkError ... EADDRINUSE",
                   facts=dict(launcher="torchrun", world_size=2),
                   must_mention=["29500"])),
    dict(case="dist-rendezvous-timeout-c10d-cpu-01", proj="mm-pretrain", log="node0.log",
         cmd="LOGLEVEL=INFO torchrun --nnodes=2 --nproc_per_node=2 --rdzv-backend=c10d --rdzv-endpoint=127.0.0.1:29400 --rdzv-id=clip-vitb16-0412 --rdzv-conf join_timeout=120 pretrain_clip.py",
         meta=dict(label="dist-rendezvous-timeout", difficulty="easy",
                   description="Real run (torch 2.13): torchrun expects 2 nodes via c10d rendezvous; the second node never joins, the agent raises RendezvousTimeoutError after join_timeout",
                   facts=dict(launcher="torchrun", num_nodes=2),
                   must_mention=["join"])),
    dict(case="fsdp-error-lora-requires-grad-cpu-01", proj="lora-fsdp", log="finetune.log",
         cmd="torchrun --nproc_per_node=2 finetune_lora.py",
         meta=dict(label="fsdp-error", difficulty="easy",
                   description="Real CPU/gloo run (torch 2.13): LoRA adapters injected into frozen decoder layers, FSDP auto-wraps each layer with use_orig_params=False: ValueError Must flatten tensors with uniform requires_grad",
                   facts=dict(launcher="torchrun", world_size=2, exit_code=1),
                   must_mention=["use_orig_params"])),
    dict(case="torchrun-child-failed-redirects-cpu-01", proj="ranker", log="console.log",
         cmd="LOGLEVEL=INFO torchrun --nproc_per_node=4 --redirects 3 --log-dir /opt/jobs/ranker/logs/run_118 train_ranker.py",
         meta=dict(label="torchrun-child-failed", difficulty="easy",
                   description="Real run (torch 2.13): workers' stdout/stderr redirected to --log-dir; local rank 1 exits 1 (its KeyError is only in logs/run_118/.../attempt_0/1/stderr.log); the console shows only the agent and the ChildFailedError summary without error file",
                   facts=dict(launcher="torchrun", world_size=4, exit_code=1),
                   must_mention=["record", "run_118"])),
]


def sanitize_capture(text: str) -> str:
    """Make a captured log look like it came from a normal install of the environment."""
    # torch's logger prints paths relative to the torch package; with the symlinked environment used for the
    # capture it printed the resolved absolute path instead
    text = re.sub(r"(\d{6} \d+ )/\S+?/site-packages/(torch/)", r"\1\2", text)
    text = text.replace(str(REPO / ".venv"), "/opt/envs/train")
    return text


def first_failing_rank(text: str) -> int | None:
    m = re.search(r"^\[rank(\d+)\]: Traceback", text, re.M)
    return int(m.group(1)) if m else None


def ensure_capture_env():
    env_root = Path("/opt/envs/train")
    if (env_root / "bin" / "torchrun").exists():
        return
    venv = Path(sys.prefix)
    (env_root / "bin").mkdir(parents=True, exist_ok=True)
    shutil.copy(venv / "pyvenv.cfg", env_root / "pyvenv.cfg")
    if not (env_root / "lib").exists():
        (env_root / "lib").symlink_to(venv / "lib")
    py = env_root / "bin" / "python"
    if not py.exists():
        py.symlink_to(os.path.realpath(sys.executable))
        (env_root / "bin" / "python3").symlink_to("python")
    (env_root / "bin" / "torchrun").write_text(
        "#!/opt/envs/train/bin/python\n# -*- coding: utf-8 -*-\nimport re\nimport sys\nfrom torch.distributed.run import main\n"
        "if __name__ == \"__main__\":\n    sys.argv[0] = re.sub(r\"(-script\\.pyw|\\.exe)?$\", \"\", sys.argv[0])\n    sys.exit(main())\n")
    (env_root / "bin" / "torchrun").chmod(0o755)


def capture_cpu_case(spec: dict) -> str:
    ensure_capture_env()
    for rel, src in CPU_PROGRAMS.items():
        p = Path("/opt/jobs") / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(src)
    cwd = Path("/opt/jobs") / spec["proj"]
    env = dict(os.environ, PATH="/opt/envs/train/bin:" + os.environ.get("PATH", ""))
    holder = None
    if spec.get("hold_port"):
        holder = subprocess.Popen([sys.executable, "-c", "import socket,time;s=socket.socket();"
                                   f"s.bind(('0.0.0.0',{spec['hold_port']}));s.listen();time.sleep(120)"])
        import time
        time.sleep(1)
    try:
        out = subprocess.run(["bash", "-c", spec["cmd"] + " 2>&1"], cwd=cwd, env=env, capture_output=True, text=True,
                             timeout=900).stdout
    finally:
        if holder:
            holder.terminate()
    return sanitize_capture("$ " + spec["cmd"] + "\n" + out)


def cpu_case(spec: dict, log_text: str | None) -> Case | None:
    """A real CPU run's case: its fresh capture, or the log captured earlier (None when there is none)."""
    if log_text is None:
        p = CASES_DIR / spec["case"] / spec["log"]
        if not p.exists():
            print(f"  ! {spec['case']}: no captured log, run with --capture", file=sys.stderr)
            return None
        log_text = p.read_text()
    meta = dict(spec["meta"])
    if "initiating_rank" not in meta:
        meta["initiating_rank"] = first_failing_rank(log_text)
    return make_case(spec["case"], {spec["log"]: log_text}, meta)


# ==================================================================================================
# main
# ==================================================================================================

SYNTHETIC = [
    case_watchdog_rank0_generation, case_watchdog_ds_tokenize, case_watchdog_srun_v100_hang,
    case_system_docker_shm, case_system_k8s_accelerate, case_system_stale_shm_multinode,
    case_cuda_pp_send_oom, case_cuda_eval_group_oom, case_cuda_moe_a2a_collateral,
    case_invalid_local_rank_argparse, case_invalid_accelerate_8_on_4, case_invalid_slurm_cvd,
    case_network_ib_mpirun, case_network_socket_timeout, case_network_ds_multinode_hard,
    case_child_restarts_113, case_child_slurm_two_nodes, case_child_accelerate_argparse,
    case_rdzv_master_addr_per_node, case_rdzv_c10d_run_id_mismatch,
    case_addr_mp_spawn_suspended, case_addr_deepspeed_leftover,
    case_unused_lora_reentrant, case_unused_multimodal_srun_hard, case_unused_bert_pooler_detail,
    case_twice_hf_trainer, case_twice_lightning,
    case_mismatch_zero3_generate,
    case_fsdp_generate_weight_2d, case_fsdp_rank0_state_dict_hang, case_fsdp_local_state_dict_keys,
]


def main():
    ap = parser(__doc__)
    ap.add_argument("--capture", action="store_true", help="re-run the CPU programs (needs torch) and rewrite their logs")
    ap.add_argument("--only", help="generate only this case id")
    args = ap.parse_args()
    cases: list[Case] = []
    for fn in SYNTHETIC:
        cid, files, meta = fn()
        if not args.only or cid == args.only:
            cases.append(make_case(cid, files, meta))
    for spec in CPU_CASES:
        if not args.only or spec["case"] == args.only:
            made = cpu_case(spec, capture_cpu_case(spec) if args.capture else None)
            if made is not None:
                cases.append(made)
    write_all(args.out, cases)


if __name__ == "__main__":
    main()
