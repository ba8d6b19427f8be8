"""``crashdoc explain``: every fact with its source line, every rule that fired, and the rank timeline."""

from __future__ import annotations

import argparse
import json
import sys


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("explain", help="show the reasoning: facts, rules fired, rank timeline, retrieval")
    p.add_argument("paths", nargs="+", metavar="PATH", help="log file(s) of one run, or '-' for stdin")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from retrieval import build_query, retrieve
    from service.cli.inputs import read_sources
    from service.facts import extract_facts
    from service.ingest import ingest
    from service.masking import mask
    from service.pipeline import Engine
    from service.settings import get_settings

    engine = Engine(get_settings())
    log = mask(ingest(read_sources(args.paths), engine.limits), engine.masker)
    facts = extract_facts(log)
    query = build_query(log, facts)
    hits = retrieve(log, facts, engine.index, query=query)
    if args.format == "json":
        out = {
            "facts": {n: f.public() for n, f in facts.values.items()},
            "rules": [h.model_dump() for h in facts.rule_hits],
            "initiating_rank": facts.initiating_rank,
            "initiating_event": facts.initiating_event.model_dump() if facts.initiating_event else None,
            "events": [e.model_dump() for e in facts.events[:200]],
            "query": query.text,
            "candidates": [h.model_dump() for h in hits[:10]],
            "notes": facts.notes,
        }
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
        return 0
    w = sys.stdout.write
    w("Facts (name = value  <- file:line, rule)\n")
    for name, f in sorted(facts.values.items()):
        w(f"  {name:<26} = {f.value:<28} <- {f.file}:{f.line}, {f.source}\n")
    w("\nSignature rules that fired\n")
    for rh in facts.rule_hits or []:
        w(f"  {rh.rule_id} -> {rh.entry_id}  strength {rh.strength:.2f}" + (f"  ({'; '.join(rh.reasons)})" if rh.reasons else "") + "\n")
        for ref in rh.lines:
            w(f"      {ref.file}:{ref.line} [rank {ref.rank}] {ref.text[:140]}\n")
    if not facts.rule_hits:
        w("  (none)\n")
    w(f"\nRanks seen: {facts.ranks_seen or 'none'}   initiating rank: {facts.initiating_rank}\n")
    w("Timeline of error lines (first 40)\n")
    for e in facts.events[:40]:
        tag = "collateral" if e.collateral else "CAUSE?    "
        w(f"  #{e.order:<4} {tag} rank {e.ref.rank!s:<4} {e.kind:<18} {e.ref.file}:{e.ref.line}  {e.ref.text[:100]}\n")
    if len(facts.events) > 40:
        w(f"  … {len(facts.events) - 40} more\n")
    w("\nRetrieval query\n" + "\n".join("  " + line for line in query.text.splitlines()) + "\n")
    w("\nCandidates (fused score: per-source scores)\n")
    for h in hits[:8]:
        w(f"  {h.score:.3f}  {h.entry_id:<44} {h.sources}\n")
    for note in facts.notes:
        w(f"\nNote: {note}\n")
    return 0
