"""``crashdoc history``: the diagnoses stored in the local database, newest first."""

from __future__ import annotations

import argparse
import json
import sys

from service.cli.output import use_color


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("history", help="list the diagnoses stored locally, newest first",
                       description="List the locally stored diagnoses (crashdoc show ID prints one).")
    p.add_argument("-n", "--limit", type=int, default=20, help="how many (default 20)")
    p.add_argument("--offset", type=int, default=0, help="skip the newest N")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p.add_argument("-q", "--quiet", action="store_true", help="ids only, one a line")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from service.cli.show import local_store

    found, total = local_store().history(None, limit=max(args.limit, 1), offset=max(args.offset, 0))
    if args.format == "json":
        rows = [{"id": d.id, "created_at": d.created_at, "entry_id": d.entry_id, "title": d.title,
                 "confidence": d.confidence, "initiating_rank": d.initiating_rank} for d in found]
        sys.stdout.write(json.dumps({"total": total, "diagnoses": rows}, indent=2) + "\n")
        return 0
    if args.quiet:
        sys.stdout.write("".join(f"{d.id}\n" for d in found))
        return 0
    if not found:
        print("No diagnosis is stored yet (crashdoc diagnose stores each one unless --no-store).")
        return 0
    dim = (lambda s: f"\x1b[2m{s}\x1b[0m") if use_color(args.color, sys.stdout) else (lambda s: s)
    for d in found:
        cause = d.entry_id or "unknown"
        rank = f" rank {d.initiating_rank}" if d.initiating_rank is not None else ""
        print(f"{d.id}  {dim(d.created_at[:19].replace('T', ' '))}  {cause:<36} {d.confidence:>4.0%}{rank}  {d.title[:60]}")
    if total > args.offset + len(found):
        print(dim(f"… {total - args.offset - len(found)} older (crashdoc history --offset {args.offset + len(found)})"))
    return 0
