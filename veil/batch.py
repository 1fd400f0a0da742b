"""Running many documents: bounded async concurrency (so an LLM endpoint such as vLLM gets
requests together and batches them), a progress bar with docs/s and ETA, and a journal of
finished documents so an interrupted batch resumes without redoing or duplicating work.

The embedded engine's work is Python (a planner, parses, an attacker) that holds the GIL: one
process uses about one core however many documents are in flight. ``workers`` > 1 forks that
many worker processes once the batch is prepared; each inherits the prepared batch and the
loaded models (nothing is pickled but the results), takes every ``workers``-th document and
sends each result back as it finishes, so the progress bar, the journal and ``on_done`` stay in
the parent. A worker that dies loses only its documents in flight: they come back failed (a
rerun of a journalled batch redoes them)."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from typing import Any, Awaitable, Callable, Sequence, TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from veil.logging import get_logger

log = get_logger(__name__)
T = TypeVar("T")
R = TypeVar("R")


def progress_bar(console: Console | None = None, *, disable: bool = False) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]} docs/s"),
        TextColumn("[red]{task.fields[failed]} failed"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console or Console(stderr=True),
        disable=disable,
        transient=False,
    )


async def run_concurrently(
    items: Sequence[T],
    work: Callable[[T], Awaitable[R]],
    *,
    concurrency: int = 16,
    on_done: Callable[[T, R], None] | None = None,
    is_failure: Callable[[R], bool] = lambda r: False,
    description: str = "anonymizing",
    show_progress: bool | None = None,
    workers: int = 1,
    in_worker: Callable[[], Awaitable[Callable[[], Awaitable[None]] | None]] | None = None,
    lost: Callable[[T, str], R] | None = None,
) -> list[R]:
    """Run ``work`` on every item with at most ``concurrency`` in flight; results in input order.
    ``on_done`` is called as each finishes (journal it there).

    ``workers`` > 1 (where the OS can fork; see the module docstring): ``concurrency`` in flight
    in each of that many forked processes. ``in_worker`` runs first in each worker, on its own
    event loop (a database connection must never cross a fork: open new ones there), and
    returns what closes them; ``lost(item, why)`` is the result of an item whose worker died or
    whose ``work`` raised, and is required."""
    if show_progress is None:
        show_progress = sys.stderr.isatty()
    workers = min(workers, len(items) // MIN_ITEMS_PER_WORKER)
    if workers > 1 and can_fork():
        if lost is None:
            raise ValueError("run_concurrently(workers > 1) needs lost(item, why)")
        return await _run_forked(items, work, concurrency=concurrency, on_done=on_done, is_failure=is_failure,
                                 description=description, show_progress=show_progress,
                                 workers=workers, in_worker=in_worker, lost=lost)
    sem = asyncio.Semaphore(max(1, concurrency))
    results: list[R | None] = [None] * len(items)
    failed = 0
    t0 = time.perf_counter()
    with progress_bar(disable=not show_progress) as progress:
        task = progress.add_task(description, total=len(items), rate="0.0", failed=0)

        async def one(i: int, item: T) -> None:
            nonlocal failed
            async with sem:
                r = await work(item)
            results[i] = r
            if is_failure(r):
                failed += 1
            if on_done is not None:
                on_done(item, r)
            done = sum(x is not None for x in results)
            rate = done / max(1e-9, time.perf_counter() - t0)
            progress.update(task, advance=1, rate=f"{rate:.1f}", failed=failed)

        await asyncio.gather(*(one(i, it) for i, it in enumerate(items)))
    log.info("batch_done", n=len(items), failed=failed, seconds=round(time.perf_counter() - t0, 2))
    return results  # type: ignore[return-value]


# a worker is worth its start (a fork, a database connection, its own caches warming up) for at
# least this many documents; a smaller batch runs in this process
MIN_ITEMS_PER_WORKER = 4


def can_fork() -> bool:
    """Linux only: macOS's system frameworks are not safe to use after a fork, and Windows has
    none."""
    return sys.platform.startswith("linux")


def default_workers() -> int:
    """The cores this process may run on (its CPU affinity, as a container limits it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _after_fork() -> None:
    """In a forked worker: one torch thread per process (a fork keeps none of the parent's
    OpenMP threads, and torch's pool then hangs at its first parallel region; the workers
    share the cores instead), and no event loop inherited from the parent's thread."""
    try:  # and it dies with its parent (a killed batch leaves no worker writing behind it)
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() == 1:
        os._exit(1)  # the parent died before the line above ran
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
    asyncio.events._set_running_loop(None)
    asyncio.set_event_loop(None)


def _worker_main(index: int, inbox: Any, outbox: Any, items: Sequence[Any], work: Callable[[Any], Awaitable[Any]],
                 concurrency: int, in_worker: Any) -> None:
    """A worker: takes item numbers from its own pipe (the parent sends the next one as each
    result comes back, and None at the end), sends (number, result, why) back on its own pipe.
    One pipe each way per worker: no lock is shared with another worker, so one that dies (the
    OOM killer) cannot leave the others waiting on a lock it held."""
    _after_fork()

    async def main() -> None:
        close = await in_worker() if in_worker is not None else None
        jobs: asyncio.Queue = asyncio.Queue()

        async def reader() -> None:
            while (i := await asyncio.to_thread(inbox.recv)) is not None:
                jobs.put_nowait(i)
            for _ in range(max(1, concurrency)):
                jobs.put_nowait(None)

        async def lane() -> None:
            while (i := await jobs.get()) is not None:
                try:
                    r = await work(items[i])
                except Exception as e:  # the item fails, not the worker: its result is lost(item, why)
                    log.error("worker_item_failed", worker=index, item=i, error=type(e).__name__)
                    outbox.send((i, None, f"internal error ({type(e).__name__}: {str(e)[:300]})"))
                    continue
                outbox.send((i, r, None))

        try:
            await asyncio.gather(reader(), *(lane() for _ in range(max(1, concurrency))))
        finally:
            if close is not None:
                await close()

    asyncio.run(main())
    outbox.close()


async def _run_forked(
    items: Sequence[T],
    work: Callable[[T], Awaitable[R]],
    *,
    concurrency: int,
    on_done: Callable[[T, R], None] | None,
    is_failure: Callable[[R], bool],
    description: str,
    show_progress: bool,
    workers: int,
    in_worker: Any,
    lost: Callable[[T, str], R],
) -> list[R]:
    import multiprocessing
    from multiprocessing.connection import wait

    ctx = multiprocessing.get_context("fork")
    lanes = max(1, concurrency)
    results: list[R | None] = [None] * len(items)
    unsent = list(range(len(items)))[::-1]  # popped from the end: in input order
    held: list[set[int]] = [set() for _ in range(workers)]
    failed = 0
    t0 = time.perf_counter()
    log.info("batch_workers", n=len(items), workers=workers)
    procs, inboxes, outboxes = [], [], []
    for w in range(workers):
        inbox_r, inbox_w = ctx.Pipe(duplex=False)
        outbox_r, outbox_w = ctx.Pipe(duplex=False)
        p = ctx.Process(target=_worker_main, args=(w, inbox_r, outbox_w, items, work, lanes, in_worker),
                        name=f"veil-worker-{w}", daemon=True)
        p.start()
        inbox_r.close()
        outbox_w.close()  # (the parent's copy: the pipe reports EOF once the worker's end closes)
        procs.append(p)
        inboxes.append(inbox_w)
        outboxes.append(outbox_r)
    alive = set(range(workers))

    def feed(w: int) -> None:
        """Worker w gets items until it holds ``lanes``; with none left and none held, its end mark."""
        while unsent and len(held[w]) < lanes:
            i = unsent.pop()
            held[w].add(i)
            inboxes[w].send(i)
        if not unsent and not held[w]:
            try:
                inboxes[w].send(None)
            except OSError:
                pass

    with progress_bar(disable=not show_progress) as progress:
        task = progress.add_task(description, total=len(items), rate="0.0", failed=0)

        def finish(i: int, r: R) -> None:
            nonlocal failed
            results[i] = r
            if is_failure(r):
                failed += 1
            if on_done is not None:
                on_done(items[i], r)
            done = sum(x is not None for x in results)
            progress.update(task, advance=1, rate=f"{done / max(1e-9, time.perf_counter() - t0):.1f}", failed=failed)

        try:
            for w in range(workers):
                feed(w)
            while any(r is None for r in results):
                if not alive:  # every worker is gone: what no worker took is lost too
                    for i in unsent:
                        finish(i, lost(items[i], "no worker process was left to run it"))
                    unsent.clear()
                    break
                ready = await asyncio.to_thread(wait, [outboxes[w] for w in alive], 1.0)
                for conn in ready:
                    w = outboxes.index(conn)
                    try:
                        i, r, why = conn.recv()
                    except (EOFError, OSError):  # the worker's end closed: it exited or died
                        alive.discard(w)
                        procs[w].join(timeout=10)
                        code = procs[w].exitcode
                        if held[w]:
                            log.error("worker_died", worker=w, exitcode=code, lost=len(held[w]))
                        for i in sorted(held[w]):
                            finish(i, lost(items[i], f"the worker process running it died (exit code {code})"))
                        held[w].clear()
                        continue
                    held[w].discard(i)
                    if results[i] is None:
                        finish(i, r if why is None else lost(items[i], why))
                    feed(w)
        finally:
            for w, p in enumerate(procs):
                if p.is_alive() and any(r is None for r in results):
                    p.kill()  # (interrupted: no worker outlives the batch)
                try:
                    inboxes[w].send(None)
                except (OSError, ValueError):
                    pass
                p.join(timeout=10)
                inboxes[w].close()
                outboxes[w].close()
    log.info("batch_done", n=len(items), failed=failed, workers=workers, seconds=round(time.perf_counter() - t0, 2))
    return results  # type: ignore[return-value]
