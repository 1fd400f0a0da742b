"""How much of DB-bio's BM25 link@rand3 the pseudonyms carry: every claim starts "The person",
and veil's pseudonyms ("Person CM") share that word. Prints link@rand3 of the records with a
pseudonym and of the rest, then of the same outputs with the pseudonyms renamed ("Pat CM").

    .venv/bin/python benchmarks/dbbio_pseudonyms.py out.jsonl [--data ../shared/data/dbbio] [--field veil]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from veil.agents.local.generalize import PSEUDONYM
from veil.evals.dbbio import read_claims
from veil.evals.linking import BM25Linker, aux_query, select_aux

SEEDS = (0, 1, 2)


def hits(texts: list[str], claims: list[list[str]]) -> list[int]:
    """Per record, in how many of the seeds' queries BM25 ranks it first (link@rand3's protocol)."""
    linker = BM25Linker(texts)
    out = [0] * len(texts)
    for seed in SEEDS:
        queries = [aux_query(c, select_aux(c, "random3", seed=seed, record_index=i, exclude="name is"))
                   for i, c in enumerate(claims)]
        idx, _ = linker.link(queries, k=1)
        for i in range(len(texts)):
            out[i] += int(idx[i][0] == i)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("output", type=Path)
    ap.add_argument("--data", type=Path, default=Path("../shared/data/dbbio"))
    ap.add_argument("--field", default="veil")
    args = ap.parse_args()
    texts = [json.loads(line).get(args.field) or "" for line in args.output.read_text().splitlines() if line.strip()]
    claims = read_claims(args.data / "claims.jsonl")[: len(texts)]
    h = hits(texts, claims)
    with_p = [i for i, t in enumerate(texts) if PSEUDONYM.search(t)]
    rest = [i for i in range(len(texts)) if i not in set(with_p)]

    def rate(ids: list[int], hs: list[int]) -> float:
        return sum(hs[i] for i in ids) / max(1, len(SEEDS) * len(ids))

    print(f"link@rand3 {rate(list(range(len(texts))), h):.3f}; {len(with_p)} records with a pseudonym "
          f"{rate(with_p, h):.3f}, {len(rest)} without {rate(rest, h):.3f}")
    renamed = [re.sub(r"\bPerson ([A-Z]{1,3})\b", r"Pat \1", t) for t in texts]
    print(f"the same outputs, pseudonyms renamed ('Pat CM'): link@rand3 {rate(list(range(len(texts))), hits(renamed, claims)):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
