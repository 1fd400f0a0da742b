"""The audit graph's state: narrow and JSON-serialisable (the SQLite checkpointer stores it).
The texts themselves are not state: they come with the runtime context, and their hash is the
thread id, so a resumed audit is the same audit."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict


def merge(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Reducer: per-record results of successive chunks accumulate."""
    out = dict(left or {})
    out.update(right or {})
    return out


def add_seconds(left: dict[str, float] | None, right: dict[str, float] | None) -> dict[str, float]:
    out = dict(left or {})
    for k, v in (right or {}).items():
        out[k] = round(out.get(k, 0.0) + v, 4)
    return out


class Link(TypedDict):
    linked: int  # index of the linked sanitized record
    score: float  # the linker's score
    correct: bool | None  # None without a known mapping
    lexical_privacy: float  # 1 - ROUGE-L F1(original, linked record)


class Verdict(TypedDict, total=False):
    claim: int  # index into the record's claims
    rating: int  # 1 same, 2 similar, 3 unsupported (after the majority vote)
    votes: list[int]
    evidence: str
    score: float  # local judge: cosine
    coverage: float  # local judge: share of content words found
    no_votes: bool


class AuditState(TypedDict, total=False):
    audit_id: str
    claims: list[list[str]]  # per original record
    claims_source: str  # "supplied" | "llm" | "local"
    aux: list[list[int]]  # per record: indices of the auxiliary claims
    links: list[Link]  # per record
    judged: Annotated[dict[str, list[Verdict]], merge]  # str(record index) -> verdicts
    next_record: int  # first record not judged yet
    timings: Annotated[dict[str, float], add_seconds]
    report: dict[str, Any]
