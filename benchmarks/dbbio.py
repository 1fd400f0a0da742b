"""DB-bio benchmark of the embedded engine (issue 3 targets): anonymize all 239 biographies
with the full loop, no LLM, then print link@rand3, occupation accuracy and mean cosine of the
originals, RUPTA's GPT-4 outputs and veil local, and where the time went.

    .venv/bin/python benchmarks/dbbio.py --data ../shared/data/dbbio [--limit N] [--workers N] [-o out.jsonl]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from veil.anonymizer import AnonymizeResult, Anonymizer, new_run_id  # noqa: E402
from veil.batch import default_workers, run_concurrently  # noqa: E402
from veil.documents import Document  # noqa: E402
from veil.evals.dbbio import evaluate, read_claims  # noqa: E402
from veil.graphs.anonymize import AnonymizeConfig  # noqa: E402


async def anonymize(docs: list[Document], db: str, concurrency: int, workers: int, options: dict) -> tuple[list, dict]:
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    async with Anonymizer("local", config=AnonymizeConfig(profile="identity"), db_path=db, engine_options=options) as anon:
        timings["load"] = time.perf_counter() - t0
        t = time.perf_counter()
        await anon.prepare(docs)
        timings["prepare (population, release pool, classifier)"] = time.perf_counter() - t
        t = time.perf_counter()
        results = await run_concurrently(
            docs, anon.anonymize, concurrency=concurrency, workers=workers, in_worker=anon.in_worker,
            lost=lambda d, why: AnonymizeResult(run_id=new_run_id(), doc_id=d.id, status="failed", error=why))
        timings[f"anonymize loop ({workers} worker{'s' if workers > 1 else ''})"] = time.perf_counter() - t
    timings["total"] = time.perf_counter() - t0
    return results, timings


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("../shared/data/dbbio"))
    ap.add_argument("--limit", type=int)
    ap.add_argument("--concurrency", type=int, default=16, help="documents in flight per process")
    ap.add_argument("--workers", type=int, default=default_workers(),
                    help="worker processes for the anonymize loop (default: the cores this process may use)")
    ap.add_argument("--quantile", type=float)
    ap.add_argument("--no-semantic", action="store_true", help="the in-loop attacker is BM25 alone (no semantic linker)")
    ap.add_argument("-o", "--output", type=Path)
    args = ap.parse_args()
    recs = [json.loads(line) for line in (args.data / "test.jsonl").read_text().splitlines() if line.strip()]
    claims = read_claims(args.data / "claims.jsonl")
    if args.limit:
        recs, claims = recs[: args.limit], claims[: args.limit]
    docs = [Document(id=str(i), text=r["text"], name=r["people"], label=r["label"], record=r) for i, r in enumerate(recs)]
    options = {} if args.quantile is None else {"quantile": args.quantile}
    if args.no_semantic:
        options["semantic"] = False
    with tempfile.TemporaryDirectory() as tmp:
        results, timings = asyncio.run(anonymize(docs, f"{tmp}/veil.db", args.concurrency, args.workers, options))
    failed = [r for r in results if r.status != "done"]
    if failed:
        print(f"{len(failed)} documents failed: {failed[0].error}", file=sys.stderr)
    ours = [r.anonymized_text or "" for r in results]
    if args.output:
        with open(args.output, "w") as f:
            for d, r in zip(docs, results):
                f.write(json.dumps({"text": d.text, "veil": r.anonymized_text, "privacy_score": r.privacy_score,
                                    "utility_score": r.utility_score, "label": d.label}) + "\n")
    originals = [r["text"] for r in recs]
    labels = [r["label"] for r in recs]
    from veil.embeddings import encode

    t = time.perf_counter()
    orig_emb = encode(originals)
    rows = {
        "originals": evaluate(originals, originals, labels=labels, claims=claims, orig_emb=orig_emb),
        "RUPTA GPT-4 (anonymized_text)": evaluate(originals, [r["anonymized_text"] for r in recs], labels=labels,
                                                  claims=claims, orig_emb=orig_emb),
        "veil local": evaluate(originals, ours, labels=labels, claims=claims, orig_emb=orig_emb),
    }
    eval_s = time.perf_counter() - t
    print(f"\nDB-bio test, {len(recs)} biographies (link@rand3: BM25 top-1, 3 random claims without the name claim, seeds 0-2)")
    print(f"| {'system':32} | link@rand3 | semantic link@rand3 | occupation acc | mean cosine | truthfulness violations | parse-check failures |")
    print(f"|{'-' * 34}|-----------:|--------------------:|---------------:|------------:|------------------------:|---------------------:|")
    for name, m in rows.items():
        pf, tr = m["parse_failures"], m["truthfulness"]
        print(f"| {name:32} | {m['link@rand3']:10.3f} | {m['semantic_link@rand3']:19.3f} | {m['label_accuracy']:14.3f} "
              f"| {m['mean_cosine']:11.3f} | {tr['records_with_violations']:>9} records ({tr['violating_words']} words) "
              f"| {pf['failed']:>5}/{pf['sentences']} ({pf['share']:.1%}) |")
    if args.output:
        ppl = f"  .venv/bin/veil eval {args.output} --sanitized-field veil --perplexity"
        print(f"perplexity ratio (needs the llamacpp extra):\n{ppl}")
    met = sum(r.privacy_target_met for r in results)
    iters = sum(r.iterations for r in results) / max(1, len(results))
    print(f"\nprivacy target met (simulated attack) for {met}/{len(results)}; mean iterations {iters:.2f}")
    print("time: " + ", ".join(f"{k} {v:.1f}s" for k, v in timings.items()) + f"; evaluation {eval_s:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
