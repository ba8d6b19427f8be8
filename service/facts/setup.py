"""The run's set-up as its log shows it, beyond the fact rules: the environment variables it prints
(``env:NAME``) and the launch command's arguments (``arg:--name``, ``arg:program``, ``arg:script``).
Read from the masked log; ``crashdoc diff`` compares them between a failed run and a good one.
"""

from __future__ import annotations

import re
import shlex

from service.models import MaskedLog

# An environment variable a training log prints: "export NCCL_DEBUG=INFO", "NCCL_IB_HCA=mlx5_0 torchrun ...",
# "[rank0]: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"; only the families that change a run's behaviour.
_ENV = re.compile(r"(?<![\w./-])((?:NCCL|CUDA|TORCH|PYTORCH|OMP|MASTER|WORLD|LOCAL|NODE|HF|TRANSFORMERS|ACCELERATE|DS|DEEPSPEED|"
                  r"FI|UCX|NVIDIA|XLA|TOKENIZERS|MKL|CUBLAS|CUDNN|TRITON|SLURM_(?:NTASKS|NNODES|GPUS|CPUS)\w*)_?[A-Z0-9_]*)"
                  r"=([^\s;'\"]+)")
# A message that suggests a setting rather than shows one: "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.",
# "try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation"
_SUGGESTION = re.compile(r"\b(?:consider|try|might|should|recommend|suggest|to avoid|you can)\b", re.I)
# The launch command: "$ torchrun --nproc_per_node=8 train.py --lr 3e-4", "+ deepspeed --include localhost:0,1 sft.py ...",
# "accelerate launch --config_file ...", "srun --ntasks=32 python train.py", "python -m torch.distributed.run ..."
_LAUNCH = re.compile(r"^(?:\S*[$#+>] )?(?:\w+=\S+ )*((?:torchrun|deepspeed|accelerate launch|srun|mpirun|python3? -m torch\.distributed\.(?:run|launch)|"
                     r"python3? \S+\.py)\b.*)$")
_MAX_ARGS = 60
# The writer's prefix before a line's own text: "worker-0: ", "17: ", "[rank3]:", "[default0]:"
_WRITER = re.compile(r"^(?:[\w<>.-]+: )?(?:\d{1,4}: )?(?:\[(?:rank|default)\d+\]:\s*)?")


def _args(command: str) -> dict[str, str]:
    """``--name=value`` / ``--name value`` / ``--flag`` of a command line (the program and script too)."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    out: dict[str, str] = {}
    for i, w in enumerate(words[:_MAX_ARGS]):
        if not w.startswith("-"):
            if i == 0 or w.endswith(".py"):
                out["program" if i == 0 else "script"] = w
            continue
        name, eq, value = w.partition("=")
        if not eq:
            following = words[i + 1] if i + 1 < len(words) else ""
            value = following if following and not following.startswith("-") else "(set)"
        out[name] = value
    return out


def setup_of(log: MaskedLog) -> dict[str, str]:
    """The environment variables the log shows (``env:NAME``) and the launch command's arguments (``arg:--name``)."""
    env: dict[str, str] = {}
    launch = ""
    for f in log.files:
        for _, text in f.numbered():
            if len(text) > 4_000:
                continue
            body = _WRITER.sub("", text, count=1)
            if "=" in body and not _SUGGESTION.search(body):
                for m in _ENV.finditer(body):
                    env.setdefault(m.group(1), m.group(2).rstrip(".,)"))
            if not launch and (cmd := _LAUNCH.match(body.strip())):
                launch = cmd.group(1)
    out = {f"env:{k}": v for k, v in sorted(env.items())}
    out.update({f"arg:{k}": v for k, v in _args(launch).items()} if launch else {})
    return out


