"""Reading the files of one run from paths, directories or stdin."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from service.ingest import source_size, sources_from_paths
from service.models import Source

if TYPE_CHECKING:
    from service.pipeline import Engine


def read_sources(paths: list[str]) -> list[Source]:
    """``-`` is stdin; a directory stands for the log files inside it (the files of one run). Nothing is read yet."""
    return sources_from_paths(paths)


def total_size(sources: list[Source]) -> int | None:
    """Bytes on disk of all the sources, or None when one is a pipe."""
    sizes = [source_size(s) for s in sources]
    return None if any(n is None for n in sizes) else sum(n for n in sizes if n is not None)


def progress(message: str) -> None:
    """A line of progress on stderr, only for a person at a terminal."""
    if sys.stderr.isatty():
        print(message, file=sys.stderr, flush=True)


def first_run_notice(engine: Engine) -> None:
    """Say why the first run with a model and a KB takes longer (the export and the index are built once)."""
    if not engine.index_ready():
        progress("crashdoc: first run with this embedding model and KB: exporting the model and building the "
                 "retrieval index (once, about 10 to 30 s)…")
