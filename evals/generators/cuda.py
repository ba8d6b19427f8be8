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
                     nccl: str = "2.19.3", pids: list[int] | None = None, port: int = 29500) -> str:
    world = base64.b64encode(json.dumps({"localhost": list(range(nprocs))}).encode()).decode()
    ranks = list(range(nprocs))
    cvd = ",".join(str(r) for r in ranks)
    lines = [
        f"[{clk.ds()}] [INFO] [real_accelerator.py:191:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
        f"[{clk.ds(1.5, 2.5)}] [WARNING] [runner.py:202:fetch_hostfile] Unable to find hostfile, will proceed with training with local resources only.",
        f"[{clk.ds()}] [INFO] [runner.py:568:main] cmd = {python} -u -m deepspeed.launcher.launch --world_info={world} "
        f"--master_addr=127.0.0.1 --master_port={port} --enable_each_rank_log=None {' '.join(script_args)}",
        f"[{clk.ds(1.0, 2.0)}] [INFO] [real_accelerator.py:191:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
        f"[{clk.ds(1.0, 2.0)}] [INFO] [launch.py:138:main] 0 NCCL_VERSION={nccl}",
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
