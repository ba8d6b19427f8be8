"""Reading the files of one run from paths, directories or stdin."""

from __future__ import annotations

import sys
import time
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


class Progress:
    """Reading progress on stderr once work takes over a second: bytes of the total, rate, ETA.

    At a terminal one line is redrawn; otherwise (CI logs) a line every ``every_s`` seconds. ``quiet`` silences it.
    """

    def __init__(self, total: int | None, quiet: bool = False, every_s: float = 5.0) -> None:
        self.total, self.quiet, self.every_s = total, quiet, every_s
        self.tty = sys.stderr.isatty()
        self.done = 0
        self.start = time.monotonic()
        self.last = float("-inf")
        self.shown = False

    def line(self, now: float) -> str:
        elapsed = max(now - self.start, 1e-9)
        rate = self.done / elapsed
        text = f"crashdoc: read {self.done / 1e6:,.0f} MB"
        if self.total:
            left = max(self.total - self.done, 0)
            eta = f", ETA {left / rate:,.0f} s" if rate > 0 else ""
            text += f" of {self.total / 1e6:,.0f} MB ({100 * min(self.done / self.total, 1):.0f}%)"
            return f"{text}, {rate / 1e6:,.0f} MB/s{eta}"
        return f"{text}, {rate / 1e6:,.0f} MB/s"

    def __call__(self, n: int) -> None:
        self.done += n
        if self.quiet:
            return
        now = time.monotonic()
        if now - self.start < 1.0 or now - self.last < (0.25 if self.tty else self.every_s):
            return
        self.last, self.shown = now, True
        if self.tty:
            print("\r" + self.line(now), end="", file=sys.stderr, flush=True)
        else:
            print(self.line(now), file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.shown and not self.quiet:
            end = "\r" + self.line(time.monotonic()) + "\n" if self.tty else self.line(time.monotonic()) + "\n"
            print(end, end="", file=sys.stderr, flush=True)


def progress(message: str, quiet: bool = False) -> None:
    """A line of progress on stderr (also when stderr is not a terminal: CI logs show why a step takes long)."""
    if not quiet:
        print(message, file=sys.stderr, flush=True)


def first_run_notice(engine: Engine, quiet: bool = False) -> None:
    """Say why the first run with a model and a KB takes longer, and how long it took: the export and the index
    are built here, once (the diagnosis needs them anyway), and the time stated is the one measured, not a guess
    (it depends on the machine, the model and the number of entries)."""
    if engine.index_ready():
        return
    progress("crashdoc: first run with this embedding model and KB: exporting the model and building the "
             "retrieval index (once; later runs load them)…", quiet)
    t0 = time.monotonic()
    _ = engine.index
    progress(f"crashdoc: model exported and index built in {time.monotonic() - t0:.1f} s; it is cached for the next runs",
             quiet)
