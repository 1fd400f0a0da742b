"""Async client for any OpenAI-compatible endpoint (vLLM, llama.cpp, OpenAI) with structured outputs.

Every call asks for JSON that follows a pydantic model's schema and validates the answer with
that model. How the schema travels depends on the endpoint (``structured_output``):

- ``json_schema``: OpenAI's ``response_format={"type": "json_schema", "json_schema": {...}}``
  (OpenAI, vLLM);
- ``json_object``: ``response_format={"type": "json_object", "schema": {...}}`` (llama-cpp-python,
  which turns the schema into a grammar; ``maxLength`` is left out there, see :func:`_format_body`);
- ``structured_outputs``: vLLM's ``structured_outputs={"json": {...}}`` in the body
  (``extra_body``; the field that replaced ``guided_json``);
- ``guided_json``: vLLM's older ``guided_json`` field in the body (vLLM before 0.12, which removed
  it: a later vLLM answers HTTP 200 and ignores it, so the output is NOT constrained);
- ``prompt``: the schema in the system prompt only, then validation;
- ``auto`` (default): one tiny probe per endpoint (``json_schema``, then ``json_object``, else
  ``prompt``), cached for the process (:func:`endpoint_info`).

Generation is bounded: each agent asks for the ``max_tokens`` its input needs (never more than
``LLMSettings.max_tokens``) and its schema caps lists and strings (``maxItems``, ``maxLength``).
JSON is parsed tolerantly (``strict=False``: raw control characters inside strings, a fence, text
after the object).

Retries are bounded and typed. Transport failures (HTTP 5xx / 429, connection errors, timeouts)
are retried ``max_retries`` times with exponential backoff. A bad answer (invalid JSON, not the
schema, truncated at ``max_tokens`` — usually a repetition loop —, or refused by the caller's
``check``) is retried ``output_retries`` times at ``retry_temperature``: greedy decoding would
only repeat it. After the last try a typed :class:`~veil.errors.LLMError` carries the endpoint's
own error message and the ``usage`` the tries cost; callers decide whether that fails one
document or keeps its best version so far, never the whole batch.

Requests to one endpoint are limited to ``concurrency`` in flight (default from the endpoint's
kind: 1 for llama.cpp, which serves one request at a time, unlimited otherwise); the timeout
counts from when a request is sent, not from when it was queued.

Token usage and latency of each call are accumulated in a :class:`UsageMeter`.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import random
import re
import time
import weakref
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Annotated, Any, Callable, Literal, TypeVar

import aiohttp
import openai
from openai.types.chat import ChatCompletion
from pydantic import BaseModel, Field, ValidationError

from veil.errors import LLMError, LLMOutputError, LLMRejectedError, LLMTimeoutError, LLMUnavailableError
from veil.logging import get_logger

log = get_logger(__name__)
M = TypeVar("M", bound=BaseModel)

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"  # where `vllm serve MODEL` listens by default
StructuredMode = Literal["auto", "json_schema", "json_object", "structured_outputs", "guided_json", "prompt"]
MODES: tuple[str, ...] = ("json_schema", "json_object", "structured_outputs", "guided_json", "prompt")
PROBE_SCHEMA_NAME = "VeilProbe"


class LLMSettings(BaseModel):
    """Where the LLM lives. Read from flags, else env (VEIL_LLM_BASE_URL, VEIL_LLM_MODEL,
    VEIL_LLM_API_KEY, falling back to OPENAI_BASE_URL / OPENAI_API_KEY; VEIL_LLM_TIMEOUT,
    VEIL_LLM_STRUCTURED_OUTPUT, VEIL_LLM_CONCURRENCY)."""

    base_url: str = DEFAULT_BASE_URL
    model: str = "default"
    api_key: str = "EMPTY"  # vLLM accepts any key unless started with --api-key
    timeout_s: float = 60.0  # per request, counted from when it is sent
    max_retries: int = 3  # transport failures (5xx, 429, connection, timeout)
    backoff_s: float = 0.5
    temperature: float = 0.0
    max_tokens: int = 2048  # upper bound; each call asks for what its input needs
    structured_output: StructuredMode = "auto"
    concurrency: int | None = None  # requests in flight per endpoint; None: from the endpoint kind
    output_retries: int = 1  # bad answers (invalid JSON, truncated, rejected) are retried this often...
    retry_temperature: float = 0.8  # ...at this temperature

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
        if env.get("VEIL_LLM_STRUCTURED_OUTPUT"):
            values["structured_output"] = env["VEIL_LLM_STRUCTURED_OUTPUT"]
        if env.get("VEIL_LLM_CONCURRENCY"):
            values["concurrency"] = int(env["VEIL_LLM_CONCURRENCY"])
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


# -- endpoints -------------------------------------------------------------------------------


@dataclass(frozen=True)
class EndpointInfo:
    """What veil learnt about an endpoint: its kind (from ``GET /models``' ``owned_by``) and the
    structured-output mode it accepts."""

    kind: str  # llamacpp | vllm | openai | other
    mode: str  # one of MODES
    detail: str = ""  # how the mode was chosen (the probe's findings, never any text)

    def default_concurrency(self) -> int | None:
        return 1 if self.kind == "llamacpp" else None


_ENDPOINTS: dict[tuple[str, str], EndpointInfo] = {}  # (base_url, model) -> what the probe found
# event loop -> (base_url, model, limit) -> the endpoint's request slots
_SLOTS: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, str, int], asyncio.Semaphore]]" = (
    weakref.WeakKeyDictionary())


def known_endpoint(base_url: str, model: str) -> EndpointInfo | None:
    return _ENDPOINTS.get((base_url.rstrip("/"), model))


def forget_endpoints(base_url: str | None = None) -> None:
    """Drop the probe cache (a restarted endpoint may have changed), or only what it holds for
    ``base_url`` (a new server on a port an earlier one used is another endpoint)."""
    if base_url is None:
        _ENDPOINTS.clear()
        return
    for key in [k for k in _ENDPOINTS if k[0] == base_url.rstrip("/")]:
        del _ENDPOINTS[key]


_KINDS = {"me": "llamacpp", "llamacpp": "llamacpp", "llama.cpp": "llamacpp", "vllm": "vllm", "openai": "openai",
          "system": "openai", "openai-internal": "openai"}


# -- schemas ---------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def _base_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON schema, built once (it costs ~2 ms a call)."""
    return model.model_json_schema()


def schema_for(model: type[BaseModel], caps: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The JSON schema sent for ``model``; ``caps`` adds bounds per property: ``{"text":
    {"maxLength": 900}}`` for a top-level property, ``{"IdentityGuess.name": {...}}`` for a
    property of a nested model."""
    base = _base_schema(model)
    if not caps:
        return base
    schema = copy.deepcopy(base)
    for path, bounds in caps.items():
        owner, _, prop = path.rpartition(".")
        node = schema if not owner or owner == model.__name__ else schema.get("$defs", {}).get(owner)
        if node is None or prop not in node.get("properties", {}):
            raise KeyError(f"no property {path!r} in the schema of {model.__name__}")
        node["properties"][prop].update(bounds)
    return schema


def capped(max_length: int) -> Any:
    """A string type whose schema says ``maxLength`` (the grammar stops it there); validation
    stays lenient, so an endpoint that ignores the bound is not failed for it."""
    return Annotated[str, Field(json_schema_extra={"maxLength": max_length})]


def bounded(max_items: int, **field: Any) -> Any:
    """``Field`` of a list whose schema says ``maxItems`` (lenient validation, like :func:`capped`)."""
    return Field(json_schema_extra={"maxItems": max_items}, **field)


def estimate_tokens(text: str) -> int:
    """A generous token count of English text for budgets (about 3 characters a token; real
    tokenizers give 4 or more)."""
    return len(text) // 3 + 1


def _without(schema: Any, keyword: str) -> Any:
    if isinstance(schema, dict):
        return {k: _without(v, keyword) for k, v in schema.items() if k != keyword}
    if isinstance(schema, list):
        return [_without(v, keyword) for v in schema]
    return schema


def _format_body(mode: str, name: str, schema: dict[str, Any]) -> dict[str, Any]:
    if mode == "json_object":
        # llama-cpp-python's grammar spells a maxLength out as that many optional characters:
        # one 18-token answer took 22 s with maxLength 200 against 0.4 s without (SmolLM2-135M,
        # 2 busy cores). Strings stay bounded by max_tokens; lists keep their maxItems.
        schema = _without(schema, "maxLength")
    if mode == "json_schema":
        return {"response_format": {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}}
    if mode == "json_object":
        return {"response_format": {"type": "json_object", "schema": schema}}
    if mode == "structured_outputs":
        return {"structured_outputs": {"json": schema}}
    if mode == "guided_json":
        return {"guided_json": schema}
    return {}


def _schema_in_prompt(messages: list[dict[str, str]], schema: dict[str, Any]) -> list[dict[str, str]]:
    """``prompt`` mode: the schema is stated in the system message."""
    note = ("Answer with one JSON object and nothing else. It must follow this JSON schema:\n"
            + json.dumps(schema, separators=(",", ":")))
    out = [dict(m) for m in messages]
    for m in out:
        if m.get("role") == "system":
            m["content"] = f"{m['content']}\n\n{note}"
            return out
    return [{"role": "system", "content": note}, *out]


# -- errors and parsing ----------------------------------------------------------------------


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


_INPUT_ECHO = re.compile(r"""(['"]input['"]:\s*)(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^,}]*)""")


def _being_cancelled() -> bool:
    """The current task has a cancellation pending (Python 3.11's ``Task.cancelling``)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def endpoint_message(error: openai.APIStatusError, limit: int = 300) -> str:
    """The endpoint's own error message, short and without a traceback or an echo of the input
    (pydantic validation errors repeat the offending value; that value may be text)."""
    body = error.body
    msg: Any = None
    if isinstance(body, dict):
        inner = body.get("error", body)
        msg = inner.get("message") if isinstance(inner, dict) else inner
    msg = str(msg or error.message or "")
    msg = msg.split('\n  File "', 1)[0]
    msg = _INPUT_ECHO.sub(r"\1…", msg)
    msg = " ".join(msg.split())
    return msg if len(msg) <= limit else msg[: limit - 1] + "…"


def _extract_json(content: str) -> Any:
    """Parse the model's answer tolerantly: a ```json fence, text before or after the object and
    raw control characters inside strings (small models emit them) are all accepted."""
    text = content.strip()
    if text.startswith("```"):
        text = text.strip("`")
        if text.lower().startswith("json"):
            text = text[4:]
    decoder = json.JSONDecoder(strict=False)
    try:
        return decoder.decode(text.strip())
    except json.JSONDecodeError:
        start = text.find("{")
        if start < 0:
            raise
        value, _ = decoder.raw_decode(text[start:])
        return value


def repeated_items(value: Any, *, min_len: int = 3) -> str | None:
    """A degenerate answer: some list of ``min_len`` or more items is mostly one item repeated
    (what a model stuck in a loop writes). Returns where, or None."""
    def walk(v: Any, path: str) -> str | None:
        if isinstance(v, list):
            if len(v) >= min_len:
                keys = [json.dumps(x, sort_keys=True) for x in v]
                if len(set(keys)) * 2 <= len(keys):
                    return f"{path or 'list'}: {len(keys)} items, {len(set(keys))} distinct"
            for i, x in enumerate(v):
                if (r := walk(x, f"{path}[{i}]")) is not None:
                    return r
        elif isinstance(v, dict):
            for k, x in v.items():
                if (r := walk(x, f"{path}.{k}" if path else k)) is not None:
                    return r
        return None

    return walk(value, "")


Check = Callable[[Any], "str | None"]


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
        self._info: EndpointInfo | None = None
        self._info_lock: asyncio.Lock | None = None
        self._slots: asyncio.Semaphore | None = None
        self.in_flight = 0
        self.max_in_flight = 0

    async def aclose(self) -> None:
        await self._client.close()

    # -- the endpoint ----------------------------------------------------------------------
    @property
    def _key(self) -> tuple[str, str]:
        return (self.settings.base_url.rstrip("/"), self.settings.model)

    async def endpoint_info(self) -> EndpointInfo:
        """The endpoint's kind and structured-output mode: probed once per endpoint and process
        (``auto``), or as configured. A probe that cannot reach the endpoint is not cached."""
        if self._info is not None:
            return self._info
        if self._info_lock is None:
            self._info_lock = asyncio.Lock()
        async with self._info_lock:
            if self._info is not None:
                return self._info
            cached = _ENDPOINTS.get(self._key)
            if cached is not None and self.settings.structured_output in ("auto", cached.mode):
                self._info = cached
                return cached
            kind, reached = await self._kind()
            if self.settings.structured_output != "auto":
                info = EndpointInfo(kind=kind, mode=self.settings.structured_output, detail="configured")
                if reached:
                    self._info = info
                return info
            mode, detail, conclusive = await self._probe()
            info = EndpointInfo(kind=kind, mode=mode, detail=detail)
            if conclusive and reached:  # (a kind guessed because /models did not answer is not kept)
                _ENDPOINTS[self._key] = info
                self._info = info
                log.info("llm_endpoint", kind=kind, mode=mode, detail=detail)
            return info

    async def _kind(self) -> tuple[str, bool]:
        try:
            resp = await self._client.get("/models", cast_to=object, options={"timeout": min(10.0, self.settings.timeout_s)})
        except openai.APIStatusError:
            return "other", True
        except Exception:  # noqa: BLE001 - unreachable: the call itself will say so
            return "other", False
        data = resp.get("data") if isinstance(resp, dict) else None
        owners = {str(m.get("owned_by", "")).lower() for m in data or [] if isinstance(m, dict)}
        for owner in owners:
            if owner in _KINDS:
                return _KINDS[owner], True
        return "other", True

    async def _probe(self) -> tuple[str, str, bool]:
        """Try ``json_schema`` then ``json_object`` with a tiny schema; the first the endpoint
        accepts wins, ``prompt`` when it rejects both. Returns (mode, detail, conclusive)."""
        schema = {"title": PROBE_SCHEMA_NAME, "type": "object", "properties": {"ok": {"type": "boolean"}},
                  "required": ["ok"]}
        findings = []
        for mode in ("json_schema", "json_object"):
            body = {"model": self.settings.model, "temperature": 0.0, "max_tokens": 16,
                    "messages": [{"role": "user", "content": 'Answer {"ok": true} in JSON.'}],
                    **_format_body(mode, PROBE_SCHEMA_NAME, schema)}
            try:
                await self._client.post("/chat/completions", cast_to=ChatCompletion, body=body,
                                         options={"timeout": min(30.0, self.settings.timeout_s)})
            except openai.APIStatusError as e:
                msg = endpoint_message(e, 160)
                format_error = e.status_code in (400, 422) or (
                    e.status_code == 500 and re.search(r"response_format|json_schema|schema|json_object", msg, re.I))
                if not format_error:  # a bad key, a wrong model, an overloaded server: decide later
                    return "json_schema", f"probe inconclusive: HTTP {e.status_code}: {msg}", False
                findings.append(f"{mode} rejected (HTTP {e.status_code}: {msg})")
                continue
            except Exception as e:  # noqa: BLE001 - unreachable or timed out: the call will say so
                return "json_schema", f"probe inconclusive: {type(e).__name__}", False
            findings.append(f"{mode} accepted")
            return mode, "; ".join(findings), True
        return "prompt", "; ".join(findings), True

    async def _slot(self, info: EndpointInfo) -> asyncio.Semaphore | None:
        """The endpoint's request slots: shared by every client of this process that talks to
        the same endpoint with the same limit (the anonymize engine, the audit's atomizer and
        judge...), per event loop."""
        if self._slots is None:
            limit = self.settings.concurrency or info.default_concurrency()
            if limit is None:
                return None
            per_loop = _SLOTS.setdefault(asyncio.get_running_loop(), {})
            self._slots = per_loop.setdefault((*self._key, limit), asyncio.Semaphore(limit))
        return self._slots

    # -- one structured call ---------------------------------------------------------------
    async def structured(
        self,
        messages: list[dict[str, str]],
        schema: type[M],
        *,
        agent: str,
        temperature: float | None = None,
        max_tokens: int | None = None,
        caps: dict[str, dict[str, Any]] | None = None,
        check: Check | None = None,
    ) -> tuple[M, Usage]:
        """One chat completion whose answer must validate against ``schema``.

        ``max_tokens``: what this call needs (capped by the settings); ``caps``: bounds added to
        the schema (see :func:`schema_for`); ``check(parsed)``: a reason to reject a valid
        answer (retried like a bad answer, then :class:`~veil.errors.LLMRejectedError`)."""
        s = self.settings
        usage = Usage()
        info = await self.endpoint_info()
        json_schema = schema_for(schema, caps)
        body: dict[str, Any] = {
            "model": s.model,
            "messages": _schema_in_prompt(messages, json_schema) if info.mode == "prompt" else messages,
            "max_tokens": max(1, min(s.max_tokens, max_tokens or s.max_tokens)),
            **_format_body(info.mode, schema.__name__, json_schema),
        }
        base_temperature = s.temperature if temperature is None else temperature
        slots = await self._slot(info)
        transport_tries = output_tries = 0
        last: LLMError | None = None
        while True:
            body["temperature"] = base_temperature if not output_tries else max(base_temperature, s.retry_temperature)
            resp: ChatCompletion | None = None
            failure: LLMError | None = None
            if slots is not None:
                await slots.acquire()
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            t0 = time.perf_counter()  # the timeout, like the latency, counts from here: the send
            try:
                # The client's own POST (same transport, auth, errors) with a ready JSON body:
                # chat.completions.create() walks messages and schema through its type
                # transforms on every call (~2-4 ms of event-loop CPU), which capped the batch
                # throughput at ~half the concurrency we ask for.
                resp = await self._client.post("/chat/completions", cast_to=ChatCompletion, body=body)
            except openai.APITimeoutError as e:
                if _refused(e):  # httpx-aiohttp reports a refused connection as a connect timeout
                    failure = LLMUnavailableError(f"{agent}: cannot reach the LLM endpoint at {s.base_url}")
                else:
                    failure = LLMTimeoutError(f"{agent}: the LLM endpoint timed out after {s.timeout_s:.0f}s")
                failure.__cause__ = e
            except (openai.APIConnectionError, aiohttp.ClientConnectionError, ConnectionError) as e:
                # the aiohttp transport lets some connection errors through unwrapped
                failure = LLMUnavailableError(f"{agent}: cannot reach the LLM endpoint at {s.base_url}")
                failure.__cause__ = e
            except (json.JSONDecodeError, UnicodeDecodeError, openai.APIResponseValidationError) as e:
                # HTTP 200 with a broken body (cut, garbled): a transport fault, retried like one
                failure = LLMUnavailableError(
                    f"{agent}: the LLM endpoint sent a broken response body ({type(e).__name__})")
                failure.__cause__ = e
            except openai.APIStatusError as e:
                said = endpoint_message(e)
                if e.status_code >= 500 or e.status_code == 429:
                    failure = LLMUnavailableError(
                        f"{agent}: the LLM endpoint answered HTTP {e.status_code}" + (f": {said}" if said else ""))
                    failure.__cause__ = e
                else:
                    # 4xx other than 429: retrying will not help (bad model name, bad key, ...)
                    refused = LLMError(f"{agent}: the LLM endpoint refused the request (HTTP {e.status_code}): {said}")
                    refused.__cause__ = e
                    failure = refused
                    transport_tries = s.max_retries  # no retry
            finally:
                self.in_flight -= 1
                if slots is not None:
                    slots.release()
                usage.latency_ms += (time.perf_counter() - t0) * 1000
            if failure is not None and _being_cancelled():
                # a library turned our cancellation (Ctrl-C, a client gone) into a timeout or a
                # connection error: stop instead of retrying, or the run never stops
                raise asyncio.CancelledError()
            if failure is not None:  # transport: backoff, bounded by max_retries
                last = failure
                if transport_tries >= s.max_retries:
                    break
                log.warning("llm_retry", agent=agent, attempt=transport_tries + output_tries,
                            reason=failure.code, mode=info.mode)
                transport_tries += 1
                usage.retries += 1
                delay = s.backoff_s * (2 ** (transport_tries - 1)) * (0.5 + random.random())
                await asyncio.sleep(delay)
                continue
            assert resp is not None
            usage.calls += 1
            if resp.usage is not None:
                usage.prompt_tokens += resp.usage.prompt_tokens or 0
                usage.completion_tokens += resp.usage.completion_tokens or 0
            parsed, bad = self._read(resp, schema, agent, check)
            if bad is None:
                self.meter.record(agent, usage)
                log.debug("llm_call", agent=agent, mode=info.mode, **usage.as_dict())
                return parsed, usage  # type: ignore[return-value]
            last = bad
            if output_tries >= s.output_retries:
                break
            log.warning("llm_retry", agent=agent, attempt=transport_tries + output_tries, reason=bad.code,
                        mode=info.mode, why=getattr(bad, "reason", None))
            output_tries += 1
            usage.retries += 1
        assert last is not None
        self._fail(agent, usage, last)
        raise last

    def _read(self, resp: ChatCompletion, schema: type[M], agent: str, check: Check | None) -> tuple[M | None, LLMError | None]:
        choice = resp.choices[0] if resp.choices else None
        if choice is None or not (choice.message.content or "").strip():
            return None, LLMOutputError(f"{agent}: the LLM returned no content")
        if choice.finish_reason == "length":
            return None, LLMOutputError(
                f"{agent}: the LLM output was truncated (finish_reason=length at max_tokens; a repetition loop?)")
        try:
            parsed = schema.model_validate(_extract_json(choice.message.content or ""))
        except (json.JSONDecodeError, ValidationError) as e:
            err = LLMOutputError(f"{agent}: the LLM answer is not valid JSON for {schema.__name__}")
            err.__cause__ = e
            return None, err
        if check is not None:
            reason = check(parsed)
            if reason:
                return None, LLMRejectedError(f"{agent}: answer rejected: {reason}", reason=reason)
        return parsed, None

    def _fail(self, agent: str, usage: Usage, error: LLMError) -> None:
        self.meter.record(agent, usage)
        error.usage = usage  # type: ignore[attr-defined] - what the failed tries cost
        log.error("llm_failed", agent=agent, error=type(error).__name__, **usage.as_dict())
