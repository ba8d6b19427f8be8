"""BM25 queried with numpy alone gives bm25s's own results, and its cached arrays are checked on load."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import bm25s
import numpy as np
import pytest

from retrieval.index import Lexical, lexical_text, tokenize
from retrieval.kb import load_kb

REPO = Path(__file__).resolve().parent.parent
KB = load_kb(REPO / "kb")
IDS = sorted(KB.entries)


@pytest.fixture(scope="module")
def bm25() -> bm25s.BM25:
    index = bm25s.BM25()
    index.index([tokenize(lexical_text(KB.entries[i])) for i in IDS], show_progress=False)
    return index


def _queries() -> list[list[str]]:
    queries: list[list[str]] = []
    for path in sorted((REPO / "evals" / "cases").glob("*/*.log"))[:120]:
        lines = path.read_text(errors="replace").splitlines()
        queries.append(tokenize("\n".join(lines[-12:])))
        queries.append(tokenize(next((ln for ln in lines if "Error" in ln), lines[-1] if lines else "")))
    return queries


def test_the_numpy_scores_are_bm25s_scores(bm25: bm25s.BM25, tmp_path: Path) -> None:
    Lexical.of(bm25).save(tmp_path)
    lexical = Lexical.load(tmp_path)
    compared = 0
    for tokens in _queries():
        known = [t for t in tokens if t in bm25.vocab_dict]
        if not known:
            continue
        for k in (3, 10, len(IDS)):
            docs, scores = bm25.retrieve([known], k=min(k, len(IDS)), show_progress=False)
            mine_docs, mine_scores = lexical.top(known, k)
            assert mine_docs.tolist() == docs[0].tolist()
            assert np.array_equal(mine_scores, scores[0])
        compared += 1
    assert compared > 150


@pytest.mark.parametrize("damage", ["truncated", "mismatched"])
def test_damaged_arrays_are_refused(bm25: bm25s.BM25, tmp_path: Path, damage: str) -> None:
    Lexical.of(bm25).save(tmp_path)
    if damage == "truncated":
        (tmp_path / "lexical.npz").write_bytes((tmp_path / "lexical.npz").read_bytes()[:100])
    else:
        with np.load(tmp_path / "lexical.npz") as a:
            np.savez(tmp_path / "lexical.npz", data=a["data"][:-1], indices=a["indices"], indptr=a["indptr"])
    with pytest.raises((ValueError, OSError, KeyError)):
        Lexical.load(tmp_path)


def test_a_diagnosis_does_not_import_bm25s_or_scipy(engine, session_data_dir: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _ = engine.index  # the session's index, built (by bm25s) once; a new process then only reads it
    (tmp_path / "index").symlink_to(session_data_dir / "index")
    code = ("import sys; from service.pipeline import Engine, diagnose; from service.settings import get_settings; "
            "from service.models import Source; e = Engine(get_settings(), local=True); "
            "d = diagnose(e, [Source(name='x.log', data=b'RuntimeError: CUDA error: an illegal memory access was encountered\\n')], "
            "store=False); print(d.candidates[0].sources); "
            "print(sorted(m for m in ('bm25s', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                         env={**os.environ, "CRASHDOC_DATA_DIR": str(tmp_path)})
    assert out.returncode == 0, out.stderr[-2000:]
    sources, modules = out.stdout.strip().splitlines()[-2:]
    assert "lexical" in sources and modules == "[]"
