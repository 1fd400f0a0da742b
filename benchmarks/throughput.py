"""Throughput of a batch against an LLM endpoint with a fixed latency.

A ScriptedLLM answers every call after ``--delay`` seconds (200 ms by default). Each document
runs the anonymize graph with the ``llm`` engine, profile generic, ``max_iterations=1`` and an
attacker that always finds the target, so every document makes exactly 6 calls on a critical
path of 4 (inferrer → {P, U} → optimizer → {P, U}): ideal 1 / (4 × delay) docs/s per document
in flight. The batch runs through the same path as ``veil anonymize`` (Anonymizer +
``run_concurrently``), once with concurrency 1 and once with concurrency 32, and reports docs/s,
the speed-up, and prompt/completion tokens per document.

    .venv/bin/python benchmarks/throughput.py                # 200 docs at c=32, 20 at c=1
    .venv/bin/python benchmarks/throughput.py --docs-c1 200  # the full c=1 leg (~160 s)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from http.server import ThreadingHTTPServer
from pathlib import Path
from statistics import mean
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from veil.anonymizer import Anonymizer  # noqa: E402
from veil.batch import run_concurrently  # noqa: E402
from veil.documents import Document  # noqa: E402
from veil.graphs.anonymize import AnonymizeConfig  # noqa: E402
from veil.llm import LLMSettings  # noqa: E402
from veil.testing.scripted_llm import ScriptedLLM, schema_name  # noqa: E402

CALLS_PER_DOC = 6
CRITICAL_PATH = 4


def responder(req: dict[str, Any]) -> dict[str, Any]:
    name = schema_name(req)
    if name == "InferenceAnswer":
        return {"inferences": [{"attribute": "location", "guesses": ["Lyon"], "certainty": 5, "evidence": "Lyon"}]}
    if name == "AttributeAnswer":  # always re-identified: the optimizer runs once, max_iterations stops
        return {"attributes": [{"attribute": "location", "guesses": ["Lyon"], "clues": ["Lyon"]}]}
    if name == "UtilityAnswer":
        return {"confidence": 80, "explanation": "fine"}
    if name == "OptimizerAnswer":
        return {"text": "A teacher in a French city who enjoys cycling along the river on weekends.",
                "edits": [{"before": "Lyon", "after": "a French city", "operation": "generalize", "reason": "city"}],
                "rationale": "generalized the city"}
    raise ValueError(name)


def documents(n: int) -> list[Document]:
    return [
        Document(id=f"doc{i:04d}", text=f"I am a teacher in Lyon (#{i}); I cycle along the Rhône every weekend and "
                                        "my students call me by my first name.")
        for i in range(n)
    ]


async def leg(llm: "Endpoint", n: int, concurrency: int, db: Path, sync_normal: bool = False) -> dict[str, Any]:
    settings = LLMSettings(base_url=llm.base_url, model="scripted", api_key="x", max_retries=0, timeout_s=60)
    config = AnonymizeConfig(profile="generic", max_iterations=1)
    docs = documents(n)
    before = llm.stats(reset=True)["requests"]
    async with Anonymizer("llm", config=config, llm=settings, db_path=db) as anon:
        if sync_normal:  # what Anonymizer could do: WAL + synchronous=NORMAL, no fsync per commit
            await anon.graph.checkpointer.conn.execute("PRAGMA synchronous=NORMAL")
        await anon.prepare(docs)
        t0 = time.perf_counter()
        results = await run_concurrently(docs, anon.anonymize, concurrency=concurrency,
                                         is_failure=lambda r: r.status != "done", show_progress=False)
        seconds = time.perf_counter() - t0
    failed = [r for r in results if r.status != "done"]
    if failed:
        raise SystemExit(f"{len(failed)} documents failed, first: {failed[0].error}")
    stats = llm.stats()
    return {
        "concurrency": concurrency,
        "docs": n,
        "seconds": round(seconds, 2),
        "docs_per_s": round(n / seconds, 2),
        "calls_per_doc": (stats["requests"] - before) / n,
        "max_in_flight": stats["max_in_flight"],
        "prompt_tokens_per_doc": mean(r.usage.get("prompt_tokens", 0) for r in results),
        "completion_tokens_per_doc": mean(r.usage.get("completion_tokens", 0) for r in results),
        "mean_doc_seconds": round(mean(r.seconds for r in results), 3),
        "mean_call_ms": round(mean(r.usage.get("latency_ms", 0) / max(1, r.usage.get("calls", 1)) for r in results), 1),
    }


def _deep_backlog() -> None:
    """socketserver listens with a backlog of 5: with dozens of connections opening at once the
    kernel drops SYNs and the client retries after 1 s. A real endpoint (vLLM/uvicorn) listens
    with 2048. (Belongs in veil/testing/scripted_llm.py; set here until it is.)"""
    if ThreadingHTTPServer.request_queue_size < 1024:
        ThreadingHTTPServer.request_queue_size = 1024


class Endpoint:
    """The scripted LLM, in this process (``--in-process``) or, by default, in a child process
    of its own, as a real endpoint would be: its HTTP threads then do not compete with the
    client for this interpreter's GIL. The child answers ``stats`` / ``reset`` on its stdin."""

    def __init__(self, delay: float, in_process: bool):
        self.in_process = in_process
        if in_process:
            _deep_backlog()
            self._llm = ScriptedLLM(responder, delay_s=delay).start()
            self.base_url = self._llm.base_url
            return
        self._proc = subprocess.Popen(
            [sys.executable, __file__, "--serve-llm", str(delay)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True, bufsize=1,
        )
        self.base_url = self._proc.stdout.readline().strip()  # type: ignore[union-attr]

    def stats(self, reset: bool = False) -> dict[str, int]:
        if self.in_process:
            out = {"requests": len(self._llm.requests), "max_in_flight": self._llm.max_in_flight}
            if reset:
                self._llm.max_in_flight = 0
            return out
        self._proc.stdin.write("reset\n" if reset else "stats\n")  # type: ignore[union-attr]
        return json.loads(self._proc.stdout.readline())  # type: ignore[union-attr]

    def close(self) -> None:
        if self.in_process:
            self._llm.stop()
        else:
            self._proc.stdin.close()  # type: ignore[union-attr]
            self._proc.wait(timeout=10)


def serve_llm(delay: float) -> None:
    _deep_backlog()
    with ScriptedLLM(responder, delay_s=delay) as llm:
        print(llm.base_url, flush=True)
        for line in sys.stdin:
            print(json.dumps({"requests": len(llm.requests), "max_in_flight": llm.max_in_flight}), flush=True)
            if line.strip() == "reset":
                llm.max_in_flight = 0


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--docs", type=int, default=200, help="documents of the concurrent leg (default 200)")
    p.add_argument("--docs-c1", type=int, default=20, help="documents of the concurrency-1 leg (default 20)")
    p.add_argument("--concurrency", type=int, default=32)
    p.add_argument("--delay", type=float, default=0.2, help="seconds the scripted LLM takes per call")
    p.add_argument("--in-process", action="store_true",
                   help="run the scripted LLM in this process (its threads then share the client's GIL)")
    p.add_argument("--checkpoint-sync-normal", action="store_true",
                   help="experiment: PRAGMA synchronous=NORMAL on LangGraph's checkpoint database (fsync per commit off)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    args = p.parse_args()
    llm = Endpoint(args.delay, args.in_process)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            serial = await leg(llm, args.docs_c1, 1, Path(tmp) / "c1.db", args.checkpoint_sync_normal)
            parallel = await leg(llm, args.docs, args.concurrency, Path(tmp) / "cN.db", args.checkpoint_sync_normal)
    finally:
        llm.close()
    speedup = parallel["docs_per_s"] / serial["docs_per_s"]
    ideal = 1 / (CRITICAL_PATH * args.delay)
    out = {"delay_s": args.delay, "c1": serial, f"c{args.concurrency}": parallel, "speedup": round(speedup, 1),
           "ideal_docs_per_s_c1": round(ideal, 2)}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    where = "in this process" if args.in_process else "in its own process"
    print(f"scripted LLM {where}, latency {args.delay * 1000:.0f} ms; {serial['calls_per_doc']:.0f} calls/doc, critical path "
          f"{CRITICAL_PATH} calls (ideal {ideal:.2f} docs/s per document in flight)")
    for r in (serial, parallel):
        print(f"  concurrency {r['concurrency']:>3}: {r['docs']:>4} docs in {r['seconds']:>7.2f} s = "
              f"{r['docs_per_s']:>6.2f} docs/s  (max {r['max_in_flight']} LLM calls in flight, "
              f"{r['mean_doc_seconds']:.2f} s/doc, {r['mean_call_ms']:.0f} ms/LLM call as the client sees it)")
    print(f"  speed-up c{args.concurrency}/c1: {speedup:.1f}x (target >= 25x)")
    print(f"  tokens per document: {parallel['prompt_tokens_per_doc']:.0f} prompt, "
          f"{parallel['completion_tokens_per_doc']:.0f} completion")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--serve-llm":
        serve_llm(float(sys.argv[2]))
    else:
        asyncio.run(main())
