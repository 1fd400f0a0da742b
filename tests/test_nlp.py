"""The one parse of veil (:mod:`veil.nlp`): its indexed attribute ruler writes exactly what
spaCy's own ``attribute_ruler`` of the model writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import spacy

from veil import nlp

DATA = Path(__file__).parent / "data" / "single_documents.jsonl"

# sentences that reach the ruler's rarer rules: contractions and dialect spellings (regexes),
# "there is" (an expletive), "that" as a relative pronoun, "but" as an adverb, pronoun lemmas,
# modal "'d", "nothin'", a run of spaces, determiners whose dependency is not "det", a quantity
SENTENCES = [
    "I don't know, and she can't say; they won't come, y'know.",
    "There is nothin' here, but there are two dogs that bark all night.",
    "He'd have gone if we had asked him, but he only left at 6 pm.",
    "All of them were there: himself, herself, ourselves and yourselves.",
    "It was the one that she liked,  which   he bought for $5,000 in 1998.",
    "Something happened to everyone; nobody knew whether anything would change.",
    "Those are hers, these are ours and that is theirs.",
    "y'all gotta see this, it ain't nothin but fun!!",
    "Dr. Smith is to be promoted; she must, should and will be.",
    "What a day   \n\n  it was.  Both of these were all gone.",
]


def _texts() -> list[str]:
    return SENTENCES + [json.loads(line)["text"] for line in DATA.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def spacy_ruler():
    return spacy.load(nlp.MODEL).get_pipe("attribute_ruler")


def test_the_model_runs_the_indexed_ruler():
    assert isinstance(dict(nlp.nlp().pipeline)["attribute_ruler"], nlp.IndexedAttributeRuler)


def test_the_indexed_ruler_writes_what_spacys_ruler_writes(spacy_ruler):
    model = nlp.nlp()
    ours = dict(model.pipeline)["attribute_ruler"]
    before = ["tok2vec", "tagger", "veil_boundaries", "parser"]
    checked = 0
    for text in _texts():
        # the same tagged and parsed doc, twice: one through each ruler
        a = model(text, disable=[n for n in model.pipe_names if n not in before])
        b = model(text, disable=[n for n in model.pipe_names if n not in before])
        ours(a)
        spacy_ruler(b)
        got = [(t.text, t.tag_, t.pos_, str(t.morph), t.lemma_, t.dep_, t.head.i) for t in a]
        want = [(t.text, t.tag_, t.pos_, str(t.morph), t.lemma_, t.dep_, t.head.i) for t in b]
        assert got == want, text
        checked += len(a)
    assert checked > 1000
    # the rare rules were reached: a regex rule, a NOT_IN rule and a two-token rule
    assert any(t.lemma_ == "not" and t.text.lower() in ("n't", "nt") for t in model("I can't go."))


def test_a_rule_set_the_index_cannot_read_keeps_spacys_ruler(spacy_ruler):
    class Other:
        patterns = [{"patterns": [[{"TAG": "NN", "OP": "+"}]], "attrs": {"POS": "NOUN"}, "index": 0}]
        vocab = spacy_ruler.vocab

    assert nlp.IndexedAttributeRuler.of(Other()) is None
    Other.patterns = [{"patterns": [[{"TAG": "NN"}]], "attrs": {"POS": "NOUN"}, "index": 1}]  # outside its pattern
    assert nlp.IndexedAttributeRuler.of(Other()) is None
    assert nlp.IndexedAttributeRuler.of(spacy_ruler) is not None


def test_veils_id_placeholder_is_one_word_to_the_parse():
    # spaCy's exceptions split "id" as "I'd": "Claim reference [id]." failed the check for "'i' before 'd'"
    doc = nlp.parse("Mediation session 2 of 3, case [id], held at a centre. Claim reference [id].")
    assert [t.text for t in doc if t.text in ("i", "d")] == []
    assert "id" in [t.text for t in doc]
    assert not [r for _, r in nlp.check_text("Claim reference [id].", "Claim reference RL-2291.") if "'d'" in r or "'i'" in r]
