"""The semantic linker of ``veil eval`` (:mod:`veil.evals.semantic`): the generalization-aware
hierarchy score, the vectorised scoring against a brute-force reference (with a toy encoder and
splitter, no model), and, with MiniLM, a paraphrase that BM25 cannot link."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from veil.evals.linking import BM25Linker, select_aux
from veil.evals.semantic import SemanticLinker, fact_items, hierarchy, semantic_link_at_rand3

# -- hierarchy -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fact, text, expected",
    [
        ("The person was born in 1942", "He was born in 1942 in a small town.", 1.0),
        ("The person was born in 1942", "He was born in the 1940s.", 0.5),
        ("The person was born in 1942", "He was born in the early 1940s.", 0.5),
        ("The person was born in 1942", "He was born in the 20th century.", 0.25),
        ("The person was born in 1942", "He was born in the twentieth century.", 0.25),
        ("The person was born in 1942", "He was born a long time ago.", 0.0),
        ("The person was born in 1942", "His number was 19420.", 0.0),
        ("The person was born in 1940", "He was born in the 1940s.", 0.5),  # a decade is no exact year
        ("The person won the cup in 2005", "She won it in the mid-2000s.", 0.5),
        ("The person won the cup in 2005", "She won it in the 21st century.", 0.25),
        ("The person was born in Sacramento", "He was born in California.", 0.5),
        ("The person was born in Sacramento", "He was born in Sacramento.", 1.0),
        ("The person was born in Sacramento", "He was born in the United States.", 0.25),
        ("The person was born in Sacramento", "He was born in Oregon.", 0.0),
        ("The person lives in California", "She lives in California.", 1.0),
        ("The person lives in California", "She lives in the United States.", 0.25),
        ("The person was born in Sacramento in 1942", "Born in California in the 1940s.", 0.5),
        ("The person was born in Sacramento in 1942", "Born in Sacramento in the 1940s.", 0.75),
    ],
)
def test_hierarchy_rewards_truthful_generalizations(fact: str, text: str, expected: float) -> None:
    assert hierarchy(fact, text) == pytest.approx(expected)


def test_hierarchy_is_none_without_years_or_places() -> None:
    assert hierarchy("The person is a photographer", "A photographer.") is None
    assert fact_items("The person is a photographer") == ()


def test_capitalised_words_that_are_not_places_are_ignored() -> None:
    # gazetteer cities that are also ordinary words or names count only after a locative word
    assert fact_items("The person rejoined Blyth Spartans") == ()
    assert fact_items("The person studied with George Smith") == ()
    assert len(fact_items("The person studied art at Sacramento City College")) == 1  # Sacramento
    assert len(fact_items("The person was born in Freiburg im Breisgau, Germany")) == 2


# -- the vectorised linker against a brute-force reference (no model) ------------------------


def _toy_encode(texts: list[str]) -> np.ndarray:
    """Deterministic bag-of-words vectors (hashed), L2-normalised like MiniLM's."""
    out = np.zeros((len(texts), 64), dtype=np.float32)
    for i, t in enumerate(texts):
        for w in t.lower().replace(".", " ").split():
            out[i, int(hashlib.md5(w.encode()).hexdigest(), 16) % 64] += 1.0
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms > 0, norms, 1.0)


def _toy_split(texts: list[str]) -> list[list[str]]:
    return [[s.strip() for s in t.split(".") if s.strip()] for t in texts]


RECORDS = [
    "A painter from California. Born in the 1940s. Studied in a large city.",
    "",  # no sentence at all
    "A painter from Sacramento. Born in 1942.",
    "A footballer who played in Madrid. Retired in 2001.",
    "A painter. Born in the 20th century in the United States.",
]


@pytest.mark.parametrize("lam", [0.0, 0.1, 1.0])
def test_vectorised_scores_match_the_definition(lam: float) -> None:
    lk = SemanticLinker(lam, bm25_weight=0.0, splitter=_toy_split, encoder=_toy_encode).fit(RECORDS)
    facts = ["The person is a painter", "The person was born in Sacramento", "The person was born in 1942"]
    fe = _toy_encode(facts)
    expected = []
    for rec, sents in zip(RECORDS, _toy_split(RECORDS)):
        se = _toy_encode(sents)
        sim = np.mean([(se @ f).max() if len(sents) else 0.0 for f in fe])
        hier = [h for f in facts if (h := hierarchy(f, rec)) is not None]
        expected.append(sim + lam * np.mean(hier))
    np.testing.assert_allclose(lk.scores(facts), expected, rtol=1e-5, atol=1e-6)
    many = lk.scores_many([facts, facts[:1], []])
    np.testing.assert_allclose(many[0], expected, rtol=1e-5, atol=1e-6)
    assert not many[2].any()
    assert list(lk.rank(facts)) == list(np.argsort(-np.asarray(expected), kind="stable"))


def test_hierarchy_breaks_a_semantic_tie_towards_the_generalized_record() -> None:
    # the encoder sees no difference between the two records; the hierarchy does
    records = ["Born in the 1940s in California.", "Born some time ago somewhere."]
    flat = lambda texts: np.ones((len(texts), 8), dtype=np.float32) / np.sqrt(8)  # noqa: E731
    lk = SemanticLinker(0.5, bm25_weight=0.0, splitter=_toy_split, encoder=flat).fit(records)
    assert list(lk.rank(["The person was born in Sacramento in 1942"])) == [0, 1]


def test_fused_scores_are_z_scores_and_link_at_rand3_counts_top1() -> None:
    lk = SemanticLinker(0.1, splitter=_toy_split, encoder=_toy_encode).fit(RECORDS)
    s = lk.scores(["The person is a painter born in 1942"])
    assert s.shape == (len(RECORDS),) and np.isfinite(s).all()
    claims = [["name is A", "born in 1942", "lives in Sacramento", "is a painter"]] * len(RECORDS)
    rate = semantic_link_at_rand3(RECORDS, claims, linker=lk)
    assert 0.0 <= rate <= 1.0
    with pytest.raises(ValueError):
        semantic_link_at_rand3(RECORDS, claims[:2])


# -- with MiniLM ---------------------------------------------------------------------------

PARAPHRASE_RECORDS = [
    "She operates on hearts at a big hospital. In the evenings she performs string music with a chamber group. "
    "Her childhood was spent on a farm far from any town.",
    "The person raised money for a new bridge. The person is a banker who plays golf.",
    "He repairs bicycles in a small shop near the harbour and coaches a youth football team on Sundays.",
    "The orchestra's new concert hall opened downtown; critics praised its acoustics and its modern glass roof.",
]
PARAPHRASE_FACTS = ["The person is a cardiac surgeon", "The person plays the violin",
                    "The person was raised in the countryside"]


@pytest.mark.slow
def test_semantic_linker_finds_a_paraphrase_that_bm25_misses() -> None:
    bm25 = BM25Linker(PARAPHRASE_RECORDS)
    docs, _ = bm25.link([" ".join(PARAPHRASE_FACTS)], k=1)
    assert docs[0, 0] == 1  # BM25 follows the shared words "person" and "raised"
    lk = SemanticLinker(bm25_weight=0.0).fit(PARAPHRASE_RECORDS)
    assert lk.rank(PARAPHRASE_FACTS)[0] == 0
    assert lk.scores(PARAPHRASE_FACTS)[0] > lk.scores(PARAPHRASE_FACTS)[1] + 0.1


@pytest.mark.slow
def test_semantic_link_at_rand3_links_originals_and_not_unrelated_texts() -> None:
    from tests.test_eval_cli import CLAIMS, UNRELATED
    from tests.test_local_engine import BATCH

    originals = [d["text"] for d in BATCH]
    claims = [[f"name is {d['name']}", *CLAIMS[d["id"]]] for d in BATCH]
    assert semantic_link_at_rand3(originals, claims) == pytest.approx(1.0)
    assert semantic_link_at_rand3(originals, claims, bm25_weight=0.0) >= 0.9
    assert semantic_link_at_rand3(UNRELATED, claims) <= 0.25
    # the name claim is never auxiliary knowledge
    q = [claims[0][j] for j in select_aux(claims[0], "random3", seed=0, record_index=0, exclude="name is")]
    assert not any(c.startswith("name is") for c in q)


@pytest.mark.slow
def test_eval_cli_reports_semantic_link(tmp_path: Path, capsys) -> None:
    from veil.cli import main
    from tests.test_eval_cli import CLAIMS
    from tests.test_local_engine import BATCH

    data, claims, out = tmp_path / "d.jsonl", tmp_path / "c.jsonl", tmp_path / "m.json"
    data.write_text("".join(json.dumps({"text": d["text"], "anonymized_text": d["text"].replace(d["name"], "X")}) + "\n"
                            for d in BATCH), encoding="utf-8")
    claims.write_text("".join(json.dumps([f"name is {d['name']}", *CLAIMS[d["id"]]]) + "\n" for d in BATCH),
                      encoding="utf-8")
    assert main(["eval", str(data), "--claims", str(claims), "-o", str(out)]) == 0
    assert "semantic" in capsys.readouterr().out  # the column (rich may wrap its header)
    m = json.loads(out.read_text(encoding="utf-8"))["metrics"]["anonymized_text"]
    assert m["semantic_link@rand3"] == pytest.approx(1.0)
    assert "perplexity_ratio" not in m
