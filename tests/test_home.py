"""Many processes, one ``$VEIL_HOME`` (issue 11): WAL mode and a busy timeout on the memory and
the checkpoint databases, so that a CLI run and ``veil serve`` (or another job) can share it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tests.test_cli import FISHBACK, llm_args, world
from veil.cli import main
from veil.memory.store import MemoryStore, checkpoint_path

ROOT = Path(__file__).resolve().parents[1]

WRITER = textwrap.dedent('''
    import asyncio, sys, time
    from pathlib import Path
    from veil.memory.store import MemoryStore, checkpoint_path, open_checkpointer

    db, name, n, go = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
    while not go.exists():  # start together
        time.sleep(0.005)
    store = MemoryStore(db)
    for i in range(n):
        run = f"{name}-{i}"
        store.create_run(run, doc_id=str(i), config={})
        store.add_iteration(run, 0, text="t", mode=None, privacy_score=1, k=10, utility_score=1.0, clues=[])
        store.finish_run(run, result={"ok": True})

    async def checkpoints():
        async with open_checkpointer(checkpoint_path(db)) as saver:
            await saver.setup()
            for i in range(n):
                await saver.conn.execute("CREATE TABLE IF NOT EXISTS probe(who TEXT, i INTEGER)")
                await saver.conn.execute("INSERT INTO probe VALUES (?, ?)", (name, i))
                await saver.conn.commit()

    asyncio.run(checkpoints())
    print("ok")
''')


def test_two_processes_write_the_same_home_at_once(tmp_path):
    db = tmp_path / "home" / "veil.db"
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    n = 150
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(db), name, str(n), str(go)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for name in ("a", "b")]
    time.sleep(1.5)  # both imported and waiting
    go.touch()
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0 and out.strip() == "ok", err
    store = MemoryStore(db)
    try:
        runs = store.list_runs(limit=10_000)
        assert len(runs) == 2 * n and all(r["status"] == "done" for r in runs)
    finally:
        store.close()
    with sqlite3.connect(checkpoint_path(db)) as conn:
        assert conn.execute("SELECT COUNT(*) FROM probe").fetchone()[0] == 2 * n
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_run_waits_for_another_process_holding_the_write_lock(scripted_llm, tmp_path, db_path, capsys):
    """Another process (here: a plain sqlite3 client) holds the write lock of both databases for
    6 s while `veil anonymize` starts: the run waits for it instead of failing with "database is
    locked" (LangGraph's own connection gives up after 5 s)."""
    db_path.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f'''
        import sqlite3, sys, time
        conns = []
        for p in ({str(db_path)!r}, {str(checkpoint_path(db_path))!r}):
            c = sqlite3.connect(p, isolation_level=None)
            c.execute("PRAGMA journal_mode=WAL")
            c.execute("BEGIN IMMEDIATE")
            c.execute("CREATE TABLE IF NOT EXISTS held(x)")
            conns.append(c)
        print("locked", flush=True)
        time.sleep(6)
        for c in conns:
            c.execute("COMMIT")
    ''')], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        llm = scripted_llm(world())
        src = tmp_path / "bio.txt"
        src.write_text(FISHBACK.text, encoding="utf-8")
        t0 = time.monotonic()
        rc = main(["anonymize", str(src), *llm_args(llm, db_path)])
        out, err = capsys.readouterr()
        assert rc == 0, err
        assert "locked" not in err
        assert time.monotonic() - t0 > 3  # it did wait for the lock
        assert out == FISHBACK.text.replace("Sacramento", "[somewhere]") + "\n"
    finally:
        holder.wait(timeout=30)


# -- nothing kept in the clear that need not be (issue 11 item 8) ------------------------------


def _files(home: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in home.iterdir() if p.is_file()}


def test_default_run_keeps_no_text_prunes_checkpoints_0600_and_logs_no_text(scripted_llm, tmp_path):
    """Issue 11: originals were stored in plain text in veil.db and the checkpoint database (mode
    0644, 118 MB after ~300 documents), and at DEBUG aiosqlite's SQL lines put input text in the
    logs. A real `veil anonymize` process at DEBUG with the default --store-text (none)."""
    from tests.test_cli import bio_records, write_jsonl

    home = tmp_path / "home"
    llm = scripted_llm(world())
    src = write_jsonl(tmp_path / "in.jsonl", bio_records())
    env = {**os.environ, "VEIL_HOME": str(home), "VEIL_LOG_LEVEL": "DEBUG", "PYTHONPATH": str(ROOT)}
    env.pop("VEIL_STORE_TEXT", None)  # the default
    cmd = [sys.executable, "-m", "veil", "anonymize", str(src), "-o", str(tmp_path / "out.jsonl"), "--id-field", "id",
           "--name-field", "person", "--engine", "llm", "--base-url", llm.base_url, "--model", "m", "--no-progress"]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr
    assert '"level": "debug"' in p.stderr  # DEBUG was on
    markers = [FISHBACK.marker, "Hartley Medal", "Örebro", "Braga", "Kurt Edward Fishback", "Adaeze Okafor"]
    for m in markers:
        assert m not in p.stderr, f"{m!r} in the logs"
    files = _files(home)
    assert {"veil.db", "veil-checkpoints.db"} <= set(files)
    for name, data in files.items():
        for m in markers:
            assert m.encode() not in data, f"{m!r} stored in {name}"
    for f in home.iterdir():
        assert f.stat().st_mode & 0o777 == 0o600, f
    assert home.stat().st_mode & 0o777 == 0o700
    with sqlite3.connect(home / "veil-checkpoints.db") as conn:
        assert conn.execute("SELECT COUNT(*) FROM checkpoints").fetchone()[0] == 0  # pruned
        assert conn.execute("SELECT COUNT(*) FROM writes").fetchone()[0] == 0
    store = MemoryStore(home / "veil.db")
    try:
        runs = store.list_runs()
        assert len(runs) == 4 and all(r["status"] == "done" for r in runs)
        run = store.get_run(runs[0]["run_id"])
        assert run["text_stored"] == "none" and set(run["result"]["protected"].values()) == {"(not stored)"}
        its = store.iterations(runs[0]["run_id"])
        assert its and all(it["text"] == "" and it["clues"] == [] and it["diff"] is None for it in its)
        assert its[0]["privacy_score"] is not None  # the scores stay
    finally:
        store.close()
    # veil trace show says so instead of showing nothing
    show = subprocess.run([sys.executable, "-m", "veil", "trace", "show", runs[0]["run_id"]], env={**env, "COLUMNS": "200"},
                          capture_output=True, text=True, timeout=60)
    assert show.returncode == 0, show.stderr
    assert "not stored (store-text none)" in show.stdout and "--store-text full" in show.stdout


def test_store_text_full_and_hash(scripted_llm, tmp_path, db_path, capsys, monkeypatch):
    monkeypatch.delenv("VEIL_STORE_TEXT")
    monkeypatch.setenv("COLUMNS", "200")
    llm = scripted_llm(world())
    src = tmp_path / "bio.txt"
    src.write_text(FISHBACK.text, encoding="utf-8")
    for mode in ("full", "hash"):
        db = tmp_path / mode / "veil.db"
        assert main(["anonymize", str(src), "--store-text", mode, *llm_args(llm, db)]) == 0
        capsys.readouterr()
        store = MemoryStore(db)
        try:
            run_id = store.list_runs()[0]["run_id"]
            its = store.iterations(run_id)
            if mode == "full":
                assert its[0]["text"] == FISHBACK.text and store.get_run(run_id)["text_stored"] == "full"
            else:
                import hashlib

                assert its[0]["text"] == "sha256:" + hashlib.sha256(FISHBACK.text.encode()).hexdigest()
                assert FISHBACK.marker.encode() not in db.read_bytes()
        finally:
            store.close()
        assert main(["trace", "show", run_id, "--db", str(db)]) == 0
        out = capsys.readouterr().out
        assert (FISHBACK.marker in out) == (mode == "full")
        assert ("not stored (store-text hash" in out) == (mode == "hash")


def test_trace_page_degrades_when_text_was_not_stored():
    from veil.server.trace_page import render_trace

    run = {"run_id": "run-x", "status": "done", "config": {"k": 10}, "result": {}, "text_stored": "none"}
    its = [{"iteration": 0, "mode": None, "text": "", "diff": None, "privacy_score": 1, "k": 10, "utility_score": 0.9,
            "clues": [], "edits": [], "prompt_tokens": 0, "completion_tokens": 0, "latency_ms": 0}]
    page = render_trace(run, its)
    assert "were not stored (store-text none)" in page and '<div class="text' not in page
    assert "were not stored" not in render_trace({**run, "text_stored": "full"}, its)


def test_purge_runs_and_their_checkpoints(scripted_llm, tmp_path, db_path, capsys):
    """Issue 11: there was no purge."""
    from tests.test_cli import BIOS, bio_records, write_jsonl
    from veil.testing.scripted_llm import Fault

    script = world()
    optimizer = script.optimizer
    script.optimizer = lambda t: Fault(status=400) if BIOS["duarte"].marker in t else optimizer(t)
    llm = scripted_llm(script)
    records = [r for r in bio_records() if r["id"] != "doc-lindqvist"]
    src = write_jsonl(tmp_path / "in.jsonl", records)
    assert main(["anonymize", str(src), "-o", str(tmp_path / "out.jsonl"), "--id-field", "id", "--name-field", "person",
                 *llm_args(llm, db_path)]) == 1
    capsys.readouterr()
    store = MemoryStore(db_path)
    runs = {r["doc_id"].removeprefix("doc-"): r["run_id"] for r in store.list_runs()}
    store.close()
    assert set(runs) == {"fishback", "duarte", "okafor"}

    def threads() -> set[str]:
        with sqlite3.connect(checkpoint_path(db_path)) as conn:
            return {r[0] for r in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")}

    assert threads() == {runs["duarte"]}  # a failed run keeps its checkpoints for the retry; done ones are pruned

    for bad, expect in [([], "one of them"), (["--all", runs["okafor"]], "one of them"),
                        (["--older-than", "soon"], "expected a number and a unit"), (["run-nope"], "no run 'run-nope'")]:
        assert main(["purge", *bad, "--db", str(db_path)]) == 2
        assert expect in capsys.readouterr().err

    assert main(["purge", runs["duarte"], "--db", str(db_path)]) == 0
    assert "purged 1 run(s) and the checkpoints of 1 thread(s)" in capsys.readouterr().out
    assert threads() == set()
    assert main(["trace", "show", runs["duarte"], "--db", str(db_path)]) == 1  # gone
    capsys.readouterr()

    assert main(["purge", "--older-than", "1h", "--db", str(db_path)]) == 0  # nothing that old
    assert "purged 0 run(s)" in capsys.readouterr().out
    time.sleep(1.1)
    assert main(["purge", "--older-than", "1s", "--db", str(db_path)]) == 0
    assert "purged 2 run(s)" in capsys.readouterr().out
    assert main(["purge", "--all", "--db", str(db_path)]) == 0
    assert "purged 0 run(s)" in capsys.readouterr().out
    store = MemoryStore(db_path)
    assert store.list_runs() == []
    store.close()
