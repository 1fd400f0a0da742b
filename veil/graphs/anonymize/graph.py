"""The anonymize graph (RUPTA's lexicographic loop as a LangGraph ``StateGraph``):

    prepare_task -> (evaluate_privacy | evaluate_utility) -> record --decide--> optimize -> (evaluate ...)
                                                                        \\-> finish

Privacy mode while the privacy score is below ``p_max``; utility mode after. It stops when
both targets are met, at ``max_iterations`` edits, when the document's ``time_budget`` is
spent, when the optimizer changes nothing twice, or when the optimizer's answer was rejected
(after its retry) and nothing else changed: the reason
is recorded (``rejections``, ``stop_reason="rejected"``). The result is the lexicographically
best version seen (privacy first, capped at ``p_max``, then utility), not simply the last one;
the original itself is never the result once an edit exists.

Iteration 0 evaluates the untouched original: the attacker's own rank there
(``original_privacy``) calibrates every later score (see :func:`veil.agents.base.privacy_status`).
An engine whose optimizer ``edits_every_document`` (the local engine's policy) always gets one
optimize step after it, targets met or not.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from veil.agents.base import CallUsage, PrivacyResult, Task, UtilityResult
from veil.graphs.anonymize.configuration import AnonymizeConfig, AnonymizeContext
from veil.graphs.anonymize.state import AnonymizeState, BestSoFar
from veil.logging import get_logger

log = get_logger(__name__)


def _usage(u: CallUsage) -> dict[str, float]:
    return {
        "prompt_tokens": u.prompt_tokens,
        "completion_tokens": u.completion_tokens,
        "calls": u.calls,
        "latency_ms": u.latency_ms,
    }


def lexicographic_key(privacy_score: int, utility_score: float, p_max: int) -> tuple[int, float]:
    """Privacy first (ranks at or beyond the target count the same), then utility."""
    return (min(privacy_score, p_max), utility_score)


def better(candidate: BestSoFar, incumbent: BestSoFar | None, p_max: int) -> bool:
    if incumbent is None:
        return True
    if incumbent["iteration"] == 0 and candidate["iteration"] > 0:
        return True  # an edited version always beats handing the original back
    return lexicographic_key(candidate["privacy_score"], candidate["utility_score"], p_max) > lexicographic_key(
        incumbent["privacy_score"], incumbent["utility_score"], p_max
    )


# -- nodes ---------------------------------------------------------------------------------


async def prepare_task(state: AnonymizeState, runtime: Runtime[AnonymizeContext]) -> dict[str, Any]:
    """Fix what to protect. Without ground truth the attacker's view of the ORIGINAL is it:
    the inferrer's confident guesses (attributes/generic) or the P-Evaluator's top guess."""
    ctx = runtime.context
    task = Task.model_validate(state["task"])
    usage = CallUsage()
    if task.profile in ("attributes", "generic") and not task.attributes:
        inferred = await ctx.engine.inferrer.infer(state["original"], task, batch=ctx.batch)
        task.attributes = inferred.targets()
        usage = usage + inferred.usage
        log.info("targets_inferred", run_id=state["run_id"], n=len(task.attributes))
    elif task.profile == "identity" and not task.name:
        probe = await ctx.engine.p_evaluator.evaluate(state["original"], task, batch=ctx.batch)
        if probe.guesses:
            task.name = probe.guesses[0].value
        usage = usage + probe.usage
    return {"task": task.model_dump(), "usage": _usage(usage), "started_at": time.time()}


async def evaluate_privacy(state: AnonymizeState, runtime: Runtime[AnonymizeContext]) -> dict[str, Any]:
    task = Task.model_validate(state["task"])
    result = await runtime.context.engine.p_evaluator.evaluate(state["text"], task, batch=runtime.context.batch)
    return {"privacy": result.model_dump(), "usage": _usage(result.usage)}


async def evaluate_utility(state: AnonymizeState, runtime: Runtime[AnonymizeContext]) -> dict[str, Any]:
    task = Task.model_validate(state["task"])
    result = await runtime.context.engine.u_evaluator.evaluate(state["text"], task, batch=runtime.context.batch)
    return {"utility": result.model_dump(), "usage": _usage(result.usage)}


async def record(state: AnonymizeState, runtime: Runtime[AnonymizeContext]) -> dict[str, Any]:
    """Write this iteration to the memory and keep the best version so far."""
    ctx = runtime.context
    privacy, utility = PrivacyResult.model_validate(state["privacy"]), UtilityResult.model_validate(state["utility"])
    it = state.get("iteration", 0)
    pending = state.get("pending_usage") or {}
    spent = CallUsage(**{k: v for k, v in pending.items() if k in CallUsage.model_fields}) + privacy.usage + utility.usage
    ctx.memory.add_iteration(
        state["run_id"],
        it,
        text=state["text"],
        mode=state.get("mode"),
        privacy_score=privacy.score,
        k=privacy.k,
        utility_score=utility.score,
        clues=privacy.clues,
        edits=state.get("edits"),
        prompt_tokens=spent.prompt_tokens,
        completion_tokens=spent.completion_tokens,
        latency_ms=spent.latency_ms,
    )
    log.info(
        "iteration", run_id=state["run_id"], iteration=it, privacy=privacy.score, utility=round(utility.score, 3),
        mode=state.get("mode"), chars=len(state["text"]),
    )
    candidate = BestSoFar(iteration=it, text=state["text"], privacy_score=privacy.score, utility_score=utility.score)
    update: dict[str, Any] = {"pending_usage": {}}
    if it == 0:  # the attacker's view of the untouched original calibrates every later score
        # its own rank: a name still written in the original scores 1 whatever the model guessed
        update["original_privacy"] = privacy.attack_score if privacy.attack_score is not None else privacy.score
    if not privacy.verified:
        update["verified"] = False
        update["protections"] = privacy.protections
    if better(candidate, state.get("best"), ctx.config.p_max or privacy.k):
        update["best"] = candidate
    return update


def targets_met(state: AnonymizeState, cfg: AnonymizeConfig) -> bool:
    privacy, utility = state["privacy"], state["utility"]
    return Task.model_validate(state["task"]).privacy_met(privacy["score"]) and utility["score"] >= cfg.u_target


def budget_spent(state: AnonymizeState, cfg: AnonymizeConfig) -> bool:
    """The document's time budget is used up (wall clock since its loop began; a resumed run
    counts from the first start, so an interrupted document does not get a fresh budget)."""
    started = state.get("started_at")
    return cfg.time_budget is not None and started is not None and time.time() - started >= cfg.time_budget


def decide(state: AnonymizeState, runtime: Runtime[AnonymizeContext]) -> Literal["optimize", "finish"]:
    cfg = runtime.context.config
    if (state.get("iteration", 0) == 0 < cfg.max_iterations and getattr(runtime.context.engine.optimizer, "edits_every_document", False)
            and not budget_spent(state, cfg)):
        return "optimize"  # the engine's policy applies whether or not the attacker wins against the original
    if targets_met(state, cfg):
        return "finish"
    if budget_spent(state, cfg):
        return "finish"
    if state.get("iteration", 0) >= cfg.max_iterations:
        return "finish"
    if state.get("unchanged", 0) >= 2:
        return "finish"
    return "optimize"


async def optimize(state: AnonymizeState, runtime: Runtime[AnonymizeContext]) -> dict[str, Any]:
    ctx = runtime.context
    cfg = ctx.config
    task = Task.model_validate(state["task"])
    privacy, utility = PrivacyResult.model_validate(state["privacy"]), UtilityResult.model_validate(state["utility"])
    mode = "utility" if task.privacy_met(privacy.score) else "privacy"
    memory = ctx.memory.recent(state["run_id"], cfg.memory_window) if cfg.memory_window else []
    result = await ctx.engine.optimizer.optimize(state["text"], task, mode, privacy, utility, memory,
                                                 batch=ctx.batch)
    same = result.text.strip() == state["text"].strip()
    update: dict[str, Any] = {"usage": _usage(result.usage)}
    if result.rejected:
        rejection = {"iteration": state.get("iteration", 0) + 1, "mode": mode, "reason": result.rejected}
        update["rejections"] = [*(state.get("rejections") or []), rejection]
        log.info("optimizer_answer_rejected", run_id=state["run_id"], iteration=rejection["iteration"],
                 reason=result.rejected)
        if same:  # nothing new to evaluate: keep the best version so far and stop (see route_after_optimize)
            update["stop_reason"] = "rejected"
            return update
    return {
        **update,
        "text": result.text,
        "iteration": state.get("iteration", 0) + 1,
        "mode": mode,
        "edits": [e.model_dump() for e in result.edits],
        "pending_usage": _usage(result.usage),
        "unchanged": state.get("unchanged", 0) + 1 if same else 0,
    }


def route_after_optimize(state: AnonymizeState) -> list[str] | str:
    """Evaluate the new version (both evaluators, in parallel), or finish when the optimizer's
    answer was rejected and left nothing new."""
    if state.get("stop_reason") == "rejected":
        return "finish"
    return ["evaluate_privacy", "evaluate_utility"]


async def finish(state: AnonymizeState, runtime: Runtime[AnonymizeContext]) -> dict[str, Any]:
    if state.get("stop_reason") == "rejected":
        reason = "rejected"
    elif targets_met(state, runtime.context.config):
        reason = "targets_met"
    elif state.get("unchanged", 0) >= 2:
        reason = "converged"
    elif budget_spent(state, runtime.context.config) and state.get("iteration", 0) < runtime.context.config.max_iterations:
        reason = "time_budget"
    else:
        reason = "max_iterations"
    return {"stop_reason": reason}


def build_graph(checkpointer: Any = None):
    g = StateGraph(AnonymizeState, context_schema=AnonymizeContext)
    g.add_node("prepare_task", prepare_task)
    g.add_node("evaluate_privacy", evaluate_privacy)
    g.add_node("evaluate_utility", evaluate_utility)
    g.add_node("record", record)
    g.add_node("optimize", optimize)
    g.add_node("finish", finish)
    g.add_edge(START, "prepare_task")
    # the two evaluators are independent: they run in parallel and `record` waits for both
    for evaluator in ("evaluate_privacy", "evaluate_utility"):
        g.add_edge("prepare_task", evaluator)
    g.add_conditional_edges("optimize", route_after_optimize, ["evaluate_privacy", "evaluate_utility", "finish"])
    g.add_edge(["evaluate_privacy", "evaluate_utility"], "record")
    g.add_conditional_edges("record", decide, {"optimize": "optimize", "finish": "finish"})
    g.add_edge("finish", END)
    return g.compile(checkpointer=checkpointer, name="veil-anonymize")
