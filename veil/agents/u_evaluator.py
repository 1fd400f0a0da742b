"""LLM U-Evaluator: confidence (0–100, reported in [0, 1]) that the text still supports its
downstream label (RUPTA §3.3). Pluggable: any :class:`~veil.agents.base.UtilityEvaluator`,
e.g. the local embedding classifier, can replace it."""

from __future__ import annotations

from pydantic import BaseModel, Field

from veil.agents.batch import Batch
from veil.agents.base import Task, UtilityEvaluator, UtilityResult, usage_from
from veil.llm import LLMClient, capped
from veil.prompts import render


class UtilityAnswer(BaseModel):
    confidence: int = Field(ge=0, le=100)
    explanation: capped(200)


class LLMUtilityEvaluator(UtilityEvaluator):
    engine = "llm"

    def __init__(self, client: LLMClient):
        self.client = client

    async def evaluate(self, text: str, task: Task, *, batch: Batch | None = None) -> UtilityResult:
        if task.label:
            messages = render(task.profile, "u_evaluator", text=text, label=task.label)
        else:  # no label: how much of the original's non-identifying content survives
            messages = render("generic", "u_evaluator_nolabel", text=text, original=task.original)
        answer, usage = await self.client.structured(messages, UtilityAnswer, agent="u_evaluator", max_tokens=120)
        return UtilityResult(
            score=answer.confidence / 100.0, label=task.label, explanation=answer.explanation, usage=usage_from(usage)
        )
