"""The prefilter's needles, derived once per set of rules and read back from the cache folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from service import prefilter


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(prefilter, "_primed", None)
    prefilter.needles.cache_clear()
    yield
    prefilter.needles.cache_clear()


def _prime(cache: Path) -> prefilter.Needles:
    prefilter._primed = None
    prefilter.needles.cache_clear()
    prefilter.prime(cache)
    return prefilter.needles()


def test_the_cached_needles_are_the_derived_ones(fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    derived = prefilter.derive_needles()
    assert _prime(tmp_path) == derived
    (cached,) = tmp_path.glob("needles-*.json")
    monkeypatch.setattr(prefilter, "derive_needles", lambda: pytest.fail("derived again"))
    again = _prime(tmp_path)
    assert again == derived
    assert [p.pattern for _, p in again.confirmed] == [p.pattern for _, p in derived.confirmed]
    assert cached.exists()


@pytest.mark.parametrize("damage", ["", "{", '{"literals": 3}', '{"literals": [], "confirmed": [["x", "(", 0]], '
                                    '"by_line": [], "underivable": []}'])
def test_a_damaged_file_is_derived_again(fresh: None, tmp_path: Path, damage: str) -> None:
    derived = _prime(tmp_path)
    (cached,) = tmp_path.glob("needles-*.json")
    cached.write_text(damage)
    assert _prime(tmp_path) == derived
    assert cached.read_text() != damage


def test_another_rule_set_is_another_file(fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _prime(tmp_path)
    real = list(prefilter.sources())
    monkeypatch.setattr(prefilter, "sources", lambda: iter([*real, ("rule added", r"NCCL WARN Cuda failure 'out of memory'", 0)]))
    derived = _prime(tmp_path)
    assert len(list(tmp_path.glob("needles-*.json"))) == 2
    assert "nccl warn cuda failure 'out of memory'" in derived.literals or any("nccl warn" in lit for lit in derived.literals)
