"""``veil purge RUN_ID... | --older-than 30d | --all``: delete runs from the memory database
(the run, its iterations) and their LangGraph checkpoints (through the checkpointer's thread
delete API), then shrink both files. Deleted rows are overwritten (``secure_delete``), and the
files are vacuumed so that the space (and what it held) goes back to the file system. With a
PostgreSQL database (``--db postgresql://…``) the runs, iterations and checkpoints are deleted
the same way from its tables, which are then VACUUMed."""

from __future__ import annotations

import argparse
import asyncio
import re
import sqlite3
import time
from pathlib import Path

from veil.cli.common import add_db_arg
from veil.errors import UserInputError
from veil.memory.store import MemoryStore, checkpoint_path, checkpoint_threads, connect, open_checkpointer

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("purge", help="delete runs, their iterations and checkpoints")
    p.add_argument("run_id", nargs="*", help="runs to delete (see `veil trace list`)")
    p.add_argument("--older-than", metavar="AGE", help="runs created more than AGE ago: 30d, 12h, 90m, 3600s, 2w")
    p.add_argument("--all", action="store_true", help="every run and every checkpoint (audits' too)")
    add_db_arg(p)
    p.set_defaults(func=run)


def parse_age(value: str) -> float:
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*", value or "")
    if not m:
        raise UserInputError(f"--older-than {value!r}: expected a number and a unit (s, m, h, d, w), e.g. 30d")
    return float(m.group(1)) * _UNITS[m.group(2)]


async def _delete_threads(db: Path | str, thread_ids: list[str] | None) -> int:
    """Delete checkpoint threads in ``db`` (a SQLite file or a PostgreSQL URL; all of them when
    ``thread_ids`` is None) with the checkpointer's own ``adelete_thread``; returns how many
    threads had checkpoints."""
    if isinstance(db, Path) and not db.exists():
        return 0
    async with open_checkpointer(db) as saver:
        present = await checkpoint_threads(saver)
        targets = present if thread_ids is None else present & set(thread_ids)
        for thread_id in sorted(targets):
            await saver.adelete_thread(thread_id)
    return len(targets)


def _vacuum(path: Path) -> None:
    if path.exists():
        conn = connect(path)
        try:
            conn.execute("VACUUM")
        finally:
            conn.close()


def run(args: argparse.Namespace) -> int:
    chosen = sum([bool(args.run_id), args.older_than is not None, args.all])
    if chosen != 1:
        raise UserInputError("give run ids, --older-than AGE or --all (one of them)")
    store = MemoryStore(args.db)
    try:
        if args.all:
            run_ids, threads = store.run_ids(), None
        elif args.older_than is not None:
            run_ids = store.run_ids(older_than=time.time() - parse_age(args.older_than))
            threads = run_ids
        else:
            run_ids = threads = list(dict.fromkeys(args.run_id))
        n_runs = store.delete_runs(run_ids)
        path = store.path  # shown: a URL without its password
        if store.url:  # PostgreSQL: the checkpoints (anonymize and audit) are in the same database
            n_threads = asyncio.run(_delete_threads(store.url, threads))
            store.vacuum()
    finally:
        store.close()
    if not store.url:
        n_threads = 0
        for file in (checkpoint_path(path), path):  # anonymize checkpoints; audit checkpoints live in veil.db
            try:
                n_threads += asyncio.run(_delete_threads(file, threads))
            except sqlite3.Error as e:
                raise UserInputError(f"{file}: cannot purge checkpoints ({e})") from e
    if args.run_id and n_runs == 0 and n_threads == 0:
        raise UserInputError(f"no run {', '.join(map(repr, args.run_id))} in {path} (see `veil trace list`)")
    if not store.url:
        for file in (path, checkpoint_path(path)):
            _vacuum(file)
    print(f"veil: purged {n_runs} run(s) and the checkpoints of {n_threads} thread(s) from {path}")
    return 0
