"""Which of many signal fragments occur in a stream of units: one multi-pattern pass per artifact.

A fragment *occurs* when it is a substring of some rendering of a unit, or of up to three adjacent
units (C++ messages are often built from pieces stored side by side), where a WILD renders as text
without spaces (a number, a name, a path). Candidates come from *probes*: literal runs of the fragment
that a placeholder cannot have produced (its anchors), its words, and for a traceback frame
(``in name``) the ``def name(`` that defines it. All probes of all fragments are searched in one pass
over each batch of units, with an Aho-Corasick automaton (pyahocorasick, the ``signals`` extra) or,
without it, one ``str.find`` sweep per probe; each hit is then checked exactly, around the hit. An
anchor is checked a bounded number of times per fragment and a word only at its first occurrences in
the artifact, so that a common word ("tensor", "with") costs little.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from retrieval.signal_units import SEP, WILD

WINDOW = 3  # units a fragment may span
ANCHOR_CHECKS = 400  # hits of one anchor checked per fragment
WORD_CHECKS = 5000  # first hits of a word checked (the last resort: placeholders between words)
WORDS = 2  # words probed per fragment: its longest plain ones, which are mostly its rarest
_BATCH_CHARS = 1 << 22  # units are searched in joined batches of about this many characters

_SPLIT = re.compile(r"0x[0-9a-fA-F]+|\d+|[/=()<>\[\]'\"`:,]")
_WORD = re.compile(r"[A-Za-z_][A-Za-z_.]{3,}")
_TRACEBACK_FRAME = re.compile(r"^in (\w+)$")  # a traceback's "File ..., line N, in reduce_partition_and_remove_grads"


@lru_cache(maxsize=8192)
def _compiled(template: str) -> tuple[dict[str, int], int]:
    """The shift-and tables of a template: a bit mask of its positions per character, and of its WILDs
    (cached: the same window is checked for many probes and fragments)."""
    wild = 0
    masks: dict[str, int] = {}
    for j, ch in enumerate(template):
        if ch == WILD:
            wild |= 1 << j
        else:
            masks[ch] = masks.get(ch, 0) | (1 << j)
    return masks, wild


def _matches(fragment: str, template: str) -> bool:
    """Is `fragment` a substring of some rendering of `template`, where each WILD renders as text without
    spaces (a number, a name, a path), using at least one literal character of the template (a WILD alone,
    or the WILD between two joined units, renders any word)? Shift-and over the template positions."""
    if WILD not in template:
        return fragment in template  # the same answer, at C speed
    m = len(template)
    masks, wild = _compiled(template)

    def close(s: int) -> int:  # a wildcard may render as nothing: step over it
        while True:
            nxt = s | ((s & wild) << 1)
            if nxt == s:
                return s
            s = nxt

    state = close((1 << m) - 1)  # the fragment may start anywhere
    literal = 0  # the states of renderings that have used a literal character
    for ch in fragment:
        inside = 0 if ch.isspace() else wild
        step = (state & masks.get(ch, 0)) << 1
        state, literal = close(step | (state & inside)), close(step | (literal & inside))
        if not state:
            return False
    return literal != 0


def _mostly_literal(fragment: str, template: str, share: float = 0.5) -> bool:
    """Like `_matches`, but a WILD may render as any text (a reason sentence, a phrase), as long as at least
    `share` of the fragment's characters match literal template text."""
    best: dict[int, int] = {j: 0 for j in range(len(template))}

    def close(cur: dict[int, int]) -> dict[int, int]:
        for j in sorted(cur):
            if j < len(template) and template[j] == WILD and cur[j] > cur.get(j + 1, -1):
                cur[j + 1] = cur[j]
        return cur

    best = close(best)
    for ch in fragment:
        nxt: dict[int, int] = {}
        for j, v in best.items():
            if j >= len(template):
                continue
            if template[j] == WILD:
                nxt[j] = max(nxt.get(j, -1), v)
            elif template[j] == ch:
                nxt[j + 1] = max(nxt.get(j + 1, -1), v + 1)
        if not nxt:
            return False
        best = close(nxt)
    return max(best.values()) >= share * len(fragment)


def anchors(fragment: str) -> list[str]:
    """Literal runs of a fragment that a placeholder cannot have produced (numbers, paths and quoted
    values usually are placeholders), longest first; the fragment itself first."""
    chunks = {c.strip() for c in _SPLIT.split(fragment)}
    ranked = sorted((c for c in chunks if len(c) >= 4), key=len, reverse=True)
    return list(dict.fromkeys([fragment.strip(), *ranked]))


@dataclass(frozen=True)
class _Probe:
    """A pattern searched for one fragment, and how a hit of it is checked."""

    fragment: str
    kind: str  # "frame": a hit is enough; "anchor": exact or mostly literal; "word": exact only
    checks: int


def probes_of(fragment: str) -> list[tuple[str, _Probe]]:
    """(pattern, probe) pairs for one fragment: its anchors, then its longest words."""
    frame = _TRACEBACK_FRAME.match(fragment.strip())
    if frame:
        return [(f"def {frame.group(1)}(", _Probe(fragment, "frame", 1))]
    out = [(a, _Probe(fragment, "anchor", ANCHOR_CHECKS)) for a in anchors(fragment)]
    # Dotted or snake_case words are often what a placeholder printed (a module path, a parameter name).
    plain = dict.fromkeys(w.strip(".") for w in _WORD.findall(fragment))
    words = sorted(plain, key=lambda w: ("." in w or "_" in w, -len(w)))[:WORDS]
    return out + [(w, _Probe(fragment, "word", WORD_CHECKS)) for w in words]


class _Searcher(Protocol):
    def iter(self, text: str) -> Iterator[tuple[int, str]]: ...  # (index of the last character, pattern)


class _FindEach:
    """The fallback without pyahocorasick: one str.find sweep per pattern, hits in text order."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = sorted(set(patterns))

    def iter(self, text: str) -> Iterator[tuple[int, str]]:
        hits: list[tuple[int, str]] = []
        for p in self.patterns:
            pos = text.find(p)
            while pos != -1:
                hits.append((pos + len(p) - 1, p))
                pos = text.find(p, pos + 1)
        hits.sort()
        return iter(hits)


class _AhoCorasick:
    """All patterns in one pass (pyahocorasick)."""

    def __init__(self, patterns: Iterable[str]) -> None:
        import ahocorasick

        self.automaton = ahocorasick.Automaton()
        for p in set(patterns):
            self.automaton.add_word(p, p)
        self.automaton.make_automaton()

    def iter(self, text: str) -> Iterator[tuple[int, str]]:
        return self.automaton.iter(text)  # type: ignore[no-any-return]


def have_aho_corasick() -> bool:
    try:
        import ahocorasick  # noqa: F401
    except ImportError:
        return False
    return True


# A traceback's last line, "<exception type>: <message>": the type is named by the release (or is a
# builtin it raises) and the message is printed by it ("RuntimeError: CUDA out of memory.").
_EXCEPTION_LINE = re.compile(r"^(?:[A-Za-z_]\w*\.)*([A-Z]\w*(?:Error|Exception|Warning|Interrupt|Exit)): (\S.*)$")
# A qualified name as a traceback prints it ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError"):
# the module is a file of the release and defines the name.
_QUALIFIED = re.compile(r"^((?:[A-Za-z_]\w*\.)+)([A-Za-z_]\w*):?$")


def requirements_of(fragment: str) -> list[list[str]]:
    """What must occur for a fragment to occur: groups of alternatives, every group needed."""
    text = fragment.strip()
    if m := _EXCEPTION_LINE.match(text):
        return [[m.group(1)], [m.group(2)]]
    if m := _QUALIFIED.match(text):
        module = m.group(1).rstrip(".").replace(".", "/")
        name = m.group(2)
        return [[f"{module}.py", f"{module}/__init__.py"], [f"class {name}(", f"class {name}:", f"def {name}("]]
    return [[fragment]]


class Scanner:
    """Feed it the units of one artifact in order; it says which fragments occur. Holds one batch."""

    def __init__(self, fragments: Iterable[str], fast: bool | None = None) -> None:
        self._needs = {frag: requirements_of(frag) for frag in dict.fromkeys(fragments)}
        # What is searched: the pieces the fragments need (most fragments need only themselves).
        self.fragments = list(dict.fromkeys(p for groups in self._needs.values() for group in groups for p in group))
        self.found: set[str] = set()  # pieces found
        self._probes: dict[str, list[_Probe]] = {}
        for frag in self.fragments:
            for pattern, probe in probes_of(frag):
                self._probes.setdefault(pattern, []).append(probe)
        self._left: dict[tuple[str, _Probe], int] = {}  # (anchor, probe) -> checks left
        self._seen: dict[str, int] = {}  # pattern -> hits so far
        use_fast = have_aho_corasick() if fast is None else fast
        self._searcher: _Searcher = (_AhoCorasick if use_fast else _FindEach)(self._probes) if self._probes else _FindEach([])
        self._units: list[str] = []
        self._chars = 0
        self._fresh = 0  # units before this index were searched already (kept as left context)

    @property
    def done(self) -> bool:
        return len(self.found) == len(self.fragments)

    def feed(self, units: Iterable[str]) -> None:
        for u in units:
            self._units.append(u)
            self._chars += len(u) + 1
            if self._chars >= _BATCH_CHARS:
                self._search(final=False)

    def finish(self) -> set[str]:
        """The fragments that occur: those whose every requirement has a piece found."""
        self._search(final=True)
        return {f for f, groups in self._needs.items() if all(any(p in self.found for p in g) for g in groups)}

    def _search(self, final: bool) -> None:
        units = self._units
        # A unit is searched once its right context (the WINDOW-1 units after it) has arrived.
        until = len(units) if final else max(self._fresh, len(units) - (WINDOW - 1))
        if until > self._fresh and not self.done:
            text = SEP.join(units)
            starts, pos = [], 0
            for u in units:
                starts.append(pos)
                pos += len(u) + 1
            for end, pattern in self._searcher.iter(text):
                k = bisect.bisect_right(starts, end - len(pattern) + 1) - 1
                if self._fresh <= k < until:
                    self._check(pattern, k, end + 1 - starts[k])
                    if self.done:
                        break
        keep = max(0, until - (WINDOW - 1))  # left context for the next batch
        self._units = units[keep:]
        self._chars = sum(len(u) + 1 for u in self._units)
        self._fresh = until - keep

    def _check(self, pattern: str, k: int, at: int) -> None:
        units = self._units
        seen = self._seen[pattern] = self._seen.get(pattern, 0) + 1
        for probe in self._probes[pattern]:
            frag = probe.fragment
            if frag in self.found:
                continue
            if probe.kind == "word":
                if seen > WORD_CHECKS:  # only a word's first occurrences: a common word says little
                    continue
            else:
                key = (pattern, probe)
                left = self._left.get(key, probe.checks)
                if left <= 0:
                    continue
                self._left[key] = left - 1
            if probe.kind == "frame" or _window_matches(frag, units, k, at, loose=probe.kind == "anchor"):
                self.found.add(frag)


def _window_matches(fragment: str, units: list[str], k: int, at: int, loose: bool) -> bool:
    """Does the fragment occur in a window of up to WINDOW adjacent units that holds unit k, in a
    rendering that reaches the probe's hit (which ends at offset `at` of unit k)?"""
    # A rendering of the fragment spans at most len(fragment) literal characters plus the WILDs among
    # them, so only that far on either side of the hit is checked: long units (embedded PTX, tables)
    # cost no more than short ones.
    reach = 2 * len(fragment) + 64

    def around(lo: int, hi: int) -> str:
        window = WILD.join(units[lo:hi])
        if len(window) <= 2 * reach:
            return window
        hit = sum(len(u) + 1 for u in units[lo:k]) + at  # the hit's end, as an offset into the window
        return window[max(0, hit - reach) : hit + reach]

    first = max(0, k - WINDOW + 1)
    if _could_match(fragment, around(first, min(len(units), k + WINDOW))):  # every window below is inside it
        for lo in range(first, k + 1):
            for hi in range(k + 1, min(len(units), lo + WINDOW) + 1):
                if _matches(fragment, around(lo, hi)):
                    return True
    return loose and _mostly_literal(fragment, around(k, k + 1))


def _could_match(fragment: str, template: str) -> bool:
    """A quick test that `_matches` needs: a WILD renders without spaces, so each word of the fragment
    that has a space on both sides is the rendering of one whole space-delimited token of the template."""
    words = fragment.split()
    if len(words) < 3:
        return True
    tokens = template.split()
    literal = set(tokens)
    wild = [t for t in tokens if WILD in t]
    for word in sorted(words[1:-1], key=len, reverse=True)[:2]:
        if word not in literal and not any(_renders_as(t, word) for t in wild):
            return False
    return True


def _renders_as(token: str, word: str) -> bool:
    """Can a token with WILDs render exactly as `word` (a word has no spaces, so any WILD text will do)?
    Glob matching: the literal pieces in order, the first at the start and the last at the end."""
    pieces = token.split(WILD)
    if sum(map(len, pieces)) > len(word) or not word.startswith(pieces[0]) or not word.endswith(pieces[-1]):
        return False
    pos, end = len(pieces[0]), len(word) - len(pieces[-1])
    for piece in pieces[1:-1]:
        pos = word.find(piece, pos, end)
        if pos == -1:
            return False
        pos += len(piece)
    return pos <= end


def scan(units: Iterable[str], fragments: Iterable[str], fast: bool | None = None) -> set[str]:
    """The fragments that occur in `units` (all in memory: tests and small inputs)."""
    scanner = Scanner(fragments, fast)
    scanner.feed(units)
    return scanner.finish()
