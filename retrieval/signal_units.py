"""Read a released artifact (a wheel or an sdist) into *units*, streamed, for the signal check.

A unit is one piece of text a log line can come from: a string literal of a Python file (f-string
fields and %/{} placeholders become WILD), a raw Python line (tracebacks quote code), a line of a
C/C++/CUDA source, a printable string of a shared library (what `strings` prints), or a member path.
Units come out in batches, member by member and, for a shared library, block by block, so that a
wheel with gigabytes of .so files (torch) is read in bounded memory: nothing of a batch is kept once
the caller has scanned it.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import tarfile
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

WILD = "\x00"  # a placeholder inside a unit: matches any text, including none
SEP = "\x01"  # between units when a batch is joined for searching; never inside a unit
BLOCK = 1 << 24  # bytes of a shared library read at a time
_LONGEST = 1 << 20  # a printable run longer than this (none is a message) may be cut in two

_PY_SUFFIXES = (".py",)
_SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cu", ".cuh", ".h", ".hpp")
_BINARY_RE = re.compile(r"\.so(\.\d+)*$")
# printf conversions ("NET/IB : Got completion from peer %s with error %d"), fmt/str.format fields
# ("DataLoader worker (pid {}) is killed by signal: {}") and %-style named fields ("%(name)s").
_PLACEHOLDER = re.compile(
    r"%\([a-z_]+\)[sdr]|%[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfgGcsp]"
    r"|\{[^{}\s]{0,40}\}"
)
_PRINTABLE = re.compile(rb"[\x20-\x7e\t]{6,}")  # `strings`' default: runs of 6+ printable bytes (tab included)
_IS_PRINTABLE = bytes(1 if 0x20 <= b <= 0x7E or b == 0x09 else 0 for b in range(256))


def _template(text: str) -> str:
    """A literal with its placeholders replaced by WILD; '%%' stays a percent sign."""
    if "%" not in text and "{" not in text:
        return text  # most strings of a shared library: nothing to replace
    return _PLACEHOLDER.sub(WILD, text.replace("%%", "\x03")).replace("\x03", "%")


def _clean(units: Iterable[str]) -> list[str]:
    """Units as the scanner needs them: one line each (newlines kept as \\x02), no separator inside."""
    return [u.replace("\n", "\x02").replace(SEP, " ") for u in units]


def _python_units(source: str) -> Iterator[str]:
    """String literals (f-string fields as wildcards) and raw lines (tracebacks quote code lines)."""
    yield from (line.strip() for line in source.splitlines() if line.strip())
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            yield "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else WILD for v in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) >= 6:
            yield _template(node.value)


_STRINGS = shutil.which("strings")  # binutils' strings: the same runs as _PRINTABLE, several times faster


def printable_runs(data: bytes, use_strings: bool | None = None) -> list[bytes]:
    """The runs of 6+ printable bytes of `data`, as `strings -a -n 6` prints them."""
    if _STRINGS and use_strings is not False:
        out = subprocess.run([_STRINGS, "-a", "-n", "6"], input=data, stdout=subprocess.PIPE, check=True).stdout
        return out.split(b"\n")[:-1]
    return [m.group() for m in _PRINTABLE.finditer(data)]


def _binary_batches(stream: IO[bytes], block: int = BLOCK) -> Iterator[list[str]]:
    """The printable strings of a binary read `block` bytes at a time; a string cut by a block's end is
    completed from the next block, so the strings are the same as reading it whole."""
    tail = b""
    while chunk := stream.read(block):
        data = tail + chunk
        cut = len(data)
        while cut > 0 and _IS_PRINTABLE[data[cut - 1]] and len(data) - cut < _LONGEST:
            cut -= 1  # the printable run at the end may go on in the next block
        tail = data[cut:]
        # Printable runs hold neither a newline nor SEP: no _clean needed.
        yield [_template(run.decode("ascii")) for run in printable_runs(data[:cut])]
    if tail:
        yield [_template(run.decode("ascii")) for run in printable_runs(tail)]


def _wanted(name: str) -> bool:
    if "/include/" in name or "/tests/" in name or "/test/" in name:
        return False
    return name.endswith(_PY_SUFFIXES + _SOURCE_SUFFIXES) or bool(_BINARY_RE.search(name))


def member_batches(name: str, stream: IO[bytes] | None) -> Iterator[list[str]]:
    """The units of one member: its path, then what its content holds (nothing when `stream` is None)."""
    if stream is None or not _wanted(name):
        yield _clean([name])
    elif _BINARY_RE.search(name):
        yield _clean([name])
        yield from _binary_batches(stream)
    else:
        text = stream.read().decode("utf-8", "replace")
        if name.endswith(_PY_SUFFIXES):
            units = list(_python_units(text))
        else:
            units = [_template(line.strip()) for line in text.splitlines() if line.strip()]
        yield _clean([name, *units])


def archive_batches(path: Path) -> Iterator[list[str]]:
    """The units of a wheel (.whl or .zip) or an sdist (.tar.gz), member by member, streamed."""
    if path.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                if info.is_dir():
                    yield _clean([info.filename])
                    continue
                with z.open(info) as stream:
                    yield from member_batches(info.filename, stream)
    else:
        with tarfile.open(path) as t:
            for m in t:
                member = t.extractfile(m) if m.isfile() else None
                yield from member_batches(m.name.split("/", 1)[-1], member)


def read_archive(path: Path) -> list[str]:
    """Every unit of a small archive in one list (tests; the check itself streams `archive_batches`)."""
    return [u for batch in archive_batches(path) for u in batch]
