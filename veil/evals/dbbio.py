"""The DB-bio evaluation table: link@rand3 and semantic link@rand3 (privacy), label accuracy,
mean cosine and, optionally, the perplexity ratio (utility) of originals, a reference
sanitization (e.g. RUPTA's GPT-4 outputs) and veil's output."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from veil.embeddings import encode
from veil.evals.linking import link_at_rand3
from veil.evals.utility import label_accuracy, mean_cosine
from veil.errors import UserInputError
from veil.io import read_jsonl


def read_claims(path: str | Path) -> list[list[str]]:
    out = []
    for where, claims in read_jsonl(Path(path)):
        if not isinstance(claims, list):
            raise UserInputError(f"{where}: expected a JSON list of claims")
        out.append([str(c) for c in claims])
    return out


def evaluate(
    originals: list[str],
    sanitized: list[str],
    *,
    labels: list[str] | None = None,
    claims: list[list[str]] | None = None,
    seeds: tuple[int, ...] = (0, 1, 2),
    exclude: str | None = "name is",
    orig_emb: Any = None,
    semantic: bool = True,
    quality: bool = True,
    perplexity: bool = False,
    ppl_model: Any = None,
    orig_ppl: list[float] | None = None,
) -> dict[str, Any]:
    """The metrics of one sanitization. ``semantic``: also semantic link@rand3
    (:mod:`veil.evals.semantic`, needs ``claims``); ``perplexity``: the SmolLM2 perplexity ratio
    (:mod:`veil.evals.fluency`; None when llama-cpp-python or the GGUF is missing), with
    ``ppl_model`` a loaded :class:`~veil.evals.fluency.Perplexity` and ``orig_ppl`` the
    originals' perplexities when already computed. ``quality``: truthfulness violations
    (:mod:`veil.evals.truthfulness`) and the parse-check failures (:mod:`veil.evals.grammar`)."""
    if len(originals) != len(sanitized):
        raise UserInputError(f"{len(originals)} originals but {len(sanitized)} sanitized texts")
    if claims is not None and len(claims) != len(originals):
        raise UserInputError(f"{len(claims)} claim lists for {len(originals)} records: the claims file must be aligned")
    orig_emb = orig_emb if orig_emb is not None else encode(originals)
    san_emb = encode(sanitized)
    out: dict[str, Any] = {
        "link@rand3": link_at_rand3(claims, sanitized, seeds=seeds, exclude=exclude) if claims else None,
        "label_accuracy": label_accuracy(originals, sanitized, labels, orig_emb=orig_emb, san_emb=san_emb) if labels else None,
        "mean_cosine": mean_cosine(originals, sanitized, orig_emb=orig_emb, san_emb=san_emb),
    }
    if quality:
        from veil.evals.grammar import parse_failures
        from veil.evals.truthfulness import summarize

        out["truthfulness"] = summarize(originals, sanitized, labels)
        out["parse_failures"] = parse_failures(originals, sanitized)
    if semantic:
        from veil.evals.semantic import semantic_link_at_rand3

        out["semantic_link@rand3"] = (
            semantic_link_at_rand3(sanitized, claims, seeds=seeds, exclude=exclude) if claims else None
        )
    if perplexity:
        from veil.evals import fluency

        details = None
        if ppl_model is None and fluency.available()[0]:
            ppl_model = fluency.shared()
        if ppl_model is not None:
            details = fluency.median_perplexity_ratio(originals, sanitized, model=ppl_model, orig_ppl=orig_ppl)
        out["perplexity_ratio"] = details["ratio"] if details else None
        out["perplexity"] = details
    return out
