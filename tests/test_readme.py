"""The README's main-job command needs no data outside the repository (issue 10)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_main_job_reads_only_files_in_the_repository():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"The main job.*?```bash\n(.*?)```", readme, re.S)
    assert block, "the README names its main job"
    args = shlex.split(block.group(1).replace("\\\n", " "))
    assert args[:2] == [".venv/bin/veil", "anonymize"]
    inputs = [a for a in args[2:] if a.endswith((".jsonl", ".json", ".csv", ".txt")) and a != "out.jsonl"]
    assert inputs and all((ROOT / a).is_file() for a in inputs), inputs
    assert not any(a.startswith("..") for a in args)
