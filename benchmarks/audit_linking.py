"""Scale benchmark of the audit's BM25 linking: N synthetic records (~60 words drawn from a
Zipf-distributed vocabulary whose most frequent words are English stopwords, deterministic), one 3-claim query per record (3 short phrases cut
from the record, with a few words swapped, as an adversary's paraphrased auxiliary knowledge),
top-1 retrieval as a chunked sparse product over bm25s' score matrix on n threads
(veil.evals.linking.BM25Linker._top1; bm25s' own numpy retrieve manages ~330 queries/s here). Target: >= 2,000 queries/s on 2 cores.

    .venv/bin/python benchmarks/audit_linking.py [--records 100000] [--queries 100000] [--threads 2]

Not a timed test; prints records, queries, seconds, queries/s (and the correct-linkage rate as
a sanity check).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def synth_vocab(n: int, rng: np.random.Generator) -> list[str]:
    """English stopwords at the top ranks (as in real text, where function words are the most
    frequent; the tokenizer drops them), then random letter strings."""
    from bm25s.stopwords import STOPWORDS_EN

    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = list(dict.fromkeys(STOPWORDS_EN))[:n]
    seen = set(words)
    while len(words) < n:
        w = "".join(rng.choice(letters, size=int(rng.integers(4, 10))))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


def make_corpus(n_records: int, words_per_record: int, vocab_size: int, seed: int) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(seed)
    vocab = np.array(synth_vocab(vocab_size, rng))
    ranks = np.arange(1, vocab_size + 1)
    p = 1.0 / ranks**1.07
    p /= p.sum()
    ids = rng.choice(vocab_size, size=(n_records, words_per_record), p=p)
    return [" ".join(vocab[row]) for row in ids], ids


def make_queries(ids: np.ndarray, n_queries: int, vocab_size: int, seed: int) -> tuple[list[str], np.ndarray, list[str]]:
    rng = np.random.default_rng(seed + 1)
    vocab = np.array(synth_vocab(vocab_size, np.random.default_rng(seed)))
    n, length = ids.shape
    targets = rng.integers(0, n, size=n_queries)
    queries = []
    for t in targets:
        claims = []
        for _ in range(3):  # three "claims": 5-word spans of the record, one word replaced
            start = int(rng.integers(0, length - 5))
            span = ids[t, start : start + 5].copy()
            span[int(rng.integers(0, 5))] = int(rng.integers(0, vocab_size))
            claims.append("the person " + " ".join(vocab[span]))
        queries.append(" ".join(claims))
    return queries, targets, list(vocab)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--words", type=int, default=60)
    ap.add_argument("--vocab", type=int, default=50_000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-stem", action="store_true", help="skip Porter stemming (the audit stems)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from veil.evals.linking import BM25Linker, linkage_rate

    t0 = time.perf_counter()
    corpus, ids = make_corpus(args.records, args.words, args.vocab, args.seed)
    queries, targets, _ = make_queries(ids, args.queries, args.vocab, args.seed)
    t_gen = time.perf_counter() - t0

    t0 = time.perf_counter()
    linker = BM25Linker(corpus, stem=not args.no_stem, n_threads=args.threads)
    t_index = time.perf_counter() - t0

    t0 = time.perf_counter()
    docs, _ = linker.link(queries, k=1)
    t_query = time.perf_counter() - t0

    rate = linkage_rate(docs[:, 0].tolist(), targets.tolist())
    print(f"cpus available: {len(os.sched_getaffinity(0))}, n_threads: {args.threads}, stemming: {not args.no_stem}")
    print(f"generate: {t_gen:.1f} s, index: {t_index:.1f} s")
    print(f"records: {args.records}")
    print(f"queries: {args.queries}")
    print(f"seconds: {t_query:.2f}")
    print(f"queries/s: {args.queries / t_query:,.0f}")
    print(f"correct linkage: {rate:.3f}")


if __name__ == "__main__":
    main()
