"""``crashdoc diagnose``: the diagnosis of one run, as text, JSON or markdown."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from service.cli.inputs import Progress, first_run_notice, progress, read_sources, total_size
from service.cli.output import add_output_args, emit

if TYPE_CHECKING:
    from service.models import Diagnosis, Source
    from service.pipeline import Engine

EPILOG = """\
Exit codes:
  0  a diagnosis was made (a known failure, 'unknown', or no failure found)
  2  bad usage or unreadable input
With --fail-on-found (for pipelines, e.g. a CI step that should go red when a run died of a known cause):
  0  no failure found in the log
  1  a known failure was diagnosed
  3  errors were found but matched no known failure ('unknown')
"""

FOUND, UNKNOWN = 1, 3


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "diagnose",
        help="diagnose a failed run from its log file(s)",
        description="Diagnose a failed run. Several paths are the files of ONE run (one per rank or node).",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="log file, .gz file, directory of logs, or '-' for stdin")
    add_output_args(p)
    p.add_argument("--no-store", action="store_true", help="do not keep the masked diagnosis in the local database")
    p.add_argument("--server", metavar="URL",
                   help="diagnose on a crashdoc service: the log is masked here first, then only the masked lines are "
                   "sent (the API key from CRASHDOC_API_KEY)")
    p.add_argument("--fail-on-found", action="store_true", help="exit 1 when a known failure is found, 3 when unknown (see below)")
    p.add_argument("--comment-key", default="crashdoc", metavar="KEY",
                   help="the PR comment's hidden marker in --format markdown (one comment per key; default crashdoc)")
    p.set_defaults(run=run)


def exit_code(d: Diagnosis, fail_on_found: bool) -> int:
    """The exit code of a successful diagnosis (see EPILOG)."""
    if not fail_on_found:
        return 0
    if d.entry_id:
        return FOUND
    return UNKNOWN if (d.evidence or d.timeline) else 0


def run(args: argparse.Namespace) -> int:
    from service.pipeline import Engine, diagnose
    from service.settings import get_settings

    sources = read_sources(args.paths)
    settings = get_settings()
    engine = Engine(settings, local=True)
    if args.server:
        d = on_server(engine, sources, args.server, args.quiet)
    else:
        first_run_notice(engine, args.quiet)
        reading = Progress(total_size(sources), quiet=args.quiet)
        try:
            d = diagnose(engine, sources, store=not args.no_store, on_read=reading)
        finally:
            reading.close()
    emit(d, args)
    return exit_code(d, args.fail_on_found)


def on_server(engine: Engine, sources: list[Source], url: str, quiet: bool) -> Diagnosis:
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
