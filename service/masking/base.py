"""The shape of a registry entry, and the recognizer each entry builds.

A recognizer is a Presidio-style pattern recognizer (same results, same duplicate rule) that imports
nothing from Presidio: ``presidio_analyzer`` imports spaCy and its command line (requests, typer, rich,
httpx, jinja2) whatever is used, about 200 MB and most of a cold start. ``service.masking.presidio``
plugs the same entries into Presidio's ``AnalyzerEngine``; a test checks both find the same spans.

An ``Entry`` is gated twice before a recognizer spends time on a line: by the entry's needles and trigger
(the prefilter: can this entity occur here at all?) and, inside the recognizer, by each pattern's
needles (which of its patterns can?). Needles are lower-case substrings looked up in the lower-cased
text; triggers are regexes on the text. Neither may depend on which digit a character is (needles hold
no digits, triggers use ``\\d`` or classes with all of 0-9): verdicts are cached per digit-folded shape.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from service import linear_regex

Check = Callable[[str, Any, int, int], bool]  # (text, match, start, end) -> keep?


@dataclass(frozen=True)
class P:
    """One pattern: a name (shown in the analysis explanation), a regex, an own check, its needles.

    The regex runs on RE2 (linear time, see ``service/linear_regex.py``): no look-around. Where a
    look-behind would have tested the character before a value, the pattern consumes it and the value
    is the named group ``v``; matching resumes at the end of ``v``, so a consumed character after one
    value can still be the boundary before the next. ``split`` cuts ``v`` into one span per piece
    (``nodes=gpu-a,gpu-b``: two hosts).
    """

    name: str
    regex: str
    check: Check | None = None
    needles: tuple[str, ...] = ()  # lower-case substrings, one of which the text must hold; () = always run
    split: str = ""
    flags: int = re.MULTILINE


@dataclass(frozen=True)
class Entry:
    entity: str
    needles: tuple[str, ...] = ()  # the entity can occur only where one of these occurs (lower-cased text)...
    trigger: str = ""  # ...or where this regex matches
    patterns: tuple[P, ...] = ()
    check: Check | None = None  # the default check for patterns without their own
    score: float = 0.9

    def __post_init__(self) -> None:
        for needle in self.needles + tuple(n for p in self.patterns for n in p.needles):
            if needle != needle.lower() or any(c.isdigit() for c in needle):
                raise ValueError(f"{self.entity}: needle {needle!r} must be lower-case and hold no digit")
        if not self.needles and not self.trigger:
            raise ValueError(f"{self.entity}: an entry needs needles or a trigger")
        if not self.patterns:
            raise ValueError(f"{self.entity}: an entry needs patterns")

    def build(self) -> LogPatternRecognizer:
        return LogPatternRecognizer(self.entity, f"{self.entity.lower()}_recognizer", self.patterns, self.check, self.score)


class Finding(NamedTuple):
    """One recognizer result: what Presidio's ``RecognizerResult`` carries that masking reads."""

    entity: str
    start: int
    end: int
    score: float
    pattern: str  # the pattern's name: the provenance of a mask and of a learned name
    recognizer: str


def _needle_test(needles: tuple[str, ...]) -> Callable[[str], object] | None:
    """A test on the lower-cased text: does it hold one of ``needles``? None when the pattern has none."""
    if not needles:
        return None
    if len(needles) == 1:
        return _Contains(needles[0])
    return re.compile("|".join(map(re.escape, needles))).search


class _Contains:
    def __init__(self, needle: str) -> None:
        self.needle = needle

    def __call__(self, low: str) -> bool:
        return self.needle in low


class LogPatternRecognizer:
    """Finds an entity's values: the ``v`` group when there is one, kept when the context check agrees."""

    def __init__(self, entity: str, name: str, patterns: tuple[P, ...], check: Check | None, score: float) -> None:
        self._compiled = [
            (p, linear_regex.compile(p.regex, p.flags), p.check or check, _needle_test(p.needles)) for p in patterns
        ]
        self.patterns = patterns
        self.name = name
        self.entity = entity
        self.score = score

    def analyze(self, text: str) -> list[Finding]:
        results: list[Finding] = []
        low = text.lower()
        for pattern, rx, check, needle_test in self._compiled:
            if needle_test is not None and not needle_test(low):
                continue
            for m, start, end in _values(rx, text, pattern.split):
                if check is not None and not check(text, m, start, end):
                    continue
                results.append(Finding(self.entity, start, end, self.score, pattern.name, self.name))
        return remove_duplicates(results)


def remove_duplicates(results: list[Finding]) -> list[Finding]:
    """Presidio's ``EntityRecognizer.remove_duplicates``: drop zero scores, repeats of a span (the first
    found is kept), and a result inside another of its entity with an equal or higher score; score first."""
    unique = list({(r.start, r.end, r.score, r.entity): r for r in reversed(results)}.values())
    unique.sort(key=lambda r: (r.entity, r.start, r.start - r.end, -r.score))
    kept: list[Finding] = []
    active: list[Finding] = []
    entity = None
    for r in unique:
        if r.entity != entity:
            entity, active = r.entity, []
        if r.score == 0:
            continue
        active = [a for a in active if a.end >= r.start]
        if not any(a.start <= r.start and r.end <= a.end and r.score <= a.score for a in active):
            kept.append(r)
            active.append(r)
    return sorted(kept, key=lambda r: (-r.score, r.start, r.start - r.end))


_VALUE_GROUPS = ("v", "w")  # the masked value; ``w`` where a pattern's alternatives need a second name


def _values(rx: linear_regex.Regex, text: str, split: str) -> Iterator[tuple[linear_regex.Match, int, int]]:
    """(match, start, end) of each value: the ``v`` group (or the match), cut at ``split`` when set.

    Each next search starts at the value's end, not the match's: a character a pattern consumed after
    one value (its right boundary) may be the left boundary of the next.
    """
    groups = tuple(g for g in _VALUE_GROUPS if g in rx.groupindex) or (0,)
    for m in rx.finditer(text, resume=groups):
        start, end = next((m.span(g) for g in groups if m.start(g) >= 0), (-1, -1))
        if start < 0 or start == end:
            continue
        if not split:
            yield m, start, end
            continue
        for piece in text[start:end].split(split):
            if piece:
                yield m, start, start + len(piece)
            start += len(piece) + len(split)
