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
from datetime import datetime, timedelta


from common import SMI_HEADS_NARROW, SMI_HEADS_WIDE, SMI_PROCESSES_NARROW, SMI_PROCESSES_WIDE, Collector, RankExit, accelerate_launch_frames, collect_env_report, dedent, ds_report_header, elastic_launch_frames, parser, torchrun_child_failed_summary, torchrun_main_frames  # noqa: E402

_cases = Collector()
case = _cases.case
write_case = _cases.add


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


# ---------------------------------------------------------------- clocks and prefixes

class Clock:
    def __init__(self, start: str):
        self.t = datetime.strptime(start, "%Y-%m-%d %H:%M:%S")
        self.t += timedelta(microseconds=random.Random(start).randint(1000, 999000))  # real logs never start at ,000

    def tick(self, seconds: float) -> Clock:
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


def elastic_summary(script: str, root: dict, others: list[dict] | None = None) -> list[str]:
    """The ChildFailedError line and summary printed by torchrun (torch 1.13 .. 2.5 layout)."""
    return ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
            *torchrun_child_failed_summary(script, RankExit.of(root), [RankExit.of(f) for f in others or []])]


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
    tb = [
        "Traceback (most recent call last):",
        f'  File "{entry}", line 8, in <module>',
        "    sys.exit(main())",
        *torchrun_main_frames(site, lines[0], lines[1]),
        *elastic_launch_frames(site, lines[2], lines[3]),
    ] + [ln.replace("{site}", site).replace("{la}", str(lines[4])) for ln in tail]
    return py311_carets(tb) if tuple(map(int, py.split("."))) >= (3, 11) else tb


def py311_carets(lines: list[str]) -> list[str]:
    """Add the PEP 657 '^^^^' markers Python >= 3.11 prints under the failing expression of a frame.

    Python omits them when the expression is the whole line (a bare call, `raise ...`, `elastic_launch(`);
    for `return expr` and `x = expr` they underline `expr` (only its first line when it continues).
    """
    out: list[str] = []
    prev_file = False
    for ln in lines:
        out.append(ln)
        is_code = prev_file and ln.startswith("    ") and not ln.lstrip().startswith(("File ", "^"))
        prev_file = ln.lstrip().startswith('File "')
        if not is_code:
            continue
        code = ln.strip()
        indent = len(ln) - len(ln.lstrip())
        start = None
        if code.startswith("return "):
            start = len("return ")
        elif " = " in code and "(" in code and code.index(" = ") < code.index("("):
            start = code.index(" = ") + 3
        elif code.startswith("sys.exit(") and code.endswith("())"):
            start = len("sys.exit(")
            out.append(" " * (indent + start) + "^" * (len(code) - start - 1))
            continue
        if start is None or code.startswith("raise "):
            continue
        out.append(" " * (indent + start) + "^" * (len(code) - start))
    return out


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
            f"| NVIDIA-SMI {driver:<23}Driver Version: {driver:<13}CUDA Version: {cuda:<9}|",
            "|-----------------------------------------+----------------------+----------------------+",
            *SMI_HEADS_WIDE,
            "|=========================================+======================+======================|",
        ]
        for i, g in enumerate(gpus):
            name = ("NVIDIA " + g["name"])[:28]
            out.append(f"| {i:>3}  {name:<30}{g.get('pm', 'On'):>3}  | {g['bus']} {g.get('disp', 'Off'):>3} |"
                       f" {g.get('ecc', '0'):>20} |")
            pw = f"{g.get('pwr', 60)}W / {g.get('cap', 400)}W"
            mem = f"{g.get('used', 4)}MiB / {g['total']}MiB"
            out.append(f"| {g.get('fan', 'N/A'):>3}   {g.get('temp', 34)}C    {g.get('perf', 'P0'):<13}{pw:>13} |"
                       f" {mem:>20} | {str(g.get('util', 0)) + '%':>7}      Default |")
            out.append(f"|                                         |                      | {g.get('mig', 'Disabled'):>20} |")
            out.append("+-----------------------------------------+----------------------+----------------------+")
        out += [
            "                                                                                         ",
            "+---------------------------------------------------------------------------------------+",
            *SMI_PROCESSES_WIDE,
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
            f"| NVIDIA-SMI {driver:<13}Driver Version: {driver:<13}CUDA Version: {cuda:<9}|",
            "|-------------------------------+----------------------+----------------------+",
            *SMI_HEADS_NARROW,
            "|===============================+======================+======================|",
        ]
        for i, g in enumerate(gpus):
            name = g["name"] if len(g["name"]) <= 18 else g["name"][:15] + "..."
            out.append(f"| {i:>3}  {name:<18}  {g.get('pm', 'On'):<4} | {g['bus']} {g.get('disp', 'Off'):>3} |"
                       f" {g.get('ecc', '0'):>20} |")
            pw = f"{g.get('pwr', 55):>3}W / {g.get('cap', 300)}W"
            mem = f"{g.get('used', 0)}MiB / {g['total']}MiB"
            out.append(f"| {g.get('fan', 'N/A'):>3}   {g.get('temp', 34)}C    {g.get('perf', 'P0')} {pw:>13} |"
                       f" {mem:>20} | {str(g.get('util', 0)) + '%':>7}      Default |")
            out.append(f"|                               |                      | {g.get('mig', 'N/A'):>20} |")
            out.append("+-------------------------------+----------------------+----------------------+")
        out += [
            "                                                                               ",
            "+-----------------------------------------------------------------------------+",
            *SMI_PROCESSES_NARROW,
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
    """collect_env's report for a pip-installed torch."""
    devices = ["GPU models and configuration: ", *(f"GPU {i}: NVIDIA {g}" for i, g in enumerate(gpus)), "",
               f"Nvidia driver version: {driver}", "cuDNN version: Probably one of the following:",
               *(f"/usr/lib/x86_64-linux-gnu/libcudnn{lib}.so.{cudnn}" for lib in ("", "_adv_infer", "_cnn_infer"))]
    cpu_lines = [
        "Architecture:                       x86_64",
        "CPU op-mode(s):                     32-bit, 64-bit",
        "Byte Order:                         Little Endian",
        f"CPU(s):                             {cores}",
        f"Model name:                         {cpu}",
        "Thread(s) per core:                 2",
        "NUMA node(s):                       2",
    ]
    return J(collect_env_report(
        torch=f"{torch_v}+cu{cuda.replace('.', '')}", cuda_build=cuda, os=f"{os_name} (x86_64)", gcc=gcc, libc=f"glibc-{libc}",
        python=f"{py} {py_build} (64-bit runtime)", platform=f"Linux-{kernel}-x86_64-with-glibc{libc}", cuda_runtime=cuda_rt,
        devices=devices, cpu=cpu_lines, libs=[f"{k}=={v}" for k, v in pip.items()], conda=["Could not collect"]))


def ds_report(ds_v: str, torch_v: str, cuda: str, site: str, shm: str, installed: set[str] = frozenset()) -> str:
    ops = ["async_io", "fused_adam", "cpu_adam", "cpu_adagrad", "cpu_lion", "evoformer_attn", "fused_lamb",
           "fused_lion", "inference_core_ops", "cutlass_ops", "transformer_inference", "quantizer",
           "ragged_device_ops", "ragged_ops", "random_ltd", "sparse_attn", "spatial_inference", "transformer",
           "stochastic_transformer"]
    out = ds_report_header()
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
    out = ["+ ulimit -n", "1024", "+ nvidia-smi"]
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
    out.insert(out.index(f"+ srun -l python train_seg.py --cfg cfgs/ade20k_upernet_swin_b.yaml --work-dir /scratch/{user}/runs/upernet_swinb_0213") + 1,
               f"0: gpu-a100-04:{pids[0]}:{pids[0]} [0] NCCL INFO NCCL version 2.14.3+cuda11.7")
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
        "04/09/2024 07:55:49 - WARNING - __main__ - Process rank: 0, device: cuda:0, n_gpu: 1, distributed training: True, 16-bits training: False",
        "04/09/2024 07:55:49 - INFO - __main__ - versions: torch 2.2.1+cu121, transformers 4.38.2, accelerate 0.27.2, datasets 2.18.0",
        "04/09/2024 07:55:49 - INFO - __main__ - Training/evaluation parameters TrainingArguments(",
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
        *accelerate_launch_frames("/opt/conda/bin/accelerate", site, 47, 1008, "multi_gpu_launcher", 666),
        *elastic_launch_frames(site, 803, 135, 268),
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
        f"[job 7731904] started {c.t.strftime('%a %b %d %H:%M:%S %Z %Y')}UTC on gpu-a100-017 (partition=gpu, gres=gpu:a100:1)",
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
        "srun: error: gpu-a100-017: task 0: Exited with exit code 1",
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
    }, {"slurm-7731904.out": J(py311_carets(out))})


# ================================================================ sighup-session-hangup

def _signal_exception_tail(torch_v: str, pid: int, signum: int) -> list[str]:
    run_l, inv_l, sl_l, mp_l = {(2, 1): (727, 868, 124, 62), (2, 3): (680, 835, 128, 64),
                                (2, 4): (696, 855, 128, 64), (2, 5): (711, 870, 138, 70)}[tv(torch_v)]
    return [
        '  File "{site}/torch/distributed/launcher/api.py", line {la}, in launch_agent',
        "    result = agent.run()",
        f'  File "{{site}}/torch/distributed/elastic/metrics/api.py", line {sl_l}, in wrapper',
        "    result = f(*args, **kwargs)",
        f'  File "{{site}}/torch/distributed/elastic/agent/server/api.py", line {run_l}, in run',
        "    result = self._invoke_run(role)",
        f'  File "{{site}}/torch/distributed/elastic/agent/server/api.py", line {inv_l}, in _invoke_run',
        "    time.sleep(monitor_interval)",
        f'  File "{{site}}/torch/distributed/elastic/multiprocessing/api.py", line {mp_l}, in _terminate_process_handler',
        '    raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)',
        f"torch.distributed.elastic.multiprocessing.api.SignalException: Process {pid} got signal: {signum}",
    ]


@case
def sighup_torchrun_ssh_01():
    r = rng_for("hup1")
    user = "alee"
    tok = hf_token(r)
    c = Clock("2024-07-11 18:02:31")
    torch_v, site = "2.3.1", "/home/alee/venvs/llm/lib/python3.11/site-packages"
    agent = 602118
    pids = [602131 + i for i in range(8)]
    host = "h100-dev-03"
    out = [
        f"# {c.t:%Y-%m-%d %H:%M:%S} launching from {host}:/home/{user}/src/tinyllama-sft",
        f"# git 9c41e7a (dirty)  python 3.11.9  torch {torch_v}+cu121",
        "# env: CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 NCCL_DEBUG=WARN OMP_NUM_THREADS=8 "
        f"HF_HOME=/home/{user}/.cache/huggingface HF_TOKEN={tok} WANDB_MODE=offline",
        "# cmd: torchrun --standalone --nproc_per_node=8 train_fsdp.py --model TinyLlama/TinyLlama_v1.1 "
        "--data data/sft_mix_v4.jsonl --epochs 2 --bs 16 --lr 2e-5",
    ]
    out += torchrun_banner(torch_v, c, agent)
    c.tick(11)
    out += [
        "[rank0] loading TinyLlama/TinyLlama_v1.1 (1.10B params) in bf16",
        "[rank0] FSDP: sharding_strategy=FULL_SHARD, auto_wrap=LlamaDecoderLayer, mixed_precision=bf16, "
        "use_orig_params=True",
        "[rank0] data: 388,120 samples, packed to 2048 tokens -> 96,030 sequences; 750 steps/epoch",
    ]
    for i in range(8):
        out.append(f"{site}/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant "
                   "parameter should be passed explicitly. In version 2.4 we will raise an exception if "
                   "use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve "
                   "the current default behavior, you can pass use_reentrant=True. Refer to docs for more details "
                   "on the differences between the two variants.")
        out.append("  return fn(*args, **kwargs)")
    loss = 1.71
    for step in range(10, 431, 10):
        c.tick(10 * 1.42 + r.uniform(-.4, .4))
        loss = max(1.1, loss - r.uniform(-0.01, 0.02))
        out.append(f"[rank0] {c.t:%H:%M:%S} epoch 1/2 step {step:4d}/750 loss {loss:.4f} grad_norm {r.uniform(.3, .7):.3f} "
                   f"lr {2e-5 * min(1, step / 50):.2e} tok/s {r.randint(88000, 91500)} mem {r.uniform(31.1, 31.6):.1f}GiB")
    c.tick(6.3)
    out.append(elastic_log(torch_v, c, "W", "torch.distributed.elastic.agent.server.api", 696,
                           "Received 1 death signal, shutting down workers", agent))
    for pid in pids:
        out.append(elastic_log(torch_v, c.tick(0.004), "W", "torch.distributed.elastic.multiprocessing.api", 833,
                               f"Sending process {pid} closing signal SIGHUP", agent))
    out += agent_traceback("3.11", site, f"/home/{user}/venvs/llm/bin/torchrun", torch_v,
                           _signal_exception_tail(torch_v, agent, 1))
    write_case("sighup-session-hangup-torchrun-ssh-01", {
        "label": "sighup-session-hangup",
        "difficulty": "easy",
        "description": "torchrun started in the background of an SSH shell (output redirected, no nohup/tmux) on an "
                       "8x H100 dev box; the SSH session drops, the shell hangs up its jobs, torchrun logs "
                       "'Received 1 death signal', forwards SIGHUP to the 8 workers and dies with "
                       "SignalException: got signal: 1. No worker printed an error.",
        "initiating_rank": None,
        "facts": {"torch_version": "2.3.1", "launcher": "torchrun", "python_version": "3.11.9",
                  "failure_step": "430"},
        "must_mention": ["SIGHUP", "tmux"],
        "secrets": [tok, user],
    }, {"train.log": J(out)})


@case
def sighup_accelerate_trainer_02():
    r = rng_for("hup2")
    c = Clock("2024-01-26 23:47:02")
    torch_v, site = "2.1.2", "/usr/local/lib/python3.11/dist-packages"
    agent = 2231
    pids = [2245, 2246, 2247, 2248]
    out = [
        "2024-01-26 23:47:02.118  launch: accelerate launch --config_file fsdp_off_ddp.yaml sft_lora.py --model_name_or_path mistralai/Mistral-7B-v0.1",
    ]
    out += torchrun_banner(torch_v, c, agent)
    c.tick(8)
    out += [
        "01/26/2024 23:47:10 - INFO - __main__ - torch 2.1.2+cu121, transformers 4.36.2, peft 0.7.1, accelerate 0.25.0",
        "01/26/2024 23:47:10 - INFO - __main__ - Distributed environment: MULTI_GPU  Backend: nccl",
        "Num processes: 4",
        "Process index: 0",
        "Local process index: 0",
        "Device: cuda:0",
        "",
        "Mixed precision type: bf16",
        "",
        "Loading checkpoint shards: 100%|██████████| 2/2 [00:07<00:00,  3.61s/it]",
        "trainable params: 41,943,040 || all params: 7,283,675,136 || trainable%: 0.5758553207000077",
        f"{site}/transformers/tokenization_utils_base.py:2614: UserWarning: `max_length` is ignored when "
        "`padding`=`True` and there is no truncation strategy. To pad to max length, use `padding='max_length'`.",
        "  warnings.warn(",
        "huggingface/tokenizers: The current process just got forked, after parallelism has already been used. "
        "Disabling parallelism to avoid deadlocks...",
        "To disable this warning, you can either:",
        "\t- Avoid using `tokenizers` before the fork if possible",
        "\t- Explicitly set the environment variable TOKENIZERS_PARALLELISM=(true | false)",
        "  0%|          | 0/2343 [00:00<?, ?it/s]",
    ]
    spit = 3.07
    el = 0
    loss = 1.38
    for step in range(25, 1176, 25):
        el += 25 * spit + r.uniform(-1, 1)
        loss = max(0.82, loss - r.uniform(-0.005, 0.012))
        out.append(tqdm_bar(step, 2343, el, spit))
        if step % 50 == 0:
            out.append(hf_loss_line(loss, None, 2e-4 * (1 - step / 2343), step / 781))
    c.tick(el + 41)
    out.append(tqdm_bar(1189, 2343, el + 41, spit))
    out.append(elastic_log(torch_v, c, "W", "torch.distributed.elastic.agent.server.api", 0,
                           "Received 1 death signal, shutting down workers"))
    for pid in pids:
        out.append(elastic_log(torch_v, c.tick(0.003), "W", "torch.distributed.elastic.multiprocessing.api", 0,
                               f"Sending process {pid} closing signal SIGHUP"))
    out += [
        "Traceback (most recent call last):",
        *accelerate_launch_frames("/usr/local/bin/accelerate", site, 47, 1008, "multi_gpu_launcher", 666),
        *elastic_launch_frames(site, 797, 134),
    ] + [ln.replace("{site}", site).replace("{la}", "255") for ln in _signal_exception_tail(torch_v, agent, 1)]
    write_case("sighup-session-hangup-accelerate-lora-02", {
        "label": "sighup-session-hangup",
        "difficulty": "medium",
        "description": "accelerate launch (multi-GPU, so torch elastic underneath) of a LoRA fine-tune; at 1189/2343 "
                       "the HF progress bar stops and the agent logs 'Received 1 death signal' and sends SIGHUP to "
                       "the workers; the visible end is a SignalException traceback through accelerate. Nothing "
                       "failed in the workers: the launching terminal went away.",
        "initiating_rank": None,
        "facts": {"torch_version": "2.1.2", "launcher": "accelerate", "world_size": "4", "precision": "bf16",
                  "failure_step": "1189"},
        "must_mention": ["SIGHUP", "nohup"],
    }, {"train.log": J(py311_carets(out))})


@case
def sighup_multinode_collateral_03():
    r = rng_for("hup3")
    c0 = Clock("2024-10-03 01:12:40")
    torch_v, site = "2.4.1", "/opt/venv/lib/python3.11/site-packages"
    hosts = ["h100-a01", "h100-a02"]
    ips = ["10.1.0.11", "10.1.0.12"]
    agents = [77410, 51902]
    pids = {k: (77430 + k if k < 8 else 51920 + k - 8) for k in range(16)}
    cmdline = ("torchrun --nnodes=2 --nproc_per_node=8 --rdzv_backend=c10d --rdzv_endpoint=h100-a01:29400 "
               "--rdzv_id=mistral-cpt-1003 pretrain.py --config configs/cpt_7b.yaml")
    logs = {}
    for node in (0, 1):
        c = Clock("2024-10-03 01:12:40")
        c.tick(node * 3.1)
        out = [f"$ {cmdline} > node{node}.log 2>&1 &"]
        out += torchrun_banner(torch_v, c, agents[node])
        c.tick(9)
        for lk in range(8):
            k = node * 8 + lk
            out += nccl_init(hosts[node], pids[k], lk, k, 16, "2.20.5", "cuda12.4", r, net="IB", ifname="ib0",
                             ip=ips[node], bus=["18000", "2a000", "3a000", "5d000", "9a000", "ab000", "ba000", "db000"][lk],
                             show_version=(k == 0), nchan=2)[-2:]
        logs[node] = (c, out)
    # training progress is printed by global rank 0 only (node0.log)
    c, out = logs[0]
    out.append(f"[{c.t:%Y-%m-%d %H:%M:%S}] torch {torch_v}+cu124, world 16 (2 nodes x 8 H100), bf16, FSDP full shard")
    loss = 2.28
    for step in range(20, 1841, 20):
        c.tick(20 * 3.95 + r.uniform(-1, 1))
        loss = max(1.7, loss - r.uniform(-0.003, 0.006))
        out.append(f"[{c.t:%Y-%m-%d %H:%M:%S}] step {step:6d} | loss {loss:.4f} | lr {1.5e-4 * min(1, step / 400):.3e} "
                   f"| tflops/gpu {r.uniform(402, 409):.1f} | mem {r.uniform(61.1, 61.9):.1f}G")
    t_hup = Clock(c.t.strftime("%Y-%m-%d %H:%M:%S")).tick(2.7)
    out.append(elastic_log(torch_v, t_hup, "W", "torch.distributed.elastic.agent.server.api", 696,
                           "Received 1 death signal, shutting down workers", agents[0]))
    for lk in range(8):
        out.append(elastic_log(torch_v, t_hup.tick(0.002), "W", "torch.distributed.elastic.multiprocessing.api", 897,
                               f"Sending process {pids[lk]} closing signal SIGHUP", agents[0]))
    out += agent_traceback("3.11", site, "/opt/venv/bin/torchrun", torch_v, _signal_exception_tail(torch_v, agents[0], 1))
    # node1: its ranks lose their peers on node0
    c1, out1 = logs[1]
    c1.t = t_hup.t
    c1.tick(7.8)
    failing = [9, 12, 8, 14, 10, 15, 11, 13]
    for n, k in enumerate(failing):
        cc = Clock(c1.t.strftime("%Y-%m-%d %H:%M:%S")).tick(n * 0.013 + 0.4)
        ts = f"E{cc.t:%m%d %H:%M:%S}.{r.randint(0, 999999999):09d}"
        msg = (f"[PG 0 (default_pg) Rank {k}] Process group watchdog thread terminated with exception: NCCL error: "
               "remote process exited or there was a network error, NCCL version 2.20.5")
        out1 += [
            f"{hosts[1]}:{pids[k]}:{pids[k] + 211} [{k - 8}] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion "
            f"from peer {ips[0]}<{r.randint(40000, 60000)}> with error 12, opcode 0, len 0, vendor err 129 (Recv)",
            f"{hosts[1]}:{pids[k]}:{pids[k] + 211} [{k - 8}] NCCL INFO transport/net.cc:1302 -> 6",
            f"{hosts[1]}:{pids[k]}:{pids[k] + 211} [{k - 8}] NCCL INFO proxy.cc:694 -> 6",
            f"{hosts[1]}:{pids[k]}:{pids[k] + 211} [{k - 8}] NCCL INFO proxy.cc:874 -> 6 [Progress Thread]",
            f"[rank{k}]:[{ts} ProcessGroupNCCL.cpp:1515] {msg}",
            "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
            "Last error:",
            f"NET/IB : Got completion from peer {ips[0]}<{r.randint(40000, 60000)}> with error 12, opcode 0, len 0, vendor err 129 (Recv)",
            "Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1977 (most recent call first):",
            f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f{r.getrandbits(36):09x} in {site}/torch/lib/libc10.so)",
            f"frame #1: c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&) + 0x220 (0x7f{r.getrandbits(36):09x} in {site}/torch/lib/libtorch_cuda.so)",
            f"frame #2: c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x7c (0x7f{r.getrandbits(36):09x} in {site}/torch/lib/libtorch_cuda.so)",
            f"frame #3: c10d::ProcessGroupNCCL::watchdogHandler() + 0x210 (0x7f{r.getrandbits(36):09x} in {site}/torch/lib/libtorch_cuda.so)",
            f"frame #4: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c (0x7f{r.getrandbits(36):09x} in {site}/torch/lib/libtorch_cuda.so)",
            "",
            "terminate called after throwing an instance of 'c10::DistBackendError'",
            f"  what():  {msg}",
        ]
    c1.tick(1.9)
    out1.append(elastic_log(torch_v, c1, "E", "torch.distributed.elastic.multiprocessing.api", 863,
                            f"failed (exitcode: -6) local_rank: 1 (pid: {pids[9]}) of binary: /opt/venv/bin/python", agents[1]))
    out1 += agent_traceback("3.11", site, "/opt/venv/bin/torchrun", torch_v, [
        '  File "{site}/torch/distributed/launcher/api.py", line {la}, in launch_agent',
        "    raise ChildFailedError(",
    ])
    others = []
    for k in failing[1:]:
        others.append({"time": c1.elastic(), "host": hosts[1], "rank": k, "local_rank": k - 8, "exitcode": -6,
                       "pid": pids[k]})
    others.sort(key=lambda f: f["rank"])
    out1 += elastic_summary("pretrain.py", {"time": c1.elastic(), "host": hosts[1], "rank": 9, "local_rank": 1,
                                            "exitcode": -6, "pid": pids[9]}, others)
    write_case("sighup-session-hangup-multinode-collateral-03", {
        "label": "sighup-session-hangup",
        "also": [],
        "difficulty": "hard",
        "description": "2-node torchrun (16x H100, torch 2.4.1, NCCL 2.20.5), each node started by hand in an SSH "
                       "shell with '&'. node0's session hangs up: its agent logs 'Received 1 death signal' and "
                       "SIGHUPs ranks 0-7. node1's ranks then get NET/IB completion errors and ncclRemoteError, "
                       "abort (SIGABRT) and node1's ChildFailedError names rank 9: all collateral. Ranks 0-7 "
                       "were stopped together by their own launcher.",
        "initiating_rank": [0, 1, 2, 3, 4, 5, 6, 7],
        "facts": {"torch_version": "2.4.1", "nccl_version": "2.20.5", "launcher": "torchrun", "num_nodes": "2",
                  "world_size": "16", "failure_step": "1840"},
        "must_mention": ["SIGHUP", "tmux"],
    }, {"node0.log": J(logs[0][1]), "node1.log": J(out1)})


# ================================================================ process-killed-sigkill

@case
def sigkill_torchrun_summary_01():
    r = rng_for("k1")
    c = Clock("2024-03-05 10:31:12")
    torch_v, site = "2.2.1", "/usr/local/lib/python3.10/dist-packages"
    host = "a100-node-11"
    agent = 9120
    pids = [9135 + i for i in range(8)]
    out = [nvidia_smi("Tue Mar  5 10:31:10 2024", "535.161.07",
                      [gpu_row("A100-SXM4-80GB", 81920, f"00000000:{b}:00.0", pwr=r.randint(58, 66), temp=r.randint(29, 34))
                       for b in ["07", "0F", "47", "4E", "87", "90", "B7", "BD"]])]
    out += ["+ python -c 'import torch; print(torch.__version__)'", "2.2.1+cu121"]
    out.append("+ torchrun --nproc_per_node=8 --master_port=29511 train_mae.py --cfg configs/mae_vit_l_in1k.yaml")
    out += torchrun_banner(torch_v, c, agent)
    c.tick(7)
    out += [
        "| distributed init (rank 0): env://, gpu 0",
        "[10:31:24.901] Namespace(accum_iter=1, batch_size=128, blr=0.00015, epochs=800, input_size=224, "
        "mask_ratio=0.75, model='mae_vit_large_patch16', norm_pix_loss=True, num_workers=10, pin_mem=True, "
        "warmup_epochs=40, weight_decay=0.05, world_size=8)",
        "[10:31:24.902] base lr: 1.50e-04, actual lr: 6.00e-04, accumulate grad iterations: 1, effective batch size: 1024",
        "Sampler_train = <torch.utils.data.distributed.DistributedSampler object at 0x7f3a1c2e7d90>",
        "[10:31:31.448] Start training for 800 epochs",
    ]
    for ep in range(3):
        for it in range(0, 1251, 100):
            c.tick(100 * 0.49 + r.uniform(-1, 1))
            out.append(f"Epoch: [{ep}]  [{it:4d}/1251]  eta: 0:{(1251 - it) * 49 // 6000:02d}:{r.randint(10, 59):02d}  "
                       f"lr: {6e-4 * (ep * 1251 + it) / (40 * 1251):.6f}  loss: {1.02 - 0.07 * ep - it * 1e-5:.4f} "
                       f"({1.03 - 0.07 * ep:.4f})  time: {r.uniform(.47, .52):.4f}  data: {r.uniform(.0008, .002):.4f}  max mem: 35412")
        out.append(f"Epoch: [{ep}] Total time: 0:10:{r.randint(10, 30)} (0.4921 s / it)")
        out.append(f"Averaged stats: lr: {6e-4 * (ep + 1) / 40:.6f}  loss: {1.0 - 0.07 * ep:.4f} ({1.0 - 0.07 * ep:.4f})")
    ep = 3
    for it in range(0, 701, 100):
        c.tick(100 * 0.49 + r.uniform(-1, 1))
        out.append(f"Epoch: [{ep}]  [{it:4d}/1251]  eta: 0:0{(1251 - it) * 49 // 6000}:{r.randint(10, 59):02d}  "
                   f"lr: {6e-4 * (ep * 1251 + it) / (40 * 1251):.6f}  loss: {0.81 - it * 1e-5:.4f} (0.8112)  "
                   f"time: {r.uniform(.47, .52):.4f}  data: {r.uniform(.0008, .002):.4f}  max mem: 35412")
    c.tick(31.7)
    for i in [0, 1, 2, 3, 4, 5, 7]:
        out.append(elastic_log(torch_v, c.tick(0.001), "W", "torch.distributed.elastic.multiprocessing.api", 0,
                               f"Sending process {pids[i]} closing signal SIGTERM"))
    c.tick(1.8)
    out.append(elastic_log(torch_v, c, "E", "torch.distributed.elastic.multiprocessing.api", 0,
                           f"failed (exitcode: -9) local_rank: 6 (pid: {pids[6]}) of binary: /usr/bin/python"))
    out += agent_traceback("3.10", site, "/usr/local/bin/torchrun", torch_v, [
        '  File "{site}/torch/distributed/launcher/api.py", line {la}, in launch_agent',
        "    raise ChildFailedError(",
    ])
    out += elastic_summary("train_mae.py", {"time": c.elastic(), "host": host, "rank": 6, "local_rank": 6,
                                            "exitcode": -9, "pid": pids[6]})
    write_case("process-killed-sigkill-torchrun-mae-01", {
        "label": "process-killed-sigkill",
        "also": ["host-oom-killed"],
        "difficulty": "easy",
        "description": "torchrun, 8x A100-80GB MAE pretraining; mid epoch 3 local rank 6 disappears with no Python "
                       "error, torchrun reports exitcode -9 / 'Signal 9 (SIGKILL) received by PID'. The log holds "
                       "no evidence of who sent it (kernel OOM killer, cgroup limit, an operator or a node agent).",
        "initiating_rank": 6,
        "facts": {"gpu_model": "A100-SXM4-80GB", "gpu_count": "8", "driver_version": "535.161.07",
                  "torch_version": "2.2.1", "launcher": "torchrun", "exit_code": "-9", "signal": "SIGKILL"},
        "must_mention": ["SIGKILL", "dmesg"],
    }, {"train.log": J(out)})


@case
def sigkill_gloo_kill9_cpu_02():
    write_case("process-killed-sigkill-gloo-kill9-cpu-02", {
        "label": "process-killed-sigkill",
        "also": ["host-oom-killed"],
        "difficulty": "medium",
        "description": "Real CPU run: 4-rank gloo DDP under torchrun; local rank 3 is killed from outside with "
                       "kill -9. Ranks 0 and 2 print 'Connection closed by peer' tracebacks first (collateral), "
                       "torchrun SIGTERMs the rest and its summary names rank 3, exitcode -9 (SIGKILL).",
        "initiating_rank": 3,
        "facts": {"launcher": "torchrun", "world_size": "4", "exit_code": "-9", "signal": "SIGKILL"},
        "must_mention": ["SIGKILL", "rank 3"],
    }, {"run.log": REAL_GLOO_KILL9})


@case
def sigkill_k8s_liveness_03():
    r = rng_for("k3")
    akid, asec = aws_key_id(r), aws_secret(r)
    c = Clock("2024-07-22 13:05:09")
    out_log = [
        f"{c.t:%Y-%m-%d %H:%M:%S} [entrypoint] pid=1 python /app/train.py --config /app/configs/sft_eval.yaml",
        f"{c.t:%Y-%m-%d %H:%M:%S} [entrypoint] environment:",
        "  AWS_DEFAULT_REGION=us-east-1",
        f"  AWS_ACCESS_KEY_ID={akid}",
        f"  AWS_SECRET_ACCESS_KEY={asec}",
        "  CKPT_URI=s3://acme-ml-ckpts/sft/qwen2-7b-support-v6/",
        "  HEARTBEAT_FILE=/tmp/heartbeat",
        "  NVIDIA_VISIBLE_DEVICES=GPU-5c1f0a3e-77d2-4b58-9b0e-2f3c9d1a6e41",
        "  PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
        f"{c.tick(4).t:%Y-%m-%d %H:%M:%S} [train] torch 2.3.0+cu121, cuda available: True, device: NVIDIA A100 80GB PCIe",
        f"{c.tick(38).t:%Y-%m-%d %H:%M:%S} [train] loaded Qwen/Qwen2-7B with LoRA r=64 (trainable 161.5M / 7.78B)",
        f"{c.t:%Y-%m-%d %H:%M:%S} [train] heartbeat -> /tmp/heartbeat every optimizer step",
    ]
    loss = 1.21
    for step in range(20, 1001, 20):
        c.tick(20 * 4.1 + r.uniform(-2, 2))
        loss = max(0.7, loss - r.uniform(-0.004, 0.01))
        out_log.append(f"{c.t:%Y-%m-%d %H:%M:%S} [train] step {step}/3000 loss={loss:.4f} lr={1e-4 * min(1, step / 100):.2e} "
                       f"gpu_mem={r.uniform(52.1, 53.0):.1f}GiB rss={r.uniform(21.2, 21.9):.1f}GiB")
        if step % 500 == 0:
            out_log.append(f"{c.tick(9).t:%Y-%m-%d %H:%M:%S} [ckpt] saved adapter to /workspace/out/step-{step} (616.2 MiB), "
                           f"uploading to s3://acme-ml-ckpts/sft/qwen2-7b-support-v6/step-{step}/ ... done in 7.3s")
    c.tick(2)
    out_log.append(f"{c.t:%Y-%m-%d %H:%M:%S} [eval] generative eval on 2400 prompts, max_new_tokens=768, batch 16")
    for b in range(10, 151, 10):
        c.tick(10 * 6.4 + r.uniform(-3, 3))
        out_log.append(f"{c.t:%Y-%m-%d %H:%M:%S} [eval] batch {b}/150  ({b * 16} prompts, {r.uniform(360, 380):.0f} tok/s)")
    kill_t = Clock(c.t.strftime("%Y-%m-%d %H:%M:%S")).tick(19)
    last = Clock(kill_t.t.strftime("%Y-%m-%d %H:%M:%S")).tick(30)
    started_first = "Mon, 22 Jul 2024 13:05:08 +0000"
    describe = dedent(f"""
        Name:             qwen2-sft-support-v6-0
        Namespace:        ml-training
        Priority:         0
        Service Account:  trainer
        Node:             gpu-a100-pool-7c9d2/10.64.3.17
        Start Time:       Mon, 22 Jul 2024 13:04:51 +0000
        Labels:           app=sft-trainer
                          controller-revision-hash=qwen2-sft-support-v6-6d8f5b9c47
                          statefulset.kubernetes.io/pod-name=qwen2-sft-support-v6-0
        Status:           Running
        IP:               10.64.3.201
        Controlled By:    StatefulSet/qwen2-sft-support-v6
        Containers:
          trainer:
            Container ID:  containerd://3f0b8c2e9d4a71f65c0e2b7d9a8f1c34e6b5a0d9c8e7f6a5b4c3d2e1f0a9b8c7
            Image:         registry.acme.internal/ml/trainer:2024.07.3
            Image ID:      registry.acme.internal/ml/trainer@sha256:8e1d0c2b4a69f7d3e5c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9
            Port:          <none>
            Host Port:     <none>
            Command:
              python
              /app/train.py
              --config
              /app/configs/sft_eval.yaml
            State:          Running
              Started:      {last.t:%a, %d %b %Y %H:%M:%S} +0000
            Last State:     Terminated
              Reason:       Error
              Exit Code:    137
              Started:      {started_first}
              Finished:     {kill_t.t:%a, %d %b %Y %H:%M:%S} +0000
            Ready:          True
            Restart Count:  1
            Limits:
              cpu:             16
              memory:          120Gi
              nvidia.com/gpu:  1
            Requests:
              cpu:             16
              memory:          120Gi
              nvidia.com/gpu:  1
            Liveness:     exec [sh -c test $(( $(date +%s) - $(stat -c %Y /tmp/heartbeat) )) -lt 300] delay=600s timeout=5s period=60s #success=1 #failure=3
            Environment Variables from:
              trainer-aws  Secret  Optional: false
            Environment:
              CKPT_URI:        s3://acme-ml-ckpts/sft/qwen2-7b-support-v6/
              HEARTBEAT_FILE:  /tmp/heartbeat
            Mounts:
              /dev/shm from dshm (rw)
              /workspace from scratch (rw)
        Conditions:
          Type              Status
          Initialized       True 
          Ready             True 
          ContainersReady   True 
          PodScheduled      True 
        QoS Class:                   Guaranteed
        Node-Selectors:              nvidia.com/gpu.product=NVIDIA-A100-80GB-PCIe
        Tolerations:                 nvidia.com/gpu:NoSchedule op=Exists
        Events:
          Type     Reason     Age                  From     Message
          ----     ------     ----                 ----     -------
          Warning  Unhealthy  4m42s (x3 over 6m42s)  kubelet  Liveness probe failed:
          Normal   Killing    4m42s                kubelet  Container trainer failed liveness probe, will be restarted
          Normal   Pulled     4m11s (x2 over 82m)  kubelet  Container image "registry.acme.internal/ml/trainer:2024.07.3" already present on machine
          Normal   Created    4m11s (x2 over 82m)  kubelet  Created container trainer
          Normal   Started    4m11s (x2 over 82m)  kubelet  Started container trainer
    """)
    write_case("process-killed-sigkill-k8s-liveness-03", {
        "label": "process-killed-sigkill",
        "difficulty": "medium",
        "description": "Kubernetes pod, python as PID 1 on an A100 80GB PCIe; a 16-minute generative eval does not "
                       "touch the heartbeat file, the exec liveness probe fails 3 times, kubelet sends SIGTERM "
                       "(ignored by PID 1 without a handler) and SIGKILL after the grace period: Last State "
                       "Terminated, Reason Error (not OOMKilled), Exit Code 137. The container log just stops.",
        "initiating_rank": None,
        "facts": {"gpu_model": "A100 80GB PCIe", "torch_version": "2.3.0", "launcher": "python", "exit_code": "137",
                  "failure_step": "1000"},
        "must_mention": ["liveness", "137"],
        "secrets": [akid, asec],
    }, {"pod-previous.log": J(out_log), "describe-pod.txt": describe})


@case
def sigkill_multinode_srun_04():
    r = rng_for("k4")
    torch_v, site = "2.5.1", "/opt/conda/envs/train/lib/python3.11/site-packages"
    hosts = ["h200-b01", "h200-b02"]
    ips = ["10.2.8.21", "10.2.8.22"]
    agents = [31207, 88514]
    pids = {k: (31230 + k if k < 8 else 88530 + k - 8) for k in range(16)}
    jobid = 611093
    c = Clock("2024-12-09 04:01:17")
    out = [
        f"Job {jobid} on {hosts[0]},{hosts[1]} started {c.t:%Y-%m-%dT%H:%M:%S}",
        "+ srun -l --ntasks-per-node=1 torchrun --nnodes=2 --nproc_per_node=8 --rdzv_backend=c10d "
        f"--rdzv_endpoint={hosts[0]}:29500 --rdzv_id={jobid} train_dit.py --config configs/dit_xl2_512.yaml",
    ]
    for t in (0, 1):
        out += [f"{t}: " + ln for ln in torchrun_banner(torch_v, Clock("2024-12-09 04:01:19").tick(t * 0.83), agents[t])]
    for k in (0, 8):
        t = k // 8
        out += [f"{t}: " + ln for ln in nccl_init(hosts[t], pids[k], 0, k, 16, "2.21.5", "cuda12.4", r, net="IB",
                                                  ip=ips[t], bus="18000", show_version=(k == 0), nchan=2)[-3:]]
    out += [
        f"0: [train_dit] torch {torch_v}+cu124 | GPU: NVIDIA H200 x 16, world_size=16, global batch 256 (16/GPU), bf16 autocast, "
        "torch.compile(mode='max-autotune-no-cudagraphs')",
        "0: [train_dit] dataset: 1,281,167 latents (ImageNet-512, VAE f8), 5004 steps/epoch",
    ]
    c.tick(140)
    loss = 0.1561
    for step in range(100, 9201, 100):
        c.tick(100 * 0.71 + r.uniform(-1, 1))
        loss = max(0.139, loss - r.uniform(-0.0005, 0.0009))
        out.append(f"0: [{c.t:%Y-%m-%d %H:%M:%S}] (step={step:07d}) Train Loss: {loss:.4f}, Train Steps/Sec: {1 / 0.71 + r.uniform(-.02, .02):.2f}")
    c.tick(44.6)
    k = 13
    out.append(f"1: {c.glog('E')} {agents[1]} torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) "
               f"local_rank: 5 (pid: {pids[k]}) of binary: /opt/conda/envs/train/bin/python")
    # node1 agent tears down its other ranks
    c1 = Clock(c.t.strftime("%Y-%m-%d %H:%M:%S"))
    c1.t = c.t
    for lk in [0, 1, 2, 3, 4, 6, 7]:
        out.append(f"1: {c1.tick(0.001).glog('W')} {agents[1]} torch/distributed/elastic/multiprocessing/api.py:897] "
                   f"Sending process {pids[8 + lk]} closing signal SIGTERM")
    tb = agent_traceback("3.11", site, "/opt/conda/envs/train/bin/torchrun", torch_v, [
        '  File "{site}/torch/distributed/launcher/api.py", line {la}, in launch_agent',
        "    raise ChildFailedError(",
    ])
    out += ["1: " + ln for ln in tb]
    c.tick(0.9)
    out += ["1: " + ln for ln in elastic_summary("train_dit.py", {"time": c.elastic(), "host": hosts[1], "rank": 13,
                                                                   "local_rank": 5, "exitcode": -9, "pid": pids[k]})]
    out.append(f"srun: error: {hosts[1]}: task 1: Exited with exit code 1")
    # node0 ranks notice that their peers are gone
    c.tick(6.2)
    order = [2, 0, 5, 1, 7, 3, 6, 4]
    for n, kk in enumerate(order):
        ts = f"E{c.t:%m%d %H:%M:%S}.{r.randint(0, 999999999):09d}"
        msg = (f"[PG ID 0 PG GUID 0(default_pg) Rank {kk}] Process group watchdog thread terminated with exception: "
               "NCCL error: remote process exited or there was a network error, NCCL version 2.21.5")
        out += [
            f"0: {hosts[0]}:{pids[kk]}:{pids[kk] + 190} [{kk}] transport/net_ib.cc:1733 NCCL WARN NET/IB : Got completion "
            f"from peer {ips[1]}<{r.randint(40000, 60000)}> with error 12, opcode 0, len 0, vendor err 129 (Recv)",
            f"0: [rank{kk}]:[{ts} ProcessGroupNCCL.cpp:1595] {msg}",
            "0: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
            "0: Last error:",
            f"0: NET/IB : Got completion from peer {ips[1]}<{r.randint(40000, 60000)}> with error 12, opcode 0, len 0, vendor err 129 (Recv)",
            "0: terminate called after throwing an instance of 'c10::DistBackendError'",
            f"0:   what():  {msg}",
        ]
        if n == 0:
            c.tick(0.4)
    c.tick(1.1)
    out.append(f"0: {c.glog('W')} {agents[0]} torch/distributed/elastic/multiprocessing/api.py:897] "
               f"Sending process {pids[4]} closing signal SIGTERM")
    out.append(f"0: {c.tick(0.6).glog('E')} {agents[0]} torch/distributed/elastic/multiprocessing/api.py:869] failed "
               f"(exitcode: -6) local_rank: 2 (pid: {pids[2]}) of binary: /opt/conda/envs/train/bin/python")
    out += ["0: " + ln for ln in tb]
    others = [{"time": c.elastic(), "host": hosts[0], "rank": kk, "local_rank": kk, "exitcode": -6, "pid": pids[kk]}
              for kk in sorted(order[1:7])]
    out += ["0: " + ln for ln in elastic_summary("train_dit.py", {"time": c.elastic(), "host": hosts[0], "rank": 2,
                                                                   "local_rank": 2, "exitcode": -6, "pid": pids[2]},
                                                 others)]
    out.append(f"srun: error: {hosts[0]}: task 0: Exited with exit code 1")
    out.append("dmesg: read kernel buffer failed: Operation not permitted")
    out.append(f"Job {jobid} finished {c.tick(3).t:%Y-%m-%dT%H:%M:%S} with exit code 1")
    write_case("process-killed-sigkill-multinode-srun-04", {
        "label": "process-killed-sigkill",
        "also": ["host-oom-killed"],
        "difficulty": "hard",
        "description": "srun -l with one torchrun per node, 16x H200 (torch 2.5.1, NCCL 2.21.5). Global rank 13 "
                       "(node 1, local 5) dies of SIGKILL with no Python error; node 0's ranks then get NET/IB "
                       "errors and ncclRemoteError, abort, and node 0's ChildFailedError (rank 2, exitcode -6) is "
                       "the last thing in the file. The epilog could not read dmesg.",
        "initiating_rank": 13,
        "facts": {"gpu_model": "H200", "torch_version": "2.5.1", "nccl_version": "2.21.5", "num_nodes": "2",
                  "world_size": "16", "exit_code": "-9", "signal": "SIGKILL", "failure_step": "9200"},
        "must_mention": ["SIGKILL", "rank 13"],
    }, {f"slurm-{jobid}.out": J(out)})


# ================================================================ slurm-time-limit

@case
def slurm_time_limit_hf_easy_01():
    r = rng_for("s1")
    jobid, node = 5520117, "gpu-q-12"
    c = Clock("2024-03-18 22:00:04")
    site = "/software/envs/nlp-2403/lib/python3.10/site-packages"
    out = [
        f"Job {jobid} ({'t5-xl-summ'}) start {c.t:%a %b %d %H:%M:%S CET %Y} on {node}; time limit 08:00:00",
        "Loaded modules: cuda/12.1.1 cudnn/8.9.2 nccl/2.18.3",
        nvidia_smi("Mon Mar 18 22:00:05 2024", "530.30.02",
                   [gpu_row("A100-SXM4-40GB", 40960, "00000000:31:00.0", pwr=52, temp=30)]),
        f"{site}/transformers/models/t5/tokenization_t5_fast.py:160: FutureWarning: This tokenizer was incorrectly "
        "instantiated with a model max length of 512 which will be corrected in Transformers v5.",
        "For now, this behavior is kept to avoid breaking backwards compatibility when padding/encoding with "
        "`truncation is True`.",
        "- Be aware that you SHOULD NOT rely on t5-base automatically truncating your input to 512 when padding/"
        "encoding.",
        "  warnings.warn(",
        "Running tokenizer on train dataset: 100%|██████████| 287113/287113 [02:31<00:00, 1895.22 examples/s]",
        "Running tokenizer on validation dataset: 100%|██████████| 13368/13368 [00:07<00:00, 1861.40 examples/s]",
        "***** Running training *****",
        "  Num examples = 287,113",
        "  Num Epochs = 3",
        "  Instantaneous batch size per device = 8",
        "  Total train batch size (w. parallel, distributed & accumulation) = 64",
        "  Gradient Accumulation steps = 8",
        "  Total optimization steps = 13,458",
        "  Number of trainable parameters = 2,849,757,184",
    ]
    spit = 2.21
    el = 0
    loss = 2.61
    for step in range(250, 13459, 250):
        el += 250 * spit + r.uniform(-5, 5)
        if el > 8 * 3600 - 200:
            break
        loss = max(1.31, loss - r.uniform(-0.004, 0.03))
        out.append(tqdm_bar(step, 13458, el, spit))
        out.append(hf_loss_line(loss, r.uniform(.2, .5), 1e-4 * (1 - step / 13458), step / 4486))
        if step % 2500 == 0:
            out.append(tqdm_bar(step, 13458, el, spit))
            out.append(f"Saving model checkpoint to /scratch/t5xl-cnndm/checkpoint-{step}")
    out.append(tqdm_bar(13458 * 0 + int((8 * 3600 - 170) / spit), 13458, 8 * 3600 - 170, spit))
    c.tick(8 * 3600 + 3)
    out += [
        f"slurmstepd: error: *** JOB {jobid} ON {node} CANCELLED AT {c.iso()} DUE TO TIME LIMIT ***",
        "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
        f"slurmstepd: error: *** STEP {jobid}.0 ON {node} CANCELLED AT {c.iso()} DUE TO TIME LIMIT ***",
    ]
    write_case("slurm-time-limit-hf-t5-easy-01", {
        "label": "slurm-time-limit",
        "difficulty": "easy",
        "description": "Single A100-40GB Slurm job (srun python, HF Trainer, T5-XL summarisation): 13,458 steps at "
                       "~2.2 s/it is ~8.3 h of training under an 8 h limit; the job is cancelled DUE TO TIME LIMIT "
                       "near step 12,950, the last checkpoint being checkpoint-12500.",
        "initiating_rank": None,
        "facts": {"gpu_model": "A100-SXM4-40GB", "driver_version": "530.30.02", "launcher": "srun"},
        "must_mention": ["time limit", "resume"],
    }, {f"slurm-{jobid}.out": J(out)})


@case
def slurm_time_limit_split_err_02():
    r = rng_for("s2")
    pw = _tok(r, 22)
    jobid, node = 8812345, "gn-h100-031"
    torch_v, site = "2.4.0", "/opt/nemo/venv/lib/python3.11/site-packages"
    agent = 188211
    pids = [188230 + i for i in range(8)]
    c = Clock("2024-08-30 18:00:09")
    o = [
        f"== job {jobid} start {c.iso()} node {node} ==",
        f"results db: redis://trainer:{pw}@10.30.0.5:6379/4",
        f"[env] torch {torch_v}+cu124, transformer_engine 1.9.0, 8 x NVIDIA H100 80GB HBM3",
        "[cfg] model=llama3-8b seq_len=8192 global_batch=512 micro_batch=1 tp=1 pp=1 dp=8 zero=1 precision=bf16",
        "[cfg] max_steps=20000 save_interval=1000 save_dir=/lustre/ckpt/llama3-8b-cpt",
        "[cfg] resuming from /lustre/ckpt/llama3-8b-cpt/iter_0006000 (consumed_samples=3072000)",
    ]
    e = ["+ srun --kill-on-bad-exit=1 torchrun --standalone --nproc_per_node=8 pretrain_gpt.py --cfg cpt.yaml"]
    e += torchrun_banner(torch_v, c, agent)
    for i in range(8):
        e.append(f"{site}/transformer_engine/pytorch/attention.py:{4570 + 0}: UserWarning: window_size should be (-1, -1) "
                 "or (>=0, >=0) for attn_mask_type=causal")
        e.append("  warnings.warn(")
    for i in range(8):
        e.append(f"{site}/torch/distributed/c10d_logger.py:79: FutureWarning: `torch.distributed._all_gather_base` "
                 "is a private function and will be deprecated. Please use `torch.distributed.all_gather_into_tensor` "
                 "instead.")
        e.append("  return func(*args, **kwargs)")
    c.tick(200)
    step = 6000
    while True:
        c.tick(10 * 14.2 + r.uniform(-2, 2))
        step += 10
        if c.t >= datetime(2024, 8, 31, 6, 0, 9):
            break
        o.append(f" [{c.t:%Y-%m-%d %H:%M:%S}] iteration {step:8d}/   20000 | consumed samples: {step * 512:10d} | "
                 f"elapsed time per iteration (ms): {14200 + r.randint(-200, 200):.1f} | learning rate: "
                 f"{3e-4 * (1 - step / 20000):.6E} | global batch size:   512 | lm loss: {1.98 - step * 1e-5 + r.uniform(-.01, .01):.6E} | "
                 f"loss scale: 1.0 | grad norm: {r.uniform(.15, .3):.3f} | number of skipped iterations:   0 | "
                 "number of nan iterations:   0 |")
        if step % 1000 == 0:
            o.append(f"saving checkpoint at iteration {step:7d} to /lustre/ckpt/llama3-8b-cpt in torch format")
            o.append(f"  successfully saved checkpoint from iteration {step:7d} to /lustre/ckpt/llama3-8b-cpt "
                     f"[ t 1/1, p 1/1 ]")
            c.tick(48)
    c.t = datetime(2024, 8, 31, 6, 0, 9)
    e += [
        f"slurmstepd: error: *** JOB {jobid} ON {node} CANCELLED AT {c.iso()} DUE TO TIME LIMIT ***",
        f"slurmstepd: error: *** STEP {jobid}.0 ON {node} CANCELLED AT {c.iso()} DUE TO TIME LIMIT ***",
        "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
    ]
    c.tick(0.02)
    e.append(elastic_log(torch_v, c, "W", "torch.distributed.elastic.agent.server.api", 704,
                         "Received 15 death signal, shutting down workers", agent))
    for pid in pids:
        e.append(elastic_log(torch_v, c.tick(0.001), "W", "torch.distributed.elastic.multiprocessing.api", 858,
                             f"Sending process {pid} closing signal SIGTERM", agent))
    e += agent_traceback("3.11", site, "/opt/nemo/venv/bin/torchrun", torch_v, _signal_exception_tail(torch_v, agent, 15))
    write_case("slurm-time-limit-split-out-err-02", {
        "label": "slurm-time-limit",
        "difficulty": "medium",
        "description": "sbatch with separate --output/--error files, torchrun on 8x H100 (torch 2.4.0), continued "
                       "pretraining resumed at iteration 6000. The .out just stops; the .err ends with torchrun's "
                       "'Received 15 death signal' and SignalException: got signal: 15; the 'CANCELLED ... DUE TO "
                       "TIME LIMIT' line is in the .err a few lines above.",
        "initiating_rank": None,
        "facts": {"torch_version": "2.4.0", "launcher": "torchrun", "world_size": "8", "precision": "bf16",
                  "zero_stage": "1", "signal": "SIGTERM"},
        "must_mention": ["time limit", "SIGTERM"],
        "secrets": [pw],
    }, {f"slurm-{jobid}.out": J(o), f"slurm-{jobid}.err": J(e)})


@case
def slurm_time_limit_preempted_deepspeed_03():
    r = rng_for("s3")
    jobid, node = 881203, "a100-spot-03"
    c = Clock("2024-09-04 09:41:12")
    ds_v, torch_v, site = "0.12.6", "2.1.2", "/usr/local/lib/python3.10/dist-packages"
    pids = [40112, 40113, 40114, 40115]
    cmd = lambda i: (f"['/usr/bin/python3', '-u', 'finetune.py', '--local_rank={i}', '--deepspeed', 'ds_z2_offload.json', "
                     "'--model', 'codellama/CodeLlama-13b-hf', '--out', '/shared/ft/codellama13b-sql']")
    out = [
        f"[{c.t:%F %T}] job {jobid} partition=preemptible qos=spot requeue=1 restarts=2 node={node}",
        f"[{c.t:%F %T}] resuming from /shared/ft/codellama13b-sql/latest (global_step1400)",
        ds_report(ds_v, torch_v, "12.1", site, "251.77 GB", {"cpu_adam", "fused_adam"}),
        f"[{c.tick(3).ds()}] [INFO] [real_accelerator.py:161:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
        f"[{c.tick(2).ds()}] [WARNING] [runner.py:202:fetch_hostfile] Unable to find hostfile, will proceed with training with local resources only.",
        f"[{c.ds()}] [INFO] [runner.py:571:main] cmd = /usr/bin/python3 -u -m deepspeed.launcher.launch "
        "--world_info=eyJsb2NhbGhvc3QiOiBbMCwgMSwgMiwgM119 --master_addr=127.0.0.1 --master_port=29500 "
        "--enable_each_rank_log=None finetune.py --deepspeed ds_z2_offload.json --model codellama/CodeLlama-13b-hf "
        "--out /shared/ft/codellama13b-sql",
        f"[{c.tick(2).ds()}] [INFO] [launch.py:145:main] WORLD INFO DICT: {{'localhost': [0, 1, 2, 3]}}",
        f"[{c.ds()}] [INFO] [launch.py:151:main] nnodes=1, num_local_procs=4, node_rank=0",
        f"[{c.ds()}] [INFO] [launch.py:162:main] global_rank_mapping=defaultdict(<class 'list'>, {{'localhost': [0, 1, 2, 3]}})",
        f"[{c.ds()}] [INFO] [launch.py:163:main] dist_world_size=4",
        f"[{c.ds()}] [INFO] [launch.py:165:main] Setting CUDA_VISIBLE_DEVICES=0,1,2,3",
    ]
    for i in range(4):
        out.append(f"[{c.ds()}] [INFO] [launch.py:253:main] process {pids[i]} spawned with command: {cmd(i)}")
    c.tick(9)
    out += [
        f"[{c.ds()}] [INFO] [comm.py:637:init_distributed] cdb=None",
        f"[{c.ds()}] [INFO] [comm.py:668:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl",
        f"[{c.tick(31).ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version={ds_v}, git-hash=unknown, git-branch=unknown",
        f"[{c.tick(4).ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Basic Optimizer = DeepSpeedCPUAdam",
        f"[{c.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] Creating torch.bfloat16 ZeRO stage 2 optimizer",
        f"[{c.ds()}] [INFO] [stage_1_and_2.py:148:__init__] Reduce bucket size 500000000",
        f"[{c.ds()}] [INFO] [stage_1_and_2.py:149:__init__] Allgather bucket size 500000000",
        f"[{c.ds()}] [INFO] [stage_1_and_2.py:150:__init__] CPU Offload: True",
        f"[{c.ds()}] [INFO] [stage_1_and_2.py:151:__init__] Round robin gradient partitioning: False",
        f"[{c.tick(60).ds()}] [INFO] [torch_checkpoint_engine.py:27:load] [Torch] Loading checkpoint from /shared/ft/codellama13b-sql/global_step1400/mp_rank_00_model_states.pt...",
        f"[{c.tick(41).ds()}] [INFO] [engine.py:3023:_get_all_zero_checkpoint_state_dicts] successfully read 4 ZeRO state_dicts for rank 0",
        f"[{c.tick(30).ds()}] [INFO] [engine.py:2973:_load_zero_checkpoint] loading 4 zero partition checkpoints for rank 0",
    ]
    for step in range(1410, 1721, 10):
        c.tick(10 * 11.7 + r.uniform(-2, 2))
        out.append(f"[{c.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] step={step}, skipped=0, lr=[1.2e-05], mom=[(0.9, 0.95)]")
        out.append(f"{{'step': {step}, 'loss': {0.412 - (step - 1400) * 1e-4 + r.uniform(-.01, .01):.4f}, 'tokens_per_sec': {r.randint(2830, 2890)}}}")
    c.tick(63)
    out += [
        f"slurmstepd: error: *** JOB {jobid} ON {node} CANCELLED AT {c.iso()} DUE TO PREEMPTION ***",
        f"slurmstepd: error: *** STEP {jobid}.0 ON {node} CANCELLED AT {c.iso()} DUE TO PREEMPTION ***",
        "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
    ]
    for i in range(4):
        out.append(f"[{c.tick(0.01).ds()}] [INFO] [launch.py:315:sigkill_handler] Killing subprocess {pids[i]}")
    out.append(f"[{c.tick(0.2).ds()}] [INFO] [launch.py:324:sigkill_handler] Main process received SIGTERM, exiting")
    out.append(f"srun: error: {node}: task 0: Exited with exit code 1")
    write_case("slurm-time-limit-preempted-deepspeed-03", {
        "label": "slurm-time-limit",
        "difficulty": "medium",
        "description": "Requeueable spot/preemptible Slurm job (third restart) running the deepspeed launcher on 4 "
                       "GPUs, ZeRO-2 CPU offload; ~6 h in, a higher-priority job preempts it: 'CANCELLED ... DUE "
                       "TO PREEMPTION', then DeepSpeed's 'Main process received SIGTERM, exiting' and exit code 1. "
                       "It resumes from global_step1400 and had saved nothing since.",
        "initiating_rank": None,
        "facts": {"deepspeed_version": "0.12.6", "launcher": "deepspeed", "world_size": "4", "zero_stage": "2",
                  "optimizer": "DeepSpeedCPUAdam", "signal": "SIGTERM"},
        "must_mention": ["preempt", "checkpoint"],
    }, {f"slurm-{jobid}.out": J(out)})


@case
def slurm_time_limit_emergency_save_04():
    r = rng_for("s4")
    jobid, node = 3390457, "h100-07"
    c = Clock("2024-11-14 20:00:02")
    out = [
        f"### {c.t:%F %T} job {jobid} on {node}, --time=12:00:00, KillWait=30s",
        "### python train.py --config configs/vit_g_jepa.yaml  (torch 2.5.0+cu124, 1x NVIDIA H100 80GB HBM3)",
        "[setup] SIGTERM handler installed: on SIGTERM write an emergency checkpoint and exit 0",
        "[setup] checkpoint every 5000 steps to /nfs/ckpt/vitg-jepa (model+ema+optimizer, ~38 GB)",
    ]
    step = 0
    loss = 0.62
    while c.t < datetime(2024, 11, 15, 7, 59, 0):
        c.tick(250 * 0.6 + r.uniform(-2, 2))
        step += 250
        loss = max(0.31, loss - r.uniform(-0.001, 0.002))
        out.append(f"[{c.t:%H:%M:%S}] ep {step // 6250:3d} it {step:6d} loss {loss:.5f} ema_m {0.996 + step / 2e7:.5f} "
                   f"lr {1e-3 * min(1, step / 10000):.3e} ({0.6 + r.uniform(-.01, .01):.3f}s/it, {r.uniform(71.5, 72.4):.1f} GB)")
        if step % 5000 == 0:
            c.tick(410)
            out.append(f"[{c.t:%H:%M:%S}] saved /nfs/ckpt/vitg-jepa/it{step:06d}.pt in 410.3s")
    c.t = datetime(2024, 11, 15, 8, 0, 7)
    out += [
        f"slurmstepd: error: *** JOB {jobid} ON {node} CANCELLED AT {c.iso()} DUE TO TIME LIMIT ***",
        f"slurmstepd: error: *** STEP {jobid}.0 ON {node} CANCELLED AT {c.iso()} DUE TO TIME LIMIT ***",
        f"[{c.t:%H:%M:%S}] [signal] caught SIGTERM (15) at it {step}: writing emergency checkpoint "
        f"/nfs/ckpt/vitg-jepa/emergency_it{step:06d}.pt",
        "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
        f"srun: error: {node}: task 0: Killed",
        f"### {c.tick(33).t:%F %T} train.py exited with status 137",
    ]
    write_case("slurm-time-limit-emergency-save-killed-04", {
        "label": "slurm-time-limit",
        "also": [],
        "difficulty": "hard",
        "description": "12 h Slurm job on one H100; at the time limit slurmstepd sends SIGTERM, the script's handler "
                       "starts a ~38 GB emergency checkpoint (regular saves took ~410 s) and KillWait (30 s) expires: "
                       "SIGKILL, 'task 0: Killed', exit status 137. The ending looks like the host OOM killer; the "
                       "cause is the time limit, and the emergency checkpoint is truncated.",
        "initiating_rank": None,
        "facts": {"gpu_model": "H100 80GB HBM3", "torch_version": "2.5.0", "launcher": "srun", "exit_code": "137"},
        "must_mention": ["time limit", "--signal"],
    }, {f"slurm-{jobid}.out": J(out)})


# ================================================================ gpu-fell-off-bus

CUDA_ASYNC_NOTE = [
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.",
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
]


@case
def fell_off_bus_workstation_01():
    r = rng_for("bus1")
    c = Clock("2023-08-12 15:58:03")
    site = "/home/marta/miniforge3/envs/seg/lib/python3.10/site-packages"
    out = [
        "(seg) $ nvidia-smi",
        nvidia_smi("Sat Aug 12 15:58:01 2023", "525.125.06",
                   [gpu_row("GeForce RTX 3090", 24576, "00000000:01:00.0", pwr=31, cap=350, temp=41, fan="30%", perf="P8", ecc="N/A", used=310),
                    gpu_row("GeForce RTX 3090", 24576, "00000000:41:00.0", pwr=22, cap=350, temp=36, fan="0%", perf="P8", ecc="N/A", used=8)]),
        "(seg) $ CUDA_VISIBLE_DEVICES=1 python train.py --arch unet_effb4 --img 1024 --bs 6 --amp --epochs 60",
        f"{site}/torchvision/io/image.py:13: UserWarning: Failed to load image Python extension: 'libc10_cuda.so: "
        "cannot open shared object file: No such file or directory'If you don't plan on using image functionality from "
        "`torchvision.io`, you can ignore this warning. Otherwise, there might be something wrong with your environment. "
        "Did you have `libjpeg` or `libpng` installed before building `torchvision` from source?",
        "  warn(",
        "torch 2.0.1+cu118 | device cuda:0 (NVIDIA GeForce RTX 3090) | amp fp16",
        "train 4120 / val 512 tiles, 687 it/epoch",
    ]
    for ep in range(1, 15):
        c.tick(687 * 0.59)
        out.append(f"epoch {ep:3d}/60 | train loss {0.61 * 0.93 ** ep + r.uniform(-.004, .004):.4f} | val dice "
                   f"{0.62 + 0.3 * (1 - 0.88 ** ep):.4f} | {687 * 0.59 / 60:.1f} min | lr {3e-4 * (1 - ep / 60):.2e}")
    out.append(f"epoch  15/60:  {r.randint(38, 44)}%|████▏     | 291/687 [02:51<03:53,  1.70it/s, loss=0.1532]")
    out += [
        "Traceback (most recent call last):",
        '  File "/home/marta/code/seg/train.py", line 244, in <module>',
        "    main(args)",
        '  File "/home/marta/code/seg/train.py", line 213, in main',
        "    tr_loss = train_one_epoch(model, train_dl, opt, scaler, ep, args)",
        '  File "/home/marta/code/seg/train.py", line 121, in train_one_epoch',
        "    running += loss.item()",
        "RuntimeError: CUDA error: unspecified launch failure",
    ] + CUDA_ASYNC_NOTE + [
        "",
        "(seg) $ nvidia-smi",
        "Unable to determine the device handle for GPU0000:41:00.0: Unknown Error",
        "(seg) $ sudo dmesg -T | grep -i -e nvrm -e xid | tail -n 8",
        "[Sat Aug 12 18:07:41 2023] NVRM: GPU at PCI:0000:41:00: GPU-3c9a7d51-0b6e-8f2a-41d7-5e0c2b9f8a16",
        "[Sat Aug 12 18:07:41 2023] NVRM: GPU Board Serial Number: 0",
        "[Sat Aug 12 18:07:41 2023] NVRM: Xid (PCI:0000:41:00): 79, pid=48813, name=python, GPU has fallen off the bus.",
        "[Sat Aug 12 18:07:41 2023] NVRM: GPU 0000:41:00.0: GPU has fallen off the bus.",
        "[Sat Aug 12 18:07:41 2023] NVRM: A GPU crash dump has been created. If possible, please run",
        "                           NVRM: nvidia-bug-report.sh as root to collect this data before",
        "                           NVRM: the NVIDIA kernel module is unloaded.",
    ]
    write_case("gpu-fell-off-bus-workstation-3090-01", {
        "label": "gpu-fell-off-bus",
        "difficulty": "easy",
        "description": "Workstation with 2x RTX 3090 (driver 525, torch 2.0.1), single-GPU segmentation training "
                       "under AMP; 14 epochs in, 'CUDA error: unspecified launch failure' at loss.item(); the user "
                       "then runs nvidia-smi (Unable to determine the device handle ... Unknown Error) and dmesg, "
                       "which shows Xid 79 'GPU has fallen off the bus'.",
        "initiating_rank": None,
        "facts": {"gpu_model": "GeForce RTX 3090", "driver_version": "525.125.06", "torch_version": "2.0.1",
                  "xid": "79", "launcher": "python", "precision": "fp16"},
        "must_mention": ["Xid 79", "power"],
        "secrets": ["marta"],
    }, {"session.log": J(out)})


@case
def fell_off_bus_torchrun_hang_02():
    r = rng_for("bus2")
    torch_v, site = "2.4.0", "/usr/local/lib/python3.10/dist-packages"
    jobid, node = 1209933, "a100-n21"
    agent = 70410
    pids = [70431 + i for i in range(8)]
    buses = ["07", "0F", "47", "4E", "87", "90", "B7", "BD"]
    c = Clock("2024-10-15 02:47:10")
    out = [f"[{c.t:%F %T}] job {jobid} node {node}: torchrun --standalone --nproc_per_node=8 train_llm.py --cfg 3b_scratch.yaml"]
    out += torchrun_banner(torch_v, c, agent)
    c.tick(12)
    out += nccl_init(node, pids[0], 0, 0, 8, "2.20.5", "cuda12.4", r, net="IB", ip="10.10.4.21", bus="7000",
                     show_version=True, nchan=2)
    out += [
        f"[rank0] torch {torch_v}+cu124, 8 x NVIDIA A100-SXM4-80GB",
        "[rank0] model 3.02B params, bf16, FSDP(HYBRID_SHARD) world 8, seq 4096, micro 4, grad_accum 8",
    ]
    seq = 0
    for step in range(10, 6121, 10):
        c.tick(10 * 2.83 + r.uniform(-.3, .3))
        if step % 50 == 0:
            out.append(f"[rank0] {c.t:%H:%M:%S} step {step:6d} loss {2.9 - step * 1.4e-4 + r.uniform(-.02, .02):.4f} "
                       f"gnorm {r.uniform(.2, .4):.3f} tok/s/gpu {r.randint(11800, 12100)} mfu {r.uniform(.51, .53):.3f}")
    seq = 6121 * 9 + 37
    t_fail = Clock(c.t.strftime("%Y-%m-%d %H:%M:%S")).tick(14)
    c.t = t_fail.t
    c.tick(600.2)
    aborted = [1, 0, 3, 2, 6, 5, 7]
    for n, k in enumerate(aborted):
        cc = Clock(c.t.strftime("%Y-%m-%d %H:%M:%S")).tick(n * 0.004)
        ts = lambda: f"E{cc.t:%m%d %H:%M:%S}.{r.randint(0, 999999999):09d}"
        ran = 600000 + r.randint(3, 90)
        tmsg = (f"[Rank {k}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=_REDUCE_SCATTER_BASE, "
                f"NumelIn=104857600, NumelOut=13107200, Timeout(ms)=600000) ran for {ran} milliseconds before timing out.")
        out += [
            f"[rank{k}]:[{ts()} ProcessGroupNCCL.cpp:607] {tmsg}",
            f"[rank{k}]:[{ts()} ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank {k}] Exception (either an error or "
            f"timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {seq + 1}, last completed NCCL work: {seq - 1}.",
            f"[rank{k}]:[{ts()} ProcessGroupNCCL.cpp:1709] [PG 0 (default_pg) Rank {k}] Timeout at NCCL work: {seq}, last "
            f"enqueued NCCL work: {seq + 1}, last completed NCCL work: {seq - 1}.",
            f"[rank{k}]:[{ts()} ProcessGroupNCCL.cpp:621] [Rank {k}] Some NCCL operations have failed or timed out. Due to "
            "the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
            f"[rank{k}]:[{ts()} ProcessGroupNCCL.cpp:627] [Rank {k}] To avoid data inconsistency, we are taking the entire process down.",
            f"[rank{k}]:[{ts()} ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank {k}] Process group watchdog thread "
            f"terminated with exception: {tmsg}",
            "terminate called after throwing an instance of 'c10::DistBackendError'",
            f"  what():  [PG 0 (default_pg) Rank {k}] Process group watchdog thread terminated with exception: {tmsg}",
        ]
    c.tick(1.4)
    out.append(elastic_log(torch_v, c, "W", "torch.distributed.elastic.multiprocessing.api", 858,
                           f"Sending process {pids[4]} closing signal SIGTERM", agent))
    c.tick(30.1)
    out.append(elastic_log(torch_v, c, "W", "torch.distributed.elastic.multiprocessing.api", 875,
                           f"Unable to shutdown process {pids[4]} via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL", agent))
    out.append(elastic_log(torch_v, c.tick(0.3), "E", "torch.distributed.elastic.multiprocessing.api", 833,
                           f"failed (exitcode: -6) local_rank: 1 (pid: {pids[1]}) of binary: /usr/bin/python", agent))
    out += agent_traceback("3.10", site, "/usr/local/bin/torchrun", torch_v, [
        '  File "{site}/torch/distributed/launcher/api.py", line {la}, in launch_agent',
        "    raise ChildFailedError(",
    ])
    others = [{"time": c.elastic(), "host": node, "rank": k, "local_rank": k, "exitcode": -6, "pid": pids[k]}
              for k in sorted(aborted[1:])]
    out += elastic_summary("train_llm.py", {"time": c.elastic(), "host": node, "rank": 1, "local_rank": 1,
                                            "exitcode": -6, "pid": pids[1]}, others)
    boot = datetime(2024, 9, 24, 9, 11, 3)
    out += [
        f"[{c.tick(2).t:%F %T}] torchrun exit code 1; post-run GPU check:",
        "+ nvidia-smi -L",
    ]
    for i, b in enumerate(buses):
        if i == 4:
            out.append(f"Unable to determine the device handle for GPU0000:{b}:00.0: Unknown Error")
        else:
            out.append(f"GPU {i}: NVIDIA A100-SXM4-80GB (UUID: GPU-{r.getrandbits(32):08x}-{r.getrandbits(16):04x}-"
                       f"{r.getrandbits(16):04x}-{r.getrandbits(16):04x}-{r.getrandbits(48):012x})")
    out += [
        "+ dmesg | grep -i -E 'NVRM|xid' | tail -n 5",
        dmesg_xid(t_fail, boot, "0000:87:00", 79, "<unknown>", "<unknown>", "GPU has fallen off the bus."),
        f"{t_fail.kernel(boot)} NVRM: GPU 0000:87:00.0: GPU has fallen off the bus.",
        f"{t_fail.kernel(boot)} NVRM: GPU 0000:87:00.0: GPU serial number is 1324521017593.",
        f"{t_fail.kernel(boot)} NVRM: A GPU crash dump has been created. If possible, please run",
        "               NVRM: nvidia-bug-report.sh as root to collect this data before",
    ]
    write_case("gpu-fell-off-bus-torchrun-silent-rank-02", {
        "label": "gpu-fell-off-bus",
        "also": [],
        "difficulty": "hard",
        "description": "torchrun, 8x A100-SXM4-80GB, torch 2.4.0. GPU 4 (bus 87) drops off the bus; rank 4 prints "
                       "nothing and hangs. Ten minutes later the seven healthy ranks hit the NCCL watchdog timeout "
                       "and abort, torchrun cannot stop rank 4 with SIGTERM, and its summary names rank 1 (-6). The "
                       "job script's post-run check shows GPU 4 missing from nvidia-smi -L and Xid 79 in dmesg.",
        "initiating_rank": 4,
        "facts": {"gpu_model": "A100-SXM4-80GB", "torch_version": "2.4.0", "nccl_version": "2.20.5",
                  "launcher": "torchrun", "world_size": "8", "xid": "79"},
        "must_mention": ["Xid 79", "GPU 4"],
    }, {f"slurm-{jobid}.out": J(out)})


@case
def fell_off_bus_deepspeed_a10g_03():
    r = rng_for("bus3")
    ds_v, torch_v, site = "0.13.1", "2.2.0", "/opt/conda/lib/python3.10/site-packages"
    c = Clock("2024-02-20 11:03:44")
    host = "ip-10-0-12-87"
    pids = [21804, 21805, 21806, 21807]
    buses = ["00000000:00:1B.0", "00000000:00:1C.0", "00000000:00:1D.0", "00000000:00:1E.0"]
    cmd = lambda i: f"['/opt/conda/bin/python', '-u', 'train_whisper.py', '--local_rank={i}', '--deepspeed', 'ds_zero2.json']"
    out = [nvidia_smi("Tue Feb 20 11:03:41 2024", "535.104.12",
                      [gpu_row("A10G", 23028, b, pwr=r.randint(24, 29), cap=300, temp=r.randint(22, 27), fan="0%", perf="P8")
                       for b in buses]),
           f"[{c.ds()}] [INFO] [real_accelerator.py:191:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
           f"[{c.tick(2).ds()}] [WARNING] [runner.py:202:fetch_hostfile] Unable to find hostfile, will proceed with training with local resources only.",
           f"[{c.ds()}] [INFO] [launch.py:145:main] WORLD INFO DICT: {{'localhost': [0, 1, 2, 3]}}",
           f"[{c.ds()}] [INFO] [launch.py:151:main] nnodes=1, num_local_procs=4, node_rank=0",
           f"[{c.ds()}] [INFO] [launch.py:163:main] dist_world_size=4",
           f"[{c.ds()}] [INFO] [launch.py:165:main] Setting CUDA_VISIBLE_DEVICES=0,1,2,3"]
    for i in range(4):
        out.append(f"[{c.ds()}] [INFO] [launch.py:253:main] process {pids[i]} spawned with command: {cmd(i)}")
    c.tick(20)
    out += [
        f"[{c.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version={ds_v}, git-hash=unknown, git-branch=unknown",
        f"[{c.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Basic Optimizer = AdamW",
        f"[{c.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] Creating torch.float16 ZeRO stage 2 optimizer",
        f"[{c.ds()}] [INFO] [stage_1_and_2.py:143:__init__] Reduce bucket size 200000000",
        f"[{c.ds()}] [INFO] [stage_1_and_2.py:144:__init__] Allgather bucket size 200000000",
        f"[{c.ds()}] [INFO] [stage_1_and_2.py:145:__init__] CPU Offload: False",
    ]
    scale = 65536
    for step in range(50, 2451, 50):
        c.tick(50 * 1.37 + r.uniform(-1, 1))
        out.append(f"[{c.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] step={step}, skipped={1 + step // 1000}, "
                   f"lr=[{1e-5 * min(1, step / 500):.6e}], mom=[(0.9, 0.999)]")
        out.append(f"{{'loss': {0.91 - step * 1.6e-4 + r.uniform(-.02, .02):.4f}, 'learning_rate': {1e-5 * min(1, step / 500):.2e}, "
                   f"'epoch': {step / 3120:.2f}}}")
        if step == 1000:
            out.append(f"[{c.ds()}] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. "
                       f"Attempted loss scale: {scale}, reducing to {scale // 2}")
    c.tick(22)
    out += [
        "Traceback (most recent call last):",
        '  File "/workspace/asr/train_whisper.py", line 287, in <module>',
        "    main()",
        '  File "/workspace/asr/train_whisper.py", line 259, in main',
        "    engine.backward(loss)",
        f'  File "{site}/deepspeed/utils/nvtx.py", line 15, in wrapped_fn',
        "    ret_val = func(*args, **kwargs)",
        f'  File "{site}/deepspeed/runtime/engine.py", line 1964, in backward',
        "    self.optimizer.backward(loss, retain_graph=retain_graph)",
        f'  File "{site}/deepspeed/runtime/zero/stage_1_and_2.py", line 2040, in backward',
        "    self.loss_scaler.backward(loss.float(), retain_graph=retain_graph)",
        f'  File "{site}/deepspeed/runtime/fp16/loss_scaler.py", line 63, in backward',
        "    scaled_loss.backward(retain_graph=retain_graph)",
        f'  File "{site}/torch/_tensor.py", line 522, in backward',
        "    torch.autograd.backward(",
        f'  File "{site}/torch/autograd/__init__.py", line 266, in backward',
        "    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass",
        f'  File "{site}/deepspeed/runtime/zero/stage_1_and_2.py", line 903, in reduce_partition_and_remove_grads',
        "    self.reduce_ready_partitions_and_remove_grads(param, i)",
        f'  File "{site}/deepspeed/runtime/zero/stage_1_and_2.py", line 1416, in reduce_ready_partitions_and_remove_grads',
        "    self.reduce_independent_p_g_buckets_and_remove_grads(param, i)",
        f'  File "{site}/deepspeed/runtime/zero/stage_1_and_2.py", line 942, in reduce_independent_p_g_buckets_and_remove_grads',
        "    self.reduce_ipg_grads()",
        f'  File "{site}/deepspeed/runtime/zero/stage_1_and_2.py", line 1369, in reduce_ipg_grads',
        "    self.average_tensor(self.ipg_buffer[self.ipg_index].narrow(0, 0, self.elements_in_ipg_bucket))",
        f'  File "{site}/deepspeed/runtime/zero/stage_1_and_2.py", line 1127, in average_tensor',
        "    self.allreduce_and_scatter(buckets[bucket_key],",
        f'  File "{site}/deepspeed/runtime/zero/stage_1_and_2.py", line 1031, in allreduce_and_scatter',
        "    self.allreduce_and_copy_with_multiple_ranks(small_bucket,",
        f'  File "{site}/deepspeed/runtime/zero/stage_1_and_2.py", line 1003, in allreduce_and_copy_with_multiple_ranks',
        "    allreduced = self.allreduce_bucket(small_bucket, log=log, divide=divide, process_group=process_group)",
        f'  File "{site}/deepspeed/runtime/zero/stage_1_and_2.py", line 1513, in allreduce_bucket',
        "    dist.all_reduce(tensor_to_allreduce, group=process_group)",
        f'  File "{site}/deepspeed/comm/comm.py", line 117, in log_wrapper',
        "    return func(*args, **kwargs)",
        f'  File "{site}/deepspeed/comm/comm.py", line 496, in all_reduce',
        "    return cdb.all_reduce(tensor, op, group, async_op)",
        f'  File "{site}/deepspeed/comm/torch.py", line 159, in all_reduce',
        "    return torch.distributed.all_reduce(tensor=tensor, op=op, group=group, async_op=async_op)",
        f'  File "{site}/torch/distributed/c10d_logger.py", line 72, in wrapper',
        "    return func(*args, **kwargs)",
        f'  File "{site}/torch/distributed/distributed_c10d.py", line 1992, in all_reduce',
        "    work = group.allreduce([tensor], opts)",
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, "
        "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3",
        "ncclUnhandledCudaError: Call to CUDA function failed.",
        "Last error:",
        "Cuda failure 'unspecified launch failure'",
    ]
    c.tick(1.2)
    for i in range(4):
        out.append(f"[{c.tick(0.01).ds()}] [INFO] [launch.py:316:sigkill_handler] Killing subprocess {pids[i]}")
    out.append(f"[{c.tick(30.2).ds()}] [ERROR] [launch.py:322:sigkill_handler] {cmd(3)} exits with return code = 1")
    out += [
        "+ nvidia-smi",
        "Unable to determine the device handle for GPU0000:00:1D.0: GPU is lost.  Reboot the system to recover this GPU",
    ]
    write_case("gpu-fell-off-bus-deepspeed-a10g-lost-03", {
        "label": "gpu-fell-off-bus",
        "difficulty": "medium",
        "description": "deepspeed launcher on a 4x A10G cloud VM, ZeRO-2 fp16 Whisper fine-tune; a rank's gradient "
                       "all_reduce fails with ncclUnhandledCudaError / Cuda failure 'unspecified launch failure', "
                       "the launcher kills everything, and the wrapper's nvidia-smi reports the GPU at 00:1D.0 as "
                       "'GPU is lost. Reboot the system to recover this GPU'. 00:1D.0 is the third GPU in "
                       "CUDA_VISIBLE_DEVICES=0,1,2,3, i.e. rank 2.",
        "initiating_rank": 2,
        "facts": {"gpu_model": "A10G", "driver_version": "535.104.12", "deepspeed_version": "0.13.1",
                  "nccl_version": "2.19.3", "launcher": "deepspeed", "world_size": "4", "zero_stage": "2",
                  "precision": "fp16"},
        "must_mention": ["GPU is lost", "reboot"],
    }, {"train.log": J(out)})


# ================================================================ gpu-ecc-error

@case
def ecc_uncorrectable_hf_01():
    r = rng_for("ecc1")
    site = "/usr/local/lib/python3.10/dist-packages"
    c = Clock("2024-04-28 06:12:00")
    out = [collect_env("2.1.0", "12.1", "12.1.105", "Ubuntu 22.04.3 LTS", "(Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0",
                       "2.35", "3.10.12", "(main, Nov 20 2023, 15:14:05) [GCC 11.4.0]", "5.15.0-101-generic",
                       ["A100-SXM4-80GB"], "535.161.08", "8.9.0",
                       {"numpy": "1.24.4", "torch": "2.1.0", "transformers": "4.40.1", "accelerate": "0.29.3",
                        "triton": "2.1.0"}, "AMD EPYC 7763 64-Core Processor", 32),
           "",
           "$ python run_clm.py --model_name_or_path /models/opt-2.7b --train_file data/domain.txt --bf16 "
           "--per_device_train_batch_size 8 --gradient_accumulation_steps 4 --num_train_epochs 2 --output_dir out/opt27-dapt "
           "--save_steps 1000 --logging_steps 50",
           f"[INFO|trainer.py:2048] {c.hf()} >> ***** Running training *****",
           f"[INFO|trainer.py:2049] {c.hf()} >>   Num examples = 311,552",
           f"[INFO|trainer.py:2050] {c.hf()} >>   Num Epochs = 2",
           f"[INFO|trainer.py:2051] {c.hf()} >>   Instantaneous batch size per device = 8",
           f"[INFO|trainer.py:2055] {c.hf()} >>   Gradient Accumulation steps = 4",
           f"[INFO|trainer.py:2056] {c.hf()} >>   Total optimization steps = 19,472",
           f"[INFO|trainer.py:2057] {c.hf()} >>   Number of trainable parameters = 2,651,596,800"]
    el = 0
    spit = 1.63
    for step in range(50, 7401, 50):
        el += 50 * spit
        out.append(tqdm_bar(step, 19472, el, spit))
        out.append(hf_loss_line(2.71 - step * 4e-5 + r.uniform(-.03, .03), r.uniform(.4, .9), 5e-5 * (1 - step / 19472), step / 9736))
        if step % 1000 == 0:
            out.append(f"[INFO|trainer.py:3305] {c.tick(el).hf()} >> Saving model checkpoint to out/opt27-dapt/checkpoint-{step}")
            c.tick(-el)
    out.append(tqdm_bar(7423, 19472, el + 36, spit))
    out += [
        "Traceback (most recent call last):",
        '  File "/workspace/run_clm.py", line 658, in <module>',
        "    main()",
        '  File "/workspace/run_clm.py", line 606, in main',
        "    train_result = trainer.train(resume_from_checkpoint=checkpoint)",
        f'  File "{site}/transformers/trainer.py", line 1859, in train',
        "    return inner_training_loop(",
        f'  File "{site}/transformers/trainer.py", line 2208, in _inner_training_loop',
        "    and (torch.isnan(tr_loss_step) or torch.isinf(tr_loss_step))",
        "RuntimeError: CUDA error: uncorrectable ECC error encountered",
    ] + CUDA_ASYNC_NOTE
    write_case("gpu-ecc-error-uncorrectable-hf-01", {
        "label": "gpu-ecc-error",
        "difficulty": "easy",
        "description": "Single A100-SXM4-80GB, HF run_clm domain adaptation of OPT-2.7B; at step ~7423 the first "
                       "host sync after the fault raises 'CUDA error: uncorrectable ECC error encountered'.",
        "initiating_rank": None,
        "facts": {"gpu_model": "A100-SXM4-80GB", "driver_version": "535.161.08", "torch_version": "2.1.0",
                  "cuda_version": "12.1", "python_version": "3.10.12", "transformers_version": "4.40.1",
                  "precision": "bf16"},
        "must_mention": ["ECC", "row remap"],
    }, {"train.log": J(out)})


@case
def ecc_xid94_torchrun_02():
    r = rng_for("ecc2")
    bearer = _tok(r, 48, string.ascii_letters + string.digits + "-_")
    torch_v, site = "2.5.1", "/usr/local/lib/python3.12/dist-packages"
    node = "hgx-h100-114"
    agent = 3301
    pids = [3320 + i for i in range(8)]
    c = Clock("2024-12-10 01:20:33")
    out = ["+ torchrun --nproc_per_node=8 --max-restarts=0 pretrain.py --config configs/moe_16x1b.yaml"]
    out += torchrun_banner(torch_v, c, agent)
    c.tick(10)
    out += nccl_init(node, pids[0], 0, 0, 8, "2.21.5", "cuda12.4", r, net="IB", ip="10.9.3.114", bus="18000",
                     show_version=True, nchan=2, peers=[(1, "2a000")], p2p="P2P/CUMEM/read")
    out.append("[rank0]:torch 2.5.1+cu124 | 8 x NVIDIA H100 80GB HBM3 | MoE 16x1B, top-2, EP=8, bf16")
    seq = 0
    for step in range(25, 4801, 25):
        c.tick(25 * 1.12 + r.uniform(-.3, .3))
        out.append(f"[rank0]:{c.t:%Y-%m-%d %H:%M:%S} | it {step:6d} | loss {3.05 - step * 1.8e-4 + r.uniform(-.02, .02):.4f} "
                   f"| aux {0.011 + r.uniform(-.001, .001):.4f} | tok/s {r.randint(412000, 418500)} | mem {r.uniform(66.8, 67.4):.1f}GB")
    c.tick(9.4)
    k = 2
    ts = lambda: f"E{c.t:%m%d %H:%M:%S}.{r.randint(0, 999999999):09d}"
    emsg = f"[PG ID 0 PG GUID 0(default_pg) Rank {k}] Process group watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered"
    out += [
        f"[rank{k}]:[{ts()} ProcessGroupNCCL.cpp:1595] {emsg}",
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
        "",
        "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):",
        f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f{r.getrandbits(36):09x} in {site}/torch/lib/libc10.so)",
        f"frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 (0x7f{r.getrandbits(36):09x} in {site}/torch/lib/libc10.so)",
        f"frame #2: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 (0x7f{r.getrandbits(36):09x} in {site}/torch/lib/libc10_cuda.so)",
        f"frame #3: c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56 (0x7f{r.getrandbits(36):09x} in {site}/torch/lib/libtorch_cuda.so)",
        f"frame #4: c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0xa0 (0x7f{r.getrandbits(36):09x} in {site}/torch/lib/libtorch_cuda.so)",
        f"frame #5: c10d::ProcessGroupNCCL::watchdogHandler() + 0x1da (0x7f{r.getrandbits(36):09x} in {site}/torch/lib/libtorch_cuda.so)",
        f"frame #6: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c (0x7f{r.getrandbits(36):09x} in {site}/torch/lib/libtorch_cuda.so)",
        "",
        "terminate called after throwing an instance of 'c10::DistBackendError'",
        f"  what():  {emsg}",
    ]
    c.tick(0.8)
    for i in [0, 1, 3, 4, 5, 6, 7]:
        out.append(elastic_log(torch_v, c.tick(0.001), "W", "torch.distributed.elastic.multiprocessing.api", 897,
                               f"Sending process {pids[i]} closing signal SIGTERM", agent))
    out.append(elastic_log(torch_v, c.tick(2.2), "E", "torch.distributed.elastic.multiprocessing.api", 869,
                           f"failed (exitcode: -6) local_rank: 2 (pid: {pids[2]}) of binary: /usr/bin/python", agent))
    out += agent_traceback("3.12", site, "/usr/local/bin/torchrun", torch_v, [
        '  File "{site}/torch/distributed/launcher/api.py", line {la}, in launch_agent',
        "    raise ChildFailedError(",
    ])
    out += elastic_summary("pretrain.py", {"time": c.elastic(), "host": node, "rank": 2, "local_rank": 2,
                                           "exitcode": -6, "pid": pids[2]})
    out += [
        f"[on-failure hook] {c.tick(1).t:%F %T} collecting GPU health for {node}",
        "+ nvidia-smi -q -d ECC,ROW_REMAPPER -i 2",
        "",
        "==============NVSMI LOG==============",
        "",
        f"Timestamp                                 : {c.ctime()}",
        "Driver Version                            : 550.90.07",
        "CUDA Version                              : 12.4",
        "",
        "Attached GPUs                             : 8",
        "GPU 00000000:3A:00.0",
        "    ECC Mode",
        "        Current                           : Enabled",
        "        Pending                           : Enabled",
        "    ECC Errors",
        "        Volatile",
        "            SRAM Correctable              : 0",
        "            SRAM Uncorrectable            : 0",
        "            DRAM Correctable              : 0",
        "            DRAM Uncorrectable            : 1",
        "        Aggregate",
        "            SRAM Correctable              : 0",
        "            SRAM Uncorrectable            : 0",
        "            DRAM Correctable              : 2",
        "            DRAM Uncorrectable            : 1",
        "    Remapped Rows",
        "        Correctable Error                 : 0",
        "        Uncorrectable Error               : 1",
        "        Pending                           : Yes",
        "        Remapping Failure Occurred        : No",
        "        Bank Remap Availability Histogram",
        "            Max                           : 2559 bank(s)",
        "            High                          : 1 bank(s)",
        "            Partial                       : 0 bank(s)",
        "            Low                           : 0 bank(s)",
        "            None                          : 0 bank(s)",
        "",
        "[on-failure hook] posting incident to ops webhook",
        "send: b'POST /api/v2/incidents HTTP/1.1\\r\\nHost: ops-alerts.corp.internal\\r\\nAccept-Encoding: identity\\r\\n"
        f"Content-Length: 214\\r\\nContent-Type: application/json\\r\\nAuthorization: Bearer {bearer}\\r\\n\\r\\n'",
        "reply: 'HTTP/1.1 201 Created\\r\\n'",
    ]
    write_case("gpu-ecc-error-xid94-torchrun-02", {
        "label": "gpu-ecc-error",
        "difficulty": "medium",
        "description": "torchrun, 8x H100 (torch 2.5.1, NCCL 2.21.5) MoE pretraining; rank 2's NCCL watchdog reports "
                       "'CUDA error: uncorrectable ECC error encountered' and aborts; the visible end is the "
                       "ChildFailedError (exitcode -6, SIGABRT) and an on-failure hook: nvidia-smi -q shows one "
                       "volatile DRAM uncorrectable error and a pending row remap on GPU 2.",
        "initiating_rank": 2,
        "facts": {"torch_version": "2.5.1", "nccl_version": "2.21.5", "driver_version": "550.90.07",
                  "launcher": "torchrun", "exit_code": "-6", "signal": "SIGABRT"},
        "must_mention": ["ECC", "row remap"],
        "secrets": [bearer],
    }, {"train.log": J(out)})


@case
def ecc_v100_cublas_hard_03():
    r = rng_for("ecc3")
    ds_v, torch_v, site = "0.9.5", "1.13.1", "/opt/conda/lib/python3.9/site-packages"
    c = Clock("2023-07-03 14:40:18")
    host = "dgx1-v100-06"
    pids = [28810, 28813, 28816, 28819]
    boot = datetime(2023, 6, 11, 2, 0, 41)
    cmd = lambda i: f"['/opt/conda/bin/python', '-u', 'train_bert.py', '--local_rank={i}', '--deepspeed_config', 'ds_fp16_z2.json']"
    out = [
        f"[{c.ds()}] [INFO] [real_accelerator.py:110:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
        f"[{c.tick(1).ds()}] [WARNING] [runner.py:196:fetch_hostfile] Unable to find hostfile, will proceed with training with local resources only.",
        f"[{c.ds()}] [INFO] [launch.py:145:main] WORLD INFO DICT: {{'localhost': [0, 1, 2, 3]}}",
        f"[{c.ds()}] [INFO] [launch.py:151:main] nnodes=1, num_local_procs=4, node_rank=0",
        f"[{c.ds()}] [INFO] [launch.py:162:main] dist_world_size=4",
        f"[{c.ds()}] [INFO] [launch.py:164:main] Setting CUDA_VISIBLE_DEVICES=0,1,2,3",
    ]
    for i in range(4):
        out.append(f"[{c.ds()}] [INFO] [launch.py:247:main] process {pids[i]} spawned with command: {cmd(i)}")
    c.tick(12)
    out += [
        f"[{c.ds()}] [INFO] [comm.py:594:init_distributed] cdb=None",
        f"[{c.ds()}] [INFO] [comm.py:625:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl",
        f"[{c.tick(6).ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version={ds_v}, git-hash=unknown, git-branch=unknown",
        f"[{c.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Basic Optimizer = FusedAdam",
        f"[{c.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] Creating torch.float16 ZeRO stage 2 optimizer",
        f"[{c.ds()}] [INFO] [stage_1_and_2.py:133:__init__] Reduce bucket size 500000000",
        f"[{c.ds()}] [INFO] [stage_1_and_2.py:134:__init__] Allgather bucket size 500000000",
        f"[rank 0] torch {torch_v}+cu117 | 4 x Tesla V100-SXM2-32GB | fp16 | bert-large-uncased MLM, seq 512",
    ]
    for step in range(100, 8801, 100):
        c.tick(100 * 0.83 + r.uniform(-1, 1))
        out.append(f"[{c.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] step={step}, skipped={3 + step // 3000}, "
                   f"lr=[{1e-4 * min(1, step / 1000):.6e}], mom=[(0.9, 0.999)]")
        out.append(f"[{c.ds()}] [INFO] [timer.py:215:stop] epoch=0/micro_step={step}/global_step={step}, "
                   f"RunningAvgSamplesPerSec={308 + r.uniform(-2, 2):.2f}, CurrSamplesPerSec={308 + r.uniform(-6, 6):.2f}, "
                   "MemAllocated=4.71GB, MaxMemAllocated=12.02GB")
    c.tick(19)
    out += [
        "[rank 1] exception at step 8812, dumping batch ids to /tmp/failed_batch_r1.json",
        "Traceback (most recent call last):",
        '  File "/workspace/bert/train_bert.py", line 214, in <module>',
        "    main()",
        '  File "/workspace/bert/train_bert.py", line 190, in main',
        "    loss = engine(**batch).loss",
        f'  File "{site}/torch/nn/modules/module.py", line 1194, in _call_impl',
        "    return forward_call(*input, **kwargs)",
        f'  File "{site}/deepspeed/utils/nvtx.py", line 15, in wrapped_fn',
        "    ret_val = func(*args, **kwargs)",
        f'  File "{site}/deepspeed/runtime/engine.py", line 1735, in forward',
        "    loss = self.module(*inputs, **kwargs)",
        f'  File "{site}/torch/nn/modules/module.py", line 1194, in _call_impl',
        "    return forward_call(*input, **kwargs)",
        f'  File "{site}/transformers/models/bert/modeling_bert.py", line 1358, in forward',
        "    outputs = self.bert(",
        f'  File "{site}/transformers/models/bert/modeling_bert.py", line 1022, in forward',
        "    encoder_outputs = self.encoder(",
        f'  File "{site}/transformers/models/bert/modeling_bert.py", line 612, in forward',
        "    layer_outputs = layer_module(",
        f'  File "{site}/transformers/models/bert/modeling_bert.py", line 497, in forward',
        "    self_attention_outputs = self.attention(",
        f'  File "{site}/transformers/models/bert/modeling_bert.py", line 427, in forward',
        "    self_outputs = self.self(",
        f'  File "{site}/transformers/models/bert/modeling_bert.py", line 293, in forward',
        "    mixed_query_layer = self.query(hidden_states)",
        f'  File "{site}/torch/nn/modules/module.py", line 1194, in _call_impl',
        "    return forward_call(*input, **kwargs)",
        f'  File "{site}/torch/nn/modules/linear.py", line 114, in forward',
        "    return F.linear(input, self.weight, self.bias)",
        "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k, "
        "&falpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, ldc, CUDA_R_32F, CUBLAS_GEMM_DFALT_TENSOR_OP)`",
    ]
    c.tick(1.1)
    for i in range(4):
        out.append(f"[{c.tick(0.01).ds()}] [INFO] [launch.py:428:sigkill_handler] Killing subprocess {pids[i]}")
    out.append(f"[{c.tick(0.4).ds()}] [ERROR] [launch.py:434:sigkill_handler] {cmd(3)} exits with return code = 1")
    c.tick(1)
    out += [
        "=== post-mortem (run_bert.sh) ===",
        nvidia_smi(c.ctime(), "470.182.03",
                   [gpu_row("Tesla V100-SXM2-32GB", 32510, "00000000:06:00.0", pwr=44, temp=33, ecc="0"),
                    gpu_row("Tesla V100-SXM2-32GB", 32510, "00000000:07:00.0", pwr=45, temp=35, ecc="2"),
                    gpu_row("Tesla V100-SXM2-32GB", 32510, "00000000:0A:00.0", pwr=43, temp=33, ecc="0"),
                    gpu_row("Tesla V100-SXM2-32GB", 32510, "00000000:0B:00.0", pwr=44, temp=32, ecc="0")]),
        "+ nvidia-smi -q -d PAGE_RETIREMENT -i 1 | sed -n '/Retired Pages/,$p'",
        "    Retired Pages",
        "        Single Bit ECC              : 0",
        "        Double Bit ECC              : 1",
        "        Pending Page Blacklist      : Yes",
        "+ dmesg | grep Xid",
    ]
    t_x = Clock(c.t.strftime("%Y-%m-%d %H:%M:%S")).tick(-24)
    out.append(dmesg_xid(t_x, boot, "0000:07:00", 48, 28813, "python",
                         "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 5, subpartition 0."))
    write_case("gpu-ecc-error-v100-cublas-03", {
        "label": "gpu-ecc-error",
        "also": [],
        "difficulty": "hard",
        "description": "deepspeed launcher on a DGX-1 (4x V100-SXM2-32GB, driver 470, torch 1.13.1, ZeRO-2 fp16); rank "
                       "1 fails with CUBLAS_STATUS_EXECUTION_FAILED in a BERT linear layer, which reads like a cuBLAS "
                       "or shape problem. The post-mortem shows Volatile Uncorr. ECC = 2 on GPU 1, a double-bit "
                       "page pending retirement, and Xid 48 (DBE) from the training pid.",
        "initiating_rank": 1,
        "facts": {"gpu_model": "Tesla V100-SXM2-32GB", "driver_version": "470.182.03", "deepspeed_version": "0.9.5",
                  "torch_version": "1.13.1",
                  "launcher": "deepspeed", "zero_stage": "2", "precision": "fp16", "xid": "48"},
        "must_mention": ["ECC", "Xid 48"],
    }, {"train.log": J(out)})


# ================================================================ gpu-p2p-unsupported

@case
def p2p_rtx4090_accelerate_01():
    r = rng_for("p2p1")
    user = "dkim"
    torch_v = "2.4.1"
    site = f"/home/{user}/.venvs/ft/lib/python3.11/site-packages"
    c = Clock("2024-09-21 21:14:06")
    agent = 14402
    pids = [14417, 14418]
    out = [
        f"{user}@tower:~/proj/ft$ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv",
        "index, name, driver_version, memory.total [MiB]",
        "0, NVIDIA GeForce RTX 4090, 535.183.01, 24564 MiB",
        "1, NVIDIA GeForce RTX 4090, 535.183.01, 24564 MiB",
        f"{user}@tower:~/proj/ft$ pip list 2>/dev/null | grep -E '^(torch|accelerate|transformers|peft) '",
        "accelerate               0.34.2",
        "peft                     0.12.0",
        "torch                    2.4.1",
        "transformers             4.44.2",
        f"{user}@tower:~/proj/ft$ torchrun --nproc_per_node 2 sft_qlora.py --model meta-llama/Meta-Llama-3.1-8B --data ./data/chat.jsonl",
    ]
    out += torchrun_banner(torch_v, c, agent)
    for k in (0, 1):
        tb = [
            "Traceback (most recent call last):",
            f'  File "/home/{user}/proj/ft/sft_qlora.py", line 212, in <module>',
            "    main()",
            f'  File "/home/{user}/proj/ft/sft_qlora.py", line 131, in main',
            '    accelerator = Accelerator(gradient_accumulation_steps=args.grad_accum, mixed_precision="bf16", log_with="wandb")',
            f'  File "{site}/accelerate/accelerator.py", line 384, in __init__',
            "    self.state = AcceleratorState(",
            f'  File "{site}/accelerate/state.py", line 860, in __init__',
            "    PartialState(cpu, **kwargs)",
            f'  File "{site}/accelerate/state.py", line 287, in __init__',
            "    raise NotImplementedError(",
            "NotImplementedError: Using RTX 4000 series doesn't support faster communication broadband via P2P or IB. "
            'Please set `NCCL_P2P_DISABLE="1"` and `NCCL_IB_DISABLE="1" or use `accelerate launch` which will do this '
            "automatically.",
        ]
        out += [f"[rank{k}]: " + ln for ln in py311_carets(tb)]
    c.tick(3.2)
    out.append(elastic_log(torch_v, c, "E", "torch.distributed.elastic.multiprocessing.api", 833,
                           f"failed (exitcode: 1) local_rank: 0 (pid: {pids[0]}) of binary: /home/{user}/.venvs/ft/bin/python", agent))
    out += agent_traceback("3.11", site, f"/home/{user}/.venvs/ft/bin/torchrun", torch_v, [
        '  File "{site}/torch/distributed/launcher/api.py", line {la}, in launch_agent',
        "    raise ChildFailedError(",
    ])
    out += elastic_summary("sft_qlora.py", {"time": c.elastic(), "host": "tower", "rank": 0, "local_rank": 0,
                                            "exitcode": 1, "pid": pids[0]},
                           [{"time": c.elastic(), "host": "tower", "rank": 1, "local_rank": 1, "exitcode": 1, "pid": pids[1]}])
    write_case("gpu-p2p-unsupported-rtx4090-accelerate-01", {
        "label": "gpu-p2p-unsupported",
        "difficulty": "easy",
        "description": "Workstation with 2x RTX 4090 on driver 535.183.01, script using Accelerator() but started with "
                       "plain torchrun; accelerate's check refuses to run: 'Using RTX 4000 series doesn't support "
                       "faster communication broadband via P2P or IB. Please set NCCL_P2P_DISABLE=\"1\" ...'.",
        "initiating_rank": 0,
        "facts": {"gpu_model": "GeForce RTX 4090", "driver_version": "535.183.01", "torch_version": "2.4.1",
                  "accelerate_version": "0.34.2", "transformers_version": "4.44.2", "launcher": "torchrun",
                  "world_size": "2"},
        "must_mention": ["NCCL_P2P_DISABLE"],
        "secrets": [user],
    }, {"train.log": J(out)})


TOPO_L40S = dedent("""
    \tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID
    GPU0\t X \tPIX\tPXB\tPXB\tSYS\tSYS\tSYS\tSYS\tPXB\tSYS\t0-31,64-95\t0\t\tN/A
    GPU1\tPIX\t X \tPXB\tPXB\tSYS\tSYS\tSYS\tSYS\tPXB\tSYS\t0-31,64-95\t0\t\tN/A
    GPU2\tPXB\tPXB\t X \tPIX\tSYS\tSYS\tSYS\tSYS\tPXB\tSYS\t0-31,64-95\t0\t\tN/A
    GPU3\tPXB\tPXB\tPIX\t X \tSYS\tSYS\tSYS\tSYS\tPXB\tSYS\t0-31,64-95\t0\t\tN/A
    GPU4\tSYS\tSYS\tSYS\tSYS\t X \tPIX\tPXB\tPXB\tSYS\tPXB\t32-63,96-127\t1\t\tN/A
    GPU5\tSYS\tSYS\tSYS\tSYS\tPIX\t X \tPXB\tPXB\tSYS\tPXB\t32-63,96-127\t1\t\tN/A
    GPU6\tSYS\tSYS\tSYS\tSYS\tPXB\tPXB\t X \tPIX\tSYS\tPXB\t32-63,96-127\t1\t\tN/A
    GPU7\tSYS\tSYS\tSYS\tSYS\tPXB\tPXB\tPIX\t X \tSYS\tPXB\t32-63,96-127\t1\t\tN/A
    NIC0\tPXB\tPXB\tPXB\tPXB\tSYS\tSYS\tSYS\tSYS\t X \tSYS\t\t\t\t
    NIC1\tSYS\tSYS\tSYS\tSYS\tPXB\tPXB\tPXB\tPXB\tSYS\t X \t\t\t\t

    Legend:

      X    = Self
      SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
      NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
      PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
      PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)
      PIX  = Connection traversing at most a single PCIe bridge
      NV#  = Connection traversing a bonded set of # NVLinks

    NIC Legend:

      NIC0: mlx5_0
      NIC1: mlx5_1
""")


@case
def p2p_acs_l40s_hang_02():
    r = rng_for("p2p2")
    torch_v, site = "2.1.2", "/usr/local/lib/python3.10/dist-packages"
    host = "l40s-srv-02"
    agent = 6120
    pids = [6135 + i for i in range(8)]
    buses = ["1b000", "1c000", "3d000", "3e000", "9c000", "9d000", "bd000", "be000"]
    c = Clock("2024-05-07 10:02:15")
    out = [
        f"=== {host} {c.t:%F %T} ===",
        "+ nvidia-smi topo -m",
        TOPO_L40S,
        "+ export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P",
        "+ torchrun --standalone --nproc_per_node=8 train_ddp.py --model convnext_large --bs 64 --amp",
    ]
    out += torchrun_banner(torch_v, c, agent)
    c.tick(7)
    for k in range(8):
        peer = k ^ 1
        out += nccl_init(host, pids[k], k, k, 8, "2.18.1", "cuda12.1", r, net="IB", ifname="eno1", ip="10.5.0.32",
                         bus=buses[k], peers=[(peer, buses[peer])], p2p="P2P/IPC", nchan=2, show_version=(k == 0))
    out.append(f"[rank0] {c.tick(2).t:%H:%M:%S} torch {torch_v}+cu121, 8 x NVIDIA L40S; process group ready (nccl, world 8); "
               "waiting for all ranks at barrier")
    c.tick(1800.4)
    order = [5, 0, 3, 6, 1, 2, 7, 4]
    for k in order:
        msg = (f"[Rank {k}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, "
               f"NumelOut=1, Timeout(ms)=1800000) ran for {1800000 + r.randint(100, 900)} milliseconds before timing out.")
        out += [
            f"[E ProcessGroupNCCL.cpp:475] {msg}",
            "[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature "
            "of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
            "[E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.",
            f"[E ProcessGroupNCCL.cpp:916] [Rank {k}] NCCL watchdog thread terminated with exception: {msg}",
            "terminate called after throwing an instance of 'std::runtime_error'",
            f"  what():  [Rank {k}] NCCL watchdog thread terminated with exception: {msg}",
        ]
    c.tick(2.5)
    out.append(elastic_log(torch_v, c, "E", "torch.distributed.elastic.multiprocessing.api", 0,
                           f"failed (exitcode: -6) local_rank: 0 (pid: {pids[0]}) of binary: /usr/bin/python"))
    out += agent_traceback("3.10", site, "/usr/local/bin/torchrun", torch_v, [
        '  File "{site}/torch/distributed/launcher/api.py", line {la}, in launch_agent',
        "    raise ChildFailedError(",
    ])
    others = [{"time": c.elastic(), "host": host, "rank": k, "local_rank": k, "exitcode": -6, "pid": pids[k]}
              for k in range(1, 8)]
    out += elastic_summary("train_ddp.py", {"time": c.elastic(), "host": host, "rank": 0, "local_rank": 0,
                                            "exitcode": -6, "pid": pids[0]}, others)
    write_case("gpu-p2p-unsupported-acs-l40s-hang-02", {
        "label": "gpu-p2p-unsupported",
        "also": ["nccl-watchdog-timeout"],
        "difficulty": "hard",
        "description": "8x L40S PCIe server behind PCIe switches (topo: PIX/PXB), torch 2.1.2 / NCCL 2.18.1; NCCL "
                       "builds its rings over P2P/IPC and the very first collective (the 1-element barrier "
                       "all_reduce, SeqNum=1) never completes; 30 min later every rank hits the watchdog. The visible "
                       "error is a plain watchdog timeout, but a hang at SeqNum=1 over PCIe P2P is the classic sign "
                       "of P2P being blocked (ACS/IOMMU); NCCL_P2P_DISABLE=1 is the test.",
        "initiating_rank": None,
        "facts": {"torch_version": "2.1.2", "nccl_version": "2.18.1", "launcher": "torchrun", "world_size": "8",
                  "exit_code": "-6"},
        "must_mention": ["NCCL_P2P_DISABLE", "ACS"],
    }, {"train.log": J(out)})


@case
def p2p_vm_deepspeed_hang_03():
    r = rng_for("p2p3")
    ds_v, torch_v, site = "0.9.5", "1.13.1", "/opt/conda/lib/python3.10/site-packages"
    host = "gpu-vm-a100x2"
    c = Clock("2023-09-14 16:20:31")
    pids = [3811, 3812]
    cmd = lambda i: f"['/opt/conda/bin/python', '-u', 'train.py', '--local_rank={i}', '--deepspeed', 'ds_config.json']"
    out = [
        "##### sysinfo #####",
        "virtualization: kvm",
        "kernel: 5.15.0-83-generic",
        nvidia_smi("Thu Sep 14 16:20:29 2023", "525.125.06",
                   [gpu_row("A100 80GB PCIe", 81920, "00000000:00:05.0", pwr=44, cap=300, temp=35),
                    gpu_row("A100 80GB PCIe", 81920, "00000000:00:06.0", pwr=46, cap=300, temp=36)]),
        "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity",
        "GPU0\t X \tPHB\t0-47\t\tN/A",
        "GPU1\tPHB\t X \t0-47\t\tN/A",
        "##### end sysinfo #####",
        f"[{c.ds()}] [WARNING] [runner.py:196:fetch_hostfile] Unable to find hostfile, will proceed with training with local resources only.",
        f"[{c.ds()}] [INFO] [runner.py:555:main] cmd = /opt/conda/bin/python -u -m deepspeed.launcher.launch "
        "--world_info=eyJsb2NhbGhvc3QiOiBbMCwgMV19 --master_addr=127.0.0.1 --master_port=29500 --enable_each_rank_log=None "
        "train.py --deepspeed ds_config.json",
        f"[{c.tick(1).ds()}] [INFO] [launch.py:138:main] 0 NCCL_DEBUG=INFO",
        f"[{c.ds()}] [INFO] [launch.py:145:main] WORLD INFO DICT: {{'localhost': [0, 1]}}",
        f"[{c.ds()}] [INFO] [launch.py:151:main] nnodes=1, num_local_procs=2, node_rank=0",
        f"[{c.ds()}] [INFO] [launch.py:162:main] global_rank_mapping=defaultdict(<class 'list'>, {{'localhost': [0, 1]}})",
        f"[{c.ds()}] [INFO] [launch.py:163:main] dist_world_size=2",
        f"[{c.ds()}] [INFO] [launch.py:165:main] Setting CUDA_VISIBLE_DEVICES=0,1",
    ]
    for i in range(2):
        out.append(f"[{c.ds()}] [INFO] [launch.py:247:main] process {pids[i]} spawned with command: {cmd(i)}")
    c.tick(5)
    out += [
        f"[{c.ds()}] [INFO] [comm.py:594:init_distributed] cdb=None",
        f"[{c.ds()}] [INFO] [comm.py:625:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl",
        f"[{c.tick(3).ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version={ds_v}, git-hash=unknown, git-branch=unknown",
    ]
    for k in range(2):
        out += nccl_init(host, pids[k], k, k, 2, "2.14.3", "cuda11.7", r, net="Socket", ifname="enp1s0",
                         ip="192.168.122.41", bus=["5000", "6000"][k], peers=[(1 - k, ["5000", "6000"][1 - k])],
                         p2p="P2P/IPC", nchan=2, show_version=(k == 0))
    out += [
        f"[{c.tick(2).ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Flops Profiler Enabled: False",
        f"[{c.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] Creating BF16 optimizer",
        "[train] model gpt-neox-1.3b-custom, 1.31B params; bf16; micro batch 8; starting step loop",
    ]
    c.tick(47 * 60 + 12)
    out.append("^C[" + c.ds() + "] [INFO] [launch.py:428:sigkill_handler] Killing subprocess 3811")
    for k in (0, 1):
        out += [
            "Traceback (most recent call last):",
            '  File "/home/ubuntu/neox-ft/train.py", line 188, in <module>',
            "    main()",
            '  File "/home/ubuntu/neox-ft/train.py", line 171, in main',
            '    running_loss += loss.item()',
            "KeyboardInterrupt",
        ]
    out += [
        f"[{c.tick(0.2).ds()}] [INFO] [launch.py:428:sigkill_handler] Killing subprocess 3812",
        f"[{c.ds()}] [INFO] [launch.py:437:sigkill_handler] Main process received SIGINT, exiting",
    ]
    write_case("gpu-p2p-unsupported-kvm-deepspeed-hang-03", {
        "label": "gpu-p2p-unsupported",
        "difficulty": "medium",
        "description": "KVM VM with 2x A100 80GB PCIe passed through (topo PHB), deepspeed 0.9.5 / torch 1.13.1 / NCCL "
                       "2.14.3 with NCCL_DEBUG=INFO: NCCL connects the two GPUs via P2P/IPC, then the first step "
                       "never finishes; no timeout fires (torch 1.13 without async error handling) and the user "
                       "hits Ctrl-C after 47 minutes (KeyboardInterrupt at loss.item()).",
        "initiating_rank": None,
        "facts": {"gpu_model": "A100 80GB PCIe", "driver_version": "525.125.06", "deepspeed_version": "0.9.5",
                  "nccl_version": "2.14.3", "launcher": "deepspeed", "world_size": "2", "gpu_count": "2"},
        "must_mention": ["NCCL_P2P_DISABLE", "P2P"],
    }, {"train.log": J(out)})


# ---------------------------------------------------------------- main

def main() -> None:
    _cases.run(parser(__doc__).parse_args().out)


if __name__ == "__main__":
    main()
