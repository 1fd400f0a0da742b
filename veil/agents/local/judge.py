"""LLM-free claim judge: how well does a (linked, sanitized) record support a claim?

Two signals per claim and linked record:

* ``score``: max over the record's sentences (and pairs of adjacent sentences) of the cosine of
  MiniLM embeddings of claim and sentence;
* ``coverage``: share of the claim's content words (lower-case, English stopwords and the
  claims' boilerplate subject "person" removed, Porter-stemmed) that occur in the record.

Rating on the paper's 3-point scale: 1 (same information) if score >= ``t_same`` or coverage
>= ``c_same``; else 2 (different but similar) if score >= ``t_similar`` or coverage >=
``c_similar``; else 3 (unsupported). Embeddings alone separate the originals from RUPTA's
outputs badly (claims say "The person was born in 1942", the text "Kurt was born ... in 1942":
median cosine 0.63 on the originals vs 0.53 on the outputs); the word coverage carries exact
facts (years, places, names). The evidence is the best-matching sentence.

The thresholds were calibrated on DB-bio (see ``CALIBRATION`` and the audit report): on the
original biographies nearly every claim must come out 1, and on RUPTA's GPT-4 outputs the
semantic leakage of correctly linked records must be comparable to the published LLM audit.

Embeddings are computed in batches and cached per claim text and per record, so a multi-seed
audit encodes every claim and every sentence once.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import numpy as np

from veil.agents.local.atomizer import split_sentences

# calibrated on DB-bio with the shipped claims (veil/graphs/audit/README in the report); the
# numbers are repeated in every report's "judge" section
T_SAME, T_SIMILAR = 0.65, 0.45
C_SAME, C_SIMILAR = 0.7, 0.5
CALIBRATION = {
    "data": "DB-bio test (239 records), shipped claims, BM25 linking with random3 aux claims "
    "(seeds 0-2, 'name is' claims excluded), records linked correctly only",
    "method": "grid search of (t_same, t_similar, c_same, c_similar) so that the originals come out "
    "~all 1 and RUPTA GPT-4 outputs match the published LLM audit of RUPTA GPT-4o (leakage 0.615 on "
    "correctly linked records, 1 - mean recall of rupta_gpt4o_audit_per_doc.jsonl)",
    "leakage_originals_correct_links": 0.989,
    "leakage_rupta_gpt4_correct_links": 0.615,
    "published_rupta_gpt4o_correct_links": 0.615,
    "embeddings_only_best": "t_same 0.62 / t_similar 0.45 gives originals 0.675 vs outputs 0.506: "
    "cosine alone cannot tell them apart",
}
_BOILERPLATE = {"person", "persons", "people"}


class LocalJudge:
    name = "local"
    votes = 1

    def __init__(
        self, t_same: float = T_SAME, t_similar: float = T_SIMILAR, c_same: float = C_SAME, c_similar: float = C_SIMILAR
    ):
        if not (t_similar <= t_same and c_similar <= c_same):
            raise ValueError("the 'similar' thresholds must not exceed the 'same' thresholds")
        self.t_same, self.t_similar, self.c_same, self.c_similar = t_same, t_similar, c_same, c_similar
        self._corpus: list[str] = []
        self._units: dict[int, tuple[list[str], np.ndarray]] = {}
        self._words: dict[int, set[str]] = {}
        self._claims: dict[str, np.ndarray] = {}

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name, "votes": 1, "t_same": self.t_same, "t_similar": self.t_similar,
            "c_same": self.c_same, "c_similar": self.c_similar, "calibration": CALIBRATION,
        }

    def prepare(self, sanitized: list[str]) -> None:
        if sanitized != self._corpus:
            self._corpus = list(sanitized)
            self._units.clear()
            self._words.clear()

    @staticmethod
    def content_words(text: str) -> list[str]:
        from bm25s.stopwords import STOPWORDS_EN

        from veil.evals.linking import _stemmer

        words = [w for w in re.findall(r"\w+", text.lower()) if w not in STOPWORDS_EN and w not in _BOILERPLATE]
        return _stemmer()(words)

    def coverage(self, claim: str, record: int) -> float:
        words = self._words.get(record)
        if words is None:
            words = self._words[record] = set(self.content_words(self._corpus[record]))
        cw = self.content_words(claim)
        return sum(w in words for w in cw) / len(cw) if cw else 1.0

    # -- embeddings, batched and cached ---------------------------------------------------
    def _ensure_records(self, indices: set[int]) -> None:
        from veil.embeddings import encode

        todo = sorted(i for i in indices if i not in self._units)
        if not todo:
            return
        texts: list[str] = []
        spans: list[tuple[int, int, int, list[str]]] = []
        for i in todo:
            sents = split_sentences(self._corpus[i]) or [self._corpus[i] or ""]
            units = sents + [f"{a} {b}" for a, b in zip(sents, sents[1:])]
            spans.append((i, len(texts), len(units), sents))
            texts.extend(units)
        vecs = encode(texts)
        for i, start, n, sents in spans:
            self._units[i] = (sents, vecs[start : start + n])

    def _ensure_claims(self, claims: set[str]) -> None:
        from veil.embeddings import encode

        todo = sorted(c for c in claims if c not in self._claims)
        if todo:
            for c, v in zip(todo, encode(todo)):
                self._claims[c] = v

    def scores(self, claims: list[str], record: int) -> tuple[np.ndarray, list[str]]:
        """Best cosine per claim and the evidence sentence."""
        self._ensure_records({record})
        self._ensure_claims(set(claims))
        sents, units = self._units[record]
        if not claims:
            return np.zeros(0), []
        q = np.stack([self._claims[c] for c in claims])
        sims = q @ units.T
        best = sims.argmax(axis=1)
        n_sents = len(sents)
        evidence = []
        for row, b in zip(sims, best):
            if b < n_sents:
                evidence.append(sents[b])
            else:  # a pair of sentences: cite the better of the two
                j = b - n_sents
                evidence.append(sents[j] if row[j] >= row[j + 1] else sents[j + 1])
        return sims.max(axis=1), evidence

    def rate(self, score: float, coverage: float = 0.0) -> int:
        if score >= self.t_same or coverage >= self.c_same:
            return 1
        if score >= self.t_similar or coverage >= self.c_similar:
            return 2
        return 3

    def judge_sync(self, jobs: list[tuple[list[str], int]]) -> list[list[dict[str, Any]]]:
        self._ensure_records({r for _, r in jobs})
        self._ensure_claims({c for claims, _ in jobs for c in claims})
        out = []
        for claims, record in jobs:
            sc, ev = self.scores(claims, record)
            verdicts = []
            for claim, s, e in zip(claims, sc, ev):
                cov = self.coverage(claim, record)
                r = self.rate(float(s), cov)
                verdicts.append({"rating": r, "votes": [r], "score": round(float(s), 4),
                                 "coverage": round(cov, 4), "evidence": e})
            out.append(verdicts)
        return out

    async def judge(self, jobs: list[tuple[list[str], int]]) -> list[list[dict[str, Any]]]:
        """Per job (claims, index of the linked sanitized record): one verdict per claim,
        ``{"rating": 1|2|3, "votes": [...], "score": cosine, "coverage": ..., "evidence": sentence}``."""
        return await asyncio.to_thread(self.judge_sync, jobs)

    async def aclose(self) -> None:
        return None
