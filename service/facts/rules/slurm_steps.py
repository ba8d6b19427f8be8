"""Slurm job steps: an srun that cannot start because another step of the same job holds its resources."""

from __future__ import annotations

from service.facts.rules.base import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "slurm-step-waiting-for-resources",
        "slurm-step-waiting-for-resources",
        (
            # srun (Slurm 22.05.8): "srun: Job 5512093 step creation temporarily disabled, retrying (Requested nodes are busy)"
            # and, on later retries, "srun: Job 5512093 step creation still disabled, retrying (Requested nodes are busy)"
            r"Job \d+ step creation (?:temporarily|still) disabled, retrying \(Requested nodes are busy\)",
        ),
        0.9,
    ),
)
