"""LLM P-Evaluator: an attacker LLM guesses the protected target (who is this? / the person's
attributes) top-K; the privacy score is the rank of the first correct guess (K+1 if none),
and the clues behind the correct guess become the optimizer's feedback (RUPTA §3.2)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from veil.agents.base import Guess, PrivacyEvaluator, PrivacyResult, Task, usage_from
from veil.llm import LLMClient
from veil.matching import first_match_rank
from veil.prompts import render


class IdentityGuess(BaseModel):
    name: str
    clues: list[str] = Field(description="phrases of the text that point to this person")


class IdentityAnswer(BaseModel):
    guesses: list[IdentityGuess]


class AttributeGuessSet(BaseModel):
    attribute: str
    guesses: list[str] = Field(description="best first")
    clues: list[str]


class AttributeAnswer(BaseModel):
    attributes: list[AttributeGuessSet]


class LLMPrivacyEvaluator(PrivacyEvaluator):
    engine = "llm"

    def __init__(self, client: LLMClient):
        self.client = client

    async def evaluate(self, text: str, task: Task) -> PrivacyResult:
        if task.profile == "identity":
            return await self._identity(text, task)
        return await self._attributes(text, task)

    async def _identity(self, text: str, task: Task) -> PrivacyResult:
        messages = render("identity", "p_evaluator", text=text, k=task.k)
        answer, usage = await self.client.structured(messages, IdentityAnswer, agent="p_evaluator")
        names = [g.name for g in answer.guesses[: task.k]]
        rank = first_match_rank(names, task.name) if task.name else None
        score = rank if rank is not None else task.k + 1
        clues = answer.guesses[rank - 1].clues if rank is not None else []
        guesses = [Guess(value=n, target="identity", matched=(i + 1 == rank)) for i, n in enumerate(names)]
        return PrivacyResult(
            score=score, k=task.k, guesses=guesses, clues=clues, per_target={"identity": score}, usage=usage_from(usage)
        )

    async def _attributes(self, text: str, task: Task) -> PrivacyResult:
        targets = task.attributes
        if not targets:  # nothing to protect was given or inferred: nothing can be re-identified
            return PrivacyResult(score=task.k + 1, k=task.k, explanation="no target attributes")
        prompt_set = "attributes" if task.profile == "attributes" else "generic"
        messages = render(prompt_set, "p_evaluator", text=text, k=task.k, attributes=", ".join(sorted(targets)))
        answer, usage = await self.client.structured(messages, AttributeAnswer, agent="p_evaluator")
        by_attr = {a.attribute.strip().lower(): a for a in answer.attributes}
        per_target: dict[str, int] = {}
        guesses: list[Guess] = []
        clues: list[str] = []
        for attr, truth in targets.items():
            got = by_attr.get(attr.lower())
            values = got.guesses[: task.k] if got else []
            rank = first_match_rank(values, truth)
            per_target[attr] = rank if rank is not None else task.k + 1
            guesses += [Guess(value=v, target=attr, matched=(i + 1 == rank)) for i, v in enumerate(values)]
            if rank is not None and got:
                clues += [f"{attr}: {c}" for c in got.clues]
        score = min(per_target.values())
        return PrivacyResult(
            score=score, k=task.k, guesses=guesses, clues=clues, per_target=per_target, usage=usage_from(usage)
        )
