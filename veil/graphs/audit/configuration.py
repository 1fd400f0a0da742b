"""Configuration of the audit graph: :class:`AuditConfig` (what a caller sets: CLI flags, the
HTTP API) and :class:`AuditContext` (the runtime context nodes read: inputs and agents)."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from pydantic import BaseModel, Field, field_validator

Progress = Callable[[str, int, int], None]


class AuditConfig(BaseModel):
    aux: Literal["first3", "random3", "last3"] = Field(
        default="random3", description="the adversary's auxiliary knowledge: 3 claims per record"
    )
    seed: int = Field(default=0, ge=0, description="seed of random3 (per record: seeded with (seed, record index))")
    exclude_claims: str | None = Field(
        default=None, description="regex (case-insensitive); matching claims are never auxiliary knowledge"
    )
    linker: Literal["bm25", "dense", "lexical"] = "bm25"
    judge: Literal["llm", "local", "none"] = "local"
    atomizer: Literal["llm", "local"] = Field(default="local", description="used when no claims are supplied")
    k_votes: int = Field(default=3, ge=1, le=9, description="LLM judge: queries per record, majority vote per claim")
    temperature: float = Field(default=0.7, ge=0.0, le=2.0, description="LLM judge sampling temperature")
    chunk_size: int = Field(default=32, ge=1, le=10_000, description="records judged per checkpointed super-step")
    mapping: bool = Field(default=True, description="record i was sanitized into record i (linkage is defined)")

    @field_validator("exclude_claims")
    @classmethod
    def _regex(cls, v: str | None) -> str | None:
        if v:
            try:
                re.compile(v)
            except re.error as e:
                raise ValueError(f"invalid regular expression {v!r}: {e}") from e
        return v or None


def _sha(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def audit_id(
    originals: list[str],
    sanitized: list[str],
    config: AuditConfig,
    *,
    claims: list[list[str]] | None,
    ids: list[str] | None,
    judge: dict[str, Any] | None = None,
) -> str:
    """Stable id of an audit: a hash of the inputs, the configuration and the judge, used as
    the checkpointer's thread id (same inputs + options -> resume)."""
    digest = _sha(
        {
            "v": 1,
            "originals": _sha(originals),
            "sanitized": _sha(sanitized),
            "claims": _sha(claims) if claims is not None else None,
            "ids": _sha(ids) if ids is not None else None,
            "config": config.model_dump(mode="json"),
            "judge": {k: v for k, v in (judge or {}).items() if k in ("name", "model", "votes", "temperature")},
        }
    )
    return f"audit-{digest[:24]}"


@dataclass
class AuditContext:
    """Runtime context of one audit run (not checkpointed: the inputs are re-supplied on
    resume and their hash is the thread id)."""

    originals: list[str]
    sanitized: list[str]
    ids: list[str]
    sanitized_ids: list[str]
    config: AuditConfig
    judge: Any = None  # LocalJudge | LLMJudge | None
    atomizer: Any = None  # LocalAtomizer | LLMAtomizer
    progress: Progress | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def report_progress(self, stage: str, done: int, total: int) -> None:
        if self.progress is not None:
            try:
                self.progress(stage, done, total)
            except Exception:  # a broken progress bar must not fail the audit
                pass
