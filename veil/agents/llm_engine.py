"""The ``llm`` engine: the four agents over one OpenAI-compatible endpoint."""

from __future__ import annotations

from typing import Any

from veil.agents import Engine
from veil.agents.inferrer import LLMAttributeInferrer
from veil.agents.optimizer import LLMOptimizer
from veil.agents.p_evaluator import LLMPrivacyEvaluator
from veil.agents.u_evaluator import LLMUtilityEvaluator
from veil.llm import LLMClient, LLMSettings


def build(*, llm: LLMSettings | None = None, **_: Any) -> Engine:
    client = LLMClient(llm or LLMSettings.from_env())
    return Engine(
        name="llm",
        p_evaluator=LLMPrivacyEvaluator(client),
        u_evaluator=LLMUtilityEvaluator(client),
        inferrer=LLMAttributeInferrer(client),
        optimizer=LLMOptimizer(client),
        resources=[client],
    )
