"""The store imports Alembic only when the database is behind the migrations."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from service.store import _MIGRATIONS, Store, current_revisions, head_revisions
from tests.conftest import read_bytes_elsewhere

REPO = Path(__file__).resolve().parent.parent


def test_the_head_read_from_the_files_is_alembics_head() -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config(str(_MIGRATIONS / "alembic.ini"))
    cfg.set_main_option("script_location", str(_MIGRATIONS))
    assert head_revisions() == set(ScriptDirectory.from_config(cfg).get_heads())


def _opens_with_alembic(db: Path) -> bool:
    code = ("import sys; from service.store import Store; "
            f"Store('sqlite:///{db}'); print('alembic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    return out.stdout.strip() == "True"


def test_a_current_database_opens_without_alembic(tmp_path: Path) -> None:
    db = tmp_path / "crashdoc.db"
    assert _opens_with_alembic(db)  # a new database: created by the migrations
    store = Store(f"sqlite:///{db}")
    assert current_revisions(store.engine) == head_revisions()
    assert not _opens_with_alembic(db)  # current: the check alone


def test_a_database_behind_the_migrations_is_upgraded(tmp_path: Path) -> None:
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine

    db = tmp_path / "old.db"
    cfg = Config(str(_MIGRATIONS / "alembic.ini"))
    cfg.set_main_option("script_location", str(_MIGRATIONS))
    with create_engine(f"sqlite:///{db}").begin() as conn:  # as the first release left it
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
    assert _opens_with_alembic(db)
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*) from sqlite_master where name = 'eval_codes'").fetchone() == (1,)
    assert current_revisions(Store(f"sqlite:///{db}").engine) == head_revisions()


def test_reading_a_live_database_from_the_tests_keeps_its_wal_for_the_connections_open(tmp_path):
    """tests/conftest.py's read_bytes_elsewhere reads in a child, so this process keeps its SQLite locks: when another
    process then closes the database, it must find this one still there and leave the -wal and -shm in place (with
    the bytes read here instead, by ``Path.read_bytes``, the child deletes both and this assertion fails)."""
    db = tmp_path / "crashdoc.db"
    store = Store(f"sqlite:///{db}")
    with store.engine.begin() as conn:  # a connection of this process, open and pooled from here on
        conn.exec_driver_sql("CREATE TABLE probe (v INTEGER)")
    blobs = read_bytes_elsewhere(sorted(tmp_path.glob("crashdoc.db*")))
    assert blobs[db][:16] == b"SQLite format 3\x00"
    code = f"import sqlite3; c = sqlite3.connect({str(db)!r}); c.execute('SELECT 1 FROM probe').fetchall(); c.close()"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    assert (tmp_path / "crashdoc.db-shm").exists() and (tmp_path / "crashdoc.db-wal").exists()
    with store.engine.begin() as conn:
        conn.exec_driver_sql("INSERT INTO probe VALUES (1)")


def test_the_stores_sqlite_connections_use_wal_without_an_fsync_per_commit(tmp_path: Path) -> None:
    """service.store's pragmas: WAL and synchronous=NORMAL (1), on every pooled connection (they are per connection)."""
    store = Store(f"sqlite:///{tmp_path / 'crashdoc.db'}")
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
