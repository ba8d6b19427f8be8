"""``crashdoc mask``: print the masked log, exactly what would leave this machine."""

from __future__ import annotations

import argparse
import sys


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "mask",
        help="print the masked log (what would leave the machine), counts per kind on stderr",
        description="Mask secrets and personal data in a log and print the result; a count per kind goes to stderr.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="log file, .gz, directory, or '-' for stdin")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from service.cli.inputs import read_sources
    from service.ingest import ingest
    from service.masking import get_masker, mask
    from service.pipeline import Engine
    from service.settings import get_settings

    engine = Engine(get_settings())
    log = mask(ingest(read_sources(args.paths), engine.limits), get_masker())
    out = sys.stdout
    for f in log.files:
        if len(log.files) > 1:
            out.write(f"==> {f.name} <==\n")
        out.write("\n".join(f.lines) + ("\n" if f.lines else ""))
    total = sum(log.counts.values())
    detail = ", ".join(f"{k}: {v}" for k, v in sorted(log.counts.items()))
    print(f"crashdoc: masked {total} item(s)" + (f" ({detail})" if detail else ""), file=sys.stderr)
    return 0
