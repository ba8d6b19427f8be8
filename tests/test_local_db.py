"""The command line's SQLite write without SQLAlchemy: the same row as Store's, and only where it is sure."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from service.local_db import COLUMNS, head_revisions, save_sqlite
from service.models import Diagnosis, Evidence
from service.store import Store
from service.store.schema import DiagnosisRow

REPO = Path(__file__).resolve().parent.parent


def _diagnosis(i: str) -> Diagnosis:
    return Diagnosis(id=f"d_local{i}", entry_id="cuda-oom", title="CUDA out of memory", category="memory", summary="s",
                     confidence=0.93, candidates=[], evidence=[], facts={}, initiating_rank=0, collateral=[], fix=["f"],
                     verify=[], masked={}, timings_ms={}, composer="deterministic", kb_version="k")


EXCERPT = [Evidence(file="train.log", line=3, rank=0, text="torch.OutOfMemoryError: CUDA out of memory.")]


@pytest.fixture
def db(tmp_path: Path) -> tuple[str, Store]:
    url = f"sqlite:///{tmp_path / 'crashdoc.db'}"
    return url, Store(url)  # migrated to head


def _rows(url: str) -> dict[str, tuple]:
    with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
        return {r[0]: r for r in conn.execute(f"SELECT {', '.join(COLUMNS)} FROM diagnoses")}


def test_the_columns_are_the_schemas() -> None:
    # a new column on diagnoses: add it to COLUMNS and diagnosis_row, or the command line falls back to Store
    assert tuple(c.name for c in DiagnosisRow.__table__.columns) == COLUMNS


def test_the_row_is_the_one_store_writes_and_store_reads_it(db: tuple[str, Store]) -> None:
    url, store = db
    mine_d = _diagnosis("a")
    assert save_sqlite(url, mine_d, EXCERPT, "w_1")
    store.save(_diagnosis("b"), EXCERPT, "w_1")
    rows = _rows(url)
    mine, theirs = rows["d_locala"], rows["d_localb"]
    assert mine[:2] == ("d_locala", "w_1") and mine[3:6] == theirs[3:6]
    assert mine[6].replace("d_locala", "X") == theirs[6].replace("d_localb", "X") and mine[7] == theirs[7]
    stamp = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$")
    assert stamp.match(mine[2]) and stamp.match(theirs[2])
    assert store.get("d_locala", "w_1") == mine_d
    assert [d.id for d in store.history("w_1")[0]] == ["d_localb", "d_locala"]
    assert store.excerpt("d_locala", "w_1") == EXCERPT


def test_it_declines_what_it_is_not_sure_of(db: tuple[str, Store], tmp_path: Path) -> None:
    url, _ = db
    assert not save_sqlite(f"sqlite:///{tmp_path / 'absent.db'}", _diagnosis("c"), EXCERPT)  # new: migrations make it
    assert not (tmp_path / "absent.db").exists()
    assert not save_sqlite("postgresql://u@h/db", _diagnosis("c"), EXCERPT)
    path = url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0001'")  # behind: Store migrates
    assert not save_sqlite(url, _diagnosis("c"), EXCERPT)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = ?", [max(head_revisions())])
        conn.execute("ALTER TABLE diagnoses ADD COLUMN fingerprint TEXT")  # a column this code does not know
    assert not save_sqlite(url, _diagnosis("c"), EXCERPT)
    assert "d_localc" not in _rows(url)


def test_a_command_line_diagnosis_is_stored_without_sqlalchemy(db: tuple[str, Store], tmp_path: Path) -> None:
    url, store = db
    code = ("import sys; from service.pipeline import Engine; from service.settings import Settings; "
            "from service.models import Diagnosis; "
            f"e = Engine(Settings(database_url={url!r}, data_dir={str(tmp_path)!r}), local=True); "
            "e.save(Diagnosis.model_validate_json(sys.argv[1]), []); print('sqlalchemy' in sys.modules)")
    cli = _diagnosis("cli")
    out = subprocess.run([sys.executable, "-c", code, cli.model_dump_json()], capture_output=True, text=True,
                         cwd=REPO)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "False"
    assert store.get("d_localcli") == cli
