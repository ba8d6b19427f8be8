"""Signature rules: a failure's distinctive message, the facts that raise or lower it, the entry it proposes.

One explicit registry (``RULES``), assembled below in priority order from one module per category (and,
for the entries added since, one per domain). A rule fires when a line matches one of its ``match``
patterns and, where ``needs`` is set, the log also contains one of those patterns anywhere; ``unless``
patterns anywhere in the log stop it. ``boosts`` raise (or, negative, lower) its strength when a fact or a
co-occurring line says so.

Strengths say how specific the message is: 0.9 and above, a message only this failure prints; 0.7-0.85,
a specific message with a known look-alike; 0.5-0.7, a generic error that many causes share; below 0.5,
a wrapper or a consequence. A ``consequence`` rule (ChildFailedError, a watchdog timeout, a SIGKILL)
is how a failure *ends*: it steps aside when the log shows a cause that came first (service/facts/hits.py); a
``summary`` rule (torchrun's ChildFailedError) steps aside for any other rule at all.
"""

from __future__ import annotations

from service.facts.rules import (
    autograd,
    checkpoint,
    clusters,
    containers,
    cuda,
    cuda_runtime,
    deepspeed,
    distributed,
    environment,
    hardware,
    hf,
    hf_breadth,
    hf_runtime,
    inference,
    infra,
    infra_breadth,
    jax_xla,
    memory,
    model,
    mpi,
    numerics,
    serving,
    slurm_steps,
    storage,
    torch_breadth,
    torch_compile,
    torch_core,
    torch_distributed,
    torch_training,
    tracking,
)
from service.facts.rules.base import Boost, Rule

# The modules in priority order: their rules are tried in this order.
MODULES = (cuda, memory, hardware, inference, deepspeed, distributed, numerics, autograd, model, checkpoint,
           environment, infra,
           # the domains added with kb/ as the catalogue of record (kb-torch)
           cuda_runtime, containers, torch_core, torch_distributed, torch_compile, jax_xla, clusters,
           # the Hugging Face stack (kb-hf)
           hf, hf_runtime, hf_breadth,
           # serving engines, DeepSpeed/Megatron/NeMo, experiment tracking (kb-serve)
           serving, tracking,
           # PyTorch core training-loop entries (kb-core)
           torch_training,
           # MPI launchers, Slurm job steps, network file systems (kb-infra)
           mpi, slurm_steps, storage,
           # cloud credentials, Slurm option checks, torch/Triton pairing (kb-infra, second round)
           infra_breadth,
           # PyTorch breadth: distributed set-up, DeviceMesh, Dynamo recompiles (kb-torch)
           torch_breadth)
RULES: tuple[Rule, ...] = tuple(rule for module in MODULES for rule in module.RULES)

__all__ = ["MODULES", "RULES", "Boost", "Rule"]
