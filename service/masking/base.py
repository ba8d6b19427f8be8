"""The shape of a registry entry, and the Presidio recognizer classes the entries build.

An ``Entry`` is gated twice before Presidio spends time on a line: by the entry's needles and trigger
(the prefilter: can this entity occur here at all?) and, inside the recognizer, by each pattern's
needles (which of its patterns can?). Needles are lower-case substrings looked up in the lower-cased
text; triggers are regexes on the text. Neither may depend on which digit a character is (needles hold
no digits, triggers use ``\\d`` or classes with all of 0-9): verdicts are cached per digit-folded shape.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import regex
from presidio_analyzer import (
    AnalysisExplanation,
    EntityRecognizer,
    Pattern,
    PatternRecognizer,
    RecognizerResult,
)
from presidio_analyzer.predefined_recognizers import EmailRecognizer, IpRecognizer, MacAddressRecognizer

from service.masking import checks

Check = Callable[[str, Any, int, int], bool]  # (text, match, start, end) -> keep?


@dataclass(frozen=True)
class P:
    """One pattern: a name (shown in the analysis explanation), a regex, an own check, its needles."""

    name: str
    regex: str
    check: Check | None = None
    needles: tuple[str, ...] = ()  # lower-case substrings, one of which the text must hold; () = always run


@dataclass(frozen=True)
class Entry:
    entity: str
    needles: tuple[str, ...] = ()  # the entity can occur only where one of these occurs (lower-cased text)...
    trigger: str = ""  # ...or where this regex matches
    patterns: tuple[P, ...] = ()
    check: Check | None = None  # the default check for patterns without their own
    stock: Callable[[], EntityRecognizer] | None = None  # a Presidio recognizer class, as is or lightly extended
    score: float = 0.9

    def __post_init__(self) -> None:
        for needle in self.needles + tuple(n for p in self.patterns for n in p.needles):
            if needle != needle.lower() or any(c.isdigit() for c in needle):
                raise ValueError(f"{self.entity}: needle {needle!r} must be lower-case and hold no digit")
        if not self.needles and not self.trigger:
            raise ValueError(f"{self.entity}: an entry needs needles or a trigger")

    def build(self) -> EntityRecognizer:
        if self.stock is not None:
            return self.stock()
        return LogPatternRecognizer(self.entity, f"{self.entity.lower()}_recognizer", self.patterns, self.check, self.score)


def _compile(pattern: str) -> Any:
    """The standard library's engine when it can (faster); ``regex`` for variable-width lookbehind."""
    try:
        return re.compile(pattern, re.MULTILINE)
    except re.error:
        return regex.compile(pattern, regex.MULTILINE)


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


class LogPatternRecognizer(PatternRecognizer):
    """A Presidio PatternRecognizer that masks the ``v`` group when there is one and runs a context check."""

    def __init__(self, entity: str, name: str, patterns: tuple[P, ...], check: Check | None, score: float) -> None:
        super().__init__(
            supported_entity=entity,
            name=name,
            patterns=[Pattern(p.name, p.regex, score) for p in patterns],
            global_regex_flags=re.MULTILINE,
        )
        self._compiled = [(p, _compile(p.regex), p.check or check, _needle_test(p.needles)) for p in patterns]
        self._name = name
        self._entity = entity
        self._score = score

    def analyze(self, text, entities, nlp_artifacts=None, regex_flags=None):  # type: ignore[no-untyped-def]
        results: list[RecognizerResult] = []
        low = text.lower()
        for pattern, rx, check, needle_test in self._compiled:
            if needle_test is not None and not needle_test(low):
                continue
            has_v = "v" in rx.groupindex
            for m in rx.finditer(text):
                start, end = m.span("v") if has_v else m.span()
                if start < 0 or start == end or (check is not None and not check(text, m, start, end)):
                    continue
                explanation = AnalysisExplanation(
                    recognizer=self._name,
                    original_score=self._score,
                    pattern_name=pattern.name,
                    pattern=pattern.regex,
                    validation_result=check is not None,
                )
                metadata = {
                    RecognizerResult.RECOGNIZER_NAME_KEY: self._name,
                    RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
                }
                results.append(RecognizerResult(self._entity, start, end, self._score, explanation, metadata))
        return EntityRecognizer.remove_duplicates(results)


_IPV6 = next(p.regex for p in IpRecognizer.PATTERNS if p.name == "IPv6")


class LogIpRecognizer(IpRecognizer):
    """Presidio's IP recognizer, keeping loopback and unspecified addresses (127.0.0.1, ::1, 0.0.0.0)."""

    # NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:fe80::1c2:3dff:fe4e:5f60%eth0<0>
    # (the stock IPv6 pattern refuses a colon before the address; here an interface name precedes it)
    PATTERNS = [
        *IpRecognizer.PATTERNS,
        Pattern("IPv6 after interface", r"(?<=\b[A-Za-z][A-Za-z0-9]{0,15}:)" + _IPV6.removeprefix(r"(?<![\w:])"), 0.6),
    ]

    def invalidate_result(self, pattern_text: str) -> bool:
        return bool(super().invalidate_result(pattern_text)) or checks.is_loopback(pattern_text.split("/")[0])


class LogEmailRecognizer(EmailRecognizer):
    """Presidio's email recognizer with an offline suffix check that also accepts cluster domains."""

    def validate_result(self, pattern_text: str) -> bool:
        return checks.email_domain_ok(pattern_text)


class LogMacRecognizer(MacAddressRecognizer):
    """Presidio's MAC recognizer, minus all-decimal dash groups (a run dir named 24-05-01-12-00-03)."""

    def invalidate_result(self, pattern_text: str) -> bool:
        if "-" in pattern_text and pattern_text.replace("-", "").isdigit():
            return True
        return bool(super().invalidate_result(pattern_text))
