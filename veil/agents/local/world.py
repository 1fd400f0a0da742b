"""What the local agents of one batch share: the population the attacker knows, the released
pool it searches, cached embeddings, the labelled training set and the batch's pseudonyms.
Built once by :meth:`LocalWorld.prepare` (the engine's ``prepare`` hook)."""

from __future__ import annotations

import asyncio
import hashlib
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from veil.agents.local.retrieval import Pool, tokenize
from veil.nlp import sentences
from veil.documents import Document
from veil.errors import UserInputError
from veil.io import read_jsonl
from veil.logging import get_logger

log = get_logger(__name__)

_CLAUSE = re.compile(r"\s*(?:;|,\s*(?:and|but|where|while|which|who)\s|\s+and\s+(?=[a-z]+ed\b|has\b|was\b|is\b))\s*")


def fragments(text: str, min_tokens: int = 2, max_tokens: int = 6) -> list[list[str]]:
    """Claim-sized pieces of a text (as tokens): what an adversary's 'known facts' look like.
    Atomic claims ("The person was born in Sacramento, CA") hold 2-6 content words, so
    clauses are split at commas and cut into windows of at most ``max_tokens``."""
    out = []
    for s in sentences(text):
        for c in re.split(r"[,;:()]|" + _CLAUSE.pattern, s):
            toks = tokenize(c or "")
            for i in range(0, len(toks), max_tokens):
                piece = toks[i : i + max_tokens]
                if len(piece) >= min_tokens:
                    out.append(piece)
    return out


@dataclass
class Candidate:
    id: str
    name: str | None
    text: str


@dataclass
class LocalWorld:
    population: list[Candidate] = field(default_factory=list)
    population_is_batch: bool = True
    pop_pool: Pool | None = None  # the population's background texts (who is this?)
    released: dict[str, str] = field(default_factory=dict)  # doc id -> publisher's expected release text
    release_pool: Pool | None = None
    release_ids: list[str] = field(default_factory=list)
    train_texts: list[str] = field(default_factory=list)
    train_labels: list[str] = field(default_factory=list)
    allow: set[str] = field(default_factory=set)
    deny: set[str] = field(default_factory=set)
    pseudonyms: Any = None  # generalize.PseudonymTable
    options: dict[str, Any] = field(default_factory=dict)
    _emb: dict[str, np.ndarray] = field(default_factory=dict)
    _pending: dict[str, tuple[str, list[asyncio.Future]]] = field(default_factory=dict)
    _flush: asyncio.Task | None = None
    release: Any = None  # Document -> the text the publisher expects to release (set by the engine)

    async def prepare(self, documents: list[Document]) -> None:
        """Population, released pool and training set for this batch."""
        o = self.options
        if o.get("population_path"):
            self.population = load_population(
                Path(o["population_path"]), o.get("population_name_field", "name"), o.get("population_text_field", "text")
            )
            self.population_is_batch = False
        else:
            self.population = docs_population(documents)
            self.population_is_batch = True
        self.pop_pool = Pool([tokenize(c.text) for c in self.population])
        self.released, self.release_ids, self.release_pool = {}, [], None
        if self.population_is_batch and len(documents) > 1:
            assert self.release is not None, "the engine sets LocalWorld.release"
            self.released = {d.id: self.release(d) for d in documents}
            self.release_ids = [d.id for d in documents]
            self.release_pool = Pool([tokenize(self.released[i]) for i in self.release_ids])
        if o.get("train_path"):
            self.train_texts, self.train_labels = load_training(Path(o["train_path"]))
        else:
            labelled = [d for d in documents if d.label]
            self.train_texts = [d.text for d in labelled]
            self.train_labels = [str(d.label) for d in labelled]
        log.info("local_world", population=len(self.population), batch=self.population_is_batch,
                 released=len(self.released), train=len(self.train_texts))

    # -- embeddings, cached by text --------------------------------------------------------
    def embed(self, texts: list[str]) -> np.ndarray:
        from veil.embeddings import encode

        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        missing = [(k, t) for k, t in zip(keys, texts) if k not in self._emb]
        if missing:
            uniq = dict(missing)
            vecs = encode(list(uniq.values()))
            for k, v in zip(uniq.keys(), vecs):
                self._emb[k] = v
            if len(self._emb) > 50_000:  # bound memory on endless servers
                for k in list(self._emb)[: len(self._emb) // 2]:
                    del self._emb[k]
        return np.stack([self._emb[k] for k in keys])

    async def aembed(self, text: str) -> np.ndarray:
        """One embedding, batched with those other documents ask for meanwhile: the batch's
        documents run concurrently, and MiniLM on CPU is several times faster per text in
        batches than one by one."""
        key = hashlib.sha1(text.encode()).hexdigest()
        if key in self._emb:
            return self._emb[key]
        fut = asyncio.get_running_loop().create_future()
        self._pending.setdefault(key, (text, []))[1].append(fut)
        if self._flush is None or self._flush.done():
            self._flush = asyncio.ensure_future(self._flush_soon())
        return await fut

    async def _flush_soon(self) -> None:
        await asyncio.sleep(0)  # let every ready document queue its text first
        for _ in range(3):
            await asyncio.sleep(0)
        pending, self._pending = self._pending, {}
        if not pending:
            return
        try:
            vecs = self.embed([t for t, _ in pending.values()])
        except Exception as e:  # hand the error to every waiter instead of losing it
            for _, futs in pending.values():
                for f in futs:
                    if not f.done():
                        f.set_exception(e)
            return
        for v, (_, futs) in zip(vecs, pending.values()):
            for f in futs:
                if not f.done():
                    f.set_result(v)

    def candidate_index(self, doc_id: str, name: str | None) -> int | None:
        """Which population entry is the truth: the document itself, else by name."""
        from veil.matching import matches

        if self.population_is_batch:
            for i, c in enumerate(self.population):
                if c.id == doc_id:
                    return i
        if name:
            for i, c in enumerate(self.population):
                if c.name and matches(c.name, name):
                    return i
        return None

    # -- the attacker's samples ------------------------------------------------------------
    def queries(self, doc_id: str, background: str, name: str | None, m: int, size: int) -> list[list[str]]:
        """``m`` partial-knowledge queries of ``size`` known facts each, sampled (seeded by the
        document id) from the clauses of the background text. The person's name is taken out
        of them (an auditor leaves out the 'name is' claim; claims say "the person")."""
        name_toks = set(tokenize(name)) if name else set()
        frags = [[t for t in f if t not in name_toks] for f in fragments(background)]
        frags = [f for f in frags if len(f) >= 2] or [tokenize(background)]
        rng = random.Random(int(hashlib.sha1(doc_id.encode()).hexdigest()[:8], 16))
        out = []
        for _ in range(m):
            pick = rng.sample(frags, min(size, len(frags)))
            out.append([t for f in pick for t in f])
        return out


def load_population(path: Path, name_field: str, text_field: str) -> list[Candidate]:
    out = []
    for where, rec in read_jsonl(path):
        if text_field not in rec:
            raise UserInputError(f"{where}: no field {text_field!r}")
        out.append(Candidate(id=str(rec.get("id", len(out))), name=rec.get(name_field), text=str(rec[text_field])))
    if len(out) < 2:
        raise UserInputError(f"{path}: a population needs at least 2 candidates")
    return out


def load_training(path: Path, text_field: str = "text", label_field: str = "label") -> tuple[list[str], list[str]]:
    texts, labels = [], []
    for where, rec in read_jsonl(path):
        if text_field not in rec or label_field not in rec:
            raise UserInputError(f"{where}: training records need {text_field!r} and {label_field!r}")
        texts.append(str(rec[text_field]))
        labels.append(str(rec[label_field]))
    return texts, labels


def docs_population(documents: list[Document]) -> list[Candidate]:
    return [Candidate(id=d.id, name=d.name, text=d.text) for d in documents]
