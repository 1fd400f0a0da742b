"""The batch object: ``Engine.prepare`` returns an immutable :class:`Batch`, the agents keep no
per-batch state, and nothing (pseudonyms above all) crosses from one batch, request or API key
to another."""

from __future__ import annotations

import asyncio
import dataclasses
import re

import httpx
import pytest

from tests.conftest_server import KEY_A, KEY_B, running_server
from tests.test_local_engine import DOCS, task_for
from veil.agents import build_engine
from veil.agents.batch import Batch
from veil.agents.local.engine import build
from veil.agents.local.world import LocalBatch
from veil.documents import Document
from veil.llm import LLMSettings


@pytest.fixture(scope="module")
def engine():
    return build()


def test_prepare_returns_an_immutable_batch(engine):
    batch = asyncio.run(engine.prepare(DOCS))
    assert isinstance(batch, LocalBatch) and batch.engine == "local"
    assert batch.doc_ids == tuple(d.id for d in DOCS) and len(batch) == len(DOCS) and "b1" in batch
    assert len(batch.population) == len(DOCS) and set(batch.released) == set(batch.doc_ids)
    assert sorted(batch.classes) == ["Architect", "Chef", "Tennis player"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        batch.population = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        batch.released["b1"] = "changed"  # type: ignore[index]
    # every batch is a new one
    assert asyncio.run(engine.prepare(DOCS)).id != batch.id


def test_llm_engine_batch_is_the_plain_one():
    eng = build_engine("llm", llm=LLMSettings(base_url="http://127.0.0.1:9/v1", model="m", api_key="x"))
    batch = asyncio.run(eng.prepare(DOCS[:2]))
    assert type(batch) is Batch and batch.doc_ids == ("b1", "b2") and batch.engine == "llm"


def test_agents_keep_no_per_batch_state(engine):
    """Preparing (and using) another batch on the same engine changes nothing in a first batch's
    results: everything per batch lives in the batch."""
    first = asyncio.run(engine.prepare(DOCS))
    task = task_for("b4")
    before = engine.optimizer.privacy_plan(task, first).render()
    rank_before = asyncio.run(engine.p_evaluator.evaluate(task.original, task, batch=first)).score
    other = asyncio.run(engine.prepare([DOCS[3], DOCS[0]]))  # b4 again, in a batch of two
    engine.optimizer.privacy_plan(task, other)
    assert engine.optimizer.privacy_plan(task, first).render() == before
    assert asyncio.run(engine.p_evaluator.evaluate(task.original, task, batch=first)).score == rank_before


def test_local_agents_refuse_a_call_without_their_batch(engine):
    task = task_for("b1")
    with pytest.raises(TypeError, match="prepare"):
        asyncio.run(engine.p_evaluator.evaluate(task.original, task))


def test_pseudonyms_are_scoped_to_the_batch(engine):
    """Labels are given in order of appearance within a batch: a batch says nothing about the
    names another batch met before it."""
    # (each person named twice: a person a text names once becomes "someone")
    a = Document(id="a", text="Glen Fishback met Edward Weston in Carmel in 1958. Weston liked Fishback.")
    b = Document(id="b", text="Edward Weston taught Ansel Adams to print. Adams thanked Weston.")
    batch_a = asyncio.run(engine.prepare([a]))
    out_a = engine.optimizer.privacy_plan(task_of(a), batch_a).render()
    batch_b = asyncio.run(engine.prepare([b]))
    out_b = engine.optimizer.privacy_plan(task_of(b), batch_b).render()
    assert labels(out_a) == ["Person A", "Person B"]
    assert labels(out_b) == ["Person A", "Person B"]  # Edward Weston is "Person B" only in batch a
    # within one batch the same person keeps one label across documents
    both = asyncio.run(engine.prepare([a, b]))
    out_a2 = engine.optimizer.privacy_plan(task_of(a), both).render()
    out_b2 = engine.optimizer.privacy_plan(task_of(b), both).render()
    weston = labels(out_a2)[1]
    assert labels(out_b2)[0] == weston and labels(out_b2)[1] not in labels(out_a2)


def task_of(doc: Document):
    from veil.agents.base import Task

    return Task(original=doc.text, doc_id=doc.id, name=doc.name)


def labels(text: str) -> list[str]:
    """The pseudonyms of a text, each once, in order of appearance."""
    return list(dict.fromkeys(re.findall(r"Person [A-Z]+", text)))


# -- the server: one batch per request, nothing shared across keys ----------------------------


@pytest.fixture(scope="module")
def local_base(tmp_path_factory):
    with running_server(None, tmp_path_factory.mktemp("local-srv") / "veil.db", engine="local") as url:
        yield url


def post(base: str, key: str, docs: list[dict], **options) -> dict:
    r = httpx.post(base + "/v1/anonymize", headers={"Authorization": f"Bearer {key}"}, timeout=300,
                   json={"documents": docs, "options": options})
    assert r.status_code == 200, r.text
    return r.json()


def test_a_request_is_one_batch(local_base):
    """A generalization that happens only because the other documents of the request exist:
    alone, a record has no population to be attacked in (unverified, policy only); with the
    rest of its request, the linking attack runs and removes more."""
    docs = [{"id": d.id, "text": d.text, "name": d.name, "label": d.label} for d in DOCS]
    alone = post(local_base, KEY_A, [docs[1]], k=3)["data"][0]
    together = {d["id"]: d for d in post(local_base, KEY_A, docs, k=3)["data"]}["b2"]
    assert alone["status"] == together["status"] == "done"
    assert alone["privacy_status"] == "unverified" and "no population" in alone["privacy_note"]
    assert together["privacy_status"] in ("protected", "re-identified")
    words = lambda t: set(re.findall(r"\w+", t.lower()))  # noqa: E731
    assert words(alone["anonymized_text"]) - words(together["anonymized_text"]), (alone, together)


def test_pseudonyms_never_cross_api_keys(local_base):
    """Key A's names do not shape key B's labels: B's first person is "Person A" whatever A sent."""
    a = "Glen Fishback photographed Edward Weston and Imogen Cunningham in Carmel."
    # (a person named once becomes "someone": Hale is named twice to keep a label)
    b = "Imogen Cunningham wrote to Walter Hale about a new camera. Hale answered."
    out_a = post(local_base, KEY_A, [{"id": "x", "text": a}])["data"][0]["anonymized_text"]
    out_b = post(local_base, KEY_B, [{"id": "x", "text": b}])["data"][0]["anonymized_text"]
    assert labels(out_a) == ["Person A", "Person B", "Person C"]
    assert labels(out_b) == ["Person A", "Person B"], out_b
    # and the same request again gets the same labels (nothing carried over from before)
    assert post(local_base, KEY_B, [{"id": "x", "text": b}])["data"][0]["anonymized_text"] == out_b
