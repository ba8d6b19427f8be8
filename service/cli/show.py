"""``crashdoc show ID``: a diagnosis stored in the local database, printed again (text, JSON or markdown)."""

from __future__ import annotations

import argparse

from service.cli.output import add_output_args, emit


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("show", help="print a diagnosis stored locally (see crashdoc history)",
                       description="Print a stored diagnosis again. ID is a diagnosis id or 'last'. Exit 2 when unknown.")
    p.add_argument("id", metavar="ID", help="the diagnosis id (crashdoc history lists them) or 'last'")
    p.add_argument("--comment-key", default="crashdoc", metavar="KEY", help="the PR comment's marker in --format markdown")
    add_output_args(p)
    p.set_defaults(run=run)


def local_store():  # type: ignore[no-untyped-def]
    """The CLI's own database (what `crashdoc diagnose` stores into), without loading the pipeline."""
    from service.settings import get_settings
    from service.store import Store

    return Store(get_settings().resolved_database_url)


def run(args: argparse.Namespace) -> int:
    from service.errors import NotFound

    store = local_store()
    if args.id == "last":
        found, _ = store.history(None, limit=1)
        if not found:
            raise NotFound("No diagnosis is stored yet.", hint="Run crashdoc diagnose first.")
        d = found[0]
    else:
        d = store.get(args.id)
    emit(d, args)
    return 0
