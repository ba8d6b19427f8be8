"""Ingest: any bytes in, clean lines or a clear error out."""

from __future__ import annotations

import gzip

import pytest

from service.errors import BinaryInput, EmptyInput, TooLarge
from service.ingest import Limits, gunzip_bounded, ingest
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
    line = lines_of(b"x" * 5000 + b"\nnext\n")
    assert line[0].startswith("x" * 200) and "4800 more characters cut" in line[0]
    assert line[1] == "next"


def test_gzip_is_decompressed_including_multi_member():
    data = gzip.compress(b"first\n") + gzip.compress(b"second\n")
    assert lines_of(data, "x.log.gz") == ["first", "second"]


def test_gzip_bomb_stops_at_the_limit_without_allocating_it():
    bomb = gzip.compress(b"\0" * (64 << 20))
    with pytest.raises(TooLarge, match="decompressed size"):
        gunzip_bounded(bomb, 1 << 20, "bomb.gz")


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
