"""Regular expressions that run in time linear in their input: RE2 behind the part of ``re.Pattern`` we use.

Python's ``re`` backtracks, so one pattern with ambiguous nested repetition costs exponential time on a
short hostile line (``node`` + 30 x ``a`` + ``_`` once took 17 s in the hostname recognizer), and it holds
the interpreter lock while it does. RE2 (the ``google-re2`` package) guarantees time linear in the text
for every pattern it accepts, and releases the lock while it matches. It accepts no look-around and no
back-references: a pattern that needs them is rewritten (the boundary a look-behind tested becomes a
consumed ``(?:^|[^...])`` and the masked span a named group), or the exclusion moves into data (a rule's
``unless``). ``compile`` refuses what RE2 cannot run, so nothing slips back to a backtracking engine.

Only what the masking recognizers, the signature rules and the fact sources call is offered: ``search``,
``match``, ``fullmatch``, ``finditer``, ``findall``, ``sub`` and match objects with ``span``, ``start``,
``end``, ``group``, ``groups``, ``groupdict`` and ``lastindex``. Semantics differ from ``re`` in two
known ways, both harmless for logs: ``\\d``, ``\\w``, ``\\s`` and ``\\b`` are ASCII-only, and ``$``
without MULTILINE matches only at the very end of the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

import re2
from re2 import _re2

__all__ = ["LinearRegexError", "Match", "Regex", "cached", "compile"]

_UNANCHORED = _re2.RE2.Anchor.UNANCHORED
_ANCHOR_START = _re2.RE2.Anchor.ANCHOR_START
_ANCHOR_BOTH = _re2.RE2.Anchor.ANCHOR_BOTH
_NULL_SPAN = (-1, -1)
_FLAG_LETTERS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"))
_KNOWN_FLAGS = re.IGNORECASE | re.MULTILINE | re.DOTALL | re.UNICODE


def _options() -> Any:
    options = re2.Options()
    options.log_errors = False  # a refused pattern raises LinearRegexError; RE2 must not also print to stderr
    return options


_OPTIONS = _options()
# RE2's DFA cache budget (8 MiB by default) is enough for a pattern, not for an alternation of hundreds of
# literals (the prefilter's needles, the masker's): the cache fills, is flushed and rebuilt on every few
# lines, and a search costs a millisecond instead of microseconds. ``compile(..., large=True)`` gives such a
# pattern this budget; RE2 takes memory as states are visited, not the budget up front.
LARGE_MAX_MEM = 64 << 20
_LARGE_OPTIONS = _options()
_LARGE_OPTIONS.max_mem = LARGE_MAX_MEM


class LinearRegexError(ValueError):
    """A pattern RE2 cannot run (look-around, back-reference): rewrite it, see the module docstring."""


class Match:
    """One match: the spans of every group, in characters of the searched text."""

    __slots__ = ("_index", "_spans", "pos", "re", "string")

    def __init__(self, regex: Regex, string: str, spans: list[tuple[int, int]], pos: int) -> None:
        self.re = regex
        self.string = string
        self._spans = spans
        self._index = regex.groupindex
        self.pos = pos

    def _group_number(self, group: int | str) -> int:
        if isinstance(group, str):
            try:
                return self._index[group]
            except KeyError:
                raise IndexError(f"no such group {group!r}") from None
        if not 0 <= group < len(self._spans):
            raise IndexError(f"no such group {group}")
        return group

    def span(self, group: int | str = 0) -> tuple[int, int]:
        return self._spans[self._group_number(group)]

    def start(self, group: int | str = 0) -> int:
        return self.span(group)[0]

    def end(self, group: int | str = 0) -> int:
        return self.span(group)[1]

    def _text(self, number: int, default: Any = None) -> Any:
        start, end = self._spans[number]
        return default if start < 0 else self.string[start:end]

    def group(self, *groups: int | str) -> Any:
        if not groups:
            return self._text(0)
        if len(groups) == 1:
            return self._text(self._group_number(groups[0]))
        return tuple(self._text(self._group_number(g)) for g in groups)

    def __getitem__(self, group: int | str) -> Any:
        return self._text(self._group_number(group))

    def groups(self, default: Any = None) -> tuple[Any, ...]:
        return tuple(self._text(n, default) for n in range(1, len(self._spans)))

    def groupdict(self, default: Any = None) -> dict[str, Any]:
        return {name: self._text(n, default) for name, n in self._index.items()}

    @property
    def lastindex(self) -> int | None:
        """The number of the last group that took part (re's rule: the one that closed last)."""
        best, best_end = None, -1
        for n in range(1, len(self._spans)):
            start, end = self._spans[n]
            if start >= 0 and end >= best_end:
                best, best_end = n, end
        return best

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"<linear_regex.Match span={self.span()} match={self.group()!r}>"


class Regex:
    """A compiled RE2 pattern with the ``re.Pattern`` methods crashdoc uses."""

    __slots__ = ("_compiled", "_rx", "flags", "groupindex", "groups", "pattern")

    def __init__(self, pattern: str, flags: int = 0, large: bool = False) -> None:
        if flags & ~_KNOWN_FLAGS:
            raise LinearRegexError(f"flags {flags:#x} have no RE2 equivalent: {pattern!r}")
        letters = "".join(letter for flag, letter in _FLAG_LETTERS if flags & flag)
        source = f"(?{letters}){pattern}" if letters else pattern
        try:
            self._compiled = re2.compile(source, _LARGE_OPTIONS if large else _OPTIONS)
        except re2.error as exc:
            raise LinearRegexError(f"RE2 cannot run this pattern ({exc}): {pattern!r}") from None
        self._rx = self._compiled._regexp
        self.pattern = pattern
        self.flags = flags
        self.groupindex: dict[str, int] = dict(self._compiled.groupindex)
        self.groups: int = self._compiled.groups

    def _spans(
        self, anchor: Any, text: str, pos: int, endpos: int | None, resume: tuple[int, ...] = ()
    ) -> Iterator[tuple[list[tuple[int, int]], int]]:
        """(group spans, position searched from) for each successive match, in character offsets.

        The next search starts where the first of the ``resume`` groups that took part ended (else where the
        match did), and always past the last start.
        """
        size = len(text)
        pos = max(0, min(pos, size))
        endpos = size if endpos is None else max(0, min(endpos, size))
        if pos > endpos:
            return
        if text.isascii():  # the common case: byte offsets are character offsets
            data = text.encode("ascii")
            while True:
                spans = self._rx.Match(anchor, data, pos, endpos)
                if spans[0] == _NULL_SPAN:
                    return
                yield spans, pos
                if anchor != _UNANCHORED or pos == endpos:
                    return
                pos = _resume_at(spans, resume, pos)
                if pos > endpos:
                    return
        else:  # RE2 reads UTF-8: encode once, convert the byte offsets of each match back to characters
            data = text.encode("utf-8", "surrogatepass")
            to_chars = _CharOffsets(data)
            bpos = len(text[:pos].encode("utf-8", "surrogatepass"))
            bend = len(data) - len(text[endpos:].encode("utf-8", "surrogatepass"))
            while True:
                spans = self._rx.Match(anchor, data, bpos, bend)
                if spans[0] == _NULL_SPAN:
                    return
                yield [to_chars.span(s) for s in spans], to_chars(bpos)
                if anchor != _UNANCHORED or bpos == bend:
                    return
                bpos = _resume_at(spans, resume, bpos)
                while bpos < bend and (data[bpos] & 0xC0) == 0x80:  # never inside a character
                    bpos += 1
                if bpos > bend:
                    return

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> Match | None:
        for spans, start in self._spans(_UNANCHORED, text, pos, endpos):
            return Match(self, text, spans, start)
        return None

    def match(self, text: str, pos: int = 0, endpos: int | None = None) -> Match | None:
        for spans, start in self._spans(_ANCHOR_START, text, pos, endpos):
            return Match(self, text, spans, start)
        return None

    def fullmatch(self, text: str, pos: int = 0, endpos: int | None = None) -> Match | None:
        for spans, start in self._spans(_ANCHOR_BOTH, text, pos, endpos):
            return Match(self, text, spans, start)
        return None

    def finditer(
        self, text: str, pos: int = 0, endpos: int | None = None, resume: int | str | tuple[int | str, ...] = 0
    ) -> Iterator[Match]:
        """Successive matches; with ``resume`` a group (or several), each next search starts where it ended."""
        groups = resume if isinstance(resume, tuple) else (resume,)
        numbers = tuple(self.groupindex[g] if isinstance(g, str) else g for g in groups)
        for spans, start in self._spans(_UNANCHORED, text, pos, endpos, numbers):
            yield Match(self, text, spans, start)

    def findall(self, text: str, pos: int = 0, endpos: int | None = None) -> list[Any]:
        found: list[Any] = []
        for m in self.finditer(text, pos, endpos):
            if self.groups == 0:
                found.append(m.group())
            elif self.groups == 1:
                found.append(m.group(1) or "")
            else:
                found.append(m.groups(""))
        return found

    def sub(self, repl: str | Callable[[Match], str], text: str, count: int = 0) -> str:
        """Replace matches; a string ``repl`` is literal except for ``\\g<name>`` and ``\\N`` references."""
        pieces: list[str] = []
        last = 0
        for n, m in enumerate(self.finditer(text), start=1):
            start, end = m.span()
            pieces.append(text[last:start])
            pieces.append(repl(m) if callable(repl) else _expand(repl, m))
            last = end
            if count and n >= count:
                break
        pieces.append(text[last:])
        return "".join(pieces)

    def __repr__(self) -> str:
        return f"linear_regex.compile({self.pattern!r})"


def _resume_at(spans: list[tuple[int, int]], groups: tuple[int, ...], pos: int) -> int:
    """Where the search after a match starts: the end of the first group that took part (or the match's end)."""
    start, end = spans[0]
    for group in groups:
        if group and spans[group][0] >= 0:
            end = spans[group][1]
            break
    return max(end, start + 1)


class _CharOffsets:
    """Byte offsets of UTF-8 data to character offsets, computed incrementally (matches come in order)."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._byte = 0
        self._char = 0

    def __call__(self, offset: int) -> int:
        if offset < self._byte:  # rare: a group that starts before the previous lookup
            self._byte = self._char = 0
        self._char += len(self._data[self._byte : offset].decode("utf-8", "surrogatepass"))
        self._byte = offset
        return self._char

    def span(self, span: tuple[int, int]) -> tuple[int, int]:
        if span == _NULL_SPAN:
            return span
        start = self(span[0])
        return start, self(span[1])


_TEMPLATE_REF = re.compile(r"\\g<(\w+)>|\\(\d{1,2})")  # \g<v> | \1 in a sub() replacement template


def _expand(template: str, m: Match) -> str:
    if "\\" not in template:
        return template
    return _TEMPLATE_REF.sub(lambda r: m.group(int(r[2]) if r[2] else _name_or_number(r[1])) or "", template)


def _name_or_number(ref: str) -> int | str:
    return int(ref) if ref.isdigit() else ref


def compile(pattern: str, flags: int = 0, large: bool = False) -> Regex:
    """``pattern`` compiled for RE2; ``LinearRegexError`` when it needs a backtracking engine. ``large``: an
    alternation of hundreds of literals, given ``LARGE_MAX_MEM`` for its DFA."""
    return Regex(pattern, flags, large)


@lru_cache(maxsize=2048)
def cached(pattern: str, flags: int = 0) -> Regex:
    """``compile``, once per (pattern, flags) in a process: for patterns that are data, looked up by text."""
    return Regex(pattern, flags)
