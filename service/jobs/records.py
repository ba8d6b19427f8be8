"""The jobs table: accept a job once (with the allowance it spends, in one transaction), claim it, finish it.

    submit(...) -> (Job, created)     insert, or find the caller's job of the same idempotency key (KeyReused:
                                      the key was used for another request)
    claim(id) -> Job | None           take a due job for one attempt (None: done, failed or held by another)
    succeed / retry_later / fail      the outcome of an attempt; a job that fails for good gives its use back
    due(limit) -> ids                 jobs ready to run: queued and due, or running with an expired lease
    begin_step / end_step / keep      the ledger of an attempt's side effects (a post, a write), so that a later
                                      attempt does none of them twice

Every state change is one guarded UPDATE, so two runners (two replicas, a replica and a worker) never run
the same attempt; an attempt's work is idempotent besides (a diagnosis id is derived from the job id).
"""

from __future__ import annotations

import base64
import json
import secrets
import zlib
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.exc import IntegrityError

from service.errors import CrashdocError, KeyReused, LLMError, StoreError
from service.models import MaskedLog
from service.store import Store
from service.store.accounts import Accounts
from service.store.schema import JobRow

LEASE = timedelta(minutes=5)  # an attempt not finished by then is taken to have died with its process
BACKOFF_S = 2.0  # the n-th retry waits BACKOFF_S * 4**(n-1): 2 s, 8 s, 32 s ...


def new_job_id() -> str:
    return "j_" + secrets.token_urlsafe(12).replace("-", "x").replace("_", "y")


def diagnosis_id_of(job_id: str) -> str:
    """The id the job's diagnosis is stored under: a retried attempt finds it instead of making a second one."""
    return "d_" + job_id.removeprefix("j_")


def pack(payload: dict[str, Any]) -> str:
    return base64.b64encode(zlib.compress(json.dumps(payload).encode("utf-8"), 6)).decode("ascii")


def unpack(text: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(zlib.decompress(base64.b64decode(text)))
    return data


@dataclass(frozen=True)
class Job:
    id: str
    kind: str
    scope: str
    workspace_id: str | None
    status: str
    attempts: int
    max_attempts: int
    result: dict[str, Any] | None
    error: dict[str, Any] | None
    created_at: datetime
    updated_at: datetime
    delivered_at: datetime | None
    payload: str
    fingerprint: str | None = None
    steps: dict[str, Any] | None = None

    @classmethod
    def of(cls, row: JobRow) -> Job:
        return cls(row.id, row.kind, row.scope, row.workspace_id, row.status, row.attempts, row.max_attempts,
                   json.loads(row.result) if row.result else None, json.loads(row.error) if row.error else None,
                   _aware(row.created_at), _aware(row.updated_at), _aware(row.delivered_at) if row.delivered_at else None,
                   row.payload, row.fingerprint, json.loads(row.steps) if row.steps else None)

    @property
    def finished(self) -> bool:
        return self.status in ("done", "failed")


def _aware(t: datetime) -> datetime:
    return t if t.tzinfo else t.replace(tzinfo=UTC)  # SQLite hands back naive times


@dataclass(frozen=True)
class Spend:
    """The allowance a job spends when it is accepted: ``kind`` for ``subject``, at most ``limit`` a day."""

    subject: str
    kind: str
    limit: int | None
    day: date


class OverAllowance(Exception):
    """The subject's allowance for the day is spent: nothing was accepted."""


class Jobs:
    def __init__(self, store: Store) -> None:
        self.store = store

    def submit(self, kind: str, payload: dict[str, Any], *, scope: str, workspace_id: str | None = None,
               key: str | None = None, spend: Spend | None = None, max_attempts: int = 4,
               fingerprint: str | None = None) -> tuple[Job, bool]:
        """Accept a job: (the job, True); or, when ``scope`` already made one under ``key``, (that job, False), with
        nothing spent again. Raises ``OverAllowance`` when ``spend`` cannot be counted, and ``KeyReused`` when the
        job found under ``key`` was made for another request (its ``fingerprint`` differs)."""
        if key is not None:
            found = self.find(scope, key, fingerprint)
            if found is not None:
                return found, False
        now = datetime.now(UTC)
        row = JobRow(id=new_job_id(), kind=kind, scope=scope, key=key, workspace_id=workspace_id, status="queued",
                     attempts=0, max_attempts=max_attempts, payload=pack(payload), created_at=now, updated_at=now,
                     run_after=now, fingerprint=fingerprint)
        try:
            with self.store.session() as s:
                if spend is not None:
                    if Accounts(self.store)._consume(s, spend.subject, spend.kind, spend.limit, spend.day) is None:
                        raise OverAllowance(spend.kind)
                    row.usage_subject, row.usage_kind, row.usage_day = spend.subject, spend.kind, spend.day
                s.add(row)
        except StoreError as exc:
            # Two replicas took the same key at once: the unique index let one in; the other finds it.
            if key is not None and isinstance(exc.__cause__, IntegrityError):
                found = self.find(scope, key, fingerprint)
                if found is not None:
                    return found, False
            raise
        return Job.of(row), True

    def find(self, scope: str, key: str, fingerprint: str | None = None) -> Job | None:
        """The job ``scope`` made under ``key``. With ``fingerprint``: ``KeyReused`` when that job was made for
        another request (a job kept without one, from before migration 0008, cannot tell and is returned)."""
        with self.store.session() as s:
            row = s.scalar(select(JobRow).where(JobRow.scope == scope, JobRow.key == key))
            job = Job.of(row) if row else None
        if job is not None and fingerprint is not None and job.fingerprint is not None and job.fingerprint != fingerprint:
            raise KeyReused("This Idempotency-Key was already used for a different request.",
                            hint="Use a new key for each new request; reuse a key only to retry the same request.")
        return job

    def get(self, job_id: str, scope: str | None = None) -> Job | None:
        """The job; None when there is none, or it is not ``scope``'s (when given)."""
        with self.store.session() as s:
            row = s.get(JobRow, job_id)
            if row is None or (scope is not None and row.scope != scope):
                return None
            return Job.of(row)

    def claim(self, job_id: str) -> Job | None:
        """Take the job for one attempt: due and queued, or running on an expired lease. None: not to run now."""
        now = datetime.now(UTC)
        with self.store.session() as s:
            taken = s.execute(
                update(JobRow)
                .where(JobRow.id == job_id, _runnable(now))
                .values(status="running", attempts=JobRow.attempts + 1, lease_until=now + LEASE, updated_at=now)
            )
            if not taken.rowcount:  # type: ignore[attr-defined]
                return None
            row = s.get(JobRow, job_id)
            assert row is not None
            return Job.of(row)

    def succeed(self, job_id: str, result: dict[str, Any]) -> None:
        self._finish(job_id, status="done", result=json.dumps(result))

    def mark_delivered(self, job_id: str) -> None:
        now = datetime.now(UTC)
        with self.store.session() as s:
            s.execute(update(JobRow).where(JobRow.id == job_id).values(delivered_at=now, updated_at=now))

    def retry_later(self, job: Job, error: dict[str, Any]) -> datetime:
        """Back to the queue after a failed attempt, due after the backoff; returns when."""
        now = datetime.now(UTC)
        due = now + timedelta(seconds=BACKOFF_S * 4 ** max(0, job.attempts - 1))
        with self.store.session() as s:
            s.execute(update(JobRow).where(JobRow.id == job.id, JobRow.status == "running")
                      .values(status="queued", run_after=due, lease_until=None, error=json.dumps(error), updated_at=now))
        return due

    def fail(self, job_id: str, error: dict[str, Any]) -> None:
        """Failed for good: the use it was counted for is given back, in the same transaction."""
        with self.store.session() as s:
            row = s.get(JobRow, job_id)
            if row is None or row.status == "failed":
                return
            if row.usage_subject and row.usage_kind and row.usage_day:
                Accounts(self.store)._refund(s, row.usage_subject, row.usage_kind, row.usage_day)
            row.status, row.error, row.lease_until, row.updated_at = "failed", json.dumps(error), None, datetime.now(UTC)

    def _finish(self, job_id: str, *, status: str, result: str) -> None:
        now = datetime.now(UTC)
        with self.store.session() as s:
            s.execute(update(JobRow).where(JobRow.id == job_id)
                      .values(status=status, result=result, error=None, lease_until=None, updated_at=now))

    def due(self, limit: int = 32, older_than: timedelta = timedelta(0)) -> list[str]:
        """Ids of jobs ready to run (``older_than``: only those accepted at least that long ago), oldest first."""
        now = datetime.now(UTC)
        with self.store.session() as s:
            q = select(JobRow.id).where(_runnable(now), JobRow.created_at <= now - older_than)
            return list(s.scalars(q.order_by(JobRow.run_after).limit(limit)).all())

    # ------------------------------------------------------------ the ledger of side effects

    def begin_step(self, job_id: str, step: str) -> Any:
        """Mark ``step`` (a post, a write) under way before doing it. Returns None when it is now marked (do it),
        else what an earlier attempt left: "started" (its process died while it was under way: whether it took
        effect is unknown, so it is not done again) or "done"."""
        with self.store.session() as s:
            row = s.scalar(select(JobRow).where(JobRow.id == job_id).with_for_update())  # SQLite: the write lock
            if row is None:
                return "done"
            steps = json.loads(row.steps) if row.steps else {}
            if step in steps:
                return steps[step]
            steps[step] = "started"
            row.steps, row.updated_at = json.dumps(steps), datetime.now(UTC)
            return None

    def end_step(self, job_id: str, step: str, *, done: bool = True) -> None:
        """``step`` took effect (``done``), or is known not to have (the receiver refused it): then it is unmarked,
        and a later attempt does it again."""
        self.keep(job_id, step, "done" if done else None)

    def keep(self, job_id: str, step: str, value: Any) -> None:
        """Keep ``value`` under ``step`` (None: remove it), e.g. a message made once and posted by a later attempt."""
        with self.store.session() as s:
            row = s.scalar(select(JobRow).where(JobRow.id == job_id).with_for_update())
            if row is None:
                return
            steps = json.loads(row.steps) if row.steps else {}
            if value is None:
                steps.pop(step, None)
            else:
                steps[step] = value
            row.steps, row.updated_at = json.dumps(steps), datetime.now(UTC)

    def counts(self) -> dict[str, int]:
        from sqlalchemy import func

        with self.store.session() as s:
            return {str(k): int(v) for k, v in s.execute(select(JobRow.status, func.count()).group_by(JobRow.status))}


def _runnable(now: datetime) -> Any:
    return or_((JobRow.status == "queued") & (JobRow.run_after <= now),
               (JobRow.status == "running") & (JobRow.lease_until < now))


def permanent(exc: BaseException) -> bool:
    """An error a retry cannot change: crashdoc's own verdicts on the input (not found, too large, ...). A database
    or an LLM that failed may answer next time."""
    return isinstance(exc, CrashdocError) and not isinstance(exc, StoreError | LLMError)


class DeliveryFailed(Exception):
    """The receiving end did not take the reply (unreachable, 429 or 5xx): the attempt is retried."""


def masked_payload(masked: Any) -> dict[str, Any]:
    """A ``pipeline.Masked`` as a job's payload (masked text only)."""
    return {"log": masked.log.model_dump(mode="json"), "notes": masked.notes, "timings": masked.timings}


def masked_of(payload: dict[str, Any]) -> Any:
    from service.pipeline import Masked

    return Masked(MaskedLog.model_validate(payload["log"]), list(payload["notes"]), dict(payload["timings"]))
