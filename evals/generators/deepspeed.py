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
