"""Durable background work: Slack replies, async diagnoses (with the LLM composition they may hold) and alert
deliveries are jobs. A job is accepted once (an idempotency key finds the one already accepted, on any replica),
spends the allowance in the same transaction, runs on a worker, is retried with backoff, and is visible at
``GET /v1/jobs/{id}``.

    records.Jobs        the jobs table: submit, claim, succeed / retry_later / fail, due
    kinds.KINDS         what each kind does (idempotent per attempt)
    queue.run_job       one attempt; queue.InProcess (SQLite, in the serving process) or queue.Procrastinate
                        (PostgreSQL: procrastinate, run by ``crashdoc worker``)
    queue_for(engine)   the queue this process uses (Polled: SQLite, jobs run by a separate ``crashdoc worker``)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.jobs.queue import InProcess, Procrastinate, Queue, run_job
from service.jobs.records import Job, Jobs, OverAllowance, Spend, diagnosis_id_of

if TYPE_CHECKING:
    from service.pipeline import Engine

__all__ = ["InProcess", "Job", "Jobs", "OverAllowance", "Polled", "Procrastinate", "Queue", "Spend", "diagnosis_id_of",
           "is_postgres", "queue_for", "run_job"]


def is_postgres(url: str) -> bool:
    return url.split(":", 1)[0].split("+", 1)[0] in ("postgresql", "postgres")


def in_process(engine: Engine) -> bool:
    """Whether this serving process runs the jobs itself: the setting, else yes on SQLite and no on PostgreSQL."""
    chosen = engine.settings.jobs_in_process
    return (not is_postgres(engine.settings.resolved_database_url)) if chosen is None else chosen


class Polled:
    """SQLite with ``CRASHDOC_JOBS_IN_PROCESS=false``: this process only accepts jobs; ``crashdoc worker`` (an
    ``InProcess`` runner of its own) finds them by polling the jobs table."""

    def notify(self, job_id: str) -> None:
        pass

    def stop(self, wait: bool = True) -> None:
        pass


def queue_for(engine: Engine) -> InProcess | Procrastinate | Polled:
    """The serving process's queue: its own runner, or the workers' (procrastinate on PostgreSQL, the table on SQLite)."""
    if in_process(engine):
        return InProcess(engine, workers=engine.settings.jobs_workers).start()
    if not is_postgres(engine.settings.resolved_database_url):
        return Polled()
    return Procrastinate(engine.settings.resolved_database_url)
