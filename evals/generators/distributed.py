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

import argparse
import hashlib
import os
import random
import re
import shutil
import string
import subprocess
import sys
import tempfile
import textwrap
from datetime import datetime, timedelta
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "evals" / "cases"


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


def ghp_token(r):
    return fake_token(r, "ghp_", 36, ALNUM)


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


def prefix_lines(text: str, prefix: str) -> str:
    return "\n".join(prefix + ln if ln or prefix.strip() else ln for ln in text.split("\n"))


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
               used_mib: int | None = None, util: int = 0, procs: bool = True, smi_version: str | None = None) -> str:
    mem, power = GPU_MEM[gpu]
    total = int(mem[:-3])
    buses = BUS_IDS_8 if n > 4 else BUS_IDS_4
    short = gpu.replace("NVIDIA ", "")
    name = (short[:19] + "...") if len(short) > 22 else short
    smi_version = smi_version or driver
    out = [when,
           "+---------------------------------------------------------------------------------------+",
           f"| NVIDIA-SMI {smi_version:<18}Driver Version: {driver:<15}CUDA Version: {cuda:<9}|",
           "|-----------------------------------------+----------------------+----------------------+",
           "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
           "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |",
           "|                                         |                      |               MIG M. |",
           "|=========================================+======================+======================|"]
    for i in range(n):
        used = used_mib if used_mib is not None else r.randint(2, 6)
        temp = r.randint(29, 41)
        pw = r.randint(55, 90) if "H100" in gpu or "A100" in gpu or "H200" in gpu else r.randint(9, 30)
        fan = " N/A" if "RTX" not in gpu else f"{r.randint(30, 45):3d}%"
        out.append(f"|{i:>4}  {name:<22}On  | {buses[i]:<16} Off |                    0 |")
        out.append(f"|{fan}  {temp:>3}C    P0{pw:>17}W / {power:<5}|{used:>9}MiB / {total:>6}MiB |{util:>7}%      Default |")
        out.append("|                                         |                      |             Disabled |")
        out.append("+-----------------------------------------+----------------------+----------------------+")
    out += ["",
            "+---------------------------------------------------------------------------------------+",
            "| Processes:                                                                            |",
            "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |",
            "|        ID   ID                                                             Usage      |",
            "|=======================================================================================|",
            "|  No running processes found                                                           |",
            "+---------------------------------------------------------------------------------------+"]
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


def pip_freeze(pkgs: dict[str, str]) -> str:
    return "\n".join(f"{k}=={v}" for k, v in sorted(pkgs.items(), key=lambda kv: kv[0].lower()))


def hf_args_dump(args: dict) -> str:
    """The TrainingArguments repr HF Trainer logs at INFO (one field per line)."""
    lines = ["TrainingArguments("]
    for k in sorted(args):
        lines.append(f"{k}={args[k]},")
    lines.append(")")
    return "\n".join(lines)


def tqdm_bar(step: int, total: int, elapsed_s: float, rate: float, width: int = 10) -> str:
    frac = step / total
    filled = int(frac * width)
    parts = " ▏▎▍▌▋▊▉"
    rem = int((frac * width - filled) * 8)
    bar = "█" * filled + (parts[rem] if filled < width else "") + " " * max(0, width - filled - 1)
    bar = bar[:width]
    remaining = (total - step) / rate if rate > 0 else 0
    return f"{int(frac * 100):3d}%|{bar}| {step}/{total} [{fmt_dur(elapsed_s)}<{fmt_dur(remaining)}, {1 / rate if rate < 1 else rate:.2f}{'s/it' if rate < 1 else 'it/s'}]"


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
                    p2p: str = "P2P/IPC/read", hcas: int = 4, complete: bool = True, comm: str | None = None) -> list[str]:
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
        out.append(f"{q}Channel {ch:02d}/0 : {rank}[{bus}] -> {nxt}[{bus}] via {p2p}")
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
        f'  File "{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line {a}, in wrapper',
        "    return f(*args, **kwargs)",
        f'  File "{site}/torch/distributed/run.py", line {b}, in main',
        "    run(args)",
        f'  File "{site}/torch/distributed/run.py", line {c}, in run',
        "    elastic_launch(",
        f'  File "{site}/torch/distributed/launcher/api.py", line {d}, in __call__',
        "    return launch_agent(self._config, self._entrypoint, list(args))",
        f'  File "{site}/torch/distributed/launcher/api.py", line {e}, in launch_agent',
        "    raise ChildFailedError(",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "])


SIGNAMES = {1: "SIGHUP", 6: "SIGABRT", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM"}


def elastic_summary(script: str, failures: list[dict], root: dict) -> list[str]:
    """failures/root: dicts with time, host, rank, local_rank, exitcode, pid."""

    def block(i, f):
        ec = f["exitcode"]
        if ec < 0:
            sig = SIGNAMES[-ec]
            ecs = f"{ec} (pid: {f['pid']})  ({sig})" if True else ""
            tb = f"Signal {-ec} ({sig}) received by PID {f['pid']}"
        else:
            ecs = f"{ec} (pid: {f['pid']}) "
            tb = f.get("traceback", "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        return [f"[{i}]:", f"  time      : {f['time']}", f"  host      : {f['host']}",
                f"  rank      : {f['rank']} (local_rank: {f['local_rank']})", f"  exitcode  : {ecs}",
                f"  error_file: {f.get('error_file', '<N/A>')}", f"  traceback : {tb}"]

    out = ["============================================================", f"{script} FAILED",
           "------------------------------------------------------------", "Failures:"]
    if not failures:
        out.append("  <NO_OTHER_FAILURES>")
    for i, f in enumerate(failures, 1):
        out += block(i, f)
    out += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
    out += block(0, root)
    out.append("============================================================")
    return out


# --------------------------------------------------------------------------------------------------
# writing cases
# --------------------------------------------------------------------------------------------------

CASE_KEYS = ["schema_version", "label", "also", "difficulty", "description", "initiating_rank", "facts",
             "must_mention", "secrets"]


def write_case(case_id: str, files: dict[str, str] | None, meta: dict, keep_logs: bool = False):
    d = CASES / case_id
    d.mkdir(parents=True, exist_ok=True)
    if files is not None and not keep_logs:
        for old in d.iterdir():
            if old.name != "case.yaml":
                if old.is_dir():
                    shutil.rmtree(old)
                else:
                    old.unlink()
        for name, content in files.items():
            p = d / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(content.rstrip("\n") + "\n", encoding="utf-8")
    meta = dict(meta)
    meta.setdefault("schema_version", 1)
    meta.setdefault("also", [])
    meta.setdefault("secrets", [])
    meta.setdefault("initiating_rank", None)
    meta["facts"] = {k: str(v) for k, v in meta.get("facts", {}).items()}
    ordered = {k: meta[k] for k in CASE_KEYS}
    extra = set(meta) - set(CASE_KEYS)
    assert not extra, (case_id, extra)
    (d / "case.yaml").write_text(yaml.safe_dump(ordered, sort_keys=False, allow_unicode=True, width=110),
                                 encoding="utf-8")


def J(lines) -> str:
    return "\n".join(lines)
