"""Truthful generalization ladders for the spans of :mod:`veil.agents.local.spans` (INTACT's
candidates, without an LLM) and the substitution that applies the chosen ones.

:func:`candidates` lists replacements of a span from the most specific to the most general;
every rung is implied by the original ("3 May 1961" -> "May 1961" -> "1961" -> "the early
1960s" -> "the 1960s" -> "the 20th century"), never a made-up fact, and the span's own text
is never a rung. Deleting the span is not a rung either: the optimizer decides that.

Conventions the optimizer relies on:

- a rung replaces the span's text only, so rungs are phrased to fit where the span stood:
  "in 1942" -> "in the early 1940s"; "on 3 May 1961" (the span includes "on") -> "in May 1961";
  "born 1942" -> "born in the early 1940s"; "the 1927 season" -> "the late-1920s season";
  "aged 34" -> "in their thirties"; "over 250 works" -> "hundreds of works";
- articles are settled by :func:`apply`: a rung that brings its own article ("a college")
  replaces a determiner right before the span ("at the Sacramento City College" -> "at a
  community college"), "a"/"an" are fixed to the next word, and sentence starts capitalised;
- nationality adjectives only go up to the continent's adjective ("American" -> "North
  American"): there is no neutral adjective that still reads, so the optimizer deletes them
  when that is not enough;
- pronouns become singular "they" and a following simple verb agrees ("he was" -> "they
  were", "he teaches" -> "they teach"); the span finder includes that verb in the span;
- honorifics ("Mr.") generalize to the empty string (dropped); names are pseudonymised by a
  :class:`PseudonymTable` shared by the whole batch;
- contact details and identifiers have no truthful generalization: "[email]", "[phone]"...;
- other proper nouns (type PROPER) have no known generalization: [] (delete or keep).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from veil.agents.local.spans import HONORIFICS, NAME_TITLES, Span, fold, gazetteer, lexicon, _takes_the, place_info

GENERAL = {
    "PERSON": "a person", "DATE": "a date", "YEAR": "a year", "DECADE": "a decade", "AGE": "an adult",
    "NUMBER": "a number", "MONEY": "a sum of money", "LOCATION": "a place", "ORG": "an organization",
    "TITLE": "a title", "AWARD": "an award", "EVENT": "an event", "WORK": "a work", "PRODUCT": "a product",
}
PLACEHOLDERS = {"EMAIL": "[email]", "PHONE": "[phone]", "URL": "[url]", "ID": "[id]", "ADDRESS": "[address]", "DENY": "[redacted]"}


# ------------------------------------------------------------------------------------------
# pseudonyms
# ------------------------------------------------------------------------------------------
# honorifics before a name ("Mr.", "Dr"), matched at its start: the span finder's one list
# (spans.HONORIFICS); TITLES also the ranks and offices (spans.NAME_TITLES: "Ambassador Mulford")
def _words_before_a_name(words: set[str]) -> re.Pattern:
    alternatives = sorted({re.escape(w.rstrip(".")) for w in words}, key=len, reverse=True)
    return re.compile(r"^(?:(?:" + "|".join(alternatives) + r")\.?\s+)+", re.I)


_HONORIFIC = _words_before_a_name(HONORIFICS | {"miss"})
TITLES = _words_before_a_name(HONORIFICS | NAME_TITLES)
_NAME_STOP = frozenset("the a an of de la le von van der den du di da del della y jr sr ii iii".split())
HONORIFIC = _HONORIFIC  # honorifics before a name ("Mr.", "Dr"), matched at its start


def _name_tokens(name: str) -> list[str]:
    name = re.sub(r"['’]s$", "", name.strip())
    name = _HONORIFIC.sub("", name)
    toks = [t for t in re.findall(r"[^\W\d_][\w'-]*", fold(name))]
    toks = [t for t in toks if t not in _NAME_STOP and len(t) > 1]
    return toks


PSEUDONYM = re.compile(r"\bPerson [A-Z]{1,3}\b")  # what PseudonymTable writes (its default prefix)


def _label(i: int) -> str:
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(65 + r) + s
    return s


class PseudonymTable:
    """Consistent replacements for persons across a batch.

    Every distinct person gets a placeholder ("Person A", "Person B"... in order of first
    appearance). A full name maps to the same placeholder in every document; a partial mention
    ("Kurt", "Mr. Fishback") maps to the person of the same document whose name contains it
    (surname first, then given name, then the person seen first), and a partial mention seen
    before the full name is merged into the full name's entry when that arrives. With a role
    ("photographer"), the first person of a document (a biography's subject) is "the
    photographer" instead. Picklable and JSON-serialisable (:meth:`to_dict` / :meth:`from_dict`).
    """

    def __init__(self, prefix: str = "Person"):
        self.prefix = prefix
        self.entries: list[dict[str, Any]] = []  # {"label", "tokens", "names", "docs"}
        self.by_name: dict[str, int] = {}  # folded full name (2+ tokens) -> entry
        self.doc_entries: dict[str, list[int]] = {}  # doc id -> entries in order of appearance
        self.doc_partials: dict[str, dict[str, int]] = {}  # doc id -> partial mention -> entry
        self._lock = threading.RLock()

    # -- persistence -----------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        with self._lock:
            return {
                "prefix": self.prefix,
                "entries": [{"label": e["label"], "tokens": list(e["tokens"]), "names": sorted(e["names"]),
                             "docs": sorted(e["docs"])} for e in self.entries],
                "by_name": dict(self.by_name),
                "doc_entries": {k: list(v) for k, v in self.doc_entries.items()},
                "doc_partials": {k: dict(v) for k, v in self.doc_partials.items()},
            }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "PseudonymTable":
        t = cls(prefix=data.get("prefix", "Person"))
        t.entries = [{"label": e["label"], "tokens": list(e["tokens"]), "names": set(e["names"]),
                      "docs": set(e["docs"])} for e in data.get("entries", [])]
        t.by_name = {k: int(v) for k, v in data.get("by_name", {}).items()}
        t.doc_entries = {k: [int(x) for x in v] for k, v in data.get("doc_entries", {}).items()}
        t.doc_partials = {k: {n: int(x) for n, x in v.items()} for k, v in data.get("doc_partials", {}).items()}
        return t

    def __getstate__(self) -> dict[str, Any]:
        return self.to_dict()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(PseudonymTable.from_dict(state).__dict__)

    def __len__(self) -> int:
        return len(self.entries)

    # -- lookup ----------------------------------------------------------------------------
    def _new(self, tokens: list[str], name: str, doc: str) -> int:
        idx = len(self.entries)
        self.entries.append({"label": f"{self.prefix} {_label(idx)}", "tokens": tokens, "names": {fold(name)},
                             "docs": {doc}})
        return idx

    def _attach(self, idx: int, doc: str) -> int:
        self.entries[idx]["docs"].add(doc)
        lst = self.doc_entries.setdefault(doc, [])
        if idx not in lst:
            lst.append(idx)
        return idx

    def resolve(self, name: str, doc_id: str | None = None) -> int | None:
        """Index of the person ``name`` refers to (created when new); None for an empty name."""
        doc = doc_id if doc_id is not None else ""
        toks = _name_tokens(name)
        if not toks:
            return None
        key = " ".join(toks)
        with self._lock:
            in_doc = self.doc_entries.get(doc, [])
            if len(toks) >= 2:
                if key in self.by_name:
                    return self._attach(self.by_name[key], doc)
                # a longer or shorter form of a person of this document ("Kurt Fishback")
                for idx in in_doc:
                    et = self.entries[idx]["tokens"]
                    if len(et) >= 2 and set(toks) <= set(et) and (toks[-1] == et[-1] or toks == et[:len(toks)]):
                        # (or its first names: "Taher Mohamed" of "Taher Mohamed Ahmed Taher")
                        self.by_name[key] = idx
                        self.entries[idx]["names"].add(fold(name))
                        return idx
                # partial mentions seen earlier in this document become this person
                partials = self.doc_partials.get(doc, {})
                merged = None
                for p, idx in list(partials.items()):
                    if p in toks and len(self.entries[idx]["tokens"]) == 1:
                        merged = idx if merged is None else merged
                if merged is not None:
                    self.entries[merged]["tokens"] = toks
                    self.entries[merged]["names"].add(fold(name))
                    self.by_name[key] = merged
                    return self._attach(merged, doc)
                idx = self._new(toks, name, doc)
                self.by_name[key] = idx
                return self._attach(idx, doc)
            tok = toks[0]
            partials = self.doc_partials.setdefault(doc, {})
            if tok in partials:
                return self._attach(partials[tok], doc)
            best = None
            for rank_fn in (lambda et: et[-1] == tok, lambda et: et[0] == tok, lambda et: tok in et):
                for idx in in_doc:
                    et = self.entries[idx]["tokens"]
                    if len(et) >= 2 and rank_fn(et):
                        best = idx
                        break
                if best is not None:
                    break
            if best is None and not doc:
                hits = [i for i, e in enumerate(self.entries) if tok in e["tokens"]]
                best = hits[0] if len(set(hits)) == 1 else None
            if best is None:
                best = self._new([tok], name, doc)
            partials[tok] = best
            self.entries[best]["names"].add(fold(name))
            return self._attach(best, doc)

    def names(self, idx: int) -> list[str]:
        """The folded names entry ``idx`` was met under, sorted (a copy: another worker may add one)."""
        with self._lock:
            return sorted(self.entries[idx]["names"])

    def placeholder(self, name: str, doc_id: str | None = None) -> str:
        idx = self.resolve(name, doc_id)
        return self.entries[idx]["label"] if idx is not None else "a person"

    def is_subject(self, name: str, doc_id: str | None = None) -> bool:
        """Is ``name`` the first person of the document (a biography's subject)?"""
        idx = self.resolve(name, doc_id)
        lst = self.doc_entries.get(doc_id if doc_id is not None else "", [])
        return idx is not None and bool(lst) and lst[0] == idx

    def replacement(self, name: str, doc_id: str | None = None, role: str | None = None) -> str:
        """The replacement of a mention: "the <role>" for the document's subject when a role is
        known, else the person's placeholder."""
        if role and self.is_subject(name, doc_id):
            return role_noun(role)
        return self.placeholder(name, doc_id)


def role_noun(role: str) -> str:
    role = role.strip().lower().replace("_", " ")
    role = re.sub(r"^(?:an?|the)\s+", "", role)
    return f"the {role}"


# ------------------------------------------------------------------------------------------
# context
# ------------------------------------------------------------------------------------------
@dataclass
class GeneralizeContext:
    doc_id: str | None = None
    pseudonyms: PseudonymTable = field(default_factory=PseudonymTable)
    role: str | None = None
    allow: set[str] = field(default_factory=set)
    deny: set[str] = field(default_factory=set)
    # does another document of the batch write one of these names (LocalBatch.named_in_another_document)
    named_elsewhere: Callable[[list[str]], bool] | None = None

    def __post_init__(self) -> None:
        if self.pseudonyms is None:
            self.pseudonyms = PseudonymTable()
        self.allow = set(self.allow or ())
        self.deny = set(self.deny or ())

    def allowed(self, text: str) -> bool:
        return fold(text) in {fold(a) for a in self.allow if a}

    def denied(self, text: str) -> bool:
        return fold(text) in {fold(d) for d in self.deny if d}


# ------------------------------------------------------------------------------------------
# ladders
# ------------------------------------------------------------------------------------------
def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _century(year: int) -> int:
    return (year - 1) // 100 + 1


def _part(offset: int, size: int) -> str:
    third = size / 3
    return "early" if offset < third else ("mid" if offset < 2 * third else "late")


def year_ladder(year: int, *, attributive: bool = False) -> list[str]:
    decade = year - year % 10
    c = _century(year)
    part = _part(year - decade, 10)
    cpart = _part((year - 1) % 100, 100)
    if year % 100 == 0:
        # 2000 is the 20th century's last year, and "the late 20th century" reads as the 1990s ("He won a
        # competition in the late 20th century" of 2000 misled a blind reader): no century rung, the decade
        # stands for the wider ones (the attacker that wants more takes the phrase)
        return [f"early-{decade}s", f"{decade}s", f"{decade}s", f"{decade}s"] if attributive else \
            [f"the early {decade}s", f"the {decade}s", f"the {decade}s", f"the {decade}s"]
    if attributive:
        return [f"{part}-{decade}s", f"{decade}s", f"{cpart}-{_ordinal(c)}-century", f"{_ordinal(c)}-century"]
    mid = f"the {cpart}-{_ordinal(c)} century" if cpart == "mid" else f"the {cpart} {_ordinal(c)} century"
    return [f"the {part} {decade}s" if part != "mid" else f"the mid-{decade}s", f"the {decade}s", mid, f"the {_ordinal(c)} century"]


def _date_ladder(span: Span) -> list[str]:
    m = span.meta
    months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
              "November", "December"]
    out: list[str] = []
    gran = m.get("granularity")
    after_born = m.get("after_born")
    on = m.get("on")
    if gran == "day_no_year":
        mon = months[m["month"] - 1]
        return [f"in {mon}" if on else mon, "on a date" if on else "a date"]
    year = m.get("year")
    if year is None:
        return [GENERAL["DATE"]]
    if gran == "day":
        mon = months[m["month"] - 1]
        out.append(f"in {mon} {year}" if on else f"{mon} {year}")
    if gran in ("day", "month"):
        out.append(f"in {year}" if (on or after_born) else str(year))
    rest = year_ladder(year)
    if on or after_born:
        rest = [f"in {r}" for r in rest]
    return out + rest


def _year_span_ladder(span: Span) -> list[str]:
    m = span.meta
    if "year_end" in m:
        a, b = m["year"], m["year_end"]
        da, db = a - a % 10, b - b % 10
        ca, cb = _century(a), _century(b)
        out = []
        if m.get("between"):  # the span holds its "between": "between 1990 and 1996"
            out.append(f"in the {da}s" if da == db else f"between the {da}s and the {db}s")
            out.append(f"in the {_ordinal(ca)} century" if ca == cb else
                       f"between the {_ordinal(ca)} and the {_ordinal(cb)} centuries")
            return out
        if m.get("from"):  # the span holds its "from": "from 1940 to 1942"
            out.append(f"in the {da}s" if da == db else f"from the {da}s to the {db}s")
            out.append(f"in the {_ordinal(ca)} century" if ca == cb else
                       f"from the {_ordinal(ca)} to the {_ordinal(cb)} century")
            return out
        if da == db:
            out.append(f"the {da}s")
        elif db - da == 10:
            out.append(f"the {da}s and {db}s")
        else:
            out.append(f"the {da}s to the {db}s")
        out.append(f"the {_ordinal(ca)} century" if ca == cb else f"the {_ordinal(ca)} and {_ordinal(cb)} centuries")
        return out
    ladder = year_ladder(m["year"], attributive=bool(m.get("attributive")))
    if m.get("life"):  # the span holds its "d.": "d. 1784" -> "died in the 1780s"
        return [f"{m['life']} in {r}" for r in ladder]
    if m.get("after_born"):
        ladder = [f"in {r}" for r in ladder]
    return ladder


def _decade_ladder(span: Span) -> list[str]:
    m = span.meta
    d = m["decade"]
    c = _century(d + 1)
    attributive = m.get("attributive")
    out = []
    if m.get("modifier"):
        out.append(f"{d}s" if attributive else f"the {d}s")
    cpart = _part(d % 100, 100)
    out.append(f"{cpart}-{_ordinal(c)}-century" if attributive else
               (f"the mid-{_ordinal(c)} century" if cpart == "mid" else f"the {cpart} {_ordinal(c)} century"))
    out.append(f"{_ordinal(c)}-century" if attributive else f"the {_ordinal(c)} century")
    return out


_TENS = {2: "twenties", 3: "thirties", 4: "forties", 5: "fifties", 6: "sixties", 7: "seventies", 8: "eighties",
         9: "nineties"}


def _age_ladder(span: Span) -> list[str]:
    n = span.meta["age"]
    form = span.meta.get("form")
    if form == "year_old_adj":  # "a 34-year-old photographer"
        if n < 13:
            return ["young", "child"] if n >= 2 else ["infant"]
        if n < 20:
            return ["teenage", "young"]
        if n < 100:
            return [f"{(n // 10) * 10}-something", "adult"]
        return ["centenarian", "elderly"]
    if form == "from_age":  # after "from" / "since"
        return ["childhood", "a young age"] if n < 13 else ["adolescence", "a young age"] if n < 20 else ["adulthood"]
    if n < 13:
        return ["as a child", "at a young age"]
    if n < 20:
        return ["as a teenager", "at a young age"]
    last = "an adult" if form == "years_old" else "as an adult"
    if n < 100:
        dec = _TENS[n // 10]
        part = "early " if n % 10 <= 3 else ("mid-" if n % 10 <= 6 else "late ")
        return [f"in their {part}{dec}", f"in their {dec}", last]
    return ["over a hundred years old", last]


_SMALL = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten",
          20: "twenty", 30: "thirty", 40: "forty", 50: "fifty", 60: "sixty", 70: "seventy", 80: "eighty", 90: "ninety"}


def _magnitude_words(n: int, noun: bool, q: str | None = None) -> list[str]:
    of = " of" if noun else ""
    # (a plural magnitude says at least two of it: 150 is "over a hundred", not "hundreds"; a
    # round number keeps its qualifier: "over 100 chapters" is "over a hundred", not "a hundred")
    for base, plural, one in ((1_000_000, "millions", "a million"), (1000, "thousands", "a thousand"),
                              (100, "hundreds", "a hundred")):
        if n >= base:
            return [f"{plural}{of}" if n >= 2 * base else f"over {one}" if n > base else f"{q} {one}" if q else one,
                    "many"]
    if n >= 20:
        return [f"dozens{of}" if n >= 24 else "over a dozen", "many"]
    if n >= 10:
        # ("about a dozen trips" of 10 read as false to a blind reader: a dozen is twelve)
        return ["about ten", "several"] if n <= 11 else ["about a dozen", "several"] if n <= 14 else ["over a dozen", "many"]
    if n >= 5:
        return ["several"]
    if n >= 3:
        return ["a few"]
    if n <= 1:
        return []  # "scored 1 goal" -> "a couple of goal" is false and ungrammatical; one says little
    return ["a couple of" if noun else "a couple"]


def _round_down(n: int) -> int:
    if n < 10:
        return n
    p = 10 ** (len(str(n)) - 1)
    return (n // p) * p


def _number_ladder(span: Span) -> list[str]:
    m = span.meta
    n = m["value"]
    noun = bool(m.get("noun_follows"))
    q = m.get("qualifier")
    out: list[str] = []
    if q in ("over", "more than", "at least"):
        r = _round_down(n)
        if r != n and r >= 10:
            out.append(f"{q} {r:,}")
        return out + _magnitude_words(n, noun, q)
    if q in ("up to", "under", "fewer than", "less than"):
        # a bound from above: only a higher bound is true ("up to 300 people" is no "hundreds of people")
        p = 10 ** (len(str(n)) - 1) if n >= 10 else 10
        return [f"{q} {((n + p - 1) // p) * p if n % p else n + p:,}"]
    if q in ("nearly", "almost", "about", "around", "approximately", "some"):
        return out + _magnitude_words(n, noun, "about" if q == "some" else q)  # ("some a hundred")
    if n >= 20:
        r = _round_down(n)
        if r != n:
            out.append(f"over {r:,}")
    return out + _magnitude_words(n, noun)


def _money_ladder(span: Span) -> list[str]:
    v = span.meta["amount"]
    unit = span.meta.get("currency", "dollars")
    # a plural magnitude says at least two of it: £12,000 is no "tens of thousands of pounds" (an
    # output), but "over ten thousand pounds"
    out = []
    for base, plural, one in ((1e9, "billions of", "a billion"), (1e8, "hundreds of millions of", "a hundred million"),
                              (1e7, "tens of millions of", "ten million"), (1e6, "several million", "a million"),
                              (1e5, "hundreds of thousands of", "a hundred thousand"),
                              (1e4, "tens of thousands of", "ten thousand"), (1e3, "thousands of", "a thousand"),
                              (1e2, "hundreds of", "a hundred")):
        if v >= base:
            # an amount said as about one ("approximately $300 in cash"): a plural magnitude stays true of it, a
            # single one says "about"
            about = "about " if span.meta.get("about") and v <= 1.2 * base else ""  # ("about $1.9 million" is no
            # "about a million dollars")
            out = [f"{plural} {unit}" if v >= 2 * base else f"{about or 'over '}{one} {unit}" if v > base
                   else f"{about}{one} {unit}"]
            break
    out.append("a large sum" if v >= 1e5 else "a sum of money")
    return out


def _the_country(name: str, code: str | None) -> str:
    if name.startswith("The "):
        return "the " + name[4:]  # (the gazetteer's "The Netherlands")
    if code and code in lexicon()["countries_with_the"] and _takes_the(name):
        return f"the {name}"  # (the gazetteer's short names take none: "from Czechia", not "from the Czechia")
    return name


def _continent_name(code: str | None) -> str | None:
    if not code:
        return None
    return gazetteer().continents.get(code)


def _location_ladder(span: Span) -> list[str]:
    m = dict(span.meta) if span.meta.get("kind") else (place_info(span.text) or {})
    kind = m.get("kind")
    if kind is None:
        return []  # a place the gazetteer does not know: no truthful rung (its phrase may go)
    g = gazetteer()
    if kind == "country" and not m.get("region_given") and any(
            fold(st["name"]) == fold(span.text.removeprefix("the ")) for st in g.state_codes.values()):
        return []  # "Georgia", the country or the US state: no region is true of both ("from Asia" was an output)
    if kind == "city" and m.get("others"):
        # a namesake in another country the document does not rule out: only the continent they
        # share is true ("born in Valencia" is in Spain or Venezuela; nothing when none is shared)
        conts = {m.get("continent")} | {g.country_by_code.get(o, {}).get("continent") for o in m["others"]}
        shared = _continent_name(conts.pop()) if len(conts) == 1 else None
        return [shared, "a place"] if shared else []
    out: list[str] = []
    cc = m.get("country_code")
    country = g.country_by_code.get(cc, {}).get("name") if cc else None
    continent = _continent_name(m.get("continent") or (g.country_by_code.get(cc, {}).get("continent") if cc else None))
    if kind == "city":
        a1 = m.get("admin1")
        if a1:
            if fold(a1) == fold(m.get("name", "")) or fold(a1) == fold(span.text):
                a1 = f"{a1} State" if cc == "US" else a1
            out.append(a1)
    if kind in ("city", "admin1") and m.get("qualified") and kind == "admin1":
        out.append(m["name"])  # "Northern California" -> "California"
    if kind in ("city", "admin1") and country:
        out.append(_the_country(country, cc))
    if kind == "country" and m.get("qualified") and country:
        out.append(_the_country(country, cc))
    if kind in ("city", "admin1", "country") and continent:
        out.append(continent)
    if kind == "country":
        out.append(lexicon()["not_countries"].get(cc, "a country"))
    else:
        out.append("a place")
    return out


def _nationality_ladder(span: Span) -> list[str]:
    code = span.meta.get("continent")
    if not code and span.meta.get("country_code"):
        code = gazetteer().country_by_code.get(span.meta["country_code"], {}).get("continent")
    adj = lexicon()["continent_adjectives"].get(code) if code else None
    return [adj] if adj else []


def _person_ladder(span: Span, ctx: GeneralizeContext) -> list[str]:
    table = ctx.pseudonyms
    name = span.text
    out = []
    if ctx.role and table.is_subject(name, ctx.doc_id):
        out.append(role_noun(ctx.role))
    out.append(table.placeholder(name, ctx.doc_id))
    out.append("a person")
    return out


def candidates(span: Span, *, ctx: GeneralizeContext | None = None) -> list[str]:
    """Truthful replacements of ``span``, most specific first (see the module doc)."""
    ctx = ctx if ctx is not None else GeneralizeContext()
    if ctx.allow and ctx.allowed(span.text):
        return []
    t = span.type
    if t == "DENY" or (ctx.deny and ctx.denied(span.text)):
        return [PLACEHOLDERS["DENY"]]
    if t in PLACEHOLDERS:
        return [PLACEHOLDERS[t]]
    if t == "PERSON":
        ladder = _person_ladder(span, ctx)
    elif t == "DOB":
        ladder = _dob_ladder(span)
    elif t == "DATE":
        ladder = _date_ladder(span)
        if span.text.startswith("On "):  # (a sentence's first words: "On 4 May, he moved" -> "In May, he moved")
            ladder = [r[0].upper() + r[1:] if r.startswith(("in ", "on ")) else r for r in ladder]
    elif t == "YEAR":
        ladder = _year_span_ladder(span) if "year" in span.meta else _year_from_text(span)
    elif t == "DECADE":
        ladder = _decade_ladder(span) if "decade" in span.meta else [GENERAL["DECADE"]]
    elif t == "AGE":
        ladder = _age_ladder(span) if "age" in span.meta else [GENERAL["AGE"]]
    elif t == "NUMBER":
        ladder = list(span.meta["ladder"]) if "ladder" in span.meta else _number_ladder(span) if "value" in span.meta \
            else ["some"]
    elif t == "MONEY":
        ladder = _money_ladder(span) if "amount" in span.meta else [GENERAL["MONEY"]]
    elif t == "LOCATION":
        ladder = _location_ladder(span)
    elif t == "NATIONALITY":
        ladder = _nationality_ladder(span)
    elif t == "PRODUCT" and span.meta.get("ladder") == []:
        ladder = []  # (what the NER alone called a product: see spans._LABEL_FALLBACK)
    elif t in ("ORG", "AWARD", "EVENT", "TITLE", "WORK", "PRODUCT"):
        ladder = list(span.meta.get("ladder") or [GENERAL[t]])
        if ladder and ladder[-1] != GENERAL[t] and t == "ORG" and "head" not in span.meta:
            # (not after a head noun's ladder: a stadium or a cemetery is no organization)
            ladder.append(GENERAL[t])
    elif t == "GENDERED":
        neutral = span.meta.get("neutral")
        if neutral is None:
            entry = lexicon()["gendered"].get(span.text.lower().rstrip("."))
            neutral = entry[0] if entry else None
        ladder = [neutral] if neutral is not None else []
    elif t == "NAME":  # a rare name whose last word says what it is ("Lexington Ave"), else none
        ladder = list(span.meta.get("ladder") or [])
    else:  # PROPER and anything unknown
        ladder = []
    return _clean(span.text, ladder)


def _dob_ladder(span: Span) -> list[str]:
    """A date of birth in any format ("02/09/1948", "on 3 March 1987"): its year's ladder
    without the year itself (a decade at least), "in" for "on"."""
    m = re.search(r"(?<!\d)(1\d{3}|20\d\d)(?!\d)", span.text)  # (any year: "born on 2 September 1765" was "born a date")
    if not m:
        return ["a date"]
    ladder = year_ladder(int(m.group(1)))
    if span.text.lower().startswith("on ") or span.meta.get("prefix") == "in":
        ladder = [f"in {r}" for r in ladder]
    return ladder


def _year_from_text(span: Span) -> list[str]:
    m = re.search(r"\d{4}", span.text)
    return year_ladder(int(m.group(0))) if m else [GENERAL["YEAR"]]


def _clean(original: str, ladder: list[str]) -> list[str]:
    seen, out = {fold(original)}, []
    for c in ladder:
        k = fold(c)
        if c is None or (k in seen and c != ""):
            continue
        seen.add(k)
        out.append(c)
    return out


# ------------------------------------------------------------------------------------------
# substitution
# ------------------------------------------------------------------------------------------
_DET = re.compile(r"(?<![\w'’-])(a|an|the|A|An|The|AN|THE)(\s+)$")  # (not a name's last letter: "Chick-fil-A")
_LEADING_DET = re.compile(r"^(?:a|an|the|another)\s", re.I)
_POSSESSIVE = re.compile(r"(?<![\w'])(?:his|her|their|its|my|our|your|\w+'s|\w+’s)\s+$", re.I)
# (not the period of "Jr.", "St." or an initial: 'Shepard Jr. (1923–1998) was' is one sentence)
_SENT_BOUNDARY = re.compile(r"(?:^|(?<!\bJr)(?<!\bSr)(?<!\bDr)(?<!\bSt)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bNo)(?<!\bCo)"
                            r"(?<!\bInc)(?<!\bLtd)(?<!\b[A-Z])(?<!\b[ap]\.m)[.!?][\"')\]]*\s+|\n\s*)$")  # (nor "9:15 p.m. on March 4")
_AN_EXCEPTIONS = ("uni", "use", "usu", "eu", "one", "once", "ubiq", "ura", "uro", "ute")
_AN_SILENT_H = ("hour", "honest", "honor", "honour", "heir")


def article_for(word: str) -> str:
    w = word.strip().lstrip("\"'(“")
    if not w:
        return "a"
    lw = w.lower()
    if w[:1].isdigit():
        return "an" if re.match(r"(?:8|11|18)(?!\d)|8\d", w) else "a"
    if re.match(r"[A-Z]{2,}\b|(?:[A-Z]\.){2,}", w):  # acronyms and initialisms: an MBA, a NATO base, a U.S. senator
        return "an" if w[0] in "AEFHILMNORSX" and not re.match(r"[A-Z][a-z]", w) else "a"
    if lw.startswith(_AN_SILENT_H):
        return "an"
    if lw.startswith(_AN_EXCEPTIONS):
        return "a"
    return "an" if lw[:1] in "aeiou" else "a"


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:] if s else s


def apply(text: str, replacements: list[tuple[Span, str]]) -> str:
    """Substitute non-overlapping spans (right to left), then fix the grammar around each:
    a determiner before the span is dropped when the replacement brings its own, "a"/"an" agree
    with the next word, and a replacement (or the word after a deleted span) at a sentence start
    is capitalised. Overlapping replacements after the first are ignored."""
    chosen: list[tuple[Span, str]] = []
    taken: list[tuple[int, int]] = []
    for s, r in replacements:
        if any(s.start < e and b < s.end for b, e in taken):
            continue
        chosen.append((s, r))
        taken.append((s.start, s.end))
    out = text
    for s, repl in sorted(chosen, key=lambda x: -x[0].start):
        before, after = out[:s.start], out[s.end:]
        repl = repl or ""
        original = out[s.start:s.end]
        if repl:
            d = _DET.search(before)
            if d and _LEADING_DET.match(repl):  # "at the" + "a college" -> "at a college"
                if d.group(1)[0].isupper() and _SENT_BOUNDARY.search(before[:d.start()]):
                    repl = _cap(repl)  # "of The Daily Telegraph" -> "of a newspaper", not "of A"
                before = before[:d.start()]
            elif _POSSESSIVE.search(before) and _LEADING_DET.match(repl):  # "their a degree" -> "their degree"
                repl = _LEADING_DET.sub("", repl, count=1)
            elif original[:1].islower() and repl[:1].isupper() and not _keeps_case(repl):
                repl = repl[0].lower() + repl[1:]
        else:
            after = after.lstrip(" ") if before.endswith((" ", "\n")) or not before else after
        nxt = repl or after.lstrip()
        d = _DET.search(before)
        if d and d.group(1).lower() in ("a", "an") and nxt:
            art = article_for(nxt)
            before = before[:d.start()] + (_cap(art) if d.group(1)[0].isupper() else art) + d.group(2)
        if _SENT_BOUNDARY.search(before):
            if repl:
                repl = _cap(repl)
            else:
                after = _cap(after)
        out = before + repl + after
    return out


def _keeps_case(repl: str) -> bool:
    """Proper-noun rungs keep their capitals ("California", "Person A", "May 1961")."""
    if PSEUDONYM.match(repl):  # "Person A", never "person A" ("person" alone is a role noun)
        return True
    first = repl.split(" ", 1)[0]
    return first[:1].isupper() and first.lower() not in ("a", "an", "the", "they", "their", "them", "theirs",
                                                         "themselves", "child", "parent", "spouse", "sibling",
                                                         "person", "people")


__all__ = ["GeneralizeContext", "PseudonymTable", "apply", "article_for", "candidates", "role_noun", "year_ladder"]
