"""Search over kb/: dense (FAISS) and lexical (BM25) candidates fused with the rule candidates' scores.

A leaf: it takes texts and scores and returns its own ``Hit``; it imports nothing from ``service/``.
The stage that knows the log and its facts (the query, the rule candidates) is ``service.retrieve``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from retrieval.hit import Hit
from retrieval.index import Index, dense_search, lexical_search

__all__ = ["FusionWeights", "Hit", "fuse", "normalise", "search_sources"]

# Candidates scored per similarity source. An entry outside a source's top K gets 0 from it, so with a growing kb/
# a cut at 10 let new, merely similar entries push the right one's dense score to 0 (kb-torch's four torch.distributed
# entries did so to dist-rendezvous-timeout on a reworded case); 20 keeps it while the fused order stays the same.
_K = 20


@dataclass(frozen=True)
class FusionWeights:
    """Weighted score fusion of normalised source scores; picked by measurement (benchmarks/tune_fusion.py)."""

    # Rules dominate when they fire (they are precise); similarity breaks their ties and covers wording
    # no rule knows. Measured in benchmarks/results/fusion.md.
    rule: float = 0.8
    dense: float = 0.1
    lexical: float = 0.1
    rule_power: float = 1.0  # rule strength ** power: above 1, a weak rule (a launcher's summary) counts for less
    dense_floor: float = 0.15  # cosine of unrelated text: scores 0
    dense_span: float = 0.55  # cosine above the floor that scores 1
    sources: tuple[str, ...] = field(default=("rule", "dense", "lexical"))


def search_sources(
    index: Index, *, text: str, dense_text: str, rule_scores: Mapping[str, float], sources: tuple[str, ...]
) -> dict[str, dict[str, float]]:
    """Each source's candidates with its raw score: rule strength (given), cosine similarity, BM25."""
    per_source: dict[str, dict[str, float]] = {"rule": dict(rule_scores), "dense": {}, "lexical": {}}
    if "dense" in sources:
        per_source["dense"] = dict(dense_search(index, dense_text, _K))
    if "lexical" in sources:
        per_source["lexical"] = dict(lexical_search(index, text, _K))
    return per_source


def normalise(per_source: dict[str, dict[str, float]], weights: FusionWeights) -> dict[str, dict[str, float]]:
    """Scores in 0..1: rule strength to a power, cosine rescaled between floor and span, BM25 over its best."""
    lex = per_source.get("lexical", {})
    top = max(lex.values(), default=0.0)
    return {
        "rule": {e: s ** weights.rule_power for e, s in per_source.get("rule", {}).items()},
        "dense": {e: max(0.0, min(1.0, (s - weights.dense_floor) / weights.dense_span)) for e, s in per_source.get("dense", {}).items()},
        "lexical": {e: s / top for e, s in lex.items()} if top > 0 else {},
    }


def fuse(per_source: dict[str, dict[str, float]], index: Index, weights: FusionWeights) -> list[Hit]:
    """One ranking from the sources' raw scores: a weighted sum of normalised scores, a missing one counts 0."""
    norm = normalise(per_source, weights)
    w = {"rule": weights.rule, "dense": weights.dense, "lexical": weights.lexical}
    active = [s for s in weights.sources if s in w]
    total_w = sum(w[s] for s in active) or 1.0
    ranks = {s: {eid: r for r, (eid, _) in enumerate(sorted(norm[s].items(), key=lambda kv: -kv[1]))} for s in active}
    hits: list[Hit] = []
    for eid in {eid for s in active for eid in norm[s]}:
        entry = index.kb.get(eid)
        if entry is None:
            continue
        score = sum(w[s] * norm[s].get(eid, 0.0) for s in active) / total_w
        hits.append(
            Hit(entry_id=eid, title=entry.title, score=round(score, 4),
                sources={s: round(per_source[s][eid], 4) for s in active if eid in per_source[s]},
                ranks={s: ranks[s][eid] for s in active if eid in ranks[s]})
        )
    hits.sort(key=lambda h: (-h.score, h.entry_id))
    return hits

