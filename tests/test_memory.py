"""The memory of edits: runs and iterations, persistence across a restart, the window the
optimizer sees (``recent``), word diffs, and the optimizer prompt built from memory. The store
tests run on both backends (``any_db``: SQLite, and a real PostgreSQL server, skipped without
one; see tests/pg.py)."""

from __future__ import annotations

import sqlite3

from tests.conftest import AgentScript, anonymize_docs, identity_answer, optimizer_answer, optimizer_prompts
from tests.pg import any_db, pg_url, postgres_server  # noqa: F401 - fixtures
from veil.agents.base import MemoryEntry
from veil.agents.optimizer import changes, format_memory
from veil.graphs.anonymize import AnonymizeConfig
from veil.memory.store import MemoryStore, checkpoint_path, default_db_path, unified_diff


def add(store: MemoryStore, run_id: str, i: int, text: str, **kw):
    values = dict(mode=None if i == 0 else "privacy", privacy_score=i + 1, k=10, utility_score=0.5, clues=[f"c{i}"])
    values.update(kw)
    store.add_iteration(run_id, i, text=text, **values)


def test_recent_returns_the_last_n_oldest_first(any_db):
    store = MemoryStore(any_db)
    try:
        store.create_run("r1", doc_id="d", config={})
        store.create_run("r2", doc_id="e", config={})
        for i in range(5):
            add(store, "r1", i, f"version {i}")
        add(store, "r2", 0, "other run")
        recent = store.recent("r1", 3)
        assert [m.iteration for m in recent] == [2, 3, 4]
        assert [m.text for m in recent] == ["version 2", "version 3", "version 4"]
        assert recent[0] == MemoryEntry(
            iteration=2, text="version 2", privacy_score=3, utility_score=0.5, mode="privacy", clues=["c2"]
        )
        assert [m.iteration for m in store.recent("r1", 10)] == [0, 1, 2, 3, 4]
        assert store.recent("r1", 0) == []
        assert [m.text for m in store.recent("r2", 3)] == ["other run"]
        assert store.recent("missing", 3) == []
    finally:
        store.close()


def test_iterations_keep_scores_clues_edits_tokens_and_diff(any_db):
    store = MemoryStore(any_db)
    try:
        store.create_run("r", doc_id="d", config={"profile": "identity"})
        add(store, "r", 0, "Born in Sacramento in 1933.", prompt_tokens=10, completion_tokens=4, latency_ms=12.5)
        add(store, "r", 1, "Born in California in 1933.", edits=[{"before": "Sacramento", "after": "California"}],
            prompt_tokens=20, completion_tokens=8)
        its = store.iterations("r")
        assert its[0]["diff"] is None
        assert its[1]["diff"] == "Born in [-Sacramento-] {+California+} in 1933."
        assert its[1]["edits"] == [{"before": "Sacramento", "after": "California"}]
        assert its[1]["clues"] == ["c1"]
        assert (its[0]["prompt_tokens"], its[0]["completion_tokens"], its[0]["latency_ms"]) == (10, 4, 12.5)
        assert its[1]["prompt_tokens"] == 20
        # a resumed run may redo an iteration: it replaces, never duplicates
        add(store, "r", 1, "Born in the West in 1933.")
        assert [it["text"] for it in store.iterations("r")] == ["Born in Sacramento in 1933.", "Born in the West in 1933."]
    finally:
        store.close()


def test_runs_lifecycle(any_db):
    store = MemoryStore(any_db)
    try:
        store.create_run("a", doc_id="d1", config={"k": 3}, owner="alice")
        store.create_run("a", doc_id="ignored", config={})  # idempotent
        store.create_run("b", doc_id="d2", config={}, owner="bob")
        assert store.get_run("a")["status"] == "running"
        assert store.get_run("a")["config"] == {"k": 3}
        store.finish_run("a", result={"anonymized_text": "x"})
        store.finish_run("b", error="boom")
        assert store.get_run("a")["status"] == "done" and store.get_run("a")["result"] == {"anonymized_text": "x"}
        assert store.get_run("b")["status"] == "failed" and store.get_run("b")["error"] == "boom"
        assert [r["run_id"] for r in store.list_runs(owner="alice")] == ["a"]
        assert {r["run_id"] for r in store.list_runs()} == {"a", "b"}
        assert store.get_run("nope") is None
    finally:
        store.close()


def test_unified_diff():
    assert unified_diff("a b c", "a b c") == "a b c"
    assert unified_diff("a b c", "a c") == "a [-b-] c"
    assert unified_diff("a c", "a b c") == "a {+b+} c"
    assert unified_diff("", "new") == "{+new+}"


def test_default_paths_follow_veil_home(tmp_path, monkeypatch):
    monkeypatch.setenv("VEIL_HOME", str(tmp_path / "home"))
    assert default_db_path() == tmp_path / "home" / "veil.db"
    assert checkpoint_path(tmp_path / "x" / "m.db") == tmp_path / "x" / "m-checkpoints.db"
    store = MemoryStore()  # created under VEIL_HOME
    store.close()
    assert (tmp_path / "home" / "veil.db").is_file()


def test_format_memory():
    entries = [
        MemoryEntry(iteration=0, text="Born in Sacramento in the spring.", privacy_score=1, utility_score=0.9, mode=None),
        MemoryEntry(iteration=1, text="Born in California in the spring.", privacy_score=11, utility_score=0.5,
                    mode="privacy"),
    ]
    out = format_memory(entries, k=10, current="Born in California.")
    # scores and the edits to the next version, never an earlier version's whole text
    assert out.splitlines() == [
        'v0 (original; privacy rank 1; utility 90/100): edits: "Sacramento" -> "California"',
        'v1 (privacy; privacy not re-identified; utility 50/100): edits to the current text: deleted "in the spring"',
    ]
    same = format_memory(entries, k=10, current="Born in California in the spring.")
    assert same.splitlines()[-1].endswith("utility 50/100): the current text")
    assert format_memory([], k=10) == "(no earlier versions)"


def test_changes_are_word_level_and_bounded():
    assert changes("a b c", "a b c") == "no change"
    assert changes("a b c", "a x c d") == '"b" -> "x"; added "d"'
    many = changes(" ".join(f"w{i}" for i in range(40)), " ".join(f"w{i}" if i % 4 else "X" for i in range(40)))
    assert many.count("->") == 8 and many.endswith("; 2 more")
    assert changes("a " + "long " * 30, "a")[:-1].endswith("…")


async def test_memory_survives_a_restart(scripted_llm, bios, any_db):
    bio = bios["fishback"]
    n = {"i": 0}

    def optimizer(text):
        n["i"] += 1
        return optimizer_answer(f"{text} [v{'abcd'[n['i'] - 1]}]")  # no digits: the guards reject invented numbers

    llm = scripted_llm(AgentScript(identity=lambda t: identity_answer(bio.name, clues=["photographer"]),
                                   optimizer=optimizer))
    [result], anon = await anonymize_docs(llm, [bio.document()], any_db, AnonymizeConfig(max_iterations=4))
    assert result.iterations == 4
    # everything is closed now: the Anonymizer closed its store; a raw connection proves it is stored
    if isinstance(any_db, str):
        import psycopg

        with psycopg.connect(any_db) as raw:
            assert raw.execute("SELECT COUNT(*) FROM iterations WHERE run_id=%s", (result.run_id,)).fetchone()[0] == 5
            assert raw.execute("SELECT COUNT(*) FROM checkpoints").fetchone()[0] == 0  # done: pruned
    else:
        with sqlite3.connect(any_db) as raw:
            assert raw.execute("SELECT COUNT(*) FROM iterations WHERE run_id=?", (result.run_id,)).fetchone()[0] == 5
        raw.close()

    reopened = MemoryStore(any_db)
    try:
        run = reopened.get_run(result.run_id)
        assert run["status"] == "done" and run["doc_id"] == bio.id
        assert run["result"]["anonymized_text"] == result.anonymized_text
        its = reopened.iterations(result.run_id)
        assert [it["iteration"] for it in its] == [0, 1, 2, 3, 4]
        assert its[0]["text"] == bio.text and its[4]["text"].endswith("[vd]")
        assert its[1]["clues"] == ["photographer"]
        assert [m.text[-4:] for m in reopened.recent(result.run_id, 2)] == ["[vc]", "[vd]"]
    finally:
        reopened.close()
    if not isinstance(any_db, str):
        assert checkpoint_path(any_db).is_file()


async def test_optimizer_prompt_contains_earlier_versions_from_memory(scripted_llm, bios, any_db):
    bio = bios["okafor"]
    n = {"i": 0}

    def optimizer(text):
        n["i"] += 1
        return optimizer_answer(f"{text} [v{'abcd'[n['i'] - 1]}]")  # no digits: the guards reject invented numbers

    llm = scripted_llm(AgentScript(identity=lambda t: identity_answer(bio.name), optimizer=optimizer))
    config = AnonymizeConfig(max_iterations=4, memory_window=2)
    await anonymize_docs(llm, [bio.document()], any_db, config)
    prompts = optimizer_prompts(llm)
    assert len(prompts) == 4
    memory_of = [p.split("Earlier versions (oldest first):\n", 1)[1].split("\n\n", 1)[0] for p in prompts]
    # the first call: the original is the current text (the name replaced in both before the model sees them)
    assert memory_of[0].splitlines() == ["v0 (original; privacy rank 1; utility 95/100): the current text"]
    # the window: the last 2 recorded versions, oldest first, as edits; the current text is never repeated
    assert [line.split(" ", 1)[0] for line in memory_of[1].splitlines()] == ["v0", "v1"]
    assert [line.split(" ", 1)[0] for line in memory_of[3].splitlines()] == ["v2", "v3"]
    assert memory_of[3].splitlines()[0] == 'v2 (privacy; privacy rank 1; utility 95/100): edits: added "[vc]"'
    assert memory_of[3].splitlines()[1].endswith("utility 95/100): the current text")
    assert all(bio.name not in m and bio.text[40:80] not in m for m in memory_of)  # no whole version, no name


async def test_memory_window_zero_shows_no_versions(scripted_llm, bios, db_path):
    bio = bios["okafor"]
    llm = scripted_llm(
        AgentScript(identity=lambda t: identity_answer(bio.name), optimizer=lambda t: optimizer_answer(t + " x"))
    )
    await anonymize_docs(llm, [bio.document()], db_path, AnonymizeConfig(max_iterations=2, memory_window=0))
    prompts = optimizer_prompts(llm)
    assert len(prompts) == 2
    assert all("(no earlier versions)" in p for p in prompts)
