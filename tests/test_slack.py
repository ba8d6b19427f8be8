"""Slack: signed requests only; /crashdoc end to end against a local server playing Slack's response_url;
every message within Block Kit's limits.

The service runs for real (uvicorn on a loopback port, in a thread, on the session's engine); the
response_url is a real HTTP server on 127.0.0.1 that records what crashdoc posts.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import logging
import queue
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
import uvicorn
import yaml
from fastapi.testclient import TestClient
from pydantic import SecretStr

from service.app import create_app
from service.chat.models import Citation, Message
from service.errors import AuthError, BadRequest, NotFound
from service.jobs import records as job_records
from service.models import Candidate, CollateralOut, Diagnosis, Evidence
from service.pipeline import Engine, history_of
from service.slack import blocks, handlers
from service.slack.commands import (
    SUBCOMMANDS,
    TOO_LONG_AT,
    Ask,
    Diagnose,
    Help,
    SearchKb,
    TooLong,
    Usage,
    parse,
    unescape,
)
from service.slack.respond import check_response_url
from service.slack.verify import verify_request
from tests.conftest import REPO, free_port

SECRET = "8f14e45fceea167a5a36dedd4bea2543"
PUBLIC = "https://crashdoc.example.test"
HF_TOKEN = "hf_QxWvErTyUiOpAsDfGhJkLzXcVbNm1234567890"
EMAIL = "maria.lopez@example.org"

# A real-looking HF Trainer run on one A100 that dies of CUDA OOM in backward, with a token and an email.
OOM_LOG = f"""\
[2025-05-02 14:03:11] INFO - Loading checkpoint shards: 100%|##########| 2/2 [00:04<00:00,  2.10s/it]
[2025-05-02 14:03:12] INFO - HF_TOKEN={HF_TOKEN} (from environment)
[2025-05-02 14:03:12] INFO - wandb: Currently logged in as: {EMAIL}
[2025-05-02 14:03:14] INFO - GPU: NVIDIA A100-SXM4-40GB, driver 535.104.05, CUDA 12.2, torch 2.3.0+cu121
[2025-05-02 14:03:15] INFO - ***** Running training *****  Num examples = 52002, batch size per device = 16
Traceback (most recent call last):
  File "/home/mlopez/sft/train.py", line 211, in <module>
    main()
  File "/opt/conda/lib/python3.10/site-packages/transformers/trainer.py", line 3147, in training_step
    self.accelerator.backward(loss)
  File "/opt/conda/lib/python3.10/site-packages/torch/autograd/__init__.py", line 267, in backward
    _engine_run_backward(
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 0 has a total capacity of 39.39 GiB of which 1.21 GiB is free. Including non-PyTorch memory, this process has 38.17 GiB memory in use. Of the allocated memory 35.90 GiB is allocated by PyTorch, and 1.71 GiB is reserved by PyTorch but unallocated.
[rank0]: exit code 1 <see above> & no checkpoint saved
"""

# ---------------------------------------------------------------- Slack's side, played for real


def slack_escape(text: str) -> str:
    """What Slack does to command text with should_escape: false."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def signature(secret: str, body: bytes, timestamp: int) -> str:
    """Slack's v0 signature, computed here independently of slack_sdk."""
    return "v0=" + hmac.new(secret.encode(), f"v0:{timestamp}:".encode() + body, hashlib.sha256).hexdigest()


def signed_headers(body: bytes, *, secret: str = SECRET, timestamp: int | None = None) -> dict[str, str]:
    ts = int(time.time()) if timestamp is None else timestamp
    return {"X-Slack-Request-Timestamp": str(ts), "X-Slack-Signature": signature(secret, body, ts),
            "Content-Type": "application/x-www-form-urlencoded"}


_triggers = itertools.count(1)


def trigger_id() -> str:
    """Slack gives each invocation its own trigger_id (crashdoc's idempotency key for the reply): so does each body here."""
    return f"{next(_triggers)}.738474920.8088930838d88f008e0"


def command_body(text: str, response_url: str, command: str = "/crashdoc") -> bytes:
    return urlencode({
        "token": "deprecated-verification-token", "team_id": "T0001", "team_domain": "ml-team",
        "channel_id": "C0001", "channel_name": "training", "user_id": "U0001", "user_name": "maria",
        "command": command, "text": slack_escape(text), "api_app_id": "A0001",
        "response_url": response_url, "trigger_id": trigger_id(),
    }).encode()


def interaction_body(payload: dict[str, Any]) -> bytes:
    return urlencode({"payload": json.dumps(payload)}).encode()


def block_actions(response_url: str, action: dict[str, Any]) -> dict[str, Any]:
    return {"type": "block_actions", "user": {"id": "U0001"}, "team": {"id": "T0001"}, "api_app_id": "A0001",
            "response_url": response_url, "trigger_id": trigger_id(), "actions": [action]}


class SlackHook:
    """Plays Slack's response_url: records every JSON body posted to it, per path.

    Paths containing ``/reject-blocks/`` answer 400 to a message with blocks, as Slack does for invalid_blocks.
    """

    def __init__(self) -> None:
        self._queues: dict[str, queue.Queue[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                hook.queue(self.path).put(body)
                status = 400 if "/reject-blocks/" in self.path and "blocks" in body else 200
                reply = b"invalid_blocks" if status == 400 else b"ok"
                self.send_response(status)
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def queue(self, path: str) -> queue.Queue[dict[str, Any]]:
        with self._lock:
            return self._queues.setdefault(path, queue.Queue())

    def new_url(self, kind: str = "commands") -> str:
        return f"{self.base}/{kind}/T0001/{uuid.uuid4().hex}"

    def next(self, url: str, timeout: float = 180) -> dict[str, Any]:
        """The next message posted to ``url`` (waits for the background task)."""
        return self.queue(httpx.URL(url).path).get(timeout=timeout)

    def count(self, url: str) -> int:
        return self.queue(httpx.URL(url).path).qsize()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def hook() -> Iterator[SlackHook]:
    h = SlackHook()
    yield h
    h.close()


@dataclass(frozen=True)
class Crashdoc:
    url: str

    def command(self, text: str, response_url: str, *, command: str = "/crashdoc", **sign: Any) -> httpx.Response:
        body = command_body(text, response_url, command)
        return httpx.post(f"{self.url}/slack/commands", content=body, headers=signed_headers(body, **sign), timeout=60)

    def interact(self, payload: dict[str, Any]) -> httpx.Response:
        body = interaction_body(payload)
        return httpx.post(f"{self.url}/slack/interactions", content=body, headers=signed_headers(body), timeout=60)


def _serve_slack(settings, engine, **overrides: Any) -> Iterator[Crashdoc]:  # type: ignore[no-untyped-def]
    """The real service on a loopback port (uvicorn in a thread, so it shares the session's warm engine)."""
    slack_settings = settings.model_copy(update={
        "slack_signing_secret": SecretStr(SECRET), "public_url": PUBLIC, "slack_allow_insecure_response_url": True,
        **overrides,
    })
    # The app's engine under the same settings (its job runner reads the bot token from them, as a worker reads its
    # environment), sharing the session's loaded parts and database.
    slack_engine = Engine(slack_settings)
    for shared in ("kb", "index", "masker", "store"):
        slack_engine.__dict__[shared] = getattr(engine, shared)
    server = uvicorn.Server(uvicorn.Config(create_app(slack_settings, slack_engine), host="127.0.0.1", port=free_port(),
                                           log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 300
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the Slack test server did not start")
        time.sleep(0.1)
    yield Crashdoc(f"http://127.0.0.1:{server.config.port}")
    server.should_exit = True
    thread.join(timeout=30)


@pytest.fixture(scope="module")
def crashdoc(settings, engine) -> Iterator[Crashdoc]:  # type: ignore[no-untyped-def]
    yield from _serve_slack(settings, engine)


# ---------------------------------------------------------------- Block Kit's limits, checked independently


def _text_len(obj: dict[str, Any] | None) -> int:
    return len(obj["text"]) if obj else 0


def limit_violations(message: dict[str, Any]) -> list[str]:
    """Everything in ``message`` that Slack would reject (or render broken), per Block Kit's reference."""
    out: list[str] = []
    bl = message.get("blocks", [])
    if not message.get("text"):
        out.append("no fallback text")
    if len(message.get("text", "")) > 40_000:
        out.append("fallback text over 40,000")
    if message.get("response_type") not in ("ephemeral", "in_channel"):
        out.append(f"response_type {message.get('response_type')!r}")
    if len(bl) > 50:
        out.append(f"{len(bl)} blocks (max 50)")
    texts: list[dict[str, Any]] = []
    for i, b in enumerate(bl):
        if len(b.get("block_id", "")) > 255:
            out.append(f"block {i}: block_id over 255")
        kind = b["type"]
        if kind == "section":
            if "text" not in b and "fields" not in b:
                out.append(f"block {i}: section without text or fields")
            if "text" in b and not 1 <= _text_len(b["text"]) <= 3000:
                out.append(f"block {i}: section text {_text_len(b['text'])} chars (1..3000)")
            fields = b.get("fields", [])
            if len(fields) > 10 or any(len(f["text"]) > 2000 for f in fields):
                out.append(f"block {i}: fields over 10 or over 2000 chars")
            texts += [b["text"]] if "text" in b else []
            texts += fields
        elif kind == "header":
            if b["text"]["type"] != "plain_text" or not 1 <= _text_len(b["text"]) <= 150:
                out.append(f"block {i}: header text {_text_len(b['text'])} chars (plain_text, 1..150)")
        elif kind == "context":
            els = b["elements"]
            if not 1 <= len(els) <= 10 or any(len(e["text"]) > 3000 for e in els):
                out.append(f"block {i}: context elements {len(els)} (1..10) or text over 3000")
            texts += els
        elif kind == "actions":
            els = b["elements"]
            if not 1 <= len(els) <= 25:
                out.append(f"block {i}: {len(els)} actions (1..25)")
            for e in els:
                if e["type"] != "button" or not 1 <= _text_len(e["text"]) <= 75 or len(e.get("value", "")) > 2000 \
                        or len(e.get("url", "")) > 3000 or not 1 <= len(e.get("action_id", "")) <= 255:
                    out.append(f"block {i}: bad button {e}")
        elif kind == "input":
            el = b["element"]
            if not 1 <= _text_len(b["label"]) <= 2000 or el["type"] != "plain_text_input" \
                    or el.get("max_length", 0) > 3000 or _text_len(el.get("placeholder")) > 150:
                out.append(f"block {i}: bad input")
            if not b.get("dispatch_action"):
                out.append(f"block {i}: an input in a message needs dispatch_action")
        else:
            out.append(f"block {i}: unexpected type {kind}")
    for t in texts:
        if t.get("type") == "mrkdwn" and t["text"].count("```") % 2:
            out.append(f"unclosed code block: {t['text'][:60]!r}")
    return out


def all_text(message: dict[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False)


# ---------------------------------------------------------------- signatures

NOW = 1_750_000_000
BODY = b"token=x&team_id=T0001&command=%2Fcrashdoc&text=help"


def _headers(body: bytes = BODY, secret: str = SECRET, ts: int = NOW) -> dict[str, str]:
    return {"X-Slack-Request-Timestamp": str(ts), "X-Slack-Signature": signature(secret, body, ts)}


VERIFY_CASES = [
    # (name, body received, headers, refused with)
    ("valid", BODY, _headers(), None),
    ("valid, header names in any case", BODY, {k.lower(): v for k, v in _headers().items()}, None),
    ("valid at exactly 5 minutes old", BODY, _headers(ts=NOW - 300), None),
    ("wrong secret", BODY, _headers(secret="not-the-secret"), "does not match"),
    ("missing both headers", BODY, {}, "not signed"),
    ("missing signature", BODY, {"X-Slack-Request-Timestamp": str(NOW)}, "not signed"),
    ("missing timestamp", BODY, {"X-Slack-Signature": _headers()["X-Slack-Signature"]}, "not signed"),
    ("replayed: 5 minutes and 1 second old", BODY, _headers(ts=NOW - 301), "5 minutes"),
    ("from the future", BODY, _headers(ts=NOW + 301), "5 minutes"),
    ("timestamp not a number", BODY, {**_headers(), "X-Slack-Request-Timestamp": "yesterday"}, "not a number"),
    ("tampered body", BODY.replace(b"help", b"kb+oom"), _headers(), "does not match"),
    ("signature of another timestamp", BODY, {**_headers(), "X-Slack-Request-Timestamp": str(NOW - 1)}, "does not match"),
    ("body not UTF-8", b"\xff\xfe" + BODY, _headers(b"\xff\xfe" + BODY), "does not match"),
]


@pytest.mark.parametrize(("name", "body", "headers", "refused"), VERIFY_CASES, ids=[c[0] for c in VERIFY_CASES])
def test_verify_request(name: str, body: bytes, headers: dict[str, str], refused: str | None) -> None:
    if refused is None:
        verify_request(SECRET, body, headers, now=NOW)
    else:
        with pytest.raises(AuthError, match=refused):
            verify_request(SECRET, body, headers, now=NOW)


def _tamper(body: bytes, headers: dict[str, str]) -> tuple[bytes, dict[str, str]]:
    return body + b"&channel_id=C0002", headers  # signed for one body, sent with another


HTTP_REFUSALS = [
    ("unsigned", lambda body, h: (body, {"Content-Type": h["Content-Type"]})),
    ("wrong secret", lambda body, h: (body, signed_headers(body, secret="not-the-secret"))),
    ("replayed timestamp", lambda body, h: (body, signed_headers(body, timestamp=int(time.time()) - 600))),
    ("tampered body", _tamper),
]


@pytest.mark.parametrize("path", ["/slack/commands", "/slack/interactions"])
@pytest.mark.parametrize(("name", "spoil"), HTTP_REFUSALS, ids=[c[0] for c in HTTP_REFUSALS])
def test_unsigned_or_badly_signed_requests_get_401(crashdoc: Crashdoc, hook: SlackHook, path: str, name: str, spoil: Any) -> None:
    good = command_body("help", hook.new_url()) if path.endswith("commands") else interaction_body(
        block_actions(hook.new_url("actions"), {"action_id": blocks.ACTION_OPEN, "type": "button"}))
    body, headers = spoil(good, signed_headers(good))
    r = httpx.post(crashdoc.url + path, content=body, headers=headers, timeout=30)
    assert r.status_code == 401, r.text
    assert r.json()["error"]["code"] == "unauthorized"
    # The same request, signed properly, goes through.
    assert httpx.post(crashdoc.url + path, content=good, headers=signed_headers(good), timeout=30).status_code == 200


def test_without_a_signing_secret_slack_answers_503(settings, engine) -> None:  # type: ignore[no-untyped-def]
    assert settings.slack_signing_secret is None
    client = TestClient(create_app(settings, engine))
    body = command_body("help", "https://hooks.slack.com/commands/T0001/1/abc")
    for path in ("/slack/commands", "/slack/interactions"):
        r = client.post(path, content=body, headers=signed_headers(body))
        assert r.status_code == 503
        assert r.json()["error"]["code"] == "slack_not_configured"
        assert "CRASHDOC_SLACK_SIGNING_SECRET" in r.json()["error"]["message"]


def test_crashdoc_serve_mounts_slack_and_keeps_it_off_without_a_secret(server) -> None:  # type: ignore[no-untyped-def]
    body = command_body(OOM_LOG, "https://hooks.slack.com/commands/T0001/1/abc")
    r = httpx.post(f"{server.url}/slack/commands", content=body, headers=signed_headers(body), timeout=30)
    assert r.status_code == 503 and r.json()["error"]["code"] == "slack_not_configured"


# ---------------------------------------------------------------- response_url (SSRF guard)

RESPONSE_URLS = [
    # (url, allowed in production, allowed when loopback http is allowed)
    ("https://hooks.slack.com/commands/T0001/123/abc", True, True),
    ("https://HOOKS.slack.com/actions/T0001/123/abc", True, True),
    ("https://hooks.slack.com:443/commands/T0001/123/abc", True, True),
    ("http://hooks.slack.com/commands/T0001/123/abc", False, False),
    ("https://hooks.slack.com:8443/commands/x", False, False),
    ("https://hooks.slack.com.evil.example/commands/x", False, False),
    ("https://hooks.slack.com@evil.example/commands/x", False, False),
    ("https://evil.example/?hooks.slack.com", False, False),
    ("http://127.0.0.1:8080/commands/x", False, True),
    ("http://localhost:8080/commands/x", False, True),
    ("http://[::1]:8080/commands/x", False, True),
    ("http://10.0.0.7/commands/x", False, False),
    ("http://169.254.169.254/latest/meta-data/", False, False),
    ("file:///etc/passwd", False, False),
    ("", False, False),
    ("https://hooks.slack.com:notaport/x", False, False),
]


@pytest.mark.parametrize(("url", "in_production", "insecure_allowed"), RESPONSE_URLS, ids=[u[0] or "empty" for u in RESPONSE_URLS])
def test_response_url_must_be_slack(url: str, in_production: bool, insecure_allowed: bool) -> None:
    for allow, expected in ((False, in_production), (True, insecure_allowed)):
        if expected:
            assert check_response_url(url, allow_insecure=allow) == url
        else:
            with pytest.raises(BadRequest):
                check_response_url(url, allow_insecure=allow)


@pytest.mark.parametrize("url", ["https://evil.example/hook", "http://10.0.0.7/hook", ""])
def test_a_command_with_a_foreign_response_url_is_refused(crashdoc: Crashdoc, url: str) -> None:
    for text in (OOM_LOG, "ask d_abcdef123456 why?"):
        r = crashdoc.command(text, url)
        assert r.status_code == 400
        assert "hooks.slack.com" in r.json()["error"]["message"]


# ---------------------------------------------------------------- the slash command, end to end


@dataclass(frozen=True)
class Diagnosed:
    ack: httpx.Response
    posts_before_release: int
    post: dict[str, Any]
    diagnosis_id: str
    logged: list[str]


class _Recorder(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture(scope="module")
def diagnosed(crashdoc: Crashdoc, hook: SlackHook) -> Diagnosed:
    """/crashdoc <OOM log>, with the pipeline held until the acknowledgement is in: proves the ack doesn't wait."""
    release = threading.Event()
    real = handlers.diagnose_masked

    def held(*args: Any, **kwargs: Any) -> Diagnosis:
        if not release.wait(300):
            raise RuntimeError("the test never released the diagnosis")
        return real(*args, **kwargs)

    url = hook.new_url()
    recorder, crashdoc_log = _Recorder(), logging.getLogger("crashdoc")
    crashdoc_log.addHandler(recorder)
    level = crashdoc_log.level
    crashdoc_log.setLevel(logging.DEBUG)
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(handlers, "diagnose_masked", held)
            ack = crashdoc.command(OOM_LOG, url)
            before = hook.count(url)
            release.set()
            post = hook.next(url)
    finally:
        crashdoc_log.removeHandler(recorder)
        crashdoc_log.setLevel(level)
    actions = next(b for b in post["blocks"] if b["type"] == "actions")
    return Diagnosed(ack, before, post, actions["elements"][1]["value"], recorder.lines)


def test_pasted_log_is_acknowledged_at_once_as_an_ephemeral_message(diagnosed: Diagnosed) -> None:
    assert diagnosed.ack.status_code == 200
    ack = diagnosed.ack.json()
    assert ack["response_type"] == "ephemeral"
    assert "Diagnosing" in ack["text"] and "masked" in ack["text"]
    assert diagnosed.posts_before_release == 0  # answered while the pipeline had not even started


def test_the_diagnosis_is_posted_privately_as_a_compact_card(diagnosed: Diagnosed, engine) -> None:  # type: ignore[no-untyped-def]
    post = diagnosed.post
    assert limit_violations(post) == []
    # private to the person who pasted: an in_channel answer to a slash command also shows the channel the command
    # itself, the raw unmasked paste (Slack: "both the response message and the initial slash command entered by the
    # user will be shared in the channel"); sharing goes through "Share to channel", with the stored, masked card
    assert post["response_type"] == "ephemeral"
    stored = engine.store.get(diagnosed.diagnosis_id)
    kinds = [b["type"] for b in post["blocks"]]
    assert kinds == ["header", "section", "section", "section", "context", "actions"]
    assert "out of memory" in post["blocks"][0]["text"]["text"].lower()
    sections = [b["text"]["text"] for b in post["blocks"] if b["type"] == "section"]
    assert sections[0] == blocks.escape(stored.answer.sentence) and "2.50 GiB" in sections[0]
    assert sections[1].startswith("*Decisive line*") and "```" in sections[1]
    assert "CUDA out of memory. Tried to allocate 2.50 GiB" in sections[1]
    assert sections[2].startswith("*First fix*\n") and f"{len(stored.fix) - 1} more step(s)" in sections[2]
    assert not any(t.startswith(("*Fix*", "*Verify*")) for t in sections)  # details: the thread or the page
    page = f"{PUBLIC}/d/{diagnosed.diagnosis_id}"
    buttons = next(b for b in post["blocks"] if b["type"] == "actions")["elements"]
    assert [b["action_id"] for b in buttons] == [blocks.ACTION_SHARE, blocks.ACTION_FOLLOWUP, blocks.ACTION_OPEN,
                                                 blocks.ACTION_RIGHT, blocks.ACTION_WRONG]
    assert buttons[0]["text"]["text"] == "Share to channel" and buttons[1]["text"]["text"] == "Ask a follow-up"
    assert buttons[2]["url"] == page
    assert f"<{page}|" in all_text(post)
    assert "cuda-oom" in post["text"]


def test_share_without_a_bot_token_posts_the_stored_masked_card_to_the_channel(crashdoc: Crashdoc, hook: SlackHook,
                                                                              diagnosed: Diagnosed) -> None:
    url = hook.new_url("actions")
    share = next(b for b in diagnosed.post["blocks"] if b["type"] == "actions")["elements"][0]
    assert crashdoc.interact(block_actions(url, {**share, "block_id": "x", "action_ts": "1.2"})).status_code == 200
    posted = hook.next(url)
    assert posted["response_type"] == "in_channel" and limit_violations(posted) == []
    assert blocks.ACTION_SHARE not in json.dumps(posted)
    assert HF_TOKEN not in all_text(posted) and EMAIL not in all_text(posted)


def test_the_pasted_log_is_masked_like_everything_else(diagnosed: Diagnosed, engine) -> None:  # type: ignore[no-untyped-def]
    stored = engine.store.get(diagnosed.diagnosis_id)
    excerpt = engine.store.excerpt(diagnosed.diagnosis_id)
    assert stored.entry_id == "cuda-oom"
    assert stored.masked.get("hf_token") == 1 and stored.masked.get("email") == 1
    for text in (all_text(diagnosed.post), stored.model_dump_json(), json.dumps([e.model_dump() for e in excerpt])):
        assert HF_TOKEN not in text and EMAIL not in text
    # The service logs what happened, never what the log said.
    assert any("slack command diagnose" in line for line in diagnosed.logged)
    assert not [line for line in diagnosed.logged if HF_TOKEN in line or EMAIL in line or "out of memory" in line]
    # Slack's escaping is undone before the pipeline reads the log: the last line is stored as printed.
    last = [e.text for e in excerpt if e.text.startswith("[rank0]: exit code 1")]
    assert last == ["[rank0]: exit code 1 <see above> & no checkpoint saved"]


def test_follow_up_by_slash_command(crashdoc: Crashdoc, hook: SlackHook, diagnosed: Diagnosed, engine) -> None:  # type: ignore[no-untyped-def]
    did = diagnosed.diagnosis_id
    url = hook.new_url()
    r = crashdoc.command(f"ask {did} How do I fix it?", url)
    assert r.status_code == 200 and r.json()["response_type"] == "ephemeral" and did in r.json()["text"]
    post = hook.next(url)
    assert limit_violations(post) == []
    assert post["response_type"] == "ephemeral"
    texts = [b["text"]["text"] for b in post["blocks"] if b["type"] == "section"]
    assert texts[0] == f"*Follow-up on `{did}`*\n>How do I fix it?"
    assert len(texts) >= 2 and "batch" in " ".join(texts[1:]).lower()
    assert "Cites `cuda-oom#fix`" in all_text(post)
    history = history_of(engine, did)
    assert [m.role for m in history[-2:]] == ["user", "assistant"] and history[-2].text == "How do I fix it?"


def test_follow_up_button_opens_a_question_box_and_the_answer_is_posted(crashdoc: Crashdoc, hook: SlackHook,
                                                                         diagnosed: Diagnosed) -> None:
    did = diagnosed.diagnosis_id
    url = hook.new_url("actions")
    button = next(e for b in diagnosed.post["blocks"] if b["type"] == "actions" for e in b["elements"]
                  if e["action_id"] == blocks.ACTION_FOLLOWUP)
    r = crashdoc.interact(block_actions(url, {**button, "block_id": "x", "action_ts": "1.2"}))
    assert r.status_code == 200
    prompt = hook.next(url)
    assert limit_violations(prompt) == []
    assert prompt["response_type"] == "ephemeral"
    box = prompt["blocks"][0]
    assert box["type"] == "input" and box["block_id"] == blocks.ASK_BLOCK_PREFIX + did
    assert box["element"]["action_id"] == blocks.ACTION_ASK

    question = f"Should I tell {EMAIL} to lower the batch size?"
    typed = {"type": "plain_text_input", "block_id": box["block_id"], "action_id": box["element"]["action_id"],
             "value": question, "action_ts": "1.3"}
    assert crashdoc.interact(block_actions(url, typed)).status_code == 200
    answer = hook.next(url)
    assert limit_violations(answer) == []
    assert answer["blocks"][0]["text"]["text"].startswith(f"*Follow-up on `{did}`*\n>Should I tell &lt;EMAIL_")
    assert EMAIL not in all_text(answer)


def test_kb_search_answers_in_the_response(crashdoc: Crashdoc, hook: SlackHook) -> None:
    for words, first in (("out of memory", None), ("cuda-oom", "cuda-oom"), ("NCCL timeout watchdog", None)):
        r = crashdoc.command(f"kb {words}", hook.new_url())
        assert r.status_code == 200
        message = r.json()
        assert limit_violations(message) == [] and message["response_type"] == "ephemeral"
        found = [b["text"]["text"] for b in message["blocks"][1:] if b["type"] == "section"]
        assert 1 <= len(found) <= 5
        if first:
            assert f"*<{PUBLIC}/kb/{first}|" in found[0] and f"`{first}`" in found[0]
    assert "`cuda-oom`" in all_text(crashdoc.command("kb out of memory", hook.new_url()).json())
    none = crashdoc.command("kb zzqxv wqpzz", hook.new_url()).json()
    assert "No encyclopedia entry matches" in none["text"]


@pytest.mark.parametrize(("text", "command"), [("help", "/crashdoc"), ("", "/crashdoc"), ("  HELP ", "/crashdoc-dev")])
def test_help_lists_every_subcommand(crashdoc: Crashdoc, hook: SlackHook, text: str, command: str) -> None:
    r = crashdoc.command(text, hook.new_url(), command=command)
    message = r.json()
    assert r.status_code == 200 and message["response_type"] == "ephemeral" and limit_violations(message) == []
    for sub in SUBCOMMANDS:
        assert " ".join(p for p in (command, sub.word, sub.args) if p).replace("<", "&lt;").replace(">", "&gt;") in message["text"]


def test_a_log_too_long_for_slack_points_to_the_web_page_and_the_api(crashdoc: Crashdoc, hook: SlackHook) -> None:
    long_log = (OOM_LOG * 4)[:3_990]
    r = crashdoc.command(long_log, hook.new_url())
    message = r.json()
    assert r.status_code == 200 and message["response_type"] == "ephemeral" and limit_violations(message) == []
    text = message["blocks"][0]["text"]["text"]
    assert "too long for a slash command" in text and "4,000" in text and f"{len(long_log):,}" in text
    assert f"<{PUBLIC}/|" in text and f"{PUBLIC}/v1/diagnoses" in text
    assert "Diagnose with crashdoc" in text and "file" in text  # the way round the limit
    assert "Diagnosing" not in message["text"]


def _bare_angles(message: dict[str, Any]) -> list[str]:
    """``<`` that is not a Slack link or mention: Slack would parse a literal placeholder as one."""
    import re

    return re.findall(r"<(?!https?://|mailto:|[@#!])[^>]*>?", all_text(message))


def test_literal_placeholders_are_escaped_for_mrkdwn(engine) -> None:  # type: ignore[no-untyped-def]
    entries = [engine.kb.get("cuda-oom")]
    for message in (blocks.kb_message("oom", entries, "/crashdoc", None), blocks.too_long_message(3_999, None, "/crashdoc"),
                    blocks.too_long_message(3_999, PUBLIC, "/crashdoc"), blocks.followup_prompt("d_abcd1234", "/crashdoc", 500),
                    blocks.help_message("/crashdoc")):
        assert _bare_angles(message) == [], message["text"][:80]
    assert "&lt;pasted log&gt;" in all_text(blocks.kb_message("oom", entries, "/crashdoc", None))
    assert "&lt;question&gt;" in all_text(blocks.followup_prompt("d_abcd1234", "/crashdoc", 500))


@pytest.mark.parametrize(("text", "problem"), [
    ("ask", "Name the diagnosis"),
    ("ask why did it fail", "Name the diagnosis"),
    ("ask d_abcdef123456", "Add your question"),
    ("kb", "Add the words"),
])
def test_a_misused_subcommand_gets_its_usage(crashdoc: Crashdoc, hook: SlackHook, text: str, problem: str) -> None:
    message = crashdoc.command(text, hook.new_url()).json()
    assert problem in message["text"] and "Usage: `/crashdoc" in message["text"] and limit_violations(message) == []


# ---------------------------------------------------------------- errors reach the user


def test_a_follow_up_on_an_unknown_diagnosis_says_so(crashdoc: Crashdoc, hook: SlackHook) -> None:
    url = hook.new_url()
    assert crashdoc.command("ask d_doesnotexist1 why?", url).status_code == 200
    post = hook.next(url)
    assert post["response_type"] == "ephemeral" and limit_violations(post) == []
    assert "No diagnosis 'd_doesnotexist1'" in post["text"]


def test_an_unexpected_failure_in_the_background_reaches_the_user(crashdoc: Crashdoc, hook: SlackHook,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def broken(*args: Any, **kwargs: Any) -> Diagnosis:
        calls.append(1)
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(handlers, "diagnose_masked_paste", broken)
    monkeypatch.setattr(job_records, "BACKOFF_S", 0.05)  # the job is retried with backoff before the user is told
    url = hook.new_url()
    assert crashdoc.command(OOM_LOG, url).status_code == 200
    post = hook.next(url)
    assert len(calls) == 4  # every attempt, then one message
    assert post["response_type"] == "ephemeral" and limit_violations(post) == []
    assert "Something went wrong on our side" in post["text"] and "Reference `" in post["text"]
    assert "disk on fire" not in all_text(post)  # internals stay in the service


def test_when_slack_refuses_the_blocks_the_text_still_arrives(crashdoc: Crashdoc, hook: SlackHook) -> None:
    url = hook.new_url("reject-blocks")
    assert crashdoc.command("ask d_doesnotexist2 why?", url).status_code == 200
    refused, fallback = hook.next(url), hook.next(url)
    assert "blocks" in refused and "blocks" not in fallback
    assert "No diagnosis 'd_doesnotexist2'" in fallback["text"]


def test_interactions_crashdoc_does_not_offer_are_acknowledged_and_garbage_is_refused(crashdoc: Crashdoc, hook: SlackHook) -> None:
    url = hook.new_url("actions")
    link = {"type": "button", "action_id": blocks.ACTION_OPEN, "url": f"{PUBLIC}/d/d_x1234", "action_ts": "1"}
    assert crashdoc.interact(block_actions(url, link)).status_code == 200
    assert crashdoc.interact({"type": "shortcut", "callback_id": "x"}).status_code == 200
    bad_id = {"type": "button", "action_id": blocks.ACTION_FOLLOWUP, "value": "../../etc"}
    assert crashdoc.interact(block_actions(url, bad_id)).status_code == 400
    body = b"payload=not-json"
    assert httpx.post(f"{crashdoc.url}/slack/interactions", content=body, headers=signed_headers(body)).status_code == 400
    huge = interaction_body(block_actions(url, {**link, "value": "v" * (2 * 1024 * 1024)}))
    assert httpx.post(f"{crashdoc.url}/slack/interactions", content=huge, headers=signed_headers(huge)).status_code == 413
    assert hook.count(url) == 0


# ---------------------------------------------------------------- Block Kit within limits, whatever the content


def _huge_diagnosis() -> Diagnosis:
    code = "```bash\n" + "\n".join(f"echo step {i} && run --flag={'x' * 80}" for i in range(40)) + "\n```"
    return Diagnosis(
        id="d_huge1234", entry_id="cuda-oom", title="T" * 400, category="memory" * 50, confidence=0.91,
        summary="S & <b> " * 2_000,
        candidates=[Candidate(entry_id=f"e{i}", title="t", score=0.1, sources=["rule"]) for i in range(5)],
        evidence=[Evidence(file="rank_0.log", line=i, rank=0, text="```" + "E<" * 3_000) for i in range(500)],
        facts={}, initiating_rank=3,
        collateral=[CollateralOut(rank=1, file="rank_1.log", line=2, text="x", why="y")] * 40,
        fix=[f"**Step {i}** [docs](https://example.test/{i}) " + "f" * 2_500 + "\n" + code for i in range(200)],
        verify=["v" * 5_000] * 100, masked={"hf_token": 3}, timings_ms={}, kb_version="k", composer="deterministic",
    )


def test_block_kit_limits_hold_for_extreme_content() -> None:
    d = _huge_diagnosis()
    message = blocks.diagnosis_message(d, PUBLIC + "/" + "p" * 4_000)  # a public URL too long for a button
    assert limit_violations(message) == []
    assert message["blocks"][0]["text"]["text"].endswith("…")
    assert message["blocks"][-1]["type"] == "actions" and message["blocks"][-2]["type"] == "context"
    assert any(b["type"] == "section" and b["text"]["text"].startswith("*First fix*\n*Step 0*") for b in message["blocks"])
    assert limit_violations(blocks.diagnosis_message(d, PUBLIC, shared=True)) == []
    details = blocks.details_message(d, PUBLIC + "/" + "p" * 4_000)
    assert limit_violations(details) == []
    assert any(b["type"] == "section" and b["text"]["text"].startswith("*Fix*\n1. *Step 0*") for b in details["blocks"])
    assert "… more" in all_text(details)  # the cut says where the rest is

    unknown = d.model_copy(update={"entry_id": None, "fix": [], "verify": []})
    assert limit_violations(blocks.diagnosis_message(unknown, None)) == []
    assert "Closest entries" in all_text(blocks.diagnosis_message(unknown, None))

    asked = Message(role="user", text="why?\n" * 2_000, created_at="2025-01-01T00:00:00")
    answer = "\n\n".join(["para " * 300, "```\n" + "code line\n" * 600 + "```"] * 30)
    answered = Message(role="assistant", text=answer, created_at="2025-01-01T00:00:00", composer="deterministic",
                       citations=[Citation(kind="line", ref=f"rank_0.log:{i}") for i in range(400)])
    for message in (
        blocks.answer_message(d.id, asked, answered, PUBLIC),
        blocks.followup_prompt(d.id, "/crashdoc", 20_000),
        blocks.error_message(NotFound("x" * 10_000, hint="y" * 10_000), "ref1"),
        blocks.too_long_message(3_999, None, "/crashdoc"),
        blocks.help_message("/" + "c" * 500),
    ):
        assert limit_violations(message) == [], message.get("text", "")[:80]


MRKDWN = [
    # (markdown, mrkdwn)
    ("**Lower** the batch", "*Lower* the batch"),
    ("See [the docs](https://pytorch.org/docs/x?a=1&b=2).", "See <https://pytorch.org/docs/x?a=1&amp;b=2|the docs>."),
    ("a < b && c > d", "a &lt; b &amp;&amp; c &gt; d"),
    ("```python\nx = a<b\n```", "```\nx = a&lt;b\n```"),
    ("- first\n  - nested", "• first\n  • nested"),
    ("### How to confirm", "*How to confirm*"),
    ("keep `**literal**` code", "keep `**literal**` code"),
    ("```\n**not bold in code**\n```", "```\n**not bold in code**\n```"),
    ("a soft-wrapped\n   line of prose", "a soft-wrapped line of prose"),
    ("- one\n  continued\n- two\n\n1. three\n2. four", "• one continued\n• two\n\n1. three\n2. four"),
    ("## Fix\nfirst line", "*Fix*\nfirst line"),
    ("*reserves* segments, **not** per tensor", "_reserves_ segments, *not* per tensor"),
    ("rank_*.log and 2 * 3 * 4", "rank_*.log and 2 * 3 * 4"),
    ("step:\n```\nkeep\nlines\n```\nafter", "step:\n```\nkeep\nlines\n```\nafter"),
]


@pytest.mark.parametrize(("markdown", "expected"), MRKDWN)
def test_markdown_becomes_slack_mrkdwn(markdown: str, expected: str) -> None:
    assert blocks.mrkdwn(markdown) == expected


# ---------------------------------------------------------------- command text

PARSE = [
    # (text after /crashdoc, parsed)
    ("", Help()),
    ("help", Help()),
    ("Help  ", Help()),
    ("ask d_abc123XYZ why did rank 3 fail first?", Ask("d_abc123XYZ", "why did rank 3 fail first?")),
    ("ask  d_abc123XYZ\nmulti\nline question", Ask("d_abc123XYZ", "multi\nline question")),
    ("kb  nccl   timeout ", SearchKb("nccl timeout")),
    ("Traceback (most recent call last):\n  File x", Diagnose("Traceback (most recent call last):\n  File x")),
    ("help me: RuntimeError: CUDA error", Diagnose("help me: RuntimeError: CUDA error")),
    ("x" * (TOO_LONG_AT - 1), Diagnose("x" * (TOO_LONG_AT - 1))),
    ("x" * TOO_LONG_AT, TooLong(TOO_LONG_AT)),
]


@pytest.mark.parametrize(("text", "parsed"), PARSE, ids=[p[0][:30] or "empty" for p in PARSE])
def test_parse(text: str, parsed: object) -> None:
    assert parse(text) == parsed


@pytest.mark.parametrize(("text", "problem"), [("ask", "Name the diagnosis"), ("ask d_abc12345", "Add your question"),
                                               ("ask 42 why", "Name the diagnosis"), ("kb   ", "Add the words")])
def test_parse_usage(text: str, problem: str) -> None:
    parsed = parse(text)
    assert isinstance(parsed, Usage) and problem in parsed.problem


def test_unescape_undoes_exactly_slacks_escaping() -> None:
    original = "File \"<frozen runpy>\" & x -> y; literal &amp; stays &amp;lt;"
    assert unescape(slack_escape(original)) == original


# ---------------------------------------------------------------- the Slack app manifest


def test_manifest_points_slack_at_the_routes(settings) -> None:  # type: ignore[no-untyped-def]
    manifest = yaml.safe_load((REPO / "slack" / "manifest.yaml").read_text())
    paths = {path for path, ops in create_app(settings).openapi()["paths"].items() if "post" in ops}
    command = manifest["features"]["slash_commands"][0]
    assert command["command"] == "/crashdoc" and command["should_escape"] is False
    commands_path = httpx.URL(command["url"]).path
    interactions_path = httpx.URL(manifest["settings"]["interactivity"]["request_url"]).path
    assert manifest["settings"]["interactivity"]["is_enabled"] is True
    assert {commands_path, interactions_path} <= paths
    assert (commands_path, interactions_path) == ("/slack/commands", "/slack/interactions")
    assert "commands" in manifest["oauth_config"]["scopes"]["bot"]


# ---------------------------------------------------------------- a Slack workspace's daily allowance


@pytest.fixture(scope="module")
def limited(settings, engine) -> Iterator[Crashdoc]:  # type: ignore[no-untyped-def]
    """The service with one diagnosis and one question a day per Slack workspace."""
    yield from _serve_slack(settings, engine, slack_team_daily=1, slack_team_questions_daily=1)


def _team_command(app: Crashdoc, text: str, url: str, team: str) -> httpx.Response:
    body = command_body(text, url).replace(b"team_id=T0001", f"team_id={team}".encode())
    return httpx.post(f"{app.url}/slack/commands", content=body, headers=signed_headers(body), timeout=60)


def test_a_slack_workspace_over_its_daily_allowance_is_told_and_nothing_runs(limited: Crashdoc, hook: SlackHook) -> None:
    team = f"T{uuid.uuid4().hex[:8].upper()}"
    first = hook.new_url()
    assert "Diagnosing your log" in _team_command(limited, OOM_LOG, first, team).json()["text"]
    posted = hook.next(first)
    d_id = next(b for b in posted["blocks"] if b["type"] == "actions")["elements"][0]["value"]
    second = hook.new_url()
    refused = _team_command(limited, OOM_LOG, second, team).json()
    assert refused["response_type"] == "ephemeral"
    assert "used its 1 diagnoses for today" in refused["text"] and "00:00 UTC" in refused["text"]
    time.sleep(1.0)
    assert hook.count(second) == 0  # no background work was scheduled
    # another Slack workspace has its own allowance
    other = hook.new_url()
    assert "Diagnosing your log" in _team_command(limited, OOM_LOG, other, team + "X").json()["text"]
    assert hook.next(other)
    # questions are counted apart: one goes through, the next is refused
    q1, q2 = hook.new_url(), hook.new_url()
    assert "Looking into your question" in _team_command(limited, f"ask {d_id} why did it fail?", q1, team).json()["text"]
    assert hook.next(q1)
    assert "follow-up questions for today" in _team_command(limited, f"ask {d_id} and the fix?", q2, team).json()["text"]


def test_a_failed_slack_request_gives_its_allowance_back_as_the_api_does(limited: Crashdoc, hook: SlackHook) -> None:
    team = f"T{uuid.uuid4().hex[:8].upper()}"
    missing = hook.new_url()
    assert "Looking into your question" in _team_command(limited, "ask d_doesnotexist000 why?", missing, team).json()["text"]
    assert "no diagnosis" in hook.next(missing)["text"].lower()  # it failed: NotFound, told to the user
    # the failed question cost nothing: the team's one question of the day is still there, and then spent
    first, posted = hook.new_url(), hook.new_url()
    assert "Diagnosing your log" in _team_command(limited, OOM_LOG, posted, team).json()["text"]
    d_id = next(b for b in hook.next(posted)["blocks"] if b["type"] == "actions")["elements"][0]["value"]
    assert "Looking into your question" in _team_command(limited, f"ask {d_id} why did it fail?", first, team).json()["text"]
    assert hook.next(first)
    assert "follow-up questions for today" in _team_command(limited, f"ask {d_id} again?", hook.new_url(), team).json()["text"]
