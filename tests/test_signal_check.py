"""The signal check's reading and matching, on fake wheels and sdists built here (no network, no pip)."""

from __future__ import annotations

import io
import re
import tarfile
import zipfile
from pathlib import Path

import pytest

from retrieval import signal_scan, signal_units
from retrieval.kb import load_kb
from retrieval.signal_check import (
    Artifact,
    UnreadableArtifact,
    check_entries,
    fragments_by_artifact,
    plan,
    releases_for,
    render_report,
    scan_artifact,
    write_seen_in,
)
from retrieval.signal_scan import scan
from retrieval.signal_units import _template, read_archive

# Both searchers: the Aho-Corasick pass (the `signals` extra) where it is installed, and the fallback.
SEARCHERS = [False, pytest.param(True, marks=pytest.mark.skipif(not signal_scan.have_aho_corasick(), reason="pyahocorasick"))]

REPO = Path(__file__).resolve().parent.parent

# Texts as the real releases store them: a Python f-string split over lines, a %-format string in a
# shared library, C++ message pieces stored side by side, and a traceback's code line.
PY_SOURCE = '''
def reduce(param_id, name):
    assert self.params_already_reduced[param_id] == False, \\
        f"The parameter {name} has already been reduced. \\
        Gradient computed twice for this partition."
    raise ValueError(
        "FP8 execution requires the product of all dimensions except the last to be"
        f" divisible by 8, but got tensor with dims={dims}"
    )
    msg = f"Set TORCHDYNAMO_VERBOSE=1 for {stack_trace} (please do this)"
    raise RuntimeError("CUDA out of memory. Tried to allocate " + size)

class ChunkSizeError(RuntimeError):
    pass
'''
SO_STRINGS = [
    b"NET/IB: Got completion from peer %s with status=%s(%d) opcode=%s(%d) vendor_err=%u %s hca %s",
    b"Error: failed to extend %s to %ld bytes, error: %s (%d)",
    b"Watchdog caught collective operation timeout: ",
    b"WorkNCCL(",
    b"Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.",
]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("wheels") / "fakelib-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("fakelib/ops/adam/fused_adam.py", PY_SOURCE)
        z.writestr("fakelib/lib/libfake.so.2", b"\x7fELF\x00\x01" + b"\x00\x00".join(SO_STRINGS) + b"\x00")
    return path


@pytest.fixture(scope="module")
def units(wheel: Path) -> list[str]:
    return read_archive(wheel)


# (fragment, found): real log fragments that must be found, and near misses that must not.
CASES = [
    ("has already been reduced.", True),
    ("The parameter model.layers.3.mlp.up_proj.weight has already been reduced.", True),  # the {name} field
    ("assert self.params_already_reduced[param_id] == False", True),  # a traceback's code line
    ("fakelib/ops/adam/fused_adam.py", True),  # a member path, as tracebacks print it
    ("in reduce", True),  # a traceback frame: "..., line 3, in reduce"
    ("with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RECV(128) vendor_err=129", True),
    ("failed to extend /dev/shm/nccl-", True),  # %s rendered as a path
    ("Watchdog caught collective operation timeout: WorkNCCL(", True),  # two adjacent pieces
    ("Multiple Ranks are using the same GPU/Partition.", True),
    ("but got tensor with dims=", True),
    ("Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace", True),  # a field rendered as a phrase
    ("with status=12 opcode=0 len=0 vendor err 129", False),  # the older NCCL wording
    ("Duplicate GPU detected : rank", False),
    ("Multiple gradient reductions are currently not supported", False),
    ("vendor err 129", False),
    ("this sentence appears in no release at all", False),
    ("in reduce_partition_and_remove_grads", False),  # a function that does not exist
    ("RuntimeError: CUDA out of memory.", True),  # a traceback's last line: the type and the message
    ("ValueError: CUDA out of memory.", True),
    ("RuntimeError: a message it never prints", False),
    ("OSError: CUDA out of memory.", False),  # a type the release never names
    ("fakelib.ops.adam.fused_adam.ChunkSizeError", True),  # a qualified name: the module file defines it
    ("fakelib.ops.adam.fused_adam.ChunkSizeError:", True),
    ("fakelib.ops.adam.ChunkSizeError", False),  # no such module file
    ("fakelib/ops/adam.py", False),  # its pieces are there, but no literal text of a unit renders it
    ("fakelib.ops.adam.fused_adam.OtherError", False),
]


@pytest.mark.parametrize("fast", SEARCHERS)
@pytest.mark.parametrize(("fragment", "found"), CASES)
def test_fragment_is_found_only_where_the_release_prints_it(units: list[str], fragment: str, found: bool, fast: bool):
    assert (fragment in scan(units, [fragment], fast)) is found


@pytest.mark.parametrize("fast", SEARCHERS)
def test_all_fragments_in_one_pass_find_what_each_alone_finds(units: list[str], fast: bool):
    assert scan(units, [f for f, _ in CASES], fast) == {f for f, found in CASES if found}


@pytest.mark.parametrize("fast", SEARCHERS)
def test_batches_of_any_size_find_the_same(monkeypatch: pytest.MonkeyPatch, units: list[str], fast: bool):
    # A fragment built from two adjacent units is found when a batch ends between them.
    monkeypatch.setattr(signal_scan, "_BATCH_CHARS", 1)
    assert scan(units, [f for f, _ in CASES], fast) == {f for f, found in CASES if found}


def test_a_shared_library_read_in_blocks_gives_the_strings_of_reading_it_whole():
    data = b"\x00\x7fELF" + b"\x00\x01".join(SO_STRINGS) + b"\x00\xff" + b"tail string at the end"
    def strings(block: int) -> list[str]:
        return [u for b in signal_units._binary_batches(io.BytesIO(data), block=block) for u in b]

    whole = strings(len(data) + 1)
    assert len(whole) == len(SO_STRINGS) + 1
    for block in (7, 13, 64, 100):  # blocks that cut strings in the middle
        assert strings(block) == whole
    assert _template("Error: failed to extend %s to %ld bytes, error: %s (%d)") in whole


def test_strings_and_the_fallback_find_the_same_runs():
    data = b"\x00\x7fELF\x00" + b"\x00\x01".join(SO_STRINGS) + b"\x00short\x00\tindented text\xff\x80" + bytes(range(256))
    fallback = signal_units.printable_runs(data, use_strings=False)
    assert b"short" not in fallback and b"\tindented text" in fallback and len(fallback) == len(SO_STRINGS) + 2
    if signal_units._STRINGS:
        assert signal_units.printable_runs(data) == fallback


def test_an_sdist_is_read_like_a_wheel(tmp_path: Path):
    path = tmp_path / "fakelib-1.0.tar.gz"
    source = b'#define MSG "NCCL WARN Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx"\n'
    with tarfile.open(path, "w:gz") as t:
        for name, data in (("fakelib-1.0/csrc/init.cc", source), ("fakelib-1.0/fakelib/ops.py", PY_SOURCE.encode())):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    found = scan(read_archive(path), ["Duplicate GPU detected : rank 1 and rank 0", "has already been reduced.", "csrc/init.cc"])
    assert found == {"Duplicate GPU detected : rank 1 and rank 0", "has already been reduced.", "csrc/init.cc"}


@pytest.mark.parametrize(
    ("versions", "expected"),
    [
        ("all", ["0.18.1", "0.19.8"]),
        (">= 0.19", ["0.19.8"]),
        ("< 0.19 (old wording)", ["0.18.1"]),
        ("0.14.2 - 0.18.0 (free text)", ["0.18.1", "0.19.8"]),  # not a specifier: every listed release
    ],
)
def test_an_entry_range_selects_the_listed_releases(monkeypatch: pytest.MonkeyPatch, versions: str, expected: list[str]):
    from retrieval import signal_check

    listed = [Artifact("deepspeed", "deepspeed", v, sdist=True) for v in ("0.18.1", "0.19.8")]
    monkeypatch.setitem(signal_check.RELEASES, "deepspeed", listed)
    assert [a.version for a in releases_for(versions, "deepspeed")] == expected


def _entry(kb_dir: Path, entry_id: str, messages: list[str]) -> None:
    """A copy of a real entry whose fragments are `messages` and whose only library is fakelib."""
    text = (REPO / "kb" / f"{entry_id}.md").read_text(encoding="utf-8")
    head, rest = text.split("  more_likely_when:", 1)
    head = head.split("  messages:")[0] + "  messages:\n" + "".join(f"    - {m!r}\n" for m in messages)
    text = re.sub(r"(?m)^related: .*$", "related: []", head + "  more_likely_when:" + rest)
    text = re.sub(r"(?m)^  (seen_in|printed_by):.*\n(    .*\n)*", "", text)  # they name the real fragments
    front, body = text.split("\naffected:", 1)
    body = body.split("\n---\n", 1)[1]
    software = '\naffected:\n  hardware: ["any"]\n  software:\n    - name: fakelib\n      versions: "all"\n---\n'
    (kb_dir / f"{entry_id}.md").write_text(front + software + body, encoding="utf-8")


def test_report_and_seen_in(tmp_path: Path, wheel: Path, monkeypatch: pytest.MonkeyPatch):
    from retrieval import signal_check

    kb_dir = tmp_path / "kb"
    kb_dir.mkdir()
    _entry(kb_dir, "nccl-invalid-usage", ["Multiple Ranks are using the same GPU/Partition.", "Duplicate GPU detected : rank"])
    _entry(kb_dir, "nccl-network-error", ["with status=12 opcode=0 len=0 vendor err 129", "a made-up message"])
    old, new = Artifact("fakelib", "fakelib", "0.9"), Artifact("fakelib", "fakelib", "1.0")
    monkeypatch.setitem(signal_check.RELEASES, "fakelib", [old, new])
    old_units = [_template("NET/IB : Got completion from peer %s with status=%d opcode=%d len=%u vendor err %u"),
                 "Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx"]
    kb = load_kb(kb_dir)
    wanted = fragments_by_artifact(kb, sorted(kb.entries))
    assert list(wanted) == [old, new] and len(wanted[new]) == 4  # each artifact once, for every entry's fragments
    found_of = {old.label: scan(old_units, wanted[old]), new.label: scan(read_archive(wheel), wanted[new])}
    results = {r.entry_id: r for r in check_entries(kb, found_of)}

    usage, network = results["nccl-invalid-usage"], results["nccl-network-error"]
    assert {f.fragment: f.found_in for f in usage.fragments} == {
        "Multiple Ranks are using the same GPU/Partition.": ["fakelib 1.0"],
        "Duplicate GPU detected : rank": ["fakelib 0.9"],
    }
    assert usage.stale == [] and network.stale == ["fakelib"]  # 1.0 prints neither network fragment
    report = render_report(list(results.values()), kb, {"fakelib 1.1": "not downloaded: no such version"})
    assert "- fakelib 1.1: not downloaded: no such version" in report
    assert "**1 unexplained**" in report and "`nccl-network-error`: `a made-up message`" in report
    assert "- `nccl-network-error`: fakelib 1.0" in report
    assert "Releases read: fakelib 0.9, fakelib 1.0." in report  # what was read, not every listed release

    write_seen_in(kb_dir, signal_check.seen_in_of(list(results.values())))
    write_seen_in(kb_dir, signal_check.seen_in_of(list(results.values())))  # a rerun replaces the block
    assert (kb_dir / "nccl-invalid-usage.md").read_text(encoding="utf-8").count("  seen_in:") == 1
    reloaded = load_kb(kb_dir)
    assert reloaded.entries["nccl-invalid-usage"].meta.signals.seen_in == {
        "Multiple Ranks are using the same GPU/Partition.": ["fakelib 1.0"],
        "Duplicate GPU detected : rank": ["fakelib 0.9"],
    }
    assert reloaded.entries["nccl-network-error"].meta.signals.seen_in == {
        "with status=12 opcode=0 len=0 vendor err 129": ["fakelib 0.9"],
    }


def test_a_cached_download_is_searched_once_per_fragment_and_then_answered_from_its_memo(tmp_path: Path, wheel: Path):
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / wheel.name).write_bytes(wheel.read_bytes())  # already downloaded: pip is not called
    artifact = Artifact("fakelib", "fakelib", "1.0")
    watchdog, made_up = "Watchdog caught collective operation timeout: WorkNCCL(", "a made-up message"
    assert scan_artifact(artifact, [watchdog, made_up], cache) == {watchdog}
    (cache / wheel.name).write_bytes(b"not a zip any more")  # the memo, not the archive, answers now
    assert scan_artifact(artifact, [watchdog, made_up], cache) == {watchdog}
    with pytest.raises(UnreadableArtifact, match="BadZipFile"):  # a new fragment needs the archive
        scan_artifact(artifact, [watchdog, "Duplicate GPU detected"], cache)


def test_the_plan_names_cached_files_and_the_pip_command_for_the_rest(tmp_path: Path, wheel: Path):
    (tmp_path / wheel.name).write_bytes(wheel.read_bytes())
    cached, missing = Artifact("fakelib", "fakelib", "1.0"), Artifact("fakelib", "fakelib", "2.0", sdist=True)
    lines = plan({cached: {"a"}, missing: {"a", "b"}}, tmp_path)
    assert lines[0] == f"fakelib 1.0 (wheel, 1 fragments): cached: {wheel.name}"
    assert lines[1] == "fakelib 2.0 (sdist, 2 fragments): download: fakelib==2.0 (sdist, pip download --no-deps)"


@pytest.mark.parametrize("fast", SEARCHERS)
def test_a_fragment_inside_a_huge_unit_is_checked_around_its_hit(fast: bool):
    # Embedded PTX is one printable run of megabytes, full of %-conversions (WILDs): only the text
    # around a hit is checked, so the cost does not grow with the unit.
    ptx = _template("mov.f32 %f1, %f2; " * 40000 + "Tensor for argument %s is on the wrong device" + " add.s32 %r1;" * 40000)
    assert scan([ptx], ["Tensor for argument #1 is on the wrong device", "not in it at all, device"], fast) == {
        "Tensor for argument #1 is on the wrong device"
    }


@pytest.mark.parametrize(
    ("token", "word", "renders"),
    [
        ("rank\x00", "rank3", True),
        ("\x00", "anything", True),
        ("dims=\x00,", "dims=(7,", True),
        ("a\x00b\x00c", "aXbYc", True),
        ("a\x00b\x00c", "acb", False),
        ("ab\x00ba", "aba", False),  # the pieces may not overlap
        ("rank\x00", "ranks.", True),
        ("rank\x00!", "rank3", False),
    ],
)
def test_a_token_with_placeholders_renders_as_a_word_only_by_filling_them(token: str, word: str, renders: bool):
    assert signal_scan._renders_as(token, word) is renders
