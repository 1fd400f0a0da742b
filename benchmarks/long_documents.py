"""Long documents: time and peak memory of ``veil anonymize`` (local engine, one document) by size.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/long_documents.py --data ../shared/data/dbbio/test.jsonl \
        --sizes 10 100 1000 --timeout 900

The document is the DB-bio biographies (any JSONL with a ``text`` field, or a .txt file) joined
by blank lines and repeated up to each size in KB. Each size runs in its own process (the real
CLI), so the peak RSS is that run's; a size that exceeds ``--timeout`` is reported as such.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def source_text(path: Path) -> str:
    if path.suffix == ".jsonl":
        return "\n\n".join(json.loads(line)["text"] for line in path.open(encoding="utf-8") if line.strip())
    return path.read_text(encoding="utf-8")


def document(text: str, kb: int) -> str:
    size = kb * 1024
    out = text
    while len(out) < size:
        out += "\n\n" + text
    return out[:size].rsplit(" ", 1)[0] + "."


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000], help="sizes in KB")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per size")
    args = ap.parse_args()
    text = source_text(args.data)
    tmp = Path(tempfile.mkdtemp(prefix="veil-long-"))
    veil = str(Path(sys.executable).with_name("veil"))
    print("| size | wall time | peak RSS | output size |")
    print("|---:|---:|---:|---:|")
    for kb in args.sizes:
        src, dst = tmp / f"doc{kb}.txt", tmp / f"out{kb}.txt"
        src.write_text(document(text, kb), encoding="utf-8")
        env = {**os.environ, "VEIL_HOME": str(tmp / f"home{kb}"), "HF_HUB_OFFLINE": "1"}
        t = time.perf_counter()
        try:
            p = subprocess.run([veil, "anonymize", str(src), "-o", str(dst), "--no-progress"], env=env,
                               capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            print(f"| {kb} KB | > {args.timeout} s (stopped) | – | – |", flush=True)
            continue
        seconds = time.perf_counter() - t
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest child so far
        if p.returncode != 0:
            print(f"| {kb} KB | failed (exit {p.returncode}): {p.stderr.strip().splitlines()[-1][:80]} | – | – |",
                  flush=True)
            continue
        print(f"| {kb} KB | {seconds:.1f} s | {rss:.0f} MB | {dst.stat().st_size / 1024:.0f} KB |", flush=True)


if __name__ == "__main__":
    main()
