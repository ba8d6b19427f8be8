"""The kill test: two `crashdoc serve` replicas and a `crashdoc worker` on one PostgreSQL; 20 Slack commands and 20
async diagnoses in flight, sent to both replicas in turn; one replica is SIGKILLed in the middle. A request that
reached the dead replica is sent again to the other (what a load balancer does), with the same trigger_id or
Idempotency-Key. Then: every Slack reply is posted exactly once, every diagnosis exists exactly once, and the
allowances are exact (the 21st of each is refused)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from service.store import Store
from service.store.accounts import Accounts
from service.store.schema import DiagnosisRow, JobRow
from tests.conftest import REPO, free_port, wait_healthy
from tests.test_accounts import OOM_LOG, TEXT
from tests.test_slack import OOM_LOG as SLACK_LOG
from tests.test_slack import SECRET, command_body, signed_headers

pytestmark = pytest.mark.slow
N = 20


class SlackReceiver:
    """Plays Slack's response_url: counts the posts per path."""

    def __init__(self) -> None:
        self.posts: Counter[str] = Counter()
        self.lock = threading.Lock()
        me = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with me.lock:
                    me.posts[self.path] += 1
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"


@contextmanager
def crashdoc(args: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "service.cli", *args], cwd=REPO, env=env, stdout=out,
                                stderr=subprocess.STDOUT)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


def test_a_replica_killed_mid_flight_loses_and_duplicates_nothing(engine, pg_url, session_data_dir, tmp_path):
    engine.warm()  # the session's index, shared with the three processes (each would build its own otherwise)
    store = Store(pg_url)
    accounts = Accounts(store)
    ws = accounts.create_workspace("kill-test")
    key = accounts.create_key(ws.id)[1]
    receiver = SlackReceiver()
    data = tmp_path / "data"
    data.mkdir()
    if (session_data_dir / "index").exists():
        os.symlink(session_data_dir / "index", data / "index")
    env = {**os.environ, "CRASHDOC_DATA_DIR": str(data), "CRASHDOC_DATABASE_URL": pg_url,
           "CRASHDOC_SLACK_SIGNING_SECRET": SECRET, "CRASHDOC_SLACK_ALLOW_INSECURE_RESPONSE_URL": "true",
           "CRASHDOC_PLAN_FREE_DAILY": str(N), "CRASHDOC_SLACK_TEAM_DAILY": str(N), "CRASHDOC_JOBS_WORKERS": "4"}
    ports = [free_port(), free_port()]
    urls = [f"http://127.0.0.1:{p}" for p in ports]
    with ExitStack() as stack:
        replicas = [stack.enter_context(crashdoc(["serve", "--port", str(p)], env, tmp_path / f"serve{i}.log"))
                    for i, p in enumerate(ports)]
        stack.enter_context(crashdoc(["worker"], env, tmp_path / "worker.log"))
        try:
            for url, proc in zip(urls, replicas, strict=True):
                wait_healthy(url, proc, timeout=300)
        except (TimeoutError, RuntimeError):
            for name in ("serve0.log", "serve1.log", "worker.log"):
                print(f"--- {name}", (tmp_path / name).read_text(errors="replace")[-3000:], file=sys.stderr)
            raise
        alive = [True, True]
        sent = threading.Semaphore(0)
        rerouted: Counter[str] = Counter()  # requests sent again to the other replica, and why

        def send(i: int, make: Any) -> httpx.Response:
            """Replica i % 2 first; on a dead connection or a 5xx, the other one, until one answers."""
            target = i % 2
            for _ in range(60):
                if not alive[target]:
                    target = 1 - target
                try:
                    r = make(urls[target])
                    if r.status_code < 500:
                        return r
                    rerouted[f"http {r.status_code}"] += 1
                except httpx.HTTPError as exc:
                    rerouted[type(exc).__name__] += 1
                target = 1 - target
                time.sleep(0.2)
            raise AssertionError(f"request {i} never answered")

        def slack(i: int) -> httpx.Response:
            body = command_body(SLACK_LOG, f"{receiver.base}/r/{i}")
            try:
                return send(i, lambda u: httpx.post(f"{u}/slack/commands", content=body, headers=signed_headers(body), timeout=60))
            finally:
                sent.release()

        def diagnosis(i: int) -> httpx.Response:
            headers = {**TEXT, "Prefer": "respond-async", "Idempotency-Key": f"kill-{i}", "Authorization": f"Bearer {key}"}
            try:
                return send(i, lambda u: httpx.post(f"{u}/v1/diagnoses", content=OOM_LOG, headers=headers, timeout=60))
            finally:
                sent.release()

        def killer() -> None:
            for _ in range(N):  # half of the 40 requests answered or under way: SIGKILL replica 0
                sent.acquire()
            replicas[0].send_signal(signal.SIGKILL)
            alive[0] = False

        kill = threading.Thread(target=killer)
        kill.start()
        with ThreadPoolExecutor(8) as pool:
            futures = [pool.submit(slack, i) for i in range(N)] + [pool.submit(diagnosis, i) for i in range(N)]
            # interleave: the pool takes them in order, so start the diagnoses among the commands
            answers = [f.result() for f in futures]
        kill.join()
        assert replicas[0].wait(timeout=10) == -signal.SIGKILL
        print(f"\nkill test: requests sent again to the other replica: {dict(rerouted) or 'none'}", file=sys.stderr)
        slack_answers, diagnosis_answers = answers[:N], answers[N:]
        assert all(r.status_code == 200 and "Diagnosing your log" in r.text for r in slack_answers)
        assert all(r.status_code == 202 for r in diagnosis_answers), [r.status_code for r in diagnosis_answers]
        jobs = {r.json()["id"] for r in diagnosis_answers}
        assert len(jobs) == N  # one job per key, whichever replica answered

        # The allowances are exact: the 21st of each is refused, on the surviving replica.
        with httpx.Client(base_url=urls[1], timeout=60) as c:
            over = c.post("/v1/diagnoses", content=OOM_LOG, headers={**TEXT, "Prefer": "respond-async",
                                                                      "Idempotency-Key": "kill-extra", "Authorization": f"Bearer {key}"})
            assert over.status_code == 429
            body = command_body(SLACK_LOG, f"{receiver.base}/r/extra")
            assert "used" in c.post("/slack/commands", content=body, headers=signed_headers(body)).text.lower()

        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            with store.session() as s:
                pending = s.scalar(select(func.count()).select_from(JobRow).where(JobRow.status.in_(("queued", "running"))))
            if not pending and sum(receiver.posts.values()) >= N:
                break
            time.sleep(0.5)
        time.sleep(3)  # a second post of anything would arrive by now
        assert {f"/r/{i}": 1 for i in range(N)} == dict(receiver.posts)  # every reply once
        with store.session() as s:
            statuses = Counter(s.scalars(select(JobRow.status)).all())
            in_workspace = s.scalars(select(DiagnosisRow.id).where(DiagnosisRow.workspace_id == ws.id)).all()
            from_slack = s.scalar(select(func.count()).select_from(DiagnosisRow).where(DiagnosisRow.workspace_id.is_(None)))
        assert statuses == {"done": 2 * N}
        assert len(in_workspace) == N and from_slack == N  # no diagnosis lost, none made twice
        with httpx.Client(base_url=urls[1], timeout=60, headers={"Authorization": f"Bearer {key}"}) as c:
            results = [c.get(f"/v1/jobs/{j}").json()["result"]["diagnosis_id"] for j in jobs]
        assert sorted(results) == sorted(in_workspace)
        day = datetime.now(UTC).date()
        assert accounts.usage(ws.id, day)["diagnosis"] == N
        assert accounts.usage("slack:T0001", day)["diagnosis"] == N
    receiver.server.shutdown()
