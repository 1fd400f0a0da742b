"""Linking attacks and the lexical baseline of "A False Sense of Privacy" (auxiliary claims ->
sanitized record), reusable outside the audit graph (``veil eval`` computes link@rand3 with
:func:`link_at_rand3`).

* auxiliary knowledge: :func:`select_aux` picks the adversary's claims of one record
  (``first3`` / ``random3`` seeded per record / ``last3``), never a claim matching the exclusion
  regex (e.g. ``"name is"``: knowing the name would make linking trivial);
* linkers: :class:`BM25Linker` (bm25s, lower-case, English stopwords, Porter stemming, batched
  multi-threaded retrieval), :class:`DenseLinker` (MiniLM + faiss ``IndexFlatIP``) and
  :class:`LexicalLinker` (max ROUGE-L F1 of the concatenated claims against each record);
* ROUGE-L: :func:`rouge_l` gives exactly rouge-score's ROUGE-L (its tokenizer with the Porter
  stemmer, the same precision/recall/F1), but computes the LCS with a bit-parallel algorithm
  over Python integers instead of rouge-score's O(n*m) table, so that the lexical linker
  (every query against every record) stays usable.
"""

from __future__ import annotations

import logging
import os
import random
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, Sequence

import numpy as np

AuxMode = Literal["first3", "random3", "last3"]
LinkerName = Literal["bm25", "dense", "lexical"]
AUX_MODES: tuple[str, ...] = ("first3", "random3", "last3")
LINKERS: tuple[str, ...] = ("bm25", "dense", "lexical")


# -- auxiliary knowledge -------------------------------------------------------------------


def _rng(seed: int, record_index: int) -> random.Random:
    # a string seed is hashed deterministically by random.Random (sha512), unlike a tuple
    return random.Random(f"veil-aux:{seed}:{record_index}")


def select_aux(
    claims: Sequence[str],
    mode: str = "random3",
    *,
    seed: int = 0,
    record_index: int = 0,
    exclude: str | re.Pattern[str] | None = None,
    n: int = 3,
) -> list[int]:
    """Indices (into ``claims``, ascending for first/last, sampling order for random) of the
    claims the adversary knows. Claims matching ``exclude`` (case-insensitive search) are never
    auxiliary knowledge. Fewer than ``n`` eligible claims: all of them."""
    if mode not in AUX_MODES:
        raise ValueError(f"unknown auxiliary mode {mode!r}; choose one of {', '.join(AUX_MODES)}")
    pattern = re.compile(exclude, re.IGNORECASE) if isinstance(exclude, str) and exclude else exclude
    eligible = [i for i, c in enumerate(claims) if not (pattern and pattern.search(c))]
    if len(eligible) <= n:
        return eligible
    if mode == "first3":
        return eligible[:n]
    if mode == "last3":
        return eligible[-n:]
    return _rng(seed, record_index).sample(eligible, n)


def aux_query(claims: Sequence[str], aux: Sequence[int]) -> str:
    """The adversary's query: the auxiliary claims concatenated into one text."""
    return " ".join(claims[i] for i in aux)


# -- BM25 ----------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _stemmer():
    from nltk.stem import PorterStemmer

    ps = PorterStemmer()
    cache: dict[str, str] = {}

    def stem_words(words: list[str]) -> list[str]:
        out = []
        for w in words:
            s = cache.get(w)
            if s is None:
                s = cache[w] = ps.stem(w)
            out.append(s)
        return out

    return stem_words


def bm25_tokenize(texts: list[str], *, stem: bool = True):
    """bm25s' tokenizer: lower-case, ``\\w\\w+`` tokens, English stopwords, Porter stemming
    (stemming lifts DB-bio link@rand3 of the originals from 0.98 to 0.99)."""
    import bm25s

    return bm25s.tokenize(
        texts, lower=True, stopwords="en", stemmer=_stemmer() if stem else None, show_progress=False
    )


class BM25Linker:
    name = "bm25"

    def __init__(self, corpus: list[str], *, stem: bool = True, n_threads: int = 0):
        import bm25s

        logging.getLogger("bm25s").setLevel(logging.WARNING)
        self.n = len(corpus)
        self.stem = stem
        self.n_threads = n_threads
        self._model = bm25s.BM25()
        self._model.index(bm25_tokenize(corpus, stem=stem), show_progress=False)

    def link(self, queries: list[str], k: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """(indices, scores), each of shape (len(queries), k), best first."""
        if not queries:
            return np.zeros((0, k), dtype=np.int64), np.zeros((0, k), dtype=np.float32)
        k = min(k, self.n)
        if k == 1 and self._model.nonoccurrence_array is None:
            return self._top1(queries)
        tokens = bm25_tokenize(queries, stem=self.stem)
        docs, scores = self._model.retrieve(
            tokens, k=k, show_progress=False, n_threads=self.n_threads, chunksize=256
        )
        return np.asarray(docs, dtype=np.int64), np.asarray(scores, dtype=np.float32)


    def _query_matrix(self, queries: list[str]):
        """(queries x vocabulary) counts of the queries' known tokens; its product with
        ``self._by_token`` (bm25s' precomputed per-token scores, vocabulary x records; built
        here on first use) is the BM25 score of every record (the default Lucene variant)."""
        import scipy.sparse as sp

        import bm25s

        sc, vocab = self._model.scores, self._model.vocab_dict
        n_vocab = len(sc["indptr"]) - 1
        if getattr(self, "_by_token", None) is None:
            self._by_token = sp.csr_matrix((sc["data"], sc["indices"], sc["indptr"]), shape=(n_vocab, sc["num_docs"]))
        tokens = bm25s.tokenize(queries, lower=True, stopwords="en", stemmer=_stemmer() if self.stem else None,
                                show_progress=False, return_ids=False)
        rows, cols = [], []
        for qi, toks in enumerate(tokens):
            for t in toks:
                tid = vocab.get(t)
                if tid is not None:
                    rows.append(qi)
                    cols.append(tid)
        return sp.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(len(queries), n_vocab))

    def all_scores(self, queries: list[str]) -> np.ndarray:
        """BM25 score of every record for every query, shape (len(queries), n) (same scores as
        ``BM25.retrieve``)."""
        if not queries or not self.n:
            return np.zeros((len(queries), self.n), dtype=np.float32)
        q = self._query_matrix(queries)
        return np.asarray((q @ self._by_token).todense(), dtype=np.float32)

    def _top1(self, queries: list[str], chunk: int = 128) -> tuple[np.ndarray, np.ndarray]:
        """Top-1 for a batch of queries as one sparse product (queries x vocabulary) @ (vocabulary
        x records) of bm25s' precomputed per-token scores, in chunks on ``n_threads`` threads
        (scipy's sparse kernels release the GIL). Same scores as ``BM25.retrieve``; ties go to
        the lowest record index."""
        from concurrent.futures import ThreadPoolExecutor

        q = self._query_matrix(queries)
        docs = np.zeros((len(queries), 1), dtype=np.int64)
        scores = np.zeros((len(queries), 1), dtype=np.float32)

        def work(start: int) -> None:
            r = (q[start : start + chunk] @ self._by_token).tocsr()
            for i in range(r.shape[0]):
                a, b = r.indptr[i], r.indptr[i + 1]
                if b > a:
                    row = r.data[a:b]
                    j = int(row.argmax())
                    best = row[j]
                    cand = r.indices[a:b][row == best]
                    docs[start + i, 0], scores[start + i, 0] = int(cand.min()), best

        starts = range(0, len(queries), chunk)
        threads = self.n_threads or (os.cpu_count() or 1)
        if threads > 1 and len(queries) > chunk:
            with ThreadPoolExecutor(threads) as pool:
                list(pool.map(work, starts))
        else:
            for s0 in starts:
                work(s0)
        return docs, scores


class DenseLinker:
    """MiniLM embeddings of the records in a faiss inner-product index (cosine: the vectors
    are normalised). MiniLM reads the first 256 word pieces of each record only."""

    name = "dense"

    def __init__(self, corpus: list[str], *, embeddings: np.ndarray | None = None):
        import faiss

        from veil.embeddings import encode

        vecs = embeddings if embeddings is not None else encode(corpus)
        self.n = len(corpus)
        self._index = faiss.IndexFlatIP(vecs.shape[1] if vecs.size else 384)
        if len(vecs):
            self._index.add(np.ascontiguousarray(vecs, dtype=np.float32))

    def link(self, queries: list[str], k: int = 1) -> tuple[np.ndarray, np.ndarray]:
        from veil.embeddings import encode

        k = min(k, self.n)
        if not queries:
            return np.zeros((0, k), dtype=np.int64), np.zeros((0, k), dtype=np.float32)
        scores, docs = self._index.search(np.ascontiguousarray(encode(queries), dtype=np.float32), k)
        return docs.astype(np.int64), scores.astype(np.float32)


class LexicalLinker:
    """The paper's lexical baseline: the record with the highest ROUGE-L F1 against the
    concatenated claims."""

    name = "lexical"

    def __init__(self, corpus: list[str]):
        self.n = len(corpus)
        self._docs = [_bitmasks(rouge_tokens(t)) for t in corpus]

    def link(self, queries: list[str], k: int = 1) -> tuple[np.ndarray, np.ndarray]:
        k = min(k, self.n)
        docs = np.zeros((len(queries), k), dtype=np.int64)
        scores = np.zeros((len(queries), k), dtype=np.float32)
        for qi, q in enumerate(queries):
            qt = rouge_tokens(q)
            row = np.array([_fmeasure(_lcs_masks(masks, m, qt), m, len(qt)) for masks, m in self._docs])
            order = np.argsort(-row, kind="stable")[:k]
            docs[qi], scores[qi] = order, row[order]
        return docs, scores


def make_linker(name: str, corpus: list[str], **options) -> BM25Linker | DenseLinker | LexicalLinker:
    if name == "bm25":
        return BM25Linker(corpus, **options)
    if name == "dense":
        return DenseLinker(corpus, **options)
    if name == "lexical":
        return LexicalLinker(corpus)
    raise ValueError(f"unknown linker {name!r}; choose one of {', '.join(LINKERS)}")


def linkage_rate(linked: Sequence[int], truth: Sequence[int] | None = None) -> float | None:
    """Share of queries linked to their own record (query i belongs to record ``truth[i]``,
    by default record i). None when there are no queries."""
    if not len(linked):
        return None
    truth = list(range(len(linked))) if truth is None else truth
    return float(np.mean([int(a) == int(b) for a, b in zip(linked, truth)]))


def link_at_rand3(
    claims: list[list[str]],
    sanitized: list[str],
    *,
    seeds: Sequence[int] = (0, 1, 2),
    exclude: str | None = "name is",
    linker: str = "bm25",
    mode: str = "random3",
) -> float:
    """Mean correct-linkage rate over ``seeds`` when record i was sanitized into record i."""
    if len(claims) != len(sanitized):
        raise ValueError(f"{len(claims)} claim lists for {len(sanitized)} sanitized records")
    index = make_linker(linker, sanitized)
    rates = []
    for seed in seeds:
        queries = [
            aux_query(c, select_aux(c, mode, seed=seed, record_index=i, exclude=exclude)) for i, c in enumerate(claims)
        ]
        docs, _ = index.link(queries, k=1)
        rates.append(linkage_rate(docs[:, 0].tolist()) or 0.0)
    return float(np.mean(rates))


# -- ROUGE-L -------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _rouge_tokenizer():
    from rouge_score import tokenizers
    from rouge_score.rouge_scorer import RougeScorer

    scorer = RougeScorer(["rougeL"], use_stemmer=True)
    tok = getattr(scorer, "_tokenizer", None) or tokenizers.DefaultTokenizer(use_stemmer=True)
    return lru_cache(maxsize=200_000)(lambda t: tuple(tok.tokenize(t)))


def rouge_tokens(text: str) -> tuple[str, ...]:
    """rouge-score's tokens (lower-case alphanumerics, Porter-stemmed), cached."""
    return _rouge_tokenizer()(text)


def _bitmasks(tokens: Sequence[str]) -> tuple[dict[str, int], int]:
    masks: dict[str, int] = {}
    for i, t in enumerate(tokens):
        masks[t] = masks.get(t, 0) | (1 << i)
    return masks, len(tokens)


def _lcs_masks(masks: dict[str, int], m: int, other: Sequence[str]) -> int:
    """Length of the LCS of the masked sequence (length m) and ``other`` (Hyyro's bit-vector
    algorithm: one big-integer step per token of ``other``)."""
    if not m or not other:
        return 0
    full = (1 << m) - 1
    v = full
    for t in other:
        u = v & masks.get(t, 0)
        v = ((v + u) | (v - u)) & full
    return m - bin(v).count("1")


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    masks, m = _bitmasks(a)
    return _lcs_masks(masks, m, b)


def _fmeasure(lcs: int, len_target: int, len_pred: int) -> float:
    if not lcs or not len_target or not len_pred:
        return 0.0
    p, r = lcs / len_pred, lcs / len_target
    return 2 * p * r / (p + r)


@dataclass(frozen=True)
class RougeL:
    precision: float
    recall: float
    fmeasure: float


def rouge_l(target: str, prediction: str) -> RougeL:
    """ROUGE-L of ``prediction`` against ``target``, as rouge-score computes it."""
    t, p = rouge_tokens(target), rouge_tokens(prediction)
    lcs = lcs_length(t, p)
    if not lcs:
        return RougeL(0.0, 0.0, 0.0)
    return RougeL(lcs / len(p), lcs / len(t), _fmeasure(lcs, len(t), len(p)))


def lexical_privacy(original: str, linked: str) -> float:
    """The paper's mu_lexical: 1 - ROUGE-L F1(original, linked record)."""
    return 1.0 - rouge_l(original, linked).fmeasure
