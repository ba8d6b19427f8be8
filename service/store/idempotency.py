"""Idempotency keys in the database, so every replica sees the same ones.

A key is scoped to its caller (a workspace id, or ``anon:<address>``) and kept as its SHA-256. ``claim`` is one
guarded INSERT (``ON CONFLICT DO NOTHING``): of two requests with the same key, on any replicas, exactly one
gets to do the work; the other is told the first is still running, or gets the first's answer once it is done.

    claim(scope, key, fingerprint) -> Saved | None   None: yours, do the work; Saved: the answer to send again
                                                      KeyReused (422): the key was used for another request
                                                      InFlight (409): the first request is still running
    finish(scope, key, saved, resource_id)            keep the answer until the key expires
    release(scope, key)                               the work failed: the key may be used again
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, select, update

from service.errors import InFlight, KeyReused
from service.store import Store
from service.store.schema import IdempotencyRow
from service.store.upsert import insert_if_absent

PENDING, DONE = "pending", "done"


@dataclass(frozen=True)
class Saved:
    """The first answer to a key: its status and its JSON body."""

    status: int
    body: str


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _aware(dt: datetime) -> datetime:
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt


class IdempotencyKeys:
    """``ttl``: how long an answer is kept; ``pending_ttl``: how long a request may hold its key before a retry
    may take it over (longer than the slowest request: a big log's diagnosis)."""

    def __init__(self, store: Store, ttl: timedelta = timedelta(hours=24), pending_ttl: timedelta = timedelta(minutes=15)) -> None:
        self.store, self.ttl, self.pending_ttl = store, ttl, pending_ttl

    def claim(self, scope: str, key: str, fingerprint: str, now: datetime | None = None) -> Saved | None:
        now = now or datetime.now(UTC)
        key_hash = _sha256(key)
        mine = (IdempotencyRow.scope == scope) & (IdempotencyRow.key_hash == key_hash)
        with self.store.session() as s:
            s.execute(delete(IdempotencyRow).where(mine & (IdempotencyRow.expires_at < now)))
            row_values = {"scope": scope, "key_hash": key_hash, "fingerprint": fingerprint, "state": PENDING,
                          "created_at": now, "expires_at": now + self.pending_ttl}
            if insert_if_absent(s, IdempotencyRow, row_values, ["scope", "key_hash"]):
                return None
            row = s.scalars(select(IdempotencyRow).where(mine)).one_or_none()
        if row is None:  # expired and removed by another request between the two statements: try once more
            return self.claim(scope, key, fingerprint, now)
        if row.fingerprint != fingerprint:
            raise KeyReused("This Idempotency-Key was already used for a different request.",
                            hint="Use a new key for each new request; reuse a key only to retry the same request.")
        if row.state != DONE or row.body is None or row.status is None:
            wait = max(1, int((_aware(row.expires_at) - now).total_seconds()))
            raise InFlight("A request with this Idempotency-Key is still being processed.",
                           retry_after_s=min(wait, 10), hint="Retry shortly with the same key to get its answer.")
        return Saved(row.status, row.body)

    def finish(self, scope: str, key: str, saved: Saved, resource_id: str | None, now: datetime | None = None) -> None:
        now = now or datetime.now(UTC)
        with self.store.session() as s:
            s.execute(update(IdempotencyRow)
                      .where(IdempotencyRow.scope == scope, IdempotencyRow.key_hash == _sha256(key))
                      .values(state=DONE, status=saved.status, body=saved.body, resource_id=resource_id,
                              expires_at=now + self.ttl))

    def release(self, scope: str, key: str) -> None:
        with self.store.session() as s:
            s.execute(delete(IdempotencyRow).where(IdempotencyRow.scope == scope, IdempotencyRow.key_hash == _sha256(key),
                                                   IdempotencyRow.state == PENDING))

    def purge(self, now: datetime | None = None) -> int:
        """Remove the expired keys; how many."""
        with self.store.session() as s:
            result = s.execute(delete(IdempotencyRow).where(IdempotencyRow.expires_at < (now or datetime.now(UTC))))
            return int(result.rowcount)  # type: ignore[attr-defined]
