"""The ``local`` engine: LLM-free agents sharing one :class:`LocalWorld` per batch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from veil.agents import Engine
from veil.agents.local.generalize import GeneralizeContext, PseudonymTable, apply, candidates
from veil.agents.local.inferrer import LocalAttributeInferrer
from veil.agents.local.optimizer import tidy
from veil.agents.local.p_evaluator import LocalPrivacyEvaluator
from veil.agents.local.spans import find_spans
from veil.agents.local.u_evaluator import LocalUtilityEvaluator
from veil.agents.local.world import LocalWorld
from veil.logging import get_logger

log = get_logger(__name__)


def expected_release(text: str, ctx: GeneralizeContext) -> str:
    """How the publisher expects another record to look once released: every span at its most
    general candidate. The decoys the simulated attacker must beat."""
    chosen = []
    for s in find_spans(text):
        ladder = candidates(s, ctx=ctx)
        if ladder:
            chosen.append((s, ladder[-1]))
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
