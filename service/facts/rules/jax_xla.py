"""JAX and XLA on GPUs: the CUDA backend missing or failing, and the cuDNN it loads."""

from __future__ import annotations

from service.facts.rules.base import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "jax-cudnn-version-mismatch",
        "jax-cudnn-version-mismatch",
        (
            # XLA cuda_dnn.cc: "Loaded runtime CuDNN library: 8.6.0 but source was compiled with: 8.9.4.  CuDNN library needs to
            #  have matching major version and equal or higher minor version. If using a binary install, upgrade your CuDNN library."
            r"Loaded runtime CuDNN library: [\d.]+ but source was compiled with: [\d.]+",
            r"CuDNN library needs to have matching major version and equal or higher minor version",
        ),
        0.95,
    ),
    Rule(
        "jax-cuda-backend-missing",
        "jax-cuda-backend-missing",
        (
            # jax xla_bridge: "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu."
            r"An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed",
            # "CUDA backend failed to initialize: Found cuSOLVER version 11405, but JAX was built against version 11502, ..."
            r"CUDA backend failed to initialize: ",
            # JAX_PLATFORMS=cuda: "RuntimeError: Unable to initialize backend 'cuda': ... (set JAX_PLATFORMS='' to automatically choose ...)"
            r"Unable to initialize backend 'cuda'",
            # jax.devices("gpu") with only the CPU backend: "RuntimeError: Unknown backend: 'gpu' requested, but no platforms
            #  that are instances of gpu are present. Platforms present are: cpu"
            r"Unknown backend: '(?:gpu|cuda)' requested, but no platforms that are instances of (?:gpu|cuda) are present",
        ),
        0.85,
    ),
)
