"""The deterministic composer: a complete diagnosis from the facts, the rules and the retrieved entries."""

from __future__ import annotations

from retrieval.kb import KnowledgeBase, section_steps
from service.compose.calibration import confidence as calibrated_confidence
from service.models import (
    Candidate,
    CollateralOut,
    Diagnosis,
    Evidence,
    FactOut,
    Facts,
    Hit,
    LineRef,
    MaskedLog,
    TimelineEvent,
)

_MAX_EVIDENCE = 8
_MAX_CANDIDATES = 5
_MAX_TIMELINE = 200


def timeline_of(facts: Facts) -> list[TimelineEvent]:
    """The error events in timeline order, the first failure marked: the swimlane's data and the JSON's ``timeline``."""
    first = facts.initiating_event
    return [
        TimelineEvent(order=e.order, rank=e.ref.rank, file=e.ref.file, line=e.ref.line, kind=e.kind, collateral=e.collateral,
                      first=first is not None and (e.ref.file, e.ref.line) == (first.ref.file, first.ref.line),
                      timestamp=e.timestamp, text=e.ref.text[:300])
        for e in facts.events[:_MAX_TIMELINE]
    ]


def _evidence(facts: Facts, entry_id: str | None) -> list[Evidence]:
    """The lines that prove it: the initiating rank's first, then the matched rule lines."""
    refs: list[LineRef] = []
    if facts.initiating_event and not facts.initiating_event.collateral:
        refs.append(facts.initiating_event.ref)
    matching = [h for h in facts.rule_hits if h.entry_id == entry_id]
    for hit in matching:
        ordered = sorted(hit.lines, key=lambda r: (r.rank != facts.initiating_rank, r.file, r.line))
        refs.extend(ordered)
    if not refs:
        refs.extend(e.ref for e in facts.events if not e.collateral)
    seen: set[tuple[str, int]] = set()
    out: list[Evidence] = []
    for r in refs:
        if (r.file, r.line) in seen:
            continue
        seen.add((r.file, r.line))
        out.append(Evidence(file=r.file, line=r.line, rank=r.rank, text=r.text))
        if len(out) >= _MAX_EVIDENCE:
            break
    return sorted(out, key=lambda e: (e.rank != facts.initiating_rank, e.file, e.line))


def _run_summary(facts: Facts) -> str:
    step = facts.get("failure_step")
    at_step = f" around step {step}" if step else ""
    if facts.initiating_rank is not None:
        sentence = f"Rank {facts.initiating_rank} failed first{at_step}"
    else:
        sentence = f"The run failed{at_step}" if step else ""
    collateral_ranks = sorted({c.rank for c in facts.collateral if c.rank is not None and c.rank != facts.initiating_rank})
    if collateral_ranks:
        shown = ", ".join(map(str, collateral_ranks[:8])) + (" …" if len(collateral_ranks) > 8 else "")
        sentence += ("; " if sentence else "") + f"the errors on rank(s) {shown} are collateral"
    return (sentence[0].upper() + sentence[1:] + ".") if sentence else ""


def compose_deterministic(
    log: MaskedLog,
    facts: Facts,
    hits: list[Hit],
    kb: KnowledgeBase,
    *,
    diagnosis_id: str,
    unknown_threshold: float,
) -> Diagnosis:
    top = hits[0] if hits else None
    # No error line and no rule: whatever similarity found is not a diagnosis, and nothing is claimed.
    evidence_of_failure = bool(facts.events or facts.rule_hits)
    confidence = calibrated_confidence(hits) if evidence_of_failure else 0.0
    entry = kb.get(top.entry_id) if top and evidence_of_failure and confidence >= unknown_threshold else None
    candidates = [
        Candidate(entry_id=h.entry_id, title=h.title, score=h.score, sources=sorted(h.sources), source_scores=h.sources)
        for h in hits[:_MAX_CANDIDATES]
    ]
    run = _run_summary(facts)
    if entry is None:
        title = "No known failure matched" if facts.events else "No failure found in the log"
        summary = (
            "The log's errors did not match any entry of the encyclopedia with enough confidence. "
            "The candidates below are the closest matches; the evidence lines are the first errors found."
            if facts.events
            else "No error, exception, signal or kill message was found. If the run did fail, the log may be "
            "cut before the failure: send the whole log, or every rank's file."
        )
        fix: list[str] = []
        verify: list[str] = []
        category = None
    else:
        title = entry.title
        summary = entry.meta.summary
        fix = section_steps(entry.section("fix"))
        verify = section_steps(entry.section("verify"))
        category = entry.meta.category
    if run:
        summary = f"{summary} {run}"
    reasons = [r for h in facts.rule_hits if entry and h.entry_id == entry.id for r in h.reasons]
    explanation = None
    if entry is not None:
        explanation = "Matched by " + ", ".join(sorted(top.sources)) if top else None
        if reasons and explanation:
            explanation += "; " + "; ".join(reasons)
    return Diagnosis(
        id=diagnosis_id,
        entry_id=entry.id if entry else None,
        title=title,
        category=category,
        confidence=round(confidence, 3),
        summary=summary,
        candidates=candidates,
        evidence=_evidence(facts, entry.id if entry else None),
        facts={name: FactOut(**f.public()) for name, f in sorted(facts.values.items())},  # type: ignore[arg-type]
        initiating_rank=facts.initiating_rank,
        collateral=[CollateralOut(**c.model_dump()) for c in facts.collateral],
        timeline=timeline_of(facts),
        fix=fix,
        verify=verify,
        masked=dict(log.counts),
        timings_ms={},
        kb_version=kb.version,
        composer="deterministic",
        notes=list(facts.notes),
        explanation=explanation,
        files=[{"name": f.name, "lines": len(f.lines)} for f in log.files],
    )
