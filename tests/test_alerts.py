"""Alerts: a webhook receiver on loopback gets each alert once (new group, a group reaching its threshold, a flagged
node), signed with the subscription's secret, retried after a failure with the same delivery id."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from service.jobs import records as job_records
from tests.conftest import free_port
from tests.test_accounts import OOM_LOG, running_app
from tests.test_fleet import HARDWARE, eval_logs, on_host, post_run


class Receiver:
    """A webhook receiver: records every POST; the first ``fail_first`` answers are 500s."""

    def __init__(self, fail_first: int = 0) -> None:
        self.got: list[tuple[dict[str, str], bytes]] = []
        self.fail_left = fail_first
        self.answered_500 = 0
        me = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if me.fail_left > 0:
                    me.fail_left -= 1
                    me.answered_500 += 1
                    self.send_response(500)
                else:
                    me.got.append(({k.lower(): v for k, v in self.headers.items()}, body))
                    self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def wait(self, n: int, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while len(self.got) < n and time.monotonic() < deadline:
            time.sleep(0.1)

    def events(self) -> list[str]:
        return [h["x-crashdoc-event"] for h, _ in self.got]


def valid(secret: str, headers: dict[str, str], body: bytes) -> bool:
    mac = hmac.new(secret.encode(), headers["x-crashdoc-timestamp"].encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(headers["x-crashdoc-signature"], f"sha256={mac}")


def test_a_webhook_gets_each_alert_once_with_a_valid_signature(engine, tmp_path, monkeypatch):
    monkeypatch.setattr(job_records, "BACKOFF_S", 0.2)
    receiver = Receiver(fail_first=1)  # the first delivery fails: retried, and still received once
    hardware = [s for _, s in eval_logs(HARDWARE)][:4]
    try:
        with running_app(engine, tmp_path, plan_free_daily=100, alerts_allow_insecure_urls=True) as a:
            key = a.new_key("alerts-team")
            with a.client(key) as c:
                sub = c.post("/v1/alerts", json={"kind": "webhook", "url": receiver.url, "threshold": 3,
                                                 "events": ["new_group", "group_threshold", "flagged_node"]})
                assert sub.status_code == 201, sub.text
                secret = sub.json()["secret"]
                assert c.get("/v1/alerts").json()["subscriptions"][0]["secret"] is None  # shown once
                oom = [post_run(c, [_source(OOM_LOG)]) for _ in range(4)]  # new group; reaches 3 at the third
                receiver.wait(2)
                nodes = [post_run(c, on_host("gpu-node-17.cluster.internal", s)) for s in hardware]
                receiver.wait(2 + 1 + 1 + 1, timeout=90)  # new groups (1 or 2 entries), threshold, flagged node
                time.sleep(2)  # anything sent twice would arrive by now
                groups = c.get("/v1/failures").json()["groups"]
        assert sorted(d for g in groups for d in g["runs"]) == sorted(d["id"] for d in oom + nodes)
        expected = (["new_group"] * len(groups) + ["group_threshold"] * sum(g["count"] >= 3 for g in groups)
                    + ["flagged_node"])
        assert sorted(receiver.events()) == sorted(expected)
        assert receiver.answered_500 == 1
        assert all(valid(secret, h, body) for h, body in receiver.got)
        assert not any(valid("another secret", h, body) for h, body in receiver.got)
        deliveries = [h["x-crashdoc-delivery"] for h, _ in receiver.got]
        assert len(set(deliveries)) == len(deliveries)
        bodies = [json.loads(b) for _, b in receiver.got]
        threshold = next(b for b in bodies if b["event"] == "group_threshold" and b["group"]["entry_id"] == "cuda-oom")
        assert threshold["group"]["count"] == 3 and threshold["diagnosis_id"] == oom[2]["id"]
        node = next(b for b in bodies if b["event"] == "flagged_node")["node"]
        assert node["jobs"] == 3 and node["node"].startswith("node-") and "gpu-node-17" not in json.dumps(bodies)
    finally:
        receiver.server.shutdown()


def _source(data: bytes):  # type: ignore[no-untyped-def]
    from service.models import Source

    return Source(name="train.log", data=data)


@pytest.mark.parametrize(("kind", "url"), [
    ("webhook", "http://example.com/hook"),  # not https
    ("webhook", "https://hooks.example.com@10.0.0.1/x"),
    ("slack", "https://example.com/services/x"),  # Slack alerts go to hooks.slack.com only
])
def test_alert_urls_are_checked(engine, tmp_path, kind, url):
    with running_app(engine, tmp_path) as a:
        with a.client(a.new_key("alerts-urls")) as c:
            r = c.post("/v1/alerts", json={"kind": kind, "url": url, "events": ["new_group"]})
            assert r.status_code == 400, r.text
        with a.client() as c:
            assert c.post("/v1/alerts", json={"kind": "webhook", "url": "https://x.example/h", "events": ["new_group"]}).status_code == 401
