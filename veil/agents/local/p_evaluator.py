"""Local P-Evaluator: a real re-identification attack by retrieval, no LLM.

Two attacks, both over the population of candidates (a ``--population`` knowledge base, else
the batch itself: each record's original is its own background knowledge, the other records
are decoys — the dataset-release threat model):

* **partial knowledge** (the audit paper's linking attack, GreedySanitize's simulated attacker):
  the adversary knows a few facts about the person (``query_size`` clauses sampled from the
  background text, ``m_queries`` samples) and searches the released records with BM25 for the
  one that matches best. The rank of the true record is computed per sample against the other
  records as the publisher expects to release them; the privacy score is the ``quantile`` of
  those ranks (K+1 beyond K).
* **full text** ("who is this?"): the sanitized text itself is the query against the
  population's background texts, BM25 and MiniLM dense similarity fused by reciprocal rank.

With a knowledge base the full-text attack gives the score (that is the attacker's situation);
with the batch as population the partial-knowledge attack does, and the full-text rank is
reported in ``per_target``. Clues are the terms that contributed most to the true record's
BM25 score in the samples where the attack succeeded.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

from veil.agents.base import Guess, PrivacyEvaluator, PrivacyResult, Task
from veil.agents.batch import Batch
from veil.agents.local.retrieval import tokenize
from veil.agents.local.world import LocalBatch, LocalWorld, local_batch


def cap_rank(rank: float, k: int, n_candidates: int) -> int:
    """Rank of the truth as the privacy score: K+1 beyond K. In a population too small for
    a top-K (n <= K) the truth counts as hidden once it ranks in the worse half."""
    if n_candidates <= k:
        return k + 1 if rank > max(1, n_candidates // 2) else int(rank)
    return min(int(rank), k + 1)


@dataclass
class LinkAttack:
    """Precomputed per document: the adversary's queries and the decoys' scores for them."""

    queries: list[list[str]]
    decoy_scores: np.ndarray  # (m_queries, n_decoys)

    def ranks(self, batch: LocalBatch, tokens: Counter) -> tuple[np.ndarray, list[dict[str, float]]]:
        pool = batch.release_pool
        assert pool is not None
        contribs = [pool.term_contributions(q, tokens) for q in self.queries]
        own = np.array([sum(c.values()) for c in contribs], dtype=np.float32)
        greater = (self.decoy_scores > own[:, None] + 1e-6).sum(axis=1)
        ties = (np.abs(self.decoy_scores - own[:, None]) <= 1e-6).sum(axis=1)
        return 1 + greater + 0.5 * ties, contribs


class LocalPrivacyEvaluator(PrivacyEvaluator):
    engine = "local"

    def __init__(self, world: LocalWorld, *, m_queries: int = 16, query_size: int = 3, quantile: float = 0.35,
                 dense: bool = True):
        self.world = world
        self.m_queries = m_queries
        self.query_size = query_size
        self.quantile = quantile
        self.dense = dense

    # -- partial knowledge -----------------------------------------------------------------
    def link_attack(self, task: Task, batch: LocalBatch) -> LinkAttack | None:
        b = batch
        if b.release_pool is None or task.doc_id not in b.released:
            return None
        cached = b.memo["attacks"].get(task.doc_id)
        if cached is not None:
            return cached
        idx = b.candidate_index(task.doc_id, task.name)
        background = b.population[idx].text if idx is not None else task.original
        queries = self.world.queries(task.doc_id, background, task.name, self.m_queries, self.query_size)
        self_pos = b.release_ids.index(task.doc_id)
        scores = np.stack([np.delete(b.release_pool.scores(q), self_pos) for q in queries])
        attack = LinkAttack(queries=queries, decoy_scores=scores)
        b.memo["attacks"][task.doc_id] = attack
        return attack

    def partial_knowledge_rank(self, text: str, task: Task, batch: LocalBatch) -> tuple[int, list[str]]:
        """Rank of the truth (K+1 beyond K) and the clue terms."""
        rank, weights = rank_tokens(self, batch, Counter(tokenize(text)), task)
        return rank, [t for t, _ in weights.most_common(12)]

    # -- full text ---------------------------------------------------------------------------
    def full_text_ranking(self, text: str, batch: LocalBatch, q: np.ndarray | None) -> list[int]:
        """Population indices, best match first (BM25, and dense with ``q``, the text's
        embedding, fused by reciprocal rank)."""
        b = batch
        assert b.pop_pool is not None
        bm = b.pop_pool.scores(tokenize(text))
        order_bm = np.argsort(-bm, kind="stable")
        rrf = np.zeros(len(b.population))
        rrf[order_bm] += 1.0 / (60 + np.arange(1, len(order_bm) + 1))
        if q is not None:
            index = b.memo["index"].get("population")
            if index is None:
                import faiss

                vecs = np.ascontiguousarray(self.world.embed([c.text for c in b.population]), dtype=np.float32)
                index = faiss.IndexFlatIP(vecs.shape[1])  # cosine: vectors are normalised
                index.add(vecs)
                b.memo["index"]["population"] = index
            _, idx = index.search(np.ascontiguousarray(q[None, :], dtype=np.float32), len(b.population))
            order_d = idx[0]
            rrf[order_d] += 1.0 / (60 + np.arange(1, len(order_d) + 1))
        return list(np.argsort(-rrf, kind="stable"))

    async def evaluate(self, text: str, task: Task, *, batch: Batch | None = None) -> PrivacyResult:
        if task.profile == "attributes" and task.attributes:
            return await asyncio.to_thread(self.literal_attribute_check, text, task)
        w = local_batch(batch)
        # the embedding is batched with other documents' (on the loop); the rest is CPU work
        # (a parse, BM25, faiss) for a worker thread, off the event loop
        q = await self.world.aembed(text) if self.dense and w.pop_pool is not None and w.population else None
        return await asyncio.to_thread(self._evaluate, text, task, w, q)

    def _evaluate(self, text: str, task: Task, w: LocalBatch, q: np.ndarray | None) -> PrivacyResult:
        per_target: dict[str, int] = {}
        guesses: list[Guess] = []
        truth = w.candidate_index(task.doc_id, task.name)
        if w.pop_pool is not None and w.population:
            ranking = self.full_text_ranking(text, w, q)
            top = ranking[: task.k]
            guesses = [
                Guess(value=w.population[i].name or w.population[i].id, target="identity", matched=(i == truth))
                for i in top
            ]
            pos = ranking.index(truth) + 1 if truth is not None else len(ranking) + 1
            per_target["full_text"] = cap_rank(pos, task.k, len(w.population))
        clues: list[str] = []
        verified = True
        if not w.population_is_batch:
            score = per_target.get("full_text", task.k + 1)
            if truth is not None and score <= task.k:
                contrib = w.pop_pool.term_contributions(tokenize(w.population[truth].text), tokenize(text))  # type: ignore[union-attr]
                clues = [t for t, _ in Counter(contrib).most_common(12)]
        elif self.link_attack(task, w) is None:
            # no population to attack with (a single document): direct identifiers still in the
            # text re-identify the person; without them the attacker has nothing to rank against
            direct = direct_identifiers(text, task.name)
            score = 1 if direct else task.k + 1
            clues = direct[:12]
            per_target["direct_identifiers"] = score
            verified = False
        else:
            score, clues = self.partial_knowledge_rank(text, task, w)
            per_target["partial_knowledge"] = score
        return PrivacyResult(
            score=score,
            k=task.k,
            guesses=guesses,
            clues=clues,
            per_target=per_target,
            verified=verified,
            protections=[] if verified else protections_applied(task.original),
            explanation=(
                "full-text retrieval over the knowledge base" if not w.population_is_batch
                else "partial-knowledge linking attack over the batch" if "partial_knowledge" in per_target
                else "direct identifiers (no population to attack with)"
            ),
        )


    def literal_attribute_check(self, text: str, task: Task) -> PrivacyResult:
        """The attributes profile: the local engine has no attacker that infers an attribute from
        style or context (an LLM does: "Bush era" gives an age), so all it can check is whether the
        text still *states* a true value ("Zurich", "software engineer"). Stated: rank 1. Not
        stated: unverified, never "protected" - a stronger attacker may still infer it."""
        from veil.agents.local.inferrer import literal_attributes

        stated = literal_attributes(text, task.attributes)
        return PrivacyResult(
            score=1 if stated else task.k + 1, k=task.k, clues=[task.attributes[f] for f in stated],
            per_target={f: 1 for f in stated}, verified=False,
            protections=protections_applied(task.original) + ["true attribute values stated word for word"],
            explanation="literal statements of the true attributes (no inference attack in the local engine)",
        )


DIRECT = {"PERSON", "EMAIL", "PHONE", "URL", "ID", "DOB", "ADDRESS"}
# what the plan applies to every document, population or not (reported when no attack can run)
PROTECTIONS = ["names", "contacts and ids", "addresses", "dates of birth", "the generalization policy"]
NOT_ENGLISH = ("the text does not read as English: only the language-independent recognizers ran (e-mail, phone, "
               "URL, ids, addresses, dates of birth, the known name, --deny terms)")


def protections_applied(original: str) -> list[str]:
    """What the local engine applied to a text no attack could verify; for a text that is not
    English, the warning that only the language-independent recognizers ran."""
    from veil.nlp import is_english

    if not is_english(original):
        return ["contacts and ids", "addresses", "dates of birth", "the known name", NOT_ENGLISH]
    return list(PROTECTIONS)
PLACEHOLDER = re.compile(r"(?:Person [A-Z]{1,3}|\[\w+\]|(?:the|a|an) [a-z ]+)", re.I)  # veil's own replacements


def direct_identifiers(text: str, name: str | None) -> list[str]:
    """Names, contact details and ids in the text (and parts of the known name). In a text that
    is not English, only what the language-independent recognizers find (the English NER reads
    "Je m'appelle" as a name)."""
    from veil.agents.local.optimizer import LANGUAGE_INDEPENDENT
    from veil.agents.local.spans import find_spans
    from veil.nlp import is_english

    types = DIRECT if is_english(text) else DIRECT & LANGUAGE_INDEPENDENT
    found = [s.text for s in find_spans(text) if s.type in types and not PLACEHOLDER.fullmatch(s.text)]
    if name:
        found += [p for p in re.findall(r"[A-Z][\w'-]{2,}", name) if re.search(rf"(?<!\w){re.escape(p)}(?!\w)", text)]
    return found


def fast_rank(evaluator: LocalPrivacyEvaluator, batch: LocalBatch, text: str, task: Task) -> tuple[int, Counter]:
    return rank_tokens(evaluator, batch, Counter(tokenize(text)), task)


def rank_tokens(evaluator: LocalPrivacyEvaluator, batch: LocalBatch, tokens: Counter, task: Task) -> tuple[int, Counter]:
    """The attack the optimizer re-runs for every candidate edit, on a bag of tokens: the rank
    of the truth and the weight of each term in the attacker's success. BM25 only (dense is
    too slow to run per candidate)."""
    w = batch
    if w.population_is_batch:
        attack = evaluator.link_attack(task, w)
        if attack is None:
            return task.k + 1, Counter()
        ranks, contribs = attack.ranks(w, tokens)
        weights: Counter = Counter()
        for r, c in zip(ranks, contribs):
            if r <= task.k:
                weights.update(c)
        return cap_rank(np.floor(np.quantile(ranks, evaluator.quantile)), task.k, len(w.release_ids)), weights
    truth = w.candidate_index(task.doc_id, task.name)
    if truth is None or w.pop_pool is None:
        return task.k + 1, Counter()
    toks = list(tokens.elements())
    scores = w.pop_pool.scores(toks)
    rank = cap_rank(1 + int((scores > scores[truth] + 1e-6).sum()), task.k, len(w.population))
    if rank > task.k:
        return rank, Counter()
    return rank, Counter(w.pop_pool.term_contributions(toks, w.pop_pool.tokens[truth]))
