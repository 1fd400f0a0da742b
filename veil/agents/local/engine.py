"""The ``local`` engine: LLM-free agents sharing one :class:`LocalWorld` per batch."""

from __future__ import annotations

import re
from typing import Any

from veil.agents import Engine
from veil.agents.local.generalize import GeneralizeContext, PseudonymTable, apply, candidates
from veil.agents.local.inferrer import LocalAttributeInferrer
from veil.agents.local.optimizer import ALWAYS, tidy
from veil.agents.local.p_evaluator import LocalPrivacyEvaluator
from veil.agents.local.retrieval import tokenize
from veil.agents.local.spans import Span, find_spans
from veil.agents.local.u_evaluator import LocalUtilityEvaluator
from veil.agents.local.world import LocalWorld
from veil.logging import get_logger

log = get_logger(__name__)


def expected_release(text: str, ctx: GeneralizeContext, rare: set[str] | None = None) -> str:
    """How the publisher expects another record to look once released: every span at its most
    general candidate and the batch's rarest words (``rare``) gone, as veil's own edits leave
    the other records. The decoys the simulated attacker must beat."""
    chosen = []
    spans = find_spans(text)
    for s in spans:
        ladder = candidates(s, ctx=ctx)
        if ladder:
            # names are replaced as the optimizer replaces them (the subject by its role noun),
            # everything else at its most general
            chosen.append((s, ladder[0] if s.type in ALWAYS else ladder[-1]))
    if rare:
        for m in re.finditer(r"\w\w+", text):
            toks = tokenize(m.group(0))
            if toks and toks[0] in rare and not any(m.start() < s.end and s.start < m.end() for s in spans):
                chosen.append((Span(m.start(), m.end(), m.group(0), "WORD", 1.0, "rare", {}), ""))
    return tidy(apply(text, chosen)) if chosen else text



def build(*, allow: list[str] | None = None, deny: list[str] | None = None, **options: Any) -> Engine:
    world = LocalWorld(allow=set(allow or []), deny=set(deny or []), pseudonyms=PseudonymTable(), options=options)
    p_eval = LocalPrivacyEvaluator(world, **{k: options[k] for k in ("m_queries", "query_size", "quantile", "dense") if k in options})
    u_eval = LocalUtilityEvaluator(world)
    from veil.agents.local.optimizer import LocalOptimizer

    return Engine(
        name="local",
        p_evaluator=p_eval,
        u_evaluator=u_eval,
        inferrer=LocalAttributeInferrer(),
        optimizer=LocalOptimizer(world, p_eval),
        resources=[world],
    )


__all__ = ["build", "expected_release"]
