"""Durable jobs (service/jobs): async diagnoses answer 202 + Location and are made once per idempotency key, with the
allowance spent once; attempts are retried with backoff and a job that fails for good gives its use back; a job left
by a process that died is taken up; on PostgreSQL, procrastinate runs them."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import update

from service.errors import KeyReused
from service.jobs import InProcess, Jobs, OverAllowance, Spend, kinds, run_job
from service.jobs import records as job_records
from service.store import Store
from service.store.accounts import Accounts
from service.store.schema import JobRow
from tests.test_accounts import OOM_LOG, TEXT, app_engine, running_app

ASYNC = {**TEXT, "Prefer": "respond-async"}


def wait_done(client: httpx.Client, location: str, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(location).json()
        if job["status"] in ("done", "failed"):
            return job  # type: ignore[no-any-return]
        time.sleep(0.2)
    raise AssertionError(f"job {location} still {job['status']}")


def test_an_async_diagnosis_is_accepted_once_per_key_and_spends_once(engine, tmp_path):
    with running_app(engine, tmp_path, plan_free_daily=2) as a:
        key = a.new_key("async-team")
        with a.client(key) as c:
            first = c.post("/v1/diagnoses", content=OOM_LOG, headers={**ASYNC, "Idempotency-Key": "run-41"})
            assert first.status_code == 202 and first.headers["Location"] == f"/v1/jobs/{first.json()['id']}"
            again = c.post("/v1/diagnoses", content=OOM_LOG, headers={**ASYNC, "Idempotency-Key": "run-41"})
            assert again.status_code == 202 and again.json()["id"] == first.json()["id"]
            assert again.headers["Idempotent-Replayed"] == "true"
            job = wait_done(c, first.headers["Location"])
            assert job["status"] == "done" and job["attempts"] == 1, job
            d = c.get(job["result"]["diagnosis_url"]).json()
            assert d["id"] == job["result"]["diagnosis_id"] and d["entry_id"] == "cuda-oom"
            assert c.get("/v1/workspace").json()["used_today"]["diagnoses"] == 1  # the retry spent nothing
            assert c.get("/v1/diagnoses").json()["total"] == 1
            # A second key spends the second use; the third is refused before anything is accepted.
            assert c.post("/v1/diagnoses", content=OOM_LOG, headers={**ASYNC, "Idempotency-Key": "run-42"}).status_code == 202
            over = c.post("/v1/diagnoses", content=OOM_LOG, headers={**ASYNC, "Idempotency-Key": "run-43"})
            assert over.status_code == 429 and int(over.headers["Retry-After"]) > 0
        other = a.new_key("other-team")
        with a.client(other) as c:
            assert c.get(first.headers["Location"]).status_code == 404  # another workspace's job does not exist
        with a.client(None) as c:
            assert c.get(first.headers["Location"]).status_code == 404


def test_an_async_key_reused_for_another_log_is_a_422_and_spends_nothing(engine, tmp_path):
    """As on the synchronous form: a key names one request; another log under it is refused, not its job returned."""
    other_log = OOM_LOG.replace(b"Tried to allocate 2.00 GiB", b"Tried to allocate 6.00 GiB")
    assert other_log != OOM_LOG
    with running_app(engine, tmp_path, plan_free_daily=3) as a:
        key = a.new_key("async-reuse")
        with a.client(key) as c:
            first = c.post("/v1/diagnoses", content=OOM_LOG, headers={**ASYNC, "Idempotency-Key": "reuse-1"})
            assert first.status_code == 202
            other = c.post("/v1/diagnoses", content=other_log, headers={**ASYNC, "Idempotency-Key": "reuse-1"})
            assert other.status_code == 422, other.text
            assert other.json()["error"]["code"] == "idempotency_key_reused"
            renamed = c.post("/v1/diagnoses", files={"files": ("rank_1.log", OOM_LOG)},
                             headers={"Prefer": "respond-async", "Idempotency-Key": "reuse-1"})
            assert renamed.status_code == 422, renamed.text  # the same text as another file is another request
            again = c.post("/v1/diagnoses", content=OOM_LOG, headers={**ASYNC, "Idempotency-Key": "reuse-1"})
            assert again.status_code == 202 and again.json()["id"] == first.json()["id"]  # the retry still finds it
            wait_done(c, first.headers["Location"])
            assert c.get("/v1/workspace").json()["used_today"]["diagnoses"] == 1
            assert c.get("/v1/diagnoses").json()["total"] == 1
    # The check is in Jobs.submit itself: a replica that lost the insert race on a key finds the job the same way.
    (tmp_path / "race").mkdir()
    e = app_engine(engine, tmp_path / "race")
    jobs = Jobs(e.store)
    jobs.submit("diagnose", {}, scope="ws-race", key="k", fingerprint="a" * 64)
    assert jobs.submit("diagnose", {}, scope="ws-race", key="k", fingerprint="a" * 64)[1] is False
    with pytest.raises(KeyReused):
        jobs.submit("diagnose", {}, scope="ws-race", key="k", fingerprint="b" * 64)


def test_a_failed_attempt_is_retried_with_backoff_and_the_last_failure_gives_the_use_back(engine, tmp_path, monkeypatch):
    e = app_engine(engine, tmp_path)
    jobs, accounts = Jobs(e.store), Accounts(e.store)
    day = datetime.now(UTC).date()
    calls: list[int] = []

    def flaky(engine_: Any, jobs_: Jobs, job: job_records.Job, final: bool) -> dict[str, Any]:
        calls.append(job.attempts)
        if job.attempts < 3:
            raise ConnectionError("the model server hung up")
        return {"ok": True}

    monkeypatch.setitem(kinds.KINDS, "flaky", flaky)
    job, created = jobs.submit("flaky", {}, scope="ws-retry", spend=Spend("ws-retry", "diagnosis", 5, day))
    assert created and accounts.usage("ws-retry", day)["diagnosis"] == 1
    before = time.time()
    due = run_job(e, jobs, job.id)
    assert due is not None and due - before >= job_records.BACKOFF_S * 0.9  # not before the backoff
    assert run_job(e, jobs, job.id) is None and calls == [1]  # not due yet: nothing runs
    _make_due(e.store, job.id)
    due2 = run_job(e, jobs, job.id)
    assert due2 is not None and due2 - time.time() > job_records.BACKOFF_S * 3  # 2 s, then 8 s
    _make_due(e.store, job.id)
    assert run_job(e, jobs, job.id) is None
    done = jobs.get(job.id)
    assert done is not None and done.status == "done" and done.attempts == 3 and calls == [1, 2, 3]
    assert accounts.usage("ws-retry", day)["diagnosis"] == 1

    def broken(*_: Any) -> dict[str, Any]:
        raise ConnectionError("still down")

    monkeypatch.setitem(kinds.KINDS, "broken", broken)
    job, _ = jobs.submit("broken", {}, scope="ws-retry", spend=Spend("ws-retry", "diagnosis", 5, day), max_attempts=2)
    assert accounts.usage("ws-retry", day)["diagnosis"] == 2
    run_job(e, jobs, job.id)
    _make_due(e.store, job.id)
    run_job(e, jobs, job.id)
    failed = jobs.get(job.id)
    assert failed is not None and failed.status == "failed" and failed.error == {"code": "internal", "message": "ConnectionError"}
    assert accounts.usage("ws-retry", day)["diagnosis"] == 1  # given back
    assert run_job(e, jobs, job.id) is None  # failed for good: never run again


def test_the_allowance_is_counted_with_the_job_or_not_at_all(engine, tmp_path):
    e = app_engine(engine, tmp_path)
    jobs, day = Jobs(e.store), datetime.now(UTC).date()
    jobs.submit("diagnose", {}, scope="ws-cap", key="a", spend=Spend("ws-cap", "diagnosis", 1, day))
    with pytest.raises(OverAllowance):
        jobs.submit("diagnose", {}, scope="ws-cap", key="b", spend=Spend("ws-cap", "diagnosis", 1, day))
    assert jobs.find("ws-cap", "b") is None  # refused: no job was accepted
    assert jobs.submit("diagnose", {}, scope="ws-cap", key="a", spend=Spend("ws-cap", "diagnosis", 1, day))[1] is False


def _make_due(store: Store, job_id: str) -> None:
    with store.session() as s:
        s.execute(update(JobRow).where(JobRow.id == job_id).values(run_after=datetime.now(UTC) - timedelta(seconds=1)))


def test_a_job_left_by_a_dead_process_is_taken_up(engine, tmp_path, monkeypatch):
    e = app_engine(engine, tmp_path)
    jobs = Jobs(e.store)
    ran: list[str] = []
    monkeypatch.setitem(kinds.KINDS, "note", lambda _e, _j, job, _f: ran.append(job.id) or {"ok": True})
    queued, _ = jobs.submit("note", {}, scope="ws-dead")  # accepted, then its process died before running it
    held, _ = jobs.submit("note", {}, scope="ws-dead")
    assert jobs.claim(held.id) is not None  # claimed by a process that then died mid-attempt
    with e.store.session() as s:
        s.execute(update(JobRow).where(JobRow.id == held.id).values(lease_until=datetime.now(UTC) - timedelta(seconds=1)))
    runner = InProcess(e, workers=2, poll_s=0.05).start()
    try:
        deadline = time.monotonic() + 30
        while len(ran) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        runner.stop()
    assert sorted(ran) == sorted([queued.id, held.id])
    again = jobs.get(held.id)
    assert again is not None and again.status == "done" and again.attempts == 2


def test_on_postgres_procrastinate_runs_the_jobs(engine, pg_url, monkeypatch):
    """The web side defers to procrastinate; a worker (``crashdoc worker``'s app) runs the job once."""
    from service.jobs.queue import QUEUE_NAME, Procrastinate, procrastinate_app

    e = app_engine(engine, engine.settings.data_dir, database_url=pg_url)
    jobs = Jobs(e.store)
    ran: list[str] = []
    monkeypatch.setitem(kinds.KINDS, "note", lambda _e, _j, job, _f: ran.append(job.id) or {"ok": True})
    web = Procrastinate(pg_url)
    try:
        job, _ = jobs.submit("note", {}, scope="ws-pg", key="k1")
        web.notify(job.id)
        web.notify(job.id)  # deferred twice: the queueing lock keeps one
    finally:
        web.stop()
    procrastinate_app(pg_url, e).run_worker(queues=[QUEUE_NAME], wait=False, install_signal_handlers=False,
                                            listen_notify=False)
    done = jobs.get(job.id)
    assert ran == [job.id] and done is not None and done.status == "done" and done.attempts == 1
