"""A batch in forked worker processes (:func:`veil.batch.run_concurrently` with ``workers``):
the results come back in order and to the parent's ``on_done``, a dead worker loses only what
it held, and the embedded engine writes the same outputs as in one process."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from veil.batch import can_fork, run_concurrently
from veil.cli import main

pytestmark = pytest.mark.skipif(not can_fork(), reason="worker processes are forked (Linux)")


def _lost(item, why):
    return ("lost", item, why)


def test_results_come_back_in_order_from_other_processes():
    parent = os.getpid()
    seen = []

    async def work(i):
        await asyncio.sleep(0.01 * (i % 3))
        return ("done", i, os.getpid())

    results = asyncio.run(run_concurrently(list(range(12)), work, concurrency=2, workers=2, lost=_lost,
                                           on_done=lambda item, r: seen.append((item, os.getpid())),
                                           show_progress=False))
    assert [r[1] for r in results] == list(range(12)) and all(r[0] == "done" for r in results)
    pids = {r[2] for r in results}
    assert parent not in pids and len(pids) == 2  # two workers did the work...
    assert sorted(i for i, _ in seen) == list(range(12)) and {p for _, p in seen} == {parent}  # ...the parent journalled it


def test_a_small_batch_runs_in_this_process():
    async def work(i):
        return os.getpid()

    results = asyncio.run(run_concurrently([1, 2, 3], work, workers=2, lost=_lost, show_progress=False))
    assert set(results) == {os.getpid()}


def test_an_item_that_raises_fails_alone():
    async def work(i):
        if i == 5:
            raise ValueError("bad item")
        return ("done", i)

    results = asyncio.run(run_concurrently(list(range(10)), work, workers=2, lost=_lost, show_progress=False))
    assert results[5][0] == "lost" and "ValueError" in results[5][2]
    assert all(r == ("done", i) for i, r in enumerate(results) if i != 5)


def test_a_dead_worker_loses_only_what_it_held_and_the_batch_ends():
    async def work(i):
        if i == 3:
            os._exit(7)  # the worker process dies (killed, out of memory) with item 3 in hand
        await asyncio.sleep(0.02)
        return ("done", i)

    results = asyncio.run(asyncio.wait_for(
        run_concurrently(list(range(16)), work, concurrency=1, workers=2, lost=_lost, show_progress=False), 60))
    lost = [r for r in results if r[0] == "lost"]
    assert results[3][0] == "lost" and "died (exit code 7)" in results[3][2]
    # the other worker went on with the rest; only what the dead one held is lost
    assert len(lost) == 1, lost
    assert all(r == ("done", i) for i, r in enumerate(results) if i != 3)


def test_workers_need_a_lost_result():
    async def work(i):
        return i

    with pytest.raises(ValueError):
        asyncio.run(run_concurrently(list(range(10)), work, workers=2, show_progress=False))


BIOS = [
    "Maria Keller (born 3 May 1961 in Graz) is an Austrian architect. She studied at the Vienna University of "
    "Technology and founded Keller Partners in 1994. Her Linz library won the State Prize in 2008.",
    "John Peters (born 1972) is an American chef. He trained in Lyon and opened Peters Kitchen in Chicago in 2001.",
    "Ana Silva (born 12 June 1988 in Porto) is a Portuguese tennis player. She won the Estoril Open in 2012.",
    "Tom Baker (born 1950 in Leeds) is an English architect. He designed the Leeds Arena and taught at Sheffield.",
    "Lina Berg is a Swedish chef who ran the kitchen of Operakallaren in Stockholm from 1999 to 2010.",
    "Karl Huber (born 1979 in Munich) is a German tennis player. He reached the fourth round at Wimbledon in 2004.",
    "Paul Moreau is a French architect, born in Lyon in 1966, known for the Confluence museum.",
    "Sara Okafor (born 1983 in Lagos) is a Nigerian chef. She opened her first restaurant in London in 2015.",
]


def test_the_local_engine_writes_the_same_outputs_in_workers(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": str(i), "text": t, "label": ["architect", "chef", "tennis player"][i % 3]})
                           + "\n" for i, t in enumerate(BIOS)))
    outs = {}
    for workers in ("1", "2"):
        out = tmp_path / f"out{workers}.jsonl"
        code = main(["anonymize", str(src), "-o", str(out), "--label-field", "label", "--workers", workers,
                     "--concurrency", "2", "--no-progress", "--db", str(tmp_path / f"veil{workers}.db")])
        assert code == 0
        outs[workers] = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["anonymized_text"] for r in outs["2"]] == [r["anonymized_text"] for r in outs["1"]]
    assert [r["privacy_score"] for r in outs["2"]] == [r["privacy_score"] for r in outs["1"]]
    assert all(r["anonymized_text"] and "Keller" not in r["anonymized_text"] for r in outs["2"])


def test_workers_are_for_the_local_engine(tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"text": "Hello."}) + "\n")
    assert main(["anonymize", str(src), "--engine", "llm", "--workers", "2"]) != 0
    assert "--workers is for the local engine" in capsys.readouterr().err


def test_every_worker_gets_work_before_any_gets_a_second_item():
    async def work(i):
        await asyncio.sleep(0.05)
        return os.getpid()

    results = asyncio.run(run_concurrently(list(range(16)), work, concurrency=16, workers=4, lost=_lost,
                                           show_progress=False))
    assert len(set(results)) == 4


def test_a_worker_that_cannot_start_loses_its_items_and_says_why():
    async def work(i):
        return ("done", i)

    async def in_worker():
        raise RuntimeError("too many clients")

    results = asyncio.run(asyncio.wait_for(run_concurrently(
        list(range(8)), work, workers=2, in_worker=in_worker, lost=_lost, show_progress=False), 60))
    assert all(r[0] == "lost" for r in results)
    assert all("too many clients" in r[2] or "no worker process" in r[2] for r in results)


def test_a_result_that_cannot_be_sent_back_fails_its_item_only():
    async def work(i):
        return (lambda: i) if i == 2 else ("done", i)

    results = asyncio.run(asyncio.wait_for(run_concurrently(
        list(range(8)), work, workers=2, concurrency=2, lost=_lost, show_progress=False), 60))
    assert results[2][0] == "lost" and "could not be sent back" in results[2][2]
    assert all(r == ("done", i) for i, r in enumerate(results) if i != 2)


@pytest.mark.parametrize("journalled", [True, False])
def test_the_run_of_a_document_whose_worker_died_is_marked_failed(tmp_path, monkeypatch, journalled):
    """The worker dies (killed, out of memory) after the document's run was recorded: the output
    says the document failed, and so does the run store (`veil trace`, the API's runs), not
    "running" for ever. (A fault injected into the engine, not into the client.)"""
    from veil.anonymizer import Anonymizer
    from veil.memory.store import MemoryStore

    dies = "2"

    async def dying(self, doc, *, run_id=None, **kw):
        self.memory.create_run(run_id, doc_id=doc.id, config={})
        os._exit(9)

    real = Anonymizer.anonymize

    async def anonymize(self, doc, *args, **kw):
        if doc.id == dies and os.getpid() != parent:
            await dying(self, doc, **kw)
        return await real(self, doc, *args, **kw)

    parent = os.getpid()
    monkeypatch.setattr(Anonymizer, "anonymize", anonymize)
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": str(i), "text": t, "label": ["architect", "chef", "tennis player"][i % 3]})
                           + "\n" for i, t in enumerate(BIOS)))
    db = tmp_path / "veil.db"
    out = tmp_path / "out.jsonl"
    args = ["anonymize", str(src), "--label-field", "label", "--workers", "2", "--concurrency", "1",
            "--no-progress", "--db", str(db)]
    code = main(args + (["-o", str(out)] if journalled else []))
    assert code != 0  # one document failed
    with MemoryStore(db) as store:
        runs = {r["doc_id"]: r for r in store.list_runs(limit=100)}
        lost = store.get_run(runs[dies]["run_id"])
    assert lost["status"] == "failed" and "died" in (lost["error"] or "")
    assert {r["status"] for d, r in runs.items() if d != dies} == {"done"}
    if journalled:
        rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
        assert "died" in rows[dies]["error"] and rows[dies]["run_id"] == lost["run_id"]
        assert not any("error" in r for i, r in rows.items() if i != dies)
