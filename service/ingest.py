"""Stage 1, ingest: the one input reader. Paths, directories or bytes in; decoded lines out, within limits.

    sources_from_paths(paths)   the CLI and ``crashdoc mask``: files, directories (torchrun ``--log-dir``, node
                                folders, one file per rank), ``-`` for stdin; nothing is read yet
    sources_in(folder)          the eval loader: the log files of one case folder
    iter_lines(source, limits)  one file's clean lines, streamed in chunks (``crashdoc mask``)
    ingest(sources, limits)     the pipeline: the files of one run, the lines that matter selected
                                while reading (``service.prefilter``), the rest only counted; memory
                                follows the selection, not the input

Which files count is one list (``LOG_SUFFIXES``, torchrun's error files, ``COMPRESSED``). Input is read in
chunks of ``CHUNK`` bytes: gzip (one or several members) and zstd (when the ``zstandard`` package is
installed) are decompressed as they stream, so a bomb stops at the limit without being allocated. Text is
UTF-8, or UTF-16/32 with a byte-order mark, or Latin-1 (with a note) when the start is not UTF-8 at all;
NULs and ANSI escape sequences are removed, CRLF folded, carriage-return redraws (tqdm progress bars)
reduced to what a terminal would finally show, and lines cut at ``max_line_chars``. The limits (bytes in,
bytes decompressed, lines, files) count the whole run and are enforced while reading.
"""

from __future__ import annotations

import codecs
import io
import itertools
import re
import sys
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from service.errors import BinaryInput, EmptyInput, InputError, TooLarge
from service.facts import flight_recorder
from service.models import LogFile, RawRun, Source
from service.prefilter import MAX_KEPT, RunSelection

try:  # optional: zstd-compressed logs (``pip install crashdoc[zstd]``)
    import zstandard
except ImportError:  # pragma: no cover - depends on the installation
    zstandard = None  # type: ignore[assignment]

# CSI sequences (colours, cursor moves: "\x1b[1;31mERROR\x1b[0m"), OSC titles, and lone two-byte escapes.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
_GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
CHUNK = 1 << 20
_HOLD = 1 << 20  # an unfinished line longer than this (a 1 GB line without a newline) keeps only its head

# The files that count as logs when a directory is read (the CLI, ``crashdoc mask``, the eval loader).
LOG_SUFFIXES = (".log", ".out", ".err", ".txt")
# torchrun's error files: "<log-dir>/<run>/attempt_0/3/error.json" (TORCHELASTIC_ERROR_FILE; also "rank3_error.json")
ERROR_FILE = re.compile(r"(?:^|[/_.-])error\.json$")
COMPRESSED = (".gz", ".zst")
# A compressed file whose inner name has no suffix at all: "rank3.gz"
_BARE = re.compile(r"(?:^|/)[^/.]+$")

# Byte-order marks, longest first (UTF-32 LE starts with the UTF-16 LE mark).
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# A valid UTF-8 multi-byte sequence ("é" is C3 A9): its presence says the file is UTF-8 with a few bad bytes,
# its absence next to high bytes says Latin-1 ("caf\xe9").
_UTF8_MULTIBYTE = re.compile(rb"[\xc2-\xf4][\x80-\xbf]+")
_UNBOUNDED = sys.maxsize


def counts_as_log(name: str) -> bool:
    """Whether a file found in a directory is one of the run's logs (a path given explicitly always is)."""
    lowered = name.lower().replace("\\", "/")
    compressed = lowered.endswith(COMPRESSED)
    if compressed:
        lowered = lowered.rsplit(".", 1)[0]
    return (lowered.endswith(LOG_SUFFIXES) or bool(ERROR_FILE.search(lowered)) or (compressed and bool(_BARE.search(lowered)))
            or flight_recorder.is_dump_name(lowered))


def _kinds() -> str:
    return ", ".join(f"*{s}" for s in LOG_SUFFIXES) + ", torchrun's error.json, compressed " + "/".join(COMPRESSED)


@dataclass(frozen=True)
class Limits:
    """What one run may be; ``local()`` for the CLI (a file on the user's own disk has no size cap)."""

    max_upload_bytes: int  # bytes as they arrive (compressed), all files together
    max_decompressed_bytes: int  # bytes after decompression, all files together
    max_files: int
    max_line_chars: int
    max_lines: int = _UNBOUNDED  # lines, all files together

    @classmethod
    def from_settings(cls, settings: object) -> Limits:
        return cls(
            max_upload_bytes=settings.max_upload_bytes,  # type: ignore[attr-defined]
            max_decompressed_bytes=settings.max_decompressed_bytes,  # type: ignore[attr-defined]
            max_files=settings.max_files,  # type: ignore[attr-defined]
            max_line_chars=settings.max_line_chars,  # type: ignore[attr-defined]
            max_lines=settings.max_lines,  # type: ignore[attr-defined]
        )

    @classmethod
    def local(cls, max_line_chars: int) -> Limits:
        return cls(_UNBOUNDED, _UNBOUNDED, _UNBOUNDED, max_line_chars, _UNBOUNDED)


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):.0f} MiB"


# ---------------------------------------------------------------- where the bytes come from


def sources_from_paths(paths: Sequence[str]) -> list[Source]:
    """``-`` is stdin; a directory stands for the log files anywhere under it (the files of one run)."""
    sources: list[Source] = []
    for p in paths:
        if p == "-":
            sources.append(Source(name="stdin", path="-"))
            continue
        path = Path(p)
        if path.is_dir():
            found = sources_in(path)
            if not found:
                raise InputError(f"{p}: no log files ({_kinds()}) in this directory.",
                                 hint="Pass the directory the job wrote its logs to, or the files themselves.")
            sources.extend(found)
            continue
        try:
            with path.open("rb"):
                pass
        except FileNotFoundError:
            raise InputError(f"{p}: no such file.", hint="Check the path, or pass '-' to read stdin.") from None
        except PermissionError:
            raise InputError(f"{p}: permission denied.") from None
        except OSError as exc:
            raise InputError(f"{p}: cannot be read ({exc.strerror or exc}).") from None
        sources.append(Source(name=path.name, path=str(path)))
    return sources


def sources_in(folder: Path) -> list[Source]:
    """The log files under ``folder``, named by their path inside it (``attempt_0/3/stderr.log``), in path order."""
    files = sorted(f for f in folder.rglob("*") if f.is_file() and counts_as_log(str(f.relative_to(folder))))
    return [Source(name=str(f.relative_to(folder)), path=str(f)) for f in files]


def open_source(source: Source) -> IO[bytes]:
    if source.path is None:
        return io.BytesIO(source.data)
    if source.path == "-":
        return sys.stdin.buffer
    try:
        return open(source.path, "rb")
    except OSError as exc:
        raise InputError(f"{source.name}: cannot be read ({exc.strerror or exc}).") from None


def source_size(source: Source) -> int | None:
    """Bytes as stored (compressed), when known before reading: for progress."""
    if source.path is None:
        return len(source.data)
    if source.path == "-":
        return None
    try:
        return Path(source.path).stat().st_size
    except OSError:
        return None


# ---------------------------------------------------------------- bytes -> text


@dataclass
class Budget:
    """The run's limits, counted across its files while they are read."""

    limits: Limits
    read: int = 0  # bytes in, as they arrived
    decompressed: int = 0
    lines: int = 0
    on_read: Callable[[int], None] | None = None  # progress: called with each chunk's size as read

    def took_in(self, name: str, n: int) -> None:
        self.read += n
        if self.on_read is not None:
            self.on_read(n)
        if self.read > self.limits.max_upload_bytes:
            raise TooLarge(f"The input is over the {_mib(self.limits.max_upload_bytes)} limit.",
                           hint="Compress it with gzip or send the part around the failure.")

    def produced(self, name: str, n: int, compressed: bool) -> None:
        self.decompressed += n
        if self.decompressed > self.limits.max_decompressed_bytes:
            what = "decompressed size" if compressed else "size"
            raise TooLarge(f"{name}: the run's {what} is over the {_mib(self.limits.max_decompressed_bytes)} limit.",
                           hint="Send the part of the log around the failure, or split it per rank.")

    def counted_lines(self, n: int) -> None:
        self.lines += n
        if self.lines > self.limits.max_lines:
            raise TooLarge(f"The input has more than {self.limits.max_lines:,} lines, over the limit.",
                           hint="Send the part of the log around the failure, or the files of the failing ranks.")


def _read(stream: IO[bytes], name: str, budget: Budget) -> Iterator[bytes]:
    while True:
        try:
            chunk = stream.read(CHUNK)
        except OSError as exc:
            raise InputError(f"{name}: cannot be read to the end ({exc}).", hint="Check the file.") from exc
        if not chunk:
            return
        budget.took_in(name, len(chunk))
        yield chunk


def _gunzip(first: bytes, rest: Iterator[bytes], name: str, budget: Budget) -> Iterator[bytes]:
    """Gzip, one or several members, decompressed chunk by chunk (never more than CHUNK at once)."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    pending = first
    try:
        while True:
            out = d.decompress(pending, CHUNK)
            if out:
                budget.produced(name, len(out), True)
                yield out
            if d.eof:
                pending = d.unused_data
                if not pending:
                    pending = next(rest, b"")
                if not pending.startswith(_GZIP_MAGIC):
                    return  # trailing bytes after the last member are ignored, as gzip(1) does
                d = zlib.decompressobj(16 + zlib.MAX_WBITS)
                continue
            pending = d.unconsumed_tail
            if not pending:
                pending = next(rest, b"")
                if not pending:
                    raise BinaryInput(f"{name}: the gzip stream is truncated.", hint="Compress the log again and resend it.")
    except zlib.error as exc:
        raise BinaryInput(f"{name}: not a valid gzip file ({exc}).", hint="Send the log as text or .gz.") from exc


class _Chunks(io.RawIOBase):
    """A file object over an iterator of byte chunks (what zstandard's stream reader reads from)."""

    def __init__(self, chunks: Iterator[bytes], first: bytes) -> None:
        self._chunks, self._buf = chunks, first

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:  # type: ignore[no-untyped-def]
        while not self._buf:
            self._buf = next(self._chunks, b"")
            if not self._buf:
                return 0
        n = min(len(b), len(self._buf))
        b[:n], self._buf = self._buf[:n], self._buf[n:]
        return n


def _unzstd(first: bytes, rest: Iterator[bytes], name: str, budget: Budget) -> Iterator[bytes]:
    """Zstd, one or several frames, read CHUNK bytes at a time (a bomb never gets allocated)."""
    if zstandard is None:
        raise BinaryInput(f"{name}: zstd-compressed, and this installation cannot read zstd.",
                          hint="Decompress it first (zstd -d), send it as .gz, or install crashdoc[zstd].")
    reader = zstandard.ZstdDecompressor().stream_reader(io.BufferedReader(_Chunks(rest, first)), read_across_frames=True)
    try:
        while out := reader.read(CHUNK):
            budget.produced(name, len(out), True)
            yield out
    except zstandard.ZstdError as exc:
        raise BinaryInput(f"{name}: not a valid zstd file ({exc}).", hint="Send the log as text, .gz or .zst.") from exc


def _decompressed(stream: IO[bytes], name: str, budget: Budget) -> Iterator[bytes]:
    """The file's bytes, decompressed if they are gzip or zstd (recognised by their magic bytes, not the name)."""
    raw = _read(stream, name, budget)
    first = next(raw, b"")
    while len(first) < 4:  # a pipe may deliver the magic bytes in pieces
        more = next(raw, b"")
        if not more:
            break
        first += more
    if first.startswith(_GZIP_MAGIC):
        yield from _gunzip(first, raw, name, budget)
    elif first.startswith(_ZSTD_MAGIC):
        yield from _unzstd(first, raw, name, budget)
    else:
        if first:
            budget.produced(name, len(first), False)
            yield first
        for chunk in raw:
            budget.produced(name, len(chunk), False)
            yield chunk


def _looks_binary(sample: str) -> bool:
    """True for data that is clearly not a text log (images, archives, model weights)."""
    if not sample:
        return False
    control = sum(1 for c in sample if c < "\t" or ("\r" < c < " " and c != "\x1b"))
    return control > max(8, len(sample) // 10)


def _encoding(head: bytes) -> tuple[str, int, str | None]:
    """(codec, bytes of BOM to skip, note) for a file starting with ``head``."""
    for bom, codec in _BOMS:
        if head.startswith(bom):
            return codec, len(bom), None
    try:
        codecs.getincrementaldecoder("utf-8")("strict").decode(head, final=False)
        return "utf-8", 0, None
    except UnicodeDecodeError:
        pass
    if _UTF8_MULTIBYTE.search(head):
        return "utf-8", 0, None  # UTF-8 with some bad bytes: they become U+FFFD
    return "latin-1", 0, "not UTF-8: read as Latin-1"


def _texts(chunks: Iterator[bytes], name: str, notes: list[str]) -> Iterator[str]:
    """Decoded text, chunk by chunk; NULs removed."""
    head = next(chunks, b"")
    codec, skip, note = _encoding(head[:65536])
    if note:
        notes.append(note)
    decoder = codecs.getincrementaldecoder(codec)("replace")
    first = decoder.decode(head[skip:])
    if not skip and _looks_binary(first[:8192]):
        raise BinaryInput(f"{name}: this looks like binary data, not a text log.", hint="Send the training log as text (or .gz).")
    yield first.replace("\x00", "")
    for chunk in chunks:
        yield decoder.decode(chunk).replace("\x00", "")
    yield decoder.decode(b"", final=True)


@dataclass
class FileStats:
    """What reading one file counted."""

    lines: int = 0
    truncated: int = 0  # lines cut at max_line_chars
    giant: int = 0  # lines so long (over 1 MiB) that only their head was read
    nonblank: bool = False
    notes: list[str] = field(default_factory=list)


def blocks(texts: Iterator[str], name: str, stats: FileStats, budget: Budget) -> Iterator[str]:
    """Text in blocks of whole lines (joined by newlines, no final newline); an unfinished line is held at most
    ``_HOLD`` characters: the rest of a giant line is skipped, and a giant tqdm redraw keeps its last segments."""
    pending = ""
    skipping = False
    for text in texts:
        if not text:
            continue
        if skipping:
            nl = text.find("\n")
            if nl < 0:
                continue
            text, skipping = text[nl:], False
        data = pending + text if pending else text
        nl = data.rfind("\n")
        if nl < 0:
            pending = data
            if len(pending) > _HOLD:
                cr = pending.rfind("\r", 0, len(pending) - 4096)
                if cr > 0:
                    pending = pending[cr:]  # a progress bar redrawn for hours without a newline: its last redraws
                if len(pending) > _HOLD:
                    pending, skipping = pending[:_HOLD], True
                    stats.giant += 1
            continue
        block, pending = data[:nl], data[nl + 1 :]
        n = block.count("\n") + 1
        stats.lines += n
        budget.counted_lines(n)
        yield block
    if pending:
        stats.lines += 1
        budget.counted_lines(1)
        yield pending
    if stats.giant:
        stats.notes.append(f"{stats.giant} line(s) over {_mib(_HOLD)} without a newline: only their start was read")


_TOKEN_END = re.compile(r".?[\s\"',]|[\s\"',]")  # the cut falls on a value's edge: nothing of a token is split


def clean_line(line: str, max_chars: int) -> tuple[str, bool]:
    """One line as a terminal would show it: last carriage-return redraw, no ANSI, cut at ``max_chars``."""
    if "\r" in line:
        # tqdm redraws: keep the last non-empty segment, what the terminal finally showed.
        segments = [s for s in line.split("\r") if s.strip()]
        line = segments[-1] if segments else ""
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    if len(line) > max_chars:
        head = line[:max_chars]
        if not _TOKEN_END.match(line[max_chars - 1 : max_chars + 1]):
            # never keep the first characters of a token cut in two: a secret's head is too short for any
            # recognizer to know it (HF_TOKEN=hf_AbCdEfGhIjK|...), so the partial token goes, back to the
            # last space, tab, quote or comma (the ends of values in every syntax logs use)
            head = head[: max(map(head.rfind, " \t\"',")) + 1]
        cut = len(line) - len(head)
        return f"{head} …[{cut} more characters cut]", True
    return line, False


def read_blocks(source: Source, budget: Budget, stats: FileStats) -> Iterator[str]:
    """One source's text in blocks of whole lines, within the run's budget."""
    stream = open_source(source)
    try:
        chunks = _decompressed(stream, source.name, budget)
        head = next(chunks, b"")
        if flight_recorder.might_be_dump(head):  # a rank's Flight Recorder pickle or JSON: read whole, as text lines
            data = head + b"".join(chunks)
            lines = flight_recorder.render(data)
            if lines is not None:
                yield from blocks(iter(["\n".join(lines)]), source.name, stats, budget)
                return
            chunks = iter([data])
        else:
            chunks = itertools.chain([head], chunks)
        yield from blocks(_texts(chunks, source.name, stats.notes), source.name, stats, budget)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def iter_lines(source: Source, limits: Limits, budget: Budget | None = None, stats: FileStats | None = None) -> Iterator[str]:
    """One file's clean lines, streamed: memory holds a chunk, not the file (``crashdoc mask``)."""
    budget = budget or Budget(limits)
    stats = stats or FileStats()
    for block in read_blocks(source, budget, stats):
        for raw in block.split("\n"):
            line, cut = clean_line(raw, limits.max_line_chars)
            stats.truncated += cut
            yield line


# ---------------------------------------------------------------- the stage


def _checked(sources: Sequence[Source], limits: Limits) -> None:
    if not sources:
        raise EmptyInput("No log was given.", hint="Pass a log file, '-' for stdin, or a request body.")
    if len(sources) > limits.max_files:
        raise TooLarge(
            f"{len(sources)} files is over the limit of {limits.max_files} files per run.",
            hint="Send the files of the failing ranks, or concatenate them.",
        )
    total = sum(len(s.data) for s in sources if s.path is None)
    if total > limits.max_upload_bytes:
        raise TooLarge(
            f"The input is {_mib(total)}, over the {_mib(limits.max_upload_bytes)} limit.",
            hint="Compress it with gzip or send the part around the failure.",
        )


def _named(files: list[LogFile]) -> list[LogFile]:
    names = [f.name for f in files]
    if len(set(names)) != len(names):
        files = [f.model_copy(update={"name": f"{i}:{f.name}"}) for i, f in enumerate(files)]
    return files


def select_lines(source: Source, budget: Budget, run: RunSelection) -> LogFile:
    """One file read in blocks: its candidate lines (with context, head and tail) kept, the others only counted
    and left empty, so every kept line keeps its number (``service.prefilter``)."""
    stats = FileStats()
    sel = run.selector()
    for block in read_blocks(source, budget, stats):
        sel.feed(block)
    sel.finish()
    lines = [""] * sel.lines
    truncated = 0
    for n, text in sel.kept.items():
        line, cut = clean_line(text, budget.limits.max_line_chars)
        truncated += cut
        lines[n - 1] = line
    notes = list(stats.notes)
    if sel.over:
        notes.append(f"{sel.over:,} more error lines after the run's first {MAX_KEPT:,} kept lines were only counted")
    return LogFile(name=source.name, lines=lines, truncated_lines=truncated, notes=notes, nonblank=sel.nonblank,
                   dropped=sel.lines - len(sel.kept), repeats=sel.repeats)


def read_all(source: Source, budget: Budget) -> LogFile:
    """Every line of one file."""
    stats = FileStats()
    lines = list(iter_lines(source, budget.limits, budget, stats))
    stats.nonblank = any(line.strip() for line in lines)
    return LogFile(name=source.name, lines=lines, truncated_lines=stats.truncated, notes=stats.notes, nonblank=stats.nonblank)


def ingest(sources: Sequence[Source], limits: Limits, *, select: bool = True, selection: RunSelection | None = None,
           on_read: Callable[[int], None] | None = None) -> RawRun:
    """Stage entry point: the files of one run, decoded, or an InputError that says what to do.

    ``select`` (the pipeline's way): only the lines that can matter are kept, the others counted and left empty
    (``select_lines``); without it every line is kept (the eval's with-and-without comparison). ``selection``:
    the prefilter's settings when not its defaults (the tests).
    """
    _checked(sources, limits)
    budget = Budget(limits, on_read=on_read)
    run = selection or RunSelection.for_run(len(sources))
    files: list[LogFile] = []
    for s in sources:
        before = budget.decompressed
        f = select_lines(s, budget, run) if select else read_all(s, budget)
        files.append(f.model_copy(update={"bytes_in": budget.decompressed - before}))
    if not any(f.nonblank for f in files):
        raise EmptyInput("The log is empty.", hint="Check the path, or that the job wrote its output there.")
    return RawRun(files=_named(files))
