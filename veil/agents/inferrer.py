"""LLM adversarial inferrer (Staab et al.): guesses personal attributes with top-3 guesses,
certainty 1–5 and evidence. With no ground truth, its guesses on the ORIGINAL text become the
targets the anonymize graph protects."""

from __future__ import annotations

from pydantic import BaseModel, Field

from veil.agents.batch import Batch
from veil.agents.base import AttributeInference, AttributeInferrer, InferenceResult, Task, usage_from
from veil.documents import ATTRIBUTES
from veil.llm import LLMClient, bounded, capped
from veil.prompts import render


class InferenceItem(BaseModel):
    attribute: capped(40)
    guesses: list[capped(60)] = bounded(3, description="top-3, best first")
    certainty: int = Field(ge=1, le=5)
    evidence: capped(120)


class InferenceAnswer(BaseModel):
    inferences: list[InferenceItem]


class LLMAttributeInferrer(AttributeInferrer):
    engine = "llm"

    def __init__(self, client: LLMClient, attributes: tuple[str, ...] = ATTRIBUTES):
        self.client = client
        self.attributes = attributes

    async def infer(self, text: str, task: Task, *, batch: Batch | None = None) -> InferenceResult:
        messages = render("generic", "inferrer", text=text, attributes=", ".join(self.attributes))
        answer, usage = await self.client.structured(
            messages, InferenceAnswer, agent="inferrer", caps={"inferences": {"maxItems": len(self.attributes)}},
            max_tokens=32 + len(self.attributes) * 110,
        )
        known = set(self.attributes)
        items = [
            AttributeInference(
                attribute=i.attribute.strip().lower(),
                guesses=i.guesses[:3],
                certainty=max(1, min(5, i.certainty)),
                evidence=i.evidence,
            )
            for i in answer.inferences
            if i.attribute.strip().lower() in known and i.guesses
        ]
        return InferenceResult(inferences=items, usage=usage_from(usage))
