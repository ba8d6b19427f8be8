"""Cheap prefilters: the literal text a regex match must contain, so most lines skip most patterns.

``required_literals(pattern)`` returns lowercased strings, one of which every match of the pattern contains
(an any-of set: one per branch of a top-level alternation), or ``()`` when no such literal of useful length
exists; a line is searched only if it contains one of them (compared in lower case, so case-insensitive
patterns are safe). The analysis walks the parsed regex (``re._parser``, stable across CPython 3.11+).
"""

from __future__ import annotations

import re
from functools import lru_cache
from re import _constants as sre_constants  # type: ignore[attr-defined]  # requires-python >= 3.11
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

_MIN = 3  # shorter literals filter nothing
_LITERAL = sre_constants.LITERAL
_SUBPATTERN = sre_constants.SUBPATTERN
_BRANCH = sre_constants.BRANCH
_REPEATS = (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT)
_ATOMIC = getattr(sre_constants, "ATOMIC_GROUP", None)
_POSSESSIVE = getattr(sre_constants, "POSSESSIVE_REPEAT", None)

Requirement = frozenset[str]


def _best(candidates: list[Requirement]) -> Requirement | None:
    """The most selective requirement: the one whose shortest literal is longest."""
    useful = [c for c in candidates if c and min(len(s) for s in c) >= _MIN]
    return max(useful, key=lambda c: (min(len(s) for s in c), -len(c))) if useful else None


def _sequence(items: Any) -> Requirement | None:
    return _best(_candidates(items))


def _candidates(items: Any, deep: bool = False) -> list[Requirement]:
    """Requirements of a sequence: each an any-of set of literals that every match must contain (``deep``: also
    each one of the groups it is made of, not only their most selective)."""
    candidates: list[Requirement] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            candidates.append(frozenset(["".join(run).lower()]))
            run.clear()

    for op, av in items:
        if op is _LITERAL:
            run.append(chr(av))
            continue
        flush()
        if op is _SUBPATTERN:
            if deep:
                candidates.extend(_candidates(av[-1], deep))
                continue
            sub = _sequence(av[-1])
            if sub:
                candidates.append(sub)
        elif op is _BRANCH:
            branches = [_sequence(b) for b in av[1]]
            if branches and all(branches):
                candidates.append(frozenset().union(*branches))  # type: ignore[arg-type]
        elif op in _REPEATS or (_POSSESSIVE is not None and op is _POSSESSIVE):
            low, _, body = av
            if low >= 1:
                sub = _sequence(body)
                if sub:
                    candidates.append(sub)
        elif _ATOMIC is not None and op is _ATOMIC:
            sub = _sequence(av)
            if sub:
                candidates.append(sub)
    flush()
    return candidates


@lru_cache(maxsize=4096)
def required_literals(pattern: str, flags: int = 0) -> tuple[str, ...]:
    """Lowercased literals, one of which every match contains; () when the pattern guarantees none."""
    try:
        parsed = sre_parse.parse(pattern, flags)
    except (re.error, TypeError, ValueError):  # pragma: no cover - the pattern compiles elsewhere
        return ()
    found = _sequence(parsed)
    return tuple(sorted(found)) if found else ()


@lru_cache(maxsize=4096)
def requirements(pattern: str, flags: int = 0) -> tuple[tuple[str, ...], ...]:
    """All the requirements of a pattern that are of useful length, most selective first (``required_literals``
    returns the first): every match contains a literal of each. The prefilter picks one no routine line holds."""
    try:
        parsed = sre_parse.parse(pattern, flags)
    except (re.error, TypeError, ValueError):  # pragma: no cover - the pattern compiles elsewhere
        return ()
    useful = {c for c in _candidates(parsed, deep=True) if c and min(len(s) for s in c) >= _MIN}
    ranked = sorted(useful, key=lambda c: (-min(len(s) for s in c), len(c), sorted(c)))
    return tuple(tuple(sorted(c)) for c in ranked)


def trigrams(lowered: str) -> frozenset[str]:
    """Every three-character window of a line (what ``LiteralIndex.candidates`` looks up)."""
    return frozenset(lowered[i : i + 3] for i in range(len(lowered) - 2))


class TrigramMemo(dict[str, frozenset[str]]):
    """One log's line trigrams, computed once: the fact sources and then the rules look up the same lines.

    Bounded: a set costs some KiB per line, so past ``MAX_LINES`` distinct lines it starts over (a 1 GB log's
    tens of thousands of selected lines would otherwise hold hundreds of MB)."""

    MAX_LINES = 8192

    def __missing__(self, lowered: str) -> frozenset[str]:
        if len(self) >= self.MAX_LINES:
            self.clear()
        tris = self[lowered] = trigrams(lowered)
        return tris


class LiteralIndex:
    """Which of many patterns can match a line: literals bucketed by their first three characters.

    The line's trigrams, intersected with the buckets' keys, pick the buckets; each literal in them is confirmed
    with ``in``. Patterns without a required literal are always candidates.
    """

    def __init__(self, literal_sets: list[tuple[str, ...]]) -> None:
        self._always = [i for i, lits in enumerate(literal_sets) if not lits]
        self._by_trigram: dict[str, list[tuple[str, int]]] = {}
        for index, lits in enumerate(literal_sets):
            for lit in lits:
                self._by_trigram.setdefault(lit[:3], []).append((lit, index))
        self._keys = frozenset(self._by_trigram)

    def candidates(self, lowered: str, tris: frozenset[str] | None = None) -> list[int]:
        """Indexes (ascending) of the patterns that may match the lowercased line (``tris``: its trigrams, if known)."""
        found = set(self._always)
        for tri in (tris if tris is not None else trigrams(lowered)) & self._keys:
            found.update(index for lit, index in self._by_trigram[tri] if lit in lowered)
        return sorted(found)
