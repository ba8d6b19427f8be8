"""Containers: the GPU runtime and the NVIDIA Container Toolkit's hook refuse to start a GPU container."""

from __future__ import annotations

from service.facts.rules.base import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "container-gpu-runtime-missing",
        "container-gpu-runtime-missing",
        (
            # docker: 'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].'
            r'could not select device driver "[^"]*" with capabilities: \[\[gpu\]\]',
            # docker --runtime=nvidia: "docker: Error response from daemon: unknown or invalid runtime name: nvidia."
            r"unknown or invalid runtime name: nvidia",
        ),
        0.95,
    ),
    Rule(
        "nvidia-container-cli",
        "nvidia-container-cli-failure",
        (
            # "... error running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'
            #  nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: ..."
            # "nvidia-container-cli: device error: 4: unknown device: unknown"
            r"nvidia-container-cli: (?:initialization|device|mount|ldcache) error",
        ),
        0.9,
        # a host whose driver module and libraries differ: nvml-driver-library-mismatch is the cause
        not_with=(r"(?i:driver/library version mismatch)",),
    ),
    Rule(
        "container-require-cuda",
        "cuda-driver-too-old",
        (
            # the hook checks the image's NVIDIA_REQUIRE_CUDA against the host driver before the container starts:
            # "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver to a
            #  newer version, or use an earlier cuda container: unknown"
            r"nvidia-container-cli: requirement error: unsatisfied condition: cuda>=",
        ),
        0.92,
    ),
)
