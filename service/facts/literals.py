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

import re2

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


def _literal_pattern(literal: str) -> str:
    """An RE2 pattern matching exactly ``literal``: ASCII letters and digits as they are, every other character
    as ``\\x{HEX}`` (no escape rules of either engine to get wrong)."""
    return "".join(c if c.isascii() and c.isalnum() else f"\\x{{{ord(c):x}}}" for c in literal)


def _set_options() -> Any:
    options = re2.Options()
    options.log_errors = False
    options.max_mem = 64 << 20  # a DFA over some thousand literals; RE2's 8 MiB default is near its limit
    return options


class LiteralIndex:
    """Which of many patterns can match a line: one RE2 set over every literal of every pattern.

    A line is searched once, in C, for all the literals at a time (``re2.Set``: every literal that occurs,
    overlaps included); the patterns with a literal in the line are the candidates. Patterns without a required
    literal are always candidates.
    """

    def __init__(self, literal_sets: list[tuple[str, ...]]) -> None:
        self._always = frozenset(i for i, lits in enumerate(literal_sets) if not lits)
        literals = sorted({lit for lits in literal_sets for lit in lits})
        owners: dict[str, list[int]] = {lit: [] for lit in literals}
        for index, lits in enumerate(literal_sets):
            for lit in lits:
                owners[lit].append(index)
        self._owners = [tuple(owners[lit]) for lit in literals]
        self._set = None
        if literals:
            self._set = re2.Set.SearchSet(_set_options())
            for lit in literals:
                self._set.Add(_literal_pattern(lit))
            self._set.Compile()

    def candidates(self, lowered: str) -> list[int]:
        """Indexes (ascending) of the patterns that may match the lowercased line."""
        found = set(self._always)
        if self._set is not None:
            for k in self._set.Match(lowered) or ():
                found.update(self._owners[k])
        return sorted(found)
