"""``veil eval --attacker llm``: RUPTA's SR, CS and the LLM linking attack, against the scripted
OpenAI-compatible server (real HTTP, the real client). The scripted attacker is exact: it
chooses the candidate whose name (SR) or facts (link) the text writes, else candidate 1, and is
100 confident when the text writes the name, else 5; so every figure below is known in advance."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import llm_settings
from veil.evals.llm_attack import N_FACTS, candidate_names, link_candidates, llm_attack_metrics
from veil.llm import LLMClient
from veil.testing.scripted_llm import Fault, last_user_message, schema_name

# fictional people: 7 chefs and 5 painters; every claim but the name names the person's town
TOWNS = ["Arnvik", "Belmora", "Cazzeno", "Dravoth", "Elskar", "Fintorre", "Gorvale", "Hallweir", "Istrano",
         "Jorvend", "Kalmiro", "Lunetta"]
NAMES = [f"{first} {last}" for first, last in zip(
    ["Ada", "Bruno", "Cora", "Dario", "Edda", "Fabio", "Greta", "Hugo", "Ines", "Jonas", "Kira", "Luca"],
    ["Moravec", "Nystrom", "Oyelaran", "Pellegrini", "Quast", "Rautio", "Salvesen", "Tiberi", "Uhlig", "Varga",
     "Wendt", "Yilmaz"])]
LABELS = ["chef"] * 7 + ["painter"] * 5
DECOYS = [f"Decoy Person{k}" for k in range(9)]


def record(i: int) -> dict[str, Any]:
    # the truth sits at position i % 10 + 1 of its candidate list (1-based)
    cands = DECOYS[:]
    cands.insert(i % 10, NAMES[i])
    return {
        "text": f"{NAMES[i]} is a {LABELS[i]} from {TOWNS[i]}.",
        "blank": f"Record {i}: the person works as a {LABELS[i]}.",
        "name": NAMES[i],
        "label": LABELS[i],
        "candidate_list": ", ".join(cands),
    }


def claims(i: int) -> list[str]:
    t = TOWNS[i]
    return [f"The person's name is {NAMES[i]}", f"The person was born in {t}", f"The person worked in {t}",
            f"The person studied near {t}", f"The person retired to {t}", f"The person exhibited in {t}"]


RECORDS = [record(i) for i in range(len(NAMES))]
CLAIMS = [claims(i) for i in range(len(NAMES))]
_TEXT = re.compile(r"<text>\n(.*?)\n</text>", re.S)
_ITEM = re.compile(r"^(\d+)\. (.*)$", re.M)


def options(request: dict[str, Any]) -> list[tuple[int, str]]:
    return [(int(n), item) for n, item in _ITEM.findall(last_user_message(request).split("</text>", 1)[1])]


def attacker(request: dict[str, Any]) -> dict[str, Any] | Fault:
    prompt = last_user_message(request)
    text = _TEXT.search(prompt).group(1)
    if schema_name(request) == "LinkConfidence":
        name = re.search(r"this text is about (.+?)\?", prompt).group(1)
        return {"confidence": 100 if name in text else 5}
    assert schema_name(request) == "CandidateChoice"
    for n, item in options(request):
        if "; " in item or "The person" in item:  # the link: a candidate known by its facts
            if any(t in item and t in text for t in TOWNS):
                return {"candidate": n}
        elif item in text:  # SR: a candidate name
            return {"candidate": n}
    return {"candidate": 1}


async def metrics(server, field: str, **kw) -> dict[str, Any]:
    client = LLMClient(llm_settings(server))
    try:
        return await llm_attack_metrics(
            client, [r[field] for r in RECORDS], names=NAMES, candidate_lists=[r["candidate_list"] for r in RECORDS],
            claims=CLAIMS, labels=LABELS, **kw)
    finally:
        await client.aclose()


def test_candidate_names_keep_suffixes_and_lists():
    assert candidate_names("Bob Baffert, Bennie L. Woolley, Jr., Bill Mott") == [
        "Bob Baffert", "Bennie L. Woolley, Jr.", "Bill Mott"]
    assert candidate_names(["A B", " C D "]) == ["A B", "C D"]


def test_link_candidates_are_the_record_and_same_label_records_first():
    for i in range(len(NAMES)):
        chosen, n_same = link_candidates(i, LABELS, seed=0)
        assert len(chosen) == 10 and len(set(chosen)) == 10 and i in chosen
        assert n_same == LABELS.count(LABELS[i])  # 7 chefs / 5 painters: every one of the label...
        assert sum(LABELS[j] == LABELS[i] for j in chosen) == n_same  # ...then other labels fill the list
    assert link_candidates(3, LABELS, seed=0) == link_candidates(3, LABELS, seed=0)
    assert link_candidates(3, LABELS, seed=0)[0] != link_candidates(3, LABELS, seed=1)[0]


async def test_originals_are_found_and_blank_texts_are_not(scripted_llm):
    server = scripted_llm(attacker)
    orig = await metrics(server, "text")
    assert orig["success_rate"] == 1.0 and orig["confidence_score"] == 100.0 and orig["llm_link"] == 1.0
    assert orig["answered"] == {"success_rate": 12, "confidence_score": 12, "llm_link": 12}
    assert orig["failed"] == {"success_rate": 0, "confidence_score": 0, "llm_link": 0}
    assert orig["same_label_candidates"] == pytest.approx((7 * 7 + 5 * 5) / 12)
    assert orig["usage"]["calls"] == 36 and orig["usage"]["prompt_tokens"] > 0

    server.requests.clear()
    blank = await metrics(server, "blank")
    # the attacker falls back to candidate 1: SR = records whose truth is listed first (0 and 10)
    assert blank["success_rate"] == pytest.approx(2 / 12)
    assert blank["confidence_score"] == 5.0
    links = [r for r in server.requests if "Candidates, each with" in last_user_message(r)]
    assert len(links) == 12
    first_is_truth = 0
    for req in links:
        listed = options(req)
        assert [n for n, _ in listed] == list(range(1, 11))
        for _, item in listed:  # 4 facts a candidate, never the name claim
            facts = item.split("; ")
            assert len(facts) == N_FACTS and not any("name is" in f for f in facts)
    for i in range(12):  # which shown candidate was the truth, read back from the prompt
        req = next(r for r in links if _TEXT.search(last_user_message(r)).group(1) == RECORDS[i]["blank"]
                   and TOWNS[i] in last_user_message(r))
        first_is_truth += TOWNS[i] in options(req)[0][1]
    assert blank["llm_link"] == pytest.approx(first_is_truth / 12)
    # bounded answers: a number capped at the list's length, a few tokens
    for req in server.requests:
        schema = (req.get("response_format") or {}).get("json_schema", {}).get("schema", {})
        assert req["max_tokens"] == 16
        if schema_name(req) == "CandidateChoice":
            assert schema["properties"]["candidate"]["maximum"] == 10


async def test_failed_calls_are_left_out_and_counted(scripted_llm):
    def flaky(request):
        text = _TEXT.search(last_user_message(request)).group(1)
        if text.startswith(NAMES[0]) and schema_name(request) == "LinkConfidence":
            return Fault(status=500)  # the endpoint keeps failing for this call
        if text.startswith(NAMES[1]) and "Which of these people" in last_user_message(request):
            return {"candidate": 42}  # out of range: rejected, retried, rejected again
        return attacker(request)

    server = scripted_llm(flaky)
    m = await metrics(server, "text", records=range(4))
    assert m["records"] == 4
    assert m["answered"] == {"success_rate": 3, "confidence_score": 3, "llm_link": 4}
    assert m["failed"] == {"success_rate": 1, "confidence_score": 1, "llm_link": 0}
    assert m["errors"] == {"llm_unavailable": 1, "llm_rejected_output": 1}
    assert m["success_rate"] == 1.0 and m["confidence_score"] == 100.0 and m["llm_link"] == 1.0


async def test_every_call_failing_raises(scripted_llm):
    from veil.errors import LLMUnavailableError

    server = scripted_llm(lambda request: Fault(status=503))
    with pytest.raises(LLMUnavailableError, match="HTTP 503"):
        await metrics(server, "text", records=range(1))


@pytest.mark.slow
def test_eval_cli_reports_the_llm_metrics_beside_link_at_rand3(scripted_llm, tmp_path: Path, capsys) -> None:
    from veil.cli import main

    server = scripted_llm(attacker)
    data, claims_file, out = tmp_path / "d.jsonl", tmp_path / "c.jsonl", tmp_path / "m.json"
    data.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    claims_file.write_text("".join(json.dumps(c) + "\n" for c in CLAIMS), encoding="utf-8")
    rc = main(["eval", str(data), "--sanitized-field", "text", "--sanitized-field", "blank", "--label-field", "label",
               "--claims", str(claims_file), "--attacker", "llm", "--name-field", "name", "--base-url",
               server.base_url, "--model", "m", "--api-key", "k", "--llm-records", "10", "-o", str(out)])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert "SR (LLM" in captured.out and "LLM link" in captured.out
    assert "LLM attacker (m) on text: 10 records, answered success_rate 10, confidence_score 10, llm_link 10" \
        in captured.out
    report = json.loads(out.read_text(encoding="utf-8"))["metrics"]
    assert report["text"]["link@rand3"] == 1.0
    assert (report["text"]["success_rate"], report["text"]["confidence_score"], report["text"]["llm_link"]) == (
        1.0, 100.0, 1.0)
    assert report["blank"]["success_rate"] == pytest.approx(1 / 10)  # record 0 only: truth listed first
    assert report["blank"]["confidence_score"] == 5.0
    assert report["blank"]["llm_attack"]["records"] == 10


def test_eval_cli_llm_attacker_needs_its_inputs(tmp_path: Path, capsys) -> None:
    from veil.cli import main

    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    assert main(["eval", str(data), "--sanitized-field", "text", "--attacker", "llm"]) == 2
    assert "--name-field" in capsys.readouterr().err


@pytest.mark.realllm
async def test_llm_attacker_over_llama_cpp(llama_server):
    """Mechanics only against SmolLM2-135M: every call answers a valid number in bounded time."""
    import time

    client = LLMClient(llama_server.settings())
    t0 = time.monotonic()
    try:
        m = await llm_attack_metrics(
            client, [r["text"] for r in RECORDS], names=NAMES, candidate_lists=[r["candidate_list"] for r in RECORDS],
            claims=CLAIMS, labels=LABELS, records=range(2))
    finally:
        await client.aclose()
    seconds = time.monotonic() - t0
    assert seconds < 300  # 6 short calls, one at a time on a shared 2-core CPU
    assert m["answered"] == {"success_rate": 2, "confidence_score": 2, "llm_link": 2}, m
    assert m["success_rate"] in (0.0, 0.5, 1.0) and m["llm_link"] in (0.0, 0.5, 1.0)
    assert 0.0 <= m["confidence_score"] <= 100.0
    assert m["usage"]["calls"] >= 6 and m["usage"]["prompt_tokens"] > 0 and m["usage"]["completion_tokens"] > 0
