"""A semantic linking attack: the adversary knows a few atomic facts about a person ("The person
was born in 1942", "The person studied at UC Davis") and picks the sanitized record that matches
them best.

Score of record r for a set of known facts F::

    mean_{f in F} max_{s in sentences(r)} cos(f, s)  +  lambda * mean_{f in F*} hierarchy(f, r)

* sentences come from spaCy (:func:`sentences`), facts and sentences are embedded with MiniLM
  (:func:`veil.embeddings.encode`, normalised: cosine = dot product);
* :func:`hierarchy` gives credit for truthful generalizations that an embedding barely sees: a
  year of the fact found in the record scores 1, its decade ("the early 1940s") 0.5, its century
  ("the 20th century") 0.25; a place scores 1 by name, 0.5 by its state / admin1 region, 0.25 by
  its country (gazetteer of :func:`veil.agents.local.spans.place_info`; places are capitalised
  word sequences it knows, a city only after a locative word). F* are the facts with at least
  one year or place.

:class:`SemanticLinker` fuses that score with BM25 by default (``z(semantic) + 0.75 z(BM25)``,
z-scores across records per query): MiniLM alone misses the rare exact words that BM25 keys on
and BM25 misses paraphrases; together they link more sanitized records than either (DB-bio
figures in :func:`semantic_link_at_rand3`). ``bm25_weight=0`` gives the purely semantic
attacker. The anonymization loop can reuse the class as its attacker;
:func:`semantic_link_at_rand3` is the link@rand3 metric of ``veil eval`` with this linker
instead of BM25 (same auxiliary claims: :func:`veil.evals.linking.select_aux`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable, Sequence

import numpy as np

from veil.evals.linking import select_aux

LAMBDA = 0.1  # weight of the hierarchy term (see semantic_link_at_rand3's docstring)
BM25_WEIGHT = 0.75  # weight of z(BM25) fused with z(semantic score); 0: purely semantic

# -- sentences -----------------------------------------------------------------------------



def sentences(texts: list[str]) -> list[list[str]]:
    """The sentences of each text (spaCy's parser), stripped, empty ones dropped. The one place
    that splits sentences here: swap it for a project-wide splitter when there is one."""
    from veil import nlp  # the project's one pipeline and sentence splitter

    out: list[list[str]] = []
    for doc in nlp.parse_many(texts):
        out.append([s.text.strip() for s in doc.sents if s.text.strip()])
    return out


# -- hierarchy -----------------------------------------------------------------------------

_YEAR = re.compile(r"(?<!\d)(1\d{3}|20\d{2})(?!\d)")
_WORD = re.compile(r"[^\W\d_][\w'’.&-]*")
_ORDINAL_WORDS = {
    10: "tenth", 11: "eleventh", 12: "twelfth", 13: "thirteenth", 14: "fourteenth", 15: "fifteenth",
    16: "sixteenth", 17: "seventeenth", 18: "eighteenth", 19: "nineteenth", 20: "twentieth",
    21: "twenty-first",
}

# one item of a fact: the levels (pattern, credit) at which a record may mention it
Item = tuple[tuple[re.Pattern[str], float], ...]


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _year_item(year: str) -> Item:
    y = int(year)
    decade = f"{y // 10 * 10}s"
    century = (y - 1) // 100 + 1
    words = [re.escape(_ordinal(century))]
    if century in _ORDINAL_WORDS:
        words.append(_ORDINAL_WORDS[century].replace("-", "[- ]"))
    century_re = rf"\b(?:{'|'.join(words)})[- ]century\b"
    if y % 100 >= 10:  # "the 1900s" read as a century
        century_re += rf"|(?<!\d){y // 100 * 100}s\b"
    return (
        (re.compile(rf"(?<!\d){year}(?!\d|['’]?s\b)"), 1.0),
        (re.compile(rf"(?<!\d){decade[:-1]}['’]?s\b"), 0.5),
        (re.compile(century_re, re.IGNORECASE), 0.25),
    )


def _name_re(names: Sequence[str]) -> re.Pattern[str]:
    alts = sorted({n for n in names if n}, key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(n) for n in alts) + r")(?!\w)")


@lru_cache(maxsize=1)
def _country_names() -> dict[str, list[str]]:
    """Country code -> its name and the gazetteer's aliases ("United States", "USA", "U.S.")."""
    try:
        from veil.agents.local.spans import gazetteer

        g = gazetteer()
        names = {cc: [c["name"]] for cc, c in g.country_by_code.items()}
        for alias, value in getattr(g, "aliases", {}).items():
            kind, cc = value[0], value[1]
            if kind == "country" and cc in names:
                names[cc].append(alias.upper() if len(alias.replace(".", "")) <= 3
                                 else alias.title().replace(" Of ", " of ").replace(" The ", " the "))
        return names
    except Exception:  # the gazetteer's layout is internal: degrade to no country level
        return {}


def _place_info(name: str) -> dict | None:
    from veil.agents.local.spans import place_info

    try:
        return place_info(name)
    except Exception:
        return None


def _place_item(name: str, info: dict) -> Item:
    countries = _country_names()
    cc = info.get("country_code")
    kind = info.get("kind")
    if kind == "country":
        return ((_name_re([name, *countries.get(cc, [])]), 1.0),)
    levels: list[tuple[re.Pattern[str], float]] = [(_name_re([name, info.get("name") or name]), 1.0)]
    admin1 = info.get("admin1")
    if admin1 and kind != "admin1":
        levels.append((_name_re([admin1, re.sub(r" (?:State|Province|Region)$", "", admin1)]), 0.5))
    if cc and countries.get(cc):
        levels.append((_name_re(countries[cc]), 0.25))
    return tuple(levels)


# a city counts only right after one of these (most city names of the gazetteer are also
# ordinary words or first names: "University", "Olympic", "Time", "George")
_LOCATIVE = frozenset("in at from near to into outside around across throughout born moved".split())


def _places(fact: str) -> list[tuple[str, dict]]:
    """Known places among the capitalised word sequences of ``fact``, the longest recognised
    sub-sequence first, left to right. Regions and countries anywhere; a city only at the start
    of a sequence that follows a locative word ("studied at Sacramento City College" ->
    Sacramento, "rejoined Blyth Spartans" -> nothing)."""
    words = [(m.group().rstrip(".,'’"), m.start(), m.end()) for m in _WORD.finditer(fact)]
    runs: list[tuple[str, list[str]]] = []  # (word before the run, lower-cased; the run)
    prev_end, prev_word = None, ""
    for w, s, e in words:
        if not w:
            continue
        if not w[0].isupper():
            prev_end, prev_word = None, w.lower()
            continue
        if prev_end is not None and fact[prev_end:s].strip() == "" and runs:
            runs[-1][1].append(w)
        else:
            runs.append((prev_word, [w]))
        prev_end = e
    found: list[tuple[str, dict]] = []
    for before, run in runs:
        i = 0
        while i < len(run):
            for j in range(len(run), i, -1):
                name = " ".join(run[i:j])
                info = _place_info(name)
                kind = info.get("kind") if info else None
                if kind in ("admin1", "country") or (kind == "city" and i == 0 and before in _LOCATIVE):
                    found.append((name, info))
                    i = j
                    break
            else:
                i += 1
    return found


@lru_cache(maxsize=100_000)
def fact_items(fact: str) -> tuple[Item, ...]:
    """The years and known places of a fact, each with the patterns of its levels."""
    items: list[Item] = [_year_item(y) for y in dict.fromkeys(_YEAR.findall(fact))]
    seen = set()
    for name, info in _places(fact):
        if name not in seen:
            seen.add(name)
            items.append(_place_item(name, info))
    return tuple(items)


def _item_value(item: Item, text: str) -> float:
    return max((w for pat, w in item if pat.search(text)), default=0.0)


def hierarchy(fact: str, text: str) -> float | None:
    """Mean over the fact's years and places of the best level at which ``text`` mentions them
    (1 exact, 0.5 decade / state, 0.25 century / country, 0 absent); None when the fact has no
    year and no known place."""
    items = fact_items(fact)
    if not items:
        return None
    return float(np.mean([_item_value(it, text) for it in items]))


# -- the linker ----------------------------------------------------------------------------

# MiniLM embeddings of facts, shared by every linker that uses the default encoder (``veil eval``
# scores the same claims against several sanitized fields); cleared when it grows too large
_FACT_CACHE: dict[str, np.ndarray] = {}
_FACT_CACHE_MAX = 50_000


def _zscore(m: np.ndarray) -> np.ndarray:
    """Per row (query), across records: (x - mean) / std; 0 where all records tie."""
    mu = m.mean(axis=1, keepdims=True)
    sd = m.std(axis=1, keepdims=True)
    return np.divide(m - mu, sd, out=np.zeros_like(m), where=sd > 1e-9)


class SemanticLinker:
    """Fit once on the candidate records, then score / rank records for sets of known facts.

    The score is the semantic score of the module docstring; with ``bm25_weight`` > 0 (the
    default) it is fused with BM25 of the concatenated facts (as in link@rand3):
    ``z(semantic) + bm25_weight * z(bm25)``, z-scores across records per query, so neither
    scale dominates. ``bm25_weight=0`` is the purely semantic attacker. Fact embeddings and
    per-pattern record hits are cached: repeated queries against one fit are cheap."""

    def __init__(
        self,
        lam: float = LAMBDA,
        *,
        bm25_weight: float = BM25_WEIGHT,
        splitter: Callable[[list[str]], list[list[str]]] | None = None,
        encoder: Callable[[list[str]], np.ndarray] | None = None,
    ):
        self.lam = lam
        self.bm25_weight = bm25_weight
        self._split = splitter or sentences
        self._fact_emb: dict[str, np.ndarray] = {} if encoder is not None else _FACT_CACHE
        if encoder is None:
            from veil.embeddings import encode as encoder
        self._encode = encoder
        self.records: list[str] = []

    def fit(self, records: list[str]) -> "SemanticLinker":
        self.records = [r or "" for r in records]
        sents = self._split(self.records)
        counts = np.array([len(s) for s in sents], dtype=np.int64)
        flat = [s for ss in sents for s in ss]
        self._sent_emb = self._encode(flat) if flat else np.zeros((0, 384), dtype=np.float32)
        self._nonempty = np.flatnonzero(counts > 0)
        self._starts = (np.cumsum(counts) - counts)[self._nonempty]
        self._hits: dict[re.Pattern[str], np.ndarray] = {}
        self._bm25 = None
        if self.bm25_weight and self.records:
            from veil.evals.linking import BM25Linker

            self._bm25 = BM25Linker(self.records)
        return self

    @property
    def n(self) -> int:
        return len(self.records)

    # per-fact matrices, shape (len(facts), n) ------------------------------------------------

    def embed_facts(self, facts: list[str]) -> np.ndarray:
        """The facts' embeddings (cached: a fact is embedded once per linker or encoder)."""
        if not facts:
            return np.zeros((0, 384), np.float32)
        cache = self._fact_emb
        got = {f: v for f in dict.fromkeys(facts) if (v := cache.get(f)) is not None}
        todo = [f for f in dict.fromkeys(facts) if f not in got]
        if todo:
            if cache is _FACT_CACHE and len(cache) + len(todo) > _FACT_CACHE_MAX:
                cache.clear()
            for f, v in zip(todo, self._encode(todo)):
                got[f] = cache[f] = v
        return np.stack([got[f] for f in facts])

    def fact_similarity(self, facts: list[str], chunk: int = 512) -> np.ndarray:
        """max over each record's sentences of cos(fact, sentence); 0 for a record without text."""
        out = np.zeros((len(facts), self.n), dtype=np.float32)
        if not facts or not len(self._nonempty):
            return out
        emb = self.embed_facts(facts)
        for a in range(0, len(facts), chunk):
            sims = emb[a : a + chunk] @ self._sent_emb.T
            out[a : a + chunk, self._nonempty] = np.maximum.reduceat(sims, self._starts, axis=1)
        return out

    def _pattern_hits(self, pat: re.Pattern[str]) -> np.ndarray:
        hits = self._hits.get(pat)
        if hits is None:
            hits = self._hits[pat] = np.fromiter((pat.search(r) is not None for r in self.records), bool, self.n)
        return hits

    def fact_hierarchy(self, facts: list[str]) -> np.ndarray:
        """hierarchy(fact, record) for every record; NaN rows for facts without items."""
        out = np.full((len(facts), self.n), np.nan, dtype=np.float32)
        for i, f in enumerate(facts):
            items = fact_items(f)
            if not items:
                continue
            acc = np.zeros(self.n, dtype=np.float32)
            for item in items:
                best = np.zeros(self.n, dtype=np.float32)
                for pat, w in item:
                    np.maximum(best, w * self._pattern_hits(pat), out=best)
                acc += best
            out[i] = acc / len(items)
        return out

    # queries ----------------------------------------------------------------------------------

    def semantic_scores_many(self, queries: Sequence[Sequence[str]]) -> np.ndarray:
        """The semantic score alone (no BM25), shape (len(queries), n): mean over the facts of
        the best sentence's cosine + lam * mean hierarchy over the facts that have items.
        Every distinct fact is embedded and matched once."""
        facts = list(dict.fromkeys(f for q in queries for f in q))
        pos = {f: i for i, f in enumerate(facts)}
        sim, hier = self.fact_similarity(facts), self.fact_hierarchy(facts)
        has = ~np.isnan(hier[:, 0]) if self.n else np.zeros(len(facts), bool)
        out = np.zeros((len(queries), self.n), dtype=np.float32)
        for qi, q in enumerate(queries):
            idx = np.array([pos[f] for f in q], dtype=np.int64)
            if not len(idx):
                continue
            out[qi] = sim[idx].mean(axis=0)
            with_items = idx[has[idx]]
            if self.lam and len(with_items):
                out[qi] += self.lam * hier[with_items].mean(axis=0)
        return out

    def scores_many(self, queries: Sequence[Sequence[str]]) -> np.ndarray:
        """Scores for many queries at once, shape (len(queries), n); higher = more likely."""
        queries = [list(q) for q in queries]
        sem = self.semantic_scores_many(queries)
        if self._bm25 is None or not self.bm25_weight:
            return sem
        bm = self._bm25.all_scores([" ".join(q) for q in queries])
        return _zscore(sem) + self.bm25_weight * _zscore(bm)

    def scores(self, facts: Sequence[str]) -> np.ndarray:
        """Score of every record (higher = more likely the person's), shape (n,)."""
        return self.scores_many([list(facts)])[0]

    def rank(self, facts: Sequence[str]) -> np.ndarray:
        """Record indices, best first (ties: lowest index first)."""
        return np.argsort(-self.scores(facts), kind="stable")


def semantic_link_at_rand3(
    sanitized: list[str],
    claims: list[list[str]],
    seeds: Sequence[int] = (0, 1, 2),
    exclude: str | None = "name is",
    *,
    lam: float = LAMBDA,
    bm25_weight: float = BM25_WEIGHT,
    mode: str = "random3",
    linker: SemanticLinker | None = None,
) -> float:
    """Mean over ``seeds`` of the top-1 rate: record i's auxiliary claims (as for
    :func:`veil.evals.linking.link_at_rand3`) rank record i first among all sanitized records
    (ties go to the lowest index). ``linker``: an already fitted one (its settings are used).

    The defaults, measured on DB-bio (239 records, seeds 0-2), originals / RUPTA GPT-4 outputs
    (BM25 link@rand3: 0.992 / 0.782):

    * purely semantic (bm25_weight 0): lam 0: 0.946 / 0.702; lam 0.1: 0.982 / 0.696;
      lam 0.25: 0.987 / 0.625; lam 0.5: 0.986 / 0.531;
    * fused, lam 0.1, bm25_weight 0.75 (default): 0.997 / 0.829 (bm25_weight 0.5: 0.999 / 0.819,
      1.0: 0.997 / 0.820).

    The hierarchy term helps on originals but not on sanitized texts (their generalized years
    and places score lower than other records' exact mentions of the same year or place),
    hence the small lam."""
    if len(claims) != len(sanitized):
        raise ValueError(f"{len(claims)} claim lists for {len(sanitized)} sanitized records")
    if not sanitized:
        return 0.0
    linker = linker or SemanticLinker(lam, bm25_weight=bm25_weight).fit(sanitized)
    queries, truth = [], []
    for seed in seeds:
        for i, c in enumerate(claims):
            queries.append([c[j] for j in select_aux(c, mode, seed=seed, record_index=i, exclude=exclude)])
            truth.append(i)
    best = np.argmax(linker.scores_many(queries), axis=1)  # first maximum: lowest index on ties
    hits = (best == np.asarray(truth)).reshape(len(seeds), len(claims))
    return float(hits.mean(axis=1).mean())
