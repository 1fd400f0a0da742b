"""Many workers, one PostgreSQL database (issue 11 item 5): ``--db postgresql://…`` / ``$VEIL_DB``
keeps the memory (runs, iterations) and LangGraph's checkpoints (``AsyncPostgresSaver``) in a
real PostgreSQL server that tests/pg.py starts on loopback (skipped, saying why, without the
server binaries or the ``postgres`` extra). The resume tests run on both backends (``any_db``);
the others check that the Postgres path keeps the SQLite path's promises: no text kept by
default, checkpoints pruned when a run completes, ``veil purge``, two processes at once, clear
one-line errors, and a URL's password never printed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

from tests.conftest import BIOS, AgentScript, llm_settings, optimizer_answer
from tests.pg import any_db, pg_url, postgres_server  # noqa: F401 - fixtures
from tests.test_anonymize_graph import reidentify_while
from tests.test_cli import FISHBACK, VEIL, bio_records, llm_args, read_jsonl, requests_about, world, write_jsonl
from veil.cli import main
from veil.memory.store import MemoryStore, checkpoint_path, display_db

ROOT = Path(__file__).resolve().parents[1]
MARKERS = [FISHBACK.marker, "Hartley Medal", "Örebro", "Braga", "Kurt Edward Fishback", "Adaeze Okafor"]


def pg_rows(url: str, sql: str, args: tuple = ()) -> list[tuple]:
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute(sql, args).fetchall()


def checkpoint_threads(db: Path | str) -> set[str]:
    if isinstance(db, str):
        return {r[0] for r in pg_rows(db, "SELECT thread_id FROM checkpoints UNION SELECT thread_id FROM checkpoint_writes")}
    import sqlite3

    with sqlite3.connect(checkpoint_path(db)) as conn:
        return {r[0] for r in conn.execute("SELECT thread_id FROM checkpoints UNION SELECT thread_id FROM writes")}


# -- resume, on both backends -------------------------------------------------------------


async def test_failed_run_resumes_from_its_checkpoint(scripted_llm, bios, any_db):
    """The optimizer fails hard mid-run; the same run id resumes from its checkpoint without
    re-evaluating the version already evaluated; once done, its checkpoints are deleted."""
    from veil.anonymizer import Anonymizer
    from veil.graphs.anonymize import AnonymizeConfig
    from veil.testing.scripted_llm import Fault

    bio = bios["fishback"]
    broken = {"on": True}

    def optimizer(text):
        return Fault(status=500) if broken["on"] else optimizer_answer(text.replace("Sacramento", "California"))

    llm = scripted_llm(AgentScript(identity=reidentify_while(bio.marker, bio.name), optimizer=optimizer))
    config = AnonymizeConfig(max_iterations=3)
    async with Anonymizer("llm", config=config, llm=llm_settings(llm, max_retries=0), db_path=any_db) as anon:
        first = await anon.anonymize(bio.document(), run_id="run-resume")
    assert first.status == "failed"
    assert len(llm.requests_for("IdentityAnswer")) == 1
    assert checkpoint_threads(any_db) == {"run-resume"}  # kept for the retry

    broken["on"] = False
    async with Anonymizer("llm", config=config, llm=llm_settings(llm, max_retries=0), db_path=any_db) as anon:
        second = await anon.anonymize(bio.document(), run_id="run-resume")
    assert second.status == "done", second.error
    assert "California" in second.anonymized_text
    assert len(llm.requests_for("IdentityAnswer")) == 2  # the original was not evaluated again
    store = MemoryStore(any_db)
    try:
        assert [it["iteration"] for it in store.iterations("run-resume")] == [0, 1]
        assert store.get_run("run-resume")["status"] == "done"
    finally:
        store.close()
    assert checkpoint_threads(any_db) == set()  # done: pruned


def test_kill_9_mid_batch_resumes_the_same_runs(scripted_llm, tmp_path, any_db, capsys):
    """A real ``veil`` process is killed (-9) while document 3 of 4 hangs on the LLM; the same
    command then finishes the batch: documents 1 and 2 are not redone, and document 3 goes on
    as the run the killed process had started in the database."""
    bios = list(BIOS.values())
    hang = threading.Event()
    llm = scripted_llm(world(hang=hang, hang_marker=bios[2].marker))
    records = bio_records()
    src = write_jsonl(tmp_path / "in.jsonl", records)
    dst, partial = tmp_path / "out.jsonl", tmp_path / "out.jsonl.partial"
    argv = ["anonymize", str(src), "-o", str(dst), "--id-field", "id", "--name-field", "person", "--concurrency", "1",
            *llm_args(llm, any_db)]
    proc = subprocess.Popen([VEIL, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=os.environ.copy())
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if (partial.exists() and len(partial.read_text(encoding="utf-8").splitlines()) >= 3
                    and requests_about(llm, bios[2]) >= 1):  # header + 2 done, document 3 at the endpoint
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()[1]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    store = MemoryStore(any_db)
    try:
        started = {r["doc_id"]: r for r in store.list_runs()}
    finally:
        store.close()
    assert started["doc-lindqvist"]["status"] == "running"  # killed mid-run
    before = {b.id: requests_about(llm, b) for b in bios}

    hang.set()
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 0, err
    assert "resuming: 2 of 4 documents already done" in err
    after = {b.id: requests_about(llm, b) for b in bios}
    assert after["fishback"] == before["fishback"] and after["okafor"] == before["okafor"]
    rows = read_jsonl(dst)
    assert [r["id"] for r in rows] == [r["id"] for r in records]
    assert all(r["anonymized_text"] and "error" not in r for r in rows)
    assert rows[2]["run_id"] == started["doc-lindqvist"]["run_id"]  # the same run, resumed
    store = MemoryStore(any_db)
    try:
        assert store.get_run(rows[2]["run_id"])["status"] == "done"
        assert len(store.list_runs()) == 4
    finally:
        store.close()
    assert checkpoint_threads(any_db) == set()


# -- the Postgres path keeps the SQLite path's promises -------------------------------------


def test_default_run_keeps_no_text_prunes_checkpoints_and_never_shows_the_password(scripted_llm, tmp_path, pg_url):
    """``$VEIL_DB=postgresql://…``, a real ``veil anonymize`` process at DEBUG with the default
    --store-text (none): no input text in the logs or in any row of the database, no
    checkpoint left, and the URL's password printed nowhere."""
    password = pg_url.split("://", 1)[1].split("@", 1)[0].split(":", 1)[1]
    llm = scripted_llm(world())
    src = write_jsonl(tmp_path / "in.jsonl", bio_records())
    env = {**os.environ, "VEIL_HOME": str(tmp_path / "home"), "VEIL_DB": pg_url, "VEIL_LOG_LEVEL": "DEBUG",
           "PYTHONPATH": str(ROOT)}
    env.pop("VEIL_STORE_TEXT", None)
    cmd = [sys.executable, "-m", "veil", "anonymize", str(src), "-o", str(tmp_path / "out.jsonl"), "--id-field", "id",
           "--name-field", "person", "--engine", "llm", "--base-url", llm.base_url, "--model", "m", "--no-progress"]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr
    assert '"level": "debug"' in p.stderr
    for m in [*MARKERS, password]:
        assert m not in p.stderr and m not in p.stdout, f"{m!r} in the output"
    assert not (tmp_path / "home" / "veil.db").exists()  # nothing went to SQLite
    # every visible row of every table of the database, as text (bytea blobs included)
    tables = [r[0] for r in pg_rows(pg_url, "SELECT tablename FROM pg_tables WHERE schemaname='public'")]
    assert {"runs", "iterations", "checkpoints", "checkpoint_blobs", "checkpoint_writes"} <= set(tables)
    for table in tables:
        dump = "\n".join(r[0] for r in pg_rows(pg_url, f"SELECT t::text FROM {table} t"))
        for m in MARKERS:
            assert m not in dump and m.encode().hex() not in dump, f"{m!r} stored in {table}"
    for table in ("checkpoints", "checkpoint_blobs", "checkpoint_writes"):
        assert pg_rows(pg_url, f"SELECT COUNT(*) FROM {table}")[0][0] == 0, table  # pruned
    store = MemoryStore(pg_url)
    try:
        runs = store.list_runs()
        assert len(runs) == 4 and all(r["status"] == "done" for r in runs)
        run = store.get_run(runs[0]["run_id"])
        assert run["text_stored"] == "none" and set(run["result"]["protected"].values()) == {"(not stored)"}
        its = store.iterations(runs[0]["run_id"])
        assert its and all(it["text"] == "" and it["clues"] == [] and it["diff"] is None for it in its)
        assert its[0]["privacy_score"] is not None and isinstance(its[0]["utility_score"], float)
    finally:
        store.close()
    show = subprocess.run([sys.executable, "-m", "veil", "trace", "show", runs[0]["run_id"]],
                          env={**env, "COLUMNS": "200"}, capture_output=True, text=True, timeout=60)
    assert show.returncode == 0, show.stderr
    assert "not stored (store-text none)" in show.stdout


def test_store_text_full_and_hash(scripted_llm, tmp_path, pg_url, capsys, monkeypatch):
    import hashlib

    monkeypatch.delenv("VEIL_STORE_TEXT")
    src = tmp_path / "bio.txt"
    src.write_text(FISHBACK.text, encoding="utf-8")
    llm = scripted_llm(world())
    for mode in ("full", "hash"):
        assert main(["anonymize", str(src), "--store-text", mode, *llm_args(llm, pg_url)]) == 0
        capsys.readouterr()
        store = MemoryStore(pg_url)
        try:
            run_id = store.list_runs()[0]["run_id"]
            its = store.iterations(run_id)
            assert store.get_run(run_id)["text_stored"] == mode
            if mode == "full":
                assert its[0]["text"] == FISHBACK.text and its[0]["clues"]
            else:
                assert its[0]["text"] == "sha256:" + hashlib.sha256(FISHBACK.text.encode()).hexdigest()
                assert not pg_rows(pg_url, "SELECT 1 FROM iterations WHERE run_id=%s AND text LIKE %s",
                                   (run_id, f"%{FISHBACK.marker}%"))
        finally:
            store.close()


def test_purge_runs_and_their_checkpoints(scripted_llm, tmp_path, pg_url, capsys):
    from veil.testing.scripted_llm import Fault

    script = world()
    optimizer = script.optimizer
    script.optimizer = lambda t: Fault(status=400) if BIOS["duarte"].marker in t else optimizer(t)
    llm = scripted_llm(script)
    records = [r for r in bio_records() if r["id"] != "doc-lindqvist"]
    src = write_jsonl(tmp_path / "in.jsonl", records)
    assert main(["anonymize", str(src), "-o", str(tmp_path / "out.jsonl"), "--id-field", "id", "--name-field", "person",
                 *llm_args(llm, pg_url)]) == 1
    capsys.readouterr()
    store = MemoryStore(pg_url)
    runs = {r["doc_id"].removeprefix("doc-"): r["run_id"] for r in store.list_runs()}
    store.close()
    assert set(runs) == {"fishback", "duarte", "okafor"}
    assert checkpoint_threads(pg_url) == {runs["duarte"]}  # a failed run keeps its checkpoints for the retry

    assert main(["purge", "run-nope", "--db", pg_url]) == 2
    err = capsys.readouterr().err
    assert "no run 'run-nope'" in err and display_db(pg_url) in err and pg_url not in err
    assert main(["purge", runs["duarte"], "--db", pg_url]) == 0
    out = capsys.readouterr().out
    assert "purged 1 run(s) and the checkpoints of 1 thread(s)" in out and pg_url not in out
    assert checkpoint_threads(pg_url) == set()
    assert pg_rows(pg_url, "SELECT COUNT(*) FROM checkpoint_blobs")[0][0] == 0
    assert main(["trace", "show", runs["duarte"], "--db", pg_url]) == 1  # gone
    capsys.readouterr()

    assert main(["purge", "--older-than", "1h", "--db", pg_url]) == 0  # nothing that old
    assert "purged 0 run(s)" in capsys.readouterr().out
    time.sleep(1.1)
    assert main(["purge", "--older-than", "1s", "--db", pg_url]) == 0
    assert "purged 2 run(s)" in capsys.readouterr().out
    assert main(["purge", "--all", "--db", pg_url]) == 0
    assert "purged 0 run(s)" in capsys.readouterr().out
    assert pg_rows(pg_url, "SELECT COUNT(*) FROM runs")[0][0] == 0
    assert pg_rows(pg_url, "SELECT COUNT(*) FROM iterations")[0][0] == 0


WRITER = textwrap.dedent('''
    import asyncio, sys, time
    from pathlib import Path
    from veil.memory.store import MemoryStore, open_checkpointer

    url, name, n, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
    while not go.exists():  # start together: both create the schema of a fresh database at once
        time.sleep(0.005)

    async def checkpoints():
        async with open_checkpointer(url) as saver:  # both run the checkpointer's setup() at once
            for i in range(n):
                config = {"configurable": {"thread_id": f"{name}-{i}", "checkpoint_ns": ""}}
                await saver.aput_writes(
                    {"configurable": {**config["configurable"], "checkpoint_id": "c"}}, [("x", i)], "task")

    store = MemoryStore(url)
    asyncio.run(checkpoints())
    for i in range(n):
        run = f"{name}-{i}"
        store.create_run(run, doc_id=str(i), config={})
        store.add_iteration(run, 0, text="t", mode=None, privacy_score=1, k=10, utility_score=1.0, clues=[])
        store.finish_run(run, result={"ok": True})
    store.close()
    print("ok")
''')


def test_two_workers_share_one_database_from_the_start(tmp_path, pg_url):
    """Two processes start together on an empty database: both create the memory's schema and
    run the checkpointer's migrations (serialised by advisory locks), then write at once."""
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    n = 100
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, pg_url, name, str(n), str(go)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for name in ("a", "b")]
    time.sleep(1.5)
    go.touch()
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0 and out.strip() == "ok", err
    store = MemoryStore(pg_url)
    try:
        runs = store.list_runs(limit=10_000)
        assert len(runs) == 2 * n and all(r["status"] == "done" for r in runs)
    finally:
        store.close()
    assert pg_rows(pg_url, "SELECT COUNT(DISTINCT thread_id) FROM checkpoint_writes")[0][0] == 2 * n
    from langgraph.checkpoint.postgres.base import BasePostgresSaver

    versions = [r[0] for r in pg_rows(pg_url, "SELECT v FROM checkpoint_migrations ORDER BY v")]
    assert versions == list(range(len(BasePostgresSaver.MIGRATIONS)))  # each migration once


def test_a_bad_database_url_is_a_one_line_error_without_the_password(tmp_path, postgres_server, capsys):
    bad_password = f"postgresql://veil:not-the-password@127.0.0.1:{postgres_server.port}/postgres"
    for url in (bad_password, "postgresql://veil:s3cret@127.0.0.1:9/veil"):  # wrong password; nothing listening
        rc = main(["trace", "list", "--db", url])
        err = capsys.readouterr().err
        assert rc == 2, err
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert "cannot use the database postgresql://veil:***@127.0.0.1" in err
        assert "not-the-password" not in err and "s3cret" not in err
    assert display_db("postgresql://u:p%40ss@h:5/db?sslmode=require&password=x") == \
        "postgresql://u:***@h:5/db?sslmode=require&password=***"
    assert display_db(tmp_path / "veil.db") == str(tmp_path / "veil.db")


def test_a_nul_character_fails_its_document_only(scripted_llm, tmp_path, pg_url, capsys):
    """PostgreSQL's text and jsonb cannot hold U+0000 (SQLite can): a JSONL record with one is
    that document's error on this backend, and the rest of the batch is saved."""
    records = bio_records()[:2]
    records[1]["text"] = records[1]["text"].replace("chemist", "chem\u0000ist")
    src = write_jsonl(tmp_path / "in.jsonl", records)
    dst = tmp_path / "out.jsonl"
    rc = main(["anonymize", str(src), "-o", str(dst), "--id-field", "id", "--name-field", "person",
               *llm_args(scripted_llm(world()), pg_url)])
    err = capsys.readouterr().err
    rows = read_jsonl(dst)
    assert rc == 1, err
    assert rows[0]["anonymized_text"] and "error" not in rows[0]
    assert "contains a NUL character" in rows[1]["error"] and "Traceback" not in err


def test_an_audit_is_checkpointed_in_postgres_and_purged_with_all(tmp_path, pg_url, capsys):
    """`veil audit --db postgresql://…`: its checkpoints (which cache its report) go to the same
    database; a rerun returns the stored report; `veil purge --all` deletes them."""
    from tests.test_audit import CLAIMS, ORIGINALS, SANITIZED

    def write(path: Path, rows: list) -> Path:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        return path

    orig = write(tmp_path / "o.jsonl", [{"text": o} for o in ORIGINALS])
    san = write(tmp_path / "s.jsonl", [{"anonymized_text": s} for s in SANITIZED])
    claims = write(tmp_path / "claims.jsonl", CLAIMS)
    argv = ["audit", "--original", str(orig), "--sanitized", str(san), "--claims", str(claims), "--judge", "none",
            "-o", str(tmp_path / "r.json"), "--db", pg_url, "--no-progress"]
    assert main(argv) == 0, capsys.readouterr().err
    first = json.loads((tmp_path / "r.json").read_text())
    assert len(checkpoint_threads(pg_url)) == 1 and not (tmp_path / "veil-home" / "veil.db").exists()
    assert main(argv) == 0, capsys.readouterr().err
    second = json.loads((tmp_path / "r.json").read_text())
    assert second.get("cached") is True and second["lexical_privacy"] == first["lexical_privacy"]
    capsys.readouterr()
    assert main(["purge", "--all", "--db", pg_url]) == 0
    assert "the checkpoints of 1 thread(s)" in capsys.readouterr().out
    assert checkpoint_threads(pg_url) == set()


def test_two_servers_share_one_database(pg_url):
    """Two `veil serve` workers (in-process uvicorn apps) on one database: a run made through
    one is read through the other, still scoped to the key that made it, and its trace page
    shows it."""
    import httpx

    from tests.conftest_server import KEY_A, KEY_B, TEXT, responder, running_server
    from veil.testing.scripted_llm import ScriptedLLM

    def h(key: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {key}"}

    with ScriptedLLM(responder) as llm, running_server(llm, pg_url) as one, running_server(llm, pg_url) as two:
        r = httpx.post(one + "/v1/anonymize", headers=h(KEY_A), timeout=60,
                       json={"documents": [{"id": "d", "text": TEXT, "name": "Alice Smith"}],
                             "options": {"max_iterations": 1}})
        assert r.status_code == 200, r.text
        [doc] = r.json()["data"]
        assert doc["status"] == "done" and "Alice" not in doc["anonymized_text"]
        run = httpx.get(f"{two}/v1/runs/{doc['run_id']}", headers=h(KEY_A))
        assert run.status_code == 200 and run.json()["result"]["anonymized_text"] == doc["anonymized_text"]
        assert httpx.get(f"{two}/v1/runs/{doc['run_id']}", headers=h(KEY_B)).status_code == 404
        assert httpx.get(f"{two}/traces/{doc['run_id']}", headers=h(KEY_A)).status_code == 200
    assert checkpoint_threads(pg_url) == set()
