"""Reading the files of one run from paths, directories or stdin."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from service.errors import InputError
from service.models import Source

if TYPE_CHECKING:
    from service.pipeline import Engine

_LOG_SUFFIXES = (".log", ".out", ".err", ".txt", ".gz", ".json")  # .json: torchrun error files


def read_sources(paths: list[str]) -> list[Source]:
    """``-`` is stdin; a directory stands for the log files inside it (the files of one run)."""
    sources: list[Source] = []
    for p in paths:
        if p == "-":
            sources.append(Source(name="stdin", data=sys.stdin.buffer.read()))
            continue
        path = Path(p)
        if path.is_dir():
            files = sorted(f for f in path.rglob("*") if f.is_file() and f.name.endswith(_LOG_SUFFIXES))
            if not files:
                raise InputError(f"{p}: no log files (*.log, *.out, *.err, *.txt, *.gz) in this directory.")
            sources.extend(Source(name=str(f.relative_to(path)), data=f.read_bytes()) for f in files)
            continue
        try:
            sources.append(Source(name=path.name, data=path.read_bytes()))
        except FileNotFoundError:
            raise InputError(f"{p}: no such file.", hint="Check the path, or pass '-' to read stdin.") from None
        except PermissionError:
            raise InputError(f"{p}: permission denied.") from None
        except IsADirectoryError:  # pragma: no cover - handled above
            raise InputError(f"{p}: is a directory.") from None
    return sources


def progress(message: str) -> None:
    """A line of progress on stderr, only for a person at a terminal."""
    if sys.stderr.isatty():
        print(message, file=sys.stderr, flush=True)


def first_run_notice(engine: Engine) -> None:
    """Say why the first run with a model and a KB takes longer (the export and the index are built once)."""
    if not engine.index_ready():
        progress("crashdoc: first run with this embedding model and KB: exporting the model and building the "
                 "retrieval index (once, about 10 to 30 s)…")
