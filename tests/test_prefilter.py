"""The prefilter: the lines a rule can fire on are always selected, routine lines are not, the selection keeps
line numbers, and the eval's facts (everything a diagnosis is made from) are the same with and without it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from service import prefilter
from service.evaluation.cases import load_cases
from service.facts import extract_facts
from service.ingest import Limits, ingest
from service.masking import mask
from service.models import MaskedFile, MaskedLog, Source
from service.pipeline import mask_selected
from service.retrieve import build_query
from tests.test_rules import DECIDED_BY_CONTEXT, FIRES, NEAR_MISSES

REPO = Path(__file__).resolve().parent.parent
LIMITS = Limits(max_upload_bytes=1 << 30, max_decompressed_bytes=1 << 30, max_files=64, max_line_chars=16_384)


def _lines(lines: str | tuple[str, ...]) -> list[str]:
    return [lines] if isinstance(lines, str) else list(lines)


def is_candidate(line: str) -> bool:
    return prefilter.is_candidate(line)


def test_every_line_a_rule_fires_on_is_a_candidate():
    """Each table line that some pattern of the facts stage matches is picked by the needles."""
    patterns = [(where, re.compile(p, f)) for where, p, f in prefilter.sources() if where not in prefilter.needles().underivable]
    rows = [line for _, ls in FIRES + NEAR_MISSES for line in _lines(ls)]
    rows += [line for ls, _ in DECIDED_BY_CONTEXT for line in ls]
    missed = [(where, line[:80]) for line in rows for where, p in patterns if p.search(line) and not is_candidate(line)]
    assert missed == []


@pytest.mark.parametrize("line", [
    *prefilter.ROUTINE,
    "[rank7]:[2024-05-01 12:14:31,503] [INFO] [train.py:203] step 8123 | loss 2.1874 | lr 3.00e-04 | grad_norm 0.912 | "
    "tokens/s 119911 | mem 61.55GiB",
    "  5%|▌         | 52/1000 [00:31<09:28,  1.67it/s]",
    "gpu-node-011:41095:41095 [7] NCCL INFO Channel 07/08 :    0   1   2   3   4   5   6   7",
])
def test_routine_lines_are_not_candidates(line):
    assert not is_candidate(line)


def test_every_pattern_of_the_facts_modules_is_a_needle_source_or_counted_with_a_reason():
    named = {where for where, _ in prefilter._module_patterns()}
    assert set(prefilter.COUNTED) <= named, "a COUNTED entry names no pattern: remove it"
    assert all(why.strip() for why in prefilter.COUNTED.values())


def test_the_patterns_without_a_literal_are_known():
    """A new pattern with nothing literal would only ever be seen as context: it must be looked at and listed."""
    assert set(prefilter.needles().underivable) == {
        "fact nvidia_smi.gpu",  # an nvidia-smi table row: in the head of the file, with its header
        "fact print.torch",  # a bare "2.3.1+cu121" from print(torch.__version__): in the head
        "rule loss-scale-overflow (context)",  # "reducing loss scale to 1": context of the overflow lines
        "ranks._SMI_BUS",  # the nvidia-smi table again
    }


def _run(lines: list[str]) -> list[str]:
    data = ("\n".join(lines) + "\n").encode()
    return ingest([Source(name="train.log", data=data)], LIMITS).files[0].lines


def test_the_selection_keeps_line_numbers_context_head_and_tail():
    step = "[rank{r}]:[2024-05-01 12:00:03,123] [INFO] step {s} | loss 2.3456 | lr 3.00e-04 | mem 61.23GiB"
    lines = [f"banner {i}" for i in range(prefilter.HEAD)]
    lines += [step.format(r=s % 8, s=s) for s in range(20_000)]
    error_at = len(lines)
    lines += ["[rank3]: Traceback (most recent call last):", '[rank3]:   File "/w/train.py", line 3, in <module>',
              "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."]
    lines += [step.format(r=0, s=20_000 + s) for s in range(10_000)]
    got = _run(lines)
    assert len(got) == len(lines)
    kept = [i for i, text in enumerate(got) if text]
    assert got[error_at + 2] == lines[error_at + 2]  # the error, at its own line number
    assert set(range(error_at - prefilter.BEFORE, error_at + 3 + prefilter.AFTER)) <= set(kept)  # its context
    assert set(range(prefilter.HEAD)) <= set(kept)
    assert set(range(len(lines) - prefilter.TAIL, len(lines))) <= set(kept)
    assert len(kept) < prefilter.HEAD + prefilter.TAIL + 20


def test_a_repeated_error_is_kept_a_few_times_per_rank_then_counted():
    lines = ["padding"] * prefilter.HEAD
    # NCCL's retry loop: "gpu-node-007:3342:3342 [1] NCCL WARN Call to connect returned Connection refused, retrying"
    lines += [f"[rank{r}]:gpu-node-007:{3342 + r}:{3342 + r} [{r}] NCCL WARN Call to connect returned Connection refused, "
              f"retrying (attempt {s})" for s in range(100, 600) for r in range(4)]
    lines += ["padding"] * (prefilter.TAIL + 100)
    f = ingest([Source(name="w.log", data=("\n".join(lines) + "\n").encode())], LIMITS).files[0]
    kept = sum(1 for t in f.lines if "NCCL WARN" in t)
    assert 4 * prefilter.REPEATS <= kept <= 4 * prefilter.REPEATS + prefilter.AFTER  # the first ones and their context
    assert f.repeats == 2000 - 4 * prefilter.REPEATS


# A pseudonym's number is its order of first appearance in what was masked: <HOST_3> in the whole log can be
# <HOST_2> in the selection when the first host was on a line left out. The number is not part of a diagnosis.
_PSEUDONYM_NUMBER = re.compile(r"<([A-Z_]+?)_\d+>")


def _facts_of(log: MaskedLog) -> str:
    facts = extract_facts(log)
    query = build_query(log, facts)
    return _PSEUDONYM_NUMBER.sub(r"<\1>", json.dumps({"facts": facts.model_dump(), "query": query.text}, sort_keys=True))


EVAL_CASES = [c for split in ("cases", "reworded", "holdout") for c in load_cases(REPO / "evals" / split)]


def _both(engine, case, small: bool) -> tuple[MaskedLog, MaskedLog, int]:  # type: ignore[no-untyped-def]
    sources = case.sources()
    whole = mask(ingest(sources, engine.limits, select=False), engine.masker)
    selection = prefilter.RunSelection.for_run(len(sources), *SMALL_WINDOW, routine_last=False) if small else None
    selected = mask_selected(ingest(sources, engine.limits, selection=selection), engine.masker)
    return whole, selected, sum(f.dropped for f in selected.files)


def test_the_eval_facts_are_the_same_with_and_without_the_prefilter(engine):
    """Everything a diagnosis is made from (facts, rule hits and their lines, the rank timeline, the initiating
    rank, the collateral, the retrieval query) is identical for every eval case, with the prefilter as it runs."""
    differ = [case.id for case in EVAL_CASES if len(set(map(_facts_of, _both(engine, case, False)[:2]))) > 1]
    assert differ == [], f"{len(differ)} of {len(EVAL_CASES)} cases differ"


# The eval's logs are a few hundred lines: the production head and tail keep most of them whole. With a
# window of 10 lines each and no last line per routine shape, the needles and their context do the work.
# What COUNTED reads over routine lines (the last step, memory readings, ranks that print only progress)
# then comes from 10 lines instead of a tail of thousands, so those are left out of this comparison; every
# line-based decision must still be the same.
SMALL_WINDOW = (10, 10)
_FROM_ROUTINE_LINES = ("failure_step", "memory_growth")


def _line_decisions(log: MaskedLog) -> str:
    facts = extract_facts(log)
    out = facts.model_dump(exclude={"ranks_seen", "rule_hits"})
    out["values"] = {k: v for k, v in out["values"].items() if k not in _FROM_ROUTINE_LINES}
    out["rule_hits"] = sorted((h.rule_id, h.entry_id, [r.model_dump() for r in h.lines]) for h in facts.rule_hits)
    out["query"] = build_query(log, facts).text
    return _PSEUDONYM_NUMBER.sub(r"<\1>", json.dumps(out, sort_keys=True))


def test_with_a_small_window_the_needles_alone_keep_every_line_based_decision(engine):
    differ: list[str] = []
    dropped = total = 0
    for case in EVAL_CASES:
        whole, selected, n = _both(engine, case, True)
        dropped += n
        total += sum(len(f.lines) for f in selected.files)
        if _line_decisions(whole) != _line_decisions(selected):
            differ.append(case.id)
    assert differ == [], f"{len(differ)} of {len(EVAL_CASES)} cases differ"
    # the guard against a vacuous comparison: thousands of lines left out across the suite (the short logs of
    # the out-of-catalogue and new-entry cases are kept whole, so a share of the total no longer measures it)
    assert dropped >= 5000, f"only {dropped} of {total} lines were left out: the comparison would prove little"


def test_masked_selection_keeps_empty_lines_empty():
    run = ingest([Source(name="a.log", data=b"x\n" * 10 + b"RuntimeError: mail a@b.example\n" + b"x\n" * 9000)], LIMITS)
    log = mask_selected(run, None)
    f: MaskedFile = log.files[0]
    assert f.dropped == run.files[0].dropped > 0
    assert "<EMAIL_1>" in f.lines[10]
