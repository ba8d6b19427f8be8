"""Stage 4, retrieve: the one entry point, used by the pipeline and ``crashdoc explain``.

It knows the log and its facts: the query is the masked lines around the initiating error plus the key
facts (never the whole log), and the rule candidates are the signature rules that fired. ``retrieval/``
searches kb/ with those texts and scores and fuses the sources.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from retrieval import FusionWeights, fuse, search_sources
from retrieval.index import Index
from service.facts.vocabulary import QUERY_FACTS
from service.models import Facts, Hit, LineRef, MaskedLog

_MAX_CHARS = 1_600
_PREFIX = re.compile(
    # a host tag (worker-0: ), never an exception type (RuntimeError: ) or a log level word
    r"^(?:(?![\w.]*(?:Error|Exception|Warning|Interrupt|Exit)\b)[\w.-]*\d[\w.-]*: )?"
    r"(?:\[(?:rank|default)\d+\]:|\d{1,4}: |\[\d+,\d+\]<std\w+>:)?\s*"
    r"(?:\[?\d{4}-\d\d-\d\d[ T][\d:.,]+Z?\]?\s*)?"
    # glog, as torch prints it: E1130 04:56:42.512000 26939 torch/.../api.py:1002]  |  [E1210 02:50:29.5 ProcessGroupNCCL.cpp:1595]
    r"(?:\[?[IWEF]\d{4} [\d:.]+(?: \d+)? [\w./-]+:\d+\]\s*)?"
)


_DENSE_CHARS = 300


@dataclass(frozen=True)
class Query:
    text: str  # for lexical search: every picked line and the key facts
    dense_text: str  # for the embedding: the few most telling lines, short enough to embed in milliseconds
    lines: list[LineRef]


def strip_prefix(text: str) -> str:
    """Remove rank prefixes and timestamps so the words that matter lead."""
    return _PREFIX.sub("", text, count=1).strip()


def _context(log: MaskedLog, ref: LineRef, before: int = 2, after: int = 3) -> list[LineRef]:
    for f in log.files:
        if f.name == ref.file:
            lo, hi = max(1, ref.line - before), min(len(f.lines), ref.line + after)
            return [LineRef(file=f.name, line=i, rank=ref.rank, text=f.lines[i - 1]) for i in range(lo, hi + 1)]
    return [ref]


def build_query(log: MaskedLog, facts: Facts) -> Query:
    picked: list[LineRef] = []
    seen: set[str] = set()

    def add(ref: LineRef) -> None:
        text = strip_prefix(ref.text)
        if text and text not in seen and len(text) > 3:
            seen.add(text)
            picked.append(ref.model_copy(update={"text": text}))

    if facts.initiating_event:
        for ref in _context(log, facts.initiating_event.ref):
            add(ref)
    for hit in facts.rule_hits[:3]:
        for ref in hit.lines[:2]:
            add(ref)
    causes = [e for e in facts.events if not e.collateral]
    mine = [e for e in causes if facts.initiating_rank is None or e.ref.rank == facts.initiating_rank]
    for e in (mine or causes)[:8]:
        add(e.ref)
    for e in causes[-4:]:
        add(e.ref)
    if not picked:  # no error line at all: the tail is the best we have
        for f in log.files:
            for i, text in enumerate(f.lines[-15:], start=max(1, len(f.lines) - 14)):
                add(LineRef(file=f.name, line=i, text=text))
    fact_words = [f"{name.replace('_', ' ')} {facts.get(name)}" for name in QUERY_FACTS if facts.get(name)]
    text = "\n".join(r.text for r in picked)
    if len(text) > _MAX_CHARS:
        text = text[:_MAX_CHARS]
    facts_line = "; ".join(fact_words)
    if facts_line:
        text += "\n" + facts_line
    # The dense query is the initiating error line alone: against per-message entry vectors it beat the
    # initiating line with its context and facts (dense top-1 78% vs 72% on the eval cases), and a
    # short query embeds fast. The context and facts go to the lexical query.
    first = strip_prefix(facts.initiating_event.ref.text) if facts.initiating_event else ""
    if not first and picked:
        first = picked[0].text
    return Query(text=text, dense_text=first[:_DENSE_CHARS], lines=picked)


@dataclass(frozen=True)
class Retrieval:
    """What stage 4 produced: the query, each source's raw scores, and the fused candidates."""

    query: Query
    per_source: dict[str, dict[str, float]]
    hits: list[Hit]


def rule_scores(facts: Facts) -> dict[str, float]:
    """The rule candidates: each entry a signature rule pointed at, with the strongest rule's strength."""
    scores: dict[str, float] = {}
    for hit in facts.rule_hits:
        scores[hit.entry_id] = max(scores.get(hit.entry_id, 0.0), hit.strength)
    return scores


def retrieve(log: MaskedLog, facts: Facts, index: Index, weights: FusionWeights | None = None) -> Retrieval:
    """Stage entry point: candidates in fused order, each with what every source gave it."""
    weights = weights or FusionWeights()
    query = build_query(log, facts)
    per_source = search_sources(index, text=query.text, dense_text=query.dense_text, rule_scores=rule_scores(facts),
                                sources=weights.sources)
    return Retrieval(query, per_source, fuse(per_source, index, weights))
