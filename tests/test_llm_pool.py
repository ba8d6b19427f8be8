"""A hanging model stalls nothing: LLM calls run in their own bounded pool, the rest is answered at once."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fastapi.testclient import TestClient

from service.app import create_app
from service.jobs import records as job_records
from service.pipeline import Engine
from tests.conftest import EXAMPLES
from tests.fake_llm import FakeLLMServer, Script
from tests.test_llm_composer import answer

LOG = (EXAMPLES / "fusedadam-h100.log").read_bytes()
SLOTS = 2
WAITING = 40


def test_healthz_and_new_diagnoses_answer_while_the_model_hangs(engine: Engine, tmp_path: Path):
    with FakeLLMServer() as fake:
        fake.state.default = Script(content="{}", delay=20.0)  # a model that hangs past every deadline below
        settings = engine.settings.model_copy(update={
            "data_dir": tmp_path, "database_url": None, "llm_model": "openai/hanging", "llm_api_base": fake.url,
            "llm_timeout_s": 15.0, "llm_budget_s": 15.0, "llm_max_retries": 0, "llm_concurrency": SLOTS,
        })
        e = Engine(settings)
        for shared in ("kb", "index", "masker"):
            e.__dict__[shared] = getattr(engine, shared)
        with TestClient(create_app(settings, e)) as client:
            post = lambda: client.post("/v1/diagnoses", content=LOG, headers={"Content-Type": "text/plain"})  # noqa: E731
            with ThreadPoolExecutor(max_workers=SLOTS + WAITING) as pool:
                hanging = [pool.submit(post) for _ in range(SLOTS)]
                deadline = time.monotonic() + 30
                while len(fake.state.requests) < SLOTS and time.monotonic() < deadline:
                    time.sleep(0.05)
                assert len(fake.state.requests) == SLOTS  # both slots wait on the model now
                others = [pool.submit(post) for _ in range(WAITING)]
                health = client.get("/healthz")  # with 42 diagnoses in flight, 2 of them on the hanging model
                assert health.status_code == 200 and not any(f.done() for f in hanging)
                answered = [f.result(timeout=60) for f in others]
                for r in answered:
                    body = r.json()
                    assert r.status_code == 201 and body["composer"] == "deterministic"
                    assert any("LLM is busy" in n for n in body["notes"])
                assert len(fake.state.requests) == SLOTS  # nothing else reached the model
                for f in hanging:
                    body = f.result(timeout=60).json()
                    assert body["composer"] == "deterministic" and "did not answer" in body["llm"]["fallback_reason"]


def test_a_full_pool_of_42_waits_on_the_model_leaves_threads_for_new_requests(engine: Engine, tmp_path: Path):
    """Each wait holds its request thread until the deadline: with a pool as large as the request threads, the
    request threads must still outnumber it, or the 42nd wait and every new request queue behind the model."""
    slots = 42
    with FakeLLMServer() as fake:
        fake.state.default = Script(content="{}", delay=300.0)  # until released below
        settings = engine.settings.model_copy(update={
            "data_dir": tmp_path, "database_url": None, "llm_model": "openai/hanging", "llm_api_base": fake.url,
            "llm_timeout_s": 300.0, "llm_budget_s": 300.0, "llm_max_retries": 0, "llm_concurrency": slots,
        })
        e = Engine(settings)
        for shared in ("kb", "index", "masker"):
            e.__dict__[shared] = getattr(engine, shared)
        with TestClient(create_app(settings, e)) as client:
            post = lambda: client.post("/v1/diagnoses", content=LOG, headers={"Content-Type": "text/plain"})  # noqa: E731
            with ThreadPoolExecutor(max_workers=slots + 1) as pool:
                waiting = [pool.submit(post) for _ in range(slots)]
                deadline = time.monotonic() + 600  # 42 passes through the pipeline first: minutes on 2 overloaded cores
                while len(fake.state.requests) < slots and time.monotonic() < deadline:
                    time.sleep(0.05)
                assert len(fake.state.requests) == slots  # every wait reached the model: none queued for a thread
                new = pool.submit(post).result(timeout=120)  # while all 42 still wait: it did not queue behind them
                assert new.status_code == 201 and new.json()["composer"] == "deterministic"
                assert any("LLM is busy" in n for n in new.json()["notes"])
                assert client.get("/healthz").status_code == 200 and not any(f.done() for f in waiting)
                fake.state.release.set()  # the model answers "{}" at last: not a valid diagnosis, so each falls back
                for f in waiting:
                    assert f.result(timeout=120).status_code == 201


def test_a_diagnosis_answered_while_the_model_is_busy_is_composed_later_by_a_job(engine: Engine, tmp_path: Path, monkeypatch):
    """The full pool's answer is deterministic at once; a durable job (the masked run is its payload) asks the model
    when a slot is free and replaces the stored diagnosis, same id, when the answer passes the checks."""
    monkeypatch.setattr(job_records, "BACKOFF_S", 0.2)  # a busy model is retried with backoff: quickly here
    with FakeLLMServer() as fake:
        fake.state.default = Script(content="{}", delay=300.0)  # the one slot hangs until released below
        settings = engine.settings.model_copy(update={
            "data_dir": tmp_path, "database_url": None, "llm_model": "openai/hanging", "llm_api_base": fake.url,
            "llm_timeout_s": 300.0, "llm_budget_s": 300.0, "llm_max_retries": 0, "llm_concurrency": 1,
        })
        e = Engine(settings)
        for shared in ("kb", "index", "masker"):
            e.__dict__[shared] = getattr(engine, shared)
        with TestClient(create_app(settings, e)) as client, ThreadPoolExecutor(max_workers=1) as pool:
            post = lambda: client.post("/v1/diagnoses", files={"files": ("train.log", LOG)})  # noqa: E731  (the answer cites train.log)
            hanging = pool.submit(post)
            deadline = time.monotonic() + 120
            while not fake.state.requests and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(fake.state.requests) == 1  # the slot is taken
            busy = post()
            first = busy.json()
            assert busy.status_code == 201 and first["composer"] == "deterministic"
            job_id = first["llm"]["follow_up_job"]
            assert any(f"job {job_id}" in n for n in first["notes"]) and any("LLM is busy" in n for n in first["notes"])
            job = client.get(f"/v1/jobs/{job_id}").json()
            assert job["kind"] == "compose" and job["status"] in ("queued", "running")
            fake.state.default = Script(content=answer())  # the model is back, and answers well
            fake.state.release.set()
            hanging.result(timeout=120)
            deadline = time.monotonic() + 120
            while job["status"] not in ("done", "failed") and time.monotonic() < deadline:
                time.sleep(0.2)
                job = client.get(f"/v1/jobs/{job_id}").json()
            assert job["status"] == "done" and job["result"]["composer"] == "openai/hanging", job["result"]
            later = client.get(f"/v1/diagnoses/{first['id']}").json()
            assert later["id"] == first["id"] and later["composer"] == "openai/hanging" and later["entry_id"] == first["entry_id"]
            assert any(f"after a deterministic first answer (job {job_id})" in n for n in later["notes"])
            assert e.store.history(None)[1] == 2  # replaced in place, not a third diagnosis
