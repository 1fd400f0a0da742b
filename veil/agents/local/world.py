"""What the local agents work from: per batch, a :class:`LocalBatch` (the population the
attacker knows, the released pool it searches, the labelled training set and classifier, the
batch's pseudonyms), built once by :meth:`LocalWorld.build_batch` (the engine's ``prepare``);
for the engine's lifetime, a :class:`LocalWorld` (options, allow/deny lists, embedding cache)."""

from __future__ import annotations

import asyncio
import hashlib
import random
import re
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Mapping

import numpy as np

from veil.agents.batch import Batch
from veil.agents.local.generalize import PseudonymTable
from veil.agents.local.retrieval import Pool, tokenize
from veil import nlp
from veil.nlp import sentences
from veil.documents import Document
from veil.errors import UserInputError
from veil.io import read_jsonl
from veil.logging import get_logger

log = get_logger(__name__)

_CLAUSE = re.compile(r"\s*(?:;|,\s*(?:and|but|where|while|which|who)\s|\s+and\s+(?=[a-z]+ed\b|has\b|was\b|is\b))\s*")


def fact_pieces(text: str, min_tokens: int = 2, max_tokens: int = 6) -> list[tuple[str, list[str]]]:
    """Claim-sized pieces of a text: what an adversary's 'known facts' look like, each as its
    words (for the semantic attacker) and its BM25 tokens. Atomic claims ("The person was born
    in Sacramento, CA") hold 2-6 content words, so clauses are split at commas and cut into
    windows of at most ``max_tokens`` content words."""
    from veil.agents.local.retrieval import STOPWORDS, stem

    out = []
    for s in sentences(text):
        for c in re.split(r"[,;:()]|" + _CLAUSE.pattern, s):
            words = [m for m in re.finditer(r"\w\w+", c or "") if m.group().lower() not in STOPWORDS]
            for i in range(0, len(words), max_tokens):
                piece = words[i : i + max_tokens]
                if len(piece) >= min_tokens:
                    out.append((c[piece[0].start():piece[-1].end()], [stem(m.group().lower()) for m in piece]))
    return out


def fragments(text: str, min_tokens: int = 2, max_tokens: int = 6) -> list[list[str]]:
    """The BM25 tokens of :func:`fact_pieces`."""
    return [toks for _, toks in fact_pieces(text, min_tokens, max_tokens)]


@dataclass
class Candidate:
    id: str
    name: str | None
    text: str


_LINKER_LOCK = threading.Lock()
# a run of capitalised words, what a person's written name is ("Otto Krantz", "Edward R. Bradley")
_NAME_RUN = re.compile(r"[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)+")


def _name_key(name: str) -> str:
    """A written name as the index compares it: folded, without points and possessives ("Carl
    Weber's" and "Carl Weber." are "carl weber"; "Edward R. Bradley" is "edward r bradley")."""
    from veil.agents.local.spans import fold

    return " ".join(re.sub(r"['’]s\b|['’.]", " ", fold(name)).split())


@dataclass(frozen=True, eq=False, kw_only=True)
class LocalBatch(Batch):
    """What the local agents derive from one batch (immutable; see :mod:`veil.agents.batch`):
    the population the attacker knows, the pool of records as the publisher expects to release
    them, the utility classifier and the batch's pseudonym table. ``memo`` holds pure functions
    of the batch (analyses, plans, attack queries), computed on first use."""

    population: tuple[Candidate, ...] = ()
    population_is_batch: bool = True
    pop_pool: Pool | None = None  # the population's background texts (who is this?)
    released: Mapping[str, str] = field(default_factory=dict)  # doc id -> expected release text
    release_pool: Pool | None = None
    release_ids: tuple[str, ...] = ()
    release_sentences: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # the semantic attacker reads these
    train_texts: tuple[str, ...] = ()
    train_labels: tuple[str, ...] = ()
    classifier: Any = None  # sklearn LogisticRegression over MiniLM, or None (zero-shot)
    classes: tuple[str, ...] = ()
    pseudonyms: PseudonymTable = field(default_factory=PseudonymTable)
    memo: dict[str, dict] = field(default_factory=lambda: {"analyses": {}, "plans": {}, "attacks": {}, "index": {}})

    def release_linker(self, encoder: Callable[[list[str]], np.ndarray]):
        """The semantic attacker's view of the released records: a
        :class:`veil.evals.semantic.SemanticLinker` (BM25 left out) fitted on their sentences,
        embedded with ``encoder``. Built on first use, once per batch: a batch whose BM25 attack
        is never beaten (or that no partial-knowledge attack runs on, as in the attributes
        profile) embeds nothing."""
        memo = self.memo["index"]
        linker = memo.get("release_linker")
        if linker is None:
            with _LINKER_LOCK:
                linker = memo.get("release_linker")
                if linker is None:
                    from veil.evals.semantic import SemanticLinker

                    sents = [list(self.release_sentences.get(i, ())) for i in self.release_ids]
                    linker = SemanticLinker(bm25_weight=0, splitter=lambda _: sents, encoder=encoder).fit(
                        [self.released[i] for i in self.release_ids])
                    memo["release_linker"] = linker
        return linker

    def named_in_another_document(self, doc_id: str | None, names: list[str]) -> bool:
        """Does a document of the batch other than ``doc_id`` write one of these names (two words
        or more, as written: "Otto Krantz")? Then the batch's pseudonym is what tells a reader of
        the release that two records speak of one person. An index of the documents' capitalised
        word runs, built on first use (a batch's analyses run before its pseudonym table has met
        every document)."""
        if not self.population_is_batch or len(self.population) < 2:
            return False
        index = self.memo["index"].get("names")
        if index is None:
            from veil.agents.local.spans import fold

            built: dict[str, set[str]] = {}
            for c in self.population:
                for m in _NAME_RUN.finditer(c.text):
                    # (a run may cross a sentence's end, "Carl Weber. Carl Weber's": its pieces are keys too)
                    words = _name_key(m.group(0)).split()
                    for a in range(len(words)):
                        for b in range(a + 2, min(len(words), a + 4) + 1):
                            built.setdefault(" ".join(words[a:b]), set()).add(c.id)
            index = self.memo["index"].setdefault("names", built)
        return any(index.get(_name_key(n), set()) - {doc_id} for n in names if len(_name_key(n).split()) >= 2)

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


def local_batch(batch: Batch | None) -> LocalBatch:
    """The local agents' view of the batch they were called with."""
    if not isinstance(batch, LocalBatch):
        raise TypeError("the local engine's agents need the LocalBatch its prepare() built "
                        f"(got {type(batch).__name__}); call Engine.prepare(documents) first")
    return batch


@dataclass
class LocalWorld:
    """What the local agents share for the engine's lifetime, across batches: the options,
    allow and deny lists, and an embedding cache keyed by the text's hash (a pure function of
    the text: it carries nothing from one batch's documents into another's results)."""

    allow: set[str] = field(default_factory=set)
    deny: set[str] = field(default_factory=set)
    options: dict[str, Any] = field(default_factory=dict)
    _emb: dict[str, np.ndarray] = field(default_factory=dict)
    _pending: dict[str, tuple[str, list[asyncio.Future]]] = field(default_factory=dict)
    _flush: asyncio.Task | None = None
    _emb_lock: threading.Lock = field(default_factory=threading.Lock)

    def build_batch(self, documents: list[Document], *, release: Callable[[Document, LocalBatch], str],
                    fit: Callable[[list[str], list[str]], tuple[Any, tuple[str, ...]]]) -> LocalBatch:
        """Population, released pool, training set and classifier for these documents.
        ``release(doc, batch)`` is how the publisher expects a record to look once released
        (the optimizer's base plan), as its text and its sentences; ``fit`` trains the utility
        classifier."""
        o = self.options
        if o.get("population_path"):
            population = load_population(
                Path(o["population_path"]), o.get("population_name_field", "name"), o.get("population_text_field", "text")
            )
            is_batch = False
        else:
            population = docs_population(documents)
            is_batch = True
        if o.get("train_path"):
            train_texts, train_labels = load_training(Path(o["train_path"]))
        else:
            labelled = [d for d in documents if d.label]
            train_texts, train_labels = [d.text for d in labelled], [str(d.label) for d in labelled]
        classifier, classes = fit(train_texts, train_labels)
        batch = LocalBatch(
            doc_ids=tuple(d.id for d in documents), engine="local",
            population=tuple(population), population_is_batch=is_batch,
            pop_pool=Pool([tokenize(c.text) for c in population]),
            train_texts=tuple(train_texts), train_labels=tuple(train_labels), classifier=classifier, classes=classes,
        )
        if is_batch and len(documents) > 1:
            # the release plans see the batch without a release pool (they need none); the
            # final batch shares their pseudonyms and memo tables
            plans = {}
            for k in range(0, len(documents), 64):
                # each group's parses in one spaCy pipe first (about twice as fast per text as
                # one call each), in groups so that the parse cache keeps them until used
                group = documents[k:k + 64]
                nlp.prefetch([d.text for d in group], light=False)
                plans.update({d.id: release(d, batch) for d in group})
            released = {i: text for i, (text, _) in plans.items()}
            ids = tuple(d.id for d in documents)
            batch = replace(batch, released=MappingProxyType(released), release_ids=ids,
                            release_pool=Pool([tokenize(released[i]) for i in ids]),
                            release_sentences=MappingProxyType({i: tuple(plans[i][1]) for i in ids}))
        log.info("local_batch", batch=batch.id, population=len(batch.population), is_batch=is_batch,
                 released=len(batch.released), train=len(batch.train_texts))
        return batch

    # -- embeddings, cached by text --------------------------------------------------------
    def embed(self, texts: list[str]) -> np.ndarray:
        from veil.embeddings import encode

        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        known = {k: self._emb[k] for k in keys if k in self._emb}
        missing = {k: t for k, t in zip(keys, texts) if k not in known}
        if missing:
            vecs = encode(list(missing.values()))  # outside the lock: batches run in threads
            known.update(zip(missing.keys(), vecs))
            with self._emb_lock:
                self._emb.update(zip(missing.keys(), vecs))
                if len(self._emb) > 50_000:  # bound memory on endless servers
                    for k in list(self._emb)[: len(self._emb) // 2]:
                        del self._emb[k]
        return np.stack([known[k] for k in keys])

    async def aembed(self, text: str) -> np.ndarray:
        """One embedding, batched with those other documents ask for meanwhile: the batch's
        documents run concurrently, and MiniLM on CPU is several times faster per text in
        batches than one by one."""
        key = hashlib.sha1(text.encode()).hexdigest()
        if key in self._emb:
            return self._emb[key]
        fut = asyncio.get_running_loop().create_future()
        self._pending.setdefault(key, (text, []))[1].append(fut)
        loop = asyncio.get_running_loop()
        if self._flush is None or self._flush.done() or self._flush.get_loop() is not loop:
            self._flush = loop.create_task(self._flush_soon())
        return await fut

    async def _flush_soon(self) -> None:
        """Encode what is pending, again and again until nothing is: texts queued while an
        encode ran in its thread are the next round's."""
        while True:
            await asyncio.sleep(0)  # let every ready document queue its text first
            for _ in range(3):
                await asyncio.sleep(0)
            pending, self._pending = self._pending, {}
            if not pending:
                return
            try:  # MiniLM on CPU: in a worker thread, off the event loop
                vecs = await asyncio.to_thread(self.embed, [t for t, _ in pending.values()])
            except Exception as e:  # hand the error to every waiter instead of losing it
                for _, futs in pending.values():
                    for f in futs:
                        if not f.done():
                            f.set_exception(e)
                continue
            for v, (_, futs) in zip(vecs, pending.values()):
                for f in futs:
                    if not f.done():
                        f.set_result(v)

    # -- the attacker's samples ------------------------------------------------------------
    def queries(self, doc_id: str, background: str, name: str | None, m: int, size: int) -> list[list[str]]:
        """The BM25 tokens of :meth:`facts`' queries."""
        return [[t for _, toks in q for t in toks] for q in self.facts(doc_id, background, name, m, size)]

    def facts(self, doc_id: str, background: str, name: str | None, m: int,
              size: int) -> list[list[tuple[str, list[str]]]]:
        """``m`` partial-knowledge queries of ``size`` known facts each (a fact: its words and its
        BM25 tokens), sampled (seeded by the document id) from the clauses of the background
        text. The person's name is taken out of them (an auditor leaves out the 'name is'
        claim; claims say "the person")."""
        name_toks = set(tokenize(name)) if name else set()
        name_re = (re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in re.findall(r"\w\w+", name)) + r")(?!\w)", re.I)
                   if name_toks else None)
        frags = []
        for words, toks in fact_pieces(background):
            toks = [t for t in toks if t not in name_toks]
            if len(toks) >= 2:
                frags.append((re.sub(r"\s{2,}", " ", name_re.sub("", words)).strip() if name_re else words, toks))
        frags = frags or [(background, tokenize(background))]
        rng = random.Random(int(hashlib.sha1(doc_id.encode()).hexdigest()[:8], 16))
        return [rng.sample(frags, min(size, len(frags))) for _ in range(m)]


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
