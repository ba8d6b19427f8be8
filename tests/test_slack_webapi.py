"""Slack beyond the slash command, against a local fake of Slack's Web API (real HTTP on loopback):
the message shortcut "Diagnose with crashdoc" on a file, private results with "Share to channel" (the masked
card, its details in the thread), the follow-up modal, and that no message posted where a channel sees it
carries a secret from the log.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic import SecretStr

from service.slack import blocks
from tests.conftest import REPO
from tests.test_slack import Crashdoc, _serve_slack, all_text, limit_violations

BOT_TOKEN = "xoxb-1111-2222-unit-test-token"
ECC_LOG = REPO / "evals" / "holdout" / "gpu-ecc-error-holdout-moe-2node-rank10-01" / "train.log"
# Planted in the log: what the channel must never see.
WANDB_KEY = "6f1c2b9e8d7a4c3b2a1f0e9d8c7b6a5f4e3d2c1b"
HF_TOKEN = "hf_ZpLmKoNjIbHuVgYcFtXdRsEaWq0192837465"


def big_multirank_log() -> bytes:
    """The 2-node, 16-rank ECC run, with every rank's data-loader lines and an env dump: about 60 KB."""
    lines = ECC_LOG.read_text(encoding="utf-8").splitlines()
    env = [f"worker-0: WANDB_API_KEY={WANDB_KEY}", f"worker-1: HF_TOKEN={HF_TOKEN}"]
    shards = [f"worker-{r // 8}: [2024-03-05 19:20:{10 + r % 40:02d},{100 + i:03d}] [INFO] [data.py:88:load] rank {r}: "
              f"loaded shard {i:04d}/2048 of /datasets/moe-pile/train-{i:05d}.arrow (131072 samples, 512.0 MiB)"
              for i in range(320) for r in (i % 16,)]
    out = lines[:14] + env + shards + lines[14:]
    return ("\n".join(out) + "\n").encode()


@dataclass
class FakeSlack:
    """Slack's Web API (files.info, chat.postMessage, chat.postEphemeral, views.open), its file host and the
    response_urls, on one loopback server: records every call."""

    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    downloads: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: ThreadingHTTPServer | None = None

    def start(self) -> FakeSlack:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _reply(self, status: int, body: bytes, kind: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # the file host: url_private_download needs the bot token
                name = self.path.rsplit("/", 1)[-1]
                if self.headers.get("Authorization") != f"Bearer {BOT_TOKEN}" or name not in fake.files:
                    return self._reply(403, b"forbidden", "text/plain")
                fake.downloads.append(name)
                self._reply(200, fake.files[name][1], "application/octet-stream")

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                data = json.loads(body or b"{}")
                if self.path.startswith("/hooks/"):
                    with fake.lock:
                        fake.calls.append(("response_url", data))
                    return self._reply(200, b"ok", "text/plain")
                method = self.path.removeprefix("/api/")
                if self.headers.get("Authorization") != f"Bearer {BOT_TOKEN}":
                    return self._reply(200, b'{"ok": false, "error": "not_authed"}')
                with fake.lock:
                    fake.calls.append((method, data))
                if method == "files.info":
                    fid = data.get("file")
                    if fid not in fake.files:
                        return self._reply(200, b'{"ok": false, "error": "file_not_found"}')
                    name, content = fake.files[fid]
                    info = {"id": fid, "name": name, "size": len(content), "mode": "snippet",
                            "url_private_download": f"{fake.base}/files-pri/T0001-{fid}/download/{fid}"}
                    return self._reply(200, json.dumps({"ok": True, "file": info}).encode())
                if method == "chat.postMessage":
                    return self._reply(200, json.dumps({"ok": True, "channel": data.get("channel"),
                                                        "ts": f"1700000000.{len(fake.calls):06d}"}).encode())
                self._reply(200, b'{"ok": true}')

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    @property
    def base(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def hook(self) -> str:
        return f"{self.base}/hooks/T0001/{uuid.uuid4().hex}"

    def made(self, method: str) -> list[dict[str, Any]]:
        with self.lock:
            return [d for m, d in self.calls if m == method]

    def wait_for(self, method: str, count: int, timeout: float = 240) -> list[dict[str, Any]]:
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(found := self.made(method)) >= count:
                return found
            time.sleep(0.2)
        raise TimeoutError(f"{method} was not called {count} time(s): {[m for m, _ in self.calls]}")

    def channel_posts(self) -> list[dict[str, Any]]:
        """Everything a channel sees: chat.postMessage, and any response_url post marked in_channel."""
        return self.made("chat.postMessage") + [d for d in self.made("response_url") if d.get("response_type") == "in_channel"]


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeSlack]:
    f = FakeSlack().start()
    f.files["F0LOG60K"] = ("train.log", big_multirank_log())
    yield f
    assert f.server is not None
    f.server.shutdown()


@pytest.fixture(scope="module")
def app(settings, engine, fake: FakeSlack) -> Iterator[Crashdoc]:  # type: ignore[no-untyped-def]
    yield from _serve_slack(settings, engine, slack_bot_token=SecretStr(BOT_TOKEN), slack_api_url=fake.base + "/api/")


def shortcut(response_url: str, files: list[str], text: str = "") -> dict[str, Any]:
    return {"type": "message_action", "callback_id": blocks.SHORTCUT_DIAGNOSE, "trigger_id": "1.2.3",
            "team": {"id": "T0001"}, "user": {"id": "U0001"}, "channel": {"id": "C0001"}, "response_url": response_url,
            "message": {"type": "message", "user": "U0001", "ts": "1699999999.000100", "text": text,
                        "files": [{"id": f} for f in files]}}


def test_the_log_is_about_60_kb_and_the_secrets_are_in_it():
    log = big_multirank_log()
    assert 55_000 <= len(log) <= 70_000 and WANDB_KEY.encode() in log and HF_TOKEN.encode() in log


@dataclass(frozen=True)
class Shortcut:
    card: dict[str, Any]
    diagnosis_id: str


@pytest.fixture(scope="module")
def shortcut_card(app: Crashdoc, fake: FakeSlack) -> Shortcut:
    url = fake.hook()
    r = app.interact(shortcut(url, ["F0LOG60K"], text="run 4471 died overnight, log attached"))
    assert r.status_code == 200
    card = next(d for d in fake.wait_for("response_url", 1) if "blocks" in d)
    share = next(b for b in card["blocks"] if b["type"] == "actions")["elements"][0]
    return Shortcut(card, share["value"])


def test_a_60_kb_multirank_file_through_the_shortcut_gets_the_right_private_diagnosis(shortcut_card: Shortcut, fake: FakeSlack, engine):  # type: ignore[no-untyped-def]
    card = shortcut_card.card
    assert fake.downloads == ["F0LOG60K"] and fake.made("files.info") == [{"file": "F0LOG60K"}]
    assert card["response_type"] == "ephemeral" and limit_violations(card) == []
    stored = engine.store.get(shortcut_card.diagnosis_id)
    assert stored.entry_id == "gpu-ecc-error" and stored.initiating_rank == 10
    assert stored.files == [{"name": "train.log", "lines": stored.files[0]["lines"]}]
    # the compact card: title, this run's sentence, the decisive line, the first fix, buttons
    kinds = [b["type"] for b in card["blocks"]]
    assert kinds[0] == "header" and kinds[-1] == "actions" and len(card["blocks"]) <= 6
    texts = [b["text"]["text"] for b in card["blocks"] if b["type"] == "section"]
    assert texts[0] == blocks.escape(stored.answer.sentence) and texts[0].startswith("Rank 10 of 16")
    assert texts[1].startswith("*Decisive line*") and "ECC" in texts[1]
    assert texts[2].startswith("*First fix*")
    buttons = [e["action_id"] for e in card["blocks"][-1]["elements"]]
    assert buttons[:2] == [blocks.ACTION_SHARE, blocks.ACTION_FOLLOWUP]
    assert len(json.dumps(card)) < 4_000  # not the 5.5 KB wall


@pytest.fixture(scope="module")
def shared(app: Crashdoc, fake: FakeSlack, shortcut_card: Shortcut) -> tuple[dict[str, Any], dict[str, Any]]:
    """The author presses "Share to channel" on the private card: the channel's card and its thread reply."""
    url = fake.hook()
    share = next(b for b in shortcut_card.card["blocks"] if b["type"] == "actions")["elements"][0]
    payload = {"type": "block_actions", "user": {"id": "U0001"}, "team": {"id": "T0001"}, "channel": {"id": "C0001"},
               "response_url": url, "trigger_id": "1.2.4", "actions": [{**share, "block_id": "b", "action_ts": "1"}]}
    assert app.interact(payload).status_code == 200
    card, details = fake.wait_for("chat.postMessage", 2)[:2]
    return card, details


def test_share_to_channel_posts_the_masked_card_and_its_details_in_the_thread(shared: tuple[dict[str, Any], dict[str, Any]]):
    card, details = shared
    assert card["channel"] == details["channel"] == "C0001"
    assert "thread_ts" not in card and details["thread_ts"].startswith("1700000000.")
    assert blocks.ACTION_SHARE not in json.dumps(card)  # the channel's copy has no share button
    assert any(b["type"] == "header" for b in card["blocks"]) and "*Fix*" in all_text(details)
    for message in (card, details):
        assert limit_violations({"response_type": "in_channel", **message}) == []


def test_no_message_a_channel_sees_carries_a_secret_from_the_log(fake: FakeSlack, shared: tuple[dict[str, Any], dict[str, Any]]):
    seen = fake.channel_posts()
    assert len(seen) >= 2
    for message in seen:
        text = json.dumps(message)
        assert WANDB_KEY not in text and HF_TOKEN not in text
    # nor anything else posted anywhere, private ones included
    assert not [m for m, d in fake.calls if WANDB_KEY in json.dumps(d) or HF_TOKEN in json.dumps(d)]


def test_the_follow_up_button_opens_a_modal_and_the_answer_is_private(app: Crashdoc, fake: FakeSlack,
                                                                       shortcut_card: Shortcut):
    did = shortcut_card.diagnosis_id
    follow = next(e for e in shortcut_card.card["blocks"][-1]["elements"] if e["action_id"] == blocks.ACTION_FOLLOWUP)
    payload = {"type": "block_actions", "user": {"id": "U0001"}, "team": {"id": "T0001"}, "channel": {"id": "C0001"},
               "response_url": fake.hook(), "trigger_id": "9.9.9", "actions": [{**follow, "block_id": "b", "action_ts": "1"}]}
    assert app.interact(payload).status_code == 200
    opened = fake.wait_for("views.open", 1)[-1]
    assert opened["trigger_id"] == "9.9.9" and opened["view"]["callback_id"] == blocks.MODAL_ASK
    view = opened["view"]
    submitted = {"type": "view_submission", "user": {"id": "U0001"}, "team": {"id": "T0001"},
                 "view": {**view, "state": {"values": {blocks.MODAL_QUESTION_BLOCK: {blocks.ACTION_ASK: {
                     "type": "plain_text_input", "value": "Which rank failed first?"}}}}}}
    r = app.interact(submitted)
    assert r.status_code == 200 and r.content in (b"", b"null")
    answer = fake.wait_for("chat.postEphemeral", 1)[-1]
    assert answer["channel"] == "C0001" and answer["user"] == "U0001"
    assert "Rank 10 failed first" in all_text(answer) and did in all_text(answer)


def test_without_a_bot_token_the_shortcut_on_a_file_says_what_to_set(settings, engine, fake: FakeSlack):  # type: ignore[no-untyped-def]
    for plain in _serve_slack(settings, engine):
        url = fake.hook()
        assert plain.interact(shortcut(url, ["F0LOG60K"])).status_code == 200
        import time

        deadline = time.monotonic() + 60
        while not [d for m, d in fake.calls if m == "response_url" and "CRASHDOC_SLACK_BOT_TOKEN" in json.dumps(d)]:
            assert time.monotonic() < deadline, "no message about the bot token"
            time.sleep(0.2)


def test_the_manifest_asks_for_the_least_scopes_and_offers_the_shortcut():
    import yaml

    manifest = yaml.safe_load((REPO / "slack" / "manifest.yaml").read_text(encoding="utf-8"))
    assert sorted(manifest["oauth_config"]["scopes"]["bot"]) == ["chat:write", "commands", "files:read"]
    shortcuts = manifest["features"]["shortcuts"]
    assert shortcuts == [{"name": "Diagnose with crashdoc", "type": "message", "callback_id": blocks.SHORTCUT_DIAGNOSE,
                          "description": shortcuts[0]["description"]}]



def test_wrong_cause_opens_a_modal_and_the_verdict_is_stored(app: Crashdoc, fake: FakeSlack, shortcut_card: Shortcut, engine):  # type: ignore[no-untyped-def]
    wrong = next(e for e in shortcut_card.card["blocks"][-1]["elements"] if e["action_id"] == blocks.ACTION_WRONG)
    payload = {"type": "block_actions", "user": {"id": "U0001"}, "team": {"id": "T0001"}, "channel": {"id": "C0001"},
               "response_url": fake.hook(), "trigger_id": "7.7.7", "actions": [{**wrong, "block_id": "b", "action_ts": "1"}]}
    assert app.interact(payload).status_code == 200
    view = next(v["view"] for v in fake.wait_for("views.open", 1) if v["trigger_id"] == "7.7.7")
    assert view["callback_id"] == blocks.MODAL_WRONG

    def submit(label: str) -> Any:
        values = {blocks.WRONG_LABEL_BLOCK: {blocks.WRONG_LABEL_BLOCK: {"type": "plain_text_input", "value": label}},
                  blocks.WRONG_NOTE_BLOCK: {blocks.WRONG_NOTE_BLOCK: {"type": "plain_text_input", "value": "the node's PSU"}}}
        return app.interact({"type": "view_submission", "user": {"id": "U0001"}, "team": {"id": "T0001"},
                             "view": {**view, "state": {"values": values}}})

    refused = submit("not-an-entry")
    assert refused.status_code == 200 and refused.json()["response_action"] == "errors"
    before = len(fake.made("chat.postEphemeral"))
    assert submit("host-oom-killed").status_code == 200
    thanks = fake.wait_for("chat.postEphemeral", before + 1)[-1]
    assert thanks["user"] == "U0001" and "stored" in thanks["text"]
    fb = [f for f, d, _ in engine.store.feedback(None) if d.id == shortcut_card.diagnosis_id][-1]
    assert (fb.source, fb.verdict, fb.label, fb.note) == ("slack", "wrong", "host-oom-killed", "the node's PSU")
