"""Stage 3, facts: deterministic facts, signature-rule hits, and the rank timeline of a masked log.

    line facts (sources/) + counted and derived facts (derived.py)
    -> rule matches (hits.py over the rules/ registry; literals.py skips patterns a line cannot match)
    -> the rank timeline (ranks.py: who printed a line; events.py: what kind of error; timeline.py: in what order)
    -> Flight Recorder dumps among the files (flight_recorder.py: the rank that never entered the collective)
    -> the initiating rank and its collateral (unnamed.py: what the rest of the log says when the first failure names no rank)
    -> rule strengths weighed by the timeline
"""

from __future__ import annotations

from collections.abc import Iterator

from service.facts.derived import derive
from service.facts.flight_recorder import FlightReport
from service.facts.flight_recorder import analyze as analyze_flight_recorder
from service.facts.hits import match_rules, strong_lines, weigh_by_timeline
from service.facts.literals import LiteralIndex
from service.facts.ranks import RankMap, rank_map
from service.facts.sources import FACT_RULES
from service.facts.timeline import (
    Timeline,
    first_failure,
    first_ranked,
    mismatched_rank,
    odd_collective_rank,
    same_failure,
    scan,
    silent_rank,
)
from service.facts.unnamed import agent_stopped_ranks, every_rank_raised, odd_sized_rank, only_rank_file
from service.models import Collateral, ErrorEvent, Fact, Facts, MaskedLog

__all__ = ["extract_facts"]

_MAX_COLLATERAL = 50
_FACT_INDEX = LiteralIndex([rule.literals for rule in FACT_RULES])


def _unique_lines(log: MaskedLog) -> Iterator[tuple[str, int, str]]:
    """(file, line number, text) for the first occurrence of each distinct text."""
    seen: set[str] = set()
    for f in log.files:
        for i, text in f.numbered():
            if text in seen or not text.strip():
                continue
            seen.add(text)
            yield f.name, i, text


def _extract_values(log: MaskedLog) -> dict[str, Fact]:
    """Line facts: ``first`` keeps the first line, ``last`` the latest, ``best`` the highest-priority rule anywhere."""
    values: dict[str, Fact] = {}
    best_index: dict[str, int] = {}
    for file, line, text in _unique_lines(log):
        lowered = text[:2000].lower()
        for index in _FACT_INDEX.candidates(lowered):
            rule = FACT_RULES[index]
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


def _initiating_rank(log: MaskedLog, rm: RankMap, tl: Timeline, first: ErrorEvent | None, strong: set[tuple[str, int]],
                     world_size: int | None, fr: FlightReport | None, notes: list[str]) -> int | None:
    """The rank of the first failure; when it names none, what the other ranks and the launcher say.

    What the ranks recorded themselves comes first: their mismatch reports, then their Flight Recorder dumps.
    """
    if fr is not None:
        notes.append(fr.sentence())
        if len(fr.lagging) == 1:
            return fr.lagging[0]
    odd_one = mismatched_rank(tl.mismatches)
    if odd_one is not None:
        rank, why = odd_one
        notes.append(f"rank {rank} ran a different collective than the others: {why} ({tl.mismatches[0].ref.file}:{tl.mismatches[0].ref.line})")
        return rank
    root = next((r for r in tl.root_cause if r.informative), None)
    any_root = tl.root_cause[0] if tl.root_cause else None
    same = same_failure(tl.events, first) if first is not None else []
    same_ranks = {e.ref.rank for e in same if e.ref.rank is not None}
    if first is not None and first.ref.rank is not None:
        if root and len(same_ranks) > 1 and root.rank in same_ranks and root.rank != first.ref.rank:
            notes.append(f"ranks {', '.join(map(str, sorted(same_ranks)))} failed with the same error; rank {root.rank} is "
                         f"the one {root.source} names ({root.ref.file}:{root.ref.line})")
            return root.rank
        return first.ref.rank
    if first is not None:
        reading = agent_stopped_ranks(log.files, first, rm, tl.ranks_seen) or odd_sized_rank(log.files, first, rm)
        if reading is not None:
            notes.append(reading.note)
            return reading.rank
        node = rm.node_ranks(first.ref.text)
        ranked = first_ranked(tl.events, strong, within=node)
        if ranked is not None:
            notes.append(f"the first error names no rank; rank {ranked.ref.rank} is the first rank with a matching error "
                         f"({ranked.ref.file}:{ranked.ref.line})")
            return ranked.ref.rank
        if node:
            notes.append(f"the first error ({first.ref.file}:{first.ref.line}) is on the node of ranks {min(node)}-{max(node)}, "
                         "and no line says which of them")
    for rank, ref in tl.named_culprits:
        notes.append(f"rank {rank} is named by the other ranks as the one that did not join ({ref.file}:{ref.line})")
        return rank
    odd = odd_collective_rank(tl.events)
    if odd is not None:
        notes.append(f"rank {odd} timed out in a different collective than every other rank: it diverged")
        return odd
    silent = silent_rank(tl.events, tl.ranks_seen, world_size)
    if silent is not None:
        notes.append(f"rank {silent} is the only rank that did not report the collective timeout or its peer hanging up: the others were waiting for it")
        return silent
    if any_root:  # the first failure names no rank (or there is none): the launcher's word is all there is
        why = "" if any_root.informative else ", a tie the launcher breaks by rank order"
        notes.append(f"initiating rank {any_root.rank} taken from {any_root.source} ({any_root.ref.file}:{any_root.ref.line})"
                     f": the earliest exit{why}, not necessarily the first error")
        return any_root.rank
    if first is not None and (reading := only_rank_file(first, rm, tl.ranks_seen)) is not None:
        notes.append(reading.note)
        return reading.rank
    if first is not None and world_size and world_size > 1 and len(same) >= world_size:
        notes.append(f"all {world_size} ranks printed the same error ({first.ref.text[:80]}); rank 0 is reported")
        return 0
    if (reading := every_rank_raised(log.files, world_size, first, rm)) is not None:
        notes.append(reading.note)
        return reading.rank
    return None


_FR_MISMATCH = ("other-collective", "sizes", "dtypes")  # FlightReport kinds where the ranks' collectives differ


def _flight_recorder_facts(fr: FlightReport, values: dict[str, Fact]) -> None:
    """The dumps' findings as facts, each pointing at the dump line it comes from."""
    source = f"flight_recorder.{fr.kind}"
    ref = fr.lagging_at[0].ref if fr.lagging_at else fr.collective.ref if fr.collective else None
    if ref is not None:
        values["fr_lagging_ranks"] = Fact(name="fr_lagging_ranks", value=", ".join(map(str, fr.lagging)), file=ref.file,
                                          line=ref.line, source=source)
    if fr.collective is not None:
        c = fr.collective
        values["fr_collective"] = Fact(name="fr_collective", value=f"{c.name} seq {c.seq} pg {c.pg}", file=c.ref.file,
                                       line=c.ref.line, source=source)
    if ref is not None and fr.kind in _FR_MISMATCH:  # the ranks disagree on the collective itself: a desync, not a slow rank
        values["fr_mismatch"] = Fact(name="fr_mismatch", value=fr.kind, file=ref.file, line=ref.line, source=source)
    if fr.no_dump and fr.collective is not None:
        values["fr_no_dump_ranks"] = Fact(name="fr_no_dump_ranks", value=", ".join(map(str, fr.no_dump)),
                                          file=fr.collective.ref.file, line=1, source=source)


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
    world = values.get("world_size")
    world_size = int(world.value) if world and world.value.isdigit() else None
    rm = rank_map(log.files, world_size)
    fr = analyze_flight_recorder(log.files, rm.by_file.get)
    if fr is not None:  # before the rules: a rule may weigh what the dumps show (fr_mismatch)
        _flight_recorder_facts(fr, values)
    raw_hits, hit_ranks = match_rules(log, values, rm.rank_of)
    tl = scan(log.files, rm)
    strong = strong_lines(raw_hits)
    first = first_failure(tl.events, strong)
    notes: list[str] = []
    initiating_rank = _initiating_rank(log, rm, tl, first, strong, world_size, fr, notes)
    if not tl.ranks_seen and initiating_rank is None:
        notes.append("no rank information in the log: treated as a single process")
    hits = weigh_by_timeline(raw_hits, hit_ranks, tl.events, first, initiating_rank)
    if first is not None and first.timestamp and "failure_time" not in values:
        values["failure_time"] = Fact(name="failure_time", value=first.timestamp, file=first.ref.file, line=first.ref.line,
                                      source="timeline.first_failure")
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
