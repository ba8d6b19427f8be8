"""The deterministic composer: a complete diagnosis from the facts, the rules and the retrieved entries."""

from __future__ import annotations

from retrieval.kb import KnowledgeBase, section_steps
from service.compose.answer import answer
from service.compose.calibration import confidence as calibrated_confidence
from service.compose.decisive import Decisive, explanation, find_decisive
from service.compose.triage import TriageKind
from service.facts.setup import setup_of
from service.models import (
    Candidate,
    CollateralOut,
    DecisiveError,
    Diagnosis,
    ErrorEvent,
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


def timeline_of(facts: Facts, collateral: set[tuple[str, int]] | None = None,
                evidence: set[tuple[str, int]] | None = None) -> list[TimelineEvent]:
    """The error events in timeline order, the first failure marked: the swimlane's data and the JSON's ``timeline``.

    An event listed as collateral (``collateral``) is drawn as collateral, and an evidence line (``evidence``) never
    is: the swimlane tells the same story as the lists."""
    first = facts.initiating_event

    def is_collateral(e: ErrorEvent) -> bool:
        key = (e.ref.file, e.ref.line)
        if evidence is not None and key in evidence:
            return False
        return e.collateral or (collateral is not None and key in collateral)

    return [
        TimelineEvent(order=e.order, rank=e.ref.rank, file=e.ref.file, line=e.ref.line, kind=e.kind, collateral=is_collateral(e),
                      first=first is not None and (e.ref.file, e.ref.line) == (first.ref.file, first.ref.line),
                      timestamp=e.timestamp, text=e.ref.text[:300])
        for e in facts.events[:_MAX_TIMELINE]
    ]


def _evidence(facts: Facts, entry_id: str | None, named: Decisive | None = None
              ) -> tuple[list[Evidence], set[tuple[str, int]]]:
    """The lines that prove it, the decisive line first; and the lines taken from the collateral to prove it.

    One story by construction: a line is evidence or collateral, never both. The first failure and the matched
    rule lines that are not collateral come first; a collateral line is evidence only when nothing else proves
    the cause (then it leaves the collateral list). The first line is the decisive one: the initiating rank's
    first line (its first failure when that is evidence), else the first failure or matched line. With no entry, the
    decisive error that no entry explains (``named``) is first.
    """
    collateral = {(c.file, c.line) for c in facts.collateral}
    first = facts.initiating_event
    refs: list[LineRef] = []
    if entry_id is None and named is not None:
        refs.append(named.ref)
    if first and not first.collateral and (first.ref.file, first.ref.line) not in collateral:
        refs.append(first.ref)
    matching = [h for h in facts.rule_hits if h.entry_id == entry_id]
    matched = [r for hit in matching for r in sorted(hit.lines, key=lambda r: (r.rank != facts.initiating_rank, r.file, r.line))]
    refs += [r for r in matched if (r.file, r.line) not in collateral]
    if not refs:
        refs += matched  # the cause is proved only by lines the timeline calls collateral: they are evidence here
    if not refs:
        refs.extend(e.ref for e in facts.events if not e.collateral and (e.ref.file, e.ref.line) not in collateral)
    seen: set[tuple[str, int]] = set()
    out: list[Evidence] = []
    for r in refs:
        if (r.file, r.line) in seen:
            continue
        seen.add((r.file, r.line))
        out.append(Evidence(file=r.file, line=r.line, rank=r.rank, text=r.text))
        if len(out) >= _MAX_EVIDENCE:
            break
    # the decisive line: the first failure, or the initiating rank's first line when a launcher named another rank
    own = next((e for e in out if e.rank == facts.initiating_rank), None) if facts.initiating_rank is not None else None
    if entry_id is None and named is not None and out and (out[0].file, out[0].line) == (named.ref.file, named.ref.line):
        own = out[0]  # the line no entry explains is the one shown first
    decisive = [own] if own is not None else out[:1]
    rest = [e for e in out if e is not decisive[0]] if decisive else []
    ordered = decisive + sorted(rest, key=lambda e: (e.rank != facts.initiating_rank, e.file, e.line))
    return ordered, {(e.file, e.line) for e in ordered} & collateral


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


_PROMOTE_WITHIN = 3  # a candidate this high in the ranking that explains the decisive line takes the top's place


def decide(log: MaskedLog, facts: Facts, hits: list[Hit], kb: KnowledgeBase, kinds: dict[str, TriageKind]
           ) -> tuple[Decisive | None, str | None, list[Hit]]:
    """The decisive error; why the chosen candidate explains it (None: no candidate does); and the candidates with
    the chosen one first. Only an entry that explains the decisive line may be the top: when the first does not,
    the highest-ranked of the first three that does takes its place."""
    decisive = find_decisive(log, facts, kinds) if (facts.events or facts.rule_hits) else None
    if decisive is None or not hits:
        return decisive, None, hits
    # In ranking order: an entry explained only by the context (a fact before the error) still outranks one lower
    # down whose rule matches the decisive line (measured: preferring the line moved 7 right answers to look-alikes).
    for i, hit in enumerate(hits[:_PROMOTE_WITHIN]):
        entry = kb.get(hit.entry_id)
        explained = explanation(entry, decisive, facts) if entry else None
        if explained:
            return decisive, explained[1], [hit, *hits[:i], *hits[i + 1:]]
    return decisive, None, hits


def _unknown_text(decisive: Decisive | None, related: list[str], has_events: bool) -> tuple[str, str, list[str], list[str]]:
    """Title, summary, triage steps and checks for an answer no entry backs."""
    if decisive is None:
        title = "No known failure matched" if has_events else "No failure found in the log"
        summary = (
            "The log's errors did not match any entry of the encyclopedia with enough confidence. "
            "The candidates below are the closest matches; the evidence lines are the first errors found."
            if has_events
            else "No error, exception, signal or kill message was found. If the run did fail, the log may be "
            "cut before the failure: send the whole log, or every rank's file."
        )
        return title, summary, [], []
    kind = decisive.kind
    where = f"{decisive.ref.file}:{decisive.ref.line}" + (f" (rank {decisive.ref.rank})" if decisive.ref.rank is not None else "")
    line = decisive.block[-1] if decisive.ref.text.endswith(decisive.block[-1]) else decisive.ref.text.strip()
    summary = (f"Not in the encyclopedia: no entry's signals explain the decisive error at {where}: \"{line.strip()[:300]}\". "
               f"{kind.title}: {kind.summary}")
    if related:
        summary += f" Related, but they do not explain this line: {', '.join(related)}."
    return f"Unknown failure ({kind.id}): not in the encyclopedia", summary, list(kind.steps), list(kind.verify)


def compose_deterministic(
    log: MaskedLog,
    facts: Facts,
    hits: list[Hit],
    kb: KnowledgeBase,
    *,
    diagnosis_id: str,
    unknown_threshold: float,
    kinds: dict[str, TriageKind],
) -> Diagnosis:
    # No error line and no rule: whatever similarity found is not a diagnosis, and nothing is claimed.
    evidence_of_failure = bool(facts.events or facts.rule_hits)
    decisive, why, hits = decide(log, facts, hits, kb, kinds)
    top = hits[0] if hits else None
    # An entry is an answer only when its signals explain the decisive line (with no decisive line, the rules decide).
    explained = decisive is None or why is not None
    confidence = calibrated_confidence(hits, explained=explained) if evidence_of_failure else 0.0
    entry = (kb.get(top.entry_id) if top and evidence_of_failure and explained and confidence >= unknown_threshold
             else None)
    candidates = [
        Candidate(entry_id=h.entry_id, title=h.title, score=h.score, sources=sorted(h.sources), source_scores=h.sources)
        for h in hits[:_MAX_CANDIDATES]
    ]
    related = [h.entry_id for h in hits[:3]] if entry is None and decisive is not None else []
    run = _run_summary(facts)
    if entry is None:
        title, summary, fix, verify = _unknown_text(decisive, related, bool(facts.events))
        category = None
    else:
        title = entry.title
        summary = entry.meta.summary
        fix = section_steps(entry.section("fix"))
        verify = section_steps(entry.section("verify"))
        category = entry.meta.category
    if run:
        summary = f"{summary} {run}"
    evidence, moved = _evidence(facts, entry.id if entry else None, decisive)
    collateral = [CollateralOut(**c.model_dump()) for c in facts.collateral if (c.file, c.line) not in moved]
    reasons = [r for h in facts.rule_hits if entry and h.entry_id == entry.id for r in h.reasons]
    explanation_text = None
    if entry is not None:
        explanation_text = "Matched by " + ", ".join(sorted(top.sources)) if top else None
        if reasons and explanation_text:
            explanation_text += "; " + "; ".join(reasons)
        if why and explanation_text:
            explanation_text += f"; {why}"
    decisive_out = None
    if decisive is not None:
        decisive_out = DecisiveError(file=decisive.ref.file, line=decisive.ref.line, rank=decisive.ref.rank,
                                     text=decisive.ref.text[:500], kind=decisive.kind.id,
                                     explained_by=top.entry_id if top is not None and why else None, why=why)
    return Diagnosis(
        id=diagnosis_id,
        entry_id=entry.id if entry else None,
        title=title,
        category=category,
        confidence=round(confidence, 3),
        summary=summary,
        candidates=candidates,
        evidence=evidence,
        facts={name: FactOut(**f.public()) for name, f in sorted(facts.values.items())},  # type: ignore[arg-type]
        initiating_rank=facts.initiating_rank,
        collateral=collateral,
        timeline=timeline_of(facts, {(c.file, c.line) for c in collateral}, {(e.file, e.line) for e in evidence}),
        fix=fix,
        verify=verify,
        masked=dict(log.counts),
        timings_ms={},
        kb_version=kb.version,
        composer="deterministic",
        notes=list(facts.notes),
        explanation=explanation_text,
        answer=answer(facts, title=entry.title if entry else None, entry_id=entry.id if entry else None,
                      evidence=evidence, candidates=candidates, files=len(log.files), lines=log.line_count),
        files=[{"name": f.name, "lines": len(f.lines)} for f in log.files],
        setup=setup_of(log),
        decisive=decisive_out,
        related=related,
    )
