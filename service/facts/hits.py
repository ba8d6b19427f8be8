"""Signature-rule hits: which rules fired, on which lines, how strongly, and why (every adjustment is a reason).

Two passes. ``match_rules`` finds each rule's lines, applies ``needs``/``unless`` and the fact and line
boosts. ``weigh_by_timeline`` then uses the rank timeline: a consequence rule (a watchdog timeout, the
launcher's ChildFailedError, a bare SIGKILL) steps aside when a cause came first, and a rule whose lines
were all printed by other ranks than the one that failed first is discounted as collateral.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from service import linear_regex
from service.facts.literals import LiteralIndex, required_literals
from service.facts.rules import RULES, Rule
from service.models import ErrorEvent, Fact, LineRef, MaskedLog, RuleHit

_MAX_RULE_LINES = 6
# Each pattern with the literals a match must contain: a line is searched only with the patterns whose literals it has.
_PATTERNS: tuple[tuple[Rule, linear_regex.Regex, tuple[str, ...]], ...] = tuple(
    (rule, compiled, required_literals(compiled.pattern, compiled.flags)) for rule in RULES for compiled in rule.compiled
)
_INDEX = LiteralIndex([lits for _, _, lits in _PATTERNS])
_CONSEQUENCE_FACTOR = 0.3  # a consequence when a cause fired elsewhere
_AFTER_FIRST_FACTOR = 0.5  # a consequence when the first failure is an error no rule names
_OTHER_RANK_FACTOR = 0.6  # a cause seen only on ranks that failed after the initiating one, or only on collateral lines
_STRONG = 0.5
_OTHER_RULE = 0.4  # a summary rule steps aside for any other rule at least this strong


def _regex(pattern: str) -> linear_regex.Regex:
    """The needs, unless and boost patterns (MULTILINE: searched in the whole log), compiled once by the rules."""
    return linear_regex.cached(pattern, re.MULTILINE)


def _boosted(
    rule: Rule, values: dict[str, Fact], contains: Callable[[str, str | None], bool]
) -> tuple[float, list[str]]:
    strength = rule.strength
    reasons: list[str] = []
    for b in rule.boosts:
        if b.fact is not None:
            fact = values.get(b.fact)
            ok = bool(fact and _regex(b.value or ".").search(fact.value))
            ok = ok and not (b.not_with and fact and _regex(b.not_with).search(fact.value))
        else:
            ok = b.line is not None and contains(b.line, b.not_with)
        if ok:
            strength += b.delta
            reasons.append(("+" if b.delta >= 0 else "-") + f"{abs(b.delta):.2f} {b.reason}")
    return max(0.0, min(1.0, round(strength, 4))), reasons


def match_rules(
    log: MaskedLog, values: dict[str, Fact], rank_at: Callable[[str, str], int | None]
) -> tuple[list[RuleHit], dict[str, set[int | None]]]:
    """Every rule whose pattern matches a line, with its needs, unless and boosts applied; and each rule's ranks."""
    matched: dict[str, list[LineRef]] = {}
    ranks: dict[str, set[int | None]] = {}
    for f in log.files:
        seen: set[str] = set()
        for i, text in f.numbered():
            if text in seen or len(text) > 20_000:
                continue
            seen.add(text)
            fired: list[Rule] = []
            lowered = text.lower()
            for index in _INDEX.candidates(lowered):
                rule, pattern, _ = _PATTERNS[index]
                if (
                    (not fired or fired[-1] is not rule)
                    and pattern.search(text)
                    and not any(x.search(text) for x in rule.excluded)
                ):
                    fired.append(rule)
            if not fired:
                continue
            rank = rank_at(f.name, text)
            for rule in fired:
                refs = matched.setdefault(rule.id, [])
                ranks.setdefault(rule.id, set()).add(rank)
                if len(refs) < _MAX_RULE_LINES:
                    refs.append(LineRef(file=f.name, line=i, rank=rank, text=text.strip()[:500]))
    if not matched:
        return [], ranks
    full_text = "\n".join("\n".join(f.lines) for f in log.files)
    cache: dict[tuple[str, str | None], bool] = {}

    def contains(pattern: str, not_with: str | None = None) -> bool:
        """Some line matches ``pattern`` (and, when given, that line does not match ``not_with``)."""
        key = (pattern, not_with)
        if key not in cache:
            matches = _regex(pattern).finditer(full_text)
            if not_with is None:
                cache[key] = next(matches, None) is not None
            else:
                cache[key] = any(not _regex(not_with).search(_line_of(full_text, m.start())) for m in matches)
        return cache[key]

    hits: list[RuleHit] = []
    for rule in RULES:
        found = matched.get(rule.id)
        if not found:
            continue
        if rule.needs and not any(contains(p) for p in rule.needs):
            continue
        if rule.unless and any(contains(p) for p in rule.unless):
            continue
        strength, reasons = _boosted(rule, values, contains)
        hits.append(RuleHit(rule_id=rule.id, entry_id=rule.entry, strength=strength, lines=found, reasons=reasons))
    hits.sort(key=lambda h: -h.strength)
    return hits, ranks


def _line_of(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start : end if end >= 0 else len(text)]


def strong_lines(hits: list[RuleHit]) -> set[tuple[str, int]]:
    """Lines that a cause rule (not a consequence) matched with some strength: the timeline prefers them."""
    consequence = {r.id for r in RULES if r.consequence}
    return {(ref.file, ref.line) for h in hits if h.strength >= _STRONG and h.rule_id not in consequence for ref in h.lines}


def weigh_by_timeline(
    hits: list[RuleHit], hit_ranks: dict[str, set[int | None]], events: list[ErrorEvent],
    first: ErrorEvent | None, initiating_rank: int | None,
) -> list[RuleHit]:
    """Causes printed only by later-failing ranks, or only on lines the timeline classified as collateral, are
    discounted; then consequences step aside for a cause that remains, and the launcher's summary for any rule."""
    consequence = {r.id for r in RULES if r.consequence}
    summary = {r.id for r in RULES if r.summary}
    collateral_line = {(e.ref.file, e.ref.line): e.collateral for e in events}
    weighed: list[tuple[RuleHit, float, list[str]]] = []
    for h in hits:
        strength, reasons = h.strength, list(h.reasons)
        own_lines = {(ref.file, ref.line) for ref in h.lines}
        if h.rule_id not in consequence:
            ranks = hit_ranks.get(h.rule_id, {ref.rank for ref in h.lines})
            on_events = [collateral_line[key] for key in own_lines if key in collateral_line]
            if initiating_rank is not None and None not in ranks and initiating_rank not in ranks:
                strength *= _OTHER_RANK_FACTOR
                shown = ", ".join(str(r) for r in sorted(r for r in ranks if r is not None))
                reasons.append(f"x{_OTHER_RANK_FACTOR} seen only on rank(s) {shown}, which failed after rank {initiating_rank}")
            elif first is not None and on_events and all(on_events) and (first.ref.file, first.ref.line) not in own_lines:
                strength *= _OTHER_RANK_FACTOR
                reasons.append(f"x{_OTHER_RANK_FACTOR} its lines are collateral of an earlier failure: {first.ref.text[:100]}")
        weighed.append((h, strength, reasons))
    causes = [h for h, strength, _ in weighed if h.rule_id not in consequence and strength >= _STRONG]
    out: list[RuleHit] = []
    for h, strength, reasons in weighed:
        own_lines = {(ref.file, ref.line) for ref in h.lines}
        others = [o for o, st, _ in weighed if o.entry_id != h.entry_id and st >= _OTHER_RULE]
        if h.rule_id in summary and others and not causes:
            strength *= _CONSEQUENCE_FACTOR
            reasons.append(f"x{_CONSEQUENCE_FACTOR} only the launcher's summary: another rule ({others[0].entry_id}) names what happened")
        elif h.rule_id in consequence:
            if causes:
                strength *= _CONSEQUENCE_FACTOR
                reasons.append(f"x{_CONSEQUENCE_FACTOR} a consequence: the log shows a cause ({causes[0].entry_id}) that it follows from")
            elif first is not None and not first.collateral and (first.ref.file, first.ref.line) not in own_lines:
                strength *= _AFTER_FIRST_FACTOR
                where = f"rank {first.ref.rank}" if first.ref.rank is not None else "the log"
                reasons.append(f"x{_AFTER_FIRST_FACTOR} a consequence: {where} failed first with: {first.ref.text[:120]}")
        out.append(h.model_copy(update={"strength": round(strength, 4), "reasons": reasons}))
    out.sort(key=lambda h: -h.strength)
    return out
