"""The command line's one write, a diagnosis into its local SQLite file, without importing SQLAlchemy.

``crashdoc diagnose`` stores its masked diagnosis (``crashdoc history`` and ``show`` read it back). Through
``service.store`` that costs SQLAlchemy's import and engine set-up, about a fifth of a cold start, for one
INSERT. ``save_sqlite`` does that INSERT with the standard library when it is sure the file is the one
``service.store`` would write to: an existing SQLite file at the migrations' head revision whose
``diagnoses`` table has exactly the columns below. Anything else (a new file, a database behind or ahead,
another column, another database, any sqlite3 error) answers False and the caller uses ``Store``.
The row's values come from ``diagnosis_row`` for both paths; tests/test_local_db.py compares the rows.
"""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from service.models import Diagnosis, Evidence

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# service.store.schema.DiagnosisRow's columns, in order (a test compares them)
COLUMNS = ("id", "workspace_id", "created_at", "entry_id", "confidence", "composer", "body", "excerpt")

_REVISION = re.compile(r"^revision\s*=\s*['\"]([^'\"]+)['\"]", re.M)
_DOWN_REVISION = re.compile(r"^down_revision\s*=\s*(.+)$", re.M)
_QUOTED = re.compile(r"['\"]([^'\"]+)['\"]")


def head_revisions() -> set[str]:
    """The revisions no migration revises, read from the files of migrations/versions (not through Alembic)."""
    revisions: set[str] = set()
    revised: set[str] = set()
    for path in (MIGRATIONS / "versions").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        if m := _REVISION.search(source):
            revisions.add(m.group(1))
        if m := _DOWN_REVISION.search(source):
            revised.update(_QUOTED.findall(m.group(1)))  # a string, a tuple of them (a merge), or None
    return revisions - revised


def diagnosis_row(diagnosis: Diagnosis, excerpt: list[Evidence], workspace_id: str | None) -> dict[str, Any]:
    """The stored row of a diagnosis (both write paths)."""
    return {
        "id": diagnosis.id,
        "workspace_id": workspace_id,
        "created_at": datetime.now(UTC),
        "entry_id": diagnosis.entry_id,
        "confidence": diagnosis.confidence,
        "composer": diagnosis.composer,
        "body": diagnosis.model_dump_json(),
        "excerpt": json.dumps([e.model_dump() for e in excerpt]),
    }


def _sqlite_datetime(value: datetime) -> str:
    """As SQLAlchemy's SQLite DateTime stores it: ISO date, a space, microseconds, no zone."""
    return value.strftime("%Y-%m-%d %H:%M:%S.%f")


def save_sqlite(url: str, diagnosis: Diagnosis, excerpt: list[Evidence], workspace_id: str | None = None) -> bool:
    """Insert the diagnosis when ``url`` is a current local SQLite file; False when ``Store`` must do it."""
    if not url.startswith("sqlite:///"):
        return False
    path = Path(url.removeprefix("sqlite:///"))
    if not path.is_file():
        return False  # a new database: the migrations create it
    try:
        conn = sqlite3.connect(path, timeout=5.0)
    except sqlite3.Error:
        return False
    try:
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA synchronous=NORMAL")  # as service.store's connections (the file is in WAL mode)
        revisions = {row[0] for row in conn.execute("SELECT version_num FROM alembic_version")}
        columns = tuple(row[1] for row in conn.execute("PRAGMA table_info(diagnoses)"))
        if revisions != head_revisions() or columns != COLUMNS:
            return False
        row = diagnosis_row(diagnosis, excerpt, workspace_id)
        row["created_at"] = _sqlite_datetime(row["created_at"])
        with conn:  # one transaction
            conn.execute(f"INSERT INTO diagnoses ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
                         [row[c] for c in COLUMNS])
        return True
    except sqlite3.Error:
        return False
    finally:
        conn.close()
