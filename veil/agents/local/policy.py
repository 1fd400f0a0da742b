"""The type-driven generalization policy, in the style of Presidio's operators: small operator
classes in a registry (:data:`OPERATORS`), chosen per span type by a data file
(``data/policy.json``, or ``--policy FILE``). The local optimizer applies the policy to every
span before the simulated attacker is consulted; the attacker then decides what else goes.

An operator turns a span into a :class:`Decision`: the replacement (a rung of the span's
truthful ladder, a pronoun or pseudonym for a person, nothing for a dropped identifier), the
rungs it may still climb later, and the reason, which ends up in the result's edits.
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import ClassVar

from veil.agents.literal import NAME_PARTICLE, NICKNAME, POSTNOMINALS
from veil.agents.local.generalize import HONORIFIC, PLACEHOLDERS, TITLES, GeneralizeContext, candidates
from veil.agents.local.spans import DATA_DIR, Span, fold, gazetteer, lexicon
from veil.errors import UserInputError

DEFAULT_POLICY = DATA_DIR / "policy.json"


@dataclass(frozen=True)
class Decision:
    replacement: str | None  # None: keep the span as it is
    ladder: tuple[str, ...] = ()  # the rungs above (more general), for the attacker and utility mode
    reason: str = ""
    drop_unit: bool = False  # delete the smallest grammatical unit that holds the span, if there is one
    or_sentence: bool = False  # with drop_unit: no unit holds it, so its sentence goes (never the first)


# -- rung levels ---------------------------------------------------------------------------
_DATE_ORDER = ["day", "month", "year", "part_decade", "decade", "part_century", "century", "general"]
_PLACE_ORDER = ["place", "city", "region", "country", "continent", "general"]
_ORDERS = {"date": _DATE_ORDER, "place": _PLACE_ORDER, "kind": ["kind", "general"], "range": ["range", "general"]}


def rung_level(span: Span, rung: str) -> tuple[str, str]:
    """(scale, level) of one rung: what a policy level is compared with."""
    r = rung.lower()
    if span.type in ("DATE", "YEAR", "DECADE", "DOB"):
        if "century" in r:
            return "date", "part_century" if re.search(r"(early|mid|late)", r) else "century"
        if re.search(r"\d{3}0s", r):
            return "date", "part_decade" if re.search(r"(early|mid|late)", r) else "decade"
        if re.search(r"\b\d{4}\b", r):
            return "date", "month" if re.search(r"[a-z]{3,}\s+\d{4}", r) and not r.startswith(("in ", "the ")) else "year"
        return "date", "general"
    if span.type == "LOCATION":
        g = gazetteer()
        name = fold(re.sub(r"^(?:the|in)\s+", "", r))
        if name in ("a place", "a country", "a territory"):
            return "place", "general"
        if name in {fold(c["name"]) for c in g.country_by_code.values()} or name in ("united states", "united kingdom"):
            return "place", "country"
        if name in ("africa", "asia", "europe", "north america", "south america", "oceania", "antarctica"):
            return "place", "continent"
        return "place", "region"
    if span.type in ("NUMBER", "MONEY", "AGE"):
        return "range", "range"
    return "kind", "kind" if rung not in ("an organization", "an event", "an award", "a work", "a product") else "general"


def own_level(span: Span) -> tuple[str, str] | None:
    """How general the span itself already is, where that is known."""
    if span.type == "LOCATION":
        kind = span.meta.get("kind")
        return {"country": ("place", "country"), "admin1": ("place", "region"), "continent": ("place", "continent"),
                "city": ("place", "city")}.get(kind) if kind else None
    if span.type == "DECADE":
        return ("date", "part_decade") if re.search(r"early|mid|late", span.text, re.I) else ("date", "decade")
    return None


def pick(span: Span, ladder: list[str], level: str) -> tuple[str | None, list[str]]:
    """The first rung at least as general as ``level`` and the rungs above it; None when the
    span itself is already that general ("Germany" under a "region" policy stays)."""
    own = own_level(span)
    if own is not None:
        order = _ORDERS[own[0]]
        if level in order and order.index(own[1]) >= order.index(level):
            return None, list(ladder)
    for i, rung in enumerate(ladder):
        scale, lv = rung_level(span, rung)
        order = _ORDERS.get(scale, [lv])
        if lv in order and level in order and order.index(lv) >= order.index(level):
            return rung, ladder[i + 1:]
        if level not in order:  # a level of another scale: take the first rung
            return rung, ladder[i + 1:]
    return (ladder[-1], []) if ladder else (None, [])


# -- operators -----------------------------------------------------------------------------
class Operator(ABC):
    name: ClassVar[str]

    @abstractmethod
    def decide(self, span: Span, ctx: GeneralizeContext, rule: dict, subject: "SubjectInfo") -> Decision: ...


class Keep(Operator):
    name = "keep"

    def decide(self, span, ctx, rule, subject):
        ladder = candidates(span, ctx=ctx)
        if span.type == "TITLE" and (span.meta.get("role") == "attribute" or (
                span.meta.get("role") == "modifier" and span.meta.get("coordinated"))):
            # "her father is an International Master": a person is no "chess title" (an output);
            # only a rung that names its holder is true there ("a world champion" does); the parse
            # may take the title for a modifier of the noun it is listed with ("an International
            # Master and Peter Svidler's first trainer": "her parent is a chess title" was an output)
            ladder = [_TITLE_HOLDERS.get(r, r) for r in ladder
                      if r in _TITLE_HOLDERS or not re.search(r"\b(?:title|degree|award|prize|medal)s?$", r)]
        return Decision(None, tuple(ladder), "kept by the policy")


# ranks of nobility a surname may carry ("Baron von der Osten-Sacken")
_NOBLE_TITLES = frozenset("baron baroness count countess graf freiherr marquis marquess duke duchess earl viscount "
                          "lord lady prince princess sir dame".split())
# where one is born, grows up or dies is a place, whatever the NER called it
_BIRTHPLACE_GOVERNORS = frozenset((verb, prep) for verb in ("bear", "born", "raise", "grow", "die", "spend", "live",
                                                             "reside", "settle")
                                  for prep in ("in", "at", "near"))


# the holder of a title a ladder names, for a title said of a person ("he is a Grandmaster")
_TITLE_HOLDERS = {"a chess title": "a titled chess player"}


_MONTH = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\b", re.I)
_DATE_TYPES = ("DATE", "YEAR", "DECADE", "DOB")
_BOUNDS = {"pobj:before": "end", "pobj:after": "start"}


def _bounded(rung: str, edge: str) -> str:
    """"the 1810s" -> "the end of the 1810s" after "before" (true of any date in the period),
    "the start of the 1810s" after "after"."""
    return f"the {edge} of {rung}" if rung.startswith("the ") else rung
# where "an organization" reads true of whatever the NER called one ("worked at X", "played for X");
# not "on" ("lives on an organization" was an output for a farm)
_ORG_SLOTS = frozenset({"locative", "pobj:at", "pobj:for", "pobj:with", "pobj:by", "pobj:of", "pobj:from",
                        "pobj:against", "possessive"})
_STATE_COUNTRIES = frozenset("US AU IN MX BR DE NG MY AT".split())  # first-level divisions called states


# what an organisation (or a place the NER mistook for one) must be, by the verb that governs it:
# "graduated from X" is a school, "played for X" a team, whatever X's name says ("He played for a
# city" and "He graduated from an organization" were outputs)
SLOT_KINDS = {
    ("graduate", "from"): "a school", ("attend", None): "a school", ("study", "at"): "a school",
    ("educate", "at"): "a school", ("enroll", "at"): "a school", ("enrol", "at"): "a school",
    ("enroll", "in"): "a school", ("teach", "at"): "a school", ("matriculate", "at"): "a school",
    ("degree", "from"): "a school", ("doctorate", "from"): "a school",
    ("play", "for"): "a team", ("sign", "for"): "a team", ("loan", "to"): "a team", ("ride", "for"): "a team",
    ("race", "for"): "a team", ("player", "for"): "a team", ("coach", "of"): "a team", ("captain", "of"): "a team",
    ("basketball", "for"): "a team", ("football", "for"): "a team", ("baseball", "for"): "a team",
    ("hockey", "for"): "a team", ("soccer", "for"): "a team", ("rugby", "for"): "a team", ("cricket", "for"): "a team",
    ("mayor", "of"): "a municipality", ("mayoralty", "of"): "a municipality",
}

# in a text about horse racing (spans.HORSE_TEXT), a name one trains or rides is a horse, whatever the NER
# says ("He was the child of Person BAE, trainer of an organization." of "trainer of Seabiscuit"; "He
# trained Brigadier Person BAX." of the horse Brigadier Gerard)
HORSE_GOVERNORS = frozenset({("train", None), ("ride", None), ("trainer", "of"), ("rider", "of"),
                             ("jockey", "of"), ("saddle", None)})
HORSE = "a horse"

# verbs whose object, where it is an award's name, is the award's ceremony
_CEREMONY_VERBS = frozenset("host co-host cohost emcee broadcast televise".split())
CEREMONY = "ceremony"  # (the word the truthfulness checker allows for it)
# verbs whose "to" object is a rank or grade, never an organisation
_RANK_VERBS = frozenset("promote elevate demote upgrade downgrade".split())


def slot_kind(span: Span) -> str | None:
    """The kind :data:`SLOT_KINDS` gives a span of no known kind of its own."""
    gov = span.meta.get("governor")
    return SLOT_KINDS.get(tuple(gov)) if gov else None


def _governor(span: Span) -> str:
    return " ".join(x for x in span.meta.get("governor") or () if x)


def kind_noun(span: Span) -> str | None:
    """What a place or a date *is*, as an indefinite noun phrase: the one replacement that stays
    true in any slot ("led Germany" -> "led a country", "spent March 2007" -> "spent a month"),
    where a containing region or a decade would say something else."""
    if span.type == "LOCATION":
        from veil.agents.local.spans import place_info

        kind = span.meta.get("kind")
        if kind is None:
            kind = (place_info(span.text) or {}).get("kind")
        if kind == "admin1":
            cc = span.meta.get("country_code") or (place_info(span.text) or {}).get("country_code")
            if fold(span.meta.get("name") or span.text) in {fold(c) for c in lexicon()["countries_in_a_country"]}:
                return "a country"  # "England"
            return "a state" if cc in _STATE_COUNTRIES else "a region"
        if kind == "city" and (m := _DIVISION.search(span.text.split(",")[0])):
            return f"a {m.group(1).lower()}"  # "moved to Stark County, Ohio": a county, not "a city"
        if kind == "country":
            cc = span.meta.get("country_code") or (place_info(span.text) or {}).get("country_code")
            return lexicon()["not_countries"].get(cc, "a country")  # "Hong Kong": a territory
        return {"city": "a city", "continent": "a continent"}.get(kind)
    if span.type in _DATE_TYPES:
        t = span.text
        if re.search(r"\d{4}\s*[–-]\s*\d{1,4}", t):
            return "a season" if re.search(r"\d{4}\s*[–-]\s*\d{1,2}\b", t) else None
        if _MONTH.search(t):
            rest = re.sub(r"\b\d{4}\b", "", _MONTH.sub("", t))
            if re.search(r"\d\s*(?:–|—|-|to)\s*\w", rest):
                return None  # days, not "a day": "ran 12–14 June 1990" ("ran a day" was false)
            return "a day" if re.search(r"\b\d{1,2}(?:st|nd|rd|th)?\b", rest) else "a month"
        if re.fullmatch(r"(?:in\s+)?\d{4}", t.strip()):
            return "a year"
    return None


# what a place's name says it is, where it is no city ("Stark County", "Orleans Parish")
_DIVISION = re.compile(r"\b(County|Parish|Township|District|Province|Borough|Municipality|Prefecture)\b")
# "Formula One" (the NER's person "Formula"): a series of races
FORMULA_LADDER = ["a motor racing series", "a racing series"]
# what a name that ends in one of these words is, where no organisation head says it (the lexicon's
# "name_kinds")
NAME_KIND_HEADS: dict[str, list[str]] = lexicon()["name_kinds"]


def plural(noun: str) -> str:
    if re.search(r"(?:series|species|aircraft)$", noun):
        return noun  # ("two motor racing serieses")
    if re.search(r"[^aeiou]y$", noun):
        return noun[:-1] + "ies"
    return noun + ("es" if re.search(r"(?:s|x|z|ch|sh)$", noun) else "s")


_FIGURES = {4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}


class Generalize(Operator):
    """A rung of the span's truthful ladder at the policy's level, *that fits the span's slot*
    (``span.meta["role"]``, from the parse): a modifier of a noun is removed ("an Orlan space
    suit" -> "a space suit"); a place outside a containment phrase, or a date that is a
    subject or object, becomes its kind noun ("led a country", "spent a month"); a counted
    name ("20 Wimbledon Championships") goes with its phrase."""

    name = "generalize"

    def decide(self, span, ctx, rule, subject):
        ladder = candidates(span, ctx=ctx)
        kind = span.type.lower()
        gov = tuple(span.meta.get("governor") or (None, None))
        if span.type == "AWARD" and ((gov[0] in _CEREMONY_VERBS and gov[1] is None)  # (its object: "presented
                                     # with an award ceremony" was false)
                                     or gov[1] in ("at", "during")):
            # one hosts the ceremony, not the award: "hosted the Academy Awards" ("He hosted a major
            # film award." was an output); and what happens at an award's name happens at its ceremony ("He was
            # presented with an award at another award" was an output of "at the Carlton Multi-Cultural Awards")
            ladder = [f"{r} {CEREMONY}" for r in ladder]
        if span.meta.get("role") == "modifier" and span.meta.get("exclusive"):
            # "his six Grand Slam titles" -> "his six titles" is false (he has others): its phrase goes
            return Decision(None, (), f"{kind} modifying a noun counted as all of them: its phrase goes",
                            drop_unit=True, or_sentence=True)
        if not ladder and span.meta.get("role") == "field" and rule.get("unknown") == "drop":
            # "Department: Accounts Payable": no phrase holds a form's value, and an empty field does not read
            return Decision("[redacted]", (), f"{kind} of no known kind as a form's value: a placeholder")
        if not ladder:
            if span.type in ("NAME", "LOCATION") and (slot := slot_kind(span)) \
                    and (slot != "a team" or " " in span.text.strip()):
                # "graduated from UMass", "played for Rochester Rattlers": what the verb says it is
                # (one word after "played for" may be a bandleader: "Ellington")
                return Decision(slot, (), f"{kind} after '{_governor(span)}' is {slot}")
            if span.meta.get("role") == "modifier" and rule.get("unknown") == "drop":
                return Decision("", (), f"{kind} without a known generalization modifying a noun is removed")
            if rule.get("unknown") == "drop":  # no truthful rung: the phrase that holds it goes
                # (with the rule's "or_sentence", its sentence where no phrase holds it)
                # (a possessive has no phrase of its own: "scored both his and the Marussia's first points")
                return Decision(None, (), f"{kind} without a known generalization", drop_unit=True,
                                or_sentence=bool(rule.get("or_sentence")) or span.meta.get("role") == "possessive")
            return Decision(None, (), "no truthful generalization known")
        rung, above = pick(span, ladder, rule.get("level", "kind"))
        role = span.meta.get("role")
        if role == "field":
            # a form's value stands alone: its rung as it is ("Employer: a company", "Date of birth: the 1990s"),
            # a place as its kind in its region ("City: a city in Saskatchewan": a region alone is no city)
            if span.type == "LOCATION" and rung is not None and rung[:2] != "a " \
                    and (noun := kind_noun(span)) and noun != "a continent":
                return Decision(f"{noun} in {rung}", tuple(f"{noun} in {a}" for a in above if a[:2] != "a "),
                                f"{kind} as a form's value becomes its kind in its {rule.get('level', 'region')}")
            if rung is None:
                return Decision(None, tuple(above), f"{kind} is already as general as the policy asks")
            return Decision(rung, tuple(above), f"{kind} as a form's value generalized to "
                                                f"{rule.get('level', 'its kind')} by the policy")
        if span.meta.get("negated"):
            # "never qualified for the Candidates Tournament" -> "never qualified for a competition" denies
            # more than the writer did: no rung is true there, its phrase (or sentence) goes
            return Decision(None, (), f"{kind} under a negation: a wider one is false", drop_unit=True,
                            or_sentence=True)
        if span.type in _DATE_TYPES and role in _BOUNDS:
            # "died before April 1811" is not "before the 1810s": a bound keeps its side of the period
            edge = _BOUNDS[role]
            rung, above = (_bounded(rung, edge) if rung else rung), tuple(_bounded(r, edge) for r in above)
        if span.type in _DATE_TYPES and span.meta.get("until") and span.text[:3].lower() == "up ":
            # "Up until 6 April 2015, she held ...": "Into the 2010s" would say she held it before
            # the decade began, "Up until the 2010s" that she held it only before it: the phrase goes
            return Decision(None, (), f"{kind} after 'up until': no period reads true there, its phrase goes",
                            drop_unit=True)
        if span.type in _DATE_TYPES and span.meta.get("until") and rung is not None:
            # "played until 1985" is not "until the 1980s" (which ends as they begin): the span holds
            # its "until", and the period is one he went on into
            into = lambda r: "into " + re.sub(r"^in\s+", "", r)  # noqa: E731
            rung, above = into(rung), tuple(into(r) for r in above if r.startswith(("the ", "in the ")))
        if span.evidence in ("regex:n_time", "regex:win_loss", "regex:era") and rung is not None:
            # "a multiple-time champion", "a winning record", "an ERA of over 3": the rung reads after its article
            return Decision(rung, above, f"{kind} generalized to a range by the policy")
        if role == "determined" and rung is not None:
            # "the top 10 players" -> "the top players" ("the top about a dozen" does not read)
            return Decision("", (), f"{kind} after a determiner is removed (a range does not read there)")
        if role == "modifier":
            if span.meta.get("coordinated"):
                if span.type in ("EVENT", "ORG", "WORK", "NAME", "PROPER", "AWARD", "PRODUCT"):
                    # a name kept as written names it ("entered the Formula Ford and Formula Three
                    # series" stayed): the phrase that holds both goes, or they stay
                    return Decision(None, (), f"{kind} modifying a noun with another modifier after 'and': "
                                              "its phrase goes", drop_unit=True)
                return Decision(None, (), f"{kind} modifying a noun with another modifier after 'and': it stays")
            if span.type == "MONEY" and isinstance(v := span.meta.get("amount"), (int, float)) and 1e3 <= v < 1e10 \
                    and v == int(v):
                # "a $40,000 raise" -> "a five-figure raise" ("a tens of thousands of dollars raise" was an
                # output): how many figures the sum has, which is true of it and reads before the noun
                return Decision(f"{_FIGURES[len(str(int(v)))]}-figure", (),
                                f"{kind} modifying a noun generalized to its count of figures")
            if rung is None:
                return Decision(None, (), f"{kind} modifying a noun is already as general as the policy asks")
            if span.evidence == "regex:rank" and span.meta.get("band_noun"):
                # "the current world number one junior tennis player" -> "the world top-ten junior tennis player"
                # (not "the current junior tennis player", which was an output: the rank was what "the" picked out)
                return Decision(rung, (), f"{kind} modifying a noun generalized to a band of ranks")
            return Decision("", (), f"{kind} modifying a noun is removed (a generalization there would name "
                                    "something else)")
        if role == "attribute" and span.type not in ("LOCATION", "NUMBER", "MONEY", "AGE") + _DATE_TYPES \
                and span.evidence != "shape:work_title":  # ("the comedy TV show X": its own noun is true anywhere)
            # "He is a Certified Executive Chef" read as an organisation: "He is an organization"
            # would be false whatever the NER meant, so the phrase goes or the span stays
            # (else its sentence, not the name as written: "His first race was the 1970 Spanish Grand
            # Prix" stayed whole)
            return Decision(None, (), f"{kind} as a complement: no kind phrase is true there", drop_unit=True,
                            or_sentence=True)
        if role == "counted" and span.type not in ("NUMBER", "MONEY", "AGE") + _DATE_TYPES:
            # "nine World Championship Formula One Grands Prix": its phrase goes, or else the
            # kind, without the number ("participated in races": "nine races" reads as all he
            # ran); "his four Belmont Stakes" (all of his) cannot lose its number: its phrase goes
            if span.meta.get("exclusive"):
                return Decision(None, (), f"counted {kind} said as all of them: its phrase goes",
                                drop_unit=True, or_sentence=True)
            last = re.sub(r"\W", "", span.text.split()[-1].lower()) if span.text.split() else ""
            rung = NAME_KIND_HEADS[last][0] if last in NAME_KIND_HEADS else rung
            noun = re.sub(r"^(?:an?|the)\s+", "", rung or "") if rung and re.match(r"(?:an?|the)\s", rung) else None
            if noun and span.meta.get("many") and not noun.endswith(("s", "series")):
                noun = re.sub(r"(\w+)$", lambda m: plural(m.group(1)), noun)
            if noun and span.meta.get("uncounted"):
                noun = re.sub(r"^an?\s+", "", noun)  # ("a motor racing series" counted: "series")
                return Decision(noun, (), f"counted {kind}: its phrase is removed, or its kind without the number",
                                drop_unit=True)
            return Decision(noun, (), f"counted {kind}: its phrase is removed", drop_unit=True)
        if span.type == "ORG" and list(ladder) == ["an organization"] and tuple(span.meta.get("governor") or ())[1:] == ("to",) \
                and span.meta["governor"][0] in _RANK_VERBS:
            # "promoted to Companion" (of an order): a rank, whatever the NER said; "promoted to an
            # organization" was an output
            return Decision(None, (), f"{kind} after '{_governor(span)}' is a rank: its phrase goes", drop_unit=True)
        if span.type == "ORG" and list(ladder) == ["an organization"] and (
                tuple(span.meta.get("governor") or ()) in _BIRTHPLACE_GOVERNORS
                or (role in ("pobj:in", "pobj:from", "locative") and (span.meta.get("governor") or (None, None))[1] in ("in", "from")
                    and " " not in span.text.strip())):
            # (one word of no known kind after "in" or "from" is more often a place than a body: "a slater from
            # Carna", "a fishing boat in Twillingate" read "from an organization", "in an organization")
            # "born in Trets": a town the NER took for a body ("born in an organization" was an output)
            return Decision(None, (), f"{kind} after '{_governor(span)}' is a place: no kind phrase is sure",
                            drop_unit=True, or_sentence=tuple(span.meta.get("governor") or ()) not in _BIRTHPLACE_GOVERNORS)
        slot = slot_kind(span)
        if slot and (span.type == "ORG" and list(ladder) == ["an organization"]
                     or span.type == "LOCATION" and slot == "a team" and span.meta.get("kind") == "city"
                     and " " in span.text.strip()):
            # "played for San Lorenzo" (a club the gazetteer knows as a city; one word such as
            # "Motown" may be a label or a band), "graduated from SFAI"
            return Decision(slot, ("an organization",) if span.type == "ORG" else (),
                            f"{kind} after '{_governor(span)}' is {slot}")
        if (span.type, list(ladder)) in (("ORG", ["an organization"]), ("WORK", ["a work"])) \
                and role not in _ORG_SLOTS:
            # only the NER's word that it is an organisation ("invented X", "developed X"): no
            # kind phrase is sure to be true, so the phrase goes (or the attacker's plan decides)
            return Decision(None, (), f"{kind} of unknown kind as a subject or object", drop_unit=True)
        if span.type == "ORG" and list(ladder) == ["an organization"] and role == "possessive" \
                and " " not in span.text.strip() and span.evidence.startswith("spacy:"):
            # "Chopin's Andante": one word the NER calls an organisation is as often a person;
            # "an organization's Andante" was an output
            return Decision(None, (), f"{kind} of unknown kind as a possessive: its sentence goes", drop_unit=True,
                            or_sentence=True)
        if span.type in ("LOCATION", "ORG", "EVENT", "AWARD", "WORK", "PROPER") and span.meta.get("names_a_noun"):
            # "the Slovak capital city, Bratislava" -> "..., Slovakia" would call the country a city;
            # "the inaugural race, the 1950 British Grand Prix" -> "..., a race" says nothing
            return Decision(None, (), f"{kind} naming the noun before it: the appositive goes", drop_unit=True)
        if span.type == "LOCATION" and span.meta.get("locates"):
            # ", Medford, Massachusetts" after a college: " in Massachusetts" (the span holds its comma)
            own = span.text.lstrip(", ")
            return Decision(f" in {rung if rung is not None else own}", tuple(f" in {a}" for a in above),
                            f"{kind} of the organisation before it generalized to {rule.get('level', 'its kind')}, with 'in'")
        if span.type == "LOCATION" and role == "moved" and (noun := kind_noun(span)) and noun != "a continent":
            # "returned to Germany" of "returned to Reutlingen" (from Stuttgart) says he had been abroad;
            # "returned to a city in Germany" says what the text said
            wider = tuple(f"{noun} in {a}" for a in above if a[:2] != "a ")
            if rung is None:
                return Decision(None, wider, f"{kind} is already as general as the policy asks")
            if rung[:2] != "a ":
                return Decision(f"{noun} in {rung}", wider,
                                f"{kind} at a move's end becomes its kind in its {rule.get('level', 'region')}")
        needs_kind = (span.type == "LOCATION" and role is not None and role not in ("locative", "appositive", "born_place", "moved")) or \
            (span.type in _DATE_TYPES and role in ("argument", "attribute"))
        if needs_kind:
            # a containing region or a decade would say something else here ("led Europe",
            # "spent the 2000s", "North America's congressional map"): only the kind noun is true
            noun = kind_noun(span)
            if rung is None:
                return Decision(None, (noun,) if noun else (), f"{kind} is already as general as the policy asks")
            if noun is None:
                return Decision(None, (), f"{kind} without a true kind noun in its slot", drop_unit=True)
            return Decision(noun, (), f"{kind} in this slot becomes its kind",
                            drop_unit=bool(role and role.startswith("pobj:")))
        if rung is None:
            return Decision(None, tuple(above), f"{kind} is already as general as the policy asks")
        if role == "life_end" and span.type != "LOCATION" and rung.lower().startswith("the "):
            # the bracket's second date is the death's; after the birth's place a bare "in the 1940s"
            # reads as more of the birth ("born in the 1870s in the 1940s" was an output)
            return Decision(f"died in {rung[0].lower()}{rung[1:]}",
                            tuple(f"died in {a}" if a.startswith("the ") else a for a in above),
                            f"{kind} generalized to {rule.get('level', 'its kind')} by the policy")
        if role == "born_place":
            return Decision(f"in {rung}", tuple(f"in {a}" for a in above),
                            f"{kind} generalized to {rule.get('level', 'its kind')} by the policy")
        if span.type in ("DATE", "YEAR", "DECADE") and role in ("adverbial", "appositive") and rung.lower().startswith("the "):
            # "1995 she was ranked", "died in Albuquerque, August 9, 1904": "in the 1990s"
            return Decision(f"in {rung[0].lower()}{rung[1:]}", tuple(f"in {a}" if a.startswith("the ") else a for a in above),
                            f"{kind} generalized to {rule.get('level', 'its kind')} by the policy")
        return Decision(rung, tuple(above), f"{kind} generalized to {rule.get('level', 'its kind')} by the policy")


class Drop(Operator):
    """Direct identifiers without a truthful generalization: the phrase that holds them goes
    ("call me at 555-867-5309" -> "call me"); where no phrase can go, a placeholder."""

    name = "drop"

    def decide(self, span, ctx, rule, subject):
        return Decision(PLACEHOLDERS.get(span.type, "[redacted]"), (), f"{span.type.lower()} is a direct identifier",
                        drop_unit=span.meta.get("role") != "field")  # (a form's value has no phrase: "Phone: [phone]")


class Remove(Operator):
    """What no rung states truthfully and a reader would find the person from ("the first
    physician to make a space flight"): the phrase that holds it goes, with ``or_sentence`` its
    sentence where no phrase does (never the text's first); else it stays, reported. A span whose
    recognizer found a true plainer form (``meta["plain"]``: "a physician" of "was the first
    physician to ...") becomes that instead."""

    name = "remove"

    def decide(self, span, ctx, rule, subject):
        if span.meta.get("plain"):  # "was the first Dutch baseball player" -> "was a Dutch baseball player"
            return Decision(span.meta["plain"], (), f"a unique claim ({span.type.lower()}): its ranking goes, "
                            "the noun it ranked stays")
        if span.meta.get("role") == "field":
            return Decision("[redacted]", (), f"a unique claim ({span.type.lower()}) as a form's value: a placeholder")
        return Decision(None, (), f"a unique claim ({span.type.lower()}): its phrase is removed", drop_unit=True,
                        or_sentence=bool(rule.get("or_sentence")))


_SUBJ = {"male": ("he", "him", "his"), "female": ("she", "her", "her")}


@dataclass
class SubjectInfo:
    """Who the text is about: the given name (or the first person named) and the pronouns the
    text itself uses for them. A pronoun replaces a mention only when the text is clear about it."""

    name: str | None = None
    gender: str | None = None
    first_person: bool = False
    name_tokens: set[str] = field(default_factory=set)
    role: str | None = None  # "the chess player": the label's role noun, when the text itself says it

    def is_subject(self, span: Span) -> bool:
        """A mention of the subject: its words are the name's ("Kurt", "Mr. Fishback"), or it
        starts and ends like the name with a middle name or a quoted nickname between
        ("Jacques \"Toto\" Brugnon", "Georgy Mikhaylovich Grechko" for "Georgy Grechko").
        Never a mention with digits in it ("minor planet 3148 Grechko")."""
        if not self.name_tokens or re.search(r"\d", span.text):
            return False
        text = TITLES.sub("", POSTNOMINALS.sub("", re.sub(NICKNAME, " ", span.text)))
        text = re.sub(r"['’]s?$", "", text.strip())  # "Aeschbacher's"
        words = [fold(t) for t in re.findall(r"[^\W\d_][\w'-]+", text)]
        toks = set(words)
        if toks and toks <= self.name_tokens | {"mr", "mrs", "ms", "dr", "jr", "sr"}:
            return True
        if len(toks) > 1 and (bare := {w for w in toks if not re.fullmatch(NAME_PARTICLE, w) and w not in _NOBLE_TITLES}) \
                and bare <= self.name_tokens and max(bare, key=len) == self.first_last[1]:
            # "Baron von der Osten-Sacken" for Carl Robert Osten-Sacken: the surname with its
            # particles and rank ("He, Person B was" was an output)
            return True
        first, last = self.first_last
        if span.start <= 6 and len(words) >= 2 and last and first and any(w[:1] == first[:1] for w in words[:-1]) and (
                words[-1] == last or words[-1].startswith(last + "-")):
            # the name that opens the text, in a fuller or formal form: "James Umbricht", "Eva
            # Fuka-Engle", "Reinder Albertus Wolters" for "Jim Umbricht", "Eva Fuka", "Rynie Wolters"
            # (the same initial: "Glen Fishback" opening Kurt Fishback's biography is his father; the
            # initial of any given name: "João Frederico Limpo Franco Gil" for "Fred Gil")
            return True
        if len(words) >= 3 and words[0] == first and words[-1] == last:
            return True
        # 'Clarence Leonard "Kelly" Johnson, Jr.' for "Kelly Johnson": the nickname is the given name
        nicks = {fold(w) for q in re.findall(NICKNAME, span.text) for w in re.findall(r"[^\W\d_]+", q)}
        core = [w for w in words if w not in ("jr", "sr")]
        if core and core[-1] == last and first in nicks:
            return True
        if len(core) < 2 or not first or not last:
            return False
        # a fuller form of the known name: "Alfredo Carneros Beamud", "Robert Brett Lunger" for
        # "Alfredo Carneros", "Brett Lunger"; "Maxwell Freeman Yalden" for "Max Yalden" (never
        # "Glen Fishback" for "Kurt Fishback": a relative shares the surname, not the given name)
        known = {fold(t) for t in re.findall(r"[^\W\d_][\w'-]+", self.name or "") if len(t) > 1}
        if known and known <= set(core):
            return True
        return core[-1] == last and min(len(first), len(core[0])) >= 3 and (
            core[0].startswith(first) or first.startswith(core[0]))

    @property
    def first_last(self) -> tuple[str | None, str | None]:
        if not self.name:
            return None, None
        words = [fold(t) for t in re.findall(r"[^\W\d_][\w'-]+", self.name) if len(t) > 1]
        return (words[0], words[-1]) if words else (None, None)


# evidence that a span is a person's name whatever its NER label ("Blyth Spartans", "Gateshead",
# "Turnbull to Hartlepool" were all PERSON to en_core_web_sm)
_SURE_PERSON_EVIDENCE = ("lexicon:first_name", "lexicon:honorific", "cue:", "ground-truth")


def confirmed_person(span: Span, ctx: GeneralizeContext) -> bool:
    """Is the PERSON span sure to name a person? A given name or an initial (in the span or in
    the fuller name of this document it refers to), an honorific, a relation cue ("my roommate
    Priya") or the known name. The NER's label alone is not enough: en_core_web_sm calls football
    clubs and towns persons, and a "Person X" there invents a fact."""
    if span.meta.get("not_a_name"):  # "the X", "X, Spain" (see veil.agents.local.optimizer._not_a_person)
        return False
    if span.meta.get("honorific") or span.meta.get("titled") or span.meta.get("relation") \
            or span.evidence.startswith(_SURE_PERSON_EVIDENCE):
        return True
    first_names = lexicon()["first_names"]
    name = re.sub(r"\s*['’]s?$", "", span.text)
    idx = ctx.pseudonyms.resolve(name, ctx.doc_id)
    names = ctx.pseudonyms.entries[idx]["names"] if idx is not None else {fold(name)}
    for n in names:
        if HONORIFIC.match(n):
            return True
        words = n.split()
        if words and (words[0] in first_names or re.fullmatch(r"[a-z]\.?", words[0])):
            return True
    return False


def _signed_for_a_town(span: Span) -> bool:
    """"He signed for Chester", "loaned to Preston": a footballer's verb and a town's name (the
    NER's person, "Person AIR", was an output) is the town's team; "played for Ellington" may
    still be a bandleader."""
    from veil.agents.local.spans import place_info

    gov = tuple(span.meta.get("governor") or ())
    return gov in (("sign", "for"), ("loan", "to")) and (place_info(span.text.strip()) or {}).get("kind") == "city"


# the slots of a person the subject did something with ("along with X", "alongside X")
_COMPANY = frozenset({"pobj:with", "pobj:alongside"})
# verbs whose "with" phrase is what they say ("met with X", "was confused with X"): the name stays a pseudonym
_WITH_AS_OBJECT = frozenset({"meet", "marry", "confuse", "identify", "compare", "associate", "credit", "replace",
                             "remain", "stay", "live", "reside", "side", "partner", "team"})  # ("She remained prior to returning" was an output)
# deeds whose doer "with X" shared: without X the deed reads as the subject's alone ("he founded the
# teaching unit" of "he, with Jean Bossu and Georges-Henri Pingusson, founded" was false); the pseudonym stays
_JOINT_DEEDS = frozenset({"found", "establish", "create", "form", "start", "launch", "build", "design", "write",
                          "compose", "develop", "invent", "discover", "devise", "organize", "organise"})


class Person(Operator):
    """The subject: a pronoun that fits the mention's slot (subject, object, possessive) when the
    text already says which; every other person: a consistent pseudonym."""

    name = "person"

    def decide(self, span, ctx, rule, subject):
        name = re.sub(r"\s*['’]s?$", "", span.text).lstrip("@")  # (a chat's mention: "@Deshawn")
        pseudo = ctx.pseudonyms.placeholder(name, ctx.doc_id)
        slot = span.meta.get("slot")
        if span.meta.get("role") == "field":
            # "Full name: Jonathan Perkins": a pronoun or a role noun does not stand alone as a value
            return Decision(pseudo, (), "a person's name as a form's value becomes a consistent pseudonym")
        if span.meta.get("kin_apposition"):
            # ", Beata," after "a wife": the span holds its commas; the relative stays, the name goes (first: a
            # son who shares the subject's given name is no "him")
            return Decision("", (), "a relative's given name in apposition is removed")
        if span.meta.get("nickname"):
            # "He was also known as Count Combat": a name the subject went by goes with its phrase,
            # or its sentence ("known as Person C" reads as a second person, "known as him" as none)
            return Decision(pseudo, (), "a name the subject went by: its phrase goes", drop_unit=True, or_sentence=True)
        if subject.is_subject(span) and subject.gender and slot:
            he, him, his = _SUBJ[subject.gender]
            pron = {"subject": he, "object": him, "possessive": his}[slot]
            return Decision(pron, (pseudo,), "the subject's name becomes the pronoun the text uses for them")
        if subject.is_subject(span) and subject.role and slot:
            # the text does not say which pronoun: the role noun the text already uses, or "this
            # person" where the sentence itself says the role ("The chef is a German chef" was an output)
            role = "this person" if span.meta.get("role_said") else subject.role
            noun = {"subject": role, "object": role, "possessive": f"{role}'s"}[slot]
            return Decision(noun, (pseudo,), "the subject's name becomes the role the text gives them")
        if slot == "possessive":
            return Decision(f"{pseudo}'s", (), "a person's name becomes a consistent pseudonym")
        if span.meta.get("birth_name") == "comma":
            return Decision("", (), "a birth name is removed")
        if span.meta.get("birth_name"):
            return Decision(pseudo, (), "a birth name is removed with its bracket", drop_unit=True)
        if span.meta.get("role") == "modifier":
            # "the Salyut space stations", "the Louis Armstrong photo", "the Kelly brothers": the
            # name goes, its noun stays
            return Decision("", (), "a name modifying a noun is removed")
        if span.meta.get("role") == "appositive" and span.meta.get("set_off") and not subject.is_subject(span):
            # "His twin brother, Mark Kelly, is": the apposition goes with its commas (a
            # pseudonym only where it cannot)
            return Decision(pseudo, (), "a person's name in apposition is removed", drop_unit=True)
        if span.meta.get("role") == "appositive" and subject.is_subject(span):
            # the subject's other name beside the first ("X or Y, Baron von der Z (1828-1906) was"):
            # it goes; a pseudonym there makes a second person of them ("He, Person B was" was an output)
            return Decision("", (), "another name of the subject in apposition is removed", drop_unit=True)
        if span.meta.get("role") in _COMPANY and not subject.is_subject(span) and confirmed_person(span, ctx) \
                and (span.meta.get("governor") or ("",))[0] in _JOINT_DEEDS:
            return Decision(pseudo, (), "a person the subject founded or made something with: the deed was shared")
        if span.meta.get("role") in _COMPANY and not subject.is_subject(span) and confirmed_person(span, ctx) \
                and (span.meta.get("governor") or ("",))[0] not in _WITH_AS_OBJECT:
            # "was selected, along with Mikhail Korniyenko", "co-founded the association with X": whom
            # the subject did it with goes with its phrase ("along with Person GJ" read as a form);
            # the pseudonym only where no phrase can go
            return Decision(pseudo, (), "a person the subject did something with: the phrase goes", drop_unit=True)
        if span.meta.get("venue") and not subject.is_subject(span) and not span.meta.get("honorific"):
            # "at Person T" (Roland Garros), "Person EL in New Jersey" (a gallery): after "at" or
            # "in" a name is a venue more often than a person; a pseudonym there invents one
            return Decision(pseudo, (), "a name after 'at' or 'in' (a venue more often than a person): its phrase goes",
                            drop_unit=True, or_sentence=True)
        if not subject.is_subject(span) and _signed_for_a_town(span) and " " not in span.text.strip():
            # (a given name too: "Chester")
            return Decision("a team", (), f"a town's name after '{_governor(span)}' is its team")
        if not subject.is_subject(span) and not confirmed_person(span, ctx) and (kind := slot_kind(span)) \
                and (kind != "a team" or " " in span.text.strip()):
            # "plays for Blyth Spartans" (not "played for Ellington": one word may be a bandleader),
            # "the mayor of Monte Hermoso" ("mayor of Person LL" was an output)
            return Decision(kind, (), f"a name of unknown kind after '{_governor(span)}' is {kind}")
        if not subject.is_subject(span) and not confirmed_person(span, ctx):
            # maybe a club, a town, a ship: the phrase that holds it goes; the pseudonym only
            # where no phrase can (a direct identifier is never kept)
            return Decision(pseudo, (), "a name of unknown kind (nothing but the NER says it is a person): "
                                        "its phrase goes", drop_unit=True, or_sentence=True)
        return Decision(pseudo, (), "a person's name becomes a consistent pseudonym")


OPERATORS: dict[str, Operator] = {op.name: op for op in (Keep(), Generalize(), Drop(), Person(), Remove())}


@dataclass(frozen=True)
class Policy:
    rules: dict[str, dict]
    direct: frozenset[str]
    source: str = "default"

    def rule(self, span_type: str) -> dict:
        return self.rules.get(span_type, {"operator": "keep"})

    def decide(self, span: Span, ctx: GeneralizeContext, subject: SubjectInfo) -> Decision:
        rule = self.rule(span.type)
        op = OPERATORS.get(rule.get("operator", "keep"))
        if op is None:
            raise UserInputError(f"policy {self.source}: unknown operator {rule.get('operator')!r} for {span.type}; "
                                 f"known: {', '.join(sorted(OPERATORS))}")
        return op.decide(span, ctx, rule, subject)


def load_policy(path: str | Path | None = None) -> Policy:
    return _load(str(path or DEFAULT_POLICY))


@lru_cache(maxsize=8)
def _load(path: str) -> Policy:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise UserInputError(f"policy {path}: {e}") from e
    rules = data.get("rules")
    if not isinstance(rules, dict):
        raise UserInputError(f"policy {path}: expected an object 'rules' mapping span types to operators")
    for t, rule in rules.items():
        if rule.get("operator") not in OPERATORS:
            raise UserInputError(f"policy {path}: unknown operator {rule.get('operator')!r} for {t}; "
                                 f"known: {', '.join(sorted(OPERATORS))}")
    return Policy(rules=rules, direct=frozenset(data.get("direct", [])), source=path)


__all__ = ["DEFAULT_POLICY", "Decision", "FORMULA_LADDER", "NAME_KIND_HEADS", "OPERATORS", "Operator", "Policy",
           "SubjectInfo", "load_policy", "pick", "plural", "rung_level"]
