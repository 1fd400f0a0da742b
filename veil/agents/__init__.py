"""veil's agents: P-Evaluator, U-Evaluator, adversarial inferrer and optimizer, in two
families (engines): ``llm`` (any OpenAI-compatible endpoint) and ``local`` (embedded,
LLM-free). An :class:`Engine` is one of each; engines are built by name from a registry."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

from veil.agents.base import AttributeInferrer, Optimizer, PrivacyEvaluator, UtilityEvaluator
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

    def agents(self) -> list[Any]:
        seen: list[Any] = []
        for a in (self.p_evaluator, self.u_evaluator, self.inferrer, self.optimizer):
            if not any(a is s for s in seen):
                seen.append(a)
        return seen

    async def prepare(self, documents: list[Document]) -> None:
        """Give the shared resources, then every agent, the batch once (population for
        retrieval, training labels...)."""
        for r in self.resources:
            if hasattr(r, "prepare"):
                await r.prepare(documents)
        for agent in self.agents():
            await agent.prepare(documents)

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
