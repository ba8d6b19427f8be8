"""Write the eval cases for the memory and data-loading failures.

Ids covered: cuda-oom, cuda-oom-fragmentation, cuda-memory-leak-growth, host-oom-killed,
dataloader-shm-exhausted, dataloader-worker-crash, collate-unequal-sample-shapes.

Most logs are synthetic: each case is written out by hand below (the part that fails) with shared
helpers for the noise real runs print (nvidia-smi, collect_env, ds_report, pip lists, NCCL INFO lines,
launcher banners, HF Trainer / Lightning / DeepSpeed progress). Five cases are real CPU-only PyTorch
runs: ``--real`` writes the small programs to a scratch workspace, runs them (under ``torchrun`` with
the gloo backend where the case is distributed, and in a private mount namespace with a 64 MB
``/dev/shm`` for the shared-memory case, which needs root and ``unshare``) and stores what they
printed.

    python evals/generators/memory.py                       # rewrite the synthetic cases (+ case.yaml of all)
    python evals/generators/memory.py --real --python /opt/venv/bin/python   # also rerun the real captures
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import yaml

CASES_DIR = Path(__file__).resolve().parents[1] / "cases"


# --------------------------------------------------------------------------------------------------
# case container
# --------------------------------------------------------------------------------------------------


@dataclass
class Case:
    case_id: str
    label: str
    difficulty: str
    description: str
    initiating_rank: int | None
    facts: dict[str, str]
    must_mention: list[str]
    files: dict[str, str] = field(default_factory=dict)  # empty for real captures (written by --real)
    also: list[str] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)

    def write(self) -> None:
        out = CASES_DIR / self.case_id
        out.mkdir(parents=True, exist_ok=True)
        meta = {
            "schema_version": 1,
            "label": self.label,
            "also": self.also,
            "difficulty": self.difficulty,
            "description": self.description,
            "initiating_rank": self.initiating_rank,
            "facts": {k: str(v) for k, v in self.facts.items()},
            "must_mention": self.must_mention,
            "secrets": self.secrets,
        }
        (out / "case.yaml").write_text(yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=110))
        for name, text in self.files.items():
            p = out / name
            p.parent.mkdir(parents=True, exist_ok=True)
            if not text.endswith("\n"):
                text += "\n"
            p.write_text(text)


def dedent(s: str) -> str:
    return textwrap.dedent(s).strip("\n")


def prefix(lines: str | list[str], pfx: str) -> str:
    if isinstance(lines, str):
        lines = lines.split("\n")
    return "\n".join(pfx + ln for ln in lines)


# --------------------------------------------------------------------------------------------------
# noise helpers
# --------------------------------------------------------------------------------------------------

GPU_MEM_MIB = {
    "Tesla T4": 15360,
    "Tesla V100-SXM2-32GB": 32768,
    "NVIDIA A10G": 23028,
    "NVIDIA L4": 23034,
    "NVIDIA L40S": 46068,
    "NVIDIA A100-SXM4-40GB": 40960,
    "NVIDIA A100-SXM4-80GB": 81920,
    "NVIDIA GeForce RTX 3090": 24576,
    "NVIDIA GeForce RTX 4090": 24564,
    "NVIDIA H100 80GB HBM3": 81559,
    "NVIDIA H200": 143771,
}
GPU_POWER_CAP = {
    "Tesla T4": 70, "Tesla V100-SXM2-32GB": 300, "NVIDIA A10G": 300, "NVIDIA L4": 72, "NVIDIA L40S": 350,
    "NVIDIA A100-SXM4-40GB": 400, "NVIDIA A100-SXM4-80GB": 400, "NVIDIA GeForce RTX 3090": 350,
    "NVIDIA GeForce RTX 4090": 450, "NVIDIA H100 80GB HBM3": 700, "NVIDIA H200": 700,
}
SXM_BUS = ["00000000:07:00.0", "00000000:0F:00.0", "00000000:47:00.0", "00000000:4E:00.0",
           "00000000:87:00.0", "00000000:90:00.0", "00000000:B7:00.0", "00000000:BD:00.0"]
H100_BUS = ["00000000:18:00.0", "00000000:2A:00.0", "00000000:3A:00.0", "00000000:5D:00.0",
            "00000000:9A:00.0", "00000000:AB:00.0", "00000000:BA:00.0", "00000000:DB:00.0"]


def nvidia_smi(date: str, driver: str, cuda: str, gpu: str, n: int, rng: random.Random,
               bus: list[str] | None = None, style: str = "535", used: list[int] | None = None,
               procs: list[tuple[int, int, str, int]] | None = None, persistence: str = "On") -> str:
    """An `nvidia-smi` table. style: '470' (old layout), '535' (new) or '550' (wider bus column)."""
    total = GPU_MEM_MIB[gpu]
    cap = GPU_POWER_CAP[gpu]
    bus = bus or SXM_BUS
    used = used or [rng.choice([0, 1, 4]) for _ in range(n)]
    out = [date]
    if style == "470":
        w1, w2, w3 = 31, 22, 22
        out.append("+" + "-" * 77 + "+")
        head = f" NVIDIA-SMI {driver}   Driver Version: {driver}   CUDA Version: {cuda}"
        out.append("|" + head.ljust(77) + "|")
        out.append(f"|{'-' * w1}+{'-' * w2}+{'-' * w3}+")
        out.append("| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |")
        out.append("| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |")
        out.append("|                               |                      |               MIG M. |")
        out.append(f"|{'=' * w1}+{'=' * w2}+{'=' * w3}|")
        for i in range(n):
            name = gpu if len(gpu) <= 18 else gpu[:15] + "..."
            temp = rng.randint(29, 38)
            pwr = rng.randint(int(cap * 0.08), int(cap * 0.2))
            c1 = f"   {i}  {name:<18}  {persistence:<3}  "
            c1b = f" N/A   {temp}C    P0   {pwr:>3}W / {cap:>3}W "
            out.append(f"|{c1:<{w1}}|{(' ' + bus[i] + ' Off '):>{w2}}|{'0 ':>{w3}}|")
            out.append(f"|{c1b:>{w1}}|{(f'{used[i]}MiB / {total}MiB '):>{w2}}|{'0%      Default ':>{w3}}|")
            out.append(f"|{'':{w1}}|{'':{w2}}|{'N/A ':>{w3}}|")
            out.append(f"+{'-' * w1}+{'-' * w2}+{'-' * w3}+")
        out.append(" " * 79)
        out.append("+" + "-" * 77 + "+")
        out.append("| Processes:" + " " * 66 + "|")
        out.append("|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |")
        out.append("|        ID   ID                                                   Usage      |")
        out.append("|" + "=" * 77 + "|")
        if not procs:
            out.append("|  No running processes found" + " " * 49 + "|")
        else:
            for g, pid, pname, mem in procs:
                out.append("|" + f"    {g}   N/A  N/A  {pid:>8}      C   {pname:<28}{mem:>8}MiB ".ljust(77) + "|")
        out.append("+" + "-" * 77 + "+")
        return "\n".join(out)
    w1, w2, w3 = 41, (22 if style == "535" else 24), 22
    width = w1 + w2 + w3 + 2
    out.append("+" + "-" * width + "+")
    if style == "535":
        head = f" NVIDIA-SMI {driver}             Driver Version: {driver}   CUDA Version: {cuda}"
    else:
        head = f" NVIDIA-SMI {driver}              Driver Version: {driver}      CUDA Version: {cuda}"
    out.append("|" + head.ljust(width) + "|")
    out.append(f"|{'-' * w1}+{'-' * w2}+{'-' * w3}+")
    out.append(f"|{' GPU  Name                 Persistence-M ':<{w1}}|{(' Bus-Id' + ' ' * (w2 - 14) + 'Disp.A '):<{w2}}|{' Volatile Uncorr. ECC ':<{w3}}|")
    out.append(f"|{' Fan  Temp   Perf          Pwr:Usage/Cap ':<{w1}}|{'Memory-Usage ':>{w2}}|{' GPU-Util  Compute M. ':<{w3}}|")
    out.append(f"|{'':{w1}}|{'':{w2}}|{'MIG M. ':>{w3}}|")
    out.append(f"|{'=' * w1}+{'=' * w2}+{'=' * w3}|")
    for i in range(n):
        temp = rng.randint(27, 37)
        pwr = rng.randint(int(cap * 0.09), int(cap * 0.16))
        left = f" {i:>3}  {gpu:<31}"[: w1 - 4] + f"{persistence:>2}  "
        left = f"{left:>{w1}}"
        pw = f"{pwr}W / {cap}W " if style == "535" else f"{pwr}W / {cap:>4}W "
        c1b = f" N/A   {temp}C    P0" + pw.rjust(w1 - 16)
        mem = f"{used[i]}MiB / {total}MiB " if style == "535" else f"{used[i]:>5}MiB / {total:>6}MiB "
        busc = f" {bus[i]} Off " if style == "535" else f"   {bus[i]} Off "
        out.append(f"|{left:<{w1}}|{busc:>{w2}}|{'0 ':>{w3}}|")
        out.append(f"|{c1b:<{w1}}|{mem:>{w2}}|{'0%      Default ':>{w3}}|")
        out.append(f"|{'':{w1}}|{'':{w2}}|{'Disabled ':>{w3}}|")
        out.append(f"+{'-' * w1}+{'-' * w2}+{'-' * w3}+")
    out.append("")
    out.append("+" + "-" * width + "+")
    out.append("|" + " Processes:".ljust(width) + "|")
    out.append("|" + "  GPU   GI   CI        PID   Type   Process name".ljust(width - 11) + "GPU Memory |")
    out.append("|" + "        ID   ID".ljust(width - 11) + "Usage      |")
    out.append("|" + "=" * width + "|")
    if not procs:
        out.append("|" + "  No running processes found".ljust(width) + "|")
    else:
        for g, pid, pname, mem in procs:
            out.append("|" + f"    {g}   N/A  N/A  {pid:>8}      C   {pname}".ljust(width - 11) + f"{mem:>7}MiB |")
    out.append("+" + "-" * width + "+")
    return "\n".join(out)


def collect_env(torch_v: str, cuda: str, cuda_runtime: str, py: str, py_build: str, os_name: str, gcc: str,
                glibc: str, kernel: str, gpus: list[str], driver: str, cudnn: str, libs: list[str],
                cpu_model: str, ncpu: int) -> str:
    gl = "\n".join(f"GPU {i}: {g}" for i, g in enumerate(gpus)) if len(gpus) > 1 else gpus[0]
    return dedent(f"""
Collecting environment information...
PyTorch version: {torch_v}
Is debug build: False
CUDA used to build PyTorch: {cuda}
ROCM used to build PyTorch: N/A

OS: {os_name} (x86_64)
GCC version: {gcc}
Clang version: Could not collect
CMake version: version 3.27.9
Libc version: glibc-{glibc}

Python version: {py} ({py_build}) [GCC 11.4.0] (64-bit runtime)
Python platform: Linux-{kernel}-x86_64-with-glibc{glibc}
Is CUDA available: True
CUDA runtime version: {cuda_runtime}
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration: {gl if len(gpus) == 1 else ''}
""") + ("\n" + gl if len(gpus) > 1 else "") + "\n" + dedent(f"""
Nvidia driver version: {driver}
cuDNN version: Probably one of the following:
/usr/lib/x86_64-linux-gnu/libcudnn.so.{cudnn}
/usr/lib/x86_64-linux-gnu/libcudnn_adv_infer.so.{cudnn}
/usr/lib/x86_64-linux-gnu/libcudnn_cnn_infer.so.{cudnn}
/usr/lib/x86_64-linux-gnu/libcudnn_ops_infer.so.{cudnn}
HIP runtime version: N/A
MIOpen runtime version: N/A
Is XNNPACK available: True

CPU:
Architecture:                       x86_64
CPU op-mode(s):                     32-bit, 64-bit
Address sizes:                      46 bits physical, 57 bits virtual
Byte Order:                         Little Endian
CPU(s):                             {ncpu}
On-line CPU(s) list:                0-{ncpu - 1}
Vendor ID:                          GenuineIntel
Model name:                         {cpu_model}
Thread(s) per core:                 2
Socket(s):                          2
NUMA node(s):                       2

Versions of relevant libraries:
""") + "\n" + "\n".join(f"[pip3] {x}" for x in libs) + "\n[conda] Could not collect"


def ds_report(torch_v: str, torch_cuda: str, ds_v: str, nvcc: str, site: str, shm: str | None = None) -> str:
    lines = dedent(f"""
--------------------------------------------------
DeepSpeed C++/CUDA extension op report
--------------------------------------------------
NOTE: Ops not installed will be just-in-time (JIT) compiled at
      runtime if needed. Op compatibility means that your system
      meet the required dependencies to JIT install the op.
--------------------------------------------------
JIT compiled ops requires ninja
ninja .................. [OKAY]
--------------------------------------------------
op name ................ installed .. compatible
--------------------------------------------------
async_io ............... [NO] ....... [OKAY]
fused_adam ............. [NO] ....... [OKAY]
cpu_adam ............... [NO] ....... [OKAY]
cpu_adagrad ............ [NO] ....... [OKAY]
cpu_lion ............... [NO] ....... [OKAY]
fused_lamb ............. [NO] ....... [OKAY]
fused_lion ............. [NO] ....... [OKAY]
quantizer .............. [NO] ....... [OKAY]
random_ltd ............. [NO] ....... [OKAY]
 [WARNING]  sparse_attn requires a torch version >= 1.5 and < 2.0 but detected {'.'.join(torch_v.split('.')[:2])}
 [WARNING]  using untested triton version (2.1.0), only 1.0.0 is known to be compatible
sparse_attn ............ [NO] ....... [NO]
spatial_inference ...... [NO] ....... [OKAY]
transformer ............ [NO] ....... [OKAY]
stochastic_transformer . [NO] ....... [OKAY]
transformer_inference .. [NO] ....... [OKAY]
--------------------------------------------------
DeepSpeed general environment info:
torch install path ............... ['{site}/torch']
torch version .................... {torch_v}
deepspeed install path ........... ['{site}/deepspeed']
deepspeed info ................... {ds_v}, unknown, unknown
torch cuda version ............... {torch_cuda}
torch hip version ................ None
nvcc version ..................... {nvcc}
deepspeed wheel compiled w. ...... torch {'.'.join(torch_v.split('+')[0].split('.')[:2])}, cuda {torch_cuda}
""")
    if shm:
        lines += f"\nshared memory (/dev/shm) size .... {shm}"
    return lines


def tqdm_bar(n: int, total: int, elapsed: float, rate: float | None = None, desc: str = "", postfix: str = "",
             unit: str = "it", width: int = 10) -> str:
    """One tqdm line as written to a non-tty (rate = seconds per iteration)."""
    def fmt(t: float) -> str:
        t = int(t)
        h, r = divmod(t, 3600)
        m, s = divmod(r, 60)
        return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"

    frac = n / total if total else 0
    pct = int(frac * 100)
    full = int(frac * width)
    parts = " ▏▎▍▌▋▊▉"
    rem = int((frac * width - full) * 8)
    bar = "█" * full + (parts[rem] if full < width else "")
    bar = bar.ljust(width)
    if n == 0 or rate is None:
        rtxt = f"?{unit}/s"
        remaining = "?"
    else:
        rtxt = f"{rate:5.2f}s/{unit}" if rate >= 1 else f"{1 / rate:5.2f}{unit}/s"
        remaining = fmt((total - n) * rate)
    d = f"{desc}: " if desc else ""
    pf = f", {postfix}" if postfix else ""
    return f"{d}{pct:>3}%|{bar}| {n}/{total} [{fmt(elapsed)}<{remaining}, {rtxt}{pf}]"


def hf_train_header(num_examples: int, epochs: int, bs: int, total_bs: int, accum: int, steps: int,
                    trainable: int) -> str:
    return dedent(f"""
***** Running training *****
  Num examples = {num_examples:,}
  Num Epochs = {epochs:,}
  Instantaneous batch size per device = {bs:,}
  Total train batch size (w. parallel, distributed & accumulation) = {total_bs:,}
  Gradient Accumulation steps = {accum}
  Total optimization steps = {steps:,}
  Number of trainable parameters = {trainable:,}
""")


def nccl_init_lines(host: str, pid: int, tid: int, rank: int, nranks: int, local: int, ver: str, iface: str,
                    ip: str, ib: bool, bus_id: str, comm: str, commid: str, rng: random.Random,
                    channels: int = 24) -> list[str]:
    p = f"{host}:{pid}:{pid} [{local}] NCCL INFO "
    q = f"{host}:{pid}:{tid} [{local}] NCCL INFO "
    out = [
        p + f"Bootstrap : Using {iface}:{ip}<0>",
        p + "NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory",
        p + "NET/Plugin : No plugin found, using internal implementation",
        p + f"cudaDriverVersion {rng.choice(['12020', '12020'])}",
    ]
    if rank == 0:
        out.append(p + f"NCCL version {ver}")
    if ib:
        out.append(q + f"NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB {iface}:{ip}<0>")
        out.append(q + "Using network IB")
    else:
        out.append(q + "NET/IB : No device found.")
        out.append(q + f"NET/Socket : Using [0]{iface}:{ip}<0>")
        out.append(q + "Using network Socket")
    out += [
        q + f"comm {comm} rank {rank} nranks {nranks} cudaDev {local} busId {bus_id} - Init START",
        q + f"Setting affinity for GPU {local} to {'ffffffff,ffff0000,00000000' if local >= 4 else '0000ffff,ffffffff'}",
    ]
    if rank == 0:
        out.append(q + f"Channel 00/{channels:02d} :    " + "   ".join(str(i) for i in range(nranks)))
        out.append(q + f"Channel 01/{channels:02d} :    " + "   ".join(str(i) for i in range(nranks)))
    nxt = (rank + 1) % nranks
    out += [
        q + f"Trees [0] {nxt}/-1/-1->{rank}->{(rank - 1) % nranks} [1] {nxt}/-1/-1->{rank}->{(rank - 1) % nranks}",
        q + f"Channel 00/0 : {rank}[{bus_id}] -> {nxt}[{bus_id}] via P2P/IPC",
        q + "Connected all rings",
        q + "Connected all trees",
        q + "threadThresholds 8/8/64 | 64/8/64 | 512 | 512",
        q + f"{channels} coll channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer",
        q + f"comm {comm} rank {rank} nranks {nranks} cudaDev {local} busId {bus_id} commId {commid} - Init COMPLETE",
    ]
    return out


def pip_list(pkgs: list[tuple[str, str]]) -> str:
    w = max(len(p) for p, _ in pkgs) + 2
    lines = ["Package".ljust(w) + "Version", "-" * (w - 1) + " " + "-" * 14]
    lines += [p.ljust(w) + v for p, v in pkgs]
    return "\n".join(lines)


def dt(s: str) -> datetime:
    return datetime.strptime(s, "%Y-%m-%d %H:%M:%S")


def ds_ts(t: datetime) -> str:
    return t.strftime("[%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}]"


def glog_ts(t: datetime, pid: int, level: str = "W") -> str:
    return f"{level}{t.strftime('%m%d %H:%M:%S')}.{t.microsecond:06d} {pid}"


def hf_ts(t: datetime) -> str:
    return t.strftime("%m/%d/%Y %H:%M:%S")


def fake_token(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
UPALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
HEX = "0123456789abcdef"
