"""Issue 12: no certificate without a capable attacker. Over the scripted endpoint: literal
identifiers decide before the model, the attacker is calibrated on the original, degenerate
optimizer answers are rejected with a recorded reason; plus the guards on what a model writes
(issue 9), as functions."""

from __future__ import annotations

import pytest

from tests.conftest import AgentScript, anonymize_docs, iterations, identity_answer, optimizer_answer, utility_answer
from veil.agents import literal
from veil.agents.guards import invented_numbers, new_entities, optimizer_answer_problem
from veil.documents import Document
from veil.graphs.anonymize import AnonymizeConfig


def never_names_anybody(text: str):
    return identity_answer("Jacques Toto", "Brugnon Somebody")


# -- literal identifiers decide first ----------------------------------------------------------


async def test_a_text_that_still_names_the_person_is_re_identified(scripted_llm, bios, db_path):
    bio = bios["fishback"]
    llm = scripted_llm(AgentScript(identity=never_names_anybody))
    [result], _ = await anonymize_docs(llm, [bio.document()], db_path, AnonymizeConfig(max_iterations=0))
    assert result.privacy_score == 1 and not result.privacy_target_met
    assert result.privacy_status == "re-identified"
    [it] = iterations(db_path, result.run_id)
    assert it["clues"][0] == "the name is still written in the text"


async def test_the_name_is_removed_deterministically_and_never_certified(scripted_llm, bios, db_path):
    """The attacker never names the person and the model's answers keep the name: the name
    goes anyway, and since this attacker could not re-identify the original either, the run
    is unverified, not protected."""
    bio = bios["fishback"]
    surname_kept = lambda t: optimizer_answer(t.replace("1933", "the 1930s") + " Fishback smiled.")  # noqa: E731
    llm = scripted_llm(AgentScript(identity=never_names_anybody, optimizer=surname_kept))
    [result], _ = await anonymize_docs(llm, [bio.document()], db_path, AnonymizeConfig(max_iterations=3))
    assert "Fishback" not in result.anonymized_text and "Kurt" not in result.anonymized_text
    assert result.anonymized_text.startswith("This person (born the 1930s")  # the sentence says "photographer"
    assert result.privacy_status == "unverified"
    assert result.original_privacy_score == 11
    assert "could not re-identify the original" in result.privacy_note
    assert "stronger attack model" in result.privacy_note
    # the model never saw the name: it was replaced before the prompt was written
    assert not any("Fishback" in r["messages"][-1]["content"] for r in llm.requests_for("OptimizerAnswer"))
    its = iterations(db_path, result.run_id)
    assert its[0]["privacy_score"] == 1 and all(it["privacy_score"] == 11 for it in its[1:])
    ops = [e for e in its[1]["edits"] if e["reason"] == "the subject's name is a literal identifier"]
    assert ops and ops[0]["after"] == "This person" and ops[1]["after"] == "The photographer"


async def test_protected_needs_an_attacker_that_found_the_original(scripted_llm, bios, db_path):
    bio = bios["okafor"]

    def identity(text):  # a capable attacker: finds her while the medal is named
        return identity_answer(bio.name) if bio.marker in text else identity_answer("Somebody Else")

    llm = scripted_llm(AgentScript(
        identity=identity,
        optimizer=lambda t: optimizer_answer(t.replace("the Hartley Medal", "an award")),
    ))
    [result], _ = await anonymize_docs(llm, [bio.document()], db_path, AnonymizeConfig(max_iterations=3))
    assert result.privacy_status == "protected"
    assert result.privacy_note is None
    assert result.original_privacy_score == 1
    assert bio.name not in result.anonymized_text and "Okafor" not in result.anonymized_text


async def test_an_attacker_that_cannot_identify_the_original_gives_unverified(scripted_llm, bios, db_path):
    bio = bios["duarte"]
    unnamed = bio.text.replace("Inês Duarte", "She")  # nothing literal: only the attacker could tell
    llm = scripted_llm(AgentScript(identity=never_names_anybody))
    [result], _ = await anonymize_docs(llm, [bio.document(text=unnamed)], db_path)
    assert result.privacy_target_met  # the rank is past p_max...
    assert result.privacy_status == "unverified"  # ...but that certifies nothing
    assert result.output_fields()["privacy_note"].startswith("the attacker could not re-identify the original")


async def test_attribute_values_still_written_decide_first(scripted_llm, db_path):
    doc = Document(id="a1", text="Back from my shift at the bakery in Lyon, my feet hurt.",
                   attributes={"location": "Lyon, France", "occupation": "nurse"})

    def attributes(text):  # an attacker that never gets the location right
        return {"attributes": [{"attribute": "location", "guesses": ["Paris, France"], "clues": []},
                               {"attribute": "occupation", "guesses": ["baker"], "clues": []}]}

    llm = scripted_llm(AgentScript(attributes=attributes,
                                   optimizer=lambda t: optimizer_answer(t.replace("at the bakery ", ""))))
    [result], _ = await anonymize_docs(llm, [doc], db_path, AnonymizeConfig(profile="attributes", max_iterations=2))
    its = iterations(db_path, result.run_id)
    assert its[0]["privacy_score"] == 1  # "Lyon" is written: rank 1 whatever the guesses
    assert "location still written in the text: Lyon" in its[0]["clues"]
    # the model's answer kept "Lyon": it is replaced after the answer
    assert "Lyon" not in result.anonymized_text and "[location]" in result.anonymized_text
    assert result.privacy_score == 4


# -- degenerate optimizer answers --------------------------------------------------------------


async def test_a_template_echo_is_rejected_and_the_best_version_kept(scripted_llm, bios, db_path):
    bio = bios["lindqvist"]
    unnamed = bio.text.replace("Mårten Lindqvist", "He")
    echo = "The improved version of the original text is: {json_string}."
    llm = scripted_llm(AgentScript(
        identity=lambda t: identity_answer(bio.name) if "Örebro" in t else identity_answer("Somebody Else"),
        optimizer=lambda t: optimizer_answer(echo),
    ))
    [result], _ = await anonymize_docs(llm, [bio.document(text=unnamed)], db_path, AnonymizeConfig(max_iterations=3))
    assert result.stop_reason == "rejected"
    assert result.rejections == [{"iteration": 1, "mode": "privacy",
                                  "reason": "echoes the prompt template or its instructions"}]
    assert [r["temperature"] for r in llm.requests_for("OptimizerAnswer")] == [0.0, 0.8]  # retried once, hotter
    assert result.anonymized_text == unnamed  # nothing else exists
    assert result.privacy_status == "re-identified"  # never "target met" on an echo


async def test_a_copy_of_the_original_that_undoes_edits_is_rejected(scripted_llm, bios, db_path):
    bio = bios["fishback"]
    first_two = bio.text.split(". ")[0] + "."  # what SmolLM2 wrote for "Brugnon": the original, name kept
    llm = scripted_llm(AgentScript(identity=never_names_anybody, optimizer=lambda t: optimizer_answer(first_two)))
    [result], _ = await anonymize_docs(llm, [bio.document()], db_path, AnonymizeConfig(max_iterations=2))
    assert [r["reason"] for r in result.rejections][0] == "a copy of the original's wording that undoes earlier edits"
    assert bio.name not in result.anonymized_text
    assert result.privacy_status != "protected"


# -- the guards, as functions ------------------------------------------------------------------

ORIGINAL = ("Kurt Edward Fishback (born 1933 in Sacramento, California) is an American photographer. He taught "
            "at Sacramento City College for thirty years and won the 1984 Gold Lens award with 212 portraits.")


@pytest.mark.parametrize(
    ("answer", "mode", "reason"),
    [
        ("", "privacy", "empty answer"),
        ("Here is the improved version: {text}", "privacy", "echoes the prompt template"),
        ('{"text": "x", "edits": []}', "privacy", "echoes the prompt template"),
        (ORIGINAL + " " + ORIGINAL[:200], "privacy", "more than 1.3x the input's length"),
        ("He was a photographer.", "utility", "drops more than 80% of the text in utility mode"),
        (ORIGINAL, "privacy", "a copy of its input with no edit"),
        ("Le photographe est né en Californie dans les années trente et il a enseigné la photographie "
         "pendant trente ans à une école de la ville.", "privacy", "not in the original's language"),
        (ORIGINAL.replace("Sacramento City College", "Stanford University"), "privacy", "named entit"),
        (ORIGINAL.replace("born 1933", "born 1955"), "privacy", "1 number the original does not support"),
        ("<pre>{", "privacy", "markup or JSON fragments"),  # what SmolLM2 wrote, then "protected"
        (ORIGINAL[:150] + " The original text was:\n<original>\n", "privacy", "echoes the prompt"),
        ("He taught photography.", "privacy", "fewer than 5 words"),
    ],
    ids=["empty", "echo", "json-echo", "too-long", "utility-drop", "no-edit", "french", "new-org", "new-year",
         "markup", "original-echo", "too-short"],
)
def test_guards_reject(answer, mode, reason):
    problem = optimizer_answer_problem(answer, given=ORIGINAL, original=ORIGINAL, mode=mode)
    assert problem is not None and reason in problem


@pytest.mark.parametrize(
    "answer",
    [
        ORIGINAL.replace("Sacramento, California", "California"),
        ORIGINAL.replace("in Sacramento, California", "in the United States"),
        ORIGINAL.replace("born 1933", "born in the 1930s").replace("1984", "the 1980s"),
        ORIGINAL.replace("with 212 portraits", "with over 200 portraits"),
        ORIGINAL.replace("an American", "a North American"),
        ORIGINAL.replace("Sacramento City College", "a Californian college"),
        "He is a photographer who taught at a college for thirty years and won an award.",
    ],
    ids=["region", "country", "decades", "rounding", "continent-adjective", "demonym", "deletions"],
)
def test_guards_accept_truthful_generalization(answer):
    assert optimizer_answer_problem(answer, given=ORIGINAL, original=ORIGINAL, mode="privacy") is None


def test_utility_mode_may_keep_the_text():
    assert optimizer_answer_problem(ORIGINAL, given=ORIGINAL, original=ORIGINAL, mode="utility") is None


def test_repeated_edit_items_are_degenerate():
    edits = [{"before": "a", "after": "b", "operation": "delete", "reason": "r"}] * 6
    problem = optimizer_answer_problem(ORIGINAL.replace("1984 ", ""), given=ORIGINAL, original=ORIGINAL,
                                       mode="privacy", answer={"edits": edits})
    assert problem == "repeated edit items (6 items, 1 distinct)"


def test_new_entities_and_numbers_directly():
    assert new_entities("He moved to Denver.", "He lived in Sacramento.") == ["GPE"]
    assert new_entities("He lived in California.", "He lived in Sacramento.") == []
    assert invented_numbers("in the 20th century, the 1930s", "born 1933") == 0
    assert invented_numbers("born 1950", "born 1933") == 1


def test_literal_scrub_keeps_the_sentence_readable():
    text = "Mr. Fishback taught. Kurt E. Fishback won; Fishback's work lasted. Kurtz is someone else."
    new, edits = literal.scrub(text, "Kurt Edward Fishback", label="photographer")
    assert new == "The photographer taught. The photographer won; the photographer's work lasted. Kurtz is someone else."
    assert len(edits) == 3
    assert literal.scrub("nothing here", "Kurt Fishback") == ("nothing here", [])
    # a lowercase common word is not a name
    assert literal.find("The rose garden.", "Rose Young") == []
    # middle names and a quoted nickname the known name lacks are part of the one mention (the
    # llama.cpp run wrote "The tennis player Dan the tennis player" for "Ross Dan Hutchins")
    assert literal.scrub("Ross Dan Hutchins (born 1985) is a tennis player. Hutchins and Ken Skupski won.",
                         "Ross Hutchins", label="Tennis Player")[0] == \
        "This person (born 1985) is a tennis player. The tennis player and Ken Skupski won."
    assert literal.scrub('Jacques \\"Toto\\" Brugnon and Henri Cochet, Lawrence Strother Trimble and Brugnon.',
                         "Jacques Brugnon", label="tennis player")[0] == \
        "The tennis player and Henri Cochet, Lawrence Strother Trimble and the tennis player."
    assert literal.scrub("Chef Clyde Serda (born 1952) is a chef.", "Clyde Serda", label="chef")[0] == \
        "This person (born 1952) is a chef."  # never "The chef ... is a chef"
