"""``crashdoc kb``: list, show and build the encyclopedia's index."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from retrieval.kb import KnowledgeBase
    from service.pipeline import Engine


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("kb", help="the encyclopedia: list, show, build the search index")
    kb_sub = p.add_subparsers(dest="kb_command", metavar="KB_COMMAND")
    kb_sub.required = True
    ls = kb_sub.add_parser("list", help="list every entry")
    ls.add_argument("--format", choices=("text", "json"), default="text")
    ls.set_defaults(run=run_list)
    show = kb_sub.add_parser("show", help="print one entry")
    show.add_argument("id", help="entry id, e.g. cuda-oom")
    show.set_defaults(run=run_show)
    build = kb_sub.add_parser(
        "build", help="embed every entry and write the FAISS index (cached by content hash)",
        description="Embed every entry of kb/ (title and summary, each message variant, each symptom line) and "
        "write the FAISS index and its metadata under CRASHDOC_DATA_DIR/index, keyed by a hash of kb/, the model "
        "and the backend: an unchanged KB loads from the cache. The model is CRASHDOC_EMBEDDING_MODEL (default: "
        "the packaged all-MiniLM-L6-v2) and runs as CRASHDOC_EMBEDDING_BACKEND: onnx-int8 (default; exported "
        "once and checked against the original), onnx or torch. Nothing is downloaded.",
    )
    build.add_argument("--force", action="store_true", help="rebuild the index even when the cache is current")
    build.set_defaults(run=run_build)


def _engine() -> Engine:
    from service.pipeline import Engine
    from service.settings import get_settings

    return Engine(get_settings())


def _kb() -> KnowledgeBase:
    return _engine().kb  # a malformed entry is a ConfigError (exit 2, one line), not a traceback


def run_list(args: argparse.Namespace) -> int:
    kb = _kb()
    rows = [{"id": e.id, "title": e.title, "category": e.meta.category, "tags": e.meta.tags} for e in kb.entries.values()]
    rows.sort(key=lambda r: (r["category"], r["id"]))
    if args.format == "json":
        sys.stdout.write(json.dumps({"kb_version": kb.version, "entries": rows}, indent=2) + "\n")
        return 0
    for r in rows:
        sys.stdout.write(f"{r['category']:<12} {r['id']:<46} {r['title']}\n")
    sys.stdout.write(f"{len(rows)} entries · kb {kb.version}\n")
    return 0


def run_show(args: argparse.Namespace) -> int:
    from pathlib import Path

    from service.errors import NotFound

    entry = _kb().get(args.id)
    if entry is None:
        raise NotFound(f"No entry '{args.id}'.", hint="See `crashdoc kb list`.")
    sys.stdout.write(Path(entry.path).read_text(encoding="utf-8"))
    return 0


def run_build(args: argparse.Namespace) -> int:
    from retrieval.index import build

    engine = _engine()
    kb = engine.kb
    t0 = time.perf_counter()
    encoder = engine.encoder
    index = build(kb, encoder, engine.settings.data_dir / "index") if args.force else engine.index
    ms = (time.perf_counter() - t0) * 1000
    how = "built" if index.build_ms else "loaded from cache"
    sys.stdout.write(f"{len(index.ids)} entries {how} in {ms:.0f} ms · model {encoder.identity} · key {index.key}\n")
    return 0
