"""Every secret kind in every syntax is masked whole; every near miss comes through unchanged.

One log holds the whole matrix (kinds x syntaxes, each line with a launcher or logging prefix), with the
near misses between them, and is masked once as the pipeline masks an upload: so the test also sees what
one secret's learned pseudonym does to the lines around it."""

from __future__ import annotations

import random

import pytest

from service.masking import Masker, mask
from service.models import LogFile, MaskedLog, RawRun

from .kinds import KINDS, NEAR_MISSES, PREFIXES, SYNTAXES, render

CELLS = [(k, s) for k in KINDS for s in SYNTAXES]


def _plant() -> tuple[list[str], dict[tuple[str, str], tuple[str, list[int]]], list[tuple[str, list[int]]]]:
    """The log's lines, each cell's (value, line numbers) and each near miss's (text, line numbers)."""
    rng = random.Random(20261202)
    lines: list[str] = []
    cells: dict[tuple[str, str], tuple[str, list[int]]] = {}
    misses: list[tuple[str, list[int]]] = []
    for i, (kind, syntax) in enumerate(CELLS):
        value = kind.make(rng)
        rendered = render(kind, syntax, value, PREFIXES[i % len(PREFIXES)])
        cells[(kind.name, syntax.name)] = (value, list(range(len(lines), len(lines) + len(rendered))))
        lines += rendered
        if i % 7 == 0:
            miss = NEAR_MISSES[(i // 7) % len(NEAR_MISSES)].split("\n")
            misses.append(("\n".join(miss), list(range(len(lines), len(lines) + len(miss)))))
            lines += miss
        lines.append(f"[rank{i % 8}]: step {i} | loss {2.5 - i / 1000:.4f} | lr 2.0e-05 | tokens/s 11873")
    return lines, cells, misses


LINES, PLANTED, MISSES = _plant()


@pytest.fixture(scope="module")
def masked(masker: Masker) -> MaskedLog:
    return mask(RawRun(files=[LogFile(name="train.log", lines=LINES)]), masker)


def test_the_matrix_is_wide_enough():
    assert len(KINDS) >= 40 and len({k.name for k in KINDS}) == len(KINDS)
    assert len(SYNTAXES) >= 18
    assert len(MISSES) >= len(NEAR_MISSES)  # every near miss is planted at least once


@pytest.mark.parametrize("kind", [k.name for k in KINDS])
def test_a_kind_is_masked_whole_in_every_syntax(masked: MaskedLog, kind: str):
    out = masked.files[0].lines
    leaks = []
    for syntax in SYNTAXES:
        value, where = PLANTED[(kind, syntax.name)]
        text = "\n".join(out[i] for i in where)
        half = len(value) // 2
        if value in text or value[:half] in text or value[-half:] in text:
            leaks.append(f"{syntax.name}: {text}")
    assert leaks == [], "\n".join(leaks)


def test_no_secret_of_the_matrix_survives_anywhere(masked: MaskedLog):
    text = "\n".join(masked.files[0].lines)
    assert [name for (name, _), (value, _) in PLANTED.items() if value in text] == []


def test_near_misses_come_through_unchanged(masked: MaskedLog):
    out = masked.files[0].lines
    changed = [(miss, "\n".join(out[i] for i in where)) for miss, where in MISSES
               if "\n".join(out[i] for i in where) != miss]
    assert changed == []


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        # bash -x of `echo "$PW" | docker login --password-stdin`
        ("+ echo 'lXABlp9D#Wnsa1S&RFW9oIWz&bhr4Qcaq'", "lXABlp9D#Wnsa1S&RFW9oIWz&bhr4Qcaq"),
        ("[rank6]: + echo 30o1jM$mgiOSI6l$53DOs9nk", "30o1jM$mgiOSI6l$53DOs9nk"),
        ("++ echo Zq9fSMeeYab7Kx2TnQ7rYc4Hd1FgJe6S", "Zq9fSMeeYab7Kx2TnQ7rYc4Hd1FgJe6S"),
        # what bash -x echoes that is no secret
        ("+ echo 'Training finished'", None),
        ("+ echo v2.5.1+cu124", None),
        ("+ echo /opt/venv/bin/python3.11", None),
        ("+ echo CUDA_VISIBLE_DEVICES=0,1,2,3", None),
        ("+ echo DistributedDataParallel", None),
        ("+ echo $HF_TOKEN", None),
    ],
)
def test_bash_x_echo_of_a_lone_secret(masker: Masker, line: str, secret: str | None):
    out = mask(RawRun(files=[LogFile(name="job.log", lines=[line])]), masker).files[0].lines[0]
    if secret is None:
        assert out == line
    else:
        assert secret not in out and secret[:6] not in out, out
