"""How every command that prints a diagnosis prints it: ``--format``, ``-o FILE``, ``--color``, ``NO_COLOR``.

Colour only for a terminal, never when ``NO_COLOR`` is set to anything (https://no-color.org), unless
``--color always``; ``-o FILE`` writes the same output to a file (no colour unless asked).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path
from typing import TextIO

from service.models import Diagnosis


def add_output_args(p: argparse.ArgumentParser, *, formats: tuple[str, ...] = ("text", "json", "markdown")) -> None:
    p.add_argument("--format", choices=formats, default="text", help="output format (default: text)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the output to FILE instead of standard output")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the text output: auto (a terminal without NO_COLOR set), always, never")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or notes on stderr, only the result")


def use_color(choice: str, stream: TextIO) -> bool:
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return stream.isatty()


def render(d: Diagnosis, fmt: str, *, color: bool, width: int | None = None, key: str = "crashdoc") -> str:
    from service.render import to_markdown, to_text

    if fmt == "json":
        return d.model_dump_json(indent=2) + "\n"
    if fmt == "markdown":
        return to_markdown(d, key=key)
    return to_text(d, color=color, width=width)


def emit(d: Diagnosis, args: argparse.Namespace, stream: TextIO | None = None) -> None:
    """The diagnosis in ``args.format`` to ``args.output`` or to ``stream`` (standard output by default)."""
    stream = stream or sys.stdout
    key = getattr(args, "comment_key", "crashdoc")
    if args.output:
        path = Path(args.output)
        path.write_text(render(d, args.format, color=args.color == "always", key=key))
        return
    width = shutil.get_terminal_size((100, 24)).columns if stream.isatty() else None
    stream.write(render(d, args.format, color=use_color(args.color, stream), width=width, key=key))
    stream.flush()
