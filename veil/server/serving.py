"""Serving logic, independent of routing (as vLLM's ``serving_chat.py`` / ``serving_models.py``):
the routers parse and authenticate, these classes do the work and return protocol models.

One :class:`AnonymizeService` per app owns the :class:`~veil.anonymizer.Anonymizer` (engine,
memory store, checkpointer) for the app's lifetime. Documents from all requests share it; a
server-wide semaphore caps the documents in flight (``max_running``) so a burst of requests
cannot flood the LLM endpoint.

Each request is one batch: its documents are prepared together once (``Engine.prepare``
returns an immutable :class:`~veil.agents.batch.Batch`: the population the local engine's
attacker ranks against, the pseudonym table) and every document of the request runs against
that batch. Nothing is shared across requests, so two API keys never share a pseudonym, and
requests run concurrently whatever the engine (the engines do their CPU work off the event loop).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from typing import Any, AsyncIterator, Callable

from fastapi.encoders import jsonable_encoder
from pydantic import ValidationError

from veil.agents.batch import Batch
from veil.anonymizer import AnonymizeResult, Anonymizer, IterationUpdate, new_run_id
from veil.batch import run_concurrently
from veil.documents import Document
from veil.errors import NotFoundError, VeilError
from veil.graphs.anonymize import AnonymizeConfig
from veil.logging import get_logger
from veil.server.errors import APIError, error_body
from veil.server.protocol import (
    ANONYMIZE_MODEL,
    AnonymizeRequest,
    AnonymizeResponse,
    AssistantMessage,
    AuditRequest,
    ChatCompletionChoice,
    ChatCompletionChunk,
    ChatCompletionRequest,
    ChunkChoice,
    DeltaMessage,
    ChatCompletionResponse,
    DocumentResult,
    IterationProgress,
    ModelCard,
    ModelList,
    RunInfo,
    RunSummary,
    UsageInfo,
    VeilOptions,
)
from veil.server.settings import ServerSettings

log = get_logger(__name__)

MODELS = {
    ANONYMIZE_MODEL: "Anonymize the last user message against LLM re-identification (RUPTA loop). "
    "Options in the request's 'veil' object.",
}


def _validation_message(e: ValidationError) -> tuple[str, str | None]:
    err = e.errors()[0]
    loc = ".".join(str(x) for x in err.get("loc", ()))
    return err.get("msg", "invalid value"), loc or None


def build_config(options: VeilOptions | None, where: str) -> AnonymizeConfig:
    """Options → AnonymizeConfig; a bad value is a 400 naming the option (``veil.k``)."""
    o = options or VeilOptions()
    try:
        return o.config(has_name=bool(o.name), has_attributes=bool(o.attributes))
    except ValidationError as e:
        msg, loc = _validation_message(e)
        param = f"{where}.{loc}" if loc else where
        raise APIError(400, f"{param}: {msg}", code="invalid_value", param=param) from e


def check_ground_truth(doc: Document, config: AnonymizeConfig, where: str) -> None:
    if config.profile == "identity" and doc.name is not None and not doc.name.strip():
        raise APIError(400, f"{where}.name: must not be empty", code="invalid_value", param=f"{where}.name")


def trace_path(run_id: str) -> str:
    return f"/traces/{run_id}"


def run_summary(r: AnonymizeResult, base_url: str) -> RunSummary:
    return RunSummary(
        run_id=r.run_id, privacy_score=r.privacy_score,
        utility_score=None if r.utility_score is None else round(r.utility_score, 4),
        privacy_target_met=r.privacy_target_met, privacy_status=r.privacy_status, privacy_note=r.privacy_note,
        rejections=r.rejections, iterations=r.iterations, stop_reason=r.stop_reason,
        trace_url=base_url.rstrip("/") + trace_path(r.run_id),
    )


def split_for_stream(text: str, max_chars: int = 64) -> list[str]:
    """Pieces (at whitespace) whose concatenation is exactly ``text``."""
    pieces: list[str] = []
    cur = ""
    for tok in re.findall(r"\S+\s*|\s+", text):
        if cur and len(cur) + len(tok) > max_chars:
            pieces.append(cur)
            cur = ""
        cur += tok
    if cur:
        pieces.append(cur)
    return pieces


def sse(data: dict[str, Any] | str) -> str:
    return f"data: {data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)}\n\n"


class AnonymizeService:
    def __init__(self, settings: ServerSettings):
        self.settings = settings
        self.anonymizer: Anonymizer | None = None
        self._running = asyncio.Semaphore(max(1, settings.max_running))
        self._admitted = 0  # documents accepted and not finished (running or waiting to run)
        self._background: set[asyncio.Task[Any]] = set()

    # -- lifecycle ---------------------------------------------------------------------------
    async def start(self) -> None:
        s = self.settings
        self.anonymizer = Anonymizer(s.engine, llm=s.llm, db_path=s.db_path, engine_options=s.engine_options)
        await self.anonymizer.__aenter__()
        # both engines parse (the local planner; the llm engine's guards): load spaCy now, in a
        # thread beside the start-up, not on the event loop in the middle of the first request
        from veil import nlp

        self.track(asyncio.ensure_future(asyncio.to_thread(nlp.nlp)))
        log.info("service_started", engine=s.engine, db=str(self.anonymizer.memory.path))

    async def stop(self) -> None:
        if self._background:
            _, pending = await asyncio.wait(self._background, timeout=5)
            for t in pending:
                t.cancel()
        if self.anonymizer is not None:
            await self.anonymizer.__aexit__(None, None, None)
            self.anonymizer = None

    def track(self, task: asyncio.Task[Any]) -> None:
        """Keep a background task alive (a run whose client went away still finishes and is
        stored; it can be read with GET /v1/runs/{id})."""
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    @property
    def memory(self):
        assert self.anonymizer is not None, "service not started"
        return self.anonymizer.memory

    # -- admission ----------------------------------------------------------------------------
    def admit(self, n: int) -> None:
        """Accept ``n`` more documents, or refuse the request with 429 and ``Retry-After`` when
        the server already holds ``max_running + max_queued`` (a bounded queue: a burst is told
        to come back instead of waiting without end). Pair with :meth:`release`."""
        cap = self.settings.max_running + self.settings.max_queued
        if self._admitted and self._admitted + n > cap:
            log.info("request_refused_busy", admitted=self._admitted, documents=n, cap=cap)
            raise APIError(429, f"the server is busy ({self._admitted} documents running or queued, at most {cap}); "
                           "retry later", code="server_busy",
                           headers={"Retry-After": str(self.settings.retry_after_s)})
        self._admitted += n

    def release(self, n: int) -> None:
        self._admitted = max(0, self._admitted - n)

    # -- anonymize ----------------------------------------------------------------------------
    async def prepare(self, docs: list[Document]) -> Batch:
        """One request's batch (raises a VeilError the caller reports per document)."""
        assert self.anonymizer is not None, "service not started"
        return await self.anonymizer.engine.prepare(docs)

    async def run(self, doc: Document, config: AnonymizeConfig, owner: str, run_id: str | None = None,
                  batch: Batch | None = None,
                  on_iteration: Callable[[IterationUpdate], Any] | None = None) -> AnonymizeResult:
        """One document against its request's batch (a batch of its own when none is given)."""
        assert self.anonymizer is not None, "service not started"
        run_id = run_id or new_run_id()
        t0 = time.perf_counter()
        async with self._running:
            try:
                if batch is None:
                    batch = await self.prepare([doc])
                return await self.anonymizer.anonymize(doc, config=config, run_id=run_id, owner=owner, batch=batch,
                                                       on_iteration=on_iteration)
            except VeilError as e:  # prepare() failed
                self.memory.create_run(run_id, doc_id=doc.id, config=config.model_dump(), owner=owner)
                self.memory.finish_run(run_id, error=str(e))
                return AnonymizeResult(run_id=run_id, doc_id=doc.id, status="failed", error=str(e),
                                       seconds=time.perf_counter() - t0)
            except Exception as e:  # a bug must fail this document, not the request or the batch
                log.error("run_crashed", run_id=run_id, error=type(e).__name__)
                self.memory.create_run(run_id, doc_id=doc.id, config=config.model_dump(), owner=owner)
                self.memory.finish_run(run_id, error=f"internal error ({type(e).__name__})")
                return AnonymizeResult(run_id=run_id, doc_id=doc.id, status="failed",
                                       error=f"internal error ({type(e).__name__})", seconds=time.perf_counter() - t0)

    async def anonymize_many(self, req: AnonymizeRequest, owner: str, base_url: str) -> AnonymizeResponse:
        config = build_config(req.options, "options")
        seen: set[str] = set()
        docs: list[Document] = []
        for i, d in enumerate(req.documents):
            if d.id in seen:
                raise APIError(400, f"documents.{i}.id: duplicate id {d.id!r}", code="invalid_value",
                               param=f"documents.{i}.id")
            seen.add(d.id)
            o = req.options or VeilOptions()
            doc = Document(id=d.id, text=d.text, name=d.name if d.name is not None else o.name,
                           label=d.label if d.label is not None else o.label,
                           attributes=d.attributes if d.attributes is not None else (o.attributes or {}))
            docs.append(doc)
        # a document's own ground truth may imply another profile than the options' default
        configs = [self._doc_config(req.options, d, config) for d in docs]
        pairs = list(zip(docs, configs))
        self.admit(len(docs))
        try:
            try:
                batch: Batch | None = await self.prepare(docs)  # the request is the batch
            except VeilError as e:
                log.error("prepare_failed", documents=len(docs), error=type(e).__name__)
                batch = None  # each document then fails (or runs) on its own, with its error recorded

            async def work(pair: tuple[Document, AnonymizeConfig]) -> AnonymizeResult:
                return await self.run(pair[0], pair[1], owner, batch=batch)

            results = await run_concurrently(pairs, work, concurrency=self.settings.concurrency,
                                             is_failure=lambda r: r.status != "done", show_progress=False)
        finally:
            self.release(len(docs))
        data = [self._doc_result(r, base_url) for r in results]
        total = UsageInfo(
            prompt_tokens=sum(x.usage.prompt_tokens for x in data),
            completion_tokens=sum(x.usage.completion_tokens for x in data),
        )
        total.total_tokens = total.prompt_tokens + total.completion_tokens
        return AnonymizeResponse(data=data, usage=total, failed=sum(x.status != "done" for x in data))

    @staticmethod
    def _doc_config(options: VeilOptions | None, doc: Document, default: AnonymizeConfig) -> AnonymizeConfig:
        if options is not None and options.profile:
            return default
        o = (options or VeilOptions()).model_copy(update={"name": doc.name, "attributes": doc.attributes or None})
        return build_config(o, "options")

    @staticmethod
    def _doc_result(r: AnonymizeResult, base_url: str) -> DocumentResult:
        return DocumentResult(
            id=r.doc_id, run_id=r.run_id, status=r.status, anonymized_text=r.anonymized_text,
            privacy_score=r.privacy_score,
            utility_score=None if r.utility_score is None else round(r.utility_score, 4),
            privacy_target_met=r.privacy_target_met, privacy_status=r.privacy_status, privacy_note=r.privacy_note,
            iterations=r.iterations, stop_reason=r.stop_reason,
            usage=UsageInfo.from_run(r.usage), seconds=round(r.seconds, 3), error=r.error,
            trace_url=base_url.rstrip("/") + trace_path(r.run_id),
        )

    # -- runs ----------------------------------------------------------------------------------
    def get_run(self, run_id: str, owner: str) -> dict[str, Any]:
        run = self.memory.get_run(run_id)
        if run is None or run.get("owner") != owner:  # another key's run does not exist for you
            raise NotFoundError(f"no run {run_id!r}")
        return run

    def run_info(self, run_id: str, owner: str, base_url: str) -> RunInfo:
        run = self.get_run(run_id, owner)
        its = self.memory.iterations(run_id) if run["kind"] == "anonymize" else []
        base = base_url.rstrip("/")
        return RunInfo(
            id=run_id, kind=run["kind"], status=run["status"], doc_id=run["doc_id"], created_at=run["created_at"],
            updated_at=run["updated_at"], config=run["config"], result=run["result"], error=run["error"],
            iterations=[{k: v for k, v in it.items() if k != "run_id"} for it in its],
            trace_url=base + trace_path(run_id) if run["kind"] == "anonymize" else None,
            url=f"{base}/v1/runs/{run_id}",
        )

    def list_runs(self, owner: str, limit: int = 50) -> list[dict[str, Any]]:
        return self.memory.list_runs(owner=owner, limit=limit)

    # -- audits ---------------------------------------------------------------------------------
    async def start_audit(self, req: AuditRequest, owner: str, base_url: str) -> tuple[int, RunInfo]:
        try:
            from veil.graphs.audit import AuditConfig, check_inputs, run_audit
        except ImportError as e:
            if getattr(e, "name", None) in (None, "veil.graphs.audit") or "veil.graphs.audit" in str(e):
                raise APIError(501, "audits are not available in this build of veil (no veil.graphs.audit)",
                               code="not_implemented") from e
            raise
        if len(req.originals) != len(req.sanitized):
            raise APIError(400, f"sanitized: {len(req.sanitized)} texts for {len(req.originals)} originals",
                           code="invalid_value", param="sanitized")
        if req.ids is not None and len(req.ids) != len(req.originals):
            raise APIError(400, "ids: one id per original", code="invalid_value", param="ids")
        try:
            config = AuditConfig.model_validate(req.options) if hasattr(AuditConfig, "model_validate") \
                else AuditConfig(**req.options)
        except ValidationError as e:
            msg, loc = _validation_message(e)
            raise APIError(400, f"options.{loc}: {msg}", code="invalid_value", param=f"options.{loc}") from e
        except (TypeError, ValueError) as e:
            raise APIError(400, f"options: {e}", code="invalid_value", param="options") from e
        # degenerate input ("a b c"): a 400 now, not a failed audit later
        check_inputs(list(req.originals), list(req.sanitized), config, claims=req.claims, ids=req.ids)
        run_id = f"audit-{uuid.uuid4().hex[:20]}"
        self.memory.create_run(run_id, doc_id=None, config=jsonable_encoder(req.options), owner=owner, kind="audit")
        s = self.settings

        async def job() -> None:
            t0 = time.perf_counter()
            try:
                result = await run_audit(list(req.originals), list(req.sanitized), config, claims=req.claims,
                                         ids=req.ids, llm=s.llm, db_path=s.db_path)
                self.memory.finish_run(run_id, result=jsonable_encoder(result))
                log.info("audit_done", run_id=run_id, n=len(req.originals), seconds=round(time.perf_counter() - t0, 2))
            except VeilError as e:
                self.memory.finish_run(run_id, error=str(e))
                log.error("audit_failed", run_id=run_id, error=type(e).__name__)
            except Exception as e:
                self.memory.finish_run(run_id, error=f"internal error ({type(e).__name__})")
                log.error("audit_crashed", run_id=run_id, error=type(e).__name__)

        if req.wait:
            await job()
            return 200, self.run_info(run_id, owner, base_url)
        self.track(asyncio.create_task(job()))
        return 202, self.run_info(run_id, owner, base_url)


class OpenAIServingModels:
    def list(self) -> ModelList:
        return ModelList(data=[ModelCard(id=m, description=d) for m, d in MODELS.items()])

    def check(self, model: str) -> None:
        if model not in MODELS:
            raise APIError(404, f"The model '{model}' does not exist; available: {', '.join(MODELS)}",
                           code="model_not_found", param="model")


class OpenAIServingChat:
    def __init__(self, service: AnonymizeService, models: OpenAIServingModels):
        self.service = service
        self.models = models

    def _document(self, req: ChatCompletionRequest, run_id: str) -> tuple[Document, AnonymizeConfig]:
        self.models.check(req.model)
        users = [m for m in req.messages if m.role == "user"]
        if not users:
            raise APIError(400, "messages: no user message (its content is the text to anonymize)",
                           code="invalid_value", param="messages")
        text = users[-1].text()
        if not text.strip():
            raise APIError(400, "messages: the last user message is empty", code="invalid_value", param="messages")
        config = build_config(req.veil, "veil")
        o = req.veil or VeilOptions()
        doc = Document(id=run_id, text=text, name=o.name, label=o.label, attributes=o.attributes or {})
        check_ground_truth(doc, config, "veil")
        return doc, config

    async def create(self, req: ChatCompletionRequest, owner: str, base_url: str) -> ChatCompletionResponse:
        run_id = new_run_id()
        doc, config = self._document(req, run_id)
        self.service.admit(1)
        try:
            r = await self.service.run(doc, config, owner, run_id=run_id)
        finally:
            self.service.release(1)
        if r.status != "done":
            raise APIError(502, f"anonymization failed (run {r.run_id}): {r.error}", code="run_failed")
        return ChatCompletionResponse(
            id=r.run_id, model=req.model,
            choices=[ChatCompletionChoice(message=AssistantMessage(content=r.anonymized_text or ""))],
            usage=UsageInfo.from_run(r.usage), veil=run_summary(r, base_url),
        )

    def create_stream(self, req: ChatCompletionRequest, owner: str, base_url: str) -> AsyncIterator[str]:
        """Validates now (so a bad request is a plain 400), then returns the SSE body: a role
        chunk, one empty-content chunk with a ``veil`` progress field per iteration, the text in
        content chunks, a ``finish_reason: stop`` chunk, [a usage chunk,] ``[DONE]``."""
        run_id = new_run_id()
        doc, config = self._document(req, run_id)
        include_usage = bool(req.stream_options and req.stream_options.include_usage)
        created = int(time.time())
        service = self.service

        def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, *,
                  veil: IterationProgress | RunSummary | None = None, usage: UsageInfo | None = None) -> str:
            choices = [] if delta is None else [ChunkChoice(delta=DeltaMessage(**delta), finish_reason=finish)]
            body = ChatCompletionChunk(id=run_id, created=created, model=req.model, choices=choices,
                                       usage=usage, veil=veil)
            # absent, not null: stock clients read `usage: null` on every chunk as "no usage"
            return sse(body.model_dump(exclude={k for k in ("usage", "veil") if getattr(body, k) is None}))

        service.admit(1)  # now: a busy server answers 429 before the stream starts

        async def body() -> AsyncIterator[str]:
            yield chunk({"role": "assistant", "content": ""})
            # progress comes from the graph as it records each iteration (no polling)
            updates: asyncio.Queue[IterationUpdate | None] = asyncio.Queue()
            task = asyncio.create_task(service.run(doc, config, owner, run_id=run_id, on_iteration=updates.put_nowait))
            task.add_done_callback(lambda _: (service.release(1), updates.put_nowait(None)))
            service.track(task)  # the run finishes and is stored even if the client goes away
            while (update := await updates.get()) is not None:
                yield chunk({"content": ""}, veil=update)
            r = task.result()
            if r.status != "done":
                yield sse(error_body(502, f"anonymization failed (run {r.run_id}): {r.error}", code="run_failed"))
                return
            for piece in split_for_stream(r.anonymized_text or ""):
                yield chunk({"content": piece})
            yield chunk({}, "stop", veil=run_summary(r, base_url))
            if include_usage:
                yield chunk(usage=UsageInfo.from_run(r.usage))
            yield sse("[DONE]")

        return body()
