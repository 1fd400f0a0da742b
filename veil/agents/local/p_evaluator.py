"""Local P-Evaluator: a real re-identification attack by retrieval, no LLM.

Two attacks, both over the population of candidates (a ``--population`` knowledge base, else
the batch itself: each record's original is its own background knowledge, the other records
are decoys — the dataset-release threat model):

* **partial knowledge** (the audit paper's linking attack, GreedySanitize's simulated attacker):
  the adversary knows a few facts about the person (``query_size`` clauses sampled from the
  background text, ``m_queries`` samples) and searches the released records for the one that
  matches best, with BM25 and with the semantic linker of ``veil eval`` (each fact matched to
  the sentences by MiniLM similarity, credit for truthful generalizations of its years and
  places, z-fused with BM25; :func:`run_attack`). The rank of the true record is computed per
  sample against the other records as the publisher expects to release them, the better of
  the two attackers' ranks; the privacy score is the ``quantile`` of those ranks (K+1 beyond
  K). The semantic linker runs only where BM25 alone is beaten (where BM25 wins, so does the
  stronger attacker).
* **full text** ("who is this?"): the sanitized text itself is the query against the
  population's background texts, BM25 and MiniLM dense similarity fused by reciprocal rank.

With a knowledge base the full-text attack gives the score (that is the attacker's situation);
with the batch as population the partial-knowledge attack does, and the full-text rank is
reported in ``per_target``. Clues are the terms that contributed most to the true record's
BM25 score in the samples where the attack succeeded.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from veil.agents.base import Guess, PrivacyEvaluator, PrivacyResult, Task
from veil.agents.batch import Batch
from veil.agents.local.retrieval import tokenize
from veil.agents.local.world import LocalBatch, LocalWorld, local_batch


def quantile(values: np.ndarray, q: float) -> float:
    """``np.quantile(values, q)`` (its default linear method, the same arithmetic) for the few
    ranks of one attack: numpy's general path costs ~25 µs a call, and the planner asks for
    hundreds of thousands (measured: ~0.7 µs here)."""
    s = sorted(values.tolist())
    pos = q * (len(s) - 1)
    lo = int(pos)
    if lo + 1 >= len(s):
        return float(s[-1])
    t = pos - lo
    a, b = s[lo], s[lo + 1]
    return float(b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t)


def cap_rank(rank: float, k: int, n_candidates: int) -> int:
    """Rank of the truth as the privacy score: K+1 beyond K. In a population too small for
    a top-K (n <= K) the truth counts as hidden once it ranks in the worse half."""
    if n_candidates <= k:
        return k + 1 if rank > max(1, n_candidates // 2) else int(rank)
    return min(int(rank), k + 1)


@dataclass
class LinkAttack:
    """Precomputed per document: the adversary's queries (BM25 tokens; with the semantic
    attacker, the facts' words too) and the decoys' scores for them."""

    queries: list[list[str]]
    decoy_scores: np.ndarray  # (m_queries, n_decoys) BM25
    facts: list[str] = field(default_factory=list)  # distinct known facts (their words)
    fact_tokens: list[frozenset[str]] = field(default_factory=list)
    query_facts: list[np.ndarray] = field(default_factory=list)  # per query: indices into facts
    fact_emb: np.ndarray | None = None  # (n_facts, 384) MiniLM, normalised
    decoy_sem: np.ndarray | None = None  # (m_queries, n_decoys) semantic score

    pieces: list = field(default_factory=list)  # per query: (words, tokens) of each known fact

    @property
    def semantic(self) -> bool:
        return self.decoy_sem is not None

    def add_semantic(self, linker, self_pos: int) -> None:
        """Prepare the semantic linker's part: the facts embedded, the decoys' semantic scores
        (``linker``: a :class:`veil.evals.semantic.SemanticLinker` fitted on the released
        records, the truth's own at ``self_pos``)."""
        facts = list(dict.fromkeys(words for q in self.pieces for words, _ in q))
        pos = {f: i for i, f in enumerate(facts)}
        tokens_of = {words: frozenset(toks) for q in self.pieces for words, toks in q}
        sem = linker.semantic_scores_many([[words for words, _ in q] for q in self.pieces])
        self.facts = facts
        self.fact_tokens = [tokens_of[f] for f in facts]
        self.query_facts = [np.array([pos[words] for words, _ in q], dtype=np.int64) for q in self.pieces]
        self.fact_emb = linker.embed_facts(facts)
        self.decoy_sem = np.delete(sem, self_pos, axis=1)  # last: `semantic` says all is ready

    def ranks(self, batch: LocalBatch, tokens: Counter) -> tuple[np.ndarray, list[dict[str, float]]]:
        """BM25 only: the rank of the truth per query and each query's term contributions."""
        pool = batch.release_pool
        assert pool is not None
        contribs = [pool.term_contributions(q, tokens) for q in self.queries]
        own = np.array([sum(c.values()) for c in contribs], dtype=np.float32)
        greater = (self.decoy_scores > own[:, None] + 1e-6).sum(axis=1)
        ties = (np.abs(self.decoy_scores - own[:, None]) <= 1e-6).sum(axis=1)
        return 1 + greater + 0.5 * ties, contribs

    def semantic_own(self, sentences: list[str], sent_emb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The record's semantic score per query (as :class:`veil.evals.semantic.SemanticLinker`
        scores a record: mean over the facts of the best sentence's cosine, plus the hierarchy
        term), and per fact its best sentence and that cosine."""
        from veil.evals.semantic import LAMBDA, hierarchy

        assert self.fact_emb is not None
        n_facts = len(self.facts)
        if len(sent_emb):
            sims_all = self.fact_emb @ sent_emb.T
            best, sims = sims_all.argmax(axis=1), sims_all.max(axis=1)
        else:
            best, sims = np.full(n_facts, -1), np.zeros(n_facts, np.float32)
        text = " ".join(sentences)
        hier = np.array([np.nan if (h := hierarchy(f, text)) is None else h for f in self.facts], dtype=np.float32)
        own = np.zeros(len(self.query_facts), np.float32)
        for qi, idx in enumerate(self.query_facts):
            own[qi] = sims[idx].mean()
            h = hier[idx]
            if (~np.isnan(h)).any():
                own[qi] += LAMBDA * float(np.nanmean(h))
        return own, best, sims

    def fused(self, own_sem: np.ndarray, own_bm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per query, the truth's rank under the fused attacker of ``veil eval``
        (``z(semantic) + BM25_WEIGHT * z(BM25)``, z-scores across the records) and the
        record's own ``z(semantic) + z(BM25)``: what an edit lowers."""
        from veil.evals.semantic import BM25_WEIGHT, _zscore

        assert self.decoy_sem is not None
        zs = _zscore(np.column_stack([own_sem, self.decoy_sem]))
        zb = _zscore(np.column_stack([own_bm, self.decoy_scores]))
        f = zs + BM25_WEIGHT * zb
        own, dec = f[:, :1], f[:, 1:]
        ranks = 1 + (dec > own + 1e-6).sum(axis=1) + 0.5 * (np.abs(dec - own) <= 1e-6).sum(axis=1)
        return ranks, zs[:, 0] + zb[:, 0]


@dataclass
class AttackResult:
    """One run of the in-loop attack on a version of the record."""

    rank: int  # the privacy score (K+1 beyond K)
    weights: Counter  # how much each token helped the attacker where it won
    score: float  # what edits lower (the attacker's total evidence for the truth)
    semantic: bool = False  # the semantic linker took part (else BM25 alone)


class LocalPrivacyEvaluator(PrivacyEvaluator):
    engine = "local"

    def __init__(self, world: LocalWorld, *, m_queries: int = 16, query_size: int = 3, quantile: float = 0.35,
                 dense: bool = True, semantic: bool = True):
        self.world = world
        self.m_queries = m_queries
        self.query_size = query_size
        self.quantile = quantile
        self.dense = dense
        self.semantic = semantic  # the partial-knowledge attacker also links by meaning (MiniLM)

    # -- partial knowledge -----------------------------------------------------------------
    def link_attack(self, task: Task, batch: LocalBatch, *, semantic: bool = False) -> LinkAttack | None:
        """The document's partial-knowledge attack (memoised per batch); ``semantic``: with the
        semantic linker's part, prepared on first use (embedding the known facts is most of
        its cost, and a document BM25 alone never loses needs none)."""
        b = batch
        if b.release_pool is None or task.doc_id not in b.released:
            return None
        attack = b.memo["attacks"].get(task.doc_id)
        if attack is None:
            idx = b.candidate_index(task.doc_id, task.name)
            background = b.population[idx].text if idx is not None else task.original
            pieces = self.world.facts(task.doc_id, background, task.name, self.m_queries, self.query_size)
            queries = [[t for _, toks in q for t in toks] for q in pieces]
            self_pos = b.release_ids.index(task.doc_id)
            scores = np.stack([np.delete(b.release_pool.scores(q), self_pos) for q in queries])
            attack = LinkAttack(queries=queries, decoy_scores=scores, pieces=pieces)
            b.memo["attacks"][task.doc_id] = attack
        if semantic and not attack.semantic and self._semantic(task, b):
            attack.add_semantic(b.release_linker(self.world.embed), b.release_ids.index(task.doc_id))
        return attack

    def partial_knowledge_rank(self, text: str, task: Task, batch: LocalBatch,
                               sentences: list[str] | None = None) -> AttackResult:
        """The attack on ``text`` (the rank of the truth, K+1 beyond K, and the weights its
        clues come from); the semantic linker joins BM25 when the text's ``sentences`` are given
        (:func:`run_attack`)."""
        return run_attack(self, batch, task, Counter(tokenize(text)), sentences)

    def _semantic(self, task: Task, batch: LocalBatch) -> bool:
        return (self.semantic and batch.population_is_batch and bool(batch.release_sentences)
                and task.doc_id in batch.released)

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
        result = await asyncio.to_thread(self._evaluate, text, task, w, q)
        if "partial_knowledge" in result.per_target and task.privacy_met(result.score) and self._semantic(task, w):
            # BM25 alone is beaten: the semantic linker joins it (run_attack). It reads the text's
            # sentences; their embeddings are batched with other documents' like the text's own
            from veil.nlp import sentences

            sents = await asyncio.to_thread(sentences, text)
            await asyncio.gather(*(self.world.aembed(s) for s in sents))
            result = await asyncio.to_thread(self._evaluate, text, task, w, q, sents)
        return result

    def _evaluate(self, text: str, task: Task, w: LocalBatch, q: np.ndarray | None,
                  sentences: list[str] | None = None) -> PrivacyResult:
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
        semantic = False
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
            attack = self.partial_knowledge_rank(text, task, w, sentences)
            score, clues = attack.rank, [t for t, _ in attack.weights.most_common(12)]
            per_target["partial_knowledge"] = score
            semantic = attack.semantic
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
                else ("partial-knowledge linking attack over the batch (BM25 and the semantic linker)" if semantic
                      else "partial-knowledge linking attack over the batch (BM25)")
                if "partial_knowledge" in per_target
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
# veil's own replacements ("Person A." at a sentence's end reads as a name with an initial: "Hi, this is
# Person A." was re-identified at rank 1 by its own pseudonym)
PLACEHOLDER = re.compile(r"(?:Person [A-Z]{1,3}\.?|\[\w+\]|(?:the|a|an) [a-z ]+)", re.I)


def direct_identifiers(text: str, name: str | None) -> list[str]:
    """Names, contact details and ids in the text (and parts of the known name). In a text that
    is not English, only what the language-independent recognizers find (the English NER reads
    "Je m'appelle" as a name)."""
    from veil.agents.local.optimizer import LANGUAGE_INDEPENDENT
    from veil.agents.local.spans import find_spans
    from veil.nlp import is_english

    types = DIRECT if is_english(text) else DIRECT & LANGUAGE_INDEPENDENT
    # the NER reads a pseudonym with what follows it as a name ("Person C. Can you confirm" re-identified a
    # support chat at rank 1): a span on one of veil's own pseudonyms is none
    from veil.agents.local.generalize import PSEUDONYM

    own = [m.span() for m in PSEUDONYM.finditer(text)]
    found = [s.text for s in find_spans(text) if s.type in types and not PLACEHOLDER.fullmatch(s.text)
             and not any(s.start < b and a < s.end for a, b in own)]
    if name:
        found += [p for p in re.findall(r"[A-Z][\w'-]{2,}", name) if re.search(rf"(?<!\w){re.escape(p)}(?!\w)", text)]
    return found


def run_attack(evaluator: LocalPrivacyEvaluator, batch: LocalBatch, task: Task, tokens: Counter,
               sentences: list[str] | None = None, *, exact: bool = True) -> AttackResult:
    """The in-loop attack on one version of the record (its BM25 tokens; its sentences for
    the semantic attacker, None for BM25 alone).

    Over the batch, each partial-knowledge query is answered by two attackers, BM25 and the
    fused semantic linker of ``veil eval`` (:class:`veil.evals.semantic.SemanticLinker`), and
    the truth's rank per query is the better of the two: the loop stops only when the stronger
    attacker fails. The weights say which tokens won: the BM25 terms of each query either
    attacker won (normalised per query) and, where the semantic one won, the tokens of the
    sentence that matched each known fact best (its words that the fact shares count fully,
    the rest a quarter: a generalized "California" still matches "born in Sacramento").

    ``exact=False``: where BM25 alone wins (its rank is below p_max), so does the stronger
    attacker, whose rank per query is at most BM25's: BM25's result is returned without
    embedding a sentence (``semantic`` False; its rank an upper bound of the stronger one's)."""
    w = batch
    if not w.population_is_batch:
        rank, weights = rank_tokens(evaluator, w, tokens, task)
        truth = w.candidate_index(task.doc_id, task.name)
        score = 0.0 if truth is None or w.pop_pool is None else w.pop_pool.score_doc(
            list(tokens.elements()), w.pop_pool.tokens[truth])
        return AttackResult(rank=rank, weights=weights, score=score)
    attack = evaluator.link_attack(task, w)
    if attack is None:
        return AttackResult(rank=task.k + 1, weights=Counter(), score=0.0)
    ranks, contribs = attack.ranks(w, tokens)
    own_bm = np.array([sum(c.values()) for c in contribs], dtype=np.float32)
    weights: Counter = Counter()

    def quantile_rank(r: np.ndarray) -> int:
        return cap_rank(math.floor(quantile(r, evaluator.quantile)), task.k, len(w.release_ids))

    fused = sentences is not None and (exact or task.privacy_met(quantile_rank(ranks)))
    if fused:
        attack = evaluator.link_attack(task, w, semantic=True)
        fused = attack is not None and attack.semantic
    if not fused:
        for r, c in zip(ranks, contribs):
            if r <= task.k:
                weights.update(c)
        score = float(own_bm.sum())
    else:
        assert sentences is not None and attack is not None
        emb = evaluator.world.embed(sentences) if sentences else np.zeros((0, 384), np.float32)
        own_sem, best, sims = attack.semantic_own(sentences, emb)
        f_ranks, own = attack.fused(own_sem, own_bm)
        score = float(own.sum())
        sentence_tokens = [set(tokenize(s)) for s in sentences]
        for qi, (r, fr) in enumerate(zip(ranks, f_ranks)):
            if min(r, fr) > task.k:
                continue
            total = float(own_bm[qi])
            if total > 0:
                for t, v in contribs[qi].items():
                    weights[t] += v / total
            if fr > task.k:
                continue
            for fi in attack.query_facts[qi]:
                toks = sentence_tokens[best[fi]] if best[fi] >= 0 else set()
                for t in toks:
                    weights[t] += max(0.0, float(sims[fi])) * (1.0 if t in attack.fact_tokens[fi] else 0.25) / len(toks)
        ranks = np.minimum(ranks, f_ranks)
    return AttackResult(rank=quantile_rank(ranks), weights=weights, score=score, semantic=fused)


def fast_rank(evaluator: LocalPrivacyEvaluator, batch: LocalBatch, text: str, task: Task) -> tuple[int, Counter]:
    return rank_tokens(evaluator, batch, Counter(tokenize(text)), task)


def rank_tokens(evaluator: LocalPrivacyEvaluator, batch: LocalBatch, tokens: Counter, task: Task) -> tuple[int, Counter]:
    """BM25 alone on a bag of tokens: the rank of the truth and the weight of each term in the
    attacker's success (over the batch: :func:`run_attack` without sentences)."""
    w = batch
    if w.population_is_batch:
        result = run_attack(evaluator, w, task, tokens)
        return result.rank, result.weights
    truth = w.candidate_index(task.doc_id, task.name)
    if truth is None or w.pop_pool is None:
        return task.k + 1, Counter()
    toks = list(tokens.elements())
    scores = w.pop_pool.scores(toks)
    rank = cap_rank(1 + int((scores > scores[truth] + 1e-6).sum()), task.k, len(w.population))
    if rank > task.k:
        return rank, Counter()
    return rank, Counter(w.pop_pool.term_contributions(toks, w.pop_pool.tokens[truth]))
