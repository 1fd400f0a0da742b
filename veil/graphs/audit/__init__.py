"""The audit graph: what does a sanitized dataset still leak? ("A False Sense of Privacy").

Public API: :func:`run_audit` (used by the CLI and the HTTP server) and :class:`AuditConfig`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from veil.errors import UserInputError
from veil.graphs.audit.configuration import AuditConfig, AuditContext, audit_id
from veil.graphs.audit.graph import build_graph
from veil.llm import LLMSettings
from veil.logging import get_logger

__all__ = ["AuditConfig", "AuditContext", "build_graph", "check_inputs", "run_audit", "default_db_path", "make_judge", "make_atomizer"]

log = get_logger(__name__)


def default_db_path() -> Path:
    home = Path(os.environ.get("VEIL_HOME") or Path.home() / ".veil")
    return home / "veil.db"


def make_judge(config: AuditConfig, llm: LLMSettings | None = None) -> Any:
    if config.judge == "none":
        return None
    if config.judge == "local":
        from veil.agents.local.judge import LocalJudge

        return LocalJudge()
    from veil.agents.judge import LLMJudge

    return LLMJudge(llm or LLMSettings.from_env(), k_votes=config.k_votes, temperature=config.temperature)


def make_atomizer(config: AuditConfig, llm: LLMSettings | None = None) -> Any:
    if config.atomizer == "local":
        from veil.agents.local.atomizer import LocalAtomizer

        return LocalAtomizer()
    from veil.agents.atomizer import LLMAtomizer

    return LLMAtomizer(llm or LLMSettings.from_env())


def _validate(
    originals: list[str], sanitized: list[str], config: AuditConfig, claims: list[list[str]] | None,
    ids: list[str] | None, sanitized_ids: list[str] | None,
) -> None:
    if not originals:
        raise UserInputError("no original records to audit")
    if not sanitized:
        raise UserInputError("no sanitized records to audit")
    if config.mapping and len(originals) != len(sanitized):
        raise UserInputError(
            f"{len(originals)} original records but {len(sanitized)} sanitized ones: with a one-to-one "
            "mapping (record i sanitized into record i) they must be as many; audit without mapping instead"
        )
    if claims is not None:
        if len(claims) != len(originals):
            raise UserInputError(f"{len(claims)} claim lists for {len(originals)} original records: they must be aligned")
        for i, c in enumerate(claims):
            if not isinstance(c, list) or not all(isinstance(x, str) for x in c):
                raise UserInputError(f"claims of record {i} are not a list of strings")
    if ids is not None and len(ids) != len(originals):
        raise UserInputError(f"{len(ids)} ids for {len(originals)} original records")
    if sanitized_ids is not None and len(sanitized_ids) != len(sanitized):
        raise UserInputError(f"{len(sanitized_ids)} ids for {len(sanitized)} sanitized records")
    if config.linker == "bm25":
        from veil.evals.linking import bm25_tokenize

        if not bm25_tokenize(list(sanitized), stem=False).vocab:  # bm25s cannot index an empty vocabulary
            raise UserInputError("the sanitized texts have no word to link on (only stopwords, one-letter words "
                                 "or punctuation): nothing to audit")


def check_inputs(originals: list[str], sanitized: list[str], config: AuditConfig, *,
                 claims: list[list[str]] | None = None, ids: list[str] | None = None,
                 sanitized_ids: list[str] | None = None) -> None:
    """What :func:`run_audit` refuses (``UserInputError``), checked before an audit starts (the
    server answers 400 instead of failing the audit in the background)."""
    _validate(originals, sanitized, config, claims, ids, sanitized_ids)


async def run_audit(
    originals: list[str],
    sanitized: list[str],
    config: AuditConfig,
    *,
    claims: list[list[str]] | None = None,
    ids: list[str] | None = None,
    llm: LLMSettings | None = None,
    db_path: str | os.PathLike[str] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    sanitized_ids: list[str] | None = None,
    judge: Any = None,
    atomizer: Any = None,
) -> dict[str, Any]:
    """Audit ``sanitized`` against ``originals``; returns the report dict (see
    :mod:`veil.evals.audit_report`). Checkpointed in the SQLite file ``db_path`` (default
    ``$VEIL_HOME/veil.db``) under an id hashed from the inputs and the configuration: calling
    it again with the same arguments after an interruption resumes where it stopped (finished
    judge chunks are not redone), and after completion returns the stored report.

    ``judge`` / ``atomizer`` may be given as objects (shared caches across seeds, tests);
    by default they are built from ``config`` (and ``llm`` for the LLM agents)."""
    from veil.memory.store import open_checkpointer

    _validate(originals, sanitized, config, claims, ids, sanitized_ids)
    ids = [str(x) for x in ids] if ids is not None else [str(i) for i in range(len(originals))]
    sanitized_ids = (
        [str(x) for x in sanitized_ids] if sanitized_ids is not None
        else (ids if config.mapping else [str(i) for i in range(len(sanitized))])
    )
    own: list[Any] = []
    if judge is None and config.judge != "none":
        judge = make_judge(config, llm)
        own.append(judge)
    if claims is None and atomizer is None:
        atomizer = make_atomizer(config, llm)
        own.append(atomizer)
    if config.judge == "none":
        judge = None
    aid = audit_id(originals, sanitized, config, claims=claims, ids=ids,
                   judge=judge.describe() if judge is not None else None)
    ctx = AuditContext(
        originals=list(originals), sanitized=list(sanitized), ids=ids, sanitized_ids=sanitized_ids,
        config=config, judge=judge, atomizer=atomizer, progress=progress,
    )
    from veil.memory.store import default_db, is_postgres

    # a SQLite file, or a PostgreSQL URL (the anonymize runs' database); default $VEIL_DB, else veil.db
    path = db_path if is_postgres(db_path) else Path(db_path) if db_path is not None else default_db()
    if not is_postgres(path):
        path.parent.mkdir(parents=True, exist_ok=True)
    n_chunks = -(-len(originals) // config.chunk_size)
    run_cfg = {"configurable": {"thread_id": aid}, "recursion_limit": n_chunks + 20}
    try:
        async with open_checkpointer(path) as saver:  # WAL, busy timeout, 0600
            graph = build_graph(saver)
            snap = await graph.aget_state(run_cfg)
            values = snap.values or {}
            if values.get("report") is not None and not snap.next:
                log.info("audit_cached", audit_id=aid)
                rep = dict(values["report"])
                rep["cached"] = True
                return rep
            if snap.next:
                log.info("audit_resume", audit_id=aid, next=list(snap.next), judged=len(values.get("judged") or {}))
                result = await graph.ainvoke(None, run_cfg, context=ctx)
            else:
                init: dict[str, Any] = {"audit_id": aid, "judged": {}, "timings": {}}
                if claims is not None:
                    init["claims"] = [list(c) for c in claims]
                    init["claims_source"] = "supplied"
                result = await graph.ainvoke(init, run_cfg, context=ctx)
            return result["report"]
    finally:
        for agent in own:
            if agent is not None and hasattr(agent, "aclose"):
                await agent.aclose()
