"""The eval's arithmetic: ranking scores, the confidence model and its cross-validation, the gate."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
import yaml

from service.compose import calibration
from service.evaluation import gate, metrics
from service.evaluation.runner import CaseResult, summarise
from service.models import Hit


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z))


def test_ranking_scores_count_rank_one_top_three_and_reciprocal_rank():
    assert metrics.ranking_scores([1, 2, None, 4]) == {"top1": 0.25, "top3": 0.5, "mrr": (1 + 0.5 + 0.25) / 4}


def test_logistic_fit_recovers_the_generating_model():
    rng = random.Random(7)
    rows, labels = [], []
    for _ in range(6000):
        x = [rng.random(), rng.random()]
        rows.append(x)
        labels.append(rng.random() < _sigmoid(3.0 * x[0] - 2.0 * x[1] + 0.5))
    (w0, w1), b = metrics.fit_logistic(rows, labels, l2=0.01)
    assert w0 == pytest.approx(3.0, abs=0.35)
    assert w1 == pytest.approx(-2.0, abs=0.35)
    assert b == pytest.approx(0.5, abs=0.25)
    # and its probabilities are calibrated: each bin's mean prediction is its observed rate
    pairs = list(zip(metrics.predict_logistic([w0, w1], b, rows), labels, strict=True))
    assert metrics.expected_calibration_error(pairs) < 0.03


def test_logistic_fit_stays_finite_when_the_data_separate():
    rows = [[0.1 * i] for i in range(20)]
    labels = [i >= 10 for i in range(20)]
    (w,), b = metrics.fit_logistic(rows, labels)
    assert math.isfinite(w) and math.isfinite(b) and w > 0
    p = metrics.predict_logistic([w], b, [[0.0], [1.9]])
    assert 0.0 < p[0] < 0.5 < p[1] < 1.0


def test_folds_are_stable_and_balanced():
    keys = [f"case-{i}" for i in range(1000)]
    folds = [metrics.fold_of(k, 5) for k in keys]
    assert folds == [metrics.fold_of(k, 5) for k in keys]
    assert all(150 < folds.count(f) < 250 for f in range(5))


def test_cross_validated_confidence_never_sees_its_own_case():
    # The label is a pure function of a per-case feature no other case shares: a model that saw the case
    # could learn nothing general from it either, but a fold predicted out of sample must stay near the base rate.
    rng = random.Random(3)
    keys = [f"k{i}" for i in range(400)]
    rows = [[rng.random()] for _ in keys]
    labels = [rng.random() < 0.7 for _ in keys]  # independent of the feature
    cv = metrics.cross_validated(keys, rows, labels)
    assert all(0.55 < p < 0.85 for p in cv)


def test_calibration_table_bins_confidence_against_outcome():
    pairs = [(0.95, True)] * 9 + [(0.95, False)] + [(0.15, False)] * 3 + [(0.15, True)]
    table = [row for row in metrics.calibration_table(pairs) if row["n"]]
    assert [(r["lo"], r["n"], r["accuracy"]) for r in table] == [(0.1, 4, 0.25), (0.9, 10, 0.9)]
    assert metrics.expected_calibration_error(pairs) == pytest.approx((4 * 0.1 + 10 * 0.05) / 14)


def _hit(eid: str, score: float, sources: dict[str, float], ranks: dict[str, int]) -> Hit:
    return Hit(entry_id=eid, title=eid, score=score, sources=sources, ranks=ranks)


def test_confidence_features_read_agreement_and_the_rule():
    hits = [
        _hit("a", 0.9, {"rule": 0.8, "dense": 0.6, "lexical": 12.0}, {"rule": 0, "dense": 0, "lexical": 1}),
        _hit("b", 0.3, {"lexical": 14.0}, {"lexical": 0}),
    ]
    f = calibration.features(hits)
    assert f == {"score": 0.9, "margin": pytest.approx(0.6), "agreement": pytest.approx(2 / 3), "rule": 1.0, "rule_strength": 0.8,
                 "explains": 1.0}
    assert calibration.features(hits, explained=False)["explains"] == 0.0
    assert calibration.features([]) == dict.fromkeys(calibration.FEATURES, 0.0)


def test_confidence_uses_the_fitted_model(monkeypatch, tmp_path: Path):
    table = tmp_path / "calibration.json"
    table.write_text(json.dumps({"kind": "logistic", "features": list(calibration.FEATURES),
                                 "weights": [0.0, 0.0, 0.0, 2.0, 0.0, 0.0], "bias": -1.0}))
    monkeypatch.setattr(calibration, "TABLE_PATH", table)
    calibration._model.cache_clear()
    try:
        with_rule = [_hit("a", 0.5, {"rule": 0.5}, {"rule": 0})]
        without = [_hit("a", 0.5, {"dense": 0.5}, {"dense": 0})]
        assert calibration.confidence(with_rule) == pytest.approx(_sigmoid(1.0))
        assert calibration.confidence(without) == pytest.approx(_sigmoid(-1.0))
        assert calibration.confidence([]) == 0.0
        # a table fitted for other features is ignored, not misread
        table.write_text(json.dumps({"kind": "logistic", "features": ["score"], "weights": [9.0], "bias": 0.0}))
        calibration._model.cache_clear()
        assert calibration.confidence(without) == pytest.approx(calibration.raw_confidence(calibration.features(without)))
    finally:
        calibration._model.cache_clear()


def test_a_missing_confidence_model_is_a_config_error_not_an_uncalibrated_answer(monkeypatch, tmp_path: Path):
    from service.errors import ConfigError

    monkeypatch.setattr(calibration, "TABLE_PATH", tmp_path / "calibration.json")
    calibration._model.cache_clear()
    try:
        with pytest.raises(ConfigError, match=r"calibration\.json is missing"):
            calibration.confidence([_hit("a", 0.5, {"rule": 0.5}, {"rule": 0})])
    finally:
        calibration._model.cache_clear()


def test_the_shipped_confidence_model_matches_its_features():
    data = json.loads(calibration.TABLE_PATH.read_text())
    assert data["kind"] == "logistic" and tuple(data["features"]) == calibration.FEATURES
    assert len(data["weights"]) == len(calibration.FEATURES) and data["fitted_on"] >= 200


def _result(cid: str, split: str, right: bool, sources_right: dict[str, bool]) -> CaseResult:
    ranking = ["good", "bad"] if right else ["bad", "good"]
    return CaseResult(
        id=cid, label="good", acceptable=["good"], difficulty="medium", category="cuda",
        predicted=ranking[0], confidence=0.9 if right else 0.6, ranking=ranking,
        source_rankings={s: (["good"] if ok else ["bad", "good"]) for s, ok in sources_right.items()} | {"rrf": ["good"]},
        expected_rank=None, actual_rank=None, facts_expected={}, facts_extracted={}, leaked=[], mentions_missing=[],
        timings={"total": 1.0}, features=dict.fromkeys(calibration.FEATURES, 0.5 if right else 0.1), split=split,
    )


def test_summary_reports_each_directory_and_each_source_apart():
    results = [_result(f"c{i}", "cases", True, {"rule": True, "dense": i % 2 == 0, "lexical": True}) for i in range(10)]
    results += [_result(f"r{i}", "reworded", i < 8, {"rule": i < 5, "dense": i < 6, "lexical": i < 4}) for i in range(10)]
    s = summarise(results)
    assert s["by_split"]["cases"]["n"] == 10 and s["by_split"]["reworded"]["top1"] == 0.8
    assert s["by_split_source"]["reworded"]["rule"]["top1"] == 0.5
    assert s["by_split_source"]["reworded"]["fused"]["top1"] == 0.8
    assert s["by_source"]["dense"]["top1"] == pytest.approx(11 / 20)
    cv = s["calibration"]["cross_validated"]
    assert cv["folds"] == 5 and sum(row["n"] for row in cv["table"]) == 20


def _unknown_result(cid: str, predicted: str | None, confidence: float, also: list[str] | None = None) -> CaseResult:
    return CaseResult(
        id=cid, label="unknown", acceptable=sorted({"unknown", *(also or [])}), difficulty="hard", category="unknown",
        predicted=predicted, confidence=confidence, ranking=["near", "far"], source_rankings={"rrf": ["near"]},
        expected_rank=None, actual_rank=None, facts_expected={}, facts_extracted={}, leaked=[], mentions_missing=[],
        timings={"total": 1.0}, features=dict.fromkeys(calibration.FEATURES, 0.2), split="unknown", kind="user-bare-assertion",
    )


def test_unknown_cases_are_scored_apart_and_enter_the_calibration():
    known = [_result(f"c{i}", "cases", i < 18, {"rule": True, "dense": True, "lexical": True}) for i in range(20)]
    unknown = [_unknown_result("u0", None, 0.2), _unknown_result("u1", None, 0.1), _unknown_result("u2", "near", 0.85),
               _unknown_result("u3", "near", 0.6, also=["near"]), _unknown_result("u4", "near", 0.9, also=["near"])]
    s = summarise(known + unknown)
    assert s["n"] == 20 and s["top1"] == 0.9 and "unknown" not in s["by_split"]  # the ranking figures: in-catalogue only
    u = s["selective"]["unknown"]
    assert u["n"] == 5 and u["answered_unknown"] == 0.4 and u["acceptable"] == 0.8
    assert u["confident_answers"] == 1 and u["confident_acceptable"] == 1  # u2 wrong at 0.85; u4 acceptable at 0.9
    assert [a["case"] for a in u["answered"]] == ["u2", "u3", "u4"]
    # the answers given: 18 right of the 20 known plus u3 and u4 (acceptable) of the 3 unknown ones answered
    assert s["selective"]["answered"] == 23 and s["selective"]["answered_right"] == round(20 / 23, 4)
    cal = s["calibration"]
    assert cal["cases"] == {"in_catalogue": 20, "out_of_catalogue": 5}
    assert sum(row["n"] for row in cal["cross_validated"]["table"]) == 25
    assert sum(row["n"] for row in cal["cross_validated"]["by_kind"]["out_of_catalogue"]) == 5
    # a threshold of 0 answers every one of the 25 cases the confidence is fitted on: all of them, not 25 of 20
    assert cal["selective"][0] == {"threshold": 0.0, "answered": 1.0, "accuracy": round(sum(r.top_right for r in known + unknown) / 25, 4)}


UNKNOWN_GATE = [
    ({"n": 100, "answered_unknown": 0.9, "confident_answers": 0}, None),
    ({"n": 100, "answered_unknown": 0.8, "confident_answers": 0}, 'unknown: 0.800 answered "unknown", under 0.85'),
    ({"n": 100, "answered_unknown": 0.9, "confident_answers": 1}, "unknown: 1 case(s) answered with a wrong entry at confidence >= 0.8"),
    ({"n": 60, "answered_unknown": 0.9, "confident_answers": 0}, "unknown: only 60 cases, it needs at least 80"),
    (None, "unknown: not evaluated (add --cases evals/unknown)"),
]


@pytest.mark.parametrize(("figures", "failure"), UNKNOWN_GATE)
def test_the_gate_holds_the_unknown_cases(tmp_path: Path, figures, failure):
    path = tmp_path / "thresholds.yaml"
    path.write_text(yaml.safe_dump({"min_cases": 200, "unknown": {"min_cases": 80, "answered_unknown": 0.85, "max_confident": 0}}))
    summary = _gate_summary(**({"selective": {"unknown": figures}} if figures else {}))
    assert gate.check(summary, path) == ([failure] if failure else [])


def test_the_repository_thresholds_gate_the_unknown_cases():
    t = yaml.safe_load((Path(__file__).parent.parent / "evals" / "thresholds.yaml").read_text())["unknown"]
    assert t["min_cases"] >= 80 and t["answered_unknown"] >= 0.85 and t["max_confident"] == 0


def _gate_summary(**over: object) -> dict:
    s = {
        "n": 300, "top1": 0.95, "top3": 0.99, "easy_failures": [], "leaks": [], "errors": [],
        "initiating_rank": {"n": 180, "accuracy": 0.9}, "chat": {"n": 44, "pass_rate": 1.0},
        "by_split": {"cases": {"n": 236, "top1": 1.0, "top3": 1.0}, "reworded": {"n": 120, "top1": 0.85, "top3": 0.95}},
        "by_source": {"rule": {"top1": 0.9}, "dense": {"top1": 0.8}, "lexical": {"top1": 0.75}, "rrf": {"top1": 0.9},
                      "fused": {"top1": 0.95}},
    }
    s.update(over)
    return s


@pytest.fixture
def thresholds(tmp_path: Path) -> Path:
    path = tmp_path / "thresholds.yaml"
    path.write_text(yaml.safe_dump({
        "min_cases": 200, "top1": 0.9, "top3": 0.97, "easy_must_pass": True, "max_leaks": 0,
        "splits": {"reworded": {"min_cases": 100, "top1": 0.8, "top3": 0.9}}, "fused_beats_each_source": True,
        "initiating_rank_accuracy": 0.85, "chat_pass_rate": 0.95,
    }))
    return path


def test_gate_passes_good_figures(thresholds: Path):
    assert gate.check(_gate_summary(), thresholds) == []


def test_gate_holds_each_directory_to_its_thresholds(thresholds: Path):
    low = _gate_summary(by_split={"cases": {"n": 236, "top1": 1.0, "top3": 1.0}, "reworded": {"n": 120, "top1": 0.7, "top3": 0.95}})
    assert gate.check(low, thresholds) == ["reworded: top-1 0.700 is under 0.8"]
    missing = _gate_summary(by_split={"cases": {"n": 236, "top1": 1.0, "top3": 1.0}})
    assert gate.check(missing, thresholds) == ["reworded: not evaluated (add --cases evals/reworded)"]


def test_gate_requires_the_fusion_to_beat_every_source(thresholds: Path):
    tie = _gate_summary(by_source={"rule": {"top1": 0.95}, "dense": {"top1": 0.8}, "lexical": {"top1": 0.7},
                                   "rrf": {"top1": 0.9}, "fused": {"top1": 0.95}})
    assert gate.check(tie, thresholds) == ["the fused ranking's top-1 0.950 does not beat rule alone (0.950)"]


def test_the_repository_thresholds_keep_the_reworded_split_and_the_fusion_check():
    t = yaml.safe_load((Path(__file__).parent.parent / "evals" / "thresholds.yaml").read_text())
    assert t["fused_beats_each_source"] is True
    assert t["splits"]["reworded"]["min_cases"] >= 100


@pytest.mark.parametrize(
    ("over", "failure"),
    [
        ({"initiating_rank": {"n": 180, "accuracy": 0.8}}, "initiating-rank accuracy 0.800 is under 0.85"),
        ({"initiating_rank": {"n": 0, "accuracy": 0.0}}, "initiating rank: no evaluated case names one"),
        ({"chat": {"n": 44, "pass_rate": 0.9}}, "chat pass rate 0.900 is under 0.95"),
        ({"chat": None}, "chat: not evaluated (evals/chat.yaml beside the cases)"),  # the chat eval never ran
    ],
)
def test_gate_checks_initiating_rank_and_chat_and_fails_when_they_did_not_run(thresholds: Path, over, failure):
    assert gate.check(_gate_summary(**over), thresholds) == [failure]


def test_the_repository_thresholds_gate_initiating_rank_and_chat():
    t = yaml.safe_load((Path(__file__).parent.parent / "evals" / "thresholds.yaml").read_text())
    assert 0 < t["initiating_rank_accuracy"] <= 1 and 0 < t["chat_pass_rate"] <= 1


def test_the_eval_command_imports_the_chat_eval_unguarded():
    """A broken import of the chat eval must fail ``crashdoc eval``, never be swallowed (the gate then fails too)."""
    import ast

    import service.cli.evaluate as evaluate

    tree = ast.parse(Path(evaluate.__file__).read_text())
    guarded = [h for h in ast.walk(tree) if isinstance(h, ast.ExceptHandler) and isinstance(h.type, ast.Name)
               and h.type.id in ("ImportError", "ModuleNotFoundError")]
    assert guarded == []


INJECTION_GATE = [
    # (injection figures, the gate's failure, or None when it passes)
    ({"n": 48, "moved": 0, "harmful": 0, "benign": {"n": 6, "accepted": 6, "rate": 1.0}}, None),
    ({"n": 48, "moved": 1, "harmful": 0, "benign": {"n": 6, "accepted": 6, "rate": 1.0}}, "injection: 1 diagnosis(es) moved by planted text"),
    ({"n": 48, "moved": 0, "harmful": 2, "benign": {"n": 6, "accepted": 6, "rate": 1.0}},
     "injection: 2 case(s) where a planted link or command reached the answer, page or chat"),
    ({"n": 48, "moved": 0, "harmful": 0, "benign": {"n": 6, "accepted": 5, "rate": 0.8333}},
     "injection: benign LLM answers accepted 0.833, under 1.0"),
    ({"n": 30, "moved": 0, "harmful": 0, "benign": {"n": 6, "accepted": 6, "rate": 1.0}}, "injection: only 30 cases, it needs at least 40"),
    (None, "injection: not evaluated (evals/injection.yaml)"),
]


@pytest.mark.parametrize(("figures", "failure"), INJECTION_GATE)
def test_the_gate_holds_the_injection_eval_at_zero(tmp_path: Path, figures, failure):
    path = tmp_path / "thresholds.yaml"
    path.write_text(yaml.safe_dump({"min_cases": 200, "injection": {"min_cases": 40, "max_moved": 0, "max_harmful": 0,
                                                                     "benign_accepted": 1.0}}))
    summary = _gate_summary(**({"injection": figures} if figures else {}))
    assert gate.check(summary, path) == ([failure] if failure else [])
