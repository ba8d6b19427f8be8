"""Pick the fusion by measurement: every case through the pipeline once, then fusions compared on it.

Prints top-1/top-3/MRR of each source alone, of reciprocal-rank fusion and of weighted fusions over a grid,
on evals/cases, evals/reworded (new wording: other versions, wrappers, cut logs) and both together. The
grid's best is chosen on both together; its five-fold cross-validated top-1 (weights picked on four folds,
scored on the fifth) says how much of that is fitted to these cases. The blind hold-out is scored last.
Writes benchmarks/results/fusion.md. The chosen weights go into retrieval.FusionWeights.
Usage: .venv/bin/python benchmarks/tune_fusion.py
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from retrieval import FusionWeights, fuse
from service.evaluation import metrics
from service.evaluation.cases import load_cases
from service.evaluation.runner import rrf
from service.pipeline import Engine, run_stages
from service.settings import REPO_ROOT, get_settings

Row = tuple[str, set[str], dict[str, dict[str, float]]]  # case id, acceptable ids, per-source scores
Ranker = Callable[[dict[str, dict[str, float]]], list[str]]

GRID = [
    FusionWeights(rule=r, dense=d, lexical=x, rule_power=p, dense_floor=f, dense_span=s)
    for r, d, x, p, f, s in itertools.product(
        (0.4, 0.5, 0.6, 0.7, 0.8), (0.1, 0.2, 0.3), (0.05, 0.1, 0.2, 0.3), (1.0, 2.0, 3.0), (0.15, 0.25), (0.4, 0.55)
    )
]


def describe(w: FusionWeights) -> str:
    return f"{w.rule}/{w.dense}/{w.lexical}, rule power {w.rule_power}, floor {w.dense_floor}, span {w.dense_span}"


def scores(data: list[Row], ranker: Ranker) -> dict[str, float]:
    return metrics.ranking_scores(metrics.rank_of(ranker(ps), acc) for _, acc, ps in data)


def main() -> None:
    engine = Engine(get_settings())
    ids = set(engine.kb.entries)
    splits: dict[str, list[Row]] = {}
    for name in ("cases", "reworded", "holdout"):
        splits[name] = [(c.id, c.case.acceptable, run_stages(engine, c.sources()).per_source)
                        for c in load_cases(REPO_ROOT / "evals" / name, ids)]
    tuning = splits["cases"] + splits["reworded"]

    def weighted(w: FusionWeights) -> Ranker:
        return lambda ps: [h.entry_id for h in fuse(ps, engine.index, w)]

    def best_on(data: list[Row]) -> FusionWeights:
        return max(GRID, key=lambda w: (lambda m: (m["top1"], m["mrr"]))(scores(data, weighted(w))))

    chosen = best_on(tuning)
    current = FusionWeights()
    rankers: list[tuple[str, Ranker]] = [
        (f"{s} alone", lambda ps, s=s: [e for e, _ in sorted(ps[s].items(), key=lambda kv: -kv[1])])  # type: ignore[misc]
        for s in ("rule", "dense", "lexical")
    ]
    rankers += [
        ("reciprocal-rank fusion (k=60)", rrf),
        (f"weighted, shipped {describe(current)}", weighted(current)),
        (f"weighted, grid best {describe(chosen)}", weighted(chosen)),
    ]
    # Out of sample: pick the weights on four folds of the tuning cases, score them on the fifth.
    right = 0
    for fold in range(5):
        train = [r for r in tuning if metrics.fold_of(r[0], 5) != fold]
        test = [r for r in tuning if metrics.fold_of(r[0], 5) == fold]
        right += round(scores(test, weighted(best_on(train)))["top1"] * len(test))
    cols = ("cases", "reworded", "cases + reworded", "holdout")
    data = {"cases": splits["cases"], "reworded": splits["reworded"], "cases + reworded": tuning, "holdout": splits["holdout"]}
    head = "| ranking | " + " | ".join(f"{c} top-1 (n={len(data[c])}) | top-3 | MRR" for c in cols) + " |\n"
    text = "# Fusion, measured\n\n" + head + "| --- " * (1 + 3 * len(cols)) + "|\n"
    for name, ranker in rankers:
        cells = []
        for c in cols:
            m = scores(data[c], ranker)
            cells.append(f"{m['top1']:.3f} | {m['top3']:.3f} | {m['mrr']:.3f}")
        text += f"| {name} | " + " | ".join(cells) + " |\n"
    text += (f"\nGrid of {len(GRID)} weightings, best chosen on cases + reworded by top-1 then MRR. "
             f"Five-fold cross-validated top-1 of that choice on cases + reworded: {right / len(tuning):.3f}.\n")
    (REPO_ROOT / "benchmarks" / "results" / "fusion.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
