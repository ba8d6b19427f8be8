"""Stage 1, ingest: bytes in, decoded lines out, within limits.

Gzip is decompressed in bounded chunks, so a gzip bomb stops at the limit without being allocated.
Text is decoded as UTF-8 (invalid bytes replaced), NULs and ANSI escape sequences removed, CRLF folded,
and carriage-return redraws (tqdm progress bars) reduced to what a terminal would finally show.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from service.errors import BinaryInput, EmptyInput, TooLarge
from service.models import LogFile, RawRun, Source

# CSI sequences (colours, cursor moves: "\x1b[1;31mERROR\x1b[0m"), OSC titles, and lone two-byte escapes.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Limits:
    max_upload_bytes: int
    max_decompressed_bytes: int
    max_files: int
    max_line_chars: int

    @classmethod
    def from_settings(cls, settings: object) -> Limits:
        return cls(
            max_upload_bytes=settings.max_upload_bytes,  # type: ignore[attr-defined]
            max_decompressed_bytes=settings.max_decompressed_bytes,  # type: ignore[attr-defined]
            max_files=settings.max_files,  # type: ignore[attr-defined]
            max_line_chars=settings.max_line_chars,  # type: ignore[attr-defined]
        )


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):.0f} MiB"


def gunzip_bounded(data: bytes, limit: int, name: str) -> bytes:
    """Decompress gzip (one or several members) without ever holding more than ``limit`` bytes."""
    out = bytearray()
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    pending = data
    try:
        while True:
            out += d.decompress(pending, min(_CHUNK, limit + 1 - len(out)))
            if len(out) > limit:
                raise TooLarge(
                    f"{name}: decompressed size is over the {_mib(limit)} limit.",
                    hint="Send the part of the log around the failure, or split it per rank.",
                )
            if d.eof:
                pending = d.unused_data
                if not pending.startswith(_GZIP_MAGIC):
                    break  # trailing bytes after the last member are ignored, as gzip(1) does
                d = zlib.decompressobj(16 + zlib.MAX_WBITS)
                continue
            pending = d.unconsumed_tail
            if not pending:
                raise BinaryInput(f"{name}: the gzip stream is truncated.", hint="Compress the log again and resend it.")
    except zlib.error as exc:
        raise BinaryInput(f"{name}: not a valid gzip file ({exc}).", hint="Send the log as text or .gz.") from exc
    return bytes(out)


def _looks_binary(sample: bytes) -> bool:
    """True for data that is clearly not a text log (images, archives, model weights)."""
    if not sample:
        return False
    control = sum(1 for b in sample if b < 9 or (13 < b < 32 and b != 27))
    return control > max(8, len(sample) // 10)


def clean_line(line: str, max_chars: int) -> tuple[str, bool]:
    """One line as a terminal would show it: last carriage-return redraw, no ANSI, cut at ``max_chars``."""
    if "\r" in line:
        # tqdm redraws: keep the last non-empty segment, what the terminal finally showed.
        segments = [s for s in line.split("\r") if s.strip()]
        line = segments[-1] if segments else ""
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    if len(line) > max_chars:
        cut = len(line) - max_chars
        return f"{line[:max_chars]} …[{cut} more characters cut]", True
    return line, False


def decode(name: str, data: bytes, limits: Limits) -> LogFile:
    """Decode one file's bytes (gzip or text) into clean lines."""
    if data.startswith(_GZIP_MAGIC):
        data = gunzip_bounded(data, limits.max_decompressed_bytes, name)
    elif len(data) > limits.max_decompressed_bytes:
        raise TooLarge(
            f"{name}: {_mib(len(data))} is over the {_mib(limits.max_decompressed_bytes)} limit.",
            hint="Send the part of the log around the failure, or compress it with gzip.",
        )
    if _looks_binary(data[:8192]):
        raise BinaryInput(
            f"{name}: this looks like binary data, not a text log.",
            hint="Send the training log as text (or .gz).",
        )
    text = data.decode("utf-8", errors="replace").replace("\x00", "")
    raw_lines = text.split("\n")
    if raw_lines and raw_lines[-1] == "":
        raw_lines.pop()
    lines: list[str] = []
    truncated = 0
    for raw in raw_lines:
        line, cut = clean_line(raw, limits.max_line_chars)
        truncated += cut
        lines.append(line)
    return LogFile(name=name, lines=lines, bytes_in=len(data), truncated_lines=truncated)


def ingest(sources: Sequence[Source], limits: Limits) -> RawRun:
    """Stage entry point: the files of one run, decoded, or an InputError that says what to do."""
    if not sources:
        raise EmptyInput("No log was given.", hint="Pass a log file, '-' for stdin, or a request body.")
    if len(sources) > limits.max_files:
        raise TooLarge(
            f"{len(sources)} files is over the limit of {limits.max_files} files per run.",
            hint="Send the files of the failing ranks, or concatenate them.",
        )
    total = sum(len(s.data) for s in sources)
    if total > limits.max_upload_bytes:
        raise TooLarge(
            f"The input is {_mib(total)}, over the {_mib(limits.max_upload_bytes)} limit.",
            hint="Compress it with gzip or send the part around the failure.",
        )
    files = [decode(s.name, s.data, limits) for s in sources]
    if not any(line.strip() for f in files for line in f.lines):
        raise EmptyInput("The log is empty.", hint="Check the path, or that the job wrote its output there.")
    names = [f.name for f in files]
    if len(set(names)) != len(names):
        files = [f.model_copy(update={"name": f"{i}:{f.name}"}) for i, f in enumerate(files)]
    return RawRun(files=files)
