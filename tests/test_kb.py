"""The whole encyclopedia loads, keeps every catalogue id, and every entry is substantive."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from retrieval.errors import KBError
from retrieval.kb import CATEGORIES, SECTIONS, load_catalog, load_kb, parse_entry, section_steps
from service.settings import Settings

SETTINGS = Settings()
KB = load_kb(SETTINGS.kb_dir)
CATALOG = load_catalog(SETTINGS.resolved_catalog_path)
# The ids kb/ added beyond the catalogue: a ledger, so that an id once used is never renamed or dropped.
LEDGER_PATH = SETTINGS.kb_dir / "ids.txt"
LEDGER = [ln.strip() for ln in LEDGER_PATH.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
MIN_WORDS = {"what": 40, "mechanism": 60, "observe": 40, "confirm": 40, "fix": 50, "prevention": 25, "verify": 20}


def test_every_catalogue_id_has_an_entry():
    missing = sorted(set(CATALOG) - set(KB.entries))
    assert not missing, f"catalogue ids without a kb entry: {missing}"


def test_entries_match_their_catalogue_category():
    for entry in KB.entries.values():
        if entry.id in CATALOG:
            assert entry.meta.category == CATALOG[entry.id]["category"], entry.id


def test_the_known_categories_include_every_catalogue_category():
    assert {f["category"] for f in CATALOG.values()} <= set(CATEGORIES)


def test_no_id_is_renamed_or_dropped_and_every_new_id_is_in_the_ledger():
    assert len(LEDGER) == len(set(LEDGER)), "kb/ids.txt lists an id twice"
    assert not set(LEDGER) & set(CATALOG), "kb/ids.txt lists a catalogue id"
    gone = [i for i in LEDGER if i not in KB.entries]
    assert not gone, f"ids in kb/ids.txt without their entry (an id is never renamed or removed): {gone}"
    unlisted = sorted(set(KB.entries) - set(CATALOG) - set(LEDGER))
    assert not unlisted, f"new kb ids not in kb/ids.txt (add them at its end): {unlisted}"


def test_a_new_id_and_category_are_validated(tmp_path: Path):
    good = Path(KB.entries["cuda-oom"].path).read_text()
    new = tmp_path / "cuda-oom-brand-new.md"
    new.write_text(good.replace("id: cuda-oom\n", "id: cuda-oom-brand-new\n", 1))
    assert parse_entry(new).meta.category == "memory"  # an id outside the catalogue is an entry like any other
    new.write_text(good.replace("id: cuda-oom\n", "id: cuda-oom-brand-new\n", 1).replace("category: memory", "category: memroy", 1))
    with pytest.raises(KBError, match="unknown category 'memroy'"):
        parse_entry(new)
    bad = tmp_path / "cuda--oom.md"
    bad.write_text(good.replace("id: cuda-oom\n", "id: cuda--oom\n", 1))
    with pytest.raises(KBError, match="id"):
        parse_entry(bad)


def test_every_entry_is_the_answer_of_at_least_two_eval_cases():
    import yaml

    labels: dict[str, int] = {}
    for case_yaml in (Path(__file__).resolve().parent.parent / "evals" / "cases").glob("*/case.yaml"):
        label = yaml.safe_load(case_yaml.read_text())["label"]
        labels[label] = labels.get(label, 0) + 1
    short = {eid: labels.get(eid, 0) for eid in KB.entries if labels.get(eid, 0) < 2}
    assert not short, f"entries with fewer than 2 eval cases in evals/cases: {short}"


@pytest.mark.parametrize("entry_id", sorted(KB.entries))
def test_entry_sections_are_substantive(entry_id):
    entry = KB.entries[entry_id]
    for key, title in SECTIONS:
        words = len(re.findall(r"\w+", entry.section(key)))
        assert words >= MIN_WORDS[key], f"{entry_id}: '## {title}' has only {words} words"
    assert section_steps(entry.section("fix")), f"{entry_id}: the fix has no steps"
    assert len(entry.meta.signals.messages) >= 2, f"{entry_id}: fewer than 2 message variants"


@pytest.mark.parametrize("entry_id", sorted(KB.entries))
def test_entry_names_look_alikes_that_exist(entry_id):
    confirm = KB.entries[entry_id].section("confirm")
    named = set(re.findall(r"`([a-z0-9]+(?:-[a-z0-9]+)+)`", confirm)) & (set(KB.entries) - {entry_id})
    assert named, f"{entry_id}: 'How to confirm' names no look-alike entry by id"


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {tuple(words[i : i + 5]) for i in range(len(words) - 4)}


def test_no_two_entries_are_near_duplicates():
    shingles = {eid: _shingles(" ".join(e.sections.values())) for eid, e in KB.entries.items()}
    for a, b in itertools.combinations(sorted(shingles), 2):
        inter = len(shingles[a] & shingles[b])
        union = len(shingles[a] | shingles[b]) or 1
        assert inter / union < 0.3, f"{a} and {b} share {inter / union:.0%} of their 5-word shingles"


def test_strict_schema_rejects_unknown_keys_and_wrong_sections(tmp_path: Path):
    good = Path(KB.entries["cuda-oom"].path).read_text()
    extra = tmp_path / "cuda-oom.md"
    extra.write_text(good.replace("schema_version: 1", "schema_version: 1\nsurprise: true", 1))
    with pytest.raises(KBError, match="surprise"):
        parse_entry(extra)
    swapped = good.replace("## Fix", "## Remedy", 1)
    extra.write_text(swapped)
    with pytest.raises(KBError, match="unknown section"):
        parse_entry(extra)
    renamed = tmp_path / "not-cuda-oom.md"
    renamed.write_text(good)
    with pytest.raises(KBError, match="differs from the file name"):
        parse_entry(renamed)


def test_fusedadam_entry_states_the_true_mechanism():
    entry = KB.entries["deepspeed-fusedadam-illegal-memory-access"]
    mechanism = entry.section("mechanism") + entry.section("what")
    assert "2^31" in mechanism or "2,147,483,647" in mechanism
    assert re.search(r"32-bit|int32|\bint\b", mechanism)
    assert "SM80" in mechanism  # the myth is named and refuted, not repeated as the cause


# ---------------------------------------------------------------- a malformed entry: a clear error everywhere


def _broken_kb(tmp_path: Path, how: str) -> Path:
    """A copy of kb/ with one entry broken the way ``how`` says."""
    kb = tmp_path / "kb"
    kb.mkdir()
    for entry in KB.entries.values():
        (kb / Path(entry.path).name).write_bytes(Path(entry.path).read_bytes())
    target = kb / "cuda-oom.md"
    good = target.read_text()
    broken = {
        "front matter": good.replace("schema_version: 1", "schema_version: 1\nsurprise: true", 1),
        "section": good.replace("## Fix", "## Remedy", 1),
        "encoding": None,
    }[how]
    if broken is None:
        target.write_bytes(good.encode() + b"\n\xff\xfe not utf-8\n")
    else:
        target.write_text(broken)
    return kb


BROKEN = ("front matter", "section", "encoding")


@pytest.mark.parametrize("how", BROKEN)
def test_a_malformed_entry_is_a_kb_error_naming_the_file(tmp_path: Path, how: str):
    with pytest.raises(KBError, match=r"cuda-oom\.md"):
        load_kb(_broken_kb(tmp_path, how))


@pytest.mark.parametrize("how", BROKEN)
def test_a_malformed_entry_is_one_line_on_stderr_and_exit_2_in_the_cli(tmp_path: Path, how: str, monkeypatch, capsys):
    from service.cli import main
    from service.settings import get_settings

    monkeypatch.setenv("CRASHDOC_KB_DIR", str(_broken_kb(tmp_path, how)))
    get_settings.cache_clear()
    try:
        assert main(["kb", "list"]) == 2
    finally:
        get_settings.cache_clear()
    err = capsys.readouterr().err
    assert err.startswith("crashdoc: cuda-oom.md: ") and err.count("\n") == 1 and "Traceback" not in err


def test_a_malformed_entry_is_a_json_error_naming_the_file_in_the_api(tmp_path: Path):
    from fastapi.testclient import TestClient

    from service.app import create_app

    app = create_app(Settings(data_dir=tmp_path / "data", kb_dir=_broken_kb(tmp_path, "section")))
    response = TestClient(app).get("/v1/kb")  # no lifespan: the entry is read by the request
    error = response.json()["error"]
    assert (response.status_code, error["code"]) == (500, "config_error")
    assert "cuda-oom.md" in error["message"] and "unknown section" in error["message"]


def test_a_kb_folder_without_entries_is_an_error_not_an_empty_encyclopedia(tmp_path: Path):
    (tmp_path / "README.md").write_text("# kb\n")
    with pytest.raises(KBError, match="No kb/ entries"):
        load_kb(tmp_path)
    with pytest.raises(KBError, match="No kb/ entries"):
        load_kb(tmp_path / "absent")
