"""The anonymize graph's state: narrow, JSON-serialisable (the SQLite checkpointer stores it)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict


def add_usage(left: dict[str, float] | None, right: dict[str, float] | None) -> dict[str, float]:
    """Reducer: token and latency counters add up across nodes."""
    out = dict(left or {})
    for key, value in (right or {}).items():
        out[key] = out.get(key, 0) + value
    return out


class BestSoFar(TypedDict):
    iteration: int
    text: str
    privacy_score: int
    utility_score: float


class AnonymizeState(TypedDict, total=False):
    run_id: str
    doc_id: str
    original: str
    task: dict[str, Any]  # veil.agents.base.Task as a dict
    text: str  # the current version
    iteration: int  # 0 = the original; n = after the n-th optimizer edit
    mode: Literal["privacy", "utility"] | None  # the mode that produced the current version
    edits: list[dict[str, Any]]  # edits that produced the current version
    pending_usage: dict[str, float]  # optimizer usage of the current version, recorded with it
    privacy: dict[str, Any]  # PrivacyResult of the current version
    utility: dict[str, Any]  # UtilityResult of the current version
    best: BestSoFar
    unchanged: int  # consecutive optimizer rounds that changed nothing
    stop_reason: str
    original_privacy: int  # the P-Evaluator's score of the original (iteration 0)
    verified: bool  # False once a P-Evaluator result came from no attack at all
    protections: list[str]  # what was applied when no attack could verify it
    rejections: list[dict[str, Any]]  # optimizer answers rejected by the guards: iteration, mode, reason
    started_at: float  # wall clock (time.time()) when the document's loop began: the time budget counts from it
    usage: Annotated[dict[str, float], add_usage]
