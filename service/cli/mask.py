"""``crashdoc mask``: print the masked log, exactly what would leave this machine.

Streams: files (and .gz) are read and masked line by line with bounded memory, so a 100 MB log
needs no more than a small working set. One pseudonym table spans every file given.
"""

from __future__ import annotations

import argparse
import gzip
import io
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "mask",
        help="print the masked log (what would leave the machine), counts per kind on stderr",
        description="Mask secrets and personal data in a log and print the result; a count per kind goes to stderr. "
        "Several files share one pseudonym table, as in a diagnosis.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="log file, .gz, or '-' for stdin")
    p.set_defaults(run=run)


def _open(path: str) -> tuple[str, IO[bytes]]:
    from service.errors import InputError

    if path == "-":
        return "stdin", sys.stdin.buffer
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{path}: is a directory.", hint="Pass the log files, e.g. logs/*.log.")
    try:
        return p.name, p.open("rb")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file.", hint="Check the path, or pass '-' to read stdin.") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied.") from None


def _lines(name: str, raw: IO[bytes], max_chars: int) -> Iterator[str]:
    from service.errors import BinaryInput
    from service.ingest import _looks_binary, clean_line

    buffered: Any = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)  # type: ignore[arg-type]
    head = buffered.peek(8192)[:8192]
    stream: Any = gzip.GzipFile(fileobj=buffered) if head.startswith(b"\x1f\x8b") else buffered
    if not head.startswith(b"\x1f\x8b") and _looks_binary(head):
        raise BinaryInput(f"{name}: this looks like binary data, not a text log.", hint="Pass the training log as text (or .gz).")
    text = io.TextIOWrapper(stream, encoding="utf-8", errors="replace", newline="\n")
    try:
        for raw_line in text:
            line, _ = clean_line(raw_line.rstrip("\n").replace("\x00", ""), max_chars)
            yield line
    except (OSError, EOFError) as exc:
        raise BinaryInput(f"{name}: cannot read it to the end ({exc}).", hint="Check the file, or compress it again.") from exc


def run(args: argparse.Namespace) -> int:
    from service.masking import MaskState, get_masker, mask_lines_stream, mask_segment
    from service.settings import get_settings

    settings = get_settings()
    masker = get_masker()
    state = MaskState()
    out = sys.stdout
    for path in args.paths:
        name, raw = _open(path)
        if len(args.paths) > 1:
            out.write(f"==> {mask_segment(name, masker, state)} <==\n")
        for line in mask_lines_stream(_lines(name, raw, settings.max_line_chars), masker, state):
            out.write(line + "\n")
    out.flush()
    total = sum(state.counts.values())
    detail = ", ".join(f"{k}: {v}" for k, v in sorted(state.counts.items()))
    print(f"crashdoc: masked {total} item(s)" + (f" ({detail})" if detail else ""), file=sys.stderr)
    return 0
