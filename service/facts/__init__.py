"""Stage 3, facts: deterministic facts, signature-rule hits, and the rank timeline of a masked log."""

from __future__ import annotations

import re
from collections.abc import Iterator

from service.facts.gpus import arch, compute_capability
from service.facts.ranks import line_rank, scan_events
from service.facts.rules import RULES, Rule
from service.facts.sources import FACT_RULES
from service.models import Collateral, ErrorEvent, Fact, Facts, LineRef, MaskedLog, RuleHit

__all__ = ["extract_facts"]

_MAX_RULE_LINES = 6
_UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}
_ROOT_CAUSE_RANK = re.compile(r"^\s*rank\s*:\s*(\d+) \(local_rank")
_ALL_RULE_PATTERNS = re.compile("|".join(f"(?:{p})" for r in RULES for p in r.match))


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
    values: dict[str, Fact] = {}
    for file, line, text in _unique_lines(log):
        for rule in FACT_RULES:
            if rule.keep == "first" and rule.fact in values:
                continue
            if rule.prefilter and rule.prefilter not in text:
                continue
            m = rule.pattern.search(text)
            if not m:
                continue
            value = rule.value(m)
            if value:
                values[rule.fact] = Fact(name=rule.fact, value=value.strip(), file=file, line=line, source=rule.id)
    _derive(values, log)
    return values


def _bytes(figure: str) -> float | None:
    m = re.match(r"([\d.]+) (\w+)", figure)
    return float(m.group(1)) * _UNITS[m.group(2)] if m and m.group(2) in _UNITS else None


def _derive(values: dict[str, Fact], log: MaskedLog) -> None:
    """Facts computed from other facts, citing the line of the fact they come from."""
    gpu = values.get("gpu_model")
    if gpu and "compute_capability" not in values:
        cap = compute_capability(gpu.value)
        if cap:
            values["compute_capability"] = gpu.model_copy(update={"name": "compute_capability", "value": cap, "source": "derived.gpu_model"})
    cap_fact = values.get("compute_capability")
    if cap_fact and "gpu_arch" not in values:
        values["gpu_arch"] = cap_fact.model_copy(update={"name": "gpu_arch", "value": arch(cap_fact.value), "source": "derived.compute_capability"})
    if "gpu_arch" in values and "compute_capability" not in values:
        digits = values["gpu_arch"].value.removeprefix("sm_")
        values["compute_capability"] = values["gpu_arch"].model_copy(
            update={"name": "compute_capability", "value": f"{digits[:-1]}.{digits[-1]}", "source": "derived.gpu_arch"}
        )
    unalloc, total = values.get("oom_reserved_unallocated"), values.get("oom_total_capacity")
    if unalloc and total:
        u, t = _bytes(unalloc.value), _bytes(total.value)
        if u is not None and t and u / t >= 0.05:
            values["oom_fragmented"] = unalloc.model_copy(update={"name": "oom_fragmented", "value": "yes", "source": "derived.oom"})


def _fact_matches(facts: dict[str, Fact], name: str, pattern: str) -> bool:
    fact = facts.get(name)
    return bool(fact and re.search(pattern, fact.value))


def _rule_hits(log: MaskedLog, values: dict[str, Fact], rank_of: dict[tuple[str, int], int | None]) -> list[RuleHit]:
    matched: dict[str, list[LineRef]] = {}
    for f in log.files:
        seen: set[str] = set()
        for i, text in enumerate(f.lines, start=1):
            if text in seen or not _ALL_RULE_PATTERNS.search(text):
                continue
            seen.add(text)
            for rule in RULES:
                refs = matched.setdefault(rule.id, [])
                if len(refs) < _MAX_RULE_LINES and any(p.search(text) for p in rule.compiled):
                    rank = rank_of.get((f.name, i), line_rank(text))
                    refs.append(LineRef(file=f.name, line=i, rank=rank, text=text.strip()[:500]))
    if not any(matched.values()):
        return []
    full_text = "\n".join(line for f in log.files for line in f.lines)
    hits: list[RuleHit] = []
    for rule in RULES:
        found = matched.get(rule.id)
        if not found:
            continue
        if rule.needs and not any(re.search(p, full_text) for p in rule.needs):
            continue
        if rule.unless and any(re.search(p, full_text) for p in rule.unless):
            continue
        strength, reasons = _apply_boosts(rule, values, full_text)
        hits.append(RuleHit(rule_id=rule.id, entry_id=rule.entry, strength=strength, lines=found, reasons=reasons))
    hits.sort(key=lambda h: -h.strength)
    return hits


def _apply_boosts(rule: Rule, values: dict[str, Fact], full_text: str) -> tuple[float, list[str]]:
    strength = rule.strength
    reasons: list[str] = []
    for b in rule.boosts:
        ok = False
        if b.fact is not None:
            ok = _fact_matches(values, b.fact, b.value or ".")
        elif b.line is not None:
            ok = re.search(b.line, full_text) is not None
        if ok:
            strength += b.delta
            reasons.append(b.reason)
    return max(0.0, min(1.0, strength)), reasons


def _initiating(events: list[ErrorEvent], hits: list[RuleHit], log: MaskedLog) -> ErrorEvent | None:
    """The first non-collateral error; ties broken towards lines a strong rule matched."""
    causes = [e for e in events if not e.collateral]
    if not causes:
        return None
    strong_lines = {(ref.file, ref.line) for h in hits if h.strength >= 0.5 for ref in h.lines}
    for e in causes:
        if (e.ref.file, e.ref.line) in strong_lines:
            return e
    return causes[0]


def _root_cause_block_rank(log: MaskedLog) -> tuple[int, LineRef] | None:
    """torchrun's 'Root Cause (first observed failure)' block: the earliest exit, a fallback only."""
    for f in log.files:
        in_block = False
        for i, text in enumerate(f.lines, start=1):
            if "Root Cause (first observed failure)" in text:
                in_block = True
            elif in_block:
                m = _ROOT_CAUSE_RANK.search(re.sub(r"^\S*\]:", "", text))
                if m:
                    return int(m.group(1)), LineRef(file=f.name, line=i, text=text.strip())
    return None


def extract_facts(log: MaskedLog) -> Facts:
    """Stage entry point."""
    values = _extract_values(log)
    events, ranks_seen, rank_of = scan_events(log.files)
    hits = _rule_hits(log, values, rank_of)
    first = _initiating(events, hits, log)
    notes: list[str] = []
    initiating_rank = first.ref.rank if first else None
    if initiating_rank is None and ranks_seen:
        block = _root_cause_block_rank(log)
        if block:
            initiating_rank = block[0]
            notes.append("initiating rank taken from torchrun's 'first observed failure' block (the earliest exit)")
    if not ranks_seen:
        notes.append("no rank information in the log: treated as a single process")
    collateral: list[Collateral] = []
    for e in events:
        later_elsewhere = (
            first is not None and e.ref.rank is not None and e.ref.rank != initiating_rank
            and e.order > first.order and e.kind == "exception"
        )
        if e.collateral or later_elsewhere:
            why = e.why or f"raised on rank {e.ref.rank} after rank {initiating_rank} had already failed"
            collateral.append(Collateral(rank=e.ref.rank, file=e.ref.file, line=e.ref.line, text=e.ref.text, why=why))
    return Facts(
        values=values,
        rule_hits=hits,
        events=events,
        ranks_seen=ranks_seen,
        initiating_rank=initiating_rank,
        initiating_event=first,
        collateral=collateral[:50],
        notes=notes,
    )
