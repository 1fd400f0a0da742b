"""Truthful generalization ladders, pseudonyms and the substitution grammar."""

from __future__ import annotations

import json
import pickle

import pytest

from veil.agents.local.generalize import GeneralizeContext, PseudonymTable, apply, article_for, candidates
from veil.agents.local.spans import Span, find_spans


def one(text: str, frag: str, type_: str | None = None) -> Span:
    for s in find_spans(text):
        if s.text == frag and (type_ is None or s.type == type_):
            return s
    raise AssertionError(f"{frag!r} not found in {[(s.text, s.type) for s in find_spans(text)]}")


def ladder(text: str, frag: str, ctx: GeneralizeContext | None = None) -> list[str]:
    return candidates(one(text, frag), ctx=ctx)


# -- dates ---------------------------------------------------------------------------------
def test_full_date_ladder():
    assert ladder("She married him 3 May 1961 in a village.", "3 May 1961")[:6] == [
        "May 1961", "1961", "the early 1960s", "the 1960s", "the mid-20th century", "the 20th century"]


def test_year_ladder_and_preposition():
    text = "In 1942 he moved."
    assert ladder(text, "1942") == ["the early 1940s", "the 1940s", "the mid-20th century", "the 20th century"]
    s = one(text, "1942")
    assert apply(text, [(s, candidates(s)[0])]) == "In the early 1940s he moved."


def test_on_date_becomes_in_month():
    text = "He died on December 20, 1977 at home."
    s = one(text, "on December 20, 1977")
    assert candidates(s)[:2] == ["in December 1977", "in 1977"]
    assert apply(text, [(s, candidates(s)[2])]) == "He died in the late 1970s at home."


def test_born_year_gets_in():
    s = one("Jane Doe (born 1942) is a painter.", "1942")
    assert candidates(s)[0] == "in the early 1940s"


def test_attributive_year():
    text = "He missed the 1927 season."
    s = one(text, "1927")
    assert apply(text, [(s, candidates(s)[0])]) == "He missed the late-1920s season."


def test_decade_and_month_year():
    assert ladder("It was popular in the 1960s.", "1960s")[-1] == "the 20th century"
    assert ladder("They met in the late 1920s.", "late 1920s")[0] == "the 1920s"
    assert ladder("They met in March 2009 in town.", "March 2009")[:2] == ["2009", "the late 2000s"]


# -- places --------------------------------------------------------------------------------
def test_city_ladder():
    assert ladder("He lives in Sacramento now.", "Sacramento") == [
        "California", "the United States", "North America", "a place"]


def test_city_with_region_starts_at_region():
    assert ladder("Born in Sacramento, CA in 1942.", "Sacramento, CA") == [
        "California", "the United States", "North America", "a place"]
    assert ladder("Born in Sacramento, California in 1942.", "Sacramento, California")[0] == "California"


def test_country_and_state_and_nationality():
    assert ladder("He moved to France later.", "France") == ["Europe", "a country"]
    assert ladder("He moved to Texas later.", "Texas") == ["the United States", "North America", "a place"]
    assert ladder("He is an American photographer.", "American") == ["North American"]


def test_the_usa_drops_article():
    text = "He lives in the USA now."
    s = one(text, "the USA")
    assert apply(text, [(s, candidates(s)[0])]) == "He lives in North America now."


# -- organisations, awards, events ---------------------------------------------------------
def test_org_ladders():
    assert ladder("He studied at Sacramento City College later.", "Sacramento City College") == [
        "a community college", "a college", "an educational institution", "an organization"]
    assert ladder("Shown at the Crocker Art Museum.", "Crocker Art Museum") == [
        "an art museum", "a museum", "a cultural institution", "an organization"]
    assert ladder("Shown at the ZQXW and elsewhere.", "ZQXW") == ["an organization"]
    assert ladder("He played for the New York Yankees in 1950.", "New York Yankees")[0] == "a baseball team"
    # a nickname many sports share says the sport only where the text does (these Saints play lacrosse)
    assert ladder("He played lacrosse for the St. Catharines Saints.", "St. Catharines Saints")[0] == "a sports team"
    assert ladder("He played football for the New Orleans Saints.", "New Orleans Saints")[0] == "a football team"
    # any nickname's sport, not in a text that names another sport and not its own (these Thunder play lacrosse)
    assert ladder("Mark Millon is an American lacrosse player. He played for the New York Saints, Baltimore Thunder, "
                  "Syracuse Smash, and Philadelphia Wings.", "Baltimore Thunder")[0] == "a sports team"
    assert ladder("He played for the Oklahoma City Thunder.", "Oklahoma City Thunder")[0] == "a basketball team"
    # a country club is no golf club
    assert ladder("She coached at the Greenville Country Club.", "Greenville Country Club")[0] == "a country club"
    assert ladder("She coached at the Augusta Golf Club.", "Augusta Golf Club")[0] == "a golf club"


def test_award_and_event_ladders():
    assert ladder("She won the Pulitzer Prize.", "Pulitzer Prize") == ["a major prize", "an award"]
    assert ladder("He won the Nobel Prize in Physics.", "Nobel Prize in Physics") == ["a major science prize", "an award"]
    assert ladder("He ran at the Olympic Games.", "Olympic Games") == ["an international competition"]


# -- numbers, money, ages ------------------------------------------------------------------
def test_number_ladders():
    assert ladder("He took over 250 portraits.", "over 250") == ["over 200", "hundreds of", "many"]
    assert ladder("She won 12 gold medals.", "12") == ["about a dozen", "several"]
    # ten is no dozen ("about a dozen trips" of 10 read as false)
    assert ladder("He made 10 trips to China.", "10") == ["about ten", "several"]


def test_money_ladder():
    assert ladder("He was paid $3 million for it.", "$3 million") == ["several million dollars", "a large sum"]
    # hundreds too ("approximately $300 in cash" read "approximately a sum of money in cash"); a qualifier goes
    # with its amount, and a single magnitude says "about"
    assert ladder("It cost $300.", "$300") == ["hundreds of dollars", "a sum of money"]
    assert ladder("It cost approximately $300.", "approximately $300") == ["hundreds of dollars", "a sum of money"]
    assert ladder("It cost about $110.", "about $110") == ["about a hundred dollars", "a sum of money"]
    assert ladder("It cost about $150.", "about $150") == ["over a hundred dollars", "a sum of money"]  # not "about"
    assert ladder("It cost about $1.9 million.", "about $1.9 million")[0] == "over a million dollars"
    assert ladder("It cost $150.", "$150") == ["over a hundred dollars", "a sum of money"]


def test_age_ladders_fit_the_phrase():
    text = "She died aged 34 in Paris."
    s = one(text, "aged 34")
    assert candidates(s) == ["in their mid-thirties", "in their thirties", "as an adult"]
    assert apply(text, [(s, "in their thirties")]) == "She died in their thirties in Paris."
    assert candidates(one("At the age of 12 he left.", "At the age of 12"))[0] == "as a child"


# -- gendered words ------------------------------------------------------------------------
def test_gendered_neutral_forms_and_case():
    text = "He was a son of a fisherman. His father left him. She is an actress and he teaches."
    spans = [s for s in find_spans(text) if s.type == "GENDERED"]
    out = apply(text, [(s, candidates(s)[0]) for s in spans])
    assert out == "They were a child of a fisherman. Their parent left them. They are an actor and they teach."


def test_honorific_is_dropped_inside_name():
    table = PseudonymTable()
    ctx = GeneralizeContext(doc_id="d", pseudonyms=table)
    text = "Kurt Fishback paints. Later Mr. Fishback moved."
    spans = find_spans(text, types={"PERSON"})
    assert [candidates(s, ctx=ctx)[0] for s in spans] == ["Person A", "Person A"]


# -- placeholders, allow / deny ------------------------------------------------------------
def test_contact_placeholders():
    text = "Mail jo@example.com or call +1 (415) 555-2671."
    got = {s.type: candidates(s) for s in find_spans(text)}
    assert got["EMAIL"] == ["[email]"] and got["PHONE"] == ["[phone]"]


def test_allow_and_deny():
    ctx = GeneralizeContext(doc_id="d", allow={"paris"}, deny={"Crocker Art Museum"})
    assert candidates(one("She lives in Paris now.", "Paris"), ctx=ctx) == []
    assert candidates(one("Shown at the Crocker Art Museum.", "Crocker Art Museum"), ctx=ctx) == ["[redacted]"]


# -- pseudonyms ----------------------------------------------------------------------------
def test_pseudonyms_consistent_within_and_across_documents():
    t = PseudonymTable()
    assert t.replacement("Kurt Edward Fishback", "d1") == "Person A"
    assert t.replacement("Glen Fishback", "d1") == "Person B"
    assert t.replacement("Kurt", "d1") == "Person A"
    assert t.replacement("Fishback", "d1") == "Person A"  # the document's first Fishback
    assert t.replacement("Mr. Fishback", "d1") == "Person A"
    assert t.replacement("Kurt Fishback's", "d1") == "Person A"
    assert t.replacement("Glen", "d1") == "Person B"
    # another document of the batch
    assert t.replacement("Ansel Adams", "d2") == "Person C"
    assert t.replacement("Glen Fishback", "d2") == "Person B"
    assert t.replacement("Adams", "d2") == "Person C"
    assert t.replacement("Kurt", "d2") == "Person D"  # a different Kurt: nobody of d2 is called Kurt


def test_partial_mention_before_full_name_is_merged():
    t = PseudonymTable()
    a = t.replacement("Weston", "d")
    assert t.replacement("Edward Weston", "d") == a
    assert t.replacement("Edward", "d") == a


def test_role_noun_for_the_subject_only():
    t = PseudonymTable()
    ctx = GeneralizeContext(doc_id="d", pseudonyms=t, role="photographer")
    text = "Kurt Fishback is a photographer. His friend Ansel Adams visited Kurt."
    persons = find_spans(text, types={"PERSON"})
    ladders = [candidates(s, ctx=ctx) for s in persons]
    assert ladders[0] == ["the photographer", "Person A", "a person"]
    assert ladders[1] == ["Person B", "a person"]
    assert ladders[2] == ["the photographer", "Person A", "a person"]
    assert t.replacement("Kurt", "d", role="photographer") == "the photographer"


def test_table_serialises():
    t = PseudonymTable()
    t.replacement("Kurt Edward Fishback", "d1")
    t.replacement("Kurt", "d1")
    t2 = PseudonymTable.from_dict(json.loads(json.dumps(t.to_dict())))
    assert t2.replacement("Fishback", "d1") == "Person A"
    assert t2.replacement("Someone Else", "d1") == "Person B"
    t3 = pickle.loads(pickle.dumps(t))
    assert t3.replacement("Kurt Fishback", "d1") == "Person A"


# -- apply ---------------------------------------------------------------------------------
def test_apply_articles_and_capitalisation():
    text = "The Crocker Art Museum bought an American painting at the Sacramento City College sale."
    spans = find_spans(text)
    repl = {"Crocker Art Museum": "a museum", "American": "North American",
            "Sacramento City College": "a college"}
    out = apply(text, [(s, repl[s.text]) for s in spans if s.text in repl])
    assert out == "A museum bought a North American painting at a college sale."


def test_apply_keeps_a_pseudonym_capitalised_where_the_span_was_lowercase():
    """NER also tags lowercase mentions ("with avy and mark"); their pseudonym is still "Person
    X" ("person AVY" was the benchmark's one truthfulness violation), while a role noun or a
    kind takes the slot's lower case."""
    text = "He played with avy at home."
    s = Span(15, 18, "avy", "PERSON")
    assert apply(text, [(s, "Person AB")]) == "He played with Person AB at home."
    assert apply(text, [(s, "A relative")]) == "He played with a relative at home."


def test_apply_deletion_and_overlaps():
    text = "Kurt studied art. Kurt left."
    s1 = Span(0, 4, "Kurt", "PERSON")
    s2 = Span(18, 22, "Kurt", "PERSON")
    assert apply(text, [(s2, "")]) == "Kurt studied art. Left."
    # an overlapping second replacement is ignored
    assert apply(text, [(s1, "Person A"), (Span(0, 12, "Kurt studied", "PROPER"), "x")]) == "Person A studied art. Kurt left."
    assert apply("He bought a apple.", [(Span(12, 17, "apple", "PROPER"), "orange")]) == "He bought an orange."


def test_apply_after_possessive_drops_article():
    text = "He received his Master of Fine Arts degree."
    s = Span(16, 42, "Master of Fine Arts degree", "TITLE", meta={"ladder": ["a master's degree"]})
    assert apply(text, [(s, candidates(s)[0])]) == "He received his master's degree."
    text2 = "Kurt's Crocker Art Museum show."
    s2 = one(text2, "Crocker Art Museum")
    assert apply(text2, [(s2, "an art museum")]) == "Kurt's art museum show."


@pytest.mark.parametrize("word,art", [("apple", "an"), ("university", "a"), ("hour", "an"), ("MBA", "an"),
                                      ("European", "a"), ("one-off", "a"), ("art museum", "an")])
def test_article_for(word, art):
    assert article_for(word) == art


def test_every_span_of_a_biography_has_a_general_last_rung():
    text = ("Kurt Edward Fishback is an American photographer. Kurt was born in Sacramento, CA in 1942. "
            "He studied at Cornell University and exhibited at the Crocker Art Museum.")
    ctx = GeneralizeContext(doc_id="bio", role="photographer")
    for s in find_spans(text):
        lad = candidates(s, ctx=ctx)
        assert s.text not in lad
        assert "" not in lad or s.type == "GENDERED"
        if s.type in ("PERSON", "LOCATION", "ORG", "YEAR"):
            assert lad[-1] in ("a person", "a place", "an organization", "the 20th century")


@pytest.mark.parametrize("value, rung", [
    (12_000, "over ten thousand pounds"),  # ("tens of thousands of pounds" for £12,000 was an output)
    (25_000, "tens of thousands of pounds"), (10_000, "ten thousand pounds"), (1_500_000, "over a million pounds"),
])
def test_a_plural_magnitude_says_at_least_two_of_it_money(value, rung):
    s = Span(0, 1, "x", "MONEY", 1.0, "test", {"amount": value, "currency": "pounds"})
    assert candidates(s)[0] == rung


@pytest.mark.parametrize("value, rung", [(150, "over a hundred"), (100, "about a hundred"), (250, "hundreds of"),
                                         (21, "over a dozen"), (30, "dozens of"), (1200, "over a thousand")])
def test_a_plural_magnitude_says_at_least_two_of_it(value, rung):
    s = Span(0, 1, "x", "NUMBER", 1.0, "test", {"value": value, "noun_follows": True, "qualifier": "about"})
    assert candidates(s)[0] == rung


@pytest.mark.parametrize("qualifier, value, ladder", [
    # a round number keeps its qualifier ("over 100 chapters" became "a hundred chapters")
    ("over", 100, ["over a hundred", "many"]), ("nearly", 1000, ["nearly a thousand", "many"]),
    (None, 100, ["a hundred", "many"]), ("some", 100, ["about a hundred", "many"]),
    # a bound from above only rises: "up to 300 people" is no "hundreds of people"
    ("up to", 300, ["up to 400"]), ("under", 150, ["under 200"]), ("fewer than", 8, ["fewer than 10"]),
])
def test_a_qualified_number_keeps_what_its_qualifier_says(qualifier, value, ladder):
    s = Span(0, 1, "x", "NUMBER", 1.0, "test", {"value": value, "noun_follows": True, "qualifier": qualifier})
    assert candidates(s) == ladder


def test_a_century_year_has_no_century_rung():
    """"He won a competition in the late 20th century" of 2000 read as the 1990s to a blind reader."""
    from veil.agents.local.generalize import year_ladder

    assert not any("century" in r for r in year_ladder(2000)), year_ladder(2000)
    assert "the late 20th century" in year_ladder(1995)
