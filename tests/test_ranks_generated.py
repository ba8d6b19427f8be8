"""Logs of real failing multi-process jobs (tests/data/multirank/, made by gen/generate.py with torchrun and gloo
on CPU): one rank raising while the others block in a collective, a rank killed by SIGKILL, a rank that stops
participating. Each captured from ``torchrun --tee 3`` (one interleaved console) and from ``--log-dir`` per-rank
files with torchrun's error.json files. The right initiating rank must be named, through masking, and explained."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.cli.explain import render_text
from service.facts import extract_facts
from service.ingest import ingest, sources_in
from service.masking import mask
from service.models import Facts

DATA = Path(__file__).resolve().parent / "data" / "multirank"
RUNS = sorted(p for p in DATA.iterdir() if (p / "scenario.json").exists())


def _facts(run: Path, engine) -> Facts:  # type: ignore[no-untyped-def]
    return extract_facts(mask(ingest(sources_in(run), engine.limits), engine.masker))


@pytest.fixture(scope="module")
def facts_by_run(engine) -> dict[str, tuple[dict, Facts]]:  # type: ignore[no-untyped-def]
    return {run.name: (json.loads((run / "scenario.json").read_text()), _facts(run, engine)) for run in RUNS}


def test_every_scenario_was_captured_both_ways():
    assert {p.name for p in RUNS} == {f"{s}-{how}" for s in ("raise", "sigkill", "hang") for how in ("tee", "logdir")}
    assert all(list((DATA / f"{s}-logdir").rglob("stderr.log")) for s in ("raise", "sigkill", "hang"))


@pytest.mark.parametrize("run", [p.name for p in RUNS])
def test_the_rank_that_failed_on_purpose_is_named(facts_by_run, run):
    scenario, facts = facts_by_run[run]
    assert facts.initiating_rank == scenario["initiating_rank"]
    assert facts.values["world_size"].value == "4" and facts.values["launcher"].value == "torchrun"
    others = set(range(scenario["world_size"])) - {scenario["initiating_rank"]}
    assert others <= {c.rank for c in facts.collateral}
    assert all(c.why for c in facts.collateral)


@pytest.mark.parametrize("how", ["tee", "logdir"])
def test_a_rank_raising_while_the_others_wait(facts_by_run, how):
    _, facts = facts_by_run[f"raise-{how}"]
    assert facts.initiating_event is not None and "ValueError" in facts.initiating_event.ref.text
    peer_gone = [c for c in facts.collateral if "Connection closed by peer" in c.text]
    assert peer_gone and all(c.rank != 2 for c in peer_gone)
    assert facts.values["exit_code"].value == "1"


@pytest.mark.parametrize("how", ["tee", "logdir"])
def test_a_rank_killed_by_sigkill(facts_by_run, how):
    _, facts = facts_by_run[f"sigkill-{how}"]
    assert facts.rule_hits[0].entry_id == "process-killed-sigkill"
    assert facts.values["signal"].value == "SIGKILL" and facts.values["exit_code"].value == "-9"


@pytest.mark.parametrize("how", ["tee", "logdir"])
def test_a_rank_that_stopped_participating(facts_by_run, how):
    _, facts = facts_by_run[f"hang-{how}"]
    assert facts.rule_hits[0].entry_id == "nccl-watchdog-timeout"
    assert facts.initiating_event is None and any("did not report the collective timeout" in n for n in facts.notes)


def test_explain_shows_the_reasoning(facts_by_run):
    _, facts = facts_by_run["raise-tee"]
    text = render_text(facts, "ValueError: sample 8123", [])
    assert "Initiating rank: 2" in text and "first failure:" in text
    assert "Collateral" in text and "rank 3:" in text and "FIRST" in text
    assert "launcher" in text and "<- " in text  # facts with their source lines
