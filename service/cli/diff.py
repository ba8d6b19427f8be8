"""``crashdoc diff FAILED GOOD``: what changed between a failed run and a good one (versions, topology,
precision, optimizer, ZeRO stage, environment variables and launcher arguments the logs show)."""

from __future__ import annotations

import argparse
import sys


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("diff", help="compare a failed run's log with a good run's: the facts that changed",
                       description="Both logs are masked on this machine first; nothing is stored. Exit 0 either way.")
    p.add_argument("failed", metavar="FAILED", help="the failed run's log file, .gz, or directory of its logs")
    p.add_argument("good", metavar="GOOD", help="a good run's log file, .gz, or directory of its logs")
    p.add_argument("--format", choices=("text", "json"), default="text", help="text for a person (default) or JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from service.cli.inputs import read_sources
    from service.diff import diff_runs, to_text
    from service.pipeline import Engine
    from service.settings import get_settings

    engine = Engine(get_settings(), local=True)
    d = diff_runs(engine, read_sources([args.failed]), read_sources([args.good]))
    sys.stdout.write(d.model_dump_json(indent=2) + "\n" if args.format == "json" else to_text(d))
    return 0
