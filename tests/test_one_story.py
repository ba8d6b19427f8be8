"""One story: over every eval case, the diagnosis, its page and the chat's deterministic answers agree.

The pipeline runs once per case (the eval's own loader and ``run_stages``); each invariant is then checked
on that one diagnosis:
- a line is evidence or collateral, never both, and the swimlane draws it the same way;
- the decisive line (``evidence[0]``) is the initiating rank's when the evidence has one of its lines;
- the answer's sentence names the initiating rank and the step the run reached, and the page's phase label
  is that step;
- the chat's rank answer names the page's initiating rank, and never says "no rank information" when the
  page shows ranks; its evidence answer lists the page's evidence lines.
"""

from __future__ import annotations

import pytest

from service.chat.deterministic import answer_deterministic
from service.evaluation.cases import LoadedCase, load_cases
from service.models import Diagnosis
from service.pipeline import run_stages
from tests.conftest import REPO

SPLITS = [d for d in ("cases", "reworded", "holdout", "unknown") if (REPO / "evals" / d).is_dir()]
CASES: list[LoadedCase] = [c for split in SPLITS for c in load_cases(REPO / "evals" / split)]


_DONE: dict[str, Diagnosis] = {}


def _diagnosis(engine, case_id: str) -> Diagnosis:  # type: ignore[no-untyped-def]
    """The case's diagnosis, made once for both tests."""
    if case_id not in _DONE:
        case = next(c for c in CASES if c.id == case_id)
        _DONE[case_id] = run_stages(engine, case.sources()).diagnosis
    return _DONE[case_id]


def test_every_split_is_read():
    assert {"cases", "reworded"} <= set(SPLITS) and len(CASES) > 300


@pytest.mark.parametrize("case_id", [c.id for c in CASES])
def test_the_diagnosis_tells_one_story(engine, case_id: str):
    d = _diagnosis(engine, case_id)
    evidence = {(e.file, e.line) for e in d.evidence}
    collateral = {(c.file, c.line) for c in d.collateral}
    assert not evidence & collateral, f"lines both evidence and collateral: {sorted(evidence & collateral)}"

    drawn = {(t.file, t.line): t for t in d.timeline}
    for key in evidence & drawn.keys():
        assert not drawn[key].collateral, f"evidence line {key} drawn as collateral on the swimlane"
    for key in collateral & drawn.keys():
        assert drawn[key].collateral, f"collateral line {key} drawn as a cause on the swimlane"
    firsts = [t for t in d.timeline if t.first]
    assert len(firsts) <= 1 and not any(t.collateral for t in firsts)

    if d.evidence and d.initiating_rank is not None and any(e.rank == d.initiating_rank for e in d.evidence):
        assert d.evidence[0].rank == d.initiating_rank, "the decisive line is not the initiating rank's"

    assert d.answer is not None and d.answer.sentence
    step = d.facts.get("failure_step")
    assert d.answer.step == (step.value if step else None)
    if step and (d.evidence or d.entry_id):
        assert f"step {step.value}" in d.answer.sentence
    if d.initiating_rank is not None:
        assert f"Rank {d.initiating_rank}" in d.answer.sentence
    if d.entry_id:
        assert d.answer.sentence != d.summary


@pytest.mark.parametrize("case_id", [c.id for c in CASES])
def test_the_chat_reads_the_same_ranks_and_lines_as_the_page(engine, case_id: str):
    d = _diagnosis(engine, case_id)
    reply = answer_deterministic(d, "Which rank failed first?", [], engine.kb)
    shown = {r for r in [*(t.rank for t in d.timeline), *(e.rank for e in d.evidence), *(c.rank for c in d.collateral)] if r is not None}
    if d.initiating_rank is not None:
        assert f"Rank {d.initiating_rank} failed first" in reply.answer
    elif shown:
        assert "no rank information" not in reply.answer
    if d.evidence:
        lines = answer_deterministic(d, "Which lines prove it?", [], engine.kb)
        assert [c.ref for c in lines.citations] == [f"{e.file}:{e.line}" for e in d.evidence]
