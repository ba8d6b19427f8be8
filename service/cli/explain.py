"""``crashdoc explain``: every fact with its source line, every rule that fired (and why its strength is what it
is), the rank timeline with the initiating rank and the collateral, and what retrieval made of it."""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict

from service.models import Facts, Hit

_TIMELINE_ROWS = 40


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("explain", help="show the reasoning: facts, rules fired, rank timeline, retrieval")
    p.add_argument("paths", nargs="+", metavar="PATH", help="log file(s) of one run, or '-' for stdin")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from service.cli.inputs import first_run_notice, read_sources
    from service.facts import extract_facts
    from service.ingest import ingest
    from service.pipeline import Engine, mask_selected
    from service.retrieve import retrieve
    from service.settings import get_settings

    engine = Engine(get_settings(), local=True)
    first_run_notice(engine)
    log = mask_selected(ingest(read_sources(args.paths), engine.limits), engine.masker)
    facts = extract_facts(log)
    found = retrieve(log, facts, engine.index)
    query, hits = found.query, found.hits
    if args.format == "json":
        out = {
            "facts": {n: f.public() for n, f in facts.values.items()},
            "rules": [h.model_dump() for h in facts.rule_hits],
            "ranks_seen": facts.ranks_seen,
            "initiating_rank": facts.initiating_rank,
            "initiating_event": facts.initiating_event.model_dump() if facts.initiating_event else None,
            "collateral": [c.model_dump() for c in facts.collateral],
            "events": [e.model_dump() for e in facts.events[:200]],
            "query": query.text,
            "candidates": [h.model_dump() for h in hits[:10]],
            "notes": facts.notes,
        }
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
        return 0
    sys.stdout.write(render_text(facts, query.text, hits))
    return 0


def render_text(facts: Facts, query: str, hits: list[Hit]) -> str:
    """The reasoning as a person reads it: facts, rules, ranks, timeline, retrieval."""
    out: list[str] = []
    w = out.append
    w("Facts (name = value  <- file:line, rule)\n")
    for name, f in sorted(facts.values.items()):
        w(f"  {name:<26} = {f.value:<28} <- {f.file}:{f.line}, {f.source}\n")
    if not facts.values:
        w("  (none)\n")
    w("\nSignature rules that fired (strength after facts and the timeline)\n")
    for rh in facts.rule_hits:
        w(f"  {rh.rule_id} -> {rh.entry_id}  strength {rh.strength:.2f}\n")
        for reason in rh.reasons:
            w(f"      because {reason}\n")
        for ref in rh.lines:
            w(f"      {ref.file}:{ref.line} [rank {ref.rank}] {ref.text[:140]}\n")
    if not facts.rule_hits:
        w("  (none)\n")
    w(f"\nRanks seen: {', '.join(map(str, facts.ranks_seen)) or 'none'}\n")
    w(f"Initiating rank: {facts.initiating_rank if facts.initiating_rank is not None else 'unknown'}\n")
    if facts.initiating_event:
        e = facts.initiating_event.ref
        w(f"  first failure: {e.file}:{e.line} [rank {e.rank}] {e.text[:160]}\n")
    for note in facts.notes:
        w(f"  note: {note}\n")
    if facts.collateral:
        by_rank: dict[int | None, list[str]] = defaultdict(list)
        for c in facts.collateral:
            by_rank[c.rank].append(c.why)
        w("Collateral (errors that only followed from the first failure)\n")
        for rank, whys in sorted(by_rank.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)):
            w(f"  rank {rank if rank is not None else '?'}: {len(whys)} line(s): {whys[0]}\n")
    w(f"\nTimeline of error lines (first {_TIMELINE_ROWS})\n")
    first = facts.initiating_event
    for event in facts.events[:_TIMELINE_ROWS]:
        tag = "FIRST     " if first is not None and event.ref == first.ref else "collateral" if event.collateral else "cause?    "
        why = f"  ({event.why})" if event.collateral and event.why else ""
        ref = event.ref
        w(f"  #{event.order:<4} {tag} rank {ref.rank!s:<4} {event.kind:<18} {ref.file}:{ref.line}  {ref.text[:100]}{why}\n")
    if len(facts.events) > _TIMELINE_ROWS:
        w(f"  … {len(facts.events) - _TIMELINE_ROWS} more\n")
    w("\nRetrieval query\n" + "\n".join("  " + line for line in query.splitlines()) + "\n")
    w("\nCandidates (fused score: per-source scores)\n")
    for h in hits[:8]:
        w(f"  {h.score:.3f}  {h.entry_id:<44} {h.sources}\n")
    if not hits:
        w("  (none)\n")
    return "".join(out)
