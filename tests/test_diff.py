"""``crashdoc diff``: a failed run against a good one names the facts that changed, and only those."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.cli import main
from service.diff import compare, diff_runs
from service.evaluation.cases import load_cases
from service.facts.setup import setup_of
from service.models import MaskedFile, MaskedLog
from tests.conftest import REPO

CASES = {c.id: c for c in load_cases(REPO / "evals" / "cases")}
# Two runs of the same failure on different set-ups, each case annotated with its facts by hand.
PAIRS = [
    ("deepspeed-fusedadam-illegal-memory-access-zero2-2xh100-01", "deepspeed-fusedadam-illegal-memory-access-accelerate-z2-02"),
    ("deepspeed-fusedadam-illegal-memory-access-zero2-2xh100-01", "deepspeed-fusedadam-illegal-memory-access-hf-zero2-h200-03"),
]


@pytest.mark.parametrize(("failed", "good"), PAIRS)
def test_the_diff_names_the_changed_facts_of_two_eval_runs(engine, failed: str, good: str):  # type: ignore[no-untyped-def]
    a, b = CASES[failed], CASES[good]
    d = diff_runs(engine, a.sources(), b.sources())
    changed = {c.name: (c.failed, c.good) for c in d.changed}
    shared = set(a.case.facts) & set(b.case.facts)
    differ = {n for n in shared if a.case.facts[n] != b.case.facts[n]}
    assert differ, "the pair should differ in some annotated fact"
    for name in differ:  # every annotated difference is named, with both values
        assert changed.get(name) == (a.case.facts[name], b.case.facts[name]), name
    for name in shared - differ:  # an annotated fact both runs share is not a change
        assert name not in changed and name in d.same, name
    assert not {"failure_step", "exit_code", "signal"} & set(changed)  # outcomes are not set-up


def test_env_vars_and_launcher_args_are_compared():
    failed = MaskedLog(files=[MaskedFile(name="a.log", lines=[
        "+ NCCL_IB_DISABLE=1 torchrun --nproc_per_node=8 --nnodes 2 train.py --lr 3e-4 --bf16",
        "[rank0]: export CUDA_VISIBLE_DEVICES=0,1,2,3",
        "RuntimeError: CUDA error. For debugging consider passing CUDA_LAUNCH_BLOCKING=1.",
    ])])
    good = MaskedLog(files=[MaskedFile(name="b.log", lines=[
        "$ torchrun --nproc_per_node=8 --nnodes 2 train.py --lr 1e-4 --bf16",
        "export CUDA_VISIBLE_DEVICES=0,1,2,3",
    ])])
    fs, gs = setup_of(failed), setup_of(good)
    assert fs["env:CUDA_VISIBLE_DEVICES"] == "0,1,2,3" and "env:CUDA_LAUNCH_BLOCKING" not in fs  # a hint, not a setting
    assert fs["arg:--nproc_per_node"] == "8" and fs["arg:--nnodes"] == "2" and fs["arg:--bf16"] == "(set)"
    d = compare(fs, gs)
    assert {c.name: (c.failed, c.good) for c in d.changed} == {"env:NCCL_IB_DISABLE": ("1", None), "arg:--lr": ("3e-4", "1e-4")}
    assert [c.group for c in d.changed] == ["env", "launcher"]


def test_the_diff_command(capsys):  # type: ignore[no-untyped-def]
    a, b = (REPO / "evals" / "cases" / p for p in PAIRS[0])
    assert main(["diff", str(a), str(b), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"name": "gpu_model", "group": "topology", "failed": "H100 80GB HBM3", "good": "A100-SXM4-80GB"} in out["changed"]
    assert main(["diff", str(a), str(b)]) == 0
    text = capsys.readouterr().out
    assert "versions:" in text and "torch_version" in text and "2.1.2" in text and "2.0.1" in text


def _files(case_id: str) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [("files", (s.name, s.data or Path(s.path or "").read_bytes(), "text/plain")) for s in CASES[case_id].sources()]


def test_the_api_and_the_page_compare_a_diagnosis_with_a_good_run(engine):  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from service.app import create_app

    failed, good = PAIRS[0]
    with TestClient(create_app(engine.settings, engine)) as client:
        r = client.post("/v1/diagnoses", files=_files(failed))
        assert r.status_code == 201
        did = r.json()["id"]
        assert r.json()["setup"]["arg:--deepspeed"] == "configs/ds_z2_bf16.json"  # the launch command, kept masked
        diff = client.post(f"/v1/diagnoses/{did}/diff", files=_files(good))
        assert diff.status_code == 200, diff.text
        changed = {c["name"]: (c["failed"], c["good"]) for c in diff.json()["changed"]}
        assert changed["torch_version"] == ("2.1.2", "2.0.1") and changed["world_size"] == ("2", "4")
        assert "env:NCCL_DEBUG" in changed and "failure_step" not in changed
        assert client.post("/v1/diagnoses/d_nope12345678/diff", content=b"x", headers={"Content-Type": "text/plain"}).status_code == 404
        html = client.post(f"/d/{did}/compare", files=_files(good)).text
        assert 'id="compare"' in html and "A100-SXM4-80GB" in html and "H100 80GB HBM3" in html and "facts changed" in html
