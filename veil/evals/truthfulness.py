"""The truthfulness checker: every content word a sanitized text adds to its original must be
something a truthful generalization can bring in: a rung of a generalization ladder (a region,
a country, a continent, a decade, a range, an organisation's kind), a pronoun the original
already uses, a pseudonym ("Person C") or a placeholder ("[phone]"). Never the task's label,
and never a word from elsewhere.

Words are compared as the project's one tokenizer sees them (:func:`veil.agents.local.retrieval.
tokenize`: lower case, Porter stems, stop words out), so inflection and function words the
grammar needs ("in", "the") are not counted. What a ladder can say is built from the same
lexicons and gazetteer the ladders are built from (:func:`generalization_vocabulary`).

It cannot tell that a wrong rung was picked ("an award" for a prize the gazetteer mistook);
it tells that no word came from nowhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from veil.agents.local.generalize import PSEUDONYM as _PSEUDONYM
from veil.agents.local.retrieval import tokenize
from veil.agents.local.spans import (_MONTH, LIFE_ABBREVIATED, LIFE_BRACKET, RE_DAY_MONTH_NUMERIC, RE_NUMERIC_DATE,
                                     RE_NUMERIC_DATE_SHORT, RECORD_WORDS, _month_num, full_year, month_name,
                                     numeric_month)

_PLACEHOLDER = re.compile(r"\[[a-z ]+\]")

# words of the ladders that are not in the lexicons: dates, ranges, generic kinds, placeholders
_FIXED = """
the a an in of early mid late century centuries decade decades 1st 2nd 3rd 4th 5th 6th 7th 8th 9th 10th 11th 12th
13th 14th 15th 16th 17th 18th 19th 20th 21st first second third half over under more than fewer about around
some several many multiple end start dozen dozens hundred hundreds thousand thousands million millions billion billions ten tens
twenties thirties forties fifties sixties seventies eighties nineties teens adult child young old older year years
few couple number numbers sum money amount place places country countries region person people organization organizations
institution institutions event events award awards prize prizes title titles work works product products law
two three four five six seven eight nine figure themselves teenager teenagers something large dollars dollar pounds pound euros euro yen francs rupees
date dates day days month months season seasons city cities continent id email phone url redacted address he she him her his hers they them their theirs
top world childhood adolescence adulthood horse
another someone opponent
"""  # ("another": the determiner of a second kind phrase that stands for a different name; "someone", "an
# opponent": what stands for a person the text names once, see veil.agents.local.optimizer._person_stand_in)


@lru_cache(maxsize=1)
def generalization_vocabulary() -> frozenset[str]:
    """Stems of every word a generalization ladder can produce."""
    from veil.agents.local.spans import gazetteer, lexicon

    words: list[str] = _FIXED.split() + RECORD_WORDS.split()
    lex = lexicon()

    def walk(x) -> None:
        if isinstance(x, str):
            words.extend(re.findall(r"[^\W_]+", x))
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, (list, tuple, set)):
            for v in x:
                walk(v)

    for key in ("org_heads", "org_modifiers", "acronyms", "team_nicknames", "awards", "events", "titles",
                "continent_adjectives", "gendered", "name_kinds"):
        walk(lex.get(key))
    from veil.agents.local.policy import CEREMONY, FORMULA_LADDER, HORSE, SLOT_KINDS

    walk(FORMULA_LADDER)
    walk(CEREMONY)  # ("hosted a major film award ceremony")
    walk(SLOT_KINDS)
    walk(HORSE)
    g = gazetteer()
    for c in g.country_by_code.values():
        words.extend(re.findall(r"[^\W_]+", c.get("name", "")))
    for st in g.state_codes.values():
        words.extend(re.findall(r"[^\W_]+", st.get("name", "")))
    walk(lex.get("admin1"))
    words += ["north", "south", "east", "west", "america", "africa", "asia", "europe", "oceania", "antarctica",
              "united", "states", "kingdom", "state"]
    return frozenset(tokenize(" ".join(words)))


def _rounded(token: str, numbers: list[int]) -> bool:
    """Is ``token`` a number of the original rounded down ("1940" of 1942, "30" of 34, "2000")?"""
    if not token.isdigit():
        return False
    d = int(token)
    for n in numbers:
        k = 10
        while k <= max(10, n):
            if d == n - n % k:
                return True
            k *= 10
    return False


@dataclass
class TruthReport:
    added: list[str] = field(default_factory=list)  # stems new to the original
    violations: list[str] = field(default_factory=list)  # added stems no generalization explains
    label_injections: list[str] = field(default_factory=list)  # added stems of the task's label

    @property
    def ok(self) -> bool:
        return not self.violations and not self.label_injections


def check(original: str, sanitized: str, *, label: str | None = None) -> TruthReport:
    """What ``sanitized`` adds to ``original`` and which of it no truthful generalization explains."""
    text = _PLACEHOLDER.sub(" ", _PSEUDONYM.sub(" ", sanitized or ""))
    have = set(tokenize(original or ""))
    added = sorted({t for t in tokenize(text) if t not in have})
    vocab = generalization_vocabulary()
    if LIFE_ABBREVIATED.search(original or "") or LIFE_BRACKET.search(original or ""):
        # (its ladder spells "d." out: "died in the 1780s"; a bracket's second date is the death's)
        vocab = vocab | set(tokenize("born died active"))
    label_stems = set(tokenize(label)) if label else set()
    numbers = [int(n) for n in re.findall(r"\d+", original or "") if len(n) <= 9]
    # what the span finder reads in the original's short forms: a two-digit year ("14/02/24": the 2020s) and an
    # abbreviated month ("Tue 5 Sept": September)
    numbers += [full_year(int(m.group("yy"))) for m in RE_NUMERIC_DATE_SHORT.finditer(original or "")]
    months = {_month_num(m.group(0)) for m in re.finditer(_MONTH, original or "")}
    months |= {numeric_month(int(m.group("a")), int(m.group("b"))) for rx in (RE_DAY_MONTH_NUMERIC, RE_NUMERIC_DATE,
                                                                              RE_NUMERIC_DATE_SHORT)
               for m in rx.finditer(original or "")}  # ("on 11/14": November)
    spelled = {t for n in months if n for t in tokenize(month_name(n))}
    added = [t for t in added if t not in spelled]
    # a bound above an original number: "in the top 500" of "ranked no. 275"
    bounds = {m for m in re.findall(r"\btop (\d+)\b", text) if any(n <= int(m) for n in numbers)}
    return TruthReport(
        added=added,
        violations=[t for t in added if t not in vocab and t not in label_stems and not _rounded(t, numbers)
                    and t not in bounds],
        label_injections=[t for t in added if t in label_stems],
    )


def summarize(originals: list[str], sanitized: list[str], labels: list[str] | None = None) -> dict:
    """Counts over a corpus: records with a violation, violating words in all."""
    reports = [check(o, s, label=(labels[i] if labels else None)) for i, (o, s) in enumerate(zip(originals, sanitized))]
    return {
        "records_with_violations": sum(not r.ok for r in reports),
        "violating_words": sum(len(r.violations) + len(r.label_injections) for r in reports),
        "label_injections": sum(len(r.label_injections) for r in reports),
    }


__all__ = ["TruthReport", "check", "generalization_vocabulary", "summarize"]
