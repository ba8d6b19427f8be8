"""Masking without Presidio finds what Presidio's AnalyzerEngine finds with the same registry.

The masker runs its recognizers directly (importing Presidio imports spaCy and its command line, most of
a cold start); ``service.masking.presidio`` puts the same entries inside Presidio as crashdoc ran them
before. On the masking corpus and every eval log line, both must give the same findings, and the
validators copied from Presidio's recognizers must agree with Presidio's own.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from service.masking import Masker, checks
from service.masking.base import Finding
from tests.masking.corpus import build_corpus

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def presidio_analyzer():  # type: ignore[no-untyped-def]
    from service.masking.presidio import analyzer

    return analyzer()


def _eval_lines(limit: int = 4000) -> list[str]:
    lines: list[str] = []
    for path in sorted((REPO / "evals" / "cases").glob("*/*.log")):
        lines += [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip()][:40]
        if len(lines) >= limit:
            break
    return lines


def _through_presidio(analyzer, masker: Masker, text: str) -> list[Finding]:  # type: ignore[no-untyped-def]
    entities = masker.entities_for(text)
    if not entities:
        return []
    results = analyzer.analyze(text=text, language="en", entities=entities, return_decision_process=True,
                               nlp_artifacts=analyzer.nlp_engine.process_text("", "en"))
    return [Finding(r.entity_type, r.start, r.end, r.score, r.analysis_explanation.pattern_name,
                    r.analysis_explanation.recognizer) for r in results]


def test_the_direct_recognizers_find_what_presidio_finds(presidio_analyzer, masker: Masker) -> None:  # type: ignore[no-untyped-def]
    texts = build_corpus(rounds=2).lines + _eval_lines()
    compared = found = 0
    for text in texts:
        direct = masker.findings(text, masker.entities_for(text))
        via = _through_presidio(presidio_analyzer, masker, text)
        assert sorted(direct) == sorted(via), text
        compared += 1
        found += bool(direct)
    assert compared > 1000 and found > 200  # the comparison saw real findings, not only clean lines


def test_a_masking_process_never_imports_presidio_or_spacy() -> None:
    code = ("import sys; from service.masking import get_masker, mask_text; "
            "mask_text('MASTER_ADDR=10.1.2.3 user=mchen token=ghp_' + 'a1B2' * 9, get_masker()); "
            "print(sorted(m for m in ('presidio_analyzer', 'presidio_anonymizer', 'spacy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("value", [
    "4111 1111 1111 1111", "4111-1111-1111-1112", "5500005555555559", "378282246310005", "6011000990139424",
    "1234567812345670", "0000000000000000", "4012888888881881", "79927398713", "79927398710",
])
def test_luhn_agrees_with_presidio(value: str) -> None:
    from service.masking.presidio import import_presidio

    import_presidio()
    from presidio_analyzer.predefined_recognizers import CreditCardRecognizer

    assert checks.luhn(value) == CreditCardRecognizer().validate_result(value)


@pytest.mark.parametrize("value", [
    "10.0.0.1", "10.0.0.256", "192.168.1.0/24", "192.168.1.0/33", "fe80::1", "2001:db8::1/64", "::",
    "1.2.3", "01.2.3.4", "gpu-node-1", "fe80::1%eth0",
])
def test_ip_check_agrees_with_presidio(value: str) -> None:
    from service.masking.presidio import import_presidio

    import_presidio()
    from presidio_analyzer.predefined_recognizers import IpRecognizer

    assert checks.ip_invalid(value) == bool(IpRecognizer().invalidate_result(value))


@pytest.mark.parametrize("value", [
    "00:1b:21:3a:4f:5c", "00-1B-21-3A-4F-5C", "001b.213a.4f5c", "ff:ff:ff:ff:ff:ff", "00:00:00:00:00:00",
    "00:1b:21:3a:4f", "zz:1b:21:3a:4f:5c", "24-05-01-12-00-03",
])
def test_mac_check_agrees_with_presidio(value: str) -> None:
    from service.masking.presidio import import_presidio

    import_presidio()
    from presidio_analyzer.predefined_recognizers import MacAddressRecognizer

    assert checks.mac_invalid(value) == bool(MacAddressRecognizer().invalidate_result(value))


def test_a_span_keeps_the_name_of_the_pattern_that_found_it(masker: Masker) -> None:
    # Presidio's AnalyzerEngine drops the explanation unless asked, which once left every span without
    # its pattern name, so the learned-name rules for self-evident patterns never applied: a directory under
    # /data/ taught "tiles", and segment_tiles.py became segment_<USER_1>.py further down.
    from service.masking import mask_text

    spans = masker.find("--tiles /data/tiles/2023-01-16")
    assert [s.pattern for s in spans] == ["data disk dir"]
    out, _ = mask_text("--tiles /data/tiles/2023-01-16\nfound 3,914 tiles in segment_tiles.py", masker)
    assert out.splitlines()[1] == "found 3,914 tiles in segment_tiles.py"
    assert "/data/<USER_1>/" in out.splitlines()[0]
