#!/usr/bin/env python3
"""Write the eval cases for the fp8, dtype, autograd, shape, device and checkpoint failure ids.

Two kinds of case come out of this script:

* synthetic cases: a hand-written failure (traceback, launcher output) set in generated noise that real
  runs print (nvidia-smi, collect_env, NCCL INFO, DeepSpeed/HF Trainer output, progress bars, warnings);
* captured cases (``--capture``): small CPU PyTorch programs in ``REAL_PROGRAMS`` are run for real with the
  repository's venv (plain ``python`` or ``torchrun`` with gloo), and their output is stored as the log,
  with only machine-specific paths rewritten to look like a user's machine.

Usage:  python evals/generators/model.py [--capture] [--only SUBSTRING]
Output: evals/cases/<case-id>/{case.yaml, *.log}
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
CASES = REPO / "evals" / "cases"
VENV_PY = REPO / ".venv" / "bin" / "python"
VENV_TORCHRUN = REPO / ".venv" / "bin" / "torchrun"


# --------------------------------------------------------------------------------------------------
# case plumbing


@dataclass
class Case:
    case_id: str
    label: str
    difficulty: str
    description: str
    files: dict[str, str]
    facts: dict[str, str]
    must_mention: list[str]
    initiating_rank: int | None = None
    also: list[str] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)


def write_case(case: Case) -> None:
    folder = CASES / case.case_id
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for name, text in case.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not text.endswith("\n"):
            text += "\n"
        path.write_text(text, encoding="utf-8")
    meta = {
        "schema_version": 1,
        "label": case.label,
        "also": case.also,
        "difficulty": case.difficulty,
        "description": case.description,
        "initiating_rank": case.initiating_rank,
        "facts": {k: str(v) for k, v in case.facts.items()},
        "must_mention": case.must_mention,
        "secrets": case.secrets,
    }
    body = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=110, default_flow_style=None)
    (folder / "case.yaml").write_text(body, encoding="utf-8")
    all_text = "".join(case.files.values())
    for secret in case.secrets:
        assert secret in all_text, f"{case.case_id}: secret {secret!r} not planted"


# --------------------------------------------------------------------------------------------------
# fake secrets (random but well-formed; never real)


def _rand(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
UPPER_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
HEX = "0123456789abcdef"


def hf_token(rng: random.Random) -> str:
    return "hf_" + _rand(rng, ALNUM, 34)


def aws_key_id(rng: random.Random) -> str:
    return "AKIA" + _rand(rng, UPPER_ALNUM, 16)


def aws_secret(rng: random.Random) -> str:
    return _rand(rng, ALNUM + "+/", 40)


def gh_token(rng: random.Random) -> str:
    return "ghp_" + _rand(rng, ALNUM, 36)


def wandb_key(rng: random.Random) -> str:
    return _rand(rng, HEX, 40)


# --------------------------------------------------------------------------------------------------
# tracebacks


Frame = tuple[str, int, str, str]  # (file, line, function, source line)

# nn.Module.__call__ frames by torch minor version: (function, line, source)
MODULE_CALL = {
    "1.13": [("_call_impl", 1194, "return forward_call(*input, **kwargs)")],
    "2.0": [("_call_impl", 1501, "return forward_call(*args, **kwargs)")],
    "2.1": [
        ("_wrapped_call_impl", 1518, "return self._call_impl(*args, **kwargs)"),
        ("_call_impl", 1527, "return forward_call(*args, **kwargs)"),
    ],
    "2.2": [
        ("_wrapped_call_impl", 1511, "return self._call_impl(*args, **kwargs)"),
        ("_call_impl", 1520, "return forward_call(*args, **kwargs)"),
    ],
    "2.3": [
        ("_wrapped_call_impl", 1532, "return self._call_impl(*args, **kwargs)"),
        ("_call_impl", 1541, "return forward_call(*args, **kwargs)"),
    ],
    "2.4": [
        ("_wrapped_call_impl", 1553, "return self._call_impl(*args, **kwargs)"),
        ("_call_impl", 1562, "return forward_call(*args, **kwargs)"),
    ],
    "2.5": [
        ("_wrapped_call_impl", 1736, "return self._call_impl(*args, **kwargs)"),
        ("_call_impl", 1747, "return forward_call(*args, **kwargs)"),
    ],
    "2.6": [
        ("_wrapped_call_impl", 1739, "return self._call_impl(*args, **kwargs)"),
        ("_call_impl", 1750, "return forward_call(*args, **kwargs)"),
    ],
}

# Tensor.backward -> autograd.backward (-> graph._engine_run_backward from 2.4)
BACKWARD_CALL = {
    "1.13": [
        ("torch/_tensor.py", 487, "backward", "torch.autograd.backward("),
        ("torch/autograd/__init__.py", 197, "backward", "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
    ],
    "2.0": [
        ("torch/_tensor.py", 487, "backward", "torch.autograd.backward("),
        ("torch/autograd/__init__.py", 200, "backward", "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
    ],
    "2.1": [
        ("torch/_tensor.py", 492, "backward", "torch.autograd.backward("),
        ("torch/autograd/__init__.py", 251, "backward", "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
    ],
    "2.2": [
        ("torch/_tensor.py", 522, "backward", "torch.autograd.backward("),
        ("torch/autograd/__init__.py", 266, "backward", "_engine_run_backward("),
    ],
    "2.3": [
        ("torch/_tensor.py", 525, "backward", "torch.autograd.backward("),
        ("torch/autograd/__init__.py", 267, "backward", "_engine_run_backward("),
        ("torch/autograd/graph.py", 744, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
    ],
    "2.4": [
        ("torch/_tensor.py", 521, "backward", "torch.autograd.backward("),
        ("torch/autograd/__init__.py", 289, "backward", "_engine_run_backward("),
        ("torch/autograd/graph.py", 768, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
    ],
}


def module_frames(site: str, ver: str) -> list[Frame]:
    return [(f"{site}/torch/nn/modules/module.py", ln, fn, src) for fn, ln, src in MODULE_CALL[ver]]


def backward_frames(site: str, ver: str) -> list[Frame]:
    return [(f"{site}/{rel}", ln, fn, src) for rel, ln, fn, src in BACKWARD_CALL[ver]]


def traceback(frames: list[Frame], exc: str, prefix: str = "") -> list[str]:
    out = [f"{prefix}Traceback (most recent call last):"]
    for path, line, func, src in frames:
        out.append(f'{prefix}  File "{path}", line {line}, in {func}')
        if src:
            out.append(f"{prefix}    {src}")
    for exc_line in exc.split("\n"):
        out.append(f"{prefix}{exc_line}")
    return out


def prefixed(lines: list[str], prefix: str) -> list[str]:
    return [prefix + line for line in lines]


# --------------------------------------------------------------------------------------------------
# time helpers


class Clock:
    """A wall clock that advances as the synthetic run prints."""

    def __init__(self, start: datetime, rng: random.Random):
        self.t = start
        self.rng = rng

    def tick(self, lo: float = 0.001, hi: float = 0.05) -> datetime:
        self.t += timedelta(seconds=self.rng.uniform(lo, hi))
        return self.t

    def advance(self, seconds: float) -> datetime:
        self.t += timedelta(seconds=seconds)
        return self.t

    def ds(self) -> str:  # DeepSpeed / python logging style: 2024-03-12 09:14:02,118
        return self.t.strftime("%Y-%m-%d %H:%M:%S,") + f"{self.t.microsecond // 1000:03d}"

    def glog(self, level: str = "I", pid: int = 0) -> str:  # torch c10 / elastic style: W0312 09:14:02.118000 140
        return f"{level}{self.t.strftime('%m%d %H:%M:%S')}.{self.t.microsecond:06d} {pid}"

    def vllm(self) -> str:  # 10-17 09:12:33
        return self.t.strftime("%m-%d %H:%M:%S")

    def iso(self) -> str:
        return self.t.strftime("%Y-%m-%d %H:%M:%S")

    def elastic(self) -> str:  # 2024-05-16_10:42:15
        return self.t.strftime("%Y-%m-%d_%H:%M:%S")


# --------------------------------------------------------------------------------------------------
# environment printouts


def nvidia_smi(gpus: list[tuple[str, str, int]], driver: str, cuda_max: str, rng: random.Random,
               used_mib: int = 0, when: str = "Tue Mar 12 09:13:51 2024", new_style: bool = True) -> list[str]:
    """gpus: (name, bus id, total MiB). new_style is the 530+ layout."""
    out = [when]
    if new_style:
        out += [
            "+---------------------------------------------------------------------------------------+",
            f"| NVIDIA-SMI {driver:<22} Driver Version: {driver:<14} CUDA Version: {cuda_max:<9}|",
            "|-----------------------------------------+----------------------+----------------------+",
            "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
            "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |",
            "|                                         |                      |               MIG M. |",
            "|=========================================+======================+======================|",
        ]
        for i, (name, bus, total) in enumerate(gpus):
            cap = {"H100": 700, "H200": 700, "A100": 400, "L40S": 350, "L4": 72, "A10G": 300, "RTX 4090": 450,
                   "RTX 3090": 350, "V100": 300, "T4": 70}
            watts = next((v for k, v in cap.items() if k in name), 300)
            temp = rng.randint(28, 41)
            pwr = rng.randint(watts // 12, watts // 6)
            fan = "N/A" if "RTX" not in name else f"{rng.randint(0, 35)}%"
            ecc = "0" if "RTX" not in name and "A10G" not in name and "L4" not in name else ("Off" if "RTX" in name else "0")
            mig = "Disabled" if ("A100" in name or "H100" in name or "H200" in name) else "N/A"
            persist = "On" if "RTX" not in name else "Off"
            out.append(f"| {i:>3}  NVIDIA {name:<20} {persist:>3}  | {bus} Off | {ecc:>20} |")
            mem = f"{used_mib}MiB / {total}MiB"
            out.append(f"| {fan:<4} {temp:>3}C    P0  {pwr:>18}W / {watts:>3}W | {mem:>20} | {0:>6}%      Default |")
            out.append(f"|                                         |                      | {mig:>20} |")
            out.append("+-----------------------------------------+----------------------+----------------------+")
        out += [
            "",
            "+---------------------------------------------------------------------------------------+",
            "| Processes:                                                                            |",
            "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |",
            "|        ID   ID                                                             Usage      |",
            "|=======================================================================================|",
            "|  No running processes found                                                           |",
            "+---------------------------------------------------------------------------------------+",
        ]
    else:
        out += [
            "+-----------------------------------------------------------------------------+",
            f"| NVIDIA-SMI {driver:<12} Driver Version: {driver:<12} CUDA Version: {cuda_max:<8}|",
            "|-------------------------------+----------------------+----------------------+",
            "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
            "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |",
            "|                               |                      |               MIG M. |",
            "|===============================+======================+======================|",
        ]
        for i, (name, bus, total) in enumerate(gpus):
            watts = 70 if "T4" in name else 300
            out.append(f"| {i:>3}  {name:<18} Off  | {bus} Off | {'0':>20} |")
            out.append(f"| N/A   {rng.randint(30, 44)}C    P0    {rng.randint(9, 40):>2}W / {watts:>3}W | "
                       f"{str(used_mib) + 'MiB / ' + str(total) + 'MiB':>20} | {0:>6}%      Default |")
            out.append("|                               |                      |                  N/A |")
            out.append("+-------------------------------+----------------------+----------------------+")
        out += [
            "",
            "+-----------------------------------------------------------------------------+",
            "| Processes:                                                                  |",
            "|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |",
            "|        ID   ID                                                   Usage      |",
            "|=============================================================================|",
            "|  No running processes found                                                 |",
            "+-----------------------------------------------------------------------------+",
        ]
    return out


def collect_env(torch_ver: str, cuda: str, gpus: list[str], driver: str, python: str, os_name: str,
                extra_pip: list[str], cudnn: str = "8.9.2", cuda_runtime: str | None = None,
                cpu: str = "AMD EPYC 7R13 Processor") -> list[str]:
    tag = "cu" + cuda.replace(".", "")
    pyshort = ".".join(python.split(".")[:2])
    glibc = "2.35" if "22.04" in os_name else "2.31"
    gcc = "(Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0" if "22.04" in os_name else "(Ubuntu 9.4.0-1ubuntu1~20.04.2) 9.4.0"
    out = [
        "Collecting environment information...",
        f"PyTorch version: {torch_ver}+{tag}",
        "Is debug build: False",
        f"CUDA used to build PyTorch: {cuda}",
        "ROCM used to build PyTorch: N/A",
        "",
        f"OS: {os_name} (x86_64)",
        f"GCC version: {gcc}",
        "Clang version: Could not collect",
        "CMake version: version 3.27.9",
        f"Libc version: glibc-{glibc}",
        "",
        f"Python version: {python} (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)",
        f"Python platform: Linux-5.15.0-1051-aws-x86_64-with-glibc{glibc}",
        "Is CUDA available: True",
        f"CUDA runtime version: {cuda_runtime or cuda + '.105'}",
        "CUDA_MODULE_LOADING set to: LAZY",
        "GPU models and configuration: ",
    ]
    out += [f"GPU {i}: NVIDIA {g}" for i, g in enumerate(gpus)]
    out += [
        "",
        f"Nvidia driver version: {driver}",
        "cuDNN version: Probably one of the following:",
        f"/usr/lib/x86_64-linux-gnu/libcudnn.so.{cudnn}",
        f"/usr/lib/x86_64-linux-gnu/libcudnn_adv_infer.so.{cudnn}",
        f"/usr/lib/x86_64-linux-gnu/libcudnn_ops_infer.so.{cudnn}",
        "HIP runtime version: N/A",
        "MIOpen runtime version: N/A",
        "Is XNNPACK available: True",
        "",
        "CPU:",
        "Architecture:                       x86_64",
        "CPU op-mode(s):                     32-bit, 64-bit",
        "Address sizes:                      48 bits physical, 48 bits virtual",
        "Byte Order:                         Little Endian",
        "CPU(s):                             96",
        "On-line CPU(s) list:                0-95",
        "Vendor ID:                          AuthenticAMD",
        f"Model name:                         {cpu}",
        "Thread(s) per core:                 2",
        "Core(s) per socket:                 48",
        "Socket(s):                          1",
        "",
        "Versions of relevant libraries:",
    ]
    out += [f"[pip3] {p}" for p in extra_pip]
    out += [f"[pip3] torch=={torch_ver}", "[conda] Could not collect"]
    _ = pyshort
    return out


def pip_list(pkgs: list[tuple[str, str]]) -> list[str]:
    out = ["Package                   Version", "------------------------- ---------------"]
    for name, ver in pkgs:
        out.append(f"{name:<25} {ver}")
    return out


# --------------------------------------------------------------------------------------------------
# NCCL


def nccl_init(host: str, pid: int, rank: int, nranks: int, local: int, version: str, cuda: str,
              rng: random.Random, iface: str = "eth0", ip: str = "10.0.0.4", ib: bool = False,
              prefix: str = "", nnodes: int = 1) -> list[str]:
    tid = pid + rng.randint(90, 400)
    h = f"{prefix}{host}:{pid}:{pid} [{local}] NCCL INFO "
    t = f"{prefix}{host}:{pid}:{tid} [{local}] NCCL INFO "
    out = []
    if rank == 0:
        out.append(f"{h}Bootstrap : Using {iface}:{ip}<0>")
        out.append(f"{h}NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or "
                   "directory No plugin found (libnccl-net.so), using internal implementation")
        out.append(f"{h}cudaDriverVersion {cuda_driver_int(cuda)}")
        out.append(f"{prefix}NCCL version {version}+cuda{cuda}")
    if ib:
        out.append(f"{t}NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB {iface}:{ip}<0>")
        out.append(f"{t}Using network IB")
    else:
        out.append(f"{t}NET/IB : No device found.")
        out.append(f"{t}NET/Socket : Using [0]{iface}:{ip}<0>")
        out.append(f"{t}Using network Socket")
    comm = "0x" + _rand(rng, HEX, 8)
    bus = f"{(0x10 + local * 0x10):x}000"
    out.append(f"{t}comm {comm} rank {rank} nranks {nranks} cudaDev {local} nvmlDev {local} busId {bus} "
               f"commId 0x{_rand(rng, HEX, 16)} - Init START")
    out.append(f"{t}Setting affinity for GPU {local} to {'ffffffff,00000000' if local >= 4 else '00000000,ffffffff'}")
    if rank == 0:
        chans = " ".join(f"{r:>3}" for r in range(min(nranks, 8)))
        out.append(f"{t}Channel 00/24 : {chans}")
        out.append(f"{t}Channel 01/24 : {chans}")
    nxt = (rank + 1) % nranks
    prv = (rank - 1) % nranks
    out.append(f"{t}Trees [0] {nxt if nxt else -1}/-1/-1->{rank}->{prv if rank else -1} "
               f"[1] {nxt if nxt else -1}/-1/-1->{rank}->{prv if rank else -1}")
    out.append(f"{t}P2P Chunksize set to 524288")
    via = "P2P/IPC/read" if nnodes == 1 or (nxt // 8 == rank // 8) else ("NET/IB/0/GDRDMA" if ib else "NET/Socket/0")
    out.append(f"{t}Channel 00/0 : {rank}[{local}] -> {nxt}[{nxt % 8}] via {via}")
    out.append(f"{t}Channel 01/0 : {rank}[{local}] -> {nxt}[{nxt % 8}] via {via}")
    out.append(f"{t}Connected all rings")
    out.append(f"{t}Connected all trees")
    out.append(f"{t}threadThresholds 8/8/64 | {8 * nranks}/8/64 | 512 | 512")
    out.append(f"{t}24 coll channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer")
    out.append(f"{t}comm {comm} rank {rank} nranks {nranks} cudaDev {local} nvmlDev {local} busId {bus} "
               f"commId 0x{_rand(rng, HEX, 16)} - Init COMPLETE")
    return out


def cuda_driver_int(cuda: str) -> int:
    major, minor = cuda.split(".")[:2]
    return int(major) * 1000 + int(minor) * 10 + 20


# --------------------------------------------------------------------------------------------------
# launchers


def elastic_style(torch_ver: str) -> str:
    """How torch.distributed.run/elastic log lines look: 'old' (<= 2.0), 'mid' (2.1-2.2), 'new' (>= 2.3)."""
    if torch_ver in ("1.13", "2.0"):
        return "old"
    if torch_ver in ("2.1", "2.2"):
        return "mid"
    return "new"


def elastic_log(clock: Clock, style: str, level: str, module: str, src_line: int, msg: str, pid: int) -> str:
    if style == "old":
        return f"{level}:{module}:{msg}"
    if style == "mid":
        return f"[{clock.ds()}] {module}: [{level}] {msg}"
    path = module.replace(".", "/") + ".py"
    return f"{clock.glog(level[0], pid)} {path}:{src_line}] {msg}"


def torchrun_header(clock: Clock, pid: int, torch_ver: str) -> list[str]:
    style = elastic_style(torch_ver)
    omp = ("Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your "
           "system being overloaded, please further tune the variable for optimal performance in your "
           "application as needed. ")
    if style == "old":
        return ["WARNING:torch.distributed.run:", "*****************************************", omp,
                "*****************************************"]
    line = {"mid": 0, "new": {"2.3": 757, "2.4": 779, "2.5": 793}.get(torch_ver, 757)}[style]
    return [elastic_log(clock, style, "WARNING", "torch.distributed.run", line, m, pid)
            for m in ("", "*****************************************", omp, "*****************************************")]


@dataclass
class RankExit:
    rank: int
    local_rank: int
    pid: int
    exitcode: int
    time: str
    host: str


def torchrun_child_failed(script: str, root: RankExit, others: list[RankExit], site: str, clock: Clock,
                          agent_pid: int, python_bin: str, torch_ver: str, sigterm_pids: list[int],
                          launcher_bin: str | None = None) -> list[str]:
    """The elastic agent's SIGTERM lines, its error line and the ChildFailedError block (torch <= 2.5 layout:
    ranks the agent terminated itself are not listed as failures)."""
    style = elastic_style(torch_ver)
    mod = "torch.distributed.elastic.multiprocessing.api"
    out = []
    for pid in sigterm_pids:
        clock.tick(0.0005, 0.003)
        out.append(elastic_log(clock, style, "WARNING", mod, 858, f"Sending process {pid} closing signal SIGTERM", agent_pid))
    clock.tick(0.05, 0.9)
    out.append(elastic_log(clock, style, "ERROR", mod, 833, f"failed (exitcode: {root.exitcode}) local_rank: "
                           f"{root.local_rank} (pid: {root.pid}) of binary: {python_bin}", agent_pid))
    run_lines = {"1.13": (346, 762, 753, 132, 246), "2.0": (346, 794, 785, 134, 250),
                 "2.1": (346, 806, 797, 134, 264), "2.2": (347, 812, 803, 135, 268),
                 "2.3": (347, 879, 870, 132, 263), "2.4": (348, 901, 892, 133, 264),
                 "2.5": (355, 919, 910, 138, 269)}
    w, m, r, c, la = run_lines[torch_ver]
    if launcher_bin is None:
        launcher_bin = "/usr/local/bin/torchrun" if "dist-packages" in site else f"{site.split('/lib/')[0]}/bin/torchrun"
    out += traceback([
        (launcher_bin, 8, "<module>", "sys.exit(main())"),
        (f"{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", w, "wrapper", "return f(*args, **kwargs)"),
        (f"{site}/torch/distributed/run.py", m, "main", "run(args)"),
        (f"{site}/torch/distributed/run.py", r, "run", "elastic_launch("),
        (f"{site}/torch/distributed/launcher/api.py", c, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"),
        (f"{site}/torch/distributed/launcher/api.py", la, "launch_agent", "raise ChildFailedError("),
    ], "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ")
    out += child_failed_block(script, root, others)
    return out


def child_failed_block(script: str, root: RankExit, others: list[RankExit]) -> list[str]:
    out = ["============================================================", f"{script} FAILED",
           "------------------------------------------------------------", "Failures:"]
    if not others:
        out.append("  <NO_OTHER_FAILURES>")
    for i, o in enumerate(others, 1):
        out += failure_entry(i, o)
    out += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
    out += failure_entry(0, root)
    out.append("============================================================")
    return out


def failure_entry(i: int, e: RankExit) -> list[str]:
    sig_names = {-15: "SIGTERM", -6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV"}
    if e.exitcode < 0:
        name = sig_names[e.exitcode]
        return [f"[{i}]:", f"  time      : {e.time}", f"  host      : {e.host}",
                f"  rank      : {e.rank} (local_rank: {e.local_rank})",
                f"  exitcode  : {e.exitcode} (pid: {e.pid})", "  error_file: <N/A>",
                f"  traceback : Signal {-e.exitcode} ({name}) received by PID {e.pid}"]
    return [f"[{i}]:", f"  time      : {e.time}", f"  host      : {e.host}",
            f"  rank      : {e.rank} (local_rank: {e.local_rank})",
            f"  exitcode  : {e.exitcode} (pid: {e.pid})", "  error_file: <N/A>",
            "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]


def deepspeed_launcher_header(clock: Clock, nproc: int, script_args: list[str], python_bin: str, nccl: str,
                              base_pid: int, ver_lines: tuple[int, int] = (138, 145)) -> list[str]:
    hosts = {"localhost": list(range(nproc))}
    world_info = base64.urlsafe_b64encode(json.dumps(hosts).encode()).decode()
    args = " ".join(script_args)
    out = [
        f"[{clock.ds()}] [INFO] [real_accelerator.py:191:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
    ]
    clock.tick(1.5, 3.0)
    out += [
        f"[{clock.ds()}] [WARNING] [runner.py:202:fetch_hostfile] Unable to find hostfile, will proceed with training "
        "with local resources only.",
        f"[{clock.ds()}] [INFO] [runner.py:568:main] cmd = {python_bin} -u -m deepspeed.launcher.launch "
        f"--world_info={world_info} --master_addr=127.0.0.1 --master_port=29500 --enable_each_rank_log=None {args}",
    ]
    clock.tick(1.5, 2.5)
    out.append(f"[{clock.ds()}] [INFO] [real_accelerator.py:191:get_accelerator] Setting ds_accelerator to cuda (auto detect)")
    clock.tick(1.0, 2.0)
    out += [
        f"[{clock.ds()}] [INFO] [launch.py:{ver_lines[0]}:main] 0 NCCL_VERSION={nccl}",
        f"[{clock.ds()}] [INFO] [launch.py:{ver_lines[1]}:main] WORLD INFO DICT: {{'localhost': {list(range(nproc))}}}",
        f"[{clock.ds()}] [INFO] [launch.py:151:main] nnodes=1, num_local_procs={nproc}, node_rank=0",
        f"[{clock.ds()}] [INFO] [launch.py:162:main] global_rank_mapping=defaultdict(<class 'list'>, "
        f"{{'localhost': {list(range(nproc))}}})",
        f"[{clock.ds()}] [INFO] [launch.py:163:main] dist_world_size={nproc}",
        f"[{clock.ds()}] [INFO] [launch.py:165:main] Setting CUDA_VISIBLE_DEVICES={','.join(map(str, range(nproc)))}",
        f"[{clock.ds()}] [INFO] [launch.py:253:main] process {base_pid} spawned with command: "
        f"{spawn_cmd(python_bin, script_args, 0)}",
    ]
    for r in range(1, nproc):
        clock.tick(0.001, 0.02)
        out.append(f"[{clock.ds()}] [INFO] [launch.py:253:main] process {base_pid + r} spawned with command: "
                   f"{spawn_cmd(python_bin, script_args, r)}")
    return out


def spawn_cmd(python_bin: str, script_args: list[str], rank: int) -> str:
    parts = [python_bin, "-u", script_args[0], f"--local_rank={rank}"] + script_args[1:]
    return "[" + ", ".join(repr(p) for p in parts) + "]"


def deepspeed_kill(clock: Clock, nproc: int, base_pid: int, failed_rank: int, python_bin: str,
                   script_args: list[str], code: int = 1) -> list[str]:
    out = []
    for r in range(nproc):
        clock.tick(0.01, 0.3)
        out.append(f"[{clock.ds()}] [INFO] [launch.py:316:sigkill_handler] Killing subprocess {base_pid + r}")
    clock.tick(0.2, 0.8)
    out.append(f"[{clock.ds()}] [ERROR] [launch.py:322:sigkill_handler] {spawn_cmd(python_bin, script_args, failed_rank)} "
               f"exits with return code = {code}")
    return out


# --------------------------------------------------------------------------------------------------
# trainer noise


def tqdm_bar(step: int, total: int, elapsed_s: float, rate: float, width: int = 10, desc: str = "") -> str:
    pct = int(100 * step / total)
    filled = width * step / total
    full = int(filled)
    partial_chars = " ▏▎▍▌▋▊▉"
    rem = int((filled - full) * 8)
    bar = "█" * full + (partial_chars[rem] if full < width else "") + " " * max(0, width - full - 1)
    bar = bar[:width]
    remaining = (total - step) / rate if rate else 0
    def fmt(s: float) -> str:
        s = int(s)
        h, rem_s = divmod(s, 3600)
        m, sec = divmod(rem_s, 60)
        return f"{h}:{m:02d}:{sec:02d}" if h else f"{m:02d}:{sec:02d}"
    unit = f"{rate:.2f}it/s" if rate >= 1 else f"{1 / rate:.2f}s/it"
    return f"{desc}{pct:>3}%|{bar}| {step}/{total} [{fmt(elapsed_s)}<{fmt(remaining)}, {unit}]"


def progress_line(steps: list[int], total: int, sec_per_it: float, desc: str = "") -> str:
    """A tqdm bar as it lands in a redirected log: many \\r-separated updates on one line."""
    return "\r".join(tqdm_bar(s, total, s * sec_per_it, 1 / sec_per_it, desc=desc) for s in steps)


def hf_train_banner(num_examples: int, epochs: int, per_device: int, total_bs: int, accum: int,
                    total_steps: int, trainable: int) -> list[str]:
    return [
        "***** Running training *****",
        f"  Num examples = {num_examples:,}",
        f"  Num Epochs = {epochs}",
        f"  Instantaneous batch size per device = {per_device}",
        f"  Total train batch size (w. parallel, distributed & accumulation) = {total_bs}",
        f"  Gradient Accumulation steps = {accum}",
        f"  Total optimization steps = {total_steps:,}",
        f"  Number of trainable parameters = {trainable:,}",
    ]


def loss_dicts(rng: random.Random, steps: list[int], total: int, epochs_total: float, start_loss: float,
               lr: float, grad_norm: bool = True) -> list[str]:
    out = []
    loss = start_loss
    for s in steps:
        loss = max(0.05, loss * rng.uniform(0.86, 0.99))
        cur_lr = lr * min(1.0, s / max(1, total * 0.03)) * (1 - s / total) if total else lr
        parts = [f"'loss': {loss:.4f}"]
        if grad_norm:
            parts.append(f"'grad_norm': {rng.uniform(0.4, 3.2):.4f}")
        parts.append(f"'learning_rate': {cur_lr:.4e}".replace("e-0", "e-0"))
        parts.append(f"'epoch': {round(epochs_total * s / total, 2)}")
        out.append("{" + ", ".join(parts) + "}")
    return out


# --------------------------------------------------------------------------------------------------
# captured cases: real CPU PyTorch programs


@dataclass
class RealProgram:
    case: Case                      # files are filled in by the capture
    command: str                    # "python" or "torchrun:N"
    script_name: str
    source: str
    log_name: str
    home: str                       # directory the run pretends to live in
    site: str                       # site-packages path shown in tracebacks
    setup: str = ""                 # run first, output discarded (creates checkpoints, data files)
    argv: list[str] = field(default_factory=list)


REAL_PROGRAMS: list[RealProgram] = []


def real(case: Case, command: str, script_name: str, source: str, log_name: str, home: str, site: str,
         setup: str = "", argv: list[str] | None = None) -> None:
    REAL_PROGRAMS.append(RealProgram(case, command, script_name, textwrap.dedent(source).lstrip(), log_name,
                                     home, site, textwrap.dedent(setup).lstrip(), argv or []))


real(
    Case("dtype-mismatch-int32-labels-cpu-04", "dtype-mismatch", "easy",
         "CPU tabular classifier; labels loaded from NumPy as int32 reach cross_entropy, which wants int64",
         {}, {"torch_version": "2.13.0", "launcher": "python", "python_version": "3.11.7"},
         ["long", "int64"]),
    "python", "train_churn.py", '''
    import platform, sys, time
    import numpy as np
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset

    CFG = dict(hidden=128, lr=3e-3, batch_size=256, epochs=20, seed=7, features="data/churn_train.npz")
    print(f"torch {torch.__version__} | python {platform.python_version()} | device=cpu threads={torch.get_num_threads()}")
    print("config:", CFG)
    torch.manual_seed(CFG["seed"])
    rng = np.random.default_rng(CFG["seed"])
    # stands in for np.load(CFG["features"]): the labels column was written by pandas as int32
    X = rng.normal(size=(20480, 37)).astype(np.float32)
    y = (rng.random(20480) < 0.27).astype(np.int32)
    print(f"loaded {X.shape[0]} rows, {X.shape[1]} features, positive rate {y.mean():.3f}, label dtype {y.dtype}")
    ds = TensorDataset(torch.from_numpy(X), torch.from_numpy(y))
    dl = DataLoader(ds, batch_size=CFG["batch_size"], shuffle=True)
    model = nn.Sequential(nn.Linear(37, CFG["hidden"]), nn.ReLU(), nn.Dropout(0.1),
                          nn.Linear(CFG["hidden"], CFG["hidden"]), nn.ReLU(), nn.Linear(CFG["hidden"], 2))
    print(model)
    opt = torch.optim.AdamW(model.parameters(), lr=CFG["lr"])
    for epoch in range(CFG["epochs"]):
        t0 = time.time()
        for step, (xb, yb) in enumerate(dl):
            logits = model(xb)
            loss = F.cross_entropy(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 20 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
        print(f"epoch {epoch} done in {time.time() - t0:.1f}s")
    ''', "train.log", "/srv/ml/churn", "/opt/venv/lib/python3.11/site-packages",
    argv=[])

real(
    Case("autograd-inplace-modified-tanh-slice-cpu-01", "autograd-inplace-modified", "easy",
         "CPU MLP zeroes masked features by slice assignment on a tanh output that tanh saved for backward",
         {}, {"torch_version": "2.13.0", "launcher": "python"}, ["inplace", "clone"]),
    "python", "train_masked_mlp.py", '''
    import torch
    import torch.nn as nn

    class MaskedMLP(nn.Module):
        """Hidden units listed in `drop_units` are switched off (feature ablation study)."""
        def __init__(self, d_in=64, d_hidden=512, n_out=8, drop_units=(3, 17, 42, 101)):
            super().__init__()
            self.fc1 = nn.Linear(d_in, d_hidden)
            self.fc2 = nn.Linear(d_hidden, d_hidden)
            self.out = nn.Linear(d_hidden, n_out)
            self.drop_units = list(drop_units)

        def forward(self, x):
            h = torch.tanh(self.fc1(x))
            h[:, self.drop_units] = 0.0          # ablate units
            h = torch.tanh(self.fc2(h))
            return self.out(h)

    torch.manual_seed(0)
    print(f"torch {torch.__version__}; ablation run 'units-3-17-42-101'")
    model = MaskedMLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x = torch.randn(16, 64)
    y = torch.randint(0, 8, (16,))
    for it in range(100):
        out = model(x)
        loss = nn.functional.cross_entropy(out, y)
        print(f"iter {it:03d} forward ok, loss={loss.item():.4f}")
        opt.zero_grad()
        loss.backward()
        opt.step()
    ''', "run.log", "/home/ablation", "/usr/local/lib/python3.11/site-packages")

real(
    Case("autograd-inplace-modified-queue-torchrun-cpu-03", "autograd-inplace-modified", "medium",
         "2-rank gloo torchrun MoCo-style contrastive training: the negatives queue is used in the loss and then "
         "overwritten in place in the same forward; both ranks fail in backward, torchrun summary at the end",
         {}, {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, ["queue", "clone"],
         initiating_rank=0),
    "torchrun:2", "moco_lite.py", '''
    import os, torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist

    class MoCoLite(nn.Module):
        def __init__(self, dim=128, K=4096, T=0.07):
            super().__init__()
            self.q_enc = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, dim))
            self.k_enc = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, dim))
            self.k_enc.load_state_dict(self.q_enc.state_dict())
            for p in self.k_enc.parameters():
                p.requires_grad = False
            self.register_buffer("queue", F.normalize(torch.randn(dim, K), dim=0))
            self.register_buffer("ptr", torch.zeros(1, dtype=torch.long))
            self.K, self.T = K, T

        @torch.no_grad()
        def _enqueue(self, k):
            p = int(self.ptr)
            self.queue[:, p:p + k.shape[0]] = k.T
            self.ptr[0] = (p + k.shape[0]) % self.K

        def forward(self, xq, xk):
            q = F.normalize(self.q_enc(xq), dim=1)
            with torch.no_grad():
                k = F.normalize(self.k_enc(xk), dim=1)
            l_pos = (q * k).sum(1, keepdim=True)
            l_neg = q @ self.queue                     # negatives from the queue
            logits = torch.cat([l_pos, l_neg], 1) / self.T
            self._enqueue(k)
            return logits

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(1234 + rank)
    if rank == 0:
        print(f"[moco-lite] world_size={world} backend={dist.get_backend()} torch={torch.__version__}")
    model = MoCoLite()
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.03, momentum=0.9, weight_decay=1e-4)
    for step in range(200):
        x = torch.randn(64, 256)
        xq, xk = x + 0.1 * torch.randn_like(x), x + 0.1 * torch.randn_like(x)
        logits = model(xq, xk)
        labels = torch.zeros(logits.shape[0], dtype=torch.long)
        loss = F.cross_entropy(logits, labels)
        opt.zero_grad()
        loss.backward()
        for p in model.q_enc.parameters():
            dist.all_reduce(p.grad); p.grad /= world
        opt.step()
        if rank == 0 and step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f}")
    ''', "train.log", "/data/ssl/moco-lite", "/opt/conda/lib/python3.11/site-packages")

real(
    Case("autograd-backward-twice-lstm-hidden-cpu-01", "autograd-backward-twice", "easy",
         "CPU character-level LSTM LM carries its hidden state across batches without detach; the second "
         "iteration backpropagates into the freed graph of the first",
         {}, {"torch_version": "2.13.0", "launcher": "python"}, ["detach", "hidden"]),
    "python", "char_lstm.py", '''
    import math, time, torch, torch.nn as nn

    text = ("the quick brown fox jumps over the lazy dog. " * 400)
    vocab = sorted(set(text)); stoi = {c: i for i, c in enumerate(vocab)}
    data = torch.tensor([stoi[c] for c in text])
    print(f"corpus: {len(text)} chars, vocab {len(vocab)}")

    class CharLM(nn.Module):
        def __init__(self, v, d=128, h=256):
            super().__init__()
            self.emb = nn.Embedding(v, d)
            self.lstm = nn.LSTM(d, h, num_layers=2, batch_first=True)
            self.head = nn.Linear(h, v)
        def forward(self, x, state=None):
            out, state = self.lstm(self.emb(x), state)
            return self.head(out), state

    torch.manual_seed(0)
    model = CharLM(len(vocab))
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    bptt, bs = 64, 32
    stream = data[: (len(data) // bs) * bs].view(bs, -1)
    state = None
    t0 = time.time()
    for i, s in enumerate(range(0, stream.size(1) - bptt - 1, bptt)):
        x, y = stream[:, s:s + bptt], stream[:, s + 1:s + 1 + bptt]
        logits, state = model(x, state)          # state carries over to the next chunk
        loss = nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        print(f"batch {i:4d} | loss {loss.item():.3f} | ppl {math.exp(loss.item()):8.2f} | {time.time() - t0:.1f}s")
    ''', "train.log", "/home/lstm-lab", "/usr/lib/python3/dist-packages")

real(
    Case("autograd-backward-twice-gan-torchrun-cpu-02", "autograd-backward-twice", "medium",
         "2-rank gloo torchrun GAN: the discriminator loss uses the generator output without detach, so "
         "d_loss.backward() frees G's graph and g_loss.backward() fails; torchrun summary at the end",
         {}, {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, ["detach"],
         initiating_rank=0),
    "torchrun:2", "gan_train.py", '''
    import torch, torch.nn as nn, torch.distributed as dist

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(rank)
    G = nn.Sequential(nn.Linear(64, 256), nn.LeakyReLU(0.2), nn.Linear(256, 784), nn.Tanh())
    D = nn.Sequential(nn.Linear(784, 256), nn.LeakyReLU(0.2), nn.Linear(256, 1))
    for m in (G, D):
        for p in m.parameters():
            dist.broadcast(p.data, 0)
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    bce = nn.BCEWithLogitsLoss()

    def sync_grads(model):
        for p in model.parameters():
            if p.grad is not None:
                dist.all_reduce(p.grad); p.grad /= world

    if rank == 0:
        print(f"GAN training: world_size={world}, G params={sum(p.numel() for p in G.parameters()):,}, "
              f"D params={sum(p.numel() for p in D.parameters()):,}")
    for step in range(1000):
        real = torch.rand(128, 784) * 2 - 1
        z = torch.randn(128, 64)
        fake = G(z)
        # discriminator
        d_loss = bce(D(real), torch.ones(128, 1)) + bce(D(fake), torch.zeros(128, 1))
        opt_d.zero_grad(); d_loss.backward(); sync_grads(D); opt_d.step()
        # generator
        g_loss = bce(D(fake), torch.ones(128, 1))
        opt_g.zero_grad(); g_loss.backward(); sync_grads(G); opt_g.step()
        if rank == 0 and step % 50 == 0:
            print(f"step {step} d_loss {d_loss.item():.4f} g_loss {g_loss.item():.4f}")
    ''', "train.log", "/home/gan", "/opt/conda/lib/python3.11/site-packages")

real(
    Case("autograd-no-grad-fn-frozen-head-cpu-01", "autograd-no-grad-fn", "easy",
         "CPU transfer learning: the freeze loop runs after the new classifier head is attached, so no "
         "parameter requires grad and backward has nothing to differentiate",
         {}, {"torch_version": "2.13.0", "launcher": "python"}, ["requires_grad", "frozen"]),
    "python", "finetune_head.py", '''
    import torch, torch.nn as nn

    class Backbone(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
                nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
            self.fc = nn.Linear(64, 1000)
        def forward(self, x):
            return self.fc(self.features(x).flatten(1))

    torch.manual_seed(0)
    model = Backbone()
    print("loaded backbone (pretrained weights: imagenet-tiny-v3)")
    model.fc = nn.Linear(64, 5)                 # new head for the 5 flower classes
    for p in model.parameters():                # freeze the backbone
        p.requires_grad = False
    n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
    n_all = sum(p.numel() for p in model.parameters())
    print(f"trainable params: {n_train} / {n_all}")
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    model.train()
    for step in range(50):
        x = torch.randn(32, 3, 64, 64)
        y = torch.randint(0, 5, (32,))
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f}")
    ''', "finetune.log", "/workspace/flowers", "/usr/local/lib/python3.11/site-packages")

real(
    Case("autograd-no-grad-fn-reentrant-ckpt-cpu-02", "autograd-no-grad-fn", "medium",
         "CPU LoRA-style fine-tune with frozen embeddings and reentrant activation checkpointing: no input of "
         "the checkpointed blocks requires grad, torch warns, and the loss comes out without a grad_fn",
         {}, {"torch_version": "2.13.0", "launcher": "python"}, ["use_reentrant", "enable_input_require_grads"]),
    "python", "lora_tiny.py", '''
    import torch, torch.nn as nn
    from torch.utils.checkpoint import checkpoint

    class LoRALinear(nn.Module):
        def __init__(self, base: nn.Linear, r=8, alpha=16):
            super().__init__()
            self.base = base
            self.A = nn.Parameter(torch.randn(r, base.in_features) * 0.01)
            self.B = nn.Parameter(torch.zeros(base.out_features, r))
            self.scale = alpha / r
        def forward(self, x):
            return self.base(x) + (x @ self.A.t() @ self.B.t()) * self.scale

    class Block(nn.Module):
        def __init__(self, d=256, h=4):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.attn = nn.MultiheadAttention(d, h, batch_first=True)
            self.up = LoRALinear(nn.Linear(d, 4 * d)); self.down = LoRALinear(nn.Linear(4 * d, d))
        def forward(self, x):
            a = self.ln1(x)
            x = x + self.attn(a, a, a, need_weights=False)[0]
            return x + self.down(torch.relu(self.up(self.ln2(x))))

    class TinyLM(nn.Module):
        def __init__(self, v=8000, d=256, n=6):
            super().__init__()
            self.emb = nn.Embedding(v, d)
            self.blocks = nn.ModuleList(Block(d) for _ in range(n))
            self.head = nn.Linear(d, v, bias=False)
            self.gradient_checkpointing = True
        def forward(self, ids):
            x = self.emb(ids)
            for b in self.blocks:
                x = checkpoint(b, x, use_reentrant=True) if self.gradient_checkpointing else b(x)
            return self.head(x)

    torch.manual_seed(0)
    model = TinyLM()
    for n, p in model.named_parameters():
        p.requires_grad = n.endswith(".A") or n.endswith(".B")   # LoRA adapters only
    tr = sum(p.numel() for p in model.parameters() if p.requires_grad)
    tot = sum(p.numel() for p in model.parameters())
    print(f"trainable params: {tr:,} || all params: {tot:,} || trainable%: {100 * tr / tot:.4f}")
    print("gradient checkpointing: enabled")
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-4)
    for step in range(100):
        ids = torch.randint(0, 8000, (4, 128))
        logits = model(ids[:, :-1])
        loss = nn.functional.cross_entropy(logits.reshape(-1, 8000), ids[:, 1:].reshape(-1))
        loss.backward()
        opt.step(); opt.zero_grad()
        print(f"step {step} loss {loss.item():.4f}")
    ''', "train.log", "/home/ft/lora-tiny", "/opt/conda/lib/python3.11/site-packages")

real(
    Case("shape-mismatch-flatten-resolution-cpu-01", "shape-mismatch", "easy",
         "CPU CNN whose classifier was sized for 32x32 inputs is fed 64x64 crops; the flattened feature size "
         "no longer matches the Linear layer",
         {}, {"torch_version": "2.13.0", "launcher": "python"}, ["in_features", "AdaptiveAvgPool2d"]),
    "python", "train_cnn.py", '''
    import torch, torch.nn as nn

    IMG = 64   # was 32 in the original experiment
    class SmallCNN(nn.Module):
        def __init__(self, n_classes=10):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
            self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(64 * 4 * 4, 256), nn.ReLU(), nn.Linear(256, n_classes))
        def forward(self, x):
            return self.classifier(self.features(x))

    torch.manual_seed(0)
    model = SmallCNN()
    print(model)
    print(f"input size {IMG}x{IMG}, batch 16")
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    for step in range(10):
        x = torch.randn(16, 3, IMG, IMG)
        y = torch.randint(0, 10, (16,))
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        print(f"step {step} loss {loss.item():.3f}")
    ''', "train.log", "/srv/experiments/cnn64", "/opt/venv/lib/python3.11/site-packages")

real(
    Case("shape-mismatch-shard-features-torchrun-cpu-02", "shape-mismatch", "medium",
         "4-rank gloo torchrun: rank 2 reads a data shard written with 130 features instead of 128 and fails "
         "in the first Linear; ranks 1 and 3 then report gloo 'Connection closed by peer'",
         {}, {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "4"}, ["130", "feature"],
         initiating_rank=2),
    "torchrun:4", "train_tab.py", '''
    import torch, torch.nn as nn, torch.distributed as dist

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    N_FEATURES = 128
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(N_FEATURES, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1))
    ddp = nn.parallel.DistributedDataParallel(model)
    # shard_{rank}.pt from the preprocessing job; shard 2 came from the v2 feature pipeline
    n_feat = 130 if rank == 2 else N_FEATURES
    X = torch.randn(4096, n_feat)
    y = torch.randn(4096, 1)
    print(f"rank {rank}: loaded shard_{rank}.pt with {X.shape[0]} rows x {X.shape[1]} cols")
    opt = torch.optim.Adam(ddp.parameters(), lr=1e-3)
    for step in range(64):
        xb, yb = X[step * 64:(step + 1) * 64], y[step * 64:(step + 1) * 64]
        loss = nn.functional.mse_loss(ddp(xb), yb)
        opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0 and step % 8 == 0:
            print(f"step {step} loss {loss.item():.4f}")
    ''', "train.log", "/mnt/jobs/tabular-ddp", "/opt/conda/lib/python3.11/site-packages")

real(
    Case("checkpoint-key-mismatch-ddp-prefix-cpu-01", "checkpoint-key-mismatch", "easy",
         "Evaluation script loads a checkpoint saved from a DDP-wrapped model into a bare model: every key "
         "carries a 'module.' prefix",
         {}, {"torch_version": "2.13.0", "launcher": "python"}, ["module.", "consume_prefix_in_state_dict_if_present"],
         secrets=["jdoe"]),
    "python", "evaluate.py", '''
    import sys, torch, torch.nn as nn

    def make_model():
        return nn.Sequential(nn.Conv2d(1, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(16, 32, 5), nn.ReLU(),
                             nn.MaxPool2d(2), nn.Flatten(), nn.Linear(32 * 4 * 4, 128), nn.ReLU(), nn.Linear(128, 10))

    ckpt_path = sys.argv[1]
    print(f"evaluating {ckpt_path}")
    model = make_model()
    state = torch.load(ckpt_path, map_location="cpu")
    print(f"checkpoint has {len(state)} tensors")
    model.load_state_dict(state)
    model.eval()
    correct = 0
    with torch.no_grad():
        for _ in range(10):
            x = torch.randn(100, 1, 28, 28); y = torch.randint(0, 10, (100,))
            correct += (model(x).argmax(1) == y).sum().item()
    print(f"accuracy: {correct / 1000:.3f}")
    ''', "eval.log", "/home/jdoe/mnist-ddp", "/home/jdoe/mnist-ddp/.venv/lib/python3.11/site-packages",
    setup='''
    import torch, torch.nn as nn, os
    m = nn.Sequential(nn.Conv2d(1, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(16, 32, 5), nn.ReLU(),
                      nn.MaxPool2d(2), nn.Flatten(), nn.Linear(32 * 4 * 4, 128), nn.ReLU(), nn.Linear(128, 10))
    os.makedirs("checkpoints", exist_ok=True)
    torch.save({"module." + k: v for k, v in m.state_dict().items()}, "checkpoints/epoch_19.pt")
    ''', argv=["checkpoints/epoch_19.pt"])

real(
    Case("checkpoint-weights-only-namespace-cpu-01", "checkpoint-weights-only", "easy",
         "Resume under a recent torch (weights_only=True by default) of a checkpoint that pickles the "
         "argparse.Namespace of the training arguments",
         {}, {"torch_version": "2.13.0", "launcher": "python"}, ["weights_only", "add_safe_globals"]),
    "python", "train.py", '''
    import argparse, os, torch, torch.nn as nn

    ap = argparse.ArgumentParser()
    ap.add_argument("--resume", default="")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--epochs", type=int, default=30)
    args = ap.parse_args()
    print(f"torch {torch.__version__}")
    print(f"args: {vars(args)}")
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    start = 0
    if args.resume:
        print(f"=> resuming from {args.resume} ({os.path.getsize(args.resume) / 1024:.1f} KiB)")
        ck = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ck["model"]); opt.load_state_dict(ck["optimizer"]); start = ck["epoch"] + 1
    for epoch in range(start, args.epochs):
        print(f"epoch {epoch}")
    ''', "train.log", "/opt/jobs/sensor-cls", "/opt/conda/lib/python3.11/site-packages",
    setup='''
    import argparse, os, torch, torch.nn as nn
    m = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
    o = torch.optim.Adam(m.parameters(), lr=1e-3)
    m(torch.randn(2, 32)).sum().backward(); o.step()
    os.makedirs("runs/exp12", exist_ok=True)
    torch.save({"model": m.state_dict(), "optimizer": o.state_dict(), "epoch": 11,
                "args": argparse.Namespace(lr=1e-3, epochs=30, resume="")}, "runs/exp12/checkpoint_0011.pt")
    ''', argv=["--resume", "runs/exp12/checkpoint_0011.pt"])

real(
    Case("checkpoint-corrupt-lfs-pointer-cpu-02", "checkpoint-corrupt", "hard",
         "Model file in a git clone made without git-lfs is a 134-byte LFS pointer; under the weights_only "
         "default torch reports 'Weights only load failed ... Unsupported operand 118' (the 'v' of 'version')",
         {}, {"torch_version": "2.13.0", "launcher": "python"}, ["git lfs", "pointer"]),
    "python", "predict.py", '''
    import os, sys, torch, torch.nn as nn

    weights = "models/segmenter_v4.pt"
    print(f"torch {torch.__version__}")
    print(f"loading weights from {weights}")
    net = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 2, 1))
    state = torch.load(weights, map_location="cpu")
    net.load_state_dict(state)
    print("model ready")
    ''', "predict.log", "/srv/app/segmenter", "/usr/local/lib/python3.11/site-packages",
    setup='''
    import os
    os.makedirs("models", exist_ok=True)
    with open("models/segmenter_v4.pt", "w") as f:
        f.write("version https://git-lfs.github.com/spec/v1\\n"
                "oid sha256:9f2c4e0b7a1d35c8e6f4b2a90d7c1e5f3a8b6d4c2e0f9a7b5d3c1e8f6a4b2d0c\\n"
                "size 44791653\\n")
    ''')


def capture(prog: RealProgram) -> Case:
    """Run one real program with the repo venv and turn its output into the case's log."""
    work = Path("/tmp/crashdoc_real") / prog.case.case_id
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    (work / prog.script_name).write_text(prog.source)
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONWARNINGS="default", TERM="dumb")
    if prog.setup:
        (work / "_setup.py").write_text(prog.setup)
        subprocess.run([str(VENV_PY), "_setup.py"], cwd=work, env=env, check=True, capture_output=True)
    if prog.command == "python":
        cmd = [str(VENV_PY), prog.script_name, *prog.argv]
        shown = " ".join(["python", prog.script_name, *prog.argv])
    else:
        n = prog.command.split(":")[1]
        cmd = [str(VENV_TORCHRUN), f"--nproc_per_node={n}", prog.script_name, *prog.argv]
        shown = " ".join(["torchrun", f"--nproc_per_node={n}", prog.script_name, *prog.argv])
    proc = subprocess.run(cmd, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    out = proc.stdout.decode("utf-8", "replace")
    venv_root = str(REPO / ".venv")
    site_root = prog.site.split("/lib/")[0]
    replacements = [
        (f"{venv_root}/lib/python3.11/site-packages", prog.site),
        (f"{venv_root}/bin/", f"{site_root}/bin/" if "dist-packages" not in prog.site else "/usr/bin/"),
        (str(work), prog.home),
    ]
    for old, new in replacements:
        out = out.replace(old, new)
    assert "/work/main" not in out and "crashdoc_real" not in out, prog.case.case_id
    log = f"+ cd {prog.home}\n+ {shown}\n{out}+ exit {proc.returncode}\n"
    case = prog.case
    case.files = {prog.log_name: log}
    return case


# --------------------------------------------------------------------------------------------------
# synthetic cases

SYNTHETIC = []


def synthetic(fn):
    SYNTHETIC.append(fn)
    return fn


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--capture", action="store_true", help="re-run the real CPU programs (needs .venv torch)")
    ap.add_argument("--only", default="", help="only cases whose id contains this")
    args = ap.parse_args()
    n = 0
    for fn in SYNTHETIC:
        case = fn()
        if args.only in case.case_id:
            write_case(case); n += 1
    if args.capture:
        for prog in REAL_PROGRAMS:
            if args.only in prog.case.case_id:
                write_case(capture(prog)); n += 1
    print(f"wrote {n} cases under {CASES.relative_to(REPO)}")


if __name__ == "__main__":
    main()
