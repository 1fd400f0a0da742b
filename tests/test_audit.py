"""Audit graph: claim selection, linking, ratings, ROUGE-L, report, resume, LLM judge, CLI."""

from __future__ import annotations

import asyncio
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from veil.agents.judge import majority, rating_to_privacy
from veil.evals.audit_report import to_html, write_report
from veil.evals.linking import (
    BM25Linker,
    LexicalLinker,
    aux_query,
    lcs_length,
    linkage_rate,
    rouge_l,
    select_aux,
)
from veil.graphs.audit import AuditConfig, run_audit

# -- hand-made data ------------------------------------------------------------------------

ORIGINALS = [
    "Anna Berg is a Swedish violinist born in 1971 in Malmo. She studied at the Royal College of Music. She plays a 1720 Stradivarius.",
    "Tomas Ruiz is a Chilean painter born in 1958 in Valparaiso. He married the poet Elena Soto. He exhibited at the Tate Modern.",
    "Kenji Mori is a Japanese chef born in 1980 in Osaka. He runs a ramen shop in Berlin. He won a Michelin star in 2015.",
    "Grace Okafor is a Nigerian surgeon born in 1966 in Lagos. She trained at Johns Hopkins. She founded a clinic for children in Abuja.",
]
SANITIZED = [
    "A Scandinavian string musician born in the early 1970s studied at a royal music college and plays an 18th-century violin.",
    "A South American painter born in the late 1950s in a port city married a poet and exhibited at a major London museum.",
    "A chef from East Asia, born around 1980, runs a noodle shop in a German capital and won a Michelin star in the mid 2010s.",
    "A West African surgeon born in the 1960s trained at a US university hospital and founded a children's clinic in her country's capital.",
]
CLAIMS = [
    ["The person's name is Anna Berg", "The person is Swedish", "The person is a violinist", "The person was born in 1971",
     "The person was born in Malmo", "The person studied at the Royal College of Music", "The person plays a Stradivarius"],
    ["The person's name is Tomas Ruiz", "The person is Chilean", "The person is a painter", "The person was born in 1958",
     "The person married Elena Soto", "The person exhibited at the Tate Modern"],
    ["The person's name is Kenji Mori", "The person is Japanese", "The person is a chef", "The person runs a ramen shop in Berlin",
     "The person won a Michelin star", "The person was born in Osaka"],
    ["The person's name is Grace Okafor", "The person is Nigerian", "The person is a surgeon", "The person trained at Johns Hopkins",
     "The person founded a clinic for children", "The person was born in Lagos"],
]


class KeywordJudge:
    """A deterministic stand-in judge: 1 if every content word of the claim is in the linked
    record, 2 if some are, 3 if none. Counts its calls; can fail on a chosen call."""

    name = "keyword"
    votes = 1

    def __init__(self, fail_on_call: int | None = None):
        self.calls: list[list[int]] = []
        self.fail_on_call = fail_on_call
        self._corpus: list[str] = []

    def describe(self):
        return {"name": self.name, "votes": 1}

    def prepare(self, sanitized):
        self._corpus = list(sanitized)

    async def judge(self, jobs):
        self.calls.append([r for _, r in jobs])
        if self.fail_on_call is not None and len(self.calls) == self.fail_on_call:
            self.fail_on_call = None
            raise RuntimeError("judge crashed")
        out = []
        for claims, r in jobs:
            words = set(self._corpus[r].lower().replace(".", " ").split())
            verdicts = []
            for c in claims:
                cw = [w for w in c.lower().split() if w not in {"the", "person", "is", "a", "was", "in", "at", "person's"}]
                hit = sum(w in words for w in cw)
                rating = 1 if cw and hit == len(cw) else 2 if hit else 3
                verdicts.append({"rating": rating, "votes": [rating], "evidence": ""})
            out.append(verdicts)
        return out

    async def aclose(self):
        pass


# -- auxiliary claims ----------------------------------------------------------------------


def test_select_aux_first_last():
    claims = [f"c{i}" for i in range(8)]
    assert select_aux(claims, "first3") == [0, 1, 2]
    assert select_aux(claims, "last3") == [5, 6, 7]
    assert select_aux(["a", "b"], "random3") == [0, 1]  # fewer than 3: all


def test_select_aux_random_seeded_and_reproducible():
    claims = [f"claim {i}" for i in range(20)]
    a = select_aux(claims, "random3", seed=1, record_index=5)
    assert a == select_aux(claims, "random3", seed=1, record_index=5)
    assert len(set(a)) == 3
    draws = {tuple(select_aux(claims, "random3", seed=s, record_index=5)) for s in range(10)}
    assert len(draws) > 5  # the seed matters
    per_record = {tuple(select_aux(claims, "random3", seed=1, record_index=i)) for i in range(10)}
    assert len(per_record) > 5  # and so does the record index


def test_select_aux_exclusion_regex():
    claims = CLAIMS[0]
    for mode in ("first3", "last3", "random3"):
        for seed in range(20):
            chosen = select_aux(claims, mode, seed=seed, record_index=0, exclude="name is")
            assert 0 not in chosen and len(chosen) == 3
    assert select_aux(claims, "first3", exclude="NAME IS") == [1, 2, 3]  # case-insensitive
    with pytest.raises(ValueError):
        select_aux(claims, "best3")


# -- linking -------------------------------------------------------------------------------


def _queries(seed=0):
    return [aux_query(c, select_aux(c, "first3", exclude="name is")) for c in CLAIMS]


def test_bm25_links_originals_to_themselves():
    docs, scores = BM25Linker(ORIGINALS).link(_queries(), k=2)
    assert docs[:, 0].tolist() == [0, 1, 2, 3]
    assert (scores[:, 0] >= scores[:, 1]).all()
    assert linkage_rate(docs[:, 0].tolist()) == 1.0


def test_lexical_linker_and_rouge_baseline():
    docs, _ = LexicalLinker(ORIGINALS).link(_queries())
    assert docs[:, 0].tolist() == [0, 1, 2, 3]
    assert linkage_rate([0, 2, 2, 3]) == 0.75
    assert linkage_rate([]) is None


def test_rouge_l_matches_rouge_score():
    from rouge_score.rouge_scorer import RougeScorer

    scorer = RougeScorer(["rougeL"], use_stemmer=True)
    rng = random.Random(7)
    vocab = "the a cat cats dog runs running ran over lazy fox quick brown 1971".split()
    for _ in range(200):
        a = " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 25)))
        b = " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 25)))
        ref, got = scorer.score(a, b)["rougeL"], rouge_l(a, b)
        assert got.fmeasure == pytest.approx(ref.fmeasure)
        assert got.recall == pytest.approx(ref.recall) and got.precision == pytest.approx(ref.precision)
    assert lcs_length(list("ABCBDAB"), list("BDCABA")) == 4
    assert rouge_l(ORIGINALS[0], ORIGINALS[0]).fmeasure == 1.0


# -- ratings -------------------------------------------------------------------------------


def test_rating_mapping():
    assert [rating_to_privacy(r) for r in (1, 2, 3)] == [0.0, 0.5, 1.0]
    with pytest.raises(ValueError):
        rating_to_privacy(4)


def test_majority_vote_and_ties():
    assert majority([1, 1, 3]) == 1
    assert majority([3, 2, 3]) == 3
    assert majority([1, 2, 3]) == 2  # three-way tie: the median
    assert majority([1, 3]) == 1  # tie of two: the lower median (more leakage, conservative)
    assert majority([2, 3]) == 2
    assert majority([]) == 3
    assert majority([5, 2]) == 2  # out-of-range votes are ignored


# -- the graph -----------------------------------------------------------------------------


def _run(tmp_path, config, **kw):
    return asyncio.run(run_audit(ORIGINALS, SANITIZED, config, claims=CLAIMS, db_path=tmp_path / "veil.db", **kw))


def test_audit_report_contents(tmp_path):
    judge = KeywordJudge()
    rep = _run(tmp_path, AuditConfig(aux="first3", exclude_claims="name is", chunk_size=2), judge=judge)
    for key in ("linkage_rate", "semantic_privacy", "semantic_leakage", "lexical_privacy", "records", "config", "judge", "timings"):
        assert key in rep
    assert rep["linkage_rate"] == 1.0
    assert rep["semantic_leakage"] == pytest.approx(1 - rep["semantic_privacy"], abs=1e-3)
    r0 = rep["records"][0]
    assert r0["id"] == "0" and r0["linked_id"] == "0" and r0["correct"] is True
    assert r0["aux_claims"] == CLAIMS[0][1:4]
    # judged: every claim not used for linking (the excluded name claim included)
    assert [c["claim"] for c in r0["claims"]] == [CLAIMS[0][0]] + CLAIMS[0][4:]
    assert {"rating", "votes", "evidence"} <= set(r0["claims"][0])
    privacies = [rating_to_privacy(c["rating"]) for c in r0["claims"]]
    assert r0["semantic_privacy"] == pytest.approx(sum(privacies) / len(privacies), abs=1e-4)
    assert 0.0 < rep["lexical_privacy"] < 1.0
    assert rep["config"]["aux"] == "first3"
    json_path, html_path = write_report(rep, tmp_path / "out" / "audit.json")
    assert json.loads(json_path.read_text())["linkage_rate"] == 1.0
    page = html_path.read_text()
    assert html_path.name == "report.html" and "<svg" in page and 'class="histogram"' in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")  # self-contained


def test_audit_without_mapping_and_without_judge(tmp_path):
    rep = _run(tmp_path, AuditConfig(mapping=False, judge="none"))
    assert rep["linkage_rate"] is None and rep["semantic_privacy"] is None
    assert all(r["correct"] is None for r in rep["records"])
    assert "<svg" in to_html(rep)


def test_audit_atomizes_when_no_claims(tmp_path):
    rep = asyncio.run(run_audit(ORIGINALS, SANITIZED, AuditConfig(judge="none"), db_path=tmp_path / "v.db"))
    assert rep["claims_source"] == "local" and rep["n_claims"] >= 12


def test_resume_after_interruption(tmp_path):
    cfg = AuditConfig(aux="first3", exclude_claims="name is", chunk_size=2)
    crashing = KeywordJudge(fail_on_call=2)
    with pytest.raises(RuntimeError, match="judge crashed"):
        _run(tmp_path, cfg, judge=crashing)
    assert crashing.calls == [[0, 1], [2, 3]]  # chunk 1 done, chunk 2 crashed
    again = KeywordJudge()
    rep = _run(tmp_path, cfg, judge=again)
    assert again.calls == [[2, 3]]  # the first chunk is not judged again
    assert len([r for r in rep["records"] if r["claims"]]) == 4
    fresh = KeywordJudge()
    ref = asyncio.run(run_audit(ORIGINALS, SANITIZED, cfg, claims=CLAIMS, db_path=tmp_path / "other.db", judge=fresh))
    assert rep["semantic_privacy"] == ref["semantic_privacy"]
    # finished: a third run returns the stored report without judging
    third = KeywordJudge()
    assert _run(tmp_path, cfg, judge=third)["cached"] is True and third.calls == []


def test_different_config_is_a_different_audit(tmp_path):
    a = _run(tmp_path, AuditConfig(seed=0, judge="none"))
    b = _run(tmp_path, AuditConfig(seed=1, judge="none"))
    assert a["audit_id"] != b["audit_id"]


def test_input_errors(tmp_path):
    from veil.errors import UserInputError

    with pytest.raises(UserInputError, match="aligned"):
        asyncio.run(run_audit(ORIGINALS, SANITIZED, AuditConfig(), claims=CLAIMS[:2], db_path=tmp_path / "v.db"))
    with pytest.raises(UserInputError, match="no original"):
        asyncio.run(run_audit([], SANITIZED, AuditConfig(), db_path=tmp_path / "v.db"))
    with pytest.raises(UserInputError, match="as many"):
        asyncio.run(run_audit(ORIGINALS, SANITIZED[:3], AuditConfig(), db_path=tmp_path / "v.db"))
    with pytest.raises(ValueError):
        AuditConfig(exclude_claims="(unclosed")


# -- LLM judge and atomizer over real HTTP -------------------------------------------------


def test_llm_judge_and_atomizer_against_scripted_endpoint(tmp_path):
    from veil.llm import LLMSettings
    from veil.testing.scripted_llm import ScriptedLLM, last_user_message, schema_name

    def responder(req):
        name = schema_name(req)
        if name == "AtomicClaims":
            text = last_user_message(req)
            body = text.split("<text>")[1].split("</text>")[0]
            return {"claims": [s.strip() for s in re.split(r"[.]| born | in ", body) if s.strip()]}
        if name == "ClaimRatings":
            listing = last_user_message(req).split("Claims:")[1]
            n = sum(1 for line in listing.splitlines() if line[:1].isdigit())
            return {"ratings": [{"claim_index": i, "evidence": "", "rating": 1 + i % 3} for i in range(n)]}
        raise AssertionError(f"unexpected schema {name!r}")

    with ScriptedLLM(responder) as server:
        settings = LLMSettings(base_url=server.base_url, model="scripted", max_retries=0)
        cfg = AuditConfig(judge="llm", atomizer="llm", aux="first3", chunk_size=2)
        rep = asyncio.run(run_audit(ORIGINALS, SANITIZED, cfg, llm=settings, db_path=tmp_path / "v.db"))
        atom_reqs, judge_reqs = server.requests_for("AtomicClaims"), server.requests_for("ClaimRatings")
    assert len(atom_reqs) == 4
    assert len(judge_reqs) == 3 * 4  # 3 votes per record, every claim rated in each
    assert all(r["temperature"] > 0 for r in judge_reqs)
    assert rep["claims_source"] == "llm" and rep["judge"]["name"] == "llm"
    for r in rep["records"]:
        assert r["claims"]
        for c in r["claims"]:
            assert len(c["votes"]) == 3
    assert rep["records"][0]["claims"][0]["rating"] == 1


# -- CLI -----------------------------------------------------------------------------------


def _write(path: Path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_cli_end_to_end_and_errors(tmp_path, capsys):
    from veil.cli import main

    data = _write(tmp_path / "data.jsonl", [{"text": o, "anon": s, "uid": f"u{i}"} for i, (o, s) in enumerate(zip(ORIGINALS, SANITIZED))])
    claims = _write(tmp_path / "claims.jsonl", CLAIMS)
    db = ["--db", str(tmp_path / "veil.db")]
    base = ["audit", "--original", str(data)]
    rc = main(base + ["--sanitized-field", "anon", "--id-field", "uid", "--claims", str(claims), "--judge", "none",
                      "--seeds", "0,1", "--exclude-claims", "name is", "-o", str(tmp_path / "r" / "audit.json")] + db)
    out = capsys.readouterr()
    assert rc == 0, out.err
    rep = json.loads((tmp_path / "r" / "audit.json").read_text())
    assert rep["seeds"] == [0, 1] and len(rep["runs"]) == 2 and rep["records"][0]["id"] == "u0"
    assert (tmp_path / "r" / "report.html").is_file() and "linkage_rate" in out.out

    short = _write(tmp_path / "short.jsonl", CLAIMS[:2])
    assert main(base + ["--sanitized-field", "anon", "--claims", str(short), "-o", str(tmp_path / "x.json")] + db) == 2
    assert "aligned" in capsys.readouterr().err

    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert main(["audit", "--original", str(empty), "--sanitized-field", "anon", "-o", str(tmp_path / "x.json")] + db) == 2
    assert "no records" in capsys.readouterr().err

    assert main(base + ["--sanitized", str(tmp_path / "nope.jsonl"), "-o", str(tmp_path / "x.json")] + db) == 2
    assert "no such file" in capsys.readouterr().err


def test_cli_missing_field_exits_2_without_traceback(tmp_path):
    data = _write(tmp_path / "data.jsonl", [{"text": o} for o in ORIGINALS])
    bad = subprocess.run(
        [sys.executable, "-m", "veil", "audit", "--original", str(data), "--sanitized-field", "missing",
         "-o", str(tmp_path / "x.json"), "--db", str(tmp_path / "veil.db")],
        capture_output=True, text=True, timeout=60,
    )
    assert bad.returncode == 2 and "no field 'missing'" in bad.stderr and "Traceback" not in bad.stderr


# -- MiniLM (slow) -------------------------------------------------------------------------


@pytest.mark.slow
def test_dense_linker_and_local_judge(tmp_path):
    from veil.agents.local.judge import LocalJudge
    from veil.evals.linking import DenseLinker

    docs, _ = DenseLinker(ORIGINALS).link(_queries())
    assert docs[:, 0].tolist() == [0, 1, 2, 3]
    judge = LocalJudge()
    judge.prepare(ORIGINALS)
    verdicts = asyncio.run(judge.judge([(CLAIMS[0], 0)]))[0]
    assert all(v["rating"] == 1 for v in verdicts[1:])  # the original states every claim
    judge.prepare(SANITIZED)
    v2 = asyncio.run(judge.judge([(["The person was born in Malmo", "The person is a violinist"], 0)]))[0]
    assert v2[0]["rating"] > 1 and v2[0]["rating"] >= v2[1]["rating"]  # the city is gone
    rep = _run(tmp_path, AuditConfig(linker="dense", judge="local", exclude_claims="name is"))
    assert rep["linkage_rate"] == 1.0 and rep["judge"]["name"] == "local"
