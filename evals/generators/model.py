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

import base64
import json
import os
import random
import re
import shutil
import subprocess
import textwrap
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path


import common  # noqa: E402
from common import BACKWARD_CALL, REPO, SMI_HEADS_NARROW, SMI_HEADS_WIDE, SMI_PROCESSES_NARROW, SMI_PROCESSES_WIDE, Case, RankExit, accelerate_launch_frames, collect_env_report, elastic_launch_frames, module_call, parser, torchrun_child_failed_summary, write_selected  # noqa: E402

VENV_PY = REPO / ".venv" / "bin" / "python"
VENV_TORCHRUN = REPO / ".venv" / "bin" / "torchrun"


# --------------------------------------------------------------------------------------------------
# case plumbing


def new_case(case_id: str, label: str, difficulty: str, description: str, files: dict[str, str],
             facts: dict[str, str], must_mention: list[str], **more) -> Case:
    """A case in this file's argument order (its files before its facts)."""
    return Case(case_id, label, difficulty, description, facts=facts, must_mention=must_mention, files=files, **more)


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

def module_frames(site: str, ver: str) -> list[Frame]:
    return [(f"{site}/torch/nn/modules/module.py", ln, fn, src) for fn, ln, src in module_call(ver)]


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


class Clock(common.Clock):
    """A wall clock that advances as the synthetic run prints (common's, with this family's stamp formats:
    its `ds` steps by whole milliseconds, its `glog` does not tick)."""

    def advance(self, seconds: float) -> datetime:
        self.t += timedelta(seconds=seconds)
        return self.t

    def ds(self) -> str:  # DeepSpeed / python logging style: 2024-03-12 09:14:02,118
        self.t += timedelta(milliseconds=self.rng.choice((0, 0, 1, 1, 2, 3, 5, 8, 13)))
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
    """The `nvidia-smi` table. gpus: (name as printed after 'NVIDIA ', bus id, total MiB); new_style is the
    layout of drivers 530 and later, the other one that of older drivers (names like 'Tesla T4' unprefixed)."""
    caps = {"H100": 700, "H200": 700, "A100-SXM": 400, "A100-PCIE": 250, "L40S": 350, "L4": 72, "A10G": 300,
            "RTX 4090": 450, "RTX 3090": 350, "V100": 300, "T4": 70}

    def cell(left: str, right: str, width: int) -> str:
        return left + " " * max(1, width - len(left) - len(right)) + right

    out = [when]
    if new_style:
        bar = "+-----------------------------------------+----------------------+----------------------+"
        out += [
            "+---------------------------------------------------------------------------------------+",
            "|" + cell(f" NVIDIA-SMI {driver}", f"Driver Version: {driver}   CUDA Version: {cuda_max:<9}|", 88),
            "|-----------------------------------------+----------------------+----------------------+",
            *SMI_HEADS_WIDE,
            "|=========================================+======================+======================|",
        ]
        for i, (name, bus, total) in enumerate(gpus):
            watts = next((v for k, v in caps.items() if k in name), 300)
            consumer = "RTX" in name
            fan = f"{rng.randint(0, 35)}%" if consumer else "N/A"
            ecc = "Off" if consumer else "0"
            mig = "Disabled" if any(k in name for k in ("A100", "H100", "H200")) else "N/A"
            persist = "Off" if consumer else "On"
            pwr = rng.randint(max(8, watts // 12), max(10, watts // 6))
            c1 = cell(f" {i:>3}  NVIDIA {name}", f"{persist}  ", 41)
            c2 = cell(f" {rng.randint(27, 41):>3}C    P0" if not consumer else f" {fan:<4}{rng.randint(27, 41):>3}C    P8",
                      f"{pwr}W / {watts}W ", 41)
            if not consumer:
                c2 = cell(f" {fan:<4} {rng.randint(27, 41):>3}C    P0", f"{pwr}W / {watts}W ", 41)
            out.append(f"|{c1}| {bus} Off |{ecc:>21} |")
            out.append(f"|{c2}|{f'{used_mib}MiB / {total}MiB':>21} |{'0%      Default':>21} |")
            out.append(f"|{' ' * 41}|{' ' * 22}|{mig:>21} |")
            out.append(bar)
        out += [
            "",
            "+---------------------------------------------------------------------------------------+",
            *SMI_PROCESSES_WIDE,
            "|=======================================================================================|",
            "|  No running processes found                                                           |",
            "+---------------------------------------------------------------------------------------+",
        ]
    else:
        bar = "+-------------------------------+----------------------+----------------------+"
        out += [
            "+-----------------------------------------------------------------------------+",
            "|" + cell(f" NVIDIA-SMI {driver}", f"Driver Version: {driver}    CUDA Version: {cuda_max:<8}|", 78),
            "|-------------------------------+----------------------+----------------------+",
            *SMI_HEADS_NARROW,
            "|===============================+======================+======================|",
        ]
        for i, (name, bus, total) in enumerate(gpus):
            watts = next((v for k, v in caps.items() if k in name), 300)
            c1 = cell(f" {i:>3}  {name}", "Off  ", 31)
            c2 = cell(f" N/A   {rng.randint(30, 44)}C    P8", f"{rng.randint(9, 40):>2}W / {watts:>3}W ", 31)
            out.append(f"|{c1}| {bus} Off |{'0':>21} |")
            out.append(f"|{c2}|{f'{used_mib}MiB / {total}MiB':>21} |{'0%      Default':>21} |")
            out.append(f"|{' ' * 31}|{' ' * 22}|{'N/A':>21} |")
            out.append(bar)
        out += [
            "",
            "+-----------------------------------------------------------------------------+",
            *SMI_PROCESSES_NARROW,
            "|=============================================================================|",
            "|  No running processes found                                                 |",
            "+-----------------------------------------------------------------------------+",
        ]
    return out


def collect_env(torch_ver: str, cuda: str, gpus: list[str], driver: str, python: str, os_name: str,
                extra_pip: list[str], cudnn: str = "8.9.2", cuda_runtime: str | None = None,
                cpu: str = "AMD EPYC 7R13 Processor") -> list[str]:
    """collect_env's report for a pip-installed torch on an AWS AMD host (Ubuntu 22.04 or 20.04)."""
    tag = "cu" + cuda.replace(".", "")
    glibc = "2.35" if "22.04" in os_name else "2.31"
    gcc = "(Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0" if "22.04" in os_name else "(Ubuntu 9.4.0-1ubuntu1~20.04.2) 9.4.0"
    devices = ["GPU models and configuration: ", *(f"GPU {i}: NVIDIA {g}" for i, g in enumerate(gpus)), "",
               f"Nvidia driver version: {driver}", "cuDNN version: Probably one of the following:",
               *(f"/usr/lib/x86_64-linux-gnu/libcudnn{lib}.so.{cudnn}" for lib in ("", "_adv_infer", "_ops_infer"))]
    cpu_lines = [
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
    ]
    return collect_env_report(
        torch=f"{torch_ver}+{tag}", cuda_build=cuda, os=f"{os_name} (x86_64)", gcc=gcc, libc=f"glibc-{glibc}",
        python=f"{python} (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)",
        platform=f"Linux-5.15.0-1051-aws-x86_64-with-glibc{glibc}", cuda_runtime=cuda_runtime or cuda + ".105",
        devices=devices, cpu=cpu_lines, libs=[*extra_pip, f"torch=={torch_ver}"], conda=["Could not collect"])


def pip_list(pkgs: list[tuple[str, str]]) -> list[str]:
    out = ["Package                   Version", "------------------------- ---------------"]
    for name, ver in pkgs:
        out.append(f"{name:<25} {ver}")
    return out


# --------------------------------------------------------------------------------------------------
# NCCL


def nccl_init(host: str, pid: int, rank: int, nranks: int, local: int, version: str, cuda: str,
              rng: random.Random, iface: str = "eth0", ip: str = "10.0.0.4", ib: bool = False,
              prefix: str = "", nnodes: int = 1, via: str | None = None) -> list[str]:
    tid = pid + rng.randint(90, 400)
    h = f"{prefix}{host}:{pid}:{pid} [{local}] NCCL INFO "
    t = f"{prefix}{host}:{pid}:{tid} [{local}] NCCL INFO "
    out = []
    if rank == 0:
        out.append(f"{h}Bootstrap : Using {iface}:{ip}<0>")
        out.append(f"{h}NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or "
                   "directory No plugin found (libnccl-net.so), using internal implementation")
        out.append(f"{h}cudaDriverVersion {cuda_driver_int(cuda)}")
        out.append(f"{h}NCCL version {version}+cuda{cuda}")
    if ib:
        out.append(f"{t}NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB {iface}:{ip}<0>")
        out.append(f"{t}Using network IB")
    else:
        out.append(f"{t}NET/IB : No device found.")
        out.append(f"{t}NET/Socket : Using [0]{iface}:{ip}<0>")
        out.append(f"{t}Using network Socket")
    comm = "0x" + _rand(rng, "56789abcdef", 1) + _rand(rng, HEX, 7)
    rng_state = random.Random(f"{host}-{nranks}-{version}")  # one commId per communicator, shared by its ranks
    comm_id = "0x" + _rand(rng_state, HEX, 16)
    bus = f"{(0x10 + local * 0x10):x}000"
    out.append(f"{t}comm {comm} rank {rank} nranks {nranks} cudaDev {local} nvmlDev {local} busId {bus} "
               f"commId {comm_id} - Init START")
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
    if via is None:
        via = "P2P/IPC/read" if nnodes == 1 or (nxt // 8 == rank // 8) else ("NET/IB/0/GDRDMA" if ib else "NET/Socket/0")
    out.append(f"{t}Channel 00/0 : {rank}[{local}] -> {nxt}[{nxt % 8}] via {via}")
    out.append(f"{t}Channel 01/0 : {rank}[{local}] -> {nxt}[{nxt % 8}] via {via}")
    out.append(f"{t}Connected all rings")
    out.append(f"{t}Connected all trees")
    out.append(f"{t}threadThresholds 8/8/64 | {8 * nranks}/8/64 | 512 | 512")
    out.append(f"{t}24 coll channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer")
    out.append(f"{t}comm {comm} rank {rank} nranks {nranks} cudaDev {local} nvmlDev {local} busId {bus} "
               f"commId {comm_id} - Init COMPLETE")
    return out


def cuda_driver_int(cuda: str) -> int:
    """cudaDriverVersion as NCCL prints it: the CUDA version the installed driver supports (noise only)."""
    return 12020 if cuda.startswith("12") else 11080


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


def torchrun_child_failed(script: str, root: RankExit, others: list[RankExit], site: str, clock: Clock,
                          agent_pid: int, python_bin: str, torch_ver: str, sigterm_pids: list[int],
                          launcher_bin: str | None = None,
                          accelerate: tuple[str, int, int, int] | None = None) -> list[str]:
    """The elastic agent's SIGTERM lines, its error line and the ChildFailedError block (torch <= 2.5 layout:
    ranks the agent terminated itself are not listed as failures). Given `accelerate` (its console script and the
    line numbers of accelerate_cli's main, launch_command and multi_gpu_launcher), the traceback is that of
    `accelerate launch`, which runs torch.distributed.run in its own process."""
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
    if accelerate is not None:
        acc_bin, cli, command, launcher_line = accelerate
        out += ["Traceback (most recent call last):",
                *accelerate_launch_frames(acc_bin, site, cli, command, "multi_gpu_launcher", launcher_line),
                *elastic_launch_frames(site, r, c, la), "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "]
        return out + torchrun_child_failed_summary(script, root, others)
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
    out += torchrun_child_failed_summary(script, root, others)
    return out


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
    env_report: bool = False        # the job script runs `python -m torch.utils.collect_env` first


REAL_PROGRAMS: list[RealProgram] = []


def real(case: Case, command: str, script_name: str, source: str, log_name: str, home: str, site: str,
         setup: str = "", argv: list[str] | None = None, env_report: bool = False) -> None:
    REAL_PROGRAMS.append(RealProgram(case, command, script_name, textwrap.dedent(source).lstrip(), log_name,
                                     home, site, textwrap.dedent(setup).lstrip(), argv or [], env_report))


real(
    new_case("dtype-mismatch-int32-labels-cpu-04", "dtype-mismatch", "easy",
         "CPU tabular classifier; labels loaded from NumPy as int32 reach cross_entropy, which wants int64",
         {}, {"torch_version": "2.13.0", "launcher": "python", "python_version": "3.11.7"},
         ["long"]),
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
    new_case("autograd-inplace-modified-tanh-slice-cpu-01", "autograd-inplace-modified", "easy",
         "CPU MLP zeroes masked features by slice assignment on a tanh output that tanh saved for backward",
         {}, {"torch_version": "2.13.0", "launcher": "python"}, ["tanh"]),
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
    ''', "run.log", "/opt/ablation", "/usr/local/lib/python3.11/site-packages", env_report=True)

real(
    new_case("autograd-inplace-modified-queue-torchrun-cpu-03", "autograd-inplace-modified", "medium",
         "2-rank gloo torchrun MoCo-style contrastive training: the negatives queue is used in the loss and then "
         "overwritten in place in the same forward; both ranks fail in backward, torchrun summary at the end",
         {}, {"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2"}, ["queue"],
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
    ''', "train.log", "/data/ssl/moco-lite", "/opt/conda/lib/python3.11/site-packages", env_report=True)

real(
    new_case("autograd-backward-twice-lstm-hidden-cpu-01", "autograd-backward-twice", "easy",
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
    ''', "train.log", "/srv/lstm-lab", "/usr/lib/python3/dist-packages", env_report=True)

real(
    new_case("autograd-backward-twice-gan-torchrun-cpu-02", "autograd-backward-twice", "medium",
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
    ''', "train.log", "/workspace/gan", "/opt/conda/lib/python3.11/site-packages", env_report=True)

real(
    new_case("autograd-no-grad-fn-frozen-head-cpu-01", "autograd-no-grad-fn", "easy",
         "CPU transfer learning: the freeze loop runs after the new classifier head is attached, so no "
         "parameter requires grad and backward has nothing to differentiate",
         {}, {"torch_version": "2.13.0", "launcher": "python"}, ["requires_grad"]),
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
    ''', "finetune.log", "/workspace/flowers", "/usr/local/lib/python3.11/site-packages", env_report=True)

real(
    new_case("autograd-no-grad-fn-reentrant-ckpt-cpu-02", "autograd-no-grad-fn", "medium",
         "CPU LoRA-style fine-tune with frozen embeddings and reentrant activation checkpointing: no input of "
         "the checkpointed blocks requires grad, torch warns, and the loss comes out without a grad_fn",
         {}, {"torch_version": "2.13.0", "launcher": "python"}, ["use_reentrant", "requires_grad"]),
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
    ''', "train.log", "/workspace/lora-tiny", "/opt/conda/lib/python3.11/site-packages", env_report=True)

real(
    new_case("shape-mismatch-flatten-resolution-cpu-01", "shape-mismatch", "easy",
         "CPU CNN whose classifier was sized for 32x32 inputs is fed 64x64 crops; the flattened feature size "
         "no longer matches the Linear layer",
         {}, {"launcher": "python", "torch_version": "2.13.0"}, ["4096", "1024"]),
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
    ''', "train.log", "/srv/experiments/cnn64", "/opt/venv/lib/python3.11/site-packages", env_report=True)

real(
    new_case("shape-mismatch-shard-features-torchrun-cpu-02", "shape-mismatch", "medium",
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
    ''', "train.log", "/mnt/jobs/tabular-ddp", "/opt/conda/lib/python3.11/site-packages", env_report=True)

real(
    new_case("checkpoint-key-mismatch-ddp-prefix-cpu-01", "checkpoint-key-mismatch", "easy",
         "Evaluation script loads a checkpoint saved from a DDP-wrapped model into a bare model: every key "
         "carries a 'module.' prefix",
         {}, {"torch_version": "2.13.0", "launcher": "python"}, ["module."],
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
    ''', argv=["checkpoints/epoch_19.pt"], env_report=True)

real(
    new_case("checkpoint-weights-only-namespace-cpu-01", "checkpoint-weights-only", "easy",
         "Resume under a recent torch (weights_only=True by default) of a checkpoint that pickles the "
         "argparse.Namespace of the training arguments",
         {}, {"torch_version": "2.13.0", "launcher": "python"}, ["weights_only", "Namespace"]),
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
    ''', argv=["--resume", "runs/exp12/checkpoint_0011.pt"], env_report=True)

real(
    new_case("checkpoint-corrupt-lfs-pointer-cpu-02", "checkpoint-corrupt", "hard",
         "Model file in a git clone made without git-lfs is a 134-byte LFS pointer; under the weights_only "
         "default torch reports 'Weights only load failed ... Unsupported operand 118' (the 'v' of 'version')",
         {}, {"torch_version": "2.13.0", "launcher": "python"}, ["LFS"]),
    "python", "predict.py", '''
    import os, sys, torch, torch.nn as nn

    weights = "models/segmenter_v4.pt"
    print(f"torch {torch.__version__}")
    print(f"loading weights from {weights} ({os.path.getsize(weights) / 1e6:.1f} MB)")
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
    ''', env_report=True)


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
    out = ""
    if prog.env_report:
        rep = subprocess.run([str(VENV_PY), "-m", "torch.utils.collect_env"], cwd=work, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
        out += "+ python -m torch.utils.collect_env\n" + rep.stdout.decode("utf-8", "replace")
    out += f"+ {shown}\n"
    proc = subprocess.run(cmd, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    out += proc.stdout.decode("utf-8", "replace")
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
    case = prog.case
    case.files = {prog.log_name: f"+ cd {prog.home}\n{out}"}
    pyver = re.search(r"^Python version: (\d+\.\d+\.\d+)", out, re.M)
    if pyver:
        case.facts["python_version"] = pyver.group(1)
    if prog.command.startswith("torchrun"):
        # ranks whose own traceback ends in the real error (gloo "Connection closed by peer" is collateral)
        raised = sorted({int(m.group(1)) for m in re.finditer(r"^\[rank(\d+)\]: (\w+\.)*\w+Error: (.*)$", out, re.M)
                         if "Connection closed by peer" not in m.group(3)})
        # a run that fails before init_process_group has no "[rankN]:" prefix: its case names the ranks itself
        assert raised or case.initiating_rank is not None, case.case_id
        if case.case_id.startswith("shape-mismatch"):
            assert raised == [2], f"only rank 2 must raise the real error, got {raised}"
        if raised:
            case.initiating_rank = raised[0] if len(raised) == 1 else raised
    return case


# --------------------------------------------------------------------------------------------------
# synthetic cases

SYNTHETIC = []


def synthetic(fn):
    SYNTHETIC.append(fn)
    return fn


def interleave(rng: random.Random, streams: list[list[str]], chunk: tuple[int, int] = (1, 3)) -> list[str]:
    """Merge per-rank outputs the way unprefixed stderr of several processes lands in one file."""
    streams = [list(s) for s in streams]
    out: list[str] = []
    while any(streams):
        live = [s for s in streams if s]
        s = rng.choice(live)
        n = rng.randint(*chunk)
        out += s[:n]
        del s[:n]
    return out


def env_dump(pairs: list[tuple[str, str]]) -> list[str]:
    return [f"{k}={v}" for k, v in pairs]


TE_SITE_310 = "/usr/local/lib/python3.10/dist-packages"


# ---- fp8-unsupported-gpu -------------------------------------------------------------------------


@synthetic
def fp8_unsupported_te_a100_python() -> Case:
    rng = random.Random("fp8u-01")
    site = TE_SITE_310
    clock = Clock(datetime(2024, 2, 19, 8, 41, 3), rng)
    lines = ["+ nvidia-smi"]
    lines += nvidia_smi([("A100-SXM4-40GB", "00000000:07:00.0", 40960)], "535.129.03", "12.2", rng,
                        when="Mon Feb 19 08:41:03 2024")
    lines += ["+ pip list 2>/dev/null | grep -E 'torch|transformer|flash|apex'",
              "flash-attn                2.5.2",
              "torch                     2.1.2+cu121",
              "transformer-engine        1.2.1+b7e5b4c",
              "+ python pretrain_gpt_te.py --config configs/gpt_1b3_fp8.yaml --data /data/tokens/pile_dedup_v2 "
              "--micro-batch-size 4 --seq-length 2048 --fp8"]
    clock.advance(6.2)
    lines += [
        f"[{clock.ds()}] INFO  | pretrain_gpt_te | torch 2.1.2+cu121, cuda 12.1, device NVIDIA A100-SXM4-40GB "
        "(capability 8.0), 1 visible GPU(s)",
        f"[{clock.ds()}] INFO  | pretrain_gpt_te | config: n_layers=24 d_model=2048 n_heads=16 ffn=8192 vocab=50304 "
        "seq_len=2048 micro_bs=4 grad_accum=16 lr=2.0e-04 warmup=2000 steps=150000",
        f"[{clock.ds()}] INFO  | pretrain_gpt_te | fp8: enabled, recipe=DelayedScaling(margin=0, interval=1, "
        "fp8_format=Format.HYBRID, amax_history_len=1024, amax_compute_algo='max')",
    ]
    clock.advance(3.8)
    lines += [
        f"[{clock.ds()}] INFO  | data | opening /data/tokens/pile_dedup_v2: 412 shards, 98,304,117,760 tokens",
        f"[{clock.ds()}] INFO  | data | train split: 408 shards, valid split: 4 shards",
    ]
    clock.advance(11.4)
    lines += [
        f"[{clock.ds()}] INFO  | model | building TE GPT with transformer_engine.pytorch.TransformerLayer x 24",
        f"{site}/transformer_engine/pytorch/attention.py:3245: UserWarning: window_size should be (-1, -1) or "
        "(>=0, >=0) for attn_mask_type=causal",
        "  warnings.warn(",
        f"[{clock.ds()}] INFO  | model | parameters: 1,313,601,536 (embeddings 103,022,592)",
        f"[{clock.ds()}] INFO  | optim | FusedAdam(lr=0.0002, betas=(0.9, 0.95), eps=1e-08, weight_decay=0.1)",
        f"[{clock.ds()}] INFO  | ckpt | no checkpoint found in /checkpoints/gpt-1b3-fp8, starting from scratch",
        f"[{clock.ds()}] INFO  | train | starting training loop",
    ]
    clock.advance(1.9)
    frames = [
        ("/workspace/gpt-te/pretrain_gpt_te.py", 318, "<module>", "main()"),
        ("/workspace/gpt-te/pretrain_gpt_te.py", 276, "main", "loss = train_step(model, batch, optimizer, fp8_recipe, args)"),
        ("/workspace/gpt-te/pretrain_gpt_te.py", 181, "train_step",
         "with te.fp8_autocast(enabled=args.fp8, fp8_recipe=fp8_recipe):"),
        ("/usr/lib/python3.10/contextlib.py", 135, "__enter__", "return next(self.gen)"),
        (f"{site}/transformer_engine/pytorch/fp8.py", 519, "fp8_autocast", "FP8GlobalStateManager.fp8_autocast_enter(enabled=enabled,"),
        (f"{site}/transformer_engine/pytorch/fp8.py", 384, "fp8_autocast_enter", "assert fp8_available, reason_for_no_fp8"),
    ]
    lines += traceback(frames, "AssertionError: Device compute capability 8.9 or higher required for FP8 execution.")
    return new_case(
        "fp8-unsupported-gpu-te-a100-python-01", "fp8-unsupported-gpu", "easy",
        "Single A100-40GB GPT pretraining with Transformer Engine --fp8; fp8_autocast asserts at the first step",
        {"train.log": "\n".join(lines)},
        {"gpu_model": "A100-SXM4-40GB", "driver_version": "535.129.03", "torch_version": "2.1.2",
         "cuda_version": "12.1", "launcher": "python", "precision": "fp8", "compute_capability": "8.0"},
        ["compute capability", "bf16"])


@synthetic
def fp8_unsupported_accelerate_a10g() -> Case:
    rng = random.Random("fp8u-02")
    site = "/home/ubuntu/.venv/lib/python3.10/site-packages"
    hf, wb = hf_token(rng), wandb_key(rng)
    clock = Clock(datetime(2024, 6, 3, 14, 7, 51), rng)
    lines = ["+ env | grep -E '^(HF_|WANDB_|NCCL_|CUDA_|ACCELERATE_)' | sort"]
    lines += env_dump([("ACCELERATE_MIXED_PRECISION", "fp8"), ("CUDA_VISIBLE_DEVICES", "0,1,2,3"),
                       ("HF_DATASETS_CACHE", "/opt/dlami/nvme/hf/datasets"), ("HF_HOME", "/opt/dlami/nvme/hf"),
                       ("HF_TOKEN", hf), ("NCCL_DEBUG", "WARN"), ("WANDB_API_KEY", wb),
                       ("WANDB_PROJECT", "clm-fp8-sweep")])
    lines += ["+ nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv",
              "index, name, memory.total [MiB], driver_version"]
    lines += [f"{i}, NVIDIA A10G, 23028 MiB, 535.161.08" for i in range(4)]
    lines += ["+ accelerate launch --multi_gpu --num_processes 4 --mixed_precision fp8 train_clm.py "
              "--model_name_or_path EleutherAI/pythia-1.4b --dataset_name wikitext --dataset_config_name "
              "wikitext-103-raw-v1 --per_device_train_batch_size 4 --block_size 1024 --output_dir out/pythia-fp8",
              "The following values were not passed to `accelerate launch` and had defaults used instead:",
              "\t`--num_machines` was set to a value of `1`",
              "\t`--dynamo_backend` was set to a value of `'no'`",
              "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`."]
    agent = 30112
    lines += torchrun_header(clock, agent, "2.3")
    clock.advance(7.3)
    for r in range(4):
        clock.tick(0.01, 0.2)
        lines.append(f"06/03/2024 14:07:{58 + r // 3:02d} - INFO - __main__ - Distributed environment: MULTI_GPU  "
                     f"Backend: nccl")
        lines += ["Num processes: 4", f"Process index: {r}", f"Local process index: {r}", f"Device: cuda:{r}", "",
                  "Mixed precision type: fp8", ""]
    lines += [
        "Downloading readme: 100%|██████████| 10.5k/10.5k [00:00<00:00, 41.2MB/s]",
        "Map (num_proc=8): 100%|██████████| 1801350/1801350 [00:41<00:00, 43566.38 examples/s]",
        "Grouping texts in chunks of 1024 (num_proc=8): 100%|██████████| 1801350/1801350 [01:02<00:00, 28714.02 examples/s]",
        "06/03/2024 14:09:49 - INFO - __main__ - Sample 41905 of the training set: {'input_ids': [187, 426, 253, "
        "1708, 273, 253, 8783, 9123, 13, 253, ...], 'attention_mask': [1, 1, 1, 1, 1, ...], 'labels': [187, 426, 253, "
        "1708, 273, ...]}.",
        "wandb: Currently logged in as: clm-team. Use `wandb login --relogin` to force relogin",
        "wandb: Tracking run with wandb version 0.17.0",
        "wandb: Run data is saved locally in /home/ubuntu/clm/wandb/run-20240603_140951-3k9d2x7q",
        "wandb: Run `wandb offline` to turn off syncing.",
        "wandb: Syncing run pythia-1.4b-fp8-bs64",
        "wandb: ⭐️ View project at https://wandb.ai/clm-team/clm-fp8-sweep",
        "wandb: 🚀 View run at https://wandb.ai/clm-team/clm-fp8-sweep/runs/3k9d2x7q",
        "06/03/2024 14:09:53 - INFO - __main__ - ***** Running training *****",
        "06/03/2024 14:09:53 - INFO - __main__ -   Num examples = 117,306",
        "06/03/2024 14:09:53 - INFO - __main__ -   Num Epochs = 3",
        "06/03/2024 14:09:53 - INFO - __main__ -   Instantaneous batch size per device = 4",
        "06/03/2024 14:09:53 - INFO - __main__ -   Total train batch size (w. parallel, distributed & accumulation) = 64",
        "06/03/2024 14:09:53 - INFO - __main__ -   Gradient Accumulation steps = 4",
        "06/03/2024 14:09:53 - INFO - __main__ -   Total optimization steps = 5,499",
        "  0%|          | 0/5499 [00:00<?, ?it/s]",
    ]
    clock.t = datetime(2024, 6, 3, 14, 9, 55, 310000)
    streams = []
    for r in [2, 0, 3, 1]:
        pre = f"[rank{r}]: "
        fr = [("/home/ubuntu/clm/train_clm.py", 652, "<module>", "main()"),
              ("/home/ubuntu/clm/train_clm.py", 566, "main", "outputs = model(**batch)")]
        fr += module_frames(site, "2.3")
        fr += [(f"{site}/torch/nn/parallel/distributed.py", 1593, "forward", "else self._run_ddp_forward(*inputs, **kwargs)"),
               (f"{site}/torch/nn/parallel/distributed.py", 1411, "_run_ddp_forward", "return self.module(*inputs, **kwargs)  # type: ignore[index]")]
        fr += module_frames(site, "2.3")
        fr += [("/usr/lib/python3.10/contextlib.py", 78, "inner", "with self._recreate_cm():"),
               ("/usr/lib/python3.10/contextlib.py", 135, "__enter__", "return next(self.gen)"),
               (f"{site}/transformer_engine/pytorch/fp8.py", 607, "fp8_autocast", "FP8GlobalStateManager.fp8_autocast_enter("),
               (f"{site}/transformer_engine/pytorch/fp8.py", 464, "fp8_autocast_enter", "assert fp8_available, reason_for_no_fp8")]
        streams.append(traceback(fr, "AssertionError: Device compute capability 8.9 or higher required for FP8 execution.", pre))
    lines += [ln for st in streams for ln in st]
    lines += ["wandb: 🚀 View run pythia-1.4b-fp8-bs64 at: https://wandb.ai/clm-team/clm-fp8-sweep/runs/3k9d2x7q",
              "wandb: Find logs at: wandb/run-20240603_140951-3k9d2x7q/logs"]
    clock.advance(2.4)
    pids = {r: 30140 + r for r in range(4)}
    root = RankExit(2, 2, pids[2], 1, clock.elastic(), "ip-172-31-20-117")
    others = [RankExit(0, 0, pids[0], 1, clock.elastic(), "ip-172-31-20-117"),
              RankExit(1, 1, pids[1], 1, clock.elastic(), "ip-172-31-20-117")]
    lines += torchrun_child_failed("train_clm.py", root, others, site, clock, agent, "/home/ubuntu/.venv/bin/python3", "2.3", [pids[3]],
                                   accelerate=("/home/ubuntu/.venv/bin/accelerate", 46, 1073, 718))
    return new_case(
        "fp8-unsupported-gpu-accelerate-a10g-02", "fp8-unsupported-gpu", "medium",
        "accelerate launch --mixed_precision fp8 on a 4x A10G instance; Transformer Engine's fp8_autocast asserts "
        "on every rank at the first forward and the run ends in ChildFailedError",
        {"train.log": "\n".join(lines)},
        {"gpu_model": "A10G", "gpu_count": "4", "driver_version": "535.161.08", "launcher": "accelerate",
         "world_size": "4", "precision": "fp8"},
        ["compute capability", "bf16"], initiating_rank=[0, 1, 2, 3], secrets=[hf, wb])


@synthetic
def fp8_unsupported_vllm_t4() -> Case:
    rng = random.Random("fp8u-03")
    site = "/usr/local/lib/python3.10/dist-packages"
    clock = Clock(datetime(2024, 10, 21, 14, 2, 11), rng)
    model = "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8"
    lines = ["+ nvidia-smi"]
    lines += nvidia_smi([("Tesla T4", "00000000:00:1E.0", 15360)], "550.54.15", "12.4", rng,
                        when="Mon Oct 21 14:02:09 2024", new_style=False)
    lines = [ln.replace("NVIDIA-SMI 550.54.15   ", "NVIDIA-SMI 550.54.15   ") for ln in lines]
    lines += ["+ python3 -m pip list 2>/dev/null | grep -E '^(vllm|torch|xformers|transformers) '",
              "torch                             2.4.0", "transformers                      4.45.2",
              "vllm                              0.6.3.post1", "xformers                          0.0.27.post2",
              f"+ vllm serve {model} --max-model-len 4096 --gpu-memory-utilization 0.92 --port 8000"]
    v = lambda lvl, src, msg: f"{lvl} {clock.vllm()} {src}] {msg}"
    ipc = "ipc:///tmp/" + "-".join(_rand(rng, HEX, n) for n in (8, 4, 4, 4, 12))
    lines += [
        v("INFO", "api_server.py:528", "vLLM API server version 0.6.3.post1"),
        v("INFO", "api_server.py:529", f"args: Namespace(subparser='serve', model_tag='{model}', config='', host=None, "
          "port=8000, uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], "
          "allowed_headers=['*'], api_key=None, lora_modules=None, prompt_adapters=None, chat_template=None, "
          "response_role='assistant', ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, ssl_cert_reqs=0, "
          f"root_path=None, middleware=[], return_tokens_as_token_ids=False, disable_frontend_multiprocessing=False, "
          f"enable_auto_tool_choice=False, tool_call_parser=None, tool_parser_plugin='', model='{model}', "
          "tokenizer=None, skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, "
          "tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', "
          "config_format=<ConfigFormat.AUTO: 'auto'>, dtype='auto', kv_cache_dtype='auto', "
          "quantization_param_path=None, max_model_len=4096, guided_decoding_backend='outlines', "
          "distributed_executor_backend=None, worker_use_ray=False, pipeline_parallel_size=1, "
          "tensor_parallel_size=1, max_parallel_loading_workers=None, ray_workers_use_nsight=False, block_size=16, "
          "enable_prefix_caching=False, disable_sliding_window=False, use_v2_block_manager=False, "
          "num_lookahead_slots=0, seed=0, swap_space=4, cpu_offload_gb=0, gpu_memory_utilization=0.92, "
          "num_gpu_blocks_override=None, max_num_batched_tokens=None, max_num_seqs=256, max_logprobs=20, "
          "disable_log_stats=False, quantization=None, rope_scaling=None, rope_theta=None, enforce_eager=False, "
          "max_context_len_to_capture=None, max_seq_len_to_capture=8192, disable_custom_all_reduce=False, "
          "tokenizer_pool_size=0, tokenizer_pool_type='ray', tokenizer_pool_extra_config=None, "
          "limit_mm_per_prompt=None, mm_processor_kwargs=None, enable_lora=False, max_loras=1, max_lora_rank=16, "
          "served_model_name=None, disable_log_requests=False, max_log_len=None, "
          "dispatch_function=<function serve at 0x7f3e5c1a7d90>)"),
        v("INFO", "api_server.py:166", f"Multiprocessing frontend to use {ipc} for IPC Path."),
        v("INFO", "api_server.py:179", "Started engine process with PID 2871"),
    ]
    clock.advance(4.1)
    lines += [v("WARNING", "config.py:1668", "Casting torch.bfloat16 to torch.float16.")]
    clock.advance(3.3)
    lines += [v("WARNING", "config.py:1668", "Casting torch.bfloat16 to torch.float16.")]
    clock.advance(1.0)
    lines += [
        v("INFO", "llm_engine.py:237", f"Initializing an LLM engine (v0.6.3.post1) with config: model='{model}', "
          f"speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, "
          "revision=None, override_neuron_config=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, "
          "trust_remote_code=False, dtype=torch.float16, max_seq_len=4096, download_dir=None, "
          "load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, "
          "disable_custom_all_reduce=False, quantization=fp8, enforce_eager=False, kv_cache_dtype=auto, "
          "quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig("
          "guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None, "
          "collect_model_forward_time=False, collect_model_execute_time=False), seed=0, "
          f"served_model_name={model}, use_v2_block_manager=True, num_scheduler_steps=1, "
          "chunked_prefill_enabled=False multi_step_stream_outputs=True, enable_prefix_caching=False, "
          "use_async_output_proc=True, use_cached_outputs=True, mm_processor_kwargs=None)"),
    ]
    clock.advance(1.2)
    lines += [v("INFO", "selector.py:224", "Cannot use FlashAttention-2 backend for Volta and Turing GPUs."),
              v("INFO", "selector.py:115", "Using XFormers backend.")]
    clock.advance(0.9)
    lines += [v("INFO", "selector.py:224", "Cannot use FlashAttention-2 backend for Volta and Turing GPUs."),
              v("INFO", "selector.py:115", "Using XFormers backend.")]
    clock.advance(0.6)
    lines += [v("INFO", "model_runner.py:1056", f"Starting to load model {model}...")]
    eng = f"{site}/vllm"
    lines += ["Process SpawnProcess-1:"]
    lines += traceback([
        ("/usr/lib/python3.10/multiprocessing/process.py", 314, "_bootstrap", "self.run()"),
        ("/usr/lib/python3.10/multiprocessing/process.py", 108, "run", "self._target(*self._args, **self._kwargs)"),
        (f"{eng}/engine/multiprocessing/engine.py", 390, "run_mp_engine", "engine = MQLLMEngine.from_engine_args(engine_args=engine_args,"),
        (f"{eng}/engine/multiprocessing/engine.py", 139, "from_engine_args", "return cls("),
        (f"{eng}/engine/multiprocessing/engine.py", 78, "__init__", "self.engine = LLMEngine(*args,"),
        (f"{eng}/engine/llm_engine.py", 335, "__init__", "self.model_executor = executor_class("),
        (f"{eng}/executor/executor_base.py", 47, "__init__", "self._init_executor()"),
        (f"{eng}/executor/gpu_executor.py", 40, "_init_executor", "self.driver_worker.load_model()"),
        (f"{eng}/worker/worker.py", 183, "load_model", "self.model_runner.load_model()"),
        (f"{eng}/worker/model_runner.py", 1058, "load_model", "self.model = get_model(model_config=self.model_config,"),
        (f"{eng}/model_executor/model_loader/__init__.py", 19, "get_model", "return loader.load_model(model_config=model_config,"),
        (f"{eng}/model_executor/model_loader/loader.py", 398, "load_model", "model = _initialize_model(model_config, self.load_config,"),
        (f"{eng}/model_executor/model_loader/loader.py", 173, "_initialize_model", "quant_config=_get_quantization_config(model_config, load_config),"),
        (f"{eng}/model_executor/model_loader/loader.py", 96, "_get_quantization_config", "raise ValueError("),
    ], "ValueError: The quantization method fp8 is not supported for the current GPU. Minimum capability: 80. "
       "Current capability: 75.")
    lines += traceback([
        ("/usr/local/bin/vllm", 8, "<module>", "sys.exit(main())"),
        (f"{eng}/scripts.py", 195, "main", "args.dispatch_function(args)"),
        (f"{eng}/scripts.py", 41, "serve", "uvloop.run(run_server(args))"),
        (f"{site}/uvloop/__init__.py", 82, "run", "return loop.run_until_complete(wrapper())"),
        ("uvloop/loop.pyx", 1518, "uvloop.loop.Loop.run_until_complete", ""),
        (f"{site}/uvloop/__init__.py", 61, "wrapper", "return await main"),
        (f"{eng}/entrypoints/openai/api_server.py", 552, "run_server", "async with build_async_engine_client(args) as engine_client:"),
        ("/usr/lib/python3.10/contextlib.py", 199, "__aenter__", "return await anext(self.gen)"),
        (f"{eng}/entrypoints/openai/api_server.py", 107, "build_async_engine_client", "async with build_async_engine_client_from_engine_args("),
        ("/usr/lib/python3.10/contextlib.py", 199, "__aenter__", "return await anext(self.gen)"),
        (f"{eng}/entrypoints/openai/api_server.py", 194, "build_async_engine_client_from_engine_args", "raise RuntimeError("),
    ], "RuntimeError: Engine process failed to start")
    return new_case(
        "fp8-unsupported-gpu-vllm-t4-03", "fp8-unsupported-gpu", "medium",
        "vLLM serving an FP8 checkpoint on a Tesla T4; the engine process raises the fp8 capability error and the "
        "API server only reports 'Engine process failed to start'",
        {"vllm.log": "\n".join(lines)},
        {"gpu_model": "Tesla T4", "driver_version": "550.54.15", "torch_version": "2.4.0",
         "precision": "fp8", "compute_capability": "7.5"},
        ["capability", "fp16"])


@synthetic
def fp8_unsupported_torchao_3090() -> Case:
    rng = random.Random("fp8u-04")
    site = "/home/mlee/miniforge3/envs/nanogpt/lib/python3.11/site-packages"
    clock = Clock(datetime(2024, 11, 2, 22, 15, 40), rng)
    lines = ["(nanogpt) mlee@ws-4u-02:~/nanogpt-fp8$ python train_float8.py config/train_shakespeare_char.py "
             "--compile=False --float8=True",
             "Overriding config with config/train_shakespeare_char.py:",
             "# train a miniature character-level shakespeare model",
             "# good for debugging and playing on macbooks and such",
             "",
             "out_dir = 'out-shakespeare-char'",
             "eval_interval = 250 # keep frequent because we'll overfit",
             "eval_iters = 200",
             "log_interval = 10 # don't print too too often",
             "",
             "# we expect to overfit on this small dataset, so only save when val improves",
             "always_save_checkpoint = False",
             "",
             "wandb_log = False # override via command line if you like",
             "dataset = 'shakespeare_char'",
             "gradient_accumulation_steps = 1",
             "batch_size = 64",
             "block_size = 256 # context of up to 256 previous characters",
             "",
             "# baby GPT model :)",
             "n_layer = 6",
             "n_head = 6",
             "n_embd = 384",
             "dropout = 0.2",
             "",
             "learning_rate = 1e-3 # with baby networks can afford to go a bit higher",
             "max_iters = 5000",
             "lr_decay_iters = 5000 # make equal to max_iters usually",
             "min_lr = 1e-4 # learning_rate / 10 usually",
             "beta2 = 0.99 # make a bit bigger because number of tokens per iter is small",
             "",
             "warmup_iters = 100 # not super necessary potentially",
             "",
             "Overriding: compile = False",
             "Overriding: float8 = True",
             "tokens per iteration will be: 16,384",
             "found vocab_size = 65 (inside data/shakespeare_char/meta.pkl)",
             "Initializing a new model from scratch",
             "number of parameters: 10.65M",
             "device: cuda:0 NVIDIA GeForce RTX 3090, torch 2.4.1+cu124, dtype bfloat16",
             "float8: converting nn.Linear modules with torchao 0.5.0 convert_to_float8_training "
             "(skipping lm_head)",
             "float8: converted 24 linear layers",
             "num decayed parameter tensors: 26, with 10,740,096 parameters",
             "num non-decayed parameter tensors: 13, with 4,992 parameters",
             "using fused AdamW: True"]
    fr = [("/home/mlee/nanogpt-fp8/train_float8.py", 301, "<module>", "losses = estimate_loss()"),
          (f"{site}/torch/utils/_contextlib.py", 116, "decorate_context", "return func(*args, **kwargs)"),
          ("/home/mlee/nanogpt-fp8/train_float8.py", 232, "estimate_loss", "logits, loss = model(X, Y)")]
    fr += module_frames(site, "2.4")
    fr += [("/home/mlee/nanogpt-fp8/model.py", 181, "forward", "x = block(x)")]
    fr += module_frames(site, "2.4")
    fr += [("/home/mlee/nanogpt-fp8/model.py", 104, "forward", "x = x + self.attn(self.ln_1(x))")]
    fr += module_frames(site, "2.4")
    fr += [("/home/mlee/nanogpt-fp8/model.py", 52, "forward", "q, k, v  = self.c_attn(x).split(self.n_embd, dim=2)")]
    fr += module_frames(site, "2.4")
    fr += [(f"{site}/torchao/float8/float8_linear.py", 464, "forward",
            "output = manual_float8_matmul_with_args_in_float8.apply(input_fp8, weight_fp8_t)"),
           (f"{site}/torch/autograd/function.py", 574, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
           (f"{site}/torchao/float8/float8_linear.py", 83, "forward", "orig_shape = input_fp8.shape\n    ...\n    res_bits = torch.mm(input_fp8_reshaped, weight_fp8_t)"),
           (f"{site}/torchao/float8/float8_tensor.py", 359, "__torch_dispatch__", "return FLOAT8_OPS_TABLE[func](func, args, kwargs)"),
           (f"{site}/torchao/float8/float8_ops.py", 215, "float8_mm", "tensor_out = addmm_float8_unwrapped("),
           (f"{site}/torchao/float8/float8_python_api.py", 55, "addmm_float8_unwrapped", "output = torch._scaled_mm(")]
    fr = [(a, b, c, d.split("\n")[-1].strip() if "\n" in d else d) for a, b, c, d in fr]
    lines += traceback(fr, "RuntimeError: torch._scaled_mm is only supported on CUDA devices with compute capability "
                           ">= 9.0 or 8.9, or ROCm MI300+")
    lines += ["(nanogpt) mlee@ws-4u-02:~/nanogpt-fp8$ "]
    return new_case(
        "fp8-unsupported-gpu-torchao-3090-04", "fp8-unsupported-gpu", "easy",
        "nanoGPT with torchao float8 training on an RTX 3090 workstation; torch._scaled_mm refuses (sm_86)",
        {"train.log": "\n".join(lines)},
        {"gpu_model": "GeForce RTX 3090", "torch_version": "2.4.1", "cuda_version": "12.4", "launcher": "python",
         "precision": "fp8"},
        ["compute capability", "bf16"], secrets=["mlee"])


def libaddr(rng: random.Random) -> str:
    return "0x7f" + _rand(rng, "0123456789abcdef", 2) + _rand(rng, HEX, 8)


def watchdog_abort(rng: random.Random, clock: Clock, rank: int, seq: int, op: str, numel: int, timeout_ms: int,
                   torch_ver: str, site: str, pid: int) -> list[str]:
    """What a rank prints when the NCCL watchdog gives up on a collective and aborts the process."""
    ran = timeout_ms + rng.randint(20, 900)
    work = (f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, NumelOut={numel}, Timeout(ms)={timeout_ms}) "
            f"ran for {ran} milliseconds before timing out.")
    lib = f"{site}/torch/lib"
    if torch_ver in ("2.0", "2.1", "2.2"):
        return [
            f"[E ProcessGroupNCCL.cpp:475] [Rank {rank}] Watchdog caught collective operation timeout: {work}",
            "[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous "
            "nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
            "[E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.",
            f"[E ProcessGroupNCCL.cpp:916] [Rank {rank}] NCCL watchdog thread terminated with exception: [Rank {rank}] "
            f"Watchdog caught collective operation timeout: {work}",
            "terminate called after throwing an instance of 'std::runtime_error'",
            f"  what():  [Rank {rank}] NCCL watchdog thread terminated with exception: [Rank {rank}] Watchdog caught "
            f"collective operation timeout: {work}",
        ]
    p = f"[rank{rank}]:"
    def g(line: int) -> str:
        clock.tick(0.00001, 0.0004)
        t = clock.t
        # c10's own logger: month*100+day without zero padding, nanoseconds
        return f"{p}[E{t.month * 100 + t.day} {t.strftime('%H:%M:%S')}.{t.microsecond:06d}{rng.randint(100, 999)} ProcessGroupNCCL.cpp:{line}]"
    pg = f"[PG 0 (default_pg) Rank {rank}]"
    frames = [
        f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 ({libaddr(rng)} in {lib}/libc10.so)",
        "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, "
        f"std::ratio<1l, 1000l> > >) + 0x1d2 ({libaddr(rng)} in {lib}/libtorch_cuda.so)",
        f"frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 ({libaddr(rng)} in {lib}/libtorch_cuda.so)",
        f"frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c ({libaddr(rng)} in {lib}/libtorch_cuda.so)",
        f"frame #4: <unknown function> + 0xdc253 ({libaddr(rng)} in /lib/x86_64-linux-gnu/libstdc++.so.6)",
        f"frame #5: <unknown function> + 0x94ac3 ({libaddr(rng)} in /lib/x86_64-linux-gnu/libc.so.6)",
        f"frame #6: <unknown function> + 0x126850 ({libaddr(rng)} in /lib/x86_64-linux-gnu/libc.so.6)",
    ]
    out = [
        f"{g(607)} [Rank {rank}] Watchdog caught collective operation timeout: {work}",
        f"{g(1664)} {pg} Exception (either an error or timeout) detected by watchdog at work: {seq}, last enqueued "
        f"NCCL work: {seq}, last completed NCCL work: {seq - 1}.",
        f"{g(621)} [Rank {rank}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of "
        "CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
        f"{g(627)} [Rank {rank}] To avoid data inconsistency, we are taking the entire process down.",
        f"{g(1515)} {pg} Process group watchdog thread terminated with exception: [Rank {rank}] Watchdog caught "
        f"collective operation timeout: {work}",
        "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:609 (most recent "
        "call last):",
    ] + frames + [
        "",
        "terminate called after throwing an instance of 'c10::DistBackendError'",
        f"  what():  {pg} Process group watchdog thread terminated with exception: [Rank {rank}] Watchdog caught "
        f"collective operation timeout: {work}",
        "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:609 (most recent "
        "call last):",
    ] + frames + [
        "",
        "Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1521 (most "
        "recent call last):",
        f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 ({libaddr(rng)} in {lib}/libc10.so)",
        f"frame #1: <unknown function> + 0xe5aa84 ({libaddr(rng)} in {lib}/libtorch_cuda.so)",
        f"frame #2: <unknown function> + 0xdc253 ({libaddr(rng)} in /lib/x86_64-linux-gnu/libstdc++.so.6)",
        f"frame #3: <unknown function> + 0x94ac3 ({libaddr(rng)} in /lib/x86_64-linux-gnu/libc.so.6)",
        f"frame #4: <unknown function> + 0x126850 ({libaddr(rng)} in /lib/x86_64-linux-gnu/libc.so.6)",
        "",
    ]
    _ = pid
    return out


# ---- fp8-gemm-shape-alignment --------------------------------------------------------------------


def te_gpt_train_lines(rng: random.Random, clock: Clock, start: int, stop: int, every: int, total: int,
                       tok_per_step: int, loss0: float, prefix: str = "") -> list[str]:
    out = []
    loss = loss0
    for step in range(start, stop + 1, every):
        clock.advance(every * rng.uniform(0.37, 0.41))
        loss = max(1.6, loss - rng.uniform(0.0, 0.004) * every / 10 + rng.uniform(-0.02, 0.02))
        lr = 3e-4 * min(1, step / 2000)
        tps = tok_per_step / rng.uniform(0.37, 0.41)
        out.append(f"{prefix}[{clock.ds()}] step {step:>6}/{total} | loss {loss:.4f} | lr {lr:.3e} | "
                   f"grad_norm {rng.uniform(0.18, 0.55):.3f} | tok/s {tps:,.0f} | mem 61.2GiB")
    return out


@synthetic
def fp8_align_te_eval_h100() -> Case:
    rng = random.Random("fp8a-01")
    site = TE_SITE_310
    clock = Clock(datetime(2024, 8, 14, 2, 3, 12), rng)
    lines = ["+ python -m torch.utils.collect_env"]
    lines += collect_env("2.3.1", "12.1", ["H100 80GB HBM3"], "550.90.07", "3.10.12", "Ubuntu 22.04.4 LTS",
                         ["numpy==1.26.4", "transformer_engine==1.8.0+3ec998e", "flash-attn==2.5.8",
                          "triton==2.3.1"], cudnn="8.9.7", cpu="Intel(R) Xeon(R) Platinum 8480+")
    lines += ["+ python train.py --model gpt-1.3b --seq-len 2048 --micro-bs 4 --fp8 hybrid --eval-every 500 "
              "--val-data /data/val/arxiv_val.jsonl"]
    lines += [
        f"[{clock.ds()}] building gpt-1.3b: 24 x te.TransformerLayer(hidden=2048, ffn=8192, heads=16), "
        "fuse_qkv_params=True, params_dtype=torch.bfloat16",
        f"[{clock.ds()}] fp8 recipe: DelayedScaling(margin=0, fp8_format=Format.HYBRID, amax_history_len=16, "
        "amax_compute_algo='max')",
        f"[{clock.ds()}] train data: 96 packed shards, seq_len=2048 (no padding); val data: 212 documents "
        "(unpacked, batch_size=1)",
    ]
    clock.advance(8)
    lines += te_gpt_train_lines(rng, clock, 10, 500, 10, 20000, 4 * 2048, 7.9)
    clock.advance(1.1)
    lines.append(f"[{clock.ds()}] step 500: running validation on 212 documents")
    site_te = f"{site}/transformer_engine/pytorch"
    fr = [("/workspace/te-gpt/train.py", 301, "<module>", "main()"),
          ("/workspace/te-gpt/train.py", 287, "main", "val_loss = evaluate(model, val_loader, fp8_recipe, args)"),
          (f"{site}/torch/utils/_contextlib.py", 115, "decorate_context", "return func(*args, **kwargs)"),
          ("/workspace/te-gpt/train.py", 142, "evaluate", "logits = model(input_ids)")]
    fr += module_frames(site, "2.3")
    fr += [("/workspace/te-gpt/model.py", 118, "forward", "x = layer(x, attention_mask=None)")]
    fr += module_frames(site, "2.3")
    fr += [(f"{site_te}/transformer.py", 625, "forward", "self_attention_outputs = self.self_attention(")]
    fr += module_frames(site, "2.3")
    fr += [(f"{site_te}/attention.py", 6427, "forward", "layernorm_qkv_outputs = self.layernorm_qkv(")]
    fr += module_frames(site, "2.3")
    fr += [(f"{site}/torch/utils/_contextlib.py", 115, "decorate_context", "return func(*args, **kwargs)"),
           (f"{site_te}/module/layernorm_linear.py", 1181, "forward", "out = fwd_fn("),
           (f"{site_te}/module/layernorm_linear.py", 104, "forward", "assert_dim_for_fp8_exec(inputmat, weight)"),
           (f"{site_te}/utils.py", 230, "assert_dim_for_fp8_exec", "assert (")]
    lines += traceback(fr, "AssertionError: FP8 execution requires 2D input matrices with height divisible by 8 and "
                           "width divisible by 16, but got tensor with dims=[1001, 2048]")
    return new_case(
        "fp8-gemm-shape-alignment-te-eval-h100-01", "fp8-gemm-shape-alignment", "easy",
        "Single-H100 Transformer Engine FP8 training runs 500 packed steps, then validation with batch size 1 and "
        "a 1001-token document trips TE's divisible-by-8/16 check",
        {"train.log": "\n".join(lines)},
        {"gpu_model": "H100 80GB HBM3", "driver_version": "550.90.07", "torch_version": "2.3.1",
         "cuda_version": "12.1", "launcher": "python", "precision": "fp8", "failure_step": "500"},
        ["pad", "divisible"])


@synthetic
def fp8_align_torchao_vit_torchrun() -> Case:
    rng = random.Random("fp8a-02")
    site = "/opt/conda/lib/python3.11/site-packages"
    clock = Clock(datetime(2025, 1, 9, 16, 20, 4), rng)
    agent = 51207
    host = "gpu-h100-a07"
    lines = ["+ torchrun --standalone --nproc_per_node=8 train_vit.py --model vit_large_patch14 --img-size 224 "
             "--batch-size 128 --float8 --compile false --data /datasets/imagenet1k"]
    lines += torchrun_header(clock, agent, "2.5")
    clock.advance(6.2)
    lines += ["[train_vit] torch 2.5.1+cu124, torchao 0.7.0, 8 x NVIDIA H100 80GB HBM3, world_size=8",
              "[train_vit] model vit_large_patch14: patch_embed=Linear(588 -> 1024) (3x14x14 patches), depth=24, "
              "heads=16, mlp=4096",
              "[train_vit] float8: convert_to_float8_training(model, config=Float8LinearConfig(), "
              "module_filter_fn=skip_head)"]
    pids = [agent + 30 + r for r in range(8)]
    for r in range(8):
        lines += nccl_init(host, pids[r], r, 8, r, "2.21.5", "12.4", rng, iface="ens32", ip="10.42.7.21")
    lines += ["[train_vit] converted 97 nn.Linear modules to Float8Linear (skipped: head)",
              "[train_vit] dataset: 1,281,167 train images, 50,000 val images, 1251 steps/epoch",
              "[train_vit] epoch 0 start"]
    clock.advance(41.3)
    order = [3, 0, 6, 5, 1, 7, 2, 4]
    streams = []
    for r in order:
        fr = [("/workspace/vit/train_vit.py", 412, "<module>", "main(args)"),
              ("/workspace/vit/train_vit.py", 361, "main", "loss = train_one_step(model, images, targets, optimizer, args)"),
              ("/workspace/vit/train_vit.py", 248, "train_one_step", "logits = model(images)")]
        fr += module_frames(site, "2.5")
        fr += [(f"{site}/torch/nn/parallel/distributed.py", 1643, "forward", "else self._run_ddp_forward(*inputs, **kwargs)"),
               (f"{site}/torch/nn/parallel/distributed.py", 1459, "_run_ddp_forward", "return self.module(*inputs, **kwargs)  # type: ignore[index]")]
        fr += module_frames(site, "2.5")
        fr += [("/workspace/vit/models/vit.py", 171, "forward", "x = self.patch_embed(x)")]
        fr += module_frames(site, "2.5")
        fr += [("/workspace/vit/models/vit.py", 58, "forward", "return self.proj(x)")]
        fr += module_frames(site, "2.5")
        fr += [(f"{site}/torchao/float8/float8_linear.py", 576, "forward", "output = matmul_with_hp_or_float8_args.apply("),
               (f"{site}/torch/autograd/function.py", 575, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
               (f"{site}/torchao/float8/float8_linear.py", 97, "forward", "res_bits = torch.mm(input_maybe_fp8_reshaped, weight_maybe_fp8_t)"),
               (f"{site}/torchao/float8/float8_tensor.py", 366, "__torch_dispatch__", "return FLOAT8_OPS_TABLE[func](func, args, kwargs)"),
               (f"{site}/torchao/float8/float8_ops.py", 277, "float8_mm", "tensor_out = addmm_float8_unwrapped("),
               (f"{site}/torchao/float8/float8_python_api.py", 56, "addmm_float8_unwrapped", "output = torch._scaled_mm(")]
        streams.append(traceback(fr, "RuntimeError: Expected trailing dimension of mat1 to be divisible by 16 but got "
                                     "mat1 shape: (32768x588.", f"[rank{r}]: "))
    for st in streams:
        lines += st
    clock.advance(1.3)
    root = RankExit(3, 3, pids[3], 1, clock.elastic(), host)
    others = [RankExit(0, 0, pids[0], 1, clock.elastic(), host), RankExit(6, 6, pids[6], 1, clock.elastic(), host)]
    lines += torchrun_child_failed("train_vit.py", root, others, site, clock, agent, "/opt/conda/bin/python3.11", "2.5",
                                   [pids[r] for r in (1, 2, 4, 5, 7)])
    return new_case(
        "fp8-gemm-shape-alignment-torchao-vit-torchrun-02", "fp8-gemm-shape-alignment", "medium",
        "8x H100 torchrun ViT-L/14 with torchao float8: the 588-wide patch-embedding Linear was converted to "
        "Float8Linear and torch._scaled_mm rejects K=588 on every rank; run ends in ChildFailedError",
        {"train.log": "\n".join(lines)},
        {"gpu_model": "H100 80GB HBM3", "gpu_count": "8", "torch_version": "2.5.1", "nccl_version": "2.21.5",
         "launcher": "torchrun", "world_size": "8", "precision": "fp8"},
        ["588", "divisible by 16"], initiating_rank=list(range(8)))


@synthetic
def fp8_align_te_packing_hard() -> Case:
    rng = random.Random("fp8a-03")
    site = TE_SITE_310
    tok = gh_token(rng)
    clock = Clock(datetime(2024, 9, 16, 9, 2, 40), rng)
    agent = 2288
    host = "h200-node-11"
    lines = ["+ set -x",
             f"+ pip install -q git+https://{tok}@github.com/acme-llm/te-utils.git@v0.3.2",
             "+ export NCCL_DEBUG=INFO NCCL_IB_HCA=mlx5 TORCH_NCCL_ASYNC_ERROR_HANDLING=1",
             "+ nvidia-smi"]
    lines += nvidia_smi([("H200", f"00000000:{b}:00.0", 143771) for b in ("18", "2A", "3A", "5D", "9A", "AB", "BA", "DB")],
                        "550.90.07", "12.4", rng, when="Mon Sep 16 09:02:38 2024")
    lines += ["+ torchrun --nproc_per_node=8 pretrain.py --config configs/llama-8b-fp8.yaml --resume latest"]
    lines += torchrun_header(clock, agent, "2.4")
    clock.advance(9.7)
    lines += [f"[{clock.ds()}] [pretrain] torch 2.4.0+cu124 | transformer_engine 1.9.0 | world_size 8 | "
              "micro_batch 1 | seq_len 8192 | packing: greedy, last pack per shard left unpadded"]
    pids = [agent + 40 + r for r in range(8)]
    for r in range(8):
        lines += nccl_init(host, pids[r], r, 8, r, "2.20.5", "12.4", rng, iface="eth0", ip="172.20.3.11", ib=True)
    clock.advance(12.5)
    lines += [f"[{clock.ds()}] [pretrain] resumed from /ckpt/llama-8b-fp8/step_34000 (tokens seen 2.23e+12)",
              f"[{clock.ds()}] [pretrain] fp8: DelayedScaling(fp8_format=HYBRID, amax_history_len=1024, "
              "amax_compute_algo=max)"]
    lines += te_gpt_train_lines(rng, clock, 34010, 34400, 10, 60000, 8 * 8192, 1.92)
    # rank 6 reaches the ragged last pack of its shard
    clock.advance(4.4)
    fr = [("/opt/llm/pretrain.py", 522, "<module>", "main()"),
          ("/opt/llm/pretrain.py", 471, "main", "loss = model(input_ids, labels=labels)")]
    fr += module_frames(site, "2.4")
    fr += [(f"{site}/torch/nn/parallel/distributed.py", 1636, "forward", "else self._run_ddp_forward(*inputs, **kwargs)"),
           (f"{site}/torch/nn/parallel/distributed.py", 1454, "_run_ddp_forward", "return self.module(*inputs, **kwargs)  # type: ignore[index]")]
    fr += module_frames(site, "2.4")
    fr += [("/opt/llm/llm/model.py", 203, "forward", "h = layer(h, rotary_pos_emb=rope)")]
    fr += module_frames(site, "2.4")
    te = f"{site}/transformer_engine/pytorch"
    fr += [(f"{te}/transformer.py", 690, "forward", "self_attention_outputs = self.self_attention("),
           ]
    fr += module_frames(site, "2.4")
    fr += [(f"{te}/attention.py", 7823, "forward", "layernorm_qkv_outputs = self.layernorm_qkv("),
           ]
    fr += module_frames(site, "2.4")
    fr += [(f"{site}/torch/utils/_contextlib.py", 116, "decorate_context", "return func(*args, **kwargs)"),
           (f"{te}/module/layernorm_linear.py", 1166, "forward", "out = fwd_fn("),
           (f"{site}/torch/autograd/function.py", 574, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
           (f"{te}/module/layernorm_linear.py", 104, "forward", "assert_dim_for_fp8_exec(inputmat, weight)"),
           (f"{te}/utils.py", 238, "assert_dim_for_fp8_exec", "assert (")]
    lines += traceback(fr, "AssertionError: FP8 execution requires 2D input matrices with height divisible by 8 and "
                           "width divisible by 16, but got tensor with dims=[2731, 4096]", "[rank6]: ")
    # nothing for 10 minutes, then the watchdogs of the other ranks fire
    clock.advance(600.0 + rng.uniform(0.05, 0.4))
    seq = 1_377_209
    for r in (2, 0, 4, 1, 7, 5, 3):
        lines += watchdog_abort(rng, clock, r, seq, "ALLREDUCE", 4194304 * 8, 600000, "2.4", site, pids[r])
    clock.advance(0.6)
    root = RankExit(2, 2, pids[2], -6, clock.elastic(), host)
    others = [RankExit(r, r, pids[r], -6, clock.elastic(), host) for r in (0, 1, 4)]
    lines += torchrun_child_failed("pretrain.py", root, others, site, clock, agent, "/usr/bin/python", "2.4",
                                   [pids[r] for r in (3, 5, 6, 7)])
    return new_case(
        "fp8-gemm-shape-alignment-te-packing-8rank-03", "fp8-gemm-shape-alignment", "hard",
        "8x H200 TE FP8 pretraining: rank 6 reaches its shard's unpadded last pack (2731 tokens) and asserts; it "
        "hangs instead of exiting, the other ranks hit the 10-minute NCCL watchdog and torchrun names rank 2 "
        "(SIGABRT) as root cause",
        {"train.log": "\n".join(lines)},
        {"gpu_model": "H200", "gpu_count": "8", "torch_version": "2.4.0", "nccl_version": "2.20.5",
         "launcher": "torchrun", "world_size": "8", "precision": "fp8", "exit_code": "-6", "signal": "SIGABRT"},
        ["rank 6", "pad"], initiating_rank=6, secrets=[tok])


# ---- dtype-mismatch ------------------------------------------------------------------------------


@synthetic
def dtype_half_resnet_t4() -> Case:
    rng = random.Random("dtype-01")
    site = "/opt/conda/lib/python3.9/site-packages"
    lines = ["+ nvidia-smi"]
    lines += nvidia_smi([("Tesla T4", "00000000:00:1E.0", 15360)], "515.65.01", "11.7", rng,
                        when="Thu Apr 13 06:12:55 2023", new_style=False)
    lines += [
        "+ python /app/infer_fp16.py --images /data/retail/shelves --out /data/retail/preds.csv --batch-size 64",
        "torch 1.13.1+cu117 | torchvision 0.14.1+cu117 | cuda available: True | device: Tesla T4",
        f"{site}/torchvision/models/_utils.py:208: UserWarning: The parameter 'pretrained' is deprecated since 0.13 "
        "and may be removed in the future, please use 'weights' instead.",
        "  warnings.warn(",
        f"{site}/torchvision/models/_utils.py:223: UserWarning: Arguments other than a weight enum or `None` for "
        "'weights' are deprecated since 0.13 and may be removed in the future. The current behavior is equivalent "
        "to passing `weights=ResNet50_Weights.IMAGENET1K_V1`. You can also use `weights=ResNet50_Weights.DEFAULT` "
        "to get the most up-to-date weights.",
        "  warnings.warn(msg)",
        'Downloading: "https://download.pytorch.org/models/resnet50-0676ba61.pth" to '
        "/root/.cache/torch/hub/checkpoints/resnet50-0676ba61.pth",
        "\r".join(f"{p:>3}%|{'█' * (p // 10)}{' ' * (10 - p // 10)}| {97.8 * p / 100:.1f}M/97.8M [00:0{p // 40}<00:00, "
                  f"{rng.randint(150, 260)}MB/s]" for p in (0, 9, 27, 44, 61, 79, 96, 100)),
        "loaded resnet50 (fine-tuned head: 37 shelf classes) from /models/shelf_resnet50_v7.pt",
        "converting model to fp16 for faster inference (model.half())",
        "found 12,480 images in /data/retail/shelves -> 195 batches",
    ]
    fr = [("/app/infer_fp16.py", 94, "<module>", "main()"),
          ("/app/infer_fp16.py", 77, "main", "preds = predict(model, loader)"),
          (f"{site}/torch/autograd/grad_mode.py", 27, "decorate_context", "return func(*args, **kwargs)"),
          ("/app/infer_fp16.py", 52, "predict", "logits = model(imgs.cuda(non_blocking=True))")]
    fr += module_frames(site, "1.13")
    fr += [(f"{site}/torchvision/models/resnet.py", 285, "forward", "return self._forward_impl(x)"),
           (f"{site}/torchvision/models/resnet.py", 268, "_forward_impl", "x = self.conv1(x)")]
    fr += module_frames(site, "1.13")
    fr += [(f"{site}/torch/nn/modules/conv.py", 463, "forward", "return self._conv_forward(input, self.weight, self.bias)"),
           (f"{site}/torch/nn/modules/conv.py", 459, "_conv_forward", "return F.conv2d(input, weight, bias, self.stride,")]
    lines += traceback(fr, "RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.cuda.HalfTensor) "
                           "should be the same")
    return new_case(
        "dtype-mismatch-half-resnet-t4-01", "dtype-mismatch", "easy",
        "Inference script casts a ResNet-50 to fp16 with model.half() but feeds float32 image batches on a T4",
        {"infer.log": "\n".join(lines)},
        {"gpu_model": "Tesla T4", "driver_version": "515.65.01", "torch_version": "1.13.1", "cuda_version": "11.7",
         "launcher": "python", "precision": "fp16"},
        ["half", "input"])


@synthetic
def dtype_bf16_head_torchrun() -> Case:
    rng = random.Random("dtype-02")
    site = "/usr/local/lib/python3.10/dist-packages"
    hf = hf_token(rng)
    clock = Clock(datetime(2024, 1, 22, 17, 40, 2), rng)
    agent = 8812
    host = "a100-pod-3"
    lines = ["+ printenv | grep -E '^(HF|TRANSFORMERS|TORCH|NCCL|OMP)_' | sort"]
    lines += env_dump([("HF_HOME", "/mnt/cache/hf"), ("HF_TOKEN", hf), ("NCCL_ASYNC_ERROR_HANDLING", "1"),
                       ("NCCL_DEBUG", "INFO"), ("TORCH_DISTRIBUTED_DEBUG", "OFF"),
                       ("TRANSFORMERS_CACHE", "/mnt/cache/hf/hub")])
    lines += ["+ torchrun --nproc_per_node=4 train_rm.py --base meta-llama/Llama-2-7b-hf --data "
              "/mnt/data/hh_rlhf_pairs.jsonl --bf16 --lr 9e-6 --per_device_batch 8"]
    lines += torchrun_header(clock, agent, "2.1")
    clock.advance(5.5)
    pids = [agent + 18 + r for r in range(4)]
    warn = (f"{site}/transformers/utils/generic.py:441: UserWarning: torch.utils._pytree._register_pytree_node is "
            "deprecated. Please use torch.utils._pytree.register_pytree_node instead.")
    per_rank = []
    for r in range(4):
        per_rank.append([warn, "  _torch_pytree._register_pytree_node("])
    lines += interleave(rng, per_rank, (1, 2))
    lines += ["[rm] rank 0/4 | torch 2.1.2+cu121 | transformers 4.36.2 | GPU NVIDIA A100-SXM4-80GB | bf16=True"]
    for r in range(4):
        lines += nccl_init(host, pids[r], r, 4, r, "2.18.1", "12.1", rng, iface="eth0", ip="10.128.0.31")
    bars = []
    for r in range(4):
        bars.append(["Loading checkpoint shards: " + "\r".join(
            f"{p:>3}%|{'█' * (p // 10)}{' ' * (10 - p // 10)}| {n}/2 [00:{t:02d}<00:{max(0, 9 - t):02d}, "
            f"{rng.uniform(3.8, 4.9):.2f}s/it]" for p, n, t in ((0, 0, 0), (50, 1, 4), (100, 2, 9)))])
    lines += interleave(rng, bars, (1, 1))
    lines += ["[rm] model loaded with torch_dtype=torch.bfloat16; value head: Linear(4096 -> 1)",
              "[rm] gradient checkpointing enabled",
              "[rm] train pairs: 160,800 | eval pairs: 8,552 | steps/epoch: 5,025",
              "[rm] epoch 1/1"]
    clock.advance(8.2)
    streams = []
    for r in range(4):
        fr = [("/workspace/rlhf/train_rm.py", 211, "<module>", "main()"),
              ("/workspace/rlhf/train_rm.py", 176, "main", "r_chosen = model(chosen_ids, chosen_mask)")]
        fr += module_frames(site, "2.1")
        fr += [(f"{site}/torch/nn/parallel/distributed.py", 1519, "forward", "else self._run_ddp_forward(*inputs, **kwargs)"),
               (f"{site}/torch/nn/parallel/distributed.py", 1355, "_run_ddp_forward", "return self.module(*inputs, **kwargs)  # type: ignore[index]")]
        fr += module_frames(site, "2.1")
        fr += [("/workspace/rlhf/rm_model.py", 47, "forward", "rewards = self.v_head(last_hidden).squeeze(-1)")]
        fr += module_frames(site, "2.1")
        fr += [(f"{site}/torch/nn/modules/linear.py", 114, "forward", "return F.linear(input, self.weight, self.bias)")]
        streams.append(traceback(fr, "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: "
                                     "c10::BFloat16 != float"))
    lines += interleave(rng, streams, (1, 4))
    clock.advance(3.1)
    root = RankExit(1, 1, pids[1], 1, clock.elastic(), host)
    others = [RankExit(0, 0, pids[0], 1, clock.elastic(), host), RankExit(3, 3, pids[3], 1, clock.elastic(), host)]
    lines += torchrun_child_failed("train_rm.py", root, others, site, clock, agent, "/usr/bin/python", "2.1",
                                   [pids[2]])
    return new_case(
        "dtype-mismatch-bf16-head-torchrun-02", "dtype-mismatch", "medium",
        "4x A100 torchrun reward-model training: Llama-2 loaded in bf16, value head created afterwards in fp32; "
        "all ranks fail in F.linear, interleaved tracebacks, ChildFailedError at the end",
        {"train.log": "\n".join(lines)},
        {"gpu_model": "A100-SXM4-80GB", "torch_version": "2.1.2", "cuda_version": "12.1", "nccl_version": "2.18.1",
         "launcher": "torchrun", "world_size": "4", "precision": "bf16", "transformers_version": "4.36.2"},
        ["v_head", "bfloat16"], initiating_rank=[0, 1, 2, 3], secrets=[hf])


@synthetic
def dtype_float64_ray_train() -> Case:
    rng = random.Random("dtype-03")
    site = "/home/ray/anaconda3/lib/python3.10/site-packages"
    clock = Clock(datetime(2024, 3, 5, 10, 13, 58), rng)
    aid = lambda: _rand(rng, HEX, 32)
    lines = ["(base) ray@ray-head-7f9c6:~/churn$ python train_ray.py --data s3://acme-analytics/churn/v12/ "
             "--num-workers 2 --use-gpu",
             f"{clock.ds().replace(',', ',')}\tINFO worker.py:1540 -- Connecting to existing Ray cluster at address: "
             "10.0.12.7:6379...",
             f"{clock.ds()}\tINFO worker.py:1715 -- Connected to Ray cluster. View the dashboard at "
             "\x1b[1m\x1b[32m10.0.12.7:8265 \x1b[39m\x1b[22m"]
    clock.advance(3.4)
    lines += [
        f"{clock.ds()}\tINFO read_api.py:406 -- To satisfy the requested parallelism of 96, each read task output "
        "is split into 96 smaller blocks.",
        f"{clock.ds()}\tINFO tune.py:592 -- [output] This will use the new output engine with verbosity 1. To disable "
        "the new output and use the legacy output engine, set the environment variable RAY_AIR_NEW_OUTPUT=0. For "
        "more information, please see https://github.com/ray-project/ray/issues/36949",
        "",
        "View detailed results here: /home/ray/ray_results/TorchTrainer_2024-03-05_10-14-05",
        "To visualize your results with TensorBoard, run: `tensorboard --logdir "
        "/home/ray/ray_results/TorchTrainer_2024-03-05_10-14-05`",
        "",
        "Training started with configuration:",
        "╭────────────────────────────────────────────────╮",
        "│ Training config                                │",
        "├────────────────────────────────────────────────┤",
        "│ train_loop_config/batch_size              1024 │",
        "│ train_loop_config/epochs                    20 │",
        "│ train_loop_config/hidden                   256 │",
        "│ train_loop_config/lr                     0.001 │",
        "╰────────────────────────────────────────────────╯",
        "(RayTrainWorker pid=18301, ip=10.0.12.7) Setting up process group for: env:// [rank=0, world_size=2]",
        "(TorchTrainer pid=18233, ip=10.0.12.7) Started distributed worker processes: ",
        "(TorchTrainer pid=18233, ip=10.0.12.7) - (ip=10.0.12.7, pid=18301) world_rank=0, local_rank=0, node_rank=0",
        "(TorchTrainer pid=18233, ip=10.0.12.7) - (ip=10.0.12.7, pid=18302) world_rank=1, local_rank=1, node_rank=0",
        "(RayTrainWorker pid=18301, ip=10.0.12.7) torch 2.1.2+cu118 | device cuda:0 NVIDIA A10G",
        "(RayTrainWorker pid=18302, ip=10.0.12.7) torch 2.1.2+cu118 | device cuda:1 NVIDIA A10G",
        "(RayTrainWorker pid=18301, ip=10.0.12.7) Moving model to device: cuda:0",
        "(RayTrainWorker pid=18301, ip=10.0.12.7) Wrapping provided model in DistributedDataParallel.",
        "(SplitCoordinator pid=18420, ip=10.0.12.7) Auto configuring locality_with_output=["
        f"'{aid()}', '{aid()}']",
        "(SplitCoordinator pid=18420, ip=10.0.12.7) Executing DAG InputDataBuffer[Input] -> "
        "TaskPoolMapOperator[ReadParquet] -> OutputSplitter[split(2, equal=True)]",
        "(SplitCoordinator pid=18420, ip=10.0.12.7) Execution config: ExecutionOptions(resource_limits="
        "ExecutionResources(cpu=None, gpu=None, object_store_memory=None), exclude_resources=ExecutionResources("
        "cpu=0, gpu=0, object_store_memory=0), locality_with_output=True, preserve_order=False, "
        "actor_locality_enabled=True, verbose_progress=False)",
        "(SplitCoordinator pid=18420, ip=10.0.12.7) Tip: For detailed progress reporting, run "
        "`ray.data.DataContext.get_current().execution_options.verbose_progress = True`",
        "(RayTrainWorker pid=18301, ip=10.0.12.7) features: 212 columns (float64 from parquet), label: churned",
    ]
    clock.t = datetime(2024, 3, 5, 10, 14, 31, 402000)
    worker_frames = [
        (f"{site}/ray/train/_internal/worker_group.py", 33, "__execute", "raise skipped from exception_cause(skipped)"),
        (f"{site}/ray/train/_internal/utils.py", 118, "discard_return_wrapper", "train_func(*args, **kwargs)"),
        ("/home/ray/churn/train_ray.py", 63, "train_loop", "pred = model(batch[\"features\"]).squeeze(-1)"),
    ]
    worker_frames += module_frames(site, "2.1")
    worker_frames += [(f"{site}/torch/nn/parallel/distributed.py", 1519, "forward", "else self._run_ddp_forward(*inputs, **kwargs)"),
                      (f"{site}/torch/nn/parallel/distributed.py", 1355, "_run_ddp_forward", "return self.module(*inputs, **kwargs)  # type: ignore[index]")]
    worker_frames += module_frames(site, "2.1")
    worker_frames += [(f"{site}/torch/nn/modules/container.py", 215, "forward", "input = module(input)")]
    worker_frames += module_frames(site, "2.1")
    worker_frames += [(f"{site}/torch/nn/modules/linear.py", 114, "forward", "return F.linear(input, self.weight, self.bias)")]
    err = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float"
    body = traceback(worker_frames, err)[1:]  # Ray prints remote frames without the Traceback header
    lines += [f"{clock.ds()}\tERROR tune_controller.py:1374 -- Trial task failed for trial TorchTrainer_5b3a2_00000"]
    lines += traceback([
        (f"{site}/ray/air/execution/_internal/event_manager.py", 110, "resolve_future", "result = ray.get(future)"),
        (f"{site}/ray/_private/auto_init_hook.py", 22, "auto_init_wrapper", "return fn(*args, **kwargs)"),
        (f"{site}/ray/_private/client_mode_hook.py", 103, "wrapper", "return func(*args, **kwargs)"),
        (f"{site}/ray/_private/worker.py", 2624, "get", "raise value.as_instanceof_cause()"),
    ], f"ray.exceptions.RayTaskError(RuntimeError): ray::_Inner.train() (pid=18233, ip=10.0.12.7, actor_id={aid()[:24]}, "
       "repr=TorchTrainer)")
    lines += [f'  File "{site}/ray/tune/trainable/trainable.py", line 342, in train',
              "    raise skipped from exception_cause(skipped)",
              f'  File "{site}/ray/train/_internal/utils.py", line 43, in check_for_failure',
              "    ray.get(object_ref)",
              f"ray.exceptions.RayTaskError(RuntimeError): ray::_RayTrainWorker__execute.get_next() (pid=18301, "
              f"ip=10.0.12.7, actor_id={aid()[:24]}, repr=<ray.train._internal.worker_group.RayTrainWorker object at "
              "0x7f1c2b3e5d50>)"]
    lines += body
    lines += ["",
              "Training errored after 0 iterations at 2024-03-05 10:14:31. Total running time: 26s",
              "Error file: /home/ray/ray_results/TorchTrainer_2024-03-05_10-14-05/TorchTrainer_5b3a2_00000_0_"
              "2024-03-05_10-14-05/error.txt",
              "",
              f"{clock.ds()}\tERROR tune.py:1038 -- Trials did not complete: [TorchTrainer_5b3a2_00000]"]
    lines += traceback([
        ("/home/ray/churn/train_ray.py", 101, "<module>", "result = trainer.fit()"),
        (f"{site}/ray/train/base_trainer.py", 638, "fit", "raise TrainingFailedError("),
    ], "ray.train.base_trainer.TrainingFailedError: The Ray Train run failed. Please inspect the previous error "
       "messages for a cause. After fixing the issue (assuming that the error is not caused by your own application "
       "logic, but rather an error such as OOM), you can restart the run from scratch or continue this run.\n"
       "To continue this run, you can use: `trainer = TorchTrainer.restore(\"/home/ray/ray_results/"
       "TorchTrainer_2024-03-05_10-14-05\")`.\n"
       "To start a new run that will retry on training failures, set "
       "`train.RunConfig(failure_config=train.FailureConfig(max_failures))` in the Trainer's `run_config` with "
       "`max_failures > 0`, or `max_failures = -1` for unlimited retries.")
    return new_case(
        "dtype-mismatch-float64-ray-train-03", "dtype-mismatch", "hard",
        "Ray Train TorchTrainer on 2x A10G: parquet features arrive as float64 batches into a float32 model; the "
        "dtype error is buried in nested RayTaskErrors and the run ends with a generic TrainingFailedError",
        {"driver.log": "\n".join(lines)},
        {"gpu_model": "A10G", "torch_version": "2.1.2", "cuda_version": "11.8", "launcher": "ray", "world_size": "2"},
        ["float32", "dtype"], initiating_rank=0)


# ---- autograd ------------------------------------------------------------------------------------


@synthetic
def inplace_gan_ddp_4090() -> Case:
    rng = random.Random("inplace-02")
    site = "/home/dev/venvs/gan/lib/python3.10/site-packages"
    clock = Clock(datetime(2023, 7, 28, 21, 4, 16), rng)
    lines = ["$ NCCL_DEBUG=INFO torchrun --nproc_per_node=2 train_dcgan.py --dataset celeba --image-size 128 "
             "--batch-size 128 --epochs 40"]
    lines += torchrun_header(clock, 4410, "2.0")
    lines += ["[train_dcgan] torch 2.0.1+cu118 | 2 x NVIDIA GeForce RTX 4090 | world_size=2",
              "[train_dcgan] Generator: 12,658,435 params | Discriminator: 11,033,409 params"]
    pids = [4431, 4432]
    for r in range(2):
        lines += nccl_init("desk-gpu", pids[r], r, 2, r, "2.14.3", "11.8", rng, iface="enp5s0", ip="192.168.1.40",
                           via="SHM/direct/direct")
    lines += ["[train_dcgan] CelebA: 202,599 images -> 791 iterations/epoch per rank",
              "[train_dcgan] epoch 1/40"]
    streams = []
    for r in range(2):
        fr = [("/home/dev/dcgan/train_dcgan.py", 188, "<module>", "train(args)"),
              ("/home/dev/dcgan/train_dcgan.py", 151, "train", "loss_g.backward()")]
        fr += backward_frames(site, "2.0")
        streams.append(traceback(fr, "RuntimeError: one of the variables needed for gradient computation has been "
                                     "modified by an inplace operation: [torch.cuda.FloatTensor [1024, 1]], which is "
                                     "output 0 of AsStridedBackward0, is at version 2; expected version 1 instead. "
                                     "Hint: enable anomaly detection to find the operation that failed to compute its "
                                     "gradient, with torch.autograd.set_detect_anomaly(True)."))
    lines += interleave(rng, streams, (1, 3))
    clock.advance(14.2)
    root = RankExit(0, 0, pids[0], 1, clock.elastic(), "desk-gpu")
    others = [RankExit(1, 1, pids[1], 1, clock.elastic(), "desk-gpu")]
    lines += torchrun_child_failed("train_dcgan.py", root, others, site, clock, 4410,
                                   "/home/dev/venvs/gan/bin/python", "2.0", [])
    return new_case(
        "autograd-inplace-modified-gan-ddp-torchrun-02", "autograd-inplace-modified", "medium",
        "2x RTX 4090 DCGAN under torchrun: the discriminator's optimizer.step() runs before the generator's "
        "backward through the same discriminator graph; both ranks fail, ChildFailedError at the end",
        {"train.log": "\n".join(lines)},
        {"gpu_model": "GeForce RTX 4090", "gpu_count": "2", "torch_version": "2.0.1", "cuda_version": "11.8",
         "nccl_version": "2.14.3", "launcher": "torchrun", "world_size": "2"},
        ["step", "discriminator"], initiating_rank=[0, 1])


@synthetic
def backward_twice_retry_slurm() -> Case:
    rng = random.Random("twice-03")
    site = "/home/mchen/.conda/envs/lm/lib/python3.10/site-packages"
    clock = Clock(datetime(2024, 2, 7, 3, 0, 12), rng)
    nodes = ["gpu-b06", "gpu-b07"]
    lines = ["SLURM_JOB_ID=884213", "SLURM_JOB_NAME=lm-1b4-bf16", "SLURM_JOB_USER=mchen", "SLURM_NNODES=2",
             "SLURM_NTASKS=16", "SLURM_JOB_NODELIST=gpu-b[06-07]", "SLURM_SUBMIT_DIR=/home/mchen/lm-train",
             "MASTER_ADDR=gpu-b06 MASTER_PORT=29411",
             "+ srun -l --kill-on-bad-exit=0 python -u train.py --config configs/lm_1b4.yaml"]
    pids = {r: 71000 + (r % 8) * 7 + (r // 8) * 1000 for r in range(16)}
    for r in (0, 8):
        lines.append(f"{r:>2}: [{clock.ds()}] INFO torch 2.1.2+cu121 | nccl (2, 18, 1) | host {nodes[r // 8]} | "
                     f"8 x NVIDIA A100-SXM4-80GB")
    for r in range(16):
        init = nccl_init(nodes[r // 8], pids[r], r, 16, r % 8, "2.18.1", "12.1", rng, iface="ib0",
                         ip=f"10.20.6.{6 + r // 8}", ib=True, nnodes=2)
        lines += [f"{r:>2}: {ln}" for ln in init]
    clock.advance(31.0)
    lines.append(f" 0: [{clock.ds()}] INFO resumed from /scratch/mchen/ckpt/lm_1b4/step_8000 (optimizer, scheduler, rng)")
    loss = 2.61
    for step in range(8010, 8420, 10):
        clock.advance(rng.uniform(6.1, 6.5))
        loss = max(2.3, loss + rng.uniform(-0.02, 0.015))
        lines.append(f" 0: [{clock.ds()}] INFO step {step} | loss {loss:.4f} | grad_norm {rng.uniform(0.2, 0.4):.3f} | "
                     f"lr 2.87e-04 | {rng.uniform(318, 330):.0f}k tok/s")
    clock.advance(3.7)
    lines.append(f"11: [{clock.ds()}] WARNING non-finite grad norm (inf) on rank 11 at step 8423; zeroing grads and "
                 "retrying backward in fp32")
    fr = [("/home/mchen/lm-train/train.py", 402, "<module>", "main(cfg)"),
          ("/home/mchen/lm-train/train.py", 356, "main", "loss = train_step(model, batch, optimizer, cfg)"),
          ("/home/mchen/lm-train/train.py", 287, "train_step", "(loss.float() / cfg.retry_scale).backward()")]
    fr += backward_frames(site, "2.1")
    lines += prefixed(traceback(fr, "RuntimeError: Trying to backward through the graph a second time (or directly "
                                    "access saved tensors after they have already been freed). Saved intermediate "
                                    "values of the graph are freed when you call .backward() or autograd.grad(). "
                                    "Specify retain_graph=True if you need to backward through the graph a second "
                                    "time or if you need to access saved tensors after calling backward."), "11: ")
    clock.advance(2.2)
    lines.append("srun: error: gpu-b07: task 11: Exited with exit code 1")
    clock.advance(1800.0)
    order = [r for r in range(16) if r != 11]
    rng.shuffle(order)
    for r in order:
        lines += prefixed(watchdog_abort(rng, clock, r, 1_214_877, "ALLREDUCE", 25_165_824, 1800000, "2.1", site,
                                         pids[r]), f"{r:>2}: ")
    lines += ["srun: error: gpu-b06: tasks 0-7: Aborted (core dumped)",
              "srun: error: gpu-b07: tasks 8-10,12-15: Aborted (core dumped)"]
    return new_case(
        "autograd-backward-twice-retry-slurm-03", "autograd-backward-twice", "hard",
        "16-rank Slurm job (srun -l, 2 nodes): rank 11's retry path calls backward a second time on a freed "
        "graph and exits; the 15 other ranks wait in all_reduce until the 30-minute NCCL watchdog aborts them",
        {"slurm-884213.out": "\n".join(lines)},
        {"gpu_model": "A100-SXM4-80GB", "torch_version": "2.1.2", "nccl_version": "2.18.1", "launcher": "srun",
         "world_size": "16", "num_nodes": "2"},
        ["rank 11", "backward"], initiating_rank=11, secrets=["mchen"])


@synthetic
def no_grad_fn_peft_accelerate() -> Case:
    rng = random.Random("nograd-03")
    site = "/opt/conda/lib/python3.10/site-packages"
    clock = Clock(datetime(2023, 11, 3, 13, 31, 9), rng)
    lines = ["+ nvidia-smi -L",
             "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5e1f2c3a-90b1-7d44-2a8e-61c9f0d3b7a2)",
             "GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-a7d0e4b9-3c12-58f6-91e0-0b4d2f6c8e13)",
             "+ accelerate launch --multi_gpu --num_processes 2 run_sft.py --model_name_or_path "
             "meta-llama/Llama-2-7b-hf --dataset_name timdettmers/openassistant-guanaco --bf16 True "
             "--gradient_checkpointing True --per_device_train_batch_size 4 --gradient_accumulation_steps 4 "
             "--learning_rate 2e-4 --lora_r 16 --lora_alpha 32 --output_dir out/llama2-7b-guanaco-lora",
             "The following values were not passed to `accelerate launch` and had defaults used instead:",
             "\t`--num_machines` was set to a value of `1`",
             "\t`--mixed_precision` was set to a value of `'no'`",
             "\t`--dynamo_backend` was set to a value of `'no'`",
             "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`."]
    lines += torchrun_header(clock, 6650, "2.1")
    clock.advance(9.1)
    lines += [f"[INFO|training_args.py:1345] {clock.ds()} >> Found safetensors installation, but --save_safetensors=False. "
              "Safetensors should be a preferred weights saving format due to security and performance reasons. If your "
              "model cannot be saved by safetensors please feel free to open an issue at "
              "https://github.com/huggingface/safetensors!",
              f"[INFO|training_args.py:1798] {clock.ds()} >> PyTorch: setting up devices",
              "11/03/2023 13:31:19 - WARNING - __main__ - Process rank: 0, device: cuda:0, n_gpu: 1, distributed "
              "training: True, 16-bits training: False",
              "11/03/2023 13:31:19 - WARNING - __main__ - Process rank: 1, device: cuda:1, n_gpu: 1, distributed "
              "training: True, 16-bits training: False",
              "11/03/2023 13:31:19 - INFO - __main__ - torch 2.1.0+cu121, transformers 4.34.1, peft 0.6.2, "
              "accelerate 0.24.1"]
    bars = []
    for _r in range(2):
        bars.append(["Loading checkpoint shards: " + "\r".join(
            f"{p:>3}%|{'█' * (p // 10)}{' ' * (10 - p // 10)}| {n}/2 [00:{t:02d}<00:{max(0, 10 - t):02d}, "
            f"{rng.uniform(4.6, 5.6):.2f}s/it]" for p, n, t in ((0, 0, 0), (50, 1, 5), (100, 2, 10)))])
    lines += interleave(rng, bars, (1, 1))
    lines += ["trainable params: 8,388,608 || all params: 6,746,804,224 || trainable%: 0.12433454005023165",
              "trainable params: 8,388,608 || all params: 6,746,804,224 || trainable%: 0.12433454005023165",
              "Map: 100%|██████████| 9846/9846 [00:03<00:00, 2811.04 examples/s]",
              "Map: 100%|██████████| 9846/9846 [00:03<00:00, 2790.52 examples/s]",
              f"[INFO|trainer.py:1760] {clock.ds()} >> ***** Running training *****",
              f"[INFO|trainer.py:1761] {clock.ds()} >>   Num examples = 9,846",
              f"[INFO|trainer.py:1762] {clock.ds()} >>   Num Epochs = 3",
              f"[INFO|trainer.py:1763] {clock.ds()} >>   Instantaneous batch size per device = 4",
              f"[INFO|trainer.py:1766] {clock.ds()} >>   Total train batch size (w. parallel, distributed & accumulation) = 32",
              f"[INFO|trainer.py:1767] {clock.ds()} >>   Gradient Accumulation steps = 4",
              f"[INFO|trainer.py:1768] {clock.ds()} >>   Total optimization steps = 924",
              f"[INFO|trainer.py:1769] {clock.ds()} >>   Number of trainable parameters = 8,388,608",
              "  0%|          | 0/924 [00:00<?, ?it/s]",
              "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`...",
              "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`...",
              f"{site}/torch/utils/checkpoint.py:61: UserWarning: None of the inputs have requires_grad=True. "
              "Gradients will be None",
              "  warnings.warn(",
              f"{site}/torch/utils/checkpoint.py:61: UserWarning: None of the inputs have requires_grad=True. "
              "Gradients will be None",
              "  warnings.warn("]
    streams = []
    for _r in range(2):
        fr = [("/workspace/sft/run_sft.py", 214, "<module>", "main()"),
              ("/workspace/sft/run_sft.py", 207, "main", "train_result = trainer.train()"),
              (f"{site}/transformers/trainer.py", 1591, "train", "return inner_training_loop("),
              (f"{site}/transformers/trainer.py", 1892, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)"),
              (f"{site}/transformers/trainer.py", 2787, "training_step", "self.accelerator.backward(loss)"),
              (f"{site}/accelerate/accelerator.py", 1989, "backward", "loss.backward(**kwargs)")]
        fr += backward_frames(site, "2.1")
        streams.append(traceback(fr, "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"))
    lines += interleave(rng, streams, (1, 3))
    lines += ["  0%|          | 0/924 [00:04<?, ?it/s]"]
    clock.advance(7.3)
    root = RankExit(0, 0, 6671, 1, clock.elastic(), "trn-a100-2x")
    others = [RankExit(1, 1, 6672, 1, clock.elastic(), "trn-a100-2x")]
    lines += torchrun_child_failed("run_sft.py", root, others, site, clock, 6650, "/opt/conda/bin/python", "2.1", [],
                                   accelerate=("/opt/conda/bin/accelerate", 47, 985, 654))
    return new_case(
        "autograd-no-grad-fn-peft-accelerate-03", "autograd-no-grad-fn", "medium",
        "accelerate launch (2x A100-40GB) HF Trainer LoRA fine-tune with gradient_checkpointing and reentrant "
        "checkpoints over frozen embeddings; torch warns 'None of the inputs have requires_grad=True', then "
        "backward fails on both ranks",
        {"train.log": "\n".join(lines)},
        {"gpu_model": "A100-SXM4-40GB", "gpu_count": "2", "torch_version": "2.1.0", "transformers_version": "4.34.1",
         "accelerate_version": "0.24.1", "launcher": "accelerate", "world_size": "2"},
        ["gradient checkpointing", "requires_grad"], initiating_rank=[0, 1])


# ---- shape-mismatch ------------------------------------------------------------------------------


@synthetic
def shape_rope_multinode_hard() -> Case:
    rng = random.Random("shape-03")
    site = "/usr/local/lib/python3.10/dist-packages"
    hosts = ["gpu-h100-017", "gpu-h100-018"]
    ips = ["10.44.1.17", "10.44.1.18"]
    start = datetime(2024, 10, 22, 13, 58, 30)
    cmd = ("+ torchrun --nnodes=2 --nproc_per_node=8 --rdzv_backend=c10d --rdzv_endpoint=gpu-h100-017:29400 "
           "--rdzv_id=lm7b-ctx8k train.py --config configs/lm7b_ctx.yaml")
    logs = {}
    agents = [88190, 40412]
    pids = {r: agents[r // 8] + 23 + (r % 8) for r in range(16)}
    clocks = [Clock(start, rng), Clock(start + timedelta(seconds=0.8), rng)]
    for n in range(2):
        c = clocks[n]
        out = [cmd.replace("--rdzv_id", f"--node_rank={n} --rdzv_id") if False else cmd]
        out += torchrun_header(c, agents[n], "2.4")
        c.advance(11.2)
        if n == 0:
            out.append(f"[{c.ds()}] [train] torch 2.4.0+cu124 | 16 x NVIDIA H100 80GB HBM3 over 2 nodes | "
                       "seq_len up to 8192 (bucketed) | rope cache max_seq_len=4096")
        for lr in range(8):
            r = n * 8 + lr
            out += nccl_init(hosts[n], pids[r], r, 16, lr, "2.20.5", "12.4", rng, iface="ibp26s0", ip=ips[n],
                             ib=True, nnodes=2)
        logs[n] = out
    # training progress on node 0
    c0 = clocks[0]
    c0.advance(40.0)
    logs[0].append(f"[{c0.ds()}] [train] data: 1,024 parquet shards, length buckets [2048, 4096, 4608, 8192]")
    loss = 2.05
    for step in range(100, 2300, 100):
        c0.advance(rng.uniform(57, 61))
        loss = max(1.7, loss - rng.uniform(0.0, 0.012))
        logs[0].append(f"[{c0.ds()}] [train] step {step:>5} | loss {loss:.4f} | lr 1.50e-04 | "
                       f"grad_norm {rng.uniform(0.21, 0.33):.3f} | {rng.uniform(9.6, 10.1):.2f}k tok/s/gpu")
    fail_t = c0.t + timedelta(seconds=23.4)
    # node 1: rank 13 gets the first 4608-token bucket
    c1 = clocks[1]
    c1.t = fail_t
    fr = [("/opt/lm/train.py", 344, "<module>", "main()"),
          ("/opt/lm/train.py", 301, "main", "logits = model(input_ids, attention_mask=attn_mask)")]
    fr += module_frames(site, "2.4")
    fr += [(f"{site}/torch/nn/parallel/distributed.py", 1636, "forward", "else self._run_ddp_forward(*inputs, **kwargs)"),
           (f"{site}/torch/nn/parallel/distributed.py", 1454, "_run_ddp_forward", "return self.module(*inputs, **kwargs)  # type: ignore[index]")]
    fr += module_frames(site, "2.4")
    fr += [("/opt/lm/lm/model.py", 268, "forward", "h = layer(h, cos, sin, attn_mask)")]
    fr += module_frames(site, "2.4")
    fr += [("/opt/lm/lm/model.py", 171, "forward", "h = x + self.attn(self.attn_norm(x), cos, sin, mask)")]
    fr += module_frames(site, "2.4")
    fr += [("/opt/lm/lm/model.py", 118, "forward", "q, k = apply_rotary(q, k, cos[:, :T], sin[:, :T])"),
           ("/opt/lm/lm/rope.py", 41, "apply_rotary", "q_out = q * cos + rotate_half(q) * sin")]
    logs[1] += traceback(fr, "RuntimeError: The size of tensor a (4608) must match the size of tensor b (4096) at "
                             "non-singleton dimension 1", "[rank13]: ")
    c1.advance(1.9)
    root = RankExit(13, 5, pids[13], 1, c1.elastic(), hosts[1])
    logs[1] += torchrun_child_failed("train.py", root, [], site, c1, agents[1], "/usr/bin/python", "2.4",
                                     [pids[r] for r in range(8, 16) if r != 13])
    # node 0: IB completions with error, then every rank aborts
    c0.t = fail_t + timedelta(seconds=1.7)
    for r in (2, 6, 0, 5, 3, 7, 1, 4):
        tid = pids[r] + rng.randint(400, 700)
        peer = f"{ips[1]}<{rng.randint(33000, 60000)}>"
        ib = (f"NET/IB : Got completion from peer {peer} with error 12, opcode 0, len 0, vendor err 129 (Recv) "
              f"localGid ::ffff:{ips[0]} remoteGid ::ffff:{ips[1]}")
        pre = f"{hosts[0]}:{pids[r]}:{tid} [{r}]"
        logs[0] += [f"{pre} transport/net_ib.cc:1696 NCCL WARN {ib}",
                    f"{pre} NCCL INFO transport/net.cc:1298 -> 6",
                    f"{pre} NCCL INFO proxy.cc:694 -> 6",
                    f"{pre} NCCL INFO proxy.cc:874 -> 6 [Progress Thread]"]
    for r in (2, 6, 0, 5, 3, 7, 1, 4):
        c0.tick(0.01, 0.2)
        t = c0.t
        ts = f"[rank{r}]:[E{t.month * 100 + t.day} {t.strftime('%H:%M:%S')}.{t.microsecond:06d}{rng.randint(100, 999)}"
        peer = f"{ips[1]}<{rng.randint(33000, 60000)}>"
        lib = f"{site}/torch/lib"
        msg = (f"[PG 0 (default_pg) Rank {r}] Process group watchdog thread terminated with exception: NCCL error: "
               "remote process exited or there was a network error, NCCL version 2.20.5\n"
               "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting "
               "prematurely.\nLast error:\n"
               f"NET/IB : Got completion from peer {peer} with error 12, opcode 0, len 0, vendor err 129 (Recv) "
               f"localGid ::ffff:{ips[0]} remoteGid ::ffff:{ips[1]}")
        frames = [
            "Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1908 "
            "(most recent call last):",
            f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 ({libaddr(rng)} in {lib}/libc10.so)",
            "frame #1: c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&) + 0x220 "
            f"({libaddr(rng)} in {lib}/libtorch_cuda.so)",
            "frame #2: c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x7c "
            f"({libaddr(rng)} in {lib}/libtorch_cuda.so)",
            f"frame #3: c10d::ProcessGroupNCCL::watchdogHandler() + 0x213 ({libaddr(rng)} in {lib}/libtorch_cuda.so)",
            f"frame #4: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c ({libaddr(rng)} in {lib}/libtorch_cuda.so)",
            f"frame #5: <unknown function> + 0xdc253 ({libaddr(rng)} in /lib/x86_64-linux-gnu/libstdc++.so.6)",
            f"frame #6: <unknown function> + 0x94ac3 ({libaddr(rng)} in /lib/x86_64-linux-gnu/libc.so.6)",
            f"frame #7: <unknown function> + 0x126850 ({libaddr(rng)} in /lib/x86_64-linux-gnu/libc.so.6)",
            ""]
        first, *rest = msg.split("\n")
        logs[0] += [f"{ts} ProcessGroupNCCL.cpp:1515] {first}"] + rest + frames
        logs[0] += ["terminate called after throwing an instance of 'c10::DistBackendError'",
                    f"  what():  {first}"] + rest + frames
    c0.advance(0.9)
    root0 = RankExit(2, 2, pids[2], -6, c0.elastic(), hosts[0])
    others0 = [RankExit(6, 6, pids[6], -6, c0.elastic(), hosts[0]), RankExit(0, 0, pids[0], -6, c0.elastic(), hosts[0])]
    logs[0] += torchrun_child_failed("train.py", root0, others0, site, c0, agents[0], "/usr/bin/python", "2.4",
                                     [pids[r] for r in (1, 3, 4, 5, 7)])
    return new_case(
        "shape-mismatch-rope-multinode-03", "shape-mismatch", "hard",
        "2-node x 8 H100 torchrun: rank 13 (node 1) gets the first 4608-token bucket and the RoPE cache sized for "
        "4096 fails to broadcast; node 0 only shows NCCL IB completion errors, ncclRemoteError and SIGABRT",
        {"node0.log": "\n".join(logs[0]), "node1.log": "\n".join(logs[1])},
        {"gpu_model": "H100 80GB HBM3", "torch_version": "2.4.0", "nccl_version": "2.20.5", "launcher": "torchrun",
         "world_size": "16", "num_nodes": "2"},
        ["rank 13", "4096"], initiating_rank=13)


@synthetic
def shape_labels_hf_l4() -> Case:
    rng = random.Random("shape-04")
    site = "/home/user/venv/lib/python3.10/site-packages"
    clock = Clock(datetime(2024, 4, 9, 11, 20, 5), rng)
    lines = ["$ python train_causal.py --model Qwen/Qwen1.5-0.5B --data data/support_tickets.jsonl --max-len 512 "
             "--bf16 --per-device-batch 8",
             "torch 2.2.1+cu121 | transformers 4.38.2 | device NVIDIA L4 (22.5 GiB)",
             "Special tokens have been added in the vocabulary, make sure the associated word embeddings are "
             "fine-tuned or trained.",
             *hf_training_args("out/qwen-support", {"bf16": "True", "per_device_train_batch_size": "8",
                                                    "learning_rate": "5e-05", "num_train_epochs": "2.0",
                                                    "logging_steps": "25", "report_to": "['wandb']",
                                                    "save_steps": "1000"}, "04/09/2024 11:19:58"),
             "Generating train split: 41210 examples [00:00, 214711.07 examples/s]",
             "Map: 100%|██████████| 41210/41210 [00:09<00:00, 4409.18 examples/s]",
             f"[INFO|trainer.py:1812] {clock.ds()} >> ***** Running training *****",
             f"[INFO|trainer.py:1813] {clock.ds()} >>   Num examples = 41,210",
             f"[INFO|trainer.py:1814] {clock.ds()} >>   Num Epochs = 2",
             f"[INFO|trainer.py:1815] {clock.ds()} >>   Instantaneous batch size per device = 8",
             f"[INFO|trainer.py:1818] {clock.ds()} >>   Total train batch size (w. parallel, distributed & accumulation) = 8",
             f"[INFO|trainer.py:1819] {clock.ds()} >>   Gradient Accumulation steps = 1",
             f"[INFO|trainer.py:1820] {clock.ds()} >>   Total optimization steps = 10,304",
             f"[INFO|trainer.py:1821] {clock.ds()} >>   Number of trainable parameters = 463,987,712",
             "  0%|          | 0/10304 [00:00<?, ?it/s]"]
    site_t = f"{site}/transformers"
    fr = [("/home/user/ft/train_causal.py", 131, "<module>", "trainer.train()"),
          (f"{site_t}/trainer.py", 1624, "train", "return inner_training_loop("),
          (f"{site_t}/trainer.py", 1961, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)"),
          (f"{site_t}/trainer.py", 2902, "training_step", "loss = self.compute_loss(model, inputs)"),
          ("/home/user/ft/train_causal.py", 64, "compute_loss",
           "loss = F.cross_entropy(shift_logits.view(-1, shift_logits.size(-1)), shift_labels, ignore_index=-100)"),
          (f"{site}/torch/nn/functional.py", 3059, "cross_entropy",
           "return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)")]
    lines += traceback(fr, "ValueError: Expected input batch_size (4088) to match target batch_size (8).")
    lines += ["  0%|          | 0/10304 [00:01<?, ?it/s]"]
    return new_case(
        "shape-mismatch-labels-flatten-hf-l4-04", "shape-mismatch", "easy",
        "HF Trainer subclass with a custom causal-LM loss flattens the shifted logits to (8*511, V) but passes "
        "the (8, 511) labels unflattened",
        {"train.log": "\n".join(lines)},
        {"gpu_model": "L4", "torch_version": "2.2.1", "cuda_version": "12.1", "transformers_version": "4.38.2",
         "launcher": "python"},
        ["labels"])


# ---- device-mismatch -----------------------------------------------------------------------------


@synthetic
def device_generate_4090() -> Case:
    rng = random.Random("device-01")
    site = "/home/rbhandari/.local/lib/python3.10/site-packages"
    lines = ["rbhandari@rig:~/chat$ nvidia-smi"]
    lines += nvidia_smi([("GeForce RTX 4090", "00000000:01:00.0", 24564)], "535.86.05", "12.2", rng,
                        when="Sat Aug 19 20:11:07 2023", used_mib=412)
    lines += ["rbhandari@rig:~/chat$ pip freeze | grep -E '^(torch|transformers|accelerate|safetensors)=='",
              "accelerate==0.21.0", "safetensors==0.3.1", "torch==2.0.1+cu118", "transformers==4.31.0"]
    lines += ["rbhandari@rig:~/chat$ python chat_infer.py --model ./mistral-7b-support-merged --prompt-file prompts/faq.txt",
             "torch 2.0.1+cu118 | cuda: True | NVIDIA GeForce RTX 4090 (23.6 GiB)",
             "Loading checkpoint shards: " + "\r".join(
                 f"{p:>3}%|{'█' * (p // 10)}{' ' * (10 - p // 10)}| {n}/3 [00:{t:02d}<00:{max(0, 7 - t):02d}, "
                 f"{rng.uniform(2.1, 2.6):.2f}s/it]" for p, n, t in ((0, 0, 0), (33, 1, 2), (67, 2, 5), (100, 3, 7))),
             "model on cuda:0, dtype torch.float16",
             "prompt 1/24: 'How do I reset the router to factory settings?'",
             f"{site}/transformers/generation/utils.py:1473: UserWarning: You are calling .generate() with the "
             "`input_ids` being on a device type different than your model's device. `input_ids` is on cpu, whereas "
             "the model is on cuda. You may experience unexpected behaviors or slower generation. Please make sure "
             "that you have put `input_ids` to the correct device by calling for example input_ids = "
             "input_ids.to('cuda') before running `.generate()`.",
             "  warnings.warn("]
    t = f"{site}/transformers"
    fr = [("/home/rbhandari/chat/chat_infer.py", 48, "<module>", "out = model.generate(**inputs, max_new_tokens=256, do_sample=False)"),
          (f"{site}/torch/utils/_contextlib.py", 115, "decorate_context", "return func(*args, **kwargs)"),
          (f"{t}/generation/utils.py", 1538, "generate", "return self.greedy_search("),
          (f"{t}/generation/utils.py", 2362, "greedy_search", "outputs = self(")]
    fr += module_frames(site, "2.0")
    fr += [(f"{t}/models/mistral/modeling_mistral.py", 1009, "forward", "outputs = self.model(")]
    fr += module_frames(site, "2.0")
    fr += [(f"{t}/models/mistral/modeling_mistral.py", 838, "forward", "inputs_embeds = self.embed_tokens(input_ids)")]
    fr += module_frames(site, "2.0")
    fr += [(f"{site}/torch/nn/modules/sparse.py", 162, "forward", "return F.embedding("),
           (f"{site}/torch/nn/functional.py", 2210, "embedding",
            "return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)")]
    lines += traceback(fr, "RuntimeError: Expected all tensors to be on the same device, but found at least two "
                           "devices, cuda:0 and cpu! (when checking argument for argument index in method "
                           "wrapper_CUDA__index_select)")
    return new_case(
        "device-mismatch-generate-4090-01", "device-mismatch", "easy",
        "Local inference on an RTX 4090: model moved to cuda, tokenizer output left on CPU, generate() fails in "
        "the embedding lookup",
        {"infer.log": "\n".join(lines)},
        {"gpu_model": "GeForce RTX 4090", "torch_version": "2.0.1", "cuda_version": "11.8", "launcher": "python"},
        ["input_ids", "device"], secrets=["rbhandari"])


@synthetic
def device_alibi_attr_torchrun() -> Case:
    rng = random.Random("device-02")
    site = "/opt/conda/lib/python3.10/site-packages"
    clock = Clock(datetime(2024, 3, 27, 8, 55, 31), rng)
    agent = 120377
    host = "l40s-box-2"
    lines = ["+ torchrun --standalone --nproc_per_node=4 pretrain_alibi.py --config cfg/bloomish-560m.yaml"]
    lines += torchrun_header(clock, agent, "2.2")
    clock.advance(4.8)
    pids = [agent + 12 + r for r in range(4)]
    lines += ["[pretrain] torch 2.2.0+cu121 | 4 x NVIDIA L40S | world_size 4",
              "[pretrain] model: 24 layers, d_model 1024, 16 heads, ALiBi positions (no learned pos emb), "
              "max_len 2048",
              "[pretrain] params: 559,214,592"]
    for r in range(4):
        lines += nccl_init(host, pids[r], r, 4, r, "2.19.3", "12.1", rng, iface="eno1", ip="10.1.8.22",
                           via="SHM/direct/direct")
    lines += ["[pretrain] train tokens: 31.4B | micro batch 8 | grad accum 8 | steps 120000",
              "[pretrain] moved model to cuda, wrapped in DDP(device_ids=[local_rank])"]
    clock.advance(3.6)
    streams = []
    for r in range(4):
        fr = [("/srv/lm/pretrain_alibi.py", 297, "<module>", "main()"),
              ("/srv/lm/pretrain_alibi.py", 244, "main", "loss = model(x, labels=y)")]
        fr += module_frames(site, "2.2")
        fr += [(f"{site}/torch/nn/parallel/distributed.py", 1523, "forward", "else self._run_ddp_forward(*inputs, **kwargs)"),
               (f"{site}/torch/nn/parallel/distributed.py", 1359, "_run_ddp_forward", "return self.module(*inputs, **kwargs)  # type: ignore[index]")]
        fr += module_frames(site, "2.2")
        fr += [("/srv/lm/model.py", 214, "forward", "x = blk(x)")]
        fr += module_frames(site, "2.2")
        fr += [("/srv/lm/model.py", 152, "forward", "x = x + self.attn(self.ln1(x))")]
        fr += module_frames(site, "2.2")
        fr += [("/srv/lm/model.py", 97, "forward", "att = att + self.alibi[:, :, :T, :T]")]
        streams.append(traceback(fr, f"RuntimeError: Expected all tensors to be on the same device, but found at "
                                     f"least two devices, cuda:{r} and cpu!"))
    lines += interleave(rng, streams, (1, 3))
    clock.advance(2.0)
    root = RankExit(0, 0, pids[0], 1, clock.elastic(), host)
    others = [RankExit(2, 2, pids[2], 1, clock.elastic(), host)]
    lines += torchrun_child_failed("pretrain_alibi.py", root, others, site, clock, agent, "/opt/conda/bin/python",
                                   "2.2", [pids[1], pids[3]])
    return new_case(
        "device-mismatch-alibi-attr-torchrun-02", "device-mismatch", "medium",
        "4x L40S torchrun: the ALiBi bias tensor is a plain module attribute, so model.to(device) leaves it on "
        "CPU; every rank fails in attention, tracebacks interleave, ChildFailedError at the end",
        {"train.log": "\n".join(lines)},
        {"gpu_model": "L40S", "torch_version": "2.2.0", "cuda_version": "12.1", "nccl_version": "2.19.3",
         "launcher": "torchrun", "world_size": "4"},
        ["register_buffer", "alibi"], initiating_rank=[0, 1, 2, 3])


def ds_engine_config(clock: Clock, items: list[tuple[str, str]]) -> list[str]:
    out = [f"[{clock.ds()}] [INFO] [config.py:984:print] DeepSpeedEngine configuration:"]
    for k, v in items:
        out.append(f"[{clock.ds()}] [INFO] [config.py:988:print]   {k} {'.' * max(3, 29 - len(k))} {v}")
    return out


@synthetic
def device_metric_cpu_deepspeed_hard() -> Case:
    rng = random.Random("device-03")
    site = "/usr/local/lib/python3.10/dist-packages"
    akid, asec = aws_key_id(rng), aws_secret(rng)
    clock = Clock(datetime(2024, 7, 11, 19, 2, 44), rng)
    py = "/usr/bin/python3"
    args = ["train.py", "--deepspeed", "configs/ds_zero2_bf16.json", "--model", "configs/encoder_base.yaml",
            "--eval-every", "1000"]
    lines = ["+ env | grep -E '^(AWS|S3|DATA|WANDB)_' ",
             f"AWS_ACCESS_KEY_ID={akid}", f"AWS_SECRET_ACCESS_KEY={asec}", "AWS_DEFAULT_REGION=us-west-2",
             "DATA_ROOT=s3://acme-ml-datasets/ranking/v5", "WANDB_MODE=offline",
             "+ deepspeed --num_gpus 8 " + " ".join(args)]
    base = 7714
    lines += deepspeed_launcher_header(clock, 8, args, py, "2.20.5", base)
    clock.advance(6.1)
    lines += [f"[{clock.ds()}] [INFO] [comm.py:637:init_distributed] cdb=None",
              f"[{clock.ds()}] [INFO] [comm.py:668:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl",
              f"[{clock.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.14.4, git-hash=unknown, "
              "git-branch=unknown",
              f"[{clock.ds()}] [INFO] [engine.py:1307:_configure_distributed_model] ********** distributed groups summary **********",
              f"[{clock.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] Using DeepSpeed Optimizer param name adamw as basic optimizer",
              f"[{clock.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Basic Optimizer = FusedAdam",
              f"[{clock.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] Creating torch.bfloat16 ZeRO stage 2 optimizer",
              f"[{clock.ds()}] [INFO] [stage_1_and_2.py:148:__init__] Reduce bucket size 500000000",
              f"[{clock.ds()}] [INFO] [stage_1_and_2.py:149:__init__] Allgather bucket size 500000000",
              f"[{clock.ds()}] [INFO] [stage_1_and_2.py:150:__init__] CPU Offload: False",
              f"[{clock.ds()}] [INFO] [stage_1_and_2.py:151:__init__] Round robin gradient partitioning: False",
              f"[{clock.ds()}] [INFO] [utils.py:781:see_memory_usage] Before initializing optimizer states",
              f"[{clock.ds()}] [INFO] [utils.py:782:see_memory_usage] MA 0.83 GB         Max_MA 0.92 GB         "
              "CA 0.93 GB         Max_CA 1 GB ",
              f"[{clock.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Final Optimizer = FusedAdam",
              f"[{clock.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed using configured LR scheduler = WarmupDecayLR"]
    lines += ds_engine_config(clock, [("activation_checkpointing_config", '{"partition_activations": false, ...}'),
                                      ("bfloat16_enabled", "True"), ("fp16_enabled", "False"),
                                      ("gradient_accumulation_steps", "2"), ("gradient_clipping", "1.0"),
                                      ("optimizer_name", "adamw"),
                                      ("optimizer_params", "{'lr': 0.0001, 'betas': [0.9, 0.999], 'weight_decay': 0.01}"),
                                      ("steps_per_print", "100"), ("train_batch_size", "1024"),
                                      ("train_micro_batch_size_per_gpu", "64"), ("world_size", "8"),
                                      ("zero_enabled", "True"), ("zero_optimization_stage", "2")])
    lines += [f"[{clock.ds()}] [INFO] [config.py:974:print_user_config]   json = {{",
              '    "train_batch_size": 1024, ', '    "train_micro_batch_size_per_gpu": 64, ',
              '    "gradient_accumulation_steps": 2, ', '    "bf16": {', '        "enabled": true', "    }, ",
              '    "zero_optimization": {', '        "stage": 2, ', '        "overlap_comm": true', "    }, ",
              '    "gradient_clipping": 1.0, ', '    "steps_per_print": 100', "}",
              "[train] 8 x NVIDIA H100 80GB HBM3 | torch 2.3.1+cu121 | deepspeed 0.14.4"]
    for step in range(100, 1001, 100):
        clock.advance(rng.uniform(41, 44))
        lines.append(f"[{clock.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] step={step}, skipped=0, "
                     f"lr=[{min(1e-4, 1e-4 * step / 500):.6e}], mom=[(0.9, 0.999)]")
        lines.append(f"[{clock.ds()}] [INFO] [timer.py:259:stop] epoch=0/micro_step={2 * step}/global_step={step}, "
                     f"RunningAvgSamplesPerSec={rng.uniform(2410, 2480):.4f}, CurrSamplesPerSec="
                     f"{rng.uniform(2380, 2500):.4f}, MemAllocated=11.2GB, MaxMemAllocated=38.71GB")
        lines.append(f"[train] step {step} loss {rng.uniform(0.31, 0.45):.4f}")
    lines.append("[train] step 1000: evaluating on 64,000 pairs")
    clock.advance(19.3)
    for r in (0, 3, 5, 1, 6, 2, 7, 4):
        fr = [("/workspace/ranker/train.py", 318, "<module>", "main()"),
              ("/workspace/ranker/train.py", 287, "main", "metrics = evaluate(engine, eval_loader)"),
              (f"{site}/torch/utils/_contextlib.py", 115, "decorate_context", "return func(*args, **kwargs)"),
              ("/workspace/ranker/train.py", 233, "evaluate", "dist.all_reduce(stats, op=dist.ReduceOp.SUM)"),
              (f"{site}/deepspeed/comm/comm.py", 117, "log_wrapper", "return func(*args, **kwargs)"),
              (f"{site}/deepspeed/comm/comm.py", 496, "all_reduce", "return cdb.all_reduce(tensor, op, group, async_op)"),
              (f"{site}/deepspeed/comm/torch.py", 159, "all_reduce",
               "return torch.distributed.all_reduce(tensor=tensor, op=op, group=group, async_op=async_op)"),
              (f"{site}/torch/distributed/c10d_logger.py", 75, "wrapper", "return func(*args, **kwargs)"),
              (f"{site}/torch/distributed/distributed_c10d.py", 2219, "all_reduce", "work = group.allreduce([tensor], opts)")]
        lines += traceback(fr, "RuntimeError: No backend type associated with device type cpu", f"[rank{r}]: ")
    lines += deepspeed_kill(clock, 8, base, 0, py, args)
    return new_case(
        "device-mismatch-metric-cpu-deepspeed-03", "device-mismatch", "hard",
        "8x H100 DeepSpeed ZeRO-2 job trains 1000 steps, then the evaluation all_reduces a metrics tensor built "
        "on CPU over the NCCL group: 'No backend type associated with device type cpu' on every rank",
        {"train.log": "\n".join(lines)},
        {"gpu_model": "H100 80GB HBM3", "torch_version": "2.3.1", "deepspeed_version": "0.14.4",
         "nccl_version": "2.20.5", "launcher": "deepspeed", "world_size": "8", "zero_stage": "2",
         "precision": "bf16", "failure_step": "1000"},
        ["CPU", "NCCL"], initiating_rank=list(range(8)), secrets=[akid, asec])


@synthetic
def device_conv_cpu_input_v100() -> Case:
    rng = random.Random("device-04")
    site = "/opt/conda/lib/python3.8/site-packages"
    lines = ["+ nvidia-smi"]
    lines += nvidia_smi([("Tesla V100-SXM2-16GB", "00000000:00:1E.0", 16384)], "510.47.03", "11.6", rng,
                        when="Wed Jan 18 15:40:12 2023", new_style=False)
    lines += ["+ python segment_tiles.py --weights /models/deeplabv3_roads_e41.pth --tiles /data/tiles/2023-01-16 "
              "--out /data/masks/2023-01-16",
              "torch 1.13.1+cu116, torchvision 0.14.1+cu116, cuda: True (Tesla V100-SXM2-16GB)",
              "loading deeplabv3_resnet101 with 3 classes from /models/deeplabv3_roads_e41.pth",
              "model.cuda() done, eval mode",
              "found 3,914 tiles (1024x1024 RGB)",
              "tile 0000: /data/tiles/2023-01-16/x0173_y0412.png"]
    fr = [("/srv/roads/segment_tiles.py", 88, "<module>", "main(parse_args())"),
          ("/srv/roads/segment_tiles.py", 71, "main", "mask = predict_tile(model, img)"),
          (f"{site}/torch/autograd/grad_mode.py", 27, "decorate_context", "return func(*args, **kwargs)"),
          ("/srv/roads/segment_tiles.py", 39, "predict_tile", "out = model(x)[\"out\"]")]
    fr += module_frames(site, "1.13")
    fr += [(f"{site}/torchvision/models/segmentation/_utils.py", 23, "forward", "features = self.backbone(x)")]
    fr += module_frames(site, "1.13")
    fr += [(f"{site}/torchvision/models/_utils.py", 69, "forward", "x = module(x)")]
    fr += module_frames(site, "1.13")
    fr += [(f"{site}/torch/nn/modules/conv.py", 463, "forward", "return self._conv_forward(input, self.weight, self.bias)"),
           (f"{site}/torch/nn/modules/conv.py", 459, "_conv_forward", "return F.conv2d(input, weight, bias, self.stride,")]
    lines += traceback(fr, "RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) "
                           "should be the same or input should be a MKLDNN tensor and weight is a dense tensor")
    return new_case(
        "device-mismatch-conv-cpu-input-v100-04", "device-mismatch", "easy",
        "Road segmentation inference on a V100: the model is on cuda but each tile tensor stays on CPU; the conv "
        "reports 'Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor)'",
        {"segment.log": "\n".join(lines)},
        {"gpu_model": "Tesla V100-SXM2-16GB", "driver_version": "510.47.03", "torch_version": "1.13.1",
         "cuda_version": "11.6", "launcher": "python"},
        ["cuda", "device"])


# ---- checkpoint-key-mismatch ---------------------------------------------------------------------


def gpt_keys(n_layers: int, prefix: str = "", names: dict[str, str] | None = None) -> list[str]:
    n = {"qkv": "attn.qkv", "proj": "attn.proj", "fc1": "mlp.fc1", "fc2": "mlp.fc2"}
    n.update(names or {})
    keys = [f"{prefix}tok_emb.weight", f"{prefix}pos_emb.weight"]
    for i in range(n_layers):
        b = f"{prefix}blocks.{i}."
        keys += [b + "ln1.weight", b + "ln1.bias", b + n["qkv"] + ".weight", b + n["qkv"] + ".bias",
                 b + n["proj"] + ".weight", b + n["proj"] + ".bias", b + "ln2.weight", b + "ln2.bias",
                 b + n["fc1"] + ".weight", b + n["fc1"] + ".bias", b + n["fc2"] + ".weight", b + n["fc2"] + ".bias"]
    keys += [f"{prefix}ln_f.weight", f"{prefix}ln_f.bias", f"{prefix}head.weight"]
    return keys


def key_error(model_cls: str, missing: list[str], unexpected: list[str]) -> str:
    parts = [f"RuntimeError: Error(s) in loading state_dict for {model_cls}:"]
    if missing:
        parts.append("\tMissing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
    if unexpected:
        parts.append("\tUnexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
    return "\n".join(parts)


@synthetic
def key_orig_mod_torchrun() -> Case:
    rng = random.Random("key-02")
    site = "/home/lab/miniconda3/envs/pt22/lib/python3.11/site-packages"
    clock = Clock(datetime(2024, 5, 2, 10, 11, 7), rng)
    agent = 33120
    host = "a6000-ws"
    pids = [agent + 9 + r for r in range(4)]
    lines = ["(pt22) lab@a6000-ws:~/gpt-small$ torchrun --standalone --nproc_per_node=4 train.py --config "
             "configs/gpt_124m_owt.py --resume ckpts/gpt_124m_owt/ckpt_012000.pt --compile"]
    lines += torchrun_header(clock, agent, "2.2")
    clock.advance(3.3)
    lines += ["[train] torch 2.2.1+cu121 | 4 x NVIDIA RTX A6000 | world_size 4 | dtype bfloat16",
              "[train] resume: loading ckpts/gpt_124m_owt/ckpt_012000.pt (model, optimizer, iter_num=12000, "
              "best_val_loss=3.0411)"]
    for r in range(4):
        lines += nccl_init(host, pids[r], r, 4, r, "2.19.3", "12.1", rng, iface="enp65s0", ip="192.168.10.5",
                           via="P2P/CUMEM/read" if r % 2 == 0 else "SHM/direct/direct")
    missing = gpt_keys(12)
    unexpected = gpt_keys(12, "_orig_mod.")
    err = key_error("GPT", missing, unexpected)
    streams = []
    for r in range(4):
        fr = [("/home/lab/gpt-small/train.py", 318, "<module>", "model, optimizer, iter_num = setup(cfg)"),
              ("/home/lab/gpt-small/train.py", 141, "setup", "model.load_state_dict(ckpt[\"model\"])"),
              (f"{site}/torch/nn/modules/module.py", 2153, "load_state_dict",
               "raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(")]
        streams.append(traceback(fr, err))
    lines += interleave(rng, streams, (1, 2))
    clock.advance(1.4)
    root = RankExit(0, 0, pids[0], 1, clock.elastic(), host)
    others = [RankExit(1, 1, pids[1], 1, clock.elastic(), host), RankExit(2, 2, pids[2], 1, clock.elastic(), host)]
    lines += torchrun_child_failed("train.py", root, others, site, clock, agent,
                                   "/home/lab/miniconda3/envs/pt22/bin/python", "2.2", [pids[3]])
    return new_case(
        "checkpoint-key-mismatch-orig-mod-torchrun-02", "checkpoint-key-mismatch", "medium",
        "4x RTX A6000 torchrun resume: the checkpoint was saved from a torch.compile'd model, so every key has an "
        "'_orig_mod.' prefix; all ranks fail in load_state_dict before compiling, ChildFailedError at the end",
        {"train.log": "\n".join(lines)},
        {"gpu_model": "RTX A6000", "gpu_count": "4", "torch_version": "2.2.1", "nccl_version": "2.19.3",
         "launcher": "torchrun", "world_size": "4", "precision": "bf16"},
        ["_orig_mod", "torch.compile"], initiating_rank=[0, 1, 2, 3])


@synthetic
def key_renamed_srun_rank0_hard() -> Case:
    rng = random.Random("key-03")
    site = "/opt/venv/lib/python3.10/site-packages"
    pw = _rand(rng, ALNUM, 16)
    clock = Clock(datetime(2024, 6, 18, 23, 40, 2), rng)
    host = "hgx-h100-04"
    lines = [f"[{clock.ds()}] job 551902 on {host}: 8 tasks, torch 2.3.0+cu121",
             "+ srun -l --ntasks=8 --gpus-per-task=1 python -u finetune.py --config cfg/sft_3b.yaml"]
    pids = {r: 190400 + r * 3 for r in range(8)}
    lines.append(f"0: [{clock.ds()}] config:")
    for k, v in [("model.arch", "gpt3b-v2"), ("model.init_from", "/lustre/ckpt/pretrain-3b/final/model.pt"),
                 ("data.train", "/lustre/data/sft/mix_v7.jsonl"), ("data.cache_url", f"redis://:{pw}@10.3.0.15:6379/2"),
                 ("train.micro_batch", "4"), ("train.lr", "1.0e-05"), ("train.precision", "bf16")]:
        lines.append(f"0: [{clock.ds()}]   {k}: {v}")
    for r in range(8):
        lines += prefixed(nccl_init(host, pids[r], r, 8, r, "2.20.5", "12.1", rng, iface="eth0", ip="10.3.4.4"),
                          f"{r}: ")
    lines.append(f"0: [{clock.ds()}] building gpt3b-v2 (32 layers); rank 0 loads init weights and broadcasts")
    clock.advance(14.8)
    missing = gpt_keys(32, names={"qkv": "attn.qkv_proj", "proj": "attn.out_proj", "fc1": "mlp.up_proj",
                                  "fc2": "mlp.down_proj"})
    unexpected = gpt_keys(32, names={"qkv": "attn.c_attn", "proj": "attn.c_proj", "fc1": "mlp.c_fc",
                                     "fc2": "mlp.c_proj"})
    missing = [k for k in missing if k not in unexpected]
    unexpected = [k for k in unexpected if k not in gpt_keys(32, names={"qkv": "attn.qkv_proj", "proj": "attn.out_proj",
                                                                        "fc1": "mlp.up_proj", "fc2": "mlp.down_proj"})]
    fr = [("/lustre/code/sft/finetune.py", 402, "<module>", "main(cfg)"),
          ("/lustre/code/sft/finetune.py", 188, "main", "load_init_weights(model, cfg.model.init_from)"),
          ("/lustre/code/sft/finetune.py", 97, "load_init_weights", "model.load_state_dict(state, strict=True)"),
          (f"{site}/torch/nn/modules/module.py", 2189, "load_state_dict",
           "raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(")]
    lines += prefixed(traceback(fr, key_error("GPT", missing, unexpected)), "0: ")
    clock.advance(1.6)
    lines.append("srun: error: hgx-h100-04: task 0: Exited with exit code 1")
    clock.advance(1800.0)
    order = [3, 1, 6, 2, 7, 5, 4]
    for r in order:
        block = watchdog_abort(rng, clock, r, 2, "BROADCAST", 1, 1800000, "2.4", site, pids[r])
        t = clock.t
        block.insert(1, f"[rank{r}]:[E{t.month * 100 + t.day} {t.strftime('%H:%M:%S')}.{t.microsecond:06d}"
                        f"{rng.randint(100, 999)} ProcessGroupNCCL.cpp:1316] [PG 0 Rank {r}] Failed to check the "
                        "\"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with "
                        "error: Connection reset by peer")
        lines += prefixed(block, f"{r}: ")
    lines += ["srun: error: hgx-h100-04: tasks 1-7: Aborted (core dumped)"]
    return new_case(
        "checkpoint-key-mismatch-renamed-srun-03", "checkpoint-key-mismatch", "hard",
        "Slurm srun -l, 8 tasks on one H100 node: only rank 0 loads the init checkpoint, whose module names predate "
        "a refactor (c_attn/c_proj vs qkv_proj/out_proj); rank 0 exits, the other 7 sit in the broadcast until "
        "the 30-minute watchdog and abort",
        {"slurm-551902.out": "\n".join(lines)},
        {"torch_version": "2.3.0", "nccl_version": "2.20.5", "launcher": "srun", "world_size": "8",
         "precision": "bf16"},
        ["rank 0", "key"], initiating_rank=0, secrets=[pw])


@synthetic
def key_lightning_container_a10g() -> Case:
    rng = random.Random("key-04")
    site = "/usr/local/lib/python3.10/dist-packages"
    lines = ["root@5d1c7e0a93b2:/workspace/defects# nvidia-smi"]
    lines += nvidia_smi([("A10G", "00000000:00:1E.0", 23028)], "525.105.17", "12.0", rng,
                        when="Fri Oct 13 10:02:44 2023")
    lines += ["root@5d1c7e0a93b2:/workspace/defects# pip list 2>/dev/null | grep -i -E 'torch|lightning|onnx|timm'"]
    lines += pip_list([("lightning", "2.0.9"), ("lightning-utilities", "0.9.0"), ("onnx", "1.14.1"),
                       ("onnxruntime-gpu", "1.16.0"), ("pytorch-lightning", "2.0.9"), ("timm", "0.9.7"),
                       ("torch", "2.0.1+cu117"), ("torchmetrics", "1.2.0"), ("torchvision", "0.15.2+cu117")])[2:]
    lines += ["root@5d1c7e0a93b2:/workspace/defects# ls -la lightning_logs/version_3/checkpoints/",
              "total 131264",
              "drwxr-xr-x 2 root root      4096 Oct 12 23:18 .",
              "drwxr-xr-x 3 root root      4096 Oct 12 19:02 ..",
              "-rw-r--r-- 1 root root 134405327 Oct 12 23:18 'epoch=11-step=4500.ckpt'"]
    lines += ["root@5d1c7e0a93b2:/workspace/defects# python export_onnx.py --ckpt "
             "'lightning_logs/version_3/checkpoints/epoch=11-step=4500.ckpt' --out models/defects_r18.onnx",
             "torch 2.0.1+cu117, torchvision 0.15.2+cu117, lightning 2.0.9, device cuda (NVIDIA A10G)",
             "building torchvision resnet18 with 6 classes",
             "loading lightning_logs/version_3/checkpoints/epoch=11-step=4500.ckpt"]
    rn = ["conv1.weight", "bn1.weight", "bn1.bias", "bn1.running_mean", "bn1.running_var"]
    for layer, blocks in (("layer1", 2), ("layer2", 2), ("layer3", 2), ("layer4", 2)):
        for b in range(blocks):
            p = f"{layer}.{b}."
            rn += [p + "conv1.weight", p + "bn1.weight", p + "bn1.bias", p + "bn1.running_mean", p + "bn1.running_var",
                   p + "conv2.weight", p + "bn2.weight", p + "bn2.bias", p + "bn2.running_mean", p + "bn2.running_var"]
            if b == 0 and layer != "layer1":
                rn += [p + "downsample.0.weight", p + "downsample.1.weight", p + "downsample.1.bias",
                       p + "downsample.1.running_mean", p + "downsample.1.running_var"]
    rn += ["fc.weight", "fc.bias"]
    unexpected = ["epoch", "global_step", "pytorch-lightning_version", "state_dict", "loops", "callbacks",
                  "optimizer_states", "lr_schedulers", "hparams_name", "hyper_parameters"]
    fr = [("/workspace/defects/export_onnx.py", 44, "<module>", "main()"),
          ("/workspace/defects/export_onnx.py", 29, "main", "model.load_state_dict(ckpt)"),
          (f"{site}/torch/nn/modules/module.py", 2041, "load_state_dict",
           "raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(")]
    lines += traceback(fr, key_error("ResNet", rn, unexpected))
    return new_case(
        "checkpoint-key-mismatch-lightning-container-04", "checkpoint-key-mismatch", "easy",
        "Export script passes a whole Lightning .ckpt dict (epoch, state_dict, optimizer_states...) to a "
        "torchvision ResNet's load_state_dict",
        {"export.log": "\n".join(lines)},
        {"gpu_model": "A10G", "torch_version": "2.0.1", "cuda_version": "11.7", "launcher": "python"},
        ["state_dict"])


def hf_training_args(output_dir: str, extra: dict[str, str], ts: str, version: str = "4.38") -> list[str]:
    """The 'Training/evaluation parameters TrainingArguments(...)' block HF example scripts log at start-up."""
    fields = {
        "_n_gpu": "1", "adafactor": "False", "adam_beta1": "0.9", "adam_beta2": "0.999", "adam_epsilon": "1e-08",
        "auto_find_batch_size": "False", "bf16": "False", "bf16_full_eval": "False", "data_seed": "None",
        "dataloader_drop_last": "False", "dataloader_num_workers": "0", "dataloader_pin_memory": "True",
        "ddp_backend": "None", "ddp_find_unused_parameters": "None", "ddp_timeout": "1800", "debug": "[]",
        "deepspeed": "None", "disable_tqdm": "False", "do_eval": "True", "do_predict": "False", "do_train": "True",
        "eval_accumulation_steps": "None", "eval_steps": "500", "evaluation_strategy": "steps", "fp16": "False",
        "gradient_accumulation_steps": "1", "gradient_checkpointing": "False", "greater_is_better": "None",
        "group_by_length": "False", "hub_model_id": "None", "hub_strategy": "every_save", "ignore_data_skip": "False",
        "label_names": "None", "label_smoothing_factor": "0.0", "learning_rate": "2e-05", "length_column_name": "length",
        "load_best_model_at_end": "False", "local_rank": "0", "log_level": "passive", "logging_dir":
        f"{output_dir}/runs", "logging_first_step": "False", "logging_steps": "50", "logging_strategy": "steps",
        "lr_scheduler_type": "linear", "max_grad_norm": "1.0", "max_steps": "-1", "metric_for_best_model": "None",
        "num_train_epochs": "3.0", "optim": "adamw_torch", "output_dir": output_dir, "overwrite_output_dir": "False",
        "per_device_eval_batch_size": "8", "per_device_train_batch_size": "8", "push_to_hub": "False",
        "remove_unused_columns": "True", "report_to": "['tensorboard']", "resume_from_checkpoint": "None",
        "run_name": output_dir, "save_on_each_node": "False", "save_safetensors": "True", "save_steps": "500",
        "save_strategy": "steps", "save_total_limit": "None", "seed": "42", "tf32": "None", "torch_compile": "False",
        "warmup_ratio": "0.0", "warmup_steps": "0", "weight_decay": "0.0",
    }
    fields.update(extra)
    out = [f"{ts} - INFO - __main__ - Training/evaluation parameters TrainingArguments("]
    out += [f"{k}={v}," for k, v in sorted(fields.items())]
    out.append(")")
    _ = version
    return out


# ---- checkpoint-size-mismatch --------------------------------------------------------------------


@synthetic
def size_num_labels_hf_v100() -> Case:
    rng = random.Random("size-01")
    site = "/opt/conda/lib/python3.9/site-packages"
    lines = ["+ python run_glue_multiclass.py --model_name_or_path ./outputs/sst2-bert-base/checkpoint-4000 "
             "--train_file data/intents_train.csv --validation_file data/intents_dev.csv --num_labels 5 "
             "--do_train --do_eval --output_dir outputs/intents-from-sst2",
             "04/27/2023 09:12:40 - WARNING - __main__ - Process rank: -1, device: cuda:0, n_gpu: 1distributed "
             "training: False, 16-bits training: False"]
    lines += hf_training_args("outputs/intents-from-sst2", {}, "04/27/2023 09:12:40")
    lines += ["04/27/2023 09:12:41 - INFO - __main__ - torch 1.13.1+cu117 | transformers 4.28.1 | "
              "Tesla V100-PCIE-32GB",
              "Using custom data configuration default-3c1f0b7de2a44a59",
              "Found cached dataset csv (/root/.cache/huggingface/datasets/csv/default-3c1f0b7de2a44a59/0.0.0/"
              "6954658bab30a358235fa864b05cf819af0e179325c740e4bc853bcc7ec513e1)",
              "100%|██████████| 2/2 [00:00<00:00, 611.33it/s]",
              "[INFO|configuration_utils.py:666] 2023-04-27 09:12:41,228 >> loading configuration file "
              "./outputs/sst2-bert-base/checkpoint-4000/config.json",
              "[INFO|configuration_utils.py:720] 2023-04-27 09:12:41,229 >> Model config BertConfig {",
              '  "_name_or_path": "./outputs/sst2-bert-base/checkpoint-4000",', '  "architectures": [',
              '    "BertForSequenceClassification"', "  ],", '  "attention_probs_dropout_prob": 0.1,',
              '  "finetuning_task": "text-classification",', '  "hidden_size": 768,', '  "id2label": {',
              '    "0": "LABEL_0",', '    "1": "LABEL_1",', '    "2": "LABEL_2",', '    "3": "LABEL_3",',
              '    "4": "LABEL_4"', "  },", '  "num_attention_heads": 12,', '  "num_hidden_layers": 12,',
              '  "problem_type": "single_label_classification",', '  "torch_dtype": "float32",',
              '  "transformers_version": "4.28.1",', '  "vocab_size": 30522', "}", "",
              "[INFO|modeling_utils.py:2531] 2023-04-27 09:12:41,402 >> loading weights file "
              "./outputs/sst2-bert-base/checkpoint-4000/pytorch_model.bin"]
    t = f"{site}/transformers"
    fr = [("/workspace/glue/run_glue_multiclass.py", 622, "<module>", "main()"),
          ("/workspace/glue/run_glue_multiclass.py", 366, "main", "model = AutoModelForSequenceClassification.from_pretrained("),
          (f"{t}/models/auto/auto_factory.py", 471, "from_pretrained", "return model_class.from_pretrained("),
          (f"{t}/modeling_utils.py", 2795, "from_pretrained", ") = cls._load_pretrained_model("),
          (f"{t}/modeling_utils.py", 3123, "_load_pretrained_model",
           'raise RuntimeError(f"Error(s) in loading state_dict for {model.__class__.__name__}:\\n\\t{error_msg}")')]
    lines += traceback(fr, "RuntimeError: Error(s) in loading state_dict for BertForSequenceClassification:\n"
                           "\tsize mismatch for classifier.weight: copying a param with shape torch.Size([2, 768]) "
                           "from checkpoint, the shape in current model is torch.Size([5, 768]).\n"
                           "\tsize mismatch for classifier.bias: copying a param with shape torch.Size([2]) from "
                           "checkpoint, the shape in current model is torch.Size([5]).\n"
                           "\tYou may consider adding `ignore_mismatched_sizes=True` in the model `from_pretrained` method.")
    return new_case(
        "checkpoint-size-mismatch-num-labels-hf-v100-01", "checkpoint-size-mismatch", "easy",
        "Fine-tuning a 5-class intent classifier from a 2-label SST-2 BERT checkpoint on a V100 without "
        "ignore_mismatched_sizes; the classifier head shapes differ",
        {"train.log": "\n".join(lines)},
        {"gpu_model": "Tesla V100-PCIE-32GB", "torch_version": "1.13.1", "cuda_version": "11.7",
         "transformers_version": "4.28.1", "launcher": "python"},
        ["ignore_mismatched_sizes", "num_labels"])


@synthetic
def size_vocab_peft_a10g() -> Case:
    rng = random.Random("size-02")
    site = "/home/ec2-user/venv/lib/python3.10/site-packages"
    tok = hf_token(rng)
    lines = ["$ python merge_and_eval.py --base meta-llama/Llama-2-7b-hf --adapter out/llama2-7b-chatml-lora "
             "--eval data/chatml_eval.jsonl",
             "torch 2.1.1+cu121 | transformers 4.36.2 | peft 0.7.1 | device NVIDIA A10G",
             "DEBUG:urllib3.connectionpool:Starting new HTTPS connection (1): huggingface.co:443",
             "send: b'HEAD /meta-llama/Llama-2-7b-hf/resolve/main/config.json HTTP/1.1\\r\\nHost: huggingface.co\\r\\n"
             "user-agent: unknown/None; hf_hub/0.20.1; python/3.10.12; torch/2.1.1; transformers/4.36.2; "
             f"session_id/6b0c1f0e2d3a4b5c8e9f7a6d5c4b3a21\\r\\nAccept-Encoding: identity\\r\\nAccept: */*\\r\\n"
             f"Connection: keep-alive\\r\\nauthorization: Bearer {tok}\\r\\n\\r\\n'",
             "reply: 'HTTP/1.1 200 OK\\r\\n'",
             "DEBUG:urllib3.connectionpool:https://huggingface.co:443 \"HEAD /meta-llama/Llama-2-7b-hf/resolve/main/"
             "config.json HTTP/1.1\" 200 0",
             "tokenizer: loaded from out/llama2-7b-chatml-lora (32001 tokens: added '<|pad|>'; chat template chatml)",
             "tokenizer_config.json: 100%|██████████| 776/776 [00:00<00:00, 3.41MB/s]",
             "config.json: 100%|██████████| 609/609 [00:00<00:00, 2.97MB/s]",
             "model.safetensors.index.json: 100%|██████████| 26.8k/26.8k [00:00<00:00, 61.9MB/s]",
             "Loading checkpoint shards: " + "\r".join(
                 f"{p:>3}%|{'█' * (p // 10)}{' ' * (10 - p // 10)}| {n}/2 [00:{t:02d}<00:{max(0, 14 - t):02d}, "
                 f"{rng.uniform(6.4, 7.3):.2f}s/it]" for p, n, t in ((0, 0, 0), (50, 1, 7), (100, 2, 14))),
             "base model: LlamaForCausalLM, vocab 32000, dtype torch.float16",
             "adapter config: r=16, lora_alpha=32, target_modules=['q_proj','k_proj','v_proj','o_proj'], "
             "modules_to_save=['embed_tokens', 'lm_head']"]
    fr = [("/home/ec2-user/ft/merge_and_eval.py", 57, "<module>", "model = PeftModel.from_pretrained(base, args.adapter)"),
          (f"{site}/peft/peft_model.py", 354, "from_pretrained", "model.load_adapter(model_id, adapter_name, is_trainable=is_trainable, **kwargs)"),
          (f"{site}/peft/peft_model.py", 698, "load_adapter", "load_result = set_peft_model_state_dict(self, adapters_weights, adapter_name=adapter_name)"),
          (f"{site}/peft/utils/save_and_load.py", 241, "set_peft_model_state_dict", "load_result = model.load_state_dict(peft_model_state_dict, strict=False)"),
          (f"{site}/torch/nn/modules/module.py", 2152, "load_state_dict",
           "raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(")]
    lines += traceback(fr, "RuntimeError: Error(s) in loading state_dict for PeftModelForCausalLM:\n"
                           "\tsize mismatch for base_model.model.model.embed_tokens.modules_to_save.default.weight: "
                           "copying a param with shape torch.Size([32001, 4096]) from checkpoint, the shape in current "
                           "model is torch.Size([32000, 4096]).\n"
                           "\tsize mismatch for base_model.model.lm_head.modules_to_save.default.weight: copying a "
                           "param with shape torch.Size([32001, 4096]) from checkpoint, the shape in current model is "
                           "torch.Size([32000, 4096]).")
    return new_case(
        "checkpoint-size-mismatch-vocab-peft-a10g-02", "checkpoint-size-mismatch", "medium",
        "Loading a LoRA adapter trained after adding a pad token (vocab 32001, embed_tokens/lm_head in "
        "modules_to_save) onto a fresh Llama-2 base with 32000 rows; strict=False does not suppress size mismatches",
        {"merge.log": "\n".join(lines)},
        {"gpu_model": "A10G", "torch_version": "2.1.1", "cuda_version": "12.1", "transformers_version": "4.36.2",
         "launcher": "python", "precision": "fp16"},
        ["32001", "resize"], secrets=[tok])


@synthetic
def size_device_map_accelerate_hard() -> Case:
    rng = random.Random("size-03")
    site = "/opt/conda/lib/python3.11/site-packages"
    lines = ["+ nvidia-smi --query-gpu=index,name,memory.total,memory.used --format=csv",
             "index, name, memory.total [MiB], memory.used [MiB]",
             "0, NVIDIA A100-PCIE-40GB, 40960 MiB, 4 MiB", "1, NVIDIA A100-PCIE-40GB, 40960 MiB, 4 MiB",
             "+ pip list 2>/dev/null | grep -E '^(torch|transformers|accelerate|safetensors|tokenizers) '",
             *pip_list([("accelerate", "0.27.2"), ("safetensors", "0.4.2"), ("tokenizers", "0.15.2"),
                        ("torch", "2.2.1"), ("transformers", "4.38.2")])[2:],
             "+ cat /models/acme-13b-instruct-v2/config.json | python -m json.tool | grep -E 'vocab|hidden_size|layers'",
             '    "hidden_size": 5120,', '    "num_hidden_layers": 40,', '    "vocab_size": 32000',
             "+ python serve_eval.py --model /models/acme-13b-instruct-v2 --device-map auto --tasks "
             "mmlu,gsm8k --batch-size 8",
             "2024-04-02 16:44:05 | INFO | serve_eval | torch 2.2.1+cu121 transformers 4.38.2 accelerate 0.27.2",
             "2024-04-02 16:44:05 | INFO | serve_eval | loading /models/acme-13b-instruct-v2 with device_map=auto, "
             "torch_dtype=float16, low_cpu_mem_usage=True",
             "2024-04-02 16:44:06 | INFO | serve_eval | config: LlamaConfig(hidden_size=5120, "
             "intermediate_size=13824, num_hidden_layers=40, num_attention_heads=40, vocab_size=32000, "
             "max_position_embeddings=4096)",
             "2024-04-02 16:44:06 | INFO | serve_eval | tokenizer: 32002 tokens (added: <|im_start|>, <|im_end|>)",
             "Loading checkpoint shards:   0%|          | 0/3 [00:00<?, ?it/s]"]
    t = f"{site}/transformers"
    fr = [("/srv/evals/serve_eval.py", 212, "<module>", "main()"),
          ("/srv/evals/serve_eval.py", 148, "main", "model = load_model(args)"),
          ("/srv/evals/serve_eval.py", 71, "load_model", "model = AutoModelForCausalLM.from_pretrained("),
          (f"{t}/models/auto/auto_factory.py", 561, "from_pretrained", "return model_class.from_pretrained("),
          (f"{t}/modeling_utils.py", 3531, "from_pretrained", ") = cls._load_pretrained_model("),
          (f"{t}/modeling_utils.py", 3958, "_load_pretrained_model", "new_error_msgs, offload_index, state_dict_index = _load_state_dict_into_meta_model("),
          (f"{t}/modeling_utils.py", 812, "_load_state_dict_into_meta_model", "set_module_tensor_to_device(model, param_name, param_device, **set_module_kwargs)"),
          (f"{site}/accelerate/utils/modeling.py", 348, "set_module_tensor_to_device", "raise ValueError(")]
    lines += traceback(fr, 'ValueError: Trying to set a tensor of shape torch.Size([32002, 5120]) in "weight" (which '
                           'has shape torch.Size([32000, 5120])), this looks incorrect.')
    lines += ["Loading checkpoint shards:   0%|          | 0/3 [00:03<?, ?it/s]"]
    return new_case(
        "checkpoint-size-mismatch-device-map-accelerate-03", "checkpoint-size-mismatch", "hard",
        "from_pretrained with device_map=auto on 2x A100-PCIE: the safetensors embedding has 32002 rows (tokens "
        "added at fine-tune time) but config.json still says vocab_size=32000; accelerate's meta-device loader "
        "reports it without any 'size mismatch' wording",
        {"eval.log": "\n".join(lines)},
        {"gpu_model": "A100-PCIE-40GB", "gpu_count": "2", "torch_version": "2.2.1", "transformers_version": "4.38.2",
         "accelerate_version": "0.27.2", "launcher": "python", "precision": "fp16"},
        ["vocab_size", "32002"])


# ---- checkpoint-weights-only ---------------------------------------------------------------------


def weights_only_message(global_path: str) -> str:
    """torch >= 2.6 wording for an unsupported global (as torch.load prints it, bold escapes included)."""
    return ("_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two "
            "options, \x1b[1mdo those steps only if you trust the source of the checkpoint\x1b[0m. \n"
            "\t(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from "
            "`False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it "
            "can result in arbitrary code execution. Do it only if you got the file from a trusted source.\n"
            "\t(2) Alternatively, to load with `weights_only=True` please check the recommended steps in the "
            "following error message.\n"
            f"\tWeightsUnpickler error: Unsupported global: GLOBAL {global_path} was not an allowed global by default. "
            f"Please use `torch.serialization.add_safe_globals([{global_path}])` or the "
            f"`torch.serialization.safe_globals([{global_path}])` context manager to allowlist this global if you "
            "trust this class/function.\n\n"
            "Check the documentation of torch.load to learn more about types accepted by default with weights_only "
            "https://pytorch.org/docs/stable/generated/torch.load.html.")


@synthetic
def weights_only_deepspeed_resume() -> Case:
    rng = random.Random("wo-02")
    site = "/home/akumar/venvs/sft/lib/python3.11/site-packages"
    hf = hf_token(rng)
    clock = Clock(datetime(2025, 2, 3, 7, 15, 20), rng)
    py = "/home/akumar/venvs/sft/bin/python3"
    args = ["train_sft.py", "--deepspeed", "ds/zero2_bf16.json", "--resume", "/fsx/sft/run-42/checkpoint-6000"]
    lines = ["+ git -C /fsx/sft/data remote -v",
             f"origin\thttps://akumar:{hf}@huggingface.co/datasets/acme/sft-mix-v9 (fetch)",
             f"origin\thttps://akumar:{hf}@huggingface.co/datasets/acme/sft-mix-v9 (push)",
             "+ python -c 'import torch, deepspeed, transformers; print(torch.__version__, deepspeed.__version__, "
             "transformers.__version__)'",
             "2.6.0+cu124 0.16.3 4.48.1",
             "+ deepspeed --num_gpus 8 " + " ".join(args)]
    base = 402117
    lines += deepspeed_launcher_header(clock, 8, args, py, "2.21.5", base)
    clock.advance(8.4)
    lines += [f"[{clock.ds()}] [INFO] [comm.py:652:init_distributed] cdb=None",
              f"[{clock.ds()}] [INFO] [comm.py:683:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl"]
    lines += hf_training_args("/fsx/sft/run-42", {"bf16": "True", "deepspeed": "ds/zero2_bf16.json",
                                                  "gradient_checkpointing": "True", "learning_rate": "1e-05",
                                                  "per_device_train_batch_size": "4",
                                                  "resume_from_checkpoint": "/fsx/sft/run-42/checkpoint-6000",
                                                  "save_steps": "1000", "_n_gpu": "1", "local_rank": "0",
                                                  "report_to": "[]"}, "02/03/2025 07:15:41")
    lines += ["02/03/2025 07:15:41 - INFO - __main__ - 8 x NVIDIA H100 80GB HBM3 | world_size 8",
              "Loading checkpoint shards: " + "\r".join(
                  f"{p:>3}%|{'█' * (p // 10)}{' ' * (10 - p // 10)}| {n}/4 [00:{t:02d}<00:{max(0, 6 - t):02d}, "
                  f"{rng.uniform(1.2, 1.7):.2f}s/it]" for p, n, t in ((0, 0, 0), (25, 1, 1), (50, 2, 3), (75, 3, 4), (100, 4, 6)))]
    clock.advance(30.2)
    lines += [f"[{clock.ds()}] [INFO] [logging.py:128:log_dist] [Rank 0] DeepSpeed info: version=0.16.3, "
              "git-hash=unknown, git-branch=unknown",
              f"[{clock.ds()}] [INFO] [config.py:734:__init__] Config mesh_device None world_size = 8",
              f"[{clock.ds()}] [INFO] [logging.py:128:log_dist] [Rank 0] Creating BF16 optimizer",
              f"[{clock.ds()}] [INFO] [logging.py:128:log_dist] [Rank 0] Creating torch.bfloat16 ZeRO stage 2 optimizer",
              f"[{clock.ds()}] [INFO] [stage_1_and_2.py:149:__init__] Reduce bucket size 500000000",
              f"[{clock.ds()}] [INFO] [stage_1_and_2.py:150:__init__] Allgather bucket size 500000000",
              f"[{clock.ds()}] [INFO] [logging.py:128:log_dist] [Rank 0] DeepSpeed Final Optimizer = DeepSpeedZeroOptimizer",
              "[INFO|trainer.py:2369] 2025-02-03 07:16:35,118 >> ***** Running training *****",
              "[INFO|trainer.py:2370] 2025-02-03 07:16:35,118 >>   Num examples = 388,120",
              "[INFO|trainer.py:2371] 2025-02-03 07:16:35,118 >>   Num Epochs = 2",
              "[INFO|trainer.py:2376] 2025-02-03 07:16:35,118 >>   Total optimization steps = 12,128",
              "[INFO|trainer.py:2556] 2025-02-03 07:16:35,121 >> Loading model from /fsx/sft/run-42/checkpoint-6000."]
    ck = "/fsx/sft/run-42/checkpoint-6000/global_step6000"
    clock.advance(2.0)
    lines += [f"[{clock.ds()}] [INFO] [torch_checkpoint_engine.py:27:load] [Torch] Loading checkpoint from "
              f"{ck}/mp_rank_00_model_states.pt...",
              f"[{clock.ds()}] [INFO] [torch_checkpoint_engine.py:29:load] [Torch] Loaded checkpoint from "
              f"{ck}/mp_rank_00_model_states.pt.",
              f"[{clock.ds()}] [INFO] [torch_checkpoint_engine.py:27:load] [Torch] Loading checkpoint from "
              f"{ck}/bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt..."]
    clock.advance(1.1)
    for r in (0, 4, 2, 7, 1, 3, 6, 5):
        fr = [("/fsx/sft/code/train_sft.py", 188, "<module>", "trainer.train(resume_from_checkpoint=args.resume)"),
              (f"{site}/transformers/trainer.py", 2171, "train", "return inner_training_loop("),
              (f"{site}/transformers/trainer.py", 2340, "_inner_training_loop", "deepspeed_load_checkpoint("),
              (f"{site}/transformers/integrations/deepspeed.py", 489, "deepspeed_load_checkpoint",
               "load_path, _ = deepspeed_engine.load_checkpoint("),
              (f"{site}/deepspeed/runtime/engine.py", 2929, "load_checkpoint",
               "success = self._load_zero_checkpoint(load_dir, tag, load_optimizer_states=load_optimizer_states)"),
              (f"{site}/deepspeed/runtime/engine.py", 3143, "_load_zero_checkpoint",
               "zero_sd_list = self._get_all_zero_checkpoints(load_dir, tag)"),
              (f"{site}/deepspeed/runtime/engine.py", 3225, "_get_all_zero_checkpoints",
               "return self._get_all_zero_checkpoint_state_dicts(zero_ckpt_names)"),
              (f"{site}/deepspeed/runtime/engine.py", 3204, "_get_all_zero_checkpoint_state_dicts",
               "_state = self.checkpoint_engine.load("),
              (f"{site}/deepspeed/runtime/checkpoint_engine/torch_checkpoint_engine.py", 28, "load",
               "partition = torch.load(path, map_location=map_location)"),
              (f"{site}/torch/serialization.py", 1470, "load",
               "raise pickle.UnpicklingError(_get_wo_message(str(e))) from None")]
        lines += traceback(fr, weights_only_message("deepspeed.runtime.fp16.loss_scaler.LossScaler"), f"[rank{r}]: ")
    lines += deepspeed_kill(clock, 8, base, 0, py, args)
    return new_case(
        "checkpoint-weights-only-deepspeed-resume-02", "checkpoint-weights-only", "medium",
        "HF Trainer + DeepSpeed ZeRO-2 resume on 8x H100 after upgrading to torch 2.6: the ZeRO optimizer state "
        "file pickles DeepSpeed's LossScaler and the new weights_only default rejects it on every rank; the "
        "DeepSpeed launcher kills the job",
        {"train.log": "\n".join(lines)},
        {"torch_version": "2.6.0", "deepspeed_version": "0.16.3", "transformers_version": "4.48.1",
         "nccl_version": "2.21.5", "launcher": "deepspeed", "world_size": "8", "zero_stage": "2",
         "gpu_model": "H100 80GB HBM3"},
        ["weights_only", "LossScaler"], initiating_rank=list(range(8)), secrets=[hf, "akumar"])


@synthetic
def weights_only_ultralytics_service() -> Case:
    rng = random.Random("wo-03")
    site = "/usr/local/lib/python3.11/site-packages"
    lines = ["ppe-detector-7c9d5b8f4-x2lqk | INFO:     Started server process [1]",
             "ppe-detector-7c9d5b8f4-x2lqk | INFO:     Waiting for application startup.",
             "ppe-detector-7c9d5b8f4-x2lqk | 2025-02-14 08:31:02,551 ppe-detector INFO settings: weights="
             "/models/ppe_detector_v3.pt conf=0.35 iou=0.5 imgsz=960 device=cuda:0",
             "ppe-detector-7c9d5b8f4-x2lqk | 2025-02-14 08:31:02,552 ppe-detector INFO runtime: python 3.11.11, "
             "torch 2.6.0+cu124, ultralytics 8.0.196",
             "ppe-detector-7c9d5b8f4-x2lqk | Ultralytics YOLOv8.0.196 🚀 Python-3.11.11 torch-2.6.0+cu124 CUDA:0 "
             "(NVIDIA L4, 22478MiB)"]
    fr1 = [("/app/detector/service.py", 41, "load_detector", "return YOLO(weights)"),
           (f"{site}/ultralytics/engine/model.py", 97, "__init__", "self._load(model, task)"),
           (f"{site}/ultralytics/engine/model.py", 149, "_load", "self.model, self.ckpt = attempt_load_one_weight(weights)"),
           (f"{site}/ultralytics/nn/tasks.py", 635, "attempt_load_one_weight", "ckpt, weight = torch_safe_load(weight)  # load ckpt"),
           (f"{site}/ultralytics/nn/tasks.py", 561, "torch_safe_load", "return torch.load(file, map_location='cpu'), file  # load"),
           (f"{site}/torch/serialization.py", 1470, "load", "raise pickle.UnpicklingError(_get_wo_message(str(e))) from None")]
    fr2 = [(f"{site}/starlette/routing.py", 693, "lifespan", "async with self.lifespan_context(app) as maybe_state:"),
           ("/usr/local/lib/python3.11/contextlib.py", 210, "__aenter__", "return await anext(self.gen)"),
           ("/app/detector/service.py", 58, "lifespan", "app.state.detector = load_detector(settings.weights)"),
           ("/app/detector/service.py", 44, "load_detector",
            "raise RuntimeError(f\"failed to load detector weights from {weights}\") from e")]
    tb = ["ERROR:    " + ln if i == 0 else ln for i, ln in enumerate(
        traceback(fr1, weights_only_message("ultralytics.nn.tasks.DetectionModel")))]
    tb += ["", "The above exception was the direct cause of the following exception:", ""]
    tb += traceback(fr2, "RuntimeError: failed to load detector weights from /models/ppe_detector_v3.pt")
    tb += ["", "ERROR:    Application startup failed. Exiting."]
    lines += ["ppe-detector-7c9d5b8f4-x2lqk | " + ln for ln in tb]
    lines += ["ppe-detector-7c9d5b8f4-x2lqk exited with code 3"]
    _ = rng
    return new_case(
        "checkpoint-weights-only-ultralytics-service-03", "checkpoint-weights-only", "medium",
        "FastAPI detector service on an L4 pins ultralytics 8.0.196 but runs torch 2.6: YOLO's torch.load of a "
        "whole pickled DetectionModel fails under weights_only, and the service re-raises a generic 'failed to "
        "load detector weights'",
        {"container.log": "\n".join(lines)},
        {"gpu_model": "L4", "torch_version": "2.6.0", "python_version": "3.11.11"},
        ["weights_only", "ultralytics"])


# ---- checkpoint-corrupt --------------------------------------------------------------------------


@synthetic
def corrupt_central_dir_a10g() -> Case:
    rng = random.Random("corrupt-01")
    site = "/opt/conda/lib/python3.10/site-packages"
    clock = Clock(datetime(2024, 1, 30, 4, 2, 17), rng)
    lines = ["+ nvidia-smi"]
    lines += nvidia_smi([("A10G", "00000000:00:1E.0", 23028)], "535.104.12", "12.2", rng,
                        when="Tue Jan 30 04:02:15 2024")
    lines += ["+ ls -l /mnt/efs/runs/asr-conformer-m/checkpoints",
              "total 4121668",
              "-rw-r--r-- 1 root root 1403271582 Jan 29 21:44 epoch_007.pt",
              "-rw-r--r-- 1 root root 1403271582 Jan 30 00:51 epoch_008.pt",
              "-rw-r--r-- 1 root root  414187520 Jan 30 03:58 last.pt",
              "+ python train_asr.py --config conf/conformer_m.yaml --resume auto",
              f"[{clock.ds()}] INFO torch 2.1.2+cu121, torchaudio 2.1.2+cu121, device NVIDIA A10G",
              f"[{clock.ds()}] INFO previous job 8831 ended: spot instance interruption notice at 03:58:02",
              f"[{clock.ds()}] INFO auto-resume: newest checkpoint is /mnt/efs/runs/asr-conformer-m/checkpoints/last.pt"]
    fr = [("/srv/asr/train_asr.py", 377, "<module>", "main(cfg)"),
          ("/srv/asr/train_asr.py", 301, "main", "state = load_checkpoint(cfg.resume_path, model, optimizer, scaler)"),
          ("/srv/asr/utils/ckpt.py", 22, "load_checkpoint", "ckpt = torch.load(path, map_location=\"cpu\")"),
          (f"{site}/torch/serialization.py", 993, "load", "with _open_zipfile_reader(opened_file) as opened_zipfile:"),
          (f"{site}/torch/serialization.py", 447, "__init__", "super().__init__(torch._C.PyTorchFileReader(name_or_buffer))")]
    lines += traceback(fr, "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory")
    return new_case(
        "checkpoint-corrupt-central-dir-a10g-01", "checkpoint-corrupt", "easy",
        "Auto-resume after a spot interruption picks last.pt, which was cut off mid-save (414 MB vs 1.4 GB); "
        "torch.load cannot find the zip central directory",
        {"train.log": "\n".join(lines)},
        {"gpu_model": "A10G", "driver_version": "535.104.12", "torch_version": "2.1.2", "cuda_version": "12.1",
         "launcher": "python"},
        ["truncated"])


@synthetic
def corrupt_safetensors_accelerate() -> Case:
    rng = random.Random("corrupt-03")
    site = "/opt/conda/lib/python3.10/site-packages"
    akid, asec = aws_key_id(rng), aws_secret(rng)
    clock = Clock(datetime(2024, 5, 20, 12, 30, 45), rng)
    model_dir = "/scratch/models/mistral-7b-sft-v3"
    lines = ["+ export AWS_ACCESS_KEY_ID=" + akid,
             "+ export AWS_SECRET_ACCESS_KEY=" + asec,
             f"+ aws s3 sync s3://acme-ml-models/mistral-7b-sft-v3/ {model_dir}/ --only-show-errors",
             f"+ ls -l {model_dir}",
             "total 14161844",
             "-rw-r--r-- 1 jenkins jenkins        664 May 20 12:21 config.json",
             "-rw-r--r-- 1 jenkins jenkins        111 May 20 12:21 generation_config.json",
             "-rw-r--r-- 1 jenkins jenkins 4943162336 May 20 12:24 model-00001-of-00003.safetensors",
             "-rw-r--r-- 1 jenkins jenkins 4540000000 May 20 12:27 model-00003-of-00003.safetensors",
             "-rw-r--r-- 1 jenkins jenkins 1073741824 May 20 12:29 model-00002-of-00003.safetensors",
             "-rw-r--r-- 1 jenkins jenkins      23950 May 20 12:21 model.safetensors.index.json",
             "-rw-r--r-- 1 jenkins jenkins        551 May 20 12:21 special_tokens_map.json",
             "-rw-r--r-- 1 jenkins jenkins    1795188 May 20 12:21 tokenizer.json",
             "-rw-r--r-- 1 jenkins jenkins       1460 May 20 12:21 tokenizer_config.json",
             f"+ accelerate launch --multi_gpu --num_processes 2 --mixed_precision bf16 eval_harness.py --model "
             f"{model_dir} --tasks arc_challenge,hellaswag --batch_size 16"]
    agent = 5521
    lines += torchrun_header(clock, agent, "2.3")
    clock.advance(6.0)
    lines += ["[eval] torch 2.3.0+cu121 | transformers 4.41.1 | accelerate 0.30.1 | 2 x NVIDIA L4",
              "[eval] loading model from /scratch/models/mistral-7b-sft-v3 (bf16)"]
    t = f"{site}/transformers"
    for r in (1, 0):
        lines.append("Loading checkpoint shards:  33%|███▎      | 1/3 [00:07<00:15,  7.61s/it]")
    for r in (1, 0):
        fr = [("/workspace/evals/eval_harness.py", 160, "<module>", "main()"),
              ("/workspace/evals/eval_harness.py", 94, "main", "model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch.bfloat16)"),
              (f"{t}/models/auto/auto_factory.py", 563, "from_pretrained", "return model_class.from_pretrained("),
              (f"{t}/modeling_utils.py", 3754, "from_pretrained", ") = cls._load_pretrained_model("),
              (f"{t}/modeling_utils.py", 4192, "_load_pretrained_model", "state_dict = load_state_dict(shard_file, is_quantized=is_quantized)"),
              (f"{t}/modeling_utils.py", 548, "load_state_dict", "with safe_open(checkpoint_file, framework=\"pt\") as f:")]
        lines += traceback(fr, "safetensors_rust.SafetensorError: Error while deserializing header: "
                               "MetadataIncompleteBuffer", f"[rank{r}]: ")
    clock.advance(2.5)
    root = RankExit(1, 1, agent + 15, 1, clock.elastic(), "ci-gpu-l4-03")
    others = [RankExit(0, 0, agent + 14, 1, clock.elastic(), "ci-gpu-l4-03")]
    lines += torchrun_child_failed("eval_harness.py", root, others, site, clock, agent, "/opt/conda/bin/python", "2.3", [],
                                   accelerate=("/opt/conda/bin/accelerate", 46, 1073, 718))
    lines += ["Build step 'Execute shell' marked build as failure", "Finished: FAILURE"]
    return new_case(
        "checkpoint-corrupt-safetensors-sync-accelerate-03", "checkpoint-corrupt", "medium",
        "CI eval job syncs a model from S3, one shard comes down truncated (exactly 1 GiB of ~5 GB); both "
        "accelerate ranks fail in safe_open with MetadataIncompleteBuffer, ChildFailedError at the end",
        {"console.log": "\n".join(lines)},
        {"gpu_model": "L4", "gpu_count": "2", "torch_version": "2.3.0", "transformers_version": "4.41.1",
         "accelerate_version": "0.30.1", "launcher": "accelerate", "world_size": "2", "precision": "bf16"},
        ["model-00002-of-00003", "truncated"], initiating_rank=[0, 1], secrets=[akid, asec])
def main() -> None:
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("--capture", action="store_true", help="re-run the real CPU programs (needs .venv torch)")
    ap.add_argument("--only", default="", help="only cases whose id contains this")
    args = ap.parse_args()
    n = write_selected(args.out, (fn() for fn in SYNTHETIC), args.only)
    if args.capture:
        n += write_selected(args.out, (capture(p) for p in REAL_PROGRAMS if args.only in p.case.case_id))
    print(f"wrote {n} cases under {args.out}")


if __name__ == "__main__":
    main()


