"""Presidio configured for logs: blank spaCy pipeline, no network, our registry, a cheap prefilter.

Built once per process (``Masker``); holds no per-run state, so concurrent ``mask()`` calls share it.
Stock Presidio spends its time where logs do not need it: a spaCy pass and a deep-copying context
enhancer on every call, and every recognizer on every line. Here the recognizers carry their context in
their regexes, so the analyzer gets pre-built empty NLP artifacts and a pass-through enhancer, and only
the recognizers whose trigger fires on the text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

import spacy
from presidio_analyzer import AnalyzerEngine, EntityRecognizer, RecognizerRegistry, RecognizerResult
from presidio_analyzer.context_aware_enhancers import ContextAwareEnhancer
from presidio_analyzer.nlp_engine import NlpArtifacts, SpacyNlpEngine
from presidio_anonymizer import AnonymizerEngine

from service import linear_regex
from service.errors import ConfigError
from service.masking.base import Entry
from service.masking.kinds import KINDS
from service.masking.protect import overlaps, protected_spans
from service.masking.recognizers import REGISTRY


class Span(NamedTuple):
    """A span to mask, with its provenance: the recognizer pattern that found it."""

    start: int
    end: int
    entity: str
    pattern: str = ""


class BlankSpacyNlpEngine(SpacyNlpEngine):
    """spaCy's blank English pipeline: a tokenizer, no model download, no 1,000,000-character limit."""

    def __init__(self) -> None:
        super().__init__(models=[{"lang_code": "en", "model_name": "blank:en"}])

    def load(self) -> None:
        nlp = spacy.blank("en")
        nlp.max_length = 1 << 31
        self.nlp = {"en": nlp}  # type: ignore[assignment]


class PassThroughEnhancer(ContextAwareEnhancer):
    """Our patterns encode their own context; the stock lemma enhancer deep-copies every result."""

    def __init__(self) -> None:
        super().__init__(0.0, 0.0, 0, 0)

    def enhance_using_context(self, text, raw_results, nlp_artifacts, recognizers, context=None):  # type: ignore[no-untyped-def]
        return raw_results


def build_analyzer(recognizers: Sequence[EntityRecognizer]) -> AnalyzerEngine:
    nlp_engine = BlankSpacyNlpEngine()
    nlp_engine.load()
    registry = RecognizerRegistry(recognizers=list(recognizers), supported_languages=["en"])
    return AnalyzerEngine(
        registry=registry,
        nlp_engine=nlp_engine,
        supported_languages=["en"],
        context_aware_enhancer=PassThroughEnhancer(),
    )


def _pattern_name(r: RecognizerResult) -> str:
    explanation = r.analysis_explanation
    return (explanation.pattern_name or explanation.recognizer) if explanation is not None else ""


def _gated_by(needle: str, needles: Sequence[str], entries: Sequence[Entry]) -> set[str]:
    """Entities of every needle found inside ``needle`` or starting inside it and running past its end."""
    related = {m for m in needles if m in needle or any(needle.endswith(m[:k]) for k in range(1, len(m)))}
    return {e.entity for e in entries if any(m in related for m in e.needles)}


class Masker:
    """Finds what to mask in a piece of text. Heavy to build (Presidio engines), cheap and thread-safe to use."""

    def __init__(self, registry: Sequence[Entry] = REGISTRY) -> None:
        try:
            self.entries = list(registry)
            self.analyzer = build_analyzer([e.build() for e in self.entries])
            self.anonymizer = AnonymizerEngine()
            # empty artifacts, made once: our recognizers read the text, never tokens or lemmas
            self._artifacts: NlpArtifacts = self.analyzer.nlp_engine.process_text("", "en")
            self._order = {e.entity: i for i, e in enumerate(self.entries)}
            # needle -> the entities it gates, widened to those of needles inside it or overlapping its end,
            # so one left-to-right scan (which skips overlapping matches) still finds every gated entity
            needles = sorted({n for e in self.entries for n in e.needles}, key=len, reverse=True)
            self._needle_entities = {n: _gated_by(n, needles, self.entries) for n in needles}
            self._needles = re.compile("|".join(map(re.escape, needles)))
            self._triggers = linear_regex.compile("|".join(f"(?:{e.trigger})" for e in self.entries if e.trigger))
            self._entity_triggers = [(e.entity, linear_regex.compile(e.trigger)) for e in self.entries if e.trigger]
            self.find("warm-up: MASTER_ADDR=gpu-node-1 10.0.0.1 a@b.com 4111 1111 1111 1111 00:1b:21:3a:4f:5c")
        except Exception as exc:  # Presidio or spaCy set-up: a broken installation, not bad input
            raise ConfigError(
                f"The masker could not start: {exc}", hint="Reinstall crashdoc's dependencies (presidio, spacy)."
            ) from exc

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
        results = self.analyzer.analyze(text=text, language="en", entities=entities, nlp_artifacts=self._artifacts)
        return self._resolve(text, results)

    def _priority(self, r: RecognizerResult) -> tuple[int, int, int, int]:
        if KINDS[r.entity_type].secret:
            return (0, self._order[r.entity_type], r.start - r.end, r.start)
        return (1, r.start - r.end, self._order[r.entity_type], r.start)

    def _resolve(self, text: str, results: list[RecognizerResult]) -> tuple[Span, ...]:
        protected: list[tuple[int, int]] | None = None
        kept: list[RecognizerResult] = []
        for r in results:
            if r.entity_type not in KINDS:
                continue
            if not KINDS[r.entity_type].secret:
                if protected is None:
                    protected = protected_spans(text)
                if overlaps(r.start, r.end, protected):
                    continue  # a timestamp, version or address, not an identity
            kept.append(r)
        # credentials first, in registry order (a specific token beats the generic KEY=value setting around
        # it), then identities, longest first (an email beats the host inside it)
        kept.sort(key=self._priority)
        chosen: list[RecognizerResult] = []
        for r in kept:
            if not any(r.start < c.end and c.start < r.end for c in chosen):
                chosen.append(r)
        return tuple(sorted(Span(r.start, r.end, r.entity_type, _pattern_name(r)) for r in chosen))
