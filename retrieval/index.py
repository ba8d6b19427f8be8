"""The retrieval index: FAISS over entry embeddings plus BM25 over entry text, cached on disk.

The cache lives in ``<data_dir>/index/<key>/`` where the key hashes the content of ``kb/``, the model
name and the embedding recipe: any change rebuilds it, an unchanged KB loads in milliseconds. BM25 is
bm25s's (its "lucene" scores per token and entry, computed when the index is built and kept beside the
FAISS file); a query sums them with numpy alone (``Lexical``), as bm25s's numpy backend does, so a
diagnosis never imports bm25s, which imports scipy (a fifth of a cold start and 25 MB).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import shutil
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import faiss
import numpy as np

from retrieval.embed import Encoder
from retrieval.kb import Entry, KnowledgeBase

if TYPE_CHECKING:
    import bm25s

RECIPE_VERSION = "4"  # bump when entry_texts() changes
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]+|\d+")


def entry_texts(entry: Entry) -> list[str]:
    """What is embedded for an entry, one vector each: an entry scores its best vector's cosine.

    Title with summary; every message variant on its own (a log line is matched against the message it
    resembles, not against an average of all of them); the whole with the first symptoms; and each symptom
    line of "What you observe". Measured against other recipes in benchmarks/results/embedding.md: one
    averaged vector per entry gave dense top-1 73% on evals/cases and 66% on evals/reworded, this 80% and 69%.
    """
    meta = entry.meta
    observe = entry.section("observe")
    whole = "\n".join([meta.title, meta.summary, *meta.signals.messages, observe[:600]])
    symptoms = [line.strip() for line in observe.split("\n") if len(line.strip()) > 30][:8]
    return [f"{meta.title}. {meta.summary}", *meta.signals.messages, whole, *symptoms]


def lexical_text(entry: Entry) -> str:
    """What BM25 indexes: the distinctive words (messages weigh double)."""
    messages = " ".join(entry.meta.signals.messages)
    return " ".join(
        [entry.meta.title, entry.meta.summary, messages, messages, " ".join(entry.meta.tags), entry.section("observe")[:1500]]
    )


def tokenize(text: str) -> list[str]:
    """Identifier-aware tokens: keeps CUBLAS_STATUS_EXECUTION_FAILED and splits it into its parts too."""
    out: list[str] = []
    for tok in _TOKEN.findall(text):
        low = tok.lower()
        out.append(low)
        if "_" in low:
            out.extend(p for p in low.split("_") if len(p) > 1)
    return out


@dataclass(frozen=True)
class Lexical:
    """A built BM25 index as arrays: per token (column), the entries holding it and its score in each."""

    vocab: dict[str, int]
    data: np.ndarray  # scores, float32
    indices: np.ndarray  # entry positions
    indptr: np.ndarray  # token t's postings are data[indptr[t]:indptr[t + 1]]
    num_docs: int

    @classmethod
    def of(cls, bm25: bm25s.BM25) -> Lexical:
        sc = bm25.scores
        return cls(dict(bm25.vocab_dict), sc["data"], sc["indices"], sc["indptr"], int(sc["num_docs"]))

    def save(self, folder: Path) -> None:
        tmp = Path(tempfile.mkdtemp(prefix=".lexical-", dir=folder))
        try:
            np.savez(tmp / "lexical.npz", data=self.data, indices=self.indices, indptr=self.indptr)
            (tmp / "lexical.json").write_text(json.dumps({"vocab": self.vocab, "num_docs": self.num_docs}))
            for name in ("lexical.json", "lexical.npz"):  # the .npz last: its presence says both are whole
                (tmp / name).replace(folder / name)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    @classmethod
    def load(cls, folder: Path) -> Lexical:
        try:
            with np.load(folder / "lexical.npz") as arrays:
                data, indices, indptr = arrays["data"], arrays["indices"], arrays["indptr"]
        except (zipfile.BadZipFile, EOFError) as exc:
            raise ValueError(f"damaged lexical index: {exc}") from exc
        meta = json.loads((folder / "lexical.json").read_text())
        lexical = cls(dict(meta["vocab"]), data, indices, indptr, int(meta["num_docs"]))
        # every token a query can hold has its postings (bm25s adds "" last, with none)
        last = max((v for tok, v in lexical.vocab.items() if tok), default=-1)
        if last >= len(indptr) - 1 or len(data) != len(indices) or indptr[-1] != len(data):
            raise ValueError("lexical index arrays do not fit together")
        return lexical

    def top(self, tokens: list[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """bm25s's ``retrieve`` for one query (numpy backend): positions and scores, best first."""
        scores = np.zeros(self.num_docs, dtype=self.data.dtype)
        for t in (self.vocab[tok] for tok in tokens if tok in self.vocab):
            start, end = self.indptr[t], self.indptr[t + 1]
            np.add.at(scores, self.indices[start:end], self.data[start:end])
        k = min(k, self.num_docs)
        part = np.argpartition(scores, -k)[-k:]  # bm25s: .take(range(-k, 0)), the same elements in the same order
        part_scores = np.take(scores, part)
        order = np.flip(np.argsort(part_scores))
        return part[order], part_scores[order]


@dataclass
class Index:
    kb: KnowledgeBase
    encoder: Encoder
    ids: list[str]
    faiss_index: faiss.Index  # one row per embedded text
    owners: list[int]  # row -> position in ids
    lexical: Lexical
    key: str
    build_ms: float = 0.0
    load_ms: float = 0.0


    @property
    def model(self) -> str:
        return self.encoder.identity


def cache_key(kb: KnowledgeBase, encoder: Encoder) -> str:
    return cache_key_for(kb, encoder.identity)


def cache_key_for(kb: KnowledgeBase, identity: str) -> str:
    return hashlib.sha256(f"{kb.version}|{identity}|{RECIPE_VERSION}".encode()).hexdigest()[:16]


def _meta_path(cache_dir: Path, key: str) -> Path:
    return cache_dir / key / "meta.json"


def is_built(kb: KnowledgeBase, identity: str, cache_dir: Path) -> bool:
    """Whether the index of this KB for the encoder ``identity`` is in the cache."""
    return _meta_path(cache_dir, cache_key_for(kb, identity)).is_file()


def _build_lexical(kb: KnowledgeBase, ids: list[str], folder: Path) -> Lexical:
    """BM25 over the entries' text, written into the index folder."""
    import bm25s

    bm25 = bm25s.BM25()
    bm25.index([tokenize(lexical_text(kb.entries[i])) for i in ids], show_progress=False)
    lexical = Lexical.of(bm25)
    with contextlib.suppress(OSError):  # a read-only cache: built again next time
        lexical.save(folder)
    return lexical


def _load_lexical(kb: KnowledgeBase, ids: list[str], folder: Path) -> Lexical:
    try:
        lexical = Lexical.load(folder)
        if lexical.num_docs == len(ids):
            return lexical
    except (OSError, ValueError, KeyError, TypeError):
        pass  # absent (an index written before the file existed) or damaged: built again
    return _build_lexical(kb, ids, folder)


def build(kb: KnowledgeBase, encoder: Encoder, cache_dir: Path) -> Index:
    """Embed every entry and write the index; returns it loaded."""
    t0 = time.perf_counter()
    ids = sorted(kb.entries)
    texts: list[str] = []
    owners: list[int] = []
    for pos, eid in enumerate(ids):
        for text in entry_texts(kb.entries[eid]):
            texts.append(text)
            owners.append(pos)
    vectors = encoder.encode(texts)
    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(vectors)
    key = cache_key(kb, encoder)
    target = cache_dir / key
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=cache_dir))
    faiss.write_index(index, str(tmp / "entries.faiss"))
    (tmp / "meta.json").write_text(json.dumps({"ids": ids, "owners": owners, "model": encoder.identity, "kb_version": kb.version, "dim": int(vectors.shape[1])}))
    lexical = _build_lexical(kb, ids, tmp)
    if target.exists():
        shutil.rmtree(target, ignore_errors=True)
    try:
        tmp.rename(target)
    except OSError:  # another process won the race: theirs is identical
        shutil.rmtree(tmp, ignore_errors=True)
    return Index(kb=kb, encoder=encoder, ids=ids, faiss_index=index, owners=owners, lexical=lexical, key=key,
                 build_ms=(time.perf_counter() - t0) * 1000)


def load_or_build(kb: KnowledgeBase, encoder: Encoder, cache_dir: Path) -> Index:
    """Load the cached index for this KB and model, building it when absent or stale."""
    t0 = time.perf_counter()
    key = cache_key(kb, encoder)
    target = cache_dir / key
    meta_path = _meta_path(cache_dir, key)
    if meta_path.exists():
        try:
            meta = json.loads(meta_path.read_text())
            index = faiss.read_index(str(target / "entries.faiss"))
            owners = [int(o) for o in meta["owners"]]
            if meta["ids"] == sorted(kb.entries) and index.ntotal == len(owners) and set(owners) == set(range(len(meta["ids"]))):
                lexical = _load_lexical(kb, meta["ids"], target)
                return Index(kb=kb, encoder=encoder, ids=meta["ids"], faiss_index=index, owners=owners, lexical=lexical,
                             key=key, load_ms=(time.perf_counter() - t0) * 1000)
        except (OSError, ValueError, KeyError, TypeError, RuntimeError):
            pass  # a damaged cache is rebuilt
    return build(kb, encoder, cache_dir)


def dense_search(index: Index, query: str, k: int) -> list[tuple[str, float]]:
    """The k entries whose best vector is closest to the query, with that cosine."""
    vec = index.encoder.encode([query])
    scores, rows = index.faiss_index.search(vec, index.faiss_index.ntotal)  # a few hundred rows: exact and fast
    best: dict[str, float] = {}
    for r, s in zip(rows[0], scores[0], strict=True):
        if r >= 0:
            eid = index.ids[index.owners[r]]
            if eid not in best:  # rows come best first
                best[eid] = float(s)
                if len(best) == k:
                    break
    return list(best.items())


def lexical_search(index: Index, query: str, k: int) -> list[tuple[str, float]]:
    known = [t for t in tokenize(query) if t in index.lexical.vocab]
    if not known:
        return []
    docs, scores = index.lexical.top(known, k=min(k, len(index.ids)))
    return [(index.ids[int(d)], float(s)) for d, s in zip(docs, scores, strict=True) if s > 0]
