"""A real PostgreSQL server for the tests of the Postgres backend (``--db postgresql://…``).

``postgres_server`` (session): Debian's PostgreSQL binaries (``/usr/lib/postgresql/*/bin``, or
``$VEIL_TEST_PG_BIN``) run ``initdb`` into a temp dir and ``postgres`` on 127.0.0.1 (a free port;
its unix socket in the same temp dir), with password authentication (scram-sha-256) so that the
URLs the tests use carry a password, and stop it afterwards. As root, the server runs as the
``postgres`` user (or ``nobody``): PostgreSQL refuses to run as root. Skips, saying why, when the
binaries or the ``postgres`` extra (psycopg, langgraph-checkpoint-postgres) are missing.

``pg_url``: a fresh database on that server per test (dropped afterwards).
``any_db``: parametrized over both backends: a SQLite path (``tmp_path/veil.db``) and a
``pg_url``. Import the fixtures into a test module to use them.
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest


def pg_bin() -> Path | None:
    """The newest Debian PostgreSQL bin folder with initdb and postgres."""
    given = os.environ.get("VEIL_TEST_PG_BIN")
    candidates = [given] if given else sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                                              key=lambda p: int(Path(p).parent.name) if Path(p).parent.name.isdigit() else 0,
                                              reverse=True)
    for c in candidates:
        if c and (Path(c) / "initdb").is_file() and (Path(c) / "postgres").is_file():
            return Path(c)
    return None


def missing() -> str | None:
    """Why the Postgres tests cannot run here, or None."""
    try:
        import langgraph.checkpoint.postgres.aio  # noqa: F401
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError as e:
        return f"the postgres extra is not installed (pip install -e '.[postgres]'): {e}"
    if pg_bin() is None:
        return "no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb; apt-get install postgresql)"
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class PostgresServer:
    host: str
    port: int
    user: str
    password: str

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://{self.user}:{self.password}@{self.host}:{self.port}/{dbname}"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    reason = missing()
    if reason:
        pytest.skip(reason)
    bindir = pg_bin()
    assert bindir is not None
    root = Path(tempfile.mkdtemp(prefix="veil-pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    run_as: dict = {}
    if os.geteuid() == 0:  # initdb and postgres refuse to run as root
        for name in ("postgres", "nobody"):
            try:
                pw = pwd.getpwnam(name)
                break
            except KeyError:
                continue
        else:
            shutil.rmtree(root, ignore_errors=True)
            pytest.skip("running as root and there is no 'postgres' or 'nobody' user to run PostgreSQL as")
        os.chmod(root, 0o700)
        os.chown(root, pw.pw_uid, pw.pw_gid)
        os.chown(sock, pw.pw_uid, pw.pw_gid)
        run_as = {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}
    password = secrets.token_urlsafe(16)
    pwfile = root / "pwfile"
    pwfile.write_text(password + "\n")
    if run_as:
        os.chown(pwfile, run_as["user"], run_as["group"])
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    init = subprocess.run(
        [str(bindir / "initdb"), "-D", str(data), "-U", "veil", "--pwfile", str(pwfile), "--auth", "scram-sha-256",
         "-E", "UTF8", "--no-sync"],
        capture_output=True, text=True, env=env, cwd=root, timeout=120, **run_as,
    )
    pwfile.unlink()
    if init.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        pytest.fail(f"initdb failed: {init.stderr[-2000:]}")
    port = _free_port()
    log = open(root / "postgres.log", "wb")
    proc = subprocess.Popen(
        [str(bindir / "postgres"), "-D", str(data), "-c", "listen_addresses=127.0.0.1", "-c", f"port={port}",
         "-c", f"unix_socket_directories={sock}", "-c", "fsync=off", "-c", "synchronous_commit=off",
         "-c", "full_page_writes=off", "-c", "shared_buffers=32MB", "-c", "max_connections=100"],
        stdout=log, stderr=subprocess.STDOUT, env=env, cwd=root, **run_as,
    )
    server = PostgresServer("127.0.0.1", port, "veil", password)
    try:
        import psycopg

        deadline = time.monotonic() + 30
        while True:
            try:
                psycopg.connect(server.url(), connect_timeout=2).close()
                break
            except psycopg.OperationalError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    pytest.fail("postgres did not start: " + (root / "postgres.log").read_text(errors="replace")[-2000:])
                time.sleep(0.1)
        yield server
    finally:
        proc.terminate()  # smart shutdown
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def pg_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A fresh, empty database on the test server (dropped after the test)."""
    import psycopg

    name = "veil_" + secrets.token_hex(6)
    with psycopg.connect(postgres_server.url(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield postgres_server.url(name)
    with psycopg.connect(postgres_server.url(), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(params=["sqlite", "postgres"])
def any_db(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """The memory database of a test, for each backend: a SQLite file, or a PostgreSQL URL."""
    if request.param == "sqlite":
        return tmp_path / "veil.db"
    return request.getfixturevalue("pg_url")
