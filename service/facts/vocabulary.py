"""The fact vocabulary: every fact name crashdoc extracts, its value format, and how it is shown.

One table, in display order (the CLI's text, the markdown, the web page list facts in this order). ``key``
marks the facts a reader wants first: the diagnosis page's summary and the chat's "this run" line. ``query``
marks the facts added to the lexical retrieval query. ``docs/facts.md`` documents the same names and formats
(a test compares them), and every fact rule must produce a name listed here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class FactKind:
    name: str
    format: str  # the value format, as docs/facts.md states it
    key: bool = False
    query: bool = False


VOCABULARY: tuple[FactKind, ...] = (
    FactKind("gpu_model", "GPU name as printed, without a leading `NVIDIA `", key=True, query=True),
    FactKind("gpu_count", "integer", key=True),
    FactKind("gpu_arch", "`sm_XY`", key=True),
    FactKind("driver_version", "as printed"),
    FactKind("cuda_version", "CUDA that torch was built with / the runtime, `major.minor`", key=True),
    FactKind("torch_version", "without the local suffix", key=True),
    FactKind("nccl_version", "`major.minor.patch`", key=True),
    FactKind("deepspeed_version", "as printed", key=True),
    FactKind("transformers_version", "as printed"),
    FactKind("launcher", "one of `python`, `torchrun`, `deepspeed`, `accelerate`, `srun`, `mpirun`, `ray`", query=True),
    FactKind("world_size", "integer", key=True),
    FactKind("num_nodes", "integer"),
    FactKind("precision", "one of `fp32`, `fp16`, `bf16`, `fp8`", key=True, query=True),
    FactKind("optimizer", "class name", key=True, query=True),
    FactKind("zero_stage", "integer", key=True, query=True),
    FactKind("oom_tried_to_allocate", "figure with unit, as printed"),
    FactKind("oom_total_capacity", "figure with unit"),
    FactKind("oom_free", "figure with unit"),
    FactKind("exit_code", "integer as printed"),
    FactKind("signal", "`SIGKILL` style"),
    FactKind("xid", "integer"),
    FactKind("failure_step", "integer"),
    FactKind("compute_capability", "`major.minor`"),
    FactKind("accelerate_version", "as printed"),
    FactKind("flash_attn_version", "as printed"),
    FactKind("python_version", "`major.minor.patch`"),
    # Further facts: reported, not scored by the eval.
    FactKind("cuda_toolkit_version", "`major.minor` (nvcc's release)"),
    FactKind("driver_cuda_version", "`major.minor` (nvidia-smi's CUDA Version: the driver's maximum, not the toolkit)"),
    FactKind("toolkit_differs", "`yes`: the CUDA toolkit differs from the CUDA torch was built with"),
    FactKind("torch_cuda_tag", "`cuXYZ`"),
    FactKind("nproc_per_node", "integer"),
    FactKind("slurm_ntasks", "integer"),
    FactKind("slurm_ntasks_per_node", "integer"),
    FactKind("tensor_parallel_size", "integer"),
    FactKind("pipeline_parallel_size", "integer"),
    FactKind("fsdp", "sharding strategy as printed"),
    FactKind("os", "as printed"),
    FactKind("glibc_version", "`major.minor`"),
    FactKind("shm_size", "figure with unit"),
    FactKind("oom_allocated", "figure with unit"),
    FactKind("oom_reserved", "figure with unit"),
    FactKind("oom_reserved_unallocated", "figure with unit"),
    FactKind("oom_fragmented", "`yes`: reserved-but-unallocated memory larger than the request"),
    FactKind("oom_killed_process", "pid and name, as printed"),
    FactKind("memory_growth", "`yes`: allocated memory rising reading after reading"),
    FactKind("tensor_over_int32", "`yes`: a tensor or ZeRO partition over 2^31 - 1 elements"),
    FactKind("collectives_differ", "`yes`: ranks timed out in different collectives"),
    FactKind("failure_time", "timestamp as printed"),
    FactKind("numpy_version", "as printed"),
    FactKind("bitsandbytes_version", "as printed"),
    FactKind("vllm_version", "as printed"),
    FactKind("xformers_version", "as printed"),
    FactKind("triton_version", "as printed"),
    FactKind("peft_version", "as printed"),
    FactKind("fr_lagging_ranks", "ranks, comma-separated"),
    FactKind("fr_collective", "`<collective> seq <n> pg <n>`"),
    FactKind("fr_no_dump_ranks", "ranks, comma-separated"),
    FactKind("fr_mismatch", "`other-collective`, `sizes` or `dtypes`: how the ranks' collectives at one sequence number differ"),
)
BY_NAME = {kind.name: kind for kind in VOCABULARY}
_ORDER = {kind.name: i for i, kind in enumerate(VOCABULARY)}
QUERY_FACTS = tuple(kind.name for kind in VOCABULARY if kind.query)


def in_display_order(names: Iterable[str]) -> list[str]:
    """Fact names in the vocabulary's order (a name it does not know goes last, alphabetically)."""
    return sorted(names, key=lambda n: (_ORDER.get(n, len(_ORDER)), n))


def key_facts(names: Iterable[str]) -> list[str]:
    """The key facts among ``names``, in display order."""
    return [n for n in in_display_order(names) if n in BY_NAME and BY_NAME[n].key]
