"""Guards on what a model writes (issues 9 and 12): the checks an optimizer answer must pass
before it becomes a version of the text. RUPTA's rule, "never invent facts", is enforced here in
code, not only in the prompt.

:func:`optimizer_answer_problem` returns the reason an answer is rejected, or None:

- empty;
- an echo of the prompt template or the instructions ("improved version", "{json_string}",
  the schema's field names, the prompt's own headings), or markup and JSON fragments ("<pre>{");
- fewer than 5 words left of a longer text;
- a copy with no edit (privacy mode), or a return to the original's wording that undoes edits;
- more than 1.3x the length of its input; in utility mode, less than 20% of it;
- not in the original's language (:func:`veil.nlp.is_english`);
- named entities absent from the original (spaCy NER of :mod:`veil.nlp`), except a truthful
  generalization of a place the original names ("Sacramento" -> "California", its country,
  its continent);
- numbers the original does not support (a decade, a century or a rounding of an original
  number is supported: 1933 -> "the 1930s", "the 20th century"; 212 -> "over 200");
- edit lists stuck in a loop (the same item over and over).

Reasons name the guard and counts, never the text.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from veil.llm import repeated_items
from veil.matching import fold, tokens

MAX_GROWTH = 1.3
MIN_KEEP_UTILITY = 0.2
MIN_WORDS = 5  # an answer shorter than this is no version of a text of this many words or more
_WORDS = re.compile(r"[^\W\d_]{2,}")
_MARKUP = re.compile(r"[{}]|</?[a-zA-Z][a-zA-Z0-9]*(?:\s[^<>]*)?>|```")

_ECHO = re.compile(
    r"improved version|json_string|\{[a-z_]{2,30}\}|</?text>|PRIVACY MODE|UTILITY MODE|Current text:|"
    r"Current scores:|Earlier versions and their scores|What the attacker used|Write the improved|"
    r"Attacker's clues:|Earlier versions \(oldest first\)|edits to the current text:|"
    r"Answer in JSON|The original text|original text was|\"(?:text|edits|rationale|before|after|operation|reason)\"\s*:|"
    r"\b(?:rationale|edits)\s*:",
    re.I,
)
# entity labels whose appearance would be a new fact (numbers are checked separately)
_CHECKED = {"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "EVENT", "WORK_OF_ART", "PRODUCT", "LAW", "LANGUAGE"}
_CONTINENT_ADJ = {"european", "asian", "african", "north american", "south american", "latin american", "oceanian",
                  "australasian", "middle eastern", "caribbean", "scandinavian", "nordic", "western", "eastern",
                  "central american", "central european", "eastern european", "western european", "southern european",
                  "northern european", "east asian", "south asian", "southeast asian"}
_SENT = re.compile(r"(?<=[.!?])\s+")


def _norm(text: str) -> str:
    return " ".join(text.split())


@lru_cache(maxsize=256)
def _entities(text: str) -> tuple[tuple[str, str], ...]:
    from veil.nlp import parse

    return tuple((e.label_, e.text) for e in parse(text).ents)


@lru_cache(maxsize=4096)
def _place(name: str) -> dict | None:
    try:
        from veil.agents.local.spans import place_info
    except Exception:  # noqa: BLE001 - no gazetteer: no generalization is recognised
        return None
    return place_info(re.sub(r"^(?:the|a|an)\s+", "", name.strip(), flags=re.I))


def _generalizes_a_place(new: str, originals: list[str]) -> bool:
    """``new`` is a region, country or continent that contains a place of the original."""
    n = _place(new)
    if not n:
        return False
    for o in originals:
        info = _place(o)
        if not info:
            continue
        if n["kind"] == "admin1" and info.get("admin1") and fold(info["admin1"]) == fold(n.get("admin1") or n["name"]):
            return True
        if n["kind"] == "country" and n.get("country_code") and info.get("country_code") == n["country_code"]:
            return True
        if n["kind"] == "continent" and n.get("continent") and info.get("continent") == n["continent"]:
            return True
    return False


def _supported(token: str, orig_tokens: set[str], *, derived: bool = True) -> bool:
    """In the original, or (``derived``) a form derived from one of its words: "Californian"
    from "California", "Swedish" from "Sweden" (the word's stem, all but its last 3 letters
    and at least 4, begins the token)."""
    if token in orig_tokens or token.isdigit():
        return True
    return derived and len(token) >= 5 and any(
        len(o) >= 5 and token.startswith(o[: max(4, len(o) - 3)]) for o in orig_tokens)


def new_entities(answer: str, original: str) -> list[str]:
    """Labels of the named entities of ``answer`` that the original does not contain (a word of
    theirs neither in it nor derived from one of its words) and that generalize none of its places."""
    orig_tokens = set(tokens(original))
    places = [t for label, t in _entities(original) if label in ("GPE", "LOC", "FAC")]
    out = []
    for label, text in _entities(answer):
        if label not in _CHECKED:
            continue
        toks = [t for t in tokens(text) if len(t) > 1]
        if not toks or all(_supported(t, orig_tokens, derived=label != "PERSON") for t in toks):
            continue
        if label in ("GPE", "LOC") and _generalizes_a_place(text, places):
            continue
        if label == "NORP" and fold(text) in _CONTINENT_ADJ:
            continue
        out.append(label)
    return out


def invented_numbers(answer: str, original: str) -> int:
    """How many numbers of ``answer`` the original does not support."""
    orig = [n for n in re.findall(r"\d+", original)]
    orig_set = set(orig)
    bad = 0
    for m in re.finditer(r"(\d+)(s|st|nd|rd|th)?\b", answer):
        num, suffix = m.group(1), (m.group(2) or "").lower()
        if num in orig_set:
            continue
        value = int(num)
        if suffix == "s" or num.endswith("0"):  # a decade or a rounding: "1930s", "over 200"
            zeros = len(num) - len(num.rstrip("0"))
            unit = 10 ** max(1, zeros)
            if any(len(o) == len(num) and abs(int(o) - value) < unit for o in orig):
                continue
        if suffix in ("st", "nd", "rd", "th") and any(len(o) == 4 and int(o) // 100 + 1 == value for o in orig):
            continue  # "the 20th century"
        bad += 1
    return bad


def _reverts(answer: str, given: str, original: str) -> bool:
    """Every sentence of the answer is the original's own wording, and some of them are not in
    the text it was asked to edit: edits made earlier (or names removed) are undone."""
    if _norm(given) == _norm(original):
        return False
    sents = [fold(s) for s in _SENT.split(answer.strip()) if s.strip()]
    fo, fg = fold(original), fold(given)
    return bool(sents) and all(s in fo for s in sents) and any(s not in fg for s in sents)


def optimizer_answer_problem(answer_text: str, *, given: str, original: str, mode: str,
                             answer: dict[str, Any] | None = None) -> str | None:
    """Why an optimizer answer must be rejected, or None. ``given`` is the text the optimizer was
    asked to edit, ``original`` the untouched document."""
    text = answer_text.strip()
    if not text:
        return "empty answer"
    echo = _ECHO.search(text)
    if echo and not _ECHO.search(original):
        return "echoes the prompt template or its instructions"
    if _MARKUP.search(text) and not _MARKUP.search(original):
        return "markup or JSON fragments instead of prose"
    if len(text) > MAX_GROWTH * len(given) + 20:
        return f"more than {MAX_GROWTH}x the input's length ({len(text)} vs {len(given)} characters)"
    if mode == "utility" and len(text) < MIN_KEEP_UTILITY * len(given):
        return f"drops more than {100 - MIN_KEEP_UTILITY * 100:.0f}% of the text in utility mode"
    if len(_WORDS.findall(text)) < MIN_WORDS <= len(_WORDS.findall(given)):
        return f"fewer than {MIN_WORDS} words left of a {len(_WORDS.findall(given))}-word text"
    if mode == "privacy" and _norm(text) == _norm(given):
        return "a copy of its input with no edit"
    if _reverts(text, given, original):
        return "a copy of the original's wording that undoes earlier edits"
    if answer is not None and (where := repeated_items(answer.get("edits", []))):
        return f"repeated edit items ({where.split(': ', 1)[-1]})"
    from veil.nlp import is_english

    if is_english(original) and not is_english(text):
        return "not in the original's language"
    labels = new_entities(text, original)
    if labels:
        return f"adds {len(labels)} named entit{'y' if len(labels) == 1 else 'ies'} absent from the original " \
               f"({', '.join(sorted(set(labels)))})"
    n = invented_numbers(text, original)
    if n:
        return f"adds {n} number{'s' if n > 1 else ''} the original does not support"
    return None


__all__ = ["invented_numbers", "new_entities", "optimizer_answer_problem"]
