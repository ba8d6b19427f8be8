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


def nvidia_smi(when: datetime, driver: str, cuda: str, gpus: list[Gpu], procs: list[tuple[int, int, str, int]] | None = None, style: str | None = None) -> str:
    """Render the default `nvidia-smi` table; procs are (gpu, pid, name, MiB)."""
    branch = int(driver.split(".")[0])
    style = style or ("old" if branch < 525 else "mid" if branch < 550 else "new")
    out = [when.strftime("%a %b %d %H:%M:%S %Y") + "       "]
    if style == "old":
        sep = "+-------------------------------+----------------------+----------------------+"
        out += [
            "+-----------------------------------------------------------------------------+",
            f"| NVIDIA-SMI {driver:<12} Driver Version: {driver:<12} CUDA Version: {cuda:<8}|",
            sep.replace("+", "|", 1)[:-1] + "+",
            "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
            "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |",
            "|                               |                      |               MIG M. |",
            "|===============================+======================+======================|",
        ]
        for i, g in enumerate(gpus):
            name = g.name if len(g.name) <= 18 else g.name[:15] + "..."
            out.append(f"| {i:>3}  {name:<18} {g.persistence:>3}  | {g.bus} {g.disp:>3} | {g.ecc:>20} |")
            pw = f"{g.power}W / {g.power_cap}W"
            mem = f"{g.mem_used_mib}MiB / {g.mem_total_mib}MiB"
            out.append(f"| {g.fan:>3}  {g.temp:>3}C    {g.perf}  {pw:>12} | {mem:>20} | {g.util:>6}%      Default |")
            out.append("|                               |                      |                  N/A |")
            out.append(sep)
        width = 79
    else:
        wide = style == "new"
        busw = 24 if wide else 22
        sep = "+-----------------------------------------+" + "-" * busw + "+----------------------+"
        width = len(sep)
        head = f"| NVIDIA-SMI {driver:<22}Driver Version: {driver:<15}CUDA Version: {cuda:<9}"
        out += [
            "+" + "-" * (width - 2) + "+",
            head.ljust(width - 1) + "|",
            "|-----------------------------------------+" + "-" * busw + "+----------------------+",
            "| GPU  Name                 Persistence-M | Bus-Id" + " " * (busw - 14) + "Disp.A | Volatile Uncorr. ECC |",
            "| Fan  Temp   Perf          Pwr:Usage/Cap |" + " " * (busw - 13) + "Memory-Usage | GPU-Util  Compute M. |",
            "|                                         |" + " " * busw + "|               MIG M. |",
            "|=========================================+" + "=" * busw + "+======================|",
        ]
        for i, g in enumerate(gpus):
            name = g.name if len(g.name) <= 29 else g.name[:26] + "..."
            bus = f"{g.bus} {g.disp:>3}"
            out.append(f"| {i:>3}  {name:<29} {g.persistence:>3}  |" + f"{bus:>{busw - 1}} |" + f" {g.ecc:>20} |")
            pw = f"{g.power}W / {g.power_cap:>4}W" if wide else f"{g.power}W / {g.power_cap}W"
            mem = f"{g.mem_used_mib}MiB / {g.mem_total_mib:>6}MiB" if wide else f"{g.mem_used_mib}MiB / {g.mem_total_mib}MiB"
            out.append(f"| {g.fan:>3}   {g.temp:>3}C    {g.perf} {pw:>25} |" + f"{mem:>{busw - 1}} |" + f" {g.util:>6}%      Default |")
            out.append("|                                         |" + " " * busw + "|             Disabled |")
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
            left = f"|  {gpu:>3}   N/A  N/A  {pid:>9}      C   {pname}"
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
