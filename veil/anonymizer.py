"""The one entry point for anonymizing documents from Python:

    async with Anonymizer(engine="local") as anon:
        batch = await anon.prepare(docs)       # once per batch (population, classifiers)
        result = await anon.anonymize(docs[0], batch=batch)

``prepare`` returns an immutable :class:`veil.agents.batch.Batch`; ``anonymize`` without one
uses the last prepared batch, and a document outside it is anonymized as a batch of its own
(so a caller can never run a document against another caller's population or pseudonyms).

It owns the engine (agents), the memory store and the LangGraph checkpointer, runs the
anonymize graph per document (thread id = run id) and turns per-document failures into a
failed result instead of an exception, so one bad document never stops a batch.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path
from typing import Any, Awaitable, Callable

from pydantic import BaseModel, Field

from veil.agents import Engine, build_engine
from veil.agents.base import Task, privacy_status
from veil.agents.batch import Batch
from veil.documents import Document
from veil.errors import LLMError, VeilError
from veil.graphs.anonymize import AnonymizeConfig, AnonymizeContext, build_graph
from veil.llm import LLMSettings
from veil.logging import get_logger
from veil.memory.store import MemoryStore, open_checkpointer

log = get_logger(__name__)


def new_run_id() -> str:
    return f"run-{uuid.uuid4().hex[:20]}"


UNVERIFIED_HINT = "use a stronger attack model (--model), or the local engine's policy (--engine local)"


def privacy_note(status: str | None, *, verified: bool, protections: list[str], original_score: int | None,
                 k: int | None) -> str | None:
    """What a user should read beside a status (see :func:`veil.agents.base.privacy_status`)."""
    if status == "unverified":
        if not verified:
            applied = f"; applied: {', '.join(protections)}" if protections else ""
            return f"no population to attack with (a single document){applied}"
        rank = f" (rank {original_score} of top {k})" if original_score is not None and k else ""
        return f"the attacker could not re-identify the original{rank}: {UNVERIFIED_HINT}"
    return None


class IterationUpdate(BaseModel):
    """One iteration's scores, as the graph records them (streamed by the server)."""

    iteration: int
    mode: str | None = None
    privacy_score: int | None = None
    k: int | None = None
    utility_score: float | None = None


class AnonymizeResult(BaseModel):
    run_id: str
    doc_id: str
    status: str = "done"  # done | failed
    anonymized_text: str | None = None
    privacy_score: int | None = None
    utility_score: float | None = None
    k: int | None = None
    p_max: int | None = None
    privacy_target_met: bool = False
    privacy_status: str | None = Field(default=None, description="protected | re-identified | unverified")
    privacy_note: str | None = Field(default=None, description="why unverified, and what to do about it")
    original_privacy_score: int | None = Field(default=None, description="the attacker's rank of the untouched original")
    protections: list[str] = Field(default_factory=list)
    rejections: list[dict[str, Any]] = Field(default_factory=list, description="optimizer answers the guards rejected")
    best_iteration: int | None = None
    iterations: int = 0
    stop_reason: str | None = None
    protected: dict[str, Any] = Field(default_factory=dict, description="what was protected (name/attributes)")
    usage: dict[str, float] = Field(default_factory=dict)
    seconds: float = 0.0
    error: str | None = None

    def output_fields(self) -> dict[str, Any]:
        """The fields added to each output record."""
        return {
            "anonymized_text": self.anonymized_text,
            "privacy_score": self.privacy_score,
            "utility_score": None if self.utility_score is None else round(self.utility_score, 4),
            "privacy_status": self.privacy_status,
            **({"privacy_note": self.privacy_note} if self.privacy_note else {}),
            "run_id": self.run_id,
            **({"error": self.error} if self.error else {}),
        }


class Anonymizer:
    def __init__(
        self,
        engine: str | Engine = "local",
        *,
        config: AnonymizeConfig | None = None,
        llm: LLMSettings | None = None,
        db_path: str | Path | None = None,
        engine_options: dict[str, Any] | None = None,
    ):
        self.config = config or AnonymizeConfig()
        self.engine = engine if isinstance(engine, Engine) else build_engine(engine, llm=llm, **(engine_options or {}))
        self.memory = MemoryStore(db_path)
        self._saver_cm: Any = None
        self.graph: Any = None
        self.batch: Batch | None = None  # the last prepared batch: the default of anonymize()

    async def __aenter__(self) -> "Anonymizer":
        # SQLite beside the memory (WAL, busy timeout, 0600), or the memory's PostgreSQL database
        self._saver_cm = open_checkpointer(self.memory.checkpoint_db)
        saver = await self._saver_cm.__aenter__()
        self.graph = build_graph(checkpointer=saver)
        return self

    async def __aexit__(self, *exc: Any) -> None:
        if self._saver_cm is not None:
            await self._saver_cm.__aexit__(*exc)
        await self.engine.aclose()
        self.memory.close()

    async def in_worker(self) -> Callable[[], Awaitable[None]]:
        """In a forked worker process (:func:`veil.batch.run_concurrently` with ``workers``):
        connections of its own to the same memory and checkpoint databases (a connection never
        crosses a fork), on the worker's event loop; the engine and the prepared batch are the
        parent's, inherited. Returns what closes them."""
        if not self.forkable:
            raise RuntimeError(f"the {self.engine.name} engine does not run in worker processes")
        old = self.memory
        # the parent's connections stay referenced, never closed or used here: closing a SQLite
        # connection a fork copied breaks the parent's locks on the file
        self._inherited = (old, self._saver_cm, self.graph)
        self.memory = MemoryStore(old.url or old.path, store_text=old._store_text)
        self._saver_cm = open_checkpointer(self.memory.checkpoint_db)
        self.graph = build_graph(checkpointer=await self._saver_cm.__aenter__())

        async def close() -> None:
            await self._saver_cm.__aexit__(None, None, None)
            self.memory.close()

        return close

    @property
    def forkable(self) -> bool:
        """Whether a batch may run in forked worker processes: the embedded engine, whose work is
        CPU-bound Python; an LLM engine's work is the endpoint's, and its HTTP client's
        connections must not cross a fork."""
        return self.engine.name == "local"

    async def prepare(self, documents: list[Document]) -> Batch:
        """Build the batch of these documents (and make it the default of :meth:`anonymize`)."""
        self.batch = await self.engine.prepare(documents)
        return self.batch

    def task_for(self, doc: Document, config: AnonymizeConfig) -> Task:
        return Task(
            profile=config.profile,
            k=config.k or 10,
            p_max=config.p_max or config.k or 10,
            name=doc.name,
            attributes=dict(doc.attributes),
            label=doc.label,
            original=doc.text,
            doc_id=doc.id,
        )

    async def _stream(self, inputs: dict[str, Any] | None, config: dict[str, Any], ctx: AnonymizeContext,
                      on_iteration: Callable[[IterationUpdate], Any] | None) -> dict[str, Any]:
        """Run the graph to its end, reporting each iteration as the ``record`` node writes it:
        the state the node read (``values`` after the evaluators' step) holds its scores."""
        state: dict[str, Any] = {}
        async for mode, chunk in self.graph.astream(
            inputs, config=config, context=ctx, stream_mode=["updates", "values"],
            # checkpoints are written while the next step runs, not in its way; a crash loses at
            # most the step in flight, which the resume redoes
            durability="async",
        ):
            if mode == "values":
                state = chunk
            elif on_iteration is not None and "record" in chunk and state.get("privacy") and state.get("utility"):
                update = IterationUpdate(
                    iteration=state.get("iteration", 0), mode=state.get("mode"),
                    privacy_score=state["privacy"]["score"], k=state["privacy"]["k"],
                    utility_score=state["utility"]["score"],
                )
                result = on_iteration(update)
                if asyncio.iscoroutine(result):
                    await result
        return state

    async def anonymize(
        self,
        doc: Document,
        *,
        config: AnonymizeConfig | None = None,
        run_id: str | None = None,
        owner: str | None = None,
        batch: Batch | None = None,
        on_iteration: Callable[[IterationUpdate], Any] | None = None,
    ) -> AnonymizeResult:
        """Anonymize one document against ``batch`` (see the module docstring). ``on_iteration``
        is called with each iteration's scores as the graph records it (the server streams them)."""
        assert self.graph is not None, "use `async with Anonymizer(...)`"
        config = config or self.config
        batch = batch or self.batch
        if batch is None or doc.id not in batch:
            batch = await self.engine.prepare([doc])
        run_id = run_id or new_run_id()
        task = self.task_for(doc, config)
        self.memory.create_run(run_id, doc_id=doc.id, config=config.model_dump(), owner=owner)
        t0 = time.perf_counter()
        thread = {"configurable": {"thread_id": run_id}}
        ctx = AnonymizeContext(engine=self.engine, memory=self.memory, batch=batch, config=config)
        try:
            snapshot = await self.graph.aget_state(thread)
            if snapshot.next:  # an interrupted run: resume from its last checkpoint
                state = await self._stream(None, thread, ctx, on_iteration)
            else:
                state = await self._stream(
                    {"run_id": run_id, "doc_id": doc.id, "original": doc.text, "text": doc.text, "task": task.model_dump(),
                     "iteration": 0, "mode": None, "unchanged": 0},
                    {**thread, "recursion_limit": 10 + 6 * (config.max_iterations + 2)}, ctx, on_iteration,
                )
        except Exception as e:  # any failure fails this document only, never the batch
            seconds = time.perf_counter() - t0
            kind = "llm" if isinstance(e, LLMError) else "veil" if isinstance(e, VeilError) else "internal"
            error = str(e) if isinstance(e, VeilError) else f"internal error ({type(e).__name__}: {str(e)[:300]})"
            log.error("run_failed", run_id=run_id, doc_id=doc.id, error=type(e).__name__, kind=kind)
            self.memory.finish_run(run_id, error=error)
            return AnonymizeResult(run_id=run_id, doc_id=doc.id, status="failed", error=error, seconds=seconds)
        best = state["best"]
        final_task = state["task"]
        verified, original_score = state.get("verified", True), state.get("original_privacy")
        status = privacy_status(Task.model_validate(final_task), best["privacy_score"],
                                verified=verified, original_score=original_score)
        protections = list(state.get("protections") or [])
        result = AnonymizeResult(
            run_id=run_id,
            doc_id=doc.id,
            anonymized_text=best["text"],
            privacy_score=best["privacy_score"],
            utility_score=best["utility_score"],
            k=config.k,
            p_max=config.p_max,
            privacy_target_met=Task.model_validate(final_task).privacy_met(best["privacy_score"]),
            privacy_status=status,
            privacy_note=privacy_note(status, verified=verified, protections=protections,
                                      original_score=original_score, k=config.k),
            original_privacy_score=original_score,
            protections=protections,
            rejections=list(state.get("rejections") or []),
            best_iteration=best["iteration"],
            iterations=state.get("iteration", 0),
            stop_reason=state.get("stop_reason"),
            protected={k: final_task.get(k) for k in ("name", "attributes") if final_task.get(k)},
            usage=state.get("usage", {}),
            seconds=time.perf_counter() - t0,
        )
        self.memory.finish_run(run_id, result=result.model_dump())
        # done: its checkpoints (every state, texts included) are not needed to resume any more
        await self.graph.checkpointer.adelete_thread(run_id)
        log.info(
            "run_done", run_id=run_id, doc_id=doc.id, privacy=result.privacy_score, status=status,
            iterations=result.iterations, rejections=len(result.rejections), seconds=round(result.seconds, 3),
        )
        return result
