"""Flight Recorder dumps of real hanging gloo jobs (tests/data/flight_recorder/, made by gen/generate.py with torchrun
on CPU and torch 2.13): the rank that never entered the collective is named with the collective, its sizes and
frames; the dumps are read as untrusted input (no pickled object is ever built); and they arrive like any file of
a run: a directory on the command line, or a multipart upload."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from service.facts import extract_facts
from service.facts.flight_recorder import analyze, is_dump, is_dump_name, render
from service.facts.ranks import file_rank
from service.ingest import ingest, sources_from_paths
from service.masking import mask
from service.models import Facts, MaskedFile, Source

DATA = Path(__file__).resolve().parent / "data" / "flight_recorder"
REPO = Path(__file__).resolve().parent.parent


def _facts(run: Path, engine) -> Facts:  # type: ignore[no-untyped-def]
    return extract_facts(mask(ingest(sources_from_paths([str(run)]), engine.limits), engine.masker))


def _scenario(name: str) -> dict:
    return json.loads((DATA / name / "scenario.json").read_text())


# (run, the kind of finding, the collective the others are in, the rank's own collective or None)
HANGS = [
    ("skip", "other-collective", "all_reduce seq 5 pg 0", "barrier"),  # it skipped one all_reduce: one collective ahead
    ("skip-8", "other-collective", "all_reduce seq 5 pg 0", "barrier"),
    ("skip-json", "other-collective", "all_reduce seq 5 pg 0", "barrier"),  # the JSON form (no frames in it)
    ("reorder", "other-collective", "all_reduce seq 4 pg 0", "broadcast"),
    ("sleep", "no-dump", "all_reduce seq 4 pg 0", None),  # it slept: SIGTERMed by torchrun before it could dump
]


@pytest.mark.parametrize(("run", "kind", "collective", "instead"), HANGS, ids=[h[0] for h in HANGS])
def test_the_dumps_name_the_rank_behind_and_the_collective(engine, run, kind, collective, instead):
    scenario = _scenario(run)
    facts = _facts(DATA / run, engine)
    assert facts.initiating_rank == scenario["bad_rank"], facts.notes
    assert facts.values["fr_lagging_ranks"].value == str(scenario["bad_rank"])
    assert facts.values["fr_collective"].value == collective
    note = next(n for n in facts.notes if n.startswith("Flight Recorder:"))
    assert "[[4096]]" in note  # the sizes the others passed
    if instead:
        assert f"rank {scenario['bad_rank']} called {instead}" in note
    if run != "skip-json":
        assert "job.py:68 main" in note  # the Python frame where the others wait
    if kind == "no-dump":
        assert facts.values["fr_no_dump_ranks"].value == str(scenario["bad_rank"])


@pytest.mark.parametrize(("run", "kind", "collective", "instead"), HANGS, ids=[h[0] for h in HANGS])
def test_ranks_in_different_collectives_are_a_desync_and_a_rank_that_slept_is_not(engine, run, kind, collective, instead):
    """The dumps alone (no console log): a rank in another collective at the same sequence number makes
    collective-mismatch's Flight Recorder rule strong (fr_mismatch); a rank that slept and left no dump does not."""
    dumps = DATA / run / "fr_dumps"
    facts = _facts(dumps if dumps.is_dir() else DATA / run, engine)
    fired = {h.rule_id: h.strength for h in facts.rule_hits}
    if kind == "no-dump":
        assert "fr_mismatch" not in facts.values
        assert "collective-mismatch-flight-recorder" not in fired or fired["collective-mismatch-flight-recorder"] < 0.5
    else:
        assert facts.values["fr_mismatch"].value == kind
        assert fired["collective-mismatch-flight-recorder"] >= 0.8


def test_a_dump_with_a_rank_of_other_sizes():
    """Two ranks' dumps, rendered, where rank 1 passed a shorter tensor to the same all_reduce."""
    lines = render((DATA / "skip" / "fr_dumps" / "rank_0").read_bytes())
    assert lines is not None
    other = [ln.replace("in=[[4096]] out=[[4096]]", "in=[[1000]] out=[[1000]]") if "seq=3 " in ln else ln for ln in lines]
    files = [MaskedFile(name=f"fr_dumps/rank_{r}", lines=ln) for r, ln in ((0, lines), (1, other), (2, lines))]
    report = analyze(files, file_rank)
    assert report is not None and report.kind == "sizes" and report.lagging == [1]
    assert "[[1000]]" in report.sentence()


def test_identical_dumps_name_nobody():
    lines = render((DATA / "skip" / "fr_dumps" / "rank_0").read_bytes())
    assert lines is not None
    assert analyze([MaskedFile(name=f"rank_{r}", lines=lines) for r in range(4)], file_rank) is None


class _Boom:
    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (subprocess.call, (["touch", "/tmp/crashdoc-pwned"],))


@pytest.mark.parametrize(
    "data",
    [
        pickle.dumps({"version": "2.10", "entries": [_Boom()]}),  # a class in the stream: refused, never called
        pickle.dumps({"version": "2.10", "entries": [{"frames": [Path("/x")]}]}),
        pickle.dumps(["not", "a", "dump"]),
        b"\x80\x04\x95garbage",  # a cut pickle
        b'{"entries": [1, 2',  # cut JSON
        b'{"entries": "not a list", "version": "2.10"}',
    ],
    ids=["reduce-callable", "pathlib-object", "a-list", "cut-pickle", "cut-json", "entries-not-a-list"],
)
def test_a_dump_is_untrusted_input(data, tmp_path):
    assert not is_dump(data)
    assert render(data) is None
    assert not Path("/tmp/crashdoc-pwned").exists()


@pytest.mark.parametrize(
    ("name", "dump"),
    [("fr_dumps/rank_3", True), ("rank_3.json", True), ("rank3.pkl", True), ("nccl_trace_rank_12", True),
     ("rank_3_notes", False), ("checkpoint.pt", False), ("model-00001-of-00004.safetensors", False)],
)
def test_dump_file_names(name, dump):
    assert is_dump_name(name) is dump


def test_a_dump_nested_too_deep_to_print_is_refused_not_a_crash():
    sizes: list = []
    for _ in range(5000):
        sizes = [sizes]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(30000)
    try:
        data = pickle.dumps({"version": "2.10", "entries": [{"input_sizes": sizes}]})
    finally:
        sys.setrecursionlimit(limit)
    assert render(data) is None


def test_a_malicious_upload_is_a_clear_error_not_a_crash(engine):
    """Bytes that start like a pickle but hold a class are treated as binary data: the user is told what to send."""
    from service.errors import InputError

    with pytest.raises(InputError, match="binary"):
        ingest([Source(name="rank_0", data=pickle.dumps({"version": "1", "entries": [_Boom()]}))], engine.limits)


def test_dumps_are_masked_like_log_lines(engine):
    """The dumps' stack frames carry paths; what leaves ingest goes through masking like any other line."""
    raw = ingest(sources_from_paths([str(DATA / "skip")]), engine.limits)
    dump = next(f for f in raw.files if f.name.endswith("rank_2"))
    assert dump.lines[0].startswith("[flight recorder] version=")
    assert any("op=gloo:barrier" in ln for ln in dump.lines)


def test_cli_reads_a_dump_directory_next_to_the_logs(session_data_dir, tmp_path):
    run = DATA / "skip"
    data = tmp_path / "data"
    data.mkdir()
    if (session_data_dir / "index").exists():  # the session's built index, not a second embedding of the KB
        os.symlink(session_data_dir / "index", data / "index")
    out = subprocess.run([sys.executable, "-m", "service.cli", "diagnose", str(run / "fr_dumps"), str(run / "console.log"),
                          "--format", "json"], cwd=REPO, capture_output=True, timeout=300,
                         env={**os.environ, "CRASHDOC_DATA_DIR": str(data)})
    assert out.returncode == 0, out.stderr.decode()
    d = json.loads(out.stdout)
    assert d["initiating_rank"] == 2
    assert d["facts"]["fr_collective"]["value"] == "all_reduce seq 5 pg 0"


def test_api_multipart_upload_of_dumps_and_console(server):
    run = DATA / "reorder"
    files = [("files", (f"fr_dumps/{p.name}", p.read_bytes())) for p in sorted((run / "fr_dumps").iterdir())]
    files.append(("files", ("console.log", (run / "console.log").read_bytes())))
    r = httpx.post(f"{server.url}/v1/diagnoses", files=files, timeout=120)
    assert r.status_code == 201, r.text
    assert r.json()["initiating_rank"] == 1
