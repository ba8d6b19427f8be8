"""Ingest: any bytes in, clean lines or a clear error out."""

from __future__ import annotations

import codecs
import gzip
from pathlib import Path

import pytest
import zstandard

from service.errors import BinaryInput, EmptyInput, InputError, TooLarge
from service.evaluation.cases import LoadedCase
from service.ingest import Limits, counts_as_log, ingest, iter_lines, sources_from_paths, sources_in
from service.models import Source

LIMITS = Limits(max_upload_bytes=1 << 20, max_decompressed_bytes=4 << 20, max_files=4, max_line_chars=200)


def lines_of(data: bytes, name: str = "x.log") -> list[str]:
    return ingest([Source(name=name, data=data)], LIMITS).files[0].lines


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"a\r\nb\r\n", ["a", "b"]),  # CRLF
        (b"\x1b[1;31mERROR\x1b[0m boom\n", ["ERROR boom"]),  # ANSI colours
        (b" 10%|#  | 1/10\r 20%|## | 2/10\r100%|###| 10/10\n", ["100%|###| 10/10"]),  # tqdm redraws
        (b"nul\x00byte\n", ["nulbyte"]),
        (b"caf\xc3\xa9 \xff\xfe ok\n", ["café �� ok"]),  # invalid UTF-8 replaced, not fatal
        (b"no trailing newline", ["no trailing newline"]),
    ],
)
def test_text_is_cleaned(raw, expected):
    assert lines_of(raw) == expected


def test_a_huge_line_is_cut_with_a_marker():
    line = lines_of(b"step 12 " + b"x" * 5000 + b"\nnext\n")
    assert line[0] == "step 12  …[5000 more characters cut]"  # the token cut in two goes whole
    assert line[1] == "next"
    words = lines_of(b"word " * 100)
    assert words[0].startswith("word " * 40) and words[0].endswith("characters cut]")


@pytest.mark.parametrize(
    "secret",
    ["hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "Pm4oWy$2xpP5E&n6WUWYq;zz", "ghp_" + "a1B2" * 9],
)
def test_a_secret_cut_by_the_line_limit_keeps_none_of_its_characters(secret):
    """Wherever the 200-character limit falls inside the value, no piece of it survives the cut."""
    for filler in range(150, 200):
        line = lines_of(b"x " * (filler // 2) + b"TOKEN=" + secret.encode() + b' "next" ' + b"y" * 300)[0]
        kept = line.split(" …[")[0]
        assert secret in kept or secret[:4] not in kept, kept  # whole (masking's to find) or nothing


def test_gzip_is_decompressed_including_multi_member():
    data = gzip.compress(b"first\n") + gzip.compress(b"second\n")
    assert lines_of(data, "x.log.gz") == ["first", "second"]


def test_zstd_is_decompressed_including_multi_frame():
    data = zstandard.compress(b"first\n") + zstandard.compress(b"second\n")
    assert lines_of(data, "x.log.zst") == ["first", "second"]


@pytest.mark.parametrize("compress", [gzip.compress, zstandard.compress])
def test_a_bomb_stops_at_the_limit_without_allocating_it(compress):
    bomb = compress(b"\n" * (64 << 20))  # 64 MiB of newlines: a few dozen KiB compressed
    with pytest.raises(TooLarge, match="decompressed size"):
        ingest([Source(name="bomb.gz", data=bomb)], LIMITS)


TEXT = "step 1 ok\nRuntimeError: café ✓\n"


@pytest.mark.parametrize(
    ("data", "note"),
    [
        (TEXT.encode("utf-8"), None),
        (codecs.BOM_UTF8 + TEXT.encode("utf-8"), None),
        (codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le"), None),  # PowerShell's `>` redirect
        (codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"), None),
        (codecs.BOM_UTF32_LE + TEXT.encode("utf-32-le"), None),
        (codecs.BOM_UTF32_BE + TEXT.encode("utf-32-be"), None),
        (gzip.compress(codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le")), None),
    ],
)
def test_unicode_with_or_without_a_byte_order_mark_is_decoded(data, note):
    f = ingest([Source(name="x.log", data=data)], LIMITS).files[0]
    assert f.lines == ["step 1 ok", "RuntimeError: café ✓"]
    assert f.notes == []


def test_latin1_is_read_as_latin1_with_a_note():
    f = ingest([Source(name="x.log", data="RuntimeError: caf\xe9 d\xe9j\xe0\n".encode("latin-1"))], LIMITS).files[0]
    assert f.lines == ["RuntimeError: café déjà"]
    assert f.notes == ["not UTF-8: read as Latin-1"]


def test_utf16_without_a_mark_is_still_refused_as_binary():
    with pytest.raises(BinaryInput):
        ingest([Source(name="x.log", data=("x" * 200).encode("utf-16-le"))], LIMITS)


def test_a_line_without_end_is_read_in_bounded_memory_and_cut():
    """A 64 MiB single line (the 1 GB one of the benchmark, smaller): held at most 1 MiB, then cut at the limit."""
    big = Limits(max_upload_bytes=1 << 30, max_decompressed_bytes=1 << 30, max_files=4, max_line_chars=200)
    data = gzip.compress(b"Error " + b"y" * (64 << 20) + b"\nafter\n", compresslevel=1)
    f = ingest([Source(name="one-line.log.gz", data=data)], big).files[0]
    # the y-run is one token cut in two: it goes whole (a secret cut there would keep nothing either)
    assert f.lines[0].startswith("Error  …[") and "more characters cut" in f.lines[0] and len(f.lines[0]) < 300
    assert f.lines[1] == "after"
    assert any("only their start was read" in n for n in f.notes)


@pytest.mark.parametrize(
    ("limits", "match"),
    [
        (Limits(max_upload_bytes=1 << 20, max_decompressed_bytes=1 << 20, max_files=4, max_line_chars=200, max_lines=1000),
         "more than 1,000 lines"),
        (Limits(max_upload_bytes=1 << 20, max_decompressed_bytes=3000, max_files=4, max_line_chars=200), "size is over"),
    ],
)
def test_lines_and_totals_count_across_the_files_of_a_run(limits, match):
    sources = [Source(name=f"rank{i}.log", data=b"step 1\n" * 400) for i in range(3)]  # 1,200 lines, 8,400 bytes
    with pytest.raises(TooLarge, match=match):
        ingest(sources, limits)


@pytest.mark.parametrize(
    ("name", "counts"),
    [
        ("train.log", True),
        ("slurm-88123.out", True),
        ("rank3.err", True),
        ("console.txt", True),
        ("train.log.gz", True),
        ("rank3.gz", True),
        ("train.log.zst", True),
        ("run/attempt_0/3/error.json", True),  # torchrun --log-dir
        ("rank3_error.json", True),  # TORCHELASTIC_ERROR_FILE
        ("scenario.json", False),
        ("ds_config.json", False),
        ("case.yaml", False),
        ("model.tar.gz", False),
        ("core.12345", False),
        ("events.out.tfevents.1716", False),
    ],
)
def test_which_files_count_as_logs(name, counts):
    assert counts_as_log(name) is counts


def _torchrun_log_dir(root: Path) -> Path:
    for rank in range(2):
        d = root / "run" / "attempt_0" / str(rank)
        d.mkdir(parents=True)
        (d / "stdout.log").write_text(f"rank {rank} out\n")
        (d / "stderr.log").write_text(f"rank {rank} err\n")
    (root / "run" / "attempt_0" / "1" / "error.json").write_text('{"message": "boom"}')
    (root / "scenario.json").write_text("{}")
    (root / "node1").mkdir()
    (root / "node1" / "rank2.log.gz").write_bytes(gzip.compress(b"node 1\n"))
    return root


EXPECTED_FILES = ["node1/rank2.log.gz", "run/attempt_0/0/stderr.log", "run/attempt_0/0/stdout.log",
                  "run/attempt_0/1/error.json", "run/attempt_0/1/stderr.log", "run/attempt_0/1/stdout.log"]


def test_the_cli_the_mask_command_and_the_eval_loader_read_the_same_files(tmp_path):
    folder = _torchrun_log_dir(tmp_path)
    (folder / "case.yaml").write_text("schema_version: 1\n")
    cli = [s.name for s in sources_from_paths([str(folder)])]
    loader = [s.name for s in LoadedCase.model_construct(id="x", folder=str(folder)).sources()]
    assert cli == loader == [s.name for s in sources_in(folder)] == EXPECTED_FILES


def test_a_directory_without_logs_and_a_missing_file_say_so(tmp_path):
    with pytest.raises(InputError, match="no log files"):
        sources_from_paths([str(tmp_path)])
    with pytest.raises(InputError, match="no such file"):
        sources_from_paths([str(tmp_path / "nope.log")])


def test_lines_stream_from_a_path_in_chunks(tmp_path):
    path = tmp_path / "big.log"
    path.write_bytes(b"".join(b"line %d\r\n" % i for i in range(300_000)))  # several read chunks, CRLF
    lines = iter_lines(Source(name="big.log", path=str(path)), Limits.local(200))
    assert next(lines) == "line 0"
    assert sum(1 for _ in lines) == 299_999


@pytest.mark.parametrize(
    ("sources", "error"),
    [
        ([], EmptyInput),
        ([Source(name="e.log", data=b"")], EmptyInput),
        ([Source(name="e.log", data=b"\n\n  \n")], EmptyInput),
        ([Source(name="w.bin", data=bytes(range(256)) * 40)], BinaryInput),
        ([Source(name="t.gz", data=gzip.compress(bytes(range(256)) * 8)[:40])], BinaryInput),
        ([Source(name=f"{i}.log", data=b"x") for i in range(5)], TooLarge),
        ([Source(name="big.log", data=b"x" * (2 << 20))], TooLarge),
    ],
)
def test_bad_input_gets_a_clear_error(sources, error):
    with pytest.raises(error) as info:
        ingest(sources, LIMITS)
    assert info.value.message


def test_duplicate_file_names_are_kept_apart():
    run = ingest([Source(name="rank.log", data=b"a\n"), Source(name="rank.log", data=b"b\n")], LIMITS)
    assert len({f.name for f in run.files}) == 2


def test_crashdoc_mask_reads_a_log_dir_and_utf16_through_the_same_reader(tmp_path, capsys):
    from service.cli import main

    folder = _torchrun_log_dir(tmp_path / "logs")
    (folder / "run" / "attempt_0" / "0" / "stderr.log").write_bytes(
        codecs.BOM_UTF16_LE + "RuntimeError: contact mchen@example.com\n".encode("utf-16-le"))
    assert main(["mask", str(folder)]) == 0
    out, err = capsys.readouterr()
    headers = [line[4:-4] for line in out.splitlines() if line.startswith("==> ")]
    assert headers == EXPECTED_FILES
    assert "RuntimeError: contact <EMAIL_1>" in out and "mchen@example.com" not in out
    assert "masked 1 item(s)" in err


def test_progress_says_bytes_of_total_rate_and_eta_every_few_seconds_when_not_a_tty(monkeypatch, capsys):
    from service.cli import inputs

    clock = iter([0.0, 0.5, 2.0, 3.0, 7.5, 8.0])
    monkeypatch.setattr(inputs.time, "monotonic", lambda: next(clock))
    p = inputs.Progress(total=400_000_000, every_s=5.0)  # started at t=0
    for _ in range(4):
        p(50_000_000)  # t=0.5: under a second, silent; t=2: a line; t=3: too soon; t=7.5: a line
    p.close()  # t=8: the last line
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["crashdoc: read 100 MB of 400 MB (25%), 50 MB/s, ETA 6 s",
                     "crashdoc: read 200 MB of 400 MB (50%), 27 MB/s, ETA 8 s",
                     "crashdoc: read 200 MB of 400 MB (50%), 25 MB/s, ETA 8 s"]


def test_quiet_progress_prints_nothing(capsys):
    from service.cli.inputs import Progress

    p = Progress(total=10, quiet=True, every_s=0)
    p.start -= 10
    p(5)
    p.close()
    assert capsys.readouterr().err == ""


def test_crashdoc_mask_shows_reading_progress_and_q_silences_it(tmp_path, monkeypatch, capsys):
    from service.cli import inputs, main

    log = tmp_path / "train.log"
    log.write_text("".join(f"[rank{i % 8}]: step {i} loss 2.{i % 97:02d}\n" for i in range(200_000)))
    ticks = iter(range(0, 10_000_000, 3))  # every reading of the clock is 3 s later: a line each chunk
    monkeypatch.setattr(inputs.time, "monotonic", lambda: float(next(ticks)))
    assert main(["mask", str(log)]) == 0
    err = capsys.readouterr().err
    assert f"of {log.stat().st_size / 1e6:,.0f} MB" in err and "MB/s" in err and "masked 0 item(s)" in err
    assert main(["mask", "-q", str(log)]) == 0
    assert capsys.readouterr().err.splitlines() == ["crashdoc: masked 0 item(s)"]
