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
