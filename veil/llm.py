"""Async client for any OpenAI-compatible endpoint (vLLM by default) with structured outputs.

Every call asks for JSON that follows a pydantic model's schema (``response_format`` with
``json_schema``, which vLLM's guided decoding supports), validates the answer with that model,
and retries a bounded number of times with exponential backoff on: HTTP 5xx / 429, connection
errors, timeouts, invalid JSON, and truncated output (``finish_reason == "length"``). After the
last try it raises a typed :class:`~veil.errors.LLMError`; callers decide whether that fails one
document or the request, never the whole batch.

Token usage and latency of each call are accumulated in a :class:`UsageMeter`.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeVar

import aiohttp
import openai
from openai.types.chat import ChatCompletion
from pydantic import BaseModel, ValidationError

from veil.errors import LLMError, LLMOutputError, LLMTimeoutError, LLMUnavailableError
from veil.logging import get_logger

log = get_logger(__name__)
M = TypeVar("M", bound=BaseModel)

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"  # where `vllm serve MODEL` listens by default


class LLMSettings(BaseModel):
    """Where the LLM lives. Read from flags, else env (VEIL_LLM_BASE_URL, VEIL_LLM_MODEL,
    VEIL_LLM_API_KEY, falling back to OPENAI_BASE_URL / OPENAI_API_KEY)."""

    base_url: str = DEFAULT_BASE_URL
    model: str = "default"
    api_key: str = "EMPTY"  # vLLM accepts any key unless started with --api-key
    timeout_s: float = 60.0
    max_retries: int = 3
    backoff_s: float = 0.5
    temperature: float = 0.0
    max_tokens: int = 2048

    @classmethod
    def from_env(cls, **overrides: Any) -> "LLMSettings":
        env = os.environ
        values: dict[str, Any] = {
            "base_url": env.get("VEIL_LLM_BASE_URL") or env.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL,
            "model": env.get("VEIL_LLM_MODEL") or "default",
            "api_key": env.get("VEIL_LLM_API_KEY") or env.get("OPENAI_API_KEY") or "EMPTY",
        }
        if env.get("VEIL_LLM_TIMEOUT"):
            values["timeout_s"] = float(env["VEIL_LLM_TIMEOUT"])
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    retries: int = 0
    latency_ms: float = 0.0

    def add(self, other: "Usage") -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.calls += other.calls
        self.retries += other.retries
        self.latency_ms += other.latency_ms

    def as_dict(self) -> dict[str, float | int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "calls": self.calls,
            "retries": self.retries,
            "latency_ms": round(self.latency_ms, 1),
        }


@dataclass
class UsageMeter:
    """Totals over a client's lifetime plus per-agent totals."""

    total: Usage = field(default_factory=Usage)
    by_agent: dict[str, Usage] = field(default_factory=dict)

    def record(self, agent: str, usage: Usage) -> None:
        self.total.add(usage)
        self.by_agent.setdefault(agent, Usage()).add(usage)


@lru_cache(maxsize=None)
def _schema_format(model: type[BaseModel]) -> dict[str, Any]:
    """The ``response_format`` of a schema, built once per model (it costs ~2 ms a call)."""
    return {
        "type": "json_schema",
        "json_schema": {"name": model.__name__, "schema": model.model_json_schema(), "strict": True},
    }


def _refused(error: BaseException) -> bool:
    """True when a connection was refused somewhere down the exception chain."""
    seen = 0
    e: BaseException | None = error
    while e is not None and seen < 10:
        if isinstance(e, (ConnectionRefusedError, aiohttp.ClientConnectorError)):
            return True
        e = e.__cause__ or e.__context__
        seen += 1
    return False


def _extract_json(content: str) -> Any:
    """Parse the model's answer; tolerate a ```json fence some servers add."""
    text = content.strip()
    if text.startswith("```"):
        text = text.strip("`")
        if text.lower().startswith("json"):
            text = text[4:]
    return json.loads(text)


class LLMClient:
    def __init__(self, settings: LLMSettings | None = None, meter: UsageMeter | None = None):
        self.settings = settings or LLMSettings.from_env()
        self.meter = meter or UsageMeter()
        # max_retries=0: retries are ours, so that bad JSON and truncation are retried the
        # same way as transport errors, and every try is counted.
        # aiohttp transport: httpx's pool checks every pooled connection on each request, which
        # costs ~1 ms of event-loop CPU per call at 64 connections (benchmarks/throughput.py)
        self._client = openai.AsyncOpenAI(
            base_url=self.settings.base_url,
            api_key=self.settings.api_key,
            timeout=self.settings.timeout_s,
            max_retries=0,
            http_client=openai.DefaultAioHttpClient(timeout=self.settings.timeout_s),
        )

    async def aclose(self) -> None:
        await self._client.close()

    async def structured(
        self,
        messages: list[dict[str, str]],
        schema: type[M],
        *,
        agent: str,
        temperature: float | None = None,
    ) -> tuple[M, Usage]:
        """One chat completion whose answer must validate against ``schema``."""
        s = self.settings
        usage = Usage()
        last: Exception | None = None
        for attempt in range(s.max_retries + 1):
            if attempt:
                usage.retries += 1
                delay = s.backoff_s * (2 ** (attempt - 1)) * (0.5 + random.random())
                await asyncio.sleep(delay)
            t0 = time.perf_counter()
            try:
                # The client's own POST (same transport, auth, errors) with a ready JSON body:
                # chat.completions.create() walks messages and schema through its type
                # transforms on every call (~2-4 ms of event-loop CPU), which capped the batch
                # throughput at ~half the concurrency we ask for.
                resp = await self._client.post(
                    "/chat/completions",
                    cast_to=ChatCompletion,
                    body={
                        "model": s.model,
                        "messages": messages,
                        "temperature": s.temperature if temperature is None else temperature,
                        "max_tokens": s.max_tokens,
                        "response_format": _schema_format(schema),
                    },
                )
            except openai.APITimeoutError as e:
                if _refused(e):  # httpx-aiohttp reports a refused connection as a connect timeout
                    last = LLMUnavailableError(f"{agent}: cannot reach the LLM endpoint at {s.base_url}")
                    last.__cause__ = e
                    log.warning("llm_retry", agent=agent, attempt=attempt, reason="connection")
                    continue
                last = LLMTimeoutError(f"{agent}: the LLM endpoint timed out after {s.timeout_s:.0f}s")
                last.__cause__ = e
                log.warning("llm_retry", agent=agent, attempt=attempt, reason="timeout")
                continue
            except (openai.APIConnectionError, aiohttp.ClientConnectionError, ConnectionError) as e:
                # the aiohttp transport lets some connection errors through unwrapped
                last = LLMUnavailableError(f"{agent}: cannot reach the LLM endpoint at {s.base_url}")
                last.__cause__ = e
                log.warning("llm_retry", agent=agent, attempt=attempt, reason="connection")
                continue
            except openai.APIStatusError as e:
                if e.status_code >= 500 or e.status_code == 429:
                    last = LLMUnavailableError(f"{agent}: the LLM endpoint answered HTTP {e.status_code}")
                    last.__cause__ = e
                    log.warning("llm_retry", agent=agent, attempt=attempt, reason=f"http_{e.status_code}")
                    continue
                # 4xx other than 429: retrying will not help (bad model name, bad key, ...)
                raise LLMError(f"{agent}: the LLM endpoint refused the request (HTTP {e.status_code}): {e.message}") from e
            finally:
                usage.latency_ms += (time.perf_counter() - t0) * 1000
            usage.calls += 1
            if resp.usage is not None:
                usage.prompt_tokens += resp.usage.prompt_tokens or 0
                usage.completion_tokens += resp.usage.completion_tokens or 0
            choice = resp.choices[0] if resp.choices else None
            if choice is None or choice.message.content is None:
                last = LLMOutputError(f"{agent}: the LLM returned no content")
                log.warning("llm_retry", agent=agent, attempt=attempt, reason="empty")
                continue
            if choice.finish_reason == "length":
                last = LLMOutputError(f"{agent}: the LLM output was truncated (finish_reason=length)")
                log.warning("llm_retry", agent=agent, attempt=attempt, reason="length")
                continue
            try:
                parsed = schema.model_validate(_extract_json(choice.message.content))
            except (json.JSONDecodeError, ValidationError) as e:
                last = LLMOutputError(f"{agent}: the LLM answer is not valid JSON for {schema.__name__}")
                last.__cause__ = e
                log.warning("llm_retry", agent=agent, attempt=attempt, reason="invalid_json")
                continue
            self.meter.record(agent, usage)
            log.debug("llm_call", agent=agent, **usage.as_dict())
            return parsed, usage
        self.meter.record(agent, usage)
        assert last is not None
        log.error("llm_failed", agent=agent, error=type(last).__name__, **usage.as_dict())
        raise last
