"""Fact rules: one declaration per way a fact shows up in a real log, in priority order.

Each rule names the fact, a pattern with a comment naming the log line it targets, and how the
captured text becomes the value (docs/facts.md has the value formats). The first rule that matches
a fact wins for ``first`` facts; ``last`` facts keep the latest match (the step at failure).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from service.facts.gpus import normalise_model


@dataclass(frozen=True)
class FactRule:
    id: str
    fact: str
    pattern: re.Pattern[str]
    value: Callable[[re.Match[str]], str | None] = lambda m: m.group(1)
    keep: str = "first"  # "first" or "last"
    prefilter: str = ""  # a cheap substring the line must contain


def _rule(
    id: str,
    fact: str,
    pattern: str,
    value: Callable[[re.Match[str]], str | None] | None = None,
    *,
    keep: str = "first",
    prefilter: str = "",
    flags: int = 0,
) -> FactRule:
    return FactRule(id, fact, re.compile(pattern, flags), value or (lambda m: m.group(1)), keep, prefilter)


def _gpu(m: re.Match[str]) -> str | None:
    name = normalise_model(m.group(1))
    return name if re.search(r"\d", name) and len(name) < 60 else None


def _precision_from_flag(m: re.Match[str]) -> str:
    return {"fp16": "fp16", "half": "fp16", "bf16": "bf16", "bfloat16": "bf16", "fp8": "fp8"}[m.group(1).lower()]


def _signal_name(m: re.Match[str]) -> str:
    return m.group(1).upper() if m.group(1).upper().startswith("SIG") else "SIG" + m.group(1).upper()


FACT_RULES: tuple[FactRule, ...] = (
    # --- GPU model ---
    # collect_env: "GPU 0: NVIDIA H100 80GB HBM3"
    _rule("collect_env.gpu", "gpu_model", r"^\s*GPU \d+: (NVIDIA [^\n(]+?|Tesla [^\n(]+?)\s*$", _gpu, prefilter="GPU "),
    # nvidia-smi table: "|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |"
    _rule("nvidia_smi.gpu", "gpu_model", r"\|\s+\d+\s+(NVIDIA [A-Za-z0-9][\w .-]*?|Tesla [\w .-]+?)\s{2,}(?:On|Off)\s+\|", _gpu, prefilter="|"),
    # torch/accelerate/DeepSpeed start-up: "device name: NVIDIA GeForce RTX 4090", "GPU: NVIDIA L4"
    _rule("startup.gpu", "gpu_model", r"(?:device name|GPU name|GPU type|GPU)\s*[:=]\s*'?(NVIDIA [\w .-]+?|Tesla [\w .-]+?)'?\s*(?:[,)]|$)", _gpu, flags=re.I),
    # OOM message: "GPU 0 has a total capacity of 79.15 GiB" gives no name; error lines like
    # "CUDA error ... on device NVIDIA H100 80GB HBM3"
    _rule("inline.gpu", "gpu_model", r"\b(NVIDIA (?:GeForce |Tesla |RTX )?(?:[ABHLTV]\d{1,3}[A-Z]?|RTX ?\d{4}|GB?\d{3})[\w-]*(?: \d+GB)?(?: (?:HBM3e?|PCIe|SXM\d?))?)", _gpu),
    # nvidia-smi -L: "GPU 0: NVIDIA A10G (UUID: GPU-...)"
    _rule("nvidia_smi_l.gpu", "gpu_model", r"^\s*GPU \d+: (NVIDIA [^(]+?) \(UUID", _gpu),
    # --- compute capability printed outright ---
    # torch warnings: "CUDA capability sm_90 is not compatible", "with CUDA capability sm_120"
    _rule("printed.arch", "gpu_arch", r"CUDA capability (sm_\d+)"),
    # "Device compute capability 8.6", "compute capability (8, 0)"
    _rule("printed.cc", "compute_capability", r"compute capability[ :=]*\(?(\d+)[.,] ?(\d)\)?", lambda m: f"{m.group(1)}.{m.group(2)}", flags=re.I),
    # --- driver and CUDA ---
    # nvidia-smi header: "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |"
    _rule("nvidia_smi.driver", "driver_version", r"Driver Version:\s*([\d.]+)", prefilter="Driver Version"),
    # collect_env: "Nvidia driver version: 535.104.05"
    _rule("collect_env.driver", "driver_version", r"Nvidia driver version:\s*([\d.]+)", flags=re.I),
    # dmesg: "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15"
    _rule("dmesg.driver", "driver_version", r"NVIDIA UNIX \S+ Kernel Module\s+([\d.]+)"),
    # collect_env: "CUDA used to build PyTorch: 12.1"
    _rule("collect_env.cuda", "cuda_version", r"CUDA used to build PyTorch:\s*(\d+\.\d+)"),
    # "torch 2.1.2+cu121", "torch==2.1.2+cu118", "PyTorch version: 2.1.2+cu121"
    _rule("torch_tag.cuda", "cuda_version", r"\b(?:py)?torch\S*\s*(?:==|version:?|\s)\s*\d+\.\d+\.\d+\+cu(\d{2,3})", lambda m: f"{m.group(1)[:-1]}.{m.group(1)[-1]}", flags=re.I),
    # ds_report: "torch cuda version ............... 12.1"
    _rule("ds_report.cuda", "cuda_version", r"torch cuda version \.+ (\d+\.\d+)"),
    # "CUDA runtime version: 12.1.105" (collect_env)
    _rule("collect_env.cuda_rt", "cuda_version", r"CUDA runtime version:\s*(\d+\.\d+)"),
    # NCCL: "NCCL version 2.18.1+cuda12.1"
    _rule("nccl.cuda", "cuda_version", r"NCCL version [\d.]+\+cuda(\d+\.\d+)"),
    # --- library versions ---
    # collect_env: "PyTorch version: 2.1.2+cu121"; ds_report: "torch version .... 2.1.2+cu121"
    _rule("collect_env.torch", "torch_version", r"(?:PyTorch version:|torch version \.+)\s*(\d+\.\d+\.\d+)"),
    # pip list / freeze: "torch                     2.1.2" / "torch==2.1.2+cu121"
    _rule("pip.torch", "torch_version", r"^\s*torch(?:==|\s{2,})(\d+\.\d+\.\d+)", flags=re.M),
    # "torch 2.1.2+cu121" in banners, "Torch version: 2.0.1"
    _rule("banner.torch", "torch_version", r"\b(?:torch|pytorch)(?: version)?[ :=]+v?(\d+\.\d+\.\d+)(?:\+\w+)?\b", flags=re.I),
    # "NCCL INFO NCCL version 2.18.1+cuda12.1"; collect_env "NCCL version: 2.18.1" ; "NCCL version (2, 18, 1)"
    _rule("nccl.version", "nccl_version", r"NCCL version:? ?(\d+\.\d+\.\d+)", prefilter="NCCL"),
    _rule("nccl.tuple", "nccl_version", r"NCCL version \((\d+), (\d+), (\d+)\)", lambda m: ".".join(m.groups())),
    # ds_report: "deepspeed info ................... 0.12.6, unknown, unknown"; "DeepSpeed info: version=0.14.0"
    _rule("ds_report.version", "deepspeed_version", r"deepspeed info \.+ (\d+\.\d+\.\d+)"),
    _rule("ds_info.version", "deepspeed_version", r"DeepSpeed info: version=(\d+\.\d+\.\d+)"),
    _rule("pip.deepspeed", "deepspeed_version", r"^\s*deepspeed(?:==|\s{2,})(\d+\.\d+\.\d+)", flags=re.M | re.I),
    _rule("pip.transformers", "transformers_version", r"^\s*transformers(?:==|\s{2,}|\s+version:?\s*)(\d+\.\d+\.\d+)", flags=re.I),
    _rule("pip.accelerate", "accelerate_version", r"^\s*(?:- )?`?accelerate`? (?:version: )?(\d+\.\d+\.\d+)|^\s*accelerate(?:==|\s{2,})(\d+\.\d+\.\d+)", lambda m: m.group(1) or m.group(2), flags=re.I),
    _rule("pip.flash_attn", "flash_attn_version", r"^\s*flash[-_]attn(?:==|\s{2,})(\d+\.\d+\.\d+)", flags=re.I),
    # collect_env: "Python version: 3.10.12 (main, ...)"; "Python 3.10.12"
    _rule("collect_env.python", "python_version", r"Python version:\s*(\d+\.\d+\.\d+)"),
    _rule("banner.python", "python_version", r"^\s*Python (\d+\.\d+\.\d+)\s*$"),
    # --- launcher ---
    _rule("cmd.torchrun", "launcher", r"(\btorchrun\b|torch\.distributed\.run|torch\.distributed\.launch|torch/distributed/elastic)", lambda m: "torchrun"),
    _rule("cmd.deepspeed", "launcher", r"(\[launch\.py:\d+:main\]|deepspeed/launcher/|\bdeepspeed --|\brunner\.py:\d+:main\] cmd = )", lambda m: "deepspeed"),
    _rule("cmd.accelerate", "launcher", r"(\baccelerate launch\b|accelerate/commands/launch\.py)", lambda m: "accelerate"),
    _rule("cmd.srun", "launcher", r"(\bsrun\b[^\n]*--|slurmstepd)", lambda m: "srun"),
    _rule("cmd.mpirun", "launcher", r"(\bmpirun\b|\bmpiexec\b|Open MPI|PRTE)", lambda m: "mpirun"),
    _rule("cmd.ray", "launcher", r"(\bray\.train\b|RayTrainWorker|ray\.exceptions)", lambda m: "ray"),
    # --- topology ---
    # torchrun header: "world_size=8", DeepSpeed: "world_size=64", NCCL: "nRanks 64"
    _rule("kv.world_size", "world_size", r"\bworld[_ ]size[\"']?\s*[=:]\s*(\d+)", flags=re.I),
    # DeepSpeed config print: "  world_size ................... 16"
    _rule("ds_print.world_size", "world_size", r"\bworld_size \.+ (\d+)"),
    _rule("nccl.nranks", "world_size", r"\bnranks (\d+)", flags=re.I),
    _rule("kv.nnodes", "num_nodes", r"\b(?:nnodes|SLURM_NNODES|num_nodes)\s*[=:]\s*['\"]?(\d+)", flags=re.I),
    # --- precision and optimizer ---
    # HF TrainingArguments: "bf16=True", DeepSpeed config: '"bf16": {"enabled": true'
    _rule("hf.bf16", "precision", r"\bbf16\s*=\s*True\b", lambda m: "bf16"),
    _rule("hf.fp16", "precision", r"\bfp16\s*=\s*True\b", lambda m: "fp16"),
    _rule("ds.bf16", "precision", r"\"bf16\":\s*\{\s*\"enabled\":\s*true", lambda m: "bf16", flags=re.I),
    _rule("ds.fp16", "precision", r"\"fp16\":\s*\{\s*\"enabled\":\s*true", lambda m: "fp16", flags=re.I),
    # accelerate / flags: "--mixed_precision bf16", "mixed_precision: fp16", "precision=bf16-mixed"
    _rule("flag.precision", "precision", r"(?:mixed[_-]precision|precision)[\"']?\s*[=: ]\s*[\"']?(fp16|bf16|fp8|half|bfloat16)\b", _precision_from_flag, flags=re.I),
    # DeepSpeed: "Using DeepSpeed Optimizer param name adamw as basic optimizer"; "Basic Optimizer = FusedAdam"
    _rule("ds.optimizer", "optimizer", r"(?:Basic Optimizer = |DeepSpeed Basic Optimizer = )(\w+)"),
    _rule("ds.cpu_adam", "optimizer", r"\b(DeepSpeedCPUAdam)\b"),
    _rule("trace.fused_adam", "optimizer", r"\b(FusedAdam|FusedLamb)\b"),
    _rule("hf.optim", "optimizer", r"\boptim\s*=\s*(?:OptimizerNames\.)?([\w]+)", lambda m: m.group(1)),
    # DeepSpeed config: '"stage": 3' inside zero_optimization; "ZeRO Stage 3"
    _rule("ds.zero_stage", "zero_stage", r"(?:zero_optimization[^\n]*\"stage\":\s*|\"stage\":\s*|ZeRO[ -]?[Ss]tage[ :=]*|zero_stage[=: ]+)(\d)"),
    # --- OOM figures ---
    # "Tried to allocate 2.50 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.02 GiB is free."
    _rule("oom.tried", "oom_tried_to_allocate", r"Tried to allocate (\d+(?:\.\d+)? [KMGT]i?B)", prefilter="Tried to allocate"),
    _rule("oom.total", "oom_total_capacity", r"total capacity of (\d+(?:\.\d+)? [KMGT]i?B)"),
    _rule("oom.free_new", "oom_free", r"of which (\d+(?:\.\d+)? [KMGT]i?B) is free"),
    _rule("oom.free_old", "oom_free", r"(\d+(?:\.\d+)? [KMGT]i?B) free;"),
    _rule("oom.allocated", "oom_allocated", r"(\d+(?:\.\d+)? [KMGT]i?B) (?:is )?allocated by PyTorch|(\d+(?:\.\d+)? [KMGT]i?B) already allocated", lambda m: m.group(1) or m.group(2)),
    _rule("oom.reserved_unalloc", "oom_reserved_unallocated", r"(\d+(?:\.\d+)? [KMGT]i?B) is reserved by PyTorch but unallocated"),
    _rule("oom.reserved", "oom_reserved", r"(\d+(?:\.\d+)? [KMGT]i?B) reserved in total by PyTorch"),
    # --- exits and signals ---
    # torchrun: "exitcode  : -9 (pid: 1234)"; elastic: "failed (exitcode: 1) local_rank: 0"
    _rule("torchrun.exitcode", "exit_code", r"exit ?code\s*[:=]\s*(-?\d+)", flags=re.I),
    _rule("shell.exit", "exit_code", r"exited with (?:exit )?code (-?\d+)|returned non-zero exit status (-?\d+)", lambda m: m.group(1) or m.group(2)),
    # "Signal 9 (SIGKILL) received by PID"; "died with <Signals.SIGKILL: 9>"; "error_file: <N/A> ... Signal 15"
    _rule("signal.name", "signal", r"\b(SIGKILL|SIGTERM|SIGSEGV|SIGABRT|SIGBUS|SIGHUP|SIGINT)\b", _signal_name),
    # --- hardware ---
    # dmesg: "NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus."
    _rule("dmesg.xid", "xid", r"NVRM: Xid \([^)]*\): (\d+)", prefilter="Xid"),
    # --- progress ---
    # HF Trainer/tqdm: " 37%|███▋      | 1850/5000 [..."; "step 1200"; "global_step=1200"; "iteration 1200/"
    _rule("tqdm.step", "failure_step", r"\|\s*(\d+)/\d+ \[", keep="last", prefilter="|"),
    _rule("log.step", "failure_step", r"\b(?:global_step|step|iteration|iter)[\s=:]+(\d+)\b", keep="last", flags=re.I),
)
