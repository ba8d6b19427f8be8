"""Scores: ranking metrics, facts, calibration. Pure functions over per-case results."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

_NORM = re.compile(r"[\s_\-]+")


def rank_of(ranking: Sequence[str], acceptable: set[str]) -> int | None:
    """1-based rank of the first acceptable id, or None."""
    for i, eid in enumerate(ranking, start=1):
        if eid in acceptable:
            return i
    return None


def ranking_scores(ranks: Iterable[int | None]) -> dict[str, float]:
    ranks = list(ranks)
    n = len(ranks) or 1
    return {
        "top1": sum(1 for r in ranks if r == 1) / n,
        "top3": sum(1 for r in ranks if r is not None and r <= 3) / n,
        "mrr": sum(1 / r for r in ranks if r) / n,
    }


def norm_fact(value: str) -> str:
    v = value.strip().lower()
    v = re.sub(r"^nvidia\s+", "", v)
    return _NORM.sub("", v)


def fact_counts(expected: dict[str, str], extracted: dict[str, str]) -> tuple[int, int, int]:
    """(correct, extracted-for-expected-names, expected): precision is judged on the names a case states."""
    correct = sum(1 for k, v in expected.items() if k in extracted and norm_fact(extracted[k]) == norm_fact(v))
    attempted = sum(1 for k in expected if k in extracted)
    return correct, attempted, len(expected)


def calibration_table(pairs: Sequence[tuple[float, bool]], bins: int = 10) -> list[dict[str, float]]:
    """Confidence bins vs observed accuracy (a reliability table)."""
    rows = []
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        inside = [(c, ok) for c, ok in pairs if lo <= c < hi or (b == bins - 1 and c == 1.0)]
        if not inside:
            rows.append({"lo": lo, "hi": hi, "n": 0, "mean_confidence": 0.0, "accuracy": 0.0})
            continue
        rows.append({
            "lo": lo, "hi": hi, "n": len(inside),
            "mean_confidence": sum(c for c, _ in inside) / len(inside),
            "accuracy": sum(ok for _, ok in inside) / len(inside),
        })
    return rows


def expected_calibration_error(pairs: Sequence[tuple[float, bool]], bins: int = 10) -> float:
    n = len(pairs) or 1
    return sum(r["n"] / n * abs(r["mean_confidence"] - r["accuracy"]) for r in calibration_table(pairs, bins) if r["n"])


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def confusions(pairs: Iterable[tuple[str, str]], most: int = 10) -> list[tuple[str, str, int]]:
    return [(a, b, n) for (a, b), n in Counter(pairs).most_common(most)]


def fit_logistic(rows: Sequence[Sequence[float]], labels: Sequence[bool], l2: float = 1.0, steps: int = 50) -> tuple[list[float], float]:
    """Logistic regression by Newton's method with an L2 penalty on the weights (not the bias).

    The penalty keeps the fit finite when the data separate perfectly (every case with a rule right, say):
    the probabilities then stay short of 0 and 1 instead of running off to them.
    """
    x = np.asarray(rows, dtype=float)
    y = np.asarray(labels, dtype=float)
    n, d = x.shape
    xb = np.hstack([x, np.ones((n, 1))])
    w = np.zeros(d + 1)
    penalty = np.diag([l2] * d + [0.0])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-np.clip(xb @ w, -40, 40)))
        grad = xb.T @ (p - y) + penalty @ w
        hess = xb.T @ (xb * (p * (1 - p))[:, None]) + penalty + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return [round(float(v), 6) for v in w[:d]], round(float(w[d]), 6)


def predict_logistic(weights: Sequence[float], bias: float, rows: Sequence[Sequence[float]]) -> list[float]:
    z = np.asarray(rows, dtype=float) @ np.asarray(weights, dtype=float) + bias
    return [float(v) for v in 1 / (1 + np.exp(-np.clip(z, -40, 40)))]


def fold_of(key: str, folds: int) -> int:
    """A stable fold for a case: the same case lands in the same fold on every run and machine."""
    return int(hashlib.sha256(key.encode()).hexdigest(), 16) % folds


def cross_validated(keys: Sequence[str], rows: Sequence[Sequence[float]], labels: Sequence[bool], folds: int = 5) -> list[float]:
    """Each case's confidence from a model fitted on the other folds: an out-of-sample reliability check."""
    assignment = [fold_of(k, folds) for k in keys]
    out = [0.0] * len(rows)
    for f in range(folds):
        train = [i for i, a in enumerate(assignment) if a != f]
        test = [i for i, a in enumerate(assignment) if a == f]
        if not test or not train:
            continue
        w, b = fit_logistic([rows[i] for i in train], [labels[i] for i in train])
        for i, p in zip(test, predict_logistic(w, b, [rows[i] for i in test]), strict=True):
            out[i] = p
    return out
