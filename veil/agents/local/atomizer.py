"""LLM-free atomizer: sentences, then clauses, one claim per clause. Deterministic and simple;
it under-splits compared with an LLM (no co-reference resolution, no "The person ..." rewrite),
which is fine for linking and for the local judge (both are bag-of-words / embedding based)."""

from __future__ import annotations

import re

# clause boundaries: ";", ", and/but/while/whereas", " and " before a subject pronoun or a
# verb-ish word, and relative clauses ", who/which/where ..."
_CLAUSE = re.compile(
    r"\s*;\s*"
    r"|,\s+(?:and|but|while|whereas|although|though)\s+"
    r"|\s+(?:and|but)\s+(?=(?:he|she|they|it|i|we|his|her|their|the person)\b)"
    r"|,\s+(?=(?:who|which|where|whose|when)\b)",
    re.IGNORECASE,
)
_MIN_WORDS = 3


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``, whitespace normalised: the project's one sentence splitter
    (:func:`veil.nlp.sentences`, spaCy's parser)."""
    from veil import nlp

    return [s for s in (re.sub(r"\s+", " ", p).strip() for p in nlp.sentences(text or "")) if s]


def split_clauses(sentence: str) -> list[str]:
    """Clauses of one sentence; fragments shorter than 3 words are glued to their neighbour."""
    pieces = [p.strip(" ,;") for p in _CLAUSE.split(sentence) if p and p.strip(" ,;")]
    out: list[str] = []
    for p in pieces:
        if out and len(p.split()) < _MIN_WORDS:
            out[-1] = f"{out[-1]}, {p}"
        elif out and len(out[-1].split()) < _MIN_WORDS:
            out[-1] = f"{out[-1]} {p}"
        else:
            out.append(p)
    return out


def atomize(text: str) -> list[str]:
    """Claims of one record: one per clause, trailing punctuation normalised."""
    claims = []
    for s in split_sentences(text):
        for c in split_clauses(s):
            c = c.strip().rstrip(".!?").strip()
            if c:
                claims.append(c[0].upper() + c[1:] + ".")
    return claims


class LocalAtomizer:
    name = "local"

    async def atomize(self, texts: list[str]) -> list[list[str]]:
        return [atomize(t) for t in texts]

    async def aclose(self) -> None:
        return None
