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

Generation is bounded by the input: ``max_tokens`` about 1.3x the text plus room for at most
4 edits, the new text capped at 1.3x the input's characters in the schema. The memory is sent as
the edits between earlier versions and their scores (:func:`format_memory`), not their text.
"""

from __future__ import annotations

import difflib
import re
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
MAX_EDITS = 4


class EditItem(BaseModel):
    before: capped(100)
    after: capped(100)
    operation: Literal["generalize", "obscure", "delete", "restore", "rewrite"]
    reason: capped(100)


class OptimizerAnswer(BaseModel):
    text: str
    edits: list[EditItem] = bounded(MAX_EDITS)
    rationale: capped(200)


MAX_MEMORY_CHANGES = 8  # changes listed per earlier version
_CHANGE_CHARS = 60


_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")


def _quote(text: str) -> str:
    t = " ".join(text.split())
    return '"' + (t if len(t) <= _CHANGE_CHARS else t[: _CHANGE_CHARS - 1] + "…") + '"'


def changes(before: str, after: str, limit: int = MAX_MEMORY_CHANGES) -> str:
    """The edits that turned ``before`` into ``after``, word level, changes only
    (``"Sacramento" -> "California"; deleted "in 1942"; added "..."``): what the memory sends
    instead of whole earlier versions. Changes separated only by white space are one change."""
    a, b = _TOKEN.findall(before), _TOKEN.findall(after)
    segs = [[op != "equal", "".join(a[i1:i2]), "".join(b[j1:j2])]
            for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()]
    for i in range(1, len(segs) - 1):  # white space between two changes joins them
        if not segs[i][0] and not segs[i][1].strip() and segs[i - 1][0] and segs[i + 1][0]:
            segs[i][0] = True
    merged: list[list] = []
    for seg in segs:
        if merged and seg[0] and merged[-1][0]:
            merged[-1][1] += seg[1]
            merged[-1][2] += seg[2]
        else:
            merged.append(seg)
    out = []
    for changed, old, new in merged:
        if not changed or not (old.strip() or new.strip()):
            continue
        if old.strip() and new.strip():
            out.append(f"{_quote(old)} -> {_quote(new)}")
        elif old.strip():
            out.append(f"deleted {_quote(old)}")
        else:
            out.append(f"added {_quote(new)}")
    if not out:
        return "no change"
    more = f"; {len(out) - limit} more" if len(out) > limit else ""
    return "; ".join(out[:limit]) + more


def format_memory(memory: list[MemoryEntry], k: int, current: str | None = None) -> str:
    """The earlier versions the optimizer remembers, oldest first: each with its scores and the
    edits that led from it to the next version (the last one to ``current``, the text the model
    edits now), never their whole text again: the current text carries what they kept."""
    if not memory:
        return "(no earlier versions)"
    lines = []
    for i, m in enumerate(memory):
        p = "not re-identified" if m.privacy_score is not None and m.privacy_score > k else f"rank {m.privacy_score}"
        u = "n/a" if m.utility_score is None else f"{m.utility_score * 100:.0f}/100"
        nxt = memory[i + 1].text if i + 1 < len(memory) else current
        if nxt is None:
            then = m.text
        elif nxt.strip() == m.text.strip():
            then = "the current text" if i + 1 == len(memory) else "no change"
        else:
            then = ("edits to the current text: " if i + 1 == len(memory) else "edits: ") + changes(m.text, nxt)
        lines.append(f"v{m.iteration} ({m.mode or 'original'}; privacy {p}; utility {u}): {then}")
    return "\n".join(lines)


def token_budget(text: str) -> int:
    """max_tokens of an optimizer call: the new text (at most 1.3x the input, which the guards
    allow; ``estimate_tokens`` already counts generously) plus the edit list and the rationale.
    A looping answer is cut here, so the bound is also what a loop costs."""
    return int(MAX_GROWTH * estimate_tokens(text)) + MAX_EDITS * 32 + 48


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
            memory=format_memory(memory, task.k, given),
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
