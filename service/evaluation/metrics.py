"""Scores: ranking metrics, facts, calibration. Pure functions over per-case results."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

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


def calibration_table(pairs: Sequence[tuple[float, bool]], bins: int = 5) -> list[dict[str, float]]:
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


def isotonic_points(pairs: Sequence[tuple[float, bool]]) -> list[tuple[float, float]]:
    """Pool-adjacent-violators fit of accuracy against raw confidence: monotone (x, y) points."""
    data = sorted((x, float(ok)) for x, ok in pairs)
    blocks: list[list[float]] = []  # [sum_y, count, min_x, max_x]
    for x, y in data:
        blocks.append([y, 1, x, x])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] >= blocks[-1][0] / blocks[-1][1]:
            y2, n2, _, hi2 = blocks.pop()
            blocks[-1][0] += y2
            blocks[-1][1] += n2
            blocks[-1][3] = hi2
    # Each block is a step from its lowest to its highest score, at its accuracy smoothed towards 1/2 by
    # Laplace's rule ((right + 1) / (n + 2)): a bin of 40 right answers says 0.98, not a certainty.
    points: list[tuple[float, float]] = []
    for s, n, lo, hi in blocks:
        y = round((s + 1) / (n + 2), 4)
        points.append((round(lo, 4), y))
        if hi > lo:
            points.append((round(hi, 4), y))
    return points


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def confusions(pairs: Iterable[tuple[str, str]], most: int = 10) -> list[tuple[str, str, int]]:
    return [(a, b, n) for (a, b), n in Counter(pairs).most_common(most)]
