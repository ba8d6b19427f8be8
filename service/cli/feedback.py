"""``crashdoc feedback export DIR``: users' wrong-cause reports as eval case skeletons, for a maintainer to review.

Reads the service's database (CRASHDOC_DATA_DIR or CRASHDOC_DATABASE_URL). Each skeleton is a folder with
``case.yaml`` (the user's label), the masked excerpt crashdoc stored as the log, and ``REVIEW.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("feedback", help="export users' wrong-cause reports as eval case skeletons",
                       description="Users' verdicts on diagnoses (the page, Slack, POST /v1/diagnoses/{id}/feedback).")
    what = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    e = what.add_parser("export", help="one eval case skeleton per wrong-cause report (already exported ones are kept)")
    e.add_argument("out", metavar="DIR", type=Path, help="where to write the case folders (not evals/: review them first)")
    scope = e.add_mutually_exclusive_group()
    scope.add_argument("--workspace", metavar="WORKSPACE", help="only this workspace's reports (name or id)")
    scope.add_argument("--anonymous", action="store_true", help="only reports made without a key (the default: every workspace's)")
    e.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from service.feedback import export
    from service.pipeline import Engine
    from service.settings import get_settings
    from service.store.accounts import Accounts

    engine = Engine(get_settings())
    workspace_id = Accounts(engine.store).workspace(args.workspace).id if args.workspace else None
    written = export(engine, args.out, workspace_id=workspace_id, every_workspace=not (args.workspace or args.anonymous))
    for folder in written:
        print(folder)
    print(f"crashdoc: {len(written)} case skeleton(s) written to {args.out}; review each REVIEW.md before moving it into evals/",
          file=sys.stderr)
    return 0
