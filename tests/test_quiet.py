"""Quiet by default (issue 10): a one-line run prints the result on stdout and veil's own
summary on stderr, and nothing from the libraries under it (model loading bars, index logs)."""

from __future__ import annotations

import os
import subprocess
import sys


def test_one_line_stdin_run_prints_only_the_result(tmp_path):
    env = {**os.environ, "VEIL_HOME": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    env.pop("VEIL_LOG_LEVEL", None)
    p = subprocess.run([sys.executable, "-c", "from veil.cli import main; main()", "anonymize", "-"], input="Yesterday Harriet Vance met "
                       "Oscar Delacroix at the gallery.\n", capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    # (a person the text names once and says nothing else of is "someone")
    assert p.stdout == "Yesterday Person A met someone at the gallery.\n"
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("veil: run run-"), p.stderr  # the summary, nothing else
