"""Confidence: the probability that the top candidate is the right entry.

A logistic model over what the retrieval stage knows about its top candidate (its fused score, the margin
to the runner-up, how many sources rank it first, whether a rule found it) is fitted on the eval set by
``crashdoc eval --calibrate`` and stored in ``calibration.json`` beside this module. The eval report
checks it out of sample: a reliability table of five-fold cross-validated confidences.

The file is part of the installation: without it crashdoc refuses to compose (a ConfigError) rather than
answer uncalibrated. A model fitted for other features (after FEATURES changed) is ignored with a warning
and the raw score, damped by the margin to the runner-up, is used until ``--calibrate`` refits it.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from service.errors import ConfigError
from service.models import Hit

log = logging.getLogger("crashdoc.compose")

TABLE_PATH = Path(__file__).with_name("calibration.json")
FEATURES = ("score", "margin", "agreement", "rule", "rule_strength", "explains")
_SOURCES = ("rule", "dense", "lexical")


def features(hits: Sequence[Hit], explained: bool = True) -> dict[str, float]:
    """What the confidence is computed from; all in 0..1. ``explained``: the top candidate's signals explain the
    log's decisive error (service/compose/decisive.py), or the log has none."""
    if not hits:
        return dict.fromkeys(FEATURES, 0.0)
    top = hits[0]
    runner_up = hits[1].score if len(hits) > 1 else 0.0
    return {
        "score": top.score,
        "margin": max(0.0, top.score - runner_up),
        # Sources that rank this entry first: three independent views agreeing is stronger than one.
        "agreement": sum(1 for s in _SOURCES if top.ranks.get(s) == 0) / len(_SOURCES),
        "rule": 1.0 if "rule" in top.sources else 0.0,
        "rule_strength": top.sources.get("rule", 0.0),
        "explains": 1.0 if explained else 0.0,
    }


def vector(f: dict[str, float]) -> list[float]:
    """The features in ``FEATURES`` order, as the model's weights expect them (a missing one counts 0)."""
    return [f.get(name, 0.0) for name in FEATURES]


def raw_confidence(f: dict[str, float]) -> float:
    """Before calibration: the score, damped when the runner-up is close, halved when it explains nothing."""
    raw = f["score"] * (0.75 + 0.25 * min(1.0, f["margin"] / 0.25)) * (0.5 + 0.5 * f.get("explains", 1.0))
    return max(0.0, min(1.0, raw))


@lru_cache(maxsize=1)
def _model() -> tuple[list[float], float] | None:
    """The shipped confidence model. Missing, it is an installation error: the unknown threshold is a
    calibrated probability, and raw scores would silently mean something else."""
    if not TABLE_PATH.exists():
        raise ConfigError(f"The confidence model {TABLE_PATH.name} is missing from the installation ({TABLE_PATH.parent}).",
                          hint="Reinstall crashdoc: the package carries it (service/compose/calibration.json).")
    data = json.loads(TABLE_PATH.read_text())
    if data.get("kind") != "logistic" or tuple(data.get("features", ())) != FEATURES:
        log.warning("%s was fitted for other features: confidence is uncalibrated until `crashdoc eval --calibrate`",
                    TABLE_PATH.name)
        return None
    return [float(w) for w in data["weights"]], float(data["bias"])


def logistic(weights: Sequence[float], bias: float, f: dict[str, float]) -> float:
    z = bias + sum(w * x for w, x in zip(weights, vector(f), strict=True))
    return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))


def confidence(hits: Sequence[Hit], explained: bool = True) -> float:
    """The calibrated probability that ``hits[0]`` is right (0 without candidates)."""
    if not hits:
        return 0.0
    f = features(hits, explained)
    model = _model()
    if model is None:
        return raw_confidence(f)
    return logistic(*model, f)
