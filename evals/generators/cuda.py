"""Write the eval cases for the cuda-category failures (illegal memory access, fused Adam, device asserts,
kernel images, drivers, missing GPUs, forked CUDA, cuBLAS, cuDNN, launch failures).

Synthetic logs are hand-written per case here, with shared helpers for the noise real runs print
(nvidia-smi, collect_env, ds_report, launchers, NCCL INFO, progress bars). Two cases are real CPU-only
PyTorch runs; `--real` reruns those programs and captures their output (needs the project venv's torch).

    python evals/generators/cuda.py            # rewrite the synthetic cases
    python evals/generators/cuda.py --real     # also rerun the two real CPU captures
"""

from __future__ import annotations

import base64
import json
import random
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import yaml

CASES_DIR = Path(__file__).resolve().parents[1] / "cases"


@dataclass
class Case:
    case_id: str
    label: str
    difficulty: str
    description: str
    initiating_rank: int | None
    facts: dict[str, str]
    must_mention: list[str]
    files: dict[str, str]
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
            "facts": self.facts,
            "must_mention": self.must_mention,
            "secrets": self.secrets,
        }
        (out / "case.yaml").write_text(yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=110))
        for name, text in self.files.items():
            path = out / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text if text.endswith("\n") else text + "\n")


# --------------------------------------------------------------------------------------------------
# small utilities


def block(text: str) -> str:
    """Dedent a triple-quoted block and drop its first newline."""
    return textwrap.dedent(text).lstrip("\n")


def prefix(lines: str, pre: str) -> str:
    """Prefix every line (as torchrun --tee, srun -l or torch>=2.3 [rankN]: do)."""
    return "\n".join(pre + ln for ln in lines.rstrip("\n").split("\n")) + "\n"


def hexaddr(rng: random.Random, base: int = 0x7F00_0000_0000) -> str:
    return hex(base + rng.randrange(0x10_0000_0000, 0xFF_FFFF_FFFF) & ~0xF | rng.randrange(16))


class Clock:
    """A monotonically advancing wall clock for one log."""

    def __init__(self, start: datetime, rng: random.Random):
        self.t = start
        self.rng = rng

    def tick(self, lo: float = 0.001, hi: float = 0.05) -> datetime:
        self.t += timedelta(seconds=self.rng.uniform(lo, hi))
        return self.t

    def ds(self, lo: float = 0.001, hi: float = 0.05) -> str:
        """DeepSpeed / python logging style: 2024-03-14 09:12:01,233"""
        t = self.tick(lo, hi)
        return t.strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"

    def glog(self, level: str = "I", lo: float = 0.001, hi: float = 0.05, nanos: bool = False) -> str:
        """c10 / glog style: I1130 14:02:11.482913 (torch>=2.4 prints nanoseconds)"""
        t = self.tick(lo, hi)
        frac = f"{t.microsecond:06d}" + (f"{self.rng.randrange(1000):03d}" if nanos else "")
        return f"{level}{t.strftime('%m%d %H:%M:%S')}.{frac}"

    def hf(self, lo: float = 0.001, hi: float = 0.05) -> str:
        """transformers logging: 11/30/2024 14:02:11"""
        return self.tick(lo, hi).strftime("%m/%d/%Y %H:%M:%S")


# --------------------------------------------------------------------------------------------------
# CUDA error texts as PyTorch prints them


def cuda_error(msg: str, torch_version: str, exc: str = "RuntimeError") -> str:
    """The RuntimeError text of c10_cuda_check_implementation for a given torch version."""
    major_minor = tuple(int(x) for x in torch_version.split(".")[:2])
    if major_minor < (2, 0):
        return (
            f"{exc}: CUDA error: {msg}\n"
            "CUDA kernel errors might be asynchronously reported at some other API call,so the stacktrace "
            "below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n"
        )
    return (
        f"{exc}: CUDA error: {msg}\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace "
        "below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n"
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n\n"
    )


def c10_frames(rng: random.Random, site_packages: str, kind: str = "watchdog", check_line: int = 43) -> str:
    """C++ frame list printed under a c10::Error / DistBackendError."""
    lib = f"{site_packages}/torch/lib"
    base_c10 = int(hexaddr(rng), 16) & ~0xFFFFF
    base_tc = base_c10 + 0x1_000_0000
    base_std = base_c10 + 0x4A00_0000
    base_libc = base_c10 + 0x4D00_0000
    lines = [
        f"Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:{check_line} "
        "(most recent call first):",
        f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 ({hex(base_c10 + 0x96D87)} in {lib}/libc10.so)",
        f"frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 ({hex(base_c10 + 0x4775F)} in {lib}/libc10.so)",
        f"frame #2: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 ({hex(base_c10 + 0x1A08A8 - 0x100000)} in {lib}/libc10_cuda.so)",
    ]
    if kind == "watchdog":
        lines += [
            f"frame #3: c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56 ({hex(base_tc + 0x10179E6)} in {lib}/libtorch_cuda.so)",
            f"frame #4: c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0x58 ({hex(base_tc + 0x101BB68)} in {lib}/libtorch_cuda.so)",
            f"frame #5: c10d::ProcessGroupNCCL::watchdogHandler() + 0x1d0 ({hex(base_tc + 0x10221D0)} in {lib}/libtorch_cuda.so)",
            f"frame #6: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c ({hex(base_tc + 0x10230EC)} in {lib}/libtorch_cuda.so)",
            f"frame #7: <unknown function> + 0xdc253 ({hex(base_std + 0xDC253)} in /lib/x86_64-linux-gnu/libstdc++.so.6)",
            f"frame #8: <unknown function> + 0x94ac3 ({hex(base_libc + 0x94AC3)} in /lib/x86_64-linux-gnu/libc.so.6)",
            f"frame #9: <unknown function> + 0x126850 ({hex(base_libc + 0x126850)} in /lib/x86_64-linux-gnu/libc.so.6)",
        ]
    else:  # allocator / event teardown
        lines += [
            f"frame #3: <unknown function> + 0x1e9c7 ({hex(base_c10 + 0x11E9C7)} in {lib}/libc10_cuda.so)",
            f"frame #4: <unknown function> + 0x4c6f46 ({hex(base_tc + 0x4C6F46)} in {lib}/libtorch_python.so)",
            f"frame #5: c10::TensorImpl::~TensorImpl() + 0x1e4 ({hex(base_c10 + 0x3E5A4)} in {lib}/libc10.so)",
            f"frame #6: <unknown function> + 0x4a3f01 ({hex(base_tc + 0x4A3F01)} in {lib}/libtorch_python.so)",
            f"frame #7: <unknown function> + 0x15c0ae (0x55d2c8e5c0ae in /usr/bin/python3)",
            f"frame #8: Py_FinalizeEx + 0x143 (0x55d2c8f1d8e3 in /usr/bin/python3)",
            f"frame #9: Py_RunMain + 0x1a5 (0x55d2c8f0ff45 in /usr/bin/python3)",
            f"frame #10: Py_BytesMain + 0x2d (0x55d2c8ee6a4d in /usr/bin/python3)",
            f"frame #11: <unknown function> + 0x29d90 ({hex(base_libc + 0x29D90)} in /lib/x86_64-linux-gnu/libc.so.6)",
            f"frame #12: __libc_start_main + 0x80 ({hex(base_libc + 0x29E40)} in /lib/x86_64-linux-gnu/libc.so.6)",
        ]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------------
# nvidia-smi


@dataclass
class Gpu:
    name: str  # full name as nvidia-smi prints it, e.g. "NVIDIA H100 80GB HBM3"
    bus: str
    mem_total_mib: int
    power_cap: int
    mem_used_mib: int = 4
    temp: int = 31
    power: int = 70
    util: int = 0
    persistence: str = "On"
    disp: str = "Off"
    ecc: str = "0"
    fan: str = "N/A"
    perf: str = "P0"


def nvidia_smi(when: datetime, driver: str, cuda: str, gpus: list[Gpu], procs: list[tuple[int, int, str, int]] | None = None, style: str | None = None, proc_type: str = "C") -> str:
    """Render the default `nvidia-smi` table; procs are (gpu, pid, name, MiB). Layout follows the driver branch."""
    branch = int(driver.split(".")[0])
    style = style or ("old" if branch < 525 else "mid" if branch < 550 else "new")
    out = [when.strftime("%a %b %d %H:%M:%S %Y") + "       "]
    if style == "old":
        w1, w2 = 31, 22
        width = 79
        out += [
            "+" + "-" * (width - 2) + "+",
            f"| NVIDIA-SMI {driver:<12} Driver Version: {driver:<12} CUDA Version: {cuda:<9}|",
            "|" + "-" * w1 + "+" + "-" * w2 + "+" + "-" * 22 + "+",
            "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
            "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |",
            "|                               |                      |               MIG M. |",
            "|" + "=" * w1 + "+" + "=" * w2 + "+" + "=" * 22 + "|",
        ]
        sep = "+" + "-" * w1 + "+" + "-" * w2 + "+" + "-" * 22 + "+"
        for i, g in enumerate(gpus):
            name = g.name if len(g.name) <= 18 else g.name[:15] + "..."
            out.append(f"|{f'   {i}  {name:<18}  {g.persistence:<5}':<{w1}}| {g.bus} {g.disp:>3} |{g.ecc:>21} |")
            pw = f"{g.power}W / {g.power_cap}W"
            out.append(f"| {g.fan:>3}   {g.temp:>2}C    {g.perf}{pw:>14} |{f'{g.mem_used_mib}MiB / {g.mem_total_mib}MiB':>21} |{g.util:>7}%      Default |")
            out.append(f"|{'':<{w1}}|{'':<{w2}}|{'N/A' if 'A100' not in g.name and 'H100' not in g.name else 'Disabled':>21} |")
            out.append(sep)
    else:
        w1 = 41
        w2 = 24 if style == "new" else 22
        width = w1 + w2 + 22 + 4
        head = f"| NVIDIA-SMI {driver}".ljust(34 if style == "new" else 35) + f"Driver Version: {driver}".ljust(31 if style == "new" else 29) + f"CUDA Version: {cuda}"
        out += [
            "+" + "-" * (width - 2) + "+",
            head.ljust(width - 1) + "|",
            "|" + "-" * w1 + "+" + "-" * w2 + "+" + "-" * 22 + "+",
            "| GPU  Name                 Persistence-M |" + " Bus-Id".ljust(w2 - 7) + "Disp.A | Volatile Uncorr. ECC |",
            "| Fan  Temp   Perf          Pwr:Usage/Cap |" + "Memory-Usage".rjust(w2 - 1) + " | GPU-Util  Compute M. |",
            "|" + " " * w1 + "|" + " " * w2 + "|               MIG M. |",
            "|" + "=" * w1 + "+" + "=" * w2 + "+" + "=" * 22 + "|",
        ]
        sep = "+" + "-" * w1 + "+" + "-" * w2 + "+" + "-" * 22 + "+"
        for i, g in enumerate(gpus):
            name = g.name if len(g.name) <= 29 else g.name[:26] + "..."
            out.append(f"|   {i}  {name:<29}{g.persistence:>4}  |" + f"{g.bus} {g.disp:>3} ".rjust(w2) + f"|{g.ecc:>21} |")
            if style == "new":
                pw = f"{g.power}W / {g.power_cap:>4}W"
                mem = f"{g.mem_used_mib}MiB / {g.mem_total_mib:>6}MiB"
            else:
                pw = f"{g.power}W / {g.power_cap}W"
                mem = f"{g.mem_used_mib}MiB / {g.mem_total_mib}MiB"
            out.append(f"| {g.fan:>3}   {g.temp:>2}C    {g.perf}{pw:>24} |" + f"{mem} ".rjust(w2) + f"|{g.util:>7}%      Default |")
            out.append("|" + " " * w1 + "|" + " " * w2 + f"|{'Disabled' if g.ecc != 'N/A' else 'N/A':>21} |")
            out.append(sep)
    out.append("")
    bar = "+" + "-" * (width - 2) + "+"
    out += [
        bar,
        "| Processes:".ljust(width - 1) + "|",
        "|  GPU   GI   CI        PID   Type   Process name".ljust(width - 12) + "GPU Memory |",
        "|        ID   ID".ljust(width - 12) + "Usage      |",
        "|" + "=" * (width - 2) + "|",
    ]
    if not procs:
        out.append("|  No running processes found".ljust(width - 1) + "|")
    else:
        for gpu, pid, pname, mib in procs:
            ptype = "G" if pname.startswith(("/usr/lib/xorg", "/usr/bin/gnome")) else proc_type
            left = f"|  {gpu:>3}   N/A  N/A  {pid:>9}      {ptype}   {pname}"
            out.append(left.ljust(width - 12) + f"{mib:>6}MiB |")
    out.append(bar)
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------------
# python -m torch.utils.collect_env


def collect_env(torch_v: str, cuda: str | None, gpus: list[str], driver: str | None, py: str = "3.10.12",
                os_name: str = "Ubuntu 22.04.3 LTS (x86_64)", gcc: str = "(Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0",
                glibc: str = "2.35", kernel: str = "5.15.0-105-generic", cudnn: str | None = None,
                cpu: str = "Intel(R) Xeon(R) Platinum 8480+", libs: list[str] | None = None,
                cuda_available: bool = True) -> str:
    lines = [
        "Collecting environment information...",
        f"PyTorch version: {torch_v}",
        "Is debug build: False",
        f"CUDA used to build PyTorch: {cuda or 'None'}",
        "ROCM used to build PyTorch: N/A",
        "",
        f"OS: {os_name}",
        f"GCC version: {gcc}",
        "Clang version: Could not collect",
        "CMake version: version 3.27.9",
        f"Libc version: glibc-{glibc}",
        "",
        f"Python version: {py} (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)",
        f"Python platform: Linux-{kernel}-x86_64-with-glibc{glibc}",
        f"Is CUDA available: {cuda_available}",
        f"CUDA runtime version: {cuda + '.105' if cuda else 'No CUDA'}",
        "CUDA_MODULE_LOADING set to: " + ("LAZY" if cuda and cuda_available else "N/A"),
    ]
    if gpus:
        lines.append("GPU models and configuration: ")
        lines += [f"GPU {i}: {g}" for i, g in enumerate(gpus)]
        lines.append("")
    else:
        lines.append("GPU models and configuration: " + ("Could not collect" if cuda else "No CUDA"))
    lines.append(f"Nvidia driver version: {driver or ('Could not collect' if cuda else 'No CUDA')}")
    if cudnn:
        lines += ["cuDNN version: Probably one of the following:"] + [
            f"/usr/lib/x86_64-linux-gnu/libcudnn{s}.so.{cudnn}" for s in ("", "_adv_infer", "_adv_train", "_cnn_infer", "_cnn_train", "_ops_infer", "_ops_train")
        ]
    else:
        lines.append("cuDNN version: " + ("Could not collect" if cuda else "No CUDA"))
    lines += [
        "HIP runtime version: N/A",
        "MIOpen runtime version: N/A",
        "Is XNNPACK available: True",
        "",
        "CPU:",
        "Architecture:                       x86_64",
        "CPU op-mode(s):                     32-bit, 64-bit",
        "Address sizes:                      52 bits physical, 57 bits virtual",
        "Byte Order:                         Little Endian",
        "CPU(s):                             224",
        "On-line CPU(s) list:                0-223",
        "Vendor ID:                          GenuineIntel",
        f"Model name:                         {cpu}",
        "Thread(s) per core:                 2",
        "Core(s) per socket:                 56",
        "Socket(s):                          2",
        "",
        "Versions of relevant libraries:",
    ]
    lines += [f"[pip3] {x}" for x in (libs or [])]
    lines.append("[conda] Could not collect")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------------
# DeepSpeed


def ds_report(torch_v: str, cuda: str, ds_v: str, nvcc: str, site: str, shm: str = "1007.78 GB") -> str:
    ops = [
        ("async_io", "[NO] ....... [OKAY]"), ("fused_adam", "[NO] ....... [OKAY]"), ("cpu_adam", "[NO] ....... [OKAY]"),
        ("cpu_adagrad", "[NO] ....... [OKAY]"), ("cpu_lion", "[NO] ....... [OKAY]"),
    ]
    tail_ops = [
        ("fused_lamb", "[NO] ....... [OKAY]"), ("fused_lion", "[NO] ....... [OKAY]"),
        ("inference_core_ops", "[NO] ....... [OKAY]"), ("cutlass_ops", "[NO] ....... [OKAY]"),
        ("quantizer", "[NO] ....... [OKAY]"), ("ragged_device_ops", "[NO] ....... [OKAY]"),
        ("ragged_ops", "[NO] ....... [OKAY]"), ("random_ltd", "[NO] ....... [OKAY]"),
    ]
    lines = [
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
    lines += [f"{n} {'.' * (22 - len(n))} {s}" for n, s in ops]
    lines += [" [WARNING]  Please specify the CUTLASS repo directory as environment variable $CUTLASS_PATH",
              "evoformer_attn ......... [NO] ....... [NO]"]
    lines += [f"{n} {'.' * (22 - len(n))} {s}" for n, s in tail_ops]
    tv = ".".join(torch_v.split("+")[0].split(".")[:2])
    lines += [
        f" [WARNING]  sparse_attn requires a torch version >= 1.5 and < 2.0 but detected {tv}",
        " [WARNING]  using untested triton version (" + {"2.1": "2.1.0", "2.2": "2.2.0", "2.3": "2.3.1", "2.4": "3.0.0", "2.5": "3.1.0", "2.0": "2.0.0"}.get(tv, "2.1.0") + "), only 1.0.0 is known to be compatible",
        "sparse_attn ............ [NO] ....... [NO]",
        "spatial_inference ...... [NO] ....... [OKAY]",
        "transformer ............ [NO] ....... [OKAY]",
        "stochastic_transformer . [NO] ....... [OKAY]",
        "transformer_inference .. [NO] ....... [OKAY]",
        "--------------------------------------------------",
        "DeepSpeed general environment info:",
        f"torch install path ............... ['{site}/torch']",
        f"torch version .................... {torch_v}",
        f"deepspeed install path ........... ['{site}/deepspeed']",
        f"deepspeed info ................... {ds_v}, unknown, unknown",
        f"torch cuda version ............... {cuda}",
        "torch hip version ................ None",
        f"nvcc version ..................... {nvcc}",
        f"deepspeed wheel compiled w. ...... torch {tv}, cuda {cuda}",
        f"shared memory (/dev/shm) size .... {shm}",
    ]
    return "\n".join(lines) + "\n"


def ds_launcher_head(clk: Clock, nprocs: int, script_args: list[str], python: str = "/usr/bin/python3",
                     nccl: str | None = None, pids: list[int] | None = None, port: int = 29500) -> str:
    world = base64.b64encode(json.dumps({"localhost": list(range(nprocs))}).encode()).decode()
    ranks = list(range(nprocs))
    cvd = ",".join(str(r) for r in ranks)
    lines = [
        f"[{clk.ds()}] [INFO] [real_accelerator.py:191:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
        f"[{clk.ds(1.5, 2.5)}] [WARNING] [runner.py:202:fetch_hostfile] Unable to find hostfile, will proceed with training with local resources only.",
        f"[{clk.ds()}] [INFO] [runner.py:568:main] cmd = {python} -u -m deepspeed.launcher.launch --world_info={world} "
        f"--master_addr=127.0.0.1 --master_port={port} --enable_each_rank_log=None {' '.join(script_args)}",
        f"[{clk.ds(1.0, 2.0)}] [INFO] [real_accelerator.py:191:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
    ]
    if nccl:  # the launcher echoes NCCL_* variables present in the environment (NGC images set NCCL_VERSION)
        lines.append(f"[{clk.ds(1.0, 2.0)}] [INFO] [launch.py:138:main] 0 NCCL_VERSION={nccl}")
    lines += [
        f"[{clk.ds()}] [INFO] [launch.py:145:main] WORLD INFO DICT: {{'localhost': {ranks}}}",
        f"[{clk.ds()}] [INFO] [launch.py:151:main] nnodes=1, num_local_procs={nprocs}, node_rank=0",
        f"[{clk.ds()}] [INFO] [launch.py:162:main] global_rank_mapping=defaultdict(<class 'list'>, {{'localhost': {ranks}}})",
        f"[{clk.ds()}] [INFO] [launch.py:163:main] dist_world_size={nprocs}",
        f"[{clk.ds()}] [INFO] [launch.py:165:main] Setting CUDA_VISIBLE_DEVICES={cvd}",
    ]
    for r in ranks:
        pid = pids[r] if pids else 40000 + r
        argv = ", ".join(repr(a) for a in [python, "-u", script_args[0], f"--local_rank={r}", *script_args[1:]])
        lines.append(f"[{clk.ds()}] [INFO] [launch.py:253:main] process {pid} spawned with command: [{argv}]")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------------
# torchrun


def torchrun_omp_banner(clk: Clock, agent_pid: int, new_style: bool = True) -> str:
    if new_style:
        t = clk.glog("W", nanos=True)
        head = f"{t} {agent_pid} torch/distributed/run.py:779] "
        return "\n".join([
            head,
            head + "*****************************************",
            head + "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
            head + "*****************************************",
        ]) + "\n"
    return block("""
        WARNING:torch.distributed.run:
        *****************************************
        Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. 
        *****************************************
        """)


def child_failed(script: str, when: datetime, host: str, failures: list[tuple[int, int, int, int, str | None]], root: tuple[int, int, int, int, str | None], site: str, python_bin: str = "/usr/bin/python", torchrun_bin: str = "/usr/local/bin/torchrun", api: tuple[int, int, int] = (196, 263, 347), run_line: tuple[int, int] = (812, 803)) -> str:
    """torchrun's ChildFailedError block; failures are (rank, local_rank, exitcode, pid, signame)."""

    def entry(i: int, f: tuple[int, int, int, int, str | None]) -> list[str]:
        rank, local, code, pid, sig = f
        tb = f"Signal {-code} ({sig}) received by PID {pid}" if sig else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
        code_s = f"{code} (pid: {pid})" + ("" if sig else " ")
        return [
            f"[{i}]:",
            f"  time      : {when.strftime('%Y-%m-%d_%H:%M:%S')}",
            f"  host      : {host}",
            f"  rank      : {rank} (local_rank: {local})",
            f"  exitcode  : {code_s}",
            "  error_file: <N/A>",
            f"  traceback : {tb}",
        ]

    lines = [
        "Traceback (most recent call last):",
        f'  File "{torchrun_bin}", line 8, in <module>',
        "    sys.exit(main())",
        f'  File "{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line {api[2]}, in wrapper',
        "    return f(*args, **kwargs)",
        f'  File "{site}/torch/distributed/run.py", line {run_line[0]}, in main',
        "    run(args)",
        f'  File "{site}/torch/distributed/run.py", line {run_line[1]}, in run',
        "    elastic_launch(",
        f'  File "{site}/torch/distributed/launcher/api.py", line {api[0]}, in __call__',
        "    return launch_agent(self._config, self._entrypoint, list(args))",
        f'  File "{site}/torch/distributed/launcher/api.py", line {api[1]}, in launch_agent',
        "    raise ChildFailedError(",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        f"{script} FAILED",
        "------------------------------------------------------------",
        "Failures:",
    ]
    if failures:
        for i, f in enumerate(failures, start=1):
            lines += entry(i, f)
    else:
        lines.append("  <NO_OTHER_FAILURES>")
    lines += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
    lines += entry(0, root)
    lines.append("============================================================")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------------
# NCCL INFO noise


def nccl_init(rank: int, host: str, pid: int, nranks: int, version: str, cuda: str, rng: random.Random,
              ib: bool = False, pre: str = "", local: int | None = None, busid: str | None = None) -> str:
    local = rank if local is None else local
    tag = f"{host}:{pid}:{pid}"
    lines = []
    if rank == 0:
        lines.append(f"{tag} [{local}] NCCL INFO Bootstrap : Using {'ibp12s0' if ib else 'eth0'}:10.{rng.randrange(1, 50)}.{rng.randrange(256)}.{rng.randrange(2, 250)}<0>")
        lines.append(f"{tag} [{local}] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation")
        lines.append(f"{tag} [{local}] NCCL INFO cudaDriverVersion {rng.choice(['12020', '12040', '12030'])}")
        lines.append(f"NCCL version {version}+cuda{cuda}")
    if ib:
        lines.append(f"{tag} [{local}] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_4:1/IB [3]mlx5_5:1/IB [RO]; OOB ibp12s0:10.12.4.{rng.randrange(10, 40)}<0>")
        lines.append(f"{tag} [{local}] NCCL INFO Using network IB")
    else:
        lines.append(f"{tag} [{local}] NCCL INFO NET/Socket : Using [0]eth0:172.31.{rng.randrange(256)}.{rng.randrange(2, 250)}<0>")
        lines.append(f"{tag} [{local}] NCCL INFO Using network Socket")
    bus = busid or f"{0x18 + 0x20 * local:x}000"
    lines.append(f"{tag} [{local}] NCCL INFO comm 0x{rng.randrange(0x55d000000000, 0x55dfffffffff):x} rank {rank} nranks {nranks} cudaDev {local} nvmlDev {local} busId {bus} commId 0x{rng.randrange(1 << 63):x} - Init START")
    lines.append(f"{tag} [{local}] NCCL INFO Setting affinity for GPU {local} to ffffffff,ffffffff,00000000,00000000")
    lines.append(f"{tag} [{local}] NCCL INFO comm 0x{rng.randrange(0x55d000000000, 0x55dfffffffff):x} rank {rank} nranks {nranks} cudaDev {local} nvmlDev {local} busId {bus} commId 0x{rng.randrange(1 << 63):x} - Init COMPLETE")
    return prefix("\n".join(lines), pre) if pre else "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------------
# HF Trainer / progress


def tqdm_line(done: int, total: int, elapsed_s: float, rate: float, width: int = 10, unit_is_s_per_it: bool = True) -> str:
    pct = int(100 * done / total)
    filled = int(width * done / total)
    bar = "█" * filled + (" " * (width - filled))
    el = f"{int(elapsed_s // 3600):02d}:{int(elapsed_s % 3600 // 60):02d}:{int(elapsed_s % 60):02d}" if elapsed_s >= 3600 else f"{int(elapsed_s // 60):02d}:{int(elapsed_s % 60):02d}"
    remain = (total - done) * (rate if unit_is_s_per_it else 1 / rate)
    rem = f"{int(remain // 3600):d}:{int(remain % 3600 // 60):02d}:{int(remain % 60):02d}" if remain >= 3600 else f"{int(remain // 60):02d}:{int(remain % 60):02d}"
    speed = f"{rate:.2f}s/it" if unit_is_s_per_it else f"{rate:.2f}it/s"
    return f"{pct:>3}%|{bar}| {done}/{total} [{el}<{rem}, {speed}]"


def hf_args_dump(args: dict[str, object]) -> str:
    """The `TrainingArguments(...)` block printed by the HF Trainer at start."""
    lines = ["TrainingArguments("]
    for k in sorted(args):
        lines.append(f"{k}={args[k]},")
    lines.append(")")
    return "\n".join(lines) + "\n"


HF_DEFAULT_ARGS: dict[str, object] = {
    "_n_gpu": 1, "adafactor": False, "adam_beta1": 0.9, "adam_beta2": 0.999, "adam_epsilon": "1e-08",
    "auto_find_batch_size": False, "bf16": False, "bf16_full_eval": False, "data_seed": None,
    "dataloader_drop_last": False, "dataloader_num_workers": 0, "dataloader_pin_memory": True,
    "ddp_backend": None, "ddp_find_unused_parameters": None, "ddp_timeout": 1800, "debug": [],
    "deepspeed": None, "disable_tqdm": False, "do_eval": True, "do_predict": False, "do_train": True,
    "eval_accumulation_steps": None, "eval_steps": 500, "evaluation_strategy": "steps", "fp16": False,
    "fp16_opt_level": "O1", "gradient_accumulation_steps": 1, "gradient_checkpointing": False,
    "greater_is_better": None, "group_by_length": False, "hub_model_id": None, "hub_strategy": "every_save",
    "learning_rate": 2e-05, "length_column_name": "length", "load_best_model_at_end": False,
    "local_rank": 0, "log_level": "passive", "logging_first_step": False, "logging_nan_inf_filter": True,
    "logging_steps": 10, "logging_strategy": "steps", "lr_scheduler_type": "linear", "max_grad_norm": 1.0,
    "max_steps": -1, "num_train_epochs": 3.0, "optim": "adamw_torch", "per_device_eval_batch_size": 8,
    "per_device_train_batch_size": 8, "report_to": ["tensorboard"], "save_steps": 500,
    "save_strategy": "steps", "save_total_limit": None, "seed": 42, "tf32": None, "torch_compile": False,
    "warmup_ratio": 0.0, "warmup_steps": 0, "weight_decay": 0.0,
}


def rand_token(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
UPPER_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
HEX = "0123456789abcdef"


def fake_hf_token(rng: random.Random) -> str:
    return "hf_" + rand_token(rng, ALNUM, 34)


def fake_wandb_key(rng: random.Random) -> str:
    return rand_token(rng, HEX, 40)


def fake_aws(rng: random.Random) -> tuple[str, str]:
    return "AKIA" + rand_token(rng, UPPER_ALNUM, 16), rand_token(rng, ALNUM + "+/", 40)


def fake_ghp(rng: random.Random) -> str:
    return "ghp_" + rand_token(rng, ALNUM, 36)


# ==================================================================================================
# cuda-illegal-memory-access

SITE310 = "/usr/local/lib/python3.10/dist-packages"


def ima_flashattn_varlen() -> Case:
    rng = random.Random(101)
    clk = Clock(datetime(2024, 1, 18, 10, 2, 11), rng)
    site = SITE310
    out = []
    out.append("$ python sft_packed.py --model /data/models/mistral-7b-v0.1 --data /data/sft/mix_v3.jsonl --pack --max_len 4096 --bsz 2 --lr 1e-5 --bf16 --grad_ckpt")
    out.append(f"[{clk.ds()}] sft INFO: torch 2.1.2+cu121 | cuda 12.1 | device NVIDIA A100-SXM4-80GB (79.15 GiB) | flash_attn 2.3.6 | transformers 4.36.2")
    out.append(f"[{clk.ds()}] sft INFO: loading tokenizer from /data/models/mistral-7b-v0.1")
    out.append(f"[{clk.ds(0.3, 0.6)}] sft INFO: reading /data/sft/mix_v3.jsonl")
    out.append(f"[{clk.ds(4, 6)}] sft INFO: 48211 samples, 171.4M tokens after chat template")
    out.append(f"[{clk.ds(8, 12)}] packer WARNING: 17 samples exceed max_len=4096 and were truncated to fit")
    out.append(f"[{clk.ds(0.2, 0.4)}] sft INFO: packed 48211 samples -> 42107 sequences of <= 4096 tokens (mean fill 0.994)")
    out.append(f"[{clk.ds()}] sft INFO: attention: flash_attn_varlen_func over packed rows (cu_seqlens from packer, no padding)")
    out.append("Loading checkpoint shards:   0%|          | 0/2 [00:00<?, ?it/s]")
    out.append("Loading checkpoint shards:  50%|█████     | 1/2 [00:03<00:03,  3.41s/it]")
    out.append("Loading checkpoint shards: 100%|██████████| 2/2 [00:05<00:00,  2.62s/it]")
    out.append("Loading checkpoint shards: 100%|██████████| 2/2 [00:05<00:00,  2.74s/it]")
    clk.tick(6, 7)
    out.append(f"[{clk.ds(1, 2)}] sft INFO: model loaded: 7.24B params, dtype=torch.bfloat16, patched 32 attention layers with PackedFlashAttention")
    out.append(f"[{clk.ds()}] sft INFO: gradient checkpointing on, optimizer AdamW(fused=True) lr=1e-05 wd=0.0, 21053 steps/epoch")
    out.append(f"{site}/torch/utils/checkpoint.py:429: UserWarning: torch.utils.checkpoint: please pass in use_reentrant=True or use_reentrant=False explicitly. The default value of use_reentrant will be updated to be False in the future. To maintain current behavior, pass use_reentrant=True. It is recommended that you use use_reentrant=False. Refer to docs for more details on the differences between the two variants.")
    out.append("  warnings.warn(")
    loss = 1.71
    for step in range(10, 321, 10):
        loss = max(0.9, loss - rng.uniform(0.0, 0.03) + rng.uniform(-0.02, 0.02))
        lr = min(1e-5, 1e-5 * step / 200)
        out.append(f"[{clk.ds(9.5, 10.5)}] sft INFO: step {step:>5} | loss {loss:.4f} | lr {lr:.2e} | grad_norm {rng.uniform(0.6, 1.9):.3f} | tok/s {rng.randrange(7900, 8300)} | mem {rng.uniform(61.0, 61.6):.1f}G")
    clk.tick(3, 4)
    tb = block(f"""
        Traceback (most recent call last):
          File "/workspace/sft/sft_packed.py", line 263, in <module>
            main()
          File "/workspace/sft/sft_packed.py", line 231, in main
            out = model(input_ids=batch["input_ids"], position_ids=batch["position_ids"],
          File "{site}/torch/nn/modules/module.py", line 1518, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{site}/torch/nn/modules/module.py", line 1527, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site}/transformers/models/mistral/modeling_mistral.py", line 1157, in forward
            outputs = self.model(
          File "{site}/torch/nn/modules/module.py", line 1518, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{site}/torch/nn/modules/module.py", line 1527, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site}/transformers/models/mistral/modeling_mistral.py", line 1031, in forward
            layer_outputs = self._gradient_checkpointing_func(
          File "{site}/torch/_compile.py", line 24, in inner
            return torch._dynamo.disable(fn, recursive)(*args, **kwargs)
          File "{site}/torch/_dynamo/eval_frame.py", line 328, in _fn
            return fn(*args, **kwargs)
          File "{site}/torch/_dynamo/external_utils.py", line 17, in inner
            return fn(*args, **kwargs)
          File "{site}/torch/utils/checkpoint.py", line 451, in checkpoint
            return CheckpointFunction.apply(function, preserve, *args)
          File "{site}/torch/autograd/function.py", line 539, in apply
            return super().apply(*args, **kwargs)  # type: ignore[misc]
          File "{site}/torch/utils/checkpoint.py", line 230, in forward
            outputs = run_function(*args)
          File "{site}/torch/nn/modules/module.py", line 1518, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{site}/torch/nn/modules/module.py", line 1527, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site}/transformers/models/mistral/modeling_mistral.py", line 752, in forward
            hidden_states, self_attn_weights, present_key_value = self.self_attn(
          File "{site}/torch/nn/modules/module.py", line 1518, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{site}/torch/nn/modules/module.py", line 1527, in _call_impl
            return forward_call(*args, **kwargs)
          File "/workspace/sft/packed_attn.py", line 96, in forward
            attn = flash_attn_varlen_func(
          File "{site}/flash_attn/flash_attn_interface.py", line 1059, in flash_attn_varlen_func
            return FlashAttnVarlenFunc.apply(
          File "{site}/torch/autograd/function.py", line 539, in apply
            return super().apply(*args, **kwargs)  # type: ignore[misc]
          File "{site}/flash_attn/flash_attn_interface.py", line 576, in forward
            out, q, k, v, out_padded, softmax_lse, S_dmask, rng_state = _flash_attn_varlen_forward(
          File "{site}/flash_attn/flash_attn_interface.py", line 85, in _flash_attn_varlen_forward
            out, q, k, v, out_padded, softmax_lse, S_dmask, rng_state = flash_attn_cuda.varlen_fwd(
        """)
    out.append(tb.rstrip("\n"))
    out.append(cuda_error("an illegal memory access was encountered", "2.1.2").rstrip("\n"))
    return Case(
        case_id="cuda-illegal-memory-access-flashattn-varlen-01",
        label="cuda-illegal-memory-access",
        difficulty="easy",
        description="Single-GPU packed SFT with flash_attn_varlen_func; after 320 good steps an illegal memory access is reported at the varlen kernel launch (packer truncates long samples, cu_seqlens no longer match).",
        initiating_rank=None,
        facts={"gpu_model": "A100-SXM4-80GB", "torch_version": "2.1.2", "cuda_version": "12.1", "flash_attn_version": "2.3.6",
               "transformers_version": "4.36.2", "launcher": "python", "failure_step": "320"},
        must_mention=["cu_seqlens", "CUDA_LAUNCH_BLOCKING"],
        files={"train.log": "\n".join(out)},
    )


def ima_triton_kernel() -> Case:
    rng = random.Random(102)
    clk = Clock(datetime(2024, 7, 2, 21, 47, 5), rng)
    site = "/opt/conda/lib/python3.10/site-packages"
    out = [
        "(lm) root@l40s-spot-3:/workspace/lm# accelerate launch train_lm.py --config configs/lm_410m.yaml",
        "The following values were not passed to `accelerate launch` and had defaults used instead:",
        "\t`--num_processes` was set to a value of `1`",
        "\t`--num_machines` was set to a value of `1`",
        "\t`--mixed_precision` was set to a value of `'no'`",
        "\t`--dynamo_backend` was set to a value of `'no'`",
        "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`.",
        f"{clk.ds(2, 3)} | INFO | train_lm | torch 2.3.1+cu121, triton 2.3.1, accelerate 0.31.0, GPU 0: NVIDIA L40S (44.52 GiB)",
        f"{clk.ds()} | INFO | train_lm | config: d_model=1024 n_layers=24 n_heads=16 vocab_size=50277 seq_len=2048 micro_bsz=16 grad_accum=4 precision=bf16",
        f"{clk.ds()} | INFO | train_lm | kernels: fused_rmsnorm=True fused_ce=True (kernels/fused_ce.py, BLOCK_V=4096) compile=True",
        f"{clk.ds(0.5, 1)} | INFO | train_lm | dataset: /data/tok/pile_dedup_neox, 1.83B tokens, 893,554 sequences",
        f"{clk.ds(2, 4)} | INFO | train_lm | model params: 405.3M (embedding 51.5M)",
        f"{site}/torch/_inductor/compile_fx.py:124: UserWarning: TensorFloat32 tensor cores for float32 matrix multiplication available but not enabled. Consider setting `torch.set_float32_matmul_precision('high')` for better performance.",
        "  warnings.warn(",
        f"{clk.ds(40, 60)} | INFO | train_lm | compiled model in 48.7s",
    ]
    loss = 10.9
    for step in range(0, 1401, 50):
        loss = loss * 0.93 + 3.2 * 0.07 + rng.uniform(-0.03, 0.03) if step else 10.93
        out.append(f"{clk.ds(55, 58) if step else clk.ds()} | INFO | train_lm | step {step:>6} | loss {loss:7.4f} | lr {min(6e-4, 6e-4 * step / 2000):.3e} | tok/s {rng.randrange(151000, 156000) if step else 0:>7} | mfu {rng.uniform(0.41, 0.43) if step else 0:.3f}")
        if step == 1000:
            out.append(f"{clk.ds(5, 8)} | INFO | train_lm | eval | val_loss {loss + 0.05:.4f} | ppl {2.718281828 ** (loss + 0.05):.2f}")
            out.append(f"{clk.ds(2, 3)} | INFO | train_lm | saved checkpoint to /ckpt/lm410m/step_1000")
    clk.tick(30, 40)
    tb = block(f"""
        Traceback (most recent call last):
          File "/workspace/lm/train_lm.py", line 214, in <module>
            main()
          File "/workspace/lm/train_lm.py", line 176, in main
            loss = fused_cross_entropy(logits.view(-1, cfg.vocab_size), labels.view(-1), ignore_index=-100)
          File "/workspace/lm/kernels/fused_ce.py", line 129, in fused_cross_entropy
            return _FusedCrossEntropy.apply(logits, labels, ignore_index)
          File "{site}/torch/autograd/function.py", line 598, in apply
            return super().apply(*args, **kwargs)  # type: ignore[misc]
          File "/workspace/lm/kernels/fused_ce.py", line 84, in forward
            _ce_fwd_kernel[(n_rows,)](
          File "{site}/triton/runtime/jit.py", line 167, in <lambda>
            return lambda *args, **kwargs: self.run(grid=grid, warmup=False, *args, **kwargs)
          File "{site}/triton/runtime/jit.py", line 425, in run
            kernel.run(grid_0, grid_1, grid_2, kernel.num_warps, kernel.num_ctas,  # number of warps/ctas per instance
          File "{site}/triton/backends/nvidia/driver.py", line 365, in __call__
            self.launch(*args, **kwargs)
        RuntimeError: Triton Error [CUDA]: an illegal memory access was encountered
        terminate called after throwing an instance of 'c10::Error'
          what():  CUDA error: an illegal memory access was encountered
        CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
        For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
        Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.

        """)
    out.append(tb.rstrip("\n"))
    out.append(c10_frames(rng, site, kind="teardown", check_line=43).rstrip("\n").replace("/usr/bin/python3", "/opt/conda/bin/python3.10"))
    out.append("")
    out.append(block(f"""
        Traceback (most recent call last):
          File "/opt/conda/bin/accelerate", line 8, in <module>
            sys.exit(main())
          File "{site}/accelerate/commands/accelerate_cli.py", line 48, in main
            args.func(args)
          File "{site}/accelerate/commands/launch.py", line 1097, in launch_command
            simple_launcher(args)
          File "{site}/accelerate/commands/launch.py", line 703, in simple_launcher
            raise subprocess.CalledProcessError(returncode=process.returncode, cmd=cmd)
        subprocess.CalledProcessError: Command '['/opt/conda/bin/python', 'train_lm.py', '--config', 'configs/lm_410m.yaml']' died with <Signals.SIGABRT: 6>.
        """).rstrip("\n"))
    return Case(
        case_id="cuda-illegal-memory-access-triton-fused-ce-02",
        label="cuda-illegal-memory-access",
        difficulty="medium",
        description="accelerate launch (1 process) on an L40S; a hand-written Triton fused cross-entropy kernel (vocab 50277 not a multiple of its block) faults at step ~1400; the log ends with a c10::Error abort and accelerate's CalledProcessError (SIGABRT).",
        initiating_rank=None,
        facts={"gpu_model": "L40S", "torch_version": "2.3.1", "accelerate_version": "0.31.0", "launcher": "accelerate",
               "precision": "bf16", "signal": "SIGABRT", "failure_step": "1400"},
        must_mention=["Triton", "fused_ce"],
        files={"train.log": "\n".join(out)},
    )


def ima_moe_multinode() -> Case:
    rng = random.Random(103)
    clk = Clock(datetime(2024, 11, 21, 12, 58, 40), rng)
    site = "/shared/envs/moe-py310/lib/python3.10/site-packages"
    user = "mkowalski"
    wandb_key = fake_wandb_key(rng)
    hf_tok = fake_hf_token(rng)
    nodes = ["hgx-a07", "hgx-a08"]
    out = [
        f"=== job 812345 (moe-8x1b-pt) on {','.join(nodes)} started {clk.t.strftime('%a %b %d %H:%M:%S UTC %Y')} ===",
        "--- selected environment ---",
    ]
    env = {
        "CUDA_DEVICE_MAX_CONNECTIONS": "1", "HF_HOME": f"/home/{user}/.cache/huggingface", "HF_TOKEN": hf_tok,
        "MASTER_ADDR": "hgx-a07", "MASTER_PORT": "29411", "NCCL_DEBUG": "WARN", "NCCL_IB_HCA": "mlx5_0,mlx5_3,mlx5_4,mlx5_5",
        "NCCL_SOCKET_IFNAME": "ibp12s0", "OMP_NUM_THREADS": "8", "PYTHONPATH": "/shared/proj/moe-pretrain",
        "SLURM_CPUS_PER_TASK": "96", "SLURM_GPUS_ON_NODE": "8", "SLURM_JOB_ID": "812345", "SLURM_JOB_NAME": "moe-8x1b-pt",
        "SLURM_JOB_NODELIST": "hgx-a[07-08]", "SLURM_JOB_USER": user, "SLURM_NNODES": "2", "SLURM_SUBMIT_DIR": f"/home/{user}/runs/moe-8x1b",
        "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1", "WANDB_API_KEY": wandb_key, "WANDB_PROJECT": "moe-pretrain",
    }
    out += [f"{k}={v}" for k, v in env.items()]
    out += [
        "--- nvidia-smi -L (hgx-a07) ---",
    ]
    out += [f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{rand_token(rng, HEX, 8)}-{rand_token(rng, HEX, 4)}-{rand_token(rng, HEX, 4)}-{rand_token(rng, HEX, 4)}-{rand_token(rng, HEX, 12)})" for i in range(8)]
    out.append("srun --ntasks-per-node=1 torchrun --nnodes 2 --nproc_per_node 8 --rdzv_backend c10d --rdzv_endpoint hgx-a07:29411 --rdzv_id 812345 train.py --config configs/moe_8x1b.yaml")
    for pid in (2211873, 1893320):
        out.append(torchrun_omp_banner(clk, pid).rstrip("\n"))
    for r in range(16):
        out.append(f"[rank{r}]: [{clk.ds()}] [train.py:61] rank {r}/16 local {r % 8} on {nodes[r // 8]} torch 2.4.0+cu124 nccl (2, 20, 5)")
    out.append(f"[rank0]: [{clk.ds(1, 2)}] [train.py:88] model: MoE 8x1B (top-2, capacity_factor 1.25), 6.94B params total, 1.87B active; expert parallel 8, data parallel 2")
    out.append(f"[rank0]: [{clk.ds()}] [train.py:97] moe kernels: moe_ops 0.3.1 (permute/unpermute CUDA extension), grouped_gemm 0.1.6")
    out.append(f"[rank0]: [{clk.ds(0.5, 1)}] [train.py:112] wandb: logging to project moe-pretrain, run moe-8x1b-pt-812345")
    out.append("[rank0]: wandb: Currently logged in as: mkowalski (lm-team). Use `wandb login --relogin` to force relogin")
    out.append(f"[rank0]: wandb: Run data is saved locally in /home/{user}/runs/moe-8x1b/wandb/run-20241121_125912-3k2x9v1q")
    for r in (3, 11):
        out.append(f"[rank{r}]:[W{clk.t.strftime('%m%d %H:%M:%S')}.{rng.randrange(10**9):09d} ProcessGroupNCCL.cpp:4070] [PG 0 Rank {r}]  using GPU {r % 8} to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id.")
    loss = 10.4
    step = 0
    for step in range(50, 1751, 50):
        loss = loss * 0.95 + 2.6 * 0.05 + rng.uniform(-0.02, 0.02)
        out.append(f"[rank0]: [{clk.ds(36, 39)}] [train.py:301] step {step:>5} | loss {loss:.4f} | aux {rng.uniform(0.010, 0.014):.4f} | drop {rng.uniform(0.002, 0.02):.3f} | lr {min(3e-4, 3e-4 * step / 1000):.2e} | tflops/gpu {rng.uniform(296, 309):.1f}")
        if step == 1000:
            out.append(f"[rank0]: [{clk.ds(20, 30)}] [ckpt.py:54] saved /shared/ckpt/moe-8x1b/step_1000 (dist checkpoint, 16 shards) in 23.4s")
    # rank 11 faults ~20s after step 1750
    clk.tick(18, 22)
    t0 = clk.t
    r = 11
    pre = f"[rank{r}]:"
    err_lines = cuda_error("an illegal memory access was encountered", "2.4.0").rstrip("\n").split("\n")
    wd = f"[PG 0 (default_pg) Rank {r}] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered"
    out.append(f"{pre}[E{t0.strftime('%m%d %H:%M:%S')}.{t0.microsecond:06d}{rng.randrange(1000):03d} ProcessGroupNCCL.cpp:1515] {wd}")
    for ln in err_lines[1:]:
        out.append(pre + ln)
    for ln in c10_frames(rng, site, "watchdog").rstrip("\n").split("\n"):
        out.append(pre + ln)
    out.append(pre)
    py = block(f"""
        Traceback (most recent call last):
          File "/shared/proj/moe-pretrain/train.py", line 402, in <module>
            main(cfg)
          File "/shared/proj/moe-pretrain/train.py", line 278, in main
            loss, aux = model(batch["input_ids"], batch["labels"])
          File "{site}/torch/nn/modules/module.py", line 1553, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{site}/torch/nn/modules/module.py", line 1562, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site}/torch/nn/parallel/distributed.py", line 1636, in forward
            else self._run_ddp_forward(*inputs, **kwargs)
          File "{site}/torch/nn/parallel/distributed.py", line 1454, in _run_ddp_forward
            return self.module(*inputs, **kwargs)  # type: ignore[index]
          File "{site}/torch/nn/modules/module.py", line 1553, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{site}/torch/nn/modules/module.py", line 1562, in _call_impl
            return forward_call(*args, **kwargs)
          File "/shared/proj/moe-pretrain/moe/model.py", line 211, in forward
            h, aux_l = blk(h)
          File "{site}/torch/nn/modules/module.py", line 1553, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{site}/torch/nn/modules/module.py", line 1562, in _call_impl
            return forward_call(*args, **kwargs)
          File "/shared/proj/moe-pretrain/moe/model.py", line 148, in forward
            moe_out, aux = self.moe(self.ln2(h))
          File "{site}/torch/nn/modules/module.py", line 1553, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{site}/torch/nn/modules/module.py", line 1562, in _call_impl
            return forward_call(*args, **kwargs)
          File "/shared/proj/moe-pretrain/moe/layer.py", line 139, in forward
            permuted, row_id_map = moe_ops.permute(x, expert_idx.to(torch.int32), self.num_local_experts * self.ep_size)
          File "{site}/moe_ops/ops.py", line 44, in permute
            return PermuteFunction.apply(tokens, indices, num_out_tokens)
          File "{site}/torch/autograd/function.py", line 574, in apply
            return super().apply(*args, **kwargs)  # type: ignore[misc]
          File "{site}/moe_ops/ops.py", line 27, in forward
            permuted, row_id_map, _ = moe_ops_C.permute(tokens, indices, num_out_tokens, ctx.workspace, max_expanded)
        """)
    for ln in py.rstrip("\n").split("\n"):
        out.append(f"{pre} {ln}")
    for ln in err_lines:
        out.append(f"{pre} {ln}")
    out.append(f"{pre}terminate called after throwing an instance of 'c10::DistBackendError'")
    out.append(f"{pre}  what():  {wd}")
    out.append(f"{pre}CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.")
    # node 1 agent tears down its ranks
    clk.t = t0 + timedelta(seconds=1.2)
    head = f"{clk.glog('W', nanos=True)} 1893320 torch/distributed/elastic/multiprocessing/api.py:858]"
    for pid in range(1893412, 1893420):
        if pid != 1893415:
            out.append(f"{head} Sending process {pid} closing signal SIGTERM")
    # node 0 ranks see the remote failure through NCCL
    clk.t = t0 + timedelta(seconds=3.6)
    for rr in (3, 0, 6, 1, 5, 2, 7, 4):
        t = clk.tick(0.001, 0.08)
        msg = (f"[PG 0 (default_pg) Rank {rr}] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.20.5")
        out.append(f"[rank{rr}]:[E{t.strftime('%m%d %H:%M:%S')}.{t.microsecond:06d}{rng.randrange(1000):03d} ProcessGroupNCCL.cpp:1515] {msg}")
        out.append(f"[rank{rr}]:ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
        out.append(f"[rank{rr}]:Last error:")
        out.append(f"[rank{rr}]:NET/IB : Got completion from peer 10.12.4.22<{rng.randrange(40000, 60000)}> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.12.4.21 remoteGids::ffff:10.12.4.22 hca mlx5_{rng.choice([0, 3, 4, 5])}")
        if rr == 3:
            out.append(f"[rank{rr}]:Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1944 (most recent call first):")
        out.append(f"[rank{rr}]:terminate called after throwing an instance of 'c10::DistBackendError'")
        out.append(f"[rank{rr}]:  what():  {msg}")
    # node1 agent summary
    t_fail = t0 + timedelta(seconds=1)
    out.append(f"{clk.glog('E', 0.2, 0.4, nanos=True)} 1893320 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: -6) local_rank: 3 (pid: 1893415) of binary: /shared/envs/moe-py310/bin/python")
    fails1 = [(rr, rr - 8, -15, 1893404 + rr, "SIGTERM") for rr in (8, 9, 10, 12, 13, 14, 15)]
    out.append(child_failed("train.py", t_fail, nodes[1], fails1, (11, 3, -6, 1893415, "SIGABRT"), site,
                            python_bin="/shared/envs/moe-py310/bin/python", torchrun_bin="/shared/envs/moe-py310/bin/torchrun",
                            api=(133, 264, 348), run_line=(901, 892)).rstrip("\n"))
    out.append(f"srun: error: {nodes[1]}: task 1: Exited with exit code 1")
    # node0 agent summary
    t_fail0 = clk.tick(0.5, 1.0)
    out.append(f"{clk.glog('E', 0.01, 0.02, nanos=True)} 2211873 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: -6) local_rank: 3 (pid: 2211960) of binary: /shared/envs/moe-py310/bin/python")
    fails0 = [(rr, rr, -6, 2211957 + rr, "SIGABRT") for rr in (0, 1, 2, 4, 5, 6, 7)]
    out.append(child_failed("train.py", t_fail0, nodes[0], fails0, (3, 3, -6, 2211960, "SIGABRT"), site,
                            python_bin="/shared/envs/moe-py310/bin/python", torchrun_bin="/shared/envs/moe-py310/bin/torchrun",
                            api=(133, 264, 348), run_line=(901, 892)).rstrip("\n"))
    out.append(f"srun: error: {nodes[0]}: task 0: Exited with exit code 1")
    return Case(
        case_id="cuda-illegal-memory-access-moe-multinode-03",
        label="cuda-illegal-memory-access",
        difficulty="hard",
        description="2-node x 8 H100 MoE pre-training under Slurm+torchrun; rank 11 hits an illegal memory access in a MoE permute CUDA extension, node 0's ranks then die with ncclRemoteError / NET/IB completion errors, and the tail is node 0's ChildFailedError naming rank 3.",
        initiating_rank=11,
        facts={"gpu_model": "H100 80GB HBM3", "torch_version": "2.4.0", "nccl_version": "2.20.5", "launcher": "torchrun",
               "world_size": "16", "num_nodes": "2", "signal": "SIGABRT", "failure_step": "1750"},
        must_mention=["illegal memory access", "rank 11"],
        secrets=[wandb_key, hf_tok, user],
        files={"slurm-812345.out": "\n".join(out)},
    )


def ima_side_stream_eval() -> Case:
    rng = random.Random(104)
    clk = Clock(datetime(2023, 9, 12, 16, 21, 3), rng)
    site = "/opt/venv/lib/python3.10/site-packages"
    out = [
        "+ python -u eval_retrieval.py --encoder /mnt/models/e5-large-v2 --index /mnt/data/index/ivf16k_pq64 --queries /mnt/data/queries/dev.jsonl --batch 512 --overlap-h2d",
        f"{clk.ds()} INFO eval: device=cuda:0 (NVIDIA A10G, 22.20 GiB) torch=2.0.1+cu118 cudnn=8700",
        f"{clk.ds(0.5, 1)} INFO eval: loading encoder /mnt/models/e5-large-v2 (fp16)",
        f"{clk.ds(3, 5)} INFO eval: loading index /mnt/data/index/ivf16k_pq64 (16384 lists, 31,212,881 vectors) to GPU",
        f"{clk.ds(20, 30)} INFO eval: index on GPU: codes 1.86 GiB, centroids 64.0 MiB",
        f"{clk.ds()} INFO eval: 163,840 queries, batch 512 -> 320 batches",
        f"{clk.ds()} INFO eval: H2D overlap enabled: next batch is tokenized and copied on a side CUDA stream while the current batch is searched",
        f"{site}/transformers/tokenization_utils_base.py:1601: FutureWarning: `clean_up_tokenization_spaces` was not set. It will be set to `True` by default. This behavior will be depracted in transformers v4.45, and will be then set to `False` by default. For more details check this issue: https://github.com/huggingface/transformers/issues/31884",
        "  warnings.warn(",
    ]
    out.append("eval:   0%|          | 0/320 [00:00<?, ?it/s]")
    done = 0
    el = 0.0
    while done < 118:
        done += rng.randrange(9, 14)
        done = min(done, 118)
        el = done / 2.9
        out.append("eval: " + tqdm_line(done, 320, el, 2.9 + rng.uniform(-0.1, 0.1), unit_is_s_per_it=False))
    tb = block(f"""
        Traceback (most recent call last):
          File "/opt/app/eval_retrieval.py", line 214, in <module>
            main()
          File "/opt/app/eval_retrieval.py", line 198, in main
            scores, ids = search(encoder, index, cur, k=args.k)
          File "/opt/app/eval_retrieval.py", line 121, in search
            return topk.values.cpu(), topk.indices.cpu()
        """)
    out.append(tb.rstrip("\n"))
    out.append(cuda_error("an illegal memory access was encountered", "2.0.1").rstrip("\n"))
    out.append("terminate called after throwing an instance of 'c10::Error'")
    out.append("  what():  CUDA error: an illegal memory access was encountered")
    out.append("CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.")
    out.append("For debugging consider passing CUDA_LAUNCH_BLOCKING=1.")
    out.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    out.append("")
    out.append(c10_frames(rng, site, kind="teardown", check_line=44).rstrip("\n"))
    out.append("")
    out.append("./run_eval.sh: line 14: 28417 Aborted                 (core dumped) python -u eval_retrieval.py --encoder /mnt/models/e5-large-v2 --index /mnt/data/index/ivf16k_pq64 --queries /mnt/data/queries/dev.jsonl --batch 512 --overlap-h2d")
    out.append("+ rc=134")
    out.append("+ echo 'eval exited with 134'")
    out.append("eval exited with 134")
    out.append("+ sudo dmesg -T")
    out.append("+ grep -i xid")
    out.append("+ tail -n 5")
    out.append("[Tue Sep 12 16:22:48 2023] NVRM: Xid (PCI:0000:00:1e): 31, pid=28417, name=python, Ch 00000008, intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_3 faulted @ 0x7f2a_1c800000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ")
    return Case(
        case_id="cuda-illegal-memory-access-side-stream-eval-04",
        label="cuda-illegal-memory-access",
        difficulty="medium",
        description="Retrieval eval on an A10G with batches prefetched on a side CUDA stream; illegal memory access surfaces at a .cpu() copy, the process then aborts in a c10::Error at teardown (exit 134) and the wrapper appends an Xid 31 MMU fault.",
        initiating_rank=None,
        facts={"gpu_model": "A10G", "torch_version": "2.0.1", "cuda_version": "11.8", "launcher": "python", "exit_code": "134", "xid": "31"},
        must_mention=["illegal memory access", "stream"],
        files={"eval.log": "\n".join(out)},
    )


# ==================================================================================================
# deepspeed-fusedadam-illegal-memory-access


def ds_fused_adam_jit(site: str, ext_root: str, build: bool, arch: str = "90", nvcc: str = "/usr/local/cuda/bin/nvcc", secs: float = 0.1) -> str:
    """JIT load of DeepSpeed's fused_adam op as printed by torch.utils.cpp_extension (one rank)."""
    lines = [
        f"Using {ext_root} as PyTorch extensions root...",
        "Detected CUDA files, patching ldflags",
        f"Emitting ninja build file {ext_root}/fused_adam/build.ninja...",
        "Building extension module fused_adam...",
        "Allowing ninja to set a default number of workers... (overridable by setting the environment variable MAX_JOBS=N)",
    ]
    if build:
        inc = f"-I{site}/deepspeed/ops/csrc/includes -I{site}/deepspeed/ops/csrc/adam -isystem {site}/torch/include -isystem {site}/torch/include/torch/csrc/api/include -isystem {site}/torch/include/TH -isystem {site}/torch/include/THC -isystem /usr/local/cuda/include -isystem /usr/include/python3.10"
        defs = "-DTORCH_EXTENSION_NAME=fused_adam -DTORCH_API_INCLUDE_EXTENSION_H -DPYBIND11_COMPILER_TYPE=\\\"_gcc\\\" -DPYBIND11_STDLIB=\\\"_libstdcpp\\\" -DPYBIND11_BUILD_ABI=\\\"_cxxabi1011\\\""
        lines += [
            f"[1/3] c++ -MMD -MF fused_adam_frontend.o.d {defs} {inc} -D_GLIBCXX_USE_CXX11_ABI=0 -fPIC -std=c++17 -O3 -std=c++17 -g -Wno-reorder -DVERSION_GE_1_1 -DVERSION_GE_1_3 -DVERSION_GE_1_5 -DBF16_AVAILABLE -c {site}/deepspeed/ops/csrc/adam/fused_adam_frontend.cpp -o fused_adam_frontend.o ",
            f"[2/3] {nvcc}  {defs} {inc} -D_GLIBCXX_USE_CXX11_ABI=0 -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ -D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__ --expt-relaxed-constexpr -gencode=arch=compute_{arch},code=compute_{arch} -gencode=arch=compute_{arch},code=sm_{arch} --compiler-options '-fPIC' -O3 -DVERSION_GE_1_1 -DVERSION_GE_1_3 -DVERSION_GE_1_5 -lineinfo --use_fast_math -gencode=arch=compute_{arch},code=sm_{arch} -gencode=arch=compute_{arch},code=compute_{arch} -DBF16_AVAILABLE -U__CUDA_NO_BFLOAT16_OPERATORS__ -U__CUDA_NO_BFLOAT162_OPERATORS__ -U__CUDA_NO_BFLOAT16_CONVERSIONS__ -std=c++17 -c {site}/deepspeed/ops/csrc/adam/multi_tensor_adam.cu -o multi_tensor_adam.cuda.o ",
            f"[3/3] c++ fused_adam_frontend.o multi_tensor_adam.cuda.o -shared -L{site}/torch/lib -lc10 -lc10_cuda -ltorch_cpu -ltorch_cuda -ltorch -ltorch_python -L/usr/local/cuda/lib64 -lcudart -o fused_adam.so",
        ]
    else:
        lines.append("ninja: no work to do.")
    lines += ["Loading extension module fused_adam...", f"Time to load fused_adam op: {secs} seconds"]
    return "\n".join(lines) + "\n"


def ds_zero12_init(clk: Clock, ds_v: str, stage: int, dtype: str, world: int, part: int, ma: tuple[float, float], ranks_print: list[int], sched: str = "WarmupDecayLR", lr_line: str = "lr=[0.0], mom=[(0.9, 0.95)]", stage_line: tuple[int, int, int] = (148, 520, 1842)) -> str:
    L = []
    log = lambda msg, src="logging.py:96:log_dist": L.append(f"[{clk.ds()}] [INFO] [{src}] {msg}")  # noqa: E731
    log("[Rank 0] Using DeepSpeed Optimizer param name adamw as basic optimizer")
    log("[Rank 0] Removing param_group that has no 'params' in the basic Optimizer")
    log("[Rank 0] DeepSpeed Basic Optimizer = FusedAdam")
    log("Checking ZeRO support for optimizer=FusedAdam type=<class 'deepspeed.ops.adam.fused_adam.FusedAdam'>", "utils.py:56:is_zero_supported_optimizer")
    log(f"[Rank 0] Creating {dtype} ZeRO stage {stage} optimizer")
    s = stage_line[0]
    log("Reduce bucket size 500000000", f"stage_1_and_2.py:{s}:__init__")
    log("Allgather bucket size 500000000", f"stage_1_and_2.py:{s + 1}:__init__")
    log("CPU Offload: False", f"stage_1_and_2.py:{s + 2}:__init__")
    log("Round robin gradient partitioning: False", f"stage_1_and_2.py:{s + 3}:__init__")
    for r in ranks_print:
        L.append(f"Rank: {r} partition count [{world}] and sizes[({part}, False)] ")
    log("Before initializing optimizer states", "utils.py:791:see_memory_usage")
    log(f"MA {ma[0]:.2f} GB         Max_MA {ma[0] + 0.01:.2f} GB         CA {ma[0] + 0.02:.2f} GB         Max_CA {int(ma[0]) + 1} GB ", "utils.py:792:see_memory_usage")
    log(f"CPU Virtual Memory:  used = {clk.rng.uniform(60, 120):.2f} GB, percent = {clk.rng.uniform(3, 9):.1f}%", "utils.py:799:see_memory_usage")
    clk.tick(2, 4)
    log("After initializing optimizer states", "utils.py:791:see_memory_usage")
    log(f"MA {ma[1]:.2f} GB         Max_MA {ma[1] + part * 4 / 2**30:.2f} GB         CA {ma[1] + part * 4 / 2**30 + 0.02:.2f} GB         Max_CA {int(ma[1] + part * 4 / 2**30) + 1} GB ", "utils.py:792:see_memory_usage")
    log(f"CPU Virtual Memory:  used = {clk.rng.uniform(60, 120):.2f} GB, percent = {clk.rng.uniform(3, 9):.1f}%", "utils.py:799:see_memory_usage")
    log("optimizer state initialized", f"stage_1_and_2.py:{stage_line[1]}:__init__")
    log("After initializing ZeRO optimizer", "utils.py:791:see_memory_usage")
    log(f"MA {ma[1]:.2f} GB         Max_MA {ma[1]:.2f} GB         CA {ma[1] + part * 4 / 2**30 + 0.02:.2f} GB         Max_CA {int(ma[1] + part * 4 / 2**30) + 1} GB ", "utils.py:792:see_memory_usage")
    log("[Rank 0] DeepSpeed Final Optimizer = FusedAdam")
    log(f"[Rank 0] DeepSpeed using configured LR scheduler = {sched}")
    log(f"[Rank 0] DeepSpeed LR Scheduler = <deepspeed.runtime.lr_schedules.{sched} object at 0x7f{clk.rng.randrange(16**10):010x}>")
    log(f"[Rank 0] step=0, skipped=0, {lr_line}")
    return "\n".join(L) + "\n"


def fa_zero2_two_h100() -> Case:
    rng = random.Random(201)
    clk = Clock(datetime(2024, 3, 14, 9, 12, 1), rng)
    site = SITE310
    args = ["train_sft.py", "--deepspeed", "configs/ds_z2_bf16.json", "--model", "/models/llama-2-7b-hf", "--data", "/data/sft/oasst_guanaco.jsonl", "--epochs", "2", "--micro_bsz", "4", "--grad_accum", "8"]
    out = ["root@gpu-h100x2:/workspace# deepspeed --num_gpus 2 " + " ".join(args)]
    out.append(ds_launcher_head(clk, 2, args, pids=[48213, 48214]).rstrip("\n"))
    for r in (0, 1):
        out.append(f"[{clk.ds(2, 3)}] [INFO] [real_accelerator.py:191:get_accelerator] Setting ds_accelerator to cuda (auto detect)")
    for r in (1, 0):
        out.append(f"[{clk.ds(1, 2)}] [INFO] [comm.py:637:init_distributed] cdb=None")
    out.append(f"[{clk.ds()}] [INFO] [comm.py:668:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl")
    out.append(f"rank 0: torch 2.1.2+cu121, deepspeed 0.12.6, 2 x NVIDIA H100 80GB HBM3, bf16=True")
    out.append("Loading checkpoint shards:   0%|          | 0/2 [00:00<?, ?it/s]")
    out.append("Loading checkpoint shards:   0%|          | 0/2 [00:00<?, ?it/s]")
    out.append("Loading checkpoint shards:  50%|█████     | 1/2 [00:04<00:04,  4.51s/it]")
    out.append("Loading checkpoint shards:  50%|█████     | 1/2 [00:04<00:04,  4.62s/it]")
    out.append("Loading checkpoint shards: 100%|██████████| 2/2 [00:06<00:00,  2.97s/it]")
    out.append("Loading checkpoint shards: 100%|██████████| 2/2 [00:06<00:00,  3.21s/it]")
    out.append("Loading checkpoint shards: 100%|██████████| 2/2 [00:06<00:00,  3.04s/it]")
    out.append("Loading checkpoint shards: 100%|██████████| 2/2 [00:06<00:00,  3.27s/it]")
    clk.tick(7, 8)
    out.append("trainable params: 6,738,415,616 (full fine-tune), dataset 9,846 examples, 2 epochs, global batch 64")
    out.append(f"[{clk.ds(1, 2)}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.12.6, git-hash=unknown, git-branch=unknown")
    out.append(f"[{clk.ds(1, 2)}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Flops Profiler Enabled: False")
    jit = ds_fused_adam_jit(site, "/root/.cache/torch_extensions/py310_cu121", build=False, secs=0.0)
    for r, secs in ((0, 0.10484), (1, 0.20317)):
        out.append(jit.replace("Time to load fused_adam op: 0.0 seconds", f"Time to load fused_adam op: {secs} seconds").rstrip("\n"))
    out.append(ds_zero12_init(clk, "0.12.6", 2, "torch.bfloat16", 2, 3369207808, (26.10, 51.20), [1, 0], sched="WarmupDecayLR", lr_line="lr=[2e-05], mom=[(0.9, 0.95)]").rstrip("\n"))
    cfg = {
        "bf16": {"enabled": True}, "zero_optimization": {"stage": 2, "overlap_comm": True, "contiguous_gradients": True, "reduce_bucket_size": 5e8, "allgather_bucket_size": 5e8},
        "optimizer": {"type": "AdamW", "params": {"lr": 2e-5, "betas": [0.9, 0.95], "eps": 1e-8, "weight_decay": 0.0}},
        "scheduler": {"type": "WarmupDecayLR", "params": {"warmup_min_lr": 0, "warmup_max_lr": 2e-5, "warmup_num_steps": 30, "total_num_steps": 306}},
        "gradient_accumulation_steps": 8, "gradient_clipping": 1.0, "train_micro_batch_size_per_gpu": 4, "train_batch_size": 64, "wall_clock_breakdown": False,
    }
    out.append(f"[{clk.ds()}] [INFO] [config.py:984:print] DeepSpeedEngine configuration:")
    for k, v in [("activation_checkpointing_config", '{\n    "partition_activations": false, \n    "contiguous_memory_optimization": false, \n    "cpu_checkpointing": false, \n    "number_checkpoints": null, \n    "synchronize_checkpoint_boundary": false, \n    "profile": false\n}'),
                 ("bfloat16_enabled", "True"), ("communication_data_type", "None"), ("dump_state", "False"), ("fp16_enabled", "False"),
                 ("gradient_accumulation_steps", "8"), ("gradient_clipping", "1.0"), ("optimizer_name", "adamw"),
                 ("optimizer_params", "{'lr': 2e-05, 'betas': [0.9, 0.95], 'eps': 1e-08, 'weight_decay': 0.0}"),
                 ("train_batch_size", "64"), ("train_micro_batch_size_per_gpu", "4"), ("world_size", "2"),
                 ("zero_allow_untested_optimizer", "False"),
                 ("zero_config", "stage=2 contiguous_gradients=True reduce_scatter=True reduce_bucket_size=500000000 allgather_partitions=True allgather_bucket_size=500000000 overlap_comm=True load_from_fp32_weights=True elastic_checkpoint=False offload_param=None offload_optimizer=None sub_group_size=1,000,000,000 cpu_offload_param=None cpu_offload_use_pin_memory=None cpu_offload=None prefetch_bucket_size=50,000,000 param_persistence_threshold=100,000 model_persistence_threshold=sys.maxsize max_live_parameters=1,000,000,000 max_reuse_distance=1,000,000,000 gather_16bit_weights_on_model_save=False stage3_gather_fp16_weights_on_model_save=False ignore_unused_parameters=True legacy_stage1=False round_robin_gradients=False zero_hpz_partition_size=1 zero_quantized_weights=False zero_quantized_nontrainable_weights=False zero_quantized_gradients=False mics_shard_size=-1 mics_hierarchical_params_gather=False memory_efficient_linear=True pipeline_loading_checkpoint=False override_module_apply=True"),
                 ("zero_enabled", "True"), ("zero_optimization_stage", "2")]:
        out.append(f"[{clk.ds(0, 0.001)}] [INFO] [config.py:988:print]   {k} {'.' * max(1, 31 - len(k))} {v}")
    out.append(f"[{clk.ds()}] [INFO] [config.py:974:print_user_config]   json = " + json.dumps(cfg, indent=4))
    out.append(f"[{clk.ds(1, 2)}] train_sft INFO: starting epoch 0 (154 optimizer steps/epoch)")
    clk.tick(20, 25)
    out.append(f"[{clk.ds()}] train_sft INFO: micro 8/8 of step 1 | loss 1.5213 | fwd+bwd 2.61s")
    tb = block(f"""
        Traceback (most recent call last):
          File "/workspace/train_sft.py", line 188, in <module>
            main()
          File "/workspace/train_sft.py", line 171, in main
            engine.step()
          File "{site}/deepspeed/runtime/engine.py", line 2169, in step
            self._take_model_step(lr_kwargs)
          File "{site}/deepspeed/runtime/engine.py", line 2075, in _take_model_step
            self.optimizer.step()
          File "{site}/deepspeed/utils/nvtx.py", line 15, in wrapped_fn
            ret_val = func(*args, **kwargs)
          File "{site}/deepspeed/runtime/zero/stage_1_and_2.py", line 1842, in step
            self._optimizer_step(i)
          File "{site}/deepspeed/runtime/zero/stage_1_and_2.py", line 1749, in _optimizer_step
            self.optimizer.step()
          File "{site}/torch/optim/optimizer.py", line 373, in wrapper
            out = func(*args, **kwargs)
          File "{site}/deepspeed/ops/adam/fused_adam.py", line 191, in step
            multi_tensor_applier(self.multi_tensor_adam, self._dummy_overflow_buf, [g_32, p_32, m_32, v_32],
          File "{site}/deepspeed/ops/adam/multi_tensor_apply.py", line 17, in __call__
            return op(self.chunk_size, noop_flag_buffer, tensor_lists, *args)
        """)
    err = cuda_error("an illegal memory access was encountered", "2.1.2")
    out.append(tb.rstrip("\n"))
    out.append(err.rstrip("\n"))
    out.append(tb.rstrip("\n"))
    out.append(err.rstrip("\n"))
    clk.tick(1, 2)
    out.append(f"[{clk.ds()}] [INFO] [launch.py:316:sigkill_handler] Killing subprocess 48213")
    out.append(f"[{clk.ds(0.2, 0.3)}] [INFO] [launch.py:316:sigkill_handler] Killing subprocess 48214")
    argv = ", ".join(repr(a) for a in ["/usr/bin/python3", "-u", args[0], "--local_rank=1", *args[1:]])
    out.append(f"[{clk.ds()}] [ERROR] [launch.py:322:sigkill_handler] [{argv}] exits with return code = 1")
    return Case(
        case_id="deepspeed-fusedadam-illegal-memory-access-zero2-2xh100-01",
        label="deepspeed-fusedadam-illegal-memory-access",
        difficulty="easy",
        description="deepspeed launcher, Llama-2-7B full fine-tune with ZeRO-2 bf16 on 2x H100; the per-rank fp32 partition is 3,369,207,808 elements and both ranks die in FusedAdam's multi_tensor_applier at the first optimizer step.",
        initiating_rank=0,
        facts={"gpu_model": "H100 80GB HBM3", "torch_version": "2.1.2", "deepspeed_version": "0.12.6", "launcher": "deepspeed",
               "world_size": "2", "zero_stage": "2", "optimizer": "FusedAdam", "precision": "bf16"},
        must_mention=["FusedAdam", "overflow"],
        files={"train.log": "\n".join(out)},
    )


def fa_accelerate_a100() -> Case:
    rng = random.Random(202)
    clk = Clock(datetime(2023, 8, 29, 17, 40, 12), rng)
    user = "rvasquez"
    env = f"/home/{user}/miniconda3/envs/llm"
    site = f"{env}/lib/python3.10/site-packages"
    out = [
        f"({'llm'}) {user}@dgx-a100-03:~/projects/clm13b$ accelerate launch --config_file configs/accel_ds_z2.yaml train_clm.py --model_name_or_path /raid/models/llama-2-13b-hf --dataset_dir /raid/data/domain_corpus_v2 --block_size 2048 --per_device_train_batch_size 1 --gradient_accumulation_steps 16 --learning_rate 1e-5 --num_train_epochs 1 --output_dir /raid/ckpt/clm13b-run4",
        "WARNING:torch.distributed.run:",
        "*****************************************",
        "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
        "*****************************************",
    ]
    for r in range(4):
        out.append(f"[{clk.ds(1, 2)}] [INFO] [real_accelerator.py:133:get_accelerator] Setting ds_accelerator to cuda (auto detect)")
    for r in range(4):
        out.append(f"[{clk.ds(0.5, 1)}] [INFO] [comm.py:631:init_distributed] cdb=None")
    out.append(f"[{clk.ds()}] [INFO] [comm.py:662:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl")
    out.append(f"{clk.hf()} - INFO - __main__ - Distributed environment: DEEPSPEED  Backend: nccl")
    out.append("Num processes: 4")
    out.append("Process index: 0")
    out.append("Local process index: 0")
    out.append("Device: cuda:0")
    out.append("")
    out.append("Mixed precision type: bf16")
    out.append("ds_config: {'bf16': {'enabled': True}, 'zero_optimization': {'stage': 2, 'offload_optimizer': {'device': 'none'}, 'offload_param': {'device': 'none'}, 'stage3_gather_16bit_weights_on_model_save': False}, 'gradient_clipping': 1.0, 'train_batch_size': 'auto', 'train_micro_batch_size_per_gpu': 'auto', 'gradient_accumulation_steps': 16, 'steps_per_print': inf, 'fp16': {'enabled': False}}")
    out.append("")
    out.append(f"{clk.hf()} - INFO - __main__ - versions: torch 2.0.1+cu118, transformers 4.31.0, accelerate 0.21.0, deepspeed 0.10.3")
    out.append(f"{clk.hf()} - INFO - __main__ - GPU: 4 x NVIDIA A100-SXM4-80GB")
    out.append("wandb: Currently logged in as: rvasquez. Use `wandb login --relogin` to force relogin")
    out.append("wandb: Tracking run with wandb version 0.15.8")
    out.append(f"wandb: Run data is saved locally in /home/{user}/projects/clm13b/wandb/run-20230829_174031-q8x1mm0c")
    out.append("wandb: Run `wandb offline` to turn off syncing.")
    out.append("wandb: Syncing run clm13b-run4")
    out.append("Loading checkpoint shards: 100%|██████████| 3/3 [00:11<00:00,  3.71s/it]")
    out.append("Loading checkpoint shards: 100%|██████████| 3/3 [00:11<00:00,  3.80s/it]")
    out.append("Loading checkpoint shards: 100%|██████████| 3/3 [00:12<00:00,  4.02s/it]")
    out.append("Loading checkpoint shards: 100%|██████████| 3/3 [00:12<00:00,  4.05s/it]")
    clk.tick(12, 14)
    out.append(f"Running tokenizer on dataset (num_proc=32): 100%|██████████| 412087/412087 [01:02<00:00, 6581.32 examples/s]")
    out.append(f"Grouping texts in chunks of 2048 (num_proc=32): 100%|██████████| 412087/412087 [00:41<00:00, 9912.50 examples/s]")
    clk.tick(100, 110)
    out.append(f"[{clk.ds()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.10.3, git-hash=unknown, git-branch=unknown")
    out.append(f"[{clk.ds(1, 2)}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Flops Profiler Enabled: False")
    for secs in (31.08412, 0.10233, 0.10246, 0.20175):
        out.append(ds_fused_adam_jit(site, f"/home/{user}/.cache/torch_extensions/py310_cu118", build=secs > 1, arch="80", nvcc=f"{env}/bin/nvcc", secs=secs).rstrip("\n"))
    out.append(ds_zero12_init(clk, "0.10.3", 2, "torch.bfloat16", 4, 3253966080, (36.35, 60.60), [2, 0, 3, 1], sched="WarmupDecayLR", lr_line="lr=[0.0], mom=[(0.9, 0.999)]", stage_line=(146, 515, 1836)).rstrip("\n"))
    out.append(f"{clk.hf(1, 2)} - INFO - __main__ - ***** Running training *****")
    out.append(f"{clk.hf()} - INFO - __main__ -   Num examples = 201,377")
    out.append(f"{clk.hf()} - INFO - __main__ -   Num Epochs = 1")
    out.append(f"{clk.hf()} - INFO - __main__ -   Instantaneous batch size per device = 1")
    out.append(f"{clk.hf()} - INFO - __main__ -   Total train batch size (w. parallel, distributed & accumulation) = 64")
    out.append(f"{clk.hf()} - INFO - __main__ -   Gradient Accumulation steps = 16")
    out.append(f"{clk.hf()} - INFO - __main__ -   Total optimization steps = 3147")
    out.append("  0%|          | 0/3147 [00:00<?, ?it/s]")
    clk.tick(70, 80)
    tbs = []
    for r in (0, 2, 3, 1):
        tbs.append(block(f"""
            Traceback (most recent call last):
              File "/home/{user}/projects/clm13b/train_clm.py", line 612, in <module>
                main()
              File "/home/{user}/projects/clm13b/train_clm.py", line 546, in main
                accelerator.backward(loss)
              File "{site}/accelerate/accelerator.py", line 1853, in backward
                self.deepspeed_engine_wrapped.backward(loss, **kwargs)
              File "{site}/accelerate/utils/deepspeed.py", line 176, in backward
                self.engine.step()
              File "{site}/deepspeed/runtime/engine.py", line 2087, in step
                self._take_model_step(lr_kwargs)
              File "{site}/deepspeed/runtime/engine.py", line 1994, in _take_model_step
                self.optimizer.step()
              File "{site}/deepspeed/runtime/zero/stage_1_and_2.py", line 1845, in step
                all_gather_dp_groups(groups_flat=self.bit16_groups_flat,
              File "{site}/deepspeed/runtime/utils.py", line 980, in all_gather_dp_groups
                return all_gather_into_tensor_dp_groups(groups_flat, partitioned_param_groups, dp_process_group)
              File "{site}/deepspeed/runtime/utils.py", line 966, in all_gather_into_tensor_dp_groups
                dist.all_gather_into_tensor(group_flat, partitioned_params[partition_id], dp_process_group[group_id])
              File "{site}/deepspeed/comm/comm.py", line 117, in log_wrapper
                return func(*args, **kwargs)
              File "{site}/deepspeed/comm/comm.py", line 305, in all_gather_into_tensor
                return cdb.all_gather_into_tensor(output_tensor=output_tensor, input_tensor=tensor, group=group, async_op=async_op)
              File "{site}/deepspeed/comm/torch.py", line 186, in all_gather_into_tensor
                return self.all_gather_function(output_tensor=output_tensor,
              File "{site}/torch/distributed/distributed_c10d.py", line 1451, in wrapper
                return func(*args, **kwargs)
              File "{site}/torch/distributed/distributed_c10d.py", line 2532, in all_gather_into_tensor
                work = group._allgather_base(output_tensor, input_tensor)
            RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.14.3
            ncclUnhandledCudaError: Call to CUDA function failed.
            Last error:
            Cuda failure 'an illegal memory access was encountered'
            """))
    out.append("\n".join(t.rstrip("\n") for t in tbs))
    out.append("wandb: Waiting for W&B process to finish... (failed 1). Press Control-C to abort syncing.")
    out.append("wandb: 🚀 View run clm13b-run4 at: https://wandb.ai/rvasquez/clm13b/runs/q8x1mm0c")
    out.append(f"wandb: Find logs at: ./wandb/run-20230829_174031-q8x1mm0c/logs")
    out.append("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 731204) of binary: " + f"{env}/bin/python")
    tail = block(f"""
        Traceback (most recent call last):
          File "{env}/bin/accelerate", line 8, in <module>
            sys.exit(main())
          File "{site}/accelerate/commands/accelerate_cli.py", line 45, in main
            args.func(args)
          File "{site}/accelerate/commands/launch.py", line 964, in launch_command
            deepspeed_launcher(args)
          File "{site}/accelerate/commands/launch.py", line 687, in deepspeed_launcher
            distrib_run.run(args)
          File "{site}/torch/distributed/run.py", line 785, in run
            elastic_launch(
          File "{site}/torch/distributed/launcher/api.py", line 134, in __call__
            return launch_agent(self._config, self._entrypoint, list(args))
          File "{site}/torch/distributed/launcher/api.py", line 250, in launch_agent
            raise ChildFailedError(
        torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
        ============================================================
        train_clm.py FAILED
        ------------------------------------------------------------
        Failures:
        [1]:
          time      : 2023-08-29_17:44:09
          host      : dgx-a100-03
          rank      : 1 (local_rank: 1)
          exitcode  : 1 (pid: 731205)
          error_file: <N/A>
          traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
        [2]:
          time      : 2023-08-29_17:44:09
          host      : dgx-a100-03
          rank      : 2 (local_rank: 2)
          exitcode  : 1 (pid: 731206)
          error_file: <N/A>
          traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
        [3]:
          time      : 2023-08-29_17:44:09
          host      : dgx-a100-03
          rank      : 3 (local_rank: 3)
          exitcode  : 1 (pid: 731207)
          error_file: <N/A>
          traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
        ------------------------------------------------------------
        Root Cause (first observed failure):
        [0]:
          time      : 2023-08-29_17:44:09
          host      : dgx-a100-03
          rank      : 0 (local_rank: 0)
          exitcode  : 1 (pid: 731204)
          error_file: <N/A>
          traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
        ============================================================
        """)
    out.append(tail.rstrip("\n"))
    return Case(
        case_id="deepspeed-fusedadam-illegal-memory-access-accelerate-z2-02",
        label="deepspeed-fusedadam-illegal-memory-access",
        difficulty="medium",
        description="accelerate + DeepSpeed ZeRO-2, Llama-2-13B on 4x A100 80GB; partitions of 3,253,966,080 elements; the fault in FusedAdam surfaces in the post-step all_gather as ncclUnhandledCudaError on every rank, then a ChildFailedError.",
        initiating_rank=0,
        facts={"gpu_model": "A100-SXM4-80GB", "torch_version": "2.0.1", "deepspeed_version": "0.10.3", "launcher": "accelerate",
               "world_size": "4", "zero_stage": "2", "optimizer": "FusedAdam", "nccl_version": "2.14.3"},
        must_mention=["FusedAdam", "overflow"],
        also=["cuda-illegal-memory-access"],
        secrets=[user],
        files={"train.log": "\n".join(out)},
    )


def fa_hf_zero1_h200() -> Case:
    rng = random.Random(203)
    clk = Clock(datetime(2024, 8, 2, 11, 1, 44), rng)
    site = "/usr/local/lib/python3.11/dist-packages"
    args = ["sft.py", "--model_name_or_path", "meta-llama/Meta-Llama-3-8B", "--dataset_name", "data/sft_mix_v7", "--bf16", "--deepspeed", "ds/zero1.json",
            "--per_device_train_batch_size", "4", "--gradient_accumulation_steps", "4", "--learning_rate", "1e-5", "--num_train_epochs", "1",
            "--logging_steps", "10", "--gradient_checkpointing", "--output_dir", "out/llama3-8b-sft-v7", "--report_to", "none"]
    out = ["+ deepspeed --include localhost:0,1 " + " ".join(args)]
    out.append(ds_launcher_head(clk, 2, args, python="/usr/bin/python", pids=[90111, 90112]).rstrip("\n").replace("Setting CUDA_VISIBLE_DEVICES=0,1", "Setting CUDA_VISIBLE_DEVICES=0,1"))
    for _ in range(2):
        out.append(f"[{clk.ds(2, 3)}] [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda (auto detect)")
    for _ in range(2):
        out.append(f"[{clk.ds(1, 2)}] [INFO] [comm.py:637:init_distributed] cdb=None")
    out.append(f"[{clk.ds()}] [INFO] [comm.py:668:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl")
    out.append(f"{clk.hf()} - WARNING - __main__ - Process rank: 1, device: cuda:1, n_gpu: 1, distributed training: True, 16-bits training: False")
    out.append(f"{clk.hf()} - WARNING - __main__ - Process rank: 0, device: cuda:0, n_gpu: 1, distributed training: True, 16-bits training: False")
    out.append(f"{clk.hf()} - INFO - __main__ - torch 2.3.1+cu121, transformers 4.42.4, deepspeed 0.14.4, GPUs: 2 x NVIDIA H200")
    a = dict(HF_DEFAULT_ARGS)
    a.update({"_n_gpu": 1, "bf16": True, "deepspeed": "ds/zero1.json", "gradient_accumulation_steps": 4, "gradient_checkpointing": True,
              "learning_rate": 1e-05, "num_train_epochs": 1.0, "output_dir": "out/llama3-8b-sft-v7", "per_device_train_batch_size": 4,
              "report_to": [], "optim": "adamw_torch", "eval_strategy": "no"})
    a.pop("evaluation_strategy")
    out.append(f"{clk.hf()} - INFO - __main__ - Training/evaluation parameters " + hf_args_dump(a).rstrip("\n"))
    out.append(f"[INFO|configuration_utils.py:733] {clk.ds()} >> loading configuration file config.json from cache at /root/.cache/huggingface/hub/models--meta-llama--Meta-Llama-3-8B/snapshots/62bd457b6fe961a42a631306577e622c83876cb6/config.json")
    out.append(f"[INFO|modeling_utils.py:3556] {clk.ds()} >> loading weights file model.safetensors from cache at /root/.cache/huggingface/hub/models--meta-llama--Meta-Llama-3-8B/snapshots/62bd457b6fe961a42a631306577e622c83876cb6/model.safetensors.index.json")
    out.append(f"[INFO|modeling_utils.py:1531] {clk.ds()} >> Instantiating LlamaForCausalLM model under default dtype torch.bfloat16.")
    out.append("Loading checkpoint shards: 100%|██████████| 4/4 [00:03<00:00,  1.06it/s]")
    out.append("Loading checkpoint shards: 100%|██████████| 4/4 [00:03<00:00,  1.02it/s]")
    out.append(f"[INFO|modeling_utils.py:4364] {clk.ds(4, 5)} >> All model checkpoint weights were used when initializing LlamaForCausalLM.")
    out.append(f"Map (num_proc=16): 100%|██████████| 49152/49152 [00:09<00:00, 5321.77 examples/s]")
    clk.tick(10, 12)
    out.append(f"[WARNING|logging.py:328] {clk.ds()} >> `use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`.")
    out.append(f"[{clk.ds(1, 2)}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.14.4, git-hash=unknown, git-branch=unknown")
    out.append(f"[{clk.ds()}] [INFO] [config.py:733:__init__] Config mesh_device None world_size = 2")
    out.append(f"[{clk.ds(1, 2)}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Flops Profiler Enabled: False")
    for secs in (27.53381, 0.10911):
        out.append(ds_fused_adam_jit(site, "/root/.cache/torch_extensions/py311_cu121", build=secs > 1, arch="90", secs=secs).rstrip("\n").replace("/usr/include/python3.10", "/usr/include/python3.11"))
    out.append(ds_zero12_init(clk, "0.14.4", 1, "torch.bfloat16", 2, 4015130624, (30.92, 60.84), [0, 1], sched="WarmupDecayLR", lr_line="lr=[0.0], mom=[[0.9, 0.999]]", stage_line=(149, 551, 1955)).rstrip("\n"))
    L = lambda n, m: out.append(f"[INFO|trainer.py:{n}] {clk.ds(0, 0.002)} >> {m}")  # noqa: E731
    L(2128, "***** Running training *****")
    L(2129, "  Num examples = 49,152")
    L(2130, "  Num Epochs = 1")
    L(2131, "  Instantaneous batch size per device = 4")
    L(2134, "  Total train batch size (w. parallel, distributed & accumulation) = 32")
    L(2135, "  Gradient Accumulation steps = 4")
    L(2136, "  Total optimization steps = 1,536")
    L(2137, "  Number of trainable parameters = 8,030,261,248")
    out.append("  0%|          | 0/1536 [00:00<?, ?it/s]")
    clk.tick(19, 20)
    out.append("  0%|          | 1/1536 [00:19<8:13:37, 19.29s/it]")
    for _ in range(2):
        out.append(block(f"""
            Traceback (most recent call last):
              File "/workspace/sft/sft.py", line 381, in <module>
                main()
              File "/workspace/sft/sft.py", line 334, in main
                train_result = trainer.train(resume_from_checkpoint=checkpoint)
              File "{site}/transformers/trainer.py", line 1932, in train
                return inner_training_loop(
              File "{site}/transformers/trainer.py", line 2284, in _inner_training_loop
                and (torch.isnan(tr_loss_step) or torch.isinf(tr_loss_step))
            """).rstrip("\n"))
        out.append(cuda_error("an illegal memory access was encountered", "2.3.1").rstrip("\n"))
    out.append("  0%|          | 1/1536 [00:21<9:08:51, 21.45s/it]")
    clk.tick(2, 3)
    out.append(f"[{clk.ds()}] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 90111")
    out.append(f"[{clk.ds(0.3, 0.5)}] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 90112")
    argv = ", ".join(repr(x) for x in ["/usr/bin/python", "-u", args[0], "--local_rank=1", *args[1:]])
    out.append(f"[{clk.ds()}] [ERROR] [launch.py:325:sigkill_handler] [{argv}] exits with return code = 1")
    return Case(
        case_id="deepspeed-fusedadam-illegal-memory-access-hf-zero1-h200-03",
        label="deepspeed-fusedadam-illegal-memory-access",
        difficulty="medium",
        description="HF Trainer with DeepSpeed ZeRO-1 on 2x H200, Llama-3-8B (partition 4,015,130,624 elements); the first optimizer step faults in FusedAdam but the error is reported at the Trainer's isnan check of the next micro-batch.",
        initiating_rank=0,
        facts={"gpu_model": "H200", "torch_version": "2.3.1", "deepspeed_version": "0.14.4", "transformers_version": "4.42.4",
               "launcher": "deepspeed", "world_size": "2", "zero_stage": "1", "optimizer": "FusedAdam"},
        must_mention=["FusedAdam", "overflow"],
        files={"train.log": "\n".join(out)},
    )


def fa_zero3_subgroup_h100() -> Case:
    rng = random.Random(204)
    clk = Clock(datetime(2024, 10, 9, 2, 17, 30), rng)
    site = SITE310
    args = ["train.py", "--config", "configs/13b_continued_pt.yaml", "--deepspeed_config", "configs/ds_z3_fast.json"]
    out = ["$ deepspeed --num_gpus 4 " + " ".join(args)]
    out.append(ds_launcher_head(clk, 4, args, pids=[7741, 7742, 7743, 7744], nccl="2.20.5").rstrip("\n"))
    for _ in range(4):
        out.append(f"[{clk.ds(2, 3)}] [INFO] [real_accelerator.py:219:get_accelerator] Setting ds_accelerator to cuda (auto detect)")
    for _ in range(4):
        out.append(f"[{clk.ds(0.5, 1)}] [INFO] [comm.py:652:init_distributed] cdb=None")
    out.append(f"[{clk.ds()}] [INFO] [comm.py:683:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl")
    out.append(f"[{clk.ds()}] INFO train: torch 2.4.1+cu124 | deepspeed 0.15.1 | 4 x NVIDIA H100 80GB HBM3 | bf16")
    out.append(f"[{clk.ds()}] INFO train: model llama-13b-style (13,015,864,320 params), seq 4096, micro bsz 2, grad accum 16")
    out.append(f"[{clk.ds(1, 2)}] [INFO] [partition_parameters.py:348:__exit__] finished initializing model - num_params = 363, num_elems = 13.02B")
    out.append(f"[{clk.ds(20, 30)}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.15.1, git-hash=unknown, git-branch=unknown")
    out.append(f"[{clk.ds()}] [INFO] [config.py:733:__init__] Config mesh_device None world_size = 4")
    out.append(f"[{clk.ds(1, 2)}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Flops Profiler Enabled: False")
    out.append(ds_fused_adam_jit(site, "/root/.cache/torch_extensions/py310_cu124", build=True, arch="90", secs=33.42017).rstrip("\n"))
    for secs in (0.30142, 0.30151, 0.30207):
        out.append(f"Loading extension module fused_adam...\nTime to load fused_adam op: {secs} seconds")
    L = lambda m, src="logging.py:96:log_dist": out.append(f"[{clk.ds()}] [INFO] [{src}] {m}")  # noqa: E731
    L("[Rank 0] Using DeepSpeed Optimizer param name adamw as basic optimizer")
    L("[Rank 0] Removing param_group that has no 'params' in the basic Optimizer")
    L("[Rank 0] DeepSpeed Basic Optimizer = FusedAdam")
    L("Checking ZeRO support for optimizer=FusedAdam type=<class 'deepspeed.ops.adam.fused_adam.FusedAdam'>", "utils.py:59:is_zero_supported_optimizer")
    L("[Rank 0] Creating fp16 ZeRO stage 3 optimizer, MiCS is enabled False, Hierarchical params gather False")
    L("Stage 3 initialize beginning", "utils.py:781:see_memory_usage")
    L("MA 6.06 GB         Max_MA 7.2 GB         CA 7.29 GB         Max_CA 7 GB ", "utils.py:782:see_memory_usage")
    L("CPU Virtual Memory:  used = 88.41 GB, percent = 4.4%", "utils.py:789:see_memory_usage")
    L("Reduce bucket size 500000000", "stage3.py:164:__init__")
    L("Prefetch bucket size 50000000", "stage3.py:165:__init__")
    L("DeepSpeedZeRoOffload initialize [begin]", "utils.py:781:see_memory_usage")
    L("DeepSpeedZeRoOffload initialize [end]", "utils.py:781:see_memory_usage")
    L("Before creating fp16 partitions", "utils.py:781:see_memory_usage")
    L("MA 6.06 GB         Max_MA 6.06 GB         CA 7.29 GB         Max_CA 7 GB ", "utils.py:782:see_memory_usage")
    clk.tick(3, 5)
    L("After creating fp16 partitions: 1", "utils.py:781:see_memory_usage")
    L("Before creating fp32 partitions", "utils.py:781:see_memory_usage")
    L("After creating fp32 partitions", "utils.py:781:see_memory_usage")
    L("MA 18.18 GB         Max_MA 18.18 GB         CA 19.41 GB         Max_CA 19 GB ", "utils.py:782:see_memory_usage")
    L("Before initializing optimizer states", "utils.py:781:see_memory_usage")
    L("After initializing optimizer states", "utils.py:781:see_memory_usage")
    L("MA 42.42 GB         Max_MA 54.55 GB         CA 54.58 GB         Max_CA 55 GB ", "utils.py:782:see_memory_usage")
    L("optimizer state initialized", "stage3.py:529:_setup_for_real_optimizer")
    L("After initializing ZeRO optimizer", "utils.py:781:see_memory_usage")
    L("[Rank 0] DeepSpeed Final Optimizer = DeepSpeedZeroOptimizer_Stage3")
    L("[Rank 0] DeepSpeed using configured LR scheduler = WarmupCosineLR")
    L("[Rank 0] step=0, skipped=0, lr=[0.0], mom=[(0.9, 0.95)]")
    L("DeepSpeedEngine configuration:", "config.py:997:print")
    zc = ("stage=3 contiguous_gradients=True reduce_scatter=True reduce_bucket_size=500000000 use_multi_rank_bucket_allreduce=True allgather_partitions=True "
          "allgather_bucket_size=500000000 overlap_comm=True load_from_fp32_weights=True elastic_checkpoint=False offload_param=None offload_optimizer=None "
          "sub_group_size=5000000000 cpu_offload_param=None cpu_offload_use_pin_memory=None cpu_offload=None prefetch_bucket_size=50000000 "
          "param_persistence_threshold=100000 model_persistence_threshold=9223372036854775807 max_live_parameters=1000000000 max_reuse_distance=1000000000 "
          "gather_16bit_weights_on_model_save=True module_granularity_threshold=0 use_all_reduce_for_fetch_params=False stage3_gather_fp16_weights_on_model_save=False "
          "ignore_unused_parameters=True legacy_stage1=False round_robin_gradients=False zero_hpz_partition_size=1 zero_quantized_weights=False "
          "zero_quantized_nontrainable_weights=False zero_quantized_gradients=False mics_shard_size=-1 mics_hierarchical_params_gather=False "
          "memory_efficient_linear=True pipeline_loading_checkpoint=False override_module_apply=True")
    for k, v in [("bfloat16_enabled", "True"), ("gradient_accumulation_steps", "16"), ("gradient_clipping", "1.0"), ("optimizer_name", "adamw"),
                 ("optimizer_params", "{'lr': 0.00015, 'betas': [0.9, 0.95], 'eps': 1e-08, 'weight_decay': 0.1}"), ("train_batch_size", "128"),
                 ("train_micro_batch_size_per_gpu", "2"), ("world_size", "4"), ("zero_config", zc), ("zero_enabled", "True"), ("zero_optimization_stage", "3")]:
        out.append(f"[{clk.ds(0, 0.001)}] [INFO] [config.py:1001:print]   {k} {'.' * max(1, 31 - len(k))} {v}")
    out.append(f"[{clk.ds()}] INFO train: step 0 starting; 16 micro-batches per optimizer step")
    clk.tick(60, 70)
    out.append(f"[{clk.ds()}] INFO train: micro 16/16 loss 2.1193 (fwd 1.21s bwd 2.44s)")
    site_ = site
    tb0 = block(f"""
        Traceback (most recent call last):
          File "/workspace/pretrain/train.py", line 233, in <module>
            main()
          File "/workspace/pretrain/train.py", line 214, in main
            engine.step()
          File "{site_}/deepspeed/runtime/engine.py", line 2213, in step
            self._take_model_step(lr_kwargs)
          File "{site_}/deepspeed/runtime/engine.py", line 2119, in _take_model_step
            self.optimizer.step()
          File "{site_}/deepspeed/utils/nvtx.py", line 18, in wrapped_fn
            ret_val = func(*args, **kwargs)
          File "{site_}/deepspeed/runtime/zero/stage3.py", line 2094, in step
            self._optimizer_step(sub_group_id)
          File "{site_}/deepspeed/runtime/zero/stage3.py", line 964, in _optimizer_step
            self.optimizer.step()
          File "{site_}/torch/optim/optimizer.py", line 484, in wrapper
            out = func(*args, **kwargs)
          File "{site_}/deepspeed/ops/adam/fused_adam.py", line 191, in step
            multi_tensor_applier(self.multi_tensor_adam, self._dummy_overflow_buf, [g_32, p_32, m_32, v_32],
          File "{site_}/deepspeed/ops/adam/multi_tensor_apply.py", line 17, in __call__
            return op(self.chunk_size, noop_flag_buffer, tensor_lists, *args)
        """)
    out.append(tb0.rstrip("\n"))
    out.append(cuda_error("an illegal memory access was encountered", "2.4.1").rstrip("\n"))
    mod = f"{site_}/torch/nn/modules/module.py"
    tbn = block(f"""
        Traceback (most recent call last):
          File "/workspace/pretrain/train.py", line 233, in <module>
            main()
          File "/workspace/pretrain/train.py", line 201, in main
            loss = engine(batch["input_ids"], labels=batch["labels"]).loss
          File "{mod}", line 1553, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{mod}", line 1562, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site_}/deepspeed/utils/nvtx.py", line 18, in wrapped_fn
            ret_val = func(*args, **kwargs)
          File "{site_}/deepspeed/runtime/engine.py", line 1899, in forward
            loss = self.module(*inputs, **kwargs)
          File "{mod}", line 1553, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{mod}", line 1582, in _call_impl
            args_result = hook(self, args)
          File "{site_}/deepspeed/utils/nvtx.py", line 18, in wrapped_fn
            ret_val = func(*args, **kwargs)
          File "{site_}/deepspeed/runtime/zero/parameter_offload.py", line 283, in _pre_forward_module_hook
            self.pre_sub_module_forward_function(module)
          File "{site_}/torch/utils/_contextlib.py", line 116, in decorate_context
            return func(*args, **kwargs)
          File "{site_}/deepspeed/runtime/zero/parameter_offload.py", line 452, in pre_sub_module_forward_function
            param_coordinator.fetch_sub_module(sub_module, forward=True)
          File "{site_}/deepspeed/utils/nvtx.py", line 18, in wrapped_fn
            ret_val = func(*args, **kwargs)
          File "{site_}/torch/utils/_contextlib.py", line 116, in decorate_context
            return func(*args, **kwargs)
          File "{site_}/deepspeed/runtime/zero/partitioned_param_coordinator.py", line 291, in fetch_sub_module
            self.__all_gather_params(params_to_fetch, forward)
          File "{site_}/deepspeed/utils/nvtx.py", line 18, in wrapped_fn
            ret_val = func(*args, **kwargs)
          File "{site_}/deepspeed/runtime/zero/partitioned_param_coordinator.py", line 435, in __all_gather_params
            self.__all_gather_params_(nonquantized_params, forward, quantize=self.zero_quantized_weights)
          File "{site_}/deepspeed/runtime/zero/partitioned_param_coordinator.py", line 464, in __all_gather_params_
            handle = param_group[0].all_gather_coalesced(param_group, quantize=quantize)
          File "{site_}/deepspeed/utils/nvtx.py", line 18, in wrapped_fn
            ret_val = func(*args, **kwargs)
          File "{site_}/deepspeed/runtime/zero/partition_parameters.py", line 1242, in all_gather_coalesced
            handles = _dist_allgather_fn(
          File "{site_}/deepspeed/runtime/zero/partition_parameters.py", line 95, in _dist_allgather_fn
            return instrument_w_nvtx(dist.allgather_fn)(output_tensor, input_tensor, group=group, async_op=True)
          File "{site_}/deepspeed/comm/comm.py", line 320, in allgather_fn
            return all_gather_into_tensor(output_tensor, input_tensor, group=group, async_op=async_op, debug=debug)
          File "{site_}/deepspeed/comm/comm.py", line 117, in log_wrapper
            return func(*args, **kwargs)
          File "{site_}/deepspeed/comm/comm.py", line 305, in all_gather_into_tensor
            return cdb.all_gather_into_tensor(output_tensor=output_tensor, input_tensor=tensor, group=group, async_op=async_op)
          File "{site_}/deepspeed/comm/torch.py", line 218, in all_gather_into_tensor
            return self.all_gather_function(output_tensor=output_tensor,
          File "{site_}/torch/distributed/c10d_logger.py", line 79, in wrapper
            return func(*args, **kwargs)
          File "{site_}/torch/distributed/distributed_c10d.py", line 3198, in all_gather_into_tensor
            work = group._allgather_base(output_tensor, input_tensor, opts)
        torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5
        ncclUnhandledCudaError: Call to CUDA function failed.
        Last error:
        Cuda failure 'an illegal memory access was encountered'
        """)
    for _ in (2, 1, 3):
        out.append(tbn.rstrip("\n"))
    clk.tick(1, 2)
    for i, pid in enumerate((7741, 7742, 7743, 7744)):
        out.append(f"[{clk.ds(0.1, 0.4)}] [INFO] [launch.py:319:sigkill_handler] Killing subprocess {pid}")
    argv = ", ".join(repr(x) for x in ["/usr/bin/python3", "-u", args[0], "--local_rank=3", *args[1:]])
    out.append(f"[{clk.ds()}] [ERROR] [launch.py:325:sigkill_handler] [{argv}] exits with return code = 1")
    return Case(
        case_id="deepspeed-fusedadam-illegal-memory-access-zero3-subgroup-04",
        label="deepspeed-fusedadam-illegal-memory-access",
        difficulty="hard",
        description="13B continued pre-training with ZeRO-3 on 4x H100 and sub_group_size raised to 5e9 (one 3.25e9-element sub-group per rank); rank 0 shows the FusedAdam fault, ranks 1-3 end with DistBackendError ncclUnhandledCudaError in the next all-gather, and the op was JIT-built for sm_90.",
        initiating_rank=0,
        facts={"gpu_model": "H100 80GB HBM3", "torch_version": "2.4.1", "deepspeed_version": "0.15.1", "nccl_version": "2.20.5",
               "launcher": "deepspeed", "world_size": "4", "zero_stage": "3", "optimizer": "FusedAdam"},
        must_mention=["sub_group_size", "FusedAdam"],
        also=["cuda-illegal-memory-access"],
        files={"train.log": "\n".join(out)},
    )


# ==================================================================================================
# cuda-device-side-assert


def assert_lines(rng: random.Random, path: str, line: int, kernel: str, cond: str, n: int, blocks: int, threads: int = 128, fixed_block: bool = False) -> list[str]:
    seen = set()
    out = []
    while len(out) < n:
        b = 0 if fixed_block else rng.randrange(blocks)
        t = rng.randrange(threads)
        if (b, t) in seen:
            continue
        seen.add((b, t))
        out.append(f"{path}:{line}: {kernel}: block: [{b},0,0], thread: [{t},0,0] Assertion `{cond}` failed.")
    return out


def dsa_gpt2_pad_token() -> Case:
    rng = random.Random(301)
    site = "/opt/venvs/ft/lib/python3.10/site-packages"
    out = [
        "(ft) $ python finetune_gpt2_chat.py --model gpt2-medium --train data/chats_train.jsonl --val data/chats_val.jsonl --epochs 3 --bsz 8 --lr 5e-5 --max_len 768",
        "torch 2.2.1+cu121 | transformers 4.38.2 | cuda available: True | NVIDIA GeForce RTX 4090",
        "tokenizer_config.json: 100%|██████████| 26.0/26.0 [00:00<00:00, 162kB/s]",
        "vocab.json: 100%|██████████| 1.04M/1.04M [00:00<00:00, 5.62MB/s]",
        "merges.txt: 100%|██████████| 456k/456k [00:00<00:00, 3.91MB/s]",
        "tokenizer.json: 100%|██████████| 1.36M/1.36M [00:00<00:00, 7.20MB/s]",
        "config.json: 100%|██████████| 718/718 [00:00<00:00, 4.58MB/s]",
        "Special tokens have been added in the vocabulary, make sure the associated word embeddings are fine-tuned or trained.",
        "added special tokens: ['<|pad|>', '<|user|>', '<|assistant|>', '<|system|>'] -> pad_token_id=50257",
        "model.safetensors: 100%|██████████| 1.52G/1.52G [00:14<00:00, 106MB/s]",
        "generation_config.json: 100%|██████████| 124/124 [00:00<00:00, 772kB/s]",
        "loaded gpt2-medium: 354.8M params",
        "train examples: 18,420 | val examples: 970 | batches/epoch: 2303",
        f"{site}/torch/utils/data/dataloader.py:558: UserWarning: This DataLoader will create 8 worker processes in total. Our suggested max number of worker in current system is 6, which is smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary.",
        "  warnings.warn(_create_warning_msg(",
        "epoch 1:   0%|          | 0/2303 [00:00<?, ?it/s]",
    ]
    out += assert_lines(rng, "../aten/src/ATen/native/cuda/Indexing.cu", 1290, "indexSelectLargeIndex", "srcIndex < srcSelectDimSize", 40, 768)
    out.append("epoch 1:   0%|          | 0/2303 [00:01<?, ?it/s]")
    out.append(block(f"""
        Traceback (most recent call last):
          File "/home/dev/chatft/finetune_gpt2_chat.py", line 174, in <module>
            main()
          File "/home/dev/chatft/finetune_gpt2_chat.py", line 151, in main
            running += loss.item()
        """).rstrip("\n"))
    out.append(cuda_error("device-side assert triggered", "2.2.1").rstrip("\n"))
    return Case(
        case_id="cuda-device-side-assert-gpt2-pad-token-01",
        label="cuda-device-side-assert",
        difficulty="easy",
        description="Single RTX 4090 fine-tune of gpt2-medium after adding four special tokens without resizing the embeddings; indexSelectLargeIndex asserts srcIndex < srcSelectDimSize on the first batch.",
        initiating_rank=None,
        facts={"gpu_model": "GeForce RTX 4090", "torch_version": "2.2.1", "transformers_version": "4.38.2", "launcher": "python"},
        must_mention=["resize_token_embeddings"],
        files={"train.log": "\n".join(out)},
    )


def dsa_labels_nll_t4() -> Case:
    rng = random.Random(302)
    site = "/usr/local/lib/python3.8/dist-packages"
    out = [
        "!python train_food.py --csv /content/drive/MyDrive/food10/labels.csv --img_dir /content/food10/images --epochs 5 --bs 64",
        f"{site}/torchvision/models/_utils.py:208: UserWarning: The parameter 'pretrained' is deprecated since 0.13 and may be removed in the future, please use 'weights' instead.",
        "  warnings.warn(",
        f"{site}/torchvision/models/_utils.py:223: UserWarning: Arguments other than a weight enum or `None` for 'weights' are deprecated since 0.13 and may be removed in the future. The current behavior is equivalent to passing `weights=ResNet50_Weights.IMAGENET1K_V1`. You can also use `weights=ResNet50_Weights.DEFAULT` to get the most up-to-date weights.",
        "  warnings.warn(msg)",
        'Downloading: "https://download.pytorch.org/models/resnet50-0676ba61.pth" to /root/.cache/torch/hub/checkpoints/resnet50-0676ba61.pth',
        "100%|██████████| 97.8M/97.8M [00:00<00:00, 261MB/s]",
        "device: cuda (Tesla T4) | torch 1.13.1+cu117 | torchvision 0.14.1+cu117",
        "rows: 10000 | label values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] | num_classes = 10",
        "train 8000 / val 2000",
        "Epoch 1/5",
    ]
    for i, b in enumerate((10, 20, 30, 40, 50, 60)):
        out.append(f"  batch {b:>3}/125  loss {2.35 - 0.09 * i + rng.uniform(-0.05, 0.05):.4f}  acc {0.11 + 0.05 * i:.3f}")
    out += assert_lines(rng, "../aten/src/ATen/native/cuda/Loss.cu", 242, "nll_loss_forward_reduce_cuda_kernel_2d", "t >= 0 && t < n_classes", 7, 1, threads=64, fixed_block=True)
    out.append(block(f"""
        Traceback (most recent call last):
          File "train_food.py", line 118, in <module>
            train_one_epoch(model, train_dl, opt, crit, epoch)
          File "train_food.py", line 71, in train_one_epoch
            running_loss += loss.item()
        """).rstrip("\n"))
    out.append(cuda_error("device-side assert triggered", "1.13.1").rstrip("\n"))
    return Case(
        case_id="cuda-device-side-assert-labels-1-based-02",
        label="cuda-device-side-assert",
        difficulty="easy",
        description="Notebook-style ResNet-50 fine-tune on a T4; CSV labels run 1..10 with num_classes=10, so CrossEntropy's nll_loss asserts t < n_classes when a batch contains label 10.",
        initiating_rank=None,
        facts={"gpu_model": "Tesla T4", "torch_version": "1.13.1", "cuda_version": "11.7", "launcher": "python"},
        must_mention=["label", "n_classes"],
        files={"train.log": "\n".join(out)},
    )


def dsa_roberta_positions_cublas() -> Case:
    rng = random.Random(303)
    clk = Clock(datetime(2023, 11, 27, 14, 3, 19), rng)
    site = "/opt/conda/lib/python3.10/site-packages"
    out = [
        "python run_cls.py --model_name_or_path roberta-base --train_file data/tickets_train.csv --validation_file data/tickets_val.csv --text_column body --label_column queue --do_train --do_eval --fp16 --per_device_train_batch_size 16 --learning_rate 3e-5 --num_train_epochs 3 --output_dir out/tickets-roberta --pad_to_max_length False --max_seq_length 1024",
        f"{clk.hf()} - WARNING - __main__ - Process rank: 0, device: cuda:0, n_gpu: 1distributed training: False, 16-bits training: True",
    ]
    a = dict(HF_DEFAULT_ARGS)
    a.update({"fp16": True, "learning_rate": 3e-05, "output_dir": "out/tickets-roberta", "per_device_train_batch_size": 16, "logging_steps": 50})
    out.append(f"{clk.hf()} - INFO - __main__ - Training/evaluation parameters " + hf_args_dump(a).rstrip("\n"))
    out.append(f"{clk.hf()} - INFO - __main__ - torch 2.1.0+cu121 transformers 4.35.2 GPU NVIDIA A100-SXM4-40GB")
    out.append(f"Using custom data configuration default-7c1f9a2b1e0d4c55")
    out.append(f"{clk.hf()} - INFO - datasets.builder - Generating dataset csv (/root/.cache/huggingface/datasets/csv/default-7c1f9a2b1e0d4c55/0.0.0/eea64c71ca8b46dd3f537ed218fc9bf495d5707789152eb2764f5c78fa66d59d)")
    out.append("Generating train split: 41236 examples [00:00, 187311.22 examples/s]")
    out.append("Generating validation split: 2170 examples [00:00, 162230.51 examples/s]")
    out.append("[INFO|configuration_utils.py:717] " + clk.ds() + " >> loading configuration file config.json from cache at /root/.cache/huggingface/hub/models--roberta-base/snapshots/e2da8e2f811d1448a5b465c236feacd80ffbac7b/config.json")
    out.append("[INFO|configuration_utils.py:777] " + clk.ds() + ' >> Model config RobertaConfig {\n  "_name_or_path": "roberta-base",\n  "architectures": [\n    "RobertaForMaskedLM"\n  ],\n  "attention_probs_dropout_prob": 0.1,\n  "bos_token_id": 0,\n  "eos_token_id": 2,\n  "hidden_act": "gelu",\n  "hidden_size": 768,\n  "id2label": {\n    "0": "LABEL_0",\n    "1": "LABEL_1",\n    "2": "LABEL_2",\n    "3": "LABEL_3",\n    "4": "LABEL_4",\n    "5": "LABEL_5"\n  },\n  "layer_norm_eps": 1e-05,\n  "max_position_embeddings": 514,\n  "model_type": "roberta",\n  "num_attention_heads": 12,\n  "num_hidden_layers": 12,\n  "pad_token_id": 1,\n  "position_embedding_type": "absolute",\n  "transformers_version": "4.35.2",\n  "type_vocab_size": 1,\n  "vocab_size": 50265\n}\n')
    out.append(f"{clk.hf()} - WARNING - __main__ - The max_seq_length passed (1024) is larger than the maximum length for the model (512). Using max_seq_length=512.")
    out.append("Running tokenizer on dataset:   0%|          | 0/41236 [00:00<?, ? examples/s]")
    out.append("Token indices sequence length is longer than the specified maximum sequence length for this model (733 > 512). Running this sequence through the model will result in indexing errors")
    out.append("Running tokenizer on dataset: 100%|██████████| 41236/41236 [00:07<00:00, 5410.83 examples/s]")
    out.append("Running tokenizer on dataset: 100%|██████████| 2170/2170 [00:00<00:00, 5602.11 examples/s]")
    out.append(f"[WARNING|modeling_utils.py:3963] {clk.ds(8, 9)} >> Some weights of RobertaForSequenceClassification were not initialized from the model checkpoint at roberta-base and are newly initialized: ['classifier.dense.weight', 'classifier.out_proj.bias', 'classifier.out_proj.weight', 'classifier.dense.bias']")
    out.append("You should probably TRAIN this model on a down-stream task to be able to use it for predictions and inference.")
    for n, m in [(1723, "***** Running training *****"), (1724, "  Num examples = 41,236"), (1725, "  Num Epochs = 3"), (1726, "  Instantaneous batch size per device = 16"),
                 (1729, "  Total train batch size (w. parallel, distributed & accumulation) = 16"), (1730, "  Gradient Accumulation steps = 1"),
                 (1731, "  Total optimization steps = 7,734"), (1732, "  Number of trainable parameters = 124,650,246")]:
        out.append(f"[INFO|trainer.py:{n}] {clk.ds(0, 0.002)} >> {m}")
    out.append("  0%|          | 0/7734 [00:00<?, ?it/s]You're using a RobertaTokenizerFast tokenizer. Please note that with a fast tokenizer, using the `__call__` method is faster than using a method to encode the text followed by a call to the `pad` method to get a padded encoding.")
    done = 0
    for done in (9, 18, 27, 36, 45):
        out.append(tqdm_line(done, 7734, done / 7.9, 7.9, unit_is_s_per_it=False))
    out.append("{'loss': 1.7511, 'learning_rate': 2.9806e-05, 'epoch': 0.02}")
    out.append(tqdm_line(50, 7734, 6.4, 7.8, unit_is_s_per_it=False))
    out.append(tqdm_line(57, 7734, 7.3, 7.8, unit_is_s_per_it=False))
    out += assert_lines(rng, "../aten/src/ATen/native/cuda/Indexing.cu", 1292, "indexSelectLargeIndex", "srcIndex < srcSelectDimSize", 32, 1760)
    mod = f"{site}/torch/nn/modules/module.py"
    out.append(block(f"""
        Traceback (most recent call last):
          File "/workspace/tickets/run_cls.py", line 651, in <module>
            main()
          File "/workspace/tickets/run_cls.py", line 566, in main
            train_result = trainer.train(resume_from_checkpoint=checkpoint)
          File "{site}/transformers/trainer.py", line 1555, in train
            return inner_training_loop(
          File "{site}/transformers/trainer.py", line 1860, in _inner_training_loop
            tr_loss_step = self.training_step(model, inputs)
          File "{site}/transformers/trainer.py", line 2725, in training_step
            loss = self.compute_loss(model, inputs)
          File "{site}/transformers/trainer.py", line 2748, in compute_loss
            outputs = model(**inputs)
          File "{mod}", line 1518, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{mod}", line 1527, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site}/accelerate/utils/operations.py", line 659, in forward
            return model_forward(*args, **kwargs)
          File "{site}/accelerate/utils/operations.py", line 647, in __call__
            return convert_to_fp32(self.model_forward(*args, **kwargs))
          File "{site}/torch/amp/autocast_mode.py", line 16, in decorate_autocast
            return func(*args, **kwargs)
          File "{site}/transformers/models/roberta/modeling_roberta.py", line 1199, in forward
            outputs = self.roberta(
          File "{mod}", line 1518, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{mod}", line 1527, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site}/transformers/models/roberta/modeling_roberta.py", line 835, in forward
            encoder_outputs = self.encoder(
          File "{mod}", line 1518, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{mod}", line 1527, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site}/transformers/models/roberta/modeling_roberta.py", line 522, in forward
            layer_outputs = layer_module(
          File "{mod}", line 1518, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{mod}", line 1527, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site}/transformers/models/roberta/modeling_roberta.py", line 411, in forward
            self_attention_outputs = self.attention(
          File "{mod}", line 1518, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{mod}", line 1527, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site}/transformers/models/roberta/modeling_roberta.py", line 338, in forward
            self_outputs = self.self(
          File "{mod}", line 1518, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{mod}", line 1527, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site}/transformers/models/roberta/modeling_roberta.py", line 216, in forward
            mixed_query_layer = self.query(hidden_states)
          File "{mod}", line 1518, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{mod}", line 1527, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site}/torch/nn/modules/linear.py", line 114, in forward
            return F.linear(input, self.weight, self.bias)
        RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, ldc, CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`
        """).rstrip("\n"))
    out.append("  1%|          | 57/7734 [00:07<16:22,  7.81it/s]")
    return Case(
        case_id="cuda-device-side-assert-roberta-positions-cublas-03",
        label="cuda-device-side-assert",
        difficulty="medium",
        description="HF Trainer fine-tune of roberta-base without truncation (tokenizer warns 733 > 512); position ids exceed max_position_embeddings=514, indexSelectLargeIndex asserts, and the visible error is CUBLAS_STATUS_EXECUTION_FAILED in the next Linear.",
        initiating_rank=None,
        facts={"gpu_model": "A100-SXM4-40GB", "torch_version": "2.1.0", "transformers_version": "4.35.2", "launcher": "python",
               "precision": "fp16", "failure_step": "57"},
        must_mention=["truncation", "max_position_embeddings"],
        files={"train.log": "\n".join(out)},
    )


def dsa_nli_minus_one_8rank() -> Case:
    rng = random.Random(304)
    clk = Clock(datetime(2024, 1, 9, 8, 30, 2), rng)
    site = "/usr/local/lib/python3.10/dist-packages"
    hf_tok = fake_hf_token(rng)
    out = [
        "+ env | grep -E '^(HF_|CUDA|NCCL|TORCH|OMP)' | sort",
        "CUDA_HOME=/usr/local/cuda",
        "HF_DATASETS_CACHE=/mnt/cache/datasets",
        "HF_HUB_ENABLE_HF_TRANSFER=1",
        f"HF_TOKEN={hf_tok}",
        "NCCL_DEBUG=WARN",
        "TORCH_DISTRIBUTED_DEBUG=OFF",
        "+ torchrun --standalone --nproc_per_node 8 --tee 3 train_nli.py --model microsoft/deberta-v3-large --dataset snli --bf16 --bsz 32 --lr 1e-5 --epochs 2",
        "WARNING:torch.distributed.run:",
        "*****************************************",
        "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
        "*****************************************",
    ]
    for r in range(8):
        out.append(f"[default{r}]:[{clk.ds(0.5, 1)}] rank {r}: torch 2.1.2+cu121 device cuda:{r} (NVIDIA A100-SXM4-80GB)")
    out.append(f"[default0]:NCCL version 2.18.1+cuda12.1")
    out.append(f"[default0]:[{clk.ds(5, 8)}] loading snli (train 550152, validation 10000, test 10000)")
    out.append(f"[default0]:[{clk.ds(1, 2)}] label distribution (train): {{0: 183416, 1: 182764, 2: 183187, -1: 785}}")
    out.append(f"[default0]:[{clk.ds()}] num_labels=3 (entailment, neutral, contradiction); loss=CrossEntropyLoss()")
    for r in range(8):
        out.append(f"[default{r}]:{site}/transformers/convert_slow_tokenizer.py:473: UserWarning: The sentencepiece tokenizer that you are converting to a fast tokenizer uses the byte fallback option which is not implemented in the fast tokenizers. In practice this means that the tokenizer can produce unknown tokens whereas the sentencepiece model would not have produced any.")
        out.append(f"[default{r}]:  warnings.warn(")
    out.append(f"[default0]:Some weights of DebertaV2ForSequenceClassification were not initialized from the model checkpoint at microsoft/deberta-v3-large and are newly initialized: ['classifier.bias', 'classifier.weight', 'pooler.dense.bias', 'pooler.dense.weight']")
    out.append(f"[default0]:You should probably TRAIN this model on a down-stream task to be able to use it for predictions and inference.")
    out.append(f"[default0]:[{clk.ds(20, 30)}] 2149 steps/epoch (global batch 256), eval every 500 steps")
    loss = 1.1
    for step in range(50, 801, 50):
        loss = max(0.28, loss * 0.88 + 0.3 * 0.12 + rng.uniform(-0.02, 0.02))
        out.append(f"[default0]:[{clk.ds(27, 29)}] step {step:>4}/4298 loss {loss:.4f} lr {min(1e-5, 1e-5 * step / 400):.2e} {rng.uniform(1.75, 1.85):.2f} it/s")
        if step == 500:
            out.append(f"[default0]:[{clk.ds(20, 25)}] eval step 500: acc 0.9071 loss 0.2690")
    clk.tick(6, 7)
    asserts = assert_lines(rng, "../aten/src/ATen/native/cuda/Loss.cu", 250, "nll_loss_forward_reduce_cuda_kernel_2d", "t >= 0 && t < n_classes", 1, 1, threads=32, fixed_block=True)
    out += [f"[default5]:{a}" for a in asserts]
    tb = block(f"""
        Traceback (most recent call last):
          File "/workspace/nli/train_nli.py", line 203, in <module>
            main()
          File "/workspace/nli/train_nli.py", line 177, in main
            running += loss.detach().float().item()
        """) + cuda_error("device-side assert triggered", "2.1.2")
    out.append(prefix(tb, "[default5]:").rstrip("\n"))
    t = clk.tick(0.5, 1)
    wd = "[Rank 5] NCCL watchdog thread terminated with exception: CUDA error: device-side assert triggered"
    out.append(f"[default5]:[E ProcessGroupNCCL.cpp:916] {wd}")
    out.append("[default5]:CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.")
    out.append("[default5]:For debugging consider passing CUDA_LAUNCH_BLOCKING=1.")
    out.append("[default5]:Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    out.append("[default5]:")
    out.append(prefix(c10_frames(rng, site, "watchdog", 44), "[default5]:").rstrip("\n"))
    out.append("[default5]:")
    out.append("[default5]:terminate called after throwing an instance of 'std::runtime_error'")
    out.append(f"[default5]:  what():  {wd}")
    out.append("[default5]:CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.")
    clk.tick(3, 4)
    for r in (0, 1, 2, 3, 4, 6, 7):
        out.append(f"WARNING:torch.distributed.elastic.multiprocessing.api:Sending process {51200 + r} closing signal SIGTERM")
    out.append(f"ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 5 (pid: 51205) of binary: /usr/bin/python")
    fails = [(r, r, -15, 51200 + r, "SIGTERM") for r in (0, 1, 2, 3, 4, 6, 7)]
    out.append(child_failed("train_nli.py", clk.t, "nli-train-0", fails, (5, 5, -6, 51205, "SIGABRT"), site, torchrun_bin="/usr/local/bin/torchrun",
                            api=(134, 264, 346), run_line=(806, 797)).rstrip("\n"))
    return Case(
        case_id="cuda-device-side-assert-nli-minus-one-8rank-04",
        label="cuda-device-side-assert",
        difficulty="hard",
        description="8-GPU torchrun --tee 3 fine-tune on SNLI, whose train split has 785 examples labelled -1; at step ~810 rank 5 asserts in nll_loss (t >= 0), its watchdog aborts, torchrun SIGTERMs the other 7 ranks and ends with a ChildFailedError.",
        initiating_rank=5,
        facts={"gpu_model": "A100-SXM4-80GB", "torch_version": "2.1.2", "nccl_version": "2.18.1", "launcher": "torchrun", "world_size": "8",
               "precision": "bf16", "exit_code": "-6", "signal": "SIGABRT"},
        must_mention=["label", "rank 5"],
        secrets=[hf_tok],
        files={"train.log": "\n".join(out)},
    )


# ==================================================================================================
# cuda-no-kernel-image


def sm_warning(site: str, line: int, gpu: str, cap: str, supported: str) -> str:
    return (
        f"{site}/torch/cuda/__init__.py:{line}: UserWarning: \n"
        f"NVIDIA {gpu} with CUDA capability {cap} is not compatible with the current PyTorch installation.\n"
        f"The current PyTorch install supports CUDA capabilities {supported}.\n"
        f"If you want to use the NVIDIA {gpu} GPU with PyTorch, please check the instructions at https://pytorch.org/get-started/locally/\n\n"
        "  warnings.warn(\n"
    )


CU124_ARCHS = "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90"


def nki_rtx5090_wheel() -> Case:
    rng = random.Random(401)
    site = "/home/dev/.venvs/llm/lib/python3.12/site-packages"
    when = datetime(2025, 3, 2, 20, 14, 55)
    out = ["$ nvidia-smi"]
    out.append(nvidia_smi(when, "570.124.04", "12.8", [Gpu("NVIDIA GeForce RTX 5090", "00000000:01:00.0", 32607, 575, mem_used_mib=1183, temp=38, power=29, persistence="Off", disp="On", fan="0%", perf="P8", ecc="N/A")],
                          procs=[(0, 2231, "/usr/lib/xorg/Xorg", 412), (0, 2517, "/usr/bin/gnome-shell", 187)]).rstrip("\n"))
    out.append("$ python -c 'import torch; print(torch.__version__, torch.version.cuda)'")
    out.append("2.5.1+cu124 12.4")
    out.append("$ python lora_train.py --base Qwen/Qwen2.5-1.5B-Instruct --data data/recipes.jsonl --r 16 --epochs 2")
    out.append(sm_warning(site, 235, "GeForce RTX 5090", "sm_120", CU124_ARCHS).rstrip("\n"))
    out.append("loading Qwen/Qwen2.5-1.5B-Instruct on cuda:0 (bf16)")
    out.append("trainable params: 9,232,384 || all params: 1,552,946,688 || trainable%: 0.5945")
    out.append("Map: 100%|██████████| 5200/5200 [00:01<00:00, 3764.12 examples/s]")
    out.append("  0%|          | 0/650 [00:00<?, ?it/s]")
    mod = f"{site}/torch/nn/modules/module.py"
    out.append(block(f"""
        Traceback (most recent call last):
          File "/home/dev/recipes/lora_train.py", line 96, in <module>
            trainer.train()
          File "{site}/transformers/trainer.py", line 2123, in train
            return inner_training_loop(
                   ^^^^^^^^^^^^^^^^^^^^
          File "{site}/transformers/trainer.py", line 2481, in _inner_training_loop
            tr_loss_step = self.training_step(model, inputs, num_items_in_batch)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/transformers/trainer.py", line 3579, in training_step
            loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/transformers/trainer.py", line 3633, in compute_loss
            outputs = model(**inputs)
                      ^^^^^^^^^^^^^^^
          File "{mod}", line 1736, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{mod}", line 1747, in _call_impl
            return forward_call(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/peft/peft_model.py", line 1644, in forward
            return self.base_model(
                   ^^^^^^^^^^^^^^^^
          File "{mod}", line 1736, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{mod}", line 1747, in _call_impl
            return forward_call(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/peft/tuners/tuners_utils.py", line 197, in forward
            return self.model.forward(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/transformers/models/qwen2/modeling_qwen2.py", line 1164, in forward
            outputs = self.model(
                      ^^^^^^^^^^^
          File "{mod}", line 1736, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{mod}", line 1747, in _call_impl
            return forward_call(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/transformers/models/qwen2/modeling_qwen2.py", line 854, in forward
            inputs_embeds = self.embed_tokens(input_ids)
                            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{mod}", line 1736, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{mod}", line 1747, in _call_impl
            return forward_call(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/torch/nn/modules/sparse.py", line 190, in forward
            return F.embedding(
                   ^^^^^^^^^^^^
          File "{site}/torch/nn/functional.py", line 2551, in embedding
            return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
        """).rstrip("\n"))
    out.append(cuda_error("no kernel image is available for execution on the device", "2.5.1").rstrip("\n"))
    out.append("  0%|          | 0/650 [00:00<?, ?it/s]")
    return Case(
        case_id="cuda-no-kernel-image-rtx5090-cu124-01",
        label="cuda-no-kernel-image",
        difficulty="easy",
        description="RTX 5090 (sm_120) workstation with driver 570 and torch 2.5.1+cu124, whose arch list stops at sm_90; the compatibility warning prints at start and the first embedding kernel fails with no kernel image.",
        initiating_rank=None,
        facts={"gpu_model": "GeForce RTX 5090", "driver_version": "570.124.04", "torch_version": "2.5.1", "cuda_version": "12.4",
               "gpu_arch": "sm_120", "compute_capability": "12.0", "launcher": "python"},
        must_mention=["sm_120", "cu128"],
        files={"train.log": "\n".join(out)},
    )


def nki_extension_arch_list() -> Case:
    rng = random.Random(402)
    clk = Clock(datetime(2024, 5, 21, 15, 40, 8), rng)
    site = "/usr/local/lib/python3.10/dist-packages"
    out = [
        "==> image: registry.corp.local/nlp/infer:2024.05.2 (built 2024-05-17 on ci-gpu-a100-02)",
        "==> build env: CUDA_HOME=/usr/local/cuda TORCH_CUDA_ARCH_LIST=7.5;8.0;8.6 MAX_JOBS=16",
        "==> python -m infer.batch_generate --model /models/tulu-13b-ft --in /data/prompts/eval_v5.jsonl --out /data/out/eval_v5.jsonl --bsz 32",
        f"{clk.ds()} INFO infer: torch 2.2.2+cu121, device NVIDIA H100 80GB HBM3 (capability 9.0), 1 visible GPU",
        f"{clk.ds()} INFO infer: custom kernels: infer_kernels 0.4.0 (fused_rmsnorm, rotary_inplace) from {site}/infer_kernels",
        f"{clk.ds(0.2, 0.5)} INFO infer: loading /models/tulu-13b-ft (bf16, 26.0 GB)",
        "Loading checkpoint shards: 100%|██████████| 6/6 [00:09<00:00,  1.52s/it]",
        f"{clk.ds(10, 11)} INFO infer: replaced 81 RMSNorm modules with FusedRMSNorm",
        f"{clk.ds()} INFO infer: 2,000 prompts, 63 batches",
        "generate:   0%|          | 0/63 [00:00<?, ?it/s]",
    ]
    mod = f"{site}/torch/nn/modules/module.py"
    out.append(block(f"""
        Traceback (most recent call last):
          File "/usr/lib/python3.10/runpy.py", line 196, in _run_module_as_main
            return _run_code(code, main_globals, None,
          File "/usr/lib/python3.10/runpy.py", line 86, in _run_code
            exec(code, run_globals)
          File "/app/infer/batch_generate.py", line 147, in <module>
            main()
          File "/app/infer/batch_generate.py", line 129, in main
            out = model.generate(**enc, max_new_tokens=args.max_new_tokens, do_sample=False)
          File "{site}/torch/utils/_contextlib.py", line 115, in decorate_context
            return func(*args, **kwargs)
          File "{site}/transformers/generation/utils.py", line 1527, in generate
            result = self._greedy_search(
          File "{site}/transformers/generation/utils.py", line 2411, in _greedy_search
            outputs = self(
          File "{mod}", line 1511, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{mod}", line 1520, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site}/transformers/models/llama/modeling_llama.py", line 1196, in forward
            outputs = self.model(
          File "{mod}", line 1511, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{mod}", line 1520, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site}/transformers/models/llama/modeling_llama.py", line 1016, in forward
            layer_outputs = decoder_layer(
          File "{mod}", line 1511, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{mod}", line 1520, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site}/transformers/models/llama/modeling_llama.py", line 726, in forward
            hidden_states = self.input_layernorm(hidden_states)
          File "{mod}", line 1511, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
          File "{mod}", line 1520, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site}/infer_kernels/norm.py", line 38, in forward
            return fused_rmsnorm_cuda.forward(x, self.weight, self.eps)
        """).rstrip("\n"))
    out.append(cuda_error("no kernel image is available for execution on the device", "2.2.2").rstrip("\n"))
    out.append("generate:   0%|          | 0/63 [00:01<?, ?it/s]")
    out.append(f"==> exit status 1 after {rng.randrange(24, 29)}s")
    return Case(
        case_id="cuda-no-kernel-image-extension-arch-list-02",
        label="cuda-no-kernel-image",
        difficulty="easy",
        description="Batch inference on an H100 with an image whose custom fused_rmsnorm extension was built with TORCH_CUDA_ARCH_LIST=7.5;8.0;8.6 (no sm_90, no PTX); torch itself runs, the extension call fails with no kernel image.",
        initiating_rank=None,
        facts={"gpu_model": "H100 80GB HBM3", "torch_version": "2.2.2", "cuda_version": "12.1", "compute_capability": "9.0", "launcher": "python", "exit_code": "1"},
        must_mention=["TORCH_CUDA_ARCH_LIST"],
        files={"infer.log": "\n".join(out)},
    )


def nki_b200_torchrun() -> Case:
    rng = random.Random(403)
    clk = Clock(datetime(2025, 2, 11, 7, 5, 31), rng)
    site = "/opt/venv/lib/python3.11/site-packages"
    out = ["# smoke test on new b200 partition", "$ nvidia-smi -L"]
    out += [f"GPU {i}: NVIDIA B200 (UUID: GPU-{rand_token(rng, HEX, 8)}-{rand_token(rng, HEX, 4)}-{rand_token(rng, HEX, 4)}-{rand_token(rng, HEX, 4)}-{rand_token(rng, HEX, 12)})" for i in range(8)]
    out.append("$ nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1")
    out.append("570.86.15")
    out.append("$ torchrun --standalone --nproc_per_node 8 train_gpt.py --config configs/gpt2_xl_smoke.yaml")
    out.append(torchrun_omp_banner(clk, 318811).rstrip("\n"))
    warn = sm_warning(site, 235, "B200", "sm_100", CU124_ARCHS)
    order = [3, 0, 6, 1, 7, 4, 2, 5]
    for r in order:
        out.append(prefix(warn, f"[rank{r}]:").rstrip("\n"))
    out.append(f"[rank0]: {clk.ds(3, 4)} train_gpt | torch 2.5.1+cu124 | world 8 | model gpt2-xl 1.56B | bf16 | compile=False")
    out.append(f"[rank0]: {clk.ds(1, 2)} train_gpt | data /lustre/data/fineweb-edu-10B shards=96")
    mod = f"{site}/torch/nn/modules/module.py"
    tb = block(f"""
        Traceback (most recent call last):
          File "/lustre/home/ci/gpt/train_gpt.py", line 309, in <module>
            main()
          File "/lustre/home/ci/gpt/train_gpt.py", line 248, in main
            logits, loss = model(x, y)
                           ^^^^^^^^^^^
          File "{mod}", line 1736, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{mod}", line 1747, in _call_impl
            return forward_call(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/torch/nn/parallel/distributed.py", line 1643, in forward
            else self._run_ddp_forward(*inputs, **kwargs)
                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/torch/nn/parallel/distributed.py", line 1459, in _run_ddp_forward
            return self.module(*inputs, **kwargs)  # type: ignore[index]
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{mod}", line 1736, in _wrapped_call_impl
            return self._call_impl(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{mod}", line 1747, in _call_impl
            return forward_call(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "/lustre/home/ci/gpt/model.py", line 181, in forward
            pos = torch.arange(0, t, dtype=torch.long, device=device)
                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
        """) + cuda_error("no kernel image is available for execution on the device", "2.5.1")
    for r in order:
        out.append(prefix(tb, f"[rank{r}]: ").rstrip("\n"))
    t = clk.tick(1, 2)
    out.append(f"{clk.glog('W', nanos=True)} 318811 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 318894 closing signal SIGTERM")
    out.append(f"{clk.glog('E', 0.2, 0.3, nanos=True)} 318811 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 318887) of binary: /opt/venv/bin/python3")
    fails = [(r, r, 1, 318887 + r, None) for r in (1, 2, 3, 4, 5, 6)] + [(7, 7, -15, 318894, "SIGTERM")]
    out.append(child_failed("train_gpt.py", t, "b200-node-004", fails, (0, 0, 1, 318887, None), site, torchrun_bin="/opt/venv/bin/torchrun",
                            api=(138, 269, 355), run_line=(919, 910)).rstrip("\n"))
    return Case(
        case_id="cuda-no-kernel-image-b200-torchrun-03",
        label="cuda-no-kernel-image",
        difficulty="medium",
        description="8x B200 (sm_100) smoke test with torch 2.5.1+cu124; every rank prints the sm_100 compatibility warning and fails at its first kernel (torch.arange) after DDP setup; the log ends with torchrun's ChildFailedError.",
        initiating_rank=0,
        facts={"gpu_model": "B200", "driver_version": "570.86.15", "torch_version": "2.5.1", "cuda_version": "12.4", "gpu_arch": "sm_100",
               "launcher": "torchrun", "world_size": "8", "exit_code": "1"},
        must_mention=["sm_100", "cu128"],
        files={"smoke.log": "\n".join(out)},
    )


def nki_cpu_fallback_oom() -> Case:
    rng = random.Random(404)
    clk = Clock(datetime(2025, 3, 4, 10, 11, 58), rng)
    site = "/usr/local/lib/python3.11/site-packages"
    key_id, secret = fake_aws(rng)
    out = [
        "$ docker run --rm --gpus all --env-file prod.env -p 8080:8080 registry.internal/llm-serve:1.4.2",
        f"[entrypoint] MODEL_URI=s3://acme-ml-models/mistral-7b-instruct-v0.3/ AWS_DEFAULT_REGION=eu-west-1 AWS_ACCESS_KEY_ID={key_id} AWS_SECRET_ACCESS_KEY={secret} DEVICE=auto DTYPE=float16 MAX_BATCH=8",
        f"[entrypoint] container memory limit: none; host RAM 31.1 GiB; swap 0",
        f"{clk.ds()} INFO serve: torch 2.5.1+cu124, transformers 4.46.3, accelerate 1.1.1",
        f"{clk.ds()} INFO serve: cuda available: True, device 0: NVIDIA GeForce RTX 5090 (31.36 GiB)",
        sm_warning(site, 235, "GeForce RTX 5090", "sm_120", CU124_ARCHS).rstrip("\n"),
        f"{clk.ds()} INFO serve: syncing s3://acme-ml-models/mistral-7b-instruct-v0.3/ -> /models/mistral-7b-instruct-v0.3",
        f"{clk.ds(60, 70)} INFO serve: downloaded 3 files (14.50 GB) in 64.2s",
        f"{clk.ds()} INFO serve: loading model on cuda:0 dtype=float16",
        "Loading checkpoint shards: 100%|██████████| 3/3 [00:05<00:00,  1.74s/it]",
        f"{clk.ds(5, 6)} INFO serve: warm-up: 1 x 32 tokens on cuda:0",
        f"{clk.ds()} WARNING serve: GPU warm-up failed: CUDA error: no kernel image is available for execution on the device",
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
        f"{clk.ds()} WARNING serve: DEVICE=auto -> falling back to CPU; float16 is slow on CPU, loading in float32",
        f"{clk.ds()} INFO serve: loading model on cpu dtype=float32 (expected 28.9 GB resident)",
        "Loading checkpoint shards:   0%|          | 0/3 [00:00<?, ?it/s]",
        "Loading checkpoint shards:  33%|███▎      | 1/3 [00:21<00:42, 21.38s/it]",
        "Loading checkpoint shards:  67%|██████▋   | 2/3 [00:47<00:24, 24.15s/it]",
        "Killed",
        "[entrypoint] server process exited with code 137",
    ]
    return Case(
        case_id="cuda-no-kernel-image-cpu-fallback-killed-04",
        label="cuda-no-kernel-image",
        difficulty="hard",
        description="Inference container on an RTX 5090 with torch 2.5.1+cu124: warm-up fails with no kernel image, the server silently falls back to CPU, loads a 7B model in float32 into 31 GiB of host RAM and is OOM-killed (exit 137), which is the last thing the log shows.",
        initiating_rank=None,
        facts={"gpu_model": "GeForce RTX 5090", "torch_version": "2.5.1", "cuda_version": "12.4", "gpu_arch": "sm_120", "exit_code": "137"},
        must_mention=["sm_120"],
        also=["host-oom-killed"],
        secrets=[key_id, secret],
        files={"serve.log": "\n".join(out)},
    )


# ==================================================================================================
# cuda-driver-too-old


def too_old_msg(found: int) -> str:
    return (f"The NVIDIA driver on your system is too old (found version {found}). Please update your GPU driver by downloading and installing a new "
            "version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch "
            "version that has been compiled with your version of the CUDA driver.")


def dto_470_cu121() -> Case:
    rng = random.Random(501)
    site = "/opt/conda/lib/python3.10/site-packages"
    when = datetime(2024, 2, 6, 13, 22, 40)
    out = ["jupyter@a100-ner-vm:~/bert_ner$ nvidia-smi"]
    out.append(nvidia_smi(when, "470.199.02", "11.4", [Gpu("NVIDIA A100-SXM4-40GB", "00000000:00:04.0", 40536, 400, mem_used_mib=0, temp=29, power=52)]).rstrip("\n"))
    out.append("jupyter@a100-ner-vm:~/bert_ner$ pip list 2>/dev/null | grep -E '^(torch|transformers|datasets|accelerate) '")
    out += ["accelerate                    0.26.1", "datasets                      2.16.1", "torch                         2.1.2", "transformers                  4.37.2"]
    out.append("jupyter@a100-ner-vm:~/bert_ner$ python train.py --model bert-large-cased --dataset conll2003 --epochs 3 --bsz 32")
    out.append("Loading conll2003 ...")
    out.append("Map: 100%|██████████| 14041/14041 [00:01<00:00, 9612.02 examples/s]")
    out.append("Map: 100%|██████████| 3250/3250 [00:00<00:00, 9930.77 examples/s]")
    out.append("Map: 100%|██████████| 3453/3453 [00:00<00:00, 9875.41 examples/s]")
    out.append("Some weights of BertForTokenClassification were not initialized from the model checkpoint at bert-large-cased and are newly initialized: ['classifier.bias', 'classifier.weight']")
    out.append("You should probably TRAIN this model on a down-stream task to be able to use it for predictions and inference.")
    out.append("device: cuda")
    mod = f"{site}/torch/nn/modules/module.py"
    out.append(block(f"""
        Traceback (most recent call last):
          File "/home/jupyter/bert_ner/train.py", line 88, in <module>
            model.to(device)
          File "{site}/transformers/modeling_utils.py", line 2460, in to
            return super().to(*args, **kwargs)
          File "{mod}", line 1160, in to
            return self._apply(convert)
          File "{mod}", line 810, in _apply
            module._apply(fn)
          File "{mod}", line 810, in _apply
            module._apply(fn)
          File "{mod}", line 810, in _apply
            module._apply(fn)
          File "{mod}", line 833, in _apply
            param_applied = fn(param)
          File "{mod}", line 1158, in convert
            return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None, non_blocking)
          File "{site}/torch/cuda/__init__.py", line 298, in _lazy_init
            torch._C._cuda_init()
        RuntimeError: {too_old_msg(11040)}
        """).rstrip("\n"))
    return Case(
        case_id="cuda-driver-too-old-470-cu121-01",
        label="cuda-driver-too-old",
        difficulty="easy",
        description="Cloud VM with an A100 and driver 470.199.02 (CUDA 11.4) running torch 2.1.2 (cu121 wheel); model.to('cuda') fails in _lazy_init with 'driver too old (found version 11040)'.",
        initiating_rank=None,
        facts={"gpu_model": "A100-SXM4-40GB", "driver_version": "470.199.02", "torch_version": "2.1.2", "launcher": "python"},
        must_mention=["driver"],
        files={"train.log": "\n".join(out)},
    )


def dto_slurm_515_nvcc() -> Case:
    rng = random.Random(502)
    clk = Clock(datetime(2024, 11, 4, 22, 7, 13), rng)
    user = "lchen"
    site = f"/home/{user}/envs/seg/lib/python3.10/site-packages"
    when = clk.t
    out = [
        f"Job 2290418 'seg-ddp' on gpu-v100-12 (4 x V100) for {user}, started {when.strftime('%Y-%m-%dT%H:%M:%S')}",
        f"SLURM_JOB_USER={user} SLURM_JOB_ID=2290418 SLURM_GPUS_ON_NODE=4 CUDA_VISIBLE_DEVICES=0,1,2,3",
        "+ module load cuda/12.4 gcc/11.2",
        "+ nvcc --version",
        "nvcc: NVIDIA (R) Cuda compiler driver",
        "Copyright (c) 2005-2024 NVIDIA Corporation",
        "Built on Thu_Mar_28_02:18:24_PDT_2024",
        "Cuda compilation tools, release 12.4, V12.4.131",
        "Build cuda_12.4.r12.4/compiler.34097967_0",
        "+ nvidia-smi",
    ]
    gpus = [Gpu("Tesla V100-SXM2-32GB", f"00000000:{b}:00.0", 32768, 300, mem_used_mib=0, temp=33 + i, power=42 + i) for i, b in enumerate(("1A", "1C", "88", "8A"))]
    out.append(nvidia_smi(when, "515.105.01", "11.7", gpus).rstrip("\n"))
    out.append(f"+ source /home/{user}/envs/seg/bin/activate")
    out.append("+ python -c 'import torch; print(torch.__version__)'")
    out.append("2.4.1+cu124")
    out.append(f"+ torchrun --standalone --nproc_per_node 4 /home/{user}/proj/seg/train_ddp.py --cfg configs/deeplab_r101_cityscapes.yaml")
    out.append(torchrun_omp_banner(clk, 70144).rstrip("\n"))
    tb = block(f"""
        Traceback (most recent call last):
          File "/home/{user}/proj/seg/train_ddp.py", line 212, in <module>
            main()
          File "/home/{user}/proj/seg/train_ddp.py", line 141, in main
            torch.cuda.set_device(local_rank)
          File "{site}/torch/cuda/__init__.py", line 478, in set_device
            torch._C._cuda_setDevice(device)
          File "{site}/torch/cuda/__init__.py", line 319, in _lazy_init
            torch._C._cuda_init()
        RuntimeError: {too_old_msg(11070)}
        """)
    for r in (2, 0, 3, 1):
        out.append(prefix(tb, f"[rank{r}]: ").rstrip("\n"))
    t = clk.tick(2, 3)
    out.append(f"{clk.glog('E', nanos=True)} 70144 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: 1) local_rank: 0 (pid: 70211) of binary: /home/{user}/envs/seg/bin/python")
    out.append(child_failed(f"/home/{user}/proj/seg/train_ddp.py", t, "gpu-v100-12", [(r, r, 1, 70211 + r, None) for r in (1, 2, 3)], (0, 0, 1, 70211, None), site,
                            torchrun_bin=f"/home/{user}/envs/seg/bin/torchrun", api=(133, 264, 348), run_line=(901, 892)).rstrip("\n"))
    out.append(f"srun: error: gpu-v100-12: task 0: Exited with exit code 1")
    return Case(
        case_id="cuda-driver-too-old-slurm-515-nvcc-02",
        label="cuda-driver-too-old",
        difficulty="medium",
        description="Slurm job on a V100 node with driver 515.105.01 (max CUDA 11.7) running torch 2.4.1+cu124 under torchrun; the job script loads the CUDA 12.4 toolkit (nvcc 12.4, a red herring) and every rank fails at set_device with 'found version 11070'.",
        initiating_rank=0,
        facts={"gpu_model": "Tesla V100-SXM2-32GB", "driver_version": "515.105.01", "torch_version": "2.4.1", "cuda_version": "12.4",
               "launcher": "torchrun", "world_size": "4", "exit_code": "1"},
        must_mention=["driver", "nvcc"],
        secrets=[user],
        files={"slurm-2290418.out": "\n".join(out)},
    )


def dto_hf_fp16_cpu_fallback() -> Case:
    rng = random.Random(503)
    clk = Clock(datetime(2024, 1, 23, 9, 48, 2), rng)
    site = "/opt/conda/lib/python3.10/site-packages"
    out = ["root@asr-train-2:/workspace/asr# nvidia-smi"]
    out.append(nvidia_smi(clk.t, "510.47.03", "11.6", [Gpu("Tesla V100-SXM2-32GB", "00000000:00:1E.0", 32768, 300, mem_used_mib=0, temp=36, power=41)]).rstrip("\n"))
    out.append("root@asr-train-2:/workspace/asr# python finetune_whisper.py --model_name_or_path openai/whisper-small --dataset_dir /data/cv_16_nl --language dutch --output_dir out/whisper-small-nl --per_device_train_batch_size 32 --learning_rate 1e-5 --warmup_steps 500 --max_steps 5000 --fp16 --predict_with_generate --eval_steps 1000 --save_steps 1000")
    out.append(f"{site}/torch/cuda/__init__.py:138: UserWarning: CUDA initialization: {too_old_msg(11060)} (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)")
    out.append("  return torch._C._cuda_getDeviceCount() > 0")
    out.append(block(f"""
        Traceback (most recent call last):
          File "/workspace/asr/finetune_whisper.py", line 402, in <module>
            main()
          File "/workspace/asr/finetune_whisper.py", line 238, in main
            model_args, data_args, training_args = parser.parse_args_into_dataclasses()
          File "{site}/transformers/hf_argparser.py", line 338, in parse_args_into_dataclasses
            obj = dtype(**inputs)
          File "<string>", line 129, in __init__
          File "{site}/transformers/training_args.py", line 1475, in __post_init__
            raise ValueError(
        ValueError: FP16 Mixed precision training with AMP or APEX (`--fp16`) and FP16 half precision evaluation (`--fp16_full_eval`) can only be used on CUDA or NPU devices or certain XPU devices (with IPEX).
        """).rstrip("\n"))
    out.append("root@asr-train-2:/workspace/asr# python -c 'import torch, transformers; print(torch.__version__, transformers.__version__, torch.cuda.is_available())'")
    out.append(f"{site}/torch/cuda/__init__.py:138: UserWarning: CUDA initialization: {too_old_msg(11060)} (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)")
    out.append("  return torch._C._cuda_getDeviceCount() > 0")
    out.append("2.1.0+cu121 4.36.2 False")
    return Case(
        case_id="cuda-driver-too-old-hf-fp16-cpu-03",
        label="cuda-driver-too-old",
        difficulty="hard",
        description="Whisper fine-tune with the HF Trainer on a V100 with driver 510.47.03 (CUDA 11.6) and torch 2.1.0+cu121; CUDA init only warns, the Trainer sees no CUDA device and the visible error is the --fp16 'can only be used on CUDA' ValueError.",
        initiating_rank=None,
        facts={"gpu_model": "Tesla V100-SXM2-32GB", "driver_version": "510.47.03", "torch_version": "2.1.0", "cuda_version": "12.1",
               "transformers_version": "4.36.2", "launcher": "python", "precision": "fp16"},
        must_mention=["driver"],
        files={"train.log": "\n".join(out)},
    )


# ==================================================================================================
# cuda-not-available (two synthetic cases; the two real CPU captures are at the end of the file)


def cna_slurm_no_gres() -> Case:
    rng = random.Random(603)
    clk = Clock(datetime(2023, 10, 2, 11, 4, 51), rng)
    user = "tnakamura"
    site = f"/home/{user}/.conda/envs/vit/lib/python3.10/site-packages"
    out = [
        f"[{clk.t.strftime('%Y-%m-%d %H:%M:%S')}] job 5518032 'vit-b16-in1k' user={user} partition=gpu nodes=gpu-a100-07 ntasks=4 cpus-per-task=16",
        f"SLURM_JOB_USER={user}",
        "SLURM_NTASKS=4",
        "SLURM_JOB_GPUS=",
        "CUDA_VISIBLE_DEVICES=",
        f"SLURM_SUBMIT_DIR=/home/{user}/vit",
        "+ srun -l nvidia-smi -L",
        "0: No devices were found",
        "2: No devices were found",
        "1: No devices were found",
        "3: No devices were found",
        f"+ srun -l python /home/{user}/vit/train_vit.py --config configs/vit_b16_in1k.yaml --dist-url env://",
    ]
    tb = block(f"""
        Traceback (most recent call last):
          File "/home/{user}/vit/train_vit.py", line 331, in <module>
            main(args)
          File "/home/{user}/vit/train_vit.py", line 188, in main
            init_distributed(args)
          File "/home/{user}/vit/utils/dist.py", line 41, in init_distributed
            torch.cuda.set_device(args.gpu)
          File "{site}/torch/cuda/__init__.py", line 350, in set_device
            torch._C._cuda_setDevice(device)
          File "{site}/torch/cuda/__init__.py", line 247, in _lazy_init
            torch._C._cuda_init()
        RuntimeError: No CUDA GPUs are available
        """)
    for r in range(4):
        out.append(f"{r}: | distributed init (rank {r}, world 4, local {r}): env://  torch 2.0.1+cu118")
    for r in (1, 0, 3, 2):
        out.append(prefix(tb, f"{r}: ").rstrip("\n"))
    out.append("srun: error: gpu-a100-07: tasks 0-3: Exited with exit code 1")
    out.append(f"[{clk.tick(9, 10).strftime('%Y-%m-%d %H:%M:%S')}] job 5518032 finished with exit code 1")
    return Case(
        case_id="cuda-not-available-slurm-no-gres-03",
        label="cuda-not-available",
        difficulty="medium",
        description="Slurm job submitted without --gres/--gpus on a GPU node with device constraints: nvidia-smi finds no devices inside the step and all 4 srun tasks fail at torch.cuda.set_device with 'No CUDA GPUs are available'.",
        initiating_rank=0,
        facts={"launcher": "srun", "world_size": "4", "torch_version": "2.0.1", "cuda_version": "11.8", "exit_code": "1"},
        must_mention=["gres"],
        secrets=[user],
        files={"slurm-5518032.out": "\n".join(out)},
    )


def cna_hidden_gpu_ordinal() -> Case:
    rng = random.Random(604)
    clk = Clock(datetime(2024, 9, 18, 6, 40, 3), rng)
    site = "/usr/local/lib/python3.10/dist-packages"
    out = [
        "[prolog] node dgx-b-14: GPU 7 (00000000:DB:00.0) quarantined after Xid 79 on 2024-09-12 (ticket HW-2231); exporting CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6",
        "$ nvidia-smi -L",
    ]
    out += [f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{rand_token(rng, HEX, 8)}-{rand_token(rng, HEX, 4)}-{rand_token(rng, HEX, 4)}-{rand_token(rng, HEX, 4)}-{rand_token(rng, HEX, 12)})" for i in range(8)]
    out.append("$ torchrun --standalone --nproc_per_node 8 pretrain.py --config configs/llama_1b_fineweb.yaml --out /ckpt/llama1b-r3")
    out.append(torchrun_omp_banner(clk, 912440).rstrip("\n"))
    for r in (0, 3, 5, 1, 6, 2, 4, 7):
        out.append(f"[rank{r}]: {clk.ds(1, 2) if r == 0 else clk.ds()} pretrain INFO rank={r} local_rank={r} world_size=8 torch=2.4.0+cu124")
    mod_cuda = f"{site}/torch/cuda/__init__.py"
    tb = block(f"""
        Traceback (most recent call last):
          File "/workspace/pretrain.py", line 412, in <module>
            main()
          File "/workspace/pretrain.py", line 301, in main
            setup_distributed(cfg)
          File "/workspace/pretrain.py", line 58, in setup_distributed
            torch.cuda.set_device(local_rank)
          File "{mod_cuda}", line 399, in set_device
            torch._C._cuda_setDevice(device)
        """) + cuda_error("invalid device ordinal", "2.4.0")
    out.append(prefix(tb, "[rank7]: ").rstrip("\n"))
    clk.tick(0.3, 0.5)
    for r in range(7):
        out.append(f"{clk.glog('W', nanos=True)} 912440 torch/distributed/elastic/multiprocessing/api.py:858] Sending process {912511 + r} closing signal SIGTERM")
    t = clk.t
    out.append(f"{clk.glog('E', 0.2, 0.4, nanos=True)} 912440 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: 1) local_rank: 7 (pid: 912518) of binary: /usr/bin/python")
    fails = [(r, r, -15, 912511 + r, "SIGTERM") for r in range(7)]
    out.append(child_failed("pretrain.py", t, "dgx-b-14", fails, (7, 7, 1, 912518, None), site, api=(133, 264, 348), run_line=(901, 892)).rstrip("\n"))
    return Case(
        case_id="cuda-not-available-hidden-gpu-ordinal-04",
        label="cuda-not-available",
        difficulty="medium",
        description="Node prolog hides a quarantined GPU with CUDA_VISIBLE_DEVICES=0..6 while nvidia-smi still lists 8 GPUs; torchrun --nproc_per_node 8 gives rank 7 'invalid device ordinal' at set_device and the other ranks are SIGTERMed.",
        initiating_rank=7,
        facts={"gpu_model": "H100 80GB HBM3", "gpu_count": "8", "torch_version": "2.4.0", "launcher": "torchrun", "world_size": "8", "exit_code": "1"},
        must_mention=["CUDA_VISIBLE_DEVICES", "nproc_per_node"],
        files={"train.log": "\n".join(out)},
    )
