"""Stage 2, mask: the raw run in, the only form of the log anything downstream sees out.

    mask(run) -> MaskedLog         every file of one run, one pseudonym table, counts per kind
    mask_text(text) -> (str, counts)   chat questions and Slack text
    mask_lines_stream / mask_chunks    ``crashdoc mask`` on a 100 MB file or stdin, bounded memory

Modules: ``recognizers`` (the one registry), ``base`` (what an entry is, the recognizer classes),
``checks`` (host and value tests), ``protect`` (diagnostic tokens), ``kinds`` (placeholders, counts keys),
``engine`` (the recognizers, prefilter, overlap rules), ``presidio`` (the registry inside Presidio), ``pseudonyms``, ``stream`` (lines, multi-line
state, caches, learned names).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator

from service.masking.engine import Masker, Span
from service.masking.stream import MaskState, mask_chunks, mask_line, mask_lines_stream, mask_segment
from service.models import MaskedFile, MaskedLog, RawRun

__all__ = [
    "MaskState",
    "Masker",
    "Span",
    "get_masker",
    "mask",
    "mask_chunks",
    "mask_line",
    "mask_lines_stream",
    "mask_stream",
    "mask_text",
]

_masker: Masker | None = None
_lock = threading.Lock()


def get_masker() -> Masker:
    """The process-wide Masker, built on first use (its patterns compiled)."""
    global _masker
    if _masker is None:
        with _lock:
            if _masker is None:
                _masker = Masker()
    return _masker


def mask(run: RawRun, masker: Masker | None = None) -> MaskedLog:
    """Mask every file of one run with one pseudonym table: the same host is the same <HOST_n> everywhere."""
    masker = masker or get_masker()
    state = MaskState()
    masked = [(list(mask_lines_stream(f.lines, masker, state)), mask_segment(f.name, masker, state)) for f in run.files]
    # A name learned late (SLURM_JOB_USER=mchen on line 900) is masked on the lines before it too.
    files = [MaskedFile(name=name, lines=state.sweep(lines)) for lines, name in masked]
    return MaskedLog(files=files, counts=dict(sorted(state.counts.items())))


def mask_text(text: str, masker: Masker | None = None) -> tuple[str, dict[str, int]]:
    """Mask free text (a chat question, a Slack message) with its own fresh pseudonym table."""
    masker = masker or get_masker()
    state = MaskState()
    out = "\n".join(state.sweep(list(mask_lines_stream(text.split("\n"), masker, state))))
    return out, dict(sorted(state.counts.items()))


def mask_stream(
    chunks: Iterable[str], masker: Masker | None = None, state: MaskState | None = None
) -> Iterator[str]:
    """Masked text for a stream of text chunks; pass a ``MaskState`` to read its counts afterwards."""
    return mask_chunks(chunks, masker or get_masker(), state if state is not None else MaskState())
