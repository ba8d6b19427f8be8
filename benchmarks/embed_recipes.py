"""What to embed, measured: entry recipes x query recipes, dense top-1 and top-3 alone.

Entries: one vector per entry (title, summary, messages and symptoms together) or several (title with
summary, each message variant alone, the whole, each symptom line), an entry scoring its best vector.
Queries: the initiating error line alone, that line with its context and the key facts (as the lexical
query), or every picked line embedded apart and the best taken. Measured on evals/cases and
evals/reworded with the configured encoder; figures go to benchmarks/results/embedding.md. Not a test.
Usage: .venv/bin/python benchmarks/embed_recipes.py
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from retrieval.index import entry_texts
from retrieval.kb import Entry
from service.evaluation.cases import load_cases
from service.facts import extract_facts
from service.ingest import Limits, ingest
from service.masking import get_masker, mask
from service.pipeline import Engine
from service.retrieve import build_query, strip_prefix
from service.settings import REPO_ROOT, get_settings


def one_vector(e: Entry) -> list[str]:
    m = e.meta
    return ["\n".join([m.title, m.summary, *m.signals.messages, e.section("observe")[:600]])]


def per_message(e: Entry) -> list[str]:
    return [f"{e.meta.title}. {e.meta.summary}", *e.meta.signals.messages]


def with_whole(e: Entry) -> list[str]:
    m = e.meta
    return [*per_message(e), "\n".join([m.title, m.summary, *m.signals.messages, e.section("observe")[:600]])]


ENTRY_RECIPES: dict[str, Callable[[Entry], list[str]]] = {
    "one vector: title, summary, messages, symptoms": one_vector,
    "title+summary, each message": per_message,
    "title+summary, each message, the whole": with_whole,
    "those plus each symptom line (shipped)": entry_texts,
}


def main() -> None:
    engine = Engine(get_settings())
    kb, encoder = engine.kb, engine.encoder
    ids = sorted(kb.entries)
    limits, masker = Limits.from_settings(engine.settings), get_masker()
    queries: dict[str, list[list[str]]] = {"initiating line (shipped)": [], "line + context + facts": [], "each line apart, best": []}
    truth: list[tuple[str, set[str]]] = []
    for split in ("cases", "reworded"):
        for c in load_cases(REPO_ROOT / "evals" / split, set(ids)):
            log = mask(ingest(c.sources(), limits), masker)
            facts = extract_facts(log)
            q = build_query(log, facts)
            queries["initiating line (shipped)"].append([q.dense_text])
            queries["line + context + facts"].append([q.text[:1000]])
            queries["each line apart, best"].append([strip_prefix(r.text)[:300] for r in q.lines[:4]] or [q.dense_text])
            truth.append((split, c.case.acceptable))
    rows = []
    for ename, recipe in ENTRY_RECIPES.items():
        texts, owners = [], []
        for pos, eid in enumerate(ids):
            for t in recipe(kb.entries[eid]):
                texts.append(t)
                owners.append(pos)
        vectors, owner = encoder.encode(texts), np.array(owners)
        for qname, qs in queries.items():
            right = {"cases": [0, 0, 0], "reworded": [0, 0, 0]}
            for (split, ok), q in zip(truth, qs, strict=True):
                sims = encoder.encode(q) @ vectors.T
                best = np.array([sims[:, owner == j].max() for j in range(len(ids))])
                order = [ids[j] for j in np.argsort(-best)[:3]]
                tally = right[split]
                tally[0] += order[0] in ok
                tally[1] += any(o in ok for o in order)
                tally[2] += 1
            rows.append((ename, len(texts), qname, right))
    text = (f"# What to embed\n\nDense retrieval alone, encoder `{encoder.identity}`; top-1 / top-3.\n\n"
            "| entry vectors | vectors | query | cases top-1 | top-3 | reworded top-1 | top-3 |\n| --- | --- | --- | --- | --- | --- | --- |\n")
    for ename, n, qname, r in rows:
        c, w = r["cases"], r["reworded"]
        text += (f"| {ename} | {n} | {qname} | {c[0] / c[2]:.3f} | {c[1] / c[2]:.3f} | "
                 f"{w[0] / max(1, w[2]):.3f} | {w[1] / max(1, w[2]):.3f} |\n")
    (REPO_ROOT / "benchmarks" / "results" / "embedding.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
