"""Hardening: any bytes are input, limits answer 413/422 saying the limit and what to do, headers on every
response, CORS off unless configured, no secret in any log line, request ids, and faults (database locked,
gone or full; the LLM down) answered with a clear error or a degraded answer, never a hang or a 201 for a
diagnosis that was not stored. Real app on a loopback port, real SQLite."""

from __future__ import annotations

import errno
import gzip
import logging
import os
import re
import sqlite3
import subprocess
import sys
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import event

from tests.conftest import EXAMPLES, REPO, free_port, wait_healthy
from tests.test_accounts import OOM_LOG, TEXT, LocalApp, running_app
from tests.test_no_raw_persists import SECRETS, planted_log

MiB = 1024 * 1024


@pytest.fixture(scope="module")
def app(engine, tmp_path_factory) -> Iterator[LocalApp]:
    """The default limits."""
    with running_app(engine, tmp_path_factory.mktemp("hardening")) as a:
        yield a


@pytest.fixture(scope="module")
def strict(engine, tmp_path_factory) -> Iterator[LocalApp]:
    """Small limits, so that going over them is cheap."""
    with running_app(engine, tmp_path_factory.mktemp("strict"), max_upload_bytes=1 * MiB, max_decompressed_bytes=4 * MiB,
                     max_files=3, max_line_chars=1000, max_question_chars=200) as a:
        yield a


def post(a: LocalApp, content: bytes | Iterator[bytes], headers: dict[str, str] | None = None, **kw) -> httpx.Response:
    return httpx.post(f"{a.url}/v1/diagnoses", content=content, headers={**TEXT, **(headers or {})}, timeout=300, **kw)


# ---------------------------------------------------------------- any bytes are input


def oom_entry(app: LocalApp) -> str:
    return str(post(app, OOM_LOG).json()["entry_id"])


@pytest.mark.parametrize(("name", "body"), [
    ("invalid UTF-8", OOM_LOG.replace(b"Traceback", b"\xff\xfe\xc3( Traceback")),
    ("NUL bytes", OOM_LOG.replace(b"[rank0]: ", b"[rank0]:\x00 ")),
    ("CRLF line ends", OOM_LOG.replace(b"\n", b"\r\n")),
    ("ANSI colours", OOM_LOG.replace(b"torch.OutOfMemoryError", b"\x1b[1;31mtorch.OutOfMemoryError\x1b[0m")),
    ("tqdm redraws", b"\r".join(b"step %d/100" % i for i in range(100)) + b"\n" + OOM_LOG),
    ("no trailing newline", OOM_LOG.rstrip(b"\n")),
    ("gzip", gzip.compress(OOM_LOG)),
])
def test_mangled_bytes_still_get_the_same_diagnosis(app, name, body):
    r = post(app, body)
    assert r.status_code == 201, f"{name}: {r.text[:300]}"
    assert r.json()["entry_id"] == oom_entry(app) is not None, name


@pytest.mark.parametrize(("name", "body"), [
    ("a log with no error", b"epoch 1 | loss 2.31\nepoch 2 | loss 1.97\ntraining finished in 3h12m\n"),
    ("a single 50 MB line", b"x" * (50 * 10**6)),
])
def test_no_failure_found_is_an_answer(app, name, body):
    r = post(app, body)
    assert r.status_code == 201, f"{name}: {r.text[:300]}"
    d = r.json()
    assert d["entry_id"] is None and d["title"] == "No failure found in the log", name
    assert d["fix"] or d["summary"]


@pytest.mark.parametrize(("name", "body", "status", "says"), [
    ("an empty body", b"", 422, "empty"),
    ("only blank lines", b"\n \r\n\t\n", 422, "empty"),
    ("binary data", bytes(range(256)) * 64, 415, "not a text log"),
    ("a truncated gzip", gzip.compress(OOM_LOG)[:-30], 415, "truncated"),
])
def test_input_that_cannot_be_read_gets_a_clear_4xx(app, name, body, status, says):
    r = post(app, body)
    assert r.status_code == status, f"{name}: {r.status_code} {r.text[:300]}"
    assert says in r.json()["error"]["message"], name


def test_random_bytes_never_get_a_5xx(app):
    for seed in range(5):
        r = post(app, os.urandom(4096 * (seed + 1)))
        assert r.status_code in (201, 415), r.text[:300]


# ---------------------------------------------------------------- limits


def chunks(total: int, size: int = 64 * 1024) -> Iterator[bytes]:
    """A streamed (chunked, no Content-Length) body."""
    sent = 0
    while sent < total:
        yield b"x" * min(size, total - sent)
        sent += size


@pytest.mark.parametrize(("name", "make", "says"), [
    ("declared body over the limit", lambda: (b"y" * (MiB + 10), {}), "over the 1 MiB limit"),
    ("streamed body over the limit", lambda: (chunks(3 * MiB), {}), "over the 1 MiB limit"),
    ("compressed body over the limit", lambda: (gzip.compress(os.urandom(MiB + 10)), {"Content-Encoding": "gzip"}),
     "over the 1 MiB limit"),
    ("gzip bomb over the decompressed limit", lambda: (gzip.compress(b"\n" * (40 * MiB)), {"Content-Encoding": "gzip"}),
     "decompressed size is over the 4 MiB limit"),
])
def test_size_limits_answer_413_with_the_limit_and_what_to_do(strict, name, make, says):
    content, headers = make()
    r = post(strict, content, headers)
    assert r.status_code == 413, f"{name}: {r.status_code} {r.text[:300]}"
    message = r.json()["error"]["message"]
    assert says in message, f"{name}: {message}"
    assert re.search(r"\b(gzip|Send|split)\b", message), f"{name} does not say what to do: {message}"


@pytest.mark.parametrize("count", [4, 100])
def test_too_many_files_is_a_413_naming_the_limit(strict, count):
    files = [("files", (f"rank_{i}.log", OOM_LOG)) for i in range(count)]
    r = httpx.post(f"{strict.url}/v1/diagnoses", files=files, timeout=60)
    assert r.status_code == 413, r.text[:300]
    assert "limit of 3" in r.json()["error"]["message"]


@pytest.mark.parametrize(("ctype", "body"), [
    ("multipart/form-data", b"--x\r\nContent-Disposition: form-data; name=\"files\"\r\n\r\nlog\r\n--x--\r\n"),  # no boundary
    ("multipart/form-data; boundary=x", b"--x\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a.log\"\r\n\r\ntrunc"),
    ("multipart/form-data; boundary=x", b"garbage without any part"),
    ("multipart/form-data; boundary=x", b"--x\r\nContent-Disposition: form-data; name=\"other\"\r\n\r\nv\r\n--x--\r\n"),
])
def test_a_malformed_multipart_body_is_a_clear_400(strict, ctype, body):
    r = httpx.post(f"{strict.url}/v1/diagnoses", content=body, headers={"Content-Type": ctype}, timeout=60)
    assert r.status_code == 400, r.text[:300]
    assert r.json()["error"]["code"] == "bad_request" and "files" in r.json()["error"]["message"]


def test_files_up_to_the_limit_are_diagnosed(strict):
    files = [("files", (f"rank_{i}.log", OOM_LOG)) for i in range(3)]
    r = httpx.post(f"{strict.url}/v1/diagnoses", files=files, timeout=60)
    assert r.status_code == 201, r.text[:300]
    assert len(r.json()["files"]) == 3


def test_an_overlong_line_is_cut_with_a_marker_not_refused(strict):
    body = OOM_LOG.replace(b"memory in use.", b"memory in use. " + b"z" * 5000)
    r = post(strict, body)
    assert r.status_code == 201, r.text[:300]
    cited = [e["text"] for e in r.json()["evidence"] if "OutOfMemoryError" in e["text"]]
    assert cited and all(len(t) < 1100 for t in cited)


@pytest.mark.parametrize(("question", "status", "says"), [
    ("q" * 201, 413, "over 200 characters"),
    ("q" * 20_001, 422, "20000 characters"),
    ("   ", 400, "empty"),
])
def test_question_limits(strict, question, status, says):
    d = post(strict, OOM_LOG).json()
    r = httpx.post(f"{strict.url}/v1/diagnoses/{d['id']}/messages", json={"question": question}, timeout=60)
    assert r.status_code == status, r.text[:300]
    assert says in r.json()["error"]["message"]


# ---------------------------------------------------------------- headers, CORS, request ids


@pytest.mark.parametrize("path", ["/healthz", "/v1/kb", "/v1/diagnoses/d_missing", "/no/such/page", "/", "/kb", "/docs",
                                  "/openapi.json"])
def test_every_response_carries_the_security_headers(app, path):
    r = httpx.get(app.url + path, timeout=30)
    assert r.status_code < 500
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["X-Frame-Options"] == "DENY"
    assert r.headers["Referrer-Policy"] == "no-referrer"
    assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
    assert re.fullmatch(r"[0-9a-f]{16}", r.headers["X-Request-ID"])


def test_the_docs_page_loads_everything_from_the_service_itself(app):
    r = httpx.get(f"{app.url}/docs", timeout=30)
    assert r.status_code == 200 and "SwaggerUIBundle" in r.text
    loads = re.findall(r'<script[^>]* src="([^"]+)"', r.text) + re.findall(r'<link[^>]* href="([^"]+)"', r.text)
    assert len(loads) >= 3
    for url in loads:  # offline: no CDN, every asset answered by this process
        assert url.startswith("/"), url
        asset = httpx.get(app.url + url, timeout=30)
        assert asset.status_code == 200 and len(asset.content) > 500, url
    csp = r.headers["Content-Security-Policy"]
    assert "http" not in csp and "cdn" not in csp
    assert "'unsafe-inline'" in csp  # Swagger UI is started by an inline script
    assert "frame-ancestors 'none'" in csp
    # ... and nowhere else is that relaxed:
    assert "'unsafe-inline'" not in httpx.get(f"{app.url}/", timeout=30).headers["Content-Security-Policy"].split("script-src")[1]
    assert httpx.get(f"{app.url}/redoc", timeout=30).status_code == 404


def preflight(a: LocalApp, origin: str) -> httpx.Response:
    return httpx.options(f"{a.url}/v1/diagnoses", headers={"Origin": origin, "Access-Control-Request-Method": "POST",
                                                             "Access-Control-Request-Headers": "authorization"})


def test_cors_is_off_unless_configured(app, engine, tmp_path):
    assert "access-control-allow-origin" not in preflight(app, "https://evil.example").headers
    simple = httpx.get(f"{app.url}/v1/kb", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in simple.headers
    with running_app(engine, tmp_path, cors_origins=["https://ci.example"]) as configured:
        ok = preflight(configured, "https://ci.example")
        assert ok.status_code == 200 and ok.headers["access-control-allow-origin"] == "https://ci.example"
        assert "access-control-allow-origin" not in preflight(configured, "https://evil.example").headers


@pytest.mark.parametrize(("sent", "echoed"), [
    ("build-4711-abc", "build-4711-abc"),
    ("has space", None),
    ("<script>", None),
    ("x" * 100, "x" * 64),
])
def test_request_ids_are_echoed_when_sane_and_named_in_errors(app, sent, echoed):
    r = httpx.get(f"{app.url}/v1/diagnoses/d_missing", headers={"X-Request-ID": sent})
    rid = r.headers["X-Request-ID"]
    assert rid == echoed if echoed else re.fullmatch(r"[0-9a-f]{16}", rid)
    assert r.json()["error"]["request_id"] == rid


# ---------------------------------------------------------------- no secret in any log line


class Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread != threading.main_thread().ident:  # the test's own client logs from the main thread
            self.lines.append(self.format(record))


@pytest.fixture
def captured_logs() -> Iterator[Capture]:
    """Everything the service's loggers write, at DEBUG, while the test runs."""
    cap = Capture()
    cap.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    names = ["", "crashdoc", "uvicorn", "uvicorn.error", "uvicorn.access", "fastapi", "sqlalchemy", "presidio-analyzer"]
    loggers = [logging.getLogger(n) for n in names]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(cap)
        lg.setLevel(logging.DEBUG)
    try:
        yield cap
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.removeHandler(cap)
            lg.setLevel(level)


def test_no_secret_reaches_a_log_line(app, captured_logs):
    key = app.new_key("logs")
    bearer = {"Authorization": f"Bearer {key}"}
    made = post(app, planted_log(), bearer)
    assert made.status_code == 201, made.text[:300]
    d = made.json()
    question = f"is {SECRETS['host']} the problem? token {SECRETS['hf_token']}"
    asked = httpx.post(f"{app.url}/v1/diagnoses/{d['id']}/messages", json={"question": question}, headers=bearer, timeout=60)
    assert asked.status_code == 201
    wrong = httpx.get(f"{app.url}/v1/workspace", headers={"Authorization": f"Bearer {key[:-4]}abcd"})
    assert wrong.status_code == 401
    post(app, b"\x00" * 10 + SECRETS["password"].encode() * 100 + bytes(range(256)) * 64)  # a 415 with a secret in it
    logged = "\n".join(captured_logs.lines)
    assert d["id"] in logged and made.headers["X-Request-ID"] in logged  # the logs are there, and name the request
    for kind, value in {**SECRETS, "api_key": key, "api_key_secret": key.split("_", 2)[2]}.items():
        assert value not in logged, f"{kind} appears in the service's logs"


def test_no_secret_reaches_the_live_servers_log(server):
    """The real process at DEBUG: its whole stderr, with a key in the Authorization header."""
    from tests.test_accounts import admin

    key = admin(server.data_dir, "key", "create",
                admin(server.data_dir, "workspace", "create", "log-check", "--plan", "scale").stdout.strip()).stdout.strip()
    assert key.startswith("cdk_")
    r = httpx.post(f"{server.url}/v1/diagnoses", content=planted_log(), timeout=120,
                   headers={**TEXT, "Authorization": f"Bearer {key}"})
    assert r.status_code == 201, r.text[:300]
    assert httpx.get(f"{server.url}/v1/workspace", headers={"Authorization": f"Bearer {key}x"}).status_code == 401
    text = server.log_path.read_text(errors="replace")
    assert r.headers["X-Request-ID"] in text
    for kind, value in {**SECRETS, "api_key": key}.items():
        assert value not in text, f"{kind} appears in the server's log"


# ---------------------------------------------------------------- faults


def rows(db: Path) -> int:
    with sqlite3.connect(db) as c:
        return int(c.execute("select count(*) from diagnoses").fetchone()[0])


def test_a_locked_database_is_a_503_not_a_hang_and_nothing_is_acknowledged(engine, tmp_path):
    with running_app(engine, tmp_path) as a:
        a.diagnose(None)
        db = tmp_path / "crashdoc.db"
        before = rows(db)
        lock = sqlite3.connect(db, timeout=0, isolation_level=None)
        lock.execute("BEGIN EXCLUSIVE")
        try:
            r = post(a, OOM_LOG)  # waits out the busy timeout, then answers
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        assert r.status_code == 503, r.text[:300]
        assert r.json()["error"]["code"] == "store_unavailable" and "Retry" in r.json()["error"]["message"]
        assert int(r.headers["Retry-After"]) > 0
        assert rows(db) == before
        assert a.diagnose(None)["id"]  # and it recovers


def test_a_database_that_is_gone_is_a_503(engine, tmp_path):
    home = tmp_path / "data"
    with running_app(engine, home) as a:
        d = a.diagnose(None)
        home.rename(tmp_path / "elsewhere")
        a.engine.store.engine.dispose()  # the open connections go; new ones find no database
        for r in (httpx.get(f"{a.url}/v1/diagnoses/{d['id']}"), post(a, OOM_LOG)):
            assert r.status_code == 503, r.text[:300]
            assert r.json()["error"]["code"] == "store_unavailable"


@pytest.mark.parametrize("failure", [
    sqlite3.OperationalError("database or disk is full"),
    OSError(errno.ENOSPC, "No space left on device"),
])
def test_a_full_disk_while_storing_is_a_503_and_nothing_is_spent(engine, tmp_path, failure):
    with running_app(engine, tmp_path) as a:
        key = a.new_key("full")
        db = tmp_path / "crashdoc.db"

        def disk_full(conn, cursor, statement, *args):  # type: ignore[no-untyped-def]
            if statement.lstrip().upper().startswith("INSERT INTO DIAGNOSES"):
                raise failure

        event.listen(a.engine.store.engine, "before_cursor_execute", disk_full)
        try:
            r = post(a, OOM_LOG, {"Authorization": f"Bearer {key}"})
        finally:
            event.remove(a.engine.store.engine, "before_cursor_execute", disk_full)
        assert r.status_code == 503, r.text[:300]
        assert r.json()["error"]["code"] == "store_unavailable"
        assert rows(db) == 0
        with a.client(key) as c:
            assert c.get("/v1/workspace").json()["used_today"]["diagnoses"] == 0
            assert c.get("/v1/diagnoses").json()["total"] == 0


def test_an_unreachable_llm_falls_back_to_the_deterministic_diagnosis(engine, tmp_path):
    nowhere = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    with running_app(engine, tmp_path, llm_model="openai/fake-model", llm_api_base=nowhere, llm_max_retries=0,
                     llm_timeout_s=2.0, llm_budget_s=4.0) as a:
        d = a.diagnose(None)
    assert d["entry_id"] == oom_entry_from(engine)
    assert any("LLM answer not used" in n for n in d["notes"])


def oom_entry_from(engine) -> str | None:  # type: ignore[no-untyped-def]
    from service.models import Source
    from service.pipeline import diagnose

    return diagnose(engine, [Source(name="log.txt", data=OOM_LOG)], store=False).entry_id


def test_several_workers_start_on_a_fresh_data_dir_and_answer(session_data_dir, tmp_path):
    """`crashdoc serve --workers 2` on an empty database: one migration, both workers serve."""
    data = tmp_path / "data"
    data.mkdir()
    if (session_data_dir / "index").exists():
        os.symlink(session_data_dir / "index", data / "index")  # the KB is not embedded again
    port = free_port()
    env = {**os.environ, "CRASHDOC_DATA_DIR": str(data)}
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--workers", "2"],
                            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, timeout=180)
        body = (EXAMPLES / "fusedadam-h100.log").read_bytes()
        statuses = {httpx.post(f"{url}/v1/diagnoses", content=body, headers=TEXT, timeout=60).status_code for _ in range(6)}
        assert statuses == {201}
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    with sqlite3.connect(data / "crashdoc.db") as db:
        assert db.execute("select count(*) from alembic_version").fetchone() == (1,)
        assert db.execute("select count(*) from diagnoses").fetchone() == (6,)


# ---------------------------------------------------------------- hostile bodies, bounded memory


def _gzip_stream(piece: bytes, times: int) -> bytes:
    """gzip of ``piece * times`` without holding the whole of it."""
    z = zlib.compressobj(1, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return b"".join(z.compress(piece) for _ in range(times)) + z.flush()


def test_hostile_bodies_get_a_clear_answer_and_the_server_memory_stays_bounded(server):
    """64 MiB of newlines (a 413 on the line limit), a gzip bomb (a 413 on the decompressed limit), a 256 MiB line
    with no newline (read in bounded memory, cut, diagnosed), a 1 MiB JSON question (a 413 before it is parsed)."""
    url = f"{server.url}/v1/diagnoses"
    gz = {**TEXT, "Content-Encoding": "gzip"}
    newlines = httpx.post(url, content=_gzip_stream(b"\n" * MiB, 64), headers=gz, timeout=300)
    assert newlines.status_code == 413 and "more than 20,000,000 lines" in newlines.json()["error"]["message"]
    bomb = httpx.post(url, content=_gzip_stream(b" " * MiB, 64) * 80, headers=gz, timeout=300)  # 80 members: 5 GiB
    assert bomb.status_code == 413 and "decompressed size is over the 4096 MiB limit" in bomb.json()["error"]["message"]
    line = httpx.post(url, content=_gzip_stream(b"x" * MiB, 256), headers=gz, timeout=300)
    assert line.status_code == 201, line.text[:300]
    assert any("only their start was read" in n for n in line.json()["notes"])
    question = httpx.post(f"{url}/d_nope/messages", json={"question": "q" * MiB}, timeout=60)
    assert question.status_code == 413 and question.headers["X-Request-ID"]
    assert "KiB limit" in question.json()["error"]["message"]
    status = Path(f"/proc/{server.pid}/status").read_text()
    peak_mb = int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024  # type: ignore[union-attr]
    assert peak_mb < 1536, f"server peak RSS {peak_mb:.0f} MB"
