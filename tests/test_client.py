"""The Python client (``service.client``) and ``crashdoc diagnose --server URL`` against the real server process
(the ``server`` fixture): answers as typed models, errors from the API's error JSON, retries that reuse one
Idempotency-Key (a lost answer is not a second diagnosis, nor a second use of the allowance), no retry on 429,
and the log masked on this machine before it is sent (checked on the bytes that crossed the wire)."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import threading
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from service.client import ApiError, Client, Unreachable
from service.models import Diagnosis
from service.store import Store
from service.store.accounts import Accounts
from tests.conftest import EXAMPLES, REPO, LiveServer, free_port

FUSED = "deepspeed-fusedadam-illegal-memory-access"
LOG = (EXAMPLES / "fusedadam-h100.log").read_bytes()
HF_TOKEN = "hf_QmXv7TbLkP2sWnY9eRcD4uJhA6gZoF3iKa"  # a Hugging Face token's shape: hf_ and 34 letters and digits
PASSWORD = "Tr0ub4dor&3-zq"


def accounts_of(server: LiveServer) -> Accounts:
    return Accounts(Store(f"sqlite:///{server.data_dir / 'crashdoc.db'}"))


def new_key(server: LiveServer, name: str, plan: str = "free") -> str:
    acc = accounts_of(server)
    return acc.create_key(acc.create_workspace(name, plan).id)[1]


def used_today(server: LiveServer, key: str) -> int:
    with Client(server.url, key) as c:
        return c.workspace().used_today.diagnoses


class LosesFirstAnswer(httpx.BaseTransport):
    """The real server gets every request; the first POST's answer is thrown away, as a dropped connection would."""

    def __init__(self) -> None:
        self.inner, self.sent = httpx.HTTPTransport(), []  # type: ignore[var-annotated]

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        response.read()
        self.sent.append(request)
        if request.method == "POST" and len([r for r in self.sent if r.method == "POST"]) == 1:
            raise httpx.ReadTimeout("the answer was lost", request=request)
        return response


class Busy(httpx.BaseTransport):
    """503 with Retry-After for the first ``n`` requests (a replica restarting), then the real server."""

    def __init__(self, n: int, retry_after: str = "2") -> None:
        self.inner, self.n, self.retry_after, self.seen = httpx.HTTPTransport(), n, retry_after, 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.seen += 1
        if self.seen <= self.n:
            body = {"error": {"code": "store_unavailable", "message": "The database is unavailable.", "request_id": "r1"}}
            return httpx.Response(503, json=body, headers={"Retry-After": self.retry_after}, request=request)
        return self.inner.handle_request(request)


# ---------------------------------------------------------------- the client


def test_the_client_diagnoses_and_reads_back_typed_answers(server):
    with Client(server.url) as c:
        d = c.diagnose([("train.log", LOG)])
        again = c.diagnosis(d.id)
        md = c.markdown(d.id)
        exchange = c.ask(d.id, "Which rank failed first?")
        conversation = c.messages(d.id)
    assert isinstance(d, Diagnosis) and d.entry_id == FUSED
    assert again.id == d.id and again.entry_id == FUSED and again.evidence == d.evidence
    assert d.id in md and not md.lstrip().startswith("{")
    assert exchange.answer.role == "assistant" and exchange.answer.text
    assert [m.text for m in conversation.messages] == [exchange.question.text, exchange.answer.text]


def test_the_client_shares_and_revokes_a_workspace_diagnosis(server):
    key = new_key(server, "client-share")
    with Client(server.url, key) as c:
        d = c.diagnose(LOG)
        assert d.url and httpx.get(d.url, timeout=60).status_code == 200  # no key: a teammate's browser
        c.revoke_share(d.id)
        assert httpx.get(d.url, timeout=60).status_code == 410 and c.diagnosis(d.id).url is None
        renewed = c.share(d.id)
        assert httpx.get(renewed.url, timeout=60).status_code == 200
        c.delete(d.id)
        assert httpx.get(renewed.url, timeout=60).status_code == 404
        with pytest.raises(ApiError) as gone:
            c.diagnosis(d.id)
    assert gone.value.status == 404


def test_errors_come_from_the_apis_error_json(server):
    with Client(server.url) as c:
        with pytest.raises(ApiError) as missing:
            c.diagnosis("d_doesnotexist")
        with pytest.raises(ApiError) as empty:
            c.diagnose([("empty.log", b"")])
    assert missing.value.status == 404 and missing.value.code == "not_found" and missing.value.request_id
    assert "d_doesnotexist" in missing.value.message and missing.value.request_id in str(missing.value)
    assert empty.value.status == 422 and empty.value.code == "empty_input" and not empty.value.retryable
    with Client(server.url, "cdk_aaaaaaaaaa_" + "A" * 43) as c, pytest.raises(ApiError) as bad_key:
        c.diagnose(LOG)
    assert bad_key.value.status == 401 and "not valid" in bad_key.value.message


def test_a_lost_answer_is_retried_with_the_same_key_spent_once(server):
    key = new_key(server, "client-lost-answer")
    transport = LosesFirstAnswer()
    waits: list[float] = []
    with Client(server.url, key, transport=transport, sleep=waits.append) as c:
        d = c.diagnose([("train.log", LOG)])
        listed = c.diagnoses()
    posts = [r for r in transport.sent if r.method == "POST"]
    assert len(posts) == 2 and len(waits) == 1
    assert posts[0].headers["Idempotency-Key"] == posts[1].headers["Idempotency-Key"]
    assert d.entry_id == FUSED
    assert listed.total == 1 and listed.items[0].id == d.id  # one diagnosis, not two
    assert used_today(server, key) == 1  # and the allowance spent once


def test_a_busy_service_is_retried_after_its_retry_after(server):
    waits: list[float] = []
    with Client(server.url, transport=Busy(2, "2"), sleep=waits.append) as c:
        d = c.diagnose(LOG)
    assert d.entry_id == FUSED and waits == [2.0, 2.0]
    with Client(server.url, transport=Busy(5, "2"), retries=2, sleep=waits.append) as c, pytest.raises(ApiError) as exc:
        c.diagnose(LOG)
    assert exc.value.status == 503 and exc.value.retry_after_s == 2
    with Client(server.url, transport=Busy(1, "3600"), max_wait_s=5, sleep=waits.append) as c:
        c.diagnose(LOG)
    assert waits[-1] == 5.0  # Retry-After is capped


def test_a_spent_allowance_is_not_retried(server):
    key = new_key(server, "client-quota")
    waits: list[float] = []
    with Client(server.url, key, sleep=waits.append) as c:
        for _ in range(5):  # the free plan's default daily allowance
            c.diagnose(LOG)
        with pytest.raises(ApiError) as exc:
            c.diagnose(LOG)
    assert exc.value.status == 429 and exc.value.code == "quota_exceeded" and exc.value.retry_after_s
    assert waits == []


def test_a_service_that_does_not_answer_is_unreachable_after_the_retries():
    waits: list[float] = []
    with Client(f"http://127.0.0.1:{free_port()}", retries=2, sleep=waits.append) as c, pytest.raises(Unreachable) as exc:
        c.diagnose(LOG)
    assert len(waits) == 2 and "did not answer" in str(exc.value)


# ---------------------------------------------------------------- crashdoc diagnose --server


class Recorder(BaseHTTPRequestHandler):
    """A loopback proxy in front of the live server that keeps every request body it forwards."""

    upstream = ""
    bodies: list[bytes] = []

    def _forward(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        type(self).bodies.append(body)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
        r = httpx.request(self.command, type(self).upstream + self.path, content=body, headers=headers, timeout=120)
        self.send_response(r.status_code)
        for k, v in r.headers.items():
            if k.lower() not in ("content-length", "transfer-encoding", "connection", "content-encoding"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(r.content)))
        self.end_headers()
        self.wfile.write(r.content)

    do_GET = do_POST = _forward

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def recorder(server) -> Iterator[tuple[str, list[bytes]]]:
    Recorder.upstream, Recorder.bodies = server.url, []
    proxy = ThreadingHTTPServer(("127.0.0.1", free_port()), Recorder)
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{proxy.server_address[1]}", Recorder.bodies
    finally:
        proxy.shutdown()


def gunzipped_parts(body: bytes) -> bytes:
    """Every gzip member inside a multipart body, decompressed and joined."""
    out = b""
    for m in re.finditer(rb"\x1f\x8b\x08", body):
        d = zlib.decompressobj(wbits=31)
        try:
            out += d.decompress(body[m.start():])
        except zlib.error:
            continue
    return out


def test_diagnose_on_a_server_masks_here_and_sends_only_masked_lines(server, recorder, tmp_path):
    url, bodies = recorder
    lines = LOG.decode().splitlines(keepends=True)
    planted = "".join(lines[:5]) + f"export HF_TOKEN={HF_TOKEN}\nexport DB_PASSWORD='{PASSWORD}'\n" + "".join(lines[5:])
    log = tmp_path / "train.log.gz"
    log.write_bytes(gzip.compress(planted.encode()))
    key = new_key(server, "cli-server")
    env = {**os.environ, "CRASHDOC_DATA_DIR": str(tmp_path / "cli-data"), "CRASHDOC_API_KEY": key}
    index = server.data_dir / "index"
    if index.exists():
        (tmp_path / "cli-data").mkdir()
        os.symlink(index, tmp_path / "cli-data" / "index")
    r = subprocess.run([sys.executable, "-m", "service.cli", "diagnose", "--server", url, "--format", "json", str(log)],
                       cwd=REPO, env=env, capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    d = json.loads(r.stdout)
    assert d["entry_id"] == FUSED and d["masked"]["hf_token"] >= 1  # counted here, where it was masked
    sent = b"".join(bodies)
    assert sent, "nothing went through the proxy"
    wire = sent + gunzipped_parts(sent)
    assert b"Idempotency-Key" not in sent  # a header, not in the body
    assert HF_TOKEN.encode() not in wire and PASSWORD.encode() not in wire
    assert b"FusedAdam" in wire or b"fused_adam" in wire  # the diagnostic lines did go
    assert "masked line(s)" in r.stderr.decode() and url in r.stderr.decode()
    with Client(server.url, key) as c:
        assert c.diagnoses().items[0].id == d["id"]  # made with the workspace's key
    # the line numbers are the file's own: the evidence cites the line where it is in the planted file
    evidence = d["evidence"][0]
    assert planted.splitlines()[evidence["line"] - 1].split()[-1] in evidence["text"]


def test_diagnose_on_a_server_that_is_down_exits_2_with_one_line(tmp_path):
    log = tmp_path / "train.log"
    log.write_bytes(LOG)
    env = {**os.environ, "CRASHDOC_DATA_DIR": str(tmp_path / "cli-data")}
    r = subprocess.run([sys.executable, "-m", "service.cli", "diagnose", "-q", "--server", f"http://127.0.0.1:{free_port()}",
                        str(log)], cwd=REPO, env=env, capture_output=True, timeout=300)
    err = r.stderr.decode()
    assert r.returncode == 2 and err.startswith("crashdoc: ") and "did not answer" in err and "Traceback" not in err


def test_crashdoc_run_on_a_server_sends_the_masked_capture_and_keeps_the_exit_code(server, recorder, tmp_path):
    """`crashdoc run --server URL`: the failed command's captured output is masked here, diagnosed there."""
    url, bodies = recorder
    job = tmp_path / "job.sh"
    log = tmp_path / "train.log"
    log.write_bytes(LOG)
    job.write_text(f"echo export HF_TOKEN={HF_TOKEN}\ncat {log}\nexit 3\n")
    key = new_key(server, "cli-run-server")
    env = {**os.environ, "CRASHDOC_DATA_DIR": str(tmp_path / "cli-data"), "CRASHDOC_API_KEY": key}
    index = server.data_dir / "index"
    if index.exists():
        (tmp_path / "cli-data").mkdir()
        os.symlink(index, tmp_path / "cli-data" / "index")
    r = subprocess.run([sys.executable, "-m", "service.cli", "run", "--server", url, "--format", "json", "-o",
                        str(tmp_path / "d.json"), "--capture-dir", str(tmp_path / "cap"), "--", "sh", str(job)],
                       cwd=REPO, env=env, capture_output=True, timeout=300)
    assert r.returncode == 3, r.stderr.decode()[-2000:]
    assert HF_TOKEN.encode() in r.stdout  # the run's own output goes through as it was
    d = json.loads((tmp_path / "d.json").read_text())
    assert d["entry_id"] == FUSED and d["masked"]["hf_token"] >= 1
    sent = b"".join(bodies)
    assert sent and HF_TOKEN.encode() not in sent + gunzipped_parts(sent)
    with Client(server.url, key) as c:
        assert c.diagnoses().items[0].id == d["id"]
