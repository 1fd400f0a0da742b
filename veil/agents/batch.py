"""The batch: what :meth:`veil.agents.Engine.prepare` derives once from a set of documents and
hands to every agent call, so that the agents themselves keep no per-batch state.

A batch is immutable (a frozen dataclass): the population the attacker knows, the release pool
it searches, the utility classifier are fixed when it is built. Two things inside it grow while
its documents run, and both are scoped to it: the pseudonym table (a person first met in
document 7 gets the next label) and memo tables of pure functions of the batch (parses, plans,
attack queries). Nothing crosses from one batch to another: two API requests, or two API keys,
never share a pseudonym (the labels of one request say nothing about another's documents).

The graph carries the batch in its runtime context (:class:`veil.graphs.anonymize.AnonymizeContext`).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from veil.documents import Document


def new_batch_id() -> str:
    return f"batch-{uuid.uuid4().hex[:16]}"


@dataclass(frozen=True, eq=False, kw_only=True)
class Batch:
    """The engine-independent part: which documents were prepared together. Engines with
    per-batch data subclass it (the local engine's :class:`veil.agents.local.world.LocalBatch`)."""

    id: str = field(default_factory=new_batch_id)
    doc_ids: tuple[str, ...] = ()
    engine: str = ""

    def __len__(self) -> int:
        return len(self.doc_ids)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.doc_ids

    @classmethod
    def of(cls, documents: list[Document], engine: str = "") -> "Batch":
        return cls(doc_ids=tuple(d.id for d in documents), engine=engine)

    def describe(self) -> dict[str, Any]:
        """Sizes only (logs and traces never carry text)."""
        return {"batch": self.id, "documents": len(self.doc_ids), "engine": self.engine}


__all__ = ["Batch", "new_batch_id"]
