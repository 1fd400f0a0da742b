"""Serving fairness: how long ``/health`` and a one-sentence request take while a large request
runs on the same server (local engine, loopback).

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/fairness.py --big /work/shared/data/dbbio/test.jsonl --kb 200

The large request is the first ``--kb`` kilobytes of the DB-bio texts joined by blank lines
(any text file works with ``--big FILE.txt``). Prints the latencies (min / median / max) of
the probes sent while the large request was in flight, and its own time.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path

import httpx
import uvicorn

from veil.server.app import create_app
from veil.server.settings import ServerSettings

KEY = "sk-bench-fairness-0123456789"
TINY = "Yesterday Harriet Vance met Oscar Delacroix at the gallery in Portland."


def big_text(path: Path, kb: int) -> str:
    if path.suffix == ".jsonl":
        texts = [json.loads(line)["text"] for line in path.open(encoding="utf-8")]
        return "\n\n".join(texts)[: kb * 1024]
    return path.read_text(encoding="utf-8")[: kb * 1024]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--big", type=Path, required=True)
    ap.add_argument("--kb", type=int, default=200)
    ap.add_argument("--probes", type=int, default=5, help="tiny requests sent while the big one runs")
    args = ap.parse_args()
    text = big_text(args.big, args.kb)
    db = Path(tempfile.mkdtemp(prefix="veil-fair-")) / "veil.db"
    settings = ServerSettings(engine="local", db_path=db, api_keys=[KEY], max_body_bytes=8 * 1024 * 1024)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(settings), log_config=None, access_log=False, lifespan="on"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"
    h = {"Authorization": f"Bearer {KEY}"}
    tiny = {"model": "veil-anonymize", "messages": [{"role": "user", "content": TINY}]}
    httpx.post(base + "/v1/chat/completions", json=tiny, headers=h, timeout=120).raise_for_status()  # warm up

    big_done: dict[str, float] = {}

    def big() -> None:
        t = time.perf_counter()
        r = httpx.post(base + "/v1/anonymize", headers=h, timeout=3600,
                       json={"documents": [{"id": "big", "text": text}]})
        r.raise_for_status()
        big_done["seconds"] = time.perf_counter() - t

    thread = threading.Thread(target=big)
    thread.start()
    time.sleep(3)  # the big request is being prepared / planned
    health, small = [], []
    for _ in range(args.probes):
        if "seconds" in big_done:
            break
        t = time.perf_counter()
        httpx.get(base + "/health", timeout=120).raise_for_status()
        health.append(time.perf_counter() - t)
        t = time.perf_counter()
        httpx.post(base + "/v1/chat/completions", json=tiny, headers=h, timeout=600).raise_for_status()
        small.append(time.perf_counter() - t)
        time.sleep(1)
    in_flight = "seconds" not in big_done
    thread.join()
    server.should_exit = True

    def fmt(xs: list[float]) -> str:
        return f"{min(xs):.2f} / {statistics.median(xs):.2f} / {max(xs):.2f} s" if xs else "-"

    print(f"large request: {len(text) / 1024:.0f} KB, {big_done['seconds']:.1f} s "
          f"({'all probes sent while it ran' if in_flight else 'it finished before the last probe'})")
    print(f"/health while it ran (n={len(health)}): {fmt(health)}  (min / median / max)")
    print(f"one-sentence chat request while it ran (n={len(small)}): {fmt(small)}")


if __name__ == "__main__":
    main()
