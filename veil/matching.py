"""Tolerant matching of a guess against ground truth (INTACT's MATCH, RUPTA's rank check).

A guess matches when, after folding case, diacritics and punctuation:
- it equals the truth, or
- its tokens overlap the truth's tokens enough ("Kurt Fishback" ~ "Kurt Edward Fishback":
  every guess token is in the truth and at least two tokens, or the surname, are shared), or
- for longer entities, their character-trigram Jaccard similarity is high
  ("Univ. of California Davis" ~ "University of California, Davis").
"""

from __future__ import annotations

import re
import unicodedata

_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)
_WS = re.compile(r"\s+")
_STOP = frozenset("the a an of and de la le von van der du di da mr mrs ms dr sir jr sr".split())


def fold(text: str) -> str:
    """Lower-case, strip diacritics and punctuation, collapse white space."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = _PUNCT.sub(" ", text.lower())
    return _WS.sub(" ", text).strip()


def tokens(text: str) -> list[str]:
    return [t for t in fold(text).split() if t not in _STOP]


def char_ngrams(text: str, n: int = 3) -> set[str]:
    s = f" {fold(text)} "
    return {s[i : i + n] for i in range(max(0, len(s) - n + 1))}


def ngram_similarity(a: str, b: str, n: int = 3) -> float:
    ga, gb = char_ngrams(a, n), char_ngrams(b, n)
    if not ga or not gb:
        return 0.0
    return len(ga & gb) / len(ga | gb)


def matches(guess: str, truth: str, *, ngram_threshold: float = 0.6) -> bool:
    """True when ``guess`` names the same thing as ``truth`` (see module doc)."""
    g, t = fold(guess), fold(truth)
    if not g or not t:
        return False
    if g == t:
        return True
    gt, tt = tokens(guess), tokens(truth)
    if gt and tt:
        shared = set(gt) & set(tt)
        # all guess tokens are in the truth: "Kurt Fishback" vs "Kurt Edward Fishback"
        if set(gt) <= set(tt) and (len(shared) >= 2 or (len(tt) >= 2 and gt[-1] == tt[-1] and len(gt) >= 2)):
            return True
        if set(tt) <= set(gt) and len(shared) >= min(2, len(tt)) and len(gt) <= len(tt) + 1:
            return True
        # single-token truths (an attribute value like "Paris") must be fully present
        if len(tt) == 1 and tt[0] in gt and len(gt) <= 3:
            return True
    if min(len(g), len(t)) >= 8 and ngram_similarity(g, t) >= ngram_threshold:
        return True
    return False


def first_match_rank(guesses: list[str], truth: str | list[str]) -> int | None:
    """1-based rank of the first guess matching the truth (or any of several truths)."""
    truths = [truth] if isinstance(truth, str) else list(truth)
    for i, guess in enumerate(guesses, start=1):
        if any(matches(guess, t) for t in truths):
            return i
    return None
