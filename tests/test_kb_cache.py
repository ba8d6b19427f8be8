"""The compiled encyclopedia: read back equal to a fresh parse, parsed again when kb/ changes or the file is damaged."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from retrieval import kb_cache
from retrieval.errors import KBError
from retrieval.kb import entry_paths, load_kb

KB = Path(__file__).resolve().parent.parent / "kb"


@pytest.fixture
def kb_copy(tmp_path: Path) -> Path:
    target = tmp_path / "kb"
    target.mkdir()
    for p in entry_paths(KB):
        shutil.copy(p, target / p.name)
    return target


def _parses(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    calls: list[Path] = []
    real = kb_cache.load_kb

    def counting(kb_dir: Path):  # type: ignore[no-untyped-def]
        calls.append(kb_dir)
        return real(kb_dir)

    monkeypatch.setattr(kb_cache, "load_kb", counting)
    return calls


def test_the_compiled_kb_equals_a_fresh_parse_and_is_read_without_parsing(
    kb_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parses = _parses(monkeypatch)
    first = kb_cache.load_compiled(kb_copy, tmp_path / "cache")
    again = kb_cache.load_compiled(kb_copy, tmp_path / "cache")
    assert first == again == load_kb(kb_copy)
    assert len(parses) == 1
    assert len(list((tmp_path / "cache").glob("kb-*.json"))) == 1


def test_an_edited_entry_is_parsed_again_under_a_new_version(kb_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parses = _parses(monkeypatch)
    before = kb_cache.load_compiled(kb_copy, tmp_path / "cache")
    path = kb_copy / "cuda-oom.md"
    path.write_text(path.read_text().replace("## Fix\n", "## Fix\n\n0. Edited: read the allocator summary first.\n", 1))
    after = kb_cache.load_compiled(kb_copy, tmp_path / "cache")
    assert len(parses) == 2
    assert after.version != before.version
    assert "Edited: read the allocator summary first." in after.entries["cuda-oom"].section("fix")
    assert after == load_kb(kb_copy)


def test_an_entry_added_or_removed_changes_the_version(kb_copy: Path, tmp_path: Path) -> None:
    before = kb_cache.load_compiled(kb_copy, tmp_path / "cache")
    (kb_copy / "cuda-oom.md").unlink()
    with pytest.raises(KBError):  # other entries name it in related: the error of a fresh parse, not a stale cache
        kb_cache.load_compiled(kb_copy, tmp_path / "cache")
    shutil.copy(KB / "cuda-oom.md", kb_copy / "cuda-oom.md")
    assert kb_cache.load_compiled(kb_copy, tmp_path / "cache").version == before.version


@pytest.mark.parametrize("damage", [b"", b"{not json", b'{"entries": {}, "version": "x"}', b'{"entries": 3}'])
def test_a_damaged_compiled_file_is_rebuilt(kb_copy: Path, tmp_path: Path, damage: bytes) -> None:
    cache = tmp_path / "cache"
    good = kb_cache.load_compiled(kb_copy, cache)
    (compiled,) = cache.glob("kb-*.json")
    compiled.write_bytes(damage)
    assert kb_cache.load_compiled(kb_copy, cache) == good
    assert kb_cache.load_compiled(kb_copy, cache) == good
    assert compiled.read_bytes() != damage


def test_an_unwritable_cache_folder_still_loads(kb_copy: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert kb_cache.load_compiled(kb_copy, blocker / "cache") == load_kb(kb_copy)
