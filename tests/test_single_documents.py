"""Single documents through the whole anonymize graph, as `veil anonymize FILE` and the chat API get
them (not the optimizer alone): held-out sets of everyday texts written for this project by two sessions
that had not seen the code's rules, with their direct identifiers marked. The first twelve (a forum post, a
clinical note, a cover letter, an e-mail to a landlord, a local figure's biography, a Reddit comment, a
police report, a support chat, an obituary, an admission essay, a profile, a court excerpt) were fixed
against; the second fourteen (``heldout2-*``: a reference letter, a discharge summary, a tenant's complaint,
a review, a school incident, an HR note, a dating profile, a wedding announcement, a speaker's bio, a therapy
note, a travel blog, a lost-dog post, a bank dispute, a witness statement) were read after them, and the third
twelve (``heldout3-*``: an insurance claim, a refill request, a sign-up form, a church newsletter, a parent's
e-mail, a delivery complaint, a gym cancellation, an immigration letter, a class note, a veterinary record, a
match report, a mediation note) after those: at 4c41348, before any fix from them, 8 of their 144 marked
identifiers survived, in 5 documents."""


from __future__ import annotations

import asyncio
import json
from pathlib import Path

from veil import nlp
from veil.anonymizer import Anonymizer
from veil.documents import Document
from veil.evals.truthfulness import check

HELDOUT = [json.loads(line) for line in (Path(__file__).parent / "data" / "single_documents_heldout.jsonl")
           .read_text().splitlines() if line.strip()]

# known misses of the third set (issue 8's notes): a nickname alone that opens its sentences ("Eli first played"),
# a Canadian postcode after its province ("Manitoba R6M 1A2"), a pet's quoted name after "Patient:"
KNOWN_MISSES = {("heldout3-church-newsletter-item", "Eli"), ("heldout3-church-newsletter-item", "R6M 1A2"),
                ("heldout3-veterinary-record", "Biscuit")}


def _run(texts: list[tuple[str, str]]):
    async def go():
        async with Anonymizer("local", db_path=None) as anon:
            return [await anon.anonymize(Document(id=i, text=t)) for i, t in texts]

    return asyncio.run(go())


def test_held_out_documents_lose_their_direct_identifiers_and_read_true():
    results = _run([(r["id"], r["text"]) for r in HELDOUT])
    missed, broken, untrue = [], [], []
    for rec, res in zip(HELDOUT, results):
        out = res.anonymized_text or ""
        assert res.status == "done", res.error
        # no population to attack with: never "protected"; and the policy ran (no original handed back)
        # (re-identified where a known miss is a name still written)
        assert res.privacy_status in ("unverified", "re-identified"), (rec["id"], res.privacy_status)
        assert out.strip() != rec["text"].strip(), rec["id"]
        missed += [(rec["id"], i) for i in rec["identifiers"] if i in out]
        broken += [(rec["id"], s) for s, _ in nlp.check_text(out, rec["text"])]
        untrue += [(rec["id"], w) for w in check(rec["text"], out).violations]
    assert set(missed) <= KNOWN_MISSES, missed
    assert not untrue, untrue
    # the parse check's known six: a chat line ("[10:03] Agent (Person A):"), a header's lines read as one
    # sentence, "Insta: [id] — or text me on [phone].", "Person C, the playground supervisor, administered first
    # aid.", "Claim reference [id].", "Mediation session 2 of 3, case [id], held at Leith Community Centre."
    assert len(broken) <= 6, broken


def test_a_document_the_attacker_cannot_place_still_gets_the_policy():
    # iteration 0 met the targets (no name, nothing direct) and the original came back unchanged, with a note
    # saying that the generalization policy had been applied
    (res,) = _run([("d", "I was born in 1951 in Rutland.")])
    assert "1951" not in res.anonymized_text and "the 1950s" in res.anonymized_text
    assert res.privacy_status == "unverified" and res.iterations >= 1
