"""``veil anonymize DIR -o OUTDIR`` (and CSV): mirrored outputs, manifest, bad files, resume
after kill -9, real overlap of LLM requests."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest_server import current_text, responder
from veil.cli import main
from veil.testing.scripted_llm import ScriptedLLM

ROOT = Path(__file__).resolve().parents[1]


def _args(llm: ScriptedLLM, tmp: Path, *extra: str) -> list[str]:
    return ["--engine", "llm", "--base-url", llm.base_url, "--model", "scripted", "--api-key", "x",
            "--db", str(tmp / "veil.db"), "--max-iterations", "1", "--no-progress", *extra]


def _manifest(out: Path) -> list[dict]:
    return [json.loads(ln) for ln in (out / "manifest.jsonl").read_text().splitlines()]


def make_tree(root: Path, n: int = 3) -> list[str]:
    good = []
    for rel in [f"top{i}.txt" for i in range(n)] + ["a/b/deep.md", "a/mid.txt", "c/UPPER.TXT"]:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"Doc {rel}: I am a nurse in Paris and I love jazz.\n", encoding="utf-8")
        good.append(rel)
    (root / "a" / "b" / "image.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (root / "a" / "empty.txt").write_text("  \n")
    (root / "c" / "latin1.txt").write_bytes("Caf\xe9 in Paris".encode("latin-1"))
    (root / "notes.json").write_text("{}")  # not a text file: ignored
    (root / ".hidden").mkdir()
    (root / ".hidden" / "x.txt").write_text("hidden")
    return good


def test_folder_mirrors_reports_bad_files_and_exit_code(tmp_path, capsys):
    src, out = tmp_path / "in", tmp_path / "out"
    good = make_tree(src)
    with ScriptedLLM(responder) as llm:
        code = main(["anonymize", str(src), "-o", str(out), "--concurrency", "4", *_args(llm, tmp_path)])
    assert code == 1
    err = capsys.readouterr().err
    for bad in ("a/b/image.txt", "a/empty.txt", "c/latin1.txt"):
        assert bad in err
    entries = {e["path"]: e for e in _manifest(out)}
    assert sorted(entries) == sorted(good + ["a/b/image.txt", "a/empty.txt", "c/latin1.txt"])
    for rel in good:
        e = entries[rel]
        assert e["status"] == "done" and e["run_id"].startswith("run-") and e["error"] is None
        assert e["privacy_score"] is not None and e["utility_score"] == 0.9
        text = (out / rel).read_text(encoding="utf-8")
        assert "a European city" in text and "Paris" not in text
    assert "binary" in entries["a/b/image.txt"]["error"]
    assert "empty" in entries["a/empty.txt"]["error"]
    assert "UTF-8" in entries["c/latin1.txt"]["error"]
    for bad in ("a/b/image.txt", "a/empty.txt", "c/latin1.txt"):
        assert entries[bad]["status"] == "failed" and not (out / bad).exists()
    assert not (out / ".hidden").exists() and not (out / ".veil-journal.jsonl").exists()
    assert not list(out.rglob(".*.tmp"))

    # a second run redoes nothing that is done (and the manifest stays one line per file)
    with ScriptedLLM(responder) as llm2:
        code = main(["anonymize", str(src), "-o", str(out), *_args(llm2, tmp_path)])
        assert code == 1 and llm2.requests == []
    assert len(_manifest(out)) == len(entries)


def test_folder_all_good_exit_0_and_changed_input_redone(tmp_path):
    src, out = tmp_path / "in", tmp_path / "out"
    (src / "x").mkdir(parents=True)
    (src / "x" / "one.txt").write_text("Paris one")
    (src / "two.txt").write_text("Paris two")
    with ScriptedLLM(responder) as llm:
        assert main(["anonymize", str(src), "-o", str(out), *_args(llm, tmp_path)]) == 0
        first = {e["path"]: e["run_id"] for e in _manifest(out)}
        (src / "two.txt").write_text("Paris two, edited")
        n = len(llm.requests)
        assert main(["anonymize", str(src), "-o", str(out), *_args(llm, tmp_path)]) == 0
        assert len(llm.requests) > n
    second = {e["path"]: e["run_id"] for e in _manifest(out)}
    assert second["x/one.txt"] == first["x/one.txt"] and second["two.txt"] != first["two.txt"]
    assert (out / "two.txt").read_text() == "a European city two, edited"


def test_folder_concurrency_overlaps_requests(tmp_path):
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    for i in range(8):
        (src / f"d{i}.txt").write_text(f"Doc {i} from Paris")
    with ScriptedLLM(responder, delay_s=0.1) as llm:
        assert main(["anonymize", str(src), "-o", str(out), "--concurrency", "8", *_args(llm, tmp_path)]) == 0
        assert llm.max_in_flight >= 4


def test_output_folder_needed(tmp_path, capsys):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("x")
    assert main(["anonymize", str(tmp_path / "in"), "--engine", "llm"]) == 2
    assert "-o OUTDIR" in capsys.readouterr().err


def test_resume_after_kill_9(tmp_path):
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    n = 12
    for i in range(n):
        sub = src / f"g{i % 3}"
        sub.mkdir(exist_ok=True)
        (sub / f"doc{i:02d}.txt").write_text(f"Marker M{i:02d}: a nurse in Paris.", encoding="utf-8")

    def marker(req: dict) -> str | None:
        t = current_text(req)
        i = t.find("Marker M")
        return t[i + 7 : i + 10] if i >= 0 else None

    env = {**os.environ, "VEIL_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    journal = out / ".veil-journal.jsonl"
    with ScriptedLLM(responder, delay_s=0.15) as llm:
        cmd = [sys.executable, "-m", "veil", "anonymize", str(src), "-o", str(out), "--concurrency", "2",
               *_args(llm, tmp_path)]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        done_before: dict[str, dict] = {}
        while time.monotonic() < deadline and proc.poll() is None:
            if journal.exists():
                lines = [json.loads(x) for x in journal.read_text().splitlines() if x.strip()]
                done_before = {x["key"]: x["output"] for x in lines if x["key"] != "__batch__"}
                if len(done_before) >= 3:
                    break
            time.sleep(0.05)
        assert proc.poll() is None, "the batch finished before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        time.sleep(0.3)  # let the scripted server finish what was in flight
        lines = [json.loads(x) for x in journal.read_text().splitlines() if x.strip()]
        done_before = {x["key"]: x["output"] for x in lines if x["key"] != "__batch__"}
        assert 3 <= len(done_before) < n
        assert not (out / "manifest.jsonl").exists()
        calls_before = Counter(marker(r) for r in llm.requests)

        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert "resuming" in proc.stderr
        calls_after = Counter(marker(r) for r in llm.requests)

    entries = _manifest(out)
    paths = [e["path"] for e in entries]
    assert len(paths) == n and len(set(paths)) == n
    assert all(e["status"] == "done" for e in entries)
    outputs = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert outputs == sorted(paths + ["manifest.jsonl", ".veil-options.json"])  # exactly one output per document, no temp files
    by_path = {e["path"]: e for e in entries}
    for rel, before in done_before.items():
        assert by_path[rel]["run_id"] == before["run_id"]
        m = "M" + rel.split("doc")[1][:2]
        assert calls_after[m] == calls_before[m], f"{rel} was redone"
    for e in entries:
        assert (out / e["path"]).read_text() == f"Marker M{e['path'].split('doc')[1][:2]}: a nurse in a European city."


def test_csv_in_and_out(tmp_path):
    src = tmp_path / "people.csv"
    with src.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "bio", "job"])
        w.writerow(["1", "Alice Smith, a nurse in Paris", "nurse"])
        w.writerow(["2", 'She said "hi", from Paris\nand left', "nurse"])
        w.writerow(["3", "", "nurse"])
    out = tmp_path / "out.csv"
    with ScriptedLLM(responder) as llm:
        code = main(["anonymize", str(src), "--text-field", "bio", "--id-field", "id", "--label-field", "job",
                     "-o", str(out), *_args(llm, tmp_path)])
    assert code == 1  # row 3 is empty
    rows = list(csv.DictReader(out.open(newline="")))
    assert [r["id"] for r in rows] == ["1", "2", "3"]
    assert rows[0]["anonymized_text"] == "A person, a nurse in a European city"
    assert rows[1]["anonymized_text"] == 'She said "hi", from a European city\nand left'
    assert rows[0]["run_id"].startswith("run-") and rows[0]["error"] == ""
    assert rows[2]["error"] == "empty text" and rows[2]["anonymized_text"] == ""
    assert rows[0]["job"] == "nurse" and rows[0]["bio"] == "Alice Smith, a nurse in Paris"


def test_csv_missing_column(tmp_path, capsys):
    src = tmp_path / "p.csv"
    src.write_text("a,b\n1,2\n")
    assert main(["anonymize", str(src), "--text-field", "bio", "--engine", "llm"]) == 2
    assert "no field 'bio'" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["x.csv"])
def test_csv_binary_is_user_error(tmp_path, capsys, name):
    (tmp_path / name).write_bytes(b"\x00\x01\x02")
    assert main(["anonymize", str(tmp_path / name), "--engine", "llm"]) == 2
    assert "binary" in capsys.readouterr().err


def test_a_resumed_folder_run_removes_temp_files_a_kill_left(tmp_path):
    """kill -9 in the middle of an atomic write leaves ".doc.txt.XXXX.tmp": the resumed run
    deletes it, so the output folder holds exactly one file per document."""
    from veil.cli.folder import remove_stale_temp_files

    (tmp_path / "g0").mkdir()
    (tmp_path / "g0" / ".doc06.txt.j_95s7kt.tmp").write_text("half a text")
    (tmp_path / "g0" / "doc00.txt").write_text("done")
    assert remove_stale_temp_files(tmp_path) == 1
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["doc00.txt"]


def test_folder_retries_broken_bodies(tmp_path):
    """Issue 11: folder mode failed a document on the first broken HTTP body, without a retry."""
    from veil.testing.scripted_llm import Fault

    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    for i in range(8):
        (src / f"d{i}.txt").write_text(f"Alice Smith {i} is a nurse in Paris.")
    faults = [Fault(broken_body=k) for k in ("cut", "garbled", "partial_json")]
    with ScriptedLLM(responder, fault_rate=0.15, rate_faults=faults, seed=3) as llm:
        code = main(["anonymize", str(src), "-o", str(out), "--concurrency", "4", *_args(llm, tmp_path)])
        served = len(llm.faults_served)
    assert served >= 2
    assert code == 0
    assert all(e["status"] == "done" for e in _manifest(out))


def test_folder_rerun_with_other_options_refuses_and_restart_redoes(tmp_path, capsys):
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    for i in range(2):
        (src / f"d{i}.txt").write_text(f"Alice Smith {i} is a nurse in Paris.")
    with ScriptedLLM(responder) as llm:
        assert main(["anonymize", str(src), "-o", str(out), *_args(llm, tmp_path)]) == 0
        runs = {e["path"]: e["run_id"] for e in _manifest(out)}
        n = len(llm.requests)
        capsys.readouterr()
        assert main(["anonymize", str(src), "-o", str(out), *_args(llm, tmp_path), "--name-field", "x"]) == 2
        err = capsys.readouterr().err
        assert "different options: --name-field (unset) -> x" in err and "--restart" in err
        assert len(llm.requests) == n
        # the same options: nothing to redo
        assert main(["anonymize", str(src), "-o", str(out), *_args(llm, tmp_path)]) == 0
        assert len(llm.requests) == n
        # other options with --restart: every document redone, under a new batch
        assert main(["anonymize", str(src), "-o", str(out), *_args(llm, tmp_path), "--max-iterations", "2",
                     "--restart"]) == 0
        assert len(llm.requests) > n
    assert all(runs[e["path"]] != e["run_id"] and e["status"] == "done" for e in _manifest(out))


def test_csv_malformed_rows_are_reported_not_swallowed(tmp_path, capsys):
    """Issue 11: a CSV with an unterminated quote silently swallowed the next row (4 of 5 rows,
    exit 0). Strict parsing: the malformed row is an error naming its lines, the others go on."""
    src = tmp_path / "p.csv"
    src.write_text('id,text\n1,Alice Smith is a nurse in Paris\n2,"Bob is a pilot in Paris\n3,Carol said "hi"\n'
                   "4,Dan is a nurse in Paris\n5,Eve is a nurse,in Paris\n6,Fay is a nurse in Paris\n")
    out = tmp_path / "out.csv"
    with ScriptedLLM(responder) as llm:
        code = main(["anonymize", str(src), "--id-field", "id", "-o", str(out), *_args(llm, tmp_path)])
    err = capsys.readouterr().err
    assert code == 1
    assert "p.csv:3: malformed CSV row (',' expected after '\"'; lines 3-4)" in err
    assert "p.csv:6: malformed CSV row: 3 cells for 2 header columns" in err
    assert "3/5 rows anonymized" in err and "2 failed" in err
    rows = list(csv.DictReader(out.open(newline="")))
    assert [r["id"] for r in rows] == ["1", "", "4", "5", "6"]
    assert rows[1]["error"].startswith(f"{src}:3: malformed CSV row") and rows[1]["anonymized_text"] == ""
    assert rows[3]["error"].startswith(f"{src}:6: malformed") and rows[3]["text"] == "Eve is a nurse"
    assert [r["anonymized_text"] for r in rows if not r["error"]] == [
        "A person is a nurse in a European city", "Dan is a nurse in a European city", "Fay is a nurse in a European city"]


def test_csv_never_overwrites_a_column(tmp_path, capsys):
    src = tmp_path / "p.csv"
    src.write_text("text,anonymized_text\nAlice in Paris,EARLIER\n")
    assert main(["anonymize", str(src), "--engine", "llm", "-o", str(tmp_path / "o.csv")]) == 2
    assert "already have a field 'anonymized_text'" in capsys.readouterr().err
    with ScriptedLLM(responder) as llm:
        assert main(["anonymize", str(src), "--output-field", "veil", "-o", str(tmp_path / "o.csv"),
                     *_args(llm, tmp_path)]) == 0
    row = next(csv.DictReader((tmp_path / "o.csv").open(newline="")))
    assert row["anonymized_text"] == "EARLIER" and row["veil"] == "Alice in a European city"


def test_folder_decodes_utf16_and_bom_files(tmp_path):
    """Issue 11: a UTF-16 file was called "binary"."""
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    text = "Alice Smith is a nurse in Paris. Café."
    for enc in ("utf-16", "utf-16-le", "utf-8-sig"):
        (src / f"{enc}.txt").write_bytes(text.encode(enc))
    with ScriptedLLM(responder) as llm:
        assert main(["anonymize", str(src), "-o", str(out), *_args(llm, tmp_path)]) == 0
    for enc in ("utf-16", "utf-16-le", "utf-8-sig"):
        assert (out / f"{enc}.txt").read_text(encoding="utf-8") == "A person is a nurse in a European city. Café."


def test_folder_output_path_checked_before_work(tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_text("Alice in Paris")
    (tmp_path / "file").write_text("x")
    with ScriptedLLM(responder) as llm:
        assert main(["anonymize", str(src), "-o", "/proc/nope/out", *_args(llm, tmp_path)]) == 2
        assert main(["anonymize", str(src), "-o", str(tmp_path / "file"), *_args(llm, tmp_path)]) == 2
        assert llm.requests == []
    err = capsys.readouterr().err
    assert "-o /proc/nope/out: cannot write there" in err and "exists and is not a folder" in err
