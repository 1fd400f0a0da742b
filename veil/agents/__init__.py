"""veil's agents: P-Evaluator, U-Evaluator, adversarial inferrer and optimizer, in two
families (engines): ``llm`` (any OpenAI-compatible endpoint) and ``local`` (embedded,
LLM-free). An :class:`Engine` is one of each; engines are built by name from a registry.

``Engine.prepare(documents)`` returns a :class:`Batch` (immutable, see :mod:`veil.agents.batch`)
that every agent call receives: the agents keep nothing per batch themselves."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from veil.agents.base import AttributeInferrer, Optimizer, PrivacyEvaluator, UtilityEvaluator
from veil.agents.batch import Batch
from veil.documents import Document
from veil.errors import UserInputError


@dataclass
class Engine:
    name: str
    p_evaluator: PrivacyEvaluator
    u_evaluator: UtilityEvaluator
    inferrer: AttributeInferrer
    optimizer: Optimizer
    resources: list[Any] = field(default_factory=list)  # things to close (LLM clients)
    # documents -> the engine's Batch (per-batch data); None: a plain Batch of the ids
    batcher: Callable[[list[Document]], Awaitable[Batch]] | None = None

    def agents(self) -> list[Any]:
        seen: list[Any] = []
        for a in (self.p_evaluator, self.u_evaluator, self.inferrer, self.optimizer):
            if not any(a is s for s in seen):
                seen.append(a)
        return seen

    async def prepare(self, documents: list[Document]) -> Batch:
        """What the agents derive once from these documents (population for retrieval, release
        pool, classifier, pseudonyms), as an immutable :class:`Batch` to pass to every call."""
        if self.batcher is not None:
            return await self.batcher(documents)
        return Batch.of(documents, engine=self.name)

    def usage(self) -> dict[str, Any]:
        for r in self.resources:
            meter = getattr(r, "meter", None)
            if meter is not None:
                return meter.total.as_dict()
        return {}

    async def aclose(self) -> None:
        for r in self.resources:
            if hasattr(r, "aclose"):
                await r.aclose()


# name -> "module:factory"; factories take keyword options and return an Engine
ENGINES: dict[str, str] = {
    "llm": "veil.agents.llm_engine:build",
    "local": "veil.agents.local.engine:build",
}


def register_engine(name: str, factory_path: str) -> None:
    ENGINES[name] = factory_path


def build_engine(name: str, **options: Any) -> Engine:
    if name not in ENGINES:
        raise UserInputError(f"unknown engine {name!r}; choose one of: {', '.join(sorted(ENGINES))}")
    module, _, attr = ENGINES[name].partition(":")
    factory: Callable[..., Engine] = getattr(importlib.import_module(module), attr)
    return factory(**options)
