"""PersonalReddit benchmark of the embedded engine (issue 8 targets): anonymize the 207
synthetic comments with the `attributes` profile (the true profile is what must not be
inferable), then report, for the originals, RUPTA's GPT-4 rewrites (`anonymized_response`) and
veil local:
- literal attribute leaks: comments that still state a true attribute value word for word
  (the city or country, the birth city, the occupation, the education);
- truthfulness: records with words that no truthful generalization explains;
- the parse check: output sentences that fail it;
- the perplexity ratio under SmolLM2-135M (with the llamacpp extra; `veil eval --perplexity`).

    .venv/bin/python benchmarks/personalreddit.py --data ../shared/data/personalreddit [--limit N] [-o out.jsonl]
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

from veil.agents.local.inferrer import literal_attributes  # noqa: E402
from veil.anonymizer import Anonymizer  # noqa: E402
from veil.documents import Document  # noqa: E402
from veil.evals.grammar import parse_failures  # noqa: E402
from veil.evals.truthfulness import summarize  # noqa: E402
from veil.graphs.anonymize import AnonymizeConfig  # noqa: E402

def literal_leaks(text: str, profile: dict) -> list[str]:
    """The profile fields whose true value the text still states word for word (the same check
    as the local engine's attributes profile: :func:`veil.agents.local.inferrer.literal_attributes`)."""
    return literal_attributes(text, {k: str(v) for k, v in profile.items()})


async def anonymize(docs: list[Document], db: str, concurrency: int) -> tuple[list, float]:
    t0 = time.perf_counter()
    async with Anonymizer("local", config=AnonymizeConfig(profile="attributes"), db_path=db) as anon:
        await anon.prepare(docs)
        sem = asyncio.Semaphore(concurrency)

        async def one(d: Document):
            async with sem:
                return await anon.anonymize(d)

        results = await asyncio.gather(*(one(d) for d in docs))
    return results, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("../shared/data/personalreddit"))
    ap.add_argument("--limit", type=int)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("-o", "--output", type=Path)
    args = ap.parse_args()
    recs = [json.loads(line) for line in (args.data / "test.jsonl").read_text().splitlines() if line.strip()]
    if args.limit:
        recs = recs[: args.limit]
    docs = [Document(id=str(i), text=r["response"], attributes={k: str(v) for k, v in r["personality"].items()},
                     label=r.get("label"), record=r) for i, r in enumerate(recs)]
    with tempfile.TemporaryDirectory() as tmp:
        results, seconds = asyncio.run(anonymize(docs, f"{tmp}/veil.db", args.concurrency))
    failed = [r for r in results if r.status != "done"]
    if failed:
        print(f"{len(failed)} documents failed: {failed[0].error}", file=sys.stderr)
    originals = [r["response"] for r in recs]
    systems = {
        "originals": originals,
        "RUPTA GPT-4 (anonymized_response)": [r.get("anonymized_response") or "" for r in recs],
        "veil local": [r.anonymized_text or "" for r in results],
    }
    if args.output:
        with open(args.output, "w") as f:
            for d, r in zip(docs, results):
                f.write(json.dumps({"response": d.text, "veil": r.anonymized_text, "personality": d.attributes,
                                    "privacy_status": r.privacy_status}) + "\n")
    print(f"\nPersonalReddit, {len(recs)} comments, profile attributes")
    print(f"| {'system':34} | comments stating a true attribute | untruthful records | parse-check failures |")
    print(f"|{'-' * 36}|----------------------------------:|-------------------:|---------------------:|")
    for name, texts in systems.items():
        leaks = sum(bool(literal_leaks(t, r["personality"])) for t, r in zip(texts, recs))
        tr = summarize(originals, texts)
        pf = parse_failures(originals, texts)
        print(f"| {name:34} | {leaks:>33} | {tr['records_with_violations']:>18} | {pf['failed']:>5}/{pf['sentences']} ({pf['share']:.1%}) |")
    print(f"\nveil local: {len(recs)} comments in {seconds:.1f} s; "
          f"statuses: { {s: sum(r.privacy_status == s for r in results) for s in {r.privacy_status for r in results}} }")
    if args.output:
        print(f"perplexity ratio (needs the llamacpp extra):\n  .venv/bin/veil eval {args.output} --text-field response "
              "--sanitized-field veil --perplexity")
    return 0


if __name__ == "__main__":
    sys.exit(main())
