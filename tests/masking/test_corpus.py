"""The planted-secrets corpus: zero leaks, zero damaged diagnostic tokens."""

from __future__ import annotations

import pytest

from service.masking import Masker, mask
from service.models import LogFile, MaskedLog, RawRun

from .corpus import Corpus, build_corpus


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return build_corpus(seed=1)


@pytest.fixture(scope="module")
def masked(corpus: Corpus, masker: Masker) -> MaskedLog:
    return mask(RawRun(files=[LogFile(name="train.log", lines=corpus.lines)]), masker)


def test_corpus_plants_enough_secrets_kinds_and_tokens(corpus: Corpus) -> None:
    assert len(corpus.secrets) >= 500
    assert len(corpus.kinds) >= 20
    assert len(corpus.tokens) >= 150


def test_no_planted_secret_survives_on_its_line(corpus: Corpus, masked: MaskedLog) -> None:
    lines = masked.files[0].lines
    leaks = [(s.kind, lines[s.line]) for s in corpus.secrets if s.value in lines[s.line]]
    assert leaks == []


def test_no_planted_secret_survives_anywhere(corpus: Corpus, masked: MaskedLog) -> None:
    text = "\n".join(masked.files[0].lines)
    assert sorted({s.kind for s in corpus.secrets if s.value in text}) == []


def test_no_diagnostic_token_is_damaged(corpus: Corpus, masked: MaskedLog) -> None:
    lines = masked.files[0].lines
    damaged = [(t.value, lines[t.line]) for t in corpus.tokens if t.value not in lines[t.line]]
    assert damaged == []


def test_every_planted_kind_is_counted(corpus: Corpus, masked: MaskedLog) -> None:
    assert set(corpus.kinds) <= set(masked.counts)
    assert all(masked.counts[k] >= 1 for k in corpus.kinds)


def test_masking_keeps_the_line_count(corpus: Corpus, masked: MaskedLog) -> None:
    assert len(masked.files[0].lines) == len(corpus.lines)


def test_counts_hold_kinds_and_numbers_never_values(corpus: Corpus, masked: MaskedLog) -> None:
    assert all(k.islower() and isinstance(v, int) for k, v in masked.counts.items())
    assert not any(s.value in repr(masked.counts) for s in corpus.secrets)


@pytest.mark.parametrize("seed", [2, 3])
def test_other_seeds_leak_nothing_either(seed: int, masker: Masker) -> None:
    corpus = build_corpus(seed=seed, rounds=3)
    lines = mask(RawRun(files=[LogFile(name="x.log", lines=corpus.lines)]), masker).files[0].lines
    assert [s.kind for s in corpus.secrets if s.value in lines[s.line]] == []
    assert [t.value for t in corpus.tokens if t.value not in lines[t.line]] == []
