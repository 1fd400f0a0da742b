"""Common bases and result types of veil's agents.

Like sentence-transformers' evaluators, every evaluator has one entry point
(:meth:`Evaluator.evaluate`) and one ``primary_metric`` that its result exposes as ``score``;
like Presidio's recognizers, implementations register themselves under an engine name
(``llm`` or ``local``) so that :func:`veil.agents.build_engine` can assemble a set.
Every result carries its explanation (clues, evidence, rationale) and the usage it cost.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from veil.agents.batch import Batch
from veil.documents import Profile

Mode = Literal["privacy", "utility"]


class CallUsage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    latency_ms: float = 0.0

    def __add__(self, other: "CallUsage") -> "CallUsage":
        return CallUsage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            calls=self.calls + other.calls,
            latency_ms=self.latency_ms + other.latency_ms,
        )


class Guess(BaseModel):
    value: str
    target: str = Field(default="identity", description="'identity' or the attribute guessed")
    matched: bool = False


class PrivacyResult(BaseModel):
    """Privacy score = 1-based rank of the first correct guess among the top K; K+1 when none."""

    score: int
    k: int
    guesses: list[Guess] = Field(default_factory=list)
    clues: list[str] = Field(default_factory=list, description="what led to the correct guess")
    per_target: dict[str, int] = Field(default_factory=dict, description="rank per protected target")
    explanation: str = ""
    verified: bool = Field(default=True, description="an attack against a population produced the score; False when "
                           "no attacker could run (a single document, no knowledge base)")
    protections: list[str] = Field(default_factory=list, description="what was applied when no attack could verify it")
    attack_score: int | None = Field(default=None, description="the attacker's own rank, before literal identifiers "
                                     "still written in the text set the score to 1; None when the score is that rank")
    usage: CallUsage = Field(default_factory=CallUsage)


class UtilityResult(BaseModel):
    """Utility score in [0, 1]: confidence that the text still supports the label / task."""

    score: float
    label: str | None = None
    explanation: str = ""
    usage: CallUsage = Field(default_factory=CallUsage)


class AttributeInference(BaseModel):
    attribute: str
    guesses: list[str] = Field(default_factory=list, description="top-3, best first")
    certainty: int = Field(default=1, ge=1, le=5)
    evidence: str = ""


class InferenceResult(BaseModel):
    inferences: list[AttributeInference] = Field(default_factory=list)
    usage: CallUsage = Field(default_factory=CallUsage)

    def targets(self, min_certainty: int = 3) -> dict[str, str]:
        """Top guesses certain enough to be protected when no ground truth is given."""
        return {i.attribute: i.guesses[0] for i in self.inferences if i.guesses and i.certainty >= min_certainty}


class Edit(BaseModel):
    """One change the optimizer made: ``before`` -> ``after`` and why (explanations are results)."""

    before: str
    after: str
    operation: Literal["generalize", "obscure", "delete", "restore", "rewrite"] = "generalize"
    reason: str = ""


class OptimizerResult(BaseModel):
    text: str
    edits: list[Edit] = Field(default_factory=list)
    rationale: str = ""
    rejected: str | None = Field(default=None, description="why the model's answer was rejected (after its retry); "
                                 "``text`` is then the input with only deterministic edits")
    usage: CallUsage = Field(default_factory=CallUsage)


class MemoryEntry(BaseModel):
    """What the optimizer sees of an earlier iteration."""

    iteration: int
    text: str
    privacy_score: int | None
    utility_score: float | None
    mode: str | None
    clues: list[str] = Field(default_factory=list)


class Task(BaseModel):
    """What one anonymization run protects and preserves (derived from the document + config)."""

    profile: Profile = "identity"
    k: int = 10
    p_max: int = 10
    name: str | None = None
    attributes: dict[str, str] = Field(default_factory=dict)
    label: str | None = None
    original: str = ""
    doc_id: str = ""

    def privacy_met(self, score: int) -> bool:
        """The one definition of "privacy target met": the truth ranks at p_max or beyond."""
        return score >= self.p_max


PrivacyStatus = Literal["protected", "re-identified", "unverified"]


def privacy_status(task: Task, score: int, *, verified: bool, original_score: int | None) -> PrivacyStatus:
    """What a user may conclude from a run:

    - ``re-identified``: the attacker still finds the person (rank below p_max);
    - ``unverified``: the attacker does not find the person, but it could not find them in the
      untouched original either, or no attack could run at all: that certifies nothing;
    - ``protected``: an attacker that re-identifies the original no longer does.
    """
    if not task.privacy_met(score):
        return "re-identified"
    if not verified or original_score is None or task.privacy_met(original_score):
        return "unverified"
    return "protected"


class Agent(ABC):
    """Base of all agents. ``engine`` is the registry key of the family it belongs to.

    Agents are stateless across batches: what a batch of documents gives them (population,
    release pool, classifier, pseudonyms) comes with every call as the ``batch`` argument, the
    :class:`veil.agents.batch.Batch` that their engine's ``prepare`` built."""

    engine: ClassVar[str] = ""
    role: ClassVar[str] = ""


class Evaluator(Agent):
    primary_metric: ClassVar[str] = "score"


class PrivacyEvaluator(Evaluator):
    role = "p_evaluator"
    primary_metric = "rank_of_truth"

    @abstractmethod
    async def evaluate(self, text: str, task: Task, *, batch: Batch | None = None) -> PrivacyResult: ...


class UtilityEvaluator(Evaluator):
    role = "u_evaluator"
    primary_metric = "label_confidence"

    @abstractmethod
    async def evaluate(self, text: str, task: Task, *, batch: Batch | None = None) -> UtilityResult: ...


class AttributeInferrer(Agent):
    role = "inferrer"

    @abstractmethod
    async def infer(self, text: str, task: Task, *, batch: Batch | None = None) -> InferenceResult: ...


class Optimizer(Agent):
    role = "optimizer"
    # True for an optimizer with a policy of its own that every document gets whatever the attacker
    # makes of it (the local engine: direct identifiers, type-driven generalization): the graph then
    # never hands the untouched original back, even where iteration 0 already meets the targets
    # ("I was born in 1951 in Rutland." came back unchanged with a note saying the policy was applied)
    edits_every_document: ClassVar[bool] = False

    @abstractmethod
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
    ) -> OptimizerResult: ...


def usage_from(u: Any) -> CallUsage:
    """Convert a veil.llm.Usage into the result model."""
    return CallUsage(
        prompt_tokens=u.prompt_tokens, completion_tokens=u.completion_tokens, calls=u.calls, latency_ms=u.latency_ms
    )
