"""The local optimizer is a *planner*: it edits grammatical units of the original text, never
single words inside a phrase, and every rendered sentence must pass the parse check.

Units (:mod:`veil.agents.local.units`) are spans (entities, dates, numbers, contacts...) with
their truthful ladder, removable dependents (prepositional phrases, appositives, clauses,
conjuncts, modifiers) and sentences. The text is always rendered from the original plus the set
of chosen edits, sentence by sentence, so an edit is undone exactly and a candidate edit costs
one short sentence to re-render and re-tokenize.

Privacy mode, in order (each edit kept only if its sentence still parses as English):
1. direct identifiers always: names become the pronoun the text uses for its subject, or a
   consistent pseudonym; contacts, ids, addresses go with the phrase that holds them
   ("call me at 555-...": "call me") or become a placeholder; dates of birth become decades;
2. the policy (``data/policy.json``): every span of a known type at its policy level
   (dates to decades, places to regions, organisations and events to their kind, numbers to
   ranges);
3. while the simulated attacker still wins, the units that help it most per word they hold go
   one rung up their ladder or are deleted (INTACT's choice of the most specific option that
   takes (nearly) as much of the attacker's score away as deletion; GreedySanitize's gain per
   cost), fed by the P-Evaluator's clues. The attacker is the P-Evaluator's
   (:func:`veil.agents.local.p_evaluator.run_attack`): BM25 and, once BM25 is beaten, the
   semantic linker too; the plan stops only when the stronger of the two fails;
4. as a last resort, whole sentences.
Utility mode undoes the attacker-driven edits that the privacy target does not need and steps
generalizations back down their ladders. Direct identifiers and the policy floor stay.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from veil import nlp
from veil.agents.base import Edit, MemoryEntry, Mode, Optimizer, OptimizerResult, PrivacyResult, Task, UtilityResult
from veil.agents.literal import (NAME_GAP, NAME_PARTICLE, NICKNAME, NICKNAMED, POSTNOMINALS, QUOTED_NICKNAME,
                                 role_said_beside)
from veil.agents.local.generalize import PSEUDONYM, GeneralizeContext, apply, article_for, role_noun, year_ladder
from veil.agents.local.p_evaluator import AttackResult, LocalPrivacyEvaluator, run_attack
from veil.agents.local.policy import FORMULA_LADDER, HORSE, HORSE_GOVERNORS, NAME_KIND_HEADS, Policy, SubjectInfo, load_policy, plural, slot_kind
from veil.agents.local.retrieval import tokenize
from veil.agents.local.spans import (COMPASS, race_names, NAME_TITLES, RACING_TEXT, STOP_WORDS, Span, deny_spans, find_spans, fold, known_capitals,
                                     lexicon, number_value, place_info)
from veil.agents.local.spans import _zipf  # (the span finder's word frequency: one measure of "rare")
from veil.agents.local.units import (
    ARTICLE, DEICTIC_NOUNS, LIST_CC, LIST_ITEM, RANKING, Constituent, ListMark, Piece, constituents, is_ordinal, list_marks, negated)
from veil.agents.batch import Batch
from veil.agents.local.world import LocalBatch, LocalWorld, local_batch

# (never the gap between two of a form's fields: "Employee: Person A    Employee ID: [id]")
_WS = re.compile(rf"(?<![ \t])[ \t]{{2,}}(?![ \t]*{nlp.FORM_LABEL}[ \t])")
_SPACE_PUNCT = re.compile(r"\s+([,.;:!?)])(?!(?<=\.)\d)")  # (not a decimal's point: "over .300")
_DOUBLE_PUNCT = re.compile(r"([,;:])\s*([,.;:!?])")
_OPEN_PAREN_SPACE = re.compile(r"\(\s+")
_PERIOD = r"(?:\d{3}0s|\d{1,2}(?:st|nd|rd|th) century)"
# "(the 1890s – the 1970s)" -> "(1890s–1970s)": a range in brackets takes no articles
_BRACKET_RANGE = re.compile(rf"\((?:in )?(?:the )?(early |mid-|late )?({_PERIOD}(?:(?: in|,) [^()–]+?)?)\s*(?:[–-]|to)\s*(?:in )?(?:the )?(early |mid-|late )?({_PERIOD}(?:(?: in|,) [^()–]+?)?)\)")
# "an organization, an organization and an organization": "three organizations"
# (not before a bracket that qualifies the last item only: "a team (two seasons), a team and a team (one
# season)" -> "and two teams (one season)" was an output)
_SAME_KIND_LIST = re.compile(r"\b(an?) ([a-z]+(?: [a-z]+){0,2})((?:, \1 \2\b)*,? and \1 \2)\b(?!\s*\()(?! ceremon)"
                             # (nor one whose last item an apposition tells of: "a parent and a parent - a former
                             # tennis player" is no "two parents - a former tennis player")
                             r"(?!\s*[–—]|\s+-\s|,\s+(?:an?|the)\s)")
# the same with a bracket after some items: "a baseball team (in the 1940s), a baseball team and a baseball
# team (in the 1950s)" (an output) -> "three baseball teams": which bracket went with which item says
# little once every item is the same kind, and the list reads as a template
_SAME_KIND_BRACKETED = re.compile(r"\b(an?) ([a-z]+(?: [a-z]+){0,2})(?: \([^()]*\))?((?:, \1 \2(?: \([^()]*\))?)*,? "
                                  r"and \1 \2\b(?: \([^()]*\))?)(?! ceremon)")
_COUNT = {2: "two", 3: "three", 4: "four", 5: "five"}
# a kind phrase (a ladder's rung) before the noun it already ends with ("a chess title title")
_KIND_TWICE = re.compile(r"\b([Aa]n? (?:[a-z]+ ){0,2}?)(title|team|club|event|award|prize|medal|trophy|company|"
                         r"organization|school|university|league|race|championship|tournament|competition|show|"
                         r"series|film|band|newspaper|magazine|agency|building|ship) \2\b")
# "the head coach of a team of an organization" (the Philadelphia Wings of the National Lacrosse
# League): an organization's kind needs no "of an organization" after it
_KIND_OF_ORGANIZATION = re.compile(r"\b((?:an?|another) (?:[a-z]+ )?(?:organization|team|club|company|university|school|league|"
                                   r"association|institution|agency|federation|union|band|orchestra)) of an organization\b")


_LISTED_AFTER = re.compile(r"\s*(?:['’](?:s\b)?|,\s*(?:an?|and)\b|and\b)")
_KIND_PHRASE = re.compile(r"(an?) ((?:[a-z-]+ ){0,2}[a-z]+)")
# a gap between two kind phrases that makes them items of one list ("an award for X, an award for Y
# and an award"): tidy() counts a list's items; "another" is for a second mention outside one
_LIST_GAP = re.compile(r"(?:,|;|\b(?:and|or|nor|as well as))\s*(?:[Tt]he\s+)?$")  # (a joint right before the second)


def _another(reps: list[tuple[int, Span, str]], sentence: str) -> list[tuple[int, Span, str]]:
    """The second of two spans of one sentence that became the same kind phrase, outside a list:
    "another team" where the writer named two ("joined a team before joining a team" was an
    output of "joined Toronto FC before joining Real Salt Lake"), "the team" where the writer
    named the same one twice. Items of a list ("a team, a team and a team") are left to
    :func:`tidy`, which counts them."""
    dels = [s for _, s, r in reps if r == ""]
    seen: dict[str, tuple[Span, str]] = {}
    out = []
    for w, s, r in sorted(reps, key=lambda x: x[1].start):
        m = _KIND_PHRASE.fullmatch(r) if s.type != "UNIT" else None
        if m is None or any(d.start <= s.start and s.end <= d.end for d in dels):
            out.append((w, s, r))
            continue
        if r in seen and fold(seen[r][1]) == fold(s.text):
            r = f"the {m.group(2)}"  # (the same name twice is one thing, in a list or not)
        elif r in seen and not _LIST_GAP.search(sentence[seen[r][0].end:s.start]):
            r = f"another {m.group(2)}"
        else:
            seen[r] = (s, s.text)
        out.append((w, s, r))
    return out

# "the zoological museum in " right before a place: the writer's one museum in that place
_THE_ONE_IN = re.compile(r"\b([Tt]he) ((?:[a-z-]+ ){0,2}[a-z-]+) in $")
# words that make "the" no mere pointer ("the same club", "the next season"; a rank - "the most visited
# museum", "the first woman" - is _RANKS'), or that show the words are no noun phrase ("the years he spent in")
_NOT_ONE_OF_MANY = frozenset("""same next other following whole entire previous very main principal the of a an he
she it they his her its their who which that he's was were is are had has have""".split())


def _one_of_many(reps: list[tuple[int, Span, str]], sentence: str) -> list[tuple[int, Span, str]]:
    """The "the" of a noun a place located, once the place is a wider one: "the zoological museum
    in Berlin" -> "a zoological museum in Germany" ("the zoological museum in Germany" - false:
    Germany has many - was an output). Not where a rank makes it one ("the first woman in
    Berlin", whose place the policy does not widen), nor where the place is only a kind."""
    out = list(reps)
    for _, s, r in reps:
        if s.type != "LOCATION" or not r or r[:2] in ("a ", "an") or r.startswith(" in "):
            continue
        m = _THE_ONE_IN.search(sentence[:s.start])
        words = m.group(2).split() if m else []
        if m is None or any(w in _NOT_ONE_OF_MANY or _RANKS.fullmatch(w) or w.endswith("est") for w in words) \
                or words[-1] in DEICTIC_NOUNS or words[-1] in lexicon()["mass_nouns_set"] or re.search(r"[^su]s$", words[-1]):
            continue  # (nor a plural or a mass noun: "the fans in Norway", "the water in"; "-est" may be a
            # superlative: "the forest in Bavaria" stays as it was rather than risk "a largest museum")
        out.append((3, Span(m.start(1), m.end(1), m.group(1), "UNIT"), ARTICLE if m.group(1) == "the" else ARTICLE.capitalize()))
    return out


# "the head coach of a team of a league" (of "the Philadelphia Wings of the National Lacrosse
# League"): the league's kind phrase adds nothing to the team's
# "such prestigious venues as a hall", "venues such as a hall": an example that the edits made a
# kind says nothing the plural before it did not (said of "Kyoto Concert Hall")
_SUCH_AS_KIND = re.compile(r"\bsuch ((?:[a-z-]+ ){0,3}[a-z-]+s) as an? (?:[a-z-]+ ){0,1}[a-z-]+(?= ?[.,;:)]|$)|"
                           r"\b([a-z-]+s),? such as an? (?:[a-z-]+ ){0,1}[a-z-]+(?= ?[.;:)]|$)")
# "was educated at an educational institution": a kind that says what the verb said
_EDUCATED_AT_KIND = re.compile(r"\b(educated|schooled) (?:at|in) an? (?:educational institution|school)(?=\s*(?:[.,;:)]|$|and\b(?! an? )))")
_ENDED = re.compile(r"[.!?][\"'”’)\]\\]*\s*$")  # a sentence's end: its point and the quotes or brackets after it
_TEAM_OF_LEAGUE = re.compile(r"\b((?:an?|another) (?:[a-z]+ ){0,2}(?:team|club)) of an? (?:[a-z]+ ){0,2}league\b")


def _same_kind_list(m: re.Match) -> str:
    if "(" not in m.group(0) and m.re is _SAME_KIND_BRACKETED:
        return m.group(0)  # (_SAME_KIND_LIST's)
    n = len(re.findall(rf"\b{re.escape(m.group(1))} {re.escape(m.group(2))}\b", re.sub(r"\([^()]*\)", "", m.group(0))))
    joined = f"{_COUNT.get(n, 'several')} {plural(m.group(2))}"
    return f"and {joined}" if m.string[max(0, m.start() - 2):m.start()] == ", " else joined  # the end of a longer list


# a year before a noun that is a span of time ("for the 1958-9 session"): "a session" reads as one
# sitting, "the session" keeps the writer's sense
_TIME_NOUN_AFTER = re.compile(r"\s*(?:session|term|season|semester|year|campaign|period|era|decade|spell|stint)s?\b", re.I)
# a stand-in that is a period alone ("the 2010s", "the late 20th century") and a phrase with nothing
# else but its preposition and commas ("In | October 2015 |, ")
_PERIOD_PHRASE = re.compile(rf"((?:[Ii]n |[Dd]uring )?)(?:the )?((?:early |mid-|late )?{_PERIOD})")
_BARE_PREPOSITION = re.compile(r"[\s,]*(?:[Ii]n|[Dd]uring|[Bb]y|[Oo]n|[Aa]round|[Ss]ince)?[\s,]*")
# "In the 2000s and the 2000s" (2008 and 2009): one period
_SAME_PERIOD = re.compile(rf"\b((?:in )?the (?:early |mid-|late )?{_PERIOD})((?:, \1)*(?:,? and|,)? \1)\b")


def _same_period(m: re.Match) -> str:
    """One period for a run of the same one; the end of a longer list keeps its "and" ("in 1999,
    2011 and 2015": "in the 1990s and the 2010s", not "in the 1990s, the 2010s")."""
    if " and" in m.group(2) and m.string[max(0, m.start() - 2):m.start()] == ", ":
        return "and " + m.group(1)
    return m.group(1)


# "for the late 20th century and the 1990s" (of "for 1990 and 1991", each year at its own rung):
# the decade is within the century, and the wider period says both
_NESTED_PERIODS = re.compile(r"\bthe ((?:early |mid-|late )?\d{1,2}(?:st|nd|rd|th) century) and (?:the )?(\d{3}0)s\b"
                             r"|\bthe (\d{3}0)s and the ((?:early |mid-|late )?\d{1,2}(?:st|nd|rd|th) century)\b")


def _nested_periods(m: re.Match) -> str:
    # (the second without its "the", as the writer's "the 1970s and 1980s" left it: "the late 20th century and
    # 1980s" was an output)
    century, decade = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
    d = int(decade)
    within = f"the {century}" in year_ladder(d)[2:] + year_ladder(d + 9)[2:]
    return f"the {century}" if within else m.group(0)


_TWO_PERIODS = re.compile(rf"(?<!, )\b(the (?:early |mid-|late )?{_PERIOD}), and(?= the)")  # two items take no comma
# "In the 2010s, he announced his retirement in the 2010s": the period once
_FRONTED_TWICE = re.compile(rf"(?:^|(?<=[.!?] ))(In (the (?:early |mid-|late )?{_PERIOD}),? [^.;()]*?) in \2\b")
# "in Idaho, Idaho" once "Boise, Ada, Idaho" generalized town and county to their state, "in
# California and California" once "San Francisco and Los Angeles" did
_SAME_PLACE = re.compile(r"\b([A-Z][\w.]*(?: [A-Z][\w.]*){0,2})(?:(?:,| and|, and) (?:the )?\1\b)+")
# "in late the 2010s" (of "in late 2012"): the qualifier was the year's, not the decade's ("the late
# 2010s" was an output for 2012): it goes
_LATE_THE = re.compile(rf"\b(early|mid|late)[- ]the ({_PERIOD})")
_ON_PERIOD = re.compile(rf"\b([Oo])n (the (?:early |mid-|late )?{_PERIOD})")  # "On the 2010s" -> "In the 2010s"
# "in the early hours of the 2010s" (of 13 March 2011): a time of day says nothing of a decade
_HOURS_OF = re.compile(rf"\b(?:([IiOo])n )?the (?:early |late |small )?(?:hours|morning|evening|night|afternoon|day|eve) "
                       rf"of (the (?:early |mid-|late )?{_PERIOD})")
# "in the 2000s, in the 2010s" (in 2005 and 2011): one list of periods
_PERIOD_LIST = re.compile(rf"\b([Ii]n the (?:early |mid-|late )?{_PERIOD})((?:, in the (?:early |mid-|late )?{_PERIOD})+)\b")


def _period_list(m: re.Match) -> str:
    items = [m.group(1)] + [x.strip()[3:] for x in m.group(2).split(",") if x.strip()]
    return ", ".join(items[:-1]) + " and " + items[-1]


# "started training at as a child" (at 6 years old): an age's rung brings its own preposition
_AT_AGE = re.compile(r"\b([Aa])t (as an? (?:child|teenager|adult)|at a young age|in (?:their|her|his) (?:early |mid-|late )?[a-z]+ies)\b")
# "ended at the end of the 1990s" (of "at the end of July, 1996"): the end of a wider period is a
# different time; the preposition that fits the period alone stands ("the turn of" a century is left alone,
# and "by the end of", a running total's time, too)
_END_OF_PERIOD = re.compile(rf"\b(?:([Aa]t|[Tt]owards?|[Nn]ear|[Aa]round|[Ii]n)|([Uu]ntil|[Tt]ill|[Tt]hrough)|"
                            rf"([Ff]rom|[Ss]ince)) the (?:very )?(?:end|close|beginning|start|middle|outset) of "
                            rf"(the (?:early |mid-|late )?{_PERIOD})")


def _end_of_period(m: re.Match) -> str:
    word = m.group(1) or m.group(2) or m.group(3)
    new = "in" if m.group(1) else "into" if m.group(2) else word.lower()
    return (new.capitalize() if word[0].isupper() else new) + " " + m.group(4)


# "from the 1850s to the 1850s" -> "in the 1850s": a range whose ends generalized to one period
_EMPTY_RANGE = re.compile(rf"\b(from|between|From|Between) (the (?:early |mid-|late )?{_PERIOD}) (?:to|until|till|through|and) \2")
_MALE = re.compile(r"\b(?:he|him|his|himself)\b", re.I)
_FEMALE = re.compile(r"\b(?:she|her|hers|herself)\b", re.I)
_SENTENCE_OPEN = re.compile(r"(?:^|[.!?][\"')\]]*\s+|\n\s*)$")
_FIRST = re.compile(r"\b(?:I|I'm|I've|I'd|my|me)\b")
DROP_KINDS = ("prepositional phrase", "appositive", "parenthetical", "conjunct", "adverbial phrase",
              "relative clause", "participial clause", "modifier")
MAX_DROP_TOKENS = 12
STUB_TOKENS = 2  # an edited sentence with this many content words or fewer left is a stub (see _drop_stubs)
# the tokens of the generic words that replacements put in (see generalize.GENERAL): they say nothing new
_FILLER_TOKENS = frozenset(tokenize("organization organizations team teams competition competitions event events "
                                    "award awards place places city country person people work works product "
                                    "products decade year century period"))
# and the kinds a stand-in names, which say what sort of thing, not which ("a sports team", "an
# educational institution", "a competition")
_KIND_TOKENS = _FILLER_TOKENS | frozenset(tokenize("sports sport league leagues club clubs institution institutions "
                                                  "educational school schools university universities championship "
                                                  "match tournament race game games prize honor honour group federation association "
                                                  # (a debut is a kind of taking part, a sport the kind of a team)
                                                  "debut baseball football basketball hockey soccer cricket rugby cemetery"))
# the verbs of taking part that a sportsman's or a student's label implies ("He played for a team.", "He won
# a competition.", "He was drafted by a sports team.", "He attended an educational institution.")
_TAKING_PART = frozenset(tokenize("play played win won compete competed join joined sign signed attend attended "
                                  "graduate graduated transfer transferred enter entered ride rode represent "
                                  "represented draft drafted reach reached participate participated stay stayed "
                                  "draw drew induct inducted study studied debut make made "
                                  # (and the first or last of them: "His first race was at a race.")
                                  "first last final "
                                  # (and a burial, which every life ends in: "Interment in a cemetery." was an output)
                                  "bury buried interment interred"))
_NOT_A_NAME_TYPES = frozenset({"ORG", "LOCATION", "PRODUCT", "WORK", "EVENT", "AWARD", "TITLE"})
# what the pattern recognizers find in any language (Presidio's and VEIL_PATTERNS)
LANGUAGE_INDEPENDENT = frozenset({"EMAIL", "PHONE", "URL", "ID", "ADDRESS", "DOB", "DENY"})


_WORD = re.compile(r"[A-Za-z]{4,}")
_DEFINITE = re.compile(r"\b(?:the|that|this|these|those)\s+([a-z]{4,})\b")
_GENERIC_NOUNS = frozenset("""year years time times same following first last second third next previous world
united national country city state""".split())
# a sentence that opens by pointing back at the one before it
_CONNECTIVE = re.compile(r"(?:However|Also|Moreover|Furthermore|Nevertheless|Nonetheless|In addition|Additionally|"
                         r"Still|Instead|Meanwhile|Consequently|Therefore|Thus|As a result|Likewise|Similarly),\s+(?=[a-z])"
                         # a time counted from what the sentence before told: "Ten years later, in his late forties,
                         # he commanded" (an output whose sentence before had gone)
                         r"|(?:(?:[A-Z][a-z]+|\d+|A|An) (?:years?|months?|weeks?|days?|decades?|seasons?) later|"
                         r"The (?:next|following) (?:year|season|day|month))(?:,\s+|\s+(?=(?:he|she|they|his|her|in|at)\b))(?=[a-z])"
                         # (with its comma only: "Shortly after his graduation, he" is no connective)
                         r"|(?:Shortly|Soon) (?:afterwards?|thereafter),\s+(?=[a-z])")
_ANAPHOR = re.compile(r"(?:It|Its|This|That|These|Those|Such|They|Their|There|Here|The same|Membership|Both|Each)\b")
# a sentence that opens by pointing back at the one before it, beyond _ANAPHOR: "Other nominees
# include X.", "In doing so, they became ...", "Since then, he has ..." (outputs whose sentence
# before had gone)
_ORPHAN = re.compile(r"(?:Other|Another|In doing so|By doing so|Since then|The following|Following this|After this|"
                     r"Despite this|Because of this|During this|In this|At this|That same|Later that|The latter|"
                     r"In the same|The same year|That year|In that year|"
                     r"The former|The two|The pair|The couple|The duo|"
                     r"The (?:first|second|third|last|other|others|rest)(?= (?:was|were|is|are|had|has)\b)|"
                     # "Ten years later, he commanded ...": later than what the sentence before said
                     r"(?:[A-Z][a-z]+|\d+|A few|A couple of) (?:years?|months?|decades?|weeks?|days?) "
                     r"(?:later|after|afterwards|earlier|before)|Shortly (?:after|afterwards|thereafter)|"
                     r"Soon (?:after|afterwards|thereafter)|"
                     # "She returned to a country in Europe.", "He was discharged in the 1910s.": back from, or out
                     # of, what the sentence before told (outputs whose sentence before had gone)
                     r"(?:(?:In|By|During) (?:the )?(?:early |mid-|late )?\d{4}s?,? (?:he|she|they|I|we)|He|She|They|I|We)"
                     r"(?: later| then| eventually| subsequently| soon| finally)? "
                     r"(?:returned|came back|moved back|went back|was discharged|were discharged|was demobili[sz]ed)|"
                     r"(?:After|Before|Prior to|Following|Besides|Apart from) that\b|"
                     r"(?:On|Upon|After) (?:his|her|their|my|our) return|"
                     # "Stewart agrees, saying ...": with what the sentence before said ("He agrees" was left)
                     r"[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)? (?:agrees|agreed|disagrees|disagreed|concedes|conceded|"
                     r"replied|replies|responded|responds|countered|counters)(?= *[,.]))\b")
# a place that a claim ranges over: widening it widens the claim
_ALL_OVER = re.compile(r"(?:\ball\s+(?:around|over|across|through)|\bacross|\bthroughout|\bevery\b[^.,;]{0,40}?\bin)"
                       r"\s+(?:the\s+)?$", re.I)
# a time that an exception or a duration names ("missing out only in 1998", "every year except 1990",
# "joined the team for 1990 and 1991"): a wider one makes the claim bigger
_EXCEPT_TIME = re.compile(r"\b(?:(?<!not )only|except(?:\s+for)?|excepting|apart\s+from|save\s+for|other\s+than)"
                          r"\s+(?:(?:in|during|for|on|the)\s+)*$", re.I)
_FOR_TIME = re.compile(r"\bfor\s+$", re.I)
# a rank or a superlative right before a name ("the second World Champion", "the first Grand Slam")
_RANKED_BEFORE = re.compile(r"\b(?:only|sole|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|"
                            r"best|greatest|highest|youngest|oldest|earliest|most|least)(?:-ever)?\s+(?:the\s+)?$",
                            re.I)  # (not "the 78th Academy Awards": a number counts editions, not a rank)
_FRONTED_PERIOD = re.compile(rf"(?:^|(?<=[.!?] ))[Tt]he ((?:early |mid-|late )?{_PERIOD})(,?\s+)"
                             r"(He|She|They|We|It|His|Her|Their|he|she|they|we|I|it|his|her|their)\b")


def _fronted_period(s: str) -> str:
    """"1995 she was ranked" generalized: "In the 1990s she was ranked", not "The 1990s she"
    (nor "The 1850s He was received", where the name after the year became a pronoun)."""
    return _FRONTED_PERIOD.sub(lambda m: f"In the {m.group(1)}{m.group(2)}"
                               f"{m.group(3) if m.group(3) == 'I' else m.group(3).lower()}", s)


# "He, was a painter": what a name's bracket leaves after its comma once both went
# (with its life dates: "He (born in the 1980s), is a kickboxer" once ", also known as X," went)
_PRONOUN_COMMA = re.compile(r"^((?:He|She|They|It)(?: \([^()]*\))?),\s+(is|was|are|were|has|had|became|[a-z]{3,}ed(?=[^,]*$))\b", re.I)
# (a verb in "-ed" only with no comma after it: "He, dubbed 'ten of hearts' by his fans, was" is a participle's)
# "a Welsh racing cyclist from Wales" (of "from Newport, Wales"), "a French painter from France": the place
# the nationality already names says nothing
_FROM_NATION = re.compile(r"\b([A-Z][a-z]+) ((?:[a-z-]+ ){0,3}[a-z-]+) from ((?:the )?[A-Z][a-z]+(?: [A-Z][a-z]+)?)\b"
                          r"(?!\s*,?\s*[A-Z(]|['’]|\s+and\b|-)")
_HOME_NATIONS = {"Welsh": "Wales", "Scottish": "Scotland", "English": "England"}


def _from_nation(m: re.Match) -> str:
    adj, place = m.group(1), re.sub(r"^the ", "", m.group(3))
    cc = lexicon()["nationalities"].get(adj)
    info = place_info(place) if cc else None
    words = m.group(2).split()
    if words[-1].endswith(("ing", "ed")) or any(w in ("who", "that", "which", "away") for w in words):
        return m.group(0)  # a verb's "from": "a Polish poet living away from Poland", "who fled from Germany"
    if info and info.get("country_code") == cc and (info.get("kind") == "country" or _HOME_NATIONS.get(adj) == place):
        return f"{adj} {m.group(2)}"
    return m.group(0)


# "joined a team before joining a team" (of "joined the Ligier Formula One team before joining the Osella
# team": the names went as modifiers, so _another saw no kind phrase): two moves are two teams
_BEFORE_ANOTHER = re.compile(r"\b(an? (team|club|company|firm|university|school|college|band|orchestra|label) "
                             r"(?:[^.;,]{0,30}?\s)?(?:before|after)\s+(?:joining|moving to|signing (?:for|with)|"
                             r"transferring to|switching to)\s+)an? \2\b")  # (a move: "then coached a team" may be the same)
# "a chess Grandmaster (in the 2010s) and FIDE Trainer (in the 2010s)": one bracket after both
_SAME_BRACKET_TWICE = re.compile(r" \((in the [^()]{3,40})\)( and [^.()]{1,60}?) \(\1\)")
# "a United States congressman from the United States" (of "from Kentucky"): the state raised to the
# country that the noun already names says nothing: the phrase goes
_FROM_OWN_COUNTRY = re.compile(r"\b((?:United States|U\.S\.|American) [a-z]+(?: [a-z]+)?) from (?:the United States|North America)\b"
                               r"(?!\s+[A-Z])")  # (not "from the United States Military Academy")


# a generational suffix after a pseudonym says the person shares a name with another one of the
# text, most often the subject ("of Person TA and Person SZ, Sr." of "Jr."'s father): it goes
_SUFFIX_END = re.compile(r"\b(Person [A-Z]{1,3}),? (?:Sr|Jr)\.?(?=\s*$)")
_SUFFIX = re.compile(r"\b(Person [A-Z]{1,3}),? (?:Sr|Jr)\b\.?")
# a ruler's pseudonym between the title and the realm reads as no one writes ("received by King
# Person FG of Prussia"): the title with "the" says the same ("the King of Prussia")
_RULER = re.compile(r"\b(King|Queen|Emperor|Empress|Tsar|Czar|Tsarina|Sultan|Shah|Kaiser) Person [A-Z]{1,3}(?= of\b)")
_ARTICLE_TO_SETTLE = re.compile(r"\b([Aa])\(n\)(\s+\W*\w+)")


# a comma before an adverbial that only set it apart from the phrase before ("in MLB, primarily for";
# "with X, before moving"); never one that may open an apposition ("(born 1968), a Finnish driver,") or a
# clause ("at a bank, later becoming its president", "for Ajax, then joined")
_ORPHAN_COMMA = re.compile(r"\s*,(?=\s*(?:(?:primarily|mainly|mostly|largely|chiefly|initially|first|later|eventually|finally)"
                           r"\s+(?:for|in|at|with|on|as|from|to|under)\b|(?:before|after|until|since)\s+[a-z]+ing\b))")


def _and_given_back(reps: list[tuple[int, Span, str]], marks: tuple[ListMark, ...]) -> list[tuple[int, Span, str]]:
    """The coordinator a deletion took with a list's last items, back at the comma before the last
    item that stays: "She studied at a school, at an academy." -> "She studied at a school and at an
    academy." (of "at X, at Y, Z, at W and at V", the last three gone), "conferred by an
    organization, a school." -> "... by an organization and a school." (see ``units.list_marks``).
    Not where the coordinator joined words inside the item after that comma (the item's root holds
    the word before it): "a divorcee, the daughter of X and Y" is not "a divorcee and the daughter
    of X" once "and Y" goes, nor "born in Leeds, England, and raised in York" "born in Leeds and
    England"."""
    dels = [s for _, s, r in reps if r == ""]
    given = {s.start for _, s, r in reps if r.strip() in ("and", "or")}  # a unit gave it back already
    gone = lambda a, b: any(d.start <= a and b <= d.end for d in dels)  # noqa: E731
    out = []
    for d in dels:
        cc = next((m for m in marks if m.kind == LIST_CC and d.start <= m.start and m.end <= d.end), None)
        if cc is None:
            continue
        for m in reversed([m for m in marks if m.end <= d.start]):
            if gone(m.start, m.end):
                continue
            # (not where the coordinator joins words inside the item after that comma, unless the
            # item's first word comes again after it)
            inside = m.root in cc.holds and cc.after != m.first
            if m.kind == LIST_ITEM and m.start not in given and not inside:
                out.append((1, Span(m.start, m.end, "", "UNIT"), f" {cc.text}"))
            break
    return out


def _with_orphan_comma(rep: tuple[int, Span, str], sentence: str) -> tuple[int, Span, str]:
    """A deleted phrase takes the comma after it where no comma before it in the sentence could
    pair with that one, before an adverbial (``_ORPHAN_COMMA``): "He played in Major League Baseball
    (MLB), primarily for the Detroit Tigers" -> "He played primarily for a sports team" ("He played,
    primarily for" was an output)."""
    _, sp, r = rep
    if sp.start == 0 or "," in sentence[:sp.start] or not re.search(r"\w[\"'”’)]?\s*$", sentence[:sp.start]) \
            or not re.match(r"\s*(?:in|at|on|with|for|from|by|to|during|under|as|into|within)\s", sentence[sp.start:]):
        # (a prepositional phrase: what a bracket after a name sets apart stays set apart, "in a baseball
        # league, primarily for" of "in Major League Baseball (MLB), primarily for")
        return rep
    m = _ORPHAN_COMMA.match(sentence, sp.end)
    if m is None:
        return rep
    wide = Span(sp.start, m.end(), sp.text, sp.type)
    return wide.end - wide.start, wide, r


def _sentence_opens(s: str, pos: int) -> bool:
    return not s[:pos].strip(" \"“'(")


def _settled(a: str, rest: str) -> str:
    art = article_for(rest.strip())
    return (art.capitalize() if a.isupper() else art) + rest


def tidy(sentence: str) -> str:
    """Whitespace and punctuation that deletions leave behind ("a , b" -> "a, b", "in ( )"),
    and a capital at the sentence start. Removes only words that generalization left saying nothing
    or something false: a period repeated, "late" of "late 2012" before "the 2010s", "the early
    hours of" a decade; never a word that still carries a fact."""
    s = _WS.sub(" ", sentence)
    s = _ARTICLE_TO_SETTLE.sub(lambda m: _settled(m.group(1), m.group(2)), s)
    # the writer's "is a Irish former footballer" (nothing but the article changes; "a Ukrainian", "a European",
    # "a One-Day" keep theirs)
    s = re.sub(r"(?:(?<=\s)a|^A) (?=([AEIO][a-z]+)\b)",
               lambda m: m.group(0)[0] + "n " if article_for(m.group(1)) == "an" and not m.group(1).startswith(("Eu", "On")) else m.group(0), s)
    # "Nadorp, which is considered a painter" -> "He, who is considered": the writer's "which" after a name
    # reads as no one writes after the pronoun that stands for it
    s = re.sub(r"\b(He|She), which\b", r"\1, who", s)
    # "in the top 10 in the UCI rankings" -> "in the rankings" ("in an organization rankings" was an output)
    s = re.sub(r"\b[Aa]n? (?:[a-z]+ )?organization (rankings|standings|ratings)\b", r"the \1", s)
    s = _SUFFIX.sub(r"\1", _SUFFIX_END.sub(r"\1.", s))
    s = _RULER.sub(lambda m: f"{'The' if _sentence_opens(s, m.start()) else 'the'} {m.group(1)}", s)
    s = _BRACKET_RANGE.sub(lambda m: f"({m.group(1) or ''}{m.group(2)}–{m.group(3) or ''}{m.group(4)})", s)
    s = re.sub(rf"\(((?:early |mid-|late )?{_PERIOD})\s*[–-]\s*\1\)", r"(\1)", s)  # "(1870s–1870s)" -> "(1870s)"
    s = _SAME_PERIOD.sub(_same_period, s)
    s = _NESTED_PERIODS.sub(_nested_periods, s)
    s = _TWO_PERIODS.sub(r"\1 and", s)
    s = _SAME_PLACE.sub(r"\1", s)
    s = _FROM_OWN_COUNTRY.sub(r"\1", s)
    s = _FROM_NATION.sub(_from_nation, s)
    s = _SAME_BRACKET_TWICE.sub(r"\2 (\1)", s)
    s = _BEFORE_ANOTHER.sub(r"\1another \2", s)
    s = re.sub(r"\b([Tt]he|[Aa]) World (records?)\b", r"\1 world \2", s)  # (of "the Guinness World record")
    # the neutral word of two gendered ones, twice: "for both people and people" (of "for both men and women")
    s = re.sub(r"\b(?:both )?(people|children|siblings|parents|spouses|grandchildren|grandparents) and \1\b(?![\w'’-])", r"\1", s)
    # (and where the planner made one of the two neutral: "for both people and women")
    s = re.sub(r"\b(?:both )?(?:people and (?:men|women)|(?:men|women) and people)\b(?![\w'’-])", "people", s)
    s = _SAME_KIND_LIST.sub(_same_kind_list, s)
    s = _SAME_KIND_BRACKETED.sub(_same_kind_list, s)
    s = _KIND_OF_ORGANIZATION.sub(r"\1", s)
    s = _TEAM_OF_LEAGUE.sub(r"\1", s)
    s = _SUCH_AS_KIND.sub(lambda m: m.group(1) or m.group(2), s)
    s = _EDUCATED_AT_KIND.sub(r"\1", s)
    # a kind phrase before the noun it already ends with: "achieved a chess title title" (of "the
    # Grandmaster title")
    s = _KIND_TWICE.sub(r"\1\2", s)
    s = re.sub(r"\b([\w]+-time) an? (?=[a-z])", r"\1 ", s)  # "multiple-time a medalist" (of "multiple-time Olympic medalist")
    s = re.sub(rf"\b([Tt]he|[Tt]hose|[Tt]hese) years? the ((?:early |mid-|late )?{_PERIOD})", r"\1 \2", s)  # "The years the 1840s and 1850s"
    s = _EMPTY_RANGE.sub(lambda m: ("In " if m.group(1)[0].isupper() else "in ") + m.group(2), s)
    s = _END_OF_PERIOD.sub(_end_of_period, s)
    s = _LATE_THE.sub(lambda m: f"the {m.group(2)}", s)
    s = _ON_PERIOD.sub(lambda m: ("In " if m.group(1) == "O" else "in ") + m.group(2), s)
    s = _HOURS_OF.sub(lambda m: ("In " if (m.group(1) or "i").isupper() else "in ") + m.group(2), s)
    s = _PERIOD_LIST.sub(_period_list, s)
    s = _FRONTED_TWICE.sub(r"\1", s)
    # the comma that closed a city's region, or set a date apart, before a period the edits wrote: "born
    # in Ontario, in the 1850s" (of "born in Welland, Ontario, on August 26, 1859")
    s = _PLACE_COMMA_PERIOD.sub(r"\1 \2", s)
    s = _AT_AGE.sub(lambda m: (m.group(2)[0].upper() if m.group(1) == "A" else m.group(2)[0]) + m.group(2)[1:], s)
    s = re.sub(r"\b([Tt]he) The(?= [A-Z])", r"\1", s)  # "in the The Netherlands"
    s = re.sub(r",\s*\)", ")", s)
    s = re.sub(r"\s*\(\s*\)", "", s)  # a bracket whose words all went ('\"Gentile\" ()' of "(non-Mormon)")
    # or all but the small words between its names ("an association (, now) board" of "the Women's Tennis
    # Association (WTA, now WTA Tour) board")
    s = re.sub(r"\s*\((?:[\s,;]|\b(?:now|then|later|formerly|currently|also|and|or|the|an?)\b)*\)", "", s)
    s = re.sub(r"\)(?=[^\W\d_])", ") ", s)  # "(born in the 1960s in California)is"
    s = re.sub(r"(?:(?<=[^\W\d_])|(?<=\))),(?=[^\W\d_])", ", ", s)  # the writer's ",a Brazilian naturalized as X,was"
    s = re.sub(r"(?<=[a-z)\]])\.(?=[A-Z][a-z]+\b(?![.@]))", ". ", s)  # the writer's "(1893 – 1897).He was" the splitter kept as one
    s = _fronted_period(s)
    s = re.sub(r"([“(])\s+", r"\1", s)
    s = _OPEN_PAREN_SPACE.sub("(", s)
    s = _SPACE_PUNCT.sub(r"\1", s)
    s = _DOUBLE_PUNCT.sub(lambda m: m.group(2) if m.group(2) in ".!?" else m.group(1), s)
    # "an M.S..", "an LL.D. ." (an abbreviation's point ends the sentence; after the space before it went)
    s = re.sub(r"(?<=\b[A-Z]\.)\.(?=\s|$)", "", s)
    s = re.sub(r"(?<=[^\W\d_])\.\.(?=\s|$)", ".", s)  # the writer's "a professional baseball pitcher.." (not an ellipsis)
    if s.count('"') % 2 == 1 and not re.search(r"\d\\?\"", s):  # (an inch mark is no quotation's)
        # a quotation's closing mark whose opening went with the sentence before ("He moved millions of
        # people \"." was an output)
        # (only one set apart by a space: a quotation that runs over two sentences ends in one of them)
        s = re.sub(r'\s+\\?"(?=[.!?]?\s*$)', "", s)
    s = s.strip()
    s = re.sub(r"^[,;:]\s*", "", s)
    s = _PRONOUN_COMMA.sub(r"\1 \2", s)  # (after the space before a comma is gone: "He , is")
    if s[:1].islower():
        s = s[0].upper() + s[1:]
    return s


_PLACE_COMMA_PERIOD = re.compile(rf"(\b(?:in|at) (?:the )?[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*)*), "
                                 rf"((?:in|from|during|since) the (?:early |mid-|late )?{_PERIOD}(?= ?[.;]|$))")
# "Born in North America, he moved to North America" (Massachusetts, then Ohio, both raised to
# the continent) says a false thing no single rung does: a move needs two places that differ
_SAME_MOVE = re.compile(r"\b(?:[Bb]orn|raised|grew up|lived|living|based) in ((?:the )?[A-Z][\w-]*(?: [A-Z][\w-]*)*)"
                        r"\b[^.;]*?\b(?:moved|relocated|emigrated|immigrated|returned|went|came) to \1\b")


def balance(text: str) -> tuple[int, int, int]:
    """Open brackets and the parity of straight and curly quotes: what an edit must not change
    ("the family of Person A) Person B", "a tennis player, \" from Europe")."""
    return (text.count("(") - text.count(")"), text.count('"') % 2, (text.count("“") - text.count("”")))


@lru_cache(maxsize=50_000)
def _bared_clause(rendered: str, original: str) -> bool:
    """A relative or adverbial clause whose verb the edits left with nothing after it, where the
    writer's verb had something: "a footballer who played." (of "who played for Hartlepool"); a
    participle the edits left before its "and": "He was born and was Chief Engineer"."""
    doc = nlp.parse(rendered, light=True)
    for t in doc:
        if t.pos_ == "VERB" and t.dep_ in ("relcl", "acl", "advcl") and t.i + 1 < len(doc) and doc[t.i + 1].is_punct \
                and not any(c.i > t.i and c.dep_ not in ("punct", "prt") for c in t.children) \
                and not re.search(rf"\b{re.escape(t.text)}\s*[.,;:!?)]", original) \
                and re.search(rf"\b{re.escape(t.text)}\s+\w", original):
            return True
        if t.pos_ == "VERB" and t.tag_ == "VBN" and t.i + 1 < len(doc) and doc[t.i + 1].dep_ == "cc" \
                and doc[t.i + 1].head == t and not any(c.i > t.i and c.dep_ not in ("punct", "cc", "conj") for c in t.children) \
                and not re.search(rf"\b{re.escape(t.text)}\s*(?:[.,;:!?)]|and\b|or\b)", original) \
                and re.search(rf"\b{re.escape(t.text)}\s+\w", original):
            return True  # "He was born and was Chief Engineer" (of "born in Orton Longueville (then in ...) and")
    return False


def _chain(tok) -> list:
    """A list's items as the parse chains them: "A, B, C and D" is A -> B -> C -> D."""
    items = [tok]
    while (nxt := next((c for c in items[-1].children if c.dep_ == "conj"), None)) is not None and len(items) < 50:
        items.append(nxt)
    return items


@lru_cache(maxsize=50_000)
def _list_lost_its_and(rendered: str, original: str) -> bool:
    """A list the edits left without the "and" the writer's list had: "He was an
    American stand-up comedian, director, producer, writer." (of "..., writer, singer and voice
    artist"). A writer's own list without one stays as written."""
    doc = nlp.parse(rendered, light=True)
    listed = _listed_with_and(original)
    if any(t.head.i == t.i + 1 and t.dep_ in ("compound", "amod") and t.is_alpha and t.head.is_alpha
           and re.search(rf"\b{re.escape(t.text)},[^.;]{{0,80}}?\b(?:and|or)\b[^.;]{{0,40}}?\b{re.escape(t.head.text)}\b", original)
           and not re.search(rf"\b{re.escape(t.text)} {re.escape(t.head.text)}\b", original)
           for t in doc[:-1]):
        # two of the writer's list items glued together: "an attorney politician" (of "attorney, diplomat
        # and Democratic Party politician"; the parse of such lists is too often wrong to ask it)
        return True
    heads = [t for t in doc if t.dep_ != "conj" and any(c.dep_ == "conj" for c in t.children)]
    for t in heads:
        items = _chain(t)
        if len(items) < 3 or any(c.dep_ == "cc" for x in items for c in x.children):
            continue
        if t.text in listed:
            return True
    for m in _COMMA_LIST.finditer(rendered):
        # "He is a comedian, writer." (of "comedian, writer, actor and filmmaker"): the parse reads
        # two items left without their "and" as anything but a list
        words = [w.strip() for w in m.group(0).split(",")]
        if all(w in listed for w in words) and not re.search(re.escape(m.group(0)) + r"(?![\w-]|,| and\b| or\b)", original):
            return True
    for m in _TWO_WITH_COMMA.finditer(rendered):
        # "He was a table tennis player, and author." (of "player, coach, and author"): two items
        # left with the comma of a longer list
        after = m.group(2).split()[:3]
        if m.group(1) in listed and any(w in listed for w in after) and m.group(0) not in original:
            return True
    return False


@lru_cache(maxsize=50_000)
def _lost_plural_subject(rendered: str, original: str) -> bool:
    """A list subject the edits cut to one item while its verb stays plural: "a company in
    Finland have all been clients of him" (of "Adidas, Caterpillar Inc., Nokia, ... and New Era
    have all been clients of Wale"). Only where the writer's sentence had a listed subject of
    that verb (a writer's own slip stays as written)."""
    doc = nlp.parse(rendered, light=True)
    for t in doc:
        if t.dep_ not in ("nsubj", "nsubjpass") or t.tag_ not in ("NN", "NNP") or any(c.dep_ == "conj" for c in t.children):
            continue
        verbs = [t.head] + [c for c in t.head.children if c.dep_ in ("aux", "auxpass")]
        if not any(v.tag_ == "VBP" or v.lower_ == "were" for v in verbs):
            continue
        def listed(d) -> int:
            return sum(1 for s in d if s.dep_ in ("nsubj", "nsubjpass") and s.head.lower_ == t.head.lower_
                       and any(c.dep_ == "conj" for c in s.children))

        if listed(nlp.parse(original, light=True)) > listed(doc):
            return True
    return False


# the last two items of a list, the comma of a longer one between them, no item before them
_TWO_WITH_COMMA = re.compile(r"(?<!, )\b([A-Za-z][\w-]*), (?:and|or) ((?:[A-Za-z][\w-]* ?){1,3})")


# a sentence that ends on two short items of a list, a comma between them: "a counsellor, stand-up comic."
# (a role list after a copula only: "moved to Paris, France.", "played for the club, his hometown team." and
# "retired, aged sixty." are no such list)
_PHRASE_WORDS = frozenset("a an the in of at to for on with by from as into and or born his her their its cum".split())  # (no list of nouns)
_LIST_TAIL = re.compile(r"\b(?:is|was|are|were|became|becomes|remains|remained) an? [a-z][a-z-]*, (?:[a-z-]+ ){0,2}[a-z-]+\.$")


def _list_with_its_and(rendered: str, original: str) -> str:
    """The "and" back in place of the comma of a list the edits cut to its first two short items,
    where the original list had one: "He is a counsellor, stand-up comic." -> "He is a counsellor
    and stand-up comic." (of "a counsellor, stand-up comic, the author of X, and the founder of Y", a
    list whose parse made the first item a modifier of the second, so that no unit could give the
    "and" back)."""
    m = _LIST_TAIL.search(rendered)
    if m is None:
        return rendered
    tail = m.group(0)[:-1].split(", ", 1)[-1].split()
    if _PHRASE_WORDS & set(tail) or any(w.endswith("ly") for w in tail) \
            or not re.search(re.escape(m.group(0)[:-1]) + r",[^.;]{0,200}?,? (?:and|or) ", original):
        return rendered
    return rendered[:m.start()] + m.group(0).replace(", ", " and ", 1) + rendered[m.end():]


# words joined by commas alone, with no "and"/"or" (nor another comma) after the last
_COMMA_LIST = re.compile(r"\b[A-Za-z][\w-]*(?:, [A-Za-z][\w-]*)+\b(?![\w-]|,| and\b| or\b| &)")


@lru_cache(maxsize=50_000)
def _listed_with_and(original: str) -> frozenset[str]:
    """The words of the writer's sentence that stand in a list joined by "and" or "or" (kept per
    sentence, not its parse: a parse takes 60 KiB, and the planner asks again and again)."""
    out = set()
    for u in nlp.parse(original, light=True):
        v = u
        while v.dep_ == "conj" and v.head.i < v.i:  # (the parse may start the list elsewhere)
            v = v.head
        if any(c.dep_ == "cc" for x in _chain(v) for c in x.children):
            out.add(u.text)
    return frozenset(out)


# the sentence adverbs that judge what the rest of the sentence says: its reason cut, the judgement
# is of nothing ("Unfortunately, he entered the tennis scene." of "... after the GDR had decided to
# promote only Olympic sports")
_COMMENT_ADVERB = re.compile(r"^(?:Unfortunately|Fortunately|Sadly|Tragically|Ironically|Surprisingly|Luckily|"
                             r"Unluckily|Curiously|Remarkably|Interestingly|Paradoxically|Notably),")
_CLAUSE_WORDS = frozenset("after because since when while although though as which who but so despite".split())
_FROM_TO = re.compile(r"\b[Ff]rom ((?:[\w'’-]+ ){0,3}?[\w'’-]+) to\b")


def _lost_its_point(rendered: str, original: str) -> bool:
    """A range left without its end: "varied from undersea to aerial photography and from people"
    (of "from people to complex science subjects"); a judging sentence adverb whose sentence lost
    a clause (a word that opens one is gone): what it judged may be what went."""
    for m in _FROM_TO.finditer(original):
        start = re.escape(m.group(1))
        if re.search(rf"\b[Ff]rom {start}\b", rendered) and not re.search(rf"\b[Ff]rom {start} to\b", rendered):
            return True
    if not _COMMENT_ADVERB.match(rendered):
        return False
    said = set(re.findall(r"[a-z]+", rendered.lower()))
    return any(w not in said for w in re.findall(r"[a-z]+", original.lower()) if w in _CLAUSE_WORDS)


@lru_cache(maxsize=50_000)
def _lost_complement(rendered: str, original: str) -> bool:
    """A word whose sense needs a prepositional phrase (the lexicon's ``complements``), left
    without the one the writer gave it: "he was exposed at an early age" (of "exposed to art
    photography at an early age"), "As head, he has led" (of "As head of his own firm"), "with a
    goal." (of "a goal of documenting ..."). A word the writer left without one stays."""
    frames = lexicon()["complements_map"]
    doc = nlp.parse(rendered, light=True)
    for t in doc:
        preps = frames.get(t.lower_)
        if not preps or any(c.i > t.i and c.lower_ in preps and (c.head in (t, t.head) or c.i == t.i + 1 or (
                c.head.dep_ == "dobj" and c.head.head == t)) for c in t.sent):
            continue
        if preps & _complemented(original).get(t.lower_, frozenset()):
            return True
    return False


@lru_cache(maxsize=50_000)
def _complemented(original: str) -> dict[str, frozenset[str]]:
    """Each word of the writer's sentence with the prepositions of the phrases it governs,
    its own or a conjunct's (a list of such words: "is coached and trained by X")."""
    out: dict[str, set[str]] = {}
    for u in nlp.parse(original, light=True):
        # a noun shares its conjunct's phrase only right before it ("the author and editor of"), not
        # as an earlier item of a list ("author, and founder of the X process": "author." is whole)
        conj = [c for c in u.children if c.dep_ == "conj" and (u.pos_ in ("VERB", "AUX") or (
            c.i > u.i + 1 and u.nbor(1).dep_ == "cc" and c.left_edge.i == u.i + 2))]
        preps = {c.lower_ for v in [u, *conj] for c in v.children if c.dep_ in ("prep", "agent")}
        if preps:
            out.setdefault(u.lower_, set()).update(preps)
        if u.dep_ in ("prep", "agent") and u.i > 0 and u.lower_ in lexicon()["complements_map"].get(u.nbor(-1).lower_, ()):
            # the word right before it, wherever the parse hung the phrase: "his application of paint
            # results in a rich surface" ("his application of paint results." was an output)
            out.setdefault(u.nbor(-1).lower_, set()).add(u.lower_)
        if u.dep_ == "prep" and u.head.dep_ == "dobj" and u.lower_ in lexicon()["complements_map"].get(u.head.head.lower_, ()):
            # or on the verb's object: "combining the X Championship with the Y Championships"
            # ("combining a motor racing series." was what the phrase's loss left)
            out.setdefault(u.head.head.lower_, set()).add(u.lower_)
    return {w: frozenset(p) for w, p in out.items()}


def sentence_ok(rendered: str, original_has_root: bool, original_balance: tuple[int, int, int] = (0, 0, 0),
                original_bare: bool = False) -> tuple[bool, str]:
    """The parse check of one rendered sentence (cached: the planner asks again and again):
    brackets and quotes as balanced as in the original sentence, then :func:`veil.nlp.check_sentence`."""
    if not rendered.strip():
        return True, ""
    if any(r and r != o for r, o in zip(balance(rendered), original_balance)):
        # (as balanced as the original, or better: "The 6'4\" Guerin" -> "He" drops an inch mark)
        return False, "unbalanced brackets or quotes"
    if _SAME_MOVE.search(rendered):
        return False, "a move to the place it started from"
    doc = nlp.parse(rendered, light=True)
    for sent in doc.sents:
        c = nlp.check_sentence(sent, original_ok=not original_has_root, bare_ok=original_bare)
        if not c.ok:
            return False, c.reason
    return True, ""


@lru_cache(maxsize=100_000)
def _tokens_of(text: str) -> tuple[str, ...]:
    return tuple(tokenize(text))


@dataclass
class Unit:
    kind: str  # "span" | a constituent kind | "sentence"
    start: int
    end: int
    sentence: int
    text: str
    span: Span | None = None
    constituent: Constituent | None = None
    options: list[str] = field(default_factory=list)  # span: replacements, most specific first
    direct: bool = False
    policy: str | None = None  # the policy's replacement (the floor utility mode keeps)
    drop_unit: bool = False
    or_sentence: bool = False  # drop_unit, and no phrase holds it: its sentence goes (never the first)
    reason: str = ""
    tokens: list[str] = field(default_factory=list)
    # a person's stand-in ("an opponent", "someone") for when the edits leave this the pseudonym's
    # only mention (:meth:`LocalOptimizer._lone_pseudonyms`), with its reason
    lone: tuple[str, str] | None = None

    def deletes(self, other: "Unit") -> bool:
        """Deleting this unit deletes all of ``other``: one of its deleted pieces holds it (a
        conjunct's extent also takes in the comma before the previous item, which only becomes
        "and": "A, B and C" without "and C" keeps B)."""
        if self.constituent is None:
            return self.start <= other.start and other.end <= self.end
        return any(p.start <= other.start and other.end <= p.end and not p.replacement.strip()
                   for p in self.constituent.pieces)


@dataclass
class Analysis:
    """What the planner needs of one original text, computed once: the parse, the sentences,
    the spans and the units."""

    text: str
    sentences: list[tuple[int, int]]
    has_root: list[bool]
    units: list[Unit]
    bare: list[bool] = field(default_factory=list)  # the original sentence's verb stands alone ("he retired.")
    # "this competition", "that season": (sentence, start, end, noun) of each noun phrase whose
    # determiner points back at something said before (see LocalOptimizer._drop_dangling)
    pointers: list[tuple[int, int, int, str]] = field(default_factory=list)
    # a pointer's start -> where the text named its noun before, as a noun of its own (not "horse"
    # of "horse racing trainer": "The horse had won" stayed once the gelding's sentence went)
    introductions: dict[int, tuple[int, ...]] = field(default_factory=dict)
    # the starts of the pointers that are shell nouns ("The project"): they point back at what the
    # sentence before told, not at a noun
    shells: frozenset[int] = frozenset()
    # per sentence, where a list's "and" may go back once edits took it (units.list_marks)
    lists: list[tuple[ListMark, ...]] = field(default_factory=list)
    _by_sentence: list[list[int]] | None = field(default=None, repr=False)
    _rendered: dict[tuple, str] = field(default_factory=dict, repr=False)

    def holders(self, i: int) -> list[int]:
        """The removable units (not sentences) whose deletion takes unit i whole, smallest first."""
        u = self.units[i]
        return self.holders_of(u.sentence, u)

    def holders_of(self, si: int, u: "Unit") -> list[int]:
        """The removable units (not sentences) of sentence si whose deletion takes ``u`` (a unit,
        or anything with a start and an end) whole, smallest first."""
        found = [j for j in self.by_sentence(si)
                 if (w := self.units[j]).constituent is not None and w.kind != "sentence" and w.kind in DROP_KINDS
                 and w.deletes(u) and w.constituent.n_tokens <= MAX_DROP_TOKENS]
        return sorted(found, key=lambda j: self.units[j].end - self.units[j].start)

    def smallest_holder(self, i: int) -> int | None:
        """The smallest removable unit (not a sentence) whose deletion takes unit i whole."""
        found = self.holders(i)
        return found[0] if found else None

    def sentence_unit(self, si: int) -> int | None:
        """The unit that is sentence si itself."""
        return next((j for j in self.by_sentence(si) if self.units[j].kind == "sentence"), None)

    def by_sentence(self, si: int) -> list[int]:
        """The units of sentence si, in unit order (plans look a sentence up, never scan every
        unit: long documents have tens of thousands)."""
        if self._by_sentence is None:
            index: list[list[int]] = [[] for _ in self.sentences]
            for i, u in enumerate(self.units):
                index[u.sentence].append(i)
            self._by_sentence = index
        return self._by_sentence[si]


def analyse(text: str, task: Task, ctx: GeneralizeContext, policy: Policy, deny: set[str]) -> Analysis:
    doc = nlp.parse(text)
    sents = nlp.sentence_spans(doc)
    # the writer's sentences parsed alone, in one batch: the parse check of an edited sentence
    # compares it with its original (a list's lost "and", a lost complement, the same failure)
    nlp.prefetch([text[a:b] for a, b in sents])
    live = nlp.live_sents(doc)
    has_root = [nlp.has_verbal_root(s) for s in live]
    bare = [nlp.bare_verb(s) for s in live]

    def sentence_of(pos: int) -> int:
        for i, (a, b) in enumerate(sents):
            if pos < b:
                return i
        return len(sents) - 1

    spans = find_spans(text, doc=doc)
    english = nlp.is_english(text)
    if not english:
        # the English model's entities and parse say nothing reliable about another language:
        # only the language-independent recognizers (patterns, the known name, --deny) act, but
        # in the sentences that do read as English (six words at least) all of them do: a German
        # entomologist's English biography before his German bibliography came back unchanged
        prose = [len(text[a:b].split()) >= 6 and nlp.is_english(text[a:b]) for a, b in sents]
        spans = [s for s in spans if s.type in LANGUAGE_INDEPENDENT or prose[sentence_of(s.start)]]
        english = any(prose)
    spans = [_titled_person(t) for t in (_not_a_person(s, text) for s in spans) if t is not None]
    # an entity holding the known name is that person, whatever the NER called it
    # ("Pieter de Smet" read as an organisation)
    known = _name_mentions(text, task.name, [])
    # "Mark Millon Coached and was Director": the writer's capital made the verb part of the NER's
    # name ("Person EB and was Director" was an output); the known name ends the mention
    # ("he coached": the verb goes with the pronoun, in lower case)
    spans = [Span(s.start, k.end, text[s.start:k.end], s.type, s.score, s.evidence,
                  {**s.meta, "slot": "subject", "verb_tail": (s.end, m.group(1).lower())})
             if s.type == "PERSON" and (k := next((k for k in known if s.start <= k.start < k.end < s.end), None))
             and (m := re.fullmatch(r"\s+([A-Z][a-z]+ed)", text[k.end:s.end])) and _zipf(m.group(1).lower()) >= 3.5
             else s for s in spans]
    spans = [Span(s.start, s.end, s.text, "PERSON", s.score, s.evidence, {}) if s.type in _NOT_A_NAME_TYPES
             and any(s.start <= k.start and k.end <= s.end for k in known) and not _named_for(s, known) else s
             for s in spans]
    spans += _name_mentions(text, task.name, spans)
    denied = list(deny_spans(text, deny))
    # a --deny term (or a true attribute) wins over any wider span that holds it ("the Windy City,
    # Wellington" kept "Wellington" as part of a city-and-region span the policy left alone)
    spans = [s for s in spans if not any(s.start < d.end and d.start < s.end for d in denied)] + denied
    spans += _nicknamed_names(text) + _aliases(text) if english else []
    spans = _resolve(_join_name_pieces([_close_bracket(s, text) for s in spans], text))
    spans = _whole_names(spans, doc) if english else spans
    # (pieces joined into a race's name are the race: "Santa Anita | Handicap" became "Person BBN")
    spans = _resolve(list(race_names(text, spans)))
    subject = subject_info(text, task.name, spans, task.label, sents)
    units: list[Unit] = []
    label_stems = set(_tokens_of(task.label)) if task.label else set()
    said = set(_tokens_of(text)) if label_stems else set()
    for s in spans:
        si = sentence_of(s.start)
        if s.end > sents[si][1]:  # "Colleen R." split after "R.": the span stays in its sentence
            s = Span(s.start, sents[si][1], text[s.start:sents[si][1]], s.type, s.score, s.evidence, s.meta)
        s = _with_slot(s, doc)
        if (cut := min((d.start for d in spans if d.type in LANGUAGE_INDEPENDENT and s.start < d.start < s.end), default=None)) \
                is not None and text[s.start:cut].strip(" ,"):
            # what the slot took never runs into a direct identifier ("Regina, SK | S4P 2L4" took "S4P", and
            # the address's "2L4" was left written)
            s = Span(s.start, s.start + len(text[s.start:cut].rstrip(" ,")), text[s.start:cut].rstrip(" ,"), s.type,
                     s.score, s.evidence, s.meta)
        if s.type == "PERSON" and subject.role and s.meta.get("slot") and role_said_beside(text, s.start, s.end, subject.role, sents[si]):
            # "The chef is a German chef" was an output: where the sentence itself gives the role,
            # the mention becomes "this person" (Person reads the flag)
            s = Span(s.start, s.end, s.text, s.type, s.score, s.evidence, {**s.meta, "role_said": True})
        d = policy.decide(s, ctx, subject)
        if s.evidence == "cue:couple" and d.replacement is not None:
            # two persons' names: "a couple" ("Tom & Aisling's wedding" read "someone's wedding")
            d = dataclasses.replace(d, replacement="a couple's" if s.meta.get("role") == "possessive" else "a couple",
                                    ladder=(), drop_unit=False, or_sentence=False,
                                    reason="two persons' given names: a couple")
        if s.type == "LOCATION" and d.replacement and any(
                e.type == "EVENT" and re.fullmatch(r",?\s+(?:in|at)\s+", text[e.end:s.start]) for e in spans if e.end <= s.start) \
                and not any(o.type == "LOCATION" and re.fullmatch(r",\s+", text[s.end:o.start]) for o in spans if o.start >= s.end) \
                and (wider := next((r for r in (d.replacement,) + tuple(d.ladder) if _CONTINENT.search(r)), None)):
            # where an event took place is its name said again: "an international multi-sport event in India" is
            # the Commonwealth Games of 2010 to anyone who knows sport; its continent (not where a place follows it
            # in apposition: "in Vientiane, Laos" read "in Asia, Laos")
            d = dataclasses.replace(d, replacement=wider, ladder=tuple(r for r in d.ladder if r != wider and not _CONTINENT.search(r)),
                                    reason=d.reason + "; an event's place: its continent")
        if s.type == "MONEY" and d.replacement and not d.replacement.endswith("-figure") \
                and (m := _ARTICLE_BEFORE.search(text, max(0, s.start - 30), s.start)) \
                and all(w in _SUM_ADJECTIVES for w in m.group(1).split()):
            # "to a record $100,000": its own article stays, and only the kind noun reads after it ("to a record
            # a hundred thousand dollars" was an output)
            d = dataclasses.replace(d, replacement="sum", ladder=(), reason=d.reason + "; after its article, its kind noun")
        if s.meta.get("verb_tail") and d.replacement in _PRONOUNS:
            end, verb = s.meta["verb_tail"]
            s = Span(s.start, end, text[s.start:end], s.type, s.score, s.evidence, s.meta)
            d = dataclasses.replace(d, replacement=f"{d.replacement} {verb}", ladder=())
        if s.type == "PERSON" and d.drop_unit and s.meta.get("role") in ("pobj:with", "pobj:alongside") \
                and (re.search(r"\b(?:among|amongst) others\b", text[s.end:sents[sentence_of(s.start)][1]])
                     or (_RANKS.search(text, *sents[sentence_of(s.start)]) and not re.search(
                         r"\bone of\b", text[slice(*sents[sentence_of(s.start)])]))):
            # "She has worked with X and Y, among others": the others are the phrase's ("She has worked,
            # among others" was an output); "She was, along with X, the first woman to …" is false without
            # them; the pseudonym stays; so does a partner's ("in association with X")
            d = dataclasses.replace(d, drop_unit=False, or_sentence=False)
        elif s.type == "PERSON" and d.drop_unit and s.meta.get("role") == "pobj:with" and re.search(
                r"\b(?:association|collaboration|partnership|conjunction|cooperation|tandem|concert|company|league)\s+with\s+$",
                text[max(0, s.start - 40):s.start]):
            d = dataclasses.replace(d, drop_unit=False, or_sentence=False)
        if s.type == "PERSON" and s.meta.get("role") == "pobj:as" and (d.replacement in _PRONOUNS or (
                task.name and len(s.text.split()) >= 2 and s.text.split()[-1] == task.name.split()[-1]
                and re.search(r"\b(?:naturali[sz]ed|known|renamed|bapti[sz]ed|billed|credited)\s+as\s+$",
                              text[max(0, s.start - 30):s.start]))):
            # ("a Brazilian naturalized as Otávio Maeda" of Mitsuyo Maeda: his other name, the surname
            # his; "naturalized as Person AAD" was an output)
            # "As Voris Marker, she also worked as a sculptor": another name of hers ("As her, she"
            # was an output): the phrase goes
            # (a pseudonym stays the fallback where no phrase can go: never the name as written, as
            # "naturalized as Otávio Maeda" was in a first sentence)
            d = dataclasses.replace(d, replacement=None if d.replacement in _PRONOUNS else d.replacement, ladder=(),
                                    drop_unit=True, reason="the subject's other name after 'as': its phrase goes")
        if s.type == "PERSON" and d.replacement and PSEUDONYM.fullmatch(d.replacement) \
                and (before := _role_before(s, doc)) is not None:
            # "Son of photographer Glen Fishback" -> "Son of a photographer", "his brother Tony Millon" -> "his
            # brother": the role noun before the name says who they are ("Son of photographer Person B" read
            # as a form); the name goes, the role stays
            a, determined = before
            if determined:
                d = dataclasses.replace(d, replacement="", ladder=(), drop_unit=False, or_sentence=False,
                                        reason="a person's name after their role noun goes")
            else:
                role_words = re.sub(r"^[Tt]he\s+", "", text[a:s.start].strip())
                s = Span(a, s.end, text[a:s.end], s.type, s.score, s.evidence, s.meta)
                # (the role noun says it is a person: no "a name of unknown kind" whose phrase must go)
                d = dataclasses.replace(d, replacement=f"{article_for(role_words)} {role_words}", ladder=(),
                                        drop_unit=False, or_sentence=False,
                                        reason="a person's name after their role noun goes; the role takes an article")
        elif s.type in ("ORG", "NAME", "PROPER") and (before := _role_before(s, doc)) is not None and not before[1] \
                and not s.meta.get("role") == "field" and text[before[0] - 1:before[0]].isspace() \
                and re.fullmatch(r"(?:[a-z]+ )+", text[before[0]:s.start]) \
                and not re.search(r"\b(?i:the|an?|his|her|their|its|our|my|your|this|that)\s+(?:[a-z]+\s+)*$", text[max(0, before[0] - 8):s.start]):
            # (a noun glued to what is before it is part of it: "3-year-old border collie Biscuit"; a determiner
            # before it makes no bare noun: "the rookie level Grand Junction Rockies")
            # "with vendor Linde" -> "with a vendor" ("with vendor an organization" was an output): the noun before
            # the name says what it is, and takes the article the name stood for
            words = text[before[0]:s.start].strip()
            s = Span(before[0], s.end, text[before[0]:s.end], s.type, s.score, s.evidence, s.meta)
            d = dataclasses.replace(d, replacement=f"{article_for(words)} {words}", ladder=(), drop_unit=False,
                                    or_sentence=False, reason="a name after the noun that says what it is goes; the noun takes an article")
        if s.type in ("DATE", "YEAR") and s.meta.get("role") == "modifier" and d.replacement == "" \
                and re.search(r"\b[Tt]he\s+$", text[max(0, s.start - 5):s.start]) \
                and not _RANKS.search(text[slice(*sents[sentence_of(s.start)])]) \
                and re.match(r"\s*(?:season|year|campaign|edition|tournament|championships?|games|olympics)\b", text[s.end:], re.I):
            # "he played winter ball in the 2009 season": "in the season" points at none; the phrase goes,
            # else the year alone (the removal stays the fallback)
            d = dataclasses.replace(d, drop_unit=True, reason=d.reason + "; 'the season' would point at none: its phrase goes")
        if s.type == "ORG" and s.meta.get("role") == "modifier" and d.replacement and re.match(r"an? ", d.replacement) \
                and (re.match(r"[Tt]he\s", s.text) or re.search(r"\b[Tt]he\s+$", text[max(0, s.start - 5):s.start])):
            # "in the UCI rankings": a kind phrase cannot modify the noun ("in an organization rankings" was an
            # output); the name goes, "the" and the noun stay
            the = re.match(r"[Tt]he\s", s.text)
            d = dataclasses.replace(d, replacement=the.group(0).strip() if the else "", ladder=(), drop_unit=False,
                                    or_sentence=False, reason="an organisation's name modifying a noun goes")
        if s.type in _NOT_A_NAME_TYPES and s.meta.get("role") == "modifier" \
                and d.replacement is not None and d.replacement.strip().lower() in ("", "the", "a", "an") \
                and (head := _span_head(s, doc)[0]) is not None and _ranked_within(head.head):
            # the name says among whom the person ranks: without it the rank is over everyone ("one of the
            # most talented players ever to wear a jersey" of "a New York Knicks jersey", "ranked in the top 10
            # in the rankings for female cyclists" of "female BMX cyclists" were false); its phrase goes
            d = dataclasses.replace(d, replacement=None, ladder=(), drop_unit=True, or_sentence=True,
                                    reason=f"{s.type.lower()} naming the group a rank is within: its phrase goes")
        if s.type in ("ORG", "WORK") and d.replacement and _kind_noun_before(s, doc):
            # "the non-profit group Friends of Photography", "his film Titanic": the noun before the
            # name says what it is; the name goes, the noun stays ("the Bay Area non-profit group
            # organization" was an output)
            d = dataclasses.replace(d, replacement="", ladder=(), drop_unit=False, or_sentence=False,
                                    reason="a name after the noun that says what it is goes")
        if s.meta.get("lead") is not None and d.replacement in _PRONOUNS:
            a = s.meta["lead"]
            s = Span(a, s.end, text[a:s.end], s.type, s.score, s.evidence, s.meta)
        if s.type in ("PERSON", "ORG", "NAME", "PROPER") and tuple(s.meta.get("governor") or ()) in HORSE_GOVERNORS \
                and RACING_TEXT.search(text) and not _role_before(s, doc):
            # "trainer of Seabiscuit", "trained Brigadier Gerard" in a text about horse racing: a horse (a person
            # after a role noun stays one: "trained apprentice jockey Lester Piggott"); a title word before the
            # name is the horse's name too ("Brigadier a horse")
            a = s.start
            while (m := re.search(r"([A-Z][a-z]+)\s+$", text[max(0, a - 30):a])) and m.group(1).lower() in NAME_TITLES:
                a -= len(m.group(0))
            s = Span(a, s.end, text[a:s.end], s.type, s.score, s.evidence, s.meta)
            d = dataclasses.replace(d, replacement=HORSE, ladder=(), drop_unit=False, or_sentence=False,
                                    reason="a name one trains or rides, in a text about horse racing, is a horse")
        if s.type == "ORG" and d.replacement and tuple(s.meta.get("governor") or ())[:2] == ("play", None) \
                and (m := re.fullmatch(r"an? ((?:[a-z-]+ )*(?:baseball|basketball|football|soccer|hockey|lacrosse|cricket|"
                                       r"rugby|volleyball|handball|softball|sports)) league", d.replacement)):
            # "he played Major League Baseball": the sport is what one plays ("he played a baseball league" was
            # an output); the league's other rungs fit no object of "play"
            d = dataclasses.replace(d, replacement=m.group(1), ladder=())
        if _abbreviates(s, spans, text):
            # "Major League Baseball (MLB)", "the Kenema Government Hospital (KGH)": the bracket
            # repeats the name before it ("an organization (a sports league)" was an output)
            d = dataclasses.replace(d, replacement=None, ladder=(), drop_unit=True,
                                    reason="an abbreviation of the name before it goes with its brackets")
        direct = s.type in policy.direct
        options = ([d.replacement] if d.replacement is not None else []) + list(d.ladder)
        if s.type == "GENDERED" and (s.text.lower() in ("himself", "herself") or (
                s.text[:1].isupper() and text[sents[sentence_of(s.start)][0]:s.start].strip(" \"“'(")
                and s.text.lower() not in ("he", "she", "his", "her", "him"))):
            # "He appears as themselves" was an output: a reflexive follows its subject; a capitalised
            # "Mother" inside a sentence is part of a title ("Her work Parent" for "Mother and Child")
            options = []
        if s.type == "GENDERED" and options and options[0] in ("person", "people") \
                and (tok := next(iter(_tokens_in(s, doc)), None)) is not None and tok.dep_ in ("compound", "amod") \
                and tok.head.i == tok.i + 1 and tok.head.pos_ == "NOUN":
            # "the first woman photojournalist": a sex before the noun it describes goes ("the first
            # person photojournalist" was an output)
            options = [""]
        if s.type == "GENDERED" and s.text.lower() in _CATEGORY_NOUNS and re.match(r"(?:'s|’s|'|’)\s+\w", text[s.end:s.end + 4]):
            # "the women's team", "the Girls' division": a category, not a description of the
            # subject ("the people's team" was false)
            options = []
        if s.type == "GENDERED" and s.text.lower() not in _PRONOUNS | {"his", "hers", "himself", "herself"} and re.search(
                r"\b(?:only|sole|first|second|third|fourth|fifth|last|eldest|oldest|youngest|elder|younger)"
                r"(?:\s+[a-z]+)?\s+$", text[max(0, s.start - 22):s.start], re.I):
            # "the only son of X" -> "the only child" is false (he may have had sisters), and so is "the
            # first photojournalist" of "the first (black) woman photojournalist", nor "the eldest child" of "the
            # eldest daughter": a rank among one sex is no rank among all (the attacker may still take the
            # phrase); pronouns are no rank's noun ("Not only her paintings")
            options = []
        if options[:1] == [""] and s.meta.get("role") == "modifier" and (s.type in _NAMED_TYPES + ("PERSON",) or (
                s.type in ("DATE", "YEAR") and not d.drop_unit and (not _TIME_NOUN_AFTER.match(text, s.end) or re.search(
                    r"\b(?:for|in|during|throughout)\s+the\s+$", text[max(0, s.start - 20):s.start])))) \
                and (a := _the_before_name(s, doc)) is not None:
            # "for the Peabody Mason Concert series" -> "for a series", "for the 1958-9 session" -> "for a session"
            # (a time only after "for", "in", "during": "after a season", "A season was his last" would not read)
            art = article_for(_NEXT_WORD.match(text, s.end).group(1))
            s = Span(a, s.end, text[a:s.end], s.type, s.score, s.evidence, s.meta)
            options = [art] + options[1:]
            if d.replacement == "":
                d = dataclasses.replace(d, replacement=art)
        elif options[:1] == [""] and s.meta.get("role") == "modifier" and (art := _bare_noun_article(s, doc, text)):
            # "played for \"Peter Rook 1\" team" -> "played for a team", not "for team": the name
            # was the noun's only determiner
            options = [art] + options[1:]
            if d.replacement == "":
                d = dataclasses.replace(d, replacement=art)
        if s.evidence == "regex:rank" and s.meta.get("band_noun") and d.replacement \
                and (m := re.search(r"\b[Tt]he\s+((?:current\s+|reigning\s+)?)$", text[max(0, s.start - 20):s.start])):
            # "the current world number one junior player" -> "a current world top-ten junior player": a band
            # holds many, "the" would say he is the only one
            a = s.start - len(m.group(0))
            art = article_for(m.group(1) or d.replacement)
            rung = f"{art.capitalize() if m.group(0)[0] == 'T' else art} {m.group(1)}{d.replacement}"
            s = Span(a, s.end, text[a:s.end], s.type, s.score, s.evidence, s.meta)
            d = dataclasses.replace(d, replacement=rung, ladder=())
            options = [rung]
        if s.type == "NATIONALITY" and d.replacement is None and (held := _nationality_of(s, doc)):
            # "the first Dutch professional baseball player" is not "the first European" one (nor the
            # first at all); "the British Ambassador" is no "European Ambassador", but an ambassador
            options = [""] if held == "office" else []
        if s.type == "ORG" and len(options) > 1 and "an organization" in options and (
                slot_kind(s) in ("a school", "a team") or d.replacement != "an organization"):
            # "educated at an organization" (of "the Georgetown University"): the rungs that fit the
            # verb's slot; and a kind the name says is the top of its ladder ("played in an
            # organization" of "a sports league", "a member of an organization" of "a university"
            # read as no one writes): where the attacker wants more, the phrase goes
            options = [o for o in options if o != "an organization"]
        if s.type == "ORG" and d.replacement is not None and _league_of_a_team(s, doc, d.replacement):
            # "for the Chesapeake Bayhawks of Major League Lacrosse" -> "for a team of a league" says
            # nothing a reader wants: the phrase goes (its kind stays where no phrase can go)
            d = dataclasses.replace(d, drop_unit=True, reason=d.reason + "; the league of a team: its phrase goes")
        if s.type in ("LOCATION", "NATIONALITY") and _ALL_OVER.search(text, max(0, s.start - 60), s.start):
            # "performed all around Japan", "almost every comedy club in Australia": a wider place makes the
            # claim bigger ("all around Asia", "every comedy club in Oceania" were outputs): the phrase goes
            options = []
            if d.replacement is not None:  # (where the policy keeps it, it stays: the attacker may take its phrase)
                d = dataclasses.replace(d, replacement=None, ladder=(), drop_unit=True,
                                        reason=f"{s.type.lower()} a claim ranges over: a wider one is false, its phrase goes")
        if s.type in ("TITLE", "AWARD", "EVENT", "ORG", "LOCATION", "WORK", "PRODUCT", "NAME") and options \
                and (_RANKED_BEFORE.search(text, max(0, s.start - 30), s.start)
                     or ((w := s.text.split(" ", 1)[0]).islower() and _RANKED_BEFORE.match(w + " "))):
            # (the rank may be the span's own first word: "her first Grand Slam quarter-final" -> "her event
            # quarter-final" was an output)
            # "Great Britain's second World Champion singles player" -> "second champion singles player" claims
            # another thing: under a rank or a superlative a wider name is a wider set; the phrase goes
            options = []
            if d.replacement is not None:  # (where the policy keeps it, it stays: the attacker may take its phrase)
                d = dataclasses.replace(d, replacement=None, ladder=(), drop_unit=True, or_sentence=True,
                                        reason=f"{s.type.lower()} under a rank: a wider one is false, its phrase goes "
                                               "(its sentence where no phrase holds it)")
            else:
                d = dataclasses.replace(d, ladder=())
        if s.type in ("DATE", "YEAR") and (_EXCEPT_TIME.search(text, max(0, s.start - 40), s.start) or (
                _FOR_TIME.search(text, max(0, s.start - 12), s.start) and not _TIME_NOUN_AFTER.match(text, s.end)
                and s.meta.get("granularity") not in ("day", "day_no_year")  # (a day is no duration: "confirmed for 17 March")
                and s.evidence != "regex:fiscal_year" and not _PLANS_FOR.search(text, max(0, s.start - 30), s.start))):
            # (a plan's year is no duration: "Goals for FY2025", "the budget for 2026")
            # "missing out only in 1998" -> "only in the 1990s" reads as the whole decade; "joining the team
            # for 1990 and 1991" -> "for the late 20th century" says a duration: a wider time is a wider
            # claim, so the phrase goes
            options = []
            if d.replacement is not None:
                d = dataclasses.replace(d, replacement=None, ladder=(), drop_unit=True, or_sentence=True,
                                        reason="a time an exception or a duration names: a wider one is false, its "
                                               "phrase goes (its sentence where no phrase holds it)")
        if s.type == "LOCATION" and s.meta.get("role") in ("locative", "born_place", "moved"):
            # "He served in a place" says nothing a reader wants: the phrase goes instead
            options = [o for o in options if o != "a place" or o == d.replacement]
        if s.meta.get("determined"):  # "the prestigious X Medal" -> "the prestigious medal"
            options = [re.sub(r"^(?:an?|the)\s+", "", o) for o in options]
            if d.replacement:
                d = dataclasses.replace(d, replacement=re.sub(r"^(?:an?|the)\s+", "", d.replacement))
        if s.type == "AGE" and subject.gender:  # "in their early twenties" of a man: "in his"
            his = "his" if subject.gender == "male" else "her"
            options = [re.sub(r"\btheir\b", his, o) for o in options]
            d = dataclasses.replace(d, replacement=re.sub(r"\btheir\b", his, d.replacement) if d.replacement
                                    else d.replacement)
        if s.type == "LOCATION" and options:
            # never a rung the sentence already says ("a United States congressman from the United
            # States" of "from Kentucky" says nothing): the next rung, or the phrase goes
            a, b = sents[si]
            around = fold(text[a:s.start] + " | " + text[s.end:b])
            # (and no rung wider than one it says: "from North America" says no more than "United States")
            said_at = next((k for k, o in enumerate(options) if (core := fold(re.sub(r"^(?:(?:in|the)\s+)+", "", o)))
                            and core not in ("a", "an") and re.search(rf"(?<!\w){re.escape(core)}(?!\w)", around)), None)
            kept = options if said_at is None else options[:said_at]
            if not kept and options:
                # every rung is said already: the phrase goes, and only where no phrase can does a
                # rung (redundant, but true) stand in for the place
                d = dataclasses.replace(d, drop_unit=True, reason="a place whose rungs the sentence already says "
                                                                  "(its country or region): its phrase goes")
            elif kept != options:
                if d.replacement is not None and d.replacement not in kept:
                    d = dataclasses.replace(d, replacement=kept[0])
                options = kept
        if s.type in ("EVENT", "ORG", "AWARD", "WORK", "NAME") and options and (verb := _verb_over(s, doc)) is not None:
            # "competed at a competition", "won an award" of a named one: a kind that only repeats its
            # verb says nothing; the next rung, or the phrase goes
            kept = [o for o in options if not _cognate(verb, o)]
            if kept != options:
                if d.replacement is not None and d.replacement not in kept:
                    # (where no phrase holds it, the kind that repeats its verb is still true and names
                    # nothing: "was awarded the 2015 BBC Sports Personality Team of the Year Award"
                    # stayed as written)
                    d = dataclasses.replace(d, replacement=kept[0] if kept else options[-1], drop_unit=d.drop_unit or not kept)
                options = kept or options[-1:]
        if label_stems:
            # never the label's words where the text did not say them ("a music school" for the
            # conservatory of a "Classical Music Artist"): the next rung, or the phrase goes
            kept = [o for o in options if not (set(_tokens_of(o)) & label_stems) - said]
            if kept != options:
                if d.replacement is not None and d.replacement not in kept:
                    d = dataclasses.replace(d, replacement=kept[0] if kept else None, drop_unit=d.drop_unit or not kept)
                options = kept
        if not options and not direct and not d.drop_unit:
            continue
        units.append(Unit("span", s.start, s.end, sentence_of(s.start), s.text, span=s, options=options,
                          direct=direct, policy=d.replacement, drop_unit=d.drop_unit,
                          or_sentence=d.or_sentence, reason=d.reason,
                          tokens=list(_tokens_of(s.text))))
    if english:
        _stand_ins(units, doc, ctx)
    span_bounds: dict[int, list[tuple[int, int]]] = {}  # by sentence: a constituent never leaves its own
    subjects: dict[int, list[int]] = {}  # by sentence: where a mention the policy made a subject pronoun starts
    for u in units:
        for si in {u.sentence, sentence_of(max(u.start, u.end - 1))}:
            span_bounds.setdefault(si, []).append((u.start, u.end))
        if u.span is not None and u.span.type == "PERSON" and u.span.meta.get("slot") == "subject" and (u.policy or "").split(" ")[0] in _PRONOUNS \
                and not any(t.dep_ in ("nsubj", "nsubjpass") for t in _tokens_in(u.span, doc)):
            # (a subject the parse did not see: its clause's own subject, "where Smith played", stays in it)
            subjects.setdefault(u.sentence, []).append(u.start)
    for c in constituents(doc, sents) if english else []:
        # a deletion must take a span whole or leave it alone
        c_start, c_end = c.start, c.end
        if any(c_start < e and b < c_end and not (c_start <= b and e <= c_end)
               for b, e in span_bounds.get(c.sentence, ())):
            continue
        if c.kind != "sentence" and any(c_start <= b < c_end for b in subjects.get(c.sentence, ())):
            continue  # the parse hung the clause's subject in a phrase ("in Stage 2 of the Vuelta | Rosendo wore"):
            # the phrase is no unit ("In the 2010s wore the white jersey" was an output)
        if c.kind == "modifier" and len(c.pieces) == 1 and text[c.start:c.start + 1].isupper() \
                and re.match(r"\s+[a-z]+(?:\s+[a-z]+)?[\s.,;:]", text[c.end:c.end + 40]) \
                and (a := _the_before_name(Span(c.start, c.end, text[c.start:c.end], "UNIT"), doc)) is not None \
                and not text[a + 3:c.start].strip():
            # "failed to receive the Democratic party nomination": with a name-like modifier, "the" goes to
            # "a" where nothing after the noun says which one ("the party nomination" asked which; see
            # _the_before_name); never a rank ("the Greek No. 1") nor a common adjective ("the small forward
            # position" keeps "the forward position")
            art = article_for(_NEXT_WORD.match(text, c.end).group(1))
            c = dataclasses.replace(c, pieces=(Piece(a, c.end, art),))
        body = " ".join(text[p.start:p.end] for p in c.pieces)
        units.append(Unit(c.kind, c.start, c.end, c.sentence if c.kind != "sentence" else c.sentence, body,
                          constituent=c, tokens=list(_tokens_of(body))))
    for s in (_ranking_claims(doc, spans) + _eponym_claims(doc) + _quotations(text)) if english else []:
        # after the constituents: a claim's words stay deletable phrase by phrase where it cannot go whole
        d = policy.decide(s, ctx, subject)
        if not d.drop_unit and not d.replacement:
            continue
        si = sentence_of(s.start)
        # (a sentence that says the label may still go where another sentence says it too:
        # "In doing so, they became only the fifth pair in tennis history ..." of a tennis player)
        said_label = bool(label_stems & set(_tokens_of(text[slice(*sents[si])]))) and not any(
            label_stems & set(_tokens_of(text[slice(*sents[k])])) for k in range(len(sents)) if k != si)
        units.append(Unit("span", s.start, s.end, si, s.text, span=s, options=[d.replacement] if d.replacement else [],
                          policy=d.replacement, drop_unit=d.drop_unit,
                          or_sentence=d.or_sentence and not said_label, reason=d.reason,
                          tokens=list(_tokens_of(s.text))))
    pointers = [(sentence_of(t.idx), t.idx, t.head.idx + len(t.head.text), t.head.lower_)
                for t in doc if t.dep_ == "det" and t.lower_ in _DEMONSTRATIVES and t.head.pos_ == "NOUN"
                and t.head.i > t.i and t.head.lower_ not in DEICTIC_NOUNS] if english else []
    # "The brand now covers both menswear and womenswear.": "the" and a noun the writer named before
    # (and nothing after it says which one) points back as "this" does
    pointers += [(sentence_of(t.idx), t.idx, t.head.idx + len(t.head.text), t.head.lower_) for t in doc
                 if t.dep_ == "det" and t.lower_ == "the" and t.head.pos_ == "NOUN" and t.head.i == t.i + 1
                 and t.head.lower_ not in DEICTIC_NOUNS and not any(c.dep_ in ("prep", "relcl", "acl", "poss") for c in t.head.children)
                 and re.search(rf"\b{re.escape(t.head.lower_.rstrip('s'))}", text[:sents[sentence_of(t.idx)][0]], re.I)
                 ] if english else []
    # "The project impressed Hal Hentz so much that he hired him" after "began his career with the design
    # and construction of the Gillionville Plantation" lost that phrase: a noun that sums up what the
    # sentence before told ("project", "move"), which the text never named as such; dangling only where
    # a phrase or the sentence before went (_drop_dangling)
    shells = [(sentence_of(t.idx), t.idx, t.head.idx + len(t.head.text), t.head.lower_) for t in doc
              if t.dep_ == "det" and t.lower_ == "the" and t.head.lower_ in _SHELL_NOUNS and t.head.i == t.i + 1
              and t.head.dep_ in ("nsubj", "nsubjpass") and sentence_of(t.idx) > 0
              and not text[sents[sentence_of(t.idx)][0]:t.idx].strip()
              and not any(c.dep_ in ("prep", "relcl", "acl", "poss", "compound", "amod") for c in t.head.children)
              and not re.search(rf"\b{re.escape(t.head.lower_[:-1] if t.head.lower_.endswith('s') else t.head.lower_)}",
                                text[:sents[sentence_of(t.idx)][0]], re.I)
              ] if english else []
    pointers += shells
    # "Both started in the 1930s.": a pronoun that counts what the sentence before named
    pointers += [(sentence_of(t.idx), t.idx, t.idx + len(t.text), "") for t in doc
                 if t.lower_ in ("both", "neither") and t.dep_ in ("nsubj", "nsubjpass")] if english else []
    # "The public enquiry into the latter's crash": which of two the sentence before named
    pointers += [(sentence_of(t.idx), t.nbor(-1).idx, t.idx + len(t.text), "") for t in doc
                 if t.lower_ in ("latter", "former") and t.i > 0 and t.nbor(-1).lower_ == "the"
                 and not (t.dep_ == "amod" and t.head.i > t.i and t.head.pos_ != "NUM")] if english else []
    # "played only one other match for the club": other than the one the text told of before
    pointers += [(sentence_of(t.idx), t.nbor(-1).idx, t.head.idx + len(t.head.text), t.head.lower_) for t in doc
                 if t.lower_ == "other" and t.dep_ == "amod" and t.head.pos_ == "NOUN" and t.head.i > t.i
                 and t.i > 0 and t.nbor(-1).lower_ == "one"] if english else []  # ("the other side", "no other choice": none)
    # ("achieving a medal for the latter two": the latter of what the sentence named before)
    introductions = _introductions(doc, pointers) if english else {}
    analysis = Analysis(text=text, sentences=sents, has_root=has_root, units=units, bare=bare, pointers=pointers,
                        introductions=introductions, shells=frozenset(start for _, start, _, _ in shells),
                        lists=[list_marks(s, a) if english else () for s, (a, _) in zip(live, sents)])
    for i, u in enumerate(units):
        if u.kind == "span" and u.drop_unit and u.policy is None and not u.or_sentence and u.span.type == "ORG" \
                and (re.search(r"\s(?:and|&)\s", u.text) or "acronym" in u.span.evidence) and has_root[u.sentence] \
                and analysis.smallest_holder(i) is None:
            # no removable phrase holds it ("..., Exponent Corporation, Raytheon and Piper Aircraft":
            # the NER's one organisation is two conjuncts of the parse; "ESPN selected him"): what the
            # NER or an acronym's shape says it is, rather than the name (never a one-word name the
            # NER calls an organisation: "succeeded Chamberlain" is a person)
            u.policy, u.options, u.drop_unit = "an organization", ["an organization"], False
            u.reason += "; no removable phrase holds it: what the NER says it is"
    return analysis


_PRONOUNS = frozenset("he she they him her them".split())
# nouns a ranking describes without picking a person out: "the first round", "the second season"
_RANKED_THINGS = frozenset("""time times round rounds stage stages season seasons half quarter leg game games match day
week month year years part place edition race title titles goal goals win victory step
wife husband son daughter child brother sister cousin grandson granddaughter nephew niece""".split())  # ("his second wife")


def _is_person(tok) -> bool:
    if tok.lower_ == "who" and tok.dep_.startswith("nsubj"):
        return True
    return tok.lower_ in ("he", "she", "i", "they") or tok.ent_type_ == "PERSON" or (
        tok.pos_ == "PROPN" and tok.ent_type_ in ("", "ORG", "NORP"))  # ("Sakai is the only Iron Chef never to
    # tie": an organisation to the NER)


def _about_a_person(tok) -> bool:
    """The ranked noun describes a person ("she was the first ...", "Smith, the youngest ..."),
    not a thing ("the first medium that gained him visibility", "the best hotel in the world")."""
    while tok.dep_ == "conj":
        tok = tok.head
    if tok.dep_ in ("appos", "npadvmod"):
        if _is_person(tok.head):
            return True
        root = tok.head  # "promoted to rear admiral in 1971, the first astronaut to reach that rank"
        while root.dep_ not in ("ROOT",) and root.head is not root:
            root = root.head
        return any(_is_person(c) for c in root.children if c.dep_ in ("nsubj", "nsubjpass"))
    verb = tok.head.head if tok.dep_ == "pobj" else tok.head
    while verb.dep_ == "xcomp" and not any(c.dep_ in ("nsubj", "nsubjpass") for c in verb.children):
        verb = verb.head  # "he was found to be the third most conservative member"
    return any(_is_person(c) for c in verb.children if c.dep_ in ("nsubj", "nsubjpass"))


_BARE_PERSON_NOUNS = frozenset("person people woman man one individual human child girl boy".split())
_RANK_BOUND = frozenset("surviving living remaining ever".split())  # "the last surviving starter" is no "surviving starter"


def _plain_noun(tok, spans: list[Span]) -> str | None:
    """What a ranked noun under "be" or in apposition says without its ranking: "he was the first
    Dutch professional baseball player" -> "a Dutch professional baseball player" (true of
    him, and of many). Its other modifiers stay, unless a span holds them (the span's own edit
    is not undone by the claim's); what follows the noun goes with the ranking."""
    if tok.pos_ not in ("NOUN", "PROPN") or tok.lower_ in RANKING or tok.lemma_.lower() in _BARE_PERSON_NOUNS:
        return None  # ("the first civilian woman to land on a carrier" -> "a civilian woman" says nothing)
    words = []
    for c in sorted((c for c in tok.children if c.i < tok.i), key=lambda c: c.i):
        if c.dep_ not in ("amod", "compound", "nmod") or c.lower_ in RANKING or is_ordinal(c) or c.tag_ == "JJS" \
                or c.lower_ in _RANK_BOUND or any(g.tag_ == "RBS" for g in c.children):
            continue
        sub = list(c.subtree)
        if any(t.tag_ in ("JJS", "RBS") or t.lower_ in RANKING for t in sub):
            continue
        if any(x.start < sub[-1].idx + len(sub[-1].text) and sub[0].idx < x.end and x.type not in ("NATIONALITY", "GENDERED")
               for x in spans):
            continue
        words += [t.text for t in sub]
    capitalised = any(w[:1].isupper() for w in words)  # ("an Iron Chef", not "an Iron chef")
    words.append(tok.text if tok.tag_ != "NNP" or tok.ent_type_ or capitalised else tok.text.lower())
    phrase = " ".join(words).replace(" - ", "-").replace(" -", "-").replace("- ", "-")
    return phrase if tok.tag_ in ("NNS", "NNPS") else f"{article_for(phrase)} {phrase}"


_HONOUR = frozenset("honor honour memory".split())


def _eponym_claims(doc) -> list[Span]:
    """What is named after the person: "Interstate 575 is named in his honor.", "Asteroid 335
    Roberta is named in his honour.", "a species named after her". One such name finds the
    person by itself (a reader looks the highway up), whatever its kind: the naming's subject is
    a claim (type CLAIM) and goes with its sentence where no phrase of its own holds it."""
    out = []
    text = nlp.text_of(doc)
    for tok in doc:
        if tok.lemma_.lower() in ("commemorate", "bear", "carry", "perpetuate") and tok.pos_ == "VERB":
            # "Illiger's macaw and Illiger's tamarin commemorate his name", "The genus also bears his name"
            eponym = any(c.dep_ == "dobj" and c.lower_ == "name" and any(q.lower_ in ("his", "her", "their") for q in c.children)
                         for c in tok.children)
        elif tok.lemma_.lower() not in ("name", "rename", "dedicate") or tok.pos_ != "VERB":
            continue
        else:
            eponym = any(
                (c.lower_ == "in" and any(p.lower_ in _HONOUR and any(q.lower_ in ("his", "her", "their") for q in p.children)
                                          for p in c.children if p.dep_ == "pobj"))
                or (c.lower_ in ("after", "for", "to") and any(p.lower_ in ("him", "her", "them") for p in c.children if p.dep_ == "pobj"))
                for c in tok.children if c.dep_ == "prep")
        if not eponym:
            continue
        subject = next((c for c in tok.children if c.dep_ in ("nsubjpass", "nsubj")), None)
        if subject is None and tok.dep_ == "acl":
            subject = tok.head  # "a species named after her"
        if subject is None or subject.pos_ == "PRON":
            continue
        left = subject.left_edge
        right = subject if tok.dep_ == "acl" else subject.right_edge
        a, b = left.idx, right.idx + len(right.text)
        out.append(Span(a, b, text[a:b], "CLAIM", 0.7, "parse:eponym", {}))
    return out


_QUOTATION = re.compile(r"(\\?[\"“])([^\"“”\n\\]{20,600}?)(\\?[\"”])")


def _quotations(text: str) -> list[Span]:
    """A quotation of six words or more ("he was alleged to have “criticised and condemned the
    proposals of another engineer and had offered his services uninvited”"): a search engine finds
    its source, and the person, from the words alone. A claim (type CLAIM) that goes with its
    phrase or its sentence; not a title in quotes ("Andante spianato and Grande Polonaise")."""
    out = []
    for m in _QUOTATION.finditer(text):
        words = m.group(2).split()
        if len(words) < 6 or sum(w[:1].isupper() for w in words) > len(words) / 2:
            continue
        if len(words) < 12 and all(_zipf(w.strip(".,;:!?'’").lower()) >= 4.0 for w in words if w.strip(".,;:!?'’")):
            continue  # everyday speech a note reports ('feeling "like I can't keep doing this"'): no search finds
            # one source for it, and the note's point went with it
        out.append(Span(m.start(), m.end(), m.group(0), "CLAIM", 0.7, "shape:quotation", {}))
    return out


def _ranking_claims(doc, spans: list[Span] = ()) -> list[Span]:
    """Unique claims: a noun phrase that ranks its person first, youngest, only or third most
    anything ("the first physician to make a space flight", "the youngest driver to lead a lap",
    "the third most conservative member of the Senate"). One such phrase picks the person out of
    everyone whatever else is generalized: a reader (or an LLM) finds them from it alone. No rung
    of it is true ("the first physician" is false), so its phrase goes (type CLAIM, the policy's)."""
    out = []
    text = nlp.text_of(doc)
    for tok in doc:
        if tok.dep_ not in ("attr", "appos", "oprd", "conj") and not (tok.dep_ == "pobj" and tok.head.lower_ == "as") \
                and not (tok.dep_ == "npadvmod" and tok.left_edge.i > 0 and doc[tok.left_edge.i - 1].text == ","):
            continue  # (an apposition the parse calls an adverbial: "promoted in 1971, the first astronaut to ...")
        if tok.lower_ in _RANKED_THINGS or tok.lemma_.lower() in _RANKED_THINGS or not _about_a_person(tok):
            continue
        before = [c for c in tok.children if c.i < tok.i]
        # (the parse may hang "the" and the superlative on each other: "the oldest ever player to ...")
        pre = doc[tok.left_edge.i:tok.i]
        if not any(t.dep_ == "det" and t.lower_ == "the" for t in pre):
            continue
        ranked = tok.lower_ in RANKING or tok.tag_ == "JJS" or any(
            c.lower_ in RANKING or is_ordinal(c) or c.tag_ == "JJS" or (c.dep_ == "amod" and any(g.tag_ == "RBS" for g in c.children))
            for c in before) or any(t.tag_ == "JJS" and t.head.i in range(tok.left_edge.i, tok.i) for t in pre)
        if not ranked:
            continue
        right = tok
        for c in tok.children:
            if c.i > tok.i and c.dep_ not in ("conj", "cc", "punct"):
                right = max(right, c.right_edge, key=lambda t: t.i)
        nxt = right.i + 1
        if nxt < len(doc) and doc[nxt].lower_ == "to" and doc[nxt].head.dep_ in ("advcl", "xcomp", "acl") \
                and doc[nxt].head.head in (tok, tok.head):
            right = max(right, doc[nxt].head.right_edge, key=lambda t: t.i)  # "the first physician | to make a space flight"
        nxt = right.i + 1
        if nxt + 1 < len(doc) and doc[nxt].text == "," and (ap := max(
                (t for t in doc[nxt + 1:] if t.dep_ in ("appos", "attr") and t.pos_ in ("NOUN", "PROPN")
                 and t.left_edge.i == nxt + 1), key=lambda t: t.right_edge.i, default=None)) is not None:
            right = ap.right_edge  # "the last surviving starter from the race, the 1950 British Grand Prix": its apposition
        nxt, end = right.i + 1, tok.sent.end
        if nxt + 1 < end and doc[nxt].text == "," and doc[nxt + 1].dep_ == "prep" and doc[nxt + 1].head.i < nxt \
                and not any(t.pos_ in ("VERB", "AUX") for t in doc[nxt + 1:end]):
            # more places of the ranked deed, which the parse hung elsewhere: "the first Canadian artist to win
            # a prize at X, at Y and at Z" ("He was a Canadian artist, at another organization." was left)
            right = doc[end - 1]
        while right.i > tok.i and right.is_punct:
            right = doc[right.i - 1]
        a, b = tok.left_edge.idx, right.idx + len(right.text)
        first = tok
        while first.dep_ == "conj":
            first = first.head
        plain = _plain_noun(tok, spans) if first.dep_ == "attr" and first.head.lemma_ == "be" else None
        out.append(Span(a, b, text[a:b], "CLAIM", 0.7, "parse:ranking", {"plain": plain} if plain else {}))
    return out
_A_YEAR = re.compile(r"1[5-9]\d\d|20\d\d")
_DEMONSTRATIVES = frozenset("this that these those".split())
# a lower-case word of four letters or more that is none of the common prepositions, determiners or
# pronouns below: what a phrase tells beside its names
_CONTENT_WORD = re.compile(r"\b(?!(?:near|with|from|into|onto|over|under|after|before|during|since|until|about|around|"
                           r"through|throughout|their|which|that|this|these|those|where|when|while|within|without|"
                           r"along|among|between|behind|beyond|upon|across|against|toward|towards)\b)[a-z]{4,}\b")
# nouns that sum up what a sentence before told ("The project impressed him", "The move paid off")
_SHELL_NOUNS = frozenset("""project move decision appointment effort experience success achievement
venture commission collaboration deal transfer incident accident attempt idea plan scheme
undertaking feat""".split())
_NAMED_TYPES = ("ORG", "EVENT", "AWARD", "WORK", "PRODUCT", "LOCATION", "PROPER", "NAME", "TITLE")


def _abbreviates(s: Span, spans: list[Span], text: str) -> bool:
    """Is ``s`` a bracketed abbreviation right after another name ("Major League Baseball (MLB)")?"""
    if s.type not in _NAMED_TYPES or text[s.start - 1:s.start] != "(" or text[s.end:s.end + 1] != ")" \
            or not re.fullmatch(r"[A-Z][A-Za-z&.]{1,9}", s.text) or sum(c.isupper() for c in s.text) < 2:
        return False
    return any(p.type in _NAMED_TYPES and p.end < s.start and not text[p.end:s.start - 1].strip() for p in spans)


def _gender(text: str) -> str | None:
    male, female = len(_MALE.findall(text)), len(_FEMALE.findall(text))
    # one pronoun is enough when the text has none of the other gender and it is written as a
    # pronoun (lower case, or opening a sentence: "He won the championship", the only one in a
    # chess player's biography; not the title "His Girl Friday"); otherwise it must outnumber the
    # other three to one
    def lone(rx: re.Pattern) -> bool:
        return any(m.group(0).islower() or _SENTENCE_OPEN.search(text[:m.start()]) for m in rx.finditer(text))
    return "male" if (male >= 2 and male >= 3 * female) or (male == 1 and not female and lone(_MALE)) else \
        "female" if (female >= 2 and female >= 3 * male) or (female == 1 and not male and lone(_FEMALE)) else None


def subject_info(text: str, name: str | None, spans: list[Span], label: str | None = None,
                 sentences: list[tuple[int, int]] | None = None) -> SubjectInfo:
    gender = _gender(text)
    toks: set[str] = set()
    if name:
        toks = {fold(t) for t in re.findall(r"[^\W\d_][\w'-]+", name) if len(t) > 1}
        # a hyphenated part is its words too ("Chu Shong Tin" opens the biography of "Chu Shong-tin")
        toks |= {p for t in toks if "-" in t for p in t.split("-") if len(p) > 1}
        # the nickname the text gives the subject where it first names them ('Winbert F. \"Bert\"
        # Mulholland' for "Winbert F. Mulholland": "Bert Mulholland began his career" is the subject)
        first = NICKNAMED.search(text[:300])
        if first and toks and fold(first.group(0).split()[-1].rstrip(",")) in toks:
            toks |= {fold(w) for q in re.findall(NICKNAME, first.group(0)) for w in re.findall(r"[^\W\d_][\w'-]+", q)
                     if len(w) > 1}
    # the label's role noun, only where the text already says it (never inject the label)
    role = role_noun(label) if label and label.strip() and set(tokenize(label)) <= set(tokenize(text)) else None
    info = SubjectInfo(name=name, gender=gender, first_person=bool(_FIRST.search(text)), name_tokens=toks, role=role)
    if gender is None and sentences and toks:
        # the pronouns of the sentences that name nobody but the subject: a patient's "he died" in
        # a physician's biography is the patient's ("Person APF" stood for her throughout)
        # (nor the sentence right after one that names someone else: "She married John Smith. He is a
        # lawyer."); and only a clear answer: two pronouns or more, none of the other gender
        others = [p for p in spans if p.type == "PERSON" and not info.is_subject(p)]
        named = [any(a <= p.start < b for p in others) for a, b in sentences]
        own = " ".join(text[a:b] for x, (a, b) in enumerate(sentences) if not named[x] and not (x and named[x - 1]))
        male, female = len(_MALE.findall(own)), len(_FEMALE.findall(own))
        clear = "male" if male >= 2 and not female else "female" if female >= 2 and not male else None
        info = dataclasses.replace(info, gender=clear)
    return info


# prepositions after which a place can be replaced by a region that contains it and stay true
# ("born in Sacramento" -> "born in California"); after others ("led Germany", "a spell at
# Rochdale", "the governor of Kentucky") a containing region says something else
LOCATIVE = frozenset("in from across throughout around to into within inside".split())
# verbs whose "to"/"from" place is one end of a move ("returned to Reutlingen")
MOVE_VERBS = frozenset("return move relocate emigrate immigrate come go flee".split())
# verbs whose "to" says what something was narrowed to ("cut down to El Paso", "limited to Ohio")
_NARROWING_VERBS = frozenset("cut reduce limit restrict confine narrow shrink trim pare".split())
_ARGUMENT_DEPS = ("nsubj", "nsubjpass", "dobj", "dative", "iobj", "oprd")


_CATEGORY_NOUNS = frozenset("women men girls boys ladies gentlemen woman man girl boy lady".split())
_OFFICES = frozenset("ambassador consul envoy minister representative commissioner delegate attaché ambassadorship "
                     "embassy consulate chancellor premier".split())
# what a country has one of, or holds: "the Australian squad" is no "Oceanian squad", "the
# Greek record" no "European record" (a continent's team or record is another thing)
_NATIONAL = frozenset("""team teams squad squads side eleven federation association league championship
championships champion champions title titles record records cup army navy government parliament
senate congress police""".split())


def _verb_over(s: Span, doc):
    """The verb whose prepositional object (or object) the span is ("competed at X"), or None."""
    head, _ = _first_head(s, doc)
    if head is None:
        return None
    if head.dep_ == "pobj" and head.head.dep_ in ("prep", "dative"):
        head = head.head
    return head.head if head.dep_ in ("prep", "dobj", "dative") and head.head.pos_ == "VERB" else None


def _cognate(verb, phrase: str) -> bool:
    """Does the kind phrase's noun share its stem with the verb ("competed" / "a competition")?"""
    words = re.findall(r"[a-z]+", phrase.lower())
    if not words:
        return False
    stem = verb.lemma_.lower()[:6]
    return len(stem) >= 5 and words[-1].startswith(stem)


# a setting the tagger reads as a noun after a name ("the radio on Lyric FM low" -> "on a low" was an output):
# with the name gone it reads as it is ("the radio on low")
_SETTINGS = frozenset("low high loud quiet full max maximum minimum medium mute repeat standby".split())


def _bare_noun_article(s: Span, doc, text: str) -> str | None:
    """The article a singular common noun needs once the name before it, its only determiner,
    goes ("for Fortec team" -> "for a team"), or None."""
    toks = _tokens_in(s, doc)
    if not toks:
        return None
    k = toks[-1].i + 1
    while k < len(doc) and doc[k].is_punct:
        k += 1
    if k >= len(doc):
        return None
    noun, inside = doc[k], range(toks[0].i, toks[-1].i + 1)
    if noun.tag_ != "NN" or not any(t.head.i == noun.i for t in toks) \
            or any(c.dep_ in ("det", "poss", "nummod") and c.i not in inside for c in noun.children) \
            or (toks[0].i > 0 and doc[toks[0].i - 1].dep_ in ("det", "poss")) \
            or (toks[0].i > 0 and doc[toks[0].i - 1].lower_ in ("of", "in")
                and not (s.type == "LOCATION" and noun.lower_ in lexicon()["settlement_nouns"])) \
            or noun.left_edge.i < toks[0].i or noun.lower_ in lexicon()["mass_nouns_set"] or noun.lower_ in _SETTINGS \
            or (noun.dep_ == "conj" and any(c.dep_ in ("det", "poss") for c in noun.head.children)):
        # (a conjunct shares its first item's: "a former NFL punter and MLB pitcher" -> "a former punter
        # and pitcher" - "a former punter and a pitcher" was false, he no longer pitched)
        # (a field after "of" takes none: "a student of Roman architecture" -> "of an architecture"; nor
        # does a noun with a modifier before the name: "for American Color Field painting" -> "for American
        # a painting" was an output; nor a sport or a field: "playing AAU basketball" -> "playing basketball";
        # a settlement after "in" does: "in Funazawa village" -> "in a village", not "in village")
        return None
    return article_for(noun.text if k == toks[-1].i + 1 else text[s.end:].split()[0])


def _the_before_name(s: Span, doc) -> int | None:
    """Where the "the" before a name that modifies a singular noun starts, when nothing after the
    noun says which one it is: "for the Peabody Mason Concert series" -> "for a series" ("he made
    his debut for the series" was an output: "the" asks which one). None otherwise."""
    toks = _tokens_in(s, doc)
    if not toks or toks[0].i == 0:
        return None
    the, k = doc[toks[0].i - 1], toks[-1].i + 1
    if the.lower_ != "the" or k >= len(doc):
        return None
    noun = doc[k]
    while noun.dep_ == "compound" and noun.head.i > noun.i and noun.head.i - k < 3:
        noun = noun.head  # "the Lancia factory team" -> "a factory team" ("for the factory team" asked which)
    if the.head.i > noun.i and the.head.i - k < 5 and all(
            doc[j].dep_ in ("compound", "amod", "nmod", "nummod") and doc[j].head.i <= the.head.i for j in range(k, the.head.i)):
        # "the 2006 Portuguese football World Cup team": the noun the whole phrase is about, past the
        # other modifiers ("the official suit of the football team" was an output)
        noun = the.head
    if noun.tag_ != "NN" or the.head.i != noun.i or not any(t.head.i in range(k, noun.i + 1) for t in toks) \
            or noun.lower_ in lexicon()["mass_nouns_set"] or noun.lower_ in DEICTIC_NOUNS \
            or any(c.i > noun.i and c.dep_ in ("prep", "relcl", "acl", "appos") and doc[c.left_edge.i - 1].text not in (",", "(")
                   and not (c.dep_ == "prep" and c.lower_ == "for") for c in noun.children):
        # ("the A-12 spy plane for the CIA": whom it was for says nothing of which one; nor does a bracket:
        # "commanded the mission (in the 1970s)" of "the Apollo 14 mission (1971)" was an output)
        return None  # (a clause set off by a comma says nothing of which one: "in the UFC 5 tournament, where he")
    return the.idx


def _nationality_of(s: Span, doc) -> str | None:
    """What a nationality before a noun is part of, where a wider region would say something
    false: a rank ("the first Dutch professional player") or an office held for that country
    ("the British Ambassador")."""
    head, toks = _span_head(s, doc)
    if head is None:
        return None
    if head.dep_ not in ("amod", "compound", "nmod"):
        # the nationality as a noun: "he was the first Portuguese to reach a final"
        if any(c.i < head.i and (c.lower_ in RANKING or c.tag_ in ("JJS", "RBS") or is_ordinal(c)) for c in head.children):
            return "ranked"
        return None
    noun = head.head
    while noun.dep_ == "compound" and noun.head.i > noun.i:
        noun = noun.head
    if noun.lemma_.lower() in _OFFICES or any(t.lower_ in _OFFICES for t in doc[head.i + 1:noun.i + 1]):
        return "office"
    if any(c.i < head.i and (c.lower_ in RANKING or c.tag_ in ("JJS", "RBS") or is_ordinal(c)) for c in noun.children):
        return "ranked"
    if noun.lower_ in ("no", "number") or (head.i + 1 < len(doc) and doc[head.i + 1].lower_ in ("no", "no.", "number")):
        return "ranked"  # "the current Greek No. 1" is no "European No. 1"
    if noun.lemma_.lower() in _NATIONAL:
        return "office"
    return None


# nouns that say what an organisation or a work is, before its name
_KIND_NOUNS = frozenset("""group company firm band club team organization organisation charity foundation magazine
newspaper journal film movie novel book album song single show series play opera label agency studio network
channel school university college party union association society orchestra choir ensemble restaurant hotel
gallery museum publisher store brand program programme project festival documentary painting sculpture poem
collection exhibition musical sitcom podcast website bank fund institute trust""".split())


def _kind_noun_before(s: Span, doc) -> bool:
    """Does a common noun right before the name say what it is ("group" of "the non-profit group
    Friends of Photography", "film" of "his film Titanic"): a singular noun the parse joins to the
    name as its compound, or that the name is in apposition to?"""
    toks = _tokens_in(s, doc)
    if not toks or toks[0].i == 0:
        return False
    prev, inside = doc[toks[0].i - 1], range(toks[0].i, toks[-1].i + 1)
    if prev.pos_ != "NOUN" or prev.tag_ != "NN" or prev.lower_ not in _KIND_NOUNS or not prev.text.islower():
        return False  # ("the rookie level Grand Junction Rockies": a level is not what the team is)
    head = next((t for t in toks if t.head.i not in inside or t.head.i == t.i), toks[-1])
    return (prev.dep_ == "compound" and prev.head.i in inside) or (head.dep_ == "appos" and head.head.i == prev.i)


_NEXT_WORD = re.compile(r"\s*(\S*)")
# verbs the parse may take for an adjective before a role noun ("His daughter Sheila married jockey X");
# a participle that is one ("his noted colleague X", "Oscar nominated director X") is no verb
_VERBS_BEFORE_A_ROLE = frozenset("married wed divorced joined hired signed defeated beat succeeded replaced".split())
# verbs of reaching someone that the parse reads as a noun before a name ("or phone Ruth-Anne at ..." read
# "or a phone"): no role. A list, not a lexical resource: the model has no noun senses (WordNet's data
# would be a download)
_CONTACT_VERBS = frozenset("phone call ring text email e-mail message contact thank ask tell visit meet join".split())


_CONTINENT = re.compile(r"\b(?:(?<!South )Africa|Asia|Europe|North America|South America|Central America|Oceania|the Caribbean|"
                        r"the Middle East|Antarctica)\b")
# an article and at most two lower-case words before a span ("to a record $100,000", "a mere $300")
# what an article and an amount share between them ("a record $100,000"; "He paid a man $50" is no sum's article)
_SUM_ADJECTIVES = frozenset("record mere further additional extra reported estimated modest hefty whopping staggering "
                            "paltry total combined undisclosed nominal symbolic".split())
_ARTICLE_BEFORE = re.compile(r"(?<![\w-])[Aa]n?\s+((?:[a-z][a-z-]*\s+){0,2})$")


def _role_before(s: Span, doc) -> tuple[int, bool] | None:
    """Where the singular role noun right before a person's name starts ("photographer" of
    "photographer Glen Fishback", "genre painter" of "the genre painter Sydney Hall"), and whether
    a determiner stands before it, or None."""
    toks = _tokens_in(s, doc)
    if not toks or toks[0].i == 0:
        return None
    k, chain = toks[0].i - 1, []
    while k >= 0 and doc[k].pos_ == "NOUN" and doc[k].text.isalpha() and doc[k].text.islower():
        chain.insert(0, doc[k])
        k -= 1
    if not chain or chain[-1].tag_ != "NN" or (len(chain) == 1 and chain[0].lower_ in _CONTACT_VERBS):
        return None
    inside = range(toks[0].i, toks[-1].i + 1)
    last = chain[-1]
    head = next((t for t in toks if t.head.i not in inside or t.head.i == t.i), toks[-1])
    if not ((last.dep_ == "compound" and last.head.i in inside) or head.dep_ in ("appos", "pobj", "dobj", "conj")):
        return None  # (the parse may hang the name anywhere: "Son of photographer | Glen Fishback" as an apposition)
    if k >= 0 and doc[k].lower_ in ("head", "lead", "chief", "vice", "deputy", "assistant", "senior", "junior"):
        # "assistant to head coach X": the parse's verb "head" is the role's ("to head a coach" was an
        # output); with nothing before it but a preposition, the whole role takes the article ("to a head coach")
        if k > 0 and (doc[k - 1].lower_ in ("to", "as") or doc[k - 1].pos_ in ("ADP", "CCONJ") or doc[k - 1].is_punct):
            return doc[k].idx, False
        return None
    if k > 0 and doc[k].lower_ in _VERBS_BEFORE_A_ROLE and doc[k - 1].pos_ in ("PROPN", "NOUN", "PRON") \
            and doc[k - 1].dep_ not in ("poss", "npadvmod", "compound") and doc[k - 1].head.i != k:
        return chain[0].idx, False  # "His daughter Sheila married jockey X" (the parse's "married" an adjective)
    if k >= 0 and doc[k].pos_ == "ADJ" and doc[k].text.islower():
        # "trained for automotive industrialist X", "and former coach X": lower-case adjectives and
        # nothing before them that determines the phrase: they and the role take the article
        j = k
        while j >= 0 and doc[j].pos_ == "ADJ" and doc[j].text.islower() and doc[j].dep_ == "amod":
            j -= 1
        if j >= 0 and j < k and (doc[j].pos_ in ("ADP", "CCONJ", "SCONJ", "VERB", "AUX") or doc[j].is_punct):
            return doc[j + 1].idx, False
    if k >= 0 and doc[k].dep_ == "amod" and doc[k].head.i in {t.i for t in chain} and k > 0 \
            and doc[k].pos_ == "VERB" and (doc[k - 1].dep_ == "poss" or doc[k - 1].lower_ in ("his", "her", "their", "its")):
        return chain[0].idx, True  # "his noted colleague X" (the parse's participle "noted"): "his noted colleague"
    if k < 0 or doc[k].is_punct or doc[k].pos_ in ("ADP", "CCONJ", "SCONJ", "VERB", "AUX"):
        return chain[0].idx, False  # nothing of the noun phrase before the role: it takes an article
    if doc[k].lower_ == "the":
        return doc[k].idx, False  # "the genre painter X" -> "a genre painter" ("the genre painter" asks which)
    if doc[k].dep_ in ("det", "poss", "case") or doc[k].lower_ in ("a", "an", "his", "her", "their", "its"):
        return chain[0].idx, True  # "his brother X", "Spain's tennis player X"
    if doc[k].pos_ == "ADJ" or doc[k].text[:1].isupper():
        # "the European entomologist X", "head coach X": modifiers before the role; with a determiner before
        # them the name can go, without one there is no place for an article
        j = k
        while j >= 0 and (doc[j].pos_ in ("ADJ", "PROPN", "NOUN") or doc[j].text[:1].isupper()) and not doc[j].is_punct:
            j -= 1
        if j >= 0 and doc[j].lower_ == "the":
            # "sold to the French entomologist X" -> "to a French entomologist" ("to the European
            # entomologist" was an output: "the" asks which one)
            return doc[j].idx, False
        if j >= 0 and (doc[j].dep_ in ("det", "poss", "case") or doc[j].lower_ in ("his", "her", "their", "its")):
            return chain[0].idx, True
    return None


# who a person is to the subject when the sentence beats them: "defeated X", "a win over X", "lost to X"
_OPPONENT_VERBS = frozenset("defeat beat upset eliminate overcome outpoint edge face oust unseat knock".split())
# ... and after "by": whom the subject lost to ("beaten by X" may be no contest)
_OPPONENT_AGENTS = frozenset("defeat upset eliminate outpoint edge".split())
# what "over X", "against X" are said of when X is an opponent ("testified against X" is not)
_CONTESTS = frozenset("""win victory defeat loss upset triumph match game bout fight final title record debut
play compete prevail pick race run score lose""".split()) | _OPPONENT_VERBS
# the dependencies of a name whose slot a stand-in may fill
_STAND_IN_DEPS = ("nsubj", "nsubjpass", "dobj", "dative", "pobj", "poss")


_KIN = frozenset("""son daughter child children father mother parent parents stepson stepdaughter stepfather
stepmother""".split())


# the prepositions after which "someone" reads as written English ("worked with someone", "a chef for someone")
_SOMEONE_AFTER = frozenset("with for by to from alongside about after than".split())
# what happens to a person: "following the death of X" reads with "someone"
_EVENTS_OF_A_PERSON = frozenset("death murder assassination retirement resignation departure arrival illness".split())


def _about_the_subject(verb, kin: bool = False) -> bool:
    """Is ``verb`` a copula whose subject is the text's subject ("He was", "She is") or, with
    ``kin``, one of their relatives ("His father was")?"""
    if verb.lemma_ != "be":
        return False
    subj = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subj is None:
        return False
    if subj.lower_ in ("he", "she") or (subj.pos_ == "PROPN" and not kin):
        return not kin  # ("Trengrouse was the son of X": the subject's own name, or whoever's, who is no more)
    return kin and subj.lemma_.lower() in _KIN | {"wife", "husband", "brother", "sister", "spouse"} \
        and any(c.dep_ == "poss" and c.lower_ in ("his", "her") for c in subj.children)


def _stand_ins(units: list[Unit], doc, ctx: GeneralizeContext) -> None:
    """A person the text names once (and no other document of the batch names), with no role noun
    before the name, becomes what the sentence says of them (one named more often keeps it in
    ``Unit.lone``, for :meth:`LocalOptimizer._lone_pseudonyms`) (:func:`_person_stand_in`): "meet Person
    FY, the German ambassador" -> "meet the German ambassador", "defeated Person ZF" -> "defeated an
    opponent", "a chef for someone". "Person AJE" read as a form no one filled in (blind reads), and
    one mention needs no name to refer back to. In place, after every span's decision."""
    def pseudonym(u: Unit) -> str | None:
        p = re.sub(r"['’]s?$", "", u.policy or "")
        return p if u.span is not None and u.span.type == "PERSON" and PSEUDONYM.fullmatch(p) else None

    said = Counter(p for u in units if (p := pseudonym(u)))
    for k, u in enumerate(units):
        if u.drop_unit or not said[pseudonym(u)] or _named_elsewhere(u.span, ctx) \
                or (stand := _person_stand_in(u.span, doc)) is None:
            continue
        s, repl, why = stand
        if said[pseudonym(u)] > 1:
            # named again: the pseudonym says it is one person, unless the edits leave one mention
            if repl and (s.start, s.end) == (u.start, u.end):
                units[k] = dataclasses.replace(u, lone=(repl, why))
            continue
        if repl is None:  # (the pseudonym only where the sentence cannot go: the text's first)
            u.drop_unit, u.or_sentence, u.reason = True, True, why
            continue
        units[k] = dataclasses.replace(u, start=s.start, end=s.end, text=s.text, span=s, options=[repl], policy=repl,
                                       or_sentence=False, reason=why, tokens=list(_tokens_of(s.text)))


def _named_elsewhere(s: Span, ctx: GeneralizeContext) -> bool:
    """Does another document of the batch name this person? Then the batch's pseudonym stays: it
    is what tells a reader of the release that two records speak of one person."""
    name = re.sub(r"\s*['’]s?$", "", s.text)
    idx = ctx.pseudonyms.resolve(name, ctx.doc_id)
    if idx is not None and len(ctx.pseudonyms.entries[idx]["docs"]) > 1:
        return True
    names = [name] + (ctx.pseudonyms.names(idx) if idx is not None else [])
    return ctx.named_elsewhere is not None and ctx.named_elsewhere(names)


def _span_titled(s: Span) -> bool:
    """Does a person's span open with a title or rank ("General Bertrand", "Dr. Jean Malecki")?"""
    first = s.text.split()[0].rstrip(".").lower() if s.text.split() else ""
    return bool(s.meta.get("honorific") or s.meta.get("titled")) or first in NAME_TITLES


def _says_little(sent, toks) -> bool:
    """Does the sentence say little beyond whose relative the subject was: no verb but its copula,
    a dozen words at most besides the name ("He was the son of X and grew up in Vienna" says more)?"""
    inside = {t.i for t in toks}
    rest = [t for t in sent if t.i not in inside and not t.is_punct]
    return len(rest) <= 12 and not any(t.pos_ == "VERB" for t in rest)


def _person_stand_in(s: Span, doc) -> tuple[Span, str | None, str] | None:
    """What may stand for a person's name the text gives once, from the sentence itself: the
    apposition after it that says who they are ("meet X, the German ambassador" -> "meet the German
    ambassador"; "the child of X, a timber-merchant" -> "the child of a timber-merchant"), "an
    opponent" for whom the subject beat or lost to, "someone" as an object or a possessive
    ("became someone's assistant trainer"). A replacement of None: the phrase or sentence goes (a
    sentence that only says whose relative the person is, "His parent was X"; "according to X").
    None where no stand-in reads: a subject ("Someone was his friend"), a title or role before the
    name, another "of" phrase ("the music of X"), a conjunct ("X and Y"), an attribute."""
    head, toks = _span_head(s, doc)
    if head is None:
        return None
    inside = range(toks[0].i, toks[-1].i + 1)
    if head.dep_ == "conj" or any(c.dep_ == "conj" and c.i not in inside for c in head.children):
        return None
    nxt = doc[toks[-1].i + 1] if toks[-1].i + 1 < len(doc) else None
    before = doc[toks[0].i - 1] if toks[0].i > 0 else None
    if before is not None and (before.pos_ in ("NOUN", "ADJ", "PROPN") or (
            before.text[:1].isupper() and not before.is_sent_start)) or _span_titled(s):
        # a title or role the name goes with: "received by King X of Prussia", "assistant to head coach X",
        # "for General Bertrand" ("King someone", "head coach someone", "for someone" were outputs)
        return None
    ap = next((c for c in head.children if c.dep_ == "appos" and c.i > toks[-1].i and c.pos_ == "NOUN"
               and c.text.islower() and c.left_edge.pos_ in ("DET", "PRON", "NOUN", "ADJ", "NUM")), None)
    # (never an apposition that opens with an adverb: "X, then a student" -> "a then a student")
    if ap is not None and nxt is not None and nxt.text == "," and ap.left_edge.i == nxt.i + 1 \
            and head.dep_ in _STAND_IN_DEPS + ("attr",) and head.dep_ not in ("nsubj", "nsubjpass", "poss"):
        # (not a subject's: "In 2006, X, a photo editor, was admitted" keeps its closing comma, and "a photo
        # editor, was admitted" was an output)
        first = ap.left_edge
        determined = first.dep_ in ("det", "poss") or first.lower_ in ("the", "a", "an", "his", "her", "their", "its")
        wide = Span(s.start, nxt.idx + 1, doc.text[s.start:nxt.idx + 1], s.type, s.score, s.evidence, s.meta)
        return wide, ("" if determined else article_for(first.text)), \
            "a person named once goes; the apposition says who they are"
    if head.dep_ not in _STAND_IN_DEPS + ("attr",):
        return None
    if head.dep_ in ("nsubj", "nsubjpass"):
        # the sentence is about them: "Someone was his friend", "Someone remained as Foreign Secretary"
        # read as riddles; the pseudonym stays
        return None
    possessive = head.dep_ == "poss" or bool(re.search(r"['’]s?$", s.text)) or (nxt is not None and nxt.tag_ == "POS")
    gov = head.head
    if not possessive:
        if head.dep_ == "dobj" and gov.lemma_.lower() in _OPPONENT_VERBS and all(
                c.pos_ in ("PRON", "PROPN") for c in gov.children if c.dep_ == "nsubj"):
            # (the subject's own doing, or a gerund's, "by defeating X": "The board ousted X" is no contest of his)
            return s, "an opponent", "a person the subject beat or faced, named once: an opponent"
        if head.dep_ == "pobj" and (
                (gov.lower_ in ("over", "against", "versus", "vs.") and gov.head.lemma_.lower() in _CONTESTS)
                or (gov.lower_ == "to" and gov.head.lemma_.lower() == "lose")
                or (gov.lower_ == "by" and gov.head.lemma_.lower() in _OPPONENT_AGENTS)
                or (gov.lower_ == "of" and gov.head.lemma_.lower() in ("defeat", "upset"))):
            return s, "an opponent", "a person the subject beat, faced or lost to, named once: an opponent"
        if head.dep_ == "pobj" and gov.lower_ == "to" and gov.head.lower_ == "according":
            return s, None, "a source named once: 'according to' goes with it"  # ("According to someone," read as gossip)
        if head.dep_ == "pobj" and gov.lower_ in ("as", "like", "including"):
            return None  # an example of a kind: "played alongside such greats as X" ("such greats as someone")
        if head.dep_ == "pobj" and gov.lower_ == "of" and gov.head.lemma_.lower() in _EVENTS_OF_A_PERSON:
            return s, "someone", "a person named once, with nothing in the sentence that says who they are: someone"
        if head.dep_ == "pobj" and gov.lower_ == "of":
            if gov.head.lemma_.lower() in _KIN and gov.head.dep_ == "attr" and _about_the_subject(gov.head.head) \
                    and _says_little(head.sent, toks):
                # "He was the son of X by his wife, Y": the sentence says whose child he was and nothing
                # else ("He was the son of someone" says nothing, "the son" asks whose)
                return s, None, "a parent named once: the sentence that says whose child the subject was goes"
            return None
        if head.dep_ == "pobj" and gov.lower_ not in _SOMEONE_AFTER:
            return None  # "a performance under someone" reads as no one writes
        if re.match(r"\W*(?:among|amongst) others\b", doc.text[s.end:s.end + 20]):
            return None  # "worked with X, among others": the others are of X's kind (the pseudonym stays)
    if head.dep_ == "attr":
        if not possessive and _about_the_subject(head.head, kin=True) and _says_little(head.sent, toks):
            return s, None, "a relative named once: the sentence that only names them goes"
        return None  # "His coach was someone" reads as a riddle
    repl = "someone" if not possessive else ("someone's" if re.search(r"['’]s?$", s.text) else "someone")
    return s, repl, "a person named once, with nothing in the sentence that says who they are: someone"


def _ranked_within(noun) -> bool:
    """Does a rank range over ``noun`` - a superlative, an ordinal or "top" on it or on a noun whose
    clause it stands in ("the most talented players ever to wear a Knicks jersey"), or the verb
    "rank" above it ("ranked no. 9 in the rankings for female BMX cyclists")? Its modifier then
    says within which group, and cannot go alone."""
    def ranked(n) -> bool:
        return any(c.tag_ in ("JJS", "RBS") or c.lower_ in RANKING or c.lower_ == "top" or is_ordinal(c)
                   or (c.dep_ == "amod" and any(g.tag_ == "RBS" for g in c.children)) for c in n.children)

    t = noun
    for _ in range(8):
        if t.pos_ in ("VERB", "AUX"):
            if t.lemma_.lower() in ("rank", "ranking"):  # (the parse's "rankings" may be a verb)
                return True
            if any(c.dep_ == "aux" and c.lower_ == "to" for c in t.children) and t.left_edge.i > 0 \
                    and (n := t.doc[t.left_edge.i - 1]).pos_ == "NOUN" and ranked(n):
                return True  # "the most talented players | ever to wear", wherever the parse hung the verb
            if t.dep_ not in ("acl", "relcl", "xcomp"):
                return False
        elif ranked(t):
            return True
        if t.head.i == t.i:
            return False
        t = t.head
    return False


def _tokens_in(s: Span, doc) -> list:
    """The tokens that start inside the span (a binary search in the Doc, not a scan: long
    documents have thousands of spans)."""
    sp = doc.char_span(s.start, s.end, alignment_mode="expand")
    return [t for t in sp if t.idx >= s.start] if sp is not None else []


def _span_head(s: Span, doc):
    toks = _tokens_in(s, doc)
    if not toks:
        return None, toks
    return max(toks, key=lambda t: (t.head.i < toks[0].i or t.head.i > toks[-1].i, t.i)), toks


def _first_head(s: Span, doc):
    """The first token of the span attached outside it: "Evanston" of "Evanston, Illinois" (the
    parser may hang "Illinois" anywhere), the noun of "the Daily Telegraph"."""
    toks = _tokens_in(s, doc)
    outside = [t for t in toks if t.head.i < toks[0].i or t.head.i > toks[-1].i or t.head.i == t.i]
    return (outside[0] if outside else (toks[-1] if toks else None)), toks


def _in_born_bracket(tok) -> bool:
    """Does ``tok`` stand inside a bracket that opens with "born" ("(born 1878 in Japan – 1941)")?"""
    for t in reversed(tok.doc[max(0, tok.i - 40):tok.i]):
        if t.text in (")", "."):
            return False
        if t.text == "(":
            return t.i + 1 < tok.i and t.nbor().lower_ in ("born", "b.")
    return False


# the ways to reach someone, which a text lists with "or" and "and" ("at [email] or [phone]"); a person's name
# after "with" before "and" is no such list ("won the Derby with Bold Venture and in 1946 captured")
_CONTACTS = frozenset({"EMAIL", "PHONE", "URL", "ID", "ADDRESS"})


def _leaves_a_coordinator(plan: "Plan", i: int, holder: int) -> bool:
    """Is span i a contact whose phrase (unit ``holder``), removed, leaves its "or" or "and" behind: a prepositional
    phrase before one, the first of two ways to reach someone, or a phrase right after one ("contact me at [email]
    or [phone]" read "contact me or [phone]", then "contact me at [email] or to book")? It takes its placeholder
    instead."""
    span, u, text = plan.units[i].span, plan.units[holder], plan.analysis.text
    return span is not None and span.type in _CONTACTS and (
        (u.kind == "prepositional phrase" and bool(re.match(r"\s+(?:or|and)\s", text[u.end:])))
        or (u.kind != "sentence" and bool(re.search(r"\s(?:or|and)\s+$", text[max(0, u.start - 5):u.start]))))


_PLANS_FOR = re.compile(r"\b(?i:goals?|plans?|targets?|budgets?|objectives?|forecasts?|priorities|outlook|strategy|accounts|returns?)"
                        r"\s+for\s+$")


# a line's opening label with its number and a dash: "Room 4 – ", "Bed 12B — "
_NUMBERED_HEADER = re.compile(r"[ \t]*[A-Z][A-Za-z]*(?: [A-Za-z]+){0,2} [0-9]{1,4}[A-Z]?[ \t]*[–—-][ \t]*")


# the space a deleted first sentence left after a speaker's own line ("**Person A** 8:02 AM\n [id] can you")
_SPACE_AFTER_SPEAKER = re.compile(rf"(?m)^([ \t]*{nlp.BOLD_SPEAKER}[ \t]*\n)[ \t]+(?=\S)")
# what opens a list's item ("- Pōhutu, a huntaway, arthritic." says whom the item's next sentences are about: no
# stub, though short)
_ITEM_START = re.compile(r"[ \t]*[-•‣–*][ \t]+")
# a chat's line left with its time and speaker alone
_BARE_CHAT_LINE = re.compile(rf"(?:{nlp.CHAT_LINE.pattern[4:]})(?:\n|$)", re.M)


def _on_a_form_line(text: str, a: int, b: int) -> bool:
    """Is text[a:b] a form's line, a form's value after its label on that line ("GP:" and its value are two
    sentences where the parser splits them) or a numbered line's head ("Room 4 – Mrs Nora Quigley, 88.")?"""
    line_start = text.rfind("\n", 0, a) + 1
    return bool(nlp.FORM_LINE.match(text[a:b].strip())) or bool(re.fullmatch(
        rf"[ \t]*{nlp.FORM_LABEL}[ \t]*", text[line_start:a])) or bool(_NUMBERED_HEADER.match(text, line_start, b))


def role_of(s: Span, doc) -> str | None:
    """How a span stands in its sentence, which decides what may replace it truthfully:
    - "modifier": it modifies a noun after it ("an Orlan space suit", "the Hartlepool youth
      team", "the 2007-08 season"): it can only be removed ("a space suit"); a generalization
      in that slot names something else ("the England youth team");
    - "counted": a numeral or quantifier stands before it ("20 Wimbledon Championships"): a kind
      phrase with its own article does not fit, so its phrase goes;
    - "locative": the object of a containment preposition ("in Sacramento"): a region fits;
    - "argument": subject, object or complement ("led Germany", "spent March 2007"): only a
      kind noun stays true ("led a country", "spent a month");
    - "determined": a number after a determiner or "top" ("the top 10"): it can only go;
    - "moved": the place a move starts or ends at ("returned to Reutlingen"): a region alone
      would say the move crossed its border ("returned to Germany" from Stuttgart), so the
      place's kind in its region fits ("returned to a city in Germany");
    - "pobj:<prep>": the object of another preposition; "possessive"; None when unknown."""
    head, toks = _first_head(s, doc)
    if head is None:
        return None
    if head.is_punct and (word := next((t for t in toks if not t.is_punct and t.head.i not in range(toks[0].i, toks[-1].i + 1)),
                                       None)) is not None:
        head = word  # a quoted name's own word, not its quote mark ("the ‘Rocket’ life-saving apparatus": a modifier)
    first = toks[0]
    prev = doc[first.i - 1] if first.i > 0 else None
    while head.dep_ == "conj" and head.head.i < head.i:
        head = head.head
    mod_deps = ("compound", "amod", "nmod", "nummod") if s.type in ("DATE", "YEAR", "DECADE", "MONEY") else ("compound", "amod", "nmod")
    if head.dep_ in mod_deps and head.head.i > toks[-1].i and head.head.pos_ in (
            ("NOUN",) if s.type == "PERSON" else ("NOUN", "PROPN")) and not (
            s.type in ("DATE", "YEAR", "DECADE") and prev is not None and prev.pos_ == "ADP" and head.head.pos_ == "PROPN"
            and head.head.ent_type_ in ("", "PERSON")) and not (
            s.type in ("DATE", "YEAR", "DECADE") and toks[-1].i + 1 < len(doc) and doc[toks[-1].i + 1].text in ("–", "-", "—")):
        # (a date before a dash starts a range, whatever the parse hung it on: "Henry Trengrouse (18 March 1772 –
        # 14 February 1854) inventor of ..." read "(– the 1850s)")
        # (a year right after a preposition is its object, whatever the parse hung it on, before a
        # person's name: "In 1950 de Groot came"; "in 1996 Summer Olympics" stays a modifier)
        return "modifier"  # (a person's name before a proper noun is more of the name: "Jesús Rosendo Prado")
    nxt = doc[toks[-1].i + 1] if toks[-1].i + 1 < len(doc) else None
    if s.type in ("ORG", "EVENT", "AWARD", "WORK", "PROPER", "NAME", "LOCATION", "TITLE") and nxt is not None \
            and nxt.pos_ == "NOUN" and nxt.text[:1].islower() \
            and nxt.i in (toks[-1].head.i, head.head.i):
        # "numerous non-Championship Formula One races": whatever the parse made of the name's own
        # words, it stands before the noun it modifies ("a motor racing series races" was an output)
        return "modifier"
    if s.type == "PERSON" and nxt is not None and nxt.pos_ in ("NOUN", "PROPN") and nxt.is_lower \
            and nxt.i in (toks[-1].head.i, head.head.i) and prev is not None \
            and (prev.pos_ in ("DET", "ADJ") or prev.dep_ in ("det", "amod", "poss", "compound")):
        # a name between an article or adjective and its noun is no person of the story: "a
        # Canadian-Jamaican Muay Thai kickboxer" ("a ... Person KN kickboxer" was an output)
        return "modifier"
    if (head.dep_ == "poss" or (toks[-1].i + 1 < len(doc) and doc[toks[-1].i + 1].tag_ == "POS")) \
            and not (s.type == "LOCATION" and str(s.meta.get("name", "")).endswith(("'s", "’s"))
                     and s.text.endswith(("'s", "’s"))):
        # (not a place whose name ends so: "Canadian Coast Guard, St. John's" read "a city's")
        return "possessive"
    if s.type == "NUMBER" and head.dep_ in ("nsubj", "nsubjpass") and head.i == toks[-1].i:
        return "determined"  # a bare number as the subject: "70 looks good on you" ("dozens of looks good" was an output)
    if s.type == "NUMBER" and prev is not None and (prev.lower_ in ("top", "bottom") or prev.dep_ in ("det", "poss")):
        return "determined"  # "among the top 10 players", "his 12 titles": no range reads after it
    if s.type == "LOCATION" and prev is not None and prev.lower_ in ("born", "died"):
        return "born_place"  # "(born New York City)": a place without its preposition -> "(born in the United States)"
    if s.type in ("DATE", "DOB", "YEAR") and prev is not None and prev.lower_ in ("born", "died", "b.", "d."):
        return None  # "born 6 July 1973": a time adverbial whatever the parse says ("born in the 1970s")
    if s.type in ("DATE", "DOB", "YEAR") and prev is not None and prev.text in ("–", "-", "—") and _in_born_bracket(prev):
        return "life_end"  # "(born 1878 in Japan – November 28, 1941)": the death date ("– died in the 1940s")
    if s.type != "PERSON" and prev is not None and prev.i > 0 and doc[prev.i - 1].text in ("No.", "no.", "#"):
        pass  # a rank's number counts nothing ("World No. 10 Sara Errani" -> "World No. Person ASG" was an output)
    elif s.type != "PERSON" and prev is not None and prev.dep_ in ("nummod", "quantmod") and prev.head.i >= first.i \
            and not is_ordinal(prev) and not _A_YEAR.fullmatch(prev.text):
        return "counted"
    if s.type != "PERSON" and prev is not None and prev.like_num and prev.head.i in range(first.i, toks[-1].i + 1) \
            and not is_ordinal(prev) and not _A_YEAR.fullmatch(prev.text) and not (prev.i > 0 and doc[prev.i - 1].text in ("No.", "no.", "#")):
        return "counted"  # (an ordinal counts nothing: "the historic Eighty-ninth Congress"; nor does a
        # year: "the 2005 Tour de France")
    if s.type != "PERSON" and any(c.dep_ == "nummod" and c.i < first.i and not _A_YEAR.fullmatch(c.text)
                                  and c.ent_type_ not in ("DATE", "TIME")  # (a date's day: "on 3 June 2024 Brightwater Ltd")
                                  and not (c.i > 0 and doc[c.i - 1].text in ("No.", "no.", "#")) for c in head.children):
        return "counted"  # "four consecutive Summer Olympics"
    if head.dep_ == "pobj" and prev is not None and prev.text == "(" and head.head.i < prev.i:
        return None  # a bracket the parse hung on a preposition far before it: "After rising to fame in
        # Mork & Mindy (1978–82)" is no "after 1978" ("(the start of the 1970s and 1980s)" was false)
    if head.dep_ == "pobj":
        prep = head.head.lower_
        gov = head.head.head
        if gov.dep_ in ("advmod", "prt") and gov.pos_ in ("ADV", "ADP", "PART") and gov.head.i != gov.i:
            gov = gov.head  # "moved back to New Mexico": the parse hangs "to" on "back"
        if s.type == "LOCATION" and prep in ("to", "from", "into") and gov.lemma_.lower() in MOVE_VERBS:
            return "moved"  # "returned to Reutlingen": a move's end (see the policy's Generalize)
        if prep == "to" and gov.lemma_.lower() in _NARROWING_VERBS:
            # "his district was cut down to El Paso": a wider place says the opposite ("cut down to
            # Texas" was an output); only the kind is true ("cut down to a city")
            return "pobj:to"
        if prep == "to" and head.head.head.lemma_.lower() in _OFFICES:
            # "Ambassador to India": the country is the office's scope, and "Ambassador to Asia"
            # was false (no continent has one); only the kind is true: "Ambassador to a country"
            return "pobj:to"
        return "locative" if prep in LOCATIVE else f"pobj:{prep}"
    if head.dep_ == "attr":
        return "attribute"
    if head.dep_ in _ARGUMENT_DEPS:
        return "argument"
    if head.dep_ == "appos":
        return "appositive"
    if head.dep_ in ("npadvmod", "tmod") and s.type in ("DATE", "YEAR") and (prev is None or prev.pos_ != "ADP"):
        return "adverbial"  # "1996 she was ranked" -> "In the 1990s she was ranked"
    return None


def _with_compounds(s: Span, doc) -> Span:
    """A name's proper-noun modifiers belong to it ("Summer" + "Olympics", "Salyut 6" +
    "EO-1"): a kind phrase must replace them with it, not leave "the Summer an event"."""
    if s.type in ("PERSON", "DATE", "YEAR", "DECADE", "DOB", "NUMBER", "MONEY", "AGE", "GENDERED", "NATIONALITY") \
            or s.type in LANGUAGE_INDEPENDENT:
        # (a direct identifier is its own shape: "Manitoba R6M 1A2" took the province out of the place
        # before it, whose generalization then lost to the address and left the postcode written)
        return s
    head, toks = _span_head(s, doc)
    if head is None:
        return s
    i = toks[0].i
    while i > 0 and doc[i - 1].pos_ == "PROPN" and doc[i - 1].dep_ == "compound" and doc[i - 1].head.i >= toks[0].i \
            and doc[i - 1].ent_type_ not in ("PERSON", "GPE", "DATE"):
        i -= 1
    if i > 0 and is_ordinal(doc[i - 1]) and s.type != "TITLE" \
            and (i <= doc[i - 1].head.i <= toks[-1].i or doc[i - 1].head.i < i - 1):
        # (never a title's: "Great Britain's second World Champion singles player" counts champions,
        # and "Great Britain's champion singles player" was an output)
        # (or the parse hung it on what came before: "in the 41st | Chess Olympiad")
        # an ordinal says which one ("the Eighty-ninth Congress", "the 61st Academy Awards"); one
        # that ranks the noun after the name stays ("the first Formula One driver" is no "driver")
        i -= 1
        while i >= 2 and doc[i - 1].text == "-" and not doc[i - 1].whitespace_ and not doc[i - 2].whitespace_ \
                and doc[i - 2].like_num:
            i -= 2
    while i >= 2 and doc[i - 1].lower_ in ("and", ",", "or") and is_ordinal(doc[i - 2]) and is_ordinal(doc[i]):
        i -= 2  # "the 78th and 82nd Academy Awards" ("the 78th and major film award" was an output)
    if i == toks[0].i:
        return s
    start = doc[i].idx
    return Span(start, s.end, nlp.text_of(doc)[start:s.end], s.type, s.score, s.evidence, s.meta)


def _with_modifier_tail(s: Span, doc) -> Span:
    """A removed proper-noun modifier takes the rest of its name with it: "Formula One driver"
    (the NER's "Formula") becomes "driver", not "One driver"."""
    head, toks = _span_head(s, doc)
    if head is None:
        return s
    text = nlp.text_of(doc)
    k = toks[0].i
    if doc[k].text == "-" and k >= 1 and not doc[k - 1].whitespace_ and doc[k - 1].is_alpha:
        k -= 1  # the NER's "-Ireland" of "all-Ireland"
    while k >= 2 and doc[k - 1].text == "-" and not doc[k - 1].whitespace_ and not doc[k - 2].whitespace_ \
            and doc[k - 2].is_alpha:
        k -= 2  # the rest of a hyphenated modifier: "their all-Ireland influence" -> "their influence"
    if k != toks[0].i:
        s = Span(doc[k].idx, s.end, text[doc[k].idx:s.end], s.type, s.score, s.evidence, s.meta)
    noun = head.head
    if noun.pos_ == "PROPN":
        return s  # the words before a name's head are the name's own: "the 2005 Tour de France" is no "the de France"
    j = toks[-1].i + 1
    while j < noun.i and doc[j].pos_ in ("PROPN", "NUM") and (len(doc[j].text) > 1 and doc[j].text[:1].isupper()
                                                             or doc[j].text.isdigit()) \
            and doc[j].head.i in (noun.i, *range(toks[0].i, j)):  # ("the Apollo 14 mission" -> "the 14 mission" was an output)
        j += 1
    if j == toks[-1].i + 1:
        return s
    end = doc[j - 1].idx + len(doc[j - 1].text)
    return Span(s.start, end, text[s.start:end], s.type, s.score, s.evidence, s.meta)


_TEAM_NOUNS = frozenset("team club side squad franchise affiliate".split())
_LEAGUES = re.compile(r"\b(?:league|association|conference|division)\b")


def _league_of_a_team(s: Span, doc, rung: str) -> bool:
    """A league in a team's "of" phrase ("the Chesapeake Bayhawks of Major League Lacrosse", "a
    club of the Eastern League"): once generalized, "a team of a league" says nothing."""
    toks = _tokens_in(s, doc)
    if not toks or not _LEAGUES.search(rung):
        return False
    k = toks[0].i - 1
    while k >= 0 and doc[k].lower_ == "the":
        k -= 1
    return k >= 1 and doc[k].lower_ == "of" and (doc[k - 1].pos_ == "PROPN" or doc[k - 1].lower_ in _TEAM_NOUNS)


def _prep_before(s: Span, doc):
    """The "until" right before a date, with the "up" before it ("Up until the 2010s" was an
    output, false of a date in that decade: the policy takes the phrase)."""
    toks = _tokens_in(s, doc)
    if not toks or toks[0].i == 0:
        return None
    prep = doc[toks[0].i - 1]
    if prep.lower_ not in ("until", "till"):
        return None
    return doc[prep.i - 1] if prep.i > 0 and doc[prep.i - 1].lower_ == "up" else prep


def _with_count(s: Span, doc) -> Span:
    """A removed modifier of a counted noun takes the number with it: "He won six Formula One
    races" -> "He won races" ("six races" reads as all he won, and he won others); a count said
    as all of his ("his six Grand Slam titles") cannot lose its modifier: its phrase goes."""
    head, toks = _span_head(s, doc)
    if head is None or not toks:
        return s
    noun = head.head
    counts = [c for c in noun.children if c.dep_ == "nummod" and c.i < toks[0].i and _small_count(c)]
    if not counts or any(t.pos_ not in ("ADJ", "NUM", "PROPN", "NOUN", "PUNCT", "CCONJ") for t in doc[counts[0].i + 1:toks[0].i]):
        return s
    return _without_count(s, doc, counts[0].i)


def _without_count(s: Span, doc, count: int) -> Span:
    """The span from the number that counts it (its "over", "more than" too), marked "uncounted";
    or, where the count is all of his ("his four", "the two": it cannot lose its number), the
    span as it is, marked "exclusive" (the policy drops its phrase)."""
    first = count
    while first > 0 and doc[first - 1].dep_ in ("quantmod", "advmod") and doc[first - 1].head.i == count:
        first -= 1  # "over 200", "more than 10" go with their number
    before = doc[first - 1] if first > 0 else None
    if before is not None and (before.lower_ in ("his", "her", "their", "its", "the") or before.dep_ == "poss"):
        return Span(s.start, s.end, s.text, s.type, s.score, s.evidence, {**s.meta, "exclusive": True})
    a = doc[first].idx
    return Span(a, s.end, nlp.text_of(doc)[a:s.end], s.type, s.score, s.evidence, {**s.meta, "uncounted": True})


def _small_count(t) -> bool:
    """A number that counts few (2-19): its range ("several", "about a dozen") still reads as all
    there were; a large one's range ("over 200", "hundreds of") is a bound, true of a part."""
    v = number_value(t.text)
    return t.like_num and not is_ordinal(t) and not _A_YEAR.fullmatch(t.text) and v is not None and 2 <= v < 20


def _exact_count(s: Span, doc, toks) -> int | None:
    """The index of the small exact number that counts a counted name ("10 Formula One Grands
    Prix", "four consecutive Summer Olympics"); None for a vague one ("several", "numerous"), a
    large one ("257": see :func:`_small_count`) or none."""
    for k in range(toks[0].i - 1, max(-1, toks[0].i - 4), -1):
        t = doc[k]
        if t.like_num:
            return k if _small_count(t) else None
        if t.pos_ not in ("ADJ", "NUM") and t.dep_ not in ("amod", "nummod", "quantmod"):
            return None
    return None


def _exact_day(u: "Unit") -> bool:
    return u.span is not None and u.span.type == "DATE" and u.span.meta.get("granularity") == "day" \
        and u.span.meta.get("year") is not None


# a form's label somewhere before a value, on its line or the line before ("DOB:\n11/04/1951")
_FIELD_BEFORE = re.compile(rf"(?:^|[\n\t]|\s{{2}})[ \t]*{nlp.FORM_LABEL}\s*$")
# a form's label before its value ("Position applied for: ", "Driver's licence no.: "), or a heading in
# capitals before a dash ("EMPLOYMENT APPLICATION – ")
_FIELD_LABEL = re.compile(rf"(?:^|(?<=\n)|(?<=\S[ ]{{2}})|(?<=\S\t)|(?<=[\w\"”)\]]\. ))[ \t]*(?:{nlp.FORM_LABEL}|[A-Z][A-Z0-9&/'’ ]{{2,40}}[ \t][–—-])[ \t]*$")
# what may follow a field's value on its line: nothing, or a gap before the next field ("Employee: X    ID: …")
_FIELD_END = re.compile(rf"(?:[ \t]*\([^()\n]{{1,15}}\))?\.?[ \t]*(?:$|\n|\t|[ ]{{2}}|\|)|\.[ ](?={nlp.FORM_LABEL}[ \t])")
# (or a point before the next one's label; or a short bracket first: "Driver's license: W143-6628-1197 (IL)")


def field_value(s: Span, text: str) -> bool:
    """Whether the span is the whole value of a form's field ("Full name: Jonathan Perkins",
    "Department: Accounts Payable"): nothing of a sentence stands around it, so what replaces it
    must stand alone (a pseudonym, a kind, a placeholder), and no phrase of its own can go
    ("Full name:" with nothing after it was an output)."""
    line = text.rfind("\n", 0, s.start) + 1
    if s.type == "PERSON" and _SPEAKER.fullmatch(text, line, s.start) and (
            re.match(r"[^\w\n:]{0,4}:", text[s.end:s.end + 5]) or re.match(r"\*\*[ \t]+\d{1,2}:\d\d", text[s.end:s.end + 12])):
        return True  # a chat's speaker ("[Sat 10:05] Dave: Legend."): who said the line, which no deletion may take
    return bool(_FIELD_LABEL.search(text, line, s.start)) and bool(_FIELD_END.match(text, s.end))


# what stands before a chat's speaker on the line: nothing, or the time in brackets
_SPEAKER = re.compile(rf"[ \t]*(?:{nlp.CHAT_TIME}[ \t]*|\*\*)?")


def _with_slot(s: Span, doc) -> Span:
    """The span's role (:func:`role_of`), and where a person's name stands: subject, object or
    possessive (what a pronoun must fit)."""
    if s.meta.get("alias"):
        return s  # (", full name X": goes whole, whatever the parse made of it)
    s = _with_compounds(s, doc)
    role = role_of(s, doc)
    if field_value(s, nlp.text_of(doc)):
        role = "field"
    elif s.type in ("DATE", "DOB", "YEAR") and _FIELD_BEFORE.search(nlp.text_of(doc), max(0, s.start - 30), s.start):
        role = None  # a form's field ("DOB: 11/04/1951" across a header's two lines stayed: no kind noun fit)
    if role == "modifier" and s.evidence != "regex:n_time":  # ("5 time" stays itself: "multiple-time")
        s = _with_modifier_tail(s, doc)
        first, nxt = _token_range(s, doc)
        if (nxt < len(doc) and doc[nxt].lower_ in ("and", "or", "&")) or (
                first >= 2 and doc[first - 1].lower_ in ("and", "or", "&") and doc[first - 2].dep_ in ("compound", "amod", "nmod")):
            # (or the second: "the Formula Ford and Formula Three series" -> "the Formula Ford and series")
            # "a former Spanish World and Olympic points race champion": removed, the first of two
            # coordinated modifiers leaves "a former and Olympic ... champion"
            s = Span(s.start, s.end, s.text, s.type, s.score, s.evidence, {**s.meta, "coordinated": True})
        elif s.type not in ("DATE", "YEAR", "DECADE", "DOB", "NUMBER", "MONEY", "AGE"):
            s = _with_count(s, doc)
    if role is not None:
        s = Span(s.start, s.end, s.text, s.type, s.score, s.evidence, {**s.meta, "role": role})
    if s.type not in ("PERSON", "GENDERED", "NATIONALITY") and (neg_head := _first_head(s, doc)[0]) is not None \
            and negated(neg_head):
        # "never qualified for the Candidates Tournament": a wider rung denies more ("a competition")
        s = Span(s.start, s.end, s.text, s.type, s.score, s.evidence, {**s.meta, "negated": True})
    if role == "pobj:until" and s.type in ("DATE", "YEAR", "DOB") and (prep := _prep_before(s, doc)) is not None:
        # "until 1985" -> "into the 1980s" (policy): the preposition is part of what changes
        s = Span(prep.idx, s.end, nlp.text_of(doc)[prep.idx:s.end], s.type, s.score, s.evidence, {**s.meta, "until": True})
    head, toks = _span_head(s, doc)
    if s.type == "LOCATION" and toks and toks[0].i >= 2 and doc[toks[0].i - 1].text == "," \
            and (org := doc[toks[0].i - 2]).pos_ == "PROPN" and (org.ent_type_ in ("ORG", "FAC") or org.lower_ in lexicon()["org_heads"]) \
            and (toks[-1].i + 1 >= len(doc) or doc[toks[-1].i + 1].text in (",", ".", ";", ")") or doc[toks[-1].i + 1].lower_ == "and"):
        # "Tufts College, Medford, Massachusetts": where the organisation before it is, said with "in"
        # once generalized ("He attended a college, a city, and ..." was an output)
        comma = doc[toks[0].i - 1].idx
        s = Span(comma, s.end, nlp.text_of(doc)[comma:s.end], s.type, s.score, s.evidence, {**s.meta, "locates": True})
    if role == "counted" and toks:
        prev = doc[toks[0].i - 1] if toks[0].i > 0 else None
        many = prev is None or prev.lower_ not in ("one", "1", "a", "an", "single", "another")
        s = Span(s.start, s.end, s.text, s.type, s.score, s.evidence, {**s.meta, "many": many})
        if many and (count := _exact_count(s, doc, toks)) is not None:
            # "participated in 10 Formula One Grands Prix": "10 races" reads as all the races he
            # ran (an output; he ran others); "his four Belmont Stakes" -> "his four horse races"
            # was false. A count of the kind is only true without its number ("participated in
            # races"); a count said as all of his ("his four", "the two") cannot lose it: its phrase goes
            s = _without_count(s, doc, count)
    if role == "appositive" and head is not None and head.head.pos_ == "NOUN":
        # "the capital city, Bratislava": whatever replaces it is said to be that city
        s = Span(s.start, s.end, s.text, s.type, s.score, s.evidence, {**s.meta, "names_a_noun": True})
    if head is not None and s.type in ("ORG", "LOCATION", "PROPER", "NAME", "PERSON", "AWARD"):
        # the verb that governs it ("graduated from X", "played for X"): what X must be (policy.SLOT_KINDS);
        # a later conjunct's is its list's first item's ("played for a team and an organization" of
        # "played for the Rochester Rattlers and the Baltimore Bayhawks" was an output)
        first = head
        while first.dep_ == "conj" and first.head.i < first.i:
            first = first.head
        prep = first.head if first.dep_ == "pobj" else None
        verb = prep.head if prep is not None else first.head if first.dep_ == "dobj" else None
        if verb is not None and prep is not None and prep.lower_ in ("with", "alongside") and s.type == "PERSON" \
                and verb.dep_ in ("nsubj", "nsubjpass") and verb.head.pos_ == "VERB" and prep.i > 0 \
                and doc[prep.i - 1].text == "," and prep.right_edge.i + 1 < len(doc) and doc[prep.right_edge.i + 1].text == ",":
            verb = verb.head  # "X, with Y and Z, founded": the company the parse hung on the subject is the verb's
        if verb is not None and (verb.pos_ == "VERB" or (verb.pos_ == "NOUN" and prep is not None)):
            s = Span(s.start, s.end, s.text, s.type, s.score, s.evidence,
                     {**s.meta, "governor": (verb.lemma_.lower(), prep.lower_ if prep is not None else None)})
    noun = head.head if head is not None and head.dep_ in ("compound", "amod", "nmod") and head.head.i > toks[-1].i \
        else head  # "the inaugural Formula One World Championship race": the determiner is the race's
    if noun is not None and any(c.dep_ in ("det", "poss") and c.i < toks[0].i - 1 for c in noun.children):
        # "the prestigious X Medal": the phrase keeps its own determiner, the rung brings none
        s = Span(s.start, s.end, s.text, s.type, s.score, s.evidence, {**s.meta, "determined": True})
    unknown_kind = s.type == "NAME" or (s.type == "ORG" and list(s.meta.get("ladder") or ()) == ["an organization"])
    if s.type != "PERSON" and not unknown_kind:
        return s
    head, toks = _span_head(s, doc)
    if head is None:
        return s
    first = head
    while first.dep_ == "conj" and first.head.i < first.i:
        first = first.head  # the list's first item: "in such venues as Pierogi, …, Galleria Milano"
    prep = first.head if first.dep_ == "pobj" else None
    if prep is not None and s.evidence != "coref:name_part" and (prep.lower_ in ("at", "in", "near", "inside", "outside", "within") or (
            prep.lower_ in ("as", "including") and prep.head.lemma_.lower() in _VENUE_NOUNS)):
        # "won at Roland Garros", "exhibited at Lisa Cooley in New York", each gallery of "in such
        # venues as Pierogi, …, Galleria Milano (Italy)": a venue, not a person ("Person EM (Italy)");
        # nor a name of no known kind ("Pierogi"), whose phrase goes, else its sentence
        s = Span(s.start, s.end, s.text, s.type, s.score, s.evidence, {**s.meta, "venue": True})
    if s.type != "PERSON":
        return s
    if role == "appositive" and toks[0].i > 0 and doc[toks[0].i - 1].text in (",", "(", "—", "–") \
            and not _NUMBERED_HEADER.fullmatch(doc.text, doc.text.rfind("\n", 0, s.start) + 1, s.start):
        # (not the person a numbered line heads: "Room 4 – Mrs Nora Quigley, 88." lost its name and the
        # line with it, and the room's notes below read as another room's)
        s = Span(s.start, s.end, s.text, s.type, s.score, s.evidence, {**s.meta, "set_off": True})
    nxt = doc[toks[-1].i + 1] if toks[-1].i + 1 < len(doc) else None
    meta = dict(s.meta)
    end = s.end
    prv = doc[toks[0].i - 1] if toks[0].i > 0 else None
    titled = False
    while prv is not None and prv.text[:1].isupper() and (prv.lower_ in NAME_TITLES or prv.text in ("Sir", "Dame")):
        # "Ambassador Mulford", "Attorney General Holder": the titles are part of the mention
        # ("Ambassador he" was an output)
        s = Span(prv.idx, s.end, nlp.text_of(doc)[prv.idx:s.end], s.type, s.score, s.evidence, s.meta)
        prv = doc[prv.i - 1] if prv.i > 0 else None
        titled = True
    while titled and prv is not None and prv.text[:1].isupper() and not prv.is_sent_start and toks[0].i - prv.i <= 4 \
            and (prv.ent_type_ in ("GPE", "NORP") or prv.pos_ == "ADJ"):
        # and what qualifies the title: "U.S. President Lyndon B. Johnson", "Republican U.S.
        # Senator Barry M. Goldwater" ("U.S. Person B's crushing defeat" was an output)
        s = Span(prv.idx, s.end, nlp.text_of(doc)[prv.idx:s.end], s.type, s.score, s.evidence, s.meta)
        prv = doc[prv.i - 1] if prv.i > 0 else None
    if titled:  # "General Bertrand": a title before the name says it is a person's
        meta["titled"] = True
        s = Span(s.start, s.end, s.text, s.type, s.score, s.evidence, {**s.meta, "titled": True})
    if prv is not None and prv.lower_ == "born" and nxt is not None and nxt.text == "," and prv.i > 0 \
            and doc[prv.i - 1].text == "(":
        # "(born Michael Fenton Stevens, 1958)": a birth name goes with its comma
        meta["birth_name"] = "comma"
        end = nxt.idx + 1
        return Span(s.start, end, nlp.text_of(doc)[s.start:end], s.type, s.score, s.evidence, meta)
    if prv is not None and prv.lower_ == "born" and nxt is not None and nxt.text in (")", ","):
        meta["birth_name"] = "bracket"  # "(born Daniel Nall)", ", born Michael Stevens,": the phrase goes
        return Span(s.start, s.end, s.text, s.type, s.score, s.evidence, meta)
    if nxt is not None and nxt.text in ("'s", "’s", "'", "’") and nxt.tag_ == "POS":
        meta["slot"] = "possessive"
        end = nxt.idx + len(nxt.text)
    elif nxt is not None and nxt.dep_ == "ROOT" and nxt.pos_ in ("VERB", "AUX") and nxt.tag_ in ("VBD", "VBZ", "VBP") \
            and not any(c.dep_ in ("nsubj", "nsubjpass", "expl", "csubj", "attr") for c in nxt.children) \
            and (prv is None or prv.pos_ != "ADP"):
        # "in Stage 2 of the Vuelta Rosendo wore the white jersey": the parse hung the name on the
        # phrase before it, and the verb right after it has no other subject ("the Vuelta Person A
        # wore", the subject's own pseudonym, was an output)
        meta["slot"] = "subject"
    elif role == "modifier" and prv is not None and prv.text == "," and nxt is not None and nxt.tag_ in ("NNS", "VBZ") \
            and nxt.text.islower() and not any(c.dep_ in ("det", "poss") for c in nxt.children) \
            and nxt.dep_ not in ("nsubj", "nsubjpass", "dobj", "pobj", "attr", "dative"):
        # (never the subject's own noun: "In Ireland, Bewick paintings are collected")
        # "A prolific artist, Bewick paints in oil": the parse's noun "paints" is the verb the name
        # is the subject of ("A prolific artist, paints in oil" was an output)
        meta["slot"] = "subject"
    elif role in ("counted", "modifier"):
        pass  # "minor planet 3148 Grechko": part of another name, no pronoun fits
    elif head.dep_ == "appos" and prv is not None and prv.text == "," and nxt is not None \
            and nxt.tag_ in ("VBD", "VBZ", "VBP") and head.head.dep_ in ("nsubj", "nsubjpass") and head.head.head.i == nxt.i \
            and head.head.i < toks[0].i and any(c.dep_ == "prep" and c.i < head.head.i and not any(
                g.dep_ == "pobj" for g in c.subtree) for c in head.head.head.children):
        # "Along with his father, James Smith trained": the parse left the fronted preposition without its
        # object, made that noun the verb's subject and the name its apposition ("His parent, trained for a
        # farm." was an output)
        meta["slot"] = "subject"
    elif head.dep_ in ("nsubj", "nsubjpass") and prv is not None and prv.pos_ == "ADP":
        meta["slot"] = "object"  # "with Johnson not factoring in the decision" -> "with him", never "with he"
    elif head.dep_ in ("nsubj", "nsubjpass") and not any(t.dep_ == "appos" and not _bracketed(t) for t in head.children):
        meta["slot"] = "subject"  # "Brugnon (1895 - 1978) was": the bracketed dates do not block "He"
    elif head.dep_ in ("dobj", "pobj", "dative", "iobj") and not any(
            t.dep_ in ("appos", "compound") and not toks[0].i <= t.i <= toks[-1].i for t in head.children):
        # (the name's own words are compounds of its head: "selected Taher Mohamed among")
        meta["slot"] = "object"
    elif (after := _opens_before(s, doc)) is not None and nlp.has_verbal_root(toks[0].sent) and (
            (after.pos_ in ("VERB", "AUX") and after.tag_ in ("VBD", "VBZ", "VBP", "MD")) or after.text in ("(", ",")):
        # "Long represented the district", "Lange, Jr. (born 1967) is": the parse read the name
        # as an adverb or an apposition; a name that opens a sentence before its finite verb, its
        # bracket or its comma is its subject
        meta["slot"] = "subject"
    if "slot" not in meta:
        return s
    lead = head.left_edge
    between = doc[lead.i + 1:_token_range(s, doc)[0]]
    if meta["slot"] in ("subject", "object") and lead.i < _token_range(s, doc)[0] and lead.lower_ in ("the", "a", "an") \
            and lead.sent == head.sent and not any(
                is_ordinal(t) or t.lower_ in ("first", "last", "only") or (t.is_alpha and len(t) > 1 and t.text[:1].isupper())
                or t.pos_ in ("CCONJ", "VERB") or (t.pos_ == "NOUN" and t.is_alpha and len(t) > 2)
                for t in between):
        # (not over a noun phrase of its own: "the first Champion Max Hirsch trained" is the horse
        # he trained, and "he" for all of it read "Sarazen was he trained"; nor over nouns: "The
        # information and experience Johnson gained was" read "He gained was")
        # "The 6'4\" (1.93 m) Guerin played": a pronoun takes the whole noun phrase ("The 6'4\" he
        # played" was an output); kept in the meta, used only when a pronoun replaces the name
        meta["lead"] = lead.idx
    return Span(s.start, end, nlp.text_of(doc)[s.start:end], s.type, s.score, s.evidence, meta)


def _opens_before(s: Span, doc):
    """The token after the span when the span (titles and honours included: "Sir Charles Peake GCMG
    MC (2 January 1897") opens its sentence; else None."""
    a, b = _token_range(s, doc)
    return doc[b] if a < len(doc) and doc[a].is_sent_start and b < len(doc) else None


_VENUE_NOUNS = frozenset("venue gallery museum space institution place location festival fair exhibition show".split())


def _token_range(s: Span, doc) -> tuple[int, int]:
    """The token range [start, end) of span ``s``."""
    span = doc.char_span(s.start, s.end, alignment_mode="expand")
    return (span.start, span.end) if span is not None else (len(doc), len(doc))


_NOT_PERSON_HEADS = frozenset("""ranch creek farm park club team fc afc united city rovers wanderers athletic
international committee council party church hall street road avenue boulevard cup trophy award prize series program
programme project system station mission""".split())
# a post, not a person ("FIDE Trainer", "Defensive Co-ordinator"): a title whose kind is its head
_POST_HEADS = frozenset("""coordinator co-ordinator chairman chairwoman chairperson director manager coach trainer
president officer secretary minister arbiter referee umpire commissioner ambassador""".split())


_DETERMINER_BEFORE = re.compile(r"(?:^|\s)(?:the|a|an)\s+(?:\d{4}\s+)?$", re.I)  # "the 2007 Copa Colsanitas"
_COUNTRY_AFTER = re.compile(r",\s*([A-Z][^\W\d_]+(?:\s[A-Z][^\W\d_]+)?)")


_FORMULA = re.compile(r"Formula (?:One|Two|Three|1|2|3|E|Ford)\b")


# a rank or title of nobility before a name makes a person ("Prince Alexey Orlov" was "an organization",
# "General Bertrand" a name of unknown kind whose phrase went)
_PERSON_TITLE = re.compile(r"(?:Prince|Princess|King|Queen|Emperor|Empress|Tsar|Czar|Tsarina|Sultan|Shah|Emir|"
                           r"Archduke|Grand Duke|Duke|Duchess|Count|Countess|Baron|Baroness|Marquis|Marquess|"
                           r"Lord|Lady|Sir|Dame|Field Marshal|Marshal|General|Admiral|Colonel|Cardinal|Pope)"
                           r"(?:\s+[A-Z][^\W\d_][\w'’-]*){1,3}")


def _titled_person(s: Span) -> Span:
    """A span the NER typed otherwise (or a person) that is a title and a name: a confirmed person,
    unless its last word says it is a building or a body ("Prince Albert Hall")."""
    if s.type not in ("ORG", "PRODUCT", "WORK", "NAME", "PROPER", "PERSON") or not _PERSON_TITLE.fullmatch(s.text.strip()):
        return s

    words = s.text.split()
    last = words[-1].lower()
    if last in lexicon()["org_heads"] or last in lexicon()["name_kinds"]:
        return s
    if s.type in ("ORG", "PRODUCT", "WORK") and not (len(words) >= 3 and words[-2].lower() in lexicon()["first_names"]):
        # "General Electric", "King Crimson", "King Lear" stay what the NER said; "Prince Alexey
        # Orlov" (a given name after the title) is a person
        return s
    return Span(s.start, s.end, s.text, "PERSON", max(s.score, 0.8), s.evidence + "+title", {**s.meta, "honorific": True})


# a noun before the word it modifies ("horse" of "horse racing trainer", which the parser may
# call an adverbial noun of "racing")
_PREMODIFIER = frozenset(("compound", "amod", "npadvmod", "nmod", "nummod"))


def _introductions(doc, pointers: list[tuple[int, int, int, str]]) -> dict[int, tuple[int, ...]]:
    """Per pointer (by its start): where the text named its noun before as a noun of its own,
    in any form ("horses" for "the horse"); a noun that only modified another ("horse racing
    trainer") introduced nothing to point at."""
    if not any(noun for *_, noun in pointers):
        return {}
    at = {t.idx: t for t in doc}
    mentions: dict[str, list[int]] = {}
    for t in doc:
        if t.pos_ in ("NOUN", "PROPN") and not (t.head.i > t.i and t.dep_ in _PREMODIFIER):
            mentions.setdefault(t.lemma_.lower(), []).append(t.idx)
    out = {}
    for _, start, end, noun in pointers:
        if noun:
            head = at.get(end - len(noun))
            out[start] = tuple(x for x in mentions.get(head.lemma_.lower() if head is not None else noun, ()) if x < start)
    return out


def _not_a_person(s: Span, text: str = "") -> Span | None:
    """A "person" the NER found whose last word names a place, an organisation or a post ("Triple
    Creek Ranch", "Defensive Co-ordinator", "Freier TuS Regensburg" stays: nothing says): an
    organisation of the kind its head says, or an organisation; never a "Person X". One after a
    determiner ("the Heliotrope", "The X was a single engine ramjet") or before a country ("in
    Alcalá, Spain") is no person's name either: marked ``not_a_name`` (its phrase or sentence goes)."""
    if s.type != "PERSON" or s.evidence.startswith(("ground-truth", "cue:", "honorific")):
        return s
    if not any(c.isupper() for c in s.text):
        return None  # "i tell ya", "my rubber ducky": a name is written with a capital
    m = _FORMULA.match(text, s.start)
    if m and m.end() >= s.end:  # the NER's person "Formula" of "a former Formula One driver"
        return Span(s.start, m.end(), m.group(0), "EVENT", 0.85, "lexicon:event",
                    {"ladder": list(FORMULA_LADDER)})
    if "," in s.text and not re.search(r",\s*(?:Jr|Sr)\b", s.text):
        # "Porreres, Majorca" (a PERSON to the NER): no name has a comma inside; a place
        return Span(s.start, s.end, s.text, s.type, s.score, s.evidence + "+not_a_name", {**s.meta, "not_a_name": True})
    if text and not s.meta.get("honorific"):
        m = _COUNTRY_AFTER.match(text, s.end)
        from veil.agents.local.spans import place_info

        info = place_info(m.group(1)) if m else None
        if _DETERMINER_BEFORE.search(text[max(0, s.start - 11):s.start]) or (
                info is not None and info.get("kind") in ("country", "admin1")):
            return Span(s.start, s.end, s.text, s.type, s.score, s.evidence + "+not_a_name", {**s.meta, "not_a_name": True})
    if s.evidence.startswith("coref:") or s.evidence == "lexicon:first_name+role":
        return s  # ("the genre painter Sydney Prior Hall" is a man, not a hall)

    last = fold(s.text.split()[-1]) if s.text.split() else ""
    heads = lexicon()["org_heads"]
    if last in heads:
        return Span(s.start, s.end, s.text, "ORG", s.score, s.evidence + "+org_head", {"ladder": list(heads[last]), "head": last})
    if last in _POST_HEADS and not s.evidence.startswith("lexicon:first_name"):  # ("Mike Trainer" is a man)
        return Span(s.start, s.end, s.text, "TITLE", s.score, s.evidence + "+post", {"ladder": [f"{article_for(last)} {last}"]})
    if last in _NOT_PERSON_HEADS:
        return Span(s.start, s.end, s.text, "ORG", s.score, s.evidence + "+not_a_person", {"ladder": ["an organization"]})
    return s


def _close_bracket(s: Span, text: str) -> Span:
    """An entity the NER closed inside brackets ("James and Harriet (Triplett") runs to the
    bracket's end and the name after it ("... (Triplett) Trimble"): an edit must not leave
    half a bracket behind."""
    if s.text.count("(") <= s.text.count(")"):
        return s
    m = re.match(r"[^()\n]{0,40}\)(?:\s+[A-Z][\w'’-]+)?", text[s.end:])
    if not m:
        return s
    end = s.end + m.end()
    return Span(s.start, end, text[s.start:end], s.type, s.score, s.evidence, s.meta)


def _nicknamed_names(text: str) -> list[Span]:
    """Names written with a nickname (literal.NICKNAMED): the NER cuts them into pieces
    ('\"Person TH\" he (1910–1990)' was an output)."""
    return [Span(m.start(), m.end(), m.group(0), "PERSON", 0.8, "shape:nickname", {}) for m in NICKNAMED.finditer(text)]


_ALIAS = re.compile(r",[ \t]+(?:full name|real name|birth name|née|nee|also known as|a\.k\.a\.|"
                    r"(?:better |commonly |professionally |popularly )?known (?:professionally )?as)[ \t]+"
                    rf"[A-Z][\w'’.-]*(?:[ \t]+(?:[A-Z][\w'’.-]*|{NAME_PARTICLE}|y))*"
                    r"(?:[ \t]+\(or[ \t]+[A-Z][^()]{0,40}\))?(?=[ \t]*[(,]|[ \t]+(?:was|is)\b)"
                    # or a quoted nickname: ', nicknamed "the Flying Finn",' (the data escapes its quotes)
                    # (or a list of them: ', nicknamed "Hammerin' Hank", "Hankus Pankus" or "The Hebrew Hammer",')
                    r"|,[ \t]+(?:nicknamed|dubbed|also known as|known as|a\.k\.a\.)[ \t]+"
                    rf"{QUOTED_NICKNAME}(?:(?:,?[ \t]+(?:or|and)|,)[ \t]+{QUOTED_NICKNAME})*"
                    # with its quoted gloss: ', known as "El jardinerito" ("the little gardener")'
                    r"(?:[ \t]+\((?:\\?[\"“])[^()]{1,60}\))?"
                    r"(?=[ \t]*[(,]|[ \t]+(?:was|is)\b)")


def _aliases(text: str) -> list[Span]:
    """", full name Georg Gottlieb August Meyer-Darcis (or Meyer Darcis)": another name of the
    person, with its comma and its variants; it goes whole ("He, full name Person B August Person A
    (or Person C)" was an output)."""
    return [Span(m.start(), m.end(), m.group(0), "PERSON", 0.9, "shape:alias", {"birth_name": "comma", "alias": True})
            for m in _ALIAS.finditer(text)]


# (an alternative given name too: "Maria Anna Barbara | or Babette Ployer (2 September 1765" was two people)
_NAME_TAIL = re.compile(r"(?:[ \t]+or[ \t]+[A-Z][^\W\d_][\w'’-]*)?(?:[ \t]+[A-Z][^\W\d_][\w'’-]*){1,2}"
                        r"(?=[ \t]*\(|,[ \t]|[ \t]+(?:is|was)[ \t])")


def _join_name_pieces(spans: list[Span], text: str) -> list[Span]:
    """Pieces of one written name the NER split: "Benjamin Horace (Ben) Weese" is one person, not
    three (the surname alone would be resolved to his brother "Harry Weese"), and so are person
    spans with only a space between ("Cecil O. | Hankins")."""
    people = sorted((s for s in spans if s.type == "PERSON"), key=lambda s: s.start)
    merged: dict[int, Span] = {}
    drop: set[int] = set()
    for a, b, c in zip(people, people[1:], people[2:]):
        if id(a) in drop or not re.fullmatch(r"\s*\(", text[a.end:b.start]) or not re.fullmatch(r"\)\s*", text[b.end:c.start]):
            continue
        merged[id(a)] = Span(a.start, c.end, text[a.start:c.end], "PERSON", a.score, a.evidence, a.meta)
        drop |= {id(b), id(c)}
    out = [merged.get(id(s), s) for s in spans if id(s) not in drop]
    # "Cecil O. | Hankins", "Blake | Austin | Griffin" (the middle name read as a city): person
    # spans with only a space between, maybe around one capitalised word typed otherwise, are one name
    def name_part(s: Span) -> bool:
        return s.type == "PERSON" or (s.type in ("LOCATION", "PROPER", "ORG") and " " not in s.text.strip()
                                       and s.text[:1].isupper())

    groups: list[list[Span]] = []
    for p in sorted((s for s in out if name_part(s)), key=lambda s: s.start):
        if groups and text[groups[-1][-1].end:p.start] == " ":
            groups[-1].append(p)
        else:
            groups.append([p])
    whole: dict[int, Span] = {}
    gone: set[int] = set()
    for g in groups:
        while g and g[-1].type != "PERSON":
            g = g[:-1]
        while g and g[0].type != "PERSON":
            g = g[1:]
        if len(g) > 1:
            a, z = g[0], g[-1]
            whole[id(a)] = Span(a.start, z.end, text[a.start:z.end], "PERSON", a.score, a.evidence, a.meta)
            gone |= {id(x) for x in g[1:]}
    out = [whole.get(id(s), s) for s in out if id(s) not in gone]
    # the name that opens the text runs to its bracket, comma or verb ("Jesús Rosendo | Prado (born")
    opening = next((s for s in out if s.type == "PERSON" and s.start <= 6), None)
    m = _NAME_TAIL.match(text, opening.end) if opening is not None else None
    if m:
        out = [s for s in out if not (opening.end <= s.start and s.end <= m.end())]
        out = [Span(s.start, m.end(), text[s.start:m.end()], s.type, s.score, s.evidence, s.meta) if s is opening else s
               for s in out]
    # "John Alfred Leach MBE", "Sir Charles Inglis, OBE, FRS": the honours go with the name
    grown = []
    for s in out:
        m = POSTNOMINALS.match(text, s.end) if s.type == "PERSON" else None
        grown.append(Span(s.start, m.end(), text[s.start:m.end()], s.type, s.score, s.evidence, s.meta) if m else s)
    longer = [(g.start, g.end) for s, g in zip(out, grown) if g is not s]
    return [g for g in grown if not any(a <= g.start and g.end <= b and (a, b) != (g.start, g.end) for a, b in longer)]


def _bracketed(tok) -> bool:
    """The token's phrase stands inside brackets, maybe after others ("Nadorp, (June 23, 1794 –
    September 17, 1876) was": "September" too)."""
    doc, sent = tok.doc, tok.sent
    i = tok.left_edge.i - 1
    while i >= sent.start and doc[i].text not in ("(", "[", ")", "]"):
        i -= 1
    if i < sent.start or doc[i].text not in ("(", "["):
        return False
    j = tok.right_edge.i + 1
    while j < sent.end and doc[j].text not in ("(", "[", ")", "]"):
        j += 1
    return j < sent.end and doc[j].text in (")", "]")


_NAME_CONNECTORS = frozenset("of & for de the".split())
_ABBREVIATION = re.compile(r"[A-Z][a-z]{0,2}\.")  # "St.", "Mt."


def _namey(tok) -> bool:
    """A word of a proper name: a capitalised proper noun (or "St."), or the year that opens an
    event's name after its article ("the 1950 British Grand Prix"); never "In" or "After" before
    a year ("In 1962 Stanford University hired him")."""
    if tok.text[:1].isupper() and (tok.pos_ == "PROPN" or bool(_ABBREVIATION.fullmatch(tok.text))):
        return True
    return tok.like_num and len(tok.text) == 4 and tok.text.isdigit() and tok.i > 0 \
        and tok.nbor(-1).lower_ in ("the", "a", "an")


def _whole_names(spans: list[Span], doc) -> list[Span]:
    """A name the NER cut into pieces ("the Spirit | of | St. Louis Medal", "the Lee Strasberg
    Theatre | and | Film Institute", "the 1950 British Grand | Prix") is one name when its last
    word says what it is: its pieces, replaced one by one, left "the Spirit of a medal", "the and
    institute" and "the Prix". The whole run of capitalised words (joined by "of", "and", "&")
    becomes one span of that kind."""
    from veil.agents.local.spans import _org_ladder, lexicon

    org_heads = lexicon()["org_heads"]
    out = list(spans)
    text = nlp.text_of(doc)
    for s in spans:
        if s.type not in ("ORG", "EVENT", "AWARD", "PROPER", "YEAR", "NATIONALITY", "LOCATION", "PERSON"):
            continue
        span = doc.char_span(s.start, s.end, alignment_mode="expand")
        if span is None:
            continue
        sent = span[0].sent
        i, j = span.start, span.end  # token range [i, j)
        stops = []  # where the run was before each connector
        while True:
            if j < sent.end and _namey(doc[j]) and not doc[j].is_sent_start:
                j += 1
            elif j + 1 < sent.end and doc[j].lower_ in _NAME_CONNECTORS and _namey(doc[j + 1]) and j > i \
                    and not (doc[j].lower_ == "the" and doc[j].head.i != j - 1 and doc[j].head.head == doc[j - 1].head):
                # (not "the" between two objects of one verb: "to award Voris | the Neiman Marcus Fashion
                # Award" swallowed her name into the award's, and the name stayed as written)
                stops.append(j)
                j += 2
            elif j + 2 < sent.end and doc[j].lower_ == "of" and doc[j + 1].lower_ == "the" and _namey(doc[j + 2]) and j > i:
                stops.append(j)  # "the BBC Sports Personality Team | of the | Year Award" ("a sports team of an
                j += 3  # award" was an output)
            elif j + 1 < sent.end and doc[j].lower_ in ("and", "&") and _namey(doc[j + 1]) and j > i \
                    and doc[j - 1].dep_ in ("compound", "nmod") and doc[j - 1].head.i > j:
                j += 2  # "the [Lee Strasberg Theatre and Film] Institute": the parse says one name ("San
                # Lorenzo and Racing Club" are two)
            else:
                break
        while i > sent.start and _namey(doc[i - 1]) and not doc[i].is_sent_start:
            i -= 1
        # the longest run whose last word says what it is ("the 2015 Australian Grand Prix | for
        # Scuderia Toro Rosso": the race, not the race and the team)
        j = next((k for k in [j] + stops[::-1] if doc[k - 1].lower_ in org_heads or doc[k - 1].lower_ in NAME_KIND_HEADS
                  or "of" in [t.lower_ for t in doc[i:k]]), j)
        last = doc[j - 1].lower_
        if (i, j) == (span.start, span.end) or j - i > 10 or not _namey(doc[i]) \
                or doc[i].like_num and not any(_namey(t) for t in doc[i + 1:j]) \
                or (j < sent.end and (doc[j].text[:1].isupper() or doc[j].like_num)):
            continue  # (nor a run the name goes on after: "NCAA Division | I players")
        words = [t.text for t in doc[i:j] if not t.like_num]
        low = [w.lower() for w in words]
        if last not in org_heads and last not in NAME_KIND_HEADS and "of" in low and low.index("of") > 0 \
                and low[low.index("of") - 1] in org_heads:  # (never "Team of the Year Award": an award)
            last = low[low.index("of") - 1]  # "Sir J. J. School of Art" (the NER's "J. J. School")
        if last in org_heads:
            org = _org_ladder(words, text[doc[i].idx:doc[j - 1].idx + len(doc[j - 1].text)])
            if org is None:
                continue
            typ, meta, ev = "ORG", {"ladder": org[0], "head": org[1]}, f"head:{org[1]}"
        elif last in NAME_KIND_HEADS:
            typ, meta, ev = "EVENT", {"ladder": list(NAME_KIND_HEADS[last])}, f"head:{last}"
        else:
            continue
        a, b = doc[i].idx, doc[j - 1].idx + len(doc[j - 1].text)
        if not any(x.start < b and a < x.end and (x.start, x.end) != (a, b) for x in out):
            continue
        if any(x.type == "PERSON" and x.start < b and a < x.end
               and x.evidence in ("ground-truth name", "coref:surname", "coref:name_part") for x in out):
            continue  # the subject's own name is never swallowed into a venue's
        out = [x for x in out if not (x.start < b and a < x.end)]
        out.append(Span(a, b, text[a:b], typ, 0.8, ev, meta))
    out.sort(key=lambda x: x.start)
    merged: list[Span] = []
    for x in out:
        p = merged[-1] if merged else None
        if p is not None and p.type == x.type == "ORG" and text[p.end:x.start] in (" to the ", " to "):
            # "the U.S. Mission to the United Nations" is one body ("an organization to an
            # organization" was an output): what the first name is
            merged[-1] = Span(p.start, x.end, text[p.start:x.end], "ORG", p.score, p.evidence, p.meta)
            continue
        merged.append(x)
    return merged


def _resolve(spans: list[Span]) -> list[Span]:
    from veil.agents.local.spans import resolve_overlaps

    return resolve_overlaps(spans)


_LINE_END = re.compile(r"\\n|\n")  # (a real line's end, or the data's escaped one)
_HATNOTE = re.compile(r"\(disambiguation\)|^\s*This article (?:is about|refers to)\b", re.I)
_EMPTY_ITEM = re.compile(r"(?:\\n|\n)[ \t]*(?:[*•‣–-]|\d{1,2}[.)])[ \t]*\.?[ \t]*(?=\\n|\n|$)")  # ("-", "-.", "2.")
_BARE_HEADING = re.compile(r"(?:(?<=[.!?])|^)[ \t]*[^.!?\n\\]{1,60}:[ \t]*(?:\\n|\n|\s)*$")


# the words of a phrase that only lists persons: "including A, B and C", "alongside A and B"; it
# opens with one of the first (never "with": "worked with A and B, among others" needs its phrase)
_NAME_LIST_OPENERS = ("including", "alongside", "notably", "especially", "namely")
_NAME_LIST_WORDS = frozenset(_NAME_LIST_OPENERS + ("and", "or"))
# a sentence that ranks: a phrase taken out of it may make the rank false ("the first player to ...",
# "the team's leading scorer in the 2009 season")
_RANKS = re.compile(r"\b(?:first|second|third|last|only|sole|youngest|oldest|earliest|most|best|leading|top|record|"
                    r"highest|lowest|fastest|greatest|\w+est)\b", re.I)


@dataclass
class Plan:
    analysis: Analysis
    choice: dict[int, str] = field(default_factory=dict)  # unit index -> replacement ("" = delete)
    order: list[int] = field(default_factory=list)
    reasons: dict[int, str] = field(default_factory=dict)
    restored: list[int] = field(default_factory=list)
    floor: dict[int, str] = field(default_factory=dict)  # direct identifiers and the policy: never undone

    @property
    def units(self) -> list[Unit]:
        return self.analysis.units

    # -- rendering, sentence by sentence -----------------------------------------------------
    def render_sentence(self, si: int, choice: dict[int, str] | None = None) -> str:
        choice = self.choice if choice is None else choice
        mine = tuple((i, choice[i]) for i in self.analysis.by_sentence(si) if i in choice)
        cache = self.analysis._rendered
        key = (si, mine)
        if key not in cache:
            if len(cache) > 100_000:
                cache.clear()
            cache[key] = self._render_sentence(si, mine)
        return cache[key]

    def _render_sentence(self, si: int, mine: tuple[tuple[int, str], ...]) -> str:
        a, b = self.analysis.sentences[si]
        reps: list[tuple[int, Span, str]] = []
        for i, r in mine:
            u = self.units[i]
            if u.kind == "sentence":
                return ""
            if u.constituent is not None:
                for p in u.constituent.pieces:
                    # (a one-piece unit may be chosen with a stand-in of its own: a bracket's comma)
                    rep = r if r and len(u.constituent.pieces) == 1 else p.replacement
                    reps.append((p.end - p.start, Span(p.start - a, p.end - a, "", "UNIT"), rep))
            else:
                text, end = self.analysis.text, u.end
                if r and not r.endswith("s") and text[end:end + 1] in ("'", "’") and not text[end + 1:end + 2].isalnum():
                    # a plural's possessive on a singular: "the Blue Jays' system" -> "a baseball team's system"
                    r, end = f"{r}{text[end]}s", end + 1
                reps.append((end - u.start, Span(u.start - a, end - a, u.text, u.span.type if u.span else "SPAN"), r))
        if not reps:
            return self.analysis.text[a:b]
        reps = [_with_orphan_comma(x, self.analysis.text[a:b]) if x[2] == "" else x for x in reps]
        # two deletions that share a character (", ID 83709," and ", and my phone number is ...")
        # are one deletion of both: apply() would keep only the wider and leave the other's words
        dels = sorted((s for _, s, r in reps if r == ""), key=lambda s: s.start)
        merged: list[Span] = []
        for d in dels:
            if merged and d.start < merged[-1].end:
                m = merged[-1]
                merged[-1] = Span(m.start, max(m.end, d.end), "", "UNIT")
            else:
                merged.append(d)
        if len(merged) < len(dels):
            reps = [x for x in reps if x[2] != ""] + [(m.end - m.start, m, "") for m in merged]
        reps = _one_of_many(_another(reps, self.analysis.text[a:b]), self.analysis.text[a:b])
        if si < len(self.analysis.lists):
            reps += _and_given_back(reps, self.analysis.lists[si])
        # apply(): the first of overlapping edits wins: wide ones first, and of two as wide the
        # deletion of a phrase before the replacement of a span inside it
        reps.sort(key=lambda x: (-x[0], x[1].type != "UNIT"))
        out = tidy(apply(self.analysis.text[a:b], [(s, r) for _, s, r in reps]))
        if out.endswith((",", ";")) and not self.analysis.text[a:b].endswith((",", ";")):
            out = out.rstrip(" ,;")  # (what stood after the comma went: "- New antifouling," of "…, Feb 2024")
        if out and _ENDED.search(self.analysis.text[a:b]) and not _ENDED.search(out):
            # the point went with a phrase that held it ("brushwork.\\"" is one word to the
            # tokenizer: "He began showing oils with motifs" was left without one)
            out = out.rstrip(" ,;:") + "."
        return _list_with_its_and(out, self.analysis.text[a:b])

    def render(self, choice: dict[int, str] | None = None) -> str:
        text = self.analysis.text
        out, pos = [], 0
        gone = False  # the sentence before this one was deleted
        last: int | None = None  # where in out the latest sentence written stands
        last_si = -1  # and which sentence it is
        line_gone = False  # the sentence before this one was a whole line, and was deleted
        for si, (a, b) in enumerate(self.analysis.sentences):
            out.append(text[pos:a])
            if line_gone and out[-1].lstrip(" \t").startswith("\n"):
                out[-1] = out[-1].lstrip(" \t")[1:]  # its line break goes with it ("Employee: …\n\nDepartment:" was an output)
            if gone and out[-1] and not out[-1].strip() and "\n" not in out[-1] and (not "".join(out[:-1])
                                                                                   or "".join(out[:-1])[-1:] == "\n"):
                out[-1] = ""  # a line's first sentence went: the space after it too ("Summary\n In March" was an output)
            rendered = self.render_sentence(si, choice)
            after_gone = gone
            if gone and rendered and (m := _CONNECTIVE.match(rendered)):
                # "However, he remained involved." after the sentence it answered went: the
                # connective goes (it links to nothing), the statement stays
                rendered = rendered[m.end()].upper() + rendered[m.end() + 1:]
            if not rendered and (k := self.analysis.sentence_unit(si)) is not None and (m := nlp.CHAT_LINE.match(text, a)) is not None and m.end() > a:
                # a chat line's message went: its time and speaker stay for what else the line says (its next
                # sentence read as the line above's speaker's: "She's still cross about Christmas"); a line
                # left with them alone goes below
                chosen = self.choice if choice is None else choice
                prefix = m.group().rstrip(" \t")
                for j in sorted((j for j in self.analysis.by_sentence(si) if self.units[j].kind == "span"
                                 and a <= self.units[j].start and self.units[j].end <= m.end()),
                                key=lambda j: -self.units[j].start):
                    u = self.units[j]
                    r = chosen.get(j) or u.policy  # (a name whose phrase went with the message keeps its stand-in here)
                    if r is not None:
                        prefix = prefix[:u.start - a] + r + prefix[u.end - a:]
                rendered = prefix
            gone = not rendered and bool(text[a:b].strip())
            line_gone = gone and text[:a].rstrip(" \t")[-1:] in ("\n", "") and text[b:].lstrip(" \t")[:1] == "\n"
            if rendered and si > 0 and pos == a and a > 0 and text[a - 1] in ".!?" and out[-2:-1] and out[-2] \
                    and (rendered != text[a:b] or out[-2] != text[slice(*self.analysis.sentences[si - 1])]):
                out[-1] = " "  # the writer's "Hospital.During": sentences stand apart once edited
            elif rendered and after_gone and not out[-1] and any(out[:-1]) and not "".join(out[:-1])[-1:].isspace():
                out[-1] = " "  # (and where the sentence between them went: "Person AVW.A team was" was an output)
            if not rendered:
                out[-1] = out[-1] if not out[-1].strip() else out[-1]
                if out[-1] and not out[-1].strip() and "\n" not in out[-1]:
                    out[-1] = ""  # the space before a deleted sentence goes with it
                if last is not None and last_si == si - 1 and _ENDED.search(text[a:b]) and "\n" not in text[pos:a] \
                        and not _ENDED.search(out[last]) and not out[last].rstrip().endswith((":", ";")):
                    # the splitter cut the writer's sentence ("He also trained Champions | But Why Not (no
                    # SW), ..."): its point went with the part deleted ("He trained a horse" ended a text;
                    # never a heading's line)
                    out[last] = out[last].rstrip(" ,") + "."
            else:
                last, last_si = len(out), si
            out.append(rendered)
            pos = b
        out.append(text[pos:])
        if line_gone and out[-1].lstrip(" \t").startswith("\n"):
            out[-1] = out[-1].lstrip(" \t")[1:]
        joined = "".join(out)
        # the sentence splitter may cut "1995 | she was ranked": the fronted date across the cut
        joined = _fronted_period(joined)
        # a list item whose words all went leaves its bullet; a heading whose items all went
        # ("Works include:") introduces nothing
        joined = _EMPTY_ITEM.sub("", joined)
        joined = _BARE_HEADING.sub("", joined)
        joined = _SPACE_AFTER_SPEAKER.sub(r"\1", _BARE_CHAT_LINE.sub("", joined))
        joined = re.sub(r"\n[ \t]*\n(?:[ \t]*\n)+", "\n\n", joined)  # (the blank lines deleted lines leave: one)
        # a quotation's closing mark at a line's end whose opening went with a deleted sentence ('list. "' was an
        # output of '"Thanks Danielle. ... list: 630-555-0172."'), or its opening mark with nothing after it
        joined = "\n".join(re.sub(r'(?<=[.!?])\s*"$|^"\s*$', "", line) if line.count('"') % 2 and not re.search(r'\d"', line)
                            else line for line in joined.split("\n"))
        return re.sub(r"[ \t]+\n", "\n", re.sub(rf"(?<=\S)[ \t]{{2,}}(?![ \t]*{nlp.FORM_LABEL}[ \t])", " ", joined)).strip() if joined.strip() else ""

    def sentences(self, choice: dict[int, str] | None = None) -> list[str]:
        """The sentences this choice writes (deleted ones left out): what the semantic attacker
        reads."""
        return [r for si in range(len(self.analysis.sentences)) if (r := self.render_sentence(si, choice).strip())]

    def sentence_tokens(self, si: int, choice: dict[int, str] | None = None) -> Counter:
        rendered = self.render_sentence(si, choice)
        return Counter(_tokens_of(rendered))

    def tokens(self, choice: dict[int, str] | None = None) -> Counter:
        total: Counter = Counter()
        for si in range(len(self.analysis.sentences)):
            total.update(self.sentence_tokens(si, choice))
        return total

    def parses(self, si: int, choice: dict[int, str] | None = None) -> bool:
        rendered = self.render_sentence(si, choice)
        a, b = self.analysis.sentences[si]
        original = self.analysis.text[a:b]
        if rendered == original:
            return True
        chosen = self.choice if choice is None else choice
        if not self.analysis.has_root[si] and len(original.split()) >= 12 and any(
                self.units[j].kind not in ("span", "sentence") for j in self.analysis.by_sentence(si) if j in chosen):
            # the parser found no verb in a long sentence of the writer's: its phrases are a misreading
            # ("That way, the paint and then to the side of the paper." was what deleting one left);
            # only its spans are replaced, or it goes whole (a short one is a caption or a list item)
            return False
        n = len(rendered.split())
        if n and not self.analysis.has_root[si] and n <= 5 and 2 * n < len(original.split()):
            # the parse found no verb in the writer's sentence (often a misparse), so the check
            # below cannot ask for one: still, a few words left of many are no sentence ("In a
            # competition." of "In the Turin 2006 Olympiad he played fourth board, scoring ...")
            return False
        args = (self.analysis.has_root[si], balance(original), self.analysis.bare[si] if si < len(self.analysis.bare) else False)
        ok, why = sentence_ok(rendered, *args)
        if not ok:
            # an edit is judged by what it breaks: a sentence the writer left failing the check
            # ("i was born in Budapest, and ... spins. and when it comes to food") may keep that
            # failure, or no edit there (not even a true attribute's removal) would ever pass
            was_ok, was_why = sentence_ok(original, *args)
            if was_ok or why != was_why or why in nlp.NEVER_EXEMPT:
                return False
        # (and such a sentence is held to what an edit must not do: "he was exposed at an early
        # age" came of a sentence the parser misread)
        return not (_bared_clause(rendered, original) or _list_lost_its_and(rendered, original)
                    or _lost_complement(rendered, original) or _lost_its_point(rendered, original)
                    or _lost_plural_subject(rendered, original))

    def prefetch(self, trials: list[tuple[int, dict[int, str]]]) -> None:
        """Parse in one batch the sentences these (sentence, choice) trials would write, before
        :meth:`parses` asks for them one by one (:func:`veil.nlp.prefetch`)."""
        texts = []
        for si, choice in trials:
            rendered = self.render_sentence(si, choice)
            a, b = self.analysis.sentences[si]
            if rendered != self.analysis.text[a:b]:
                texts.append(rendered)
        nlp.prefetch(texts)

    def covering(self, i: int, choice: dict[int, str] | None = None) -> int | None:
        """A chosen deletion that contains unit i, if any."""
        choice = self.choice if choice is None else choice
        u = self.units[i]
        for j in self.analysis.by_sentence(u.sentence):
            if j not in choice:
                continue
            w = self.units[j]
            if j != i and w.kind != "span" and w.deletes(u) and (w.start, w.end) != (u.start, u.end):
                return j
        return None

    def kept_at(self, pos: int) -> bool:
        """Is the original's character at ``pos`` still in the output as written?"""
        si = next((k for k, (a, b) in enumerate(self.analysis.sentences) if a <= pos < b), None)
        if si is None:
            return False
        return not any(j in self.choice and self.units[j].start <= pos < self.units[j].end
                       for j in self.analysis.by_sentence(si))

    def try_choose(self, i: int, replacement: str, reason: str) -> bool:
        """Choose ``replacement`` for unit i if its sentence still parses."""
        trial = {**self.choice, i: replacement}
        if not self.parses(self.units[i].sentence, trial):
            return False
        self.choice = trial
        if i not in self.order:
            self.order.append(i)
        self.reasons[i] = reason
        return True


# the fewest other records a name must be missing from before it counts as rare in the batch
MIN_RARITY_POPULATION = 20
# how many other releases must say a name for it to stay as written: one other is a pair the name
# narrows the batch to ("Iron Chef" of two chefs; an LLM names the person from it and one more fact)
SHARED_BY = 2
COMMON_ZIPF = 4.5  # a word this frequent in English ("Earth", "Palace") names no one alone
# a run of capitalised words (an accented capital too: "Émile"), with the small words names hold
# ("Department of Preventive Medicine", "Bank of the West", "Travel + Leisure", "Torchwood: Miracle
# Day"); never across "and" (two names) nor a bare "the" ("in Italy the Prime Minister")
_CAPITAL_WORD = r"[A-ZÀ-ÖØ-Þ][\w'’.-]*\w(?:['’](?=\s))?"  # (with a plural's apostrophe: "Boys' Doubles")
_CAPITAL_RUN = re.compile(rf"(?<![\w’]){_CAPITAL_WORD}(?:(?:\s+\d+)*(?:\s+(?:of|for)(?:\s+the)?|\s+(?:de|la|du|des|von|van|[&+])|:)?"
                          rf"\s+{_CAPITAL_WORD})*")  # (numbers inside a name: "Team 91 MD")
_OPENERS = STOP_WORDS | {"following"}
_NAME_JOINERS = frozenset("of for the de la du des von van & +".split())  # (the small words a run holds)
_PRONOUN_CAPITALS = frozenset("i i'm i've he she his her hers him they their them it its we our you your".split())


def _known_capital(word: str) -> bool:
    """A capitalised word that names no one alone (see :func:`spans.known_capitals`), a pronoun
    or a suffix."""
    w = re.sub(r"(?:['’]s|['’])$", "", word).strip(".:").lower()
    w = re.sub(r"(?<=\w)-(?:born|based|american|style)$", "", w)  # ("Chinese-born", "French-style")
    return w in known_capitals() or w in _PRONOUN_CAPITALS or w in ("jr", "sr", "ii", "iii", "iv") \
        or fold(w) in lexicon()["nationality_folded"] or len(w) < 2


class LocalOptimizer(Optimizer):
    engine = "local"
    edits_every_document = True

    def __init__(self, world: LocalWorld, evaluator: LocalPrivacyEvaluator, *, max_rounds: int = 20,
                 per_round: int = 6, keep_ratio: float = 0.9, max_sentence_deletions: int = 8,
                 policy: Policy | None = None):
        self.world = world
        self.evaluator = evaluator
        self.max_rounds = max_rounds
        self.per_round = per_round
        self.keep_ratio = keep_ratio
        self.max_sentence_deletions = max_sentence_deletions
        self.policy = policy or load_policy(world.options.get("policy_path"))

    def _ctx(self, task: Task, batch: LocalBatch) -> GeneralizeContext:
        return GeneralizeContext(doc_id=task.doc_id, pseudonyms=batch.pseudonyms, role=None,
                                 allow=set(self.world.allow), deny=set(self.world.deny),
                                 named_elsewhere=lambda names: batch.named_in_another_document(task.doc_id, names))

    def analysis(self, task: Task, batch: LocalBatch) -> Analysis:
        deny = set(self.world.deny)
        if task.profile == "attributes":
            from veil.agents.local.inferrer import attribute_needles

            deny |= set(attribute_needles(task.attributes).values())
        key = (task.doc_id, hash(task.original), frozenset(deny))  # the release plan knows no attributes
        analyses = batch.memo["analyses"]
        a = analyses.get(key)
        if a is None:
            a = analyse(task.original, task, self._ctx(task, batch), self.policy, deny)
            allow = {fold(x) for x in self.world.allow}
            if allow:
                a.units = [u for u in a.units if not (u.span is not None and fold(u.text) in allow)]
            analyses[key] = a
        return a

    def _protected(self, task: Task) -> set[str]:
        words = set(tokenize(task.label or ""))
        for term in self.world.allow:
            words |= set(tokenize(term))
        return words

    @staticmethod
    def _is_protected(token: str, protected: set[str]) -> bool:
        return any(token == p or (len(p) >= 5 and token[:5] == p[:5]) for p in protected)

    # -- the plan ----------------------------------------------------------------------------
    def _drop_target(self, plan: Plan, i: int) -> int | None:
        """What goes for a span whose phrase must go: the smallest removable unit that holds it;
        for one that may take its sentence (``or_sentence``, or a venue of no known kind: "in such
        venues as Pierogi, …") and has no such unit, the sentence, unless it is the text's first
        (which says who the text is about)."""
        u = plan.units[i]
        if not u.drop_unit:
            return None
        holder = plan.analysis.smallest_holder(i)
        if holder is not None and _leaves_a_coordinator(plan, i, holder):
            return None
        if holder is not None and u.span is not None and u.span.type in ("ID", "ACCOUNT_ID") \
                and plan.units[holder].kind in ("appositive", "conjunct") \
                and len(plan.units[holder].text.split()) - len(u.text.split()) > 4:
            return None  # an id inside what the writer says of it keeps its placeholder ("Hi, my order OD4418732290
            # for a Prestige induction cooktop was marked delivered" lost its subject with the id)
        if holder is None and (u.or_sentence or (u.span is not None and u.span.meta.get("venue"))) and u.sentence > 0:
            holder = plan.analysis.sentence_unit(u.sentence)
        return holder

    def base_plan(self, task: Task, batch: LocalBatch) -> Plan:
        """Steps 1 and 2: direct identifiers and the policy, no attacker. Also what the
        publisher expects every other record of the batch to look like once released.
        A sentence's edits are tried together first (one parse check); only a sentence that
        then fails is planned edit by edit."""
        plan = Plan(analysis=self.analysis(task, batch))
        self._drop_name_lists(plan)
        by_sentence: dict[int, list[int]] = {}
        for i, u in enumerate(plan.units):
            if u.kind == "span" and (u.policy is not None or u.drop_unit) and plan.covering(i) is None:
                by_sentence.setdefault(u.sentence, []).append(i)
        trials = {}
        for si, idxs in by_sentence.items():
            trial = dict(plan.choice)
            for i in idxs:
                u = plan.units[i]
                holder = self._drop_target(plan, i)
                if holder is not None:
                    trial[holder] = ""
                if u.policy is not None:
                    trial[i] = u.policy
            trials[si] = trial
        plan.prefetch(list(trials.items()))  # (each sentence's trial touches that sentence only)
        for si, idxs in by_sentence.items():
            trial = {**plan.choice, **trials[si]}
            if plan.parses(si, trial):
                for i in idxs:
                    u = plan.units[i]
                    holder = self._drop_target(plan, i)
                    if holder is not None:
                        plan.order.append(holder)
                        plan.reasons[holder] = u.reason + "; its phrase is removed"
                    if u.policy is not None:
                        plan.order.append(i)
                        plan.reasons[i] = u.reason
                plan.choice = trial
                for i in idxs:
                    if plan.units[i].drop_unit and self._drop_target(plan, i) is None:
                        self._exact_day_stays(plan, i)  # (nothing took it)
                continue
            for i in idxs:
                self._base_edit(plan, i)
        self._drop_life_dates(plan)
        self._drop_place_descriptions(plan)
        for j, u in enumerate(plan.units):
            if u.kind == "sentence" and _HATNOTE.search(u.text) and (u.sentence == 0 or "(disambiguation)" in u.text):
                # an encyclopedia's "(For other uses, see X (disambiguation).)": no part of the
                # text, and it names the person twice
                plan.choice[j] = ""
                plan.order.append(j)
                plan.reasons[j] = "a disambiguation note goes whole"
        for group in self._bulleted_lists(plan):
            # a bulleted list (works, wins, results): names, places, dates and scores one after
            # another, no sentence of the text; its edits left "A race: 9 \n* Person AON: 8".
            # A list whose items name nothing (a discharge note's "• Pain 1/10 at rest") is the
            # writer's content: it stays, whatever its heading holds
            items = group[1:] if plan.analysis.text[slice(*plan.analysis.sentences[group[0]])].rstrip().endswith(":") \
                else group
            if not any(plan.units[i].kind == "span" and (plan.units[i].policy is not None or plan.units[i].drop_unit)
                       for si in items for i in plan.analysis.by_sentence(si)):
                continue
            for si in group:
                j = plan.analysis.sentence_unit(si)
                if j is not None and si > 0:
                    plan.choice[j] = ""
                    plan.order.append(j)
                    plan.reasons[j] = "a bulleted list goes whole, with its heading"
        plan.floor = dict(plan.choice)
        return plan

    @classmethod
    def _bulleted_lists(cls, plan: Plan) -> list[list[int]]:
        """:meth:`_bulleted_list`'s sentences, one run of consecutive sentences per list."""
        groups: list[list[int]] = []
        for si in cls._bulleted_list(plan):
            if groups and groups[-1][-1] == si - 1:
                groups[-1].append(si)
            else:
                groups.append([si])
        return groups

    @staticmethod
    def _bulleted_list(plan: Plan) -> list[int]:
        """The sentences of the text's bulleted lists: each item (a sentence starts at each bullet,
        and at the line after a list's last item: :func:`veil.nlp._boundaries`), and a list's
        heading, the sentence whose words before the bullet end with a colon ("Works include:").
        Prose before a list without a heading stays, as does the prose after it. A list of dashes
        ("- aspirin 81 mg" in a note) is the writer's content, not an encyclopedia's appendix: it
        stays, and its items are edited as sentences."""
        text, sents = plan.analysis.text, plan.analysis.sentences
        out: set[int] = set()
        for m in nlp.BULLET.finditer(text):
            if m.group().strip()[-1:] != "*":
                continue  # (a note's or a letter's "•" and "-" lists are its writer's content: "Where the money
                # stands: • Raised: …" went whole; an encyclopedia's appendix is a list of "*")
            nl = _LINE_END.search(text, m.end())
            for k, (a, b) in enumerate(sents):
                # (a sentence ends before the next item's bullet: veil.nlp.sentence_spans)
                if a <= m.start() and (m.start() < b or not text[b:m.start()].strip()) \
                        and (text[a:m.start()].rstrip().endswith(":") or not text[a:m.start()].strip()):
                    out.add(k)  # the heading, or a sentence the bullet starts
                if a <= m.end() < b or (m.end() <= a and text[m.end():a].strip() == "") or (
                        nl is not None and m.end() <= a < nl.start()):
                    out.add(k)  # the item the bullet opens, to its line's end ("Suburban Handicap: | 5")
        return sorted(out)

    @staticmethod
    def _drop_name_lists(plan: Plan) -> None:
        """A list of names that a colon opens (none of them its sentence's subject) goes whole with
        its colon: "They had five children: A, B, C, D and E." -> "They had five children." (a
        pseudonym for some and the removal of the others had left "They had five children: Person
        H, Person I.")."""
        units = plan.units
        for j, u in enumerate(units):
            if u.kind == "sentence" or not u.text.startswith(":"):
                continue
            names = [i for i in plan.analysis.by_sentence(u.sentence) if units[i].kind == "span" and units[i].span is not None
                     and units[i].span.type == "PERSON" and u.start <= units[i].start and units[i].end <= u.end]
            if len(names) >= 2 and not any(units[i].span.meta.get("slot") == "subject" for i in names):
                plan.try_choose(j, "", "a list of names a colon opens goes whole")
        text = plan.analysis.text
        for j, u in enumerate(units):
            # "for other comedians including A, B, C, D, E and F", "alongside A, B and C": a phrase
            # that only lists persons goes whole ("including Person VB, Person VD, Person VG, ..."
            # was an output: pseudonyms say nothing to a reader, and each still names someone)
            if u.kind != "prepositional phrase" or j in plan.choice \
                    or not re.match(rf"[\s,]*(?:{'|'.join(_NAME_LIST_OPENERS)})\b", u.text, re.I):
                continue
            names = [units[i] for i in plan.analysis.by_sentence(u.sentence) if units[i].kind == "span"
                     and units[i].span is not None and units[i].span.type == "PERSON"
                     and u.start <= units[i].start and units[i].end <= u.end]
            if len(names) < 2 or any(w.span.meta.get("slot") == "subject" for w in names):
                continue
            rest, pos = [], u.start
            for w in sorted(names, key=lambda w: w.start):
                rest.append(text[pos:w.start])
                pos = w.end
            rest.append(text[pos:u.end])
            a, b = plan.analysis.sentences[u.sentence]
            if _RANKS.search(text[a:b]) and not re.search(r"\bone of\b", text[a:b], re.I):
                continue  # "He became, alongside A and B, the first player to ...": without them it is false
                # (not "one of the highest ranked players, alongside A, B and C": one of many either way)
            if {w.lower() for w in re.findall(r"[A-Za-z']+", " ".join(rest))} <= _NAME_LIST_WORDS:
                plan.try_choose(j, "", "a phrase that only lists persons goes whole")

    @staticmethod
    def _drop_place_descriptions(plan: Plan) -> None:
        """An appositive that describes a place the policy generalized goes with its comma: it
        described the place as written, not its region ("born in Scheveningen, a beach suburb of
        The Hague" -> "born in the Netherlands, a beach suburb of The Hague" was an output, and
        false), unless it names the region that holds it ("a city, the Netherlands" is true). So does the
        place that held it once it is only a kind ("Born in New York, a city in the 1870s" of
        "Sheepshead Bay, Brooklyn in 1874"). Where either cannot go, it stays. Part of the floor; run
        again after the attacker's generalizations."""
        text = plan.analysis.text
        for i, u in enumerate(plan.units):
            rep = plan.choice.get(i)
            if u.kind != "span" or u.span is None or u.span.type != "LOCATION" or not rep or rep == u.text:
                continue
            for j in plan.analysis.by_sentence(u.sentence):
                w = plan.units[j]
                if w.kind == "appositive" and j not in plan.choice and w.start >= u.end \
                        and text[u.end:w.start].strip() in ("", ",") and plan.covering(j) is None:
                    if any(x.kind == "span" and x.span is not None and x.span.type == "LOCATION"
                           and text[w.start:x.start].strip(" ,") == "" and text[x.end:w.end].strip(" ,") == ""
                           and not re.match(r"(?:an?|another) ", plan.choice.get(k) or "")
                           for k, x in ((k, plan.units[k]) for k in plan.analysis.by_sentence(u.sentence))):
                        break  # the region that holds it, still true: "a city, the Netherlands" keeps its country
                    if plan.try_choose(j, "", "describes the place as written, not the generalization"):
                        plan.floor[j] = ""
                    break
                if w.kind == "span" and w.span is not None and w.span.type == "LOCATION" and text[u.end:w.start] == ", " \
                        and re.match(r"(?:an?|another) ", plan.choice.get(j) or ""):
                    # the place that held it, now its kind: "Born in Sheepshead Bay, Brooklyn in 1874" ->
                    # "Born in New York, in the 1870s" ("Born in New York, a city in the 1870s" was an output)
                    if plan.try_choose(j, "", "the place that held a generalized place, as its kind, says nothing more"):
                        plan.floor[j] = ""
                    break

    @staticmethod
    def _drop_life_dates(plan: Plan) -> None:
        """The bracket of dates (and places) right after the subject's name, once the name is a
        pronoun or a role noun, goes whole: "He (1890s–1980s) was a writer" reads as no one
        writes and keeps a quasi-identifier; "He was a writer" says what the text is about.
        Another person's bracket goes whatever their name became: "sister of an artist (in the
        19th and 20th centuries)" (of "sister of artist Andrew Gow (1848–1920)") read as her
        being a sister in those centuries, and a relative's dates point to the family."""
        text = plan.analysis.text
        for i, u in enumerate(plan.units):
            if u.kind != "span" or u.span is None or u.span.type != "PERSON":
                continue
            rep = plan.choice.get(i)
            if u.span.meta.get("slot") == "subject" and (not rep or PSEUDONYM.fullmatch(rep)):
                continue
            if i not in plan.choice:
                continue
            stand_in = rep
            for j in plan.analysis.by_sentence(u.sentence):
                w = plan.units[j]
                gap = text[u.end:w.start]
                for k, rep in plan.choice.items():  # (an alias deleted between: ", full name X (or Y)")
                    x = plan.units[k]
                    if rep == "" and u.end <= x.start and x.end <= w.start:
                        gap = gap.replace(text[x.start:x.end], "")
                # (the parse may call "(born August 17, 1944)" a participial clause: "She (born in the
                # 1940s) is" was an output)
                if w.start >= u.end and w.kind in ("parenthetical", "participial clause", "appositive") \
                        and text[w.start:w.start + 1] == "(" \
                        and text[w.end - 1:w.end] == ")" and (re.search(r"\d", w.text) or re.match(r"\((?:born|b\.|née|nee)\s", w.text)) \
                        and gap.strip() in ("", ",") \
                        and j not in plan.choice:
                    if plan.try_choose(j, "", "life dates after the subject's pronoun: the bracket goes"):
                        continue
                    if (nxt := re.match(r"\s+([a-z][\w-]*)", text[w.end:w.end + 40])) and nxt.group(1) not in STOP_WORDS:
                        # the writer's bracket stood for the appositive's comma: "Laberte (1880 – 1963) son
                        # of X, was trained" -> "He, son of X, was trained" ("He (1880s–1960s) son of" was an output)
                        plan.try_choose(j, ",", "life dates after the subject's pronoun: the bracket goes, "
                                                "its comma stays")
                    elif (pp := next((k for k in plan.analysis.by_sentence(u.sentence) if k not in plan.choice
                                      and plan.units[k].kind == "prepositional phrase"
                                      and plan.units[k].start == w.end + len(text[w.end:]) - len(text[w.end:].lstrip())),
                                     None)) is not None:
                        # the writer put the birthplace after the bracket: "Weese (born 1929) in Evanston,
                        # Illinois is" -> "He is" ("He (born in the 1920s) in Illinois is" was an output)
                        trial = {**plan.choice, j: "", pp: ""}
                        if plan.parses(u.sentence, trial):
                            plan.choice = trial
                            for k in (j, pp):
                                plan.order.append(k)
                                plan.reasons[k] = "life dates after the subject's pronoun, and the birthplace after them: both go"
                    elif re.match(r"[^\W\d_]", text[w.end:w.end + 1]):
                        # no space after the writer's bracket: "Trpcic (born 1966 in Artesia, California)is"
                        plan.try_choose(j, " ", "life dates after the subject's pronoun: the bracket goes")
                    break
                if stand_in in ("he", "she", "they", "He", "She", "They") and w.start >= u.end \
                        and w.kind in ("appositive", "relative clause", "participial clause") and j not in plan.choice \
                        and text[u.end:w.start + 1].strip().startswith(",") and not gap.strip(" ,") \
                        and (text[w.start:w.end].rstrip().endswith(",") or re.match(r"\s*,", text[w.end:w.end + 3])) \
                        and u.start == plan.analysis.sentences[u.sentence][0] \
                        and not re.match(r"[\s,]*(?:and|or|nor)\b", text[w.end:w.end + 8]) \
                        and not any(x.kind == "span" and x.span is not None and x.span.type == "PERSON"
                                    and w.start <= x.start and x.end <= w.end for x in plan.units) \
                        and not re.search(r"\b(?:again|also|too|as well(?! as))\b",
                                          text[w.end:plan.analysis.sentences[u.sentence][1]]):
                    # (never a list the parse took for appositions: "Smith, Jones, and Brown founded" would leave
                    # "He and Brown founded"; nor a clause a later "again" points back at)
                    # no one writes "He, inventor of the 'Rocket' apparatus, was born", "He, who is considered a
                    # painter, died" (outputs): what the writer set off after the name goes with its commas
                    plan.try_choose(j, "", "set off after the name the pronoun replaced: it goes")
                    break

    def _base_edit(self, plan: Plan, i: int) -> None:
        u = plan.units[i]
        if u.drop_unit:
            # the smallest phrase that holds it and reads once removed ("for Fortec" where the
            # tagger's adjective "Fortec" alone leaves "for" dangling)
            for holder in plan.analysis.holders(i) or [self._drop_target(plan, i)]:
                if holder is not None and _leaves_a_coordinator(plan, i, holder):
                    continue
                if holder is not None and holder not in plan.choice \
                        and plan.try_choose(holder, "", u.reason + "; its phrase is removed"):
                    return
            if u.span is not None and (u.or_sentence or u.span.meta.get("venue") or (
                    u.policy is None and u.span.type in ("LOCATION", "PRODUCT", "WORK"))) \
                    and self._drop_sentence(plan, i, "no phrase of it reads once removed"):
                return  # rather than a pseudonym inventing a person ("Person EM (Italy)" for a gallery),
                # or a place or a work of no known kind staying as written ("costume designer for
                # Torchwood" had no phrase to lose)
            if self._exact_day_stays(plan, i):
                return
        if plan.covering(i) is not None or u.policy is None or plan.try_choose(i, u.policy, u.reason):
            return
        # the policy's rung does not fit the sentence: the next rungs; a direct identifier
        # must go whatever the parse says
        for r in u.options[1:]:
            if plan.try_choose(i, r, u.reason):
                return
        field = u.span is not None and u.span.type in ("DATE", "DOB", "YEAR") \
            and _FIELD_BEFORE.search(plan.analysis.text, max(0, u.start - 30), u.start)
        if not u.direct and not field:  # (a form's date goes to its rung, parse or none: "Discharged: Tuesday,
            # February 20, 2024" stayed exact in a header no rung parsed in and no deletion could take)
            # no rung reads there (the parse of the writer's sentence is off): the phrase that holds
            # it goes, else the sentence (never the first), rather than the span staying exact
            # ("for all of General Dynamics" stayed when its sentence was misparsed)
            holder = plan.analysis.smallest_holder(i)
            if (holder is None or not plan.try_choose(holder, "", u.reason + "; no rung reads there, its phrase is removed")) \
                    and not self._drop_sentence(plan, i, "no rung reads there"):
                self._exact_day_stays(plan, i)  # (a first sentence's exact day: "held 12 June 2024 at …" stayed)
            return
        plan.choice[i] = u.policy or ""
        plan.order.append(i)
        plan.reasons[i] = u.reason

    @staticmethod
    def _exact_day_stays(plan: Plan, i: int) -> bool:
        """A day the parse made an object, which no phrase or sentence could take ("Presented 22/08/2023 with
        lameness" stayed exact): its decade with "in", else it goes, whatever the parse says. False where unit i
        is no such day or something already covers it."""
        u = plan.units[i]
        if not _exact_day(u) or i in plan.choice or plan.covering(i) is not None:
            return False
        if not plan.try_choose(i, f"in {year_ladder(u.span.meta['year'])[1]}", u.reason + "; its decade, with 'in'"):
            plan.choice[i] = ""
            plan.order.append(i)
            plan.reasons[i] = u.reason + "; an exact day goes"
        return True

    @staticmethod
    def _drop_sentence(plan: Plan, i: int, why: str) -> bool:
        """Unit i's sentence goes, if it parses without it and is not the text's first (which says
        who the text is about)."""
        u = plan.units[i]
        k = plan.analysis.sentence_unit(u.sentence)
        return k is not None and u.sentence > 0 and plan.try_choose(k, "", f"{u.reason}; {why}, its sentence is removed")

    def privacy_plan(self, task: Task, batch: LocalBatch, clues: frozenset[str] = frozenset()) -> Plan:
        plan = self.base_plan(task, batch)
        if task.profile == "attributes" and task.attributes:
            # the batch linking attack is not this profile's threat: the true values the text
            # states are removed (as --deny terms, in analyse) and nothing else is deleted
            return plan
        protected = self._protected(task)
        allowed = {t for a in self.world.allow for t in tokenize(a)}
        label = set(tokenize(task.label or ""))
        clue_weight = Counter({c: 1.0 for c in clues})
        for _ in range(self.max_rounds):
            attack = self._attack(plan, task, batch)
            rank, weights = attack.rank, attack.weights
            # an edit's gain is measured by BM25 alone until BM25 is beaten, then by the fused
            # semantic attacker too (each candidate's sentence embedded: too slow for every round)
            semantic = attack.semantic
            if task.privacy_met(rank) and not clues:
                break
            weights = clue_weight if task.privacy_met(rank) else weights + clue_weight
            if not weights:
                break
            scored = []
            for i, u in enumerate(plan.units):
                if u.kind == "sentence" or plan.covering(i) is not None:
                    continue
                if u.kind == "span" and (u.direct or not self._next_options(plan, i)):
                    continue
                if u.kind != "span" and (i in plan.choice or allowed & set(u.tokens)):
                    continue  # an allow-listed term is never deleted with its phrase
                toks = [t for t in u.tokens if not self._is_protected(t, protected)]
                if not toks or len(toks) < len(u.tokens) * 0.5:
                    continue
                w = sum(weights.get(t, 0.0) for t in set(toks))
                if w > 0:
                    scored.append((w / max(1, len(u.tokens)), i))
            if not scored:
                break
            scored.sort(reverse=True)
            changed = False
            if semantic:  # the round's candidate sentences embedded in one batch
                self._prefetch_embeddings(plan, batch, [{**plan.choice, j: c} for _, i in scored[: self.per_round]
                                                        for j, c in self._trials(plan, i)])
            for w, i in scored[: self.per_round]:
                if plan.covering(i) is not None:
                    continue
                if self._gain_choice(plan, i, task, batch, f"helps the linking attack (weight {w:.2f} per word)",
                                     semantic=semantic):
                    changed = True
            clues = frozenset()  # the P-Evaluator's clues are used in the first round only
            clue_weight = Counter()
            if not changed:
                break
        # last resort: delete the sentences that help the attacker most (never the last one)
        for _ in range(self.max_sentence_deletions):
            attack = self._attack(plan, task, batch)
            rank, weights = attack.rank, attack.weights
            if not task.privacy_met(rank) and weights:
                live = self._deletable_sentences(plan, allowed)
                if len(live) <= 1:
                    break
                pick = self._sentences_to_delete(plan, live, weights, label)
                if pick is None:
                    break
                for j in pick:
                    plan.choice[j] = ""
                    plan.order.append(j)
                    plan.reasons[j] = ("no truthful generalization defeats the attack" if j == i
                                       else "refers back to a deleted sentence")
            else:
                break
        return plan

    def _deletable_sentences(self, plan: Plan, allowed: set[str]) -> list[int]:
        """The sentence units the last resort may delete: not the text's first (who and what the
        text is about: "Many articles contain information about him." was all that was left of a
        karate master's biography), nor one with an allow-listed term. Of these, one that says the
        label may go while other kept sentences still say its words (:meth:`_label_sayers`)."""
        return [i for i, u in enumerate(plan.units) if u.kind == "sentence" and i not in plan.choice and u.sentence > 0
                and not any(self._is_protected(t, allowed) for t in u.tokens)]

    def _sentences_to_delete(self, plan: Plan, live: list[int], weights: Counter, label: set[str]) -> list[int] | None:
        """The sentence of ``live`` that helps the attacker most and whose deletion, with the
        sentences that refer back to it, leaves every label word still said (the label needs saying
        once, not in every sentence); None where no sentence helps it."""
        sayers = self._label_sayers(plan, label)
        for w, i in sorted(((sum(weights.get(t, 0.0) for t in set(plan.units[i].tokens)), i) for i in live), reverse=True):
            if w <= 0:
                return None
            gone = self._with_followers(plan, i)
            said_after = {p for k, words in sayers.items() if k not in gone for p in words}
            if all(words <= said_after for k, words in sayers.items() if k in gone):
                return gone
        return None

    def _label_sayers(self, plan: Plan, label: set[str]) -> dict[int, set[str]]:
        """Each kept sentence unit: the label's words it still says in the writer's words (a stand-in
        the edits wrote, "a football team", says nothing of a footballer's label). A sentence may go
        while the others still say every label word it says: "He teaches stand-up comedy to people
        as a way of increasing their self-esteem." linked a comedian's record beside "He also
        teaches stand-up comedy classes at an educational institution"; "The horse won" says only
        half of "horse trainer"."""
        out: dict[int, set[str]] = {}
        for i, u in enumerate(plan.units):
            if u.kind != "sentence" or i in plan.choice:
                continue
            own = set(u.tokens) & set(plan.sentence_tokens(u.sentence))
            out[i] = {p for p in label if any(self._is_protected(t, {p}) for t in own)}
        return out

    def _drop_rare_names(self, plan: Plan, task: Task, batch: LocalBatch) -> None:
        """A capitalised name the edits left as written, which no other record of the batch
        mentions, goes with its phrase, else its sentence (the first only when two others
        stand), whether or not the simulated attacker needed it: a title made of common words
        ("Spiral Journey"), a name the span finder typed wrong ("Torchwood" as a place it could
        not place), a show, a dish is what a search engine or an LLM finds the person by, and
        what the attacker's known facts happen to leave out. A name another record shares ("Iron
        Chef", "Muay Thai"), a country or region, a nationality, and a name holding the label's
        words stay. Needs a batch to count in (a lone document has the rare-word test of the
        span finder only). Part of the floor: utility mode does not bring it back, nor does it
        undo an edit that hid such a name (:meth:`restore`)."""
        if task.profile == "attributes":
            return
        protected = self._protected(task)
        if self._others(task, batch) is None:
            self._drop_stuck_names(plan, protected)
            return
        for si in range(len(plan.analysis.sentences)):
            for ra, rb in self._rare_names(plan, task, batch, si):
                if plan.kept_at(ra):  # (not gone with the phrase of a name before it)
                    self._drop_range(plan, si, ra, rb, "a name no other record mentions, as written", protected,
                                     first_ok=True)

    @staticmethod
    def _others(task: Task, batch: LocalBatch) -> list[str] | None:
        """The other records' releases, lower-cased, to tell a rare name by; None where the batch
        is too small to count in."""
        memo = batch.memo["index"]
        key = ("released_lower", id(batch.released))  # (the release-time batch shares this memo)
        if key not in memo:
            memo[key] = {k: re.sub(r"\s+", " ", v.lower()) for k, v in batch.released.items()}
        own = (key, task.doc_id)
        if own not in memo:
            others = [t for k, t in memo[key].items() if k != task.doc_id]
            memo[own] = others if len(others) >= MIN_RARITY_POPULATION else None
        return memo[own]

    @staticmethod
    def _shared(phrase: str, doc_id: str, others: list[str], batch: LocalBatch) -> bool:
        """Do at least ``SHARED_BY`` other records' releases say this name? Memoised per batch and
        document (:meth:`restore` asks of every edit it would undo). A hyphenated word's name part
        counts: "Muay Thai" of "Muay Thai-kickboxer" (not "Can" of "Can-Am")."""
        memo = batch.memo["index"].setdefault(("shared_names", id(batch.released)), {})
        got = memo.get((doc_id, phrase))
        if got is None:
            forms = {phrase.lower(), re.sub(r"-[a-z][\w-]*$", "", phrase).lower()}
            got = memo[(doc_id, phrase)] = sum(any(x in t and re.search(rf"(?<!\w){re.escape(x)}(?!\w)", t)
                                                   for x in forms) for t in others) >= SHARED_BY
        return got

    def _rare_names(self, plan: Plan, task: Task, batch: LocalBatch, si: int,
                    choice: dict[int, str] | None = None) -> list[tuple[int, int]]:
        """The ranges of the capitalised names that sentence si still says as written under this
        choice (the plan's by default) and that no other record's release mentions (see
        :meth:`_drop_rare_names`)."""
        others = self._others(task, batch)
        choice = plan.choice if choice is None else choice
        analysis, text = plan.analysis, plan.analysis.text
        k = analysis.sentence_unit(si)
        if others is None or k is None or k in choice:
            return []
        protected = self._protected(task)
        a, b = analysis.sentences[si]
        found = []
        for m in _CAPITAL_RUN.finditer(text, a, b):
            ra, rb = m.span()
            words = m.group(0).split()
            at_open = ra == a + len(text[a:b]) - len(text[a:b].lstrip(' "\'“‘\n*'))
            if at_open:
                opened = len(words)
                while words and words[0].lower() in _OPENERS:  # "After Harvard": the opener is no name
                    ra += len(words[0]) + len(text[ra + len(words[0]):]) - len(text[ra + len(words[0]):].lstrip())
                    words = words[1:]
                if len(words) == opened == 1:
                    continue  # (one capitalised word opening a sentence may be any word)
            touching = [plan.units[j] for j in analysis.by_sentence(si)
                        if j in choice and plan.units[j].start < rb and ra < plan.units[j].end]
            if any(w.start <= ra for w in touching):
                continue  # an edit already takes or replaces its start
            if touching:
                # an edit takes its end only: what is left of it is the name ("Torchwood" of
                # "Torchwood: Miracle Day" once ": Miracle Day" went)
                kept = text[ra:min(w.start for w in touching)].rstrip(" :,;\n")
                while kept and kept.split()[-1].lower() in _NAME_JOINERS:  # ("Chief of | the Astronaut Office")
                    kept = kept[:len(kept) - len(kept.split()[-1])].rstrip(" :,;\n")
                rb, words = ra + len(kept), kept.split()
                if at_open and len(words) == 1:
                    continue  # (one capitalised word opening a sentence may be any word)
            if not words or all(_known_capital(w) for w in words) or PSEUDONYM.search(" ".join(words)):
                continue
            phrase = re.sub(r"['’]s?$", "", " ".join(words))  # ("Iron Chef's" is "Iron Chef")
            info = place_info(COMPASS.sub("", phrase) or phrase)  # ("Northern California": a region)
            if (info is not None and info.get("kind") != "city") or any(
                    self._is_protected(t, protected) for t in tokenize(phrase)):
                continue
            if self._shared(phrase, task.doc_id, others, batch):
                continue
            # its quotes go with it, as a pair and inside its sentence ('the nickname \\"Bullet.”
            # After' was an output)
            before, after = text[max(a, ra - 2):ra], text[rb:min(b, rb + 3)]
            if (q := re.search(r'(?:\\"|["“‘\'])$', before)) and (e := re.match(r'[.,!?]?(?:\\"|["”’\'])', after)):
                ra, rb = ra - len(q.group(0)), rb + e.end()
            found.append((ra, rb))
        return found

    def _drop_stuck_names(self, plan: Plan, protected: set[str]) -> None:
        """A lone document (no batch to tell a rare name from a common one, no attacker to take
        what is left): a name the policy wanted gone (no truthful rung: "graduated from UMass",
        "the Gainesville Sun", "in Greifswald") whose phrase cannot go takes its sentence (never
        the first, nor one that alone says the label), instead of staying as written. A name made
        of known capitalised or everyday words ("Earth", "the British Empire"), a country or
        region, and an allow-listed or label word stay."""
        for i, u in enumerate(plan.units):
            if u.kind != "span" or u.span is None or u.direct or i in plan.choice \
                    or not (u.drop_unit or (u.span.evidence == "shape:quoted_name" and u.policy is None)) \
                    or plan.covering(i) is not None or u.span.type not in ("ORG", "LOCATION", "NAME", "EVENT", "WORK", "PRODUCT"):
                continue
            words = re.findall(r"[^\W\d_][\w'’.-]*", u.text)
            if not words or all(_known_capital(w) or _zipf(w) >= COMMON_ZIPF for w in words) or any(
                    self._is_protected(t, protected) for t in tokenize(u.text)):
                continue
            if len(words) == 1 and u.span.type != "LOCATION" and (
                    (re.search(r"[a-z][A-Z]", words[0]) and _zipf(words[0].lower()) >= 2.0)
                    or (words[0].isupper() and _zipf(words[0].lower()) >= 3.0)):
                continue  # a brand the whole English-speaking world writes ("her EpiPen is in the red pouch" took
                # a child's allergy with its sentence), or a common abbreviation ("CCTV")
            info = place_info(COMPASS.sub("", u.text.strip()) or u.text.strip())
            if info is not None and info.get("kind") != "city":
                continue
            self._drop_range(plan, u.sentence, u.start, u.end,
                             "a name with no truthful rung, in a lone document (no batch to tell it common)", protected)
            if u.span.evidence == "shape:quoted_name" and i not in plan.choice and plan.covering(i) is None:
                # a name in quotes the writer set apart (a boat's, a house's: 'the 1998 Farr 727 "Southerly
                # Buster"' stayed in a listing's first line): it goes alone, quotes and all
                if not plan.try_choose(i, "", "a quoted name with no truthful rung, in a lone document: it goes"):
                    plan.choice[i] = ""  # (whatever the parse of a header's line says: a name stays a name)
                    plan.order.append(i)
                    plan.reasons[i] = "a quoted name with no truthful rung, in a lone document: it goes"
                plan.floor[i] = ""  # (utility mode does not bring it back)

    def _drop_range(self, plan: Plan, si: int, ra: int, rb: int, why: str, protected: set[str], *,
                    first_ok: bool = False) -> None:
        """The smallest removable phrase of sentence si that holds text[ra:rb] goes, else the
        sentence (the first only with ``first_ok`` and when two others stand besides those that
        refer back to it: it says who the text is about, but a name left as written there says
        it better - "the creator of Veal Orloff"; never the last one standing, nor one that
        alone says the label); part of the floor."""
        analysis = plan.analysis
        for holder in analysis.holders_of(si, Unit("range", ra, rb, si, analysis.text[ra:rb])):
            if holder not in plan.choice and plan.covering(holder) is None \
                    and plan.try_choose(holder, "", why + "; its phrase is removed"):
                plan.floor[holder] = ""
                return
        k = analysis.sentence_unit(si)
        if k is None or k in plan.choice:
            return
        if si == 0:
            # (counted without the sentences that refer back to it, which go with it)
            gone = set(self._with_followers(plan, k))
            live = {j for x in range(len(analysis.sentences)) if (j := analysis.sentence_unit(x)) is not None
                    and j not in plan.choice}
            if not first_ok or len(live - gone) < 2:
                return
        if not self._says_label_alone(plan, si, protected):
            self._drop_for_good(plan, k, why + "; no phrase of it reads once removed, its sentence is removed")

    def _says_label_alone(self, plan: Plan, si: int, protected: set[str]) -> bool:
        """Does sentence si say one of the label's (or the allow-list's) words that no other
        sentence still standing says, or is it the last one standing? The label's words another
        sentence says protect nothing here ("She was also the main costume designer for
        Torchwood" after "She is a costume designer"; "The horse had won" of a horse trainer)."""
        analysis = plan.analysis
        live = [x for x in range(len(analysis.sentences)) if x != si and analysis.sentence_unit(x) not in plan.choice]
        if not live:
            return True
        own = {p for t in plan.sentence_tokens(si) for p in protected if self._is_protected(t, {p})}
        return bool(own) and not own <= {p for x in live for t in plan.sentence_tokens(x)
                                         for p in own if self._is_protected(t, {p})}

    @staticmethod
    def _says_what_follows(text: str, a: int, b: int) -> bool:
        """Is text[a:b] short by nature: a form's line (:func:`_on_a_form_line`), a list's heading or a list item's
        first sentence ("- Pōhutu, a huntaway, arthritic." says whom the item's next sentences are about)?"""
        return _on_a_form_line(text, a, b) or text[a:b].rstrip().endswith(":") \
            or bool(_ITEM_START.fullmatch(text, text.rfind("\n", 0, a) + 1, a))

    def _drop_stubs(self, plan: Plan, task: Task) -> None:
        """An edited sentence left with almost nothing of its own ("He was a player.", "His
        works have a sense.", "He grew inches" were outputs: a blind reader's first complaint)
        goes whole, with the sentences that refer back to it; never the text's first sentence
        or its last one standing, nor one that carries the label or an allow-listed term. Such
        a deletion is part of the floor: utility mode does not bring the stub back."""
        protected = self._protected(task)
        sentence_unit = {u.sentence: k for k, u in enumerate(plan.units) if u.kind == "sentence"}
        live = [si for si in sorted(sentence_unit) if sentence_unit[si] not in plan.choice]
        said = set(plan.sentence_tokens(live[0])) if live else set()
        for si in live[1:]:
            k = sentence_unit[si]
            now = plan.sentence_tokens(si) if k not in plan.choice else Counter()
            if k in plan.choice or not any(i in plan.choice for i in plan.analysis.by_sentence(si)) \
                    or self._says_what_follows(plan.analysis.text, *plan.analysis.sentences[si]):
                # (a form's line is short by nature: "Review period: the 2020s" says what the form asks; so is
                # a numbered line's head: "Room 4 – Person D, over 80." says whose notes follow; and a list's
                # heading says what its items are: "Outcome at discharge (in the 2020s):")
                said |= set(now)
                continue
            before = plan.sentence_tokens(si, {})
            # (what an earlier sentence says protects nothing here: "He was also a player." after
            # "He is a tennis player.")
            new = [t for t in now if t not in said]
            stub = len(now) <= STUB_TOKENS and len(before) >= 2 * STUB_TOKENS + 1
            # an edited sentence that only says again what was said, with a placeholder or a
            # period ("She was also the costume designer." after "She is a costume designer.")
            said_again = len(now) <= 2 * STUB_TOKENS and not any(t not in _FILLER_TOKENS and not t.isdigit() for t in new)
            # a verb and stand-ins that only name a kind: "He won a competition.", "He was drafted by a sports
            # team." (of "He won the Latvian Chess Championship in 2000", "... by the St. Louis Cardinals in the
            # 2nd round of the 1984 amateur draft"); a stand-in with a period, a place or a number says something
            # ("He was born in the United States.", "He was awarded a national honor in the 1960s.")
            # (only a verb of taking part, which the label implies: "He founded a school." says what he did)
            # (a stand-in's own lower-case words name a kind too: "His first race in a motor racing series
            # was at a race." of "... in Formula 1 was at the 1970 Spanish Grand Prix")
            standins = Counter(t for j in plan.analysis.by_sentence(si)
                               if (r := plan.choice.get(j)) and r == r.lower() and not any(c.isdigit() for c in r)
                               for t in _tokens_of(r))
            content = [t for t in (now - standins).elements() if t not in _KIND_TOKENS]
            kind_only = len(before) >= 2 * STUB_TOKENS + 1 and len(content) <= 1 and all(
                t in before and t in _TAKING_PART for t in content)
            if not (stub or said_again or kind_only) or any(self._is_protected(t, protected) for t in new):
                said |= set(now)
                continue
            if sum(1 for x in sentence_unit.values() if x not in plan.choice) <= 1:
                break
            self._drop_for_good(plan, k, "what the edits left of the sentence says next to nothing" if stub
                                else "what the edits left of the sentence only says again what was said" if said_again
                                else "what the edits left of the sentence is a verb of taking part and kinds")

    def _drop_fragments(self, plan: Plan, task: Task) -> None:
        """Sentences the splitter cut out of a citation or a heading go whole: a run of sentences with
        no verb and every word capitalised, one of whose words is rare ("Bis.", "Stettiner
        Entomologische Zeitung 41:", "Bull. Soc. Imp. Nat." were outputs of a German bibliography).
        No reader takes them for sentences, and they name what they cite. Never the text's first;
        part of the floor."""
        text, sents = plan.analysis.text, plan.analysis.sentences
        sentence_unit = {u.sentence: k for k, u in enumerate(plan.units) if u.kind == "sentence"}
        runs: list[list[int]] = []
        for si in range(1, len(sents)):
            sentence = text[slice(*sents[si])].strip()
            words = re.findall(r"[^\W\d_]+", sentence)
            # (a lowercase abbreviation is a citation's too: "Berl. ent. Ztschr." split into three; a short
            # rare word before a point, never an English word: "A German entomologist." is no citation)
            abbreviations = {w for w in re.findall(r"\b([^\W\d_]+)\.", sentence) if len(w) <= 5 and _zipf(w.lower()) < 3.5}
            if si in sentence_unit and sentence_unit[si] not in plan.choice and not plan.analysis.has_root[si] \
                    and words and not sentence.endswith(("!", "?")) and not _on_a_form_line(text, *sents[si]) \
                    and all(w[0].isupper() or w in abbreviations for w in words):
                if runs and runs[-1][-1] == si - 1:
                    runs[-1].append(si)
                else:
                    runs.append([si])
        for run in runs:
            words = [w for si in run for w in re.findall(r"[^\W\d_]+", text[slice(*sents[si])])]
            if not any(_zipf(w.lower()) < 3.5 for w in words):
                continue  # ("Early life.", "Oh. Yes.": common words, no citation)
            for si in run:
                if sum(1 for k in sentence_unit.values() if k not in plan.choice) <= 1:
                    return
                self._drop_for_good(plan, sentence_unit[si], "a fragment of a citation or a heading, no sentence: it goes whole")

    def _drop_orphans(self, plan: Plan, task: Task) -> None:
        """A sentence that opens by pointing back (:data:`_ANAPHOR`, :data:`_ORPHAN`) at a
        sentence the edits deleted goes too, whichever edit deleted it ("Other nominees include
        Person ARF." after the nomination's sentence went); never the text's first, nor one that
        alone says the label. Part of the floor."""
        protected = self._protected(task)
        by_sentence = {u.sentence: k for k, u in enumerate(plan.units) if u.kind == "sentence"}
        text, sents = plan.analysis.text, plan.analysis.sentences
        for si in range(1, len(sents)):
            k, prev = by_sentence.get(si), by_sentence.get(si - 1)
            if k is None or prev is None or k in plan.choice or plan.choice.get(prev) != "":
                continue
            # (the sentence as written, or as the edits left it: "Upon their return to Turkey both
            # started" -> "Both started in the 1930s.")
            # (not a pronoun the edits put first: "They" may be the subject's)
            head, now = text[slice(*sents[si])].lstrip(), plan.render_sentence(si).lstrip()
            if not (_ANAPHOR.match(head) or _ORPHAN.match(head) or not re.search(r"[A-Za-z]{2}", head)
                    or _ORPHAN.match(now) or re.match(r"(?:Both|Each|Neither)\b", now)):
                continue  # (nor a tail of numbers the splitter cut off it: "Nos. | 6, 171, 219, 256.")
            said: set[str] = set()
            for x in range(si):
                if by_sentence.get(x) not in plan.choice:
                    said |= set(plan.sentence_tokens(x))
            if not said or any(self._is_protected(t, protected) for t in plan.units[k].tokens if t not in said):
                continue  # (the label said before protects nothing here)
            self._drop_for_good(plan, k, "refers back to a deleted sentence")

    def _drop_dangling(self, plan: Plan, task: Task) -> None:
        """A demonstrative whose antecedent the edits took ("She played for a team that took first
        place. In this competition she also won the prize", "He retired at the end of that season"
        after the season's sentence went): the smallest phrase that holds it goes, else its
        sentence (never the first, nor one that carries the label). Part of the floor."""
        analysis, text = plan.analysis, plan.analysis.text
        protected = self._protected(task)
        for si, start, end, noun in analysis.pointers:
            k = analysis.sentence_unit(si)
            if k is None or k in plan.choice or any(
                    plan.units[j].start <= start and end <= plan.units[j].end and j in plan.choice
                    for j in analysis.by_sentence(si) if plan.units[j].kind != "span"):
                continue  # already gone
            a = analysis.sentences[si][0]
            earlier = [j for j in analysis.by_sentence(si) if j in plan.choice and plan.units[j].end <= start]
            before_changed = bool(earlier) or (si > 0 and plan.render_sentence(si - 1) != text[slice(*analysis.sentences[si - 1])])
            if start in analysis.shells:
                # (a shell noun's antecedent is what the sentence before told: gone only with a phrase of it)
                prev = analysis.sentence_unit(si - 1)
                before_changed = plan.choice.get(prev) == "" or any(
                    plan.choice.get(j) == "" and plan.units[j].kind not in ("span", "adverb")
                    and _CONTENT_WORD.search(plan.units[j].text) for j in analysis.by_sentence(si - 1))
                # (a phrase with words of its own: "with the design of the Plantation", not "near Albany")
            if not before_changed:
                continue
            said = " ".join(plan.render_sentence(x) for x in range(si)) + " " + text[a:start]
            if noun and self._noun_still_said(plan, si, start, noun, said):
                continue  # the noun itself is still there to point at
            for j in analysis.holders_of(si, Unit("pointer", start, end, si, text[start:end])):
                if plan.try_choose(j, "", "points back at words the edits removed: its phrase goes"):
                    plan.floor[j] = ""
                    break
            else:
                if si == 0 or self._says_label_alone(plan, si, protected):
                    continue
                self._drop_for_good(plan, k, "points back at words the edits removed")

    def _drop_stale_adverbs(self, plan: Plan) -> None:
        """A referential adverb (:data:`veil.agents.local.units.REFERENTIAL_ADVERBS`: "also",
        "instead", "previously", "again") goes where what it pointed back at may be gone: one of
        the two sentences before it, or a conjunct before it in its own sentence ("He was also
        elected twice." after the sentence of his first office went). Not after a bracket or a
        fronted phrase ("David Mulford (born 1937) was an ambassador. ... he was also a banker"
        still has its antecedent). Its loss is true (no adverb is a unit under a negation or
        inside a noun phrase); part of the floor."""
        analysis = plan.analysis
        for j, u in enumerate(plan.units):
            if u.kind != "adverb" or j in plan.choice or plan.covering(j) is not None:
                continue
            si = u.sentence
            if not plan.render_sentence(si):
                continue  # its sentence went
            deleted = any(plan.choice.get(analysis.sentence_unit(x)) == "" for x in range(max(0, si - 2), si)) or any(
                plan.choice.get(k) == "" and plan.units[k].kind == "conjunct" and plan.units[k].end <= u.start
                and plan.covering(k) is None for k in analysis.by_sentence(si))
            if deleted and plan.try_choose(j, "", "points back at what the edits may have removed"):
                plan.floor[j] = ""

    @staticmethod
    def _another_across(plan: Plan) -> None:
        """The second of two names a sentence before made the same kind phrase: "another team"
        where they differ ("He is the former head coach of a team. He returned to coaching as the
        head coach of a team." was an output of the Philadelphia Wings, then the Barrage), as
        :func:`_another` does within a sentence. Not where one name holds the other's words
        ("the Wings" may be "the Philadelphia Wings"), nor for one a deletion took."""
        analysis = plan.analysis
        seen: dict[str, set[frozenset[str]]] = {}  # kind phrase -> the names' words that became it
        acronyms: set[str] = set()  # kind phrases an acronym became: it may be any later name's
        for si in range(len(analysis.sentences)):
            rendered = plan.render_sentence(si)
            if not rendered:
                continue
            here: dict[str, set[frozenset[str]]] = {}
            for j in analysis.by_sentence(si):
                u, r = plan.units[j], plan.choice.get(j)
                if u.kind != "span" or not r or plan.covering(j) is not None or u.span is None or u.span.type != "ORG":
                    continue  # (an organisation: two events or places of other names may be one, "Le Mans" twice)
                m = _KIND_PHRASE.fullmatch(r)
                if m is None or r not in rendered:
                    continue
                words = set(_tokens_of(u.text)) - {"the"}
                earlier = seen.get(r)
                listed = bool(_LISTED_AFTER.match(analysis.text, u.end)
                              or _LIST_GAP.search(analysis.text, analysis.sentences[si][0], u.start))
                # (nor a possessive, "another state's map", nor a list's item, "by another organization, a school";
                # nor an acronym, which may be the other's: "the NHL" of "the National Hockey League")
                # (each of a sentence's names that differ from all before: "with another baseball team, then
                # joined another baseball team"; the same name twice in one sentence is _another's "the team")
                acronym = bool(re.search(r"\b[A-Z]{2,}\b", u.text))
                if earlier and not listed and not acronym and r not in acronyms \
                        and not any(words <= w or w <= words for w in earlier | here.get(r, set())):
                    plan.try_choose(j, f"another {m.group(2)}", "a second name of the same kind")
                here.setdefault(r, set()).add(frozenset(words))
                if acronym:
                    acronyms.add(r)
            for r, ws in here.items():
                seen.setdefault(r, set()).update(ws)

    @staticmethod
    def _lone_pseudonyms(plan: Plan) -> None:
        """A person the text names more than once, whose other mentions the edits took, becomes
        the stand-in the sentence gives them (:func:`_person_stand_in`): one mention needs no name
        to refer back to ("She won her second title over Person ASD" was an output, the final's
        sentence gone). Never one another record names (the batch's pseudonym stays)."""
        lone = [i for i, u in enumerate(plan.units) if u.lone is not None and u.policy
                and plan.choice.get(i) == u.policy and plan.covering(i) is None]
        if not lone:
            return
        text = plan.render()
        for i in lone:
            u = plan.units[i]
            name = re.sub(r"['’]s?$", "", u.policy)
            if len(re.findall(rf"\b{re.escape(name)}\b", text)) == 1 and plan.try_choose(i, u.lone[0], u.lone[1]):
                plan.floor[i] = u.lone[0]
                text = plan.render()

    @staticmethod
    def _drop_repeated_periods(plan: Plan) -> None:
        """A period a sentence before already said, in a phrase that says nothing else ("In the
        2010s, he was selected. He passed command in the 2010s. In the 2010s, he set the record",
        six times in one output): the phrase goes after its first time; the edits made the
        periods alike, the reader learns nothing from the second. Part of the floor."""
        analysis = plan.analysis
        said: set[str] = set()
        for si in range(len(analysis.sentences)):
            if not plan.render_sentence(si):
                continue
            ranks = bool(_RANKS.search(analysis.text, *analysis.sentences[si]))  # (a rank's period bounds it: "the youngest … in the 2010s")
            here = set()
            for j in analysis.by_sentence(si):
                u, r = plan.units[j], plan.choice.get(j)
                if u.kind != "span" or not r or plan.covering(j) is not None:
                    continue
                m = _PERIOD_PHRASE.fullmatch(r)
                if m is None:
                    continue
                period = m.group(2)
                if period not in said or ranks:
                    here.add(period)
                    continue
                if m.group(1):  # (a stand-in with its preposition: "He arrived 9 October 2010" -> "arrived in the 2010s")
                    if plan.try_choose(j, "", "says again a period a sentence before said: it goes"):
                        plan.floor[j] = ""
                    continue
                holder = analysis.smallest_holder(j)
                if holder is None or holder in plan.choice:
                    continue
                rest = plan.units[holder].text.replace(u.text, " ", 1)
                if _BARE_PREPOSITION.fullmatch(rest) and plan.try_choose(
                        holder, "", "says again a period a sentence before said: its phrase goes"):
                    plan.floor[holder] = ""
            said |= here

    @staticmethod
    def _noun_still_said(plan: Plan, si: int, start: int, noun: str, said: str) -> bool:
        """Is the noun a pointer at ``start`` points back with still named before it? Where the
        text named it as a noun of its own, one of those mentions must be left as written, or an
        edit's stand-in must say it ("a team" for the club); where it only modified another noun
        ("horse racing trainer" before "The horse"), the pointer meant what the sentence before
        said, which must still stand."""
        analysis = plan.analysis
        found = re.compile(rf"\b{re.escape(noun.rstrip('s'))}", re.I)
        if any(_singular(plan.choice[j].split()[-1]) == _singular(noun) for x in range(si + 1)
               for j in analysis.by_sentence(x)
               if plan.choice.get(j) and plan.units[j].end <= start and plan.covering(j) is None):
            return True  # (a stand-in a deletion took, its sentence's too, says nothing any more)
            # (the stand-in's own noun: "a horse race" names no horse for "The horse" to be)
        intros = analysis.introductions.get(start, ())
        if intros:
            return any(plan.kept_at(p) for p in intros)
        previous = analysis.sentence_unit(si - 1) if si > 0 else None
        return bool(found.search(said)) and (previous is None or previous not in plan.choice)

    def _drop_for_good(self, plan: Plan, k: int, why: str) -> None:
        """Sentence unit k goes, with the sentences that refer back to it, as part of the floor
        (utility mode does not bring them back)."""
        for j in self._with_followers(plan, k):
            plan.choice[j] = plan.floor[j] = ""
            plan.order.append(j)
            plan.reasons[j] = why if j == k else "refers back to a deleted sentence"

    @staticmethod
    def _with_followers(plan: Plan, i: int) -> list[int]:
        """Sentence unit i and the sentences right after it that refer back to it ("It was...",
        "Membership is open to...", "Such devices..."): deleting one without the others leaves
        a reference to nothing."""
        out = [i]
        by_sentence = {u.sentence: k for k, u in enumerate(plan.units) if u.kind == "sentence"}
        si = plan.units[i].sentence
        text = plan.analysis.text
        sents = plan.analysis.sentences
        while si + 1 in by_sentence:
            a, b = sents[si + 1]
            if by_sentence[si + 1] in plan.choice:
                break
            if not _ANAPHOR.match(text[a:b]):
                # "... the game went into extra innings. The Rockies went on to win the game": a
                # definite description whose noun only the deleted sentence introduced
                said = {w.lower() for k in range(si + 1) if by_sentence.get(k) not in out
                        and by_sentence.get(k) not in plan.choice for w in _WORD.findall(text[slice(*sents[k])])}
                gone = {w.lower() for w in _WORD.findall(text[slice(*sents[si])])}
                if not any(n.lower() in gone and n.lower() not in said and n.lower() not in _GENERIC_NOUNS
                           for n in _DEFINITE.findall(text[a:b])):
                    break
            out.append(by_sentence[si + 1])
            si += 1
        return out

    def _next_options(self, plan: Plan, i: int) -> list[str]:
        u = plan.units[i]
        current = plan.choice.get(i)
        if current is None:
            return list(u.options)
        if current in u.options:
            return u.options[u.options.index(current) + 1:]
        return []

    def _trials(self, plan: Plan, i: int) -> list[tuple[int, str]]:
        """The edits :meth:`_gain_choice` weighs for unit i: a span's next rungs and the deletion
        of the smallest phrase that holds it; a phrase's deletion."""
        if plan.units[i].kind != "span":
            return [(i, "")]
        trials = [(i, c) for c in self._next_options(plan, i)]
        holder = plan.analysis.smallest_holder(i)
        if holder is not None and holder not in plan.choice:
            trials.append((holder, ""))
        return trials

    def _gain_choice(self, plan: Plan, i: int, task: Task, batch: LocalBatch, reason: str, *,
                     semantic: bool = False) -> bool:
        """The most specific option of unit i that removes (nearly) as much attack score as the
        most general one (deleting it, or the smallest phrase that holds it). Only options
        whose sentence still parses are considered. ``semantic``: the score is the fused
        attacker's, else BM25's."""
        u = plan.units[i]
        mode = "fused" if semantic else "lexical"
        base = self._attack(plan, task, batch, mode=mode).score
        si = u.sentence
        trials = self._trials(plan, i)
        choices = [{**plan.choice, j: c} for j, c in trials]
        if semantic:
            self._prefetch_embeddings(plan, batch, choices)
        scored = [(j, c, self._attack(plan, task, batch, trial, mode=mode).score)
                  for (j, c), trial in zip(trials, choices)]
        # the parse is checked lazily, most specific acceptable option first (the candidates'
        # sentences parsed in one batch beforehand)
        plan.prefetch([(si, {**plan.choice, j: c}) for j, c, _ in scored])
        while scored:
            best = base - min(s for _, _, s in scored)
            if best <= 1e-6:
                return False
            j, c, _ = next(x for x in scored if base - x[2] >= self.keep_ratio * best)
            if plan.try_choose(j, c, reason):
                return True
            scored = [x for x in scored if (x[0], x[1]) != (j, c)]
        return False

    def _semantic(self, batch: LocalBatch) -> bool:
        return self.evaluator.semantic and batch.population_is_batch and bool(batch.release_sentences)

    def _attack(self, plan: Plan, task: Task, batch: LocalBatch, choice: dict[int, str] | None = None, *,
                mode: Literal["lexical", "fused", "shortcut"] = "shortcut") -> AttackResult:
        """The P-Evaluator's partial-knowledge attack on the version this choice writes: BM25 on
        its tokens (``lexical``), and the semantic linker on its sentences too (``fused``,
        :func:`run_attack`). ``shortcut``: fused only where BM25 alone is beaten; where it is
        not, neither is the stronger attacker (its rank per query is at most BM25's), and
        BM25's rank and weights say so without embedding a sentence."""
        if mode == "lexical" or not self._semantic(batch):
            return run_attack(self.evaluator, batch, task, plan.tokens(choice))
        return run_attack(self.evaluator, batch, task, plan.tokens(choice), plan.sentences(choice),
                          exact=mode == "fused")

    def _prefetch_embeddings(self, plan: Plan, batch: LocalBatch, choices: list[dict[int, str]]) -> None:
        """Embed in one batch the sentences these choices write (MiniLM is several times faster
        per sentence in a batch; the world's cache keeps them for :meth:`_attack`)."""
        if self._semantic(batch):
            self.world.embed(list(dict.fromkeys(s for c in choices for s in plan.sentences(c))))

    def restore(self, plan: Plan, task: Task, batch: LocalBatch) -> list[int]:
        """Undo what the privacy target does not need; returns the units restored or relaxed.
        The policy floor (direct identifiers, policy rungs) is never undone."""
        floor = plan.floor
        changed = []
        undoable = [i for i in plan.order if i not in floor and i in plan.choice and plan.covering(i) is None]
        plan.prefetch([(plan.units[i].sentence, self._undo(plan, i)) for i in undoable])
        self._prefetch_embeddings(plan, batch, [t for i in undoable if task.privacy_met(
            self._attack(plan, task, batch, t := self._undo(plan, i), mode="lexical").rank)])
        for i in reversed(list(plan.order)):
            if i in floor or i not in plan.choice or plan.covering(i) is not None:
                continue
            trial = self._undo(plan, i)
            u = plan.units[i]
            if u.kind == "span" and u.policy is not None and trial.get(i) == plan.choice.get(i):
                continue
            if not plan.parses(u.sentence, trial):
                continue
            if task.profile != "attributes" and not {a for a, _ in self._rare_names(plan, task, batch, u.sentence, trial)} \
                    <= {a for a, _ in self._rare_names(plan, task, batch, u.sentence)}:
                continue  # it hid a name no other record mentions ("a multiple-time WMC World Champion" came back)
            if task.privacy_met(self._attack(plan, task, batch, trial).rank):
                plan.choice = trial
                changed.append(i)
        return changed

    @staticmethod
    def _undo(plan: Plan, i: int) -> dict[int, str]:
        """The choice with unit i's edit undone (a policy rung stays)."""
        trial = {k: v for k, v in plan.choice.items() if k != i}
        if plan.units[i].kind == "span" and plan.units[i].policy is not None:
            trial[i] = plan.units[i].policy
        return trial

    def _edits(self, plan: Plan, units: list[int], operation: str | None = None) -> list[Edit]:
        out = []
        for i in units:
            u = plan.units[i]
            r = plan.choice.get(i)
            before = u.text
            if r is None:
                out.append(Edit(before=before, after=before, operation="restore", reason="not needed for the privacy target"))
                continue
            if u.kind != "span":
                op = "delete"
            else:
                op = operation or ("delete" if r == "" else "obscure" if u.direct and u.span and u.span.type != "PERSON"
                                   else "generalize")
            out.append(Edit(before=before, after=r, operation=op, reason=plan.reasons.get(i, u.reason)))
        return out

    def _plan(self, task: Task, batch: LocalBatch, mode: Mode, clues: frozenset[str]) -> tuple[Plan, list[int]]:
        key = (task.doc_id, hash(task.original), task.p_max, mode, clues, task.profile, tuple(sorted(task.attributes.items())))
        plans = batch.memo["plans"]
        if key not in plans:
            plan = self.privacy_plan(task, batch, clues)
            self._drop_life_dates(plan)  # (again: the attacker's deletions may have bared a bracket)
            self._drop_place_descriptions(plan)  # (and its generalizations left a place's description)
            self._drop_rare_names(plan, task, batch)
            self._drop_stubs(plan, task)
            self._drop_fragments(plan, task)
            self._drop_orphans(plan, task)
            self._drop_dangling(plan, task)
            self._drop_stale_adverbs(plan)
            self._drop_repeated_periods(plan)
            # (again: a period said twice may have been all a sentence had left: "He won a championship in
            # the 2000s." lost its period and said next to nothing)
            self._drop_stubs(plan, task)
            self._drop_orphans(plan, task)
            self._drop_dangling(plan, task)
            if mode == "utility":
                plan.restored = self.restore(plan, task, batch)
                # what came back may point at what stays deleted ("He played only one other match for
                # the club." came back without "He made his debut for Arsenal, but"), or be a sentence the
                # attacker took whole that comes back with its stand-ins and says next to nothing
                restored = {i: plan.choice.get(i) for i in plan.restored}
                self._drop_stubs(plan, task)
                self._drop_orphans(plan, task)
                self._drop_dangling(plan, task)
                plan.restored = [i for i in plan.restored if plan.choice.get(i) == restored[i]]
            self._lone_pseudonyms(plan)  # (after what utility mode brings back: another mention may be among it)
            self._another_across(plan)
            plans[key] = plan
        plan = plans[key]
        return plan, plan.restored

    async def optimize(self, text: str, task: Task, mode: Mode, privacy: PrivacyResult, utility: UtilityResult,
                       memory: list[MemoryEntry], *, batch: Batch | None = None) -> OptimizerResult:
        # one plan per graph iteration: when the P-Evaluator still wins against a version the
        # plan thought safe (a stronger attacker than the plan's own BM25), its clues weigh in
        clues: frozenset[str] = frozenset()
        if mode == "privacy" and text != task.original and not task.privacy_met(privacy.score):
            clues = frozenset(t for c in privacy.clues for t in tokenize(c))
        # the plan is CPU work (parses, attack re-runs): in a worker thread, off the event loop,
        # so that a server keeps answering other requests meanwhile
        plan, restored = await asyncio.to_thread(self._plan, task, local_batch(batch), mode, clues)
        new = plan.render()
        edits = self._edits(plan, plan.order if mode == "privacy" else restored,
                            operation=None if mode == "privacy" else "restore")
        if new.strip() == text.strip():
            return OptimizerResult(text=text, edits=[], rationale=f"no further {mode} edit helps")
        return OptimizerResult(text=new, edits=edits, rationale=f"{len(edits)} edits in {mode} mode")


def _singular(word: str) -> str:
    """A noun as a stand-in's last word and a pointer's noun are compared: no possessive, no plural
    ("teams'", "companies", "classes" -> "team", "company", "clas")."""
    w = re.sub(r"['’]s?$", "", word.strip(".,;:!?\"“”").lower())
    return re.sub(r"ies$", "y", w).rstrip("s")


def _named_for(s: Span, known: list[Span]) -> bool:
    """An organisation named for the person: the known name and words no name has ("Rolf Disch
    Solar Architecture", "Harry Weese Associates"; "Person AQ" was an output)."""
    rest = s.text
    for k in known:
        if s.start <= k.start and k.end <= s.end:
            rest = rest.replace(k.text, " ")
    lex = lexicon()
    return any(w.lower() in lex["nonname"] or w.lower() in lex["org_heads"] for w in re.findall(r"[A-Za-z]+", rest))


def _name_mentions(text: str, name: str | None, spans: list[Span]) -> list[Span]:
    """Mentions of the ground-truth name's parts the span finder missed ("Kurt", "Fishback")."""
    if not name:
        return []
    out = []
    parts = [p for p in re.findall(r"[A-Z][\w'-]+", name) if len(p) > 2]
    if parts:
        # a nickname in brackets inside the name ("Madhulika (Lika) Guhathakurta"): "Lika was
        # previously the program scientist" is the subject too
        nick = re.search(rf"\b{re.escape(parts[0])}\s+\(([A-Z][\w'-]{{2,}})\)", text)
        if nick and nick.group(1) not in parts:
            parts.append(nick.group(1))
    # the name's own particles before a part ("de Groot" of "Jan de Groot": "In 1950 de he came" was an output)
    particles = "|".join(re.escape(w) for w in re.findall(rf"(?<!\S){NAME_PARTICLE}(?=\s)", name))
    for p in parts:
        lead = rf"(?:(?:{particles})\s+)*" if particles else ""
        for m in re.finditer(rf"(?<!\w){lead}{re.escape(p)}(?!\w)", text):
            out.append(Span(m.start(), m.end(), m.group(0), "PERSON", 0.9, "ground-truth name", {}))
    # "Margarethe" + "Vollrath" side by side are one mention of one person, and so are "Blake" +
    # "Austin" + "Griffin" (middle names, initials or a quoted nickname between: literal.NAME_GAP)
    merged: list[Span] = []
    for s in sorted(out, key=lambda s: s.start):
        if merged and s.start >= merged[-1].end and (not text[merged[-1].end:s.start].strip()
                                                     or NAME_GAP.fullmatch(text[merged[-1].end:s.start])):
            p = merged[-1]
            merged[-1] = Span(p.start, s.end, text[p.start:s.end], "PERSON", 0.9, "ground-truth name", {})
        else:
            merged.append(s)
    # what a person span already covers stays that span ("Griffin" found by the NER is still
    # joined with "Blake" before it: "Blake Austin Griffin" is one mention, not "Person A Austin he")
    return [m for m in merged if not any(s.type == "PERSON" and s.start <= m.start and m.end <= s.end for s in spans)]


__all__ = ["LocalOptimizer", "Plan", "Unit", "analyse", "tidy", "sentence_ok"]
