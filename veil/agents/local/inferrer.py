"""Local adversarial inferrer: Staab-style attribute guesses from the span finder's findings
and a few patterns, each with top-3 guesses, certainty 1–5 and the evidence span. Weaker than
an LLM, but it is an honest lower bound of what leaks and it names its evidence."""

from __future__ import annotations

import asyncio
import re
from collections import Counter

from veil.agents.base import AttributeInference, AttributeInferrer, InferenceResult, Task
from veil.agents.batch import Batch
from veil.agents.local.spans import find_spans

_BORN = re.compile(r"\bborn\b[^.]{0,40}?\bin\s+([A-Z][\w .,'-]{2,40}?)(?=\s+(?:in|on)\b|[.;]|,\s+(?:in|on)\b)")
_BORN_YEAR = re.compile(r"\bborn\b[^.]{0,60}?\b(1[89]\d\d|20[0-2]\d)\b")
_OCC = re.compile(r"\b(?:is|was|works as|worked as)\s+(?:an?|the)\s+((?:[A-Za-z-]+\s+){0,2}?[a-z]+(?:er|or|ist|ian|ant|ent|man|woman|player|designer|artist|chef|trainer))\b")
_MARRIED = re.compile(r"\b(wife|husband|married|spouse|widow(?:er)?|divorced|engaged|girlfriend|boyfriend|partner)\b", re.I)
_DEGREE = re.compile(r"\b(Ph\.?\s?D|doctorate|master'?s|M\.?A\.|MFA|Master of|bachelor'?s|B\.?A\.|graduated|university|college|high school)\b", re.I)
CURRENT_YEAR = 2026


def _cert(n: int) -> int:
    return max(1, min(5, 1 + n))


class LocalAttributeInferrer(AttributeInferrer):
    engine = "local"

    async def infer(self, text: str, task: Task, *, batch: Batch | None = None) -> InferenceResult:
        # CPU work (a parse): in a worker thread, off the event loop
        return InferenceResult(inferences=await asyncio.to_thread(infer_attributes, text))


# attributes whose value a text can state word for word ("Zurich", "software engineer")
LITERAL_ATTRIBUTES = ("city_country", "birth_city_country", "location", "place_of_birth", "occupation", "education")


def attribute_needles(attributes: dict[str, str]) -> dict[str, str]:
    """The words of each true attribute value a text would state: the first part of a place
    ("Zurich" of "Zurich, Switzerland"), the whole phrase otherwise (at least 4 characters)."""
    out = {}
    for f in LITERAL_ATTRIBUTES:
        v = str(attributes.get(f) or "").strip()
        needle = v.split(",")[0].strip() if f in ("city_country", "birth_city_country", "location", "place_of_birth") else v
        if len(needle) > 3:
            out[f] = needle
    return out


def literal_attributes(text: str, attributes: dict[str, str]) -> list[str]:
    """The attributes whose true value the text still states word for word."""
    low = text.lower()
    return [f for f, n in attribute_needles(attributes).items()
            if re.search(rf"(?<!\w){re.escape(n.lower())}(?!\w)", low)]


def infer_attributes(text: str) -> list[AttributeInference]:
    spans = find_spans(text)
    out: list[AttributeInference] = []
    genders = Counter(s.meta.get("gender") for s in spans if s.type == "GENDERED" and s.meta.get("gender"))
    if genders:
        best = genders.most_common()
        guesses = [g for g, _ in best] + [g for g in ("male", "female") if g not in genders]
        out.append(AttributeInference(attribute="sex", guesses=guesses[:2], certainty=_cert(best[0][1]),
                                      evidence=f"{best[0][1]} gendered words"))
    places = Counter(s.text for s in spans if s.type == "LOCATION")
    if places:
        top = [p for p, _ in places.most_common(3)]
        out.append(AttributeInference(attribute="location", guesses=top, certainty=_cert(places[top[0]]),
                                      evidence=f"mentions of {len(places)} places"))
    m = _BORN.search(text)
    if m:
        out.append(AttributeInference(attribute="place_of_birth", guesses=[m.group(1).strip(" ,")], certainty=5,
                                      evidence="a 'born in' statement"))
    ages = [s for s in spans if s.type == "AGE"]
    y = _BORN_YEAR.search(text)
    if y:
        age = CURRENT_YEAR - int(y.group(1))
        out.append(AttributeInference(attribute="age", guesses=[str(age), str(age - 5), str(age + 5)], certainty=4,
                                      evidence="a birth year"))
    elif ages:
        out.append(AttributeInference(attribute="age", guesses=[ages[0].text], certainty=3, evidence="an age"))
    o = _OCC.search(text)
    if o:
        out.append(AttributeInference(attribute="occupation", guesses=[o.group(1).strip()], certainty=4,
                                      evidence="an 'is a …' statement"))
    rel = _MARRIED.findall(text)
    if rel:
        word = rel[0].lower()
        status = {"divorced": "divorced", "engaged": "engaged", "widow": "widowed", "widower": "widowed",
                  "girlfriend": "in a relationship", "boyfriend": "in a relationship", "partner": "in a relationship"}
        out.append(AttributeInference(attribute="relationship_status", guesses=[status.get(word, "married")],
                                      certainty=3, evidence=f"the word '{word}'"))
    deg = [d.lower() for d in _DEGREE.findall(text)]
    if deg:
        level = ("PhD" if any(d.startswith(("ph", "doct")) for d in deg)
                 else "Masters" if any(d.startswith(("master", "m.a", "mfa")) for d in deg)
                 else "Bachelors" if any(d.startswith(("bachelor", "b.a", "grad", "univ", "coll")) for d in deg)
                 else "High School")
        out.append(AttributeInference(attribute="education", guesses=[level], certainty=3,
                                      evidence="degree or institution words"))
    return out
