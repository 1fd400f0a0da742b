"""LLM optimizer (RUPTA §3.4): edits the text from the evaluators' feedback and the memory of
earlier edits with their scores. Privacy mode anonymizes further; utility mode restores what
the task needs without giving back the privacy reached. Edits generalize truthfully, obscure
or delete; the prompt forbids inventing facts."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from veil.agents.base import (
    Edit,
    MemoryEntry,
    Mode,
    Optimizer,
    OptimizerResult,
    PrivacyResult,
    Task,
    UtilityResult,
    usage_from,
)
from veil.llm import LLMClient
from veil.prompts import render


class EditItem(BaseModel):
    before: str
    after: str
    operation: Literal["generalize", "obscure", "delete", "restore", "rewrite"]
    reason: str


class OptimizerAnswer(BaseModel):
    text: str
    edits: list[EditItem]
    rationale: str


def format_memory(memory: list[MemoryEntry], k: int) -> str:
    if not memory:
        return "(no earlier versions)"
    blocks = []
    for m in memory:
        p = "not re-identified" if m.privacy_score is not None and m.privacy_score > k else f"rank {m.privacy_score}"
        u = "n/a" if m.utility_score is None else f"{m.utility_score * 100:.0f}/100"
        blocks.append(f"[version {m.iteration} | privacy: {p} | utility: {u} | mode: {m.mode or 'original'}]\n{m.text}")
    return "\n\n".join(blocks)


class LLMOptimizer(Optimizer):
    engine = "llm"

    def __init__(self, client: LLMClient):
        self.client = client

    async def optimize(
        self,
        text: str,
        task: Task,
        mode: Mode,
        privacy: PrivacyResult,
        utility: UtilityResult,
        memory: list[MemoryEntry],
    ) -> OptimizerResult:
        instruction = render(task.profile, f"optimizer_{mode}_mode", p_max=task.p_max, k=task.k)[0]["content"]
        feedback = "; ".join(privacy.clues) if privacy.clues else "(the attacker found no specific clue)"
        messages = render(
            task.profile,
            "optimizer",
            text=text,
            memory=format_memory(memory, task.k),
            instruction=instruction,
            feedback=feedback,
            privacy=("not re-identified" if task.privacy_met(privacy.score) else f"re-identified at rank {privacy.score}"),
            utility=f"{utility.score * 100:.0f}/100",
            label=task.label or "(none given)",
        )
        answer, usage = await self.client.structured(messages, OptimizerAnswer, agent="optimizer")
        new_text = answer.text.strip() or text
        return OptimizerResult(
            text=new_text,
            edits=[Edit(**e.model_dump()) for e in answer.edits],
            rationale=answer.rationale,
            usage=usage_from(usage),
        )
