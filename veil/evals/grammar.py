"""Readability of sanitized text as the parse check sees it (issue 8, item 7): the share of
output sentences that fail :func:`veil.nlp.check_text` - no verbal root where the original
sentence had one, or a determiner, preposition or bracket left dangling. Sentences copied
verbatim from the original always pass: veil did not write them."""

from __future__ import annotations

from collections import Counter

from veil import nlp


def parse_failures(originals: list[str], sanitized: list[str]) -> dict:
    """Counts over a corpus: output sentences, those that fail the parse check, their share,
    records with at least one failure and the reasons (never the text)."""
    sentences = failed = records = 0
    reasons: Counter = Counter()
    for original, text in zip(originals, sanitized):
        if not (text or "").strip():
            continue
        sentences += len(nlp.sentences(text))
        bad = nlp.check_text(text, original)
        failed += len(bad)
        records += bool(bad)
        reasons.update(_reason_kind(r) for _, r in bad)
    return {"sentences": sentences, "failed": failed, "share": failed / sentences if sentences else 0.0,
            "records_with_failures": records, "reasons": dict(reasons.most_common())}


def _reason_kind(reason: str) -> str:
    """"'the' before ','" -> "X before Y": reasons grouped without the words of the text."""
    if " before " in reason:
        return "dangling word before punctuation"
    if reason.startswith("ends with"):
        return "ends with a function word"
    if "without its object" in reason:
        return "preposition without its object"
    return reason


__all__ = ["parse_failures"]
