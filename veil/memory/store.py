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

Many workers, one database: ``--db postgresql://USER:PASSWORD@HOST/DB`` (or ``$VEIL_DB``) keeps
the same two tables in PostgreSQL (:class:`_Postgres`, psycopg 3 with a connection pool) and the
checkpoints in LangGraph's ``AsyncPostgresSaver`` (:func:`open_checkpointer`), with the same
semantics: ``store_text`` scrubbing, checkpoints deleted when a run completes, ``veil purge``.
It needs the ``postgres`` extra (``pip install 'veil[postgres]'``). The URL's password is never
printed or logged (:func:`display_db`).

The stdlib ``sqlite3`` is used directly (not an ORM) because the schema is two tables and
every access is a short indexed query; calls are serialised by a lock so one store can be
shared by the concurrent documents of a batch. The SQL is written once for both backends
(``INSERT ... ON CONFLICT`` is SQLite >= 3.24 and PostgreSQL); only the placeholders and the
column types of the schema differ.
"""

from __future__ import annotations

import asyncio
import difflib
import hashlib
import json
import os
import re
import sqlite3
import threading
import time
from contextlib import asynccontextmanager, closing, contextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Iterator
from urllib.parse import urlsplit, urlunsplit

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
# PostgreSQL's REAL is 4 bytes (SQLite's is 8): times and scores are DOUBLE PRECISION there
PG_SCHEMA = SCHEMA.replace(" REAL", " DOUBLE PRECISION")
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


def is_postgres(db: Any) -> bool:
    """Whether ``db`` names a PostgreSQL database (a ``postgresql://`` or ``postgres://`` URL)."""
    return isinstance(db, str) and db.startswith(("postgresql://", "postgres://"))


def db_arg(value: str) -> str | Path:
    """``--db``: a PostgreSQL URL as it is, anything else a SQLite file path."""
    return value if is_postgres(value) else Path(value)


def default_db() -> str | Path:
    """``$VEIL_DB`` (a PostgreSQL URL or a SQLite path), else ``$VEIL_HOME/veil.db``."""
    value = (os.environ.get("VEIL_DB") or "").strip()
    return db_arg(value) if value else default_db_path()


def display_db(db: Any) -> str:
    """``db`` as it may be printed or logged: a URL's password is replaced by ``***``."""
    if not is_postgres(db):
        return str(db)
    parts = urlsplit(db)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        if ":" in userinfo:
            netloc = userinfo.split(":", 1)[0] + ":***@" + host
    query = re.sub(r"(?i)(password=)[^&]*", r"\1***", parts.query)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _postgres_modules():
    """psycopg and its pool (and LangGraph's Postgres saver importable), or a clear error naming
    the extra to install."""
    try:
        import langgraph.checkpoint.postgres.aio  # noqa: F401
        import psycopg
        import psycopg_pool
    except ImportError as e:
        from veil.errors import UserInputError

        raise UserInputError(f"a postgresql:// database needs the postgres extra: pip install 'veil[postgres]' ({e})") \
            from e
    return psycopg, psycopg_pool


def _postgres_error(db: str, e: Exception) -> Exception:
    from veil.errors import UserInputError

    reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return UserInputError(f"cannot use the database {display_db(db)}: {reason}")


PG_CONNECT_TIMEOUT_S = 10
# advisory lock keys that serialise schema set-up across processes: the memory's tables, and the
# checkpointer's setup() (its own key: that one builds indexes CONCURRENTLY, which waits for every
# older transaction, so it must never wait on a transaction that waits for its lock)
PG_LOCK_KEY = 0x7665696C  # "veil"
PG_CHECKPOINT_LOCK_KEY = 0x7665696D
PG_SETUP_WAIT_S = 120.0


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


def ensure_wal(path: Path) -> None:
    """Put the database file in WAL mode (a property of the file: once is enough). Two
    processes opening a new database together race for the switch, and SQLite answers the
    loser "database is locked" at once, without its busy handler (CI saw it): retry until the
    busy timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    with closing(sqlite3.connect(path, timeout=BUSY_TIMEOUT_S)) as conn:
        while True:
            try:
                # A file system without shared memory answers another mode: SQLite then
                # keeps its rollback journal, which is correct, only slower.
                conn.execute("PRAGMA journal_mode=WAL").fetchone()
                return
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) and "busy" not in str(e):
                    raise
                if time.monotonic() > deadline:
                    raise
            time.sleep(0.05)


def connect(path: str | Path) -> sqlite3.Connection:
    """A connection to a veil database: created 0600, WAL mode, a busy timeout."""
    path = Path(path)
    create_private(path)
    ensure_wal(path)
    conn = sqlite3.connect(path, check_same_thread=False, timeout=BUSY_TIMEOUT_S)
    conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA secure_delete=ON")
    return conn


@asynccontextmanager
async def open_checkpointer(path: str | Path) -> AsyncIterator[Any]:
    """LangGraph's ``AsyncSqliteSaver`` on ``path``, on a connection made like :func:`connect`
    (``AsyncSqliteSaver.from_conn_string`` waits 5 s for a lock and starts in rollback mode);
    for a ``postgresql://`` URL, LangGraph's ``AsyncPostgresSaver`` (set up, on a pool)."""
    if is_postgres(path):
        async with _open_postgres_checkpointer(str(path)) as saver:
            yield saver
        return
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path = Path(path)
    create_private(path)
    await asyncio.to_thread(ensure_wal, path)
    async with aiosqlite.connect(str(path), timeout=BUSY_TIMEOUT_S) as conn:
        await conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
        await conn.execute("PRAGMA secure_delete=ON")
        yield AsyncSqliteSaver(conn)


@asynccontextmanager
async def _open_postgres_checkpointer(url: str, max_size: int = 8) -> AsyncIterator[Any]:
    """``AsyncPostgresSaver`` on a connection pool (the connection settings its
    ``from_conn_string`` uses: autocommit, no prepared statements, dict rows), after its
    ``setup()`` (tables and migrations), which runs under an advisory lock so that workers
    starting together do not race on the migrations."""
    psycopg, psycopg_pool = _postgres_modules()
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg.rows import dict_row

    kwargs = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    try:
        async with await psycopg.AsyncConnection.connect(url, connect_timeout=PG_CONNECT_TIMEOUT_S, **kwargs) as conn:
            # polled, not waited on in a statement: a waiting statement holds a snapshot that the
            # lock holder's CREATE INDEX CONCURRENTLY would wait for (a deadlock)
            deadline = time.monotonic() + PG_SETUP_WAIT_S
            while not (await (await conn.execute("SELECT pg_try_advisory_lock(%s) AS ok",
                                                 (PG_CHECKPOINT_LOCK_KEY,))).fetchone())["ok"]:
                if time.monotonic() > deadline:
                    raise _postgres_error(url, TimeoutError("another process kept the checkpoint set-up lock"))
                await asyncio.sleep(0.1)
            try:
                await AsyncPostgresSaver(conn).setup()
            finally:
                await conn.execute("SELECT pg_advisory_unlock(%s)", (PG_CHECKPOINT_LOCK_KEY,))
    except psycopg.Error as e:
        raise _postgres_error(url, e) from e
    async with psycopg_pool.AsyncConnectionPool(
        url, min_size=1, max_size=max_size, kwargs={**kwargs, "connect_timeout": PG_CONNECT_TIMEOUT_S},
        check=psycopg_pool.AsyncConnectionPool.check_connection, open=False, name="veil-checkpoints",
    ) as pool:
        yield AsyncPostgresSaver(pool)


async def checkpoint_threads(saver: Any) -> set[str]:
    """The thread ids that have checkpoints or pending writes in ``saver`` (SQLite or Postgres);
    an empty set where its tables do not exist."""
    if hasattr(saver.conn, "connection"):  # a psycopg pool: AsyncPostgresSaver
        async with saver.conn.connection() as conn:
            cur = await conn.execute("SELECT thread_id FROM checkpoints UNION SELECT thread_id FROM checkpoint_writes"
                                     " UNION SELECT thread_id FROM checkpoint_blobs")
            return {row["thread_id"] for row in await cur.fetchall()}
    try:
        cur = await saver.conn.execute("SELECT DISTINCT thread_id FROM checkpoints UNION SELECT DISTINCT thread_id FROM writes")
    except Exception as e:  # noqa: BLE001 - no checkpoint tables in this file
        if "no such table" in str(e):
            return set()
        raise
    return {row[0] for row in await cur.fetchall()}


class _Tx:
    """One transaction's queries: ``?`` placeholders (translated for psycopg), rows as dicts."""

    def __init__(self, execute: Callable[[str, Any], Any], placeholder: str):
        self._execute, self._ph = execute, placeholder

    def run(self, sql: str, args: Any = ()) -> Any:
        return self._execute(sql if self._ph == "?" else sql.replace("?", self._ph), args)

    def all(self, sql: str, args: Any = ()) -> list[dict[str, Any]]:
        return [dict(r) for r in self.run(sql, args).fetchall()]

    def one(self, sql: str, args: Any = ()) -> dict[str, Any] | None:
        row = self.run(sql, args).fetchone()
        return dict(row) if row is not None else None


class _SQLite:
    """The SQLite backend: one connection (:func:`connect`), calls serialised by a lock."""

    def __init__(self, path: Path):
        self._lock = threading.Lock()
        self._conn = connect(path)
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

    @contextmanager
    def tx(self) -> Iterator[_Tx]:
        with self._lock:
            try:
                yield _Tx(self._conn.execute, "?")
                self._conn.commit()
            except BaseException:
                self._conn.rollback()
                raise

    def vacuum(self) -> None:
        with self._lock:
            self._conn.execute("VACUUM")

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class _Postgres:
    """The PostgreSQL backend: a psycopg connection pool (thread-safe; broken connections are
    replaced), one transaction per call. The schema is created under an advisory lock so that
    workers starting together do not race on ``CREATE TABLE``."""

    CHECKPOINT_TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")

    def __init__(self, url: str, max_size: int = 4):
        psycopg, psycopg_pool = _postgres_modules()
        from psycopg.rows import dict_row

        self._url, self._psycopg = url, psycopg
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=PG_CONNECT_TIMEOUT_S) as conn:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (PG_LOCK_KEY,))
                    conn.execute(PG_SCHEMA)
                    for table, column, definition in MIGRATIONS:
                        conn.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} {definition}")
        except psycopg.Error as e:
            raise _postgres_error(url, e) from e
        self._pool = psycopg_pool.ConnectionPool(
            url, min_size=1, max_size=max_size, open=True, name="veil-memory",
            kwargs={"row_factory": dict_row, "connect_timeout": PG_CONNECT_TIMEOUT_S},
            check=psycopg_pool.ConnectionPool.check_connection,
        )

    @contextmanager
    def tx(self) -> Iterator[_Tx]:
        try:
            with self._pool.connection() as conn:  # commits at the end, rolls back on an exception
                yield _Tx(conn.execute, "%s")
        except self._psycopg.DataError as e:
            if "NUL" not in str(e):
                raise
            from veil.errors import UserInputError

            raise UserInputError("the text contains a NUL character (U+0000), which a PostgreSQL database cannot "
                                 "store: remove it, or use a SQLite database (--db PATH)") from e

    def vacuum(self) -> None:
        """VACUUM veil's tables (the checkpointer's too): dead rows become reusable space."""
        with self._psycopg.connect(self._url, autocommit=True, connect_timeout=PG_CONNECT_TIMEOUT_S) as conn:
            for table in ("runs", "iterations", *self.CHECKPOINT_TABLES):
                if conn.execute("SELECT to_regclass(%s)", (table,)).fetchone()[0] is not None:
                    conn.execute(f"VACUUM {table}")

    def close(self) -> None:
        self._pool.close()


_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")


def unified_diff(before: str, after: str) -> str:
    """Word-level diff in a compact form: ``[-old-]{+new+}`` (git's --word-diff style). Sentences
    are matched first and words only within the sentences that changed: a word-level
    SequenceMatcher over a whole book is quadratic."""
    a, b = _SENTENCE_BREAK.split(before.strip()), _SENTENCE_BREAK.split(after.strip())
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(" ".join(" ".join(x.split()) for x in a[i1:i2]))
        else:
            out.append(_word_diff(" ".join(a[i1:i2]), " ".join(b[j1:j2])))
    return " ".join(x for x in out if x)


def _word_diff(before: str, after: str) -> str:
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
    """Runs and their iterations in SQLite (a file path, the default) or PostgreSQL (a
    ``postgresql://`` URL); ``path`` is what may be shown (a URL without its password)."""

    def __init__(self, path: str | Path | None = None, *, store_text: str | None = None):
        db = path if path is not None else default_db()
        self._store_text = store_text
        self.store_text  # noqa: B018 - a bad value fails here, not when a run finishes
        if is_postgres(db):
            self.url: str | None = str(db)
            self.path: Any = display_db(db)
            self._db: Any = _Postgres(self.url)
        else:
            self.url = None
            self.path = Path(db)
            self._db = _SQLite(self.path)

    @property
    def backend(self) -> str:
        return "postgres" if self.url else "sqlite"

    @property
    def checkpoint_db(self) -> str | Path:
        """Where LangGraph's checkpoints go: the same PostgreSQL database, or a SQLite file beside
        this one (:func:`checkpoint_path`)."""
        return self.url if self.url else checkpoint_path(self.path)

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
        self._db.close()

    def __enter__(self) -> "MemoryStore":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- runs ----------------------------------------------------------------------------
    def create_run(
        self, run_id: str, *, doc_id: str | None, config: dict[str, Any], owner: str | None = None, kind: str = "anonymize"
    ) -> None:
        now = time.time()
        with self._db.tx() as db:
            db.run(
                "INSERT INTO runs(run_id, doc_id, owner, kind, status, config, created_at, updated_at)"
                " VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(run_id) DO NOTHING",
                (run_id, doc_id, owner, kind, "running", json.dumps(config), now, now),
            )

    def finish_run(self, run_id: str, *, result: dict[str, Any] | None = None, error: str | None = None) -> None:
        """Record the outcome. A run that is done has its texts scrubbed as ``store_text`` says
        (a failed one keeps them for its retry)."""
        status = "failed" if error else "done"
        stored = "full"
        with self._db.tx() as db:
            if status == "done" and self.store_text != "full":
                self._scrub(db, run_id)
                stored = self.store_text
                if result is not None and result.get("protected"):
                    result = {**result, "protected": self._redacted(result["protected"])}
            db.run(
                "UPDATE runs SET status=?, result=?, error=?, text_stored=?, updated_at=? WHERE run_id=?",
                (status, json.dumps(result) if result is not None else None, error, stored, time.time(), run_id),
            )

    def _scrub(self, db: _Tx, run_id: str) -> None:
        """Replace the texts of a run's iterations (none: empty, hash: their sha256) and drop
        their diffs, clues and edits (fragments of the text), in the caller's transaction."""
        for r in db.all("SELECT iteration, text FROM iterations WHERE run_id=?", (run_id,)):
            text = "" if self.store_text == "none" else text_hash(r["text"] or "")
            db.run(
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
        with self._db.tx() as db:
            return [r["run_id"] for r in db.all(q, args)]

    def delete_runs(self, run_ids: list[str]) -> int:
        """Delete runs and their iterations; returns how many runs were deleted."""
        n = 0
        with self._db.tx() as db:
            for i in range(0, len(run_ids), 500):
                chunk = run_ids[i : i + 500]
                marks = ",".join("?" * len(chunk))
                db.run(f"DELETE FROM iterations WHERE run_id IN ({marks})", chunk)
                n += db.run(f"DELETE FROM runs WHERE run_id IN ({marks})", chunk).rowcount
        return n

    def vacuum(self) -> None:
        """SQLite: give the freed pages back to the file system (the file shrinks). PostgreSQL:
        VACUUM veil's tables and the checkpointer's (dead rows become reusable space)."""
        self._db.vacuum()

    def get_run(self, run_id: str) -> dict[str, Any] | None:
        with self._db.tx() as db:
            d = db.one("SELECT * FROM runs WHERE run_id=?", (run_id,))
        if d is None:
            return None
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
        with self._db.tx() as db:
            return db.all(q, (*args, limit))

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
        with self._db.tx() as db:
            # an upsert: a run resumed from its checkpoint may redo the iteration it was in
            db.run(
                "INSERT INTO iterations(run_id, iteration, mode, text, diff, privacy_score, k,"
                " utility_score, clues, edits, prompt_tokens, completion_tokens, latency_ms, created_at)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
                " ON CONFLICT(run_id, iteration) DO UPDATE SET mode=excluded.mode, text=excluded.text,"
                " diff=excluded.diff, privacy_score=excluded.privacy_score, k=excluded.k,"
                " utility_score=excluded.utility_score, clues=excluded.clues, edits=excluded.edits,"
                " prompt_tokens=excluded.prompt_tokens, completion_tokens=excluded.completion_tokens,"
                " latency_ms=excluded.latency_ms, created_at=excluded.created_at",
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

    def _previous_text(self, run_id: str, iteration: int) -> str | None:
        with self._db.tx() as db:
            row = db.one(
                "SELECT text FROM iterations WHERE run_id=? AND iteration<? ORDER BY iteration DESC LIMIT 1",
                (run_id, iteration),
            )
        return row["text"] if row else None

    def iterations(self, run_id: str) -> list[dict[str, Any]]:
        with self._db.tx() as db:
            rows = db.all("SELECT * FROM iterations WHERE run_id=? ORDER BY iteration", (run_id,))
        for d in rows:
            d["clues"] = json.loads(d["clues"] or "[]")
            d["edits"] = json.loads(d["edits"] or "[]")
        return rows

    def recent(self, run_id: str, n: int = 3) -> list[MemoryEntry]:
        """The last ``n`` iterations of a run, oldest first: what the optimizer remembers."""
        with self._db.tx() as db:
            rows = db.all(
                "SELECT iteration, text, privacy_score, utility_score, mode, clues FROM iterations"
                " WHERE run_id=? ORDER BY iteration DESC LIMIT ?",
                (run_id, n),
            )
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
