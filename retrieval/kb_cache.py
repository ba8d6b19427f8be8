"""The compiled encyclopedia: kb/ parsed and validated once, then read back as one JSON file.

Parsing every entry's YAML front matter and validating it costs a cold start about as much as the rest of
a diagnosis, and grows with kb/. The parsed ``KnowledgeBase`` is written to ``<cache_dir>/kb-<key>.json``
(``cache_dir`` is the index cache, beside the FAISS index) where the key hashes the content of kb/ (the same
hash as ``KnowledgeBase.version``: every entry file's name and bytes), the folder's path and the code that
parses it (this module, ``retrieval/kb.py`` and the pydantic version). Editing an entry changes the key, so
it is parsed again; a cache file that cannot be read or validated is parsed again and rewritten.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import pydantic

from retrieval import kb as kb_module
from retrieval.kb import KnowledgeBase, content_hash, load_kb

_KEEP = 8  # compiled KBs kept per cache folder (worktrees and versions share ~/.crashdoc)


def _parser_fingerprint() -> str:
    h = hashlib.sha256(pydantic.VERSION.encode())
    for source in (Path(kb_module.__file__), Path(__file__)):
        h.update(source.read_bytes())
    return h.hexdigest()[:16]


_PARSER = _parser_fingerprint()


def cache_path(kb_dir: Path, version: str, cache_dir: Path) -> Path:
    key = hashlib.sha256(f"{version}|{kb_dir.resolve()}|{_PARSER}".encode()).hexdigest()[:16]
    return cache_dir / f"kb-{key}.json"


def load_compiled(kb_dir: Path, cache_dir: Path) -> KnowledgeBase:
    """``load_kb(kb_dir)``, from the compiled file when kb/ is unchanged since it was written."""
    path = cache_path(kb_dir, content_hash(kb_dir), cache_dir)
    try:
        kb = KnowledgeBase.model_validate_json(path.read_bytes())
        if kb.entries:
            return kb
    except (OSError, ValueError):  # absent, unreadable, truncated or from other code: parsed again
        pass
    kb = load_kb(kb_dir)
    _write(cache_path(kb_dir, kb.version, cache_dir), kb)
    return kb


def _write(path: Path, kb: KnowledgeBase) -> None:
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".kb-", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(kb.model_dump_json().encode())
        os.replace(tmp, path)  # atomic: a reader sees the old file or the whole new one
        tmp = None
        older = sorted(path.parent.glob("kb-*.json"), key=lambda p: p.stat().st_mtime, reverse=True)[_KEEP:]
        for old in older:
            old.unlink(missing_ok=True)
    except OSError:  # a read-only cache folder: every start parses kb/, nothing else changes
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
