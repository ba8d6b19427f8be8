"""The registry inside Presidio itself: for a program that already runs Presidio, and to check parity.

Masking does not import Presidio (``service.masking.engine`` says why). This module gives the same
recognizers as Presidio ``PatternRecognizer`` objects behind an ``AnalyzerEngine`` on a blank spaCy
pipeline, the way crashdoc ran them before; tests/masking/test_presidio_parity.py checks both find the
same spans, and benchmarks/bench_mask.py uses the blank pipeline for stock Presidio.

Presidio and spaCy are imported by ``presidio_loader.import_presidio`` (transformers and torch hidden).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from service.masking.base import Entry
from service.masking.presidio_loader import import_presidio
from service.masking.recognizers import REGISTRY


def blank_nlp_engine() -> Any:
    """spaCy's blank English pipeline as a Presidio NLP engine: a tokenizer, no model download, no length limit."""
    import_presidio()
    import spacy
    from presidio_analyzer.nlp_engine import SpacyNlpEngine

    class BlankSpacyNlpEngine(SpacyNlpEngine):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__(models=[{"lang_code": "en", "model_name": "blank:en"}])

        def load(self) -> None:
            nlp = spacy.blank("en")
            nlp.max_length = 1 << 31
            self.nlp = {"en": nlp}  # type: ignore[assignment]

    engine = BlankSpacyNlpEngine()
    engine.load()
    return engine


def analyzer(registry: Sequence[Entry] = REGISTRY) -> Any:
    """A Presidio ``AnalyzerEngine`` running the registry's recognizers (and no others)."""
    import_presidio()
    from presidio_analyzer import (
        AnalysisExplanation,
        AnalyzerEngine,
        EntityRecognizer,
        Pattern,
        PatternRecognizer,
        RecognizerRegistry,
        RecognizerResult,
    )
    from presidio_analyzer.context_aware_enhancers import ContextAwareEnhancer

    class Recognizer(PatternRecognizer):  # type: ignore[misc]
        """One entry's recognizer, its results as Presidio's ``RecognizerResult``."""

        def __init__(self, entry: Entry) -> None:
            self.inner = entry.build()
            super().__init__(supported_entity=entry.entity, name=self.inner.name,
                             patterns=[Pattern(p.name, p.regex, entry.score) for p in entry.patterns],
                             global_regex_flags=re.MULTILINE)

        def analyze(self, text, entities, nlp_artifacts=None, regex_flags=None):  # type: ignore[no-untyped-def]
            out = []
            for f in self.inner.analyze(text):
                explanation = AnalysisExplanation(recognizer=f.recognizer, original_score=f.score, pattern_name=f.pattern)
                metadata = {RecognizerResult.RECOGNIZER_NAME_KEY: f.recognizer, RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id}
                out.append(RecognizerResult(f.entity, f.start, f.end, f.score, explanation, metadata))
            return EntityRecognizer.remove_duplicates(out)

    class PassThroughEnhancer(ContextAwareEnhancer):  # type: ignore[misc]
        """The patterns encode their own context; the stock lemma enhancer deep-copies every result."""

        def __init__(self) -> None:
            super().__init__(0.0, 0.0, 0, 0)

        def enhance_using_context(self, text, raw_results, nlp_artifacts, recognizers, context=None):  # type: ignore[no-untyped-def]
            return raw_results

    recognizers = [Recognizer(e) for e in registry]
    return AnalyzerEngine(registry=RecognizerRegistry(recognizers=recognizers, supported_languages=["en"]),
                          nlp_engine=blank_nlp_engine(), supported_languages=["en"],
                          context_aware_enhancer=PassThroughEnhancer())
