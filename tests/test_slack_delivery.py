"""A Slack reply is posted once from the user's view, whatever happens to the worker: a worker SIGKILLed while its
post was under way (Slack has the message, crashdoc never heard back) does not post it again when the job is taken
up; a post Slack refused (503) or never received (no connection) is posted again; a post that timed out after it
went out is not. And the interactions are jobs too: accepted once per trigger_id, kept in the jobs table (a replica
that dies loses nothing), run by whichever runner takes them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr
from sqlalchemy import update

from service.app import create_app
from service.jobs import InProcess, Jobs, run_job
from service.models import Source
from service.pipeline import Engine, diagnose
from service.slack import blocks, replies, respond
from service.store.schema import JobRow
from tests.conftest import REPO, free_port
from tests.test_accounts import app_engine
from tests.test_slack import OOM_LOG, SECRET, block_actions, interaction_body, signed_headers


class Receiver:
    """Plays Slack's response_url. ``mode`` per path: "ok" answers 200; "hold" takes the message, tells the test
    (``got``) and answers only when ``release`` is set; "503" refuses; "slow" answers after ``slow_s``."""

    def __init__(self) -> None:
        self.posts: dict[str, list[dict[str, Any]]] = {}
        self.modes: dict[str, str] = {}
        self.got, self.release = threading.Event(), threading.Event()
        self.slow_s = 3.0
        self.lock = threading.Lock()
        me = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                mode = me.modes.get(self.path, "ok")
                with me.lock:
                    me.posts.setdefault(self.path, []).append(body)
                    first = len(me.posts[self.path]) == 1
                if mode == "hold":
                    me.got.set()
                    me.release.wait(120)
                if mode == "slow":
                    time.sleep(me.slow_s)
                status = 503 if mode == "503" and first else 200
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", "2")
                    self.end_headers()
                    self.wfile.write(b"ok")
                except OSError:  # the poster gave up (a timeout) or died (SIGKILL): as Slack, keep the message
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def url(self, path: str, mode: str = "ok") -> str:
        self.modes[path] = mode
        return self.base + path

    def count(self, path: str) -> int:
        with self.lock:
            return len(self.posts.get(path, []))


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.release.set()
    r.server.shutdown()
    r.server.server_close()


def _engine(engine: Engine, tmp_path: Path, **overrides: Any) -> Engine:
    return app_engine(engine, tmp_path, slack_allow_insecure_response_url=True, **overrides)


def _expire(e: Engine, job_id: str) -> None:
    """The lease of a dead attempt runs out (5 minutes; here at once)."""
    with e.store.session() as s:
        s.execute(update(JobRow).where(JobRow.id == job_id).values(lease_until=datetime.now(UTC) - timedelta(seconds=1),
                                                                  run_after=datetime.now(UTC) - timedelta(seconds=1)))


def _message_job(jobs: Jobs, url: str) -> str:
    message = blocks.ack_message(":white_check_mark: the reply, posted once")
    job, _ = jobs.submit("slack", {"op": "message", "to": {"response_url": url}, "message": message}, scope="slack:T0001")
    return job.id


_WORKER = """
import sys
from service.jobs import Jobs, run_job
from service.pipeline import Engine
from service.settings import Settings
engine = Engine(Settings())
run_job(engine, Jobs(engine.store), sys.argv[1])
"""


@pytest.mark.slow
def test_a_worker_killed_while_its_post_is_under_way_does_not_post_the_reply_twice(engine, tmp_path, receiver):
    e = _engine(engine, tmp_path)
    jobs = Jobs(e.store)
    url = receiver.url("/r/held", "hold")
    job_id = _message_job(jobs, url)
    env = {**os.environ, "CRASHDOC_DATA_DIR": str(tmp_path), "CRASHDOC_DATABASE_URL": e.settings.resolved_database_url,
           "CRASHDOC_SLACK_ALLOW_INSECURE_RESPONSE_URL": "true"}
    worker = subprocess.Popen([sys.executable, "-c", _WORKER, job_id], cwd=REPO, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        assert receiver.got.wait(120), worker.communicate(timeout=5)[0].decode(errors="replace")[-3000:]
        worker.send_signal(signal.SIGKILL)  # Slack has the message; the worker never hears back nor records it
        assert worker.wait(timeout=30) == -signal.SIGKILL
    finally:
        if worker.poll() is None:
            worker.kill()
    receiver.release.set()
    held = jobs.get(job_id)
    assert held is not None and held.status == "running" and held.delivered_at is None
    assert held.steps == {"message": held.steps["message"], "post": "started"}  # under way, outcome unknown

    _expire(e, job_id)
    assert run_job(e, jobs, job_id) is None  # the next attempt, on a live worker
    done = jobs.get(job_id)
    assert done is not None and done.status == "done" and done.attempts == 2
    assert done.result == {"delivered": "unconfirmed"}
    time.sleep(0.5)
    assert receiver.count("/r/held") == 1  # posted once: the retry did not post it again


def test_a_refused_post_is_posted_again_and_a_post_lost_after_it_went_out_is_not(engine, tmp_path, receiver, monkeypatch):
    e = _engine(engine, tmp_path)
    jobs = Jobs(e.store)
    # Slack answered 503: it did not take the reply, so the retry posts it (once).
    refused = _message_job(jobs, receiver.url("/r/503", "503"))
    assert run_job(e, jobs, refused) is not None  # a retry is due
    assert (jobs.get(refused) or pytest.fail()).steps.get("post") is None  # unmarked: known not delivered
    _expire(e, refused)
    assert run_job(e, jobs, refused) is None
    job = jobs.get(refused)
    assert job is not None and job.status == "done" and job.result == {"delivered": True} and job.delivered_at
    assert receiver.count("/r/503") == 2
    # Nothing listens there: no connection, nothing sent; the retry posts.
    closed = f"http://127.0.0.1:{free_port()}/r/closed"
    unreachable = _message_job(jobs, closed)
    assert run_job(e, jobs, unreachable) is not None
    assert (jobs.get(unreachable) or pytest.fail()).steps.get("post") is None
    # The post went out and the answer never came (a read timeout): Slack may show it, so it is not posted again.
    monkeypatch.setattr(respond, "POST_TIMEOUT_S", 0.5)
    receiver.slow_s = 3.0
    slow = _message_job(jobs, receiver.url("/r/slow", "slow"))
    assert run_job(e, jobs, slow) is None
    job = jobs.get(slow)
    assert job is not None and job.status == "done" and job.result == {"delivered": "unconfirmed"} and job.steps["post"] == "unsure"
    time.sleep(receiver.slow_s + 0.5)
    assert receiver.count("/r/slow") == 1


def test_each_side_effect_of_a_reply_is_a_step_done_once(engine, tmp_path):
    e = _engine(engine, tmp_path)
    jobs = Jobs(e.store)
    job, _ = jobs.submit("slack", {"op": "message"}, scope="slack:T0001")
    calls: list[str] = []

    def do(outcome: str) -> Any:
        return lambda: calls.append(outcome) or outcome

    claimed = jobs.claim(job.id)
    assert claimed is not None
    assert replies.once(jobs, claimed, "a", do(replies.SENT)) == replies.SENT
    assert replies.once(jobs, claimed, "a", do(replies.SENT)) == replies.DONE  # done: not again
    assert replies.once(jobs, claimed, "b", do(replies.REFUSED)) == replies.REFUSED
    assert replies.once(jobs, claimed, "b", do(replies.SENT)) == replies.SENT  # refused: may be done again
    assert replies.once(jobs, claimed, "c", do(replies.UNSURE)) == replies.UNSURE
    assert replies.once(jobs, claimed, "c", do(replies.SENT)) == replies.UNCONFIRMED  # may have happened: never again

    def dies() -> str:
        raise KeyboardInterrupt  # the attempt ends mid-step, as a killed process does

    with pytest.raises(KeyboardInterrupt):
        replies.once(jobs, claimed, "d", dies)
    assert replies.once(jobs, claimed, "d", do(replies.SENT)) == replies.UNCONFIRMED
    assert calls == ["sent", "refused", "sent", "unsure"]
    assert (jobs.get(job.id) or pytest.fail()).steps == {"a": "done", "b": "done", "c": "unsure", "d": "started"}


@pytest.mark.slow
def test_interactions_are_jobs_accepted_once_and_run_by_any_runner(engine, tmp_path, receiver):
    """A replica that accepts interactions but runs no jobs (as on PostgreSQL): each is in the jobs table, once per
    trigger_id; a runner started afterwards (another process, after the replica died) posts each reply once."""
    e = _engine(engine, tmp_path, slack_signing_secret=SecretStr(SECRET), jobs_in_process=False)
    diagnosis = diagnose(e, [Source(name="train.log", data=OOM_LOG.encode())])  # a card to act on
    share = {"type": "button", "action_id": blocks.ACTION_SHARE, "value": diagnosis.id, "block_id": "x", "action_ts": "1"}
    right = {"type": "button", "action_id": blocks.ACTION_RIGHT, "value": diagnosis.id, "block_id": "x", "action_ts": "2"}
    prompt = {"type": "button", "action_id": blocks.ACTION_FOLLOWUP, "value": diagnosis.id, "block_id": "x", "action_ts": "3"}
    sent = [block_actions(receiver.url(f"/i/{name}"), action) for name, action in
            (("share", share), ("right", right), ("prompt", prompt))]
    with TestClient(create_app(e.settings, e)) as client:
        for payload in sent + sent:  # each sent twice, as Slack retries one it got no 200 for in 3 s
            body = interaction_body(payload)
            assert client.post("/slack/interactions", content=body, headers=signed_headers(body)).status_code == 200
    jobs = Jobs(e.store)
    assert jobs.counts() == {"queued": 3}  # accepted once each, nothing run, nothing lost with the replica
    runner = InProcess(e, workers=2, poll_s=0.05).start()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and jobs.counts() != {"done": 3}:
            time.sleep(0.1)
    finally:
        runner.stop()
    assert jobs.counts() == {"done": 3}
    time.sleep(0.5)
    assert {p: len(v) for p, v in receiver.posts.items()} == {"/i/share": 1, "/i/right": 1, "/i/prompt": 1}
    assert receiver.posts["/i/share"][0]["response_type"] == "in_channel"  # the stored card, for the channel
    assert "verdict (right cause)" in receiver.posts["/i/right"][0]["text"]
    assert receiver.posts["/i/prompt"][0]["blocks"][0]["block_id"] == blocks.ASK_BLOCK_PREFIX + diagnosis.id
    assert [(fb.diagnosis_id, fb.verdict, fb.source) for fb, _, _ in e.store.feedback()] == [(diagnosis.id, "right", "slack")]
