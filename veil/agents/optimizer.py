"""LLM optimizer (RUPTA §3.4): edits the text from the evaluators' feedback and the memory of
earlier edits with their scores. Privacy mode anonymizes further; utility mode restores what
the task needs without giving back the privacy reached. Edits generalize truthfully, obscure
or delete; inventing facts is refused in code (:mod:`veil.agents.guards`), not only in the prompt.

Around the model, deterministic steps (issue 12):

1. literal identifiers first: the subject's name (and any part of it) is replaced by the role
   noun before the model sees the text, in the memory too (:mod:`veil.agents.literal`);
2. the model's answer must pass the guards; a rejected answer is retried once at a higher
   temperature (:class:`~veil.llm.LLMClient`), then the result is the input with only the
   deterministic edits and the reason (``OptimizerResult.rejected``): the graph keeps its best
   version so far and records why;
3. a name or protected attribute value the answer still writes is removed the same way.

Generation is bounded by the input: ``max_tokens`` about 1.5x the text plus room for the edits,
the new text capped at 1.3x the input's characters in the schema.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from veil.agents import literal
from veil.agents.batch import Batch
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
from veil.agents.guards import MAX_GROWTH, optimizer_answer_problem
from veil.errors import LLMOutputError
from veil.llm import LLMClient, Usage, bounded, capped, estimate_tokens
from veil.logging import get_logger
from veil.prompts import render

log = get_logger(__name__)
MAX_EDITS = 6


class EditItem(BaseModel):
    before: capped(100)
    after: capped(100)
    operation: Literal["generalize", "obscure", "delete", "restore", "rewrite"]
    reason: capped(100)


class OptimizerAnswer(BaseModel):
    text: str
    edits: list[EditItem] = bounded(MAX_EDITS)
    rationale: capped(200)


def format_memory(memory: list[MemoryEntry], k: int) -> str:
    if not memory:
        return "(no earlier versions)"
    blocks = []
    for m in memory:
        p = "not re-identified" if m.privacy_score is not None and m.privacy_score > k else f"rank {m.privacy_score}"
        u = "n/a" if m.utility_score is None else f"{m.utility_score * 100:.0f}/100"
        blocks.append(f"[version {m.iteration} | privacy: {p} | utility: {u} | mode: {m.mode or 'original'}]\n{m.text}")
    return "\n\n".join(blocks)


def token_budget(text: str) -> int:
    """max_tokens of an optimizer call: the new text (about 1.5x the input's tokens) plus the
    edit list and the rationale."""
    return int(1.5 * estimate_tokens(text)) + MAX_EDITS * 40 + 80


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
        *,
        batch: Batch | None = None,
    ) -> OptimizerResult:
        given, pre_edits = literal.scrub(text, task.name, label=task.label, include_attributes=False)
        memory = [m.model_copy(update={"text": literal.scrub(m.text, task.name, label=task.label,
                                                             include_attributes=False)[0]}) for m in memory]
        instruction = render(task.profile, f"optimizer_{mode}_mode", p_max=task.p_max, k=task.k)[0]["content"]
        # the model's clues may quote the name: it is removed there too, never handed back to the model
        clues = [literal.scrub(c, task.name, label=task.label, include_attributes=False)[0] for c in privacy.clues]
        feedback = "; ".join(clues) if clues else "(the attacker found no specific clue)"
        messages = render(
            task.profile,
            "optimizer",
            text=given,
            memory=format_memory(memory, task.k),
            instruction=instruction,
            feedback=feedback,
            privacy=("not re-identified" if task.privacy_met(privacy.score) else f"re-identified at rank {privacy.score}"),
            utility=f"{utility.score * 100:.0f}/100",
            label=task.label or "(none given)",
        )

        def check(answer: OptimizerAnswer) -> str | None:
            return optimizer_answer_problem(answer.text, given=given, original=task.original, mode=mode,
                                            answer=answer.model_dump())

        try:
            answer, usage = await self.client.structured(
                messages, OptimizerAnswer, agent="optimizer", check=check, max_tokens=token_budget(given),
                caps={"text": {"maxLength": int(MAX_GROWTH * len(given)) + 20}},
            )
        except LLMOutputError as e:  # still bad after the retry: deterministic edits only
            reason = getattr(e, "reason", None) or str(e).split(": ", 1)[-1]
            spent = getattr(e, "usage", None) or Usage()
            log.warning("optimizer_rejected", doc_id=task.doc_id, mode=mode, reason=reason, chars=len(given))
            return OptimizerResult(text=given, edits=[Edit(**d) for d in pre_edits], rejected=reason,
                                   rationale=f"model answer rejected: {reason}", usage=usage_from(spent))
        new_text, post_edits = literal.scrub(answer.text.strip(), task.name, task.attributes, label=task.label)
        return OptimizerResult(
            text=new_text,
            edits=[Edit(**d) for d in pre_edits] + [Edit(**e.model_dump()) for e in answer.edits]
            + [Edit(**d) for d in post_edits],
            rationale=answer.rationale,
            usage=usage_from(usage),
        )
