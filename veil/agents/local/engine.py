"""The ``local`` engine: LLM-free agents; what a batch gives them is a :class:`LocalBatch`
built by ``prepare`` (population, release pool, classifier, pseudonyms)."""

from __future__ import annotations

import asyncio
from typing import Any

from veil.agents import Engine
from veil.agents.base import Task
from veil.agents.local.inferrer import LocalAttributeInferrer
from veil.agents.local.optimizer import LocalOptimizer
from veil.agents.local.p_evaluator import LocalPrivacyEvaluator
from veil.agents.local.u_evaluator import LocalUtilityEvaluator, fit_classifier
from veil.agents.local.world import LocalBatch, LocalWorld
from veil.documents import Document
from veil.logging import get_logger

log = get_logger(__name__)


def build(*, allow: list[str] | None = None, deny: list[str] | None = None, **options: Any) -> Engine:
    world = LocalWorld(allow=set(allow or []), deny=set(deny or []), options=options)
    p_eval = LocalPrivacyEvaluator(world, **{k: options[k] for k in ("m_queries", "query_size", "quantile", "dense", "semantic") if k in options})
    optimizer = LocalOptimizer(world, p_eval)

    def expected_release(doc: Document, batch: LocalBatch) -> tuple[str, list[str]]:
        """How the publisher expects another record to look once released: direct identifiers
        and the policy applied, as veil's own plan leaves every record before the attacker
        is consulted. The decoys the simulated attacker must beat: the text and its sentences."""
        task = Task(name=doc.name, label=doc.label, original=doc.text, doc_id=doc.id)
        plan = optimizer.base_plan(task, batch)
        return plan.render(), plan.sentences()

    async def prepare(documents: list[Document]) -> LocalBatch:
        # CPU work (a parse and a base plan per document): in a worker thread, so that a server
        # keeps answering while a large request is prepared
        return await asyncio.to_thread(
            world.build_batch, documents, release=expected_release,
            fit=lambda texts, labels: fit_classifier(world, texts, labels),
        )

    return Engine(
        name="local",
        p_evaluator=p_eval,
        u_evaluator=LocalUtilityEvaluator(world),
        inferrer=LocalAttributeInferrer(),
        optimizer=optimizer,
        resources=[world],
        batcher=prepare,
    )


__all__ = ["build"]
