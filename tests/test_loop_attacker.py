"""The local engine's in-loop attacker (issue 8, item 6): each partial-knowledge query is answered
by BM25 and by the fused semantic linker of ``veil eval``, the truth's rank is the better of the
two, and the loop stops only when that stronger attacker fails.

Same hand-written batch as ``test_local_engine`` (fictional biographies, MiniLM only)."""

from __future__ import annotations

import asyncio
from collections import Counter

import numpy as np
import pytest

from veil.agents.local.engine import build
from veil.agents.local.p_evaluator import LinkAttack, run_attack
from veil.agents.local.retrieval import tokenize
from veil.nlp import sentences
from tests.test_local_engine import BY_ID, DOCS, Prepared, name_parts, task_for


def test_fused_rank_is_the_z_score_fusion_of_veil_eval() -> None:
    """Per query: z(semantic) + 0.75 z(BM25) across the record and its decoys; ties count half."""
    attack = LinkAttack(queries=[["a"], ["b"]], decoy_scores=np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], np.float32),
                        decoy_sem=np.array([[0.1, 0.2, 0.3], [0.5, 0.5, 0.9]], np.float32))
    ranks, own = attack.fused(np.array([0.9, 0.1], np.float32), np.array([0.0, 0.0], np.float32))
    # query 0: the best semantic match but the worst BM25 score of the four records
    zs = (np.array([0.9, 0.1, 0.2, 0.3]) - np.mean([0.9, 0.1, 0.2, 0.3])) / np.std([0.9, 0.1, 0.2, 0.3])
    zb = (np.array([0.0, 1, 2, 3]) - 1.5) / np.std([0.0, 1, 2, 3])
    fused = zs + 0.75 * zb
    assert ranks[0] == 1 + (fused[1:] > fused[0]).sum()
    assert own[0] == pytest.approx(zs[0] + zb[0], abs=1e-5)
    # query 1: BM25 ties everywhere (z = 0); the record is the worst semantic match of the four
    assert ranks[1] == 4


@pytest.mark.slow
def test_facts_carry_the_words_of_the_bm25_queries_without_the_name() -> None:
    eng = build()
    d = BY_ID["b7"]
    facts = eng.optimizer.world.facts("b7", d["text"], d["name"], 16, 3)
    queries = eng.optimizer.world.queries("b7", d["text"], d["name"], 16, 3)
    assert len(facts) == len(queries) == 16
    for q, toks in zip(facts, queries):
        assert [t for _, ft in q for t in ft] == toks
        for words, ft in q:
            assert words and set(ft) <= set(tokenize(words))
            for part in name_parts(d["name"]):
                assert part not in words, words


@pytest.fixture(scope="module")
def engines():
    return Prepared(build()), Prepared(build(semantic=False))


@pytest.mark.slow
def test_the_stronger_attacker_never_ranks_the_truth_lower_than_bm25(engines) -> None:
    eng, _ = engines
    pe, batch = eng.p_evaluator, eng.batch
    for d in DOCS:
        task = task_for(d.id)
        for text in (d.text, eng.optimizer.base_plan(task, batch).render()):
            toks = Counter(tokenize(text))
            fused = run_attack(pe, batch, task, toks, sentences(text))
            lexical = run_attack(pe, batch, task, toks)
            assert fused.rank <= lexical.rank, (d.id, text)


@pytest.mark.slow
def test_the_semantic_attacker_ranks_a_generalized_release_higher_than_bm25(engines) -> None:
    """A release that generalizes the place and the hotel truthfully ("Hamburg" -> "northern
    Germany", "the Hotel Sacher" -> "a hotel") shares few terms with what the adversary knows, but
    its meaning (and the generalization hierarchy) still points to the person: BM25 ranks her
    second of twelve, the semantic linker first. (The releases of the others no longer say
    "born": a release that does is found by BM25 alone.)"""
    eng, _ = engines
    pe, batch = eng.p_evaluator, eng.batch
    task = task_for("b1")
    release = "She is a cook from northern Germany. She trained at a hotel."
    toks = Counter(tokenize(release))
    lexical = run_attack(pe, batch, task, toks)
    fused = run_attack(pe, batch, task, toks, sentences(release))
    assert fused.semantic and not lexical.semantic
    assert fused.rank < lexical.rank, (fused.rank, lexical.rank)
    # the weights point at the words of the sentence that gives the person away
    assert fused.weights and set(fused.weights) <= set(tokenize(release))


@pytest.mark.slow
def test_the_p_evaluator_reports_the_stronger_attack(engines) -> None:
    """Where BM25 alone re-identifies the person the P-Evaluator says so without the semantic
    linker (the stronger attacker can only rank the truth higher); where BM25 is beaten, the
    semantic linker has the last word."""
    eng, lexical_eng = engines
    seen = set()
    for doc_id in BY_ID:
        task = task_for(doc_id)
        other = BY_ID["b12" if doc_id == "b1" else "b1"]["text"]  # another person's record: BM25 is beaten
        for text in (BY_ID[doc_id]["text"], eng.optimizer.base_plan(task, eng.batch).render(), other):
            got = asyncio.run(eng.p_evaluator.evaluate(text, task, batch=eng.batch))
            toks = Counter(tokenize(text))
            lexical = run_attack(eng.p_evaluator, eng.batch, task, toks)
            bm25 = asyncio.run(lexical_eng.p_evaluator.evaluate(text, task, batch=lexical_eng.batch))
            assert bm25.score == run_attack(lexical_eng.p_evaluator, lexical_eng.batch, task, toks).rank
            assert "semantic" not in bm25.explanation
            if task.privacy_met(lexical.rank):
                want = run_attack(eng.p_evaluator, eng.batch, task, toks, sentences(text)).rank
                assert "semantic linker" in got.explanation
                seen.add("fused")
            else:
                want = lexical.rank
                assert "semantic" not in got.explanation
                seen.add("lexical")
            assert got.per_target["partial_knowledge"] == want == got.score
            assert got.score <= bm25.score
    assert seen == {"fused", "lexical"}


@pytest.mark.slow
def test_a_labelled_batch_with_the_attributes_profile_runs_to_the_end(tmp_path) -> None:
    """Utility mode with nothing to restore embeds no sentence (it once asked MiniLM for an
    empty batch and every PersonalReddit comment failed with a ValueError)."""
    from veil.anonymizer import Anonymizer
    from veil.documents import Document
    from veil.graphs.anonymize import AnonymizeConfig

    docs = [Document(id=d.id, text=d.text, label=d.label, attributes={"city_country": "Hamburg, Germany"})
            for d in DOCS[:4]]

    async def go():
        async with Anonymizer("local", config=AnonymizeConfig(profile="attributes"), db_path=tmp_path / "v.db") as anon:
            await anon.prepare(docs)
            return [await anon.anonymize(d) for d in docs]

    results = asyncio.run(go())
    assert [r.status for r in results] == ["done"] * len(docs), [r.error for r in results]
    assert "Hamburg" not in results[0].anonymized_text


def test_the_attack_quantile_is_numpys() -> None:
    """The planner's fast quantile of an attack's ranks equals ``np.quantile`` (linear) on the
    half-integer ranks an attack gives, for the quantiles a task may set."""
    import numpy as np

    from veil.agents.local.p_evaluator import quantile

    rng = np.random.default_rng(0)
    for _ in range(3000):
        ranks = np.floor(rng.random(int(rng.integers(1, 40))) * 40) / 2 + 1
        q = float(rng.choice([0.0, 0.1, 0.35, 0.5, 0.9, 1.0]))
        assert quantile(ranks, q) == np.quantile(ranks, q), (ranks, q)
