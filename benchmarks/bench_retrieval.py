"""Retrieval benchmark: index build for the whole KB, cold index load, warm query latency, per encoder backend.

The three backends (sentence-transformers on torch, the ONNX export, the int8 ONNX export) are measured
side by side in one run on the same queries, with their dense top-1 on the same cases, so the ratios
hold even on a noisy machine. Figures go to benchmarks/results/retrieval.md. Not a test.
Usage: .venv/bin/python benchmarks/bench_retrieval.py
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from retrieval.embed import BACKENDS, get_encoder, load_model
from retrieval.index import build, dense_search, load_or_build
from retrieval.kb import load_kb
from service.evaluation.cases import load_cases
from service.facts import extract_facts
from service.ingest import Limits, ingest
from service.masking import get_masker, mask
from service.retrieve import build_query, retrieve
from service.settings import REPO_ROOT, Settings


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


_COLD = """
import json, sys, time
t0 = time.perf_counter()
from retrieval.embed import get_encoder
from retrieval.index import dense_search, load_or_build
from retrieval.kb import load_kb
from service.settings import Settings
t1 = time.perf_counter()
s = Settings()
kb = load_kb(s.kb_dir)
encoder = get_encoder(s.embedding_model, s.embedding_backend, s.data_dir / "index")
t2 = time.perf_counter()
index = load_or_build(kb, encoder, s.data_dir / "index")
t3 = time.perf_counter()
dense_search(index, "RuntimeError: CUDA error: an illegal memory access was encountered", 10)
t4 = time.perf_counter()
print(json.dumps({"import_ms": (t1 - t0) * 1000, "encoder_ms": (t2 - t1) * 1000, "index_ms": (t3 - t2) * 1000,
                  "query_ms": (t4 - t3) * 1000, "built": index.build_ms > 0}))
"""


def _cold_load(settings: Settings) -> dict[str, float]:
    """A new process loading the cached export and index of the default backend (built first if absent)."""
    for _ in range(2):  # the first run may build; the second is the cold load of a cached index
        out = subprocess.run([sys.executable, "-c", _COLD], cwd=REPO_ROOT, capture_output=True, text=True, check=True,
                             env={**os.environ, "CRASHDOC_DATA_DIR": str(settings.data_dir)})
        figures = json.loads(out.stdout.strip().splitlines()[-1])
        if not figures["built"]:
            break
    return figures  # type: ignore[no-any-return]


def main() -> None:
    settings = Settings()
    kb = load_kb(settings.kb_dir)
    cases = load_cases(REPO_ROOT / "evals" / "cases")
    limits = Limits.from_settings(settings)
    masker = get_masker()
    prepared = []
    for c in cases:
        log = mask(ingest(c.sources(), limits), masker)
        facts = extract_facts(log)
        prepared.append((c.case.acceptable, log, facts, build_query(log, facts)))
    t0 = time.perf_counter()
    load_model(settings.embedding_model)
    model_ms = _ms(t0)
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        for backend in BACKENDS:
            t0 = time.perf_counter()
            encoder = get_encoder(settings.embedding_model, backend, cache)
            export_ms = _ms(t0)
            t0 = time.perf_counter()
            build(kb, encoder, cache)
            build_ms = _ms(t0)
            t0 = time.perf_counter()
            index = load_or_build(kb, encoder, cache)
            load_ms = _ms(t0)
            for _, log, facts, _q in prepared[:5]:  # warm-up
                retrieve(log, facts, index)
            times = []
            for _, log, facts, _q in prepared:
                t0 = time.perf_counter()
                retrieve(log, facts, index)
                times.append(_ms(t0))
            times.sort()
            right = sum(1 for ok, _, _, q in prepared if (dense_search(index, q.dense_text, 1) or [("", 0.0)])[0][0] in ok)
            rows.append((
                backend, f"{export_ms:.0f}", f"{build_ms:.0f}", f"{load_ms:.1f}", f"{statistics.median(times):.1f}",
                f"{times[int(0.95 * (len(times) - 1))]:.1f}", f"{right / len(prepared):.3f}",
            ))
    cold = _cold_load(settings)
    text = (
        f"# Retrieval benchmark\n\n{len(kb)} entries ({index.faiss_index.ntotal} vectors), {len(prepared)} eval queries, "
        f"embedding model {settings.embedding_model} (torch load {model_ms:.0f} ms, cold).\n\n"
        "| backend | export (ms, once) | index build (ms) | cached index load (ms) | warm retrieval p50 (ms) "
        "| p95 (ms) | dense top-1 |\n| --- | --- | --- | --- | --- | --- | --- |\n"
        + "\n".join("| " + " | ".join(r) + " |" for r in rows) + "\n"
        + f"\nCold, in a new process with the default backend ({settings.embedding_backend}) and everything cached: "
        f"importing the retrieval modules {cold['import_ms']:.0f} ms, loading the encoder {cold['encoder_ms']:.0f} ms, "
        f"loading the index {cold['index_ms']:.0f} ms, first query {cold['query_ms']:.1f} ms.\n"
    )
    out = REPO_ROOT / "benchmarks" / "results" / "retrieval.md"
    out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
