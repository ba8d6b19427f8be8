"""What a run prints: passed through unchanged as it comes, and a bounded copy kept on disk for the diagnosis.

The copy keeps the run's first ``head_bytes`` (versions, config, the launcher's start-up) and its last
``tail_bytes`` or more (the failure), in two segments written in turn: when the current one is full the older
one is emptied and takes its place, so the disk never holds more than ``head_bytes + tail_bytes`` and at least
``tail_bytes / 2`` of the tail survives. ``finish()`` joins them into one file with a line saying what was cut.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import BinaryIO

_READ = 65536
_MAX_PARTIAL = 1 << 16  # a line longer than this is written in pieces (a progress bar without newlines)


class BoundedCapture:
    """The head and the ring-buffered tail of a run's output, on disk, written a whole line at a time."""

    def __init__(self, folder: Path, *, head_bytes: int = 1 << 20, tail_bytes: int = 16 << 20) -> None:
        self.folder = folder
        self.head_bytes, self.segment_bytes = head_bytes, max(tail_bytes // 2, 1)
        folder.mkdir(parents=True, exist_ok=True)
        self._head = (folder / "head.part").open("wb")
        self._segments = [folder / "tail.0.part", folder / "tail.1.part"]
        self._current = 0
        self._tail = self._segments[0].open("wb")
        self._head_size = self._tail_size = 0
        self._head_full = False
        self.cut_bytes = 0  # bytes dropped between the head and the tail
        self.total_bytes = 0
        self._lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self._lock:
            self.total_bytes += len(data)
            if not self._head_full and self._head_size + len(data) <= self.head_bytes:
                self._head.write(data)
                self._head_size += len(data)
                return
            self._head_full = True
            if self._tail_size + len(data) > self.segment_bytes and self._tail_size:
                self._rotate()
            self._tail.write(data)
            self._tail_size += len(data)

    def _rotate(self) -> None:
        self._tail.close()
        self._current = 1 - self._current
        older = self._segments[self._current]
        if older.exists():
            self.cut_bytes += older.stat().st_size
        self._tail = older.open("wb")
        self._tail_size = 0

    def flush(self) -> None:
        with self._lock:
            self._head.flush()
            self._tail.flush()

    def finish(self, name: str = "console.log") -> Path:
        """One file: the head, a line saying how much was cut (when anything was), the older and the newer segment."""
        with self._lock:
            self._head.close()
            self._tail.close()
            out = self.folder / name
            newer = self._segments[self._current]
            older = self._segments[1 - self._current]
            with out.open("wb") as f:
                f.write((self.folder / "head.part").read_bytes())
                if self.cut_bytes:
                    f.write(f"[crashdoc run: {self.cut_bytes} bytes of output cut here to bound the copy]\n".encode())
                for part in (older, newer):
                    if part.exists():
                        f.write(part.read_bytes())
            for part in (self.folder / "head.part", *self._segments):
                part.unlink(missing_ok=True)
            return out


class Activity:
    """When the run last printed anything (any stream, any per-rank file): what hang detection measures."""

    def __init__(self) -> None:
        self.last = time.monotonic()

    def touch(self) -> None:
        self.last = time.monotonic()

    def idle_s(self) -> float:
        return time.monotonic() - self.last


def pump(fd: int, out: BinaryIO, capture: BoundedCapture, activity: Activity) -> None:
    """Copy one pipe to ``out`` as each read returns (no line buffering, so progress bars stay live) and to the capture.

    The capture gets whole lines, so stdout and stderr interleave line by line in the copy, not mid-line."""
    partial = b""
    while True:
        try:
            chunk = os.read(fd, _READ)
        except OSError:
            break
        if not chunk:
            break
        activity.touch()
        try:
            out.write(chunk)
            out.flush()
        except (BrokenPipeError, ValueError):  # our own stdout closed: keep the copy and the run going
            pass
        data = partial + chunk
        cut = data.rfind(b"\n") + 1
        if cut:
            capture.write(data[:cut])
            partial = data[cut:]
        else:
            partial = data
        if len(partial) > _MAX_PARTIAL:
            capture.write(partial + b"\n")
            partial = b""
    if partial:
        capture.write(partial + b"\n")
    os.close(fd)
