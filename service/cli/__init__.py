"""The ``crashdoc`` command. Each sub-command is a small module registered in ``COMMANDS``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from service.cli import (
    admin,
    comment,
    diagnose,
    diff,
    evaluate,
    explain,
    feedback,
    history,
    kb,
    mask,
    run,
    serve,
    show,
    worker,
)
from service.errors import CrashdocError

# (name, module): each module has ``add_parser(subparsers)`` and ``run(args) -> int``.
COMMANDS = (
    ("diagnose", diagnose),
    ("run", run),
    ("comment", comment),
    ("show", show),
    ("history", history),
    ("explain", explain),
    ("eval", evaluate),
    ("mask", mask),
    ("kb", kb),
    ("serve", serve),
    ("worker", worker),
    ("admin", admin),
    ("feedback", feedback),
    ("diff", diff),
)

DESCRIPTION = """\
crashdoc tells you why a GPU training run died and how to fix it.

The log is masked on this machine before anything reads it (secrets, hosts, user names);
nothing is uploaded. Examples:

  crashdoc diagnose train.log                  # a person reads the answer
  crashdoc diagnose rank_*.log --format json   # the files of one run, JSON for a bot
  kubectl logs job/train | crashdoc diagnose - # from stdin
  crashdoc mask train.log.gz > safe.log        # preview exactly what would leave the machine
  crashdoc run -- torchrun --nproc-per-node 8 train.py   # run it; diagnosed if it fails or hangs
  crashdoc history; crashdoc show last         # the diagnoses stored on this machine

Colour: --color auto|always|never; NO_COLOR set to anything turns it off.
"""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("crashdoc")
    except PackageNotFoundError:  # run from a checkout that is not installed
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="crashdoc", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"crashdoc {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for _, module in COMMANDS:
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except CrashdocError as exc:
        print(f"crashdoc: {exc.message}" + (f" {exc.hint}" if exc.hint else ""), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("crashdoc: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
