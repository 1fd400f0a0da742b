"""Which records moved between two DB-bio runs: the occupation each output is classified as
(the benchmark's classifier, cross-validated) where it flipped, and the largest drops in cosine
to the original. For telling a real loss of utility from the classifier's margin (a pseudonym's
letters alone can flip a record).

    .venv/bin/python benchmarks/dbbio_diff.py before.jsonl after.jsonl [--field veil] [-n 12]

Both files as `benchmarks/dbbio.py -o` writes them (same records, same order).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402

from veil.embeddings import encode  # noqa: E402
from veil.evals.utility import label_predictions  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--field", default="veil")
    ap.add_argument("-n", type=int, default=12, help="cosine drops to list")
    args = ap.parse_args()
    a = [json.loads(line) for line in args.before.read_text().splitlines() if line.strip()]
    b = [json.loads(line) for line in args.after.read_text().splitlines() if line.strip()]
    if len(a) != len(b) or any(x["text"] != y["text"] for x, y in zip(a, b)):
        raise SystemExit("the two files do not hold the same records in the same order")
    originals, labels = [r["text"] for r in a], [r["label"] for r in a]
    x_o = encode(originals)
    x_a, x_b = encode([r[args.field] or "" for r in a]), encode([r[args.field] or "" for r in b])
    p_a = label_predictions(originals, [], labels, orig_emb=x_o, san_emb=x_a)
    p_b = label_predictions(originals, [], labels, orig_emb=x_o, san_emb=x_b)
    y = np.asarray(labels)
    print(f"occupation accuracy {np.mean(p_a == y):.3f} -> {np.mean(p_b == y):.3f}")
    for i in np.flatnonzero((p_a == y) != (p_b == y)):
        print(f"  record {i} ({y[i]}): {p_a[i]} -> {p_b[i]}")
    cos_a, cos_b = (x_o * x_a).sum(axis=1), (x_o * x_b).sum(axis=1)
    print(f"mean cosine {cos_a.mean():.3f} -> {cos_b.mean():.3f}; largest drops:")
    for i in np.argsort(cos_b - cos_a)[: args.n]:
        print(f"  record {i}: {cos_a[i]:.3f} -> {cos_b[i]:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
