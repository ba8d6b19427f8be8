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

import datetime as dt
import json
import random
import re
import string
import zlib

import common  # noqa: E402
from common import SMI_HEADS_WIDE, SMI_PROCESSES_WIDE, Case, RankExit, ds_report_header, parser, torchrun_child_failed_summary, write_case  # noqa: E402


class Clock(common.Clock):
    """common's wall clock, started from a "%Y-%m-%d %H:%M:%S" string, with torch's glog prefix in full."""

    def __init__(self, start: str, rng: random.Random):
        super().__init__(dt.datetime.strptime(start, "%Y-%m-%d %H:%M:%S"), rng)

    def glog(self, level: str, pid: int, where: str, lo: float = 0.001, hi: float = 0.05) -> str:
        """torch >= 2.4 glog-style prefix: W0112 10:22:30.123000 140213 torch/...py:859]"""
        t = self.tick(lo, hi)
        return f"{level}{t.strftime('%m%d %H:%M:%S')}.{t.microsecond:06d} {pid} {where}]"


def ds_line(clock: Clock, where: str, msg: str, level: str = "INFO", lo=0.001, hi=0.05) -> str:
    return f"[{clock.ds(lo, hi)}] [{level}] [{where}] {msg}"


def ds_comm_setup(clock: Clock, L: dict, first: bool, pre: str = "", accel: tuple[float, float] = (0.3, 0.7),
                  cdb: tuple[float, float] = (0.5, 1.0)) -> list[str]:
    """What one process prints as DeepSpeed (0.10 on) starts it: the accelerator it detected, `cdb=None` from
    init_distributed, and on the first rank the torch backend it initialises; `pre` is the launcher's line prefix,
    `accel` and `cdb` the seconds before each line."""
    lines = [pre + ds_line(clock, L["accel"], "Setting ds_accelerator to cuda (auto detect)", lo=accel[0], hi=accel[1]),
             pre + ds_line(clock, L["cdb"], "cdb=None", lo=cdb[0], hi=cdb[1])]
    if first:
        lines.append(pre + ds_line(clock, L["comm_init"], "Initializing TorchBackend in DeepSpeed with backend nccl"))
    return lines


def ds_sigkill_handler(clock: Clock, L: dict, pids: list[int], python: str, script: list[str], local_rank: int,
                       gap: tuple[float, float]) -> list[str]:
    """What the DeepSpeed launcher's sigkill_handler prints once a worker has died: it kills every worker, then
    names the failed worker's command line (`python -u script --local_rank=N args`) and its exit code."""
    lines = [ds_line(clock, L["launch_kill"], f"Killing subprocess {p}", lo=gap[0], hi=gap[1]) for p in pids]
    cmd = [python, "-u", script[0], f"--local_rank={local_rank}"] + script[1:]
    lines.append(ds_line(clock, L["launch_err"], f"{cmd} exits with return code = 1", level="ERROR"))
    return lines


def ds_engine_info(clock: Clock, L: dict, version: str, gap: tuple[float, float]) -> list[str]:
    """The first lines deepspeed.initialize logs on rank 0: the DeepSpeed version (a pip install has no git hash)
    and whether the flops profiler is on; `gap` is the seconds before the first."""
    return [ds_line(clock, L["log_dist"], f"[Rank 0] DeepSpeed info: version={version}, git-hash=unknown, git-branch=unknown",
                    lo=gap[0], hi=gap[1]),
            ds_line(clock, L["log_dist"], "[Rank 0] DeepSpeed Flops Profiler Enabled: False")]





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


def interleave(blocks: list[list[str]], rng: random.Random, lo: int = 1, hi: int = 4) -> list[str]:
    """Merge several processes' output the way a shared stdout/stderr does: in small runs of lines."""
    idx = [0] * len(blocks)
    out: list[str] = []
    while any(i < len(b) for i, b in zip(idx, blocks, strict=True)):
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
    """A plausible `nvidia-smi` table (layout of drivers 525-550); every row is 89 characters wide."""
    mem, cap = GPU_SPECS[gpu]
    name = gpu if len(gpu) <= 26 else gpu[:23] + "..."
    sep = "+-----------------------------------------+----------------------+----------------------+"
    lines = [
        when,
        "+---------------------------------------------------------------------------------------+",
        "|" + f" NVIDIA-SMI {driver:<22}Driver Version: {driver:<15}CUDA Version: {cuda:<8}".ljust(87) + "|",
        "|-----------------------------------------+----------------------+----------------------+",
        *SMI_HEADS_WIDE,
        "|=========================================+======================+======================|",
    ]
    buses = ["00000000:07:00.0", "00000000:0A:00.0", "00000000:44:00.0", "00000000:4A:00.0",
             "00000000:84:00.0", "00000000:8A:00.0", "00000000:C0:00.0", "00000000:C3:00.0"]
    consumer = "RTX" in gpu
    if n <= 2 and consumer:
        buses = ["00000000:01:00.0", "00000000:21:00.0"]
    for i in range(n):
        hot = any(g == i for g, _, _, _ in (procs or []))
        temp = rng.randint(55, 68) if hot else rng.randint(28, 41)
        pw = rng.randint(int(cap * 0.7), int(cap * 0.95)) if hot else rng.randint(int(cap * 0.1), int(cap * 0.2))
        fan = f"{rng.randint(0, 30)}%" if consumer else "N/A"
        ecc = "Off" if consumer else "0"
        disp = "On" if consumer and i == 0 else "Off"
        c1 = f"{i:>4}  {name}".ljust(37) + "On  "
        c2 = f" {buses[i % len(buses)]} {disp:>3} "
        c3 = f"{ecc:>21} "
        d1 = f" {fan:>3}   {temp}C    P0"
        tail = f"{pw}W / {cap}W "
        d1 = d1 + " " * (41 - len(d1) - len(tail)) + tail
        busy = sum(m for g, _, _, m in (procs or []) if g == i)
        d2 = f"{used_mib + busy + (4 if busy else 0)}MiB / {mem}MiB ".rjust(22)
        d3 = f"{(str(rng.randint(93, 100)) + '%') if busy else '0%':>8}      Default "
        lines.append(f"|{c1}|{c2}|{c3}|")
        lines.append(f"|{d1}|{d2}|{d3}|")
        lines.append("|                                         |                      |" + ("N/A " if consumer else "Disabled ").rjust(22) + "|")
        lines.append(sep)
    lines += [
        "",
        "+---------------------------------------------------------------------------------------+",
        *SMI_PROCESSES_WIDE,
        "|=======================================================================================|",
    ]
    if not procs:
        lines.append("|  No running processes found                                                           |")
    else:
        for g, pid, pname, mib in procs:
            lines.append("|" + f"  {g:>3}   N/A  N/A  {pid:>9}      C   {pname:<38}{mib:>6}MiB ".ljust(87) + "|")
    lines.append("+---------------------------------------------------------------------------------------+")
    assert all(len(x) == 89 for x in lines[1:] if x), [x for x in lines[1:] if x and len(x) != 89]
    return lines


def ds_report(ds_v: str, torch_v: str, cuda_v: str, nvcc: str, site: str, py: str, installed: dict[str, str],
              cuda_home: str | None = "/usr/local/cuda", with_async_warn: bool = True,
              gcc_arch_note: bool = False) -> list[str]:
    """`ds_report` output (DeepSpeed 0.9-0.15 layout)."""
    ops = ["async_io", "fused_adam", "cpu_adam", "cpu_adagrad", "cpu_lion", "evoformer_attn", "fused_lamb",
           "fused_lion", "inference_core_ops", "cutlass_ops", "quantizer", "ragged_device_ops",
           "ragged_ops", "random_ltd", "sparse_attn", "spatial_inference", "transformer", "stochastic_transformer",
           "transformer_inference"]
    out = ds_report_header("\x1b[92m[OKAY]\x1b[0m")
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


_TS = re.compile(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3})\]")


def monotonic_timestamps(text: str, seed: int) -> str:
    """Interleaving per-process output can put a later-generated timestamp first; real merged output is
    (nearly) ordered, so pull any earlier logging timestamp forward to just after the previous one."""
    rng = random.Random(seed)
    prev: dt.datetime | None = None
    out = []
    for line in text.split("\n"):
        m = _TS.search(line)
        if m:
            t = dt.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S") + dt.timedelta(milliseconds=int(m.group(2)))
            if prev is not None and t < prev:
                t = prev + dt.timedelta(milliseconds=rng.randint(1, 40))
                stamp = t.strftime("%Y-%m-%d %H:%M:%S") + f",{t.microsecond // 1000:03d}"
                line = line[:m.start()] + f"[{stamp}]" + line[m.end():]
            prev = t
        out.append(line)
    return "\n".join(out)


def with_ordered_timestamps(c: Case) -> Case:
    """The case with each log's logging timestamps made monotonic (a shell session is left as typed)."""
    c.files = {name: text if name == "session.txt" else monotonic_timestamps(text, zlib.crc32((c.case_id + name).encode()))
               for name, text in c.files.items()}
    return c


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
    home = "/workspace/gpt2-ft"
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
    out += ["+ cat configs/ds_zero2_bs256.json"] + json.dumps(cfg, indent=2).splitlines()
    out += ["+ deepspeed train_gpt2_ds.py --deepspeed --deepspeed_config configs/ds_zero2_bs256.json --model_name gpt2-medium --data_dir /data/openwebtext/tokenized --save_dir /ckpt/gpt2m-owt"]
    world = {"localhost": [0, 1, 2, 3]}
    script = ["train_gpt2_ds.py", "--deepspeed", "--deepspeed_config", "configs/ds_zero2_bs256.json", "--model_name",
              "gpt2-medium", "--data_dir", "/data/openwebtext/tokenized", "--save_dir", "/ckpt/gpt2m-owt"]
    out += ds_launcher_header(clock, v, world, 0, "127.0.0.1", 29500, script)
    pids = [51201, 51202, 51203, 51204]
    blocks = []
    for r in range(4):
        b = [ds_line(clock, L["accel"], "Setting ds_accelerator to cuda (auto detect)", lo=2.0 if r == 0 else 0.01, hi=3.5 if r == 0 else 0.3)]
        blocks.append(b)
    out += interleave(blocks, rng, 1, 1)
    blocks = []
    for r in range(4):
        b = [f"[rank {r}] loading tokenizer + model gpt2-medium (354.8M params)",
             ds_line(clock, L["cdb"], "cdb=None", lo=3.0 if r == 0 else 0.05, hi=5.0 if r == 0 else 0.6)]
        if r == 0:
            b.append(ds_line(clock, L["comm_init"], "Initializing TorchBackend in DeepSpeed with backend nccl"))
            b.append("[rank 0] train shards: 1024 files, 9.04B tokens, seq_len=1024")
            b.append(ds_line(clock, L["log_dist"], "[Rank 0] DeepSpeed info: version=0.12.6, git-hash=unknown, git-branch=unknown", lo=0.5, hi=1.0))
        blocks.append(b)
    out += interleave(blocks, rng, 1, 2)
    frames = [(f"{home}/train_gpt2_ds.py", 214, "<module>", "main()"),
              (f"{home}/train_gpt2_ds.py", 163, "main", "model_engine, optimizer, _, lr_scheduler = deepspeed.initialize(")]
    tbs = [batch_assert_tb(site, "train_gpt2_ds.py", frames, v, 256, 8, 4, 4) for _ in range(4)]
    out += interleave(tbs, rng, 1, 3)
    out += ds_sigkill_handler(clock, L, pids, "/usr/bin/python3", script, 3, (0.5, 1.0))
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


def child_failed_summary(script: str, host: str, when: str, fails: list[tuple[int, int, int]]) -> list[str]:
    """torchrun's ChildFailedError summary for one node's workers, given as (rank, exitcode, pid) in the order
    they failed (the first is the root cause; local rank = rank)."""
    (r0, e0, p0), *rest = fails
    return torchrun_child_failed_summary(script, RankExit(r0, r0, p0, e0, when, host),
                                         [RankExit(r, r, p, e, when, host) for r, e, p in rest])


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
    out += child_failed_summary(script, host, when, fails)
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
           f"WANDB_API_KEY={wb}",
           "WANDB_ENTITY=mchen-lab",
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
    out += interleave([ds_comm_setup(clock, L, r == 0, "", (0.3, 0.8), (1.0, 2.0)) for r in range(8)], rng, 1, 2)  # torch >= 2.3 prefixes only uncaught tracebacks ("[rankN]: ") via sys.excepthook
    out.append(ds_line(clock, "partition_parameters.py:348:__exit__", "finished initializing model - num_params = 363, num_elems = 13.02B", lo=20, hi=30))
    blocks = []
    for r in range(8):
        p = ""  # torch >= 2.3 prefixes only uncaught tracebacks ("[rankN]: ") via sys.excepthook
        b = []
        n = rng.randint(3, 5)
        b.append(f"Loading checkpoint shards: 100%|██████████| 3/3 [00:{rng.randint(21, 29)}<00:00,  {rng.uniform(7.2, 9.6):.2f}s/it]")
        b.append(f"Map (num_proc=8): 100%|██████████| 61204/61204 [00:0{n}<00:00, {rng.randint(11000, 15000)}.{rng.randint(10, 99)} examples/s]" if r == 0 else
                 "Using custom data configuration default-4f2b9e1c6a0d3e57")
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
    tbs = [[f"[rank{r}]: " + ln if ln else "" for ln in tb(frames, msg)] for r in range(8)]
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
           "MASTER_ADDR=gpu-a100-031 MASTER_PORT=6000 NCCL_DEBUG=INFO NCCL_IB_HCA=mlx5",
           "+ cat configs/ds_3d_gbs512.json"] + json.dumps(cfg, indent=2).splitlines() + [
           "+ srun -l --kill-on-bad-exit=1 --cpu-bind=none bash -c 'RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID WORLD_SIZE=$SLURM_NTASKS python train_3d.py --tp 4 --pp 2 --model-size 7b --seq-len 4096 --data /lustre/fsw/llm/data/mix-v5 --deepspeed_config configs/ds_3d_gbs512.json'"]
    W = 16
    out += interleave([ds_comm_setup(clock, L, r == 0, srun_prefix(r), (0.05, 0.4), (0.5, 1.5)) for r in range(W)], rng, 1, 2)
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
            f"{clock.tick(0.3, 0.6).strftime('%m/%d/%Y %H:%M:%S')} - INFO - __main__ - loading stabilityai/stable-diffusion-xl-base-1.0 (unet fp16, vae fp32)",
            "Loading pipeline components...: 100%|██████████| 7/7 [00:02<00:00,  2.91it/s]",
            f"{clock.tick(8.0, 11.0).strftime('%m/%d/%Y %H:%M:%S')} - INFO - __main__ - LoRA rank 32 on attn processors: 11,141,120 trainable params",
            f"{clock.tick(0.1, 0.3).strftime('%m/%d/%Y %H:%M:%S')} - INFO - __main__ - dataset: 1,834 images (data/ink_style), resolution 1024, batch 2",
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
    out += ds_sigkill_handler(clock, L, [731904], f"{env}/bin/python", script, 0, (1.0, 1.5))
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
    out += [*ds_comm_setup(clock, L, True, "", (2.0, 3.0), (1.0, 2.0)),
            "Loading checkpoint shards: 100%|██████████| 2/2 [00:06<00:00,  3.22s/it]",
            f"{clock.tick(0.5, 1.0).strftime('%m/%d/%Y %H:%M:%S')} - INFO - __main__ - model microsoft/phi-2: 2.78B params, all trainable (full fine-tune)",
            "Map: 100%|██████████| 12000/12000 [00:04<00:00, 2741.55 examples/s]",
            *ds_engine_info(clock, L, "0.12.6", (0.5, 1.0)),
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
    out += ds_sigkill_handler(clock, L, [28814], f"{venv}/bin/python3", script, 0, (1.0, 1.4))
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
    out += child_failed_summary(script, host, when, fails)
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
            *ds_engine_info(clock, L, "0.12.6", (3.0, 5.0))]
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
    out += interleave([ds_comm_setup(clock, L, r == 0, "", (0.2, 0.6), (0.5, 1.0)) for r in range(8)], rng, 1, 2)
    out += [ds_line(clock, "partition_parameters.py:348:__exit__", "finished initializing model - num_params = 723, num_elems = 68.98B", lo=60, hi=90),
            *ds_engine_info(clock, L, "0.12.6", (1, 2))]
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
    out += ds_sigkill_handler(clock, L, pids, f"{env}/bin/python", script, 7, (0.3, 0.8))
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
    out += [*ds_comm_setup(clock, L, True, "", (1.5, 2.5), (0.5, 1.0)),
            "You are using the default legacy behaviour of the <class 'transformers.models.t5.tokenization_t5.T5Tokenizer'>. This is expected, and simply means that the `legacy` (previous) behavior will be used so nothing changes for you. If you want to use the new behaviour, set `legacy=False`. This should only be set if you understand what it means, and thoroughly read the reason why this was added as explained in https://github.com/huggingface/transformers/pull/24565",
            "Loading checkpoint shards: 100%|██████████| 2/2 [00:09<00:00,  4.61s/it]",
            *ds_engine_info(clock, L, "0.12.6", (1.0, 2.0)),
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
    out += ds_sigkill_handler(clock, L, [4182], "/usr/bin/python3", script, 0, (1.0, 1.4))
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
    out += [*ds_comm_setup(clock, L, True, "", (1.5, 2.5), (0.5, 1.0)),
            "Some weights of RobertaForSequenceClassification were not initialized from the model checkpoint at roberta-large and are newly initialized: ['classifier.dense.bias', 'classifier.dense.weight', 'classifier.out_proj.bias', 'classifier.out_proj.weight']",
            "You should probably TRAIN this model on a down-stream task to be able to use it for predictions and inference.",
            *ds_engine_info(clock, L, "0.12.6", (1.0, 2.0)),
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
    out += ds_sigkill_handler(clock, L, [97], "/opt/conda/bin/python", script, 0, (1.0, 1.4))
    return Case(
        case_id="deepspeed-op-build-failure-fused-adam-runtime-image-06",
        label="deepspeed-op-build-failure", difficulty="easy",
        description="FusedAdam JIT build in a pytorch *-runtime* image (no nvcc): torch's cpp_extension raises 'CUDA_HOME environment variable is not set' on an L4 node",
        files={"pod.log": "\n".join(out)},
        facts={"deepspeed_version": "0.12.6", "launcher": "deepspeed", "torch_version": "2.1.2", "cuda_version": "12.1",
               "transformers_version": "4.36.2"},
        must_mention=["CUDA_HOME", "nvcc"],
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
    init_loc = {("0.12.6", 3): "stage3.py:479:_setup_for_real_optimizer", ("0.15.4", 3): "stage3.py:521:_setup_for_real_optimizer",
                ("0.12.6", 2): "stage_1_and_2.py:516:__init__", ("0.15.4", 2): "stage_1_and_2.py:544:__init__",
                ("0.9.5", 2): "stage_1_and_2.py:488:__init__", ("0.9.5", 3): "stage3.py:387:_setup_for_real_optimizer"}
    out.append(ds_line(clock, init_loc[(v, 3 if stage == 3 else 2)], "optimizer state initialized"))
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
    out += interleave([ds_comm_setup(clock, L, r == 0, "", (0.3, 0.7), (0.5, 1.0)) for r in range(8)], rng, 1, 2)
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
    out += interleave([tb(frames, msg) for _ in range(8)], rng, 15, 60)
    out += ds_sigkill_handler(clock, L, [8011 + i for i in range(8)], "/usr/bin/python3", script, 7, (0.2, 0.6))
    return Case(
        case_id="deepspeed-zero3-shape-mismatch-load-state-dict-01",
        label="deepspeed-zero3-shape-mismatch", difficulty="easy",
        description="reward-model script calls engine.module.load_state_dict() after deepspeed.initialize with ZeRO-3: every large weight reports 'the shape in current model is torch.Size([0])' (norms below the persistence threshold load fine)",
        files={"train.log": "\n".join(out)},
        facts={"deepspeed_version": "0.15.4", "launcher": "deepspeed", "zero_stage": "3", "precision": "bf16", "world_size": "8"},
        must_mention=["ZeRO-3", "GatheredParameters"],
    )


def case_z3_functional_embedding() -> Case:
    rng = random.Random(302)
    clock = Clock("2024-10-14 21:05:33", rng)
    v = "0.15.4"
    L = DS_LOC[v]
    tv = "2.4.1"
    site = "/home/priya/miniforge3/envs/pt24/lib/python3.10/site-packages"
    proj = "/home/priya/research/softprompt"
    out = ["(pt24) priya@l40s-box:~/research/softprompt$ accelerate launch --config_file acc_z3.yaml train_prompt.py --base Qwen/Qwen2-7B --n_virtual 64 --bf16 --per_device_train_batch_size 8",
           "(pt24) priya@l40s-box:~/research/softprompt$ cat acc_z3.yaml",
           "compute_environment: LOCAL_MACHINE",
           "debug: false",
           "deepspeed_config:",
           "  gradient_accumulation_steps: 2",
           "  offload_optimizer_device: none",
           "  offload_param_device: none",
           "  zero3_init_flag: true",
           "  zero3_save_16bit_model: true",
           "  zero_stage: 3",
           "distributed_type: DEEPSPEED",
           "downcast_bf16: 'no'",
           "machine_rank: 0",
           "main_training_function: main",
           "mixed_precision: bf16",
           "num_machines: 1",
           "num_processes: 4",
           "rdzv_backend: static",
           "same_network: true",
           "use_cpu: false"]
    tpid = 512209
    for ln in ["", "*****************************************",
               "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
               "*****************************************"]:
        out.append(f"{clock.glog('W', tpid, 'torch/distributed/run.py:779', 0.0, 0.001)} {ln}")
    out += interleave([ds_comm_setup(clock, L, r == 0, "", (0.5, 1.0), (0.5, 1.5)) for r in range(4)], rng, 1, 2)
    out.append(ds_line(clock, "partition_parameters.py:348:__exit__", "finished initializing model - num_params = 339, num_elems = 7.62B", lo=15, hi=25))
    for r in range(4):
        out.append(f"Loading checkpoint shards: 100%|██████████| 4/4 [00:{rng.randint(12, 19)}<00:00,  {rng.uniform(3.1, 4.6):.2f}s/it]")
    out += ["[soft-prompt] 64 virtual tokens x 3584 = 229,376 trainable params; base model frozen",
            "Map: 100%|██████████| 40000/40000 [00:06<00:00, 6411.30 examples/s]"]
    out += [ln for ln in ds_engine_init_lines(clock, v, 3, "torch.bfloat16", "adamw")[:8]]
    out += ["Parameter Offload: Total persistent parameters: 333312 in 141 params",
            "  0%|          | 0/2500 [00:00<?, ?it/s]"]
    frames = [(f"{proj}/train_prompt.py", 231, "<module>", "main()"),
              (f"{proj}/train_prompt.py", 224, "main", "trainer.train()"),
              (f"{site}/transformers/trainer.py", 1938, "train", "return inner_training_loop("),
              (f"{site}/transformers/trainer.py", 2279, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)"),
              (f"{site}/transformers/trainer.py", 3318, "training_step", "loss = self.compute_loss(model, inputs)"),
              (f"{site}/transformers/trainer.py", 3363, "compute_loss", "outputs = model(**inputs)")]
    frames += module_call(site, tv)
    frames += [(f"{site}/deepspeed/utils/nvtx.py", 18, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
               (f"{site}/deepspeed/runtime/engine.py", 1899, "forward", "loss = self.module(*inputs, **kwargs)")]
    frames += module_call(site, tv, hooks=True)
    frames += [(f"{proj}/softprompt/model.py", 58, "forward", "tok_embeds = F.embedding(input_ids, self.base.get_input_embeddings().weight)"),
               (f"{site}/torch/nn/functional.py", TORCH_LOC[tv]["func_emb"], "embedding",
                "return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)")]
    t = tb(frames, "RuntimeError: 'weight' must be 2-D")
    out += interleave([[f"[rank{r}]: " + ln if ln else "" for ln in t] for r in range(4)], rng, 3, 9)
    when = clock.tick(2, 3).strftime("%Y-%m-%d_%H:%M:%S")
    fails = [(2, 1, 512284), (0, 1, 512282), (1, 1, 512283), (3, 1, 512285)]
    tail = torchrun_failure_24(clock, tpid, "/home/priya/miniforge3/envs/pt24/bin/accelerate", "train_prompt.py", "l40s-box", fails,
                               sigterm=[], when=when, py="/home/priya/miniforge3/envs/pt24/bin/python3.10")
    # accelerate wraps torchrun's launcher: replace the head frames
    i = tail.index("Traceback (most recent call last):")
    head = tb([("/home/priya/miniforge3/envs/pt24/bin/accelerate", 8, "<module>", "sys.exit(main())"),
               (f"{site}/accelerate/commands/accelerate_cli.py", 48, "main", "args.func(args)"),
               (f"{site}/accelerate/commands/launch.py", 1159, "launch_command", "deepspeed_launcher(args)"),
               (f"{site}/accelerate/commands/launch.py", 852, "deepspeed_launcher", "distrib_run.run(args)"),
               (f"{site}/torch/distributed/run.py", 892, "run", "elastic_launch("),
               (f"{site}/torch/distributed/launcher/api.py", 133, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"),
               (f"{site}/torch/distributed/launcher/api.py", 264, "launch_agent", "raise ChildFailedError(")],
              "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ")
    j = tail.index("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ")
    tail = tail[:i] + head + tail[j + 1:]
    out += tail
    return Case(
        case_id="deepspeed-zero3-shape-mismatch-functional-embedding-02",
        label="deepspeed-zero3-shape-mismatch", difficulty="medium",
        description="soft-prompt wrapper under accelerate + ZeRO-3 (zero3_init_flag) calls F.embedding on base.get_input_embeddings().weight from its own forward; the embedding module's hooks never run, the weight is the empty partition -> \"'weight' must be 2-D\"",
        files={"console.txt": "\n".join(out)},
        facts={"launcher": "accelerate", "world_size": "4", "zero_stage": "3", "precision": "bf16", "deepspeed_version": "0.15.4"},
        must_mention=["ZeRO-3", "partitioned"],
        secrets=["priya"],
    )


def watchdog_21(rank: int, seq: int, op: str, numel_in: int, numel_out: int, ran_ms: int) -> list[str]:
    """torch 2.1 ProcessGroupNCCL watchdog timeout + abort."""
    work = f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel_in}, NumelOut={numel_out}, Timeout(ms)=1800000)"
    msg = f"[Rank {rank}] Watchdog caught collective operation timeout: {work} ran for {ran_ms} milliseconds before timing out."
    return [f"[E ProcessGroupNCCL.cpp:475] {msg}",
            "[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
            "[E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.",
            f"[E ProcessGroupNCCL.cpp:916] [Rank {rank}] NCCL watchdog thread terminated with exception: {msg}",
            "terminate called after throwing an instance of 'std::runtime_error'",
            f"  what():  [Rank {rank}] NCCL watchdog thread terminated with exception: {msg}"]


def case_z3_rank0_callback_watchdog() -> Case:
    rng = random.Random(303)
    v = "0.12.6"
    L = DS_LOC[v]
    site = "/opt/conda/lib/python3.10/site-packages"
    home = "/home/tkowalski/llm/sft"
    nodes = ["gpu-a100-101", "gpu-a100-102"]
    cmd = ("torchrun --nnodes 2 --nproc_per_node 8 --rdzv_backend c10d --rdzv_endpoint gpu-a100-101:29400 --rdzv_id sft-0206 --tee 3 "
           "sft_multinode.py --model_name_or_path /models/llama-2-7b-hf --data /data/sft/v7 --deepspeed ds/z3.json --bf16 "
           "--per_device_train_batch_size 4 --gradient_accumulation_steps 2 --logging_steps 50 --output_dir /ckpt/sft-v7")
    logs = {}
    for n, host in enumerate(nodes):
        clock = Clock("2024-02-06 02:14:07", random.Random(310 + n))
        out = [f"[{host}] $ {cmd}"]
        for ln in ["", "*****************************************",
                   "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
                   "*****************************************"]:
            out.append(f"[{clock.ds(0.0, 0.001)}] torch.distributed.run: [WARNING] {ln}")
        out += interleave([ds_comm_setup(clock, L, n == 0 and lr == 0, f"[default{lr}]:", (0.3, 0.8), (0.5, 1.0)) for lr in range(8)], rng, 1, 2)
        if n == 0:
            out += ["[default0]:" + ds_line(clock, "partition_parameters.py:348:__exit__", "finished initializing model - num_params = 291, num_elems = 6.74B", lo=20, hi=30)]
        for lr in range(8):
            out.append(f"[default{lr}]:Loading checkpoint shards: 100%|██████████| 2/2 [00:{rng.randint(10, 19)}<00:00,  {rng.uniform(5, 9):.2f}s/it]")
        if n == 0:
            out += ["[default0]:" + ln for ln in ds_engine_init_lines(clock, v, 3, "torch.bfloat16", "adamw")]
            out += ["[default0]:wandb: Currently logged in as: tkowalski. Use `wandb login --relogin` to force relogin",
                    "[default0]:wandb: Tracking run with wandb version 0.16.2",
                    "[default0]:wandb: Run data is saved locally in /home/tkowalski/llm/sft/wandb/run-20240206_021631-q8x2lm4d",
                    "[default0]:wandb: Run `wandb offline` to turn off syncing.",
                    "[default0]:wandb: Syncing run sft-v7-2n",
                    "[default0]:wandb: ⭐️ View project at https://wandb.ai/tkowalski/llama-sft",
                    "[default0]:wandb: 🚀 View run at https://wandb.ai/tkowalski/llama-sft/runs/q8x2lm4d",
                    "[default0]:  0%|          | 0/3906 [00:00<?, ?it/s]"]
            for step in range(1, 51):
                clock.tick(9.5, 10.8)
                el = step * 10.1
                rem = (3906 - step) * 10.1
                out.append(f"[default0]:  {step * 100 // 3906:>2d}%|          | {step}/3906 [{int(el // 60):02d}:{int(el % 60):02d}<{int(rem // 3600)}:{int(rem % 3600 // 60):02d}:{int(rem % 60):02d}, 10.{rng.randint(0, 99):02d}s/it]")
                if step in (10, 20, 30, 40):
                    out.append(ds_line(clock, L["log_dist"], f"[Rank 0] step={step}, skipped=0, lr=[{step * 2e-5 / 100:.6e}], mom=[[0.9, 0.95]]").replace("[", "[default0]:[", 1))
            out.append("[default0]:{'loss': 1.4127, 'learning_rate': 1e-05, 'epoch': 0.01}")
            frames = [(f"{home}/sft_multinode.py", 203, "<module>", "main()"),
                      (f"{home}/sft_multinode.py", 196, "main", "trainer.train()"),
                      (f"{site}/transformers/trainer.py", 1537, "train", "return inner_training_loop("),
                      (f"{site}/transformers/trainer.py", 1914, "_inner_training_loop", "self._maybe_log_save_evaluate(tr_loss, model, trial, epoch, ignore_keys_for_eval)"),
                      (f"{site}/transformers/trainer.py", 2254, "_maybe_log_save_evaluate", "self.log(logs)"),
                      (f"{site}/transformers/trainer.py", 2655, "log", "self.control = self.callback_handler.on_log(self.args, self.state, self.control, logs)"),
                      (f"{site}/transformers/trainer_callback.py", 407, "on_log", 'return self.call_event("on_log", args, state, control, logs=logs)'),
                      (f"{site}/transformers/trainer_callback.py", 414, "call_event", "result = getattr(callback, event)("),
                      (f"{home}/callbacks.py", 41, "on_log", "drift = (emb.float() - self.ref_emb).norm(dim=-1).mean().item()")]
            t = tb(frames, "RuntimeError: The size of tensor a (0) must match the size of tensor b (4096) at non-singleton dimension 1")
            out += ["[default0]:" + ln for ln in t]
            out.append("[default0]:wandb: 🚀 View run sft-v7-2n at: https://wandb.ai/tkowalski/llama-sft/runs/q8x2lm4d")
            out.append("[default0]:wandb: Synced 6 W&B file(s), 0 media file(s), 2 artifact file(s) and 0 other file(s)")
            pids = [77410 + i for i in range(8)]
            for p in pids[1:]:
                out.append(f"[{clock.ds(0.001, 0.01)}] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process {p} closing signal SIGTERM")
            out.append(f"[{clock.ds(0.5, 1.0)}] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 0 (pid: {pids[0]}) of binary: /opt/conda/bin/python")
            head = [("/opt/conda/bin/torchrun", 33, "<module>", "sys.exit(load_entry_point('torch==2.1.2', 'console_scripts', 'torchrun')())"),
                    (f"{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", 346, "wrapper", "return f(*args, **kwargs)"),
                    (f"{site}/torch/distributed/run.py", 806, "main", "run(args)"),
                    (f"{site}/torch/distributed/run.py", 797, "run", "elastic_launch("),
                    (f"{site}/torch/distributed/launcher/api.py", 134, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"),
                    (f"{site}/torch/distributed/launcher/api.py", 264, "launch_agent", "raise ChildFailedError(")]
            when = clock.t.strftime("%Y-%m-%d_%H:%M:%S")
            out += tb(head, "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ")
            out += child_failed_summary("sft_multinode.py", host, when, [(0, 1, pids[0])])
        else:
            clock.t = dt.datetime(2024, 2, 6, 2, 24, 51)
            seq = 20417
            blocks = []
            for lr in range(8):
                g = 8 + lr
                ran = 1800000 + rng.randint(50, 900)
                blocks.append([f"[default{lr}]:" + ln for ln in watchdog_21(g, seq, "_ALLGATHER_BASE", 2621440, 41943040, ran)])
            clock.t = dt.datetime(2024, 2, 6, 2, 54, 52)
            out += interleave(blocks, rng, 1, 3)
            pids = [51102 + i for i in range(8)]
            first = 5
            for p in pids:
                if p != pids[first]:
                    out.append(f"[{clock.ds(0.001, 0.01)}] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process {p} closing signal SIGTERM")
            out.append(f"[{clock.ds(0.5, 1.0)}] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6) local_rank: {first} (pid: {pids[first]}) of binary: /opt/conda/bin/python")
            head = [("/opt/conda/bin/torchrun", 33, "<module>", "sys.exit(load_entry_point('torch==2.1.2', 'console_scripts', 'torchrun')())"),
                    (f"{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", 346, "wrapper", "return f(*args, **kwargs)"),
                    (f"{site}/torch/distributed/run.py", 806, "main", "run(args)"),
                    (f"{site}/torch/distributed/run.py", 797, "run", "elastic_launch("),
                    (f"{site}/torch/distributed/launcher/api.py", 134, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"),
                    (f"{site}/torch/distributed/launcher/api.py", 264, "launch_agent", "raise ChildFailedError(")]
            when = clock.t.strftime("%Y-%m-%d_%H:%M:%S")
            out += tb(head, "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ")
            out += torchrun_child_failed_summary("sft_multinode.py", RankExit(8 + first, first, pids[first], -6, when, host),
                                                 [], width=55)  # this node's terminal was 55 columns wide
        logs[f"{host}.log"] = "\n".join(out)
    return Case(
        case_id="deepspeed-zero3-shape-mismatch-rank0-callback-2node-03",
        label="deepspeed-zero3-shape-mismatch", difficulty="hard",
        description="2-node ZeRO-3 SFT (torchrun --tee 3): a rank-0-only on_log callback reads the partitioned embedding (shape [0]) and dies at step 50; node 2's ranks wait in the ZeRO-3 all-gather and hit the NCCL watchdog 30 min later (SIGABRT)",
        initiating_rank=0,
        files=logs,
        facts={"launcher": "torchrun", "num_nodes": "2", "zero_stage": "3", "deepspeed_version": "0.12.6", "failure_step": "50"},
        must_mention=["ZeRO-3", "rank 0", "GatheredParameters"],
        secrets=["tkowalski"],
    )


# ==================================================================================================
# deepspeed-zero-checkpoint-topology-change
# ==================================================================================================

def topo_exc(saved: int, now: int) -> str:
    return ("deepspeed.runtime.zero.utils.ZeRORuntimeException: The checkpoint being loaded used a DP world size of "
            f"{saved} but the current world size is {now}. Automatic adjustment of ZeRO's optimizer state partitioning "
            "with a new world size is not currently supported.")


def load_ckpt_frames(site: str, v: str) -> list[tuple]:
    ln = {"0.9.5": (2614, 2756), "0.12.6": (2735, 2901), "0.15.4": (2826, 3005)}[v]
    return [(f"{site}/deepspeed/runtime/engine.py", ln[0], "load_checkpoint",
             "success = self._load_zero_checkpoint(load_dir, tag, load_optimizer_states=load_optimizer_states)"),
            (f"{site}/deepspeed/runtime/engine.py", ln[1], "_load_zero_checkpoint",
             'raise ZeRORuntimeException("The checkpoint being loaded used a DP " \\')]


def case_topo_ds_launcher() -> Case:
    rng = random.Random(401)
    clock = Clock("2024-04-17 07:40:12", rng)
    v = "0.12.6"
    L = DS_LOC[v]
    site = "/usr/local/lib/python3.10/dist-packages"
    proj = "/workspace/neox-1b"
    cfg = {"train_micro_batch_size_per_gpu": 16, "gradient_accumulation_steps": 2, "steps_per_print": 100,
           "optimizer": {"type": "Adam", "params": {"lr": 2.5e-4, "betas": [0.9, 0.95], "eps": 1e-8}},
           "bf16": {"enabled": True}, "zero_optimization": {"stage": 1, "allgather_bucket_size": 500000000},
           "gradient_clipping": 1.0, "_world": 8, "train_batch_size": 256}
    out = ["# resuming run neox-1b-pile after maintenance; node gpu-h100-22 only (gpu-h100-23 still draining)",
           "root@gpu-h100-22:/workspace/neox-1b# ls /ckpt/neox-1b/global_step12000/ | head -4; ls /ckpt/neox-1b/global_step12000/ | wc -l",
           "bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt",
           "bf16_zero_pp_rank_10_mp_rank_00_optim_states.pt",
           "bf16_zero_pp_rank_11_mp_rank_00_optim_states.pt",
           "bf16_zero_pp_rank_12_mp_rank_00_optim_states.pt",
           "17",
           "root@gpu-h100-22:/workspace/neox-1b# deepspeed --num_gpus 8 train.py --deepspeed_config configs/neox1b.json --resume /ckpt/neox-1b --data /data/pile/tokenized"]
    world = {"localhost": list(range(8))}
    script = ["train.py", "--deepspeed_config", "configs/neox1b.json", "--resume", "/ckpt/neox-1b", "--data", "/data/pile/tokenized"]
    out += [h for h in ds_launcher_header(clock, v, world, 0, "127.0.0.1", 29500, script) if "Detected" not in h]
    out += interleave([ds_comm_setup(clock, L, r == 0, "", (0.3, 0.7), (0.5, 1.0)) for r in range(8)], rng, 1, 2)
    out += ["model: GPTNeoX 1.01B params (24 layers, d=2048), seq 2048"]
    out += ds_engine_init_lines(clock, v, 1, "torch.bfloat16", "adam")
    out += ds_config_dump(clock, v, cfg)
    blocks = []
    for r in range(8):
        b = [ds_line(clock, L["torch_ckpt_load"], "[Torch] Loading checkpoint from /ckpt/neox-1b/global_step12000/mp_rank_00_model_states.pt...", lo=0.2, hi=0.5),
             ds_line(clock, L["torch_ckpt_loaded"], "[Torch] Loaded checkpoint from /ckpt/neox-1b/global_step12000/mp_rank_00_model_states.pt.", lo=2, hi=4)]
        blocks.append(b)
    out += interleave(blocks, rng, 1, 2)
    frames = [(f"{proj}/train.py", 266, "<module>", "main()"),
              (f"{proj}/train.py", 188, "main", "load_path, client_state = engine.load_checkpoint(args.resume)")]
    frames += load_ckpt_frames(site, v)
    out += interleave([tb(frames, topo_exc(16, 8)) for _ in range(8)], rng, 1, 4)
    out += ds_sigkill_handler(clock, L, [31807 + i for i in range(8)], "/usr/bin/python3", script, 7, (0.2, 0.6))
    return Case(
        case_id="deepspeed-zero-checkpoint-topology-change-16to8-01",
        label="deepspeed-zero-checkpoint-topology-change", difficulty="easy",
        description="ZeRO-1 bf16 checkpoint saved by 16 ranks (2 nodes) resumed on one 8-GPU node: load_checkpoint raises ZeRORuntimeException DP world size 16 vs 8 on every rank",
        files={"resume.log": "\n".join(out)},
        facts={"deepspeed_version": "0.12.6", "launcher": "deepspeed", "world_size": "8", "zero_stage": "1", "precision": "bf16"},
        must_mention=["universal", "world size"],
    )


def case_topo_hf_resume() -> Case:
    rng = random.Random(402)
    clock = Clock("2024-09-30 12:01:40", rng)
    v = "0.15.4"
    L = DS_LOC[v]
    site = "/opt/conda/lib/python3.10/site-packages"
    proj = "/mnt/nfs/jobs/codegen-sft"
    tpid = 88120
    out = ["[job 77113] 4x A100-SXM4-80GB granted (requested 8, queue fallback enabled)",
           "+ nvidia-smi -L",
           "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-3b1f8c2e-77a0-4e39-b0d2-9a51c7e0d114)",
           "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-a80d7e44-19c6-4f2a-8e51-30b6d9f2c7a5)",
           "GPU 2: NVIDIA A100-SXM4-80GB (UUID: GPU-5c92e1d0-3a4b-4d67-91e8-e2f07b5a3c69)",
           "GPU 3: NVIDIA A100-SXM4-80GB (UUID: GPU-0e6b4f93-c21d-4a8f-b7e0-6d3a2f91b58c)",
           "+ torchrun --nproc_per_node 4 train_sft.py --model_name_or_path bigcode/starcoder2-7b --dataset /mnt/nfs/data/code_instruct_v4 --output_dir /mnt/nfs/ckpt/sc2-7b-sft --deepspeed ds_z2.json --bf16 --per_device_train_batch_size 4 --gradient_accumulation_steps 8 --resume_from_checkpoint /mnt/nfs/ckpt/sc2-7b-sft/checkpoint-6000 --save_steps 500"]
    for ln in ["", "*****************************************",
               "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
               "*****************************************"]:
        out.append(f"{clock.glog('W', tpid, 'torch/distributed/run.py:779', 0.0, 0.001)} {ln}")
    blocks = []
    for r in range(4):
        b = ds_comm_setup(clock, L, r == 0, "", (0.3, 0.7), (0.5, 1.0))
        b.append(f"Loading checkpoint shards: 100%|██████████| 3/3 [00:0{rng.randint(5, 9)}<00:00,  2.{rng.randint(10, 99)}s/it]")
        blocks.append(b)
    out += interleave(blocks, rng, 1, 2)
    out += ds_engine_init_lines(clock, v, 2, "torch.bfloat16", "adamw")
    out += ["  0%|          | 0/9375 [00:00<?, ?it/s]"]
    blocks = []
    for r in range(4):
        blocks.append([ds_line(clock, "torch_checkpoint_engine.py:27:load", "[Torch] Loading checkpoint from /mnt/nfs/ckpt/sc2-7b-sft/checkpoint-6000/global_step6000/mp_rank_00_model_states.pt...", lo=0.1, hi=0.3),
                       ds_line(clock, "torch_checkpoint_engine.py:29:load", "[Torch] Loaded checkpoint from /mnt/nfs/ckpt/sc2-7b-sft/checkpoint-6000/global_step6000/mp_rank_00_model_states.pt.", lo=8, hi=14)])
    out += interleave(blocks, rng, 1, 1)
    frames = [(f"{proj}/train_sft.py", 178, "<module>", "main()"),
              (f"{proj}/train_sft.py", 171, "main", "trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)"),
              (f"{site}/transformers/trainer.py", 1938, "train", "return inner_training_loop("),
              (f"{site}/transformers/trainer.py", 2119, "_inner_training_loop", "deepspeed_load_checkpoint("),
              (f"{site}/transformers/integrations/deepspeed.py", 433, "deepspeed_load_checkpoint", "load_path, _ = deepspeed_engine.load_checkpoint(")]
    frames += load_ckpt_frames(site, v)
    t = tb(frames, topo_exc(8, 4))
    out += interleave([[f"[rank{r}]: " + ln for ln in t] for r in range(4)], rng, 2, 6)
    when = clock.tick(1, 2).strftime("%Y-%m-%d_%H:%M:%S")
    out += torchrun_failure_24(clock, tpid, "/opt/conda/bin/torchrun", "train_sft.py", "a100-pool-0419", [(0, 1, 88201), (2, 1, 88203), (1, 1, 88202)],
                               sigterm=[88204], when=when)
    return Case(
        case_id="deepspeed-zero-checkpoint-topology-change-hf-resume-4gpu-02",
        label="deepspeed-zero-checkpoint-topology-change", difficulty="medium",
        description="HF Trainer resume_from_checkpoint with ZeRO-2 after the scheduler granted 4 instead of 8 A100s: deepspeed_load_checkpoint raises DP world size 8 vs 4; torchrun ChildFailedError last",
        files={"job-77113.log": "\n".join(out)},
        facts={"gpu_model": "A100-SXM4-80GB", "gpu_count": "4", "launcher": "torchrun", "world_size": "4", "zero_stage": "2",
               "deepspeed_version": "0.15.4"},
        must_mention=["world size", "universal"],
    )


def case_topo_slurm_partition() -> Case:
    rng = random.Random(403)
    clock = Clock("2023-09-14 19:22:05", rng)
    v = "0.9.5"
    L = DS_LOC[v]
    site = "/shared/conda/envs/ds095/lib/python3.10/site-packages"
    proj = "/shared/home/r.alvarez/bio-lm"
    out = ["#!/bin/bash",
           "#SBATCH --job-name=protlm-3b",
           "#SBATCH --partition=a100-4g",
           "#SBATCH --nodes=4",
           "#SBATCH --ntasks-per-node=4",
           "#SBATCH --gpus-per-node=4",
           "#SBATCH --time=48:00:00",
           "=== job 991245 on nodes a4g-[011-014]; SLURM_NTASKS=16 SLURM_JOB_USER=r.alvarez ===",
           "resuming from /shared/ckpt/protlm-3b (latest -> global_step41000)"]
    W = 16
    out += interleave([ds_comm_setup(clock, L, r == 0, srun_prefix(r), (0.1, 0.4), (0.5, 1.0)) for r in range(W)], rng, 1, 2)
    p0 = srun_prefix(0)
    out += [p0 + ln for ln in ds_engine_init_lines(clock, v, 2, "torch.float16", "adamw")[:6]]
    out += [p0 + ds_line(clock, L["s12_bucket"], "Reduce bucket size 200000000"),
            p0 + ds_line(clock, L["s12_ag"], "Allgather bucket size 200000000"),
            p0 + ds_line(clock, L["s12_cpu"], "CPU Offload: False"),
            p0 + ds_line(clock, L["s12_rr"], "Round robin gradient partitioning: False")]
    out += [p0 + ln for ln in mem_usage(clock, v, "Before initializing optimizer states", 5.73, 5.73, 5.78, 6, 61.2, 12.1)]
    out += [p0 + ln for ln in mem_usage(clock, v, "After initializing optimizer states", 8.6, 11.47, 11.52, 12, 61.4, 12.2)]
    out += [p0 + ds_line(clock, "stage_1_and_2.py:488:__init__", "optimizer state initialized")]
    blocks = []
    for r in range(W):
        blocks.append([srun_prefix(r) + ds_line(clock, "torch_checkpoint_engine.py:27:load", "[Torch] Loading checkpoint from /shared/ckpt/protlm-3b/global_step41000/mp_rank_00_model_states.pt...", lo=0.05, hi=0.2),
                       srun_prefix(r) + ds_line(clock, "torch_checkpoint_engine.py:29:load", "[Torch] Loaded checkpoint from /shared/ckpt/protlm-3b/global_step41000/mp_rank_00_model_states.pt.", lo=3, hi=6)])
    out += interleave(blocks, rng, 1, 1)
    frames = [(f"{proj}/pretrain.py", 344, "<module>", "main(get_args())"),
              (f"{proj}/pretrain.py", 291, "main", "_, client_sd = model_engine.load_checkpoint(args.load_dir, tag=args.load_tag)")]
    frames += load_ckpt_frames(site, v)
    out += interleave([[srun_prefix(r) + ln for ln in tb(frames, topo_exc(32, 16))] for r in range(W)], rng, 1, 4)
    out += ["srun: error: a4g-013: tasks 8-11: Exited with exit code 1",
            "srun: launch/slurm: _step_signal: Terminating StepId=991245.0",
            "srun: error: a4g-011: tasks 0-3: Exited with exit code 1",
            "srun: error: a4g-014: tasks 12-15: Exited with exit code 1",
            "srun: error: a4g-012: tasks 4-7: Exited with exit code 1"]
    return Case(
        case_id="deepspeed-zero-checkpoint-topology-change-slurm-partition-03",
        label="deepspeed-zero-checkpoint-topology-change", difficulty="medium",
        description="Slurm resubmission to a 4-GPU-per-node partition (4 nodes x 4 = 16 ranks) of a ZeRO-2 fp16 run saved on 32 ranks; every task raises the DP world size exception",
        files={"slurm-991245.out": "\n".join(out)},
        facts={"launcher": "srun", "world_size": "16", "num_nodes": "4", "deepspeed_version": "0.9.5", "zero_stage": "2", "precision": "fp16"},
        must_mention=["world size", "32", "16"],
        secrets=["r.alvarez"],
    )


# ==================================================================================================
# deepspeed-zero-gradient-computed-twice
# ==================================================================================================

def reduced_twice_msg(pid: int) -> str:
    pad = " " * 12
    return (f"AssertionError: The parameter {pid} has already been reduced. {pad}Gradient computed twice for this partition. "
            f"{pad}Multiple gradient reduction is currently not supported")


def reduced_twice_frames(site: str, v: str, tv: str, head, hf_accel: bool = False) -> list[tuple]:
    eng_bw = {"0.12.6": 1955, "0.15.4": 2020, "0.9.5": 1861}[v]
    s12_bw = {"0.12.6": 2019, "0.15.4": 2058, "0.9.5": 1900}[v]
    hook = {"0.12.6": (865, 1377, 900), "0.15.4": (909, 1418, 945), "0.9.5": (809, 1257, 842)}[v]
    nvtx = 18 if v == "0.15.4" else 15
    T = TORCH_LOC[tv]
    fr = list(head)
    fr += [(f"{site}/deepspeed/utils/nvtx.py", nvtx, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
           (f"{site}/deepspeed/runtime/engine.py", eng_bw, "backward", "self.optimizer.backward(loss, retain_graph=retain_graph)"),
           (f"{site}/deepspeed/runtime/zero/stage_1_and_2.py", s12_bw, "backward", "self.loss_scaler.backward(loss.float(), retain_graph=retain_graph)"),
           (f"{site}/deepspeed/runtime/fp16/loss_scaler.py", 63, "backward", "scaled_loss.backward(retain_graph=retain_graph)")]
    fr += backward_frames(site, tv)
    fr += [(f"{site}/torch/autograd/function.py", T["fn_apply"], "apply", "return user_fn(self, *args)"),
           (f"{site}/torch/utils/checkpoint.py", T["ckpt_bw"], "backward", "torch.autograd.backward(outputs_with_grad, args_with_grad)")]
    fr += backward_frames(site, tv)[1:]
    fr += [(f"{site}/deepspeed/runtime/zero/stage_1_and_2.py", hook[0], "reduce_partition_and_remove_grads", "self.reduce_ready_partitions_and_remove_grads(param, i)"),
           (f"{site}/deepspeed/runtime/zero/stage_1_and_2.py", hook[1], "reduce_ready_partitions_and_remove_grads", "self.reduce_independent_p_g_buckets_and_remove_grads(param, i)"),
           (f"{site}/deepspeed/runtime/zero/stage_1_and_2.py", hook[2], "reduce_independent_p_g_buckets_and_remove_grads", "assert self.params_already_reduced[param_id] == False, \\")]
    return fr


REENTRANT_WARN_21 = ("UserWarning: torch.utils.checkpoint: please pass in use_reentrant=True or use_reentrant=False explicitly. "
                     "The default value of use_reentrant will be updated to be False in the future. To maintain current behavior, "
                     "pass use_reentrant=True. It is recommended that you use use_reentrant=False. Refer to docs for more details "
                     "on the differences between the two variants.")


def case_twice_biencoder() -> Case:
    rng = random.Random(501)
    clock = Clock("2024-01-22 15:47:02", rng)
    v, tv = "0.12.6", "2.1.2"
    L = DS_LOC[v]
    venv = "/home/sora/venvs/retrieval"
    site = f"{venv}/lib/python3.10/site-packages"
    proj = "/home/sora/retrieval"
    cfg = {"train_micro_batch_size_per_gpu": 64, "gradient_accumulation_steps": 1, "steps_per_print": 20,
           "optimizer": {"type": "AdamW", "params": {"lr": 2e-5, "weight_decay": 0.01}},
           "bf16": {"enabled": True}, "zero_optimization": {"stage": 2, "overlap_comm": True, "contiguous_gradients": True},
           "_world": 2, "train_batch_size": 128}
    out = ["(retrieval) sora@rig-3090:~/retrieval$ deepspeed --include localhost:0,1 train_biencoder.py --encoder bert-base-uncased --train data/msmarco_triples.tsv --deepspeed_config ds_z2.json --grad_ckpt"]
    world = {"localhost": [0, 1]}
    script = ["train_biencoder.py", "--encoder", "bert-base-uncased", "--train", "data/msmarco_triples.tsv", "--deepspeed_config", "ds_z2.json", "--grad_ckpt"]
    out += [h.replace("/usr/bin/python3", f"{venv}/bin/python") for h in ds_launcher_header(clock, v, world, 0, "127.0.0.1", 29500, script) if "Detected" not in h]
    out += interleave([ds_comm_setup(clock, L, r == 0, "", (0.5, 1.0), (0.5, 1.0)) for r in range(2)], rng, 1, 2)
    out += ["[biencoder] shared BERT encoder for queries and passages, gradient checkpointing on every layer",
            "[biencoder] 502,939 training triples, in-batch negatives"]
    out += ds_engine_init_lines(clock, v, 2, "torch.bfloat16", "adamw")
    out += ds_config_dump(clock, v, cfg)
    for r in range(2):
        out.append(f"{site}/torch/utils/checkpoint.py:429: {REENTRANT_WARN_21}")
        out.append("  warnings.warn(")
    head = [(f"{proj}/train_biencoder.py", 219, "<module>", "main()"),
            (f"{proj}/train_biencoder.py", 176, "main", "engine.backward(loss)")]
    frames = reduced_twice_frames(site, v, tv, head)
    out += interleave([tb(frames, reduced_twice_msg(11)), tb(frames, reduced_twice_msg(11))], rng, 2, 5)
    out += ds_sigkill_handler(clock, L, [40211, 40212], f"{venv}/bin/python", script, 1, (0.5, 1.0))
    return Case(
        case_id="deepspeed-zero-gradient-computed-twice-biencoder-01",
        label="deepspeed-zero-gradient-computed-twice", difficulty="easy",
        description="ZeRO-2 bi-encoder: the shared BERT encoder runs twice per step (queries, passages) with reentrant per-layer checkpointing; the first backward asserts 'has already been reduced'",
        files={"train.log": "\n".join(out)},
        facts={"deepspeed_version": "0.12.6", "launcher": "deepspeed", "world_size": "2", "zero_stage": "2", "precision": "bf16"},
        must_mention=["use_reentrant", "checkpoint"],
        secrets=["sora"],
    )


def case_twice_hf_trainer() -> Case:
    rng = random.Random(502)
    clock = Clock("2024-03-28 10:12:44", rng)
    v, tv = "0.12.6", "2.1.2"
    L = DS_LOC[v]
    site = "/opt/conda/lib/python3.10/site-packages"
    proj = "/workspace/embed-ft"
    out = ["+ torchrun --nproc_per_node 8 finetune_embed.py --model_name_or_path intfloat/e5-large-v2 --train_file /data/pairs/train.jsonl --output_dir /out/e5-ft --deepspeed ds_zero1.json --bf16 --gradient_checkpointing --per_device_train_batch_size 32 --gradient_accumulation_steps 4 --learning_rate 1e-5 --logging_steps 10"]
    for ln in ["", "*****************************************",
               "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
               "*****************************************"]:
        out.append(f"[{clock.ds(0.0, 0.001)}] torch.distributed.run: [WARNING] {ln}")
    out += interleave([ds_comm_setup(clock, L, r == 0, "", (0.3, 0.7), (0.5, 1.0)) for r in range(8)], rng, 1, 2)
    out += ds_engine_init_lines(clock, v, 1, "torch.bfloat16", "adamw")
    out += ["  0%|          | 0/1950 [00:00<?, ?it/s]"]
    for r in range(8):
        out.append(f"{site}/torch/utils/checkpoint.py:429: {REENTRANT_WARN_21}")
        out.append("  warnings.warn(")
    head = [(f"{proj}/finetune_embed.py", 301, "<module>", "main()"),
            (f"{proj}/finetune_embed.py", 294, "main", "trainer.train()"),
            (f"{site}/transformers/trainer.py", 1537, "train", "return inner_training_loop("),
            (f"{site}/transformers/trainer.py", 1854, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)"),
            (f"{site}/transformers/trainer.py", 2744, "training_step", "self.accelerator.backward(loss)"),
            (f"{site}/accelerate/accelerator.py", 1899, "backward", "self.deepspeed_engine_wrapped.backward(loss, **kwargs)"),
            (f"{site}/accelerate/utils/deepspeed.py", 167, "backward", "self.engine.backward(loss, **kwargs)")]
    frames = reduced_twice_frames(site, v, tv, head)
    t = tb(frames, reduced_twice_msg(196))
    out += interleave([t for _ in range(8)], rng, 3, 8)
    when = clock.tick(1, 2).strftime("%Y-%m-%d_%H:%M:%S")
    thead = [("/opt/conda/bin/torchrun", 33, "<module>", "sys.exit(load_entry_point('torch==2.1.2', 'console_scripts', 'torchrun')())"),
             (f"{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", 346, "wrapper", "return f(*args, **kwargs)"),
             (f"{site}/torch/distributed/run.py", 806, "main", "run(args)"),
             (f"{site}/torch/distributed/run.py", 797, "run", "elastic_launch("),
             (f"{site}/torch/distributed/launcher/api.py", 134, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"),
             (f"{site}/torch/distributed/launcher/api.py", 264, "launch_agent", "raise ChildFailedError(")]
    out += torchrun_failure_21(clock, "finetune_embed.py", "dgx-l40s-02", [(3, 1, 9914), (0, 1, 9911), (6, 1, 9917), (1, 1, 9912)],
                               [9913, 9915, 9916, 9918], when, "/opt/conda/bin/python", thead)
    return Case(
        case_id="deepspeed-zero-gradient-computed-twice-hf-embed-zero1-02",
        label="deepspeed-zero-gradient-computed-twice", difficulty="medium",
        description="HF Trainer embedding fine-tune with ZeRO-1, gradient_checkpointing (reentrant default) and a compute_loss that runs the encoder twice; the assert fires on the first accumulation boundary (micro-step 4) on all 8 ranks, ChildFailedError last",
        files={"train.log": "\n".join(out)},
        facts={"launcher": "torchrun", "world_size": "8", "zero_stage": "1", "deepspeed_version": "0.12.6", "torch_version": "2.1.2"},
        must_mention=["use_reentrant", "gradient_checkpointing_kwargs"],
    )


def case_twice_vlm_one_rank() -> Case:
    rng = random.Random(503)
    clock = Clock("2024-06-03 01:12:30", rng)
    v, tv = "0.12.6", "2.1.2"
    L = DS_LOC[v]
    site = "/fsx/envs/vlm/lib/python3.10/site-packages"
    proj = "/fsx/users/hnguyen/vlm"
    W = 16
    out = ["+ srun -l --ntasks-per-node=8 --gpus-per-task=1 python train_vlm.py --config configs/vlm_7b_stage2.yaml --deepspeed_config configs/ds_z1_gas4.json",
           "SLURM_JOB_ID=220871 SLURM_NNODES=2 SLURM_JOB_NODELIST=p4d-st-[3,7] SLURM_JOB_USER=hnguyen"]
    out += interleave([ds_comm_setup(clock, L, r == 0, srun_prefix(r), (0.05, 0.2), (0.3, 0.8)) for r in range(W)], rng, 1, 2)
    p0 = srun_prefix(0)
    out += [p0 + "[vlm] vision tower: siglip-so400m (frozen), projector: 2-layer MLP 1152->4096, LLM: 7B (unfrozen)",
            p0 + "[vlm] activation checkpointing: reentrant, per image block and per LLM layer",
            p0 + "[vlm] data: 1.21M samples (multi-image ratio 3.8%)"]
    out += [p0 + ln for ln in ds_engine_init_lines(clock, v, 1, "torch.bfloat16", "adamw")]
    for r in range(W):
        out.append(srun_prefix(r) + f"{site}/torch/utils/checkpoint.py:429: {REENTRANT_WARN_21}")
        out.append(srun_prefix(r) + "  warnings.warn(")
    loss = 2.41
    for step in range(10, 320, 10):
        clock.tick(60, 66)
        loss = max(0.9, loss - rng.uniform(0.0, 0.05) + rng.uniform(-0.02, 0.02))
        out.append(p0 + ds_line(clock, L["log_dist"], f"[Rank 0] step={step}, skipped=0, lr=[{min(step, 500) * 2e-5 / 500:.6e}], mom=[(0.9, 0.95)]", lo=0, hi=0.01))
        out.append(p0 + f"step {step:>5} | loss {loss:.4f} | grad_norm {rng.uniform(0.6, 1.8):.3f} | tok/s/gpu {rng.randint(2900, 3300)} | {rng.uniform(6.0, 6.6):.2f}s/it")
    clock.tick(20, 30)
    head = [(f"{proj}/train_vlm.py", 388, "<module>", "main()"),
            (f"{proj}/train_vlm.py", 331, "main", "engine.backward(loss)")]
    t = tb(reduced_twice_frames(site, v, tv, head), reduced_twice_msg(402))
    out += [srun_prefix(5) + ln for ln in t]
    out.append("srun: error: p4d-st-3: task 5: Exited with exit code 1")
    blocks = []
    for r in range(W):
        if r == 5:
            continue
        ran = 1800000 + rng.randint(20, 900)
        blocks.append([srun_prefix(r) + ln for ln in watchdog_21(r, 25489, "ALLREDUCE", 262144000, 262144000, ran)])
    out += interleave(blocks, rng, 1, 3)
    out += ["srun: error: p4d-st-3: tasks 0-4,6-7: Aborted (core dumped)",
            "srun: launch/slurm: _step_signal: Terminating StepId=220871.0",
            "srun: error: p4d-st-7: tasks 8-15: Aborted (core dumped)"]
    return Case(
        case_id="deepspeed-zero-gradient-computed-twice-vlm-rank5-watchdog-03",
        label="deepspeed-zero-gradient-computed-twice", difficulty="hard",
        description="2-node VLM training, ZeRO-1 + reentrant checkpointing: only rank 5 got a two-image sample, so the projector's gradient arrived twice and it asserted at step ~320; the other 15 ranks hung in the ZeRO all-reduce and died 30 min later by NCCL watchdog (SIGABRT)",
        initiating_rank=5,
        files={"slurm-220871.out": "\n".join(out)},
        facts={"launcher": "srun", "world_size": "16", "num_nodes": "2", "zero_stage": "1", "deepspeed_version": "0.12.6",
               "failure_step": "310"},
        must_mention=["use_reentrant", "rank 5"],
        secrets=["hnguyen"],
    )


# ==================================================================================================
# deepspeed-launcher-ssh-unreachable
# ==================================================================================================

def case_ssh_first_host() -> Case:
    rng = random.Random(601)
    clock = Clock("2024-11-05 09:31:18", rng)
    v = "0.15.4"
    L = DS_LOC[v]
    site = "/usr/local/lib/python3.10/dist-packages"
    out = ["root@train-7c9f5d-0:/workspace# pip list 2>/dev/null | grep -iE '^(deepspeed|torch|transformers) '",
           "deepspeed                         0.15.4",
           "torch                             2.4.1",
           "transformers                      4.46.3",
           "root@train-7c9f5d-0:/workspace# cat /job/hostfile",
           "train-7c9f5d-0 slots=8",
           "train-7c9f5d-1 slots=8",
           "root@train-7c9f5d-0:/workspace# deepspeed train.py --deepspeed ds_config.json --model_name_or_path meta-llama/Meta-Llama-3-8B --output_dir /out",
           ds_line(clock, L["accel"], "Setting ds_accelerator to cuda (auto detect)", lo=1.0, hi=2.0)]
    out += tb([("/usr/local/bin/deepspeed", 6, "<module>", "main()"),
               (f"{site}/deepspeed/launcher/runner.py", 472, "main", "raise RuntimeError(")],
              "RuntimeError: Using hostfile at /job/hostfile but host=train-7c9f5d-0 was not reachable via ssh. If you are running with a single node please remove /job/hostfile or setup passwordless ssh.")
    out += ["root@train-7c9f5d-0:/workspace# ssh train-7c9f5d-1 hostname",
            "ssh: connect to host train-7c9f5d-1 port 22: Connection refused"]
    return Case(
        case_id="deepspeed-launcher-ssh-unreachable-precheck-01",
        label="deepspeed-launcher-ssh-unreachable", difficulty="easy",
        description="deepspeed launcher in a Kubernetes pod with /job/hostfile listing two pods; its ssh pre-check to the first host fails (no sshd/keys), RuntimeError 'was not reachable via ssh'",
        files={"console.txt": "\n".join(out)},
        facts={"deepspeed_version": "0.15.4", "torch_version": "2.4.1", "launcher": "deepspeed"},
        must_mention=["ssh", "hostfile"],
    )


def case_ssh_pdsh_hang() -> Case:
    rng = random.Random(602)
    clock = Clock("2024-03-19 23:05:41", rng)
    v = "0.12.6"
    L = DS_LOC[v]
    env = "/home/dmitri/miniconda3/envs/llm"
    proj = "/home/dmitri/projects/mixtral-ft"
    hosts = ["gpu-node-01", "gpu-node-02", "gpu-node-03", "gpu-node-04"]
    world = {h: list(range(8)) for h in hosts}
    import base64
    wi = base64.urlsafe_b64encode(json.dumps(world).encode()).decode()
    out = ["(llm) dmitri@gpu-node-01:~/projects/mixtral-ft$ deepspeed --hostfile hostfile --master_port 29511 train.py --deepspeed configs/z3.json --model mistralai/Mixtral-8x7B-v0.1 --bf16",
           ds_line(clock, L["accel"], "Setting ds_accelerator to cuda (auto detect)", lo=1.0, hi=2.0),
           ds_line(clock, L["runner_ip"], "Using IP address of 10.0.1.21 for node gpu-node-01", lo=0.4, hi=0.8),
           ds_line(clock, L["runner_workers"], "Running on the following workers: " + ",".join(hosts)),
           ds_line(clock, L["runner_cmd"], f"cmd = pdsh -S -f 1024 -w {','.join(hosts)} export NCCL_IB_HCA=mlx5_0,mlx5_1; export NCCL_DEBUG=WARN; "
                   f"export PYTHONPATH={proj}; cd {proj}; {env}/bin/python -u -m deepspeed.launcher.launch --world_info={wi} --node_rank=%n "
                   "--master_addr=10.0.1.21 --master_port=29511 train.py --deepspeed 'configs/z3.json' --model 'mistralai/Mixtral-8x7B-v0.1' --bf16")]
    node_lines = {}
    for n, h in enumerate(hosts):
        if n == 2:
            continue
        c = Clock("2024-03-19 23:05:44", random.Random(620 + n))
        b = [c_ for c_ in ds_launcher_header(c, v, world, n, "10.0.1.21", 29511, [], single_node=False,
                                             nccl_env={"NCCL_IB_HCA": "mlx5_0,mlx5_1", "NCCL_DEBUG": "WARN"})]
        for lr in range(8):
            b.append(ds_line(c, L["accel"], "Setting ds_accelerator to cuda (auto detect)", lo=0.2, hi=0.5))
        for lr in range(8):
            b.append(ds_line(c, L["cdb"], "cdb=None", lo=0.3, hi=0.6))
        if n == 0:
            b.append(ds_line(c, L["comm_init"], "Initializing TorchBackend in DeepSpeed with backend nccl"))
        node_lines[h] = [f"{h}: {x}" for x in b]
    out += ["gpu-node-03: ssh: connect to host gpu-node-03 port 22: No route to host",
            "pdsh@gpu-node-01: gpu-node-03: ssh exited with exit code 255"]
    out += interleave(list(node_lines.values()), rng, 1, 3)
    out += ["^Cpdsh@gpu-node-01: interrupt (one more within 1 sec to abort)",
            "pdsh@gpu-node-01:  (^Z within 1 sec to cancel pending threads)",
            "pdsh@gpu-node-01: gpu-node-01: command in progress",
            "pdsh@gpu-node-01: gpu-node-02: command in progress",
            "pdsh@gpu-node-01: gpu-node-04: command in progress"]
    kc = Clock("2024-03-19 23:21:09", rng)
    kill = []
    for n, h in enumerate(hosts):
        if n == 2:
            continue
        b = []
        for lr in range(8):
            b.append(f"{h}: " + ds_line(kc, L["launch_kill"], f"Killing subprocess {41200 + n * 100 + lr}", lo=0.01, hi=0.05))
        b.append(f"{h}: " + ds_line(kc, "launch.py:324:sigkill_handler", "Main process received SIGTERM, exiting", lo=0.5, hi=1.0))
        kill.append(b)
    out += interleave(kill, rng, 1, 3)
    out += ["pdsh@gpu-node-01: gpu-node-03: ssh exited with exit code 255",
            "pdsh@gpu-node-01: gpu-node-01: ssh exited with exit code 1",
            "pdsh@gpu-node-01: gpu-node-02: ssh exited with exit code 1",
            "pdsh@gpu-node-01: gpu-node-04: ssh exited with exit code 1",
            "(llm) dmitri@gpu-node-01:~/projects/mixtral-ft$"]
    return Case(
        case_id="deepspeed-launcher-ssh-unreachable-pdsh-hang-02",
        label="deepspeed-launcher-ssh-unreachable", difficulty="hard",
        description="4-node deepspeed/pdsh launch: gpu-node-03 unreachable (No route to host, ssh exit 255) right after the cmd line; the other 24 ranks start and hang in init for 15 min until the user hits Ctrl-C, so the log ends with interrupt/SIGTERM noise",
        files={"launch.log": "\n".join(out)},
        facts={"launcher": "deepspeed", "num_nodes": "4"},
        must_mention=["gpu-node-03", "ssh"],
        secrets=["dmitri"],
    )


def case_ssh_master_addr() -> Case:
    rng = random.Random(603)
    clock = Clock("2023-12-12 14:22:57", rng)
    v = "0.12.6"
    L = DS_LOC[v]
    site = "/opt/conda/lib/python3.10/site-packages"
    out = ["[azureuser@vm-ndv4-0 bloom-ft]$ python -c 'import deepspeed, torch; print(deepspeed.__version__, torch.__version__)'",
           "0.12.6 2.1.2+cu121",
           "[azureuser@vm-ndv4-0 bloom-ft]$ cat hostfile",
           "vm-ndv4-1 slots=8",
           "vm-ndv4-2 slots=8",
           "[azureuser@vm-ndv4-0 bloom-ft]$ deepspeed --hostfile hostfile --no_ssh_check finetune.py --deepspeed ds_z3.json --model bigscience/bloom-7b1",
           ds_line(clock, L["accel"], "Setting ds_accelerator to cuda (auto detect)", lo=1.0, hi=2.0),
           "Host key verification failed.",
           ds_line(clock, "runner.py:454:main", "Unable to detect suitable master address via `hostname -I`, please manually specify one via --master_addr", level="ERROR", lo=0.1, hi=0.3)]
    out += tb([("/opt/conda/bin/deepspeed", 6, "<module>", "main()"),
               (f"{site}/deepspeed/launcher/runner.py", 457, "main", "raise err"),
               (f"{site}/deepspeed/launcher/runner.py", 452, "main", "result = subprocess.check_output(hostname_cmd, shell=True)"),
               ("/opt/conda/lib/python3.10/subprocess.py", 421, "check_output", "return run(*popenargs, stdout=PIPE, timeout=timeout, check=True,"),
               ("/opt/conda/lib/python3.10/subprocess.py", 526, "run", "raise CalledProcessError(retcode, process.args,")],
              "subprocess.CalledProcessError: Command '['ssh  vm-ndv4-1 hostname -I']' returned non-zero exit status 255.")
    return Case(
        case_id="deepspeed-launcher-ssh-unreachable-master-addr-03",
        label="deepspeed-launcher-ssh-unreachable", difficulty="medium",
        description="--no_ssh_check skips the pre-flight, then the runner's 'ssh <first host> hostname -I' to find the master address fails with 'Host key verification failed.' (exit 255); the error text blames master-address detection",
        files={"console.txt": "\n".join(out)},
        facts={"deepspeed_version": "0.12.6", "launcher": "deepspeed", "exit_code": "255"},
        must_mention=["ssh", "known_hosts"],
    )


# Real output of evals/generators/programs/train_triplet.py (CPU torch), paths relocated to the user's machine.
TRIPLET_ANOMALY_RUN = '(metric) anikaw@xps13:~/src/metric$ python train_triplet.py --steps 200\nstep    0 loss 0.2538\nstep   20 loss nan\nstep   40 loss nan\nstep   60 loss nan\nstep   80 loss nan\nstep  100 loss nan\nstep  120 loss nan\nstep  140 loss nan\nstep  160 loss nan\nstep  180 loss nan\n(metric) anikaw@xps13:~/src/metric$ python train_triplet.py --steps 200 --detect-anomaly\nstep    0 loss 0.2538\n/home/anikaw/.venvs/metric/lib/python3.11/site-packages/torch/autograd/graph.py:979: UserWarning: Error detected in PowBackward0. Traceback of forward call that caused the error:\n  File "/home/anikaw/src/metric/train_triplet.py", line 51, in <module>\n    main()\n  File "/home/anikaw/src/metric/train_triplet.py", line 42, in main\n    loss = triplet_loss(model(a), model(p), model(n))\n  File "/home/anikaw/src/metric/train_triplet.py", line 22, in triplet_loss\n    return F.relu(euclidean(anchor, pos) - euclidean(anchor, neg) + margin).mean()\n  File "/home/anikaw/src/metric/train_triplet.py", line 18, in euclidean\n    return ((a - b) ** 2).sum(-1).sqrt()\n  File "/home/anikaw/.venvs/metric/lib/python3.11/site-packages/torch/_tensor.py", line 39, in wrapped\n    return f(self, *args, **kwargs)\n (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:122.)\n  return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass\nTraceback (most recent call last):\n  File "/home/anikaw/src/metric/train_triplet.py", line 51, in <module>\n    main()\n  File "/home/anikaw/src/metric/train_triplet.py", line 44, in main\n    loss.backward()\n  File "/home/anikaw/.venvs/metric/lib/python3.11/site-packages/torch/_tensor.py", line 623, in backward\n    torch.autograd.backward(\n  File "/home/anikaw/.venvs/metric/lib/python3.11/site-packages/torch/autograd/__init__.py", line 395, in backward\n    _engine_run_backward(\n  File "/home/anikaw/.venvs/metric/lib/python3.11/site-packages/torch/autograd/graph.py", line 979, in _engine_run_backward\n    return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass\n           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\nRuntimeError: Function \'PowBackward0\' returned nan values in its 0th output.\n(metric) anikaw@xps13:~/src/metric$ \n'

# Source of the CPU program whose real output is TRIPLET_ANOMALY_RUN (run: python train_triplet.py --steps 200 [--detect-anomaly]).
TRIPLET_PROGRAM = '"""Triplet-loss metric learning on product embeddings (CPU debug run)."""\nimport argparse\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\nclass Embedder(nn.Module):\n    def __init__(self, d_in=64, d=32):\n        super().__init__()\n        self.net = nn.Sequential(nn.Linear(d_in, 128), nn.ReLU(), nn.Linear(128, d))\n\n    def forward(self, x):\n        return self.net(x)\n\n\ndef euclidean(a, b):\n    return ((a - b) ** 2).sum(-1).sqrt()\n\n\ndef triplet_loss(anchor, pos, neg, margin=0.2):\n    return F.relu(euclidean(anchor, pos) - euclidean(anchor, neg) + margin).mean()\n\n\ndef main():\n    ap = argparse.ArgumentParser()\n    ap.add_argument("--steps", type=int, default=400)\n    ap.add_argument("--detect-anomaly", action="store_true")\n    args = ap.parse_args()\n    torch.manual_seed(7)\n    feats = torch.randn(2000, 64)\n    # catalogue dedup left exact duplicates: some "positive" pairs are the same item\n    pos_idx = torch.randint(0, 2000, (2000,))\n    dup = torch.rand(2000) < 0.01\n    pos_idx[dup] = torch.arange(2000)[dup]\n    model = Embedder()\n    opt = torch.optim.Adam(model.parameters(), lr=1e-3)\n    torch.autograd.set_detect_anomaly(args.detect_anomaly)\n    for step in range(args.steps):\n        idx = torch.randint(0, 2000, (64,))\n        a, p, n = feats[idx], feats[pos_idx[idx]], feats[torch.randint(0, 2000, (64,))]\n        loss = triplet_loss(model(a), model(p), model(n))\n        opt.zero_grad()\n        loss.backward()\n        opt.step()\n        if step % 20 == 0:\n            print(f"step {step:4d} loss {loss.item():.4f}", flush=True)\n\n\nif __name__ == "__main__":\n    main()\n'


# ==================================================================================================
# loss-nan
# ==================================================================================================

def case_nan_torchvision_detection() -> Case:
    rng = random.Random(701)
    out = ["$ python train.py --data-path /datasets/coco --dataset coco --model fasterrcnn_resnet50_fpn --epochs 26 --lr-steps 16 22 --aspect-ratio-group-factor 3 --weights-backbone ResNet50_Weights.IMAGENET1K_V1 --batch-size 2 --lr 0.02 --output-dir runs/frcnn_1gpu",
           "Not using distributed mode",
           "Namespace(data_path='/datasets/coco', dataset='coco', model='fasterrcnn_resnet50_fpn', device='cuda', batch_size=2, epochs=26, workers=4, opt='sgd', lr=0.02, momentum=0.9, weight_decay=0.0001, norm_weight_decay=None, lr_scheduler='multisteplr', lr_step_size=8, lr_steps=[16, 22], lr_gamma=0.1, print_freq=20, output_dir='runs/frcnn_1gpu', resume='', start_epoch=0, aspect_ratio_group_factor=3, rpn_score_thresh=None, trainable_backbone_layers=None, data_augmentation='hflip', sync_bn=False, test_only=False, use_deterministic_algorithms=False, world_size=1, dist_url='env://', weights=None, weights_backbone='ResNet50_Weights.IMAGENET1K_V1', amp=False, use_copypaste=False, backend='pil', use_v2=False, distributed=False)",
           "Loading data",
           "loading annotations into memory...",
           "Done (t=14.21s)",
           "creating index...",
           "index created!",
           "loading annotations into memory...",
           "Done (t=0.47s)",
           "creating index...",
           "index created!",
           "Creating data loaders",
           "Using [0, 0.5, 0.6299605249401762, 0.7937005259840998, 1.0, 1.2599210498938732, 1.5874010519681994, 2.0, inf] as bins for aspect ratio quantization",
           "Count of instances per bin: [  104   982 24236  2332  8225 74466  5763  1158]",
           "Creating model",
           "Start training"]
    vals = dict(loss=1.32, cls=0.42, box=0.38, obj=0.29, rpn=0.23)
    mem = 3911
    n = 58633
    for i in range(0, 1461, 20):
        k = 1.0 + (0.0 if i < 900 else (i - 900) / 160.0) ** 2
        vals = {a: b * rng.uniform(0.97, 1.01) * (1.0 if i < 900 else 1.0 + 0.06 * k) for a, b in vals.items()}
        tot = sum(v for kk, v in vals.items() if kk != "loss")
        eta_s = int((n - i) * 0.41)
        out.append(f"Epoch: [0]  [{i:>5}/{n}]  eta: {eta_s // 3600}:{eta_s % 3600 // 60:02d}:{eta_s % 60:02d}  lr: {min(0.02, 0.02 * (i + 1) / 1000 + 0.00002):.6f}  "
                   f"loss: {tot:.4f} ({tot * rng.uniform(0.95, 1.05):.4f})  loss_classifier: {vals['cls']:.4f} ({vals['cls'] * 0.97:.4f})  "
                   f"loss_box_reg: {vals['box']:.4f} ({vals['box'] * 0.98:.4f})  loss_objectness: {vals['obj']:.4f} ({vals['obj'] * 1.02:.4f})  "
                   f"loss_rpn_box_reg: {vals['rpn']:.4f} ({vals['rpn']:.4f})  time: {rng.uniform(0.38, 0.46):.4f}  data: {rng.uniform(0.004, 0.011):.4f}  max mem: {mem + i // 120}")
    out += ["Loss is nan, stopping training",
            "{'loss_classifier': tensor(nan, device='cuda:0', grad_fn=<NllLossBackward0>), 'loss_box_reg': tensor(nan, device='cuda:0', grad_fn=<DivBackward0>), 'loss_objectness': tensor(0.6931, device='cuda:0', grad_fn=<BinaryCrossEntropyWithLogitsBackward0>), 'loss_rpn_box_reg': tensor(nan, device='cuda:0', grad_fn=<DivBackward0>)}",
            "$ echo $?", "1"]
    return Case(
        case_id="loss-nan-torchvision-frcnn-lr-01",
        label="loss-nan", difficulty="easy",
        description="torchvision detection reference on one GPU with the 8-GPU learning rate (0.02 at batch 2): losses blow up after warm-up and the script stops with 'Loss is nan, stopping training'",
        files={"train.out": "\n".join(out)},
        facts={"launcher": "python", "exit_code": "1", "failure_step": "1460"},
        must_mention=["learning rate", "nan"],
    )


def case_nan_hf_multinomial() -> Case:
    rng = random.Random(702)
    clock = Clock("2024-08-15 13:20:02", rng)
    site = "/opt/conda/lib/python3.10/site-packages"
    proj = "/home/jovyan/work/tinyllama-cpt"
    out = ["+ torchrun --nproc_per_node 4 cpt.py --model_name_or_path TinyLlama/TinyLlama_v1.1 --train_file /data/cpt/legal_corpus.arrow --bf16 --learning_rate 3e-3 --lr_scheduler_type constant_with_warmup --evaluation_strategy no --warmup_steps 50 --per_device_train_batch_size 16 --gradient_accumulation_steps 4 --logging_steps 10 --output_dir /home/jovyan/work/out/cpt-legal --report_to none --sample_every 200"]
    for ln in ["", "*****************************************",
               "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
               "*****************************************"]:
        out.append(f"[{clock.ds(0.0, 0.001)}] torch.distributed.run: [WARNING] {ln}")
    out += [f"{site}/transformers/training_args.py:1525: FutureWarning: `evaluation_strategy` is deprecated and will be removed in version 4.46 of 🤗 Transformers. Use `eval_strategy` instead",
            "  warnings.warn("]
    out += ["[cpt] 1.10B params, seq_len 2048, 318,204 training sequences",
            "  0%|          | 0/1242 [00:00<?, ?it/s]"]
    loss = 2.31
    gn = 1.1
    for step in range(10, 201, 10):
        clock.tick(30, 33)
        if step <= 110:
            loss = loss * rng.uniform(0.965, 0.99)
            gn = rng.uniform(0.7, 1.6)
            rec = f"{{'loss': {loss:.4f}, 'grad_norm': {gn:.6f}, 'learning_rate': 0.003, 'epoch': {step / 1242:.2f}}}"
        elif step <= 140:
            loss = loss * rng.uniform(1.3, 2.2)
            gn = gn * rng.uniform(8, 40)
            rec = f"{{'loss': {loss:.4f}, 'grad_norm': {gn:.4f}, 'learning_rate': 0.003, 'epoch': {step / 1242:.2f}}}"
        elif step == 150:
            rec = f"{{'loss': 37.9114, 'grad_norm': inf, 'learning_rate': 0.003, 'epoch': {step / 1242:.2f}}}"
        else:
            rec = f"{{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 0.003, 'epoch': {step / 1242:.2f}}}"
        el = step * 31.2
        rem = (1242 - step) * 31.2

        def hms(x: float) -> str:  # tqdm: mm:ss below an hour, h:mm:ss above
            x = int(x)
            return f"{x // 60:02d}:{x % 60:02d}" if x < 3600 else f"{x // 3600}:{x % 3600 // 60:02d}:{x % 60:02d}"
        out.append(f" {step * 100 // 1242:>2d}%|{'█' * (step * 10 // 1242):<10}| {step}/1242 [{hms(el)}<{hms(rem)}, 31.{rng.randint(10, 60)}s/it]")
        out.append(rec)
    frames = [(f"{proj}/cpt.py", 214, "<module>", "main()"),
              (f"{proj}/cpt.py", 207, "main", "trainer.train()"),
              (f"{site}/transformers/trainer.py", 1938, "train", "return inner_training_loop("),
              (f"{site}/transformers/trainer.py", 2354, "_inner_training_loop", "self.control = self.callback_handler.on_step_end(args, self.state, self.control)"),
              (f"{site}/transformers/trainer_callback.py", 485, "on_step_end", 'return self.call_event("on_step_end", args, state, control)'),
              (f"{site}/transformers/trainer_callback.py", 507, "call_event", "result = getattr(callback, event)("),
              (f"{proj}/callbacks.py", 33, "on_step_end", "out = model.generate(**enc, max_new_tokens=64, do_sample=True, top_p=0.9, temperature=0.8)"),
              (f"{site}/torch/utils/_contextlib.py", 115, "decorate_context", "return func(*args, **kwargs)"),
              (f"{site}/transformers/generation/utils.py", 2024, "generate", "result = self._sample("),
              (f"{site}/transformers/generation/utils.py", 3020, "_sample", "next_tokens = torch.multinomial(probs, num_samples=1).squeeze(1)")]
    t = tb(frames, "RuntimeError: probability tensor contains either `inf`, `nan` or element < 0")
    out += ["[rank0]: " + ln for ln in t]
    when = clock.tick(2, 4).strftime("%Y-%m-%d_%H:%M:%S")
    out += [f"[{clock.ds(0.001, 0.01)}] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process {p} closing signal SIGTERM" for p in (3312, 3313, 3314)]
    out.append(f"[{clock.ds(0.5, 1.0)}] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 0 (pid: 3311) of binary: /opt/conda/bin/python")
    head = [("/opt/conda/bin/torchrun", 8, "<module>", "sys.exit(main())"),
            (f"{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", 347, "wrapper", "return f(*args, **kwargs)"),
            (f"{site}/torch/distributed/run.py", 879, "main", "run(args)"),
            (f"{site}/torch/distributed/run.py", 870, "run", "elastic_launch("),
            (f"{site}/torch/distributed/launcher/api.py", 132, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"),
            (f"{site}/torch/distributed/launcher/api.py", 263, "launch_agent", "raise ChildFailedError(")]
    out += tb(head, "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ")
    out += child_failed_summary("cpt.py", "jupyter-lab-gpu-4x-h100", when, [(0, 1, 3311)])
    return Case(
        case_id="loss-nan-hf-cpt-multinomial-02",
        label="loss-nan", difficulty="hard",
        description="bf16 continued pre-training of a 1.1B model with lr 3e-3: grad_norm explodes, the HF log then shows 'loss': 0.0 / grad_norm nan (NaN hidden by logging_nan_inf_filter) and the run dies in a sampling callback with the multinomial 'inf/nan' error",
        initiating_rank=0,
        files={"cpt.log": "\n".join(out)},
        facts={"launcher": "torchrun", "precision": "bf16", "failure_step": "200"},
        must_mention=["learning rate", "NaN", "grad_norm"],
    )


def case_nan_triplet_anomaly() -> Case:
    return Case(
        case_id="loss-nan-triplet-sqrt-anomaly-cpu-03",
        label="loss-nan", difficulty="easy",
        description="real CPU run: triplet loss with Euclidean distance on duplicated positives; sqrt at 0 gives an infinite derivative, loss nan from step 20; with anomaly detection PowBackward0 returns nan",
        files={"session.txt": TRIPLET_ANOMALY_RUN.rstrip("$ \n") + "$ echo $?\n1\n(metric) anikaw@xps13:~/src/metric$ \n"},
        facts={"launcher": "python", "exit_code": "1"},
        must_mention=["sqrt", "eps"],
        secrets=["anikaw"],
    )


def case_nan_sklearn_eval() -> Case:
    rng = random.Random(704)
    site = "/usr/local/lib/python3.10/dist-packages"
    proj = "/root/churn"
    out = ["root@a100-vm:~/churn# python train_cls.py --model microsoft/deberta-v3-large --train data/tickets_train.parquet --eval data/tickets_val.parquet --bf16 --lr 1e-4 --epochs 3 --bs 32 --eval_steps 500",
           f"{site}/transformers/convert_slow_tokenizer.py:473: UserWarning: The sentencepiece tokenizer that you are converting to a fast tokenizer uses the byte fallback option which is not implemented in the fast tokenizers. In practice this means that the fast version of the tokenizer can produce unknown tokens whereas the sentencepiece version would have converted these unknown tokens into a sequence of byte tokens matching the original piece of text.",
           "  warnings.warn(",
           "Some weights of DebertaV2ForSequenceClassification were not initialized from the model checkpoint at microsoft/deberta-v3-large and are newly initialized: ['classifier.bias', 'classifier.weight', 'pooler.dense.bias', 'pooler.dense.weight']",
           "You should probably TRAIN this model on a down-stream task to be able to use it for predictions and inference.",
           "Map: 100%|██████████| 184220/184220 [00:41<00:00, 4473.08 examples/s]",
           "Map: 100%|██████████| 9800/9800 [00:02<00:00, 4601.55 examples/s]",
           "  0%|          | 0/17271 [00:00<?, ?it/s]"]
    loss = 0.6931
    for step in range(50, 501, 50):
        if step <= 250:
            loss = loss * rng.uniform(0.9, 0.99)
            rec = f"{{'loss': {loss:.4f}, 'learning_rate': {1e-4 * step / 500 if step < 500 else 1e-4:.4e}, 'epoch': {step / 5757:.2f}}}"
        elif step == 300:
            rec = f"{{'loss': 0.5127, 'learning_rate': {1e-4 * step / 500:.4e}, 'epoch': {step / 5757:.2f}}}"
        else:
            rec = f"{{'loss': 0.0, 'learning_rate': {min(1e-4, 1e-4 * step / 500):.4e}, 'epoch': {step / 5757:.2f}}}"
        out.append(f"  {step * 100 // 17271}%|          | {step}/17271 [{step * 0.41 // 60:02.0f}:{int(step * 0.41 % 60):02d}<1:5{rng.randint(0, 9)}:{rng.randint(10, 59)},  2.4{rng.randint(0, 9)}it/s]")
        out.append(rec)
    out += ["",
            "  0%|          | 0/307 [00:00<?, ?it/s]",
            "100%|██████████| 307/307 [00:38<00:00,  8.07it/s]"]
    frames = [(f"{proj}/train_cls.py", 171, "<module>", "main()"),
              (f"{proj}/train_cls.py", 164, "main", "trainer.train()"),
              (f"{site}/transformers/trainer.py", 1537, "train", "return inner_training_loop("),
              (f"{site}/transformers/trainer.py", 1914, "_inner_training_loop", "self._maybe_log_save_evaluate(tr_loss, model, trial, epoch, ignore_keys_for_eval)"),
              (f"{site}/transformers/trainer.py", 2268, "_maybe_log_save_evaluate", "metrics = self.evaluate(ignore_keys=ignore_keys_for_eval)"),
              (f"{site}/transformers/trainer.py", 3019, "evaluate", "output = eval_loop("),
              (f"{site}/transformers/trainer.py", 3310, "evaluation_loop", "metrics = self.compute_metrics(EvalPrediction(predictions=all_preds, label_ids=all_labels))"),
              (f"{proj}/metrics.py", 19, "compute_metrics", '"auroc": roc_auc_score(labels, probs[:, 1]),'),
              (f"{site}/sklearn/utils/_param_validation.py", 214, "wrapper", "return func(*args, **kwargs)"),
              (f"{site}/sklearn/metrics/_ranking.py", 606, "roc_auc_score", "y_score = check_array(y_score, ensure_2d=False)"),
              (f"{site}/sklearn/utils/validation.py", 957, "check_array", "_assert_all_finite("),
              (f"{site}/sklearn/utils/validation.py", 122, "_assert_all_finite", "_assert_all_finite_element_wise("),
              (f"{site}/sklearn/utils/validation.py", 171, "_assert_all_finite_element_wise", "raise ValueError(msg_err)")]
    out += tb(frames, "ValueError: Input contains NaN.")
    out += ["  3%|▎         | 500/17271 [03:31<1:54:12,  2.45it/s]"]
    return Case(
        case_id="loss-nan-deberta-eval-sklearn-04",
        label="loss-nan", difficulty="hard",
        description="DeBERTa-v3-large classifier, bf16, lr 1e-4: training diverges around step 300 (HF log shows 'loss': 0.0 because NaN is filtered), and the first evaluation fails in scikit-learn roc_auc_score with 'Input contains NaN.'",
        files={"train.log": "\n".join(out)},
        facts={"launcher": "python", "precision": "bf16", "failure_step": "500"},
        must_mention=["NaN", "learning rate"],
    )


# ==================================================================================================
# fp16-loss-scale-underflow
# ==================================================================================================

def overflow_cascade(clock: Clock, v: str, start_scale: int, hysteresis: bool, prefix: str = "", step0: int = 0,
                     step_lines: bool = True, lr: str = "0.0003", skipped0: int = 0, every: int = 1) -> tuple[list[str], int]:
    L = DS_LOC[v]
    out = []
    scale = start_scale
    step = step0
    skipped = skipped0
    if hysteresis:
        step += 1
        skipped += 1
        out.append(prefix + ds_line(clock, "loss_scaler.py:190:update_scale",
                                    f"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {scale}, but hysteresis is 2. Reducing hysteresis to 1", lo=5, hi=7))
    while scale > 1:
        step += 1
        skipped += 1
        out.append(prefix + ds_line(clock, "loss_scaler.py:183:update_scale",
                                    f"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {scale}, reducing to {scale // 2}", lo=5, hi=7))
        scale //= 2
        if step_lines and step % 10 == 0:
            out.append(prefix + ds_line(clock, L["log_dist"], f"[Rank 0] step={step}, skipped={skipped}, lr=[{lr}], mom=[(0.9, 0.95)]", lo=0, hi=0.01))
    return out, step


def loss_scale_exc_frames(site: str, v: str, stage: int) -> list[tuple]:
    eng = {"0.9.5": (2053, 1960), "0.12.6": (2148, 2054)}[v]
    fr = [(f"{site}/deepspeed/runtime/engine.py", eng[0], "step", "self._take_model_step(lr_kwargs)"),
          (f"{site}/deepspeed/runtime/engine.py", eng[1], "_take_model_step", "self.optimizer.step()")]
    if stage in (1, 2):
        ln = {"0.9.5": (1657, 1906), "0.12.6": (1778, 2029)}[v]
        fr += [(f"{site}/deepspeed/runtime/zero/stage_1_and_2.py", ln[0], "step", "self._update_scale(self.overflow)"),
               (f"{site}/deepspeed/runtime/zero/stage_1_and_2.py", ln[1], "_update_scale", "self.loss_scaler.update_scale(has_overflow)")]
    else:
        ln = {"0.9.5": (1807, 1757, 2079), "0.12.6": (1946, 1894, 2281)}[v]
        fr += [(f"{site}/deepspeed/utils/nvtx.py", 15, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
               (f"{site}/deepspeed/runtime/zero/stage3.py", ln[0], "step", "if self._overflow_check_and_loss_scale_update():"),
               (f"{site}/deepspeed/utils/nvtx.py", 15, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
               (f"{site}/deepspeed/runtime/zero/stage3.py", ln[1], "_overflow_check_and_loss_scale_update", "self._update_scale(self.overflow)"),
               (f"{site}/deepspeed/runtime/zero/stage3.py", ln[2], "_update_scale", "self.loss_scaler.update_scale(has_overflow)")]
    fr.append((f"{site}/deepspeed/runtime/fp16/loss_scaler.py", 175, "update_scale", "raise Exception("))
    return fr


MIN_SCALE_EXC = "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run."


def case_fp16_ds_v100_spike() -> Case:
    rng = random.Random(801)
    clock = Clock("2023-06-27 04:10:33", rng)
    v = "0.9.5"
    L = DS_LOC[v]
    site = "/opt/conda/lib/python3.10/site-packages"
    proj = "/workspace/gpt-1.3b"
    out = ["+ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv",
           "name, driver_version, memory.total [MiB]"] + ["Tesla V100-SXM2-32GB, 470.182.03, 32768 MiB"] * 8
    out += ["+ deepspeed --num_gpus 8 train_gpt.py --config configs/gpt1.3b.yaml --deepspeed_config configs/ds_fp16_z2.json --resume runs/gpt1.3b/latest"]
    world = {"localhost": list(range(8))}
    script = ["train_gpt.py", "--config", "configs/gpt1.3b.yaml", "--deepspeed_config", "configs/ds_fp16_z2.json", "--resume", "runs/gpt1.3b/latest"]
    out += [h.replace("/usr/bin/python3", "/opt/conda/bin/python") for h in ds_launcher_header(clock, v, world, 0, "127.0.0.1", 29500, script) if "Detected" not in h]
    out += ["[train] resumed at step 4100 (tokens seen 8.6B), loss scale 32768.0"]
    loss = 2.71
    step = 4100
    for step in range(4110, 4211, 10):
        clock.tick(55, 60)
        loss *= rng.uniform(0.997, 1.001)
        out.append(ds_line(clock, L["log_dist"], f"[Rank 0] step={step}, skipped={37 + (1 if step == 4160 else 0) + (1 if step > 4160 else 0)}, lr=[0.00019731], mom=[(0.9, 0.95)]", lo=0, hi=0.01))
        out.append(f"iter {step:6d} | loss {loss:.4f} | lr 1.973e-04 | loss_scale {32768.0 if step < 4160 else 16384.0:.1f} | {rng.uniform(5.4, 5.7):.2f} s/it")
        if step == 4150:
            out.append(ds_line(clock, "loss_scaler.py:183:update_scale", "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 32768, reducing to 16384", lo=2, hi=4))
    out += ["iter   4213 | loss 3.9876 | lr 1.973e-04 | loss_scale 16384.0 | 5.61 s/it",
            "iter   4214 | loss 7.2210 | lr 1.973e-04 | loss_scale 16384.0 | 5.58 s/it"]
    casc, _ = overflow_cascade(clock, v, 16384, hysteresis=False, step0=4214, lr="0.00019731", skipped0=39)
    out += casc
    frames = [(f"{proj}/train_gpt.py", 287, "<module>", "main()"),
              (f"{proj}/train_gpt.py", 241, "main", "model_engine.step()")] + loss_scale_exc_frames(site, v, 2)
    out += interleave([tb(frames, MIN_SCALE_EXC) for _ in range(8)], rng, 1, 4)
    out += ds_sigkill_handler(clock, L, [20177 + i for i in range(8)], "/opt/conda/bin/python", script, 7, (0.2, 0.5))
    return Case(
        case_id="fp16-loss-scale-underflow-ds-v100-spike-01",
        label="fp16-loss-scale-underflow", difficulty="easy",
        description="GPT 1.3B, ZeRO-2 fp16 on 8x V100: a loss spike at step ~4213, then every step overflows, the scale halves from 16384 to 1 and DeepSpeed raises 'Current loss scale already at minimum'",
        files={"train.log": "\n".join(out)},
        facts={"gpu_model": "Tesla V100-SXM2-32GB", "gpu_count": "8", "driver_version": "470.182.03", "launcher": "deepspeed",
               "precision": "fp16", "world_size": "8"},
        must_mention=["overflow", "loss scale"],
    )


def case_fp16_hf_t5_t4() -> Case:
    rng = random.Random(802)
    clock = Clock("2024-02-02 18:40:12", rng)
    v = "0.12.6"
    L = DS_LOC[v]
    site = "/opt/conda/lib/python3.10/site-packages"
    proj = "/home/jupyter/summarize"
    out = ["$ accelerate launch --use_deepspeed --zero_stage 2 --mixed_precision fp16 --num_processes 4 train_summ.py --model google/flan-t5-large --dataset cnn_dailymail --fp16 --per_device_train_batch_size 4 --learning_rate 3e-4"]
    for ln in ["", "*****************************************",
               "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
               "*****************************************"]:
        out.append(f"[{clock.ds(0.0, 0.001)}] torch.distributed.run: [WARNING] {ln}")
    out += interleave([ds_comm_setup(clock, L, r == 0, "", (0.5, 1.0), (0.5, 1.0)) for r in range(4)], rng, 1, 2)
    out += [f"{clock.tick(0.1, 0.3).strftime('%m/%d/%Y %H:%M:%S')} - INFO - __main__ - Distributed environment: DEEPSPEED  Backend: nccl",
            "Num processes: 4",
            "Process index: 0",
            "Local process index: 0",
            "Device: cuda:0",
            "",
            "Mixed precision type: fp16",
            "ds_config: {'train_batch_size': 'auto', 'train_micro_batch_size_per_gpu': 'auto', 'gradient_accumulation_steps': 1, 'zero_optimization': {'stage': 2, 'offload_optimizer': {'device': 'none', 'nvme_path': None}, 'offload_param': {'device': 'none', 'nvme_path': None}, 'stage3_gather_16bit_weights_on_model_save': False}, 'gradient_clipping': 1.0, 'steps_per_print': inf, 'fp16': {'enabled': True, 'auto_cast': True}, 'bf16': {'enabled': False}, 'zero_allow_untested_optimizer': True}",
            "",
            f"{clock.tick(0.01, 0.05).strftime('%m/%d/%Y %H:%M:%S')} - INFO - __main__ - GPU: Tesla T4 (compute capability 7.5) x4; bf16 not available, using fp16",
            "Map: 100%|██████████| 287113/287113 [02:11<00:00, 2183.54 examples/s]"]
    out += ds_engine_init_lines(clock, v, 2, "torch.float16", "adamw")
    out += ["  0%|          | 0/17945 [00:00<?, ?it/s]"]
    casc, _ = overflow_cascade(clock, v, 65536, hysteresis=True, step_lines=False)
    prog = []
    for i, ln in enumerate(casc):
        prog.append(ln)
        prog.append(f"  0%|          | {i + 1}/17945 [00:{(i + 1) * 6 // 60:02d}:{(i + 1) * 6 % 60:02d}<29:4{rng.randint(0, 9)}:{rng.randint(10, 59)},  5.9{rng.randint(0, 9)}s/it]".replace("[00:00:", "[00:").replace("[00:01:", "[01:"))
    out += prog
    head = [(f"{proj}/train_summ.py", 322, "<module>", "main()"),
            (f"{proj}/train_summ.py", 268, "main", "accelerator.backward(loss)"),
            (f"{site}/accelerate/accelerator.py", 1899, "backward", "self.deepspeed_engine_wrapped.backward(loss, **kwargs)"),
            (f"{site}/accelerate/utils/deepspeed.py", 176, "backward", "self.engine.step()")]
    frames = head + loss_scale_exc_frames(site, v, 2)
    out += interleave([tb(frames, MIN_SCALE_EXC) for _ in range(4)], rng, 2, 5)
    when = clock.tick(1, 2).strftime("%Y-%m-%d_%H:%M:%S")
    thead = [("/opt/conda/bin/accelerate", 8, "<module>", "sys.exit(main())"),
             (f"{site}/accelerate/commands/accelerate_cli.py", 47, "main", "args.func(args)"),
             (f"{site}/accelerate/commands/launch.py", 1002, "launch_command", "deepspeed_launcher(args)"),
             (f"{site}/accelerate/commands/launch.py", 718, "deepspeed_launcher", "distrib_run.run(args)"),
             (f"{site}/torch/distributed/run.py", 797, "run", "elastic_launch("),
             (f"{site}/torch/distributed/launcher/api.py", 134, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"),
             (f"{site}/torch/distributed/launcher/api.py", 264, "launch_agent", "raise ChildFailedError(")]
    out += torchrun_failure_21(clock, "train_summ.py", "summ-t4-vm", [(0, 1, 7741), (1, 1, 7742), (3, 1, 7744)], [7743], when,
                               "/opt/conda/bin/python", thead)
    return Case(
        case_id="fp16-loss-scale-underflow-flan-t5-t4-02",
        label="fp16-loss-scale-underflow", difficulty="medium",
        description="accelerate + DeepSpeed ZeRO-2 fp16 fine-tune of flan-t5-large (bf16-pretrained, overflows in fp16) on 4x T4: overflow from the first step, scale 65536 -> 1 in 17 steps, exception inside accelerator.backward -> engine.step, ChildFailedError last",
        files={"train.log": "\n".join(out)},
        facts={"gpu_model": "Tesla T4", "launcher": "accelerate", "precision": "fp16", "world_size": "4", "zero_stage": "2",
               "deepspeed_version": "0.12.6"},
        must_mention=["fp16", "overflow", "T5"],
    )


def case_fp16_fairseq() -> Case:
    rng = random.Random(803)
    t = dt.datetime(2023, 5, 10, 7, 58, 40)

    def ts(sec: float) -> str:
        nonlocal t
        t += dt.timedelta(seconds=sec)
        return t.strftime("%Y-%m-%d %H:%M:%S")

    env = "/opt/conda/lib/python3.8/site-packages"
    out = ["$ fairseq-train data-bin/wmt17_en_de --arch transformer_vaswani_wmt_en_de_big --share-all-embeddings --optimizer adam --adam-betas '(0.9, 0.98)' --clip-norm 0.0 --lr 0.001 --lr-scheduler inverse_sqrt --warmup-updates 4000 --dropout 0.3 --weight-decay 0.0 --criterion label_smoothed_cross_entropy --label-smoothing 0.1 --max-tokens 4096 --update-freq 4 --fp16 --save-dir checkpoints/wmt17_big --restore-file checkpoint_last.pt",
           f"{ts(0)} | INFO | fairseq.distributed.utils | distributed init (rank 0): tcp://localhost:18224",
           f"{ts(1)} | INFO | fairseq.distributed.utils | distributed init (rank 1): tcp://localhost:18224",
           f"{ts(0)} | INFO | torch.distributed.distributed_c10d | Added key: store_based_barrier_key:1 to store for rank: 1",
           f"{ts(0)} | INFO | torch.distributed.distributed_c10d | Added key: store_based_barrier_key:1 to store for rank: 0",
           f"{ts(0)} | INFO | torch.distributed.distributed_c10d | Rank 0: Completed store-based barrier for key:store_based_barrier_key:1 with 2 nodes.",
           f"{ts(0)} | INFO | fairseq.distributed.utils | initialized host v100-dev as rank 0",
           f"{ts(0)} | INFO | fairseq.distributed.utils | initialized host v100-dev as rank 1",
           f"{ts(1)} | INFO | fairseq_cli.train | {{'_name': None, 'common': {{'_name': None, 'no_progress_bar': False, 'log_interval': 100, 'log_format': None, 'log_file': None, 'aim_repo': None, 'aim_run_hash': None, 'tensorboard_logdir': None, 'wandb_project': None, 'azureml_logging': False, 'seed': 1, 'cpu': False, 'tpu': False, 'bf16': False, 'memory_efficient_bf16': False, 'fp16': True, 'memory_efficient_fp16': False, 'fp16_no_flatten_grads': False, 'fp16_init_scale': 128, 'fp16_scale_window': None, 'fp16_scale_tolerance': 0.0, 'on_cpu_convert_precision': False, 'min_loss_scale': 0.0001, 'threshold_loss_scale': None, 'amp': False, 'amp_batch_retries': 2, 'amp_init_scale': 128, 'amp_scale_window': None, 'user_dir': None, 'empty_cache_freq': 0, 'all_gather_list_size': 16384, 'model_parallel_size': 1, 'quantization_config_path': None, 'profile': False, 'reset_logging': False, 'suppress_crashes': False, 'use_plasma_view': False, 'plasma_path': '/tmp/plasma'}}, ...}}",
           f"{ts(2)} | INFO | fairseq.tasks.translation | [en] dictionary: 32768 types",
           f"{ts(0)} | INFO | fairseq.tasks.translation | [de] dictionary: 32768 types",
           f"{ts(9)} | INFO | fairseq_cli.train | TransformerModel(",
           "  (encoder): TransformerEncoderBase(",
           "    (dropout_module): FairseqDropout()",
           "    (embed_tokens): Embedding(32768, 1024, padding_idx=1)",
           "    (embed_positions): SinusoidalPositionalEmbedding()",
           "    (layers): ModuleList(",
           "      (0-5): 6 x TransformerEncoderLayerBase(...)",
           "    )",
           "  )",
           "  (decoder): TransformerDecoderBase(...)",
           ")",
           f"{ts(0)} | INFO | fairseq_cli.train | task: TranslationTask",
           f"{ts(0)} | INFO | fairseq_cli.train | model: TransformerModel",
           f"{ts(0)} | INFO | fairseq_cli.train | criterion: LabelSmoothedCrossEntropyCriterion",
           f"{ts(0)} | INFO | fairseq_cli.train | num. shared model params: 209,911,808 (num. trained: 209,911,808)",
           f"{ts(1)} | INFO | fairseq.utils | ***********************CUDA enviroments for all 2 workers***********************",
           f"{ts(0)} | INFO | fairseq.utils | rank   0: capabilities =  7.0  ; total memory = 31.749 GB ; name = Tesla V100-SXM2-32GB",
           f"{ts(0)} | INFO | fairseq.utils | rank   1: capabilities =  7.0  ; total memory = 31.749 GB ; name = Tesla V100-SXM2-32GB",
           f"{ts(0)} | INFO | fairseq.utils | ***********************CUDA enviroments for all 2 workers***********************",
           f"{ts(0)} | INFO | fairseq_cli.train | training on 2 devices (GPUs/TPUs)",
           f"{ts(0)} | INFO | fairseq_cli.train | max tokens per device = 4096 and max sentences per device = None",
           f"{ts(3)} | INFO | fairseq.trainer | Preparing to load checkpoint checkpoints/wmt17_big/checkpoint_last.pt",
           f"{ts(6)} | INFO | fairseq.trainer | Loaded checkpoint checkpoints/wmt17_big/checkpoint_last.pt (epoch 6 @ 21840 updates)",
           f"{ts(0)} | INFO | fairseq.trainer | loading train data for epoch 6",
           f"{ts(4)} | INFO | fairseq.data.data_utils | loaded 5,906,184 examples from: data-bin/wmt17_en_de/train.en-de.en",
           f"{ts(0)} | INFO | fairseq.data.data_utils | loaded 5,906,184 examples from: data-bin/wmt17_en_de/train.en-de.de",
           f"{ts(0)} | INFO | fairseq.tasks.translation | data-bin/wmt17_en_de train en-de 5906184 examples",
           f"{ts(2)} | INFO | fairseq.trainer | begin training epoch 6",
           f"{ts(0)} | INFO | fairseq_cli.train | Start iterating over samples"]
    upd = 21840
    loss = 4.112
    scale = 64
    for i in range(1, 13):
        upd += 100
        if i <= 9:
            loss *= rng.uniform(0.997, 1.002)
        else:
            loss *= rng.uniform(1.15, 1.5)
        gn = rng.uniform(0.28, 0.36) if i <= 9 else rng.uniform(2.5, 9.0) * i
        out.append(f"{ts(rng.uniform(96, 101))} | INFO | train_inner | epoch 006:    {i * 100:>4} / 3640 loss={loss:.3f}, nll_loss={loss * 0.72:.3f}, ppl={2 ** (loss * 0.72):.2f}, wps={rng.uniform(37000, 38500):.1f}, ups={rng.uniform(1.0, 1.05):.2f}, wpb={rng.uniform(30100, 30300):.1f}, bsz={rng.uniform(1020, 1050):.1f}, num_updates={upd}, lr={0.001 * (4000 ** 0.5) / (upd ** 0.5):.6g}, gnorm={gn:.3f}, loss_scale={scale}, train_wall={rng.randint(95, 99)}, gb_free={rng.uniform(9.1, 10.4):.1f}, wall={int((t - dt.datetime(2023, 5, 10, 7, 58, 40)).total_seconds())}")
    s = float(scale)
    while True:
        s /= 2
        if s <= 0.0001:
            break
        out.append(f"{ts(rng.uniform(0.9, 1.2))} | INFO | fairseq.trainer | NOTE: gradient overflow detected, ignoring gradient, setting loss scale to: {s}")
    out += [f"{ts(1)} | INFO | fairseq.trainer | Saving checkpoint to /home/kwame/mt/checkpoints/wmt17_big/crash.pt",
            f"{ts(9)} | INFO | fairseq.trainer | Finished saving checkpoint to /home/kwame/mt/checkpoints/wmt17_big/crash.pt",
            f"{ts(1)} | WARNING | fairseq.nan_detector | Inf detected in output of decoder.layers.4.fc2, shape: torch.Size([2304, 4, 1024]), forward"]
    frames = [("/opt/conda/bin/fairseq-train", 8, "<module>", "sys.exit(cli_main())"),
              (f"{env}/fairseq_cli/train.py", 557, "cli_main", "distributed_utils.call_main(cfg, main)"),
              (f"{env}/fairseq/distributed/utils.py", 369, "call_main", "main(cfg, **kwargs)"),
              (f"{env}/fairseq_cli/train.py", 190, "main", "valid_losses, should_stop = train(cfg, trainer, task, epoch_itr)"),
              ("/opt/conda/lib/python3.8/contextlib.py", 75, "inner", "return func(*args, **kwds)"),
              (f"{env}/fairseq_cli/train.py", 316, "train", "log_output = trainer.train_step(samples)"),
              ("/opt/conda/lib/python3.8/contextlib.py", 75, "inner", "return func(*args, **kwds)"),
              (f"{env}/fairseq/trainer.py", 930, "train_step", "grad_norm = self.clip_grad_norm(self.cfg.optimization.clip_norm)"),
              (f"{env}/fairseq/trainer.py", 1264, "clip_grad_norm", "return self.optimizer.clip_grad_norm("),
              (f"{env}/fairseq/optim/fp16_optimizer.py", 201, "clip_grad_norm", "self.scaler.check_overflow(grad_norm)"),
              (f"{env}/fairseq/optim/dynamic_loss_scaler.py", 61, "check_overflow", "raise FloatingPointError(")]
    out += tb(frames, "FloatingPointError: Minimum loss scale reached (0.0001). Your loss is probably exploding. Try lowering the learning rate, using gradient clipping or increasing the batch size.")
    return Case(
        case_id="fp16-loss-scale-underflow-fairseq-wmt-03",
        label="fp16-loss-scale-underflow", difficulty="easy",
        description="fairseq transformer-big fp16 on 2x V100, --clip-norm 0: loss and gnorm climb after ~900 updates, fairseq halves the loss scale every step down to the minimum and raises FloatingPointError (NanDetector finds Inf in decoder fc2)",
        files={"train.log": "\n".join(out)},
        facts={"gpu_model": "Tesla V100-SXM2-32GB", "precision": "fp16", "world_size": "2"},
        must_mention=["overflow", "clip"],
        secrets=["kwame"],
    )


def case_fp16_bf16_ckpt_v100() -> Case:
    rng = random.Random(804)
    clock = Clock("2024-01-09 20:31:05", rng)
    v = "0.12.6"
    L = DS_LOC[v]
    site = "/opt/conda/lib/python3.10/site-packages"
    proj = "/mnt/work/ft-13b"
    out = ["WARNING:torch.distributed.run:",
           "*****************************************",
           "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
           "*****************************************"]
    out = ["+ torchrun --nproc_per_node 8 --tee 3 finetune.py --config cfg/13b_v100.yaml --resume /mnt/ckpt/13b-a100-run/ --deepspeed cfg/ds_z3_fp16.json"] + out
    out += interleave([ds_comm_setup(clock, L, lr == 0, f"[default{lr}]:", (0.3, 0.8), (0.5, 1.0)) for lr in range(8)], rng, 1, 2)
    p0 = "[default0]:"
    out += [p0 + "[ft] device: Tesla V100-SXM2-32GB (sm_70) x8 -> bf16 unsupported, switching precision to fp16",
            p0 + ds_line(clock, "partition_parameters.py:348:__exit__", "finished initializing model - num_params = 363, num_elems = 13.02B", lo=30, hi=40)]
    out += [p0 + ln for ln in ds_engine_init_lines(clock, v, 3, "torch.float16", "adamw")]
    blocks = []
    for lr in range(8):
        p = f"[default{lr}]:"
        blocks.append([p + ds_line(clock, "torch_checkpoint_engine.py:27:load", f"[Torch] Loading checkpoint from /mnt/ckpt/13b-a100-run/global_step3000/zero_pp_rank_{lr}_mp_rank_00_model_states.pt...", lo=0.2, hi=0.4),
                       p + ds_line(clock, "torch_checkpoint_engine.py:29:load", f"[Torch] Loaded checkpoint from /mnt/ckpt/13b-a100-run/global_step3000/zero_pp_rank_{lr}_mp_rank_00_model_states.pt.", lo=5, hi=9)])
    out += interleave(blocks, rng, 1, 1)
    out += [p0 + ds_line(clock, "engine.py:2999:_get_all_zero_checkpoints", "Loading bf16 zero checkpoints into fp16 training engine", level="WARNING", lo=1, hi=2),
            p0 + ds_line(clock, "torch_checkpoint_engine.py:27:load", "[Torch] Loading checkpoint from /mnt/ckpt/13b-a100-run/global_step3000/bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt...", lo=0.1, hi=0.2),
            p0 + ds_line(clock, "torch_checkpoint_engine.py:29:load", "[Torch] Loaded checkpoint from /mnt/ckpt/13b-a100-run/global_step3000/bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt.", lo=20, hi=30),
            p0 + ds_line(clock, "engine.py:2988:_get_all_zero_checkpoint_state_dicts", "successfully read 8 ZeRO state_dicts for rank 0", lo=0.1, hi=0.3),
            p0 + ds_line(clock, "engine.py:2920:_load_zero_checkpoint", "loading 8 zero partition checkpoints for rank 0", lo=5, hi=8),
            p0 + "[ft] resumed from global_step3000, continuing at step 3001"]
    casc, _ = overflow_cascade(clock, v, 65536, hysteresis=True, prefix=p0, step0=3000, lr="1.5e-05", skipped0=0)
    out += casc
    head = [(f"{proj}/finetune.py", 402, "<module>", "main()"),
            (f"{proj}/finetune.py", 355, "main", "engine.step()")]
    t = tb(head + loss_scale_exc_frames(site, v, 3), MIN_SCALE_EXC)
    out += interleave([[f"[default{lr}]:" + ln for ln in t] for lr in range(8)], rng, 2, 6)
    out += ["WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 66012 closing signal SIGTERM",
            "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 66005) of binary: /opt/conda/bin/python"]
    head2 = [("/opt/conda/bin/torchrun", 33, "<module>", "sys.exit(load_entry_point('torch==2.0.1', 'console_scripts', 'torchrun')())"),
             (f"{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", 346, "wrapper", "return f(*args, **kwargs)"),
             (f"{site}/torch/distributed/run.py", 794, "main", "run(args)"),
             (f"{site}/torch/distributed/run.py", 785, "run", "elastic_launch("),
             (f"{site}/torch/distributed/launcher/api.py", 134, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"),
             (f"{site}/torch/distributed/launcher/api.py", 250, "launch_agent", "raise ChildFailedError(")]
    out += tb(head2, "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ")
    when = clock.t.strftime("%Y-%m-%d_%H:%M:%S")
    out += child_failed_summary("finetune.py", "v100-train-03", when,
                                [(0, 1, 66005)] + [(lr, 1, pid) for lr, pid in [(3, 66008), (1, 66006), (5, 66010), (2, 66007),
                                                                                (4, 66009), (6, 66011)]])
    return Case(
        case_id="fp16-loss-scale-underflow-bf16-ckpt-on-v100-04",
        label="fp16-loss-scale-underflow", difficulty="medium",
        description="13B ZeRO-3 run trained in bf16 on A100s resumed in fp16 on 8x V100 ('Loading bf16 zero checkpoints into fp16 training engine'): every step overflows from the first resumed step, the scale falls 65536 -> 1 and DeepSpeed stops; torchrun summary last",
        files={"train.log": "\n".join(out)},
        facts={"launcher": "torchrun", "precision": "fp16", "zero_stage": "3", "world_size": "8", "deepspeed_version": "0.12.6"},
        must_mention=["fp16", "bf16", "overflow"],
    )


# ==================================================================================================
# bf16-unsupported
# ==================================================================================================

def case_bf16_hf_colab_t4() -> Case:
    rng = random.Random(901)
    site = "/usr/local/lib/python3.10/dist-packages"
    hf_tok = fake_hf_token(rng)
    out = ["!nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv",
           "name, compute_cap, driver_version",
           "Tesla T4, 7.5, 535.104.05",
           "!pip -q install transformers==4.36.2 accelerate==0.25.0 peft==0.7.1 bitsandbytes==0.41.3 datasets trl==0.7.4",
           "!python -c \"import torch; print(torch.__version__, torch.cuda.is_bf16_supported())\"",
           "2.1.0+cu121 False",
           f"!HF_TOKEN={hf_tok} python qlora_sft.py --model_id meta-llama/Llama-2-7b-chat-hf --dataset timdettmers/openassistant-guanaco --bf16 True --output_dir /content/out",
           "2024-01-15 09:12:44.101883: E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261] Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered",
           "2024-01-15 09:12:44.101950: E external/local_xla/xla/stream_executor/cuda/cuda_fft.cc:607] Unable to register cuFFT factory: Attempting to register factory for plugin cuFFT when one has already been registered",
           "2024-01-15 09:12:44.103312: E external/local_xla/xla/stream_executor/cuda/cuda_blas.cc:1515] Unable to register cuBLAS factory: Attempting to register factory for plugin cuBLAS when one has already been registered",
           "2024-01-15 09:12:45.392106: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find TensorRT"]
    frames = [("/content/qlora_sft.py", 148, "<module>", "main()"),
              ("/content/qlora_sft.py", 93, "main", "model_args, data_args, training_args = parser.parse_args_into_dataclasses()"),
              (f"{site}/transformers/hf_argparser.py", 338, "parse_args_into_dataclasses", "obj = dtype(**inputs)"),
              ("<string>", 124, "__init__", ""),
              (f"{site}/transformers/training_args.py", 1438, "__post_init__", "raise ValueError(")]
    out += tb(frames, "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU with cuda>=11.0")
    return Case(
        case_id="bf16-unsupported-hf-trainer-colab-t4-01",
        label="bf16-unsupported", difficulty="easy",
        description="Colab T4 (compute capability 7.5), torch 2.1 + transformers 4.36: --bf16 True fails in TrainingArguments.__post_init__ with \"Your setup doesn't support bf16/gpu\"",
        files={"colab_output.txt": "\n".join(out)},
        facts={"gpu_model": "Tesla T4", "compute_capability": "7.5", "driver_version": "535.104.05", "transformers_version": "4.36.2",
               "launcher": "python", "precision": "bf16"},
        must_mention=["fp16", "T4"],
        secrets=[hf_tok],
    )


def case_bf16_lightning_v100() -> Case:
    site = "/opt/conda/lib/python3.10/site-packages"
    proj = "/workspace/seg"
    out = ["(base) root@v100-dev:/workspace/seg# python train.py fit --config configs/segformer_b2.yaml --trainer.precision bf16-mixed",
           "Seed set to 42",
           "Using bfloat16 Automatic Mixed Precision (AMP)",
           "GPU available: True (cuda), used: True",
           "TPU available: False, using: 0 TPU cores",
           "IPU available: False, using: 0 IPUs",
           "HPU available: False, using: 0 HPUs",
           "LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0]",
           "",
           "  | Name      | Type                             | Params",
           "-------------------------------------------------------------------",
           "0 | model     | SegformerForSemanticSegmentation | 27.4 M",
           "1 | loss_fn   | CrossEntropyLoss                 | 0     ",
           "2 | train_iou | MulticlassJaccardIndex           | 0     ",
           "3 | val_iou   | MulticlassJaccardIndex           | 0     ",
           "-------------------------------------------------------------------",
           "27.4 M    Trainable params",
           "0         Non-trainable params",
           "27.4 M    Total params",
           "109.420   Total estimated model params size (MB)",
           "Sanity Checking: |          | 0/? [00:00<?, ?it/s]",
           "Sanity Checking:   0%|          | 0/2 [00:00<?, ?it/s]",
           "Sanity Checking DataLoader 0:   0%|          | 0/2 [00:00<?, ?it/s]"]
    L = f"{site}/lightning/pytorch"
    frames = [(f"{proj}/train.py", 41, "<module>", "cli_main()"),
              (f"{proj}/train.py", 37, "cli_main", "LightningCLI(SegModule, ADE20KDataModule, save_config_kwargs={\"overwrite\": True})"),
              (f"{L}/cli.py", 388, "__init__", "self._run_subcommand(self.subcommand)"),
              (f"{L}/cli.py", 679, "_run_subcommand", "fn(**fn_kwargs)"),
              (f"{L}/trainer/trainer.py", 544, "fit", "call._call_and_handle_interrupt("),
              (f"{L}/trainer/call.py", 44, "_call_and_handle_interrupt", "return trainer_fn(*args, **kwargs)"),
              (f"{L}/trainer/trainer.py", 580, "_fit_impl", "self._run(model, ckpt_path=ckpt_path)"),
              (f"{L}/trainer/trainer.py", 987, "_run", "results = self._run_stage()"),
              (f"{L}/trainer/trainer.py", 1031, "_run_stage", "self._run_sanity_check()"),
              (f"{L}/trainer/trainer.py", 1060, "_run_sanity_check", "val_loop.run()"),
              (f"{L}/loops/utilities.py", 182, "_decorator", "return loop_run(self, *args, **kwargs)"),
              (f"{L}/loops/evaluation_loop.py", 135, "run", "self._evaluation_step(batch, batch_idx, dataloader_idx, dataloader_iter)"),
              (f"{L}/loops/evaluation_loop.py", 396, "_evaluation_step", "output = call._call_strategy_hook(trainer, hook_name, *step_args)"),
              (f"{L}/trainer/call.py", 309, "_call_strategy_hook", "output = fn(*args, **kwargs)"),
              (f"{L}/strategies/strategy.py", 409, "validation_step", "with self.precision_plugin.val_step_context():"),
              ("/opt/conda/lib/python3.10/contextlib.py", 135, "__enter__", "return next(self.gen)"),
              (f"{L}/plugins/precision/precision.py", 176, "val_step_context", "with self.forward_context():"),
              ("/opt/conda/lib/python3.10/contextlib.py", 135, "__enter__", "return next(self.gen)"),
              (f"{L}/plugins/precision/amp.py", 122, "forward_context", "with self.autocast_context_manager():"),
              (f"{L}/plugins/precision/amp.py", 116, "autocast_context_manager",
               'return torch.autocast(self.device, dtype=(torch.bfloat16 if self.precision == "bf16-mixed" else torch.half))'),
              (f"{site}/torch/amp/autocast_mode.py", 234, "__init__",
               "raise RuntimeError('Current CUDA Device does not support bfloat16. Please switch dtype to float16.')")]
    out += tb(frames, "RuntimeError: Current CUDA Device does not support bfloat16. Please switch dtype to float16.")
    out += ["(base) root@v100-dev:/workspace/seg# nvidia-smi -L",
            "GPU 0: Tesla V100-SXM2-16GB (UUID: GPU-6f0c2b91-8d3e-4a57-b1c0-22e7f95a4d38)"]
    return Case(
        case_id="bf16-unsupported-lightning-autocast-v100-02",
        label="bf16-unsupported", difficulty="easy",
        description="Lightning 2.2 with precision bf16-mixed on a V100 and torch 2.0: torch.autocast refuses bf16 during the sanity check ('Current CUDA Device does not support bfloat16')",
        files={"console.txt": "\n".join(out)},
        facts={"gpu_model": "Tesla V100-SXM2-16GB", "launcher": "python", "precision": "bf16"},
        must_mention=["16-mixed", "V100"],
    )


def case_bf16_accelerate_v100() -> Case:
    rng = random.Random(903)
    clock = Clock("2024-05-21 16:44:10", rng)
    site = "/home/jlee/.conda/envs/diff/lib/python3.10/site-packages"
    proj = "/home/jlee/proj/ddpm-ft"
    out = ["(diff) jlee@dgx1-02:~/proj/ddpm-ft$ accelerate env",
           "",
           "Copy-and-paste the text below in your GitHub issue",
           "",
           "- `Accelerate` version: 0.25.0",
           "- Platform: Linux-4.15.0-213-generic-x86_64-with-glibc2.27",
           "- Python version: 3.10.13",
           "- Numpy version: 1.26.3",
           "- PyTorch version (GPU?): 2.1.2+cu118 (True)",
           "- PyTorch XPU available: False",
           "- PyTorch NPU available: False",
           "- System RAM: 503.79 GB",
           "- GPU type: Tesla V100-SXM2-32GB",
           "- `Accelerate` default config:",
           "\t- compute_environment: LOCAL_MACHINE",
           "\t- distributed_type: MULTI_GPU",
           "\t- mixed_precision: bf16",
           "\t- use_cpu: False",
           "\t- debug: False",
           "\t- num_processes: 4",
           "\t- machine_rank: 0",
           "\t- num_machines: 1",
           "\t- gpu_ids: 0,1,2,3",
           "\t- rdzv_backend: static",
           "\t- same_network: True",
           "\t- main_training_function: main",
           "\t- downcast_bf16: no",
           "\t- tpu_use_cluster: False",
           "\t- tpu_use_sudo: False",
           "\t- tpu_env: []",
           "(diff) jlee@dgx1-02:~/proj/ddpm-ft$ accelerate launch train_unet.py --pretrained runwayml/stable-diffusion-v1-5 --train_data_dir data/pokemon --resolution 512 --train_batch_size 4 --max_train_steps 15000"]
    for ln in ["", "*****************************************",
               "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
               "*****************************************"]:
        out.append(f"[{clock.ds(0.0, 0.001)}] torch.distributed.run: [WARNING] {ln}")
    frames = [(f"{proj}/train_unet.py", 512, "<module>", "main()"),
              (f"{proj}/train_unet.py", 187, "main", "accelerator = Accelerator("),
              (f"{site}/accelerate/accelerator.py", 450, "__init__",
               'raise ValueError(err.format(mode="bf16", requirement="PyTorch >= 1.10 and a supported device."))')]
    t = tb(frames, "ValueError: bf16 mixed precision requires PyTorch >= 1.10 and a supported device.")
    out += interleave([t for _ in range(4)], rng, 1, 3)
    clock.tick(1, 2)
    when = clock.t.strftime("%Y-%m-%d_%H:%M:%S")
    thead = [("/home/jlee/.conda/envs/diff/bin/accelerate", 8, "<module>", "sys.exit(main())"),
             (f"{site}/accelerate/commands/accelerate_cli.py", 47, "main", "args.func(args)"),
             (f"{site}/accelerate/commands/launch.py", 1008, "launch_command", "multi_gpu_launcher(args)"),
             (f"{site}/accelerate/commands/launch.py", 666, "multi_gpu_launcher", "distrib_run.run(args)"),
             (f"{site}/torch/distributed/run.py", 797, "run", "elastic_launch("),
             (f"{site}/torch/distributed/launcher/api.py", 134, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"),
             (f"{site}/torch/distributed/launcher/api.py", 264, "launch_agent", "raise ChildFailedError(")]
    out += torchrun_failure_21(clock, "train_unet.py", "dgx1-02", [(0, 1, 118230), (1, 1, 118231), (2, 1, 118232), (3, 1, 118233)], [],
                               when, "/home/jlee/.conda/envs/diff/bin/python", thead)
    return Case(
        case_id="bf16-unsupported-accelerate-v100-misleading-03",
        label="bf16-unsupported", difficulty="medium",
        description="accelerate config with mixed_precision: bf16 on a DGX-1 (4x V100, torch 2.1.2): every rank fails in Accelerator() with 'requires PyTorch >= 1.10 and a supported device', misleading because torch is 2.1; ChildFailedError last",
        files={"console.txt": "\n".join(out)},
        facts={"gpu_model": "Tesla V100-SXM2-32GB", "torch_version": "2.1.2", "cuda_version": "11.8", "accelerate_version": "0.25.0",
               "launcher": "accelerate", "world_size": "4", "precision": "bf16", "python_version": "3.10.13"},
        must_mention=["fp16", "V100"],
        secrets=["jlee"],
    )


# ==================================================================================================

CASES = [
    case_batch_ds_launcher, case_batch_hf_torchrun, case_batch_gas_zero_mpirun, case_batch_pipe_tp_srun,
    case_build_gcc_fused_adam, case_build_ninja_path, case_build_cpu_adam_no_cuda_home, case_build_link_curand_multirank,
    case_build_cuda_mismatch, case_build_fused_adam_no_cuda_home,
    case_z3_load_state_dict, case_z3_functional_embedding, case_z3_rank0_callback_watchdog,
    case_topo_ds_launcher, case_topo_hf_resume, case_topo_slurm_partition,
    case_twice_biencoder, case_twice_hf_trainer, case_twice_vlm_one_rank,
    case_ssh_first_host, case_ssh_pdsh_hang, case_ssh_master_addr,
    case_nan_torchvision_detection, case_nan_hf_multinomial, case_nan_triplet_anomaly, case_nan_sklearn_eval,
    case_fp16_ds_v100_spike, case_fp16_hf_t5_t4, case_fp16_fairseq, case_fp16_bf16_ckpt_v100,
    case_bf16_hf_colab_t4, case_bf16_lightning_v100, case_bf16_accelerate_v100,
]


def main() -> None:
    args = parser(__doc__.splitlines()[0]).parse_args()
    for make in CASES:
        c = with_ordered_timestamps(make())
        write_case(args.out, c)
        print(f"{c.case_id}: {', '.join(c.files)}")


if __name__ == "__main__":
    main()
