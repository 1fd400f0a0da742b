"""`veil serve` says where it listens and with which engine (issue 11: it printed nothing)."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


def test_serve_prints_its_address_and_engine(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VEIL_HOME": str(tmp_path / "home")}
    env.pop("VEIL_API_KEYS", None)
    cmd = [sys.executable, "-m", "veil", "serve", "--host", "127.0.0.1", "--port", "0", "--engine", "llm",
           "--base-url", "http://127.0.0.1:9/v1", "--model", "m"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stderr], daemon=True).start()  # type: ignore[union-attr]
    try:
        deadline = time.monotonic() + 90
        seen = []
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=1)
            except queue.Empty:
                assert proc.poll() is None, "".join(seen)
                continue
            seen.append(line)
            if "listening on" in line:
                break
        listening = [x for x in seen if "listening on" in x]
        assert listening, "".join(seen)
        m = re.search(r"listening on (http://127\.0\.0\.1:(\d+)) \(engine llm, model m at http://127.0.0.1:9/v1; "
                      r"no auth\)", listening[0])
        assert m and m.group(2) != "0", listening[0]
        assert httpx.get(m.group(1) + "/health", timeout=10).status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
