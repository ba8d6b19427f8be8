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
import tempfile
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path


from common import SMI_HEADS_NARROW, SMI_PROCESSES_WIDE, Case, Clock, RankExit, accelerate_launch_frames, backward_call_frames, block, ds_report_header, elastic_launch_frames, module_call_frames, parser, prefix, torchrun_child_failed_summary, torchrun_main_frames, write_all  # noqa: E402


def hexaddr(rng: random.Random, base: int = 0x7F00_0000_0000) -> str:
    return hex(base + rng.randrange(0x10_0000_0000, 0xFF_FFFF_FFFF) & ~0xF | rng.randrange(16))


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
            "frame #7: <unknown function> + 0x15c0ae (0x55d2c8e5c0ae in /usr/bin/python3)",
            "frame #8: Py_FinalizeEx + 0x143 (0x55d2c8f1d8e3 in /usr/bin/python3)",
            "frame #9: Py_RunMain + 0x1a5 (0x55d2c8f0ff45 in /usr/bin/python3)",
            "frame #10: Py_BytesMain + 0x2d (0x55d2c8ee6a4d in /usr/bin/python3)",
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
    style = style or ("old" if branch < 530 else "mid" if branch < 550 else "new")
    out = [when.strftime("%a %b %d %H:%M:%S %Y") + "       "]
    if style == "old":
        w1, w2 = 31, 22
        width = 79
        out += [
            "+" + "-" * (width - 2) + "+",
            f"| NVIDIA-SMI {driver:<12} Driver Version: {driver:<12} CUDA Version: {cuda:<9}|",
            "|" + "-" * w1 + "+" + "-" * w2 + "+" + "-" * 22 + "+",
            *SMI_HEADS_NARROW,
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
    lines = ds_report_header()
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
    """torchrun's traceback and ChildFailedError summary; failures are (rank, local_rank, exitcode, pid, signame)."""
    stamp = when.strftime('%Y-%m-%d_%H:%M:%S')

    def worker(f: tuple[int, int, int, int, str | None]) -> RankExit:
        rank, local, code, pid, _signame = f
        return RankExit(rank, local, pid, code, stamp, host)

    lines = [
        "Traceback (most recent call last):",
        f'  File "{torchrun_bin}", line 8, in <module>',
        "    sys.exit(main())",
        *torchrun_main_frames(site, api[2], run_line[0]),
        *elastic_launch_frames(site, run_line[1], api[0], api[1]),
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        *torchrun_child_failed_summary(script, worker(root), [worker(f) for f in failures], pad=True),
    ]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------------
# NCCL INFO noise


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
    tb = "\n".join([
        "Traceback (most recent call last):",
        '  File "/workspace/sft/sft_packed.py", line 263, in <module>',
        "    main()",
        '  File "/workspace/sft/sft_packed.py", line 231, in main',
        '    out = model(input_ids=batch["input_ids"], position_ids=batch["position_ids"],',
        *module_call_frames(site, "2.1"),
        f'  File "{site}/transformers/models/mistral/modeling_mistral.py", line 1157, in forward',
        "    outputs = self.model(",
        *module_call_frames(site, "2.1"),
        f'  File "{site}/transformers/models/mistral/modeling_mistral.py", line 1031, in forward',
        "    layer_outputs = self._gradient_checkpointing_func(",
        f'  File "{site}/torch/_compile.py", line 24, in inner',
        "    return torch._dynamo.disable(fn, recursive)(*args, **kwargs)",
        f'  File "{site}/torch/_dynamo/eval_frame.py", line 328, in _fn',
        "    return fn(*args, **kwargs)",
        f'  File "{site}/torch/_dynamo/external_utils.py", line 17, in inner',
        "    return fn(*args, **kwargs)",
        f'  File "{site}/torch/utils/checkpoint.py", line 451, in checkpoint',
        "    return CheckpointFunction.apply(function, preserve, *args)",
        f'  File "{site}/torch/autograd/function.py", line 539, in apply',
        "    return super().apply(*args, **kwargs)  # type: ignore[misc]",
        f'  File "{site}/torch/utils/checkpoint.py", line 230, in forward',
        "    outputs = run_function(*args)",
        *module_call_frames(site, "2.1"),
        f'  File "{site}/transformers/models/mistral/modeling_mistral.py", line 752, in forward',
        "    hidden_states, self_attn_weights, present_key_value = self.self_attn(",
        *module_call_frames(site, "2.1"),
        '  File "/workspace/sft/packed_attn.py", line 96, in forward',
        "    attn = flash_attn_varlen_func(",
        f'  File "{site}/flash_attn/flash_attn_interface.py", line 1059, in flash_attn_varlen_func',
        "    return FlashAttnVarlenFunc.apply(",
        f'  File "{site}/torch/autograd/function.py", line 539, in apply',
        "    return super().apply(*args, **kwargs)  # type: ignore[misc]",
        f'  File "{site}/flash_attn/flash_attn_interface.py", line 576, in forward',
        "    out, q, k, v, out_padded, softmax_lse, S_dmask, rng_state = _flash_attn_varlen_forward(",
        f'  File "{site}/flash_attn/flash_attn_interface.py", line 85, in _flash_attn_varlen_forward',
        "    out, q, k, v, out_padded, softmax_lse, S_dmask, rng_state = flash_attn_cuda.varlen_fwd(",
    ]) + "\n"
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
    out += ["Traceback (most recent call last):",
            *accelerate_launch_frames("/opt/conda/bin/accelerate", site, 48, 1097, "simple_launcher", 703),
            "    raise subprocess.CalledProcessError(returncode=process.returncode, cmd=cmd)",
            "subprocess.CalledProcessError: Command '['/opt/conda/bin/python', 'train_lm.py', '--config', 'configs/lm_410m.yaml']' died with <Signals.SIGABRT: 6>."]
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
    py = "\n".join([
        "Traceback (most recent call last):",
        '  File "/shared/proj/moe-pretrain/train.py", line 402, in <module>',
        "    main(cfg)",
        '  File "/shared/proj/moe-pretrain/train.py", line 278, in main',
        '    loss, aux = model(batch["input_ids"], batch["labels"])',
        *module_call_frames(site, "2.4"),
        f'  File "{site}/torch/nn/parallel/distributed.py", line 1636, in forward',
        "    else self._run_ddp_forward(*inputs, **kwargs)",
        f'  File "{site}/torch/nn/parallel/distributed.py", line 1454, in _run_ddp_forward',
        "    return self.module(*inputs, **kwargs)  # type: ignore[index]",
        *module_call_frames(site, "2.4"),
        '  File "/shared/proj/moe-pretrain/moe/model.py", line 211, in forward',
        "    h, aux_l = blk(h)",
        *module_call_frames(site, "2.4"),
        '  File "/shared/proj/moe-pretrain/moe/model.py", line 148, in forward',
        "    moe_out, aux = self.moe(self.ln2(h))",
        *module_call_frames(site, "2.4"),
        '  File "/shared/proj/moe-pretrain/moe/layer.py", line 139, in forward',
        "    permuted, row_id_map = moe_ops.permute(x, expert_idx.to(torch.int32), self.num_local_experts * self.ep_size)",
        f'  File "{site}/moe_ops/ops.py", line 44, in permute',
        "    return PermuteFunction.apply(tokens, indices, num_out_tokens)",
        f'  File "{site}/torch/autograd/function.py", line 574, in apply',
        "    return super().apply(*args, **kwargs)  # type: ignore[misc]",
        f'  File "{site}/moe_ops/ops.py", line 27, in forward',
        "    permuted, row_id_map, _ = moe_ops_C.permute(tokens, indices, num_out_tokens, ctx.workspace, max_expanded)",
    ]) + "\n"
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
    tb = block("""
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


def fused_adam_step_frames(site: str, zero: str, lines: tuple[int, int, int, int, int, int]) -> list[str]:
    """The frames from DeepSpeedEngine.step down to FusedAdam's multi-tensor launch, through the ZeRO optimizer of
    `zero` ("stage_1_and_2" or "stage3"); `lines` are the release's (engine step, _take_model_step, nvtx, the ZeRO
    step and _optimizer_step, torch's optimizer wrapper)."""
    step, take, nvtx, zstep, zopt, wrapper = lines
    arg = {"stage_1_and_2": "i", "stage3": "sub_group_id"}[zero]  # what each ZeRO optimizer passes down
    return [
        f'  File "{site}/deepspeed/runtime/engine.py", line {step}, in step',
        "    self._take_model_step(lr_kwargs)",
        f'  File "{site}/deepspeed/runtime/engine.py", line {take}, in _take_model_step',
        "    self.optimizer.step()",
        f'  File "{site}/deepspeed/utils/nvtx.py", line {nvtx}, in wrapped_fn',
        "    ret_val = func(*args, **kwargs)",
        f'  File "{site}/deepspeed/runtime/zero/{zero}.py", line {zstep}, in step',
        f"    self._optimizer_step({arg})",
        f'  File "{site}/deepspeed/runtime/zero/{zero}.py", line {zopt}, in _optimizer_step',
        "    self.optimizer.step()",
        f'  File "{site}/torch/optim/optimizer.py", line {wrapper}, in wrapper',
        "    out = func(*args, **kwargs)",
        f'  File "{site}/deepspeed/ops/adam/fused_adam.py", line 191, in step',
        "    multi_tensor_applier(self.multi_tensor_adam, self._dummy_overflow_buf, [g_32, p_32, m_32, v_32],",
        f'  File "{site}/deepspeed/ops/adam/multi_tensor_apply.py", line 17, in __call__',
        "    return op(self.chunk_size, noop_flag_buffer, tensor_lists, *args)",
    ]


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
    for _ in (0, 1):
        out.append(f"[{clk.ds(2, 3)}] [INFO] [real_accelerator.py:191:get_accelerator] Setting ds_accelerator to cuda (auto detect)")
    for _ in (1, 0):
        out.append(f"[{clk.ds(1, 2)}] [INFO] [comm.py:637:init_distributed] cdb=None")
    out.append(f"[{clk.ds()}] [INFO] [comm.py:668:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl")
    out.append("rank 0: torch 2.1.2+cu121, deepspeed 0.12.6, 2 x NVIDIA H100 80GB HBM3, bf16=True")
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
    for _, secs in ((0, 0.10484), (1, 0.20317)):
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
    tb = "\n".join([
        "Traceback (most recent call last):",
        '  File "/workspace/train_sft.py", line 188, in <module>',
        "    main()",
        '  File "/workspace/train_sft.py", line 171, in main',
        "    engine.step()",
        *fused_adam_step_frames(site, "stage_1_and_2", (2169, 2075, 15, 1842, 1749, 373)),
    ]) + "\n"
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
        initiating_rank=[0, 1],
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
    for _ in range(4):
        out.append(f"[{clk.ds(1, 2)}] [INFO] [real_accelerator.py:133:get_accelerator] Setting ds_accelerator to cuda (auto detect)")
    for _ in range(4):
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
    out.append("Running tokenizer on dataset (num_proc=32): 100%|██████████| 412087/412087 [01:02<00:00, 6581.32 examples/s]")
    out.append("Grouping texts in chunks of 2048 (num_proc=32): 100%|██████████| 412087/412087 [00:41<00:00, 9912.50 examples/s]")
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
    for _ in (0, 2, 3, 1):
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
    out.append("wandb: Find logs at: ./wandb/run-20230829_174031-q8x1mm0c/logs")
    out.append("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 731204) of binary: " + f"{env}/bin/python")
    host, stamp = "dgx-a100-03", "2023-08-29_17:44:09"
    out += ["Traceback (most recent call last):",
            *accelerate_launch_frames(f"{env}/bin/accelerate", site, 45, 964, "deepspeed_launcher", 687),
            *elastic_launch_frames(site, 785, 134, 250),
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
            *torchrun_child_failed_summary("train_clm.py", RankExit(0, 0, 731204, 1, stamp, host),
                                           [RankExit(r, r, 731204 + r, 1, stamp, host) for r in (1, 2, 3)])]
    return Case(
        case_id="deepspeed-fusedadam-illegal-memory-access-accelerate-z2-02",
        label="deepspeed-fusedadam-illegal-memory-access",
        difficulty="medium",
        description="accelerate + DeepSpeed ZeRO-2, Llama-2-13B on 4x A100 80GB; partitions of 3,253,966,080 elements; the fault in FusedAdam surfaces in the post-step all_gather as ncclUnhandledCudaError on every rank, then a ChildFailedError.",
        initiating_rank=[0, 1, 2, 3],
        facts={"gpu_model": "A100-SXM4-80GB", "torch_version": "2.0.1", "deepspeed_version": "0.10.3", "launcher": "accelerate",
               "world_size": "4", "zero_stage": "2", "optimizer": "FusedAdam", "nccl_version": "2.14.3"},
        must_mention=["FusedAdam", "overflow"],
        also=["cuda-illegal-memory-access"],
        secrets=[user],
        files={"train.log": "\n".join(out)},
    )


def fa_hf_zero2_h200() -> Case:
    rng = random.Random(203)
    clk = Clock(datetime(2024, 8, 2, 11, 1, 44), rng)
    site = "/usr/local/lib/python3.11/dist-packages"
    args = ["sft.py", "--model_name_or_path", "meta-llama/Meta-Llama-3-8B", "--dataset_name", "data/sft_mix_v7", "--bf16", "--deepspeed", "ds/zero2.json",
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
    a.update({"_n_gpu": 1, "bf16": True, "deepspeed": "ds/zero2.json", "gradient_accumulation_steps": 4, "gradient_checkpointing": True,
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
    out.append("Map (num_proc=16): 100%|██████████| 49152/49152 [00:09<00:00, 5321.77 examples/s]")
    clk.tick(10, 12)
    out.append(f"[WARNING|logging.py:328] {clk.ds()} >> `use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`.")
    out.append(f"[{clk.ds(1, 2)}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.14.4, git-hash=unknown, git-branch=unknown")
    out.append(f"[{clk.ds()}] [INFO] [config.py:733:__init__] Config mesh_device None world_size = 2")
    out.append(f"[{clk.ds(1, 2)}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Flops Profiler Enabled: False")
    for secs in (27.53381, 0.10911):
        out.append(ds_fused_adam_jit(site, "/root/.cache/torch_extensions/py311_cu121", build=secs > 1, arch="90", secs=secs).rstrip("\n").replace("/usr/include/python3.10", "/usr/include/python3.11"))
    out.append(ds_zero12_init(clk, "0.14.4", 2, "torch.bfloat16", 2, 4015130624, (30.92, 60.84), [0, 1], sched="WarmupDecayLR", lr_line="lr=[0.0], mom=[[0.9, 0.999]]", stage_line=(149, 551, 1955)).rstrip("\n"))
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
        case_id="deepspeed-fusedadam-illegal-memory-access-hf-zero2-h200-03",
        label="deepspeed-fusedadam-illegal-memory-access",
        difficulty="medium",
        description="HF Trainer with DeepSpeed ZeRO-2 on 2x H200, Llama-3-8B (partition 4,015,130,624 elements); the first optimizer step faults in FusedAdam but the error is reported at the Trainer's isnan check of the next micro-batch.",
        initiating_rank=[0, 1],
        facts={"gpu_model": "H200", "torch_version": "2.3.1", "deepspeed_version": "0.14.4", "transformers_version": "4.42.4",
               "launcher": "deepspeed", "world_size": "2", "zero_stage": "2", "optimizer": "FusedAdam"},
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
    tb0 = "\n".join([
        "Traceback (most recent call last):",
        '  File "/workspace/pretrain/train.py", line 233, in <module>',
        "    main()",
        '  File "/workspace/pretrain/train.py", line 214, in main',
        "    engine.step()",
        *fused_adam_step_frames(site_, "stage3", (2213, 2119, 18, 2094, 964, 484)),
    ]) + "\n"
    out.append(tb0.rstrip("\n"))
    out.append(cuda_error("an illegal memory access was encountered", "2.4.1").rstrip("\n"))
    mod = f"{site_}/torch/nn/modules/module.py"
    tbn = "\n".join([
        "Traceback (most recent call last):",
        '  File "/workspace/pretrain/train.py", line 233, in <module>',
        "    main()",
        '  File "/workspace/pretrain/train.py", line 201, in main',
        '    loss = engine(batch["input_ids"], labels=batch["labels"]).loss',
        *module_call_frames(site, "2.4"),
        f'  File "{site_}/deepspeed/utils/nvtx.py", line 18, in wrapped_fn',
        "    ret_val = func(*args, **kwargs)",
        f'  File "{site_}/deepspeed/runtime/engine.py", line 1899, in forward',
        "    loss = self.module(*inputs, **kwargs)",
        f'  File "{mod}", line 1553, in _wrapped_call_impl',
        "    return self._call_impl(*args, **kwargs)",
        f'  File "{mod}", line 1582, in _call_impl',
        "    args_result = hook(self, args)",
        f'  File "{site_}/deepspeed/utils/nvtx.py", line 18, in wrapped_fn',
        "    ret_val = func(*args, **kwargs)",
        f'  File "{site_}/deepspeed/runtime/zero/parameter_offload.py", line 283, in _pre_forward_module_hook',
        "    self.pre_sub_module_forward_function(module)",
        f'  File "{site_}/torch/utils/_contextlib.py", line 116, in decorate_context',
        "    return func(*args, **kwargs)",
        f'  File "{site_}/deepspeed/runtime/zero/parameter_offload.py", line 452, in pre_sub_module_forward_function',
        "    param_coordinator.fetch_sub_module(sub_module, forward=True)",
        f'  File "{site_}/deepspeed/utils/nvtx.py", line 18, in wrapped_fn',
        "    ret_val = func(*args, **kwargs)",
        f'  File "{site_}/torch/utils/_contextlib.py", line 116, in decorate_context',
        "    return func(*args, **kwargs)",
        f'  File "{site_}/deepspeed/runtime/zero/partitioned_param_coordinator.py", line 291, in fetch_sub_module',
        "    self.__all_gather_params(params_to_fetch, forward)",
        f'  File "{site_}/deepspeed/utils/nvtx.py", line 18, in wrapped_fn',
        "    ret_val = func(*args, **kwargs)",
        f'  File "{site_}/deepspeed/runtime/zero/partitioned_param_coordinator.py", line 435, in __all_gather_params',
        "    self.__all_gather_params_(nonquantized_params, forward, quantize=self.zero_quantized_weights)",
        f'  File "{site_}/deepspeed/runtime/zero/partitioned_param_coordinator.py", line 464, in __all_gather_params_',
        "    handle = param_group[0].all_gather_coalesced(param_group, quantize=quantize)",
        f'  File "{site_}/deepspeed/utils/nvtx.py", line 18, in wrapped_fn',
        "    ret_val = func(*args, **kwargs)",
        f'  File "{site_}/deepspeed/runtime/zero/partition_parameters.py", line 1242, in all_gather_coalesced',
        "    handles = _dist_allgather_fn(",
        f'  File "{site_}/deepspeed/runtime/zero/partition_parameters.py", line 95, in _dist_allgather_fn',
        "    return instrument_w_nvtx(dist.allgather_fn)(output_tensor, input_tensor, group=group, async_op=True)",
        f'  File "{site_}/deepspeed/comm/comm.py", line 320, in allgather_fn',
        "    return all_gather_into_tensor(output_tensor, input_tensor, group=group, async_op=async_op, debug=debug)",
        f'  File "{site_}/deepspeed/comm/comm.py", line 117, in log_wrapper',
        "    return func(*args, **kwargs)",
        f'  File "{site_}/deepspeed/comm/comm.py", line 305, in all_gather_into_tensor',
        "    return cdb.all_gather_into_tensor(output_tensor=output_tensor, input_tensor=tensor, group=group, async_op=async_op)",
        f'  File "{site_}/deepspeed/comm/torch.py", line 218, in all_gather_into_tensor',
        "    return self.all_gather_function(output_tensor=output_tensor,",
        f'  File "{site_}/torch/distributed/c10d_logger.py", line 79, in wrapper',
        "    return func(*args, **kwargs)",
        f'  File "{site_}/torch/distributed/distributed_c10d.py", line 3198, in all_gather_into_tensor',
        "    work = group._allgather_base(output_tensor, input_tensor, opts)",
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5",
        "ncclUnhandledCudaError: Call to CUDA function failed.",
        "Last error:",
        "Cuda failure 'an illegal memory access was encountered'",
    ]) + "\n"
    for _ in (2, 1, 3):
        out.append(tbn.rstrip("\n"))
    clk.tick(1, 2)
    for pid in (7741, 7742, 7743, 7744):
        out.append(f"[{clk.ds(0.1, 0.4)}] [INFO] [launch.py:319:sigkill_handler] Killing subprocess {pid}")
    argv = ", ".join(repr(x) for x in ["/usr/bin/python3", "-u", args[0], "--local_rank=3", *args[1:]])
    out.append(f"[{clk.ds()}] [ERROR] [launch.py:325:sigkill_handler] [{argv}] exits with return code = 1")
    return Case(
        case_id="deepspeed-fusedadam-illegal-memory-access-zero3-subgroup-04",
        label="deepspeed-fusedadam-illegal-memory-access",
        difficulty="hard",
        description="13B continued pre-training with ZeRO-3 on 4x H100 and sub_group_size raised to 5e9 (one 3.25e9-element sub-group per rank); rank 0 shows the FusedAdam fault, ranks 1-3 end with DistBackendError ncclUnhandledCudaError in the next all-gather, and the op was JIT-built for sm_90.",
        initiating_rank=[0, 1, 2, 3],
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
    out.append(block("""
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
    out.append(block("""
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
    out.append("Using custom data configuration default-7c1f9a2b1e0d4c55")
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
    out.append("\n".join([
        "Traceback (most recent call last):",
        '  File "/workspace/tickets/run_cls.py", line 651, in <module>',
        "    main()",
        '  File "/workspace/tickets/run_cls.py", line 566, in main',
        "    train_result = trainer.train(resume_from_checkpoint=checkpoint)",
        f'  File "{site}/transformers/trainer.py", line 1555, in train',
        "    return inner_training_loop(",
        f'  File "{site}/transformers/trainer.py", line 1860, in _inner_training_loop',
        "    tr_loss_step = self.training_step(model, inputs)",
        f'  File "{site}/transformers/trainer.py", line 2725, in training_step',
        "    loss = self.compute_loss(model, inputs)",
        f'  File "{site}/transformers/trainer.py", line 2748, in compute_loss',
        "    outputs = model(**inputs)",
        *module_call_frames(site, "2.1"),
        f'  File "{site}/accelerate/utils/operations.py", line 659, in forward',
        "    return model_forward(*args, **kwargs)",
        f'  File "{site}/accelerate/utils/operations.py", line 647, in __call__',
        "    return convert_to_fp32(self.model_forward(*args, **kwargs))",
        f'  File "{site}/torch/amp/autocast_mode.py", line 16, in decorate_autocast',
        "    return func(*args, **kwargs)",
        f'  File "{site}/transformers/models/roberta/modeling_roberta.py", line 1199, in forward',
        "    outputs = self.roberta(",
        *module_call_frames(site, "2.1"),
        f'  File "{site}/transformers/models/roberta/modeling_roberta.py", line 835, in forward',
        "    encoder_outputs = self.encoder(",
        *module_call_frames(site, "2.1"),
        f'  File "{site}/transformers/models/roberta/modeling_roberta.py", line 522, in forward',
        "    layer_outputs = layer_module(",
        *module_call_frames(site, "2.1"),
        f'  File "{site}/transformers/models/roberta/modeling_roberta.py", line 411, in forward',
        "    self_attention_outputs = self.attention(",
        *module_call_frames(site, "2.1"),
        f'  File "{site}/transformers/models/roberta/modeling_roberta.py", line 338, in forward',
        "    self_outputs = self.self(",
        *module_call_frames(site, "2.1"),
        f'  File "{site}/transformers/models/roberta/modeling_roberta.py", line 216, in forward',
        "    mixed_query_layer = self.query(hidden_states)",
        *module_call_frames(site, "2.1"),
        f'  File "{site}/torch/nn/modules/linear.py", line 114, in forward',
        "    return F.linear(input, self.weight, self.bias)",
        "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, ldc, CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`",
    ]))
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
    out.append("[default0]:NCCL version 2.18.1+cuda12.1")
    out.append(f"[default0]:[{clk.ds(5, 8)}] loading snli (train 550152, validation 10000, test 10000)")
    out.append(f"[default0]:[{clk.ds(1, 2)}] label distribution (train): {{0: 183416, 1: 182764, 2: 183187, -1: 785}}")
    out.append(f"[default0]:[{clk.ds()}] num_labels=3 (entailment, neutral, contradiction); loss=CrossEntropyLoss()")
    for r in range(8):
        out.append(f"[default{r}]:{site}/transformers/convert_slow_tokenizer.py:473: UserWarning: The sentencepiece tokenizer that you are converting to a fast tokenizer uses the byte fallback option which is not implemented in the fast tokenizers. In practice this means that the tokenizer can produce unknown tokens whereas the sentencepiece model would not have produced any.")
        out.append(f"[default{r}]:  warnings.warn(")
    out.append("[default0]:Some weights of DebertaV2ForSequenceClassification were not initialized from the model checkpoint at microsoft/deberta-v3-large and are newly initialized: ['classifier.bias', 'classifier.weight', 'pooler.dense.bias', 'pooler.dense.weight']")
    out.append("[default0]:You should probably TRAIN this model on a down-stream task to be able to use it for predictions and inference.")
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
    tb = block("""
        Traceback (most recent call last):
          File "/workspace/nli/train_nli.py", line 203, in <module>
            main()
          File "/workspace/nli/train_nli.py", line 177, in main
            running += loss.detach().float().item()
        """) + cuda_error("device-side assert triggered", "2.1.2")
    out.append(prefix(tb, "[default5]:").rstrip("\n"))
    clk.tick(0.5, 1)
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
    out.append("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 5 (pid: 51205) of binary: /usr/bin/python")
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
    out.append("\n".join([
        "Traceback (most recent call last):",
        '  File "/home/dev/recipes/lora_train.py", line 96, in <module>',
        "    trainer.train()",
        f'  File "{site}/transformers/trainer.py", line 2123, in train',
        "    return inner_training_loop(",
        "           ^^^^^^^^^^^^^^^^^^^^",
        f'  File "{site}/transformers/trainer.py", line 2481, in _inner_training_loop',
        "    tr_loss_step = self.training_step(model, inputs, num_items_in_batch)",
        "                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f'  File "{site}/transformers/trainer.py", line 3579, in training_step',
        "    loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)",
        "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f'  File "{site}/transformers/trainer.py", line 3633, in compute_loss',
        "    outputs = model(**inputs)",
        "              ^^^^^^^^^^^^^^^",
        *module_call_frames(site, "2.5", carets=True),
        f'  File "{site}/peft/peft_model.py", line 1644, in forward',
        "    return self.base_model(",
        "           ^^^^^^^^^^^^^^^^",
        *module_call_frames(site, "2.5", carets=True),
        f'  File "{site}/peft/tuners/tuners_utils.py", line 197, in forward',
        "    return self.model.forward(*args, **kwargs)",
        "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f'  File "{site}/transformers/models/qwen2/modeling_qwen2.py", line 1164, in forward',
        "    outputs = self.model(",
        "              ^^^^^^^^^^^",
        *module_call_frames(site, "2.5", carets=True),
        f'  File "{site}/transformers/models/qwen2/modeling_qwen2.py", line 854, in forward',
        "    inputs_embeds = self.embed_tokens(input_ids)",
        "                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        *module_call_frames(site, "2.5", carets=True),
        f'  File "{site}/torch/nn/modules/sparse.py", line 190, in forward',
        "    return F.embedding(",
        "           ^^^^^^^^^^^^",
        f'  File "{site}/torch/nn/functional.py", line 2551, in embedding',
        "    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)",
        "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    ]))
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
    out.append("\n".join([
        "Traceback (most recent call last):",
        '  File "/usr/lib/python3.10/runpy.py", line 196, in _run_module_as_main',
        "    return _run_code(code, main_globals, None,",
        '  File "/usr/lib/python3.10/runpy.py", line 86, in _run_code',
        "    exec(code, run_globals)",
        '  File "/app/infer/batch_generate.py", line 147, in <module>',
        "    main()",
        '  File "/app/infer/batch_generate.py", line 129, in main',
        "    out = model.generate(**enc, max_new_tokens=args.max_new_tokens, do_sample=False)",
        f'  File "{site}/torch/utils/_contextlib.py", line 115, in decorate_context',
        "    return func(*args, **kwargs)",
        f'  File "{site}/transformers/generation/utils.py", line 1527, in generate',
        "    result = self._greedy_search(",
        f'  File "{site}/transformers/generation/utils.py", line 2411, in _greedy_search',
        "    outputs = self(",
        *module_call_frames(site, "2.2"),
        f'  File "{site}/transformers/models/llama/modeling_llama.py", line 1196, in forward',
        "    outputs = self.model(",
        *module_call_frames(site, "2.2"),
        f'  File "{site}/transformers/models/llama/modeling_llama.py", line 1016, in forward',
        "    layer_outputs = decoder_layer(",
        *module_call_frames(site, "2.2"),
        f'  File "{site}/transformers/models/llama/modeling_llama.py", line 726, in forward',
        "    hidden_states = self.input_layernorm(hidden_states)",
        *module_call_frames(site, "2.2"),
        f'  File "{site}/infer_kernels/norm.py", line 38, in forward',
        "    return fused_rmsnorm_cuda.forward(x, self.weight, self.eps)",
    ]))
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
    tb = "\n".join([
        "Traceback (most recent call last):",
        '  File "/lustre/home/ci/gpt/train_gpt.py", line 309, in <module>',
        "    main()",
        '  File "/lustre/home/ci/gpt/train_gpt.py", line 248, in main',
        "    logits, loss = model(x, y)",
        "                   ^^^^^^^^^^^",
        *module_call_frames(site, "2.5", carets=True),
        f'  File "{site}/torch/nn/parallel/distributed.py", line 1643, in forward',
        "    else self._run_ddp_forward(*inputs, **kwargs)",
        "         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f'  File "{site}/torch/nn/parallel/distributed.py", line 1459, in _run_ddp_forward',
        "    return self.module(*inputs, **kwargs)  # type: ignore[index]",
        "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        *module_call_frames(site, "2.5", carets=True),
        '  File "/lustre/home/ci/gpt/model.py", line 181, in forward',
        "    pos = torch.arange(0, t, dtype=torch.long, device=device)",
        "          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    ]) + "\n" + cuda_error("no kernel image is available for execution on the device", "2.5.1")
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
        initiating_rank=list(range(8)),
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
        "[entrypoint] container memory limit: none; host RAM 31.1 GiB; swap 0",
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
        facts={"driver_version": "470.199.02", "torch_version": "2.1.2", "launcher": "python"},
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
        f"Job 2290418 'seg-ddp' on gpu-v100-12 (4 x V100), started {when.strftime('%Y-%m-%dT%H:%M:%S')}",
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
    out.append("srun: error: gpu-v100-12: task 0: Exited with exit code 1")
    return Case(
        case_id="cuda-driver-too-old-slurm-515-nvcc-02",
        label="cuda-driver-too-old",
        difficulty="medium",
        description="Slurm job on a V100 node with driver 515.105.01 (max CUDA 11.7) running torch 2.4.1+cu124 under torchrun; the job script loads the CUDA 12.4 toolkit (nvcc 12.4, a red herring) and every rank fails at set_device with 'found version 11070'.",
        initiating_rank=[0, 1, 2, 3],
        facts={"driver_version": "515.105.01", "torch_version": "2.4.1", "cuda_version": "12.4",
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
        facts={"driver_version": "510.47.03", "torch_version": "2.1.0", "cuda_version": "12.1",
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
        initiating_rank=[0, 1, 2, 3],
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


# ==================================================================================================
# cuda-reinit-forked-subprocess

FORK_MSG = "Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method"


def reinit_dataloader_worker() -> Case:
    rng = random.Random(701)
    clk = Clock(datetime(2024, 2, 19, 18, 25, 40), rng)
    site = "/home/ubuntu/.venv/lib/python3.10/site-packages"
    out = [
        "ubuntu@ip-172-31-22-187:~/speech$ python train.py --config configs/conformer_s.yaml",
        f"{clk.ds()} INFO train: torch 2.1.2+cu121 torchaudio 2.1.2+cu121 device=cuda:0 (NVIDIA A10G)",
        f"{clk.ds()} INFO train: features: 80-dim log-mel computed on cuda (cfg.features.device=cuda) for speed",
        f"{clk.ds(0.5, 1)} INFO train: manifest data/librispeech/train-clean-360.tsv: 104014 utterances, 363.6 h",
        f"{clk.ds(1, 2)} INFO train: model conformer_s: 10.3M params, moved to cuda:0",
        f"{clk.ds()} INFO train: DataLoader(batch_size=32, num_workers=6, pin_memory=True, bucket_by_length=True)",
        f"{clk.ds()} INFO train: epoch 1/50",
    ]
    out.append(block(f"""
        Traceback (most recent call last):
          File "/home/ubuntu/speech/train.py", line 142, in <module>
            train(cfg)
          File "/home/ubuntu/speech/train.py", line 101, in train
            for step, (feats, feat_lens, tokens, token_lens) in enumerate(loader):
          File "{site}/torch/utils/data/dataloader.py", line 630, in __next__
            data = self._next_data()
          File "{site}/torch/utils/data/dataloader.py", line 1345, in _next_data
            return self._process_data(data)
          File "{site}/torch/utils/data/dataloader.py", line 1371, in _process_data
            data.reraise()
          File "{site}/torch/_utils.py", line 694, in reraise
            raise exception
        RuntimeError: Caught RuntimeError in DataLoader worker process 0.
        Original Traceback (most recent call last):
          File "{site}/torch/utils/data/_utils/worker.py", line 308, in _worker_loop
            data = fetcher.fetch(index)
          File "{site}/torch/utils/data/_utils/fetch.py", line 51, in fetch
            data = [self.dataset[idx] for idx in possibly_batched_index]
          File "{site}/torch/utils/data/_utils/fetch.py", line 51, in <listcomp>
            data = [self.dataset[idx] for idx in possibly_batched_index]
          File "/home/ubuntu/speech/data.py", line 57, in __getitem__
            wav = torch.from_numpy(audio).to(self.device)
          File "{site}/torch/cuda/__init__.py", line 284, in _lazy_init
            raise RuntimeError(
        RuntimeError: {FORK_MSG}

        """).rstrip("\n"))
    return Case(
        case_id="cuda-reinit-forked-subprocess-dataloader-01",
        label="cuda-reinit-forked-subprocess",
        difficulty="easy",
        description="Speech training on an A10G where the Dataset moves audio to cuda for GPU feature extraction; with num_workers=6 the first forked worker fails with 'Cannot re-initialize CUDA in forked subprocess'.",
        initiating_rank=None,
        facts={"gpu_model": "A10G", "torch_version": "2.1.2", "cuda_version": "12.1", "launcher": "python"},
        must_mention=["fork", "num_workers"],
        files={"train.log": "\n".join(out)},
    )


def reinit_cupy_pool() -> Case:
    rng = random.Random(702)
    clk = Clock(datetime(2024, 6, 11, 3, 2, 17), rng)
    site = "/srv/vidindex/.venv/lib/python3.10/site-packages"
    pw = rand_token(rng, ALNUM, 18)
    out = [
        "$ python extract.py --manifest s3://media-archive/manifests/2024-06-10.csv --workers 8",
        f"{clk.ds()} [INFO] vidindex: config: model=openai/clip-vit-large-patch14 fps=1 size=224 batch=256 workers=8 cache=redis://:{pw}@redis-cache.internal:6379/2",
        f"{clk.ds()} [INFO] vidindex: torch 2.3.1+cu121, cupy 13.2.0, decord 0.6.0, GPU 0: NVIDIA L4 (22.0 GiB)",
        f"{clk.ds(3, 5)} [INFO] vidindex: CLIP loaded on cuda:0 (fp16), 427.6M params",
        f"{clk.ds(1, 2)} [INFO] vidindex: 18,244 clips in manifest, 4,112 already indexed, 14,132 to do",
        f"{clk.ds()} [INFO] vidindex: starting multiprocessing.Pool(8) for decode+resize (cupy)",
    ]
    out.append(block(f"""
        multiprocessing.pool.RemoteTraceback: 
        \"\"\"
        Traceback (most recent call last):
          File "/usr/lib/python3.10/multiprocessing/pool.py", line 125, in worker
            result = (True, func(*args, **kwds))
          File "/srv/vidindex/extract.py", line 66, in decode_and_resize
            frames = cp.asarray(frames_np)
          File "{site}/cupy/_creation/from_data.py", line 88, in asarray
            return _core.array(a, dtype, False, order, blocking=blocking)
          File "cupy/_core/core.pyx", line 2455, in cupy._core.core.array
          File "cupy/_core/core.pyx", line 2482, in cupy._core.core.array
          File "cupy/_core/core.pyx", line 2624, in cupy._core.core._array_default
          File "cupy/_core/core.pyx", line 151, in cupy._core.core._ndarray_base.__new__
          File "cupy/_core/core.pyx", line 239, in cupy._core.core._ndarray_base._init
          File "cupy/cuda/memory.pyx", line 738, in cupy.cuda.memory.alloc
          File "cupy/cuda/memory.pyx", line 1424, in cupy.cuda.memory.MemoryPool.malloc
          File "cupy/cuda/memory.pyx", line 1444, in cupy.cuda.memory.MemoryPool.malloc
          File "cupy/cuda/device.pyx", line 40, in cupy.cuda.device.get_device_id
          File "cupy_backends/cuda/api/runtime.pyx", line 202, in cupy_backends.cuda.api.runtime.getDevice
          File "cupy_backends/cuda/api/runtime.pyx", line 146, in cupy_backends.cuda.api.runtime.check_status
        cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInitializationError: initialization error
        \"\"\"

        The above exception was the direct cause of the following exception:

        Traceback (most recent call last):
          File "/srv/vidindex/extract.py", line 133, in <module>
            main()
          File "/srv/vidindex/extract.py", line 114, in main
            for clip_id, frames in pool.imap_unordered(decode_and_resize, jobs, chunksize=4):
          File "/usr/lib/python3.10/multiprocessing/pool.py", line 873, in next
            raise value
        cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInitializationError: initialization error
        """).rstrip("\n"))
    return Case(
        case_id="cuda-reinit-forked-subprocess-cupy-pool-02",
        label="cuda-reinit-forked-subprocess",
        difficulty="medium",
        description="Video indexing job on an L4: CLIP is loaded on cuda:0 in the parent, then a fork-based multiprocessing.Pool runs CuPy decode/resize; the children fail with cudaErrorInitializationError, with no hint about fork in the message.",
        initiating_rank=None,
        facts={"gpu_model": "L4", "torch_version": "2.3.1", "launcher": "python"},
        must_mention=["fork", "spawn"],
        secrets=[pw],
        files={"extract.log": "\n".join(out)},
    )


def reinit_swallowed_collate() -> Case:
    rng = random.Random(703)
    clk = Clock(datetime(2024, 2, 20, 15, 58, 6), rng)
    site = "/opt/conda/lib/python3.10/site-packages"
    out = [
        "$ accelerate launch --multi_gpu --num_processes 2 --mixed_precision bf16 train_video.py --config configs/videomae_k400.yaml",
    ]
    out.append(f"[{clk.ds()}] torch.distributed.run: [WARNING] ")
    out.append(f"[{clk.ds(0, 0.001)}] torch.distributed.run: [WARNING] *****************************************")
    out.append(f"[{clk.ds(0, 0.001)}] torch.distributed.run: [WARNING] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ")
    out.append(f"[{clk.ds(0, 0.001)}] torch.distributed.run: [WARNING] *****************************************")
    out.append(f"{clk.hf(3, 4)} - INFO - __main__ - Distributed environment: MULTI_GPU  Backend: nccl")
    out += ["Num processes: 2", "Process index: 0", "Local process index: 0", "Device: cuda:0", "", "Mixed precision type: bf16", ""]
    out.append(f"{clk.hf()} - INFO - __main__ - torch 2.2.0+cu121 accelerate 0.27.2 transformers 4.38.1 decord 0.6.0")
    out.append(f"{clk.hf()} - INFO - __main__ - GPUs: 2 x NVIDIA RTX A6000")
    out.append(f"{clk.hf(2, 3)} - INFO - data.video_dataset - K400 train: 234,584 clips, 16 frames @ stride 4, resize on cuda (gpu_resize=True)")
    out.append(f"{clk.hf(6, 8)} - INFO - __main__ - model VideoMAE-B fine-tune: 86.5M params; DataLoader num_workers=8 per process")
    out.append(f"{clk.hf()} - INFO - __main__ - ***** Running training ***** epochs=30 steps/epoch=7330")
    ids = rng.sample(range(234584), 30)
    classes = ["abseiling", "air_drumming", "answering_questions", "applauding", "applying_cream", "archery", "arm_wrestling", "arranging_flowers", "assembling_computer", "auctioning"]
    for i, idx in enumerate(ids):
        r = i % 2
        cls = classes[i % len(classes)]
        vid = rand_token(rng, ALNUM + "-_", 11)
        out.append(f"{clk.hf(0.001, 0.02)} - WARNING - data.video_dataset - [rank{r}] skipping clip {idx} (/data/k400/train/{cls}/{vid}_{rng.randrange(0, 300):06d}_{rng.randrange(300, 600):06d}.mp4): RuntimeError: {FORK_MSG}")
    tb = block(f"""
        Traceback (most recent call last):
          File "/workspace/video/train_video.py", line 288, in <module>
            main()
          File "/workspace/video/train_video.py", line 231, in main
            for step, batch in enumerate(train_loader):
          File "{site}/accelerate/data_loader.py", line 451, in __iter__
            current_batch = next(dataloader_iter)
          File "{site}/torch/utils/data/dataloader.py", line 631, in __next__
            data = self._next_data()
          File "{site}/torch/utils/data/dataloader.py", line 1346, in _next_data
            return self._process_data(data)
          File "{site}/torch/utils/data/dataloader.py", line 1372, in _process_data
            data.reraise()
          File "{site}/torch/_utils.py", line 722, in reraise
            raise exception
        TypeError: Caught TypeError in DataLoader worker process 0.
        Original Traceback (most recent call last):
          File "{site}/torch/utils/data/_utils/worker.py", line 308, in _worker_loop
            data = fetcher.fetch(index)
          File "{site}/torch/utils/data/_utils/fetch.py", line 54, in fetch
            return self.collate_fn(data)
          File "{site}/torch/utils/data/_utils/collate.py", line 277, in default_collate
            return collate(batch, collate_fn_map=default_collate_fn_map)
          File "{site}/torch/utils/data/_utils/collate.py", line 155, in collate
            raise TypeError(default_collate_err_msg_format.format(elem_type))
        TypeError: default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <class 'NoneType'>

        """)
    out.append(tb.rstrip("\n"))
    out.append(tb.replace("worker process 0", "worker process 3").rstrip("\n"))
    clk.tick(1, 2)
    out.append(f"[{clk.ds()}] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 0 (pid: 40711) of binary: /opt/conda/bin/python")
    host, stamp = "ws-a6000-2", "2024-02-20_15:59:14"
    out += ["Traceback (most recent call last):",
            *accelerate_launch_frames("/opt/conda/bin/accelerate", site, 47, 1008, "multi_gpu_launcher", 666),
            *elastic_launch_frames(site, 803, 135, 268),
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
            *torchrun_child_failed_summary("train_video.py", RankExit(0, 0, 40711, 1, stamp, host),
                                           [RankExit(1, 1, 40712, 1, stamp, host)])]
    return Case(
        case_id="cuda-reinit-forked-subprocess-swallowed-collate-03",
        label="cuda-reinit-forked-subprocess",
        difficulty="hard",
        description="accelerate multi-GPU video fine-tune whose dataset resizes clips on cuda inside forked DataLoader workers; it catches the fork error, logs 'skipping clip', returns None, and the visible failure is default_collate's NoneType TypeError plus a ChildFailedError.",
        initiating_rank=[0, 1],
        facts={"gpu_model": "RTX A6000", "torch_version": "2.2.0", "accelerate_version": "0.27.2", "launcher": "accelerate", "world_size": "2", "precision": "bf16"},
        must_mention=["fork"],
        files={"train.log": "\n".join(out)},
    )


# ==================================================================================================
# cublas-failure


def cublas_shared_gpu_create() -> Case:
    site = "/home/lab/miniconda3/envs/torch113/lib/python3.9/site-packages"
    when = datetime(2023, 4, 17, 10, 31, 5)
    out = ["(torch113) lab@ws-3090:~/exp/tabular-tf$ nvidia-smi"]
    out.append(nvidia_smi(when, "525.105.17", "12.0", [Gpu("NVIDIA GeForce RTX 3090", "00000000:0A:00.0", 24576, 350, mem_used_mib=23694, temp=46, power=118, persistence="Off", disp="Off", fan="30%", perf="P2", ecc="N/A")],
                          procs=[(0, 1810, "/usr/lib/xorg/Xorg", 9), (0, 48213, "...3/envs/nlp/bin/python", 23671)]).rstrip("\n"))
    out.append("(torch113) lab@ws-3090:~/exp/tabular-tf$ python train.py --epochs 40 --batch-size 1024 --d-model 256 --layers 6")
    out.append("torch 1.13.1+cu117, cuda available: True, device: NVIDIA GeForce RTX 3090")
    out.append("loaded 1,882,114 rows x 97 features (train 1,505,691 / val 376,423)")
    out.append("FTTransformer: 4.91M params")
    mod = f"{site}/torch/nn/modules/module.py"
    out.append(block(f"""
        Traceback (most recent call last):
          File "/home/lab/exp/tabular-tf/train.py", line 203, in <module>
            main()
          File "/home/lab/exp/tabular-tf/train.py", line 171, in main
            logits = model(x_num, x_cat)
          File "{mod}", line 1194, in _call_impl
            return forward_call(*input, **kwargs)
          File "/home/lab/exp/tabular-tf/model.py", line 88, in forward
            x = self.tokenizer(x_num, x_cat)
          File "{mod}", line 1194, in _call_impl
            return forward_call(*input, **kwargs)
          File "/home/lab/exp/tabular-tf/model.py", line 41, in forward
            num = self.num_proj(x_num.unsqueeze(-1)) + self.num_bias
          File "{mod}", line 1194, in _call_impl
            return forward_call(*input, **kwargs)
          File "{site}/torch/nn/modules/linear.py", line 114, in forward
            return F.linear(input, self.weight, self.bias)
        RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`
        """).rstrip("\n"))
    return Case(
        case_id="cublas-failure-create-handle-shared-gpu-01",
        label="cublas-failure",
        difficulty="easy",
        description="Workstation RTX 3090 already 23.7 GB full from another user's Python process; the first Linear fails with CUBLAS_STATUS_NOT_INITIALIZED at cublasCreate(handle).",
        initiating_rank=None,
        facts={"gpu_model": "GeForce RTX 3090", "driver_version": "525.105.17", "torch_version": "1.13.1", "cuda_version": "11.7", "launcher": "python"},
        must_mention=["memory", "cublasCreate"],
        also=["cuda-oom"],
        files={"train.log": "\n".join(out)},
    )


def cublas_deterministic_ci() -> Case:
    rng = random.Random(802)
    tok = fake_ghp(rng)
    site = "/builds/ml/recsys/.venv/lib/python3.10/site-packages"
    pipdir = "/tmp/pip-install-" + rand_token(rng, "abcdefghijklmnopqrstuvwxyz0123456789_", 8)
    out = [
        "Running with gitlab-runner 16.1.0 (b72e108d)",
        "  on gpu-runner-a10g-2 zK3vJx9q, system ID: s_6a1f0c2d44e1",
        "Preparing the \"docker\" executor",
        "Using docker image sha256:1f9a0e... for nvcr.io/nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04 ...",
        "Executing \"step_script\" stage of the job script",
        "$ python -m venv .venv && . .venv/bin/activate",
        "$ pip install -q torch==2.0.1 --index-url https://download.pytorch.org/whl/cu118 && pip install -q -r requirements.txt",
        f"Collecting mlutils@ git+https://{tok}@github.com/acme-ml/mlutils.git@v0.7.1 (from -r requirements.txt (line 6))",
        f"  Cloning https://{tok}@github.com/acme-ml/mlutils.git (to revision v0.7.1) to {pipdir}/mlutils_3c6e1f0a2b",
        f"  Running command git clone --filter=blob:none --quiet 'https://{tok}@github.com/acme-ml/mlutils.git' {pipdir}/mlutils_3c6e1f0a2b",
        "  Resolved https://github.com/acme-ml/mlutils.git to commit 5e2b9d1c7a0f3e8b6d4c2a1f9e8d7c6b5a4f3e2d",
        "$ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv",
        "name, driver_version, memory.total [MiB]",
        "NVIDIA A10G, 535.54.03, 23028 MiB",
        "$ python -m pytest -q tests/test_repro.py -k two_tower --maxfail=1",
        "============================= test session starts ==============================",
        "platform linux -- Python 3.10.12, pytest-7.4.0, pluggy-1.2.0",
        "rootdir: /builds/ml/recsys",
        "configfile: pyproject.toml",
        "collected 6 items / 5 deselected / 1 selected",
        "",
        "tests/test_repro.py F                                                    [100%]",
        "",
        "=================================== FAILURES ===================================",
        "________________________ test_two_tower_bitwise_repro _________________________",
        "",
        "    def test_two_tower_bitwise_repro():",
        "        torch.manual_seed(0)",
        "        torch.use_deterministic_algorithms(True)",
        "        model = TwoTower(n_users=10_000, n_items=50_000, dim=64).cuda()",
        "        batch = make_batch(batch_size=512, device=\"cuda\")",
        ">       a = model(**batch)",
        "",
        "tests/test_repro.py:27: ",
        "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ ",
        f"{site}/torch/nn/modules/module.py:1501: in _call_impl",
        "    return forward_call(*args, **kwargs)",
        "recsys/models/two_tower.py:58: in forward",
        "    u = self.user_mlp(self.user_emb(user_ids))",
        f"{site}/torch/nn/modules/module.py:1501: in _call_impl",
        "    return forward_call(*args, **kwargs)",
        f"{site}/torch/nn/modules/container.py:217: in forward",
        "    input = module(input)",
        f"{site}/torch/nn/modules/module.py:1501: in _call_impl",
        "    return forward_call(*args, **kwargs)",
        "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ ",
        "",
        "self = Linear(in_features=64, out_features=256, bias=True)",
        "input = tensor([[ 0.4521, -1.2203,  0.0917,  ...,  0.7730, -0.3312,  1.0451],",
        "        [-0.8816,  0.1204,  0.5527,  ..., -0.0203,  0.9961, -1.4422],",
        "        ...,",
        "        [ 0.2210, -0.6617,  1.3302,  ...,  0.4075, -0.1158,  0.0264]],",
        "       device='cuda:0', grad_fn=<EmbeddingBackward0>)",
        "",
        "    def forward(self, input: Tensor) -> Tensor:",
        ">       return F.linear(input, self.weight, self.bias)",
        "E       RuntimeError: Deterministic behavior was enabled with either `torch.use_deterministic_algorithms(True)` or `at::Context::setDeterministicAlgorithms(true)`, but this operation is not deterministic because it uses CuBLAS and you have CUDA >= 10.2. To enable deterministic behavior in this case, you must set an environment variable before running your PyTorch application: CUBLAS_WORKSPACE_CONFIG=:4096:8 or CUBLAS_WORKSPACE_CONFIG=:16:8. For more information, go to https://docs.nvidia.com/cuda/cublas/index.html#results-reproducibility",
        "",
        f"{site}/torch/nn/modules/linear.py:114: RuntimeError",
        "=========================== short test summary info ============================",
        "FAILED tests/test_repro.py::test_two_tower_bitwise_repro - RuntimeError: Deterministic behavior was enabled with either `torch.use_deterministic_algorithms(True)` or `at::Context::setDeterministicAlgorithms(true)`, but this operation is not deterministic because it uses CuBLAS and you have CUDA >= 10.2. To enable deterministic behavior in this case, you must set an environment variable before running your PyTorch application: CUBLAS_WORKSPACE_CONFIG=:4096:8 or CUBLAS_WORKSPACE_CONFIG=:16:8. For more information, go to https://docs.nvidia.com/cuda/cublas/index.html#results-reproducibility",
        "!!!!!!!!!!!!!!!!!!!!!!!!!! stopping after 1 failures !!!!!!!!!!!!!!!!!!!!!!!!!!!",
        "======================= 1 failed, 5 deselected in 6.41s ========================",
        "Cleaning up project directory and file based variables",
        "ERROR: Job failed: exit code 1",
    ]
    return Case(
        case_id="cublas-failure-deterministic-workspace-02",
        label="cublas-failure",
        difficulty="easy",
        description="GitLab CI reproducibility test on an A10G with torch.use_deterministic_algorithms(True) but no CUBLAS_WORKSPACE_CONFIG; the first Linear raises the CuBLAS determinism error; the pip step leaks a GitHub token in a git URL.",
        initiating_rank=None,
        facts={"gpu_model": "A10G", "driver_version": "535.54.03", "torch_version": "2.0.1", "python_version": "3.10.12", "exit_code": "1"},
        must_mention=["CUBLAS_WORKSPACE_CONFIG"],
        secrets=[tok],
        files={"job.log": "\n".join(out)},
    )


def cublas_dpo_first_backward() -> Case:
    rng = random.Random(803)
    clk = Clock(datetime(2023, 12, 12, 19, 44, 9), rng)
    site = "/usr/local/lib/python3.10/dist-packages"
    out = [
        "+ python dpo.py --policy /models/zephyr-7b-sft --ref /models/zephyr-7b-sft --data data/ultrafeedback_binarized --bf16 --per_device_train_batch_size 1 --gradient_accumulation_steps 16 --max_length 1024 --max_prompt_length 512 --output_dir out/zephyr-dpo",
        f"{clk.hf()} - INFO - __main__ - torch 2.1.1+cu121 transformers 4.35.2 trl 0.7.4 peft None; device NVIDIA A100-SXM4-40GB (39.39 GiB)",
        "Loading checkpoint shards: 100%|██████████| 8/8 [00:12<00:00,  1.58s/it]",
        "Loading checkpoint shards: 100%|██████████| 8/8 [00:12<00:00,  1.55s/it]",
        f"{clk.hf(26, 28)} - INFO - __main__ - policy + reference on cuda:0 (bf16), gradient_checkpointing=True",
        f"{clk.hf()} - INFO - __main__ - cuda memory after model load: allocated 27.01 GiB, reserved 27.10 GiB, total 39.39 GiB",
        f"{site}/trl/trainer/dpo_trainer.py:294: UserWarning: When using DPODataCollatorWithPadding, you should set `remove_unused_columns=False` in your TrainingArguments we have set it for you, but you should do it yourself in the future.",
        "  warnings.warn(",
        "Map: 100%|██████████| 61135/61135 [01:31<00:00, 668.12 examples/s]",
        "Map: 100%|██████████| 2000/2000 [00:03<00:00, 651.70 examples/s]",
    ]
    clk.tick(95, 100)
    for n, m in [(1723, "***** Running training *****"), (1724, "  Num examples = 61,135"), (1725, "  Num Epochs = 1"), (1726, "  Instantaneous batch size per device = 1"),
                 (1729, "  Total train batch size (w. parallel, distributed & accumulation) = 16"), (1730, "  Gradient Accumulation steps = 16"),
                 (1731, "  Total optimization steps = 3,820"), (1732, "  Number of trainable parameters = 7,241,732,096")]:
        out.append(f"[INFO|trainer.py:{n}] {clk.ds(0, 0.002)} >> {m}")
    out.append("  0%|          | 0/3820 [00:00<?, ?it/s]Could not estimate the number of tokens of the input, floating-point operations will not be computed")
    out.append(f"{clk.hf(2, 3)} - INFO - __main__ - step 0 forward done: policy+ref logps computed, cuda allocated 38.42 GiB, reserved 38.96 GiB")
    out.append("\n".join([
        "Traceback (most recent call last):",
        '  File "/workspace/align/dpo.py", line 214, in <module>',
        "    main()",
        '  File "/workspace/align/dpo.py", line 205, in main',
        "    trainer.train()",
        f'  File "{site}/transformers/trainer.py", line 1555, in train',
        "    return inner_training_loop(",
        f'  File "{site}/transformers/trainer.py", line 1860, in _inner_training_loop',
        "    tr_loss_step = self.training_step(model, inputs)",
        f'  File "{site}/transformers/trainer.py", line 2734, in training_step',
        "    self.accelerator.backward(loss)",
        f'  File "{site}/accelerate/accelerator.py", line 1989, in backward',
        "    loss.backward(**kwargs)",
        *backward_call_frames(site, "2.1"),
        f'  File "{site}/torch/autograd/function.py", line 288, in apply',
        "    return user_fn(self, *args)",
        f'  File "{site}/torch/utils/checkpoint.py", line 288, in backward',
        "    torch.autograd.backward(outputs_with_grad, args_with_grad)",
        f'  File "{site}/torch/autograd/__init__.py", line 251, in backward',
        "    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass",
        "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",
    ]))
    out.append("  0%|          | 0/3820 [00:06<?, ?it/s]")
    return Case(
        case_id="cublas-failure-dpo-first-backward-03",
        label="cublas-failure",
        difficulty="medium",
        description="Single A100 40GB DPO run holding policy and reference 7B models; forward of step 0 completes at 38.4 of 39.4 GiB, and the first backward (autograd thread, new cuBLAS handle) fails with CUBLAS_STATUS_ALLOC_FAILED at cublasCreate.",
        initiating_rank=None,
        facts={"gpu_model": "A100-SXM4-40GB", "torch_version": "2.1.1", "transformers_version": "4.35.2", "launcher": "python", "precision": "bf16", "failure_step": "0"},
        must_mention=["memory", "backward"],
        also=["cuda-oom"],
        files={"train.log": "\n".join(out)},
    )


def cublas_srun_stray_process() -> Case:
    rng = random.Random(804)
    clk = Clock(datetime(2024, 4, 8, 1, 12, 44), rng)
    site = "/opt/venv/lib/python3.10/site-packages"
    wkey = fake_wandb_key(rng)
    out = [
        f"job 3309174 on hgx-h100-03 started {clk.t.strftime('%Y-%m-%d %H:%M:%S')}",
        "+ env | grep -E '^(WANDB|NCCL|MASTER|SLURM_NTASKS|SLURM_JOB_ID)'",
        "MASTER_ADDR=hgx-h100-03",
        "MASTER_PORT=29531",
        "NCCL_DEBUG=WARN",
        "SLURM_JOB_ID=3309174",
        "SLURM_NTASKS=8",
        f"WANDB_API_KEY={wkey}",
        "WANDB_ENTITY=vision-research",
        "WANDB_PROJECT=dino-vitl",
        "+ nvidia-smi",
    ]
    gpus = [Gpu("NVIDIA H100 80GB HBM3", f"00000000:{b}:00.0", 81559, 700, mem_used_mib=(12587 if i == 2 else 1), temp=30 + (i % 3), power=(118 if i == 2 else 71 + i))
            for i, b in enumerate(("18", "2A", "3A", "5D", "9A", "AB", "BA", "DB"))]
    out.append(nvidia_smi(clk.t, "535.161.08", "12.2", gpus, procs=[(2, 2871450, "python", 12576)]).rstrip("\n"))
    out.append("+ srun -l --kill-on-bad-exit=0 python train_dino.py --arch vit_large --batch_size_per_gpu 48 --epochs 100 --output_dir /scratch/dino_vitl_r2")
    for r in range(8):
        out.append(f"{r}: [{clk.ds(0.5, 1) if r == 0 else clk.ds()}] | distributed init (rank {r}): env://, gpu {r}, torch 2.2.1+cu121, nccl 2.19.3")
    out.append(f"0: [{clk.ds(3, 5)}] Model vit_large built: 304.4M params (student + teacher on each GPU)")
    out.append(f"0: [{clk.ds(60, 80)}] Data loaded: 1,281,167 images, 3336 iterations/epoch")
    out.append(f"0: [{clk.ds(1, 2)}] Starting DINO training ! timeout for collectives: 0:10:00")
    out.append("0: Epoch: [0]  [   0/3336]  eta: 18:02:31  loss: 10.8217 (10.8217)  lr: 0.000000 (0.000000)  wd: 0.040000 (0.040000)  time: 19.473281  data: 11.204811  max mem: 61240")
    tb = block(f"""
        Traceback (most recent call last):
          File "/home/svc-train/dino/train_dino.py", line 472, in <module>
            train_dino(args)
          File "/home/svc-train/dino/train_dino.py", line 285, in train_dino
            train_stats = train_one_epoch(student, teacher, teacher_without_ddp, dino_loss,
          File "/home/svc-train/dino/train_dino.py", line 333, in train_one_epoch
            loss.backward()
          File "{site}/torch/_tensor.py", line 522, in backward
            torch.autograd.backward(
          File "{site}/torch/autograd/__init__.py", line 266, in backward
            Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
        RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`
        """)
    out.append(prefix(tb, "2: ").rstrip("\n"))
    out.append("srun: error: hgx-h100-03: task 2: Exited with exit code 1")
    clk.tick(600, 601)
    seqs = {r: 3 for r in range(8)}
    for r in (0, 4, 1, 7, 3, 6, 5):
        ms = 600000 + rng.randrange(20, 400)
        work = f"WorkNCCL(SeqNum={seqs[r]}, OpType=ALLREDUCE, NumelIn=26214400, NumelOut=26214400, Timeout(ms)=600000)"
        out.append(f"{r}: [E ProcessGroupNCCL.cpp:523] [Rank {r}] Watchdog caught collective operation timeout: {work} ran for {ms} milliseconds before timing out.")
        out.append(f"{r}: [E ProcessGroupNCCL.cpp:537] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
        out.append(f"{r}: [E ProcessGroupNCCL.cpp:543] To avoid data inconsistency, we are taking the entire process down.")
        out.append(f"{r}: [E ProcessGroupNCCL.cpp:1182] [Rank {r}] NCCL watchdog thread terminated with exception: [Rank {r}] Watchdog caught collective operation timeout: {work} ran for {ms} milliseconds before timing out.")
        if r == 0:
            out.append(f"{r}: Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:525 (most recent call first):")
            out.append(f"{r}: frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f6c2a97dd87 in {site}/torch/lib/libc10.so)")
            out.append(f"{r}: frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1e6 (0x7f6be1c2c6e6 in {site}/torch/lib/libtorch_cuda.so)")
            out.append(f"{r}: frame #2: c10d::ProcessGroupNCCL::workCleanupLoop() + 0x19d (0x7f6be1c2fc3d in {site}/torch/lib/libtorch_cuda.so)")
            out.append(f"{r}: frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x119 (0x7f6be1c30839 in {site}/torch/lib/libtorch_cuda.so)")
            out.append(f"{r}: frame #4: <unknown function> + 0xdc253 (0x7f6c29cdc253 in /lib/x86_64-linux-gnu/libstdc++.so.6)")
            out.append(f"{r}: frame #5: <unknown function> + 0x94ac3 (0x7f6c2c894ac3 in /lib/x86_64-linux-gnu/libc.so.6)")
            out.append(f"{r}: frame #6: <unknown function> + 0x126850 (0x7f6c2c926850 in /lib/x86_64-linux-gnu/libc.so.6)")
            out.append(f"{r}: ")
        out.append(f"{r}: terminate called after throwing an instance of 'c10::DistBackendError'")
        out.append(f"{r}:   what():  [Rank {r}] NCCL watchdog thread terminated with exception: [Rank {r}] Watchdog caught collective operation timeout: {work} ran for {ms} milliseconds before timing out.")
    out.append("srun: error: hgx-h100-03: tasks 0-1,3-7: Aborted (core dumped)")
    out.append(f"job 3309174 finished {clk.tick(2, 3).strftime('%Y-%m-%d %H:%M:%S')} exit code 134")
    return Case(
        case_id="cublas-failure-srun-stray-process-04",
        label="cublas-failure",
        difficulty="hard",
        description="8-task srun DINO ViT-L job on H100s where GPU 2 still holds 12.6 GB from a stray process; rank 2 fails at the first backward with CUBLAS_STATUS_ALLOC_FAILED at cublasCreate, and 10 minutes later the 7 other ranks hit NCCL watchdog timeouts and abort.",
        initiating_rank=2,
        facts={"gpu_model": "H100 80GB HBM3", "driver_version": "535.161.08", "torch_version": "2.2.1", "nccl_version": "2.19.3", "launcher": "srun", "world_size": "8"},
        must_mention=["rank 2", "memory"],
        also=["cuda-oom"],
        secrets=[wkey],
        files={"slurm-3309174.out": "\n".join(out)},
    )


# ==================================================================================================
# cudnn-failure


def cudnn_repro_block(shape: list[int], dtype: str, benchmark: bool, strides: list[int], out_shape: list[int], out_strides: list[int], wshape: list[int], rng: random.Random,
                      conv: str = "Conv2d", kernel: str = "[3, 3]", pad: str = "[1, 1]", stride: str = "[1, 1]", dil: str = "[1, 1]", fmt: str = "Contiguous", tensor_fmt: str = "CUDNN_TENSOR_NCHW", backward: bool = True) -> str:
    cd = "CUDNN_DATA_HALF" if dtype == "half" else "CUDNN_DATA_FLOAT"
    p3 = lambda s: "[" + ", ".join(s.strip("[]").split(", ") + ["0"] * (3 - len(s.strip("[]").split(", ")))) + "]"  # noqa: E731
    a = lambda: f"0x{rng.randrange(0x55d000000000, 0x55dfffffffff) & ~0xF:x}"  # noqa: E731
    p = lambda: f"0x{rng.randrange(0x7f0000000000, 0x7f0fffffffff) & ~0xFFFFF:x}"  # noqa: E731
    lines = [
        "You can try to repro this exception using the following code snippet. If that doesn't trigger the error, please include your original repro script when reporting this issue.",
        "",
        "import torch",
        "torch.backends.cuda.matmul.allow_tf32 = False",
        f"torch.backends.cudnn.benchmark = {benchmark}",
        "torch.backends.cudnn.deterministic = False",
        "torch.backends.cudnn.allow_tf32 = True",
        f"data = torch.randn({shape}, dtype=torch.{dtype}, device='cuda', requires_grad=True)",
        f"net = torch.nn.{conv}({shape[1]}, {out_shape[1]}, kernel_size={kernel}, padding={pad}, stride={stride}, dilation={dil}, groups=1)",
        f"net = net.cuda().{dtype}()",
        "out = net(data)",
    ]
    if backward:
        lines.append("out.backward(torch.randn_like(out))")
    lines += [
        "torch.cuda.synchronize()",
        "",
        "ConvolutionParams ",
        f"    memory_format = {fmt}",
        f"    data_type = {cd}",
        f"    padding = {p3(pad)}",
        f"    stride = {p3(stride)}",
        f"    dilation = {p3(dil)}",
        "    groups = 1",
        "    deterministic = false",
        "    allow_tf32 = true",
        f"input: TensorDescriptor {a()}",
        f"    type = {cd}",
        f"    nbDims = {len(shape)}",
        "    dimA = " + ", ".join(map(str, shape)) + ", ",
        "    strideA = " + ", ".join(map(str, strides)) + ", ",
        f"output: TensorDescriptor {a()}",
        f"    type = {cd}",
        f"    nbDims = {len(out_shape)}",
        "    dimA = " + ", ".join(map(str, out_shape)) + ", ",
        "    strideA = " + ", ".join(map(str, out_strides)) + ", ",
        f"weight: FilterDescriptor {a()}",
        f"    type = {cd}",
        f"    tensor_format = {tensor_fmt}",
        f"    nbDims = {len(wshape)}",
        "    dimA = " + ", ".join(map(str, wshape)) + ", ",
        "Pointer addresses: ",
        f"    input: {p()}",
        f"    output: {p()}",
        f"    weight: {p()}",
    ]
    if backward:
        lines += ["Additional pointer addresses: ", f"    grad_output: {p()}", f"    grad_input: {p()}", "Backward data algorithm: 1", ""]
    else:
        lines += ["Forward algorithm: 7", ""]
    return "\n".join(lines) + "\n"


def contiguous_strides(shape: list[int]) -> list[int]:
    st = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        st[i] = st[i + 1] * shape[i + 1]
    return st


def cudnn_unet_internal_t4() -> Case:
    rng = random.Random(901)
    site = "/opt/conda/lib/python3.10/site-packages"
    out = [
        "$ python train_seg.py --data /data/roads_1024 --img-size 512 --batch-size 16 --amp --benchmark --epochs 60",
        "torch 2.0.1+cu117 | cudnn 8500 | GPU: Tesla T4 (14.75 GiB) | amp=fp16 | cudnn.benchmark=True",
        "train tiles: 9,744  val tiles: 1,218",
        "UNet(encoder=resnet34, decoder_channels=[256,128,64,32,16]): 24.44M params",
    ]
    for i, it in enumerate((50, 100, 150, 200, 250, 300, 350, 400, 450, 500, 550, 600)):
        out.append(f"[ep 1] it {it:>4}/609  loss {0.61 - 0.025 * i + rng.uniform(-0.01, 0.01):.4f}  dice {0.42 + 0.02 * i:.3f}  mem {rng.uniform(13.9, 14.2):.2f}G  {rng.uniform(2.3, 2.45):.2f} it/s")
    out.append("[ep 1] it  609/609  done in 4m21s; validating (batch 32, full 1024x1024 tiles)")
    mod = f"{site}/torch/nn/modules/module.py"
    out.append(block(f"""
        Traceback (most recent call last):
          File "/workspace/seg/train_seg.py", line 247, in <module>
            main(args)
          File "/workspace/seg/train_seg.py", line 219, in main
            val_loss, val_dice = evaluate(model, val_loader, args)
          File "/workspace/seg/train_seg.py", line 142, in evaluate
            logits = model(images)
          File "{mod}", line 1501, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site}/segmentation_models_pytorch/base/model.py", line 29, in forward
            features = self.encoder(x)
          File "{mod}", line 1501, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site}/segmentation_models_pytorch/encoders/resnet.py", line 62, in forward
            x = stages[i](x)
          File "{mod}", line 1501, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site}/torch/nn/modules/container.py", line 217, in forward
            input = module(input)
          File "{mod}", line 1501, in _call_impl
            return forward_call(*args, **kwargs)
          File "{site}/torch/nn/modules/conv.py", line 463, in forward
            return self._conv_forward(input, self.weight, self.bias)
          File "{site}/torch/nn/modules/conv.py", line 459, in _conv_forward
            return F.conv2d(input, weight, bias, self.stride,
        RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR
        """).rstrip("\n"))
    shape = [32, 3, 1024, 1024]
    osh = [32, 64, 512, 512]
    out.append(cudnn_repro_block(shape, "half", True, contiguous_strides(shape), osh, contiguous_strides(osh), [64, 3, 7, 7], rng,
                                 kernel="[7, 7]", pad="[3, 3]", stride="[2, 2]", backward=False).rstrip("\n"))
    return Case(
        case_id="cudnn-failure-internal-error-t4-eval-01",
        label="cudnn-failure",
        difficulty="easy",
        description="UNet training on a T4 with cudnn.benchmark and AMP runs near 14 of 14.75 GiB; the first validation pass (batch 32 at 1024x1024, a new shape) fails in the stem conv with CUDNN_STATUS_INTERNAL_ERROR and prints the repro snippet.",
        initiating_rank=None,
        facts={"gpu_model": "Tesla T4", "torch_version": "2.0.1", "cuda_version": "11.7", "launcher": "python", "precision": "fp16"},
        must_mention=["batch", "benchmark"],
        also=["cuda-oom"],
        files={"train.log": "\n".join(out)},
    )


def cudnn_version_ldpath() -> Case:
    site = "/home/ml/venvs/kws/lib/python3.10/site-packages"
    out = [
        "ml@a6000-box:~/kws$ echo $LD_LIBRARY_PATH",
        "/usr/local/cuda-11.8/lib64:/opt/cudnn-8.6.0/lib:/opt/TensorRT-8.5.3.1/lib",
        "ml@a6000-box:~/kws$ pip list 2>/dev/null | grep -iE 'torch|nvidia-cudnn'",
        "nvidia-cudnn-cu12        8.9.2.26",
        "torch                    2.1.2",
        "torchaudio               2.1.2",
        "ml@a6000-box:~/kws$ python train.py --cfg cfg/crnn_kws.yaml",
        "[kws] torch 2.1.2+cu121 cuda 12.1 | GPU NVIDIA RTX A6000",
        "[kws] dataset speech_commands_v2: 84843 train / 9981 val / 11005 test, 35 keywords",
        "[kws] model CRNN(conv x4 -> BiLSTM(2x256) -> attn pool): 1.74M params",
    ]
    mod = f"{site}/torch/nn/modules/module.py"
    out.append(block(f"""
        Traceback (most recent call last):
          File "/home/ml/kws/train.py", line 97, in <module>
            model = build_model(cfg).to(device)
          File "{mod}", line 1160, in to
            return self._apply(convert)
          File "{mod}", line 810, in _apply
            module._apply(fn)
          File "{site}/torch/nn/modules/rnn.py", line 224, in _apply
            self._init_flat_weights()
          File "{site}/torch/nn/modules/rnn.py", line 160, in _init_flat_weights
            self.flatten_parameters()
          File "{site}/torch/nn/modules/rnn.py", line 214, in flatten_parameters
            not torch.backends.cudnn.is_acceptable(fw.data)):
          File "{site}/torch/backends/cudnn/__init__.py", line 99, in is_acceptable
            if not _init():
          File "{site}/torch/backends/cudnn/__init__.py", line 61, in _init
            raise RuntimeError(
        RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 9, 2) but found runtime version (8, 6, 0). PyTorch already comes bundled with cuDNN. One option to resolving this error is to ensure PyTorch can find the bundled cuDNN. Looks like your LD_LIBRARY_PATH contains incompatible version of cudnn. Please either remove it from the path or install cudnn (8, 9, 2)
        """).rstrip("\n"))
    return Case(
        case_id="cudnn-failure-version-ldpath-02",
        label="cudnn-failure",
        difficulty="easy",
        description="Keyword-spotting CRNN with torch 2.1.2+cu121 on an RTX A6000; LD_LIBRARY_PATH puts a system cuDNN 8.6.0 ahead of the bundled 8.9.2 and moving the LSTM to the GPU raises 'cuDNN version incompatibility'.",
        initiating_rank=None,
        facts={"gpu_model": "RTX A6000", "torch_version": "2.1.2", "cuda_version": "12.1", "launcher": "python"},
        must_mention=["LD_LIBRARY_PATH"],
        files={"train.log": "\n".join(out)},
    )


def cudnn_cnn_infer_abort() -> Case:
    rng = random.Random(903)
    clk = Clock(datetime(2023, 6, 28, 13, 50, 37), rng)
    site = "/opt/conda/envs/det/lib/python3.10/site-packages"
    out = [
        "(det) root@det-train-1:/workspace/det# env | grep -E 'LD_LIBRARY|CUDA_HOME'",
        "CUDA_HOME=/usr/local/cuda-11.8",
        "LD_LIBRARY_PATH=/opt/conda/envs/det/lib:/usr/local/cuda-11.8/lib64:/usr/local/nvidia/lib:/usr/local/nvidia/lib64",
        "(det) root@det-train-1:/workspace/det# ls /opt/conda/envs/det/lib | grep cudnn",
        "libcudnn.so.8",
        "libcudnn.so.8.9.1",
        "(det) root@det-train-1:/workspace/det# torchrun --standalone --nproc_per_node 4 --tee 3 tools/train_net.py --config-file configs/retinanet_R50_FPN_3x.yaml --num-gpus 4",
        "WARNING:torch.distributed.run:",
        "*****************************************",
        "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
        "*****************************************",
    ]
    for r in range(4):
        out.append(f"[default{r}]:[{clk.t.strftime('%m/%d %H:%M:%S')} d2.utils.env]: Using a generated random seed {rng.randrange(10**7, 10**8)}")
    out.append(f"[default0]:[{clk.tick(2, 3).strftime('%m/%d %H:%M:%S')} d2.engine.defaults]: Environment info: torch 2.0.1+cu118, cuda 11.8, GPU 0-3 NVIDIA A100-SXM4-40GB, detectron2 0.6")
    out.append(f"[default0]:[{clk.tick(1, 2).strftime('%m/%d %H:%M:%S')} d2.engine.defaults]: Model: RetinaNet(ResNet-50-FPN), 37.74M params")
    out.append(f"[default0]:[{clk.tick(5, 8).strftime('%m/%d %H:%M:%S')} d2.data.build]: Using training sampler TrainingSampler")
    out.append(f"[default0]:[{clk.tick(0, 1).strftime('%m/%d %H:%M:%S')} d2.data.common]: Serializing 117266 elements to byte tensors and concatenating them all ...")
    out.append(f"[default0]:[{clk.tick(4, 5).strftime('%m/%d %H:%M:%S')} d2.data.common]: Serialized dataset takes 451.21 MiB")
    out.append(f"[default0]:[{clk.tick(1, 2).strftime('%m/%d %H:%M:%S')} d2.engine.train_loop]: Starting training from iteration 0")
    for r in (2, 0, 3, 1):
        out.append(f"[default{r}]:Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot open shared object file: No such file or directory")
        out.append(f"[default{r}]:Please make sure libcudnn_cnn_infer.so.8 is in your library path!")
    clk.tick(3, 4)
    for r in (1, 2, 3):
        out.append(f"WARNING:torch.distributed.elastic.multiprocessing.api:Sending process {61411 + r} closing signal SIGTERM")
    out.append("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 0 (pid: 61411) of binary: /opt/conda/envs/det/bin/python")
    fails = [(r, r, -15, 61411 + r, "SIGTERM") for r in (1, 2, 3)]
    out.append(child_failed("tools/train_net.py", clk.t, "det-train-1", fails, (0, 0, -6, 61411, "SIGABRT"), site, torchrun_bin="/opt/conda/envs/det/bin/torchrun",
                            api=(134, 250, 346), run_line=(794, 785)).rstrip("\n"))
    return Case(
        case_id="cudnn-failure-cnn-infer-abort-03",
        label="cudnn-failure",
        difficulty="medium",
        description="detectron2 RetinaNet under torchrun --tee 3 on 4x A100; a partial cuDNN (only libcudnn.so.8) in the conda env's lib dir on LD_LIBRARY_PATH is loaded, it cannot find libcudnn_cnn_infer.so.8 at the first conv, the ranks abort with SIGABRT and torchrun reports exitcode -6.",
        initiating_rank=[0, 1, 2, 3],
        facts={"gpu_model": "A100-SXM4-40GB", "torch_version": "2.0.1", "cuda_version": "11.8", "launcher": "torchrun", "world_size": "4", "exit_code": "-6", "signal": "SIGABRT"},
        must_mention=["libcudnn_cnn_infer", "LD_LIBRARY_PATH"],
        files={"train.log": "\n".join(out)},
    )


def cudnn_algo_eval_multinode() -> Case:
    rng = random.Random(904)
    clk = Clock(datetime(2023, 11, 3, 4, 2, 50), rng)
    site = "/p/software/envs/seg2023/lib/python3.10/site-packages"
    out = [
        f"=== SLURM job 7712055 on nodes a40-[11-12], 8 tasks (4 per node), {clk.t.strftime('%Y-%m-%d %H:%M:%S')} ===",
        "+ srun -l --cpu-bind=none python train_mask2former.py --cfg configs/m2f_swinl_cityscapes.yaml --benchmark --eval-every 4000",
    ]
    hosts = ["a40-11"] * 4 + ["a40-12"] * 4
    for r in range(8):
        out.append(f"{r}: {clk.ds(0.5, 1) if r == 0 else clk.ds()} INFO dist: rank {r}/8 on {hosts[r]} cuda:{r % 4} NVIDIA A40, torch 2.1.0+cu118, cudnn 8700")
    out.append(f"0: {clk.ds(20, 30)} INFO train: Mask2Former Swin-L, 215.5M params, cudnn.benchmark=True, amp=fp16, timeout=30min")
    for it in range(500, 4001, 500):
        out.append(f"0: {clk.ds(560, 600)} INFO train: iter {it}/90000 loss {3.9 - it / 2500 + rng.uniform(-0.05, 0.05):.3f} lr {1e-4:.2e} mem 38.4G ({rng.uniform(1.1, 1.2):.2f} s/it)")
    out.append(f"0: {clk.ds(5, 10)} INFO eval: iter 4000: evaluating on cityscapes val (500 images, full 1024x2048, batch 2/gpu, no resize)")
    tb = "\n".join([
        "Traceback (most recent call last):",
        '  File "/p/project/seg/train_mask2former.py", line 402, in <module>',
        "    main()",
        '  File "/p/project/seg/train_mask2former.py", line 371, in main',
        "    metrics = evaluate(model, val_loader, cfg)",
        f'  File "{site}/torch/utils/_contextlib.py", line 115, in decorate_context',
        "    return func(*args, **kwargs)",
        '  File "/p/project/seg/engine.py", line 96, in evaluate',
        "    outputs = model(images)",
        *module_call_frames(site, "2.1"),
        '  File "/p/project/seg/models/pixel_decoder.py", line 211, in forward',
        '    y = self.output_convs[idx](cur_fpn + F.interpolate(y, size=cur_fpn.shape[-2:], mode="nearest"))',
        *module_call_frames(site, "2.1"),
        f'  File "{site}/torch/nn/modules/conv.py", line 460, in forward',
        "    return self._conv_forward(input, self.weight, self.bias)",
        f'  File "{site}/torch/nn/modules/conv.py", line 456, in _conv_forward',
        "    return F.conv2d(input, weight, bias, self.stride,",
        "RuntimeError: Unable to find a valid cuDNN algorithm to run convolution",
    ]) + "\n"
    clk.tick(40, 50)
    out.append(prefix(tb, "5: ").rstrip("\n"))
    out.append("srun: error: a40-12: task 5: Exited with exit code 1")
    clk.tick(1800, 1801)
    for r in (0, 2, 1, 3, 6, 4, 7):
        ms = 1800000 + rng.randrange(50, 500)
        work = f"WorkNCCL(SeqNum=27{rng.choice([0, 1])}41, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000)"
        out.append(f"{r}: [E ProcessGroupNCCL.cpp:475] [Rank {r}] Watchdog caught collective operation timeout: {work} ran for {ms} milliseconds before timing out.")
        out.append(f"{r}: [E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
        out.append(f"{r}: [E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.")
        out.append(f"{r}: [E ProcessGroupNCCL.cpp:916] [Rank {r}] NCCL watchdog thread terminated with exception: [Rank {r}] Watchdog caught collective operation timeout: {work} ran for {ms} milliseconds before timing out.")
        out.append(f"{r}: terminate called after throwing an instance of 'std::runtime_error'")
        out.append(f"{r}:   what():  [Rank {r}] NCCL watchdog thread terminated with exception: [Rank {r}] Watchdog caught collective operation timeout: {work} ran for {ms} milliseconds before timing out.")
    out.append("srun: error: a40-11: tasks 0-3: Aborted (core dumped)")
    out.append("srun: error: a40-12: tasks 4,6-7: Aborted (core dumped)")
    out.append(f"=== job 7712055 ended {clk.tick(3, 4).strftime('%Y-%m-%d %H:%M:%S')} state FAILED ===")
    return Case(
        case_id="cudnn-failure-algo-search-eval-multinode-04",
        label="cudnn-failure",
        difficulty="hard",
        description="2-node x 4 A40 Mask2Former job (srun -l) with cudnn.benchmark; at the first evaluation on full-size images rank 5 fails with 'Unable to find a valid cuDNN algorithm to run convolution', the other 7 ranks wait in the metric all-reduce and abort on NCCL watchdog timeouts 30 minutes later.",
        initiating_rank=5,
        facts={"gpu_model": "A40", "torch_version": "2.1.0", "cuda_version": "11.8", "launcher": "srun", "world_size": "8", "num_nodes": "2", "failure_step": "4000"},
        must_mention=["rank 5", "memory"],
        also=["cuda-oom"],
        files={"slurm-7712055.out": "\n".join(out)},
    )


# ==================================================================================================
# cuda-launch-failure


def launch_rtx4090_random() -> Case:
    rng = random.Random(1001)
    clk = Clock(datetime(2024, 5, 30, 21, 3, 12), rng)
    site = "/home/pc/miniforge3/envs/diff/lib/python3.11/site-packages"
    out = [
        "(diff) pc@tower:~/code/ddpm-faces$ python train.py --data ~/datasets/ffhq256 --res 256 --batch 48 --amp --steps 400000",
        f"[{clk.ds()}] torch 2.3.0+cu121 | GPU NVIDIA GeForce RTX 4090 (23.65 GiB) | amp fp16 | channels_last",
        f"[{clk.ds()}] UNet 113.7M params | EMA 0.9999 | 70000 images",
        f"[{clk.ds()}] resuming from runs/ffhq256/ckpt_0164000.pt (step 164000)",
    ]
    step = 164000
    loss = 0.0421
    while step < 178400:
        step += 200
        loss = 0.5 * loss + 0.5 * (0.041 + rng.uniform(-0.004, 0.004))
        out.append(f"[{clk.ds(71, 74)}] step {step} | loss {loss:.4f} | {rng.uniform(2.70, 2.78):.2f} it/s | lr 1.0e-04 | gpu {rng.randrange(80, 84)}C {rng.randrange(438, 451)}W")
        if step % 5000 == 0:
            out.append(f"[{clk.ds(4, 6)}] saved runs/ffhq256/ckpt_{step:07d}.pt")
    clk.tick(30, 40)
    out.append(block(f"""
        Traceback (most recent call last):
          File "/home/pc/code/ddpm-faces/train.py", line 233, in <module>
            main()
          File "/home/pc/code/ddpm-faces/train.py", line 197, in main
            scaler.step(opt)
          File "{site}/torch/amp/grad_scaler.py", line 453, in step
            retval = self._maybe_opt_step(optimizer, optimizer_state, *args, **kwargs)
                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/torch/amp/grad_scaler.py", line 350, in _maybe_opt_step
            if not sum(v.item() for v in optimizer_state["found_inf_per_device"].values()):
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/torch/amp/grad_scaler.py", line 350, in <genexpr>
            if not sum(v.item() for v in optimizer_state["found_inf_per_device"].values()):
                       ^^^^^^^^
        """).rstrip("\n"))
    out.append(cuda_error("unspecified launch failure", "2.3.0").rstrip("\n"))
    return Case(
        case_id="cuda-launch-failure-rtx4090-random-01",
        label="cuda-launch-failure",
        difficulty="easy",
        description="Long single-GPU diffusion training on an RTX 4090 running at 80+ C and ~445 W; after 14k good steps since resume it dies with 'CUDA error: unspecified launch failure' at the GradScaler's .item().",
        initiating_rank=None,
        facts={"gpu_model": "GeForce RTX 4090", "torch_version": "2.3.0", "launcher": "python", "precision": "fp16", "failure_step": "178400"},
        must_mention=["Xid", "unspecified launch failure"],
        files={"train.log": "\n".join(out)},
    )


def launch_windows_tdr() -> Case:
    rng = random.Random(1002)
    user = "akumar"
    site = f"C:\\Users\\{user}\\miniconda3\\envs\\sd\\lib\\site-packages"
    out = [
        f"(sd) C:\\Users\\{user}\\projects\\lora-sd15>nvidia-smi",
        "Sat Dec  9 22:41:07 2023       ",
        "+---------------------------------------------------------------------------------------+",
        "| NVIDIA-SMI 537.58                 Driver Version: 537.58       CUDA Version: 12.2     |",
        "|-----------------------------------------+----------------------+----------------------+",
        "| GPU  Name                     TCC/WDDM  | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
        "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |",
        "|                                         |                      |               MIG M. |",
        "|=========================================+======================+======================|",
        "|   0  NVIDIA GeForce RTX 3070 ...  WDDM  | 00000000:01:00.0  On |                  N/A |",
        "| N/A   61C    P8              19W / 115W |    812MiB /  8192MiB |     14%      Default |",
        "|                                         |                      |                  N/A |",
        "+-----------------------------------------+----------------------+----------------------+",
        "",
        "+---------------------------------------------------------------------------------------+",
        *SMI_PROCESSES_WIDE,
        "|=======================================================================================|",
        "|    0   N/A  N/A      1428    C+G   C:\\Windows\\explorer.exe                    N/A      |",
        "|    0   N/A  N/A      6120    C+G   ...oogle\\Chrome\\Application\\chrome.exe    N/A      |",
        "|    0   N/A  N/A      9844    C+G   ...ekyb3d8bbwe\\PhoneExperienceHost.exe    N/A      |",
        "+---------------------------------------------------------------------------------------+",
        "",
        f"(sd) C:\\Users\\{user}\\projects\\lora-sd15>python train_lora.py --pretrained runwayml/stable-diffusion-v1-5 --data data\\pets --resolution 768 --train_batch_size 4 --gradient_checkpointing --mixed_precision fp16 --max_train_steps 3000",
        "torch 2.1.0+cu118 | cuda available: True | NVIDIA GeForce RTX 3070 Laptop GPU (8.00 GiB)",
        f"{site}\\diffusers\\models\\attention_processor.py:1468: FutureWarning: `LoRAAttnProcessor2_0` is deprecated and will be removed in version 0.26.0. Make sure use AttnProcsLayers instead",
        "  deprecate(",
        "Loading pipeline components...: 100%|██████████| 6/6 [00:04<00:00,  1.43it/s]",
        "xformers not available, using torch SDPA",
        "Steps:   0%|          | 0/3000 [00:00<?, ?it/s]",
    ]
    for s, el, rate in ((1, 9, 9.41), (2, 17, 8.77), (3, 26, 8.91)):
        out.append(f"Steps:   0%|          | {s}/3000 [00:{el:02d}<7:{rng.randrange(10, 59):02d}:{rng.randrange(60):02d}, {rate}s/it, loss=0.{rng.randrange(1000, 2500)}, lr=0.0001]")
    out.append(block(f"""
        Traceback (most recent call last):
          File "C:\\Users\\{user}\\projects\\lora-sd15\\train_lora.py", line 412, in <module>
            main()
          File "C:\\Users\\{user}\\projects\\lora-sd15\\train_lora.py", line 361, in main
            logs = {{"loss": loss.detach().item(), "lr": lr_scheduler.get_last_lr()[0]}}
        """).rstrip("\n"))
    out.append(cuda_error("the launch timed out and was terminated", "2.1.0").rstrip("\n"))
    out.append("Steps:   0%|          | 3/3000 [00:35<9:45:32, 11.72s/it, loss=0.1377, lr=0.0001]")
    return Case(
        case_id="cuda-launch-failure-windows-tdr-02",
        label="cuda-launch-failure",
        difficulty="medium",
        description="LoRA training at 768px on a Windows laptop RTX 3070 (WDDM, display attached, 8-9 s per step); a long kernel trips the Windows TDR watchdog: 'the launch timed out and was terminated'.",
        initiating_rank=None,
        facts={"gpu_model": "GeForce RTX 3070 Laptop GPU", "driver_version": "537.58", "torch_version": "2.1.0", "cuda_version": "11.8", "precision": "fp16", "launcher": "python"},
        must_mention=["TDR", "display"],
        secrets=[user],
        files={"train.log": "\n".join(out)},
    )


def launch_multinode_xid() -> Case:
    rng = random.Random(1003)
    clk = Clock(datetime(2024, 10, 27, 9, 15, 0), rng)
    site = "/opt/venv/lib/python3.11/site-packages"
    pg_pw = rand_token(rng, ALNUM, 20)
    nodes = ["gpu-r3-n05", "gpu-r3-n06"]
    node0, node1 = [], []
    for out, pid, node_rank in ((node0, 55120, 0), (node1, 48102, 1)):
        out.append(f"+ torchrun --nnodes 2 --node_rank {node_rank} --nproc_per_node 8 --master_addr {nodes[0]} --master_port 29400 finetune.py --config cfg/llava_13b_stage2.yaml")
        out.append(torchrun_omp_banner(Clock(clk.t, rng), pid).rstrip("\n").replace(".py:779]", ".py:793]"))
    node0.append(f"[rank0]: {clk.ds(10, 12)} | INFO | finetune | torch 2.4.1+cu124 nccl 2.20.5 | 16 x NVIDIA A100-SXM4-80GB over 2 nodes | FSDP full_shard bf16")
    node0.append(f"[rank0]: {clk.ds()} | INFO | finetune | mlflow tracking uri: postgresql://mlflow:{pg_pw}@pg-mlflow.internal:5432/mlflow, experiment llava-13b-stage2")
    node0.append(f"[rank0]: {clk.ds(40, 60)} | INFO | finetune | model llava-13b: 13.35B params (vision tower frozen), 665,298 samples, 5198 steps")
    loss = 1.32
    step = 0
    for step in range(10, 2371, 10):
        loss = loss * 0.97 + 0.78 * 0.03 + rng.uniform(-0.01, 0.01)
        node0.append(f"[rank0]: {clk.ds(41, 44)} | INFO | finetune | step {step:>4}/5198 loss {loss:.4f} grad_norm {rng.uniform(0.8, 1.6):.3f} lr {2e-5 if step > 150 else 2e-5 * step / 150:.2e}")
        if step % 500 == 0:
            node0.append(f"[rank0]: {clk.ds(50, 70)} | INFO | finetune | saved sharded checkpoint /ckpt/llava13b-s2/step_{step}")
    clk.tick(25, 30)
    t0 = clk.t
    r = 14
    pre = f"[rank{r}]:"
    err = cuda_error("unspecified launch failure", "2.4.1").rstrip("\n").split("\n")
    wd = f"[PG 0 (default_pg) Rank {r}] Process group watchdog thread terminated with exception: CUDA error: unspecified launch failure"
    node1.append(f"{pre}[E{t0.strftime('%m%d %H:%M:%S')}.{t0.microsecond:06d}{rng.randrange(1000):03d} ProcessGroupNCCL.cpp:1515] {wd}")
    node1 += [pre + ln for ln in err[1:]]
    node1 += [pre + ln for ln in c10_frames(rng, site, "watchdog").rstrip("\n").split("\n")]
    node1.append(pre)
    tb = block("""
        Traceback (most recent call last):
          File "/workspace/llava/finetune.py", line 318, in <module>
            train(cfg)
          File "/workspace/llava/finetune.py", line 262, in train
            loss_val = loss.detach().float().item()
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
        """)
    node1 += [f"{pre} {ln}" for ln in tb.rstrip("\n").split("\n")]
    node1 += [f"{pre} {ln}" for ln in err]
    node1.append(f"{pre}terminate called after throwing an instance of 'c10::DistBackendError'")
    node1.append(f"{pre}  what():  {wd}")
    node1.append(f"{pre}CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.")
    c1 = Clock(t0 + timedelta(seconds=0.8), rng)
    for p in range(48190, 48198):
        if p != 48196:
            node1.append(f"{c1.glog('W', nanos=True)} 48102 torch/distributed/elastic/multiprocessing/api.py:890] Sending process {p} closing signal SIGTERM")
    tf1 = c1.t
    node1.append(f"{c1.glog('E', 0.3, 0.5, nanos=True)} 48102 torch/distributed/elastic/multiprocessing/api.py:862] failed (exitcode: -6) local_rank: 6 (pid: 48196) of binary: /opt/venv/bin/python")
    fails1 = [(8 + lr, lr, -15, 48190 + lr, "SIGTERM") for lr in range(8) if lr != 6]
    node1.append(child_failed("finetune.py", tf1, nodes[1], fails1, (14, 6, -6, 48196, "SIGABRT"), site, torchrun_bin="/opt/venv/bin/torchrun", api=(133, 264, 355), run_line=(919, 910)).rstrip("\n"))
    node1 += ["+ rc=1", "+ echo 'torchrun exited with 1'", "torchrun exited with 1", "+ sudo dmesg -T", "+ grep -i 'NVRM: Xid'", "+ tail -n 3"]
    tx = t0 - timedelta(seconds=1)
    node1.append(f"[{tx.strftime('%a %b %d %H:%M:%S %Y')}] NVRM: Xid (PCI:0000:bd:00): 13, pid=48196, name=python, Graphics SM Warp Exception on (GPC 5, TPC 3, SM 0): Out Of Range Register")
    node1.append(f"[{tx.strftime('%a %b %d %H:%M:%S %Y')}] NVRM: Xid (PCI:0000:bd:00): 13, pid=48196, name=python, Graphics SM Global Exception on (GPC 5, TPC 3, SM 0): Multiple Warp Errors")
    node1.append(f"[{tx.strftime('%a %b %d %H:%M:%S %Y')}] NVRM: Xid (PCI:0000:bd:00): 13, pid=48196, name=python, Graphics Exception: ESR 0x52df30=0x2000d 0x52df34=0x0 0x52df28=0xf81eb60 0x52df2c=0x1174")
    # node 0 sees the remote failure
    c0 = Clock(t0 + timedelta(seconds=2.1), rng)
    for rr in (5, 0, 2, 7, 1, 4, 3, 6):
        t = c0.tick(0.001, 0.06)
        msg = f"[PG 0 (default_pg) Rank {rr}] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.20.5"
        node0.append(f"[rank{rr}]:[E{t.strftime('%m%d %H:%M:%S')}.{t.microsecond:06d}{rng.randrange(1000):03d} ProcessGroupNCCL.cpp:1515] {msg}")
        node0.append(f"[rank{rr}]:ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
        node0.append(f"[rank{rr}]:Last error:")
        node0.append(f"[rank{rr}]:socketProgress: Connection closed by remote peer gpu-r3-n06.cluster.internal<{rng.randrange(33000, 61000)}>")
        node0.append(f"[rank{rr}]:terminate called after throwing an instance of 'c10::DistBackendError'")
        node0.append(f"[rank{rr}]:  what():  {msg}")
    tf0 = c0.tick(0.3, 0.6)
    node0.append(f"{c0.glog('E', nanos=True)} 55120 torch/distributed/elastic/multiprocessing/api.py:862] failed (exitcode: -6) local_rank: 5 (pid: 55213) of binary: /opt/venv/bin/python")
    fails0 = [(lr, lr, -6, 55208 + lr, "SIGABRT") for lr in range(8) if lr != 5]
    node0.append(child_failed("finetune.py", tf0, nodes[0], fails0, (5, 5, -6, 55213, "SIGABRT"), site, torchrun_bin="/opt/venv/bin/torchrun", api=(133, 264, 355), run_line=(919, 910)).rstrip("\n"))
    return Case(
        case_id="cuda-launch-failure-multinode-xid13-03",
        label="cuda-launch-failure",
        difficulty="hard",
        description="2-node x 8 A100 LLaVA fine-tune; rank 14 (node 2, local 6) dies with 'unspecified launch failure' and Xid 13 in dmesg; node 1's log, usually read first, only shows ncclRemoteError 'Connection closed by remote peer' on all its ranks and a ChildFailedError naming rank 5.",
        initiating_rank=14,
        facts={"gpu_model": "A100-SXM4-80GB", "torch_version": "2.4.1", "nccl_version": "2.20.5", "launcher": "torchrun", "world_size": "16", "num_nodes": "2", "xid": "13", "failure_step": "2370"},
        must_mention=["rank 14", "Xid"],
        secrets=[pg_pw],
        files={"node0.log": "\n".join(node0), "node1.log": "\n".join(node1)},
    )


# ==================================================================================================
# real CPU-only PyTorch captures (cuda-not-available)

REAL_TEXTCLS = '''\
"""Fine-tune a bag-of-embeddings text classifier (toy data, real PyTorch)."""
import argparse
import logging
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=logging.INFO)
log = logging.getLogger("textcls")


class BagClassifier(nn.Module):
    def __init__(self, vocab: int, dim: int, classes: int):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)
        self.fc = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, classes))

    def forward(self, x):
        return self.fc(self.emb(x).mean(1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cuda")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--bsz", type=int, default=64)
    args = p.parse_args()
    log.info("python %s, torch %s (CUDA build: %s), cuda available: %s", sys.version.split()[0], torch.__version__, torch.version.cuda, torch.cuda.is_available())
    g = torch.Generator().manual_seed(0)
    ds = TensorDataset(torch.randint(1, 30000, (4000, 128), generator=g), torch.randint(0, 5, (4000,), generator=g))
    dl = DataLoader(ds, batch_size=args.bsz, shuffle=True)
    log.info("train examples %d, batches/epoch %d, epochs %d", len(ds), len(dl), args.epochs)
    model = BagClassifier(30000, 256, 5)
    log.info("model params %s", f"{sum(q.numel() for q in model.parameters()):,}")
    device = torch.device(args.device)
    model.to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for epoch in range(args.epochs):
        for x, y in dl:
            loss = nn.functional.cross_entropy(model(x.to(device)), y.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
        log.info("epoch %d loss %.4f", epoch, loss.item())


if __name__ == "__main__":
    main()
'''

REAL_DDP = '''\
"""DDP training entry point (real PyTorch); run under torchrun."""
import os

import torch
import torch.distributed as dist


def main():
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    print(f"[rank{rank}] torch {torch.__version__} WORLD_SIZE={world} LOCAL_RANK={os.environ['LOCAL_RANK']} backend=nccl", flush=True)
    dist.init_process_group(backend="nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))


if __name__ == "__main__":
    main()
'''


def _capture(cmd: list[str], cwd: Path) -> str:
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    return proc.stdout


def real_cases(run: bool) -> list[Case]:
    """Two real CPU-build runs. Without `run`, only case.yaml is rewritten and the captured logs are kept."""
    venv = Path(__file__).resolve().parents[2] / ".venv" / "bin"
    files_a: dict[str, str] = {}
    files_b: dict[str, str] = {}
    if run:
        with tempfile.TemporaryDirectory(prefix="crashdoc-real-") as tmp:
            d = Path(tmp)
            (d / "finetune_textcls.py").write_text(REAL_TEXTCLS)
            (d / "train_ddp.py").write_text(REAL_DDP)
            cmd_a = [str(venv / "python"), "finetune_textcls.py", "--epochs", "3", "--bsz", "64"]
            files_a["train.log"] = "$ python finetune_textcls.py --epochs 3 --bsz 64\n" + _capture(cmd_a, d)
            cmd_b = [str(venv / "torchrun"), "--nproc_per_node=2", "train_ddp.py"]
            files_b["train.log"] = "$ torchrun --nproc_per_node=2 train_ddp.py\n" + _capture(cmd_b, d)
    return [
        Case(
            case_id="cuda-not-available-cpu-wheel-01",
            label="cuda-not-available",
            difficulty="easy",
            description="Real run: a CPU-only PyTorch build (torch.version.cuda is None) asked to move a model to cuda raises 'Torch not compiled with CUDA enabled'.",
            initiating_rank=None,
            facts={"torch_version": "2.13.0", "python_version": "3.11.7", "launcher": "python"},
            must_mention=["CPU"],
            files=files_a,
        ),
        Case(
            case_id="cuda-not-available-nccl-cpu-build-02",
            label="cuda-not-available",
            difficulty="medium",
            description="Real run: torchrun with 2 processes on a CPU-only PyTorch build; init_process_group('nccl') fails with 'Distributed package doesn't have NCCL built in' and torchrun ends with a ChildFailedError.",
            initiating_rank=[0, 1],
            facts={"torch_version": "2.13.0", "launcher": "torchrun", "world_size": "2", "exit_code": "1"},
            must_mention=["CPU", "NCCL"],
            files=files_b,
        ),
    ]


# ==================================================================================================

SYNTHETIC = [
    ima_flashattn_varlen, ima_triton_kernel, ima_moe_multinode, ima_side_stream_eval,
    fa_zero2_two_h100, fa_accelerate_a100, fa_hf_zero2_h200, fa_zero3_subgroup_h100,
    dsa_gpt2_pad_token, dsa_labels_nll_t4, dsa_roberta_positions_cublas, dsa_nli_minus_one_8rank,
    nki_rtx5090_wheel, nki_extension_arch_list, nki_b200_torchrun, nki_cpu_fallback_oom,
    dto_470_cu121, dto_slurm_515_nvcc, dto_hf_fp16_cpu_fallback,
    cna_slurm_no_gres, cna_hidden_gpu_ordinal,
    reinit_dataloader_worker, reinit_cupy_pool, reinit_swallowed_collate,
    cublas_shared_gpu_create, cublas_deterministic_ci, cublas_dpo_first_backward, cublas_srun_stray_process,
    cudnn_unet_internal_t4, cudnn_version_ldpath, cudnn_cnn_infer_abort, cudnn_algo_eval_multinode,
    launch_rtx4090_random, launch_windows_tdr, launch_multinode_xid,
]


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--real", action="store_true", help="also rerun the two real CPU captures (needs the venv's torch)")
    args = ap.parse_args()
    write_all(args.out, [make() for make in SYNTHETIC] + real_cases(run=args.real))


if __name__ == "__main__":
    main()
