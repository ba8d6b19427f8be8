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
    Rule(
        "triton-out-of-shared-memory",
        "triton-out-of-shared-memory",
        (
            # "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 131072, Hardware limit: 101376.
            #  Reducing block sizes or `num_stages` may help."
            r"out of resource: shared memory, Required: \d+, Hardware limit: \d+",
        ),
        0.93,
    ),
    Rule(
        "dynamo-fullgraph-graph-break",
        "dynamo-fullgraph-graph-break",
        (
            # "torch._dynamo.exc.Unsupported: Attempted to call function marked as skipped" (2.13: title, then Explanation/Hint);
            # 2.1: "torch._dynamo.exc.Unsupported: call_function BuiltinVariable(...) [...] {}"
            r"torch\._dynamo\.exc\.Unsupported\b",
            # data-dependent control flow: "torch._dynamo.exc.UserError: ... Could not guard on data-dependent expression u0 > 0"
            r"Could not guard on data-dependent expression",
        ),
        0.88,
    ),
)
