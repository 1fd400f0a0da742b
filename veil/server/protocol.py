"""Request and response models of the HTTP API (the wire format), as in vLLM's
``entrypoints/openai/protocol.py``: OpenAI's chat-completions shapes plus veil's own REST API.

Stock OpenAI clients send fields veil ignores (temperature, top_p, ...): the chat request
allows extra fields. veil's per-call options travel in a namespaced ``veil`` object, which the
``openai`` client sends with ``extra_body={"veil": {...}}``; unknown option names are an error
(a typo must not silently fall back to a default).
"""

from __future__ import annotations

import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from veil.anonymizer import IterationUpdate
from veil.graphs.anonymize.configuration import RunOptions

ANONYMIZE_MODEL = "veil-anonymize"


# -- errors ----------------------------------------------------------------------------------


class ErrorInfo(BaseModel):
    message: str
    type: str
    param: str | None = None
    code: str | None = None


class ErrorResponse(BaseModel):
    error: ErrorInfo


# -- veil options ------------------------------------------------------------------------------


class VeilOptions(RunOptions):
    """Per-call options (the ``veil`` object of a chat request, ``options`` of /v1/anonymize):
    :class:`veil.graphs.anonymize.RunOptions` (every run option, its default and doc, declared
    once) plus the ground truth to protect."""

    name: str | None = Field(default=None, description="ground-truth identity to protect")
    attributes: dict[str, str] | None = Field(default=None, description="ground-truth attributes to protect")
    label: str | None = Field(default=None, description="downstream label the text must keep supporting")


# -- chat completions ----------------------------------------------------------------------------


class ContentPart(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str
    text: str | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: str
    content: str | list[ContentPart] | None = None

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        if not self.content:
            return ""
        return "".join(p.text or "" for p in self.content if p.type == "text")


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")
    include_usage: bool = False


class ChatCompletionRequest(BaseModel):
    model_config = ConfigDict(extra="allow")

    model: str
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    n: int | None = Field(default=None, ge=1, le=1)
    veil: VeilOptions | None = None


class UsageInfo(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    @classmethod
    def from_run(cls, usage: dict[str, float] | None) -> "UsageInfo":
        p = int((usage or {}).get("prompt_tokens", 0))
        c = int((usage or {}).get("completion_tokens", 0))
        return cls(prompt_tokens=p, completion_tokens=c, total_tokens=p + c)


class AssistantMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class ChatCompletionChoice(BaseModel):
    index: int = 0
    message: AssistantMessage
    finish_reason: Literal["stop"] = "stop"
    logprobs: None = None


class RunSummary(BaseModel):
    """veil's extra field on a completion: the scores of the run and where its trace is."""

    run_id: str
    privacy_score: int | None = None
    utility_score: float | None = None
    privacy_target_met: bool = False
    privacy_status: str | None = Field(default=None, description="protected | re-identified | unverified")
    privacy_note: str | None = Field(default=None, description="why unverified, and what to do about it")
    rejections: list[dict[str, Any]] = Field(default_factory=list, description="optimizer answers the guards rejected")
    iterations: int = 0
    stop_reason: str | None = None
    trace_url: str


class ChatCompletionResponse(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int = Field(default_factory=lambda: int(time.time()))
    model: str
    choices: list[ChatCompletionChoice]
    usage: UsageInfo
    veil: RunSummary


class DeltaMessage(BaseModel):
    role: Literal["assistant"] | None = None
    content: str | None = None


class ChunkChoice(BaseModel):
    index: int = 0
    delta: DeltaMessage
    finish_reason: Literal["stop"] | None = None
    logprobs: None = None


# a stream's per-iteration progress is the graph's own iteration report (one model)
IterationProgress = IterationUpdate


class ChatCompletionChunk(BaseModel):
    id: str
    object: Literal["chat.completion.chunk"] = "chat.completion.chunk"
    created: int
    model: str
    choices: list[ChunkChoice]
    usage: UsageInfo | None = None
    veil: IterationProgress | RunSummary | None = None


class ModelCard(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int = 0
    owned_by: str = "veil"
    description: str = ""


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


# -- veil REST -------------------------------------------------------------------------------


class DocumentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=200)
    text: str = Field(min_length=1)
    name: str | None = None
    label: str | None = None
    attributes: dict[str, str] | None = None


class AnonymizeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    documents: list[DocumentIn] = Field(min_length=1, max_length=1000)
    options: VeilOptions | None = None


class DocumentResult(BaseModel):
    id: str
    run_id: str
    status: str
    anonymized_text: str | None = None
    privacy_score: int | None = None
    utility_score: float | None = None
    privacy_target_met: bool = False
    privacy_status: str | None = None
    privacy_note: str | None = None
    iterations: int = 0
    stop_reason: str | None = None
    usage: UsageInfo
    seconds: float = 0.0
    error: str | None = None
    trace_url: str


class AnonymizeResponse(BaseModel):
    object: Literal["list"] = "list"
    data: list[DocumentResult]
    usage: UsageInfo
    failed: int = 0


class AuditRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    originals: list[str] = Field(min_length=1)
    sanitized: list[str] = Field(min_length=1)
    ids: list[str] | None = None
    claims: Any = None
    options: dict[str, Any] = Field(default_factory=dict, description="fields of veil.graphs.audit.AuditConfig")
    wait: bool = Field(default=False, description="answer when the audit is done instead of 202 + polling")


class RunInfo(BaseModel):
    id: str
    object: Literal["veil.run"] = "veil.run"
    kind: str
    status: str
    doc_id: str | None = None
    created_at: float
    updated_at: float
    config: dict[str, Any] | None = None
    result: Any = None
    error: str | None = None
    iterations: list[dict[str, Any]] = Field(default_factory=list)
    trace_url: str | None = None
    url: str
