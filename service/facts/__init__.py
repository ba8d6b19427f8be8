"""Stage 3, facts: deterministic facts, signature-rule hits, and the rank timeline of a masked log.

    line facts (sources.py) + counted/derived facts (derived.py)
    -> rule matches (hits.py over rules/) -> the rank timeline (ranks.py, timeline.py)
    -> the initiating rank and its collateral -> rule strengths weighed by the timeline
"""

from __future__ import annotations

from collections.abc import Iterator

from service.facts.derived import derive
from service.facts.hits import match_rules, strong_lines, weigh_by_timeline
from service.facts.ranks import rank_map
from service.facts.sources import FACT_RULES
from service.facts.timeline import Timeline, first_failure, scan, silent_rank
from service.models import Collateral, ErrorEvent, Fact, Facts, MaskedLog

__all__ = ["extract_facts"]

_MAX_COLLATERAL = 50


def _unique_lines(log: MaskedLog) -> Iterator[tuple[str, int, str]]:
    """(file, line number, text) for the first occurrence of each distinct text."""
    seen: set[str] = set()
    for f in log.files:
        for i, text in enumerate(f.lines, start=1):
            if text in seen or not text.strip():
                continue
            seen.add(text)
            yield f.name, i, text


def _extract_values(log: MaskedLog) -> dict[str, Fact]:
    """Line facts: ``first`` keeps the first line, ``last`` the latest, ``best`` the highest-priority rule anywhere."""
    values: dict[str, Fact] = {}
    best_index: dict[str, int] = {}
    for file, line, text in _unique_lines(log):
        for index, rule in enumerate(FACT_RULES):
            if rule.keep == "first" and rule.fact in values:
                continue
            if rule.keep == "best" and best_index.get(rule.fact, len(FACT_RULES)) <= index:
                continue
            if rule.prefilter and rule.prefilter not in text:
                continue
            m = rule.pattern.search(text)
            if not m:
                continue
            value = rule.value(m)
            if value:
                values[rule.fact] = Fact(name=rule.fact, value=value.strip(), file=file, line=line, source=rule.id)
                best_index[rule.fact] = index
    derive(values, log)
    return values


def _initiating_rank(tl: Timeline, first: ErrorEvent | None, values: dict[str, Fact], notes: list[str]) -> int | None:
    if first is not None and first.ref.rank is not None:
        return first.ref.rank
    for rank, ref, what in tl.launcher_first:
        notes.append(f"initiating rank {rank} taken from {what} ({ref.file}:{ref.line}): the earliest exit, not necessarily the first error")
        return rank
    if first is None:
        for rank, ref in tl.named_culprits:
            notes.append(f"rank {rank} is named by the other ranks as the one that did not join ({ref.file}:{ref.line})")
            return rank
        world = values.get("world_size")
        silent = silent_rank(tl.events, tl.ranks_seen, int(world.value) if world and world.value.isdigit() else None)
        if silent is not None:
            notes.append(f"rank {silent} is the only rank that did not report the collective timeout: the others were waiting for it")
            return silent
    return None


def _collateral(tl: Timeline, first: ErrorEvent | None, initiating_rank: int | None) -> list[Collateral]:
    out: list[Collateral] = []
    for e in tl.events:
        if e is first:
            continue
        later_elsewhere = (
            first is not None and initiating_rank is not None and e.ref.rank is not None
            and e.ref.rank != initiating_rank and e.order > first.order
        )
        if e.collateral or later_elsewhere:
            why = e.why if e.collateral else f"raised on rank {e.ref.rank} after rank {initiating_rank} had already failed"
            out.append(Collateral(rank=e.ref.rank, file=e.ref.file, line=e.ref.line, text=e.ref.text, why=why))
    return out[:_MAX_COLLATERAL]


def extract_facts(log: MaskedLog) -> Facts:
    """Stage entry point."""
    values = _extract_values(log)
    rm = rank_map(log.files)
    raw_hits = match_rules(log, values, rm.rank_of)
    tl = scan(log.files, rm)
    first = first_failure(tl.events, strong_lines(raw_hits))
    notes: list[str] = []
    initiating_rank = _initiating_rank(tl, first, values, notes)
    if not tl.ranks_seen and initiating_rank is None:
        notes.append("no rank information in the log: treated as a single process")
    hits = weigh_by_timeline(raw_hits, first, initiating_rank)
    return Facts(
        values=values,
        rule_hits=hits,
        events=tl.events,
        ranks_seen=tl.ranks_seen,
        initiating_rank=initiating_rank,
        initiating_event=first,
        collateral=_collateral(tl, first, initiating_rank),
        notes=notes,
    )
