"""The trace viewer: rendering (unit) and the page as headless Chromium renders it."""

from __future__ import annotations

import re
import shutil
import subprocess

import openai
import pytest

from tests.conftest_server import KEY_A, TEXT, responder, running_server
from veil.server.trace_page import chart_svg, diff_html, render_trace
from veil.testing.scripted_llm import ScriptedLLM


def _it(i, text, p, u, mode=None, clues=()):
    return {"iteration": i, "mode": mode, "text": text, "privacy_score": p, "k": 3, "utility_score": u,
            "clues": list(clues), "edits": [], "prompt_tokens": 10, "completion_tokens": 5, "latency_ms": 12.0}


def test_diff_html_escapes_and_marks():
    html = diff_html("I am <Alice> in Paris.\nBye", "I am someone in a city.\nBye")
    assert "<del>&lt;Alice&gt;</del>" in html and "<ins>someone</ins>" in html
    assert "\nBye" in html


def test_chart_has_a_point_per_iteration():
    its = [_it(0, "a", 1, 1.0), _it(1, "b", 2, 0.9, "privacy"), _it(2, "c", 4, 0.8, "privacy")]
    svg = chart_svg(its, k=3)
    assert svg.count('class="pt privacy"') == 3 and svg.count('class="pt utility"') == 3
    assert svg.count("<polyline") == 2


def test_render_trace_escapes_everything():
    run = {"run_id": "run-<x>", "doc_id": "<img src=x onerror=alert(1)>", "status": "done",
           "config": {"profile": "generic", "k": 3}, "result": {"best_iteration": 1}, "error": None,
           "created_at": 0, "updated_at": 0}
    its = [_it(0, "<script>alert(1)</script>", 1, 1.0, clues=["<b>clue</b>"]), _it(1, "safe", 4, 0.9, "privacy")]
    page = render_trace(run, its)
    assert "<script>" not in page and "<img" not in page and "<b>clue" not in page
    assert "&lt;script&gt;" in page and "<del>" in page and "<ins>safe</ins>" in page


@pytest.mark.browser
def test_trace_page_in_headless_chromium(tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        pytest.skip("headless Chromium is not installed (apt-get install -y chromium)")
    with ScriptedLLM(responder) as llm, running_server(llm, tmp_path / "v.db") as base:
        c = openai.OpenAI(base_url=base + "/v1", api_key=KEY_A, max_retries=0)
        resp = c.chat.completions.create(model="veil-anonymize", messages=[{"role": "user", "content": TEXT}],
                                         extra_body={"veil": {"name": "Alice Smith", "max_iterations": 2}})
        url = f"{base}/traces/{resp.id}?key={KEY_A}"
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", url]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    dom = proc.stdout
    assert proc.returncode == 0 and "<html" in dom, proc.stderr[-2000:]
    assert "<del>Alice Smith</del>" in dom and "<ins>The person</ins>" in dom
    svg = re.search(r"<svg.*?</svg>", dom, re.S)
    assert svg, "no chart"
    n_iterations = 2  # iteration 0 (the original) and the one edit that met the target
    assert len(re.findall(r'<circle class="pt privacy"', svg.group(0))) == n_iterations
    polyline = re.search(r'<polyline class="line privacy"[^>]*points="([^"]+)"', svg.group(0))
    assert polyline and len(polyline.group(1).split()) == n_iterations
    assert "Iteration 1" in dom and "privacy" in dom
