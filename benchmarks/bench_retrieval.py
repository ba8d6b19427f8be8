"""Retrieval benchmark: index build for the whole KB, cold index load, warm query latency.

Measured side by side in one run; figures go to benchmarks/results/retrieval.md. Not a test.
Usage: .venv/bin/python benchmarks/bench_retrieval.py
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from retrieval import build_query, retrieve
from retrieval.index import build, load_or_build
from retrieval.kb import load_kb
from service.evaluation.cases import load_cases
from service.facts import extract_facts
from service.ingest import Limits, ingest
from service.masking import get_masker, mask
from service.settings import REPO_ROOT, Settings


def main() -> None:
    settings = Settings()
    kb = load_kb(settings.kb_dir)
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        from retrieval.embed import load_model

        t0 = time.perf_counter()
        load_model(settings.embedding_model)
        model_ms = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        build(kb, settings.embedding_model, cache)
        build_ms = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        index = load_or_build(kb, settings.embedding_model, cache)
        load_ms = (time.perf_counter() - t0) * 1000
        cases = load_cases(REPO_ROOT / "evals" / "cases")[:120]
        limits = Limits.from_settings(settings)
        masker = get_masker()
        prepared = []
        for c in cases:
            log = mask(ingest(c.sources(), limits), masker)
            facts = extract_facts(log)
            prepared.append((log, facts, build_query(log, facts)))
        for log, facts, q in prepared[:5]:  # warm-up
            retrieve(log, facts, index, query=q)
        times = []
        for log, facts, q in prepared:
            t0 = time.perf_counter()
            retrieve(log, facts, index, query=q)
            times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    p50 = statistics.median(times)
    p95 = times[int(0.95 * (len(times) - 1))]
    rows = [
        ("entries", f"{len(kb)}"),
        ("embedding model load (cold)", f"{model_ms:.0f} ms"),
        ("index build, whole KB (model loaded)", f"{build_ms:.0f} ms"),
        ("cached index load (unchanged KB)", f"{load_ms:.1f} ms"),
        (f"warm retrieval stage, {len(times)} eval queries: p50", f"{p50:.1f} ms"),
        ("warm retrieval stage: p95", f"{p95:.1f} ms"),
    ]
    text = "# Retrieval benchmark\n\n| measure | value |\n| --- | --- |\n" + "\n".join(f"| {a} | {b} |" for a, b in rows) + "\n"
    out = REPO_ROOT / "benchmarks" / "results" / "retrieval.md"
    out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
