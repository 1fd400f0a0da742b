"""The audit graph ("A False Sense of Privacy": link, then match semantically):

    START --has claims?--> atomize -> select_aux -> link --judge?--> judge_chunk --more?--> judge_chunk ...
               \\----------------------^                     \\                  \\--> report -> END
                                                             \\--------------------^

* ``atomize``: the original records -> atomic claims (LLM or local), unless claims are supplied;
* ``select_aux``: the adversary's 3 known claims per record (first3 / random3 seeded / last3,
  never a claim matching ``exclude_claims``);
* ``link``: top-1 sanitized record per original (BM25, dense or lexical), correct-linkage when
  the mapping is known, and the lexical privacy 1 - ROUGE-L(original, linked record);
* ``judge_chunk``: every claim NOT used for linking is rated against the linked record (claims
  excluded from the auxiliary knowledge, e.g. the name, are judged too: they were not used for
  linking), ``chunk_size`` records per super-step, so an interrupted audit resumes after the
  last finished chunk;
* ``report``: the aggregate numbers and the per-record results (a JSON-able dict).
"""

from __future__ import annotations

import time
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from veil.evals.audit_report import build_report
from veil.evals.linking import aux_query, lexical_privacy, make_linker, select_aux
from veil.graphs.audit.configuration import AuditContext
from veil.graphs.audit.state import AuditState
from veil.logging import get_logger

log = get_logger(__name__)


def _secs(name: str, t0: float) -> dict[str, float]:
    return {name: time.perf_counter() - t0}


# -- routers -------------------------------------------------------------------------------


def route_start(state: AuditState) -> Literal["atomize", "select_aux"]:
    return "select_aux" if state.get("claims") is not None else "atomize"


def route_judge(state: AuditState, runtime: Runtime[AuditContext]) -> Literal["judge_chunk", "report"]:
    if runtime.context.config.judge == "none" or runtime.context.judge is None:
        return "report"
    return "judge_chunk" if state.get("next_record", 0) < len(state["claims"]) else "report"


# -- nodes ---------------------------------------------------------------------------------


async def atomize(state: AuditState, runtime: Runtime[AuditContext]) -> dict[str, Any]:
    ctx = runtime.context
    t0 = time.perf_counter()
    ctx.report_progress("atomize", 0, len(ctx.originals))
    claims = await ctx.atomizer.atomize(ctx.originals)
    ctx.report_progress("atomize", len(ctx.originals), len(ctx.originals))
    log.info("atomized", audit_id=state["audit_id"], records=len(claims), claims=sum(map(len, claims)))
    return {"claims": claims, "claims_source": ctx.atomizer.name, "timings": _secs("atomize", t0)}


async def select_aux_node(state: AuditState, runtime: Runtime[AuditContext]) -> dict[str, Any]:
    cfg = runtime.context.config
    t0 = time.perf_counter()
    aux = [
        select_aux(c, cfg.aux, seed=cfg.seed, record_index=i, exclude=cfg.exclude_claims)
        for i, c in enumerate(state["claims"])
    ]
    return {"aux": aux, "timings": _secs("select_aux", t0)}


async def link(state: AuditState, runtime: Runtime[AuditContext]) -> dict[str, Any]:
    ctx = runtime.context
    t0 = time.perf_counter()
    n = len(state["claims"])
    ctx.report_progress("link", 0, n)
    linker = make_linker(ctx.config.linker, ctx.sanitized)
    queries = [aux_query(c, a) for c, a in zip(state["claims"], state["aux"])]
    docs, scores = linker.link(queries, k=1)
    links = []
    for i in range(n):
        j = int(docs[i, 0])
        links.append(
            {
                "linked": j,
                "score": round(float(scores[i, 0]), 4),
                "correct": (j == i) if ctx.config.mapping else None,
                "lexical_privacy": round(lexical_privacy(ctx.originals[i], ctx.sanitized[j]), 4),
            }
        )
    ctx.report_progress("link", n, n)
    if ctx.judge is not None:
        ctx.judge.prepare(ctx.sanitized)
    log.info("linked", audit_id=state["audit_id"], records=n, linker=ctx.config.linker,
             correct=sum(1 for x in links if x["correct"]))
    return {"links": links, "next_record": 0, "timings": _secs("link", t0)}


async def judge_chunk(state: AuditState, runtime: Runtime[AuditContext]) -> dict[str, Any]:
    ctx = runtime.context
    t0 = time.perf_counter()
    n = len(state["claims"])
    start = state.get("next_record", 0)
    end = min(n, start + ctx.config.chunk_size)
    ctx.judge.prepare(ctx.sanitized)
    jobs, judged_idx = [], []
    for i in range(start, end):
        aux = set(state["aux"][i])
        idx = [k for k in range(len(state["claims"][i])) if k not in aux]
        judged_idx.append(idx)
        jobs.append(([state["claims"][i][k] for k in idx], state["links"][i]["linked"]))
    results = await ctx.judge.judge(jobs)
    judged = {}
    for i, idx, verdicts in zip(range(start, end), judged_idx, results):
        judged[str(i)] = [{"claim": k, **v} for k, v in zip(idx, verdicts)]
    ctx.report_progress("judge", end, n)
    log.info("judged_chunk", audit_id=state["audit_id"], start=start, end=end, claims=sum(map(len, judged_idx)))
    return {"judged": judged, "next_record": end, "timings": _secs("judge", t0)}


async def report(state: AuditState, runtime: Runtime[AuditContext]) -> dict[str, Any]:
    ctx = runtime.context
    t0 = time.perf_counter()
    rep = build_report(
        audit_id=state["audit_id"],
        ids=ctx.ids,
        sanitized_ids=ctx.sanitized_ids,
        claims=state["claims"],
        claims_source=state.get("claims_source", "supplied"),
        aux=state["aux"],
        links=state["links"],
        judged=(state.get("judged") or {}) if ctx.config.judge != "none" else None,
        config=ctx.config.model_dump(mode="json"),
        judge=ctx.judge.describe() if ctx.judge is not None and ctx.config.judge != "none" else {"name": "none"},
        timings=dict(state.get("timings") or {}),
    )
    rep["timings"]["report"] = round(time.perf_counter() - t0, 4)
    return {"report": rep}


def build_graph(checkpointer: Any = None):
    g = StateGraph(AuditState, context_schema=AuditContext)
    g.add_node("atomize", atomize)
    g.add_node("select_aux", select_aux_node)
    g.add_node("link", link)
    g.add_node("judge_chunk", judge_chunk)
    g.add_node("report", report)
    g.add_conditional_edges(START, route_start, {"atomize": "atomize", "select_aux": "select_aux"})
    g.add_edge("atomize", "select_aux")
    g.add_edge("select_aux", "link")
    g.add_conditional_edges("link", route_judge, {"judge_chunk": "judge_chunk", "report": "report"})
    g.add_conditional_edges("judge_chunk", route_judge, {"judge_chunk": "judge_chunk", "report": "report"})
    g.add_edge("report", END)
    return g.compile(checkpointer=checkpointer, name="veil-audit")
