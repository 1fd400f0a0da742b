"""Retrieval primitives of the local re-identification attack.

A frozen *pool* is indexed once with bm25s (fast scores of a query against every pool
document). The document under anonymization changes at every edit, so its own BM25 score is
computed here from the pool's statistics (bm25s indexes are static; re-indexing per candidate
edit would cost milliseconds each, this costs microseconds). Same Lucene BM25 as bm25s'
default: idf = ln(1 + (N - df + 0.5) / (df + 0.5)), k1 = 1.5, b = 0.75.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

import bm25s
import numpy as np
from bm25s.stopwords import STOPWORDS_EN

_WORD = re.compile(r"\w\w+", re.UNICODE)  # bm25s' token pattern
# bm25s' English list is short (33 words); these are as content-free in biographies and claims
_EXTRA_STOP = {
    "he", "she", "his", "her", "him", "they", "their", "them", "who", "which", "has", "had", "have", "was", "were",
    "been", "from", "also", "its", "after", "before", "when", "while", "where", "during", "since", "until", "over",
    "person", "person's", "did", "do", "does", "can", "would", "could", "should", "than", "so", "all", "one",
}
STOPWORDS = frozenset(STOPWORDS_EN) | _EXTRA_STOP
K1, B = 1.5, 0.75


_STEMS: dict[str, str] = {}


@lru_cache(maxsize=1)
def _porter():
    from nltk.stem import PorterStemmer

    return PorterStemmer()


def stem(word: str) -> str:
    """Porter stem, as the linking attack of veil.evals uses; cached because the optimizer
    tokenizes thousands of candidate texts."""
    s = _STEMS.get(word)
    if s is None:
        s = _STEMS[word] = _porter().stem(word)
    return s


def tokenize(text: str) -> list[str]:
    """Lower-case ``\\w\\w+`` tokens without stopwords, Porter-stemmed."""
    return [stem(t) for t in _WORD.findall(text.lower()) if t not in STOPWORDS]


@dataclass
class Pool:
    """A frozen corpus with its BM25 statistics and a bm25s index."""

    tokens: list[list[str]]
    df: Counter = field(init=False)
    avgdl: float = field(init=False)
    retriever: bm25s.BM25 = field(init=False)

    def __post_init__(self) -> None:
        self.df = Counter()
        for toks in self.tokens:
            self.df.update(set(toks))
        self._idf: dict[str, float] = {}
        self.avgdl = float(np.mean([len(t) for t in self.tokens])) if self.tokens else 1.0
        self.retriever = bm25s.BM25(k1=K1, b=B)
        self.retriever.index([t or [""] for t in self.tokens], show_progress=False)

    @property
    def n(self) -> int:
        return len(self.tokens)

    def idf(self, term: str) -> float:
        v = self._idf.get(term)
        if v is None:
            d = self.df.get(term, 0)
            v = self._idf[term] = math.log(1 + (self.n - d + 0.5) / (d + 0.5))
        return v

    def scores(self, query: list[str]) -> np.ndarray:
        """BM25 score of ``query`` against every pool document."""
        if not query:
            return np.zeros(self.n, dtype=np.float32)
        return self.retriever.get_scores(query)

    def score_doc(self, query: list[str], doc_tokens: list[str] | Counter) -> float:
        return sum(self.term_contributions(query, doc_tokens).values())

    def term_contributions(self, query: list[str], doc_tokens: list[str] | Counter) -> dict[str, float]:
        """Per query term, its share of the BM25 score of one (out-of-pool) document."""
        tf = doc_tokens if isinstance(doc_tokens, Counter) else Counter(doc_tokens)
        dl = sum(tf.values())
        norm = K1 * (1 - B + B * dl / self.avgdl)
        out: dict[str, float] = {}
        for term, qtf in Counter(query).items():
            f = tf.get(term, 0)
            if f:
                out[term] = qtf * self.idf(term) * f * (K1 + 1) / (f + norm)
        return out
