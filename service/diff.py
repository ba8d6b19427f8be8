"""Compare a failed run with a good one: which facts changed (versions, world size and topology, precision,
optimizer and ZeRO stage, environment variables the log shows, launcher arguments).

    failed files, good files -> ingest, mask, facts (run_facts, each) -> compare() -> RunDiff

Both logs are masked like any input before anything is read from them; nothing is stored. The CLI
(``crashdoc diff FAILED GOOD``), the API (``POST /v1/diff``) and the diagnosis page call ``diff_runs()``.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from service.facts import extract_facts
from service.facts.setup import setup_of
from service.facts.vocabulary import in_display_order
from service.ingest import ingest
from service.models import Diagnosis, Source
from service.pipeline import Engine, mask_selected

# The groups a change is reported under, by fact name (a fact not named here is under "other").
GROUPS: dict[str, tuple[str, ...]] = {
    "versions": ("torch_version", "cuda_version", "cuda_toolkit_version", "driver_version", "driver_cuda_version",
                 "torch_cuda_tag", "nccl_version", "deepspeed_version", "transformers_version", "accelerate_version",
                 "flash_attn_version", "python_version", "numpy_version", "bitsandbytes_version", "vllm_version",
                 "xformers_version", "triton_version", "peft_version", "glibc_version", "os"),
    "topology": ("gpu_model", "gpu_count", "gpu_arch", "compute_capability", "world_size", "num_nodes", "nproc_per_node",
                 "slurm_ntasks", "slurm_ntasks_per_node", "tensor_parallel_size", "pipeline_parallel_size", "launcher", "shm_size"),
    "training": ("precision", "optimizer", "zero_stage", "fsdp"),
}
# What happened in the run, not how it was set up: never a "change" (the good run has none of it).
OUTCOME = {"oom_tried_to_allocate", "oom_total_capacity", "oom_free", "oom_allocated", "oom_reserved",
           "oom_reserved_unallocated", "oom_fragmented", "oom_killed_process", "exit_code", "signal", "xid",
           "failure_step", "failure_time", "memory_growth", "tensor_over_int32", "collectives_differ", "toolkit_differs",
           "fr_lagging_ranks", "fr_collective", "fr_no_dump_ranks"}

class Change(BaseModel):
    group: str  # versions | topology | training | env | launcher | other
    name: str
    failed: str | None  # None: the failed run's log does not show it
    good: str | None


class RunDiff(BaseModel):
    changed: list[Change] = Field(default_factory=list)  # differs, or shown by only one of the two logs
    same: list[str] = Field(default_factory=list)  # names shown by both logs with the same value
    failed_files: list[str] = Field(default_factory=list)
    good_files: list[str] = Field(default_factory=list)

    def names(self) -> list[str]:
        return [c.name for c in self.changed]


def run_facts(engine: Engine, sources: Sequence[Source]) -> tuple[dict[str, str], list[str]]:
    """Every set-up fact and setting of one run (masked first), and its file names."""
    log = mask_selected(ingest(sources, engine.limits), engine.masker)  # nothing reads the unmasked log
    values = {n: f.value for n, f in extract_facts(log).values.items() if n not in OUTCOME}
    values.update(setup_of(log))
    return values, [f.name for f in log.files]


def _group(name: str) -> str:
    if name.startswith("env:"):
        return "env"
    if name.startswith("arg:"):
        return "launcher"
    return next((g for g, names in GROUPS.items() if name in names), "other")


def compare(failed: dict[str, str], good: dict[str, str]) -> RunDiff:
    """The facts that differ (or that only one log shows), grouped and in display order."""
    order = {g: i for i, g in enumerate([*GROUPS, "env", "launcher", "other"])}
    names = in_display_order(set(failed) | set(good))
    changed = [Change(group=_group(n), name=n, failed=failed.get(n), good=good.get(n)) for n in names if failed.get(n) != good.get(n)]
    changed.sort(key=lambda c: order[c.group])  # stable: display order within a group
    return RunDiff(changed=changed, same=[n for n in names if n in failed and failed.get(n) == good.get(n)])


def facts_of(d: Diagnosis) -> dict[str, str]:
    """A stored diagnosis's set-up: its facts (not the outcome) and the settings its log showed."""
    return {**{n: f.value for n, f in d.facts.items() if n not in OUTCOME}, **d.setup}


def diff_with(engine: Engine, d: Diagnosis, good: Sequence[Source]) -> RunDiff:
    """A stored diagnosis against a good run's log (the page and ``POST /v1/diagnoses/{id}/diff``)."""
    g, g_files = run_facts(engine, good)
    return compare(facts_of(d), g).model_copy(update={"failed_files": [str(f.get("name")) for f in d.files], "good_files": g_files})


def diff_runs(engine: Engine, failed: Sequence[Source], good: Sequence[Source]) -> RunDiff:
    """Stage entry point: what changed between the failed run and the good one."""
    f, f_files = run_facts(engine, failed)
    g, g_files = run_facts(engine, good)
    return compare(f, g).model_copy(update={"failed_files": f_files, "good_files": g_files})


def to_text(d: RunDiff) -> str:
    """The diff for a person: one line per change, grouped."""
    if not d.changed:
        return f"No difference in the {len(d.same)} fact(s) both logs show.\n"
    out: list[str] = []
    group = ""
    for c in d.changed:
        if c.group != group:
            group = c.group
            out.append(f"{group}:")
        out.append(f"  {c.name:<32} {c.failed if c.failed is not None else '(not shown)':<28} -> "
                   f"{c.good if c.good is not None else '(not shown)'}")
    out.append(f"failed run on the left, good run on the right; {len(d.same)} fact(s) the same")
    return "\n".join(out) + "\n"
