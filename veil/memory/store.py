"""Memory of edits: SQLite tables of runs and of their iterations.

Per document and iteration it keeps the text, a diff against the previous text, the privacy
and utility scores, the clues, the mode, tokens and latency. The optimizer reads the last N
entries of its run; ``veil trace show`` and the trace page read all of them. It lives in one
SQLite file next to LangGraph's checkpoints, so it survives a restart.

Many processes, one home: every connection to either file (:func:`connect`,
:func:`open_checkpointer`) uses WAL mode (readers never block the writer) and waits up to
``BUSY_TIMEOUT_S`` for another process's write instead of failing with "database is locked",
so a CLI run, ``veil serve`` and ``veil trace`` can share ``$VEIL_HOME``. Database files are
created readable by their owner only (0600), in a home folder created 0700, and deleted rows
are overwritten (``secure_delete``).

Nothing kept in the clear that need not be: the texts of a run (every iteration's text, its
diff, the attacker's clues, the optimizer's edits) are needed while it runs (the optimizer's
memory) and are scrubbed when it finishes, as ``store_text`` says (``$VEIL_STORE_TEXT``,
``--store-text``): ``none`` (the default) keeps no text, ``hash`` a sha256 of each text,
``full`` everything. The ground truth a run protected (name, attributes) is kept only with
``full``. A failed run keeps its texts for its retry until it succeeds or ``veil purge``.

The stdlib ``sqlite3`` is used directly (not an ORM) because the schema is two tables and
every access is a short indexed query; calls are serialised by a lock so one store can be
shared by the concurrent documents of a batch.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import sqlite3
import threading
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

from veil.agents.base import MemoryEntry

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id      TEXT PRIMARY KEY,
    doc_id      TEXT,
    owner       TEXT,
    kind        TEXT NOT NULL DEFAULT 'anonymize',
    status      TEXT NOT NULL,
    config      TEXT,
    result      TEXT,
    error       TEXT,
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL,
    text_stored TEXT
);
CREATE TABLE IF NOT EXISTS iterations (
    run_id            TEXT NOT NULL,
    iteration         INTEGER NOT NULL,
    mode              TEXT,
    text              TEXT NOT NULL,
    diff              TEXT,
    privacy_score     INTEGER,
    k                 INTEGER,
    utility_score     REAL,
    clues             TEXT,
    edits             TEXT,
    prompt_tokens     INTEGER DEFAULT 0,
    completion_tokens INTEGER DEFAULT 0,
    latency_ms        REAL DEFAULT 0,
    created_at        REAL NOT NULL,
    PRIMARY KEY (run_id, iteration)
);
CREATE INDEX IF NOT EXISTS runs_owner ON runs(owner, created_at);
"""
# columns added since the first schema, for databases made before them: (table, column, definition)
MIGRATIONS = (("runs", "text_stored", "TEXT"),)

STORE_TEXT = ("none", "hash", "full")


def default_store_text() -> str:
    value = (os.environ.get("VEIL_STORE_TEXT") or "none").strip().lower()
    if value not in STORE_TEXT:
        from veil.errors import UserInputError

        raise UserInputError(f"VEIL_STORE_TEXT={value!r}: expected one of {', '.join(STORE_TEXT)}")
    return value


def text_hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def default_home() -> Path:
    return Path(os.environ.get("VEIL_HOME") or Path.home() / ".veil")


def default_db_path() -> Path:
    return default_home() / "veil.db"


BUSY_TIMEOUT_S = 60.0  # how long a write waits for another process's write


def create_private(path: Path) -> None:
    """Create the database file (and its folder) readable by its owner only, before SQLite
    opens it: SQLite gives its -wal and -shm files the database file's mode. An existing file
    is left as it is."""
    if not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not path.exists():
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            pass


def connect(path: str | Path) -> sqlite3.Connection:
    """A connection to a veil database: created 0600, WAL mode, a busy timeout."""
    path = Path(path)
    create_private(path)
    conn = sqlite3.connect(path, check_same_thread=False, timeout=BUSY_TIMEOUT_S)
    conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA secure_delete=ON")
    return conn


@asynccontextmanager
async def open_checkpointer(path: str | Path) -> AsyncIterator[Any]:
    """LangGraph's ``AsyncSqliteSaver`` on ``path``, on a connection made like :func:`connect`
    (``AsyncSqliteSaver.from_conn_string`` waits 5 s for a lock and starts in rollback mode)."""
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path = Path(path)
    create_private(path)
    async with aiosqlite.connect(str(path), timeout=BUSY_TIMEOUT_S) as conn:
        await conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
        await conn.execute("PRAGMA journal_mode=WAL")
        await conn.execute("PRAGMA secure_delete=ON")
        yield AsyncSqliteSaver(conn)


def unified_diff(before: str, after: str) -> str:
    """Word-level diff in a compact form: ``[-old-]{+new+}`` (git's --word-diff style)."""
    a, b = before.split(), after.split()
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(" ".join(a[i1:i2]))
        else:
            if i2 > i1:
                out.append("[-" + " ".join(a[i1:i2]) + "-]")
            if j2 > j1:
                out.append("{+" + " ".join(b[j1:j2]) + "+}")
    return " ".join(x for x in out if x)


class MemoryStore:
    def __init__(self, path: str | Path | None = None, *, store_text: str | None = None):
        self.path = Path(path) if path else default_db_path()
        self._store_text = store_text
        self.store_text  # noqa: B018 - a bad value fails here, not when a run finishes
        self._lock = threading.Lock()
        self._conn = connect(self.path)
        self._conn.row_factory = sqlite3.Row
        with self._lock:
            self._conn.executescript(SCHEMA)
            for table, column, definition in MIGRATIONS:
                if column not in {r["name"] for r in self._conn.execute(f"PRAGMA table_info({table})")}:
                    try:
                        self._conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")
                    except sqlite3.OperationalError as e:  # another process added it just now
                        if "duplicate column" not in str(e):
                            raise
            self._conn.commit()

    @property
    def store_text(self) -> str:
        """none | hash | full: as set, else ``$VEIL_STORE_TEXT`` (read when a run finishes)."""
        value = self._store_text or default_store_text()
        if value not in STORE_TEXT:
            raise ValueError(f"store_text must be one of {STORE_TEXT}")
        return value

    @store_text.setter
    def store_text(self, value: str | None) -> None:
        self._store_text = value

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # -- runs ----------------------------------------------------------------------------
    def create_run(
        self, run_id: str, *, doc_id: str | None, config: dict[str, Any], owner: str | None = None, kind: str = "anonymize"
    ) -> None:
        now = time.time()
        with self._lock:
            self._conn.execute(
                "INSERT OR IGNORE INTO runs(run_id, doc_id, owner, kind, status, config, created_at, updated_at)"
                " VALUES (?,?,?,?,?,?,?,?)",
                (run_id, doc_id, owner, kind, "running", json.dumps(config), now, now),
            )
            self._conn.commit()

    def finish_run(self, run_id: str, *, result: dict[str, Any] | None = None, error: str | None = None) -> None:
        """Record the outcome. A run that is done has its texts scrubbed as ``store_text`` says
        (a failed one keeps them for its retry)."""
        status = "failed" if error else "done"
        stored = "full"
        with self._lock:
            if status == "done" and self.store_text != "full":
                self._scrub(run_id)
                stored = self.store_text
                if result is not None and result.get("protected"):
                    result = {**result, "protected": self._redacted(result["protected"])}
            self._conn.execute(
                "UPDATE runs SET status=?, result=?, error=?, text_stored=?, updated_at=? WHERE run_id=?",
                (status, json.dumps(result) if result is not None else None, error, stored, time.time(), run_id),
            )
            self._conn.commit()

    def _scrub(self, run_id: str) -> None:
        """Replace the texts of a run's iterations (none: empty, hash: their sha256) and drop
        their diffs, clues and edits (fragments of the text). Call under the lock."""
        rows = self._conn.execute("SELECT iteration, text FROM iterations WHERE run_id=?", (run_id,)).fetchall()
        for r in rows:
            text = "" if self.store_text == "none" else text_hash(r["text"] or "")
            self._conn.execute(
                "UPDATE iterations SET text=?, diff=NULL, clues='[]', edits='[]' WHERE run_id=? AND iteration=?",
                (text, run_id, r["iteration"]),
            )

    def _redacted(self, protected: dict[str, Any]) -> dict[str, Any]:
        if self.store_text == "none":
            return {k: "(not stored)" for k in protected}
        return {k: text_hash(json.dumps(v, sort_keys=True, ensure_ascii=False)) for k, v in protected.items()}

    # -- purge ---------------------------------------------------------------------------
    def run_ids(self, *, older_than: float | None = None) -> list[str]:
        """Every run id, or those created before the epoch time ``older_than``."""
        q, args = "SELECT run_id FROM runs", ()
        if older_than is not None:
            q, args = q + " WHERE created_at < ?", (older_than,)
        with self._lock:
            return [r["run_id"] for r in self._conn.execute(q, args).fetchall()]

    def delete_runs(self, run_ids: list[str]) -> int:
        """Delete runs and their iterations; returns how many runs were deleted."""
        n = 0
        with self._lock:
            for i in range(0, len(run_ids), 500):
                chunk = run_ids[i : i + 500]
                marks = ",".join("?" * len(chunk))
                self._conn.execute(f"DELETE FROM iterations WHERE run_id IN ({marks})", chunk)
                n += self._conn.execute(f"DELETE FROM runs WHERE run_id IN ({marks})", chunk).rowcount
            self._conn.commit()
        return n

    def vacuum(self) -> None:
        """Give the freed pages back to the file system (the file shrinks)."""
        with self._lock:
            self._conn.execute("VACUUM")

    def get_run(self, run_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._conn.execute("SELECT * FROM runs WHERE run_id=?", (run_id,)).fetchone()
        if row is None:
            return None
        d = dict(row)
        for key in ("config", "result"):
            d[key] = json.loads(d[key]) if d[key] else None
        return d

    def list_runs(self, owner: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        q = "SELECT run_id, doc_id, kind, status, created_at, updated_at FROM runs"
        args: tuple[Any, ...] = ()
        if owner is not None:
            q += " WHERE owner=?"
            args = (owner,)
        q += " ORDER BY created_at DESC LIMIT ?"
        with self._lock:
            return [dict(r) for r in self._conn.execute(q, (*args, limit)).fetchall()]

    # -- iterations ----------------------------------------------------------------------
    def add_iteration(
        self,
        run_id: str,
        iteration: int,
        *,
        text: str,
        mode: str | None,
        privacy_score: int | None,
        k: int | None,
        utility_score: float | None,
        clues: list[str],
        edits: list[dict[str, Any]] | None = None,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        latency_ms: float = 0.0,
    ) -> None:
        prev = self._previous_text(run_id, iteration)
        diff = unified_diff(prev, text) if prev is not None else None
        with self._lock:
            # REPLACE: a run resumed from its checkpoint may redo the iteration it was in
            self._conn.execute(
                "INSERT OR REPLACE INTO iterations(run_id, iteration, mode, text, diff, privacy_score, k,"
                " utility_score, clues, edits, prompt_tokens, completion_tokens, latency_ms, created_at)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    run_id,
                    iteration,
                    mode,
                    text,
                    diff,
                    privacy_score,
                    k,
                    utility_score,
                    json.dumps(clues),
                    json.dumps(edits or []),
                    prompt_tokens,
                    completion_tokens,
                    latency_ms,
                    time.time(),
                ),
            )
            self._conn.commit()

    def _previous_text(self, run_id: str, iteration: int) -> str | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT text FROM iterations WHERE run_id=? AND iteration<? ORDER BY iteration DESC LIMIT 1",
                (run_id, iteration),
            ).fetchone()
        return row["text"] if row else None

    def iterations(self, run_id: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT * FROM iterations WHERE run_id=? ORDER BY iteration", (run_id,)
            ).fetchall()
        out = []
        for r in rows:
            d = dict(r)
            d["clues"] = json.loads(d["clues"] or "[]")
            d["edits"] = json.loads(d["edits"] or "[]")
            out.append(d)
        return out

    def recent(self, run_id: str, n: int = 3) -> list[MemoryEntry]:
        """The last ``n`` iterations of a run, oldest first: what the optimizer remembers."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT iteration, text, privacy_score, utility_score, mode, clues FROM iterations"
                " WHERE run_id=? ORDER BY iteration DESC LIMIT ?",
                (run_id, n),
            ).fetchall()
        return [
            MemoryEntry(
                iteration=r["iteration"],
                text=r["text"],
                privacy_score=r["privacy_score"],
                utility_score=r["utility_score"],
                mode=r["mode"],
                clues=json.loads(r["clues"] or "[]"),
            )
            for r in reversed(rows)
        ]


def checkpoint_path(db_path: str | Path | None = None) -> Path:
    """LangGraph checkpoints live beside the memory, in their own file (their own connection)."""
    p = Path(db_path) if db_path else default_db_path()
    return p.with_name(p.stem + "-checkpoints.db")
