"""The masker: the registry's recognizers behind a cheap prefilter, and the overlap rules.

Built once per process (``Masker``); holds no per-run state, so concurrent ``mask()`` calls share it.
It runs what Presidio's ``AnalyzerEngine`` would run for our registry (each recognizer's results, the
duplicate rule) without importing Presidio, which brings spaCy and its command line into every process
that masks (``service.masking.presidio`` runs the same registry through Presidio itself, and
tests/masking/test_presidio_parity.py checks the two agree). Stock Presidio also spends its time where logs
do not need it: a spaCy pass and a context enhancer on every call, and every recognizer on every line.
Here the recognizers carry their context in their regexes, and only those whose trigger fires run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from service import linear_regex
from service.errors import ConfigError
from service.masking.base import Entry, Finding, LogPatternRecognizer, remove_duplicates
from service.masking.kinds import KINDS
from service.masking.protect import overlaps, protected_spans
from service.masking.recognizers import REGISTRY


class Span(NamedTuple):
    """A span to mask, with its provenance: the recognizer pattern that found it."""

    start: int
    end: int
    entity: str
    pattern: str = ""


def _pattern_name(r: Finding) -> str:
    return r.pattern or r.recognizer


def _gated_by(needle: str, needles: Sequence[str], entries: Sequence[Entry]) -> set[str]:
    """Entities of every needle found inside ``needle`` or starting inside it and running past its end."""
    related = {m for m in needles if m in needle or any(needle.endswith(m[:k]) for k in range(1, len(m)))}
    return {e.entity for e in entries if any(m in related for m in e.needles)}


class Masker:
    """Finds what to mask in a piece of text. Built once per process (the patterns compiled), cheap and
    thread-safe to use."""

    def __init__(self, registry: Sequence[Entry] = REGISTRY) -> None:
        try:
            self.entries = list(registry)
            self.recognizers: dict[str, list[LogPatternRecognizer]] = {}
            for e in self.entries:
                self.recognizers.setdefault(e.entity, []).append(e.build())
            self._order = {e.entity: i for i, e in enumerate(self.entries)}
            # needle -> the entities it gates, widened to those of needles inside it or overlapping its end,
            # so one left-to-right scan (which skips overlapping matches) still finds every gated entity
            needles = sorted({n for e in self.entries for n in e.needles}, key=len, reverse=True)
            self._needle_entities = {n: _gated_by(n, needles, self.entries) for n in needles}
            # RE2: one linear pass, not one try per needle; ``large``: a DFA budget for alternations this size
            self._needles = linear_regex.compile("|".join(map(re.escape, needles)), large=True)
            self._triggers = linear_regex.compile("|".join(f"(?:{e.trigger})" for e in self.entries if e.trigger), large=True)
            self._entity_triggers = [(e.entity, linear_regex.compile(e.trigger)) for e in self.entries if e.trigger]
        except Exception as exc:  # a pattern RE2 refuses, a missing package: a broken installation, not bad input
            raise ConfigError(
                f"The masker could not start: {exc}", hint="Reinstall crashdoc's dependencies (google-re2, tldextract)."
            ) from exc

    def warm(self) -> None:
        """Load what the checks load on first use (the public-suffix list for emails): the service does this at
        start so its first request is not the slow one; a command-line run loads only what its log needs."""
        self.find("warm-up: MASTER_ADDR=gpu-node-1 10.0.0.1 a@b.com 4111 1111 1111 1111 00:1b:21:3a:4f:5c")

    def may_hold(self, text: str) -> bool:
        """The cheap check: False means no recognizer can match anywhere in ``text``."""
        return self._needles.search(text.lower()) is not None or self._triggers.search(text) is not None

    def entities_for(self, text: str) -> list[str]:
        """The entities whose needles or trigger occur in ``text``: only their recognizers run."""
        found: set[str] = set()
        for m in self._needles.finditer(text.lower()):
            found |= self._needle_entities[m.group()]
        found.update(entity for entity, trigger in self._entity_triggers if entity not in found and trigger.search(text))
        return sorted(found, key=self._order.__getitem__)

    def find(self, text: str) -> tuple[Span, ...]:
        """Spans to mask in ``text``: non-overlapping, credentials first (registry order), then identities."""
        entities = self.entities_for(text)
        if not entities:
            return ()
        return self._resolve(text, self.findings(text, entities))

    def findings(self, text: str, entities: Sequence[str]) -> list[Finding]:
        """What the recognizers of ``entities`` find, before the overlap rules (AnalyzerEngine.analyze's part)."""
        results = [r for entity in entities for rec in self.recognizers.get(entity, ()) for r in rec.analyze(text)]
        return remove_duplicates(results)

    def _priority(self, r: Finding) -> tuple[int, int, int, int]:
        if KINDS[r.entity].secret:
            return (0, self._order[r.entity], r.start - r.end, r.start)
        return (1, r.start - r.end, self._order[r.entity], r.start)

    def _resolve(self, text: str, results: Sequence[Finding]) -> tuple[Span, ...]:
        protected: list[tuple[int, int]] | None = None
        kept: list[Finding] = []
        for r in results:
            if r.entity not in KINDS:
                continue
            if not KINDS[r.entity].secret:
                if protected is None:
                    protected = protected_spans(text)
                if overlaps(r.start, r.end, protected):
                    continue  # a timestamp, version or address, not an identity
            kept.append(r)
        # credentials first, in registry order (a specific token beats the generic KEY=value setting around
        # it), then identities, longest first (an email beats the host inside it)
        kept.sort(key=self._priority)
        chosen: list[Finding] = []
        for r in kept:
            if not any(r.start < c.end and c.start < r.end for c in chosen):
                chosen.append(r)
        return tuple(sorted(Span(r.start, r.end, r.entity, _pattern_name(r)) for r in chosen))
