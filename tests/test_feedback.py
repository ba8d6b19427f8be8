"""Feedback round trip: "wrong cause, it was X" through the API, the page and Slack's handler, stored per
workspace, masked, and exported by ``crashdoc feedback export`` as eval case skeletons that load as cases."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from service.app import create_app
from service.evaluation.cases import load_cases
from service.feedback import FeedbackIn, export, record
from service.pipeline import Engine
from service.slack import handlers
from service.store.accounts import Accounts
from tests.conftest import REPO

CASE = REPO / "evals" / "cases" / "nccl-watchdog-timeout-h100-rank0-sampling-01"
EMAIL = "dana.kowalski@example.org"
TEXT = {"Content-Type": "text/plain"}


@pytest.fixture(scope="module")
def client(engine: Engine) -> Iterator[TestClient]:
    with TestClient(create_app(engine.settings, engine)) as c:
        yield c


@pytest.fixture(scope="module")
def diagnosis_id(client: TestClient) -> str:
    log = b"".join(p.read_bytes() for p in sorted(CASE.glob("*.log")))
    r = client.post("/v1/diagnoses", content=log, headers=TEXT)
    assert r.status_code == 201
    return str(r.json()["id"])


def test_the_api_stores_a_wrong_cause_with_its_label_and_a_masked_note(client: TestClient, engine: Engine, diagnosis_id: str):
    said = {"verdict": "wrong", "label": "gpu-ecc-error", "note": f"it was a bad GPU on node 3, ask {EMAIL}"}
    r = client.post(f"/v1/diagnoses/{diagnosis_id}/feedback", json=said)
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["verdict"] == "wrong" and body["label"] == "gpu-ecc-error" and body["source"] == "api"
    assert EMAIL not in body["note"] and "bad GPU on node 3" in body["note"]
    stored = [fb for fb, d, _ in engine.store.feedback(None) if d.id == diagnosis_id]
    assert [(fb.verdict, fb.label) for fb in stored][-1] == ("wrong", "gpu-ecc-error") and EMAIL not in (stored[-1].note or "")


@pytest.mark.parametrize(("body", "status"), [
    ({"verdict": "wrong", "label": "no-such-entry"}, 400),
    ({"verdict": "maybe"}, 422),
    ({"verdict": "wrong", "note": "x" * 5_000}, 422),
])
def test_bad_feedback_is_refused_saying_why(client: TestClient, diagnosis_id: str, body: dict[str, object], status: int):
    r = client.post(f"/v1/diagnoses/{diagnosis_id}/feedback", json=body)
    assert r.status_code == status and r.json()["error"]["message"]


def test_feedback_on_another_workspaces_diagnosis_is_not_found(client: TestClient, engine: Engine, diagnosis_id: str):
    acc = Accounts(engine.store)
    acc.create_workspace("feedback-other")
    _, key = acc.create_key("feedback-other")
    r = client.post(f"/v1/diagnoses/{diagnosis_id}/feedback", json={"verdict": "right"}, headers={"Authorization": f"Bearer {key}"})
    assert r.status_code == 404
    assert client.post("/v1/diagnoses/d_doesnotexist99/feedback", json={"verdict": "right"}).status_code == 404


def test_the_page_has_right_and_wrong_cause_and_thanks_after(client: TestClient, engine: Engine, diagnosis_id: str):
    html = client.get(f"/d/{diagnosis_id}").text
    assert 'id="feedback"' in html and "Right cause" in html and "Wrong cause, it was" in html
    r = client.post(f"/d/{diagnosis_id}/feedback", data={"verdict": "right"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].endswith("?feedback=right#feedback")
    assert "your answer is stored" in client.get(r.headers["location"]).text
    bad = client.post(f"/d/{diagnosis_id}/feedback", data={"verdict": "wrong", "label": "not an id"})
    assert bad.status_code == 400 and "is not an encyclopedia entry id" in bad.text
    sources = [(fb.source, fb.verdict) for fb, d, _ in engine.store.feedback(None) if d.id == diagnosis_id]
    assert ("web", "right") in sources


def test_slack_feedback_is_stored_the_same_way(engine: Engine, diagnosis_id: str):
    message = handlers.feedback(engine, diagnosis_id, "wrong", "nccl-network-error", "IB link flapping", None)
    assert message["response_type"] == "ephemeral" and diagnosis_id in message["text"]
    fb = [fb for fb, d, _ in engine.store.feedback(None) if d.id == diagnosis_id][-1]
    assert (fb.source, fb.verdict, fb.label, fb.note) == ("slack", "wrong", "nccl-network-error", "IB link flapping")


def test_export_turns_wrong_cause_reports_into_case_skeletons_that_load(engine: Engine, diagnosis_id: str, tmp_path: Path):
    written = export(engine, tmp_path, every_workspace=True)
    mine = [p for p in written if diagnosis_id.removeprefix("d_").lower() in p.name]
    assert len(mine) == 2  # the API's and Slack's wrong-cause reports; "right" verdicts are not cases
    cases = {c.id: c for c in load_cases(tmp_path, set(engine.kb.entries))}
    labels = sorted(cases[p.name].case.label for p in mine)
    assert labels == ["gpu-ecc-error", "nccl-network-error"]
    d = engine.store.get(diagnosis_id)
    excerpt = engine.store.excerpt(diagnosis_id)
    for p in mine:
        case = yaml.safe_load((p / "case.yaml").read_text())
        assert case["initiating_rank"] == d.initiating_rank and diagnosis_id in case["description"]
        log = (p / "train.log").read_text()
        assert log.splitlines() == [e.text for e in excerpt] and EMAIL not in log + case["description"]
        assert "Review before this becomes an eval case" in (p / "REVIEW.md").read_text()
    assert export(engine, tmp_path, every_workspace=True) == []  # already exported: kept, not rewritten


def test_the_feedback_export_command(engine: Engine, diagnosis_id: str, tmp_path: Path):
    record(engine, diagnosis_id, FeedbackIn(verdict="wrong", label="cuda-oom"), source="api")
    env = {**os.environ, "CRASHDOC_DATA_DIR": str(engine.settings.data_dir)}
    out = tmp_path / "skeletons"
    r = subprocess.run([sys.executable, "-m", "service.cli", "feedback", "export", str(out)], cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    folders = [Path(line) for line in r.stdout.splitlines()]
    assert folders and all((f / "case.yaml").is_file() for f in folders)
    assert any(yaml.safe_load((f / "case.yaml").read_text())["label"] == "cuda-oom" for f in folders)
    assert "case skeleton(s) written" in r.stderr
