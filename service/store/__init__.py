"""Storage: SQLite by default (``CRASHDOC_DATA_DIR``), any SQLAlchemy URL via ``CRASHDOC_DATABASE_URL``.

SQLAlchemy errors are translated here into ``StoreError``; nothing else in crashdoc imports SQLAlchemy.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import create_engine, delete, event, func, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from service.errors import NotFound, StoreError
from service.local_db import MIGRATIONS as _MIGRATIONS
from service.local_db import diagnosis_row, head_revisions
from service.models import Diagnosis, Evidence
from service.store.schema import DiagnosisRow, FeedbackRow, IdempotencyRow, MessageRow, ShareRow

_migrate_lock = threading.Lock()


def _sqlite_pragmas(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
    """WAL, so readers never wait for the writer, and synchronous=NORMAL with it: a commit appends to the WAL
    without an fsync and the WAL is synced at each checkpoint. The database cannot be corrupted this way; a power
    cut (not a crash of the process) may lose the last diagnoses committed before it, which a user can run again,
    while every commit no longer waits for the disk (the store stage of a warm diagnosis)."""
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=5000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def current_revisions(engine: Engine) -> set[str]:
    """The revisions the database is at (empty when it has no Alembic table yet)."""
    try:
        with engine.connect() as conn:
            return {row[0] for row in conn.execute(text("SELECT version_num FROM alembic_version"))}
    except SQLAlchemyError:
        return set()


def migrate(engine: Engine) -> None:
    """Bring the schema to the latest Alembic revision; Alembic is imported only when the database is behind
    (its import is a tenth of a cold start, and almost every start finds the schema current)."""
    heads = head_revisions()
    if heads and current_revisions(engine) == heads:
        return
    from alembic import command
    from alembic.config import Config

    cfg = Config(str(_MIGRATIONS / "alembic.ini"))
    cfg.set_main_option("script_location", str(_MIGRATIONS))
    with _migrate_lock, engine.begin() as conn:
        if engine.dialect.name == "postgresql":  # replicas and workers starting together: one migrates, the rest wait
            conn.execute(text("SELECT pg_advisory_xact_lock(7302651)"))
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


class Store:
    def __init__(self, url: str) -> None:
        try:
            if url.startswith("sqlite:///"):
                Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
            self.engine = create_engine(url, pool_pre_ping=True)
            if self.engine.dialect.name == "sqlite":
                event.listen(self.engine, "connect", _sqlite_pragmas)
            migrate(self.engine)
        except (SQLAlchemyError, OSError) as exc:
            raise StoreError(f"Cannot open the database: {exc}", hint="Check CRASHDOC_DATA_DIR / CRASHDOC_DATABASE_URL.") from exc
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def session(self) -> Iterator[Session]:
        try:
            with self._sessions.begin() as s:
                yield s
        except (SQLAlchemyError, OSError) as exc:  # OSError: the disk or the file system under the database
            raise StoreError(f"The database is unavailable: {exc.__class__.__name__}", hint="Retry shortly.") from exc

    # ------------------------------------------------------------ diagnoses

    def save(self, diagnosis: Diagnosis, excerpt: list[Evidence], workspace_id: str | None = None) -> None:
        row = DiagnosisRow(**diagnosis_row(diagnosis, excerpt, workspace_id))
        with self.session() as s:
            s.add(row)

    def replace(self, diagnosis: Diagnosis, excerpt: list[Evidence], workspace_id: str | None = None) -> None:
        """A stored diagnosis made again (the LLM's composition that followed a deterministic answer): same id,
        workspace and time; its body, excerpt, entry, confidence and composer replaced."""
        values = diagnosis_row(diagnosis, excerpt, workspace_id)
        with self.session() as s:
            row = self._row(s, diagnosis.id, workspace_id)
            for name in ("entry_id", "confidence", "composer", "body", "excerpt"):
                setattr(row, name, values[name])

    def _row(self, s: Session, diagnosis_id: str, workspace_id: str | None) -> DiagnosisRow:
        row = s.get(DiagnosisRow, diagnosis_id)
        if row is None or row.workspace_id != workspace_id:
            raise NotFound(f"No diagnosis '{diagnosis_id}'.", hint="Check the id; diagnoses may be purged after the retention period.")
        return row

    def get(self, diagnosis_id: str, workspace_id: str | None = None) -> Diagnosis:
        with self.session() as s:
            return Diagnosis.model_validate_json(self._row(s, diagnosis_id, workspace_id).body)

    def find(self, diagnosis_id: str, workspace_id: str | None = None) -> Diagnosis | None:
        """The stored diagnosis, or None when there is none under this id in this workspace."""
        with self.session() as s:
            row = s.get(DiagnosisRow, diagnosis_id)
            if row is None or row.workspace_id != workspace_id:
                return None
            return Diagnosis.model_validate_json(row.body)

    def excerpt(self, diagnosis_id: str, workspace_id: str | None = None) -> list[Evidence]:
        with self.session() as s:
            return [Evidence(**e) for e in json.loads(self._row(s, diagnosis_id, workspace_id).excerpt)]

    def history(self, workspace_id: str | None, *, limit: int = 20, offset: int = 0) -> tuple[list[Diagnosis], int]:
        with self.session() as s:
            q = select(DiagnosisRow).where(DiagnosisRow.workspace_id.is_(None) if workspace_id is None else DiagnosisRow.workspace_id == workspace_id)
            total = s.scalar(select(func.count()).select_from(q.subquery())) or 0
            rows = s.scalars(q.order_by(DiagnosisRow.created_at.desc(), DiagnosisRow.id).limit(limit).offset(offset)).all()
            return [Diagnosis.model_validate_json(r.body) for r in rows], int(total)

    def delete(self, diagnosis_id: str, workspace_id: str | None = None) -> None:
        with self.session() as s:
            row = self._row(s, diagnosis_id, workspace_id)
            self._delete_dependents(s, [row.id])
            s.delete(row)

    def purge(self, older_than_days: int) -> int:
        """Remove diagnoses (and their chat) older than the retention period; returns how many."""
        cutoff = datetime.now(UTC) - timedelta(days=older_than_days)
        with self.session() as s:
            ids = s.scalars(select(DiagnosisRow.id).where(DiagnosisRow.created_at < cutoff)).all()
            if ids:
                self._delete_dependents(s, list(ids))
                s.execute(delete(DiagnosisRow).where(DiagnosisRow.id.in_(ids)))
            return len(ids)

    @staticmethod
    def _delete_dependents(s: Session, ids: list[str]) -> None:
        """What goes with a diagnosis: its chat, its feedback, its share link, and the kept answers of idempotent
        requests that hold it (a retry after the deletion makes a new diagnosis rather than replaying a deleted one)."""
        s.execute(delete(MessageRow).where(MessageRow.diagnosis_id.in_(ids)))
        s.execute(delete(FeedbackRow).where(FeedbackRow.diagnosis_id.in_(ids)))
        s.execute(delete(ShareRow).where(ShareRow.diagnosis_id.in_(ids)))
        s.execute(delete(IdempotencyRow).where(IdempotencyRow.resource_id.in_(ids)))

    # ------------------------------------------------------------ chat

    def add_messages(self, diagnosis_id: str, messages: list[tuple[str, str]], workspace_id: str | None = None) -> datetime:
        """Store (role, body) messages in one transaction, in order; returns their time."""
        now = datetime.now(UTC)
        with self.session() as s:
            self._row(s, diagnosis_id, workspace_id)
            for role, body in messages:
                s.add(MessageRow(diagnosis_id=diagnosis_id, created_at=now, role=role, body=body))
        return now

    def messages(self, diagnosis_id: str, workspace_id: str | None = None) -> list[tuple[str, str, datetime]]:
        with self.session() as s:
            self._row(s, diagnosis_id, workspace_id)
            rows = s.scalars(select(MessageRow).where(MessageRow.diagnosis_id == diagnosis_id).order_by(MessageRow.id)).all()
            return [(r.role, r.body, r.created_at) for r in rows]

    # ------------------------------------------------------------ feedback

    def add_feedback(self, diagnosis_id: str, *, verdict: str, label: str | None, note: str | None, source: str,
                     workspace_id: str | None = None) -> datetime:
        """Store a verdict on one of the workspace's diagnoses (``note`` already masked); returns its time."""
        now = datetime.now(UTC)
        with self.session() as s:
            self._row(s, diagnosis_id, workspace_id)
            s.add(FeedbackRow(diagnosis_id=diagnosis_id, workspace_id=workspace_id, created_at=now, verdict=verdict,
                              label=label, note=note, source=source))
        return now

    def feedback(self, workspace_id: str | None = None, *, every_workspace: bool = False,
                 verdict: str | None = None) -> list[tuple[FeedbackRow, Diagnosis, list[Evidence]]]:
        """The workspace's feedback (or every workspace's, for a maintainer's export), oldest first, with its diagnosis."""
        with self.session() as s:
            q = select(FeedbackRow, DiagnosisRow).join(DiagnosisRow, DiagnosisRow.id == FeedbackRow.diagnosis_id)
            if not every_workspace:
                q = q.where(FeedbackRow.workspace_id.is_(None) if workspace_id is None else FeedbackRow.workspace_id == workspace_id)
            if verdict is not None:
                q = q.where(FeedbackRow.verdict == verdict)
            out = []
            for fb, row in s.execute(q.order_by(FeedbackRow.id)).all():
                s.expunge(fb)
                out.append((fb, Diagnosis.model_validate_json(row.body), [Evidence(**e) for e in json.loads(row.excerpt)]))
            return out
