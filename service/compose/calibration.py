"""Confidence: the fused score of the top candidate mapped to the probability that it is right.

The table is fitted on the eval set by ``crashdoc eval --calibrate`` (isotonic: monotone bins of
fused score vs observed accuracy) and stored in ``calibration.json`` beside this module. Without a
table the raw score, damped by the margin to the runner-up, is used.
"""

from __future__ import annotations

import itertools
import json
from functools import lru_cache
from pathlib import Path

TABLE_PATH = Path(__file__).with_name("calibration.json")


@lru_cache(maxsize=1)
def _table() -> list[tuple[float, float]]:
    if not TABLE_PATH.exists():
        return []
    data = json.loads(TABLE_PATH.read_text())
    return [(float(x), float(y)) for x, y in data["points"]]


def raw_confidence(top: float, runner_up: float) -> float:
    """Score damped when the runner-up is close: two near-equal candidates mean less certainty."""
    margin = max(0.0, top - runner_up)
    return max(0.0, min(1.0, top * (0.75 + 0.25 * min(1.0, margin / 0.25))))


def calibrate(top: float, runner_up: float) -> float:
    x = raw_confidence(top, runner_up)
    points = _table()
    if not points:
        return x
    if x <= points[0][0]:
        # Below every score the table was fitted on there is no evidence of accuracy: fall from the first
        # fitted point towards zero instead of extrapolating its accuracy.
        x0, y0 = points[0]
        return y0 * x / x0 if x0 > 0 else 0.0
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0) if x1 > x0 else y1
    return points[-1][1]
