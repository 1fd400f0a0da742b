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
identifiers survived, in 5 documents. The fourth twelve (``heldout4-*``: a job application, an extension request,
a neighbourhood chat, a GP referral, a scholarship essay, a retirement speech, a care-home incident log, a
performance review, a crowdfunding appeal, a jury-duty deferral, a genealogy post, a tax adviser's e-mail) came
last: at f916588, 7 of their 155 marked identifiers survived whole or in part, in 6 documents, and words of the
wrong kind stood in for others ("type a couple of diabetes", "metformin 1 organization", a dog "walked" as "a
city"). The fifth twelve (``heldout5-*``: a report card, a mortgage note, a pharmacy incident, a disciplinary
letter, an airline complaint, a dental recall, a crime brief, an alumni profile, an exit interview, a social
worker's visit, a wedding speech, a probate letter): at 1089918, 5 of their 153 marked identifiers survived (a
pupil's number, a booking reference, a patent, a postcode, an account's last digits), in 5 documents, and a child
named Mason "was playing with a toy truck" as "A city"."""


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

# the seventh set's (the twenty-third session), all quasi-identifiers its writer marked: an occupation, an age,
# plot numbers, a tenure, a ward, a landmark, a date written "10/24" before its noun, and "parole check-in". The
# third set's three were found in the twenty-first session.
KNOWN_MISSES: set[tuple[str, str]] = {
    ("heldout7-nanny-handover", "perfusionist"),
    ("heldout7-customer-service-chat", "81"), ("heldout7-birth-announcement", "ward 3B"),
    ("heldout7-allotment-dispute", "Plot 17"), ("heldout7-allotment-dispute", "Plot 18"),
    ("heldout7-allotment-dispute", "31 years"), ("heldout7-boat-sale-listing", "old bait shop"),
    ("heldout7-slack-thread", "10/24"), ("heldout7-slack-thread", "parole check-in"),
}


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
        assert res.privacy_status == "unverified", (rec["id"], res.privacy_status)
        assert out.strip() != rec["text"].strip(), rec["id"]
        missed += [(rec["id"], i) for i in rec["identifiers"] if i in out]
        broken += [(rec["id"], s) for s, _ in nlp.check_text(out, rec["text"])]
        untrue += [(rec["id"], w) for w in check(rec["text"], out).violations]
    assert set(missed) <= KNOWN_MISSES, missed
    assert not untrue, untrue
    # the parse check's known eleven, most a form's, a header's or a chat's line: "Attending: Person B, a hospital,
    # [address]", "Person B, the playground supervisor, administered first aid.", "Alumni ID for the reunion RSVP:
    # [id].", "ID: [id]", "Start date: the 2010s", "Room 6 – Person D, DOB the 1940s, MRN [id]" (the parser gave the
    # original a verb); the seventh set's "To: Research Ethics Sub-Committee <[email]>", "ORDERED this 12th day of the
    # 2020s.", "WELCOME TO THE WORLD, Person A!", "Follow-up: Callback scheduled, 6:00 p.m.", "[id] | in the 2020s"
    assert len(broken) <= 11, broken


def test_a_document_the_attacker_cannot_place_still_gets_the_policy():
    # iteration 0 met the targets (no name, nothing direct) and the original came back unchanged, with a note
    # saying that the generalization policy had been applied
    (res,) = _run([("d", "I was born in 1951 in Rutland.")])
    assert "1951" not in res.anonymized_text and "the 1950s" in res.anonymized_text
    assert res.privacy_status == "unverified" and res.iterations >= 1


def test_a_nickname_a_name_field_a_postcode_and_a_number_label():
    # the third held-out set's misses, and the damage around them: "Eli first played" after
    # 'Elijah "Eli" Farnsworth'; 'Patient: "Biscuit"' (a pet's everyday word); "Manitoba R6M 1A2" (the
    # province went to the place before it and the postcode stayed); "or phone Ruth-Anne" read "or a phone";
    # "Account no. [id]." split after "no." and its placeholder sentence deleted ("Account no. Estimate")
    church, vet = _run([
        ("c", 'Congratulations to Brother Elijah "Eli" Farnsworth, our organist since 1973. Eli first played for us '
              "aged sixteen. Cards can be mailed to 1187 Prairie Rose Road, Morden, Manitoba R6M 1A2, or phone "
              "Ruth-Anne at 204-822-4417."),
        ("v", 'Patient: "Biscuit", 9-year-old neutered male sheepdog. Biscuit won Best of Breed at Crufts in 2019. '
              "Account no. VET-30417. Estimate £3,200."),
    ])
    out = church.anonymized_text
    assert "Eli " not in out and "Farnsworth" not in out and "R6M" not in out and "1A2" not in out, out
    assert "a phone" not in out and "Ruth-Anne" not in out and "4417" not in out, out
    out = vet.anonymized_text
    assert "Biscuit" not in out and "VET-30417" not in out and "Account no. [id]." in out, out
