#!/usr/bin/env python3
"""Generate the eval cases for the infrastructure and hardware failures.

Ids covered: too-many-open-files, disk-full, sighup-session-hangup, process-killed-sigkill, slurm-time-limit,
gpu-fell-off-bus, gpu-ecc-error, gpu-p2p-unsupported.

Each case is ONE run: the log file(s) that run printed, plus case.yaml. The noise (nvidia-smi tables,
collect_env, ds_report, launcher banners, NCCL INFO lines, progress bars) comes from the helpers below; the
failure text of each case is written out per case. Output is deterministic (seeded): re-running the script
reproduces the checked-in files.

Four cases embed the output of real failing CPU programs run under CPU PyTorch (the REAL_* constants below):
  - too-many-open-files-clip-replay-cpu-01   DataLoader, file_descriptor sharing, `ulimit -n 1024`,
                                             a replay buffer that keeps received batches alive
  - too-many-open-files-shard-handles-cpu-03 Dataset caching one open file per shard, `ulimit -n 512`
  - process-killed-sigkill-gloo-kill9-cpu-02 4-rank gloo DDP under torchrun, one worker sent `kill -9`
  - disk-full-tmpfs-checkpoint-cpu-02        torch.save of model+optimizer onto a 100 MiB tmpfs
Only the virtualenv path was changed (to /opt/venv); everything else is as printed.

Usage:  python evals/generators/infra.py            # writes evals/cases/<case-id>/
"""

from __future__ import annotations

import random
import string
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
        p = d / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
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
    (d / "case.yaml").write_text(
        yaml.safe_dump(ordered, sort_keys=False, allow_unicode=True, width=120), encoding="utf-8"
    )


def dedent(s: str) -> str:
    return textwrap.dedent(s).strip("\n")


def J(lines) -> str:
    return "\n".join(lines)


def rng_for(name: str) -> random.Random:
    return random.Random(f"infra:{name}")


# ---------------------------------------------------------------- fake secrets (random, realistic formats)

def _tok(r, n, alphabet=string.ascii_letters + string.digits):
    return "".join(r.choice(alphabet) for _ in range(n))


def hf_token(r):
    return "hf_" + _tok(r, 34)


def wandb_key(r):
    return _tok(r, 40, "0123456789abcdef")


def aws_key_id(r):
    return "AKIA" + _tok(r, 16, string.ascii_uppercase + string.digits)


def aws_secret(r):
    return _tok(r, 40, string.ascii_letters + string.digits + "+/")


def ghp_token(r):
    return "ghp_" + _tok(r, 36)


# ---------------------------------------------------------------- clocks and prefixes

class Clock:
    def __init__(self, start: str):
        self.t = datetime.strptime(start, "%Y-%m-%d %H:%M:%S")

    def tick(self, seconds: float) -> "Clock":
        self.t += timedelta(seconds=seconds)
        return self

    def ds(self) -> str:  # DeepSpeed / python logging: [2024-03-02 11:20:01,442]
        return self.t.strftime("%Y-%m-%d %H:%M:%S,") + f"{self.t.microsecond // 1000:03d}"

    def glog(self, lvl: str) -> str:  # torch >= 2.3: W0302 11:20:01.442000
        return f"{lvl}{self.t.strftime('%m%d %H:%M:%S')}.{self.t.microsecond:06d}"

    def iso(self) -> str:
        return self.t.strftime("%Y-%m-%dT%H:%M:%S")

    def hf(self) -> str:  # transformers logging: 2024-03-02 11:20:01,442
        return self.ds()

    def elastic(self) -> str:  # elastic failure block: 2024-03-02_11:52:13
        return self.t.strftime("%Y-%m-%d_%H:%M:%S")

    def kernel(self, boot: datetime) -> str:  # dmesg: [ 8123.456789]
        s = (self.t - boot).total_seconds()
        return f"[{s:12.6f}]"

    def ctime(self) -> str:
        return self.t.strftime("%a %b %d %H:%M:%S %Y")


def prefix_lines(text: str, prefix: str) -> str:
    return "\n".join(prefix + ln for ln in text.split("\n"))


def tv(torch_v: str) -> tuple[int, int]:
    a, b = torch_v.split(".")[:2]
    return int(a), int(b)


def elastic_log(torch_v: str, clock: Clock, lvl: str, module: str, lineno: int, msg: str, pid: int = 0) -> str:
    """One torch.distributed.elastic log line in the format of the torch version."""
    major_minor = tv(torch_v)
    name = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[lvl]
    if major_minor <= (2, 0):
        return f"{name}:{module}:{msg}"
    if major_minor <= (2, 2):
        return f"[{clock.ds()}] {module}: [{name}] {msg}"
    path = module.replace(".", "/") + ".py"
    return f"{clock.glog(lvl)} {pid} {path}:{lineno}] {msg}"


def torchrun_banner(torch_v: str, clock: Clock, pid: int) -> list[str]:
    body = [
        "",
        "*****************************************",
        "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system "
        "being overloaded, please further tune the variable for optimal performance in your application as needed. ",
        "*****************************************",
    ]
    if tv(torch_v) <= (2, 0):
        return ["WARNING:torch.distributed.run:"] + body[1:]
    return [elastic_log(torch_v, clock, "W", "torch.distributed.run", 757, b, pid) for b in body]


def elastic_summary(script: str, root: dict, others: list[dict] | None = None, width: int = 60,
                    new_style: bool = False) -> list[str]:
    """The ChildFailedError block printed by torchrun (torch 1.13 .. 2.5 layout)."""
    out = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * width,
           f"{script} FAILED", "-" * width, "Failures:"]

    def block(i, f):
        ec = f["exitcode"]
        sig = {-9: "SIGKILL", -15: "SIGTERM", -6: "SIGABRT", -1: "SIGHUP", -7: "SIGBUS"}.get(ec)
        tb = (f"Signal {-ec} ({sig}) received by PID {f['pid']}" if ec < 0
              else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        if ec >= 0 and f.get("error_file"):
            tb = f["traceback"]
        return [f"[{i}]:",
                f"  time      : {f['time']}",
                f"  host      : {f['host']}",
                f"  rank      : {f['rank']} (local_rank: {f['local_rank']})",
                f"  exitcode  : {ec} (pid: {f['pid']})" + (f"  ({sig})" if new_style and sig else ""),
                f"  error_file: {f.get('error_file') or '<N/A>'}",
                f"  traceback : {tb}"]

    if others:
        for i, f in enumerate(others, 1):
            out += block(i, f)
    else:
        out.append("  <NO_OTHER_FAILURES>")
    out += ["-" * width, "Root Cause (first observed failure):"] + block(0, root) + ["=" * width]
    return out


def agent_traceback(py: str, site: str, entry: str, torch_v: str, tail: list[str]) -> list[str]:
    """Traceback of the torchrun agent process itself (SignalException or ChildFailedError)."""
    lines = {  # (errors wrapper, run main, run run, launcher __call__, launch_agent)
        (1, 13): (345, 761, 752, 132, 246),
        (2, 0): (346, 794, 785, 134, 250),
        (2, 1): (346, 806, 797, 134, 255),
        (2, 2): (347, 812, 803, 135, 259),
        (2, 3): (348, 879, 870, 132, 254),
        (2, 4): (348, 901, 892, 133, 255),
        (2, 5): (355, 919, 910, 138, 260),
    }[tv(torch_v)]
    return [
        "Traceback (most recent call last):",
        f'  File "{entry}", line 8, in <module>',
        "    sys.exit(main())",
        f'  File "{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line {lines[0]}, in wrapper',
        "    return f(*args, **kwargs)",
        f'  File "{site}/torch/distributed/run.py", line {lines[1]}, in main',
        "    run(args)",
        f'  File "{site}/torch/distributed/run.py", line {lines[2]}, in run',
        "    elastic_launch(",
        f'  File "{site}/torch/distributed/launcher/api.py", line {lines[3]}, in __call__',
        "    return launch_agent(self._config, self._entrypoint, list(args))",
    ] + [ln.replace("{site}", site).replace("{la}", str(lines[4])) for ln in tail]


# ---------------------------------------------------------------- environment reports

def nvidia_smi(when: str, driver: str, gpus: list[dict], procs: list[tuple] | None = None) -> str:
    """nvidia-smi default table; layout of drivers < 530 or >= 530."""
    cuda = {"470": "11.4", "510": "11.6", "515": "11.7", "525": "12.0", "530": "12.1", "535": "12.2",
            "545": "12.3", "550": "12.4", "555": "12.5", "560": "12.6"}[driver.split(".")[0]]
    new = int(driver.split(".")[0]) >= 530
    out = [when]
    if new:
        out += [
            "+---------------------------------------------------------------------------------------+",
            f"| NVIDIA-SMI {driver:<22} Driver Version: {driver:<14} CUDA Version: {cuda:<9}|",
            "|-----------------------------------------+----------------------+----------------------+",
            "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
            "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |",
            "|                                         |                      |               MIG M. |",
            "|=========================================+======================+======================|",
        ]
        for i, g in enumerate(gpus):
            name = ("NVIDIA " + g["name"])[:28]
            out.append(f"| {i:>3}  {name:<28}{g.get('pm', 'On'):>7}  | {g['bus']} {g.get('disp', 'Off'):>3} |"
                       f" {g.get('ecc', '0'):>20} |")
            pw = f"{g.get('pwr', 60)}W / {g.get('cap', 400)}W"
            mem = f"{g.get('used', 4)}MiB / {g['total']}MiB"
            out.append(f"| {g.get('fan', 'N/A'):>3}   {g.get('temp', 34)}C    {g.get('perf', 'P0'):<13}{pw:>13} |"
                       f" {mem:>20} | {str(g.get('util', 0)) + '%':>8}      Default |")
            out.append(f"|                                         |                      | {g.get('mig', 'Disabled'):>20} |")
            out.append("+-----------------------------------------+----------------------+----------------------+")
        out += [
            "                                                                                         ",
            "+---------------------------------------------------------------------------------------+",
            "| Processes:                                                                            |",
            "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |",
            "|        ID   ID                                                             Usage      |",
            "|=======================================================================================|",
        ]
        if procs:
            for gi, pid, pname, mem in procs:
                out.append(f"| {gi:>4}   N/A  N/A   {pid:>8}      C   {pname:<38}{mem:>10}MiB |")
        else:
            out.append("|  No running processes found                                                           |")
        out.append("+---------------------------------------------------------------------------------------+")
    else:
        out += [
            "+-----------------------------------------------------------------------------+",
            f"| NVIDIA-SMI {driver:<12} Driver Version: {driver:<12} CUDA Version: {cuda:<8}|",
            "|-------------------------------+----------------------+----------------------+",
            "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
            "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |",
            "|                               |                      |               MIG M. |",
            "|===============================+======================+======================|",
        ]
        for i, g in enumerate(gpus):
            name = g["name"] if len(g["name"]) <= 18 else g["name"][:15] + "..."
            out.append(f"| {i:>3}  {name:<18} {g.get('pm', 'On'):<4} | {g['bus']} {g.get('disp', 'Off'):>3} |"
                       f" {g.get('ecc', '0'):>20} |")
            pw = f"{g.get('pwr', 55):>3}W / {g.get('cap', 300)}W"
            mem = f"{g.get('used', 0)}MiB / {g['total']}MiB"
            out.append(f"| {g.get('fan', 'N/A'):>3}   {g.get('temp', 34)}C    {g.get('perf', 'P0')} {pw:>13} |"
                       f" {mem:>20} | {str(g.get('util', 0)) + '%':>8}      Default |")
            out.append(f"|                               |                      | {g.get('mig', 'N/A'):>20} |")
            out.append("+-------------------------------+----------------------+----------------------+")
        out += [
            "                                                                               ",
            "+-----------------------------------------------------------------------------+",
            "| Processes:                                                                  |",
            "|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |",
            "|        ID   ID                                                   Usage      |",
            "|=============================================================================|",
        ]
        if procs:
            for gi, pid, pname, mem in procs:
                out.append(f"| {gi:>4}   N/A  N/A   {pid:>8}      C   {pname:<28}{mem:>8}MiB |")
        else:
            out.append("|  No running processes found                                                 |")
        out.append("+-----------------------------------------------------------------------------+")
    return J(out)


def collect_env(torch_v: str, cuda: str, cuda_rt: str, os_name: str, gcc: str, libc: str, py: str, py_build: str,
                kernel: str, gpus: list[str], driver: str, cudnn: str, pip: dict[str, str], cpu: str,
                cores: int) -> str:
    out = [
        "Collecting environment information...",
        f"PyTorch version: {torch_v}+cu{cuda.replace('.', '')}",
        "Is debug build: False",
        f"CUDA used to build PyTorch: {cuda}",
        "ROCM used to build PyTorch: N/A",
        "",
        f"OS: {os_name} (x86_64)",
        f"GCC version: {gcc}",
        "Clang version: Could not collect",
        "CMake version: version 3.27.9",
        f"Libc version: glibc-{libc}",
        "",
        f"Python version: {py} {py_build} (64-bit runtime)",
        f"Python platform: Linux-{kernel}-x86_64-with-glibc{libc}",
        "Is CUDA available: True",
        f"CUDA runtime version: {cuda_rt}",
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
        f"/usr/lib/x86_64-linux-gnu/libcudnn_cnn_infer.so.{cudnn}",
        "HIP runtime version: N/A",
        "MIOpen runtime version: N/A",
        "Is XNNPACK available: True",
        "",
        "CPU:",
        "Architecture:                       x86_64",
        "CPU op-mode(s):                     32-bit, 64-bit",
        "Byte Order:                         Little Endian",
        f"CPU(s):                             {cores}",
        f"Model name:                         {cpu}",
        "Thread(s) per core:                 2",
        "NUMA node(s):                       2",
        "",
        "Versions of relevant libraries:",
    ]
    out += [f"[pip3] {k}=={v}" for k, v in pip.items()]
    out.append("[conda] Could not collect")
    return J(out)


def ds_report(ds_v: str, torch_v: str, cuda: str, site: str, shm: str, installed: set[str] = frozenset()) -> str:
    ops = ["async_io", "fused_adam", "cpu_adam", "cpu_adagrad", "cpu_lion", "evoformer_attn", "fused_lamb",
           "fused_lion", "inference_core_ops", "cutlass_ops", "transformer_inference", "quantizer",
           "ragged_device_ops", "ragged_ops", "random_ltd", "sparse_attn", "spatial_inference", "transformer",
           "stochastic_transformer"]
    out = [
        "--------------------------------------------------",
        "DeepSpeed C++/CUDA extension op report",
        "--------------------------------------------------",
        "NOTE: Ops not installed will be just-in-time (JIT) compiled at",
        "      runtime if needed. Op compatibility means that your system",
        "      meet the required dependencies to JIT install the op.",
        "--------------------------------------------------",
        "JIT compiled ops requires ninja",
        "ninja .................. [OKAY]",
        "--------------------------------------------------",
        "op name ................ installed .. compatible",
        "--------------------------------------------------",
    ]
    for op in ops:
        comp = "[NO]" if op in ("sparse_attn", "evoformer_attn") else "[OKAY]"
        inst = "[YES]" if op in installed else "[NO]"
        out.append(f"{op} {'.' * max(3, 23 - len(op))} {inst} {'.' * (7 if inst == '[NO]' else 6)} {comp}")
    out += [
        "--------------------------------------------------",
        "DeepSpeed general environment info:",
        f"torch install path ............... ['{site}/torch']",
        f"torch version .................... {torch_v}+cu{cuda.replace('.', '')}",
        f"deepspeed install path ........... ['{site}/deepspeed']",
        f"deepspeed info ................... {ds_v}, unknown, unknown",
        f"torch cuda version ............... {cuda}",
        "torch hip version ................ None",
        f"nvcc version ..................... {cuda}",
        f"deepspeed wheel compiled w. ...... torch {'.'.join(torch_v.split('.')[:2])}, cuda {cuda}",
        f"shared memory (/dev/shm) size .... {shm}",
    ]
    return J(out)


def nccl_init(host: str, pid: int, dev: int, rank: int, nranks: int, nccl: str, cuda_tag: str, r: random.Random,
              net: str = "IB", ifname: str = "ib0", ip: str = "10.20.0.11", bus: str = "7000",
              peers: list[tuple[int, str]] | None = None, p2p: str = "P2P/IPC/read", nchan: int = 2,
              show_version: bool = False, comm: str | None = None) -> list[str]:
    """NCCL_DEBUG=INFO lines of one rank's communicator init (2.14 .. 2.21 shapes)."""
    tid = pid + r.randint(80, 400)
    p = f"{host}:{pid}:{pid} [{dev}] NCCL INFO "
    q = f"{host}:{pid}:{tid} [{dev}] NCCL INFO "
    comm = comm or f"0x{r.randint(0x55d000000000, 0x55dfffffffff):x}"
    commid = f"0x{r.getrandbits(64):x}"
    newfmt = tuple(int(x) for x in nccl.split(".")[:2]) >= (2, 19)
    out = [p + f"Bootstrap : Using {ifname}:{ip}<0>"]
    out.append(p + "NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory "
               "No plugin found (libnccl-net.so), using internal implementation")
    out.append(p + f"cudaDriverVersion {12020 if cuda_tag.startswith('cuda12') else 11070}")
    if show_version:
        out.append(p + f"NCCL version {nccl}+{cuda_tag}")
    if net == "IB":
        out.append(q + f"NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB {ifname}:{ip}<0>")
        out.append(q + "Using network IB")
    else:
        out.append(q + "NET/IB : No device found.")
        out.append(q + f"NET/Socket : Using [0]{ifname}:{ip}<0>")
        out.append(q + "Using network Socket")
    out.append(q + f"comm {comm} rank {rank} nranks {nranks} cudaDev {dev} busId {bus} "
               f"commId {commid} - Init START" if newfmt else
               q + f"comm {comm} rank {rank} nranks {nranks} cudaDev {dev} busId {bus} - Init START")
    out.append(q + f"Setting affinity for GPU {dev} to {'ffffffff,00000000,ffffffff' if dev < 4 else 'ffffffff,00000000,ffffffff,00000000'}")
    if rank == 0:
        for c in range(nchan):
            out.append(q + f"Channel {c:02d}/{nchan:02d} :    " + "   ".join(str(i) for i in range(nranks)))
    prev = (rank - 1) % nranks
    nxt = (rank + 1) % nranks
    out.append(q + f"Trees [0] {nxt if nxt else -1}/-1/-1->{rank}->{prev if rank else -1} "
               f"[1] {nxt if nxt else -1}/-1/-1->{rank}->{prev if rank else -1}")
    out.append(q + "P2P Chunksize set to 524288")
    for pr, pbus in (peers or []):
        for c in range(nchan):
            if newfmt:
                out.append(q + f"Channel {c:02d}/0 : {rank}[{dev}] -> {pr}[{pr % 8}] via {p2p}")
            else:
                out.append(q + f"Channel {c:02d}/0 : {rank}[{bus}] -> {pr}[{pbus}] via {p2p}")
    out.append(q + "Connected all rings")
    out.append(q + "Connected all trees")
    out.append(q + "threadThresholds 8/8/64 | 64/8/64 | 512 | 512")
    out.append(q + f"{nchan} coll channels, 0 nvls channels, {nchan * 2} p2p channels, {nchan} p2p channels per peer"
               if newfmt else q + f"{nchan} coll channels, {nchan * 2} p2p channels, {nchan} p2p channels per peer")
    out.append(q + (f"comm {comm} rank {rank} nranks {nranks} cudaDev {dev} busId {bus} commId {commid} - Init COMPLETE"
                    if newfmt else f"comm {comm} rank {rank} nranks {nranks} cudaDev {dev} busId {bus} - Init COMPLETE"))
    return out


def fmt_dur(s: float) -> str:
    s = int(s)
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m:02d}:{sec:02d}"


def tqdm_bar(step: int, total: int, elapsed: float, s_per_it: float, desc: str = "") -> str:
    pct = int(100 * step / total)
    filled = 10 * step / total
    full = int(filled)
    parts = " ▏▎▍▌▋▊▉"
    frac = parts[int((filled - full) * 8)] if full < 10 else ""
    bar = ("█" * full + frac).ljust(10)
    remaining = (total - step) * s_per_it
    rate = f"{s_per_it:.2f}s/it" if s_per_it >= 1 else f"{1 / s_per_it:.2f}it/s"
    return f"{desc}{pct:3d}%|{bar}| {step}/{total} [{fmt_dur(elapsed)}<{fmt_dur(remaining)}, {rate}]"


def hf_loss_line(loss: float, gn: float | None, lr: float, epoch: float) -> str:
    if gn is None:
        return f"{{'loss': {loss:.4f}, 'learning_rate': {lr:.4e}, 'epoch': {epoch:.2f}}}"
    return f"{{'loss': {loss:.4f}, 'grad_norm': {gn:.4f}, 'learning_rate': {lr:.4e}, 'epoch': {epoch:.2f}}}"


def gpu_row(name, total, bus, **kw):
    d = {"name": name, "total": total, "bus": bus}
    d.update(kw)
    return d


def dmesg_xid(clock: Clock, boot: datetime, bus: str, xid: int, pid, name, text: str) -> str:
    pidpart = f"pid='{pid}', name={name}" if isinstance(pid, str) else f"pid={pid}, name={name}"
    return f"{clock.kernel(boot)} NVRM: Xid (PCI:{bus}): {xid}, {pidpart}, {text}"


# ---------------------------------------------------------------- real captures (CPU PyTorch, see docstring)
REAL_CLIP_REPLAY = r'''== 2026-11-30 03:15:58 UTC on vm
== python: Python 3.11.7  open files limit: 1024
args: {'batch_size': 8, 'workers': 4, 'frames': 4, 'size': 32, 'hard_mining_pool': 512}
torch 2.13.0+cpu, sharing strategy: file_descriptor
/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py:431: UserWarning: This DataLoader will create 4 worker processes in total. Our suggested max number of worker in current system is 2, which is smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary.
  self.check_worker_number_rationality()
/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py:437: UserWarning: This DataLoader will create 4 worker processes in total. Our suggested max number of worker in current system is 2, which is smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary.
  self.check_worker_number_rationality()
step     0 | loss 1.9970 | hard_pool    1 |    0.9s
step    10 | loss 1.9465 | hard_pool    3 |    5.4s
step    20 | loss 1.9841 | hard_pool    6 |    8.0s
step    30 | loss 1.9658 | hard_pool    8 |    9.4s
step    40 | loss 1.9468 | hard_pool   11 |   10.6s
step    50 | loss 1.9325 | hard_pool   13 |   13.0s
step    60 | loss 1.9438 | hard_pool   16 |   14.2s
step    70 | loss 1.9711 | hard_pool   18 |   15.1s
step    80 | loss 1.9404 | hard_pool   21 |   16.1s
step    90 | loss 1.9659 | hard_pool   23 |   19.1s
step   100 | loss 1.9651 | hard_pool   26 |   26.8s
step   110 | loss 1.9395 | hard_pool   28 |   31.7s
Traceback (most recent call last):
  File "/srv/clipnet/train_clips.py", line 55, in <module>
    main()
  File "/srv/clipnet/train_clips.py", line 45, in main
    for step, batch in enumerate(dl):
  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 725, in __next__
    data = self._next_data()
           ^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1505, in _next_data
    idx, data = self._get_data()
                ^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1464, in _get_data
    success, data = self._try_get_data()
                    ^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1326, in _try_get_data
    raise RuntimeError(
RuntimeError: Too many open files. Communication with the workers is no longer possible. Please increase the limit using `ulimit -n` in the shell or change the sharing strategy by calling `torch.multiprocessing.set_sharing_strategy('file_system')` at the beginning of your code
'''

REAL_SHARD_HANDLES = r'''[launch] host=vm start=2026-11-30T03:21:53+00:00
[launch] nofile soft=512 hard=512
[launch] torch 2.13.0+cpu numpy 2.4.6
[data] 1400 shards, 11200 sequences from /srv/shardreader/data/tok_shards
[model] 0.55M params
epoch 0 step    0/700 loss 8.332 ppl    4154.0 elapsed 0s
epoch 0 step   25/700 loss 8.330 ppl    4144.7 elapsed 3s
epoch 0 step   50/700 loss 8.332 ppl    4154.9 elapsed 6s
Traceback (most recent call last):
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/multiprocessing/queues.py", line 244, in _feed
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/multiprocessing/reduction.py", line 51, in dumps
  File "/opt/venv/lib/python3.11/site-packages/torch/multiprocessing/reductions.py", line 614, in reduce_storage
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/multiprocessing/reduction.py", line 198, in DupFd
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/multiprocessing/resource_sharer.py", line 48, in __init__
OSError: [Errno 24] Too many open files
Traceback (most recent call last):
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/multiprocessing/resource_sharer.py", line 145, in _serve
    send(conn, destination_pid)
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/multiprocessing/resource_sharer.py", line 50, in send
    reduction.send_handle(conn, new_fd, pid)
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/multiprocessing/reduction.py", line 183, in send_handle
Traceback (most recent call last):
  File "/srv/shardreader/pretrain.py", line 50, in <module>
    main()
  File "/srv/shardreader/pretrain.py", line 42, in main
    for step, x in enumerate(dl):
  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 725, in __next__
    data = self._next_data()
           ^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1505, in _next_data
    idx, data = self._get_data()
    with socket.fromfd(conn.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) as s:
         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/socket.py", line 546, in fromfd
    nfd = dup(fd)
          ^^^^^^^
OSError: [Errno 24] Too many open files
                ^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1464, in _get_data
    success, data = self._try_get_data()
                    ^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1291, in _try_get_data
    data = self._data_queue.get(timeout=timeout)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/multiprocessing/queues.py", line 122, in get
    return _ForkingPickler.loads(res)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/multiprocessing/reductions.py", line 538, in rebuild_storage_fd
    fd = df.detach()
         ^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/multiprocessing/resource_sharer.py", line 58, in detach
    return reduction.recv_handle(conn)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/multiprocessing/reduction.py", line 189, in recv_handle
    return recvfds(s, 1)[0]
           ^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/multiprocessing/reduction.py", line 159, in recvfds
    raise EOFError
EOFError
'''

REAL_GLOO_KILL9 = r'''+ torchrun --standalone --nproc_per_node=4 ddp_train.py
W1130 03:22:18.033000 21384 torch/distributed/run.py:874] 
W1130 03:22:18.033000 21384 torch/distributed/run.py:874] *****************************************
W1130 03:22:18.033000 21384 torch/distributed/run.py:874] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. 
W1130 03:22:18.033000 21384 torch/distributed/run.py:874] *****************************************
world_size=4 backend=gloo params=136714
step 100 loss 2.3037 17.8 ms/step
step 200 loss 2.3300 17.8 ms/step
step 300 loss 2.2841 17.2 ms/step
step 400 loss 2.3150 16.9 ms/step
step 500 loss 2.3025 16.5 ms/step
step 600 loss 2.2965 16.0 ms/step
step 700 loss 2.2880 15.6 ms/step
step 800 loss 2.3231 15.3 ms/step
step 900 loss 2.3074 15.0 ms/step
[rank0]: Traceback (most recent call last):
[rank0]:   File "/srv/gloo-bench/ddp_train.py", line 22, in <module>
[rank0]:     main()
[rank0]:   File "/srv/gloo-bench/ddp_train.py", line 16, in main
[rank0]:     opt.zero_grad(); loss.backward(); opt.step()
[rank0]:                      ^^^^^^^^^^^^^^^
[rank0]:   File "/opt/venv/lib/python3.11/site-packages/torch/_tensor.py", line 623, in backward
[rank0]:     torch.autograd.backward(
[rank0]:   File "/opt/venv/lib/python3.11/site-packages/torch/autograd/__init__.py", line 395, in backward
[rank0]:     _engine_run_backward(
[rank0]:   File "/opt/venv/lib/python3.11/site-packages/torch/autograd/graph.py", line 979, in _engine_run_backward
[rank0]:     return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
[rank0]:            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:1927. This is typically caused by a remote worker crashing. Check the logs of the remote worker before reporting an error. GLHF! 🏖️
[rank2]: Traceback (most recent call last):
[rank2]:   File "/srv/gloo-bench/ddp_train.py", line 22, in <module>
[rank2]:     main()
[rank2]:   File "/srv/gloo-bench/ddp_train.py", line 16, in main
[rank2]:     opt.zero_grad(); loss.backward(); opt.step()
[rank2]:                      ^^^^^^^^^^^^^^^
[rank2]:   File "/opt/venv/lib/python3.11/site-packages/torch/_tensor.py", line 623, in backward
[rank2]:     torch.autograd.backward(
[rank2]:   File "/opt/venv/lib/python3.11/site-packages/torch/autograd/__init__.py", line 395, in backward
[rank2]:     _engine_run_backward(
[rank2]:   File "/opt/venv/lib/python3.11/site-packages/torch/autograd/graph.py", line 979, in _engine_run_backward
[rank2]:     return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
[rank2]:            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
[rank2]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:1927. This is typically caused by a remote worker crashing. Check the logs of the remote worker before reporting an error. GLHF! 🏖️
W1130 03:22:41.235000 21384 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 21389 closing signal SIGTERM
W1130 03:22:41.239000 21384 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 21390 closing signal SIGTERM
W1130 03:22:41.244000 21384 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 21391 closing signal SIGTERM
E1130 03:22:41.313000 21384 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -9) local_rank: 3 (pid: 21392) of binary: /opt/venv/bin/python3
Traceback (most recent call last):
  File "/opt/venv/bin/torchrun", line 6, in <module>
    sys.exit(main())
             ^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 367, in wrapper
    return f(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/run.py", line 1028, in main
    run(args)
  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/run.py", line 1019, in run
    elastic_launch(
  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 194, in __call__
    return launch_agent(
           ^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 383, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
=======================================================
ddp_train.py FAILED
-------------------------------------------------------
Failures:
[1]:
  time      : 2026-11-30_03:22:41
  host      : localhost
  rank      : 0 (local_rank: 0)
  exitcode  : -15 (pid: 21389)  (SIGTERM)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 21389
[2]:
  time      : 2026-11-30_03:22:41
  host      : localhost
  rank      : 1 (local_rank: 1)
  exitcode  : -15 (pid: 21390)  (SIGTERM)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 21390
[3]:
  time      : 2026-11-30_03:22:41
  host      : localhost
  rank      : 2 (local_rank: 2)
  exitcode  : -15 (pid: 21391)  (SIGTERM)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 21391
-------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-11-30_03:22:41
  host      : localhost
  rank      : 3 (local_rank: 3)
  exitcode  : -9 (pid: 21392)  (SIGKILL)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 21392
=======================================================
torchrun exited with status 1
'''

REAL_TMPFS_SAVE = r'''### 2026-11-30 03:23:38 starting tinylm on vm
### Filesystem      Size  Used Avail Use% Mounted on
### tmpfs           100M     0  100M   0% /mnt/ckpt
model params: 2.89M  checkpoint dir: /mnt/ckpt/tinylm
step    20  loss 7.6479  lr 3.00e-04    12.3s
step    40  loss 7.6474  lr 3.00e-04    16.9s
step    60  loss 7.6439  lr 3.00e-04    29.4s
step    80  loss 7.6491  lr 3.00e-04    38.1s
step   100  loss 7.6443  lr 3.00e-04    48.4s
saved checkpoint /mnt/ckpt/tinylm/step_000100.pt (33.0 MiB)
step   120  loss 7.6402  lr 3.00e-04    54.4s
step   140  loss 7.6432  lr 3.00e-04    58.9s
step   160  loss 7.6433  lr 3.00e-04    65.6s
step   180  loss 7.6374  lr 3.00e-04    69.6s
step   200  loss 7.6529  lr 3.00e-04    73.7s
saved checkpoint /mnt/ckpt/tinylm/step_000200.pt (33.0 MiB)
step   220  loss 7.6347  lr 3.00e-04    77.6s
step   240  loss 7.6494  lr 3.00e-04    86.8s
step   260  loss 7.6385  lr 3.00e-04   100.1s
step   280  loss 7.6444  lr 3.00e-04   116.7s
step   300  loss 7.6469  lr 3.00e-04   124.5s
saved checkpoint /mnt/ckpt/tinylm/step_000300.pt (33.0 MiB)
step   320  loss 7.6413  lr 3.00e-04   129.7s
step   340  loss 7.6452  lr 3.00e-04   134.3s
step   360  loss 7.6425  lr 3.00e-04   139.1s
step   380  loss 7.6465  lr 3.00e-04   144.9s
step   400  loss 7.6457  lr 3.00e-04   152.0s
Traceback (most recent call last):
  File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 1003, in save
    _save(
  File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 1312, in _save
    zip_file.write_record(name, storage, num_bytes)
RuntimeError: basic_ios::clear: iostream error

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/srv/tinylm/train.py", line 32, in <module>
    main()
  File "/srv/tinylm/train.py", line 28, in main
    torch.save({"step": step, "model": model.state_dict(), "optimizer": opt.state_dict()}, path)
  File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 1002, in save
    with _open_zipfile_writer(f) as opened_zipfile:
  File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 834, in __exit__
    self.file_like.write_end_of_file()
RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 2368 vs 2262
### exit status 1
'''

# ================================================================ too-many-open-files

@case
def tmof_clip_replay_cpu_01():
    write_case("too-many-open-files-clip-replay-cpu-01", {
        "label": "too-many-open-files",
        "difficulty": "easy",
        "description": "Real CPU run: DataLoader with 4 workers returns clips as lists of frame tensors (one shared-"
                       "memory storage, so one fd, per frame); a replay buffer keeps every 4th batch alive, and "
                       "with the file_descriptor sharing strategy and ulimit -n 1024 the main process runs out "
                       "of descriptors at step ~110.",
        "initiating_rank": None,
        "facts": {"launcher": "python", "python_version": "3.11.7", "torch_version": "2.13.0",
                  "failure_step": "110"},
        "must_mention": ["ulimit", "file_system"],
    }, {"train.log": REAL_CLIP_REPLAY})


@case
def tmof_video_ddp_ancdata_02():
    r = rng_for("tmof2")
    c = Clock("2024-05-21 14:02:11")
    torch_v, site = "2.1.2", "/usr/local/lib/python3.10/dist-packages"
    host = "ip-172-31-44-209"
    pids = [31877, 31878, 31879, 31880]
    agent = 31862
    buses = ["00000000:00:1B.0", "00000000:00:1C.0", "00000000:00:1D.0", "00000000:00:1E.0"]
    out = [f"+ ulimit -n", "1024", "+ nvidia-smi"]
    out.append(nvidia_smi("Tue May 21 14:02:09 2024", "535.129.03",
                          [gpu_row("A10G", 23028, b, pwr=r.randint(24, 30), cap=300, temp=r.randint(24, 29),
                                   used=0, fan="0%", perf="P8") for b in buses]))
    out.append("+ torchrun --standalone --nproc_per_node=4 train_video.py --config configs/kinetics_r2plus1d.yaml")
    out += torchrun_banner(torch_v, c, agent)
    c.tick(6)
    out += [
        "[rank0] config: {'arch': 'r2plus1d_18', 'clip_len': 16, 'frame_size': 112, 'batch_size': 16, "
        "'num_workers': 8, 'lr': 0.01, 'epochs': 45, 'amp': True, 'sampler': 'random_clip', 'return_frames_as': 'list'}",
        f"[rank0] world_size=4 backend=nccl torch={torch_v}+cu121 cudnn=8902",
    ]
    for i, pid in enumerate(pids):
        out += nccl_init(host, pid, i, i, 4, "2.18.1", "cuda12.1", r, net="Socket", ifname="ens5",
                         ip="172.31.44.209", bus=["1b0", "1c0", "1d0", "1e0"][i].replace("0", "0"),
                         peers=[((i + 1) % 4, "")], p2p="SHM/direct/direct", nchan=2, show_version=(i == 0))
    out += [
        f"{site}/torch/utils/data/dataloader.py:557: UserWarning: This DataLoader will create 8 worker processes "
        "in total. Our suggested max number of worker in current system is 12, which is smaller than what this "
        "DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running "
        "slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary.",
        "  warnings.warn(_create_warning_msg(",
        "[rank0] train clips: 241,718  val clips: 19,881  steps/epoch: 3776",
    ]
    loss = 5.99
    for step in range(50, 1351, 50):
        c.tick(50 * 0.61 + r.uniform(-2, 2))
        loss -= r.uniform(0.01, 0.06)
        out.append(f"[rank0] {c.ds()[:-4]} epoch 0 step {step:5d}/3776 loss {loss:.4f} top1 {max(0.0, (6.0 - loss) * 9):.2f} "
                   f"lr {0.01 * min(1, step / 500):.5f} data {r.uniform(0.02, 0.09):.3f}s iter {r.uniform(0.58, 0.66):.3f}s "
                   f"mem {r.uniform(17.1, 17.4):.1f}G")
        if step == 600:
            out.append("[rank0] hard-negative pool: keeping 2 clips/batch for replay (pool size 4096)")
    c.tick(14)
    tb = [
        "Traceback (most recent call last):",
        '  File "/workspace/video/train_video.py", line 402, in <module>',
        "    main(cfg)",
        '  File "/workspace/video/train_video.py", line 361, in main',
        "    train_one_epoch(model, loader, optimizer, scaler, epoch, cfg, replay)",
        '  File "/workspace/video/train_video.py", line 198, in train_one_epoch',
        "    for step, batch in enumerate(loader):",
        f'  File "{site}/torch/utils/data/dataloader.py", line 630, in __next__',
        "    data = self._next_data()",
        f'  File "{site}/torch/utils/data/dataloader.py", line 1328, in _next_data',
        "    idx, data = self._get_data()",
        f'  File "{site}/torch/utils/data/dataloader.py", line 1294, in _get_data',
        "    success, data = self._try_get_data()",
        f'  File "{site}/torch/utils/data/dataloader.py", line 1132, in _try_get_data',
        "    data = self._data_queue.get(timeout=timeout)",
        '  File "/usr/lib/python3.10/multiprocessing/queues.py", line 122, in get',
        "    return _ForkingPickler.loads(res)",
        f'  File "{site}/torch/multiprocessing/reductions.py", line 355, in rebuild_storage_fd',
        "    fd = df.detach()",
        '  File "/usr/lib/python3.10/multiprocessing/resource_sharer.py", line 58, in detach',
        "    return reduction.recv_handle(conn)",
        '  File "/usr/lib/python3.10/multiprocessing/reduction.py", line 189, in recv_handle',
        "    return recvfds(s, 1)[0]",
        '  File "/usr/lib/python3.10/multiprocessing/reduction.py", line 164, in recvfds',
        "    raise RuntimeError('received %d items of ancdata' %",
        "RuntimeError: received 0 items of ancdata",
    ]
    out += tb
    c.tick(1.2)
    for pid in (pids[0], pids[1], pids[3]):
        out.append(elastic_log(torch_v, c, "W", "torch.distributed.elastic.multiprocessing.api", 0,
                               f"Sending process {pid} closing signal SIGTERM"))
    c.tick(2.1)
    out.append(elastic_log(torch_v, c, "E", "torch.distributed.elastic.multiprocessing.api", 0,
                           f"failed (exitcode: 1) local_rank: 2 (pid: {pids[2]}) of binary: /usr/bin/python"))
    out += agent_traceback("3.10", site, "/usr/local/bin/torchrun", torch_v, [
        '  File "{site}/torch/distributed/launcher/api.py", line {la}, in launch_agent',
        "    raise ChildFailedError(",
    ])
    out += elastic_summary("train_video.py", {"time": c.elastic(), "host": host, "rank": 2, "local_rank": 2,
                                              "exitcode": 1, "pid": pids[2]})
    write_case("too-many-open-files-video-ddp-ancdata-02", {
        "label": "too-many-open-files",
        "difficulty": "medium",
        "description": "torchrun on 4x A10G (torch 2.1.2, container with ulimit -n 1024); video clips returned as "
                       "lists of per-frame tensors and a replay pool keeps some alive; rank 2's main process "
                       "cannot receive the next shared-memory fd: 'received 0 items of ancdata', then "
                       "ChildFailedError.",
        "initiating_rank": 2,
        "facts": {"gpu_model": "A10G", "gpu_count": "4", "driver_version": "535.129.03", "torch_version": "2.1.2",
                  "nccl_version": "2.18.1", "launcher": "torchrun", "world_size": "4", "exit_code": "1"},
        "must_mention": ["ulimit", "file descriptor"],
    }, {"train.log": J(out)})


@case
def tmof_shard_handles_cpu_03():
    write_case("too-many-open-files-shard-handles-cpu-03", {
        "label": "too-many-open-files",
        "difficulty": "hard",
        "description": "Real CPU run: a token-shard Dataset caches one open file handle per shard in each "
                       "DataLoader worker and never closes them; with ulimit -n 512 a worker fails to dup the fd "
                       "of a shared tensor (Errno 24), tracebacks from worker threads interleave, and the main "
                       "process's last error is a bare EOFError.",
        "initiating_rank": None,
        "facts": {"launcher": "python", "torch_version": "2.13.0", "failure_step": "50"},
        "must_mention": ["Too many open files", "close"],
    }, {"pretrain.log": REAL_SHARD_HANDLES})


@case
def tmof_slurm_mask_cache_04():
    r = rng_for("tmof4")
    user = "ksato"
    c = Clock("2024-02-13 22:41:07")
    site = f"/home/{user}/miniconda3/envs/seg/lib/python3.10/site-packages"
    nodes = ["gpu-a100-04", "gpu-a100-05"]
    jobid = 2291847
    out = [
        f"SLURM_JOB_ID={jobid}",
        f"SLURM_JOB_USER={user}",
        "SLURM_JOB_NODELIST=gpu-a100-[04-05]",
        "SLURM_NNODES=2",
        "SLURM_NTASKS=8",
        "SLURM_GPUS_ON_NODE=4",
        f"SLURM_SUBMIT_DIR=/home/{user}/proj/seg",
        "MASTER_ADDR=gpu-a100-04 MASTER_PORT=29411",
        "nofile (soft/hard): 4096/4096",
        "NCCL_ASYNC_ERROR_HANDLING=1",
        f"+ srun -l python train_seg.py --cfg cfgs/ade20k_upernet_swin_b.yaml --work-dir /scratch/{user}/runs/upernet_swinb_0213",
    ]
    ranks = list(range(8))
    pids = {k: 51200 + 17 * k for k in ranks}
    for k in ranks:
        host = nodes[k // 4]
        out += [f"{k}: " + ln for ln in nccl_init(host, pids[k], k % 4, k, 8, "2.14.3", "cuda11.7", r, net="IB",
                                                  ifname="ib0", ip=f"10.40.1.{4 + k // 4}",
                                                  bus=["7000", "f000", "47000", "4e000"][k % 4],
                                                  show_version=(k == 0), nchan=2)[-4:]]
    out += [
        f"0: {c.ds()[:-4]} | INFO | seg.train | world size 8, per-GPU batch 2, total batch 16, iters/epoch 1264",
        f"0: {c.ds()[:-4]} | INFO | seg.data | ADE20K train: 20210 images, val: 2000 images; num_workers=6, "
        "persistent_workers=False, sharing_strategy=file_descriptor",
        f"0: {c.ds()[:-4]} | INFO | seg.data | MaskCache enabled: decoded label maps are kept in memory after the "
        "first epoch to skip PNG decoding",
    ]
    for k in ranks:
        out.append(f"{k}: {site}/torch/functional.py:504: UserWarning: torch.meshgrid: in an upcoming release, it "
                   "will be required to pass the indexing argument. (Triggered internally at "
                   "../aten/src/ATen/native/TensorShape.cpp:3190.)")
        out.append(f"{k}:   return _VF.meshgrid(tensors, **kwargs)  # type: ignore[attr-defined]")
    loss = 3.91
    for epoch in range(2):
        for it in range(100, 1264, 100):
            c.tick(100 * 0.93 + r.uniform(-3, 3))
            loss = max(0.6, loss - r.uniform(0.02, 0.09))
            out.append(f"0: {c.ds()[:-4]} | INFO | seg.train | epoch {epoch} iter {it:4d}/1264 loss {loss:.4f} "
                       f"decode.loss_ce {loss * 0.72:.4f} aux.loss_ce {loss * 0.28:.4f} lr {6e-5 * (1 - (epoch * 1264 + it) / 50560):.3e} "
                       f"time {r.uniform(0.9, 0.97):.3f} data {r.uniform(0.01, 0.05):.3f} mem {r.randint(21950, 22310)}M")
        c.tick(95)
        out.append(f"0: {c.ds()[:-4]} | INFO | seg.eval | epoch {epoch} val mIoU {0.21 + 0.07 * epoch + r.uniform(0, .01):.4f} "
                   f"aAcc {0.71 + 0.03 * epoch:.4f} (2000 images, 96.2s)")
        out.append(f"0: {c.ds()[:-4]} | INFO | seg.data | MaskCache: {2527 * (epoch + 1) + r.randint(0, 40)} entries on rank 0")
    c.tick(3.4)
    k = 5
    tb = [
        "Traceback (most recent call last):",
        f'  File "/home/{user}/proj/seg/train_seg.py", line 311, in <module>',
        "    main(args)",
        f'  File "/home/{user}/proj/seg/train_seg.py", line 287, in main',
        "    for it, batch in enumerate(train_loader):",
        f'  File "{site}/torch/utils/data/dataloader.py", line 435, in __iter__',
        "    return self._get_iterator()",
        f'  File "{site}/torch/utils/data/dataloader.py", line 381, in _get_iterator',
        "    return _MultiProcessingDataLoaderIter(self)",
        f'  File "{site}/torch/utils/data/dataloader.py", line 1034, in __init__',
        "    w.start()",
        f'  File "/home/{user}/miniconda3/envs/seg/lib/python3.10/multiprocessing/process.py", line 121, in start',
        "    self._popen = self._Popen(self)",
        f'  File "/home/{user}/miniconda3/envs/seg/lib/python3.10/multiprocessing/context.py", line 224, in _Popen',
        "    return _default_context.get_context().Process._Popen(process_obj)",
        f'  File "/home/{user}/miniconda3/envs/seg/lib/python3.10/multiprocessing/context.py", line 281, in _Popen',
        "    return Popen(process_obj)",
        f'  File "/home/{user}/miniconda3/envs/seg/lib/python3.10/multiprocessing/popen_fork.py", line 19, in __init__',
        "    self._launch(process_obj)",
        f'  File "/home/{user}/miniconda3/envs/seg/lib/python3.10/multiprocessing/popen_fork.py", line 65, in _launch',
        "    child_r, parent_w = os.pipe()",
        "OSError: [Errno 24] Too many open files",
    ]
    out += [f"{k}: " + ln for ln in tb]
    c.tick(1.5)
    out.append(f"srun: error: {nodes[1]}: task 5: Exited with exit code 1")
    c.tick(1800 + 2.9)
    seq = 2 * 1264 * 1 + 38117
    for k in [0, 1, 2, 3, 4, 6, 7]:
        ran = 1800000 + r.randint(300, 1400)
        msg = (f"[Rank {k}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, "
               f"Timeout(ms)=1800000) ran for {ran} milliseconds before timing out.")
        out.append(f"{k}: [E ProcessGroupNCCL.cpp:821] {msg}")
    for k in [0, 1, 2, 3, 4, 6, 7]:
        ran = 1800000 + r.randint(300, 1400)
        msg = (f"[Rank {k}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, "
               f"Timeout(ms)=1800000) ran for {ran} milliseconds before timing out.")
        out += [
            f"{k}: [E ProcessGroupNCCL.cpp:456] Some NCCL operations have failed or timed out. Due to the "
            "asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
            f"{k}: [E ProcessGroupNCCL.cpp:461] To avoid data inconsistency, we are taking the entire process down.",
            f"{k}: terminate called after throwing an instance of 'std::runtime_error'",
            f"{k}:   what():  {msg}",
        ]
    c.tick(4)
    out += [
        f"srun: error: {nodes[0]}: tasks 0-3: Aborted (core dumped)",
        f"srun: error: {nodes[1]}: tasks 4,6-7: Aborted (core dumped)",
    ]
    write_case("too-many-open-files-slurm-mask-cache-04", {
        "label": "too-many-open-files",
        "difficulty": "hard",
        "description": "srun -l, 8 tasks on 2 nodes (A100, torch 1.13.1, NCCL 2.14.3); a per-rank cache keeps "
                       "tensors received from DataLoader workers alive (one fd each under file_descriptor "
                       "sharing); at the start of epoch 3 rank 5 cannot create worker pipes (Errno 24); the other "
                       "7 ranks hit the NCCL watchdog 30 minutes later and abort, which is what the log ends with.",
        "initiating_rank": 5,
        "facts": {"launcher": "srun", "world_size": "8", "num_nodes": "2", "nccl_version": "2.14.3"},
        "must_mention": ["Too many open files", "ulimit"],
        "secrets": [user],
    }, {f"slurm-{jobid}.out": J(out)})
# ================================================================ disk-full

def _torch_save_enospc(site: str, torch_v: str, data_idx: int, pos: int) -> list[str]:
    """What torch.save prints when the disk fills during the write (zip writer, torch 2.x)."""
    ln = {"2.2": (628, 840, 476, 764, 595), "2.3": (628, 862, 498, 778, 609)}[".".join(torch_v.split(".")[:2])]
    return [
        "Traceback (most recent call last):",
        f'  File "{site}/torch/serialization.py", line {ln[0]}, in save',
        "    _save(obj, opened_zipfile, pickle_module, pickle_protocol, _disable_byteorder_record)",
        f'  File "{site}/torch/serialization.py", line {ln[1]}, in _save',
        "    zip_file.write_record(name, storage, num_bytes)",
        f"RuntimeError: [enforce fail at inline_container.cc:{ln[3]}] . PytorchStreamWriter failed writing file "
        f"data/{data_idx}: file write failed",
        "",
        "During handling of the above exception, another exception occurred:",
        "",
    ], [
        f'  File "{site}/torch/serialization.py", line {ln[0] - 1}, in save',
        "    with _open_zipfile_writer(f) as opened_zipfile:",
        f'  File "{site}/torch/serialization.py", line {ln[2]}, in __exit__',
        "    self.file_like.write_end_of_file()",
        f"RuntimeError: [enforce fail at inline_container.cc:{ln[4]}] . unexpected pos {pos} vs {pos - 112}",
    ]


@case
def disk_full_hf_optimizer_02():
    r = rng_for("df1")
    c = Clock("2024-04-09 07:55:40")
    torch_v, site = "2.2.1", "/opt/conda/lib/python3.10/site-packages"
    host = "dgx-l40s-02"
    pids = [118204, 118205, 118206, 118207]
    agent = 118190
    out_dir = "/data/runs/pythia-1.4b-sft-v3"
    out = [
        "The following values were not passed to `accelerate launch` and had defaults used instead:",
        "\t`--num_machines` was set to a value of `1`",
        "\t`--dynamo_backend` was set to a value of `'no'`",
        "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`.",
    ]
    out += torchrun_banner(torch_v, c, agent)
    c.tick(9)
    out += [
        f"[INFO|training_args.py:1902] {c.hf()} >> PyTorch: setting up devices",
        f"04/09/2024 07:55:49 - WARNING - __main__ - Process rank: 0, device: cuda:0, n_gpu: 1, distributed training: True, 16-bits training: False",
        f"04/09/2024 07:55:49 - INFO - __main__ - Training/evaluation parameters TrainingArguments(",
        "_n_gpu=1,",
        "bf16=True,",
        "gradient_accumulation_steps=4,",
        "gradient_checkpointing=True,",
        "learning_rate=2e-05,",
        "logging_steps=50,",
        "lr_scheduler_type=cosine,",
        "num_train_epochs=3,",
        "optim=adamw_torch,",
        f"output_dir={out_dir},",
        "per_device_train_batch_size=8,",
        "save_steps=500,",
        "save_strategy=steps,",
        "save_total_limit=None,",
        "warmup_ratio=0.03,",
        "weight_decay=0.0,",
        ")",
        f"[INFO|configuration_utils.py:726] {c.hf()} >> loading configuration file /models/pythia-1.4b-deduped/config.json",
        f"[INFO|modeling_utils.py:3280] {c.hf()} >> loading weights file /models/pythia-1.4b-deduped/model.safetensors",
        f"[INFO|modeling_utils.py:4024] {c.hf()} >> All model checkpoint weights were used when initializing GPTNeoXForCausalLM.",
        "Map (num_proc=16): 100%|██████████| 214388/214388 [00:41<00:00, 5190.22 examples/s]",
        f"[INFO|trainer.py:1812] {c.tick(52).hf()} >> ***** Running training *****",
        f"[INFO|trainer.py:1813] {c.hf()} >>   Num examples = 214,388",
        f"[INFO|trainer.py:1814] {c.hf()} >>   Num Epochs = 3",
        f"[INFO|trainer.py:1815] {c.hf()} >>   Instantaneous batch size per device = 8",
        f"[INFO|trainer.py:1818] {c.hf()} >>   Total train batch size (w. parallel, distributed & accumulation) = 128",
        f"[INFO|trainer.py:1819] {c.hf()} >>   Gradient Accumulation steps = 4",
        f"[INFO|trainer.py:1820] {c.hf()} >>   Total optimization steps = 5,025",
        f"[INFO|trainer.py:1821] {c.hf()} >>   Number of trainable parameters = 1,414,647,808",
        f"{site}/torch/utils/checkpoint.py:460: UserWarning: torch.utils.checkpoint: please pass in use_reentrant=True "
        "or use_reentrant=False explicitly. The default value of use_reentrant will be updated to be False in the "
        "future. To maintain current behavior, pass use_reentrant=True. It is recommended that you use "
        "use_reentrant=False. Refer to docs for more details on the differences between the two variants.",
        "  warnings.warn(",
    ]
    spit = 2.31
    loss = 2.41
    elapsed = 0.0
    for step in range(50, 3001, 50):
        elapsed += 50 * spit + r.uniform(-3, 3)
        loss = max(1.05, loss - r.uniform(0.0, 0.03))
        out.append(tqdm_bar(step, 5025, elapsed, spit))
        out.append(hf_loss_line(loss, r.uniform(0.3, 0.9), 2e-5 * (0.5 + 0.5 * (1 - step / 5025)), step / 1675))
        if step % 500 == 0:
            ck = f"{out_dir}/checkpoint-{step}"
            c.tick(0)
            out += [
                f"[INFO|trainer.py:3067] {c.hf()} >> Saving model checkpoint to {ck}",
                f"[INFO|configuration_utils.py:473] {c.hf()} >> Configuration saved in {ck}/config.json",
                f"[INFO|configuration_utils.py:614] {c.hf()} >> Configuration saved in {ck}/generation_config.json",
            ]
            if step < 3000:
                out.append(f"[INFO|modeling_utils.py:2454] {c.tick(21).hf()} >> Model weights saved in {ck}/model.safetensors")
                out.append(f"[INFO|tokenization_utils_base.py:2459] {c.hf()} >> tokenizer config file saved in {ck}/tokenizer_config.json")
                out.append(f"[INFO|tokenization_utils_base.py:2468] {c.hf()} >> Special tokens file saved in {ck}/special_tokens_map.json")
            else:
                out.append(f"[INFO|modeling_utils.py:2454] {c.tick(24).hf()} >> Model weights saved in {ck}/model.safetensors")
                out.append(f"[INFO|tokenization_utils_base.py:2459] {c.hf()} >> tokenizer config file saved in {ck}/tokenizer_config.json")
                out.append(f"[INFO|tokenization_utils_base.py:2468] {c.hf()} >> Special tokens file saved in {ck}/special_tokens_map.json")
            c.tick(50 * spit)
    c.tick(61)
    first, second = _torch_save_enospc(site, torch_v, 271, 7960985536)
    tb = first + [
        "Traceback (most recent call last):",
        '  File "/workspace/sft/train_sft.py", line 233, in <module>',
        "    main()",
        '  File "/workspace/sft/train_sft.py", line 226, in main',
        "    train_result = trainer.train(resume_from_checkpoint=args.resume)",
        f'  File "{site}/transformers/trainer.py", line 1624, in train',
        "    return inner_training_loop(",
        f'  File "{site}/transformers/trainer.py", line 2029, in _inner_training_loop',
        "    self._maybe_log_save_evaluate(tr_loss, grad_norm, model, trial, epoch, ignore_keys_for_eval)",
        f'  File "{site}/transformers/trainer.py", line 2423, in _maybe_log_save_evaluate',
        "    self._save_checkpoint(model, trial, metrics=metrics)",
        f'  File "{site}/transformers/trainer.py", line 2499, in _save_checkpoint',
        "    self._save_optimizer_and_scheduler(output_dir)",
        f'  File "{site}/transformers/trainer.py", line 2607, in _save_optimizer_and_scheduler',
        "    torch.save(self.optimizer.state_dict(), os.path.join(output_dir, OPTIMIZER_NAME))",
    ] + second
    out += tb
    c.tick(1.3)
    for pid in pids[1:]:
        out.append(elastic_log(torch_v, c, "W", "torch.distributed.elastic.multiprocessing.api", 0,
                               f"Sending process {pid} closing signal SIGTERM"))
    c.tick(3.0)
    out.append(elastic_log(torch_v, c, "E", "torch.distributed.elastic.multiprocessing.api", 0,
                           f"failed (exitcode: 1) local_rank: 0 (pid: {pids[0]}) of binary: /opt/conda/bin/python"))
    out += [
        "Traceback (most recent call last):",
        '  File "/opt/conda/bin/accelerate", line 8, in <module>',
        "    sys.exit(main())",
        f'  File "{site}/accelerate/commands/accelerate_cli.py", line 47, in main',
        "    args.func(args)",
        f'  File "{site}/accelerate/commands/launch.py", line 1008, in launch_command',
        "    multi_gpu_launcher(args)",
        f'  File "{site}/accelerate/commands/launch.py", line 666, in multi_gpu_launcher',
        "    distrib_run.run(args)",
        f'  File "{site}/torch/distributed/run.py", line 803, in run',
        "    elastic_launch(",
        f'  File "{site}/torch/distributed/launcher/api.py", line 135, in __call__',
        "    return launch_agent(self._config, self._entrypoint, list(args))",
        f'  File "{site}/torch/distributed/launcher/api.py", line 268, in launch_agent',
        "    raise ChildFailedError(",
    ]
    out += elastic_summary("/workspace/sft/train_sft.py", {"time": c.elastic(), "host": host, "rank": 0,
                                                           "local_rank": 0, "exitcode": 1, "pid": pids[0]})
    write_case("disk-full-hf-optimizer-save-01", {
        "label": "disk-full",
        "difficulty": "medium",
        "description": "accelerate launch on 4x L40S, HF Trainer full fine-tune of a 1.4B model, save_steps=500 with "
                       "save_total_limit=None; at checkpoint-3000 the model weights are written but torch.save of "
                       "optimizer.pt fails with 'PytorchStreamWriter failed writing file ... file write failed' / "
                       "'unexpected pos' (the ENOSPC is not named), then ChildFailedError.",
        "initiating_rank": 0,
        "facts": {"torch_version": "2.2.1", "launcher": "accelerate", "precision": "bf16", "optimizer": "AdamW",
                  "failure_step": "3000", "exit_code": "1"},
        "must_mention": ["disk", "save_total_limit"],
    }, {"train.log": J(out)})


@case
def disk_full_tmpfs_checkpoint_cpu_02():
    write_case("disk-full-tmpfs-checkpoint-cpu-02", {
        "label": "disk-full",
        "difficulty": "medium",
        "description": "Real CPU run: a small LM saves model+optimizer every 100 steps (33 MiB each) onto a 100 MiB "
                       "tmpfs; the 4th torch.save fails with 'basic_ios::clear: iostream error' and 'unexpected "
                       "pos', which never say 'No space left on device'. The df line at the top shows the size.",
        "initiating_rank": None,
        "facts": {"launcher": "python", "failure_step": "400"},
        "must_mention": ["disk", "space"],
    }, {"run.log": REAL_TMPFS_SAVE})


@case
def disk_full_deepspeed_zero3_03():
    r = rng_for("df3")
    c = Clock("2024-08-17 03:10:02")
    torch_v, ds_v, site = "2.3.1", "0.14.4", "/usr/local/lib/python3.10/dist-packages"
    host = "h100-sxm-n07"
    pids = [40211 + 3 * i for i in range(8)]
    ckdir = "/checkpoints/llama2-13b-cpt"
    cmd = lambda i: (f"['/usr/bin/python', '-u', 'pretrain.py', '--local_rank={i}', '--model', '/models/Llama-2-13b-hf', "
                     f"'--data', '/data/cpt_mix_v2', '--save-dir', '{ckdir}', '--save-interval', '1000', "
                     f"'--deepspeed', 'configs/zero3_bf16.json']")
    out = [
        f"[{c.ds()}] [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
        f"[{c.tick(2).ds()}] [WARNING] [runner.py:202:fetch_hostfile] Unable to find hostfile, will proceed with training with local resources only.",
        f"[{c.ds()}] [INFO] [runner.py:568:main] cmd = /usr/bin/python -u -m deepspeed.launcher.launch "
        "--world_info=eyJsb2NhbGhvc3QiOiBbMCwgMSwgMiwgMywgNCwgNSwgNiwgN119 --master_addr=127.0.0.1 --master_port=29500 "
        f"--enable_each_rank_log=None pretrain.py --model /models/Llama-2-13b-hf --data /data/cpt_mix_v2 --save-dir {ckdir} "
        "--save-interval 1000 --deepspeed configs/zero3_bf16.json",
        f"[{c.tick(2).ds()}] [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
        f"[{c.ds()}] [INFO] [launch.py:139:main] 0 NCCL_VERSION=2.20.5",
        f"[{c.ds()}] [INFO] [launch.py:146:main] WORLD INFO DICT: {{'localhost': [0, 1, 2, 3, 4, 5, 6, 7]}}",
        f"[{c.ds()}] [INFO] [launch.py:152:main] nnodes=1, num_local_procs=8, node_rank=0",
        f"[{c.ds()}] [INFO] [launch.py:163:main] global_rank_mapping=defaultdict(<class 'list'>, {{'localhost': [0, 1, 2, 3, 4, 5, 6, 7]}})",
        f"[{c.ds()}] [INFO] [launch.py:164:main] dist_world_size=8",
        f"[{c.ds()}] [INFO] [launch.py:168:main] Setting CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7",
    ]
    for i in range(8):
        out.append(f"[{c.ds()}] [INFO] [launch.py:256:main] process {pids[i]} spawned with command: {cmd(i)}")
    c.tick(6)
    for i in range(8):
        out.append(f"[{c.tick(0.05).ds()}] [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda (auto detect)")
    out.append(f"[{c.tick(3).ds()}] [INFO] [comm.py:637:init_distributed] cdb=None")
    out.append(f"[{c.ds()}] [INFO] [comm.py:668:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl")
    out.append(f"[{c.tick(14).ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version={ds_v}, git-hash=unknown, git-branch=unknown")
    out.append(f"[{c.ds()}] [INFO] [config.py:733:__init__] Config mesh_device None world_size = 8")
    out += [
        f"[{c.tick(40).ds()}] [INFO] [partition_parameters.py:345:__exit__] finished initializing model - num_params = 363, num_elems = 13.02B",
        f"[{c.tick(2).ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Flops Profiler Enabled: False",
        f"[{c.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] Using DeepSpeed Optimizer param name adamw as basic optimizer",
        f"[{c.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] Removing param_group that has no 'params' in the basic Optimizer",
        f"[{c.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Basic Optimizer = FusedAdam",
        f"[{c.ds()}] [INFO] [utils.py:56:is_zero_supported_optimizer] Checking ZeRO support for optimizer=FusedAdam type=<class 'deepspeed.ops.adam.fused_adam.FusedAdam'>",
        f"[{c.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] Creating torch.bfloat16 ZeRO stage 3 optimizer",
        f"[{c.ds()}] [INFO] [utils.py:779:see_memory_usage] Stage 3 initialize beginning",
        f"[{c.ds()}] [INFO] [utils.py:780:see_memory_usage] MA 3.05 GB         Max_MA 3.89 GB         CA 3.94 GB         Max_CA 4 GB ",
        f"[{c.ds()}] [INFO] [utils.py:787:see_memory_usage] CPU Virtual Memory:  used = 212.4 GB, percent = 10.5%",
        f"[{c.tick(1).ds()}] [INFO] [stage3.py:130:__init__] Reduce bucket size 26214400",
        f"[{c.ds()}] [INFO] [stage3.py:131:__init__] Prefetch bucket size 23592960",
        f"[{c.tick(9).ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Final Optimizer = DeepSpeedZeroOptimizer_Stage3",
        f"[{c.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed using client LR scheduler",
        f"[{c.ds()}] [INFO] [config.py:997:print] DeepSpeedEngine configuration:",
        f"[{c.ds()}] [INFO] [config.py:1001:print]   bfloat16_enabled ............. True",
        f"[{c.ds()}] [INFO] [config.py:1001:print]   checkpoint_parallel_write_pipeline  False",
        f"[{c.ds()}] [INFO] [config.py:1001:print]   gradient_accumulation_steps .. 8",
        f"[{c.ds()}] [INFO] [config.py:1001:print]   gradient_clipping ............ 1.0",
        f"[{c.ds()}] [INFO] [config.py:1001:print]   train_batch_size ............. 256",
        f"[{c.ds()}] [INFO] [config.py:1001:print]   train_micro_batch_size_per_gpu  4",
        f"[{c.ds()}] [INFO] [config.py:1001:print]   zero_enabled ................. True",
        f"[{c.ds()}] [INFO] [config.py:1001:print]   zero_optimization_stage ...... 3",
        f"[{c.ds()}] [INFO] [config.py:987:print_user_config]   json = {{",
        '    "bf16": {',
        '        "enabled": true',
        "    }, ",
        '    "zero_optimization": {',
        '        "stage": 3, ',
        '        "overlap_comm": true, ',
        '        "contiguous_gradients": true, ',
        '        "stage3_gather_16bit_weights_on_model_save": false, ',
        '        "stage3_max_live_parameters": 1.000000e+09',
        "    }, ",
        '    "gradient_accumulation_steps": 8, ',
        '    "gradient_clipping": 1.0, ',
        '    "train_micro_batch_size_per_gpu": 4, ',
        '    "train_batch_size": 256, ',
        '    "wall_clock_breakdown": false',
        "}",
    ]
    loss = 1.92
    for step in range(100, 4001, 100):
        c.tick(100 * 9.6 + r.uniform(-10, 10))
        loss = max(1.55, loss - r.uniform(0, 0.012))
        out.append(f"[{c.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] step={step}, skipped=0, lr=[{3e-5 * min(1, step / 500):.6e}], mom=[(0.9, 0.95)]")
        out.append(f"[{c.ds()}] [INFO] [timer.py:259:stop] epoch=0/micro_step={step * 8}/global_step={step}, "
                   f"RunningAvgSamplesPerSec={26.6 + r.uniform(-.2, .2):.2f}, CurrSamplesPerSec={26.6 + r.uniform(-.6, .6):.2f}, "
                   f"MemAllocated=12.84GB, MaxMemAllocated=61.37GB")
        out.append(f"iter {step:6d} | loss {loss:.4f} | tokens/s/gpu {3402 + r.randint(-20, 20)} | ppl {2.718 ** loss:.3f}")
        if step % 1000 == 0:
            tag = f"global_step{step}"
            out.append(f"[{c.tick(1).ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] [Torch] Checkpoint {tag} is about to be saved!")
            out.append(f"[{c.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] Saving model checkpoint: {ckdir}/{tag}/zero_pp_rank_0_mp_rank_00_model_states.pt")
            out.append(f"[{c.ds()}] [INFO] [torch_checkpoint_engine.py:21:save] [Torch] Saving {ckdir}/{tag}/zero_pp_rank_0_mp_rank_00_model_states.pt...")
            out.append(f"[{c.tick(0.4).ds()}] [INFO] [torch_checkpoint_engine.py:23:save] [Torch] Saved {ckdir}/{tag}/zero_pp_rank_0_mp_rank_00_model_states.pt.")
            order = list(range(8))
            r.shuffle(order)
            for i in order:
                out.append(f"[{c.tick(0.02).ds()}] [INFO] [torch_checkpoint_engine.py:21:save] [Torch] Saving {ckdir}/{tag}/bf16_zero_pp_rank_{i}_mp_rank_00_optim_states.pt...")
            if step < 4000:
                r.shuffle(order)
                c.tick(38)
                for i in order:
                    out.append(f"[{c.tick(r.uniform(0.1, 2.5)).ds()}] [INFO] [torch_checkpoint_engine.py:23:save] [Torch] Saved {ckdir}/{tag}/bf16_zero_pp_rank_{i}_mp_rank_00_optim_states.pt.")
                out.append(f"[{c.tick(0.3).ds()}] [INFO] [engine.py:3478:_save_zero_checkpoint] zero checkpoint saved {ckdir}/{tag}/bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt")
                out.append(f"[{c.ds()}] [INFO] [torch_checkpoint_engine.py:33:commit] [Torch] Checkpoint {tag} is ready now!")
    # step 4000: the disk fills while the eight 19 GB optimizer partitions are written
    c.tick(29)
    done = [1, 0, 5]
    for i in done:
        out.append(f"[{c.tick(r.uniform(0.5, 1.5)).ds()}] [INFO] [torch_checkpoint_engine.py:23:save] [Torch] Saved {ckdir}/global_step4000/bf16_zero_pp_rank_{i}_mp_rank_00_optim_states.pt.")
    first, second = _torch_save_enospc(site, torch_v, 6, 15873437888)
    rank_tb = first + [
        "Traceback (most recent call last):",
        '  File "/workspace/cpt/pretrain.py", line 418, in <module>',
        "    main()",
        '  File "/workspace/cpt/pretrain.py", line 402, in main',
        '    engine.save_checkpoint(args.save_dir, tag=f"global_step{step}")',
        f'  File "{site}/deepspeed/runtime/engine.py", line 3112, in save_checkpoint',
        "    self._save_zero_checkpoint(save_dir, tag)",
        f'  File "{site}/deepspeed/runtime/engine.py", line 3473, in _save_zero_checkpoint',
        "    self.checkpoint_engine.save(zero_sd, zero_checkpoint_name)",
        f'  File "{site}/deepspeed/runtime/checkpoint_engine/torch_checkpoint_engine.py", line 22, in save',
        "    torch.save(state_dict, path)",
    ] + second
    out += rank_tb
    # a second rank starts failing the same way before the launcher reacts (its output is cut by the kill)
    out += rank_tb[:5]
    c.tick(1.1)
    for i in range(8):
        out.append(f"[{c.tick(0.01).ds()}] [INFO] [launch.py:319:sigkill_handler] Killing subprocess {pids[i]}")
    out.append(f"[{c.tick(30.4).ds()}] [ERROR] [launch.py:325:sigkill_handler] {cmd(7)} exits with return code = 1")
    write_case("disk-full-deepspeed-zero3-save-03", {
        "label": "disk-full",
        "difficulty": "hard",
        "description": "deepspeed launcher, 8x H100, ZeRO-3 bf16 13B continued pretraining, save every 1000 steps "
                       "to a local NVMe with no rotation; at global_step4000 the eight ~19 GB optimizer partitions "
                       "fill the disk: a rank's torch.save fails with 'file write failed' / 'unexpected pos', and "
                       "the launcher's last line blames --local_rank=7 (DeepSpeed prints the command of the last "
                       "spawned rank, not of the failed one).",
        "initiating_rank": None,
        "facts": {"deepspeed_version": "0.14.4", "launcher": "deepspeed", "world_size": "8", "zero_stage": "3",
                  "precision": "bf16", "nccl_version": "2.20.5", "failure_step": "4000", "optimizer": "FusedAdam"},
        "must_mention": ["disk", "checkpoint"],
    }, {"train.log": J(out)})


@case
def disk_full_lightning_quota_04():
    r = rng_for("df4")
    user = "mbauer"
    key = wandb_key(r)
    c = Clock("2024-06-02 09:14:55")
    site = f"/home/{user}/.conda/envs/pl21/lib/python3.11/site-packages"
    runs = f"/scratch/{user}/runs/vit-b16-inat21"
    out = [
        f"[job 7731904] started {c.t.strftime('%a %b %d %H:%M:%S %Z %Y')}UTC on gpu-a40-017 (partition=gpu, gres=gpu:a100:1)",
        f"[job 7731904] workdir /home/{user}/code/inat",
        "[job 7731904] env:",
        "WANDB_PROJECT=inat21-vit",
        "WANDB_ENTITY=bauer-lab",
        f"WANDB_API_KEY={key}",
        f"WANDB_DIR={runs}",
        "[job 7731904] lfs quota -h -u " + user + " /scratch",
        f"Disk quotas for usr {user} (uid 40123):",
        "     Filesystem    used   quota   limit   grace   files   quota   limit   grace",
        "       /scratch  471.9G    500G    500G       -  388102       0       0       -",
        f"[job 7731904] srun python train.py fit --config configs/vit_b16_inat21.yaml --trainer.default_root_dir {runs}",
        f"{site}/lightning/fabric/connector.py:565: `precision=16` is supported for historical reasons but its usage is discouraged. Please set your precision to 16-mixed instead!",
        "Using 16bit Automatic Mixed Precision (AMP)",
        "GPU available: True (cuda), used: True",
        "TPU available: False, using: 0 TPU cores",
        "IPU available: False, using: 0 IPUs",
        "HPU available: False, using: 0 HPUs",
        f"wandb: Currently logged in as: {user} (bauer-lab). Use `wandb login --relogin` to force relogin",
        "wandb: Tracking run with wandb version 0.16.6",
        f"wandb: Run data is saved locally in {runs}/wandb/run-20240602_091531-q8d3xk2m",
        "wandb: Run `wandb offline` to turn off syncing.",
        "wandb: Syncing run vit-b16-lr3e-4-bs256",
        "wandb: ⭐️ View project at https://wandb.ai/bauer-lab/inat21-vit",
        "wandb: 🚀 View run at https://wandb.ai/bauer-lab/inat21-vit/runs/q8d3xk2m",
        "You are using a CUDA device ('NVIDIA A100-SXM4-40GB') that has Tensor Cores. To properly utilize them, you should "
        "set `torch.set_float32_matmul_precision('medium' | 'high')` which will trade-off precision for performance. For "
        "more details, read https://pytorch.org/docs/stable/generated/torch.set_float32_matmul_precision.html#torch.set_float32_matmul_precision",
        "LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0]",
        "",
        "  | Name      | Type               | Params",
        "-------------------------------------------------",
        "0 | backbone  | VisionTransformer  | 85.8 M",
        "1 | head      | Linear             | 7.7 M ",
        "2 | criterion | CrossEntropyLoss   | 0     ",
        "3 | train_acc | MulticlassAccuracy | 0     ",
        "4 | val_acc   | MulticlassAccuracy | 0     ",
        "-------------------------------------------------",
        "93.5 M    Trainable params",
        "0         Non-trainable params",
        "93.5 M    Total params",
        "374.001   Total estimated model params size (MB)",
        f"{site}/lightning/pytorch/loops/fit_loop.py:298: The number of training batches (1953) is smaller than the "
        "logging interval Trainer(log_every_n_steps=2000). Set a lower value for log_every_n_steps if you want to see "
        "logs for the training epoch.",
    ]
    acc = 0.02
    for ep in range(6):
        acc = min(0.71, acc + r.uniform(0.06, 0.12))
        tl = 6.2 - ep * 0.71 + r.uniform(-.05, .05)
        out.append(f"Epoch {ep}: 100%|██████████| 1953/1953 [14:{r.randint(10, 40):02d}<00:00,  2.2{r.randint(0, 9)}it/s, "
                   f"v_num=xk2m, train_loss={tl:.3f}]")
        out.append(f"Validation DataLoader 0: 100%|██████████| 391/391 [01:0{r.randint(2, 8)}<00:00,  6.1{r.randint(0, 9)}it/s]")
        out.append(f"Epoch {ep}, global step {1953 * (ep + 1)}: 'val/acc' reached {acc:.5f} (best {acc:.5f}), saving model to "
                   f"'{runs}/checkpoints/epoch={ep}-step={1953 * (ep + 1)}.ckpt' as top 3")
    ep = 6
    out.append(f"Epoch {ep}: 100%|██████████| 1953/1953 [14:22<00:00,  2.26it/s, v_num=xk2m, train_loss={6.2 - ep * 0.71:.3f}]")
    out.append("Validation DataLoader 0: 100%|██████████| 391/391 [01:04<00:00,  6.08it/s]")
    pl = f"{site}/lightning/pytorch"
    out += [
        "Traceback (most recent call last):",
        f'  File "/home/{user}/code/inat/train.py", line 41, in <module>',
        "    cli_main()",
        f'  File "/home/{user}/code/inat/train.py", line 37, in cli_main',
        "    LightningCLI(InatViT, InatDataModule, save_config_kwargs={\"overwrite\": True})",
        f'  File "{pl}/cli.py", line 386, in __init__',
        "    self._run_subcommand(self.subcommand)",
        f'  File "{pl}/cli.py", line 677, in _run_subcommand',
        "    fn(**fn_kwargs)",
        f'  File "{pl}/trainer/trainer.py", line 544, in fit',
        "    call._call_and_handle_interrupt(",
        f'  File "{pl}/trainer/call.py", line 44, in _call_and_handle_interrupt',
        "    return trainer_fn(*args, **kwargs)",
        f'  File "{pl}/trainer/trainer.py", line 580, in _fit_impl',
        "    self._run(model, ckpt_path=ckpt_path)",
        f'  File "{pl}/trainer/trainer.py", line 989, in _run',
        "    results = self._run_stage()",
        f'  File "{pl}/trainer/trainer.py", line 1035, in _run_stage',
        "    self.fit_loop.run()",
        f'  File "{pl}/loops/fit_loop.py", line 203, in run',
        "    self.on_advance_end()",
        f'  File "{pl}/loops/fit_loop.py", line 374, in on_advance_end',
        '    call._call_callback_hooks(trainer, "on_train_epoch_end", monitoring_callbacks=True)',
        f'  File "{pl}/trainer/call.py", line 208, in _call_callback_hooks',
        "    fn(trainer, trainer.lightning_module, *args, **kwargs)",
        f'  File "{pl}/callbacks/model_checkpoint.py", line 316, in on_train_epoch_end',
        "    self._save_topk_checkpoint(trainer, monitor_candidates)",
        f'  File "{pl}/callbacks/model_checkpoint.py", line 387, in _save_topk_checkpoint',
        "    self._save_monitor_checkpoint(trainer, monitor_candidates)",
        f'  File "{pl}/callbacks/model_checkpoint.py", line 699, in _save_monitor_checkpoint',
        "    self._update_best_and_save(current, trainer, monitor_candidates)",
        f'  File "{pl}/callbacks/model_checkpoint.py", line 751, in _update_best_and_save',
        "    self._save_checkpoint(trainer, filepath)",
        f'  File "{pl}/callbacks/model_checkpoint.py", line 390, in _save_checkpoint',
        "    trainer.save_checkpoint(filepath, self.save_weights_only)",
        f'  File "{pl}/trainer/trainer.py", line 1365, in save_checkpoint',
        "    self.strategy.save_checkpoint(checkpoint, filepath, storage_options=storage_options)",
        f'  File "{pl}/strategies/strategy.py", line 490, in save_checkpoint',
        "    self.checkpoint_io.save_checkpoint(checkpoint, filepath, storage_options=storage_options)",
        f'  File "{site}/lightning/fabric/plugins/io/torch_io.py", line 58, in save_checkpoint',
        "    _atomic_save(checkpoint, path)",
        f'  File "{site}/lightning/fabric/utilities/cloud_io.py", line 88, in _atomic_save',
        "    f.write(bytesbuffer.getvalue())",
        "OSError: [Errno 122] Disk quota exceeded",
        "wandb: - 0.013 MB of 0.013 MB uploaded",
        "wandb: ERROR Problem finishing run",
        "srun: error: gpu-a40-017: task 0: Exited with exit code 1",
    ]
    write_case("disk-full-lightning-quota-04", {
        "label": "disk-full",
        "difficulty": "easy",
        "description": "Slurm single-GPU Lightning run writing top-3 checkpoints, wandb files and logs to a Lustre "
                       "/scratch that starts at 472G of a 500G user quota; after epoch 6 the checkpoint write fails "
                       "with 'OSError: [Errno 122] Disk quota exceeded' (a quota, not a physically full disk).",
        "initiating_rank": None,
        "facts": {"gpu_model": "A100-SXM4-40GB", "launcher": "srun", "precision": "fp16", "exit_code": "1"},
        "must_mention": ["quota"],
        "secrets": [key, user],
    }, {"slurm-7731904.out": J(out)})
