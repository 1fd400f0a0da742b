"""The ``veil`` command over the scripted LLM (``--engine llm --base-url URL --model m``):
txt, JSONL and stdin input, ``veil trace show``, user errors (exit 2, one line, no
traceback), and a JSONL run interrupted midway that resumes from its ``.partial`` journal."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import BIOS, AgentScript, identity_answer, optimizer_answer, prompt_text, utility_answer
from veil.cli import main
from veil.io import BATCH_KEY
from veil.memory.store import MemoryStore
from veil.testing.scripted_llm import Fault

VEIL = str(Path(sys.executable).with_name("veil"))
FISHBACK = BIOS["fishback"]


def world(hang: threading.Event | None = None, hang_marker: str | None = None) -> AgentScript:
    """Every agent of every profile: the attacker knows a person (or a place) while the
    document's marker is in the text; the optimizer generalizes the marker away."""
    markers = {b.marker: b for b in BIOS.values()}

    def present(text):
        return [b for m, b in markers.items() if m in text]

    def maybe_hang(text):
        if hang is not None and hang_marker and hang_marker in text and not hang.is_set():
            hang.wait(30)

    def identity(text):
        maybe_hang(text)
        found = present(text)
        return identity_answer(*(b.name for b in found), "Somebody Else", clues=[b.marker for b in found])

    def attributes(text):
        loc = ["Sacramento, California"] if FISHBACK.marker in text else ["Denver, Colorado"]
        return {"attributes": [{"attribute": "location", "guesses": loc, "clues": [FISHBACK.marker]}]}

    def inference(text):
        return {"inferences": [
            {"attribute": "location", "guesses": ["Sacramento, California"], "certainty": 5, "evidence": "stated"}
        ]}

    def optimizer(text):
        for b in present(text):
            text = text.replace(b.marker, "[somewhere]")
        return optimizer_answer(text)

    return AgentScript(identity=identity, attributes=attributes, inference=inference, optimizer=optimizer,
                       utility=lambda t: utility_answer(95))


def llm_args(server, db: Path) -> list[str]:
    return ["--engine", "llm", "--base-url", server.base_url, "--model", "m", "--db", str(db), "--no-progress"]


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def bio_records() -> list[dict]:
    return [
        {"id": f"doc-{b.id}", "text": b.text, "person": b.name, "occupation": b.label, "meta": {"n": i, "tags": ["x"]}}
        for i, b in enumerate(BIOS.values())
    ]


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(autouse=True)
def _wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # rich tables must not truncate what the tests look for


# -- txt ----------------------------------------------------------------------------------


def test_txt_file_to_stdout_then_trace_show(scripted_llm, tmp_path, db_path, capsys):
    llm = scripted_llm(world())
    src = tmp_path / "bio.txt"
    src.write_text(FISHBACK.text, encoding="utf-8")
    rc = main(["anonymize", str(src), *llm_args(llm, db_path)])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert out == FISHBACK.text.replace("Sacramento", "[somewhere]") + "\n"
    # no name/attributes given: profile generic, the inferrer's confident guesses are the targets
    assert len(llm.requests_for("InferenceAnswer")) == 1
    assert len(llm.requests_for("OptimizerAnswer")) == 1
    run_id = re.search(r"veil: run (run-\w+): protected \(not re-identified in the top 3\)", err).group(1)

    rc = main(["trace", "show", run_id, "--db", str(db_path)])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert run_id in out and "doc bio" in out and "profile generic" in out
    assert "iteration 0 (original)" in out and "iteration 1 (privacy)" in out
    assert "best iteration: 1" in out and "stop: targets_met" in out
    assert "location: Sacramento" in out  # the clue of iteration 0
    assert "4 (not in top 3)" in out  # iteration 1's privacy rank
    assert out.index("iteration 0 (original)") < out.index("iteration 1 (privacy)")

    rc = main(["trace", "show", run_id, "--db", str(db_path), "--no-text"])
    out, _ = capsys.readouterr()
    assert rc == 0 and "iteration 0 (original)" not in out and "best iteration: 1" in out

    rc = main(["trace", "list", "--db", str(db_path)])
    out, _ = capsys.readouterr()
    assert rc == 0 and run_id in out


def test_txt_file_to_output_file_identity_profile(scripted_llm, tmp_path, db_path, capsys):
    llm = scripted_llm(world())
    src = tmp_path / "bio.txt"
    src.write_text(FISHBACK.text, encoding="utf-8")
    dst = tmp_path / "out" / "anon.txt"
    rc = main(["anonymize", str(src), "-o", str(dst), "--profile", "identity", "-k", "5", *llm_args(llm, db_path)])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert out == ""
    # identity with no name given: the attacker's first guess on the original is protected; the
    # literal name then goes deterministically (no label: "the person")
    expected = FISHBACK.text.replace("Sacramento", "[somewhere]").replace(FISHBACK.name, "The person")
    assert dst.read_text(encoding="utf-8") == expected
    assert "5 best guesses" in llm.requests_for("IdentityAnswer")[0]["messages"][-1]["content"]
    assert "not re-identified in the top 5" in err  # rank 6: not in the attacker's top 5


def test_trace_show_unknown_run(db_path, capsys):
    rc = main(["trace", "show", "run-nope", "--db", str(db_path)])
    _, err = capsys.readouterr()
    assert rc != 0
    assert err.strip().splitlines() == [err.strip()] and "run-nope" in err and "Traceback" not in err


def test_llm_failure_on_a_single_text_is_a_clean_error(scripted_llm, tmp_path, db_path, capsys):
    from veil.testing.scripted_llm import Fault

    llm = scripted_llm(world())
    llm.faults.append(Fault(status=400))  # not retried
    src = tmp_path / "bio.txt"
    src.write_text(FISHBACK.text, encoding="utf-8")
    rc = main(["anonymize", str(src), "--profile", "identity", *llm_args(llm, db_path)])
    out, err = capsys.readouterr()
    assert rc != 0 and out == ""
    assert "HTTP 400" in err and "Traceback" not in err


# -- JSONL --------------------------------------------------------------------------------


def test_jsonl_keeps_fields_and_input_order(scripted_llm, tmp_path, db_path, capsys):
    records = bio_records()
    slow = BIOS["fishback"]
    script = world()
    identity = script.identity

    def slow_first(text):  # the first document waits until the three others are done
        if slow.marker in text:
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                with contextlib.closing(sqlite3.connect(db_path)) as con:
                    if con.execute("SELECT COUNT(*) FROM runs WHERE status='done'").fetchone()[0] >= 3:
                        break
                time.sleep(0.02)
        return identity(text)

    script.identity = slow_first
    llm = scripted_llm(script)
    src = write_jsonl(tmp_path / "in.jsonl", records)
    dst = tmp_path / "out.jsonl"
    rc = main([
        "anonymize", str(src), "-o", str(dst), "--id-field", "id", "--name-field", "person",
        "--label-field", "occupation", "--concurrency", "4", *llm_args(llm, db_path),
    ])
    _, err = capsys.readouterr()
    assert rc == 0, err
    rows = read_jsonl(dst)
    assert [r["id"] for r in rows] == [r["id"] for r in records]
    for rec, row, bio in zip(records, rows, BIOS.values()):
        assert {k: row[k] for k in rec} == rec  # every input field kept, unchanged
        assert set(row) - set(rec) == {"anonymized_text", "privacy_score", "utility_score", "privacy_status",
                                         "run_id"}
        # the name goes deterministically: "This person" where its sentence already says the role
        # noun (every bio opens "<name> ... is a <label>"), else the role noun
        expected = bio.text.replace(bio.marker, "[somewhere]").replace(bio.name, "This person")
        assert row["anonymized_text"] == expected
        assert row["privacy_score"] == 11 and row["utility_score"] == 0.95
        assert row["privacy_status"] == "protected"
    assert llm.max_in_flight >= 2
    assert "4/4 anonymized" in err
    assert not (tmp_path / "out.jsonl.partial").exists()
    store = MemoryStore(db_path)
    try:
        finished = [store.get_run(r["run_id"])["updated_at"] for r in rows]
        assert finished[0] == max(finished)  # really finished last, yet written first
        assert store.get_run(rows[1]["run_id"])["doc_id"] == "doc-okafor"
    finally:
        store.close()


def test_jsonl_to_stdout_with_line_number_ids(scripted_llm, tmp_path, db_path, capsys):
    llm = scripted_llm(world())
    records = [{"text": b.text, "name": b.name} for b in list(BIOS.values())[:2]]
    src = write_jsonl(tmp_path / "in.jsonl", records)
    rc = main(["anonymize", str(src), "--name-field", "name", *llm_args(llm, db_path)])
    out, err = capsys.readouterr()
    assert rc == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["name"] for r in rows] == [r["name"] for r in records]
    assert all(r["run_id"].startswith("run-") for r in rows)


def test_jsonl_with_a_failed_document(scripted_llm, tmp_path, db_path, capsys):
    from veil.testing.scripted_llm import Fault

    script = world()
    identity = script.identity
    bad = BIOS["duarte"]
    script.identity = lambda t: Fault(status=400) if bad.marker in t else identity(t)
    llm = scripted_llm(script)
    src = write_jsonl(tmp_path / "in.jsonl", bio_records())
    dst = tmp_path / "out.jsonl"
    rc = main(["anonymize", str(src), "-o", str(dst), "--id-field", "id", "--name-field", "person",
               *llm_args(llm, db_path)])
    _, err = capsys.readouterr()
    assert rc == 1
    rows = {r["id"]: r for r in read_jsonl(dst)}
    assert rows["doc-duarte"]["anonymized_text"] is None and "HTTP 400" in rows["doc-duarte"]["error"]
    assert all(rows[k]["anonymized_text"] and "error" not in rows[k] for k in rows if k != "doc-duarte")
    assert "1 failed" in err


# -- stdin (a real subprocess) -------------------------------------------------------------


def run_veil(args: list[str], input_text: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([VEIL, *args], input=input_text, capture_output=True, text=True, timeout=timeout,
                          env=os.environ.copy())


def test_stdin_text_and_jsonl(scripted_llm, db_path):
    llm = scripted_llm(world())
    bio = BIOS["okafor"]
    p = run_veil(["anonymize", "-", "--profile", "identity", *llm_args(llm, db_path)], input_text=bio.text)
    assert p.returncode == 0, p.stderr
    assert p.stdout == bio.text.replace(bio.marker, "[somewhere]").replace(bio.name, "The person") + "\n"
    assert "Traceback" not in p.stderr

    lines = "".join(json.dumps({"text": b.text, "who": b.name}) + "\n" for b in BIOS.values())
    p = run_veil(["anonymize", "-", "--name-field", "who", *llm_args(llm, db_path)], input_text=lines)
    assert p.returncode == 0, p.stderr
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    assert [r["who"] for r in rows] == [b.name for b in BIOS.values()]
    assert all(r["privacy_score"] == 11 for r in rows)


def test_user_error_in_a_subprocess_has_no_traceback(tmp_path, db_path):
    p = run_veil(["anonymize", str(tmp_path / "missing.txt"), "--engine", "llm", "--db", str(db_path)])
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0 and "missing.txt" in p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""


# -- user errors (in process) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "extra", "expect"),
    [
        (None, [], "no such file"),
        ("", [], "empty"),
        ('{"text": \n', [], "in.jsonl:1: not valid JSON"),
        ('{"body": "a"}\n', [], "no field 'text'"),
        ('{"text": "b"}\n{"text": "c"}\n', ["--name-field", "name"], "in.jsonl:1: no field 'name' (fields: text) "
                                                                   "(and all 1 other records)"),
        ('{"text": 5}\n', [], "is not a string"),
        ('[1, 2]\n', [], "expected a JSON object"),
        ('{"text": "a", "anonymized_text": "b"}\n', [], "already have a field 'anonymized_text'"),
        ('{"text": "a", "out": "b"}\n', ["--output-field", "out"], "choose another --output-field"),
        ('{"text": "a", "run_id": "b"}\n', [], "field(s) 'run_id', which veil adds"),
        ('{"text": "a"}\n', ["--u-target", "1.5"], "invalid option"),
        ('{"text": "a"}\n', ["--concurrency", "0"], "--concurrency"),
        ('{"text": "a", "attrs": "x"}\n', ["--attributes-field", "attrs"], "must be an object"),
    ],
    ids=["missing-file", "empty-file", "bad-json-line", "missing-text-field", "missing-name-field", "text-not-string",
         "not-an-object", "output-field-taken", "named-output-field-taken", "veil-field-taken", "bad-option",
         "bad-concurrency", "attributes-not-object"],
)
def test_user_errors_exit_2_with_one_line(tmp_path, db_path, capsys, content, extra, expect):
    src = tmp_path / "in.jsonl"
    if content is not None:
        src.write_text(content, encoding="utf-8")
    rc = main(["anonymize", str(src), *extra, "--engine", "llm", "--base-url", "http://127.0.0.1:9/v1",
               "--db", str(db_path), "--no-progress"])
    out, err = capsys.readouterr()
    assert rc == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("veil: error: ") and expect in err, err


def test_unknown_flag_and_no_command_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["anonymize", "x.txt", "--no-such-flag"])
    assert info.value.code == 2
    assert main([]) == 2
    capsys.readouterr()


# -- resume from the .partial journal -----------------------------------------------------


def jsonl_args(src: Path, dst: Path, llm, db: Path) -> list[str]:
    return ["anonymize", str(src), "-o", str(dst), "--id-field", "id", "--name-field", "person",
            "--concurrency", "1", *llm_args(llm, db)]


def requests_about(llm, bio) -> int:
    """Requests about one document: its person's name or its marker is in the prompt (the LLM
    agents replace the name before a model sees the text; the marker stays until edited)."""
    return sum(bio.name in prompt_text(r) or bio.marker in prompt_text(r) for r in llm.requests)


def test_interrupted_run_resumes_without_redoing_finished_docs(scripted_llm, tmp_path, db_path, capsys):
    """A real ``veil`` process is stopped (Ctrl-C) while document 3 of 4 hangs on the LLM; the
    same command then finishes the batch, redoing neither document 1 nor 2."""
    records = bio_records()
    bios = list(BIOS.values())
    hang = threading.Event()
    llm = scripted_llm(world(hang=hang, hang_marker=bios[2].marker))
    src = write_jsonl(tmp_path / "in.jsonl", records)
    dst = tmp_path / "out.jsonl"
    partial = tmp_path / "out.jsonl.partial"
    # Ctrl-C as a terminal sends it: a shell runs background jobs (and CI may run pytest) with
    # SIGINT ignored, which a child inherits, and Python then installs no KeyboardInterrupt
    proc = subprocess.Popen([VEIL, *jsonl_args(src, dst, llm, db_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=os.environ.copy(),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 45
        while time.monotonic() < deadline and proc.poll() is None:
            if partial.exists() and len(partial.read_text(encoding="utf-8").splitlines()) >= 2:
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()[1]
        while time.monotonic() < deadline and requests_about(llm, bios[2]) == 0:
            time.sleep(0.02)  # let document 3 reach the hanging endpoint
        assert requests_about(llm, bios[2]) >= 1
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert not dst.exists()
    header, *journal = [json.loads(line) for line in partial.read_text(encoding="utf-8").splitlines()]
    assert header["key"] == BATCH_KEY and header["output"]["input_sha256"]
    assert [e["key"] for e in journal] == ["doc-fishback", "doc-okafor"]
    before = {b.id: requests_about(llm, b) for b in bios}

    hang.set()
    rc = main(jsonl_args(src, dst, llm, db_path))
    _, err = capsys.readouterr()
    assert rc == 0, err
    assert "resuming: 2 of 4 documents already done" in err
    after = {b.id: requests_about(llm, b) for b in bios}
    assert after["fishback"] == before["fishback"] and after["okafor"] == before["okafor"]
    assert after["lindqvist"] > before["lindqvist"] and after["duarte"] > before["duarte"]
    rows = read_jsonl(dst)
    assert [r["id"] for r in rows] == [r["id"] for r in records]
    assert [r["run_id"] for r in rows[:2]] == [e["output"]["run_id"] for e in journal]
    assert all(r["anonymized_text"] and r["privacy_score"] == 11 for r in rows)
    assert not partial.exists()


def test_resume_from_a_prewritten_journal(scripted_llm, tmp_path, db_path, capsys):
    """Finished entries are reused as they are; a torn last line is ignored; a document that
    failed before is tried again."""
    records = bio_records()
    bios = list(BIOS.values())
    llm = scripted_llm(world())
    src = write_jsonl(tmp_path / "in.jsonl", records)
    dst = tmp_path / "out.jsonl"
    done = {"run_id": "run-earlier", "doc_id": "doc-okafor", "status": "done", "anonymized_text": "EARLIER",
            "privacy_score": 11, "utility_score": 0.5}
    failed = {"run_id": "run-failed", "doc_id": "doc-duarte", "status": "failed", "error": "HTTP 500"}
    (tmp_path / "out.jsonl.partial").write_text(
        json.dumps({"key": BATCH_KEY, "output": fingerprint(jsonl_args(src, dst, llm, db_path), src)}) + "\n"
        + json.dumps({"key": "doc-okafor", "output": done}) + "\n"
        + json.dumps({"key": "doc-duarte", "output": failed}) + "\n"
        + '{"key": "doc-lindq',  # torn by a kill
        encoding="utf-8",
    )
    rc = main(jsonl_args(src, dst, llm, db_path))
    _, err = capsys.readouterr()
    assert rc == 0, err
    assert "resuming: 1 of 4 documents already done" in err
    assert requests_about(llm, bios[1]) == 0
    assert requests_about(llm, bios[3]) > 0  # the failed one is redone
    rows = {r["id"]: r for r in read_jsonl(dst)}
    assert rows["doc-okafor"]["anonymized_text"] == "EARLIER" and rows["doc-okafor"]["run_id"] == "run-earlier"
    assert rows["doc-duarte"]["anonymized_text"] and "error" not in rows["doc-duarte"]
    assert rows["doc-lindqvist"]["anonymized_text"]
    assert not (tmp_path / "out.jsonl.partial").exists()


def fingerprint(argv: list[str], src: Path) -> dict:
    """The journal header veil writes for this command line (see veil.io.check_resume)."""
    from veil.cli import build_parser
    from veil.cli.anonymize import _config
    from veil.cli.common import run_options
    from veil.io import file_sha256

    args = build_parser().parse_args(argv)
    return {"batch_id": "b-earlier", "input_sha256": file_sha256(src), "options": run_options(args, _config(args))}


def test_kill_9_then_different_input_or_options_refuses_and_restart_redoes(scripted_llm, tmp_path, db_path, capsys):
    """Issue 11: after a kill -9, the input JSONL was replaced by different records and the
    command rerun: the output paired the new inputs with the old anonymizations (ids are line
    numbers). Now the journal's fingerprint refuses it, naming the difference; so does a change of
    options; --restart redoes every record from the new input."""
    bios = list(BIOS.values())
    hang = threading.Event()
    llm = scripted_llm(world(hang=hang, hang_marker=bios[2].marker))
    # no id field: a record's key is its line number
    records = [{"text": b.text, "person": b.name, "occupation": b.label} for b in bios]
    src = write_jsonl(tmp_path / "in.jsonl", records)
    dst = tmp_path / "out.jsonl"
    partial = tmp_path / "out.jsonl.partial"
    argv = ["anonymize", str(src), "-o", str(dst), "--name-field", "person", "--concurrency", "1",
            *llm_args(llm, db_path)]
    proc = subprocess.Popen([VEIL, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=os.environ.copy())
    try:
        deadline = time.monotonic() + 45
        while time.monotonic() < deadline and proc.poll() is None:
            if partial.exists() and len(partial.read_text(encoding="utf-8").splitlines()) >= 3:  # header + 2 done
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()[1]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    hang.set()
    journal = [json.loads(line) for line in partial.read_text(encoding="utf-8").splitlines()]
    assert [e["key"] for e in journal] == [BATCH_KEY, "0", "1"]

    def veil(*extra: str) -> tuple[int, str]:
        rc = main([*argv, *extra])
        return rc, capsys.readouterr().err

    # the same input with other options: refused, the option named
    rc, err = veil("--max-iterations", "2")
    assert rc == 2 and "Traceback" not in err, err
    assert "--max-iterations 5 -> 2" in err and "--restart" in err
    assert err.count("\n") == 1 and not dst.exists()

    # the input replaced by different records: refused, the input named, nothing written
    new_records = [{"text": b.text, "person": b.name, "occupation": b.label} for b in reversed(bios)]
    new_records.append({**records[0], "text": bios[0].text.replace("1933", "1934")})
    write_jsonl(src, new_records)
    rc, err = veil()
    assert rc == 2, err
    assert "the input is different" in err and "2 finished documents" in err
    assert not dst.exists() and partial.exists()

    # --restart: every record is redone from the new input, each paired with its own text
    rc, err = veil("--restart")
    assert rc == 0, err
    assert "resuming" not in err
    rows = read_jsonl(dst)
    assert [r["text"] for r in rows] == [r["text"] for r in new_records]
    labels = {b.label for b in bios}
    for r in rows:
        assert r["anonymized_text"] and r["occupation"] in r["anonymized_text"]
        assert not any(other in r["anonymized_text"] for other in labels - {r["occupation"]})
    assert not partial.exists()


def test_a_journal_without_fingerprint_is_not_resumed(scripted_llm, tmp_path, db_path, capsys):
    llm = scripted_llm(world())
    src = write_jsonl(tmp_path / "in.jsonl", bio_records())
    dst = tmp_path / "out.jsonl"
    done = {"run_id": "run-earlier", "doc_id": "doc-okafor", "status": "done", "anonymized_text": "EARLIER"}
    (tmp_path / "out.jsonl.partial").write_text(json.dumps({"key": "doc-okafor", "output": done}) + "\n")
    assert main(jsonl_args(src, dst, llm, db_path)) == 2
    assert "no fingerprint" in capsys.readouterr().err and not dst.exists()
    assert main([*jsonl_args(src, dst, llm, db_path), "--restart"]) == 0
    assert "EARLIER" not in dst.read_text(encoding="utf-8")


def test_journal_survives_a_torn_line_and_a_second_interruption(tmp_path):
    from veil.io import Journal

    path = tmp_path / "out.jsonl.partial"
    path.write_text(json.dumps({"key": "a", "output": 1}) + "\n" + '{"key": "b", "out', encoding="utf-8")
    j = Journal(path)
    assert j.done == {"a": 1}
    j.add("c", 3)  # must not be glued to the torn line
    j.close()
    assert Journal(path).done == {"a": 1, "c": 3}


# -- LLM endpoint options (issue 9) and privacy statuses (issue 12) -----------------------------


def test_the_endpoints_own_message_reaches_the_cli(scripted_llm, tmp_path, db_path, capsys):
    llm = scripted_llm(world(), formats={"text", "json_object"})  # llama-cpp-python's shapes
    src = tmp_path / "bio.txt"
    src.write_text(FISHBACK.text, encoding="utf-8")
    rc = main(["anonymize", str(src), "--structured-output", "json_schema", "--llm-timeout", "5",
               *llm_args(llm, db_path)])
    _, err = capsys.readouterr()
    assert rc != 0 and "Traceback" not in err
    assert "HTTP 500" in err and "Input should be 'json_object' or 'text'" in err

    # auto (the default) finds the shape the endpoint takes
    rc = main(["anonymize", str(src), "--llm-concurrency", "1", *llm_args(llm, db_path)])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert out == FISHBACK.text.replace("Sacramento", "[somewhere]") + "\n"
    assert {r["response_format"]["type"] for r in llm.requests} == {"json_object"}
    assert llm.max_in_flight == 1


def test_llm_concurrency_must_be_positive(tmp_path, db_path, capsys):
    src = tmp_path / "bio.txt"
    src.write_text("x y z", encoding="utf-8")
    rc = main(["anonymize", str(src), "--engine", "llm", "--llm-concurrency", "0", "--db", str(db_path)])
    assert rc == 2 and "--llm-concurrency must be at least 1" in capsys.readouterr().err


def test_unverified_runs_are_flagged_in_the_summary_and_the_jsonl(scripted_llm, tmp_path, db_path, capsys):
    llm = scripted_llm(AgentScript(identity=lambda t: identity_answer("Somebody Else")))  # a blind attacker
    records = [{"id": f"d{i}", "text": b.text.replace(b.name, "This person"), "person": b.name}
               for i, b in enumerate(BIOS.values())]
    src = write_jsonl(tmp_path / "in.jsonl", records)
    dst = tmp_path / "out.jsonl"
    rc = main(["anonymize", str(src), "-o", str(dst), "--id-field", "id", "--name-field", "person",
               *llm_args(llm, db_path)])
    _, err = capsys.readouterr()
    assert rc == 0, err
    rows = read_jsonl(dst)
    assert {r["privacy_status"] for r in rows} == {"unverified"}
    assert all(r["privacy_note"].startswith("the attacker could not re-identify the original") for r in rows)
    assert "0 protected, 4 unverified, 0 re-identified" in err
    assert "4 unverified (see their 'privacy_note' field)" in err and "stronger attack model" in err

    from veil.cli.eval import status_counts

    assert status_counts([("x", r) for r in rows]) == {"protected": 0, "re-identified": 0, "unverified": 4}
    assert status_counts([("x", {"text": "t"})]) == {}


# -- fault injection: broken HTTP bodies ----------------------------------------------------

BROKEN_BODIES = [Fault(broken_body=kind) for kind in ("cut", "garbled", "partial_json")]


def many_bio_records(copies: int) -> list[dict]:
    return [{**r, "id": f"{r['id']}-{c}"} for c in range(copies) for r in bio_records()]


def test_broken_bodies_at_10_percent_of_calls_are_retried_and_the_batch_is_saved(scripted_llm, tmp_path, db_path,
                                                                              capsys):
    """Issue 11: an endpoint answering 200 with a cut, garbled or half-JSON body at 10% of calls
    made `veil anonymize in.jsonl` die with a JSONDecodeError and save nothing. Now a broken body
    is a transient error (retried); the batch finishes and every record is saved."""
    llm = scripted_llm(world(), fault_rate=0.10, rate_faults=BROKEN_BODIES, seed=11)
    records = many_bio_records(3)
    src = write_jsonl(tmp_path / "in.jsonl", records)
    dst = tmp_path / "out.jsonl"
    rc = main(["anonymize", str(src), "-o", str(dst), "--id-field", "id", "--name-field", "person",
               "--concurrency", "4", *llm_args(llm, db_path)])
    _, err = capsys.readouterr()
    served = {f.broken_body for f in llm.faults_served}
    assert served == {"cut", "garbled", "partial_json"}, served  # every kind of broken body was served
    assert len(llm.faults_served) >= 5
    assert "Traceback" not in err and "JSONDecodeError" not in err
    rows = read_jsonl(dst)
    assert [r["id"] for r in rows] == [r["id"] for r in records]
    assert rc == 0, err  # 3 retries: a call fails for good only after 4 broken bodies in a row
    assert all(r["anonymized_text"] and "error" not in r for r in rows)


def test_a_document_whose_calls_always_break_is_its_own_error(scripted_llm, tmp_path, db_path, capsys):
    """Every call about one document gets a broken body: that document ends with the reason in
    its `error`, after the retries; the others are saved; exit 1 with the count."""
    script = world()
    identity = script.identity
    bad = BIOS["okafor"]
    script.identity = lambda t: Fault(broken_body="partial_json") if bad.marker in t else identity(t)
    llm = scripted_llm(script)
    src = write_jsonl(tmp_path / "in.jsonl", bio_records())
    dst = tmp_path / "out.jsonl"
    rc = main(jsonl_args(src, dst, llm, db_path))
    _, err = capsys.readouterr()
    assert rc == 1, err
    assert "3/4 anonymized" in err and "1 failed" in err
    rows = {r["id"]: r for r in read_jsonl(dst)}
    assert "broken response body" in rows["doc-okafor"]["error"] and rows["doc-okafor"]["anonymized_text"] is None
    assert all(rows[k]["anonymized_text"] and "error" not in rows[k] for k in rows if k != "doc-okafor")
    tries = sum(bad.marker in prompt_text(r) for r in llm.requests_for("IdentityAnswer"))
    assert tries == 4  # the first try and 3 retries


def test_an_unexpected_exception_fails_one_document_not_the_batch(scripted_llm, tmp_path, db_path, capsys):
    """An exception that is not veil's own (a bug, an OS error: here the memory store raises while
    one document's iteration is recorded) fails that document, with the reason; the next
    document of the batch runs."""
    import asyncio

    from veil.anonymizer import Anonymizer
    from veil.documents import Document
    from veil.graphs.anonymize import AnonymizeConfig

    class Boom(Exception):
        pass

    class ExplodingMemory:
        """Wraps the real store; adding an iteration for one run raises a non-veil exception."""

        def __init__(self, inner, bad_doc: str):
            self.inner, self.bad_doc, self.bad_runs = inner, bad_doc, set()

        def create_run(self, run_id, **kw):
            if kw.get("doc_id") == self.bad_doc:
                self.bad_runs.add(run_id)
            return self.inner.create_run(run_id, **kw)

        def add_iteration(self, run_id, *a, **kw):
            if run_id in self.bad_runs:
                raise Boom("disk on fire")
            return self.inner.add_iteration(run_id, *a, **kw)

        def __getattr__(self, name):
            return getattr(self.inner, name)

    llm = scripted_llm(world())
    from tests.conftest import llm_settings

    async def go():
        anon = Anonymizer("llm", config=AnonymizeConfig(), llm=llm_settings(llm), db_path=db_path)
        async with anon:
            anon.memory = ExplodingMemory(anon.memory, "b")
            docs = [Document(id="a", text=FISHBACK.text), Document(id="b", text=BIOS["okafor"].text)]
            await anon.prepare(docs)
            return [await anon.anonymize(d) for d in docs]

    ok, failed = asyncio.run(go())
    assert ok.status == "done"
    assert failed.status == "failed" and failed.error == "internal error (Boom: disk on fire)"


# -- input and output without surprises (issue 11 item 6) -----------------------------------


def test_bad_jsonl_lines_are_per_line_errors_and_the_batch_goes_on(scripted_llm, tmp_path, db_path, capsys):
    """Issue 11: one bad line stopped the whole batch (exit 2, 0 processed). Now every bad line
    is reported, kept in its place in the output with its error, and the others are done."""
    llm = scripted_llm(world())
    good = bio_records()
    lines = [
        json.dumps(good[0]),
        '{"id": "torn", "text": "Half a rec',  # not JSON
        json.dumps(good[1]),
        json.dumps({"id": "no-text", "body": "x", "person": "P"}),
        "[1, 2]",
        json.dumps({**good[2], "id": good[0]["id"]}),  # a duplicate id
        json.dumps(good[3]),
    ]
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    dst = tmp_path / "out.jsonl"
    rc = main(jsonl_args(src, dst, llm, db_path))
    _, err = capsys.readouterr()
    assert rc == 1
    for n, what in [(2, "not valid JSON"), (4, "no field 'text'"), (5, "expected a JSON object"),
                    (6, "duplicate id 'doc-fishback'")]:
        assert f"in.jsonl:{n}: {what}" in err, err
    assert "3/7 anonymized" in err and "4 failed" in err
    rows = read_jsonl(dst)
    assert len(rows) == 7
    assert [r.get("id") for r in rows] == ["doc-fishback", None, "doc-okafor", "no-text", None, "doc-fishback",
                                           "doc-duarte"]
    assert rows[1] == {"input_line": lines[1], "anonymized_text": None, "error": rows[1]["error"]}
    assert rows[3]["body"] == "x" and "no field 'text'" in rows[3]["error"]
    assert rows[5]["text"] == good[2]["text"] and rows[5]["anonymized_text"] is None
    for i in (0, 2, 6):
        assert rows[i]["anonymized_text"] and "error" not in rows[i]


@pytest.mark.parametrize("shape", ["object", "array", "jsonl"])
def test_a_json_file_is_sniffed(scripted_llm, tmp_path, db_path, capsys, shape):
    """Issue 11: a .json file holding JSONL was anonymized as one text, its keys left in."""
    llm = scripted_llm(world())
    records = bio_records()[:2]
    src = tmp_path / "in.json"
    if shape == "object":
        records = records[:1]
        src.write_text(json.dumps(records[0], indent=2), encoding="utf-8")
    elif shape == "array":
        src.write_text(json.dumps(records, indent=2), encoding="utf-8")
    else:
        write_jsonl(src, records)
    dst = tmp_path / "out.jsonl"
    rc = main(["anonymize", str(src), "-o", str(dst), "--name-field", "person", *llm_args(llm, db_path)])
    _, err = capsys.readouterr()
    assert rc == 0, err
    rows = read_jsonl(dst)
    assert [r["id"] for r in rows] == [r["id"] for r in records]
    assert all('"person"' not in r["anonymized_text"] and "[somewhere]" in r["anonymized_text"] for r in rows)


def test_output_field_keeps_an_input_field_intact(scripted_llm, tmp_path, db_path, capsys):
    """Issue 11: input records that already had anonymized_text got it overwritten silently."""
    llm = scripted_llm(world())
    records = [{**r, "anonymized_text": "EARLIER"} for r in bio_records()[:2]]
    src = write_jsonl(tmp_path / "in.jsonl", records)
    dst = tmp_path / "out.jsonl"
    assert main(jsonl_args(src, dst, llm, db_path)) == 2
    assert "--output-field" in capsys.readouterr().err and not dst.exists()
    assert main([*jsonl_args(src, dst, llm, db_path), "--output-field", "veil_text"]) == 0
    rows = read_jsonl(dst)
    assert all(r["anonymized_text"] == "EARLIER" and "[somewhere]" in r["veil_text"] for r in rows)


@pytest.mark.parametrize("target", ["/proc/nope/out.jsonl", "DIR"])
def test_the_output_path_is_checked_before_any_work(scripted_llm, tmp_path, db_path, capsys, target):
    """Issue 11: `-o /proc/nope/out.txt` gave a traceback after all the work was done."""
    llm = scripted_llm(world())
    src = write_jsonl(tmp_path / "in.jsonl", bio_records())
    out = str(tmp_path) if target == "DIR" else target
    rc = main(["anonymize", str(src), "-o", out, *llm_args(llm, db_path)])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and err.startswith("veil: error: -o "), err
    assert llm.requests == [] and llm.probes == []  # no work was done


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-8-sig"])
def test_utf16_and_utf8_bom_inputs_are_decoded(scripted_llm, tmp_path, db_path, capsys, encoding):
    """Issue 11: a UTF-16 file was called "binary"."""
    llm = scripted_llm(world())
    txt = tmp_path / "bio.txt"
    txt.write_bytes(FISHBACK.text.encode(encoding))
    assert main(["anonymize", str(txt), *llm_args(llm, db_path)]) == 0
    out, err = capsys.readouterr()
    assert out == FISHBACK.text.replace("Sacramento", "[somewhere]") + "\n", err
    src = tmp_path / "in.jsonl"
    src.write_bytes("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in bio_records()[:2]).encode(encoding))
    dst = tmp_path / "out.jsonl"
    assert main(jsonl_args(src, dst, llm, db_path)) == 0, capsys.readouterr().err
    assert [r["person"] for r in read_jsonl(dst)] == [r["person"] for r in bio_records()[:2]]  # "Mårten" too


def test_a_journal_with_nothing_finished_is_replaced_not_refused(tmp_path):
    from veil.io import Journal, check_resume

    j = Journal(tmp_path / "out.jsonl.partial")
    first = check_resume(j, input_sha256="a" * 64, options={"--engine": "llm"}, restart=False)
    j.close()
    assert (tmp_path / "out.jsonl.partial").stat().st_mode & 0o777 == 0o600  # owner-only, like the databases
    j = Journal(tmp_path / "out.jsonl.partial")
    second = check_resume(j, input_sha256="b" * 64, options={"--engine": "llm"}, restart=False)
    assert second != first and j.done[BATCH_KEY]["input_sha256"] == "b" * 64
    j.add("0", {"status": "done"})
    j.close()
    j = Journal(tmp_path / "out.jsonl.partial")
    with pytest.raises(Exception, match=r"holds 1 finished documents.*--engine llm -> local"):
        check_resume(j, input_sha256="b" * 64, options={"--engine": "local"}, restart=False)
    assert check_resume(j, input_sha256="b" * 64, options={"--engine": "llm"}, restart=False) == second
