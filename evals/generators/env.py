#!/usr/bin/env python3
"""Generate the eval cases for the environment / install / inference-engine failures.

Ids covered: extension-undefined-symbol, cuda-version-mismatch-build, bitsandbytes-setup, numpy-abi-mismatch,
glibcxx-missing, torch-compile-failure, hf-hub-unreachable, vllm-kv-cache-too-small, vllm-gpu-memory-in-use.

Each case is ONE run: the log file(s) that run would have printed, plus case.yaml. The noise (nvidia-smi tables,
collect_env, pip lists, launcher banners, NCCL INFO lines, progress bars) is produced by the helpers below; the
failure text of each case is written out per case. Output is deterministic (seeded), so re-running the script
reproduces the checked-in files exactly.

One case (torch-compile-failure-slim-ci-cpu-01) embeds the output of a real failing CPU program: torch.compile on
a CPU-only torch in a container without a C++ compiler. Only the paths were changed (venv location, script path).

Usage:  python evals/generators/env.py            # writes evals/cases/<case-id>/
"""

from __future__ import annotations

import base64
import json
import random
import textwrap
from datetime import datetime, timedelta
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1] / "cases"
CASES = []


def case(fn):
    CASES.append(fn)
    return fn


def write_case(case_id: str, meta: dict, files: dict[str, str]) -> None:
    d = ROOT / case_id
    d.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        if not text.endswith("\n"):
            text += "\n"
        (d / name).write_text(text, encoding="utf-8")
    ordered = {
        "schema_version": 1,
        "label": meta["label"],
        "also": meta.get("also", []),
        "difficulty": meta["difficulty"],
        "description": meta["description"],
        "initiating_rank": meta.get("initiating_rank"),
        "facts": {k: str(v) for k, v in meta.get("facts", {}).items()},
        "must_mention": meta["must_mention"],
        "secrets": meta.get("secrets", []),
    }
    (d / "case.yaml").write_text(yaml.safe_dump(ordered, sort_keys=False, allow_unicode=True, width=120), encoding="utf-8")


def dedent(s: str) -> str:
    return textwrap.dedent(s).strip("\n")


# ----------------------------------------------------------------------------------------------------------------
# time helpers

class Clock:
    def __init__(self, start: str, rng: random.Random):
        self.t = datetime.strptime(start, "%Y-%m-%d %H:%M:%S")
        self.rng = rng

    def tick(self, lo: float = 0.001, hi: float = 0.2) -> datetime:
        self.t += timedelta(seconds=self.rng.uniform(lo, hi))
        return self.t

    def at(self, seconds: float) -> datetime:
        self.t += timedelta(seconds=seconds)
        return self.t

    # formats
    def ds(self, lo=0.001, hi=0.2) -> str:  # DeepSpeed / torch<=2.2 elastic: [2024-01-15 10:42:11,231]
        t = self.tick(lo, hi)
        return t.strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"

    def glog(self, pid: int, lo=0.001, hi=0.2) -> str:  # torch>=2.3 c10 logging: 0312 10:14:07.512000 140234
        t = self.tick(lo, hi)
        return t.strftime("%m%d %H:%M:%S.") + f"{t.microsecond:06d} {pid}"

    def vllm(self, lo=0.001, hi=0.2) -> str:  # INFO 06-12 10:21:33
        t = self.tick(lo, hi)
        return t.strftime("%m-%d %H:%M:%S")

    def iso(self, lo=0.001, hi=0.2) -> str:
        t = self.tick(lo, hi)
        return t.strftime("%Y-%m-%dT%H:%M:%S")

    def elastic(self) -> str:  # 2024-03-12_10:14:07
        return self.t.strftime("%Y-%m-%d_%H:%M:%S")


# ----------------------------------------------------------------------------------------------------------------
# nvidia-smi

def nvidia_smi(date: str, driver: str, cuda: str, gpus: list[dict], procs: list[tuple] | None = None,
               style: str = "535") -> str:
    """gpus: dicts with name, bus, temp, pwr, cap, used, total (MiB), util, pm, ecc, mig, fan, perf."""
    out = [date + "       "]
    if style == "old":
        w1, w2, w3 = 31, 22, 22
        bar = "+" + "-" * (w1 + w2 + w3 + 2) + "+"
        out.append(bar)
        hdr = f" NVIDIA-SMI {driver:<12}Driver Version: {driver:<13}CUDA Version: {cuda:<9}"
        out.append("|" + hdr.ljust(w1 + w2 + w3 + 2) + "|")
        out.append("|" + "-" * w1 + "+" + "-" * w2 + "+" + "-" * w3 + "+")
        out.append("| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |")
        out.append("| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |")
        out.append("|                               |                      |               MIG M. |")
        out.append("|" + "=" * w1 + "+" + "=" * w2 + "+" + "=" * w3 + "|")
        for i, g in enumerate(gpus):
            name = g["name"]
            if len(name) > 18:
                name = name[:15] + "..."
            c1 = f"{i:>4}  {name:<18}{g.get('pm', 'On'):>4}   "
            out.append("|" + c1.ljust(w1) + "|" + f" {g['bus']} {g.get('dispa', 'Off'):>3} " + "|" + f"{g.get('ecc', '0'):>21} |")
            c1b = f" {g.get('fan', 'N/A'):>3}   {g['temp']:>2}C    {g.get('perf', 'P0'):<2}  {g['pwr']:>4}W / {g['cap']:>3}W "
            out.append("|" + c1b.rjust(w1) + "|" + f"{str(g['used']) + 'MiB':>10} / {str(g['total']) + 'MiB':>8} " + "|"
                       + f"{str(g.get('util', 0)) + '%':>8}{'Default':>13} |")
            out.append("|" + " " * w1 + "|" + " " * w2 + "|" + f"{g.get('mig', 'N/A'):>21} |")
            out.append("+" + "-" * w1 + "+" + "-" * w2 + "+" + "-" * w3 + "+")
        pw = w1 + w2 + w3 + 2
    else:
        w1, w2, w3 = (41, 22, 22) if style == "535" else (41, 24, 22)
        pw = w1 + w2 + w3 + 2
        bar = "+" + "-" * pw + "+"
        out.append(bar)
        if style == "535":
            hdr = f" NVIDIA-SMI {driver:<22}Driver Version: {driver:<13}CUDA Version: {cuda:<9}"
        else:
            hdr = f" NVIDIA-SMI {driver:<22}Driver Version: {driver:<15}CUDA Version: {cuda:<9}"
        out.append("|" + hdr.ljust(pw) + "|")
        out.append("|" + "-" * w1 + "+" + "-" * w2 + "+" + "-" * w3 + "+")
        out.append("| GPU  Name                 Persistence-M |" + " Bus-Id        Disp.A ".rjust(w2) + "| Volatile Uncorr. ECC |")
        out.append("| Fan  Temp   Perf          Pwr:Usage/Cap |" + "Memory-Usage ".rjust(w2) + "| GPU-Util  Compute M. |")
        out.append("|                                         |" + " " * w2 + "|               MIG M. |")
        out.append("|" + "=" * w1 + "+" + "=" * w2 + "+" + "=" * w3 + "|")
        for i, g in enumerate(gpus):
            name = "NVIDIA " + g["name"] if not g["name"].startswith(("NVIDIA", "Tesla")) else g["name"]
            c1 = f"{i:>4}  {name:<29}{g.get('pm', 'On'):>4}  "
            c2 = f" {g['bus']} {g.get('dispa', 'Off'):>3} ".rjust(w2)
            out.append("|" + c1 + "|" + c2 + "|" + f"{g.get('ecc', '0'):>21} |")
            left = f" {g.get('fan', 'N/A'):<3}  {g['temp']:>3}C    {g.get('perf', 'P0'):<2}"
            right = f"{g['pwr']:>3}W / {g['cap']:>{3 if style == '535' else 4}}W "
            c1b = left + " " * (w1 - len(left) - len(right)) + right
            c2b = (f"{str(g['used']) + 'MiB':>10} / {str(g['total']) + 'MiB':>8} ").rjust(w2)
            out.append("|" + c1b + "|" + c2b + "|" + f"{str(g.get('util', 0)) + '%':>8}{'Default':>13} |")
            out.append("|" + " " * w1 + "|" + " " * w2 + "|" + f"{g.get('mig', 'Disabled'):>21} |")
            out.append("+" + "-" * w1 + "+" + "-" * w2 + "+" + "-" * w3 + "+")
    out.append(" " * (pw + 2))
    out.append("+" + "-" * pw + "+")
    out.append("| Processes:".ljust(pw + 1) + "|")
    out.append("|  GPU   GI   CI        PID   Type   Process name".ljust(pw - 10) + "GPU Memory |")
    out.append("|        ID   ID".ljust(pw - 10) + "Usage      |")
    out.append("|" + "=" * pw + "|")
    if not procs:
        out.append("|  No running processes found".ljust(pw + 1) + "|")
    else:
        for gi, pid, name, mib in procs:
            s = f"|  {gi:>3}   N/A  N/A  {pid:>8}      C   {name}"
            out.append(s.ljust(pw - 10) + f"{str(mib) + 'MiB':>10} |")
    out.append("+" + "-" * pw + "+")
    return "\n".join(out)


def gpu(name, total, bus, rng, used=None, pwr=None, cap=400, temp=None, util=0, **kw):
    d = dict(name=name, total=total, bus=bus, used=4 if used is None else used,
             pwr=pwr if pwr is not None else rng.randint(55, 75), cap=cap,
             temp=temp if temp is not None else rng.randint(27, 38), util=util)
    d.update(kw)
    return d


BUSES_8 = ["00000000:18:00.0", "00000000:2A:00.0", "00000000:3A:00.0", "00000000:5D:00.0",
           "00000000:9A:00.0", "00000000:AB:00.0", "00000000:BA:00.0", "00000000:DB:00.0"]
BUSES_SXM4 = ["00000000:07:00.0", "00000000:0F:00.0", "00000000:47:00.0", "00000000:4E:00.0",
              "00000000:87:00.0", "00000000:90:00.0", "00000000:B7:00.0", "00000000:BD:00.0"]
BUSES_AWS = ["00000000:00:16.0", "00000000:00:17.0", "00000000:00:18.0", "00000000:00:19.0",
             "00000000:00:1A.0", "00000000:00:1B.0", "00000000:00:1C.0", "00000000:00:1D.0"]


# ----------------------------------------------------------------------------------------------------------------
# collect_env

def collect_env(torch_v: str, cuda_build: str, os_name: str, gcc: str, libc: str, py: str, py_build: str,
                platform: str, cuda_runtime: str, gpus: list[str], driver: str, cudnn: str, cpu: str,
                libs: list[str], conda: list[str] | None = None, cmake: str = "version 3.27.9",
                cuda_available: bool = True) -> str:
    lines = ["Collecting environment information...",
             f"PyTorch version: {torch_v}",
             "Is debug build: False",
             f"CUDA used to build PyTorch: {cuda_build}",
             "ROCM used to build PyTorch: N/A",
             "",
             f"OS: {os_name}",
             f"GCC version: {gcc}",
             "Clang version: Could not collect",
             f"CMake version: {cmake}",
             f"Libc version: {libc}",
             "",
             f"Python version: {py} {py_build} (64-bit runtime)",
             f"Python platform: {platform}",
             f"Is CUDA available: {cuda_available}",
             f"CUDA runtime version: {cuda_runtime}",
             "CUDA_MODULE_LOADING set to: LAZY",
             "GPU models and configuration: "]
    if len(gpus) == 1:
        lines[-1] = f"GPU models and configuration: GPU 0: {gpus[0]}"
    else:
        lines += [f"GPU {i}: {g}" for i, g in enumerate(gpus)]
    lines += [f"Nvidia driver version: {driver}",
              "cuDNN version: " + cudnn,
              "HIP runtime version: N/A",
              "MIOpen runtime version: N/A",
              "Is XNNPACK available: True",
              "",
              "CPU:"] + cpu.splitlines() + ["", "Versions of relevant libraries:"]
    lines += [f"[pip3] {x}" for x in libs]
    if conda:
        lines += [f"[conda] {x}" for x in conda]
    else:
        lines.append("[conda] Could not collect")
    return "\n".join(lines)


def lscpu(model: str, sockets: int, cores: int, threads: int = 2, mhz: str = "3500.0000") -> str:
    n = sockets * cores * threads
    return dedent(f"""
        Architecture:                       x86_64
        CPU op-mode(s):                     32-bit, 64-bit
        Address sizes:                      52 bits physical, 57 bits virtual
        Byte Order:                         Little Endian
        CPU(s):                             {n}
        On-line CPU(s) list:                0-{n - 1}
        Vendor ID:                          {'AuthenticAMD' if 'AMD' in model else 'GenuineIntel'}
        Model name:                         {model}
        Thread(s) per core:                 {threads}
        Core(s) per socket:                 {cores}
        Socket(s):                          {sockets}
        CPU max MHz:                        {mhz}
        NUMA node(s):                       {sockets}
        """)


# ----------------------------------------------------------------------------------------------------------------
# launchers

def torchrun_banner_old(clock: Clock) -> list[str]:
    t = clock.ds()
    return [f"[{t}] torch.distributed.run: [WARNING] ",
            f"[{t}] torch.distributed.run: [WARNING] *****************************************",
            f"[{t}] torch.distributed.run: [WARNING] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
            f"[{t}] torch.distributed.run: [WARNING] *****************************************"]


def torchrun_banner_new(clock: Clock, pid: int, line: int = 793) -> list[str]:
    t = clock.glog(pid)
    return [f"W{t} torch/distributed/run.py:{line}] ",
            f"W{t} torch/distributed/run.py:{line}] *****************************************",
            f"W{t} torch/distributed/run.py:{line}] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
            f"W{t} torch/distributed/run.py:{line}] *****************************************"]


def child_failed_block(script: str, failures: list[dict], site: str, torchrun_bin: str,
                       lines: dict, header_tb: list[str] | None = None) -> list[str]:
    """failures: dicts with time, host, rank, local_rank, exitcode, pid; first one is the root cause."""
    out = header_tb if header_tb is not None else [
        "Traceback (most recent call last):",
        f'  File "{torchrun_bin}", line 8, in <module>',
        "    sys.exit(main())",
        f'  File "{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line {lines["wrapper"]}, in wrapper',
        "    return f(*args, **kwargs)",
        f'  File "{site}/torch/distributed/run.py", line {lines["main"]}, in main',
        "    run(args)",
        f'  File "{site}/torch/distributed/run.py", line {lines["run"]}, in run',
        "    elastic_launch(",
        f'  File "{site}/torch/distributed/launcher/api.py", line {lines["call"]}, in __call__',
        "    return launch_agent(self._config, self._entrypoint, list(args))",
        f'  File "{site}/torch/distributed/launcher/api.py", line {lines["agent"]}, in launch_agent',
        "    raise ChildFailedError(",
    ]
    out = list(out)
    out += ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
            "============================================================",
            f"{script} FAILED",
            "------------------------------------------------------------",
            "Failures:"]

    def block(i, f):
        return [f"[{i}]:",
                f"  time      : {f['time']}",
                f"  host      : {f['host']}",
                f"  rank      : {f['rank']} (local_rank: {f['local_rank']})",
                f"  exitcode  : {f['exitcode']} (pid: {f['pid']})",
                "  error_file: <N/A>",
                "  traceback : " + (f.get("traceback") or "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")]

    rest = failures[1:]
    if not rest:
        out.append("  <NO_OTHER_FAILURES>")
    else:
        for i, f in enumerate(rest, start=1):
            out += block(i, f)
    out += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
    out += block(0, failures[0])
    out.append("============================================================")
    return out


def ds_world_info(hosts: dict[str, list[int]]) -> str:
    return base64.urlsafe_b64encode(json.dumps(hosts).encode()).decode()


def pip_freeze_list(pkgs: list[tuple[str, str]]) -> list[str]:
    w = max(len(n) for n, _ in pkgs) + 1
    out = ["Package".ljust(w) + "Version", "-" * (w - 1) + " " + "-" * 12]
    for n, v in pkgs:
        out.append(n.ljust(w) + v)
    return out


def rank_prefix(style: str, rank: int, width: int = 1) -> str:
    if style == "default":
        return f"[default{rank}]:"
    if style == "rank":
        return f"[rank{rank}]:"
    if style == "tee":
        return f"{rank}:"
    if style == "srun":
        return f"{rank:>{width}}: "
    return ""


def prefix_lines(prefix: str, text: str) -> list[str]:
    return [prefix + ln for ln in text.split("\n")]


def hex_token(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def alnum(rng: random.Random, n: int, alphabet: str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def hf_token(rng):
    return "hf_" + alnum(rng, 34)


def tqdm_bar(n: int, total: int, elapsed: str, remaining: str, rate: str, width: int = 10, desc: str = "") -> str:
    frac = n / total if total else 0
    pct = int(frac * 100)
    fill = int(frac * width)
    bar = "█" * fill + (" " * (width - fill))
    return f"{desc}{pct:3d}%|{bar}| {n}/{total} [{elapsed}<{remaining}, {rate}]"


def hf_loss_dict(rng, loss, lr, epoch, grad_norm=True):
    if grad_norm:
        return "{'loss': %.4f, 'grad_norm': %.6f, 'learning_rate': %s, 'epoch': %.2f}" % (
            loss, rng.uniform(0.3, 1.6), f"{lr:.10g}" if lr >= 1e-4 else f"{lr:.15e}".rstrip("0").replace("e-0", "e-"), epoch)
    return "{'loss': %.4f, 'learning_rate': %s, 'epoch': %.2f}" % (loss, f"{lr:.4e}".replace("e-0", "e-"), epoch)


def nccl_init(prefix_fn, host: str, ranks: list[int], nccl: str, cuda: str, clock: Clock, nnodes_ib: bool, pids: dict,
              busids: list[str], nranks: int) -> list[str]:
    out = []
    for r in ranks:
        pid = pids[r]
        lr = r % 8
        p = prefix_fn(r)
        if r == 0:
            out.append(f"{p}{host}:{pid}:{pid} [{lr}] NCCL INFO Bootstrap : Using eth0:10.4.{r // 8}.{11 + r // 8}<0>")
            out.append(f"{p}{host}:{pid}:{pid} [{lr}] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation")
            out.append(f"{p}{host}:{pid}:{pid} [{lr}] NCCL INFO cudaDriverVersion 12020")
            out.append(f"{p}NCCL version {nccl}+cuda{cuda}")
        tid = pid + 187 + lr
        if nnodes_ib:
            out.append(f"{p}{host}:{pid}:{tid} [{lr}] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB eth0:10.4.{r // 8}.{11 + r // 8}<0>")
            out.append(f"{p}{host}:{pid}:{tid} [{lr}] NCCL INFO Using network IB")
        else:
            out.append(f"{p}{host}:{pid}:{tid} [{lr}] NCCL INFO NET/Socket : Using [0]eth0:10.4.0.11<0>")
            out.append(f"{p}{host}:{pid}:{tid} [{lr}] NCCL INFO Using network Socket")
        out.append(f"{p}{host}:{pid}:{tid} [{lr}] NCCL INFO comm 0x{0x55d0a1f3c000 + r * 0x1a40:x} rank {r} nranks {nranks} cudaDev {lr} nvmlDev {lr} busId {busids[lr][4:].lower()} commId 0x7c1e5a4b9d3f2e01 - Init START")
    return out


# ================================================================================================================
# extension-undefined-symbol
# ================================================================================================================

PIP_HF_TORCH23 = [
    ("accelerate", "0.29.3"), ("aiohttp", "3.9.5"), ("aiosignal", "1.3.1"), ("annotated-types", "0.6.0"),
    ("async-timeout", "4.0.3"), ("attrs", "23.2.0"), ("bitsandbytes", "0.43.1"), ("certifi", "2024.2.2"),
    ("charset-normalizer", "3.3.2"), ("datasets", "2.19.0"), ("dill", "0.3.8"), ("einops", "0.7.0"),
    ("filelock", "3.13.4"), ("flash-attn", "2.5.6"), ("frozenlist", "1.4.1"), ("fsspec", "2024.3.1"),
    ("huggingface-hub", "0.22.2"), ("idna", "3.7"), ("Jinja2", "3.1.3"), ("MarkupSafe", "2.1.5"),
    ("mpmath", "1.3.0"), ("multidict", "6.0.5"), ("multiprocess", "0.70.16"), ("networkx", "3.3"),
    ("ninja", "1.11.1.1"), ("numpy", "1.26.4"), ("nvidia-cublas-cu12", "12.1.3.1"),
    ("nvidia-cuda-cupti-cu12", "12.1.105"), ("nvidia-cuda-nvrtc-cu12", "12.1.105"),
    ("nvidia-cuda-runtime-cu12", "12.1.105"), ("nvidia-cudnn-cu12", "8.9.2.26"), ("nvidia-cufft-cu12", "11.0.2.54"),
    ("nvidia-curand-cu12", "10.3.2.106"), ("nvidia-cusolver-cu12", "11.4.5.107"),
    ("nvidia-cusparse-cu12", "12.1.0.106"), ("nvidia-nccl-cu12", "2.20.5"), ("nvidia-nvjitlink-cu12", "12.4.127"),
    ("nvidia-nvtx-cu12", "12.1.105"), ("packaging", "24.0"), ("pandas", "2.2.2"), ("peft", "0.10.0"),
    ("pillow", "10.3.0"), ("pip", "24.0"), ("protobuf", "4.25.3"), ("psutil", "5.9.8"), ("pyarrow", "16.0.0"),
    ("pyarrow-hotfix", "0.6"), ("pydantic", "2.7.1"), ("pydantic_core", "2.18.2"),
    ("python-dateutil", "2.9.0.post0"), ("pytz", "2024.1"), ("PyYAML", "6.0.1"), ("regex", "2024.4.16"),
    ("requests", "2.31.0"), ("safetensors", "0.4.3"), ("sentencepiece", "0.2.0"), ("sentry-sdk", "2.0.1"),
    ("setuptools", "69.5.1"), ("six", "1.16.0"), ("sympy", "1.12"), ("tokenizers", "0.19.1"),
    ("torch", "2.3.0+cu121"), ("torchvision", "0.18.0+cu121"), ("tqdm", "4.66.2"), ("transformers", "4.40.1"),
    ("triton", "2.3.0"), ("trl", "0.8.6"), ("typing_extensions", "4.11.0"), ("tzdata", "2024.1"),
    ("urllib3", "2.2.1"), ("wandb", "0.16.6"), ("wheel", "0.43.0"), ("xformers", "0.0.25"), ("xxhash", "3.4.1"),
    ("yarl", "1.9.4"),
]


@case
def ext_flashattn_upgrade_01():
    rng = random.Random(101)
    site = "/usr/local/lib/python3.10/dist-packages"
    smi = nvidia_smi("Thu Apr 25 14:02:11 2024", "535.161.08", "12.2",
                     [gpu("A100-SXM4-80GB", 81920, "00000000:00:05.0", rng)], style="535")
    lines = ["+ date", "Thu Apr 25 14:02:11 UTC 2024", "+ nvidia-smi"] + smi.split("\n")
    lines += ["+ pip install -q -U torch==2.3.0 torchvision==0.18.0 --index-url https://download.pytorch.org/whl/cu121",
              "ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. This behaviour is the source of the following dependency conflicts.",
              "xformers 0.0.25 requires torch==2.2.1, but you have torch 2.3.0+cu121 which is incompatible.",
              "+ pip list"]
    lines += pip_freeze_list(PIP_HF_TORCH23)
    lines += ["+ export WANDB_PROJECT=mistral-sft",
              "+ WANDB_PROJECT=mistral-sft",
              "+ python sft.py --model_name_or_path mistralai/Mistral-7B-v0.1 --dataset data/chat_sft.jsonl --bf16 --packing --max_seq_len 4096 --per_device_train_batch_size 4 --gradient_accumulation_steps 8 --output_dir out/mistral-sft-v3",
              "Traceback (most recent call last):",
              '  File "/workspace/sft.py", line 14, in <module>',
              "    from flash_attn import flash_attn_varlen_func",
              f'  File "{site}/flash_attn/__init__.py", line 3, in <module>',
              "    from flash_attn.flash_attn_interface import (",
              f'  File "{site}/flash_attn/flash_attn_interface.py", line 10, in <module>',
              "    import flash_attn_2_cuda as flash_attn_cuda",
              f"ImportError: {site}/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi",
              "+ exit 1"]
    write_case("extension-undefined-symbol-flashattn-upgrade-01", dict(
        label="extension-undefined-symbol", difficulty="easy",
        description="Single A100 SFT job; the job script upgrades torch to 2.3.0 in place, the flash-attn 2.5.6 build "
                    "left from torch 2.2 then fails at import with undefined symbol c10::cuda::SetDevice(int).",
        facts=dict(gpu_model="A100-SXM4-80GB", driver_version="535.161.08", torch_version="2.3.0", cuda_version="12.1",
                   flash_attn_version="2.5.6", transformers_version="4.40.1", launcher="python"),
        must_mention=["flash", "ABI"]), {"train.log": "\n".join(lines)})


NGC_BANNER_2402 = dedent("""
    
    =============
    == PyTorch ==
    =============
    
    NVIDIA Release 24.02 (build 82611821)
    PyTorch Version 2.3.0a0+ebedce2
    Container image Copyright (c) 2024, NVIDIA CORPORATION & AFFILIATES. All rights reserved.
    Copyright (c) 2014-2024 Facebook Inc.
    Copyright (c) 2011-2014 Idiap Research Institute (Ronan Collobert)
    Copyright (c) 2012-2014 Deepmind Technologies    (Koray Kavukcuoglu)
    Copyright (c) 2011-2012 NEC Laboratories America (Koray Kavukcuoglu)
    Copyright (c) 2011-2013 NYU                      (Clement Farabet)
    Copyright (c) 2006-2010 NEC Laboratories America (Ronan Collobert, Leon Bottou, Iain Melvin, Jason Weston)
    Copyright (c) 2006      Idiap Research Institute (Samy Bengio)
    Copyright (c) 2001-2004 Idiap Research Institute (Ronan Collobert, Samy Bengio, Johnny Mariethoz)
    Copyright (c) 2015      Google Inc.
    Copyright (c) 2015      Yangqing Jia
    Copyright (c) 2013-2016 The Caffe contributors
    All rights reserved.
    
    Various files include modifications (c) NVIDIA CORPORATION & AFFILIATES.  All rights reserved.
    
    This container image and its contents are governed by the NVIDIA Deep Learning Container License.
    By pulling and using the container, you accept the terms and conditions of this license:
    https://developer.nvidia.com/ngc/nvidia-deep-learning-container-license
    
    NOTE: The SHMEM allocation limit is set to the default of 64MB.  This may be
       insufficient for PyTorch.  NVIDIA recommends the use of the following flags:
       docker run --gpus all --ipc=host --ulimit memlock=-1 --ulimit stack=67108864 ...
    """)


@case
def ext_ngc_prebuilt_wheel_02():
    rng = random.Random(102)
    site = "/usr/local/lib/python3.10/dist-packages"
    clock = Clock("2024-03-05 09:13:40", rng)
    sym = "_ZN3c106detail14torchCheckFailEPKcS2_jRKSs"
    lines = NGC_BANNER_2402.split("\n")
    lines += ["", "+ nvidia-smi"]
    lines += nvidia_smi("Tue Mar  5 09:13:40 2024", "550.54.15", "12.4",
                        [gpu("H100 80GB HBM3", 81559, b, rng, cap=700) for b in BUSES_8[:4]], style="550").split("\n")
    lines += ["+ python -c 'import torch; print(torch.__version__, torch.version.cuda, torch._C._GLIBCXX_USE_CXX11_ABI)'",
              "2.3.0a0+ebedce2 12.3 True",
              "+ pip list --format=freeze",
              "+ grep -Ei '^(flash|transformers|trl|accelerate|peft|deepspeed)'",
              "accelerate==0.27.2",
              "flash-attn==2.5.6",
              "peft==0.9.0",
              "transformers==4.38.2",
              "trl==0.7.11",
              "+ accelerate launch --num_processes 4 --num_machines 1 --mixed_precision bf16 --dynamo_backend no train_dpo.py --config configs/dpo_zephyr_h100.yaml"]
    warn_t = clock.tick(3, 4)
    lines.append("Detected kernel version 4.18.0, which is below the recommended minimum of 5.5.0; this can cause the process to hang. It is recommended to upgrade the kernel to the minimum version or higher.")
    tb = ["Traceback (most recent call last):",
          '  File "/workspace/dpo/train_dpo.py", line 22, in <module>',
          "    from flash_attn.bert_padding import pad_input, unpad_input",
          f'  File "{site}/flash_attn/__init__.py", line 3, in <module>',
          "    from flash_attn.flash_attn_interface import (",
          f'  File "{site}/flash_attn/flash_attn_interface.py", line 10, in <module>',
          "    import flash_attn_2_cuda as flash_attn_cuda",
          f"ImportError: {site}/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: {sym}"]
    # four ranks print the same traceback, interleaved line by line at random
    streams = [list(tb) for _ in range(4)]
    idx = [0, 0, 0, 0]
    while any(idx[r] < len(streams[r]) for r in range(4)):
        r = rng.choice([r for r in range(4) if idx[r] < len(streams[r])])
        take = rng.randint(1, 3)
        lines += streams[r][idx[r]: idx[r] + take]
        idx[r] += take
    clock.at(6.4)
    pids = [5184, 5185, 5186, 5187]
    tid = 140398812153664
    t = clock.glog(tid)
    lines.append(f"E{t} torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: 1) local_rank: 0 (pid: {pids[0]}) of binary: /usr/bin/python")
    lines += ["Traceback (most recent call last):",
              '  File "/usr/local/bin/accelerate", line 8, in <module>',
              "    sys.exit(main())",
              f'  File "{site}/accelerate/commands/accelerate_cli.py", line 47, in main',
              "    args.func(args)",
              f'  File "{site}/accelerate/commands/launch.py", line 1014, in launch_command',
              "    multi_gpu_launcher(args)",
              f'  File "{site}/accelerate/commands/launch.py", line 672, in multi_gpu_launcher',
              "    distrib_run.run(args)",
              f'  File "{site}/torch/distributed/run.py", line 870, in run',
              "    elastic_launch(",
              f'  File "{site}/torch/distributed/launcher/api.py", line 132, in __call__',
              "    return launch_agent(self._config, self._entrypoint, list(args))",
              f'  File "{site}/torch/distributed/launcher/api.py", line 263, in launch_agent',
              "    raise ChildFailedError("]
    when = clock.elastic()
    fails = [dict(time=when, host="dpo-h100-7c9f5d-0", rank=r, local_rank=r, exitcode=1, pid=pids[r]) for r in range(4)]
    lines += child_failed_block("train_dpo.py", fails, site, "", {}, header_tb=[])
    write_case("extension-undefined-symbol-ngc-prebuilt-wheel-02", dict(
        label="extension-undefined-symbol", difficulty="medium",
        description="NGC 24.02 container (torch built with the C++11 ABI) with a prebuilt flash-attn wheel built for "
                    "the old ABI; every rank of a 4xH100 accelerate DPO run fails at import on torchCheckFail(..., "
                    "std::string) mangled as 'Ss', the run ends with ChildFailedError.",
        initiating_rank=0,
        facts=dict(gpu_model="H100 80GB HBM3", gpu_count="4", driver_version="550.54.15", launcher="accelerate",
                   world_size="4", flash_attn_version="2.5.6", transformers_version="4.38.2",
                   accelerate_version="0.27.2"),
        must_mention=["ABI", "flash"]), {"train.log": "\n".join(lines)})


@case
def ext_xformers_torch_mismatch_03():
    rng = random.Random(103)
    site = "/home/mchen/miniconda3/envs/sdxl/lib/python3.10/site-packages"
    clock = Clock("2024-05-14 10:01:52", rng)
    lines = ["(sdxl) mchen@ws-4090:~/projects/sdxl-lora$ accelerate launch --multi_gpu --num_processes 2 --mixed_precision fp16 train_text_to_image_lora_sdxl.py \\",
             ">   --pretrained_model_name_or_path stabilityai/stable-diffusion-xl-base-1.0 \\",
             ">   --pretrained_vae_model_name_or_path madebyollin/sdxl-vae-fp16-fix \\",
             ">   --dataset_name ./data/product_shots --caption_column text --resolution 1024 \\",
             ">   --train_batch_size 1 --gradient_accumulation_steps 4 --gradient_checkpointing \\",
             ">   --learning_rate 1e-04 --lr_scheduler constant --max_train_steps 3000 --checkpointing_steps 500 \\",
             ">   --enable_xformers_memory_efficient_attention --seed 42 --output_dir out/product-lora-r16 --report_to tensorboard",
             "The following values were not passed to `accelerate launch` and had defaults used instead:",
             "\t`--num_machines` was set to a value of `1`",
             "\t`--dynamo_backend` was set to a value of `'no'`",
             "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`."]
    warn = ["WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:",
            "    PyTorch 2.2.1+cu121 with CUDA 1201 (you have 2.3.0+cu121)",
            "    Python  3.10.13 (you have 3.10.14)",
            "  Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)",
            "  Memory-efficient attention, SwiGLU, sparse and more won't be available.",
            "  Set XFORMERS_MORE_DETAILS=1 for more details"]
    lines += warn + warn
    d = clock.t.strftime("%m/%d/%Y")

    def tlog(msg, lo=0.01, hi=0.4):
        t = clock.tick(lo, hi)
        return f"{d} {t.strftime('%H:%M:%S')} - INFO - __main__ - {msg}"

    for r in range(2):
        lines += [tlog("Distributed environment: MULTI_GPU  Backend: nccl"),
                  f"Num processes: 2",
                  f"Process index: {r}",
                  f"Local process index: {r}",
                  f"Device: cuda:{r}",
                  "",
                  "Mixed precision type: fp16",
                  ""]
    lines += ["You are using a model of type clip_text_model to instantiate a model of type . This is not supported for all configurations of models and can yield errors.",
              "You are using a model of type clip_text_model to instantiate a model of type . This is not supported for all configurations of models and can yield errors.",
              "{'variance_type', 'dynamic_thresholding_ratio', 'thresholding', 'clip_sample_range'} was not found in config. Values will be initialized to default values.",
              "{'variance_type', 'dynamic_thresholding_ratio', 'thresholding', 'clip_sample_range'} was not found in config. Values will be initialized to default values.",
              "{'reverse_transformer_layers_per_block', 'dropout', 'attention_type'} was not found in config. Values will be initialized to default values.",
              "{'reverse_transformer_layers_per_block', 'dropout', 'attention_type'} was not found in config. Values will be initialized to default values.",
              f"{site}/diffusers/models/attention_processor.py:311: UserWarning: xFormers is available but it can't be used (xformers.ops.memory_efficient_attention not available). Falling back to standard attention.",
              ]
    # the real failure: diffusers' test call of memory_efficient_attention at enable time
    err = ["Traceback (most recent call last):",
           f'  File "/home/mchen/projects/sdxl-lora/train_text_to_image_lora_sdxl.py", line 1311, in <module>',
           "    main(args)",
           f'  File "/home/mchen/projects/sdxl-lora/train_text_to_image_lora_sdxl.py", line 684, in main',
           "    unet.enable_xformers_memory_efficient_attention()",
           f'  File "{site}/diffusers/models/modeling_utils.py", line 284, in enable_xformers_memory_efficient_attention',
           "    self.set_use_memory_efficient_attention_xformers(True, attention_op)",
           f'  File "{site}/diffusers/models/modeling_utils.py", line 250, in set_use_memory_efficient_attention_xformers',
           "    fn_recursive_set_mem_eff(module)",
           f'  File "{site}/diffusers/models/modeling_utils.py", line 246, in fn_recursive_set_mem_eff',
           "    fn_recursive_set_mem_eff(child)",
           f'  File "{site}/diffusers/models/modeling_utils.py", line 246, in fn_recursive_set_mem_eff',
           "    fn_recursive_set_mem_eff(child)",
           f'  File "{site}/diffusers/models/modeling_utils.py", line 246, in fn_recursive_set_mem_eff',
           "    fn_recursive_set_mem_eff(child)",
           f'  File "{site}/diffusers/models/modeling_utils.py", line 243, in fn_recursive_set_mem_eff',
           "    module.set_use_memory_efficient_attention_xformers(valid, attention_op)",
           f'  File "{site}/diffusers/models/attention_processor.py", line 321, in set_use_memory_efficient_attention_xformers',
           "    raise e",
           f'  File "{site}/diffusers/models/attention_processor.py", line 315, in set_use_memory_efficient_attention_xformers',
           "    _ = xformers.ops.memory_efficient_attention(",
           f'  File "{site}/xformers/ops/fmha/__init__.py", line 247, in memory_efficient_attention',
           "    return _memory_efficient_attention(",
           f'  File "{site}/xformers/ops/fmha/__init__.py", line 365, in _memory_efficient_attention',
           "    return _memory_efficient_attention_forward(",
           f'  File "{site}/xformers/ops/fmha/__init__.py", line 381, in _memory_efficient_attention_forward',
           "    op = _dispatch_fw(inp, False)",
           f'  File "{site}/xformers/ops/fmha/dispatch.py", line 125, in _dispatch_fw',
           "    return _run_priority_list(",
           f'  File "{site}/xformers/ops/fmha/dispatch.py", line 65, in _run_priority_list',
           "    raise NotImplementedError(msg)",
           "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:",
           "     query       : shape=(1, 2, 1, 40) (torch.float32)",
           "     key         : shape=(1, 2, 1, 40) (torch.float32)",
           "     value       : shape=(1, 2, 1, 40) (torch.float32)",
           "     attn_bias   : <class 'NoneType'>",
           "     p           : 0.0",
           "`decoderF` is not supported because:",
           "    xFormers wasn't build with CUDA support",
           "    attn_bias type is <class 'NoneType'>",
           "    operator wasn't built - see `python -m xformers.info` for more info",
           "`flshattF@0.0.0` is not supported because:",
           "    xFormers wasn't build with CUDA support",
           "    dtype=torch.float32 (supported: {torch.bfloat16, torch.float16})",
           "    operator wasn't built - see `python -m xformers.info` for more info",
           "`cutlassF` is not supported because:",
           "    xFormers wasn't build with CUDA support",
           "    operator wasn't built - see `python -m xformers.info` for more info",
           "`smallkF` is not supported because:",
           "    max(query.shape[-1] != value.shape[-1]) > 32",
           "    xFormers wasn't build with CUDA support",
           "    operator wasn't built - see `python -m xformers.info` for more info",
           "    unsupported embed per head: 40"]
    lines += err + err
    clock.at(2.2)
    t = clock.glog(139721588418368)
    lines.append(f"E{t} torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: 1) local_rank: 0 (pid: 48113) of binary: /home/mchen/miniconda3/envs/sdxl/bin/python")
    lines += ["Traceback (most recent call last):",
              '  File "/home/mchen/miniconda3/envs/sdxl/bin/accelerate", line 8, in <module>',
              "    sys.exit(main())",
              f'  File "{site}/accelerate/commands/accelerate_cli.py", line 46, in main',
              "    args.func(args)",
              f'  File "{site}/accelerate/commands/launch.py", line 1073, in launch_command',
              "    multi_gpu_launcher(args)",
              f'  File "{site}/accelerate/commands/launch.py", line 718, in multi_gpu_launcher',
              "    distrib_run.run(args)",
              f'  File "{site}/torch/distributed/run.py", line 870, in run',
              "    elastic_launch(",
              f'  File "{site}/torch/distributed/launcher/api.py", line 132, in __call__',
              "    return launch_agent(self._config, self._entrypoint, list(args))",
              f'  File "{site}/torch/distributed/launcher/api.py", line 263, in launch_agent',
              "    raise ChildFailedError("]
    when = clock.elastic()
    fails = [dict(time=when, host="ws-4090", rank=0, local_rank=0, exitcode=1, pid=48113),
             dict(time=when, host="ws-4090", rank=1, local_rank=1, exitcode=1, pid=48114)]
    lines += child_failed_block("train_text_to_image_lora_sdxl.py", fails, site, "", {}, header_tb=[])
    lines.append("(sdxl) mchen@ws-4090:~/projects/sdxl-lora$ ")
    write_case("extension-undefined-symbol-xformers-torch-mismatch-03", dict(
        label="extension-undefined-symbol", difficulty="hard",
        description="SDXL LoRA training on 2x RTX 4090 with accelerate; xformers 0.0.25 was built for torch 2.2.1 but "
                    "torch 2.3.0 is installed, so its C++/CUDA ops do not load (only a warning) and the visible error "
                    "is diffusers' NotImplementedError 'xFormers wasn't build with CUDA support'.",
        initiating_rank=0,
        facts=dict(launcher="accelerate", world_size="2", precision="fp16"),
        must_mention=["xformers", "version"],
        secrets=["mchen"]), {"train.log": "\n".join(lines)})


def interleave(rng: random.Random, streams: list[list[str]], max_chunk: int = 3) -> list[str]:
    out, idx = [], [0] * len(streams)
    while any(idx[i] < len(s) for i, s in enumerate(streams)):
        i = rng.choice([i for i, s in enumerate(streams) if idx[i] < len(s)])
        take = rng.randint(1, max_chunk)
        out += streams[i][idx[i]: idx[i] + take]
        idx[i] += take
    return out


@case
def ext_transformers_wrapped_cxx11_04():
    rng = random.Random(104)
    env = "/opt/conda/envs/llm"
    site = f"{env}/lib/python3.10/site-packages"
    clock = Clock("2024-06-03 21:40:05", rng)
    sym = "_ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"
    lines = ["[setup] job 7731 on gpu-c12 started Mon Jun  3 21:40:05 UTC 2024",
             "[setup] installing shared wheels from /shared/wheels",
             "Processing /shared/wheels/flash_attn-2.5.8-cp310-cp310-linux_x86_64.whl",
             "Requirement already satisfied: torch in /opt/conda/envs/llm/lib/python3.10/site-packages (from flash-attn==2.5.8) (2.3.1)",
             "Requirement already satisfied: einops in /opt/conda/envs/llm/lib/python3.10/site-packages (from flash-attn==2.5.8) (0.8.0)",
             "Installing collected packages: flash-attn",
             "  Attempting uninstall: flash-attn",
             "    Found existing installation: flash-attn 2.5.6",
             "    Uninstalling flash-attn-2.5.6:",
             "      Successfully uninstalled flash-attn-2.5.6",
             "Successfully installed flash-attn-2.5.8",
             "[setup] python -c 'import torch; print(...)'",
             "torch 2.3.1+cu121 cuda 12.1 cxx11_abi=False devices=8",
             "[setup] launching: torchrun --nproc_per_node 8 --master_port 29511 train.py --config configs/llama3_8b_sft.yaml"]
    tid = 139844170045248
    lines += torchrun_banner_new(clock, tid, 793)
    clock.at(4.1)
    pfx = lambda r: f"[rank{r}]:"
    pre = []
    for r in range(8):
        ts = clock.tick(0.01, 0.3).strftime("%Y-%m-%d %H:%M:%S")
        s = [f"{pfx(r)}[{ts}] [train.py:61] rank {r}/8 local_rank {r} device cuda:{r}"]
        if r == 0:
            s += [f"{pfx(r)}[{ts}] [train.py:64] config: model=meta-llama/Meta-Llama-3-8B attn_implementation=flash_attention_2 bf16=True seq_len=8192 micro_bs=2 grad_accum=8 lr=2e-05 zero=none fsdp=full_shard",
                  f"{pfx(r)}Special tokens have been added in the vocabulary, make sure the associated word embeddings are fine-tuned or trained."]
        pre.append(s)
    lines += interleave(rng, pre, 2)
    clock.at(2.7)
    tb_lines = [
        "Traceback (most recent call last):",
        f'  File "{site}/transformers/utils/import_utils.py", line 1535, in _get_module',
        '    return importlib.import_module("." + module_name, self.__name__)',
        f'  File "{env}/lib/python3.10/importlib/__init__.py", line 126, in import_module',
        "    return _bootstrap._gcd_import(name[level:], package, level)",
        '  File "<frozen importlib._bootstrap>", line 1050, in _gcd_import',
        '  File "<frozen importlib._bootstrap>", line 1027, in _find_and_load',
        '  File "<frozen importlib._bootstrap>", line 1006, in _find_and_load_unlocked',
        '  File "<frozen importlib._bootstrap>", line 688, in _load_unlocked',
        '  File "<frozen importlib._bootstrap_external>", line 883, in exec_module',
        '  File "<frozen importlib._bootstrap>", line 241, in _call_with_frames_removed',
        f'  File "{site}/transformers/models/llama/modeling_llama.py", line 54, in <module>',
        "    from flash_attn import flash_attn_func, flash_attn_varlen_func",
        f'  File "{site}/flash_attn/__init__.py", line 3, in <module>',
        "    from flash_attn.flash_attn_interface import (",
        f'  File "{site}/flash_attn/flash_attn_interface.py", line 10, in <module>',
        "    import flash_attn_2_cuda as flash_attn_cuda",
        f"ImportError: {site}/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: {sym}",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
        '  File "/home/svc-train/llm-sft/train.py", line 203, in <module>',
        "    main()",
        '  File "/home/svc-train/llm-sft/train.py", line 118, in main',
        "    model = AutoModelForCausalLM.from_pretrained(",
        f'  File "{site}/transformers/models/auto/auto_factory.py", line 558, in from_pretrained',
        "    model_class = _get_model_class(config, cls._model_mapping)",
        f'  File "{site}/transformers/models/auto/auto_factory.py", line 381, in _get_model_class',
        "    supported_models = model_mapping[type(config)]",
        f'  File "{site}/transformers/models/auto/auto_factory.py", line 732, in __getitem__',
        "    return self._load_attr_from_module(model_type, model_name)",
        f'  File "{site}/transformers/models/auto/auto_factory.py", line 746, in _load_attr_from_module',
        "    return getattribute_from_module(self._modules[module_name], attr)",
        f'  File "{site}/transformers/models/auto/auto_factory.py", line 690, in getattribute_from_module',
        "    if hasattr(module, attr):",
        f'  File "{site}/transformers/utils/import_utils.py", line 1525, in __getattr__',
        "    module = self._get_module(self._class_to_module[name])",
        f'  File "{site}/transformers/utils/import_utils.py", line 1537, in _get_module',
        "    raise RuntimeError(",
        "RuntimeError: Failed to import transformers.models.llama.modeling_llama because of the following error (look up to see its traceback):",
        f"{site}/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: {sym}"]
    order = [3, 0, 5, 1, 6, 2, 7, 4]
    streams = [[f"{pfx(r)}{ln}" for ln in tb_lines] for r in order]
    lines += interleave(rng, streams, 4)
    clock.at(1.3)
    pids = {r: 61402 + r for r in range(8)}
    for r in [0, 1, 2, 4, 5, 6, 7]:
        t = clock.glog(tid, 0.0005, 0.002)
        lines.append(f"W{t} torch/distributed/elastic/multiprocessing/api.py:851] Sending process {pids[r]} closing signal SIGTERM")
    t = clock.glog(tid, 0.2, 0.4)
    lines.append(f"E{t} torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: 1) local_rank: 3 (pid: {pids[3]}) of binary: {env}/bin/python")
    when = clock.elastic()
    lines += child_failed_block("train.py", [dict(time=when, host="gpu-c12", rank=3, local_rank=3, exitcode=1, pid=pids[3])],
                                site, f"{env}/bin/torchrun", dict(wrapper=347, main=879, run=870, call=132, agent=263))
    write_case("extension-undefined-symbol-transformers-wrapped-04", dict(
        label="extension-undefined-symbol", difficulty="medium",
        description="8-rank torchrun SFT; a flash-attn wheel built elsewhere with the C++11 ABI was installed into a "
                    "PyPI-torch env (cxx11_abi=False). transformers' lazy import re-raises it as 'Failed to import "
                    "transformers.models.llama.modeling_llama'; the undefined __cxx11 symbol is in the chained error.",
        initiating_rank=3,
        facts=dict(torch_version="2.3.1", cuda_version="12.1", launcher="torchrun", world_size="8",
                   flash_attn_version="2.5.8", exit_code="1"),
        must_mention=["ABI", "flash"]), {"train.log": "\n".join(lines)})


# ================================================================================================================
# cuda-version-mismatch-build
# ================================================================================================================

@case
def cvm_conda_nvcc_124_01():
    rng = random.Random(201)
    env = "/home/priya/miniforge3/envs/sparse"
    site = f"{env}/lib/python3.10/site-packages"
    lines = ["(sparse) priya@lab-a6000:~/code/blocksparse-attn$ conda list | grep -E 'cuda|pytorch|nvcc'",
             "cuda-cccl                 12.4.127                      0    nvidia",
             "cuda-nvcc                 12.4.131                      0    nvidia",
             "cuda-version              12.4                 h3060b56_3    conda-forge",
             "pytorch                   2.0.1           py3.10_cuda11.8_cudnn8.7.0_0    pytorch",
             "pytorch-cuda              11.8                 h7e8668a_5    pytorch",
             "pytorch-mutex             1.0                        cuda    pytorch",
             "(sparse) priya@lab-a6000:~/code/blocksparse-attn$ which nvcc && nvcc --version",
             f"{env}/bin/nvcc",
             "nvcc: NVIDIA (R) Cuda compiler driver",
             "Copyright (c) 2005-2024 NVIDIA Corporation",
             "Built on Thu_Mar_28_02:18:24_PDT_2024",
             "Cuda compilation tools, release 12.4, V12.4.131",
             "Build cuda_12.4.r12.4/compiler.34097967_0",
             "(sparse) priya@lab-a6000:~/code/blocksparse-attn$ cd csrc && python setup.py build_ext --inplace",
             "running build_ext",
             "Traceback (most recent call last):",
             '  File "/home/priya/code/blocksparse-attn/csrc/setup.py", line 38, in <module>',
             "    setup(",
             f'  File "{site}/setuptools/__init__.py", line 107, in setup',
             "    return distutils.core.setup(**attrs)",
             f'  File "{site}/setuptools/_distutils/core.py", line 185, in setup',
             "    return run_commands(dist)",
             f'  File "{site}/setuptools/_distutils/core.py", line 201, in run_commands',
             "    dist.run_commands()",
             f'  File "{site}/setuptools/_distutils/dist.py", line 969, in run_commands',
             "    self.run_command(cmd)",
             f'  File "{site}/setuptools/dist.py", line 1234, in run_command',
             "    super().run_command(command)",
             f'  File "{site}/setuptools/_distutils/dist.py", line 988, in run_command',
             "    cmd_obj.run()",
             f'  File "{site}/setuptools/command/build_ext.py", line 84, in run',
             "    _build_ext.run(self)",
             f'  File "{site}/setuptools/_distutils/command/build_ext.py", line 345, in run',
             "    self.build_extensions()",
             f'  File "{site}/torch/utils/cpp_extension.py", line 499, in build_extensions',
             "    _check_cuda_version(compiler_name, compiler_version)",
             f'  File "{site}/torch/utils/cpp_extension.py", line 387, in _check_cuda_version',
             "    raise RuntimeError(CUDA_MISMATCH_MESSAGE.format(cuda_str_version, torch.version.cuda))",
             "RuntimeError: ",
             "The detected CUDA version (12.4) mismatches the version that was used to compile",
             "PyTorch (11.8). Please make sure to use the same CUDA versions.",
             "",
             "(sparse) priya@lab-a6000:~/code/blocksparse-attn/csrc$ "]
    write_case("cuda-version-mismatch-build-conda-nvcc-01", dict(
        label="cuda-version-mismatch-build", difficulty="easy",
        description="In-house CUDA extension built with setup.py in a conda env: torch 2.0.1 is the CUDA 11.8 build, "
                    "but `conda install cuda-nvcc` pulled nvcc 12.4 into the env; torch's BuildExtension refuses.",
        facts=dict(cuda_version="11.8", torch_version="2.0.1"),
        must_mention=["nvcc", "11.8"], secrets=["priya"]), {"build.log": "\n".join(lines)})


@case
def cvm_deepspeed_ci_117_02():
    rng = random.Random(202)
    site = "/usr/local/lib/python3.10/dist-packages"
    clock = Clock("2024-01-22 16:03:12", rng)
    job = 1184233
    cpu = lscpu("AMD EPYC 7R13 Processor", 1, 24, 2, "3600.0000")
    ce = collect_env("2.1.2+cu121", "12.1", "Ubuntu 22.04.3 LTS (x86_64)", "(Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0",
                     "glibc-2.35", "3.10.12", "(main, Nov 20 2023, 15:14:05) [GCC 11.4.0]",
                     "Linux-5.15.0-1051-aws-x86_64-with-glibc2.35", "11.7.99", ["NVIDIA A10G"], "535.104.12",
                     "Could not collect", cpu,
                     ["numpy==1.26.3", "torch==2.1.2", "triton==2.1.0"])
    lines = [f"Running with gitlab-runner 16.6.1 (f5da3c5a)",
             "  on gpu-runner-a10g-02 xK7pQm2Z, system ID: s_5d2b8f1e0a4c",
             "Preparing the \"docker\" executor",
             "Using Docker executor with image registry.gitlab.internal/ml-platform/train-base:cu117-py310 ...",
             "Pulling docker image registry.gitlab.internal/ml-platform/train-base:cu117-py310 ...",
             "Using docker image sha256:7e1c0d2b9a54f6e3c8b1a0f9d2e4c6b8a0d1f3e5c7b9a1d3f5e7c9b1a3d5f7e9 for registry.gitlab.internal/ml-platform/train-base:cu117-py310 with digest registry.gitlab.internal/ml-platform/train-base@sha256:1f0b7c3e5d9a2c4e6f8b0d2a4c6e8f0b2d4a6c8e0f2b4d6a8c0e2f4b6d8a0c2e ...",
             "Preparing environment",
             "Running on runner-xk7pqm2z-project-412-concurrent-0 via gpu-runner-a10g-02...",
             "Getting source from Git repository",
             "Fetching changes with git depth set to 20...",
             "Reinitialized existing Git repository in /builds/ml-platform/llm-finetune/.git/",
             "Checking out 9c41e0d2 as detached HEAD (ref is refs/merge-requests/218/head)...",
             "Skipping Git submodules setup",
             "Executing \"step_script\" stage of the job script",
             "$ pip install --upgrade --index-url https://download.pytorch.org/whl/cu121 torch==2.1.2",
             "Looking in indexes: https://download.pytorch.org/whl/cu121",
             "Collecting torch==2.1.2",
             "  Downloading https://download.pytorch.org/whl/cu121/torch-2.1.2%2Bcu121-cp310-cp310-linux_x86_64.whl (2200.7 MB)",
             "     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 2.2/2.2 GB 38.5 MB/s eta 0:00:00",
             "Requirement already satisfied: filelock in /usr/local/lib/python3.10/dist-packages (from torch==2.1.2) (3.13.1)",
             "Requirement already satisfied: typing-extensions in /usr/local/lib/python3.10/dist-packages (from torch==2.1.2) (4.9.0)",
             "Collecting triton==2.1.0 (from torch==2.1.2)",
             "  Downloading https://download.pytorch.org/whl/triton-2.1.0-0-cp310-cp310-manylinux2014_x86_64.manylinux_2_17_x86_64.whl (89.2 MB)",
             "     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 89.2/89.2 MB 61.0 MB/s eta 0:00:00",
             "Installing collected packages: triton, torch",
             "  Attempting uninstall: triton",
             "    Found existing installation: triton 2.0.0",
             "    Uninstalling triton-2.0.0:",
             "      Successfully uninstalled triton-2.0.0",
             "  Attempting uninstall: torch",
             "    Found existing installation: torch 2.0.1+cu117",
             "    Uninstalling torch-2.0.1+cu117:",
             "      Successfully uninstalled torch-2.0.1+cu117",
             "ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. This behaviour is the source of the following dependency conflicts.",
             "torchvision 0.15.2+cu117 requires torch==2.0.1, but you have torch 2.1.2+cu121 which is incompatible.",
             "Successfully installed torch-2.1.2+cu121 triton-2.1.0",
             "$ python -m torch.utils.collect_env"] + ce.split("\n")
    lines += ["$ export DS_BUILD_CPU_ADAM=1 DS_BUILD_FUSED_ADAM=1 DS_BUILD_UTILS=1",
              "$ pip install --no-cache-dir deepspeed==0.12.6",
              "Collecting deepspeed==0.12.6",
              "  Downloading deepspeed-0.12.6.tar.gz (1.2 MB)",
              "     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 1.2/1.2 MB 24.9 MB/s eta 0:00:00",
              "  Preparing metadata (setup.py): started",
              "  Preparing metadata (setup.py): finished with status 'error'",
              "  error: subprocess-exited-with-error",
              "  ",
              "  × python setup.py egg_info did not run successfully.",
              "  │ exit code: 1"]
    tmp = "/tmp/pip-install-3v9lq2ad/deepspeed_8d4f21c7b0e34a8d9f6e5c1b2a7d0e93"
    out = [f"[{clock.ds(40, 50)}] [INFO] [real_accelerator.py:161:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
           "DS_BUILD_OPS=0",
           "Traceback (most recent call last):",
           '  File "<string>", line 2, in <module>',
           '  File "<pip-setuptools-caller>", line 34, in <module>',
           f'  File "{tmp}/setup.py", line 182, in <module>',
           "    ext_modules.append(builder.builder())",
           f'  File "{tmp}/op_builder/builder.py", line 653, in builder',
           "    assert_no_cuda_mismatch(self.name)",
           f'  File "{tmp}/op_builder/builder.py", line 100, in assert_no_cuda_mismatch',
           "    raise CUDAMismatchException(",
           "op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version 11.7 does not match the version torch was compiled with 12.1, unable to compile cuda/cpp extensions without a matching cuda version."]
    lines.append(f"  ╰─> [{len(out)} lines of output]")
    lines += ["      " + ln for ln in out]
    lines += ["      [end of output]",
              "  ",
              "  note: This error originates from a subprocess, and is likely not a problem with pip.",
              "error: metadata-generation-failed",
              "",
              "× Encountered error while generating package metadata.",
              "╰─> See above for output.",
              "",
              "note: This is an issue with the package mentioned above, not pip.",
              "hint: See above for details.",
              "Cleaning up project directory and file based variables",
              "ERROR: Job failed: exit code 1"]
    write_case("cuda-version-mismatch-build-deepspeed-ci-02", dict(
        label="cuda-version-mismatch-build", difficulty="medium",
        description="GitLab CI image with the CUDA 11.7 toolkit; the job upgrades torch to the cu121 build, then "
                    "builds DeepSpeed ops (DS_BUILD_*) and DeepSpeed raises CUDAMismatchException inside pip's "
                    "captured output; the job ends with generic pip and runner errors.",
        facts=dict(gpu_model="A10G", driver_version="535.104.12", torch_version="2.1.2", cuda_version="12.1",
                   python_version="3.10.12", deepspeed_version="0.12.6"),
        must_mention=["11.7", "12.1"]), {"ci-job.log": "\n".join(lines)})


@case
def cvm_flashattn_apt_nvcc_03():
    rng = random.Random(203)
    site = "/home/azureuser/venv/lib/python3.10/site-packages"
    smi = nvidia_smi("Wed Feb 14 11:26:48 2024", "535.146.02", "12.2",
                     [gpu("A100 80GB PCIe", 81920, "00000001:00:00.0", rng, cap=300)], style="535")
    lines = ["azureuser@ft-a100-vm:~$ nvidia-smi"] + smi.split("\n")
    lines += ["azureuser@ft-a100-vm:~$ sudo apt-get install -y ninja-build nvidia-cuda-toolkit",
              "Reading package lists... Done",
              "Building dependency tree... Done",
              "Reading state information... Done",
              "The following additional packages will be installed:",
              "  ca-certificates-java default-jre-headless fonts-dejavu-extra java-common libaccinj64-11.5",
              "  libcub-dev libcublas11 libcublaslt11 libcudart11.0 libcufft10 libcufftw10 libcuinj64-11.5",
              "  libcupti-dev libcupti-doc libcupti11.5 libcurand10 libcusolver11 libcusolvermg11 libcusparse11",
              "  libnppc11 libnppial11 libnppicc11 libnppidei11 libnppif11 libnppig11 libnppim11 libnppist11",
              "  libnppisu11 libnppitc11 libnpps11 libnvblas11 libnvidia-ml-dev libnvjpeg11 libnvrtc-builtins11.5",
              "  libnvrtc11.2 libnvtoolsext1 libnvvm4 libthrust-dev node-html5shiv nvidia-cuda-dev nvidia-cuda-gdb",
              "  nvidia-cuda-toolkit-doc nvidia-opencl-dev nvidia-profiler nvidia-visual-profiler ocl-icd-opencl-dev",
              "  openjdk-11-jre-headless opencl-c-headers opencl-clhpp-headers",
              "0 upgraded, 52 newly installed, 0 to remove and 41 not upgraded.",
              "Need to get 2,071 MB of archives.",
              "After this operation, 5,498 MB of additional disk space will be used.",
              "Get:1 http://azure.archive.ubuntu.com/ubuntu jammy/multiverse amd64 libcudart11.0 amd64 11.5.117~11.5.1-1ubuntu1 [163 kB]",
              "Get:2 http://azure.archive.ubuntu.com/ubuntu jammy/multiverse amd64 libcublaslt11 amd64 11.7.4.6~11.5.1-1ubuntu1 [173 MB]",
              "Fetched 2,071 MB in 41s (50.2 MB/s)",
              "Setting up nvidia-cuda-dev:amd64 (11.5.1-1ubuntu1) ...",
              "Setting up nvidia-cuda-toolkit (11.5.1-1ubuntu1) ...",
              "Processing triggers for man-db (2.10.2-1) ...",
              "Processing triggers for libc-bin (2.35-0ubuntu3.6) ...",
              "azureuser@ft-a100-vm:~$ source venv/bin/activate",
              "(venv) azureuser@ft-a100-vm:~$ python -c \"import torch; print(torch.__version__, torch.cuda.is_available(), torch.cuda.get_device_name(0))\"",
              "2.1.2+cu121 True NVIDIA A100 80GB PCIe",
              "(venv) azureuser@ft-a100-vm:~$ pip install packaging wheel",
              "Requirement already satisfied: packaging in ./venv/lib/python3.10/site-packages (23.2)",
              "Requirement already satisfied: wheel in ./venv/lib/python3.10/site-packages (0.42.0)",
              "(venv) azureuser@ft-a100-vm:~$ MAX_JOBS=8 pip install flash-attn==2.5.2 --no-build-isolation",
              "Collecting flash-attn==2.5.2",
              "  Downloading flash_attn-2.5.2.tar.gz (2.5 MB)",
              "     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 2.5/2.5 MB 33.8 MB/s eta 0:00:00",
              "  Preparing metadata (setup.py) ... error",
              "  error: subprocess-exited-with-error",
              "  ",
              "  × python setup.py egg_info did not run successfully.",
              "  │ exit code: 1"]
    tmp = "/tmp/pip-install-w0t5rj1x/flash-attn_2f9d0b6a71c54e8c8d3a5b0e9c4f1a27"
    out = ["", "", "torch.__version__  = 2.1.2+cu121", "", "",
           "Traceback (most recent call last):",
           '  File "<string>", line 2, in <module>',
           '  File "<pip-setuptools-caller>", line 34, in <module>',
           f'  File "{tmp}/setup.py", line 136, in <module>',
           "    raise RuntimeError(",
           "RuntimeError: FlashAttention is only supported on CUDA 11.6 and above.  Note: make sure nvcc has a supported version by running nvcc -V."]
    lines.append(f"  ╰─> [{len(out)} lines of output]")
    lines += [("      " + ln) if ln else "      " for ln in out]
    lines += ["      [end of output]",
              "  ",
              "  note: This error originates from a subprocess, and is likely not a problem with pip.",
              "error: metadata-generation-failed",
              "",
              "× Encountered error while generating package metadata.",
              "╰─> See above for output.",
              "",
              "note: This is an issue with the package mentioned above, not pip.",
              "hint: See above for details.",
              "(venv) azureuser@ft-a100-vm:~$ "]
    write_case("cuda-version-mismatch-build-flashattn-apt-nvcc-03", dict(
        label="cuda-version-mismatch-build", difficulty="hard",
        description="Azure A100 VM: torch 2.1.2+cu121 works and nvidia-smi says CUDA 12.2, but installing Ubuntu's "
                    "nvidia-cuda-toolkit put nvcc 11.5 in /usr/bin, so CUDA_HOME resolves to it; flash-attn's build "
                    "says 'only supported on CUDA 11.6 and above', which reads like a driver/CUDA problem.",
        facts=dict(gpu_model="A100 80GB PCIe", driver_version="535.146.02", torch_version="2.1.2",
                   cuda_version="12.1"),
        must_mention=["nvcc", "CUDA_HOME"]), {"session.log": "\n".join(lines)})


# ================================================================================================================
# bitsandbytes-setup
# ================================================================================================================

BNB_RUNTIME_ERROR = [
    "RuntimeError: ",
    "        CUDA Setup failed despite GPU being available. Please run the following command to get more information:",
    "",
    "        python -m bitsandbytes",
    "",
    "        Inspect the output of the command and see if you can locate CUDA libraries. You might need to add them",
    "        to your LD_LIBRARY_PATH. If you suspect a bug, please take the information from python -m bitsandbytes",
    "        and open an issue at: https://github.com/TimDettmers/bitsandbytes/issues",
]


def bnb_import_chain(site: str) -> list[str]:
    return [f'  File "{site}/bitsandbytes/__init__.py", line 6, in <module>',
            "    from . import cuda_setup, utils, research",
            f'  File "{site}/bitsandbytes/research/__init__.py", line 1, in <module>',
            "    from . import nn",
            f'  File "{site}/bitsandbytes/research/nn/__init__.py", line 1, in <module>',
            "    from .modules import LinearFP8Mixed, LinearFP8Global",
            f'  File "{site}/bitsandbytes/research/nn/modules.py", line 8, in <module>',
            "    from bitsandbytes.optim import GlobalOptimManager",
            f'  File "{site}/bitsandbytes/optim/__init__.py", line 6, in <module>',
            "    from bitsandbytes.cextension import COMPILED_WITH_CUDA",
            f'  File "{site}/bitsandbytes/cextension.py", line 20, in <module>',
            "    raise RuntimeError('''"]


@case
def bnb_k8s_no_libcudart_01():
    rng = random.Random(301)
    site = "/usr/local/lib/python3.10/dist-packages"
    smi = nvidia_smi("Fri Jul 14 08:31:02 2023", "525.105.17", "12.0",
                     [gpu("A10G", 23028, "00000000:00:1E.0", rng, cap=300, pm="On", fan="0%", perf="P8", pwr=16)],
                     style="old")
    lines = ["[entrypoint] pod qlora-falcon7b-5f7d9c-xq2lm starting at 2023-07-14T08:31:02Z"] + smi.split("\n")
    lines += ["[entrypoint] python3 -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())'",
              "2.0.1+cu118 11.8 True",
              "[entrypoint] exec python3 qlora.py --model_name_or_path tiiuae/falcon-7b --dataset oasst1 --bits 4 --bf16 --lora_r 64 --output_dir /output/falcon7b-qlora",
              "",
              "===================================BUG REPORT===================================",
              "Welcome to bitsandbytes. For bug reports, please run",
              "",
              "python -m bitsandbytes",
              "",
              " and submit this information together with your error trace to: https://github.com/TimDettmers/bitsandbytes/issues",
              "================================================================================",
              f"bin {site}/bitsandbytes/libbitsandbytes_cpu.so"]
    w = f"{site}/bitsandbytes/cuda_setup/main.py:149: UserWarning: "
    lines += [w + "WARNING: The following directories listed in your path were found to be non-existent: {PosixPath('/usr/local/nvidia/lib'), PosixPath('/usr/local/nvidia/lib64')}",
              "  warn(msg)",
              w + "WARNING: The following directories listed in your path were found to be non-existent: {PosixPath('443'), PosixPath('tcp'), PosixPath('//172.20.0.1')}",
              "  warn(msg)",
              w + "WARNING: The following directories listed in your path were found to be non-existent: {PosixPath('qlora-falcon7b-5f7d9c-xq2lm')}",
              "  warn(msg)",
              "CUDA_SETUP: WARNING! libcudart.so not found in any environmental path. Searching in backup paths...",
              w + "WARNING: No libcudart.so found! Install CUDA or the cudatoolkit package (anaconda)!",
              "  warn(msg)",
              "CUDA SETUP: Highest compute capability among GPUs detected: 8.6",
              "CUDA SETUP: Detected CUDA version None",
              "CUDA SETUP: Problem: The main issue seems to be that the main CUDA runtime library was not detected.",
              "CUDA SETUP: Solution 1: To solve the issue the libcudart.so location needs to be added to the LD_LIBRARY_PATH variable",
              "CUDA SETUP: Solution 1a): Find the cuda runtime library via: find / -name libcudart.so 2>/dev/null",
              "CUDA SETUP: Solution 1b): Once the library is found add it to the LD_LIBRARY_PATH: export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:FOUND_PATH_FROM_1a",
              "CUDA SETUP: Solution 1c): For a permanent solution add the export from 1b into your .bashrc file, located at ~/.bashrc",
              "CUDA SETUP: Solution 2: If no library was found in step 1a) you need to install CUDA.",
              "CUDA SETUP: Solution 2a): Download CUDA install script: wget https://github.com/TimDettmers/bitsandbytes/blob/main/cuda_install.sh",
              "CUDA SETUP: Solution 2b): Install desired CUDA version to desired location. The syntax is bash cuda_install.sh CUDA_VERSION PATH_TO_INSTALL_INTO.",
              "CUDA SETUP: Solution 2b): For example, \"bash cuda_install.sh 113 ~/local/\" will download CUDA 11.3 and install into the folder ~/local",
              "CUDA SETUP: Setup Failed!",
              "Traceback (most recent call last):",
              '  File "/app/qlora.py", line 21, in <module>',
              "    import bitsandbytes as bnb"] + bnb_import_chain(site) + BNB_RUNTIME_ERROR
    lines += ["[entrypoint] qlora.py exited with status 1"]
    write_case("bitsandbytes-setup-k8s-no-libcudart-01", dict(
        label="bitsandbytes-setup", difficulty="easy",
        description="Kubernetes QLoRA pod on an A10G: bitsandbytes 0.39-era CUDA setup searches LD_LIBRARY_PATH "
                    "(non-existent /usr/local/nvidia dirs) for libcudart.so, pip torch keeps its CUDA runtime in "
                    "site-packages, so setup fails with 'CUDA Setup failed despite GPU being available'.",
        facts=dict(gpu_model="A10G", driver_version="525.105.17", torch_version="2.0.1", cuda_version="11.8",
                   launcher="python"),
        must_mention=["bitsandbytes", "libcudart"]), {"pod.log": "\n".join(lines)})


@case
def bnb_cu124_wrapped_02():
    rng = random.Random(302)
    site = "/usr/local/lib/python3.10/site-packages"
    lines = ["$ python finetune_qlora.py --model meta-llama/Meta-Llama-3.1-8B-Instruct --data data/support_tickets.jsonl --lora-r 16 --bf16",
             f"[2024-08-06 13:12:44] torch 2.4.0+cu124 | CUDA available: True | device: NVIDIA L4 (compute capability 8.9)",
             "[2024-08-06 13:12:44] transformers 4.43.3 | peft 0.12.0 | bitsandbytes 0.41.3.post2",
             "[2024-08-06 13:12:45] loading tokenizer...",
             "[2024-08-06 13:12:46] BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type='nf4', bnb_4bit_compute_dtype=torch.bfloat16, bnb_4bit_use_double_quant=True)",
             "False",
             "",
             "===================================BUG REPORT===================================",
             f"{site}/bitsandbytes/cuda_setup/main.py:167: UserWarning: Welcome to bitsandbytes. For bug reports, please run",
             "",
             "python -m bitsandbytes",
             "",
             "",
             "  warn(msg)",
             "================================================================================",
             f"{site}/bitsandbytes/cuda_setup/main.py:167: UserWarning: /usr/local did not contain ['libcudart.so', 'libcudart.so.11.0', 'libcudart.so.12.0'] as expected! Searching further paths...",
             "  warn(msg)",
             "The following directories listed in your path were found to be non-existent: {PosixPath('/usr/local/nvidia/lib64'), PosixPath('/usr/local/nvidia/lib')}",
             "CUDA SETUP: CUDA runtime path found: /usr/local/cuda/lib64/libcudart.so",
             "DEBUG: Possible options found for libcudart.so: {PosixPath('/usr/local/cuda/lib64/libcudart.so')}",
             "CUDA SETUP: PyTorch settings found: CUDA_VERSION=124, Highest Compute Capability: 8.9.",
             "CUDA SETUP: To manually override the PyTorch CUDA version please see:https://github.com/TimDettmers/bitsandbytes/blob/main/how_to_use_nonpytorch_cuda.md",
             "CUDA SETUP: Required library version not found: libbitsandbytes_cuda124.so. Maybe you need to compile it from source?",
             "CUDA SETUP: Defaulting to libbitsandbytes_cpu.so...",
             "",
             "================================================ERROR=====================================",
             "CUDA SETUP: CUDA detection failed! Possible reasons:",
             "1. You need to manually override the PyTorch CUDA version. Please see: \"https://github.com/TimDettmers/bitsandbytes/blob/main/how_to_use_nonpytorch_cuda.md",
             "2. CUDA driver not installed",
             "3. CUDA not installed",
             "4. You have multiple conflicting CUDA libraries",
             "5. Required library not pre-compiled for this bitsandbytes release!",
             "CUDA SETUP: If you compiled from source, try again with `make CUDA_VERSION=DETECTED_CUDA_VERSION` for example, `make CUDA_VERSION=113`.",
             "CUDA SETUP: The CUDA version for the compile might depend on your conda install. Inspect CUDA version via `conda list | grep cuda`.",
             "================================================================================",
             "",
             "CUDA SETUP: Something unexpected happened. Please compile from source:",
             "git clone https://github.com/TimDettmers/bitsandbytes.git",
             "cd bitsandbytes",
             "CUDA_VERSION=124 make cuda12x",
             "python setup.py install",
             "CUDA SETUP: Setup Failed!",
             "Traceback (most recent call last):",
             f'  File "{site}/transformers/utils/import_utils.py", line 1603, in _get_module',
             '    return importlib.import_module("." + module_name, self.__name__)',
             '  File "/usr/local/lib/python3.10/importlib/__init__.py", line 126, in import_module',
             "    return _bootstrap._gcd_import(name[level:], package, level)",
             '  File "<frozen importlib._bootstrap>", line 1050, in _gcd_import',
             '  File "<frozen importlib._bootstrap>", line 1027, in _find_and_load',
             '  File "<frozen importlib._bootstrap>", line 1006, in _find_and_load_unlocked',
             '  File "<frozen importlib._bootstrap>", line 688, in _load_unlocked',
             '  File "<frozen importlib._bootstrap_external>", line 883, in exec_module',
             '  File "<frozen importlib._bootstrap>", line 241, in _call_with_frames_removed',
             f'  File "{site}/transformers/integrations/bitsandbytes.py", line 21, in <module>',
             "    import bitsandbytes as bnb"] + bnb_import_chain(site) + BNB_RUNTIME_ERROR
    lines += ["",
              "The above exception was the direct cause of the following exception:",
              "",
              "Traceback (most recent call last):",
              '  File "/home/jovyan/work/finetune_qlora.py", line 97, in <module>',
              "    model = AutoModelForCausalLM.from_pretrained(",
              f'  File "{site}/transformers/models/auto/auto_factory.py", line 564, in from_pretrained',
              "    return model_class.from_pretrained(",
              f'  File "{site}/transformers/modeling_utils.py", line 3770, in from_pretrained',
              "    hf_quantizer.preprocess_model(",
              f'  File "{site}/transformers/quantizers/base.py", line 182, in preprocess_model',
              "    return self._process_model_before_weight_loading(model, **kwargs)",
              f'  File "{site}/transformers/quantizers/quantizer_bnb_4bit.py", line 287, in _process_model_before_weight_loading',
              "    from ..integrations import get_keys_to_not_convert, replace_with_bnb_linear",
              '  File "<frozen importlib._bootstrap>", line 1075, in _handle_fromlist',
              f'  File "{site}/transformers/utils/import_utils.py", line 1593, in __getattr__',
              "    module = self._get_module(self._class_to_module[name])",
              f'  File "{site}/transformers/utils/import_utils.py", line 1605, in _get_module',
              "    raise RuntimeError(",
              "RuntimeError: Failed to import transformers.integrations.bitsandbytes because of the following error (look up to see its traceback):",
              "",
              "        CUDA Setup failed despite GPU being available. Please run the following command to get more information:",
              "",
              "        python -m bitsandbytes",
              "",
              "        Inspect the output of the command and see if you can locate CUDA libraries. You might need to add them",
              "        to your LD_LIBRARY_PATH. If you suspect a bug, please take the information from python -m bitsandbytes",
              "        and open an issue at: https://github.com/TimDettmers/bitsandbytes/issues",
              "$ "]
    write_case("bitsandbytes-setup-cu124-wrapped-02", dict(
        label="bitsandbytes-setup", difficulty="medium",
        description="QLoRA notebook-server job on an L4: torch 2.4.0 is the CUDA 12.4 build but bitsandbytes 0.41.3 "
                    "ships no libbitsandbytes_cuda124.so; setup fails and transformers re-raises it as 'Failed to import "
                    "transformers.integrations.bitsandbytes' during from_pretrained.",
        facts=dict(gpu_model="L4", torch_version="2.4.0", cuda_version="12.4", transformers_version="4.43.3",
                   launcher="python", compute_capability="8.9"),
        must_mention=["bitsandbytes", "cuda124"]), {"finetune.log": "\n".join(lines)})
