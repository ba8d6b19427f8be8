"""Running jobs: ``run_job`` does one attempt; a queue decides where and when.

    InProcess      the embedded default (SQLite): a dispatcher thread and a small pool in the same process
                   (``crashdoc serve``, or ``crashdoc worker`` alone); it polls the jobs table, so jobs left by a
                   process that died are taken up when their lease ends
    Procrastinate  PostgreSQL: jobs are deferred to procrastinate (its tables, LISTEN/NOTIFY) and run by
                   ``crashdoc worker`` processes; a periodic sweep defers what a replica accepted but died before
                   deferring, and what a dead worker held

Either way the jobs table is the record of truth and every attempt is claimed with a guarded UPDATE.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Protocol

from service.errors import CrashdocError
from service.jobs.kinds import KINDS
from service.jobs.records import Jobs, permanent

if TYPE_CHECKING:
    from service.pipeline import Engine

log = logging.getLogger("crashdoc.jobs")

QUEUE_NAME = "crashdoc"
TASK_NAME = "crashdoc.run_job"
SWEEP_AFTER = timedelta(seconds=10)  # a due job this old with no procrastinate job is deferred again


class Queue(Protocol):
    def notify(self, job_id: str) -> None: ...


def run_job(engine: Engine, jobs: Jobs, job_id: str) -> float | None:
    """One attempt at the job, if it is due and nobody holds it. Returns the time (epoch s) a retry is due, or None."""
    job = jobs.claim(job_id)
    if job is None:
        return None
    final = job.attempts >= job.max_attempts
    t0 = time.perf_counter()
    try:
        result = KINDS[job.kind](engine, jobs, job, final)
    except Exception as exc:
        error = {"code": getattr(exc, "code", "internal") if isinstance(exc, CrashdocError) else "internal",
                 "message": str(exc) if isinstance(exc, CrashdocError) else f"{type(exc).__name__}"}
        if permanent(exc) or final:  # bad input does not get better; the last attempt is the last
            log.info("job %s (%s) failed after %d attempt(s): %s", job.id, job.kind, job.attempts, error["code"])
            jobs.fail(job.id, error)
            return None
        due = jobs.retry_later(job, error)
        log.info("job %s (%s) attempt %d failed (%s); retry at %s", job.id, job.kind, job.attempts,
                 type(exc).__name__, due.isoformat(timespec="seconds"))
        return due.timestamp()
    jobs.succeed(job.id, result)
    log.info("job %s (%s) done in %.0f ms (attempt %d)", job.id, job.kind, (time.perf_counter() - t0) * 1000, job.attempts)
    return None


class InProcess:
    """A dispatcher thread over the jobs table and a pool of ``workers`` threads."""

    def __init__(self, engine: Engine, workers: int = 2, poll_s: float = 0.5) -> None:
        self.engine, self.poll_s = engine, poll_s
        self.jobs = Jobs(engine.store)
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="crashdoc-job")
        self._slots = threading.Semaphore(workers)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> InProcess:
        self._thread = threading.Thread(target=self._loop, name="crashdoc-jobs", daemon=True)
        self._thread.start()
        return self

    def stop(self, wait: bool = True) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread:
            self._thread.join(timeout=10)
        self._pool.shutdown(wait=wait, cancel_futures=True)

    def notify(self, job_id: str) -> None:
        self._wake.set()

    def run_forever(self) -> None:
        """``crashdoc worker`` on SQLite: dispatch until interrupted."""
        self._loop()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                ids = self.jobs.due(limit=16)
            except Exception as exc:  # a database blip must not end the dispatcher
                log.warning("jobs: cannot read the queue: %s", type(exc).__name__)
                ids = []
            for job_id in ids:
                if self._stop.is_set():
                    return
                self._slots.acquire()
                self._pool.submit(self._one, job_id)
            if not ids:
                self._wake.wait(self.poll_s)
                self._wake.clear()

    def _one(self, job_id: str) -> None:
        try:
            run_job(self.engine, self.jobs, job_id)
        except Exception as exc:
            log.error("job %s: runner error %s", job_id, type(exc).__name__)
        finally:
            self._slots.release()


# ---------------------------------------------------------------- procrastinate (PostgreSQL)


def conninfo(database_url: str) -> str:
    """The libpq URL of a SQLAlchemy PostgreSQL URL (postgresql+psycopg://... -> postgresql://...)."""
    scheme, sep, rest = database_url.partition("://")
    return f"postgresql{sep}{rest}" if scheme.startswith("postgresql") else database_url


def procrastinate_schema() -> str:
    """procrastinate's own tables, functions and triggers, applied by migration 0004 on PostgreSQL."""
    from procrastinate.schema import SchemaManager

    return str(SchemaManager.get_schema())


def procrastinate_app(database_url: str, engine: Engine | None = None) -> Any:
    """The procrastinate app on the store's database: the task that runs a job (it needs ``engine``, the worker's)
    and the periodic sweep."""
    import procrastinate

    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=conninfo(database_url)))

    @app.task(name=TASK_NAME, queue=QUEUE_NAME, pass_context=False)
    def crashdoc_run_job(job_id: str) -> None:
        if engine is None:
            raise RuntimeError("this process only defers jobs")
        due = run_job(engine, Jobs(engine.store), job_id)
        if due is not None:  # the backoff: procrastinate runs it again then
            _defer(app, job_id, schedule_at=due)

    @app.periodic(cron="*/5 * * * * *", periodic_id="crashdoc-sweep")  # every 5 s (croniter's seconds field)
    @app.task(name="crashdoc.sweep", queue=QUEUE_NAME, pass_context=False)
    def crashdoc_sweep(timestamp: int) -> None:
        if engine is None:
            return
        for job_id in Jobs(engine.store).due(limit=100, older_than=SWEEP_AFTER):
            _defer(app, job_id)

    return app


def _defer(app: Any, job_id: str, schedule_at: float | None = None) -> None:
    """Defer the job unless procrastinate already holds one waiting for it (the queueing lock is the job id)."""
    from datetime import UTC, datetime

    from procrastinate.exceptions import AlreadyEnqueued

    options: dict[str, Any] = {"queueing_lock": job_id}
    if schedule_at is not None:
        options["schedule_at"] = datetime.fromtimestamp(schedule_at, UTC)
    with contextlib.suppress(AlreadyEnqueued):
        app.configure_task(TASK_NAME, **options).defer(job_id=job_id)


class Procrastinate:
    """The web side on PostgreSQL: accepted jobs are deferred to procrastinate for ``crashdoc worker``."""

    def __init__(self, database_url: str) -> None:
        self.app = procrastinate_app(database_url).open()

    def notify(self, job_id: str) -> None:
        try:
            _defer(self.app, job_id)
        except Exception as exc:  # the sweep defers it within seconds: the job is in the table already
            log.warning("job %s: could not defer now (%s); the sweep will", job_id, type(exc).__name__)

    def stop(self, wait: bool = True) -> None:
        self.app.close()
