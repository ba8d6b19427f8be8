"""Generate eval cases for DeepSpeed and numerics failure ids.

Writes evals/cases/<case-id>/ (log files + case.yaml) for: deepspeed-batch-config-mismatch,
deepspeed-op-build-failure, deepspeed-zero3-shape-mismatch, deepspeed-zero-checkpoint-topology-change,
deepspeed-zero-gradient-computed-twice, deepspeed-launcher-ssh-unreachable, loss-nan,
fp16-loss-scale-underflow, bf16-unsupported.

Logs are written as the real tools print them: DeepSpeed's logger format and source locations, torch
tracebacks with the line numbers of the named versions, launcher wrappers (deepspeed, torchrun,
accelerate, srun -l, mpirun --tag-output). Everything is seeded, so re-running gives identical output.
Secrets planted in some logs are random fakes and are listed in each case.yaml.

Run: python evals/generators/deepspeed.py [--out evals/cases]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import string
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parent / "cases"


# --------------------------------------------------------------------------------------------------
# small utilities
# --------------------------------------------------------------------------------------------------


@dataclass
class Case:
    case_id: str
    label: str
    difficulty: str
    description: str
    files: dict[str, str]
    facts: dict[str, str]
    must_mention: list[str]
    initiating_rank: int | None = None
    also: list[str] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)


class Clock:
    """Monotonic fake wall clock for timestamped log lines."""

    def __init__(self, start: str, rng: random.Random):
        self.t = dt.datetime.strptime(start, "%Y-%m-%d %H:%M:%S")
        self.rng = rng

    def tick(self, lo: float = 0.001, hi: float = 0.05) -> dt.datetime:
        self.t += dt.timedelta(seconds=self.rng.uniform(lo, hi))
        return self.t

    def ds(self, lo: float = 0.001, hi: float = 0.05) -> str:
        """DeepSpeed/python logging asctime: 2024-03-05 14:02:11,482"""
        t = self.tick(lo, hi)
        return t.strftime("%Y-%m-%d %H:%M:%S") + f",{t.microsecond // 1000:03d}"

    def glog(self, level: str, pid: int, where: str, lo: float = 0.001, hi: float = 0.05) -> str:
        """torch >= 2.4 glog-style prefix: W0112 10:22:30.123000 140213 torch/...py:859]"""
        t = self.tick(lo, hi)
        return f"{level}{t.strftime('%m%d %H:%M:%S')}.{t.microsecond:06d} {pid} {where}]"


def ds_line(clock: Clock, where: str, msg: str, level: str = "INFO", lo=0.001, hi=0.05) -> str:
    return f"[{clock.ds(lo, hi)}] [{level}] [{where}] {msg}"


def rand_token(rng: random.Random, n: int, alphabet: str) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


ALNUM = string.ascii_letters + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"


def fake_hf_token(rng):
    return "hf_" + rand_token(rng, 34, ALNUM)


def fake_wandb_key(rng):
    return rand_token(rng, 40, HEX)


def fake_aws_key_id(rng):
    return "AKIA" + rand_token(rng, 16, UPPER_ALNUM)


def fake_aws_secret(rng):
    return rand_token(rng, 40, ALNUM + "+/")


def fake_ghp(rng):
    return "ghp_" + rand_token(rng, 36, ALNUM)


def prefix_lines(text: str, prefix: str) -> list[str]:
    return [prefix + ln for ln in text.splitlines()]


def interleave(blocks: list[list[str]], rng: random.Random, lo: int = 1, hi: int = 4) -> list[str]:
    """Merge several processes' output the way a shared stdout/stderr does: in small runs of lines."""
    idx = [0] * len(blocks)
    out: list[str] = []
    while any(i < len(b) for i, b in zip(idx, blocks)):
        k = rng.choice([j for j, b in enumerate(blocks) if idx[j] < len(b)])
        n = rng.randint(lo, hi)
        out.extend(blocks[k][idx[k] : idx[k] + n])
        idx[k] += n
    return out


def tb(frames: list[tuple[str, int, str, str]], exc: str, header: str = "Traceback (most recent call last):") -> list[str]:
    lines = [header]
    for path, line, func, code in frames:
        lines.append(f'  File "{path}", line {line}, in {func}')
        if code:
            lines.append(f"    {code}")
    lines.extend(exc.splitlines())
    return lines


# --------------------------------------------------------------------------------------------------
# environment printouts
# --------------------------------------------------------------------------------------------------

GPU_SPECS = {
    # name: (memory MiB, default power cap W, bus ids style)
    "NVIDIA A100-SXM4-40GB": (40960, 400),
    "NVIDIA A100-SXM4-80GB": (81920, 400),
    "NVIDIA H100 80GB HBM3": (81559, 700),
    "NVIDIA H200": (143771, 700),
    "Tesla V100-SXM2-32GB": (32768, 300),
    "Tesla V100-SXM2-16GB": (16384, 300),
    "Tesla T4": (15360, 70),
    "NVIDIA A10G": (23028, 300),
    "NVIDIA L4": (23034, 72),
    "NVIDIA L40S": (46068, 350),
    "NVIDIA GeForce RTX 4090": (24564, 450),
    "NVIDIA GeForce RTX 3090": (24576, 350),
}


def nvidia_smi(rng: random.Random, gpu: str, n: int, driver: str, cuda: str, when: str, used_mib: int = 0,
               procs: list[tuple[int, int, str, int]] | None = None) -> list[str]:
    """A plausible `nvidia-smi` table (format of drivers 470-560)."""
    mem, cap = GPU_SPECS[gpu]
    short = gpu.replace("NVIDIA ", "")
    name = (gpu if len(gpu) <= 24 else gpu[:23] + "...")
    lines = [
        when,
        "+---------------------------------------------------------------------------------------+",
        f"| NVIDIA-SMI {driver:<22}Driver Version: {driver:<15}CUDA Version: {cuda:<9}|",
        "|-----------------------------------------+----------------------+----------------------+",
        "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
        "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |",
        "|                                         |                      |               MIG M. |",
        "|=========================================+======================+======================|",
    ]
    buses = ["00000000:07:00.0", "00000000:0A:00.0", "00000000:44:00.0", "00000000:4A:00.0",
             "00000000:84:00.0", "00000000:8A:00.0", "00000000:C0:00.0", "00000000:C3:00.0"]
    if n <= 2 and "RTX" in gpu:
        buses = ["00000000:01:00.0", "00000000:21:00.0"]
    for i in range(n):
        temp = rng.randint(28, 41)
        pw = rng.randint(int(cap * 0.1), int(cap * 0.2))
        fan = "N/A" if "RTX" not in gpu else f"{rng.randint(0, 30)}%"
        ecc = "0" if "RTX" not in gpu else "Off"
        disp = "Off" if "RTX" not in gpu or i > 0 else "On"
        lines.append(f"| {i:>3}  {name:<24}    On  | {buses[i % len(buses)]} {disp:>3} | {ecc:>20} |")
        lines.append(f"| {fan:>3}   {temp}C    P0      {pw:>4}W / {cap:>4}W |  {used_mib:>6}MiB / {mem:>6}MiB |      0%      Default |")
        lines.append("|                                         |                      |             Disabled |")
        lines.append("+-----------------------------------------+----------------------+----------------------+")
    lines += [
        "",
        "+---------------------------------------------------------------------------------------+",
        "| Processes:                                                                            |",
        "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |",
        "|        ID   ID                                                             Usage      |",
        "|=======================================================================================|",
    ]
    if not procs:
        lines.append("|  No running processes found                                                           |")
    else:
        for g, pid, pname, mib in procs:
            lines.append(f"|  {g:>4}   N/A  N/A  {pid:>9}      C   {pname:<38}{mib:>6}MiB |")
    lines.append("+---------------------------------------------------------------------------------------+")
    return lines


def collect_env(torch_v: str, cuda_v: str, gpu: str, n: int, driver: str, py: str, os_name: str, gcc: str,
                extra_pip: list[str], cudnn: str = "8.9.2", nvcc: str | None = None, cmake="3.27.9") -> list[str]:
    gpus = "\n".join(f"GPU {i}: {gpu}" for i in range(n))
    nvcc_line = f"CUDA runtime version: {nvcc}" if nvcc else "CUDA runtime version: Could not collect"
    pip = "\n".join(f"[pip3] {p}" for p in extra_pip)
    return f"""Collecting environment information...
PyTorch version: {torch_v}+cu{cuda_v.replace('.', '')}
Is debug build: False
CUDA used to build PyTorch: {cuda_v}
ROCM used to build PyTorch: N/A

OS: {os_name} (x86_64)
GCC version: {gcc}
Clang version: Could not collect
CMake version: version {cmake}
Libc version: glibc-2.35

Python version: {py} (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)
Python platform: Linux-5.15.0-91-generic-x86_64-with-glibc2.35
Is CUDA available: True
{nvcc_line}
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
{pip}""".splitlines()


def ds_report(ds_v: str, torch_v: str, cuda_v: str, nvcc: str, site: str, py: str, installed: dict[str, str],
              cuda_home: str | None = "/usr/local/cuda", with_async_warn: bool = True,
              gcc_arch_note: bool = False) -> list[str]:
    """`ds_report` output (DeepSpeed 0.9-0.15 layout)."""
    ops = ["async_io", "fused_adam", "cpu_adam", "cpu_adagrad", "cpu_lion", "evoformer_attn", "fused_lamb",
           "fused_lion", "inference_core_ops", "cutlass_ops", "quantizer", "ragged_device_ops",
           "ragged_ops", "random_ltd", "sparse_attn", "spatial_inference", "transformer", "stochastic_transformer",
           "transformer_inference"]
    out = [
        "--------------------------------------------------",
        "DeepSpeed C++/CUDA extension op report",
        "--------------------------------------------------",
        "NOTE: Ops not installed will be just-in-time (JIT) compiled at",
        "      runtime if needed. Op compatibility means that your system",
        "      meet the required dependencies to JIT install the op.",
        "--------------------------------------------------",
        "JIT compiled ops requires ninja",
        "ninja .................. \x1b[92m[OKAY]\x1b[0m",
        "--------------------------------------------------",
        "op name ................ installed .. compatible",
        "--------------------------------------------------",
    ]
    for op in ops:
        inst, comp = installed.get(op, "NO/OKAY").split("/")
        ci = "\x1b[92m[YES]\x1b[0m" if inst == "YES" else "\x1b[93m[NO]\x1b[0m"
        cc = "\x1b[92m[OKAY]\x1b[0m" if comp == "OKAY" else "\x1b[93m[NO]\x1b[0m"
        if op == "async_io" and with_async_warn:
            out.append(" [WARNING]  async_io requires the dev libaio .so object and headers but these were not found.")
            out.append(" [WARNING]  async_io: please install the libaio-dev package with apt")
            out.append(" [WARNING]  If libaio is already installed (perhaps from source), try setting the CFLAGS and LDFLAGS environment variables to where it can be found.")
            cc = "\x1b[93m[NO]\x1b[0m"
        if op == "sparse_attn":
            out.append(f" [WARNING]  sparse_attn requires a torch version >= 1.5 and < 2.0 but detected {torch_v[:3]}")
            cc = "\x1b[93m[NO]\x1b[0m"
        dots = "." * (23 - len(op))
        out.append(f"{op} {dots} {ci}....... {cc}")
    out += [
        "--------------------------------------------------",
        "DeepSpeed general environment info:",
        f"torch install path ............... ['{site}/torch']",
        f"torch version .................... {torch_v}",
        f"deepspeed install path ........... ['{site}/deepspeed']",
        f"deepspeed info ................... {ds_v}, unknown, unknown",
        f"torch cuda version ............... {cuda_v}",
        "torch hip version ................ None",
        f"nvcc version ..................... {nvcc}",
        f"deepspeed wheel compiled w. ...... torch {torch_v[:3]}, cuda {cuda_v}",
        "shared memory (/dev/shm) size .... 503.82 GB",
    ]
    return out


def nccl_init_lines(host: str, pid: int, rank: int, nranks: int, nccl: str, cuda: str, dev: int, iface="eth0",
                    ip="10.0.0.11", net="IB", busid="7000") -> list[str]:
    base = f"{host}:{pid}:{pid}"
    lines = []
    if rank == 0:
        lines.append(f"{base} [{dev}] NCCL INFO Bootstrap : Using {iface}:{ip}<0>")
        lines.append(f"{base} [{dev}] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation")
        lines.append(f"{base} [{dev}] NCCL INFO cudaDriverVersion 12020")
        lines.append(f"NCCL version {nccl}+cuda{cuda}")
    t = pid + 87
    lines.append(f"{host}:{pid}:{t} [{dev}] NCCL INFO NET/IB : Using [0]mlx5_0:1/{net} [1]mlx5_1:1/{net} ; OOB {iface}:{ip}<0>" if net == "IB"
                 else f"{host}:{pid}:{t} [{dev}] NCCL INFO NET/Socket : Using [0]{iface}:{ip}<0>")
    lines.append(f"{host}:{pid}:{t} [{dev}] NCCL INFO Using network {net}")
    lines.append(f"{host}:{pid}:{t} [{dev}] NCCL INFO comm 0x{0x55d0c3a0 + rank * 0x1f30:x} rank {rank} nranks {nranks} cudaDev {dev} nvmlDev {dev} busId {busid} commId 0x{0x3b7e9a1c5d2f4e60:x} - Init START")
    return lines


def nccl_init_done(host: str, pid: int, rank: int, dev: int) -> str:
    return f"{host}:{pid}:{pid + 87} [{dev}] NCCL INFO comm 0x{0x55d0c3a0 + rank * 0x1f30:x} rank {rank} nranks - localRanks - localRank {dev} - Init COMPLETE".replace(
        "nranks - localRanks - ", "")


# --------------------------------------------------------------------------------------------------
# DeepSpeed start-up blocks
# --------------------------------------------------------------------------------------------------

# (file:line:function) locations per DeepSpeed version, read from the released sources
DS_LOC = {
    "0.9.5": dict(accel="real_accelerator.py:110:get_accelerator", comm_init="comm.py:625:init_distributed",
                  cdb="comm.py:594:init_distributed", log_dist="logging.py:96:log_dist",
                  launch_world="launch.py:145:main", launch_nnodes="launch.py:151:main",
                  launch_map="launch.py:162:main", launch_ws="launch.py:163:main",
                  launch_cvd="launch.py:165:main", launch_kill="launch.py:315:sigkill_handler",
                  launch_err="launch.py:321:sigkill_handler", launch_nccl="launch.py:138:main",
                  runner_cmd="runner.py:555:main", runner_warn="runner.py:196:fetch_hostfile",
                  mpi_try="comm.py:609:init_distributed", mpi_found="comm.py:659:mpi_discovery",
                  s12_bucket="stage_1_and_2.py:133:__init__", s12_ag="stage_1_and_2.py:134:__init__",
                  s12_cpu="stage_1_and_2.py:135:__init__", s12_rr="stage_1_and_2.py:136:__init__",
                  mem1="utils.py:785:see_memory_usage", mem2="utils.py:786:see_memory_usage",
                  mem3="utils.py:793:see_memory_usage", cfg="config.py:960:print", cfg_item="config.py:964:print", cfg_json="config.py:950:print_user_config",
                  loss_scaler="loss_scaler.py:183:update_scale"),
    "0.12.6": dict(accel="real_accelerator.py:161:get_accelerator", comm_init="comm.py:668:init_distributed",
                   cdb="comm.py:637:init_distributed", log_dist="logging.py:96:log_dist",
                   launch_world="launch.py:145:main", launch_nnodes="launch.py:151:main",
                   launch_map="launch.py:162:main", launch_ws="launch.py:163:main",
                   launch_cvd="launch.py:165:main", launch_kill="launch.py:315:sigkill_handler",
                   launch_err="launch.py:321:sigkill_handler", launch_nccl="launch.py:138:main",
                   runner_cmd="runner.py:571:main", runner_warn="runner.py:202:fetch_hostfile",
                   runner_ip="runner.py:463:main", runner_workers="multinode_runner.py:80:get_cmd",
                   mpi_try="comm.py:652:init_distributed", mpi_found="comm.py:702:mpi_discovery",
                   s12_bucket="stage_1_and_2.py:148:__init__", s12_ag="stage_1_and_2.py:149:__init__",
                   s12_cpu="stage_1_and_2.py:150:__init__", s12_rr="stage_1_and_2.py:151:__init__",
                   s3_bucket="stage3.py:127:__init__",
                   mem1="utils.py:791:see_memory_usage", mem2="utils.py:792:see_memory_usage",
                   mem3="utils.py:799:see_memory_usage", cfg="config.py:984:print", cfg_item="config.py:988:print", cfg_json="config.py:974:print_user_config",
                   loss_scaler="loss_scaler.py:183:update_scale", torch_ckpt_load="torch_checkpoint_engine.py:27:load",
                   torch_ckpt_loaded="torch_checkpoint_engine.py:29:load"),
    "0.15.4": dict(accel="real_accelerator.py:219:get_accelerator", comm_init="comm.py:683:init_distributed",
                   cdb="comm.py:652:init_distributed", log_dist="logging.py:128:log_dist",
                   launch_world="launch.py:146:main", launch_nnodes="launch.py:152:main",
                   launch_map="launch.py:163:main", launch_ws="launch.py:164:main",
                   launch_cvd="launch.py:168:main", launch_kill="launch.py:319:sigkill_handler",
                   launch_err="launch.py:325:sigkill_handler", launch_nccl="launch.py:139:main",
                   runner_cmd="runner.py:607:main", runner_warn="runner.py:215:fetch_hostfile",
                   runner_ip="runner.py:496:main", runner_workers="multinode_runner.py:81:get_cmd",
                   comm_cfg="config.py:733:__init__",
                   s12_bucket="stage_1_and_2.py:149:__init__", s12_ag="stage_1_and_2.py:150:__init__",
                   s12_cpu="stage_1_and_2.py:151:__init__", s12_rr="stage_1_and_2.py:152:__init__",
                   s3_bucket="stage3.py:166:__init__",
                   mem1="utils.py:781:see_memory_usage", mem2="utils.py:782:see_memory_usage",
                   mem3="utils.py:789:see_memory_usage", cfg="config.py:999:print", cfg_item="config.py:1003:print", cfg_json="config.py:989:print_user_config",
                   loss_scaler="loss_scaler.py:183:update_scale"),
}


def ds_launcher_header(clock: Clock, v: str, world: dict[str, list[int]], node_rank: int, master: str, port: int,
                       script: list[str], nccl_env: dict[str, str] | None = None, single_node=True) -> list[str]:
    L = DS_LOC[v]
    out = []
    import base64
    wi = base64.urlsafe_b64encode(json.dumps(world).encode()).decode()
    if single_node:
        out.append(ds_line(clock, L["accel"], "Setting ds_accelerator to cuda (auto detect)", lo=0.5, hi=1.5))
        out.append(ds_line(clock, L["runner_warn"], "Unable to find hostfile, will proceed with training with local resources only.", level="WARNING"))
        gpus = ",".join(str(g) for g in next(iter(world.values())))
        det = "VISIBLE_DEVICES" if v == "0.15.4" else "CUDA_VISIBLE_DEVICES"
        out.append(f"Detected {det}={gpus}: setting --include=localhost:{gpus}")
        cmd = ["/usr/bin/python3" if v != "0.9.5" else "/opt/conda/bin/python", "-u", "-m", "deepspeed.launcher.launch",
               f"--world_info={wi}", f"--master_addr={master}", f"--master_port={port}"] + script
        out.append(ds_line(clock, L["runner_cmd"], "cmd = " + " ".join(cmd)))
        out.append(ds_line(clock, L["accel"], "Setting ds_accelerator to cuda (auto detect)", lo=1.0, hi=2.5))
    for k, val in (nccl_env or {}).items():
        out.append(ds_line(clock, L["launch_nccl"], f"{node_rank} {k}={val}"))
    out.append(ds_line(clock, L["launch_world"], f"WORLD INFO DICT: {world}"))
    n_local = len(list(world.values())[node_rank])
    out.append(ds_line(clock, L["launch_nnodes"], f"nnodes={len(world)}, num_local_procs={n_local}, node_rank={node_rank}"))
    gm = {}
    r = 0
    for host, g in world.items():
        gm[host] = list(range(r, r + len(g)))
        r += len(g)
    out.append(ds_line(clock, L["launch_map"], f"global_rank_mapping=defaultdict(<class 'list'>, {gm})"))
    out.append(ds_line(clock, L["launch_ws"], f"dist_world_size={r}"))
    out.append(ds_line(clock, L["launch_cvd"], "Setting CUDA_VISIBLE_DEVICES=" + ",".join(str(x) for x in list(world.values())[node_rank])))
    return out


def ds_config_dump(clock: Clock, v: str, cfg: dict, extra: dict[str, str] | None = None) -> list[str]:
    """Rank 0's `DeepSpeedEngine configuration:` block (subset of keys, sorted as DeepSpeed does)."""
    L = DS_LOC[v]
    fp16 = cfg.get("fp16", {}).get("enabled", False)
    bf16 = cfg.get("bf16", {}).get("enabled", False)
    zero = cfg.get("zero_optimization", {})
    items = {
        "activation_checkpointing_config": '{\n    "partition_activations": false, \n    "contiguous_memory_optimization": false, \n    "cpu_checkpointing": false, \n    "number_checkpoints": null, \n    "synchronize_checkpoint_boundary": false, \n    "profile": false\n}',
        "amp_enabled": "False",
        "bfloat16_enabled": str(bool(bf16)),
        "checkpoint_parallel_write_pipeline": "False",
        "checkpoint_tag_validation_enabled": "True",
        "checkpoint_tag_validation_fail": "False",
        "dump_state": "False",
        "dynamic_loss_scale_args": ("{'init_scale': 65536, 'scale_window': 1000, 'delayed_shift': 2, 'consecutive_hysteresis': False, 'min_scale': 1}" if fp16 else "None"),
        "fp16_auto_cast": "False" if fp16 else "None",
        "fp16_enabled": str(bool(fp16)),
        "global_rank": "0",
        "gradient_accumulation_steps": str(cfg.get("gradient_accumulation_steps", 1)),
        "gradient_clipping": str(cfg.get("gradient_clipping", 0.0)),
        "initial_dynamic_scale": "65536" if fp16 else "1",
        "load_universal_checkpoint": "False",
        "loss_scale": "0" if fp16 else "1.0",
        "optimizer_name": cfg.get("optimizer", {}).get("type", "None").lower(),
        "optimizer_params": str(cfg.get("optimizer", {}).get("params", "None")),
        "steps_per_print": str(cfg.get("steps_per_print", 10)),
        "train_batch_size": str(cfg.get("train_batch_size")),
        "train_micro_batch_size_per_gpu": str(cfg.get("train_micro_batch_size_per_gpu")),
        "wall_clock_breakdown": "False",
        "world_size": str(cfg.get("_world", 8)),
        "zero_allow_untested_optimizer": "False",
        "zero_enabled": str(bool(zero.get("stage", 0) > 0)),
        "zero_force_ds_cpu_optimizer": "True",
        "zero_optimization_stage": str(zero.get("stage", 0)),
    }
    if extra:
        items.update(extra)
    out = [ds_line(clock, L["cfg"], "DeepSpeedEngine configuration:")]
    for k in sorted(items):
        dots = "." * (29 - len(k))
        val = items[k]
        first, *rest = val.split("\n")
        out.append(ds_line(clock, L["cfg_item"], f"  {k} {dots} {first}", lo=0.0, hi=0.001))
        out.extend(rest)
    user = {k: v_ for k, v_ in cfg.items() if not k.startswith("_")}
    js = json.dumps(user, indent=4, sort_keys=True, separators=(",", ":"))
    js_lines = js.splitlines()
    out.append(ds_line(clock, L["cfg_json"], "  json = " + js_lines[0], lo=0.0, hi=0.001))
    out.extend(js_lines[1:])
    return out


def mem_usage(clock: Clock, v: str, tag: str, ma: float, max_ma: float, ca: float, max_ca: int, cpu_used: float,
              cpu_pct: float) -> list[str]:
    L = DS_LOC[v]
    return [
        ds_line(clock, L["mem1"], tag),
        ds_line(clock, L["mem2"], f"MA {ma} GB         Max_MA {max_ma} GB         CA {ca} GB         Max_CA {max_ca} GB "),
        ds_line(clock, L["mem3"], f"CPU Virtual Memory:  used = {cpu_used} GB, percent = {cpu_pct}%"),
    ]


# torch source locations per version (read from the released wheels)
TORCH_LOC = {
    "1.13.1": dict(call=[("_call_impl", 1194, "return forward_call(*input, **kwargs)")],
                   call_hooks=[("_call_impl", 1212, "result = forward_call(*input, **kwargs)")],
                   tensor_bw=488, autograd_bw=197, graph=None, emb=160, func_emb=2210, lin=114,
                   ckpt_bw=157, fn_apply=267, load_sd=1671),
    "2.0.1": dict(call=[("_call_impl", 1501, "return forward_call(*args, **kwargs)")],
                  call_hooks=[("_call_impl", 1538, "result = forward_call(*args, **kwargs)")],
                  tensor_bw=487, autograd_bw=200, graph=None, emb=162, func_emb=2210, lin=114,
                  ckpt_bw=157, fn_apply=274, load_sd=2041),
    "2.1.2": dict(call=[("_wrapped_call_impl", 1518, "return self._call_impl(*args, **kwargs)"),
                        ("_call_impl", 1527, "return forward_call(*args, **kwargs)")],
                  call_hooks=[("_wrapped_call_impl", 1518, "return self._call_impl(*args, **kwargs)"),
                              ("_call_impl", 1568, "result = forward_call(*args, **kwargs)")],
                  tensor_bw=492, autograd_bw=251, graph=None, emb=162, func_emb=2233, lin=114,
                  ckpt_bw=288, fn_apply=288, load_sd=2152),
    "2.2.2": dict(call=[("_wrapped_call_impl", 1511, "return self._call_impl(*args, **kwargs)"),
                        ("_call_impl", 1520, "return forward_call(*args, **kwargs)")],
                  call_hooks=[("_wrapped_call_impl", 1511, "return self._call_impl(*args, **kwargs)"),
                              ("_call_impl", 1561, "result = forward_call(*args, **kwargs)")],
                  tensor_bw=522, autograd_bw=266, graph=None, emb=163, func_emb=2237, lin=116,
                  ckpt_bw=319, fn_apply=289, load_sd=2153),
    "2.3.1": dict(call=[("_wrapped_call_impl", 1532, "return self._call_impl(*args, **kwargs)"),
                        ("_call_impl", 1541, "return forward_call(*args, **kwargs)")],
                  call_hooks=[("_wrapped_call_impl", 1532, "return self._call_impl(*args, **kwargs)"),
                              ("_call_impl", 1582, "result = forward_call(*args, **kwargs)")],
                  tensor_bw=525, autograd_bw=267, graph=744, emb=163, func_emb=2264, lin=116,
                  ckpt_bw=320, fn_apply=301, load_sd=2189),
    "2.4.1": dict(call=[("_wrapped_call_impl", 1553, "return self._call_impl(*args, **kwargs)"),
                        ("_call_impl", 1562, "return forward_call(*args, **kwargs)")],
                  call_hooks=[("_wrapped_call_impl", 1553, "return self._call_impl(*args, **kwargs)"),
                              ("_call_impl", 1603, "result = forward_call(*args, **kwargs)")],
                  tensor_bw=521, autograd_bw=289, graph=769, emb=164, func_emb=2267, lin=117,
                  ckpt_bw=313, fn_apply=306, load_sd=2215),
    "2.5.1": dict(call=[("_wrapped_call_impl", 1736, "return self._call_impl(*args, **kwargs)"),
                        ("_call_impl", 1747, "return forward_call(*args, **kwargs)")],
                  call_hooks=[("_wrapped_call_impl", 1736, "return self._call_impl(*args, **kwargs)"),
                              ("_call_impl", 1790, "result = forward_call(*args, **kwargs)")],
                  tensor_bw=581, autograd_bw=347, graph=825, emb=190, func_emb=2551, lin=125,
                  ckpt_bw=321, fn_apply=307, load_sd=None),
}


def module_call(site: str, tv: str, hooks: bool = False) -> list[tuple[str, int, str, str]]:
    key = "call_hooks" if hooks else "call"
    return [(f"{site}/torch/nn/modules/module.py", ln, fn, code) for fn, ln, code in TORCH_LOC[tv][key]]


def backward_frames(site: str, tv: str) -> list[tuple[str, int, str, str]]:
    T = TORCH_LOC[tv]
    fr = [(f"{site}/torch/_tensor.py", T["tensor_bw"], "backward", "torch.autograd.backward(")]
    if T["graph"]:
        fr.append((f"{site}/torch/autograd/__init__.py", T["autograd_bw"], "backward", "_engine_run_backward("))
        fr.append((f"{site}/torch/autograd/graph.py", T["graph"], "_engine_run_backward",
                   "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"))
    else:
        fr.append((f"{site}/torch/autograd/__init__.py", T["autograd_bw"], "backward",
                   "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"))
    return fr


def write_case(out: Path, c: Case) -> None:
    d = out / c.case_id
    d.mkdir(parents=True, exist_ok=True)
    for name, text in c.files.items():
        p = d / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text if text.endswith("\n") else text + "\n")

    def q(s: str) -> str:
        return json.dumps(s, ensure_ascii=False)

    lines = [
        "schema_version: 1",
        f"label: {c.label}",
        "also: [" + ", ".join(c.also) + "]",
        f"difficulty: {c.difficulty}",
        f"description: {q(c.description)}",
        f"initiating_rank: {'null' if c.initiating_rank is None else c.initiating_rank}",
        "facts:",
    ]
    lines += [f"  {k}: {q(str(v))}" for k, v in c.facts.items()]
    lines.append("must_mention: [" + ", ".join(q(m) for m in c.must_mention) + "]")
    if c.secrets:
        lines.append("secrets:")
        lines += [f"  - {q(s)}" for s in c.secrets]
    else:
        lines.append("secrets: []")
    (d / "case.yaml").write_text("\n".join(lines) + "\n")


# ==================================================================================================
# deepspeed-batch-config-mismatch
# ==================================================================================================


def batch_assert_tb(site: str, script: str, script_frames, v: str, lhs: int, mb: int, ga: int, ws: int,
                    msg: str | None = None, pipe: bool = False) -> list[str]:
    init_line = {"0.9.5": 151 if not pipe else 179, "0.12.6": 157 if not pipe else 185, "0.15.4": 179 if not pipe else 208}[v]
    init_code = "config_class = DeepSpeedConfig(config, mpu)" if (v != "0.15.4" or pipe) else \
        "config_class = DeepSpeedConfig(config, mpu, mesh_device=mesh_device)"
    cfg_init = {"0.9.5": 769, "0.12.6": 786, "0.15.4": 798}[v]
    cfg_conf = {"0.9.5": 942, "0.12.6": 966, "0.15.4": 981}[v]
    if msg is None:
        assert_line = {"0.9.5": 890, "0.12.6": 914, "0.15.4": 929}[v]
        code = "assert train_batch == micro_batch * grad_acc * self.world_size, ("
        msg = ("AssertionError: Check batch related parameters. train_batch_size is not equal to "
               f"micro_batch_per_gpu * gradient_acc_step * world_size {lhs} != {mb} * {ga} * {ws}")
    else:
        assert_line = {"0.9.5": 888, "0.12.6": 912, "0.15.4": 927}[v]
        code = 'assert (grad_acc > 0), f"Gradient accumulation steps: {grad_acc} has to be greater than 0"'
    frames = list(script_frames) + [
        (f"{site}/deepspeed/__init__.py", init_line, "initialize", init_code),
        (f"{site}/deepspeed/runtime/config.py", cfg_init, "__init__", "self._configure_train_batch_size()"),
        (f"{site}/deepspeed/runtime/config.py", cfg_conf, "_configure_train_batch_size", "self._batch_assertion()"),
        (f"{site}/deepspeed/runtime/config.py", assert_line, "_batch_assertion", code),
    ]
    return tb(frames, msg)


def case_batch_ds_launcher() -> Case:
    rng = random.Random(101)
    clock = Clock("2024-03-05 14:02:11", rng)
    v = "0.12.6"
    L = DS_LOC[v]
    site = "/usr/local/lib/python3.10/dist-packages"
    home = "/home/akira/gpt2-ft"
    cfg = {"train_batch_size": 256, "train_micro_batch_size_per_gpu": 8, "gradient_accumulation_steps": 4,
           "gradient_clipping": 1.0, "steps_per_print": 50,
           "optimizer": {"type": "AdamW", "params": {"lr": 3e-4, "betas": [0.9, 0.95], "eps": 1e-8, "weight_decay": 0.1}},
           "scheduler": {"type": "WarmupDecayLR", "params": {"warmup_min_lr": 0, "warmup_max_lr": 3e-4, "warmup_num_steps": 500, "total_num_steps": 20000}},
           "bf16": {"enabled": True},
           "zero_optimization": {"stage": 2, "overlap_comm": True, "contiguous_gradients": True, "reduce_bucket_size": 5e8}}
    out = ["+ export CUDA_VISIBLE_DEVICES=0,1,2,3", "+ nvidia-smi"]
    busy = [(4, 88213, "/usr/bin/python3", 38112), (5, 88214, "/usr/bin/python3", 38112),
            (6, 88215, "/usr/bin/python3", 38110), (7, 88216, "/usr/bin/python3", 38114)]
    out += nvidia_smi(rng, "NVIDIA A100-SXM4-40GB", 8, "535.129.03", "12.2", "Tue Mar  5 14:02:10 2024", used_mib=4, procs=busy)
    out += ["+ deepspeed train_gpt2_ds.py --deepspeed --deepspeed_config configs/ds_zero2_bs256.json --model_name gpt2-medium --data_dir /data/openwebtext/tokenized --save_dir /ckpt/gpt2m-owt"]
    world = {"localhost": [0, 1, 2, 3]}
    script = ["train_gpt2_ds.py", "--deepspeed", "--deepspeed_config", "configs/ds_zero2_bs256.json", "--model_name",
              "gpt2-medium", "--data_dir", "/data/openwebtext/tokenized", "--save_dir", "/ckpt/gpt2m-owt"]
    out += ds_launcher_header(clock, v, world, 0, "127.0.0.1", 29500, script)
    pids = [51201, 51202, 51203, 51204]
    blocks = []
    for r in range(4):
        b = [ds_line(clock, L["accel"], "Setting ds_accelerator to cuda (auto detect)", lo=2.0, hi=3.5)]
        blocks.append(b)
    out += interleave(blocks, rng, 1, 1)
    blocks = []
    for r in range(4):
        b = [f"[rank {r}] loading tokenizer + model gpt2-medium (354.8M params)",
             ds_line(clock, L["cdb"], "cdb=None", lo=3.0, hi=5.0)]
        if r == 0:
            b.append(ds_line(clock, L["comm_init"], "Initializing TorchBackend in DeepSpeed with backend nccl"))
            b.append(f"[rank 0] train shards: 1024 files, 9.04B tokens, seq_len=1024")
            b.append(ds_line(clock, L["log_dist"], "[Rank 0] DeepSpeed info: version=0.12.6, git-hash=unknown, git-branch=unknown", lo=0.5, hi=1.0))
        blocks.append(b)
    out += interleave(blocks, rng, 1, 2)
    frames = [(f"{home}/train_gpt2_ds.py", 214, "<module>", "main()"),
              (f"{home}/train_gpt2_ds.py", 163, "main", "model_engine, optimizer, _, lr_scheduler = deepspeed.initialize(")]
    tbs = [batch_assert_tb(site, "train_gpt2_ds.py", frames, v, 256, 8, 4, 4) for _ in range(4)]
    out += interleave(tbs, rng, 1, 3)
    for p in pids:
        out.append(ds_line(clock, L["launch_kill"], f"Killing subprocess {p}", lo=0.5, hi=1.0))
    cmd = ["/usr/bin/python3", "-u", "train_gpt2_ds.py", "--local_rank=3"] + script[1:]
    out.append(ds_line(clock, L["launch_err"], f"{cmd} exits with return code = 1", level="ERROR"))
    return Case(
        case_id="deepspeed-batch-config-mismatch-ds-launcher-4of8-01",
        label="deepspeed-batch-config-mismatch", difficulty="easy",
        description="deepspeed launcher on 4 of 8 A100s (CUDA_VISIBLE_DEVICES), config written for 8 GPUs: 256 != 8 * 4 * 4 on every rank",
        files={"train.log": "\n".join(out)},
        facts={"gpu_model": "A100-SXM4-40GB", "gpu_count": "8", "driver_version": "535.129.03",
               "deepspeed_version": "0.12.6", "launcher": "deepspeed", "world_size": "4", "zero_stage": "2",
               "precision": "bf16"},
        must_mention=["train_batch_size", "gradient_accumulation_steps"],
    )


def torchrun_failure_24(clock: Clock, pid: int, site_bin: str, script: str, host: str, fails: list[tuple[int, int, int]],
                        sigterm: list[int], when: str, py: str = "/opt/conda/bin/python3.10") -> list[str]:
    """torch 2.4 torchrun tail: SIGTERM lines, failed (exitcode) line, ChildFailedError summary.
    fails: (rank, exitcode, pid) ordered by time; the first is the root cause."""
    out = []
    for p in sigterm:
        out.append(f"{clock.glog('W', pid, 'torch/distributed/elastic/multiprocessing/api.py:858', 0.001, 0.01)} Sending process {p} closing signal SIGTERM")
    r0, e0, p0 = fails[0]
    out.append(f"{clock.glog('E', pid, 'torch/distributed/elastic/multiprocessing/api.py:833', 0.2, 0.6)} failed (exitcode: {e0}) local_rank: {r0} (pid: {p0}) of binary: {py}")
    sp = "/opt/conda/lib/python3.10/site-packages"
    out += tb([(site_bin, 8, "<module>", "sys.exit(main())"),
               (f"{sp}/torch/distributed/elastic/multiprocessing/errors/__init__.py", 348, "wrapper", "return f(*args, **kwargs)"),
               (f"{sp}/torch/distributed/run.py", 901, "main", "run(args)"),
               (f"{sp}/torch/distributed/run.py", 892, "run", "elastic_launch("),
               (f"{sp}/torch/distributed/launcher/api.py", 133, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"),
               (f"{sp}/torch/distributed/launcher/api.py", 264, "launch_agent", "raise ChildFailedError(")],
              "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ")
    out += ["============================================================", f"{script} FAILED",
            "------------------------------------------------------------", "Failures:"]
    rest = fails[1:]
    if not rest:
        out.append("  <NO_OTHER_FAILURES>")
    for i, (r, e, p) in enumerate(rest, 1):
        sig = "" if e > 0 else f" (pid: {p})"
        out += [f"[{i}]:", f"  time      : {when}", f"  host      : {host}", f"  rank      : {r} (local_rank: {r})",
                f"  exitcode  : {e} (pid: {p})" if e > 0 else f"  exitcode  : {e} (pid: {p})",
                "  error_file: <N/A>",
                "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html" if e > 0
                else f"  traceback : Signal {-e} ({ {15: 'SIGTERM', 9: 'SIGKILL', 6: 'SIGABRT'}[-e] }) received by PID {p}"]
    out += ["------------------------------------------------------------", "Root Cause (first observed failure):", "[0]:",
            f"  time      : {when}", f"  host      : {host}", f"  rank      : {r0} (local_rank: {r0})",
            f"  exitcode  : {e0} (pid: {p0})", "  error_file: <N/A>",
            "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
            "============================================================"]
    return out


def case_batch_hf_torchrun() -> Case:
    rng = random.Random(102)
    clock = Clock("2024-03-12 09:14:02", rng)
    v = "0.15.4"
    L = DS_LOC[v]
    site = "/opt/conda/lib/python3.10/site-packages"
    home = "/home/mchen/work/sft"
    hf_tok, wb = fake_hf_token(rng), fake_wandb_key(rng)
    out = ["### launching sft job on gpu-h100-07 (8 GPUs)",
           "+ env | grep -E '^(HF_|WANDB_|NCCL_|CUDA_|TORCH_)' | sort",
           "CUDA_DEVICE_MAX_CONNECTIONS=1",
           "HF_DATASETS_CACHE=/scratch/mchen/hf/datasets",
           "HF_HOME=/scratch/mchen/hf",
           f"HF_TOKEN={hf_tok}",
           "NCCL_ASYNC_ERROR_HANDLING=1",
           "NCCL_DEBUG=WARN",
           "TORCH_NCCL_ASYNC_ERROR_HANDLING=1",
           "WANDB_ENTITY=mchen-lab",
           f"WANDB_API_KEY={wb}",
           "WANDB_PROJECT=llama2-13b-sft",
           "+ cat configs/zero3_bf16.json",
           json.dumps({"bf16": {"enabled": "auto"}, "zero_optimization": {"stage": 3, "overlap_comm": True, "contiguous_gradients": True,
                       "reduce_bucket_size": "auto", "stage3_prefetch_bucket_size": "auto", "stage3_param_persistence_threshold": "auto",
                       "stage3_gather_16bit_weights_on_model_save": True}, "gradient_accumulation_steps": "auto",
                       "gradient_clipping": "auto", "train_batch_size": 64, "train_micro_batch_size_per_gpu": "auto",
                       "wall_clock_breakdown": False}, indent=2),
           "+ torchrun --nproc_per_node 8 train_sft.py --model_name_or_path meta-llama/Llama-2-13b-hf --dataset /scratch/mchen/data/sft_mix_v3.jsonl --output_dir /scratch/mchen/runs/l2-13b-sft-v3 --deepspeed configs/zero3_bf16.json --per_device_train_batch_size 4 --gradient_accumulation_steps 8 --learning_rate 1e-5 --num_train_epochs 3 --bf16 --gradient_checkpointing --logging_steps 10 --report_to wandb"]
    tpid = 139872
    for ln in ["", "*****************************************",
               "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
               "*****************************************"]:
        out.append(f"{clock.glog('W', tpid, 'torch/distributed/run.py:779', 0.0, 0.001)} {ln}")
    pids = [140011 + i for i in range(8)]
    blocks = []
    for r in range(8):
        p = f"[rank{r}]:"
        b = [p + ds_line(clock, L["accel"], "Setting ds_accelerator to cuda (auto detect)", lo=0.3, hi=0.8)]
        b.append(p + ds_line(clock, L["cdb"], "cdb=None", lo=1.0, hi=2.0))
        if r == 0:
            b.append(p + ds_line(clock, L["comm_init"], "Initializing TorchBackend in DeepSpeed with backend nccl"))
        blocks.append(b)
    out += interleave(blocks, rng, 1, 2)
    blocks = []
    for r in range(8):
        p = f"[rank{r}]:"
        b = []
        if r == 0:
            b.append(p + ds_line(clock, "partition_parameters.py:348:__exit__", "finished initializing model - num_params = 363, num_elems = 13.02B", lo=20, hi=30))
        n = rng.randint(3, 5)
        b.append(f"Loading checkpoint shards: 100%|██████████| 3/3 [00:{rng.randint(21, 29)}<00:00,  {rng.uniform(7.2, 9.6):.2f}s/it]")
        b.append(f"{p}Map (num_proc=8): 100%|██████████| 61204/61204 [00:0{n}<00:00, {rng.randint(11000, 15000)}.{rng.randint(10, 99)} examples/s]" if r == 0 else
                 f"{p}Using custom data configuration default-4f2b9e1c6a0d3e57")
        blocks.append(b)
    out += interleave(blocks, rng, 1, 2)
    frames = [(f"{home}/train_sft.py", 241, "<module>", "main()"),
              (f"{home}/train_sft.py", 233, "main", "trainer.train(resume_from_checkpoint=args.resume)"),
              (f"{site}/transformers/trainer.py", 1938, "train", "return inner_training_loop("),
              (f"{site}/transformers/trainer.py", 2036, "_inner_training_loop", "self.optimizer, self.lr_scheduler = deepspeed_init(self, num_training_steps=max_steps)"),
              (f"{site}/transformers/integrations/deepspeed.py", 393, "deepspeed_init", "hf_deepspeed_config.trainer_config_finalize(args, model, num_training_steps)"),
              (f"{site}/transformers/integrations/deepspeed.py", 265, "trainer_config_finalize", "raise ValueError(")]
    msg = ("ValueError: Please correct the following DeepSpeed config values that mismatch TrainingArguments values:\n"
           "- ds train_batch_size=64 vs hf train_batch_size (calculated)=256\n"
           "The easiest method is to set these DeepSpeed config values to 'auto'.")
    tbs = [[f"[rank{r}]: " + ln for ln in tb(frames, msg)] for r in range(8)]
    out += interleave(tbs, rng, 2, 6)
    clock.tick(2.0, 3.0)
    when = clock.t.strftime("%Y-%m-%d_%H:%M:%S")
    order = [0, 3, 1, 6, 2, 5, 7, 4]
    fails = [(r, 1, pids[r]) for r in order[:6]]
    out += torchrun_failure_24(clock, tpid, "/opt/conda/bin/torchrun", "train_sft.py", "gpu-h100-07", fails,
                               sigterm=[pids[7], pids[4]], when=when)
    return Case(
        case_id="deepspeed-batch-config-mismatch-hf-trainer-torchrun-02",
        label="deepspeed-batch-config-mismatch", difficulty="medium",
        description="HF Trainer + ZeRO-3 on 8x H100 via torchrun; ds config hard-codes train_batch_size=64 while per_device 4 x grad_acc 8 x 8 GPUs = 256; every rank raises the HF mismatch ValueError, torchrun ChildFailedError last",
        files={"train.log": "\n".join(out)},
        facts={"launcher": "torchrun", "world_size": "8", "zero_stage": "3", "precision": "bf16"},
        must_mention=["train_batch_size", "auto"],
        secrets=[hf_tok, wb, "mchen"],
    )


def case_batch_gas_zero_mpirun() -> Case:
    rng = random.Random(103)
    clock = Clock("2023-07-19 22:41:05", rng)
    v = "0.9.5"
    L = DS_LOC[v]
    site = "/opt/conda/lib/python3.10/site-packages"
    proj = "/shared/projects/bert-pt"
    cfg = {"train_batch_size": 64, "train_micro_batch_size_per_gpu": 8, "steps_per_print": 100,
           "optimizer": {"type": "Lamb", "params": {"lr": 0.0011, "weight_decay": 0.01, "bias_correction": True}},
           "fp16": {"enabled": True, "loss_scale": 0, "initial_scale_power": 16},
           "zero_optimization": {"stage": 1}}
    out = ["Wed Jul 19 22:41:01 UTC 2023",
           "hosts: v100-a07 v100-a08 (8 slots each)",
           "+ mpirun -np 16 --hostfile /shared/projects/bert-pt/hostfile --tag-output --bind-to none --map-by slot -x NCCL_DEBUG=INFO -x NCCL_SOCKET_IFNAME=ens5 -x PATH -x LD_LIBRARY_PATH python pretrain_bert.py --config configs/bert_large_seq128.json --deepspeed --deepspeed_config configs/ds_bert_lamb.json",
           "+ cat configs/ds_bert_lamb.json"] + json.dumps(cfg, indent=2).splitlines()
    # mpirun --tag-output prefix: [jobid,rank]<stream>:
    def P(r, s="stdout"):
        return f"[1,{r}]<{s}>:"
    blocks = []
    for r in range(16):
        b = [P(r, "stderr") + ds_line(clock, L["accel"], "Setting ds_accelerator to cuda (auto detect)", lo=0.05, hi=0.3),
             P(r) + f"rank {r}: building BertForPreTraining (bert-large-uncased, 335M params), vocab 30528",
             P(r, "stderr") + ds_line(clock, L["cdb"], "cdb=None", lo=0.5, hi=1.2),
             P(r, "stderr") + ds_line(clock, L["mpi_try"], "Not using the DeepSpeed or dist launchers, attempting to detect MPI environment..."),
             P(r, "stderr") + ds_line(clock, L["mpi_found"], f"Discovered MPI settings of world_rank={r}, local_rank={r % 8}, world_size=16, master_addr=10.20.3.17, master_port=29500", lo=0.1, hi=0.3)]
        if r == 0:
            b.append(P(r, "stderr") + ds_line(clock, L["comm_init"], "Initializing TorchBackend in DeepSpeed with backend nccl"))
        blocks.append(b)
    out += interleave(blocks, rng, 1, 3)
    out.append(P(0, "stderr") + ds_line(clock, L["log_dist"], "[Rank 0] DeepSpeed info: version=0.9.5, git-hash=unknown, git-branch=unknown", lo=1.0, hi=2.0))
    frames = [(f"{proj}/pretrain_bert.py", 402, "<module>", "main(args)"),
              (f"{proj}/pretrain_bert.py", 311, "main", "model, optimizer, _, _ = prepare_model_optimizer(args)"),
              (f"{proj}/pretrain_bert.py", 268, "prepare_model_optimizer", "model, optimizer, _, _ = deepspeed.initialize(args=args,")]
    msg = "AssertionError: Gradient accumulation steps: 0 has to be greater than 0"
    tbs = [[P(r, "stderr") + ln for ln in batch_assert_tb(site, "pretrain_bert.py", frames, v, 0, 0, 0, 0, msg=msg)] for r in range(16)]
    out += interleave(tbs, rng, 1, 4)
    out += ["--------------------------------------------------------------------------",
            "Primary job  terminated normally, but 1 process returned",
            "a non-zero exit code. Per user-direction, the job has been aborted.",
            "--------------------------------------------------------------------------",
            "--------------------------------------------------------------------------",
            "mpirun detected that one or more processes exited with non-zero status, thus causing",
            "the job to be terminated. The first process to do so was:",
            "",
            "  Process name: [[41873,1],3]",
            "  Exit code:    1",
            "--------------------------------------------------------------------------"]
    return Case(
        case_id="deepspeed-batch-config-mismatch-gas-zero-mpirun-03",
        label="deepspeed-batch-config-mismatch", difficulty="medium",
        description="mpirun -np 16 on two V100 nodes, DeepSpeed 0.9.5 derives gradient_accumulation_steps = 64 // 8 // 16 = 0; the assertion talks about accumulation steps, not the batch identity",
        files={"mpirun.out": "\n".join(out)},
        facts={"launcher": "mpirun", "world_size": "16", "deepspeed_version": "0.9.5", "precision": "fp16",
               "zero_stage": "1", "num_nodes": "2"},
        must_mention=["train_batch_size", "gradient_accumulation_steps", "world_size"],
    )


def srun_prefix(rank: int, width: int = 2) -> str:
    return f"{rank:>{width}}: "


def case_batch_pipe_tp_srun() -> Case:
    rng = random.Random(104)
    clock = Clock("2024-05-02 11:03:12", rng)
    v = "0.12.6"
    L = DS_LOC[v]
    site = "/lustre/fsw/llm/envs/llm24/lib/python3.10/site-packages"
    proj = "/lustre/fsw/llm/users/okafor/llm-3d"
    cfg = {"train_batch_size": 512, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 16,
           "steps_per_print": 10, "gradient_clipping": 1.0, "bf16": {"enabled": True},
           "zero_optimization": {"stage": 1},
           "optimizer": {"type": "AdamW", "params": {"lr": 2e-4, "betas": [0.9, 0.95], "weight_decay": 0.1}},
           "pipeline": {"activation_checkpoint_interval": 1}}
    out = ["SLURM_JOB_ID=4417802 SLURM_JOB_NAME=llm7b-3d SLURM_NNODES=2 SLURM_NTASKS=16 SLURM_JOB_NODELIST=gpu-a100-[031-032]",
           "MASTER_ADDR=gpu-a100-031 MASTER_PORT=6000",
           "+ srun -l --kill-on-bad-exit=1 --cpu-bind=none bash -c 'RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID WORLD_SIZE=$SLURM_NTASKS python train_3d.py --tp 4 --pp 2 --model-size 7b --seq-len 4096 --data /lustre/fsw/llm/data/mix-v5 --deepspeed_config configs/ds_3d_gbs512.json'"]
    W = 16
    blocks = []
    for r in range(W):
        p = srun_prefix(r)
        b = [p + ds_line(clock, L["accel"], "Setting ds_accelerator to cuda (auto detect)", lo=0.05, hi=0.4),
             p + ds_line(clock, L["cdb"], "cdb=None", lo=0.5, hi=1.5)]
        if r == 0:
            b.append(p + ds_line(clock, L["comm_init"], "Initializing TorchBackend in DeepSpeed with backend nccl"))
        blocks.append(b)
    out += interleave(blocks, rng, 1, 2)
    nodes = ["gpu-a100-031", "gpu-a100-032"]
    for r in [0, 8]:
        host = nodes[r // 8]
        for ln in nccl_init_lines(host, 203311 + r, r, 16, "2.18.1", "12.1", r % 8, iface="ib0", ip=f"10.44.1.{31 + r // 8}"):
            out.append(srun_prefix(r) + ln)
    p0 = srun_prefix(0)
    out += [p0 + "> initialized parallel state: world_size=16 tensor_parallel=4 pipeline_parallel=2 data_parallel=2",
            p0 + "> building GPT 7B: 32 layers, hidden 4096, heads 32, vocab 50304 (padded)",
            p0 + "SEED_LAYERS=False BASE_SEED=1234 SEED_FN=None",
            p0 + ds_line(clock, "module.py:375:_partition_layers", "Partitioning pipeline stages with method parameters", lo=1.0, hi=2.0),
            p0 + "stage=0 layers=18",
            p0 + "     0: EmbeddingPipe"]
    for i in range(1, 18):
        out.append(p0 + f"    {i:2d}: ParallelTransformerLayerPipe")
    out.append(p0 + "stage=1 layers=19")
    for i in range(18, 33):
        out.append(p0 + f"    {i:2d}: ParallelTransformerLayerPipe")
    out += [p0 + "    33: MixedFusedRMSNorm", p0 + "    34: <lambda>", p0 + "    35: LMHeadPipe", p0 + "    36: float16_to_fp32",
            p0 + "  loss: CrossEntropyLossPipe"]
    out.append(p0 + ds_line(clock, L["log_dist"], "[Rank 0] DeepSpeed info: version=0.12.6, git-hash=unknown, git-branch=unknown", lo=0.5, hi=1.0))
    frames = [(f"{proj}/train_3d.py", 297, "<module>", "main()"),
              (f"{proj}/train_3d.py", 262, "main", "engine, _, _, _ = deepspeed.initialize(")]
    tbs = [[srun_prefix(r) + ln for ln in batch_assert_tb(site, "train_3d.py", frames, v, 512, 4, 16, 2, pipe=True)] for r in range(W)]
    out += interleave(tbs, rng, 1, 5)
    clock.tick(1.0, 2.0)
    out += ["srun: error: gpu-a100-032: tasks 8-15: Exited with exit code 1",
            "srun: launch/slurm: _step_signal: Terminating StepId=4417802.0",
            "srun: error: gpu-a100-031: tasks 0-7: Exited with exit code 1"]
    return Case(
        case_id="deepspeed-batch-config-mismatch-pipe-tp-srun-04",
        label="deepspeed-batch-config-mismatch", difficulty="medium",
        description="srun -l, 16 ranks with tensor parallel 4 and pipeline 2: DeepSpeed's batch math uses the data-parallel size 2, so 512 != 4 * 16 * 2 although 16 GPUs run",
        files={"slurm-4417802.out": "\n".join(out)},
        facts={"launcher": "srun", "world_size": "16", "num_nodes": "2", "deepspeed_version": "0.12.6",
               "nccl_version": "2.18.1", "zero_stage": "1"},
        must_mention=["data-parallel", "train_batch_size"],
    )


# ==================================================================================================
# deepspeed-op-build-failure
# ==================================================================================================

def engine_optimizer_frames(site: str, v: str, which: str) -> list[tuple[str, int, str, str]]:
    """deepspeed.initialize -> ... -> FusedAdam/DeepSpeedCPUAdam constructor -> builder.load (0.12.6)."""
    assert v == "0.12.6"
    fr = [(f"{site}/deepspeed/__init__.py", 171, "initialize", "engine = DeepSpeedEngine(args=args,"),
          (f"{site}/deepspeed/runtime/engine.py", 304, "__init__", "self._configure_optimizer(optimizer, model_parameters)"),
          (f"{site}/deepspeed/runtime/engine.py", 1208, "_configure_optimizer", "basic_optimizer = self._configure_basic_optimizer(model_parameters)")]
    if which == "fused_adam":
        fr += [(f"{site}/deepspeed/runtime/engine.py", 1285, "_configure_basic_optimizer", "optimizer = FusedAdam("),
               (f"{site}/deepspeed/ops/adam/fused_adam.py", 94, "__init__", "fused_adam_cuda = FusedAdamBuilder().load()")]
    else:
        fr += [(f"{site}/deepspeed/runtime/engine.py", 1279, "_configure_basic_optimizer", "optimizer = DeepSpeedCPUAdam(model_parameters,"),
               (f"{site}/deepspeed/ops/adam/cpu_adam.py", 94, "__init__", "self.ds_opt_adam = CPUAdamBuilder().load()")]
    fr.append((f"{site}/deepspeed/ops/op_builder/builder.py", 458, "load", "return self.jit_load(verbose)"))
    return fr


def cpu_adam_del(site: str, addr: str) -> list[str]:
    return [f"Exception ignored in: <function DeepSpeedCPUAdam.__del__ at {addr}>",
            "Traceback (most recent call last):",
            f'  File "{site}/deepspeed/ops/adam/cpu_adam.py", line 102, in __del__',
            "    self.ds_opt_adam.destroy_adam(self.opt_id)",
            "AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'"]


def torch_nvcc_cmd(site: str, cuda_home: str, ds_site: str, py_inc: str, src: str, obj: str, arch: str, op: str,
                   extra: str) -> str:
    inc = (f"-I{ds_site}/deepspeed/ops/csrc/includes -I{ds_site}/deepspeed/ops/csrc/adam "
           f"-isystem {site}/torch/include -isystem {site}/torch/include/torch/csrc/api/include "
           f"-isystem {site}/torch/include/TH -isystem {site}/torch/include/THC -isystem {cuda_home}/include -isystem {py_inc}")
    return (f"{cuda_home}/bin/nvcc  -DTORCH_EXTENSION_NAME={op} -DTORCH_API_INCLUDE_EXTENSION_H "
            f"-DPYBIND11_COMPILER_TYPE=\\\"_gcc\\\" -DPYBIND11_STDLIB=\\\"_libstdcpp\\\" -DPYBIND11_BUILD_ABI=\\\"_cxxabi1011\\\" "
            f"{inc} -D_GLIBCXX_USE_CXX11_ABI=0 -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ "
            f"-D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__ --expt-relaxed-constexpr "
            f"-gencode=arch=compute_{arch},code=compute_{arch} -gencode=arch=compute_{arch},code=sm_{arch} "
            f"--compiler-options '-fPIC' {extra} -std=c++17 -c {src} -o {obj} ")


def case_build_gcc_fused_adam() -> Case:
    rng = random.Random(201)
    clock = Clock("2024-02-18 20:11:37", rng)
    v = "0.12.6"
    L = DS_LOC[v]
    env = "/home/lucia/miniconda3/envs/sdxl"
    site = f"{env}/lib/python3.10/site-packages"
    proj = "/home/lucia/code/sdxl-lora"
    ext = "/home/lucia/.cache/torch_extensions/py310_cu118"
    out = ["(sdxl) lucia@tower:~/code/sdxl-lora$ deepspeed --num_gpus 1 train_lora.py --config configs/sdxl_lora_r32.yaml --deepspeed ds_zero2.json"]
    world = {"localhost": [0]}
    script = ["train_lora.py", "--config", "configs/sdxl_lora_r32.yaml", "--deepspeed", "ds_zero2.json"]
    hdr = ds_launcher_header(clock, v, world, 0, "127.0.0.1", 29500, script)
    hdr = [h.replace("/usr/bin/python3", f"{env}/bin/python") for h in hdr if "Detected" not in h and "Unable to find hostfile" not in h]
    hdr.insert(1, ds_line(clock, L["runner_warn"], "Unable to find hostfile, will proceed with training with local resources only.", level="WARNING", lo=0, hi=0.01))
    out += hdr
    out += [ds_line(clock, L["accel"], "Setting ds_accelerator to cuda (auto detect)", lo=2.0, hi=3.0),
            "/home/lucia/miniconda3/envs/sdxl/lib/python3.10/site-packages/diffusers/utils/outputs.py:63: UserWarning: torch.utils._pytree._register_pytree_node is deprecated. Please use torch.utils._pytree.register_pytree_node instead.",
            "  torch.utils._pytree._register_pytree_node(",
            ds_line(clock, L["cdb"], "cdb=None", lo=0.5, hi=1.0),
            ds_line(clock, L["comm_init"], "Initializing TorchBackend in DeepSpeed with backend nccl"),
            "02/18/2024 20:11:52 - INFO - __main__ - loading stabilityai/stable-diffusion-xl-base-1.0 (unet fp16, vae fp32)",
            "Loading pipeline components...: 100%|██████████| 7/7 [00:02<00:00,  2.91it/s]",
            "02/18/2024 20:12:03 - INFO - __main__ - LoRA rank 32 on attn processors: 11,141,120 trainable params",
            "02/18/2024 20:12:03 - INFO - __main__ - dataset: 1,834 images (data/ink_style), resolution 1024, batch 2",
            ds_line(clock, L["log_dist"], "[Rank 0] DeepSpeed info: version=0.12.6, git-hash=unknown, git-branch=unknown", lo=0.2, hi=0.5),
            ds_line(clock, L["log_dist"], "[Rank 0] DeepSpeed Flops Profiler Enabled: False", lo=0.2, hi=0.5).replace("logging.py:96:log_dist", "logging.py:96:log_dist"),
            f"Using {ext} as PyTorch extensions root...",
            f"Creating extension directory {ext}/fused_adam...",
            "Detected CUDA files, patching ldflags",
            f"Emitting ninja build file {ext}/fused_adam/build.ninja...",
            "Building extension module fused_adam...",
            "Allowing ninja to set a default number of workers... (overridable by setting the environment variable MAX_JOBS=N)"]
    cuda = "/usr/local/cuda-11.8"
    py_inc = f"{env}/include/python3.10"
    nv_extra = ("-O3 -DVERSION_GE_1_1 -DVERSION_GE_1_3 -DVERSION_GE_1_5 -lineinfo --use_fast_math "
                "-gencode=arch=compute_89,code=sm_89 -gencode=arch=compute_89,code=compute_89 -DBF16_AVAILABLE "
                "-U__CUDA_NO_BFLOAT16_OPERATORS__ -U__CUDA_NO_BFLOAT162_OPERATORS__")
    nv = torch_nvcc_cmd(site, cuda, site, py_inc, f"{site}/deepspeed/ops/csrc/adam/multi_tensor_adam.cu",
                        "multi_tensor_adam.cuda.o", "89", "fused_adam", nv_extra)
    cxx = (f"c++ -MMD -MF fused_adam_frontend.o.d -DTORCH_EXTENSION_NAME=fused_adam -DTORCH_API_INCLUDE_EXTENSION_H "
           f"-DPYBIND11_COMPILER_TYPE=\\\"_gcc\\\" -DPYBIND11_STDLIB=\\\"_libstdcpp\\\" -DPYBIND11_BUILD_ABI=\\\"_cxxabi1011\\\" "
           f"-I{site}/deepspeed/ops/csrc/includes -I{site}/deepspeed/ops/csrc/adam -isystem {site}/torch/include "
           f"-isystem {site}/torch/include/torch/csrc/api/include -isystem {site}/torch/include/TH -isystem {site}/torch/include/THC "
           f"-isystem {cuda}/include -isystem {py_inc} -D_GLIBCXX_USE_CXX11_ABI=0 -fPIC -std=c++17 -O3 -std=c++17 -g -Wno-reorder "
           f"-DVERSION_GE_1_1 -DVERSION_GE_1_3 -DVERSION_GE_1_5 -DBF16_AVAILABLE -c {site}/deepspeed/ops/csrc/adam/fused_adam_frontend.cpp -o fused_adam_frontend.o ")
    errtxt = ("#error -- unsupported GNU version! gcc versions later than 11 are not supported! The nvcc flag "
              "'-allow-unsupported-compiler' can be used to override this version check; however, using an unsupported host "
              "compiler may cause compilation failure or incorrect run time execution. Use at your own risk.")
    out += [f"[1/3] {nv}", "FAILED: multi_tensor_adam.cuda.o ", nv,
            f"In file included from {cuda}/include/cuda_runtime.h:83,",
            "                 from <command-line>:",
            f"{cuda}/include/crt/host_config.h:132:2: error: {errtxt}",
            f"  132 | {errtxt}",
            "      |  ^~~~~",
            f"[2/3] {cxx}",
            "ninja: build stopped: subcommand failed."]
    first = tb([(f"{site}/torch/utils/cpp_extension.py", 2100, "_run_ninja_build", "subprocess.run("),
                (f"{env}/lib/python3.10/subprocess.py", 526, "run", "raise CalledProcessError(retcode, process.args,")],
               "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.")
    frames = [(f"{proj}/train_lora.py", 412, "<module>", "main(parse_args())"),
              (f"{proj}/train_lora.py", 287, "main", "engine, optimizer, train_dl, lr_sched = deepspeed.initialize(")]
    frames += engine_optimizer_frames(site, v, "fused_adam")
    frames += [(f"{site}/deepspeed/ops/op_builder/builder.py", 502, "jit_load", "op_module = load(name=self.name,"),
               (f"{site}/torch/utils/cpp_extension.py", 1308, "load", "return _jit_compile("),
               (f"{site}/torch/utils/cpp_extension.py", 1710, "_jit_compile", "_write_ninja_file_and_build_library("),
               (f"{site}/torch/utils/cpp_extension.py", 1823, "_write_ninja_file_and_build_library", "_run_ninja_build("),
               (f"{site}/torch/utils/cpp_extension.py", 2116, "_run_ninja_build", "raise RuntimeError(message) from e")]
    second = tb(frames, "RuntimeError: Error building extension 'fused_adam'")
    out += first + ["", "The above exception was the direct cause of the following exception:", ""] + second
    out.append(ds_line(clock, L["launch_kill"], "Killing subprocess 731904", lo=1.0, hi=1.5))
    cmd = [f"{env}/bin/python", "-u", "train_lora.py", "--local_rank=0"] + script[1:]
    out.append(ds_line(clock, L["launch_err"], f"{cmd} exits with return code = 1", level="ERROR"))
    out.append("(sdxl) lucia@tower:~/code/sdxl-lora$ gcc --version | head -1")
    out.append("gcc (Debian 12.2.0-14) 12.2.0")
    return Case(
        case_id="deepspeed-op-build-failure-fused-adam-gcc12-01",
        label="deepspeed-op-build-failure", difficulty="easy",
        description="JIT build of fused_adam on an RTX 4090 workstation: CUDA 11.8 nvcc rejects the host gcc 12 ('unsupported GNU version'), ninja stops, Error building extension 'fused_adam'",
        files={"console.txt": "\n".join(out)},
        facts={"deepspeed_version": "0.12.6", "launcher": "deepspeed", "world_size": "1", "cuda_version": "11.8"},
        must_mention=["gcc", "nvcc"],
        secrets=["lucia"],
    )


def case_build_ninja_path() -> Case:
    rng = random.Random(202)
    clock = Clock("2024-06-21 08:47:15", rng)
    v = "0.12.6"
    L = DS_LOC[v]
    venv = "/home/ubuntu/venvs/ft"
    site = f"{venv}/lib/python3.10/site-packages"
    proj = "/home/ubuntu/llm-ft"
    out = ["ubuntu@ip-172-31-22-140:~/llm-ft$ CUDA_VISIBLE_DEVICES=0 /home/ubuntu/venvs/ft/bin/deepspeed train_full_ft.py --model microsoft/phi-2 --deepspeed configs/zero2_offload.json --bf16 --per_device_train_batch_size 2"]
    world = {"localhost": [0]}
    script = ["train_full_ft.py", "--model", "microsoft/phi-2", "--deepspeed", "configs/zero2_offload.json", "--bf16",
              "--per_device_train_batch_size", "2"]
    hdr = ds_launcher_header(clock, v, world, 0, "127.0.0.1", 29500, script)
    out += [h.replace("/usr/bin/python3", f"{venv}/bin/python3") for h in hdr]
    out += [ds_line(clock, L["accel"], "Setting ds_accelerator to cuda (auto detect)", lo=2.0, hi=3.0),
            ds_line(clock, L["cdb"], "cdb=None", lo=1.0, hi=2.0),
            ds_line(clock, L["comm_init"], "Initializing TorchBackend in DeepSpeed with backend nccl"),
            "Loading checkpoint shards: 100%|██████████| 2/2 [00:06<00:00,  3.22s/it]",
            "06/21/2024 08:47:41 - INFO - __main__ - model microsoft/phi-2: 2.78B params, all trainable (full fine-tune)",
            "Map: 100%|██████████| 12000/12000 [00:04<00:00, 2741.55 examples/s]",
            ds_line(clock, L["log_dist"], "[Rank 0] DeepSpeed info: version=0.12.6, git-hash=unknown, git-branch=unknown", lo=0.5, hi=1.0),
            ds_line(clock, L["log_dist"], "[Rank 0] DeepSpeed Flops Profiler Enabled: False"),
            "Using /home/ubuntu/.cache/torch_extensions/py310_cu121 as PyTorch extensions root...",
            "Creating extension directory /home/ubuntu/.cache/torch_extensions/py310_cu121/cpu_adam...",
            "Detected CUDA files, patching ldflags",
            "Emitting ninja build file /home/ubuntu/.cache/torch_extensions/py310_cu121/cpu_adam/build.ninja..."]
    frames = [(f"{proj}/train_full_ft.py", 166, "<module>", "main()"),
              (f"{proj}/train_full_ft.py", 159, "main", "trainer.train()"),
              (f"{site}/transformers/trainer.py", 1537, "train", "return inner_training_loop("),
              (f"{site}/transformers/trainer.py", 1672, "_inner_training_loop", "model, self.optimizer = self.accelerator.prepare(self.model, self.optimizer)"),
              (f"{site}/accelerate/accelerator.py", 1209, "prepare", "result = self._prepare_deepspeed(*args)"),
              (f"{site}/accelerate/accelerator.py", 1582, "_prepare_deepspeed", "engine, optimizer, _, lr_scheduler = deepspeed.initialize(**kwargs)")]
    frames += engine_optimizer_frames(site, v, "cpu_adam")
    frames += [(f"{site}/deepspeed/ops/op_builder/builder.py", 502, "jit_load", "op_module = load(name=self.name,"),
               (f"{site}/torch/utils/cpp_extension.py", 1308, "load", "return _jit_compile("),
               (f"{site}/torch/utils/cpp_extension.py", 1710, "_jit_compile", "_write_ninja_file_and_build_library("),
               (f"{site}/torch/utils/cpp_extension.py", 1793, "_write_ninja_file_and_build_library", "verify_ninja_availability()"),
               (f"{site}/torch/utils/cpp_extension.py", 1848, "verify_ninja_availability", 'raise RuntimeError("Ninja is required to load C++ extensions")')]
    out += tb(frames, "RuntimeError: Ninja is required to load C++ extensions")
    out += cpu_adam_del(site, "0x7f9b4c2a3ac0")
    out.append(ds_line(clock, L["launch_kill"], "Killing subprocess 28814", lo=1.0, hi=1.4))
    cmd = [f"{venv}/bin/python3", "-u", "train_full_ft.py", "--local_rank=0"] + script[1:]
    out.append(ds_line(clock, L["launch_err"], f"{cmd} exits with return code = 1", level="ERROR"))
    out += ["ubuntu@ip-172-31-22-140:~/llm-ft$ which ninja; echo $?", "1",
            "ubuntu@ip-172-31-22-140:~/llm-ft$ ls /home/ubuntu/venvs/ft/bin/ninja", "/home/ubuntu/venvs/ft/bin/ninja"]
    return Case(
        case_id="deepspeed-op-build-failure-ninja-not-on-path-02",
        label="deepspeed-op-build-failure", difficulty="medium",
        description="ZeRO-2 offload on one A10G: DeepSpeedCPUAdam JIT build; the venv was used without activation so the ninja binary is not on PATH (DeepSpeed's `import ninja` passes, torch's check fails); ends with the misleading __del__ AttributeError",
        files={"run.log": "\n".join(out)},
        facts={"deepspeed_version": "0.12.6", "launcher": "deepspeed", "optimizer": "DeepSpeedCPUAdam", "world_size": "1"},
        must_mention=["ninja", "PATH"],
    )


def torchrun_failure_21(clock: Clock, script: str, host: str, fails, sigterm, when: str, py: str, head_frames,
                        tv: str = "2.2.2") -> list[str]:
    """torch 2.1-2.3 elastic tail ('[ts] torch.distributed.elastic.multiprocessing.api: [WARNING] ...')."""
    out = []
    for p in sigterm:
        out.append(f"[{clock.ds(0.001, 0.01)}] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process {p} closing signal SIGTERM")
    r0, e0, p0 = fails[0]
    out.append(f"[{clock.ds(0.2, 0.5)}] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: {e0}) local_rank: {r0} (pid: {p0}) of binary: {py}")
    out += tb(head_frames, "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ")
    out += ["============================================================", f"{script} FAILED",
            "------------------------------------------------------------", "Failures:"]
    if len(fails) == 1:
        out.append("  <NO_OTHER_FAILURES>")
    for i, (r, e, p) in enumerate(fails[1:], 1):
        tbline = ("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html" if e > 0
                  else f"  traceback : Signal {-e} ({ {15: 'SIGTERM', 9: 'SIGKILL', 6: 'SIGABRT'}[-e] }) received by PID {p}")
        out += [f"[{i}]:", f"  time      : {when}", f"  host      : {host}", f"  rank      : {r} (local_rank: {r})",
                f"  exitcode  : {e} (pid: {p})", "  error_file: <N/A>", tbline]
    out += ["------------------------------------------------------------", "Root Cause (first observed failure):", "[0]:",
            f"  time      : {when}", f"  host      : {host}", f"  rank      : {r0} (local_rank: {r0})",
            f"  exitcode  : {e0} (pid: {p0})", "  error_file: <N/A>",
            "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
            "============================================================"]
    return out


def case_build_cpu_adam_no_cuda_home() -> Case:
    rng = random.Random(203)
    clock = Clock("2024-04-03 16:19:02", rng)
    v = "0.12.6"
    L = DS_LOC[v]
    site = "/usr/local/lib/python3.10/site-packages"
    aws_id, aws_secret = fake_aws_key_id(rng), fake_aws_secret(rng)
    out = ["#7 [job] starting container llm-train:2024.04.02 (python:3.10-slim + pip torch==2.2.2)",
           "+ env | grep -E 'AWS|HF_|S3' ",
           "AWS_DEFAULT_REGION=us-east-1",
           f"AWS_ACCESS_KEY_ID={aws_id}",
           f"AWS_SECRET_ACCESS_KEY={aws_secret}",
           "HF_HOME=/cache/hf",
           "S3_OUTPUT=s3://acme-ml-artifacts/runs/zephyr-sft-0403",
           "+ accelerate env",
           "",
           "Copy-and-paste the text below in your GitHub issue",
           "",
           "- `Accelerate` version: 0.25.0",
           "- Platform: Linux-5.10.213-201.855.amzn2.x86_64-x86_64-with-glibc2.36",
           "- Python version: 3.10.14",
           "- Numpy version: 1.26.4",
           "- PyTorch version (GPU?): 2.2.2+cu121 (True)",
           "- PyTorch XPU available: False",
           "- PyTorch NPU available: False",
           "- System RAM: 186.70 GB",
           "- GPU type: NVIDIA A10G",
           "- `Accelerate` default config:",
           "\tNot found",
           "",
           "+ accelerate launch --config_file configs/accelerate_ds_z2_offload.yaml train.py --model_name HuggingFaceH4/mistral-7b-sft-beta --dataset_path /data/sft/ultrachat_200k --output_dir /out --bf16 True --per_device_train_batch_size 1 --gradient_accumulation_steps 16 --gradient_checkpointing True"]
    for ln in ["", "*****************************************",
               "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
               "*****************************************"]:
        out.append(f"[{clock.ds(0.0, 0.001)}] torch.distributed.run: [WARNING] {ln}")
    pids = [2231, 2232, 2233, 2234]
    blocks = []
    for r in range(4):
        b = [ds_line(clock, L["accel"], "Setting ds_accelerator to cuda (auto detect)", lo=0.5, hi=1.0),
             f"{site}/transformers/utils/generic.py:441: UserWarning: torch.utils._pytree._register_pytree_node is deprecated. Please use torch.utils._pytree.register_pytree_node instead.",
             "  _torch_pytree._register_pytree_node(",
             ds_line(clock, L["cdb"], "cdb=None", lo=0.5, hi=1.0)]
        if r == 0:
            b.append(ds_line(clock, L["comm_init"], "Initializing TorchBackend in DeepSpeed with backend nccl"))
        b.append(f"Loading checkpoint shards: 100%|██████████| 8/8 [00:{rng.randint(30, 44)}<00:00,  {rng.uniform(4.0, 5.3):.2f}s/it]")
        blocks.append(b)
    out += interleave(blocks, rng, 1, 2)
    out += ["Map (num_proc=8): 100%|██████████| 207865/207865 [00:38<00:00, 5433.62 examples/s]",
            ds_line(clock, L["log_dist"], "[Rank 0] DeepSpeed info: version=0.12.6, git-hash=unknown, git-branch=unknown", lo=3.0, hi=5.0),
            ds_line(clock, L["log_dist"], "[Rank 0] DeepSpeed Flops Profiler Enabled: False")]
    frames = [("/app/train.py", 214, "<module>", "main()"),
              ("/app/train.py", 205, "main", "trainer.train()"),
              (f"{site}/transformers/trainer.py", 1537, "train", "return inner_training_loop("),
              (f"{site}/transformers/trainer.py", 1672, "_inner_training_loop", "model, self.optimizer = self.accelerator.prepare(self.model, self.optimizer)"),
              (f"{site}/accelerate/accelerator.py", 1209, "prepare", "result = self._prepare_deepspeed(*args)"),
              (f"{site}/accelerate/accelerator.py", 1582, "_prepare_deepspeed", "engine, optimizer, _, lr_scheduler = deepspeed.initialize(**kwargs)")]
    frames += engine_optimizer_frames(site, v, "cpu_adam")
    frames += [(f"{site}/deepspeed/ops/op_builder/builder.py", 478, "jit_load",
                "extra_include_paths = [os.path.abspath(self.deepspeed_src_path(path)) for path in self.include_paths()]"),
               (f"{site}/deepspeed/ops/op_builder/cpu_adam.py", 41, "include_paths",
                'CUDA_INCLUDE = [os.path.join(torch.utils.cpp_extension.CUDA_HOME, "include")]'),
               ("/usr/local/lib/python3.10/posixpath.py", 76, "join", "a = os.fspath(a)")]
    addrs = ["0x7f3a2c1d7be0", "0x7f61b09f3be0", "0x7fd4e81c3be0", "0x7f0c5a2afbe0"]
    blocks = [tb(frames, "TypeError: expected str, bytes or os.PathLike object, not NoneType") + cpu_adam_del(site, addrs[r]) for r in range(4)]
    out += interleave(blocks, rng, 3, 8)
    when = clock.t.strftime("%Y-%m-%d_%H:%M:%S")
    head = [("/usr/local/bin/accelerate", 8, "<module>", "sys.exit(main())"),
            (f"{site}/accelerate/commands/accelerate_cli.py", 47, "main", "args.func(args)"),
            (f"{site}/accelerate/commands/launch.py", 1002, "launch_command", "deepspeed_launcher(args)"),
            (f"{site}/accelerate/commands/launch.py", 718, "deepspeed_launcher", "distrib_run.run(args)"),
            (f"{site}/torch/distributed/run.py", 803, "run", "elastic_launch("),
            (f"{site}/torch/distributed/launcher/api.py", 135, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"),
            (f"{site}/torch/distributed/launcher/api.py", 268, "launch_agent", "raise ChildFailedError(")]
    out += torchrun_failure_21(clock, "train.py", "ip-10-0-37-212.ec2.internal", [(1, 1, 2232), (0, 1, 2231), (2, 1, 2233)], [2234],
                               when, "/usr/local/bin/python", head)
    return Case(
        case_id="deepspeed-op-build-failure-cpu-adam-cuda-home-none-03",
        label="deepspeed-op-build-failure", difficulty="hard",
        description="accelerate launch, ZeRO-2 CPU offload on 4x A10G in a python:3.10-slim image with pip torch (no CUDA toolkit): DeepSpeedCPUAdam's JIT builder joins CUDA_HOME=None -> TypeError NoneType, then __del__ AttributeError and ChildFailedError hide it",
        files={"job.log": "\n".join(out)},
        facts={"gpu_model": "A10G", "torch_version": "2.2.2", "cuda_version": "12.1", "accelerate_version": "0.25.0",
               "deepspeed_version": "0.12.6", "launcher": "accelerate", "world_size": "4", "python_version": "3.10.14"},
        must_mention=["CUDA_HOME", "nvcc"],
        secrets=[aws_id, aws_secret],
    )


def case_build_link_curand_multirank() -> Case:
    rng = random.Random(204)
    clock = Clock("2024-01-29 13:55:40", rng)
    v = "0.12.6"
    L = DS_LOC[v]
    env = "/opt/conda/envs/train"
    site = f"{env}/lib/python3.10/site-packages"
    ext = "/root/.cache/torch_extensions/py310_cu121"
    proj = "/workspace/llama-z3"
    out = ["root@a100-node-12:/workspace/llama-z3# deepspeed --num_gpus 8 train.py --deepspeed_config ds_z3_offload.json --model /models/llama-2-70b-hf --seq_len 4096"]
    world = {"localhost": list(range(8))}
    script = ["train.py", "--deepspeed_config", "ds_z3_offload.json", "--model", "/models/llama-2-70b-hf", "--seq_len", "4096"]
    hdr = ds_launcher_header(clock, v, world, 0, "127.0.0.1", 29500, script)
    out += [h.replace("/usr/bin/python3", f"{env}/bin/python") for h in hdr if "Detected" not in h]
    pids = [60117 + i for i in range(8)]
    blocks = []
    for r in range(8):
        b = [ds_line(clock, L["accel"], "Setting ds_accelerator to cuda (auto detect)", lo=0.2, hi=0.6),
             ds_line(clock, L["cdb"], "cdb=None", lo=0.5, hi=1.0)]
        if r == 0:
            b.append(ds_line(clock, L["comm_init"], "Initializing TorchBackend in DeepSpeed with backend nccl"))
        blocks.append(b)
    out += interleave(blocks, rng, 1, 2)
    out += [ds_line(clock, "partition_parameters.py:348:__exit__", "finished initializing model - num_params = 723, num_elems = 68.98B", lo=60, hi=90),
            ds_line(clock, L["log_dist"], "[Rank 0] DeepSpeed info: version=0.12.6, git-hash=unknown, git-branch=unknown", lo=1, hi=2),
            ds_line(clock, L["log_dist"], "[Rank 0] DeepSpeed Flops Profiler Enabled: False")]
    builder = 2
    blocks = []
    for r in range(8):
        b = [f"Using {ext} as PyTorch extensions root..."]
        if r == builder:
            b.append(f"Creating extension directory {ext}/cpu_adam...")
            b.append("Detected CUDA files, patching ldflags")
            b.append(f"Emitting ninja build file {ext}/cpu_adam/build.ninja...")
            b.append("Building extension module cpu_adam...")
            b.append("Allowing ninja to set a default number of workers... (overridable by setting the environment variable MAX_JOBS=N)")
        blocks.append(b)
    out += interleave(blocks, rng, 1, 2)
    ds = f"{site}/deepspeed/ops/csrc"
    cuda = env
    inc = (f"-I{ds}/includes -I{cuda}/include -isystem {site}/torch/include -isystem {site}/torch/include/torch/csrc/api/include "
           f"-isystem {site}/torch/include/TH -isystem {site}/torch/include/THC -isystem {cuda}/include -isystem {env}/include/python3.10")
    nv = (f"{cuda}/bin/nvcc  -DTORCH_EXTENSION_NAME=cpu_adam -DTORCH_API_INCLUDE_EXTENSION_H -DPYBIND11_COMPILER_TYPE=\\\"_gcc\\\" "
          f"-DPYBIND11_STDLIB=\\\"_libstdcpp\\\" -DPYBIND11_BUILD_ABI=\\\"_cxxabi1011\\\" {inc} -D_GLIBCXX_USE_CXX11_ABI=0 "
          "-D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ -D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__ "
          "--expt-relaxed-constexpr -gencode=arch=compute_80,code=compute_80 -gencode=arch=compute_80,code=sm_80 --compiler-options '-fPIC' "
          "-O3 --use_fast_math -std=c++17 -U__CUDA_NO_HALF_OPERATORS__ -U__CUDA_NO_HALF_CONVERSIONS__ -U__CUDA_NO_HALF2_OPERATORS__ "
          "-gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_80,code=compute_80 -DBF16_AVAILABLE -U__CUDA_NO_BFLOAT16_OPERATORS__ "
          f"-U__CUDA_NO_BFLOAT162_OPERATORS__ -std=c++17 -c {ds}/common/custom_cuda_kernel.cu -o custom_cuda_kernel.cuda.o ")
    cxx_common = (f"-DTORCH_EXTENSION_NAME=cpu_adam -DTORCH_API_INCLUDE_EXTENSION_H -DPYBIND11_COMPILER_TYPE=\\\"_gcc\\\" "
                  f"-DPYBIND11_STDLIB=\\\"_libstdcpp\\\" -DPYBIND11_BUILD_ABI=\\\"_cxxabi1011\\\" {inc} -D_GLIBCXX_USE_CXX11_ABI=0 -fPIC "
                  f"-std=c++17 -O3 -std=c++17 -g -Wno-reorder -L{cuda}/lib -lcudart -lcublas -g -march=native -fopenmp -D__AVX512__ "
                  "-D__ENABLE_CUDA__ -DBF16_AVAILABLE")
    link = (f"c++ cpu_adam.o cpu_adam_impl.o custom_cuda_kernel.cuda.o -shared -lcurand -L{cuda}/lib -L{site}/torch/lib -lc10 -lc10_cuda "
            f"-ltorch_cpu -ltorch_cuda -ltorch -ltorch_python -L{cuda}/lib -lcudart -o cpu_adam.so")
    out += [f"[1/4] {nv}",
            f"[2/4] c++ -MMD -MF cpu_adam.o.d {cxx_common} -c {ds}/adam/cpu_adam.cpp -o cpu_adam.o ",
            f"[3/4] c++ -MMD -MF cpu_adam_impl.o.d {cxx_common} -c {ds}/adam/cpu_adam_impl.cpp -o cpu_adam_impl.o ",
            f"[4/4] {link}",
            "FAILED: cpu_adam.so ", link,
            "/usr/bin/ld: cannot find -lcurand: No such file or directory",
            "collect2: error: ld returned 1 exit status",
            "ninja: build stopped: subcommand failed."]
    head = [(f"{proj}/train.py", 233, "<module>", "main()"),
            (f"{proj}/train.py", 171, "main", "engine, optimizer, _, scheduler = deepspeed.initialize(")]
    head += [(f"{site}/deepspeed/__init__.py", 171, "initialize", "engine = DeepSpeedEngine(args=args,"),
             (f"{site}/deepspeed/runtime/engine.py", 304, "__init__", "self._configure_optimizer(optimizer, model_parameters)"),
             (f"{site}/deepspeed/runtime/engine.py", 1208, "_configure_optimizer", "basic_optimizer = self._configure_basic_optimizer(model_parameters)"),
             (f"{site}/deepspeed/runtime/engine.py", 1279, "_configure_basic_optimizer", "optimizer = DeepSpeedCPUAdam(model_parameters,"),
             (f"{site}/deepspeed/ops/adam/cpu_adam.py", 94, "__init__", "self.ds_opt_adam = CPUAdamBuilder().load()"),
             (f"{site}/deepspeed/ops/op_builder/builder.py", 458, "load", "return self.jit_load(verbose)"),
             (f"{site}/deepspeed/ops/op_builder/builder.py", 502, "jit_load", "op_module = load(name=self.name,"),
             (f"{site}/torch/utils/cpp_extension.py", 1308, "load", "return _jit_compile(")]
    first = tb([(f"{site}/torch/utils/cpp_extension.py", 2100, "_run_ninja_build", "subprocess.run("),
                (f"{env}/lib/python3.10/subprocess.py", 526, "run", "raise CalledProcessError(retcode, process.args,")],
               "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.")
    second = tb(head + [(f"{site}/torch/utils/cpp_extension.py", 1710, "_jit_compile", "_write_ninja_file_and_build_library("),
                        (f"{site}/torch/utils/cpp_extension.py", 1823, "_write_ninja_file_and_build_library", "_run_ninja_build("),
                        (f"{site}/torch/utils/cpp_extension.py", 2116, "_run_ninja_build", "raise RuntimeError(message) from e")],
                "RuntimeError: Error building extension 'cpu_adam'")
    out += first + ["", "The above exception was the direct cause of the following exception:", ""] + second
    imp = tb(head + [(f"{site}/torch/utils/cpp_extension.py", 1736, "_jit_compile", "return _import_module_from_library(name, build_directory, is_python_module)"),
                     (f"{site}/torch/utils/cpp_extension.py", 2136, "_import_module_from_library", "module = importlib.util.module_from_spec(spec)"),
                     ("<frozen importlib._bootstrap>", 571, "module_from_spec", ""),
                     ("<frozen importlib._bootstrap_external>", 1176, "create_module", ""),
                     ("<frozen importlib._bootstrap>", 241, "_call_with_frames_removed", "")],
             f"ImportError: {ext}/cpu_adam/cpu_adam.so: cannot open shared object file: No such file or directory")
    blocks = []
    for r in [0, 1, 3, 4, 5, 6, 7]:
        blocks.append(["Loading extension module cpu_adam..."] + imp)
    merged = interleave(blocks, rng, 2, 7)
    out += merged
    dels = []
    for r in range(8):
        dels += cpu_adam_del(site, f"0x7f{rng.randint(0x10, 0xff):02x}{rng.randint(0, 0xffffff):06x}0")
    out += dels[:20]
    for p in pids:
        out.append(ds_line(clock, L["launch_kill"], f"Killing subprocess {p}", lo=0.3, hi=0.8))
    cmd = [f"{env}/bin/python", "-u", "train.py", "--local_rank=7"] + script[1:]
    out.append(ds_line(clock, L["launch_err"], f"{cmd} exits with return code = 1", level="ERROR"))
    return Case(
        case_id="deepspeed-op-build-failure-cpu-adam-lcurand-8rank-04",
        label="deepspeed-op-build-failure", difficulty="hard",
        description="8 ranks, ZeRO-3 offload: one rank builds cpu_adam and fails to link (-lcurand missing in a conda env with only cuda-nvcc); the seven waiting ranks then fail with ImportError cpu_adam.so, which dominates the log",
        files={"train.log": "\n".join(out)},
        facts={"deepspeed_version": "0.12.6", "launcher": "deepspeed", "world_size": "8", "zero_stage": "3",
               "optimizer": "DeepSpeedCPUAdam"},
        must_mention=["curand", "cpu_adam"],
    )


def case_build_cuda_mismatch() -> Case:
    rng = random.Random(205)
    clock = Clock("2023-11-08 10:02:51", rng)
    v = "0.12.6"
    L = DS_LOC[v]
    site = "/usr/local/lib/python3.10/dist-packages"
    out = ["$ nvcc --version",
           "nvcc: NVIDIA (R) Cuda compiler driver",
           "Copyright (c) 2005-2023 NVIDIA Corporation",
           "Built on Tue_Aug_15_22:02:13_PDT_2023",
           "Cuda compilation tools, release 12.2, V12.2.140",
           "Build cuda_12.2.r12.2/compiler.33191640_0",
           "$ python -c 'import torch; print(torch.__version__, torch.version.cuda)'",
           "2.0.1+cu118 11.8",
           "$ deepspeed --num_gpus 1 finetune_t5.py --model google/flan-t5-xl --deepspeed ds_offload.json --fp32"]
    world = {"localhost": [0]}
    script = ["finetune_t5.py", "--model", "google/flan-t5-xl", "--deepspeed", "ds_offload.json", "--fp32"]
    hdr = ds_launcher_header(clock, v, world, 0, "127.0.0.1", 29500, script)
    out += [h for h in hdr if "Detected" not in h]
    out += [ds_line(clock, L["accel"], "Setting ds_accelerator to cuda (auto detect)", lo=1.5, hi=2.5),
            ds_line(clock, L["cdb"], "cdb=None", lo=0.5, hi=1.0),
            ds_line(clock, L["comm_init"], "Initializing TorchBackend in DeepSpeed with backend nccl"),
            "You are using the default legacy behaviour of the <class 'transformers.models.t5.tokenization_t5.T5Tokenizer'>. This is expected, and simply means that the `legacy` (previous) behavior will be used so nothing changes for you. If you want to use the new behaviour, set `legacy=False`. This should only be set if you understand what it means, and thoroughly read the reason why this was added as explained in https://github.com/huggingface/transformers/pull/24565",
            "Loading checkpoint shards: 100%|██████████| 2/2 [00:09<00:00,  4.61s/it]",
            ds_line(clock, L["log_dist"], "[Rank 0] DeepSpeed info: version=0.12.6, git-hash=unknown, git-branch=unknown", lo=1.0, hi=2.0),
            ds_line(clock, L["log_dist"], "[Rank 0] DeepSpeed Flops Profiler Enabled: False"),
            "Using /root/.cache/torch_extensions/py310_cu118 as PyTorch extensions root...",
            "Creating extension directory /root/.cache/torch_extensions/py310_cu118/cpu_adam..."]
    frames = [("/workspace/t5ft/finetune_t5.py", 318, "<module>", "main()"),
              ("/workspace/t5ft/finetune_t5.py", 247, "main", "engine, optimizer, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())")]
    frames += engine_optimizer_frames(site, v, "cpu_adam")
    frames += [(f"{site}/deepspeed/ops/op_builder/builder.py", 490, "jit_load", "cxx_args = self.strip_empty_entries(self.cxx_args())"),
               (f"{site}/deepspeed/ops/op_builder/builder.py", 738, "cxx_args", "CUDA_ENABLE = self.is_cuda_enable()"),
               (f"{site}/deepspeed/ops/op_builder/builder.py", 350, "is_cuda_enable", "assert_no_cuda_mismatch(self.name)"),
               (f"{site}/deepspeed/ops/op_builder/builder.py", 101, "assert_no_cuda_mismatch", "raise CUDAMismatchException(")]
    out += tb(frames, "deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version 12.2 does not match the version torch was compiled with 11.8, unable to compile cuda/cpp extensions without a matching cuda version.")
    out += cpu_adam_del(site, "0x7fa1d83b2c20")
    out.append(ds_line(clock, L["launch_kill"], "Killing subprocess 4182", lo=1.0, hi=1.4))
    cmd = ["/usr/bin/python3", "-u", "finetune_t5.py", "--local_rank=0"] + script[1:]
    out.append(ds_line(clock, L["launch_err"], f"{cmd} exits with return code = 1", level="ERROR"))
    return Case(
        case_id="deepspeed-op-build-failure-cuda-major-mismatch-05",
        label="deepspeed-op-build-failure", also=["cuda-version-mismatch-build"], difficulty="medium",
        description="DeepSpeedCPUAdam JIT build refused: system nvcc 12.2 vs torch 2.0.1+cu118; DeepSpeed's own CUDA major-version check raises, followed by the __del__ AttributeError",
        files={"console.log": "\n".join(out)},
        facts={"torch_version": "2.0.1", "cuda_version": "11.8", "deepspeed_version": "0.12.6", "launcher": "deepspeed",
               "optimizer": "DeepSpeedCPUAdam"},
        must_mention=["11.8", "12.2"],
    )


def case_build_fused_adam_no_cuda_home() -> Case:
    rng = random.Random(206)
    clock = Clock("2024-08-27 03:12:09", rng)
    v = "0.12.6"
    L = DS_LOC[v]
    site = "/opt/conda/lib/python3.10/site-packages"
    out = ["==> image: pytorch/pytorch:2.1.2-cuda12.1-cudnn8-runtime  node: gke-ml-l4-pool-7f3c2a1d-h2kq",
           "==> pip install -q deepspeed==0.12.6 transformers==4.36.2 accelerate==0.25.0 datasets",
           "==> deepspeed --num_gpus 1 train_clf.py --deepspeed_config ds_z1.json --model roberta-large --epochs 3"]
    world = {"localhost": [0]}
    script = ["train_clf.py", "--deepspeed_config", "ds_z1.json", "--model", "roberta-large", "--epochs", "3"]
    hdr = ds_launcher_header(clock, v, world, 0, "127.0.0.1", 29500, script)
    out += [h.replace("/usr/bin/python3", "/opt/conda/bin/python") for h in hdr if "Detected" not in h]
    out += [ds_line(clock, L["accel"], "Setting ds_accelerator to cuda (auto detect)", lo=1.5, hi=2.5),
            ds_line(clock, L["cdb"], "cdb=None", lo=0.5, hi=1.0),
            ds_line(clock, L["comm_init"], "Initializing TorchBackend in DeepSpeed with backend nccl"),
            "Some weights of RobertaForSequenceClassification were not initialized from the model checkpoint at roberta-large and are newly initialized: ['classifier.dense.bias', 'classifier.dense.weight', 'classifier.out_proj.bias', 'classifier.out_proj.weight']",
            "You should probably TRAIN this model on a down-stream task to be able to use it for predictions and inference.",
            ds_line(clock, L["log_dist"], "[Rank 0] DeepSpeed info: version=0.12.6, git-hash=unknown, git-branch=unknown", lo=1.0, hi=2.0),
            ds_line(clock, L["log_dist"], "[Rank 0] DeepSpeed Flops Profiler Enabled: False"),
            "Using /root/.cache/torch_extensions/py310_cu121 as PyTorch extensions root...",
            "Creating extension directory /root/.cache/torch_extensions/py310_cu121/fused_adam...",
            "Detected CUDA files, patching ldflags"]
    frames = [("/app/train_clf.py", 151, "<module>", "main()"),
              ("/app/train_clf.py", 98, "main", "model_engine, optimizer, train_loader, _ = deepspeed.initialize(")]
    frames += engine_optimizer_frames(site, v, "fused_adam")
    frames += [(f"{site}/deepspeed/ops/op_builder/builder.py", 502, "jit_load", "op_module = load(name=self.name,"),
               (f"{site}/torch/utils/cpp_extension.py", 1308, "load", "return _jit_compile("),
               (f"{site}/torch/utils/cpp_extension.py", 1710, "_jit_compile", "_write_ninja_file_and_build_library("),
               (f"{site}/torch/utils/cpp_extension.py", 1800, "_write_ninja_file_and_build_library", "extra_ldflags = _prepare_ldflags("),
               (f"{site}/torch/utils/cpp_extension.py", 1899, "_prepare_ldflags", "if (not os.path.exists(_join_cuda_home(extra_lib_dir)) and"),
               (f"{site}/torch/utils/cpp_extension.py", 2416, "_join_cuda_home", "raise OSError('CUDA_HOME environment variable is not set. '")]
    out += tb(frames, "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.")
    out.append(ds_line(clock, L["launch_kill"], "Killing subprocess 97", lo=1.0, hi=1.4))
    cmd = ["/opt/conda/bin/python", "-u", "train_clf.py", "--local_rank=0"] + script[1:]
    out.append(ds_line(clock, L["launch_err"], f"{cmd} exits with return code = 1", level="ERROR"))
    return Case(
        case_id="deepspeed-op-build-failure-fused-adam-runtime-image-06",
        label="deepspeed-op-build-failure", difficulty="easy",
        description="FusedAdam JIT build in a pytorch *-runtime* image (no nvcc): torch's cpp_extension raises 'CUDA_HOME environment variable is not set' on an L4 node",
        files={"pod.log": "\n".join(out)},
        facts={"deepspeed_version": "0.12.6", "launcher": "deepspeed", "torch_version": "2.1.2", "cuda_version": "12.1",
               "transformers_version": "4.36.2"},
        must_mention=["CUDA_HOME", "devel"],
    )


# ==================================================================================================
# deepspeed-zero3-shape-mismatch
# ==================================================================================================

LLAMA7B_LINEARS = [("self_attn.q_proj", (4096, 4096)), ("self_attn.k_proj", (4096, 4096)), ("self_attn.v_proj", (4096, 4096)),
                   ("self_attn.o_proj", (4096, 4096)), ("mlp.gate_proj", (11008, 4096)), ("mlp.up_proj", (11008, 4096)),
                   ("mlp.down_proj", (4096, 11008))]


def ds_engine_init_lines(clock: Clock, v: str, stage: int, dtype: str, opt: str, ranks0=True, offload=False) -> list[str]:
    L = DS_LOC[v]
    ld = L["log_dist"]
    out = [ds_line(clock, ld, f"[Rank 0] DeepSpeed info: version={v}, git-hash=unknown, git-branch=unknown", lo=0.5, hi=1.0),
           ds_line(clock, ld, "[Rank 0] DeepSpeed Flops Profiler Enabled: False", lo=0.5, hi=1.0),
           ds_line(clock, ld, f"[Rank 0] Using DeepSpeed Optimizer param name {opt.lower()} as basic optimizer"),
           ds_line(clock, ld, "[Rank 0] Removing param_group that has no 'params' in the basic Optimizer"),
           ds_line(clock, ld, f"[Rank 0] DeepSpeed Basic Optimizer = {'DeepSpeedCPUAdam' if offload else 'FusedAdam'}", lo=0.3, hi=3.0),
           ds_line(clock, ld, f"[Rank 0] Creating {dtype} ZeRO stage {stage} optimizer")]
    if stage == 3:
        out += [ds_line(clock, L["s3_bucket"], "Reduce bucket size 16777216"),
                ds_line(clock, L["s3_bucket"].replace(":127:", ":128:").replace(":166:", ":167:"), "Prefetch bucket size 15099494")]
    else:
        out += [ds_line(clock, L["s12_bucket"], "Reduce bucket size 500000000"),
                ds_line(clock, L["s12_ag"], "Allgather bucket size 500000000"),
                ds_line(clock, L["s12_cpu"], f"CPU Offload: {offload}"),
                ds_line(clock, L["s12_rr"], "Round robin gradient partitioning: False")]
    out += mem_usage(clock, v, "Before initializing optimizer states", 3.37, 3.37, 3.5, 4, 112.4, 5.6)
    out += mem_usage(clock, v, "After initializing optimizer states", 9.65, 12.79, 12.93, 13, 113.02, 5.6)
    out.append(ds_line(clock, "stage3.py:479:_setup_for_real_optimizer" if stage == 3 else L["s12_bucket"].replace(":148:__init__", ":516:__init__"), "optimizer state initialized"))
    out += mem_usage(clock, v, "After initializing ZeRO optimizer", 9.65, 9.65, 12.93, 13, 113.4, 5.7)
    out += [ds_line(clock, ld, f"[Rank 0] DeepSpeed Final Optimizer = {'DeepSpeedZeroOptimizer_Stage3' if stage == 3 else 'DeepSpeedZeroOptimizer'}"),
            ds_line(clock, ld, "[Rank 0] DeepSpeed using configured LR scheduler = WarmupLR"),
            ds_line(clock, ld, "[Rank 0] DeepSpeed LR Scheduler = <deepspeed.runtime.lr_schedules.WarmupLR object at 0x7f2b1c6e3d90>"),
            ds_line(clock, ld, "[Rank 0] step=0, skipped=0, lr=[0.0], mom=[[0.9, 0.95]]")]
    return out


def case_z3_load_state_dict() -> Case:
    rng = random.Random(301)
    clock = Clock("2024-07-09 17:30:44", rng)
    v = "0.15.4"
    L = DS_LOC[v]
    site = "/usr/local/lib/python3.10/dist-packages"
    proj = "/workspace/rm"
    tv = "2.3.1"
    cfg = {"train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 4, "gradient_clipping": 1.0,
           "bf16": {"enabled": True}, "zero_optimization": {"stage": 3, "overlap_comm": True, "stage3_param_persistence_threshold": 100000,
                                                             "stage3_gather_16bit_weights_on_model_save": True},
           "optimizer": {"type": "AdamW", "params": {"lr": 9e-6, "betas": [0.9, 0.95], "weight_decay": 0.0}},
           "scheduler": {"type": "WarmupLR", "params": {"warmup_min_lr": 0, "warmup_max_lr": 9e-6, "warmup_num_steps": 100}},
           "steps_per_print": 10, "_world": 8}
    out = ["root@dgx-a100-04:/workspace/rm# deepspeed train_rm.py --deepspeed_config configs/rm_z3.json --base /models/llama-2-7b-hf --init_from /ckpt/sft-7b-v2/pytorch_model.bin --data /data/prefs/hh_rlhf_pairs"]
    world = {"localhost": list(range(8))}
    script = ["train_rm.py", "--deepspeed_config", "configs/rm_z3.json", "--base", "/models/llama-2-7b-hf", "--init_from",
              "/ckpt/sft-7b-v2/pytorch_model.bin", "--data", "/data/prefs/hh_rlhf_pairs"]
    hdr = ds_launcher_header(clock, v, world, 0, "127.0.0.1", 29500, script)
    out += [h for h in hdr if "Detected" not in h]
    blocks = []
    for r in range(8):
        b = [ds_line(clock, L["accel"], "Setting ds_accelerator to cuda (auto detect)", lo=0.3, hi=0.7),
             ds_line(clock, L["cdb"], "cdb=None", lo=0.5, hi=1.0)]
        if r == 0:
            b.append(ds_line(clock, L["comm_init"], "Initializing TorchBackend in DeepSpeed with backend nccl"))
        blocks.append(b)
    out += interleave(blocks, rng, 1, 2)
    out += ["[rm] building LlamaForSequenceClassification(num_labels=1) from /models/llama-2-7b-hf",
            "Some weights of LlamaForSequenceClassification were not initialized from the model checkpoint at /models/llama-2-7b-hf and are newly initialized: ['score.weight']",
            "You should probably TRAIN this model on a down-stream task to be able to use it for predictions and inference."]
    out += ds_engine_init_lines(clock, v, 3, "torch.bfloat16", "adamw")
    out += ds_config_dump(clock, v, cfg)
    out += ["[rm] loading initial weights from /ckpt/sft-7b-v2/pytorch_model.bin (strict=False)"]
    frames = [(f"{proj}/train_rm.py", 284, "<module>", "main()"),
              (f"{proj}/train_rm.py", 197, "main", "missing, unexpected = engine.module.load_state_dict(sft_state, strict=False)"),
              (f"{site}/torch/nn/modules/module.py", TORCH_LOC[tv]["load_sd"], "load_state_dict",
               "raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(")]
    lines = ["size mismatch for model.embed_tokens.weight: copying a param with shape torch.Size([32000, 4096]) from checkpoint, the shape in current model is torch.Size([0])."]
    for i in range(32):
        for name, shp in LLAMA7B_LINEARS:
            lines.append(f"size mismatch for model.layers.{i}.{name}.weight: copying a param with shape torch.Size([{shp[0]}, {shp[1]}]) from checkpoint, the shape in current model is torch.Size([0]).")
    msg = "RuntimeError: Error(s) in loading state_dict for LlamaForSequenceClassification:\n\t" + "\n\t".join(lines)
    t = tb(frames, msg)
    blocks = [t for _ in range(3)]
    out += t
    out += ["[rm] ranks 1-7 hit the same error (output suppressed by log filter)"] if False else []
    for p in [8011 + i for i in range(8)]:
        out.append(ds_line(clock, L["launch_kill"], f"Killing subprocess {p}", lo=0.2, hi=0.6))
    cmd = ["/usr/bin/python3", "-u", "train_rm.py", "--local_rank=7"] + script[1:]
    out.append(ds_line(clock, L["launch_err"], f"{cmd} exits with return code = 1", level="ERROR"))
    return Case(
        case_id="deepspeed-zero3-shape-mismatch-load-state-dict-01",
        label="deepspeed-zero3-shape-mismatch", difficulty="easy",
        description="reward-model script calls engine.module.load_state_dict() after deepspeed.initialize with ZeRO-3: every large weight reports 'the shape in current model is torch.Size([0])' (norms below the persistence threshold load fine)",
        files={"rank0.log": "\n".join(out)},
        facts={"deepspeed_version": "0.15.4", "launcher": "deepspeed", "zero_stage": "3", "precision": "bf16", "world_size": "8"},
        must_mention=["ZeRO-3", "GatheredParameters"],
    )
