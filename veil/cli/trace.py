"""``veil trace show RUN_ID`` / ``veil trace list``: every iteration of a run, with scores,
mode, clues and a coloured word diff."""

from __future__ import annotations

import argparse
import datetime as dt
import re

from rich.console import Console
from rich.table import Table
from rich.text import Text

from veil.cli.common import add_db_arg
from veil.errors import NotFoundError
from veil.memory.store import MemoryStore

_DIFF = re.compile(r"\[-(.*?)-\]|\{\+(.*?)\+\}", re.S)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("trace", help="inspect the edit iterations of runs")
    tsub = p.add_subparsers(dest="trace_command", metavar="ACTION", required=True)
    show = tsub.add_parser("show", help="print every iteration of a run")
    show.add_argument("run_id")
    show.add_argument("--no-text", action="store_true", help="scores and clues only")
    add_db_arg(show)
    show.set_defaults(func=run_show)
    lst = tsub.add_parser("list", help="recent runs")
    lst.add_argument("-n", type=int, default=20)
    add_db_arg(lst)
    lst.set_defaults(func=run_list)


def diff_text(diff: str) -> Text:
    """Render ``[-deleted-]{+inserted+}`` as red strike-through / green."""
    out = Text()
    pos = 0
    for m in _DIFF.finditer(diff):
        out.append(diff[pos : m.start()])
        if m.group(1) is not None:
            out.append(m.group(1), style="red strike")
        else:
            out.append(m.group(2), style="bold green")
        pos = m.end()
    out.append(diff[pos:])
    return out


def _score(p: int | None, k: int | None) -> str:
    if p is None:
        return "-"
    return f"{p} (not in top {k})" if k is not None and p > k else str(p)


def run_show(args: argparse.Namespace) -> int:
    with MemoryStore(args.db) as store:  # closed: a PostgreSQL store holds a connection pool
        run = store.get_run(args.run_id)
        if run is None:
            raise NotFoundError(f"no run {args.run_id!r} in {store.path} (see `veil trace list`)")
        its = store.iterations(args.run_id)
    console = Console()
    console.print(f"[bold]run[/bold] {run['run_id']}  doc {run['doc_id']}  status {run['status']}  "
                  f"profile {(run['config'] or {}).get('profile')}")
    table = Table("iter", "mode", "privacy rank", "utility", "tokens in/out", "ms", "clues")
    for it in its:
        table.add_row(
            str(it["iteration"]), it["mode"] or "original", _score(it["privacy_score"], it["k"]),
            "-" if it["utility_score"] is None else f"{it['utility_score']:.2f}",
            f"{it['prompt_tokens']}/{it['completion_tokens']}", f"{it['latency_ms']:.0f}",
            "; ".join(it["clues"][:6]),
        )
    console.print(table)
    if run.get("result"):
        r = run["result"]
        console.print(f"best iteration: {r.get('best_iteration')}  stop: {r.get('stop_reason')}  "
                      f"privacy target met: {r.get('privacy_target_met')}  "
                      f"privacy status: {r.get('privacy_status')}", markup=False)
        if r.get("privacy_note"):
            console.print(f"{r.get('privacy_status')}: {r['privacy_note']}", markup=False)
        for rej in r.get("rejections") or []:
            console.print(f"rejected optimizer answer at iteration {rej.get('iteration')} ({rej.get('mode')}): "
                          f"{rej.get('reason')}; the best version so far was kept", markup=False)
    if run.get("error"):
        console.print(f"[red]error:[/red] {run['error']}")
    stored = run.get("text_stored") or "full"
    if stored != "full":
        console.print(f"texts, clues and edits not stored (store-text {stored}"
                      + ("; the iterations keep a sha256 of each text" if stored == "hash" else "")
                      + "): anonymize with --store-text full to see them here", markup=False)
    elif not args.no_text:
        for it in its:
            console.rule(f"iteration {it['iteration']} ({it['mode'] or 'original'})")
            console.print(diff_text(it["diff"]) if it["diff"] else Text(it["text"]))
    return 0


def run_list(args: argparse.Namespace) -> int:
    with MemoryStore(args.db) as store:
        runs = store.list_runs(limit=args.n)
    table = Table("run id", "doc", "kind", "status", "created")
    for r in runs:
        table.add_row(r["run_id"], str(r["doc_id"]), r["kind"], r["status"],
                      dt.datetime.fromtimestamp(r["created_at"]).isoformat(timespec="seconds"))
    Console().print(table)
    return 0
