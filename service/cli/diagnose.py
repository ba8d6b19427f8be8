"""``crashdoc diagnose``: the diagnosis of one run, as text, JSON or markdown."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from service.cli.inputs import Progress, first_run_notice, progress, read_sources, total_size

if TYPE_CHECKING:
    from service.models import Diagnosis, Source
    from service.pipeline import Engine


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "diagnose",
        help="diagnose a failed run from its log file(s)",
        description="Diagnose a failed run. Several paths are the files of ONE run (one per rank or node). "
        "Exit code 0 when a diagnosis was made (a known failure or 'unknown'), 2 on bad usage or unreadable input.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="log file, .gz file, directory of logs, or '-' for stdin")
    p.add_argument("--format", choices=("text", "json", "markdown"), default="text", help="output format (default: text)")
    p.add_argument("--no-store", action="store_true", help="do not keep the masked diagnosis in the local database")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--server", metavar="URL",
                   help="diagnose on a crashdoc service: the log is masked here first, then only the masked lines are "
                   "sent (the API key from CRASHDOC_API_KEY)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from service.pipeline import Engine, diagnose
    from service.render import to_markdown, to_text
    from service.settings import get_settings

    sources = read_sources(args.paths)
    settings = get_settings()
    engine = Engine(settings, local=True)
    if args.server:
        d = _on_server(engine, sources, args.server, args.quiet)
    else:
        first_run_notice(engine, args.quiet)
        reading = Progress(total_size(sources), quiet=args.quiet)
        try:
            d = diagnose(engine, sources, store=not args.no_store, on_read=reading)
        finally:
            reading.close()
    if args.format == "json":
        sys.stdout.write(d.model_dump_json(indent=2) + "\n")
    elif args.format == "markdown":
        sys.stdout.write(to_markdown(d))
    else:
        sys.stdout.write(to_text(d, color=sys.stdout.isatty()))
    return 0


def _on_server(engine: Engine, sources: list[Source], url: str, quiet: bool) -> Diagnosis:
    """Mask here (the pipeline's masking, on the lines a diagnosis reads), then send only the masked lines."""
    from service.client import Client
    from service.pipeline import mask_for_upload

    reading = Progress(total_size(sources), quiet=quiet)
    try:
        log = mask_for_upload(engine, sources, on_read=reading)
    finally:
        reading.close()
    files = [(f.name, "\n".join(f.lines) + "\n") for f in log.files]
    masked = sum(log.counts.values())
    progress(f"crashdoc: sending {sum(len(f.lines) - f.dropped for f in log.files):,} masked line(s) of {len(files)} "
             f"file(s) to {url} ({masked} item(s) masked here)", quiet)
    key = engine.settings.api_key.get_secret_value() if engine.settings.api_key else None
    with Client(url, key) as client:
        d = client.diagnose(files)
    # What was masked is counted here: the service saw only masked lines.
    counts = {k: log.counts.get(k, 0) + d.masked.get(k, 0) for k in sorted({*log.counts, *d.masked})}
    return d.model_copy(update={"masked": counts})
