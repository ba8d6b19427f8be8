"""Fact rules: one declaration per way a fact shows up in a real log, in priority order.

Each rule names the fact, a pattern with a comment naming the log line it targets, and how the captured
text becomes the value (docs/facts.md has the value formats). How a fact keeps its value:

- ``first``: the first line in the log that any of its rules matches (versions printed once)
- ``last``: the latest match
- ``best``: the highest rule in this registry that matches anywhere, its first line (when sources differ in
  authority: DeepSpeed's "Basic Optimizer = FusedAdam" over HF's ``optim=adamw_torch``)

Sources: ``python -m torch.utils.collect_env``, ``ds_report``, ``nvidia-smi`` (table, ``-L``, CSV queries),
``transformers-cli env`` / ``accelerate env``, NCCL ``INFO`` lines, DeepSpeed and HF config printouts,
``pip list`` / ``pip freeze``, torchrun and Slurm headers, dmesg; counted and derived facts are in derived.py.
"""

from __future__ import annotations

from service.facts.sources import hardware, topology, training, versions
from service.facts.sources.base import FactRule

FACT_RULES: tuple[FactRule, ...] = (
    *hardware.RULES,
    *versions.RULES,
    *topology.RULES,
    *training.RULES,
)

__all__ = ["FACT_RULES", "FactRule"]
