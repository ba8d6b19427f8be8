"""Clusters: Slurm seen through Lightning, and Kubernetes evicting a pod."""

from __future__ import annotations

from service.facts.rules.base import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "lightning-slurm-task-mismatch",
        "lightning-slurm-task-mismatch",
        (
            # lightning SLURMEnvironment.validate_settings: "ValueError: You set `devices=8` in Lightning, but the number of tasks
            #  per node configured in SLURM `--ntasks-per-node=1` does not match. HINT: Set `devices=1`."
            r"in Lightning, but the number of (?:tasks per node|nodes) configured in SLURM",
            # "RuntimeError: You set `--ntasks=8` in your SLURM bash script, but this variable is not supported. HINT: Use `--ntasks-per-node=8` instead."
            r"in your SLURM bash script, but this variable is not supported",
        ),
        0.95,
    ),
    Rule(
        "k8s-evicted-ephemeral-storage",
        "k8s-pod-evicted-ephemeral-storage",
        (
            # kubelet eviction: "The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 8Gi. ..."
            r"The node was low on resource: ephemeral-storage",
            # "Pod ephemeral local storage usage exceeds the total limit of containers 50Gi."
            r"Pod ephemeral local storage usage exceeds the total limit of containers",
            # 'Container trainer exceeded its local ephemeral storage limit "50Gi".'
            r"exceeded its local ephemeral storage limit",
            # 'Usage of EmptyDir volume "scratch" exceeds the limit "20Gi".'
            r'Usage of EmptyDir volume "[^"]*" exceeds the limit',
        ),
        0.93,
    ),
)
