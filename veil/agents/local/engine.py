"""The ``local`` engine: LLM-free agents sharing one :class:`LocalWorld` per batch."""

from __future__ import annotations

from typing import Any

from veil.agents import Engine
from veil.agents.base import Task
from veil.agents.local.generalize import PseudonymTable
from veil.agents.local.inferrer import LocalAttributeInferrer
from veil.agents.local.optimizer import LocalOptimizer
from veil.agents.local.p_evaluator import LocalPrivacyEvaluator
from veil.agents.local.u_evaluator import LocalUtilityEvaluator
from veil.agents.local.world import LocalWorld
from veil.documents import Document
from veil.logging import get_logger

log = get_logger(__name__)


def build(*, allow: list[str] | None = None, deny: list[str] | None = None, **options: Any) -> Engine:
    world = LocalWorld(allow=set(allow or []), deny=set(deny or []), pseudonyms=PseudonymTable(), options=options)
    p_eval = LocalPrivacyEvaluator(world, **{k: options[k] for k in ("m_queries", "query_size", "quantile", "dense") if k in options})
    optimizer = LocalOptimizer(world, p_eval)

    def expected_release(doc: Document) -> str:
        """How the publisher expects another record to look once released: direct identifiers
        and the policy applied, as veil's own plan leaves every record before the attacker
        is consulted. The decoys the simulated attacker must beat."""
        task = Task(name=doc.name, label=doc.label, original=doc.text, doc_id=doc.id)
        return optimizer.base_plan(task).render()

    world.release = expected_release
    return Engine(
        name="local",
        p_evaluator=p_eval,
        u_evaluator=LocalUtilityEvaluator(world),
        inferrer=LocalAttributeInferrer(),
        optimizer=optimizer,
        resources=[world],
    )


__all__ = ["build"]
