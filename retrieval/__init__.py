"""Stage 4, retrieve: rule candidates fused with dense (FAISS) and lexical (BM25) search over kb/."""

from __future__ import annotations

from dataclasses import dataclass, field

from retrieval.index import Index, dense_search, lexical_search
from retrieval.query import Query, build_query
from service.models import Facts, Hit, MaskedLog

__all__ = ["FusionWeights", "Query", "build_query", "fuse", "retrieve", "search_sources"]

_K = 10


@dataclass(frozen=True)
class FusionWeights:
    """Weighted score fusion; the weights were picked by measurement on the eval set (evals/README.md)."""

    rule: float = 0.6
    dense: float = 0.25
    lexical: float = 0.15
    sources: tuple[str, ...] = field(default=("rule", "dense", "lexical"))


def _normalise_lexical(results: list[tuple[str, float]]) -> dict[str, float]:
    if not results:
        return {}
    top = max(s for _, s in results)
    return {eid: s / top for eid, s in results} if top > 0 else {}


def _normalise_dense(results: list[tuple[str, float]]) -> dict[str, float]:
    """Cosine similarity rescaled so unrelated text (about 0.15) scores 0 and a paraphrase about 1."""
    return {eid: max(0.0, min(1.0, (s - 0.15) / 0.55)) for eid, s in results}


def search_sources(log: MaskedLog, facts: Facts, index: Index, query: Query, sources: tuple[str, ...]) -> dict[str, dict[str, float]]:
    """Each source's candidates with its normalised score in 0..1."""
    per_source: dict[str, dict[str, float]] = {"rule": {}, "dense": {}, "lexical": {}}
    for hit in facts.rule_hits:
        per_source["rule"][hit.entry_id] = max(per_source["rule"].get(hit.entry_id, 0.0), hit.strength)
    if "dense" in sources:
        per_source["dense"] = _normalise_dense(dense_search(index, query.dense_text, _K))
    if "lexical" in sources:
        per_source["lexical"] = _normalise_lexical(lexical_search(index, query.text, _K))
    return per_source


def fuse(per_source: dict[str, dict[str, float]], index: Index, weights: FusionWeights) -> list[Hit]:
    """One ranking from the sources' scores: a weighted sum, sources missing a candidate give it 0."""
    w = {"rule": weights.rule, "dense": weights.dense, "lexical": weights.lexical}
    active = [s for s in weights.sources if s in w]
    total_w = sum(w[s] for s in active) or 1.0
    ranks = {s: {eid: r for r, (eid, _) in enumerate(sorted(per_source[s].items(), key=lambda kv: -kv[1]))} for s in active}
    hits: list[Hit] = []
    for eid in {eid for s in active for eid in per_source[s]}:
        entry = index.kb.get(eid)
        if entry is None:
            continue
        score = sum(w[s] * per_source[s].get(eid, 0.0) for s in active) / total_w
        hits.append(
            Hit(entry_id=eid, title=entry.title, score=round(score, 4),
                sources={s: round(per_source[s][eid], 4) for s in active if eid in per_source[s]},
                ranks={s: ranks[s][eid] for s in active if eid in ranks[s]})
        )
    hits.sort(key=lambda h: (-h.score, h.entry_id))
    return hits


def retrieve(
    log: MaskedLog,
    facts: Facts,
    index: Index,
    *,
    weights: FusionWeights | None = None,
    query: Query | None = None,
) -> list[Hit]:
    """Stage entry point: candidates in fused order, each with what every source gave it."""
    weights = weights or FusionWeights()
    query = query or build_query(log, facts)
    return fuse(search_sources(log, facts, index, query, weights.sources), index, weights)
