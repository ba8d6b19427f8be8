"""``crashdoc diagnose``: the diagnosis of one run, as text, JSON or markdown."""

from __future__ import annotations

import argparse
import sys

from service.cli.inputs import Progress, first_run_notice, read_sources, total_size


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
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from service.pipeline import Engine, diagnose
    from service.render import to_markdown, to_text
    from service.settings import get_settings

    sources = read_sources(args.paths)
    settings = get_settings()
    engine = Engine(settings, local=True)
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
