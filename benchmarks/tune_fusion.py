"""Pick the fusion by measurement: every case through the pipeline once, then fusions compared on it.

Prints top-1/top-3/MRR of each source alone, of reciprocal-rank fusion, and of weighted fusions over a
grid; writes benchmarks/results/fusion.md. The chosen weights go into retrieval.FusionWeights.
Usage: .venv/bin/python benchmarks/tune_fusion.py
"""

from __future__ import annotations

import itertools

from retrieval import FusionWeights, fuse
from service.evaluation import metrics
from service.evaluation.cases import load_cases
from service.evaluation.runner import rrf
from service.pipeline import Engine, run_stages
from service.settings import REPO_ROOT, get_settings


def main() -> None:
    engine = Engine(get_settings())
    cases = load_cases(REPO_ROOT / "evals" / "cases", set(engine.kb.entries))
    data = []
    for c in cases:
        trace = run_stages(engine, c.sources())
        data.append((c.case.acceptable, trace.per_source))

    def score(rank_fn) -> dict[str, float]:  # type: ignore[no-untyped-def]
        return metrics.ranking_scores(metrics.rank_of(rank_fn(ps), acc) for acc, ps in data)

    rows = []
    for source in ("rule", "dense", "lexical"):
        rows.append((source + " alone", score(lambda ps, s=source: [e for e, _ in sorted(ps[s].items(), key=lambda kv: -kv[1])])))
    rows.append(("reciprocal-rank fusion (k=60)", score(rrf)))
    best = None
    for rule_w, dense_w, lex_w, floor, span in itertools.product(
        (0.5, 0.6, 0.7, 0.8, 0.9), (0.05, 0.1, 0.2, 0.3), (0.05, 0.1, 0.2), (0.15, 0.25), (0.4, 0.55)
    ):
        w = FusionWeights(rule=rule_w, dense=dense_w, lexical=lex_w, dense_floor=floor, dense_span=span)
        m = score(lambda ps, w=w: [h.entry_id for h in fuse(ps, engine.index, w)])
        key = (m["top1"], m["mrr"])
        if best is None or key > best[0]:
            best = (key, w, m)
    current = FusionWeights()
    rows.append((f"weighted, current {current.rule}/{current.dense}/{current.lexical} floor {current.dense_floor} span {current.dense_span}",
                 score(lambda ps: [h.entry_id for h in fuse(ps, engine.index, current)])))
    assert best is not None
    _, w, m = best
    rows.append((f"weighted, best {w.rule}/{w.dense}/{w.lexical} floor {w.dense_floor} span {w.dense_span}", m))
    text = f"# Fusion, measured on {len(data)} eval cases\n\n| ranking | top-1 | top-3 | MRR |\n| --- | --- | --- | --- |\n"
    text += "\n".join(f"| {name} | {r['top1']:.3f} | {r['top3']:.3f} | {r['mrr']:.3f} |" for name, r in rows) + "\n"
    (REPO_ROOT / "benchmarks" / "results" / "fusion.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
