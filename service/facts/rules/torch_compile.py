"""torch.compile beyond the compiler's own failures: CUDA graphs (reduce-overhead), Dynamo and Triton limits."""

from __future__ import annotations

from service.facts.rules.base import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "cudagraph-output-overwritten",
        "cudagraph-output-overwritten",
        (
            # "RuntimeError: Error: accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run. Stack trace: ..."
            # torch 2.13: "Error: accessing gradient tensor output of CUDAGraphs that has been overwritten by a subsequent run."
            r"accessing (?:gradient )?tensor output of CUDAGraphs that has been overwritten by a subsequent run",
        ),
        0.96,
    ),
)
