"""Run the pipeline on every eval case and score it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from service.compose.calibration import features as confidence_features
from service.compose.calibration import vector as calibration_vector
from service.errors import CrashdocError
from service.evaluation import metrics
from service.evaluation.cases import UNKNOWN, LoadedCase
from service.pipeline import Engine, run_stages

SOURCES = ("rule", "dense", "lexical")


@dataclass
class CaseResult:
    id: str
    label: str
    acceptable: list[str]
    difficulty: str
    category: str
    predicted: str | None
    confidence: float
    ranking: list[str]
    source_rankings: dict[str, list[str]]
    expected_rank: int | list[int] | None
    actual_rank: int | None
    facts_expected: dict[str, str]
    facts_extracted: dict[str, str]
    leaked: list[str]
    mentions_missing: list[str]
    timings: dict[str, float]
    evidence: list[str] = field(default_factory=list)
    features: dict[str, float] = field(default_factory=dict)  # what the confidence is computed from
    split: str = "cases"
    error: str | None = None
    kind: str | None = None  # out-of-catalogue cases: the failure kind (evals/unknown/KINDS.md)
    decisive: str | None = None  # the decisive error line the diagnosis named ("file:line text")
    chosen: str | None = None  # the candidate the diagnosis weighed first (the retrieval's top, or one it promoted)

    @property
    def out_of_catalogue(self) -> bool:
        return self.label == UNKNOWN

    @property
    def correct(self) -> bool:
        """The answer is acceptable: the right entry, or "unknown" (no entry named) where no entry explains the log."""
        return (self.predicted or UNKNOWN) in self.acceptable

    @property
    def top_right(self) -> bool:
        """Whether the top candidate is right, answered or not: what the confidence predicts."""
        top = self.chosen or (self.ranking[0] if self.ranking else None)
        return top is not None and top in self.acceptable


def rrf(per_source: dict[str, dict[str, float]], k: int = 60) -> list[str]:
    scores: dict[str, float] = defaultdict(float)
    for source in SOURCES:
        ordered = sorted(per_source.get(source, {}).items(), key=lambda kv: -kv[1])
        for r, (eid, _) in enumerate(ordered, start=1):
            scores[eid] += 1 / (k + r)
    return [eid for eid, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))]


def run_case(engine: Engine, lc: LoadedCase) -> CaseResult:
    case = lc.case
    entry = engine.kb.get(case.label)
    category = entry.meta.category if entry else (UNKNOWN if case.out_of_catalogue else "?")
    base: dict[str, Any] = dict(
        id=lc.id, label=case.label, acceptable=sorted(case.acceptable), difficulty=case.difficulty,
        category=category, expected_rank=case.initiating_rank, facts_expected=case.facts, split=lc.split, kind=case.kind,
    )
    try:
        trace = run_stages(engine, lc.sources())
    except CrashdocError as exc:
        return CaseResult(**base, predicted=None, confidence=0.0, ranking=[], source_rankings={}, actual_rank=None,
                          facts_extracted={}, leaked=[], mentions_missing=list(case.must_mention), timings={}, error=str(exc))
    d = trace.diagnosis
    rankings = {s: [eid for eid, _ in sorted(trace.per_source[s].items(), key=lambda kv: -kv[1])] for s in SOURCES}
    rankings["rrf"] = rrf(trace.per_source)
    # the candidates in the order the diagnosis weighed them (one that explains the decisive line first)
    first = d.candidates[0].entry_id if d.candidates else None
    chosen = sorted(trace.hits, key=lambda h: h.entry_id != first)
    masked_text = "\n".join(line for f in trace.log.files for line in f.lines)
    leaked = [s for s in case.secrets if s and s in masked_text]
    answer = " ".join([d.title, d.summary, *d.fix, *d.verify, d.explanation or ""]).lower()
    missing = [m for m in case.must_mention if m.lower() not in answer]
    return CaseResult(
        **base,
        predicted=d.entry_id,
        confidence=d.confidence,
        ranking=[h.entry_id for h in trace.hits],
        source_rankings=rankings,
        actual_rank=d.initiating_rank,
        facts_extracted={k: v.value for k, v in d.facts.items()},
        leaked=leaked,
        mentions_missing=missing,
        timings=trace.timings,
        evidence=[f"{e.file}:{e.line} {e.text[:140]}" for e in d.evidence[:3]],
        features=confidence_features(chosen, explained=d.decisive is None or d.decisive.explained_by is not None),
        chosen=chosen[0].entry_id if chosen else None,
        decisive=f"{d.decisive.file}:{d.decisive.line} {d.decisive.text[:140]}" if d.decisive else None,
    )


def run_all(engine: Engine, cases: list[LoadedCase], progress: Callable[[int, int], None] | None = None) -> list[CaseResult]:
    results = []
    for i, lc in enumerate(cases, start=1):
        results.append(run_case(engine, lc))
        if progress:
            progress(i, len(cases))
    return results


CONFIDENT = 0.8  # a confident answer: the gate allows none on a log no entry explains


def selective(results: list[CaseResult]) -> dict[str, Any]:
    """Selective accuracy over both kinds of case: of the answers given (an entry named), and of the confident ones,
    the share that is right; of the out-of-catalogue logs, the share answered "unknown" and those answered confidently."""
    answered = [r for r in results if r.predicted is not None]
    confident = [r for r in answered if r.confidence >= CONFIDENT]
    inside = [r for r in results if not r.out_of_catalogue]
    outside = [r for r in results if r.out_of_catalogue]
    # confidently wrong: an entry named at >= 0.8 that is not one of the case's acceptable answers (its ``also``: an
    # entry that honestly explains the decisive line's symptom); those acceptable ones are counted apart
    out_conf = [r for r in outside if r.predicted is not None and r.confidence >= CONFIDENT and not r.correct]
    out_conf_ok = [r for r in outside if r.predicted is not None and r.confidence >= CONFIDENT and r.correct]

    def share(part: list[CaseResult], whole: list[CaseResult]) -> float:
        return round(len(part) / (len(whole) or 1), 4)

    return {
        "answered": len(answered),
        "answered_right": share([r for r in answered if r.correct], answered),
        "confident": len(confident),
        "confident_right": share([r for r in confident if r.correct], confident),
        "in_catalogue": {"n": len(inside), "answered": share([r for r in inside if r.predicted], inside),
                         "right": share([r for r in inside if r.correct], inside)},
        "unknown": {
            "n": len(outside),
            "answered_unknown": share([r for r in outside if r.predicted is None], outside),
            "acceptable": share([r for r in outside if r.correct], outside),
            "confident_answers": len(out_conf),
            "confident_acceptable": len(out_conf_ok),
            "max_confidence_answered": max((r.confidence for r in outside if r.predicted is not None), default=0.0),
            "decisive_named": share([r for r in outside if r.decisive], outside),
            "answered": [{"case": r.id, "kind": r.kind, "predicted": r.predicted, "confidence": r.confidence,
                          "acceptable": r.correct, "decisive": r.decisive} for r in outside if r.predicted is not None],
        },
    }


def summarise(results: list[CaseResult]) -> dict[str, Any]:
    """The report's numbers. Top-level ``n``, ``top1``, ``top3``, ``mrr`` are for scripts, over the in-catalogue
    cases; the out-of-catalogue ones (label "unknown") are scored by ``selective`` and enter the calibration."""
    everything = results
    results = [r for r in everything if not r.out_of_catalogue]
    n = len(results)

    def ranks(rs: list[CaseResult], key: Callable[[CaseResult], list[str]]) -> list[int | None]:
        return [metrics.rank_of(key(r), set(r.acceptable)) for r in rs]

    # Top-1 is the entry the diagnosis names ("unknown" counts as wrong); top-3 and MRR read the fused ranking.
    fused_ranks = ranks(results, lambda r: r.ranking)

    def scores(rs: list[CaseResult], rks: list[int | None]) -> dict[str, float]:
        out = metrics.ranking_scores(rks)
        out["top1"] = sum(r.correct for r in rs) / (len(rs) or 1)
        return out

    overall = scores(results, fused_ranks)

    def group(attr: str) -> dict[str, dict[str, float]]:
        buckets: dict[str, tuple[list[CaseResult], list[int | None]]] = defaultdict(lambda: ([], []))
        for r, rk in zip(results, fused_ranks, strict=True):
            buckets[getattr(r, attr)][0].append(r)
            buckets[getattr(r, attr)][1].append(rk)
        return {k: {**{m: round(x, 4) for m, x in scores(*v).items()}, "n": len(v[0])} for k, v in sorted(buckets.items())}

    def source_ranking(source: str) -> Callable[[CaseResult], list[str]]:
        return lambda r: r.source_rankings.get(source, [])

    def source_scores(rs: list[CaseResult]) -> dict[str, dict[str, float]]:
        out = {s: metrics.ranking_scores(ranks(rs, source_ranking(s))) for s in (*SOURCES, "rrf")}
        out["fused"] = metrics.ranking_scores(ranks(rs, lambda r: r.ranking))
        return {k: {m: round(v, 4) for m, v in d.items()} for k, d in out.items()}
    with_rank = [r for r in results if r.expected_rank is not None]
    def rank_ok(r: CaseResult) -> bool:
        expected = r.expected_rank if isinstance(r.expected_rank, list) else [r.expected_rank]
        return r.actual_rank in expected

    rank_acc = sum(1 for r in with_rank if rank_ok(r)) / (len(with_rank) or 1)
    correct = attempted = expected = 0
    per_fact: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for r in results:
        c, a, e = metrics.fact_counts(r.facts_expected, r.facts_extracted)
        correct, attempted, expected = correct + c, attempted + a, expected + e
        for name, value in r.facts_expected.items():
            got = r.facts_extracted.get(name)
            row = per_fact[name]
            row[2] += 1
            if got is not None:
                row[1] += 1
                row[0] += metrics.norm_fact(got) == metrics.norm_fact(value)
    # Confidence predicts whether the top candidate is right; the reliability table checks that, both for the
    # shipped model (in sample when it was fitted on these cases) and for five-fold cross-validated fits.
    # Both kinds of case: the out-of-catalogue ones are where a confident top candidate must be wrong.
    pairs = [(r.confidence, r.top_right) for r in everything]
    rows = [calibration_vector(r.features) for r in everything]
    cv = metrics.cross_validated([r.id for r in everything], rows, [r.top_right for r in everything]) if len(everything) >= 20 else []
    cv_pairs = list(zip(cv, (r.top_right for r in everything), strict=True)) if cv else []
    cv_by_kind = {
        kind: metrics.calibration_table([p for p, r in zip(cv_pairs, everything, strict=True) if r.out_of_catalogue == outside])
        for kind, outside in (("in_catalogue", False), ("out_of_catalogue", True)) if cv_pairs
    }
    answered = [r for r in results if r.predicted is not None]
    declined = [r for r in results if r.predicted is None]
    stage_names = sorted({k for r in results for k in r.timings})
    latency = {s: {"p50": metrics.percentile([r.timings.get(s, 0.0) for r in results], 50),
                   "p95": metrics.percentile([r.timings.get(s, 0.0) for r in results], 95)} for s in stage_names}
    failing = [r for r in results if not r.correct]
    return {
        "n": n,
        "top1": round(overall["top1"], 4),
        "top3": round(overall["top3"], 4),
        "mrr": round(overall["mrr"], 4),
        "by_category": group("category"),
        "by_difficulty": group("difficulty"),
        "by_split": group("split"),
        "by_split_source": {split: source_scores([r for r in results if r.split == split]) for split in sorted({r.split for r in results})},
        "by_source": source_scores(results),
        "initiating_rank": {"n": len(with_rank), "accuracy": round(rank_acc, 4)},
        "facts": {
            "precision": round(correct / (attempted or 1), 4),
            "recall": round(correct / (expected or 1), 4),
            "expected": expected,
            "per_fact": {k: {"correct": v[0], "extracted": v[1], "expected": v[2]} for k, v in sorted(per_fact.items())},
        },
        "confusions": [{"expected": a, "predicted": b, "count": c} for a, b, c in
                       metrics.confusions((r.label, r.predicted or "unknown") for r in failing)],
        "calibration": {
            "table": metrics.calibration_table(pairs),
            "ece": round(metrics.expected_calibration_error(pairs), 4),
            "cross_validated": {"folds": 5, "table": metrics.calibration_table(cv_pairs),
                                "ece": round(metrics.expected_calibration_error(cv_pairs), 4), "by_kind": cv_by_kind},
            "cases": {"in_catalogue": len(results), "out_of_catalogue": len(everything) - len(results)},
            "answered": len(answered),
            "answered_accuracy": round(sum(r.correct for r in answered) / (len(answered) or 1), 4),
            "declined": len(declined),
            "declined_top_wrong": sum(1 for r in declined if r.ranking and not r.top_right),
            # What an "unknown" threshold would do: the share of cases answered and how often those are right, over
            # every case the confidence is fitted on (in- and out-of-catalogue, as the pairs are)
            "selective": [
                {"threshold": t, "answered": round(len(kept) / (len(pairs) or 1), 4),
                 "accuracy": round(sum(ok for _, ok in kept) / (len(kept) or 1), 4)}
                for t in (0.0, 0.35, 0.5, 0.6, 0.7, 0.8, 0.9) for kept in [[p for p in pairs if p[0] >= t]]
            ],
            # the same from the cross-validated confidences, so the choice of threshold is judged out of sample
            "selective_cv": [
                {"threshold": t, "answered": round(len(kept) / (len(cv_pairs) or 1), 4),
                 "accuracy": round(sum(ok for _, ok in kept) / (len(kept) or 1), 4)}
                for t in (0.5, 0.8) for kept in [[p for p in cv_pairs if p[0] >= t]]
            ],
        },
        "unknown_rate": round(sum(1 for r in results if r.predicted is None) / (n or 1), 4),
        "selective": selective(everything),
        "latency_ms": latency,
        "leaks": [{"case": r.id, "secret_chars": len(s)} for r in everything for s in r.leaked],
        "must_mention": {"cases_missing": sum(1 for r in results if r.mentions_missing)},
        "easy_failures": [r.id for r in failing if r.difficulty == "easy"],
        "errors": [{"case": r.id, "error": r.error} for r in everything if r.error],
        "failing": [
            {"case": r.id, "expected": r.label, "also": [a for a in r.acceptable if a != r.label], "predicted": r.predicted,
             "confidence": r.confidence, "top3": r.ranking[:3], "difficulty": r.difficulty, "evidence": r.evidence}
            for r in failing
        ],
    }
