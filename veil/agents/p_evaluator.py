"""LLM P-Evaluator: an attacker LLM guesses the protected target (who is this? / the person's
attributes) top-K; the privacy score is the rank of the first correct guess (K+1 if none),
and the clues behind the correct guess become the optimizer's feedback (RUPTA §3.2).

Literal identifiers decide first (issue 12): when the ground-truth name, a distinctive part of
it, or a protected attribute value is still written in the text, the score is 1 whatever the
model guessed (:mod:`veil.agents.literal`). The model's own rank is kept beside it
(``attack_score``): on the untouched original it tells whether this attacker can re-identify
anybody at all, which decides between ``protected`` and ``unverified``."""

from __future__ import annotations

from pydantic import BaseModel, Field

from veil.agents import literal
from veil.agents.batch import Batch
from veil.agents.base import Guess, PrivacyEvaluator, PrivacyResult, Task, usage_from
from veil.llm import LLMClient, bounded, capped
from veil.matching import fold, first_match_rank
from veil.prompts import render

MAX_CLUES = 2


class IdentityGuess(BaseModel):
    name: capped(60)
    clues: list[capped(60)] = bounded(MAX_CLUES, description="phrases of the text that point to this person")


class IdentityAnswer(BaseModel):
    guesses: list[IdentityGuess]


class AttributeGuessSet(BaseModel):
    attribute: capped(40)
    guesses: list[capped(60)] = Field(description="best first")
    clues: list[capped(60)] = bounded(MAX_CLUES)


class AttributeAnswer(BaseModel):
    attributes: list[AttributeGuessSet]


def _unique(values: list[str]) -> list[str]:
    """Guesses without repeats (a small model lists one name again and again)."""
    seen: set[str] = set()
    out = []
    for v in values:
        key = fold(v)
        if key and key not in seen:
            seen.add(key)
            out.append(v)
    return out


def _literal_clues(mentions: list[literal.Mention]) -> list[str]:
    out = ["the name is still written in the text"] if any(m.target == "identity" for m in mentions) else []
    return out + sorted({f"{m.target} still written in the text: {m.what}" for m in mentions if m.target != "identity"})


class LLMPrivacyEvaluator(PrivacyEvaluator):
    engine = "llm"

    def __init__(self, client: LLMClient):
        self.client = client

    async def evaluate(self, text: str, task: Task, *, batch: Batch | None = None) -> PrivacyResult:
        if task.profile == "identity":
            return await self._identity(text, task)
        return await self._attributes(text, task)

    async def _identity(self, text: str, task: Task) -> PrivacyResult:
        messages = render("identity", "p_evaluator", text=text, k=task.k)
        answer, usage = await self.client.structured(
            messages, IdentityAnswer, agent="p_evaluator", caps={"guesses": {"maxItems": task.k}},
            max_tokens=48 + task.k * (24 + MAX_CLUES * 24),
        )
        by_name: dict[str, IdentityGuess] = {}
        for g in answer.guesses:
            by_name.setdefault(fold(g.name), g)
        names = _unique([g.name for g in answer.guesses])[: task.k]
        rank = first_match_rank(names, task.name) if task.name else None
        attack = rank if rank is not None else task.k + 1
        clues = list(by_name[fold(names[rank - 1])].clues) if rank is not None else []
        mentions = literal.find(text, task.name) if task.name else []
        score = 1 if mentions else attack
        guesses = [Guess(value=n, target="identity", matched=(i + 1 == rank)) for i, n in enumerate(names)]
        return PrivacyResult(
            score=score, k=task.k, guesses=guesses, clues=_literal_clues(mentions) + clues,
            per_target={"identity": score}, attack_score=attack,
            explanation="the name is still written in the text" if mentions else "", usage=usage_from(usage),
        )

    async def _attributes(self, text: str, task: Task) -> PrivacyResult:
        targets = task.attributes
        if not targets:  # nothing to protect was given or inferred: nothing can be re-identified
            return PrivacyResult(score=task.k + 1, k=task.k, explanation="no target attributes")
        prompt_set = "attributes" if task.profile == "attributes" else "generic"
        messages = render(prompt_set, "p_evaluator", text=text, k=task.k, attributes=", ".join(sorted(targets)))
        answer, usage = await self.client.structured(
            messages, AttributeAnswer, agent="p_evaluator",
            caps={"attributes": {"maxItems": len(targets)}, "AttributeGuessSet.guesses": {"maxItems": task.k}},
            max_tokens=32 + len(targets) * (24 + task.k * 20 + MAX_CLUES * 24),
        )
        by_attr: dict[str, AttributeGuessSet] = {}
        for a in answer.attributes:
            by_attr.setdefault(a.attribute.strip().lower(), a)
        mentions = literal.find(text, None, targets)
        per_target: dict[str, int] = {}
        attack_ranks: list[int] = []
        guesses: list[Guess] = []
        clues: list[str] = _literal_clues(mentions)
        for attr, truth in targets.items():
            got = by_attr.get(attr.lower())
            values = _unique(got.guesses)[: task.k] if got else []
            rank = first_match_rank(values, truth)
            attack_ranks.append(rank if rank is not None else task.k + 1)
            written = any(m.target == attr for m in mentions)
            per_target[attr] = 1 if written else attack_ranks[-1]
            guesses += [Guess(value=v, target=attr, matched=(i + 1 == rank)) for i, v in enumerate(values)]
            if rank is not None and got:
                clues += [f"{attr}: {c}" for c in got.clues]
        return PrivacyResult(
            score=min(per_target.values()), k=task.k, guesses=guesses, clues=clues, per_target=per_target,
            attack_score=min(attack_ranks),
            explanation="a protected value is still written in the text" if mentions else "", usage=usage_from(usage),
        )
