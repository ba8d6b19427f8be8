"""The answer about THIS run, first: one sentence built from its facts, and why crashdoc thinks so, in words.

The page, the CLI's text, the PR markdown and Slack all open with ``Diagnosis.answer``; the entry's generic
summary comes after. Nothing here is prose from the encyclopedia: every figure is a fact read from the log
(with its line), every reason a rule contribution or a retrieval score that decided the ranking.
"""

from __future__ import annotations

from collections.abc import Sequence

from service.facts.rules import RULES
from service.models import Candidate, Evidence, Fact, Facts, RuleHit, RunAnswer

_RULES = {r.id: r for r in RULES}
_VERSION_SUFFIX = "_version"
# How a version fact reads in a sentence.
_SOFTWARE = {"torch": "torch", "cuda": "CUDA", "nccl": "NCCL", "driver": "driver", "deepspeed": "DeepSpeed",
             "transformers": "transformers", "accelerate": "accelerate", "flash_attn": "flash-attn",
             "python": "Python", "cuda_toolkit": "CUDA toolkit", "driver_cuda": "the driver's CUDA", "numpy": "numpy",
             "bitsandbytes": "bitsandbytes", "vllm": "vLLM", "xformers": "xformers", "triton": "Triton", "peft": "PEFT"}
# Facts whose figures say what happened, whichever rule fired: they go into the sentence when the log has them.
_FIGURE_FACTS = ("oom_tried_to_allocate", "oom_free", "oom_total_capacity", "oom_reserved_unallocated", "oom_fragmented",
                 "oom_killed_process", "tensor_over_int32", "xid", "signal", "exit_code", "fr_lagging_ranks",
                 "fr_collective", "collectives_differ", "memory_growth")


def deciding_facts(facts: Facts, hit: RuleHit | None) -> list[str]:
    """The facts that moved the winning rule (its fact boosts that applied), then the figures of what happened."""
    names: list[str] = []
    rule = _RULES.get(hit.rule_id) if hit else None
    if hit is not None and rule is not None:
        for boost in rule.boosts:
            reason = ("+" if boost.delta >= 0 else "-") + f"{abs(boost.delta):.2f} {boost.reason}"
            if boost.fact and boost.fact in facts.values and reason in hit.reasons and boost.fact not in names:
                names.append(boost.fact)
    names += [n for n in _FIGURE_FACTS if n in facts.values and n not in names]
    return names


def _version(name: str, value: str) -> str:
    return f"{_SOFTWARE.get(name.removesuffix(_VERSION_SUFFIX), name.removesuffix(_VERSION_SUFFIX))} {value}"


def _figures(values: dict[str, Fact], deciding: Sequence[str]) -> list[str]:
    """What the log's figures say about the failure, as phrases ("it tried to allocate 3.82 GiB with 2.41 GiB free")."""
    v = {n: f.value for n, f in values.items()}
    out: list[str] = []
    if "oom_tried_to_allocate" in v:
        phrase = f"it tried to allocate {v['oom_tried_to_allocate']}"
        if "oom_free" in v:
            phrase += f" with {v['oom_free']} free"
        if "oom_total_capacity" in v:
            phrase += f" of {v['oom_total_capacity']}"
        out.append(phrase)
    if v.get("oom_fragmented") == "yes" and "oom_reserved_unallocated" in v:
        out.append(f"{v['oom_reserved_unallocated']} was reserved but unallocated (fragmentation)")
    if "oom_killed_process" in v:
        out.append(f"the kernel's OOM killer killed {v['oom_killed_process']}")
    if v.get("tensor_over_int32") == "yes":
        out.append("a tensor or ZeRO partition has more than 2^31 - 1 elements")
    if "xid" in v:
        out.append(f"the GPU driver reported Xid {v['xid']}")
    if "fr_lagging_ranks" in v:
        where = f" {v['fr_collective']}" if "fr_collective" in v else " the collective"
        out.append(f"rank(s) {v['fr_lagging_ranks']} never entered{where}")
    if v.get("collectives_differ") == "yes":
        out.append("the ranks timed out in different collectives")
    if v.get("memory_growth") == "yes":
        out.append("allocated memory rose reading after reading")
    versions = [_version(n, v[n]) for n in deciding if n.endswith(_VERSION_SUFFIX) and n in v]
    if versions:
        out.append("with " + ", ".join(versions))
    for n in deciding:  # the other facts the rule weighed (zero_stage 2, precision fp16, ...)
        if n in v and not n.endswith(_VERSION_SUFFIX) and n not in _FIGURE_FACTS and n not in ("gpu_model",):
            out.append(f"{n.replace('_', ' ')} {v[n]}")
    if "signal" in v and not out:  # how it ended, when nothing says more
        out.append(f"the process got {v['signal']}" + (f" (exit code {v['exit_code']})" if "exit_code" in v else ""))
    elif "exit_code" in v and not out:
        out.append(f"exit code {v['exit_code']}")
    return out


def _who(facts: Facts, rank: int | None) -> str:
    world = facts.get("world_size")
    of = f" of {world}" if world and world.isdigit() and int(world) > 1 else ""
    return f"Rank {rank}{of}" if rank is not None else "The run"


def run_sentence(facts: Facts, title: str | None, decisive: Evidence | None, deciding: Sequence[str],
                 *, files: int, lines: int) -> str:
    """One sentence about this run: who failed first, at which step, on what, and the figures that matter."""
    if not facts.events and not facts.rule_hits:
        if facts.initiating_rank is not None:  # the ranks' own records (Flight Recorder dumps) single one out
            figures = _figures(facts.values, deciding)
            return (f"Rank {facts.initiating_rank} stands out although no error line was found"
                    + (f": {'; '.join(figures)}." if figures else "."))
        return (f"No error, exception, signal or kill message was found in the {lines:,} line(s) of "
                f"{files} file(s) read.")
    rank = facts.initiating_rank if facts.initiating_rank is not None else (decisive.rank if decisive else None)
    step = facts.get("failure_step")
    at = f" at step {step}" if step else ""
    gpu = facts.get("gpu_model")
    on = f" on {gpu}" if gpu and rank is not None else ""
    who = _who(facts, rank)
    verb = "failed first" if rank is not None and facts.ranks_seen and len(facts.ranks_seen) > 1 else "failed"
    head = f"{who}{on} {verb}{at}"  # the title is the page's heading, right above: not repeated
    figures = _figures(facts.values, deciding)
    if title is None:
        tail = "; no entry of the encyclopedia matches its error well enough"
        return f"{head}{(': ' + '; '.join(figures)) if figures else ''}{tail}."
    others = sorted({c.rank for c in facts.collateral if c.rank is not None and c.rank != rank})
    if others and rank is not None:
        figures.append(f"the errors on {len(others)} other rank{'s' if len(others) != 1 else ''} follow from it")
    return f"{head}: {'; '.join(figures)}." if figures else f"{head}."


def _reason_words(reason: str) -> str:
    """A rule's recorded reason ("+0.30 the traceback goes through ...") as a sentence with its weight after it."""
    sign, _, rest = reason.partition(" ")
    if sign.startswith(("+", "-")):
        return f"{rest[0].upper() + rest[1:]} ({sign})" if rest else reason
    if sign.startswith("x"):
        return f"Discounted ×{sign[1:]}: {rest}"
    return reason


def why(facts: Facts, hit: RuleHit | None, top: Candidate | None, runner_up: Candidate | None,
        deciding: Sequence[str]) -> list[str]:
    """Why crashdoc thinks so, in words: the signature, the rule's contributions, the facts, the ranking, the timeline."""
    out: list[str] = []
    if hit is not None:
        line = hit.lines[0] if hit.lines else None
        where = f" at {line.file}:{line.line}" if line else ""
        out.append(f"A signature of this failure matched{where} (rule {hit.rule_id}, strength {hit.strength:.2f}).")
        out += [_reason_words(r) + "." for r in hit.reasons]
    for name in deciding:
        f = facts.values.get(name)
        if f is not None:
            out.append(f"{name.replace('_', ' ').capitalize()} is {f.value} ({f.file}:{f.line}).")
    if top is not None:
        by = ", ".join({"rule": "the signature rules", "dense": "the semantic search",
                        "lexical": "the keyword search"}.get(s, s) for s in top.sources)
        out.append(f"Ranked first by {by} (score {top.score:.2f})"
                   + (f"; the next candidate, {runner_up.title}, scored {runner_up.score:.2f}." if runner_up else "."))
    first = facts.initiating_event
    if first is not None and facts.initiating_rank is not None:
        when = f" at {first.timestamp}" if first.timestamp else ""
        out.append(f"On the timeline rank {facts.initiating_rank} failed first{when} ({first.ref.file}:{first.ref.line});"
                   f" {len(facts.collateral)} later error line(s) are collateral.")
    return out


def answer(facts: Facts, *, title: str | None, entry_id: str | None, evidence: list[Evidence],
           candidates: list[Candidate], files: int, lines: int) -> RunAnswer:
    """The answer block of a diagnosis."""
    hit = next((h for h in facts.rule_hits if entry_id and h.entry_id == entry_id), None)
    deciding = deciding_facts(facts, hit) if entry_id else [n for n in _FIGURE_FACTS if n in facts.values]
    top = next((c for c in candidates if c.entry_id == entry_id), None) if entry_id else None
    runner_up = next((c for c in candidates if c.entry_id != entry_id), None) if top else None
    sentence = run_sentence(facts, title, evidence[0] if evidence else None, deciding, files=files, lines=lines)
    return RunAnswer(sentence=sentence, step=facts.get("failure_step"), deciding_facts=deciding,
                     why=why(facts, hit, top, runner_up, deciding) if entry_id else [])
