"""``crashdoc mask``: print the masked log, exactly what would leave this machine.

Streams: files, directories (the same files as ``crashdoc diagnose`` reads), .gz, .zst and stdin are read by
ingest's one reader and masked line by line with bounded memory, so a 1 GB log needs no more than a small
working set. One pseudonym table spans every file given. Every line is masked (nothing is selected, unlike a
diagnosis, which masks only the lines that matter).

The masking is the pipeline's, second pass included: a user name learned on line 900 is masked on line 3
too. The masked lines wait in a spooled buffer (memory up to 64 MiB, then a temporary file; masked text
only, never the input) until the whole input is read, then the sweep runs as they are printed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile

_SPOOL_BYTES = 64 << 20


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "mask",
        help="print the masked log (what would leave the machine), counts per kind on stderr",
        description="Mask secrets and personal data in a log and print the result; a count per kind goes to stderr. "
        "Several files (or a directory) share one pseudonym table, as in a diagnosis.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="log file, .gz or .zst, directory of logs, or '-' for stdin")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr (the counts are still printed)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from service.cli.inputs import Progress, total_size
    from service.ingest import Budget, FileStats, Limits, iter_lines, sources_from_paths
    from service.masking import MaskState, get_masker, mask_lines_stream, mask_segment
    from service.settings import get_settings

    settings = get_settings()
    sources = sources_from_paths(args.paths)
    limits = Limits.local(settings.max_line_chars)
    reading = Progress(total_size(sources), quiet=args.quiet)
    budget = Budget(limits, on_read=reading)
    masker = get_masker()
    state = MaskState()
    notes: list[str] = []
    with tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES, mode="w+", encoding="utf-8", errors="surrogatepass") as masked:
        for source in sources:
            if len(sources) > 1:
                masked.write(f"==> {mask_segment(source.name, masker, state)} <==\n")
            stats = FileStats()
            for line in mask_lines_stream(iter_lines(source, limits, budget, stats), masker, state):
                masked.write(line + "\n")
            notes += [f"{source.name}: {note}" for note in stats.notes]
        reading.close()
        masked.seek(0)
        out = sys.stdout
        for line in masked:
            out.write(state.sweep([line.removesuffix("\n")])[0] + "\n")
    out.flush()
    total = sum(state.counts.values())
    detail = ", ".join(f"{k}: {v}" for k, v in sorted(state.counts.items()))
    for note in notes:
        print(f"crashdoc: {mask_segment(note, masker, state)}", file=sys.stderr)
    print(f"crashdoc: masked {total} item(s)" + (f" ({detail})" if detail else ""), file=sys.stderr)
    return 0
