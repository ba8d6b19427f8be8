"""Alerts: a workspace subscribes a webhook (each body signed with HMAC-SHA256 and a secret shown once) or a Slack
incoming webhook to three events, and each alert is a job (service/jobs), so it is retried with backoff and
sent once:

    new_group        a diagnosis starts a failure group never seen in the workspace
    group_threshold  a group reaches the subscription's threshold of occurrences
    flagged_node     a node becomes flagged (hardware-class failures of several distinct runs)

Once: the job's idempotency key is the event (``new_group:<fingerprint>``, ``group_threshold:<fingerprint>``,
``flagged_node:<node>``) in the subscription's scope, so a second diagnosis, replica or retry finds the job already
made. Each delivery carries its id (``X-Crashdoc-Delivery``, the same on every retry) for a receiver that must
not act twice, and the signature ``X-Crashdoc-Signature: sha256=<hex>`` of ``<timestamp>.<body>`` with the
timestamp in ``X-Crashdoc-Timestamp``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import httpx
from sqlalchemy import delete, select

from service.errors import BadRequest, NotFound
from service.store import Store
from service.store.schema import AlertSubscriptionRow

EVENTS = ("new_group", "group_threshold", "flagged_node")
POST_TIMEOUT_S = 10.0
_LOOPBACK = {"127.0.0.1", "::1", "localhost"}


@dataclass(frozen=True)
class Subscription:
    id: str
    kind: str
    url: str
    events: list[str]
    threshold: int
    created_at: datetime
    secret: str

    @classmethod
    def of(cls, row: AlertSubscriptionRow) -> Subscription:
        return cls(row.id, row.kind, row.url, json.loads(row.events), row.threshold, row.created_at, row.secret)


def check_url(kind: str, url: str, allow_insecure: bool) -> str:
    """https only (Slack: only hooks.slack.com); loopback http when the setting allows it (tests)."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
    except ValueError:
        host, parts = "", urlsplit("")
    loopback_ok = allow_insecure and parts.scheme in ("http", "https") and host in _LOOPBACK
    if "@" in parts.netloc or not host:
        ok = False
    elif kind == "slack":
        ok = (parts.scheme == "https" and host == "hooks.slack.com") or loopback_ok
    else:
        ok = parts.scheme == "https" or loopback_ok
    if not ok:
        raise BadRequest(f"The {kind} URL is not allowed: {url[:100]!r}.",
                         hint="Webhooks must be https://; Slack alerts go to an incoming webhook https://hooks.slack.com/....")
    return url


def subscribe(store: Store, scope: str, kind: str, url: str, events: list[str], threshold: int,
              allow_insecure: bool) -> Subscription:
    if kind not in ("webhook", "slack"):
        raise BadRequest(f"Unknown alert kind '{kind}'.", hint="Use 'webhook' or 'slack'.")
    unknown = sorted(set(events) - set(EVENTS)) if events else ["(none)"]
    if unknown:
        raise BadRequest(f"Unknown events {unknown}.", hint=f"Choose among {', '.join(EVENTS)}.")
    if threshold < 2:
        raise BadRequest("The threshold must be 2 or more.", hint="new_group already covers the first occurrence.")
    row = AlertSubscriptionRow(id="al_" + secrets.token_hex(8), scope=scope, kind=kind,
                               url=check_url(kind, url, allow_insecure), secret=secrets.token_hex(32),
                               events=json.dumps(sorted(set(events))), threshold=threshold, created_at=datetime.now(UTC))
    with store.session() as s:
        s.add(row)
    return Subscription.of(row)


def subscriptions(store: Store, scope: str) -> list[Subscription]:
    with store.session() as s:
        rows = s.scalars(select(AlertSubscriptionRow).where(AlertSubscriptionRow.scope == scope)
                         .order_by(AlertSubscriptionRow.created_at)).all()
        return [Subscription.of(r) for r in rows]


def unsubscribe(store: Store, scope: str, sub_id: str) -> None:
    with store.session() as s:
        gone = s.execute(delete(AlertSubscriptionRow).where(AlertSubscriptionRow.scope == scope, AlertSubscriptionRow.id == sub_id))
        if not gone.rowcount:  # type: ignore[attr-defined]
            raise NotFound(f"No alert subscription '{sub_id}'.", hint="GET /v1/alerts lists them.")


def raise_alerts(store: Store, scope: str, events: list[tuple[str, str, dict[str, Any]]], counts: dict[str, int]) -> list[str]:
    """Accept one job per subscription and event, once per event key. ``events``: (event, key, body);
    ``counts``: a group's occurrences by fingerprint (for thresholds). Returns the new jobs' ids."""
    from service.jobs.records import Jobs

    made: list[str] = []
    jobs = Jobs(store)
    for sub in subscriptions(store, scope):
        for event, key, body in events:
            if event not in sub.events:
                continue
            if event == "group_threshold" and counts.get(body["group"]["fingerprint"], 0) < sub.threshold:
                continue
            payload = {"subscription_id": sub.id, "event": event, "body": {"event": event, **body}}
            job, created = jobs.submit("alert", payload, scope=f"alert:{sub.id}", key=key, max_attempts=5)
            if created:
                made.append(job.id)
    return made


def signature(secret: str, timestamp: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode("utf-8"), timestamp.encode("ascii") + b"." + body, hashlib.sha256).hexdigest()


def send(store: Store, delivery_id: str, payload: dict[str, Any]) -> int | None:
    """POST one alert; the HTTP status, or None when nothing answered; 0 when its subscription is gone."""
    with store.session() as s:
        row = s.get(AlertSubscriptionRow, payload["subscription_id"])
        sub = Subscription.of(row) if row else None
    if sub is None:
        return 0
    body_obj = payload["body"] if sub.kind == "webhook" else {"text": slack_text(payload["body"])}
    body = json.dumps(body_obj, sort_keys=True).encode("utf-8")
    ts = str(int(time.time()))
    headers = {"Content-Type": "application/json", "X-Crashdoc-Event": payload["event"], "X-Crashdoc-Delivery": delivery_id,
               "X-Crashdoc-Timestamp": ts, "X-Crashdoc-Signature": signature(sub.secret, ts, body)}
    try:
        return httpx.post(sub.url, content=body, headers=headers, timeout=POST_TIMEOUT_S).status_code
    except httpx.HTTPError:
        return None


def slack_text(body: dict[str, Any]) -> str:
    if body["event"] == "flagged_node":
        n = body["node"]
        return f":rotating_light: Node `{n['node']}` is in hardware failures of {n['jobs']} runs."
    g = body["group"]
    what = g.get("entry_id") or f"unknown: {g.get('template', '')[:200]}"
    if body["event"] == "new_group":
        return f":new: A new failure: *{g.get('title')}* (`{what}`)."
    return f":repeat: *{g.get('title')}* (`{what}`) has happened {g.get('count')} times."
