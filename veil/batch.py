"""Running many documents: bounded async concurrency (so an LLM endpoint such as vLLM gets
requests together and batches them), a progress bar with docs/s and ETA, and a journal of
finished documents so an interrupted batch resumes without redoing or duplicating work.

The embedded engine's work is Python (a planner, parses, an attacker) that holds the GIL: one
process uses about one core however many documents are in flight. ``workers`` > 1 forks that
many worker processes once the batch is prepared; each inherits the prepared batch and the
loaded models (nothing is pickled but the results). The parent deals item numbers round-robin,
then one more to a worker as each of its results comes back, so the progress bar, the journal
and ``on_done`` stay in the parent. A worker that dies loses only the documents it held: they
come back failed with the reason (a rerun of a journalled batch redoes them)."""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import threading
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
    """The cores this process may use: its CPU affinity, and a cgroup v2 CPU quota (a
    container's ``--cpus``) when it is lower, at most 8 (each worker holds its own caches and
    copies of the pages it touches)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        quota, period = open("/sys/fs/cgroup/cpu.max").read().split()[:2]
        if quota != "max":
            cores = min(cores, max(1, int(int(quota) // int(period))))
    except (OSError, ValueError):
        pass
    return max(1, min(cores, 8))


def _after_fork(parent: int) -> None:
    """In a forked worker: one torch thread per process (a fork keeps none of the parent's
    OpenMP threads, and torch's pool then hangs at its first parallel region; the workers
    share the cores instead), one BLAS thread, and no event loop inherited from the parent's
    thread."""
    try:  # and it dies with its parent (a killed batch leaves no worker writing behind it)
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)  # the parent died before the line above ran
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except Exception:  # (threadpoolctl comes with scikit-learn; without it BLAS keeps its threads)
        pass
    asyncio.events._set_running_loop(None)
    asyncio.set_event_loop(None)


def _worker_main(index: int, parent: int, inbox: Any, outbox: Any, others: list[Any], items: Sequence[Any],
                 work: Callable[[Any], Awaitable[Any]], concurrency: int, in_worker: Any) -> None:
    """A worker: takes item numbers from its own pipe (the parent sends the next one as each
    result comes back, and None at the end), sends (number, result, why) back on its own pipe.
    One pipe each way per worker: no lock is shared with another worker, so one that dies (the
    OOM killer) cannot leave the others waiting on a lock it held. Whatever happens, the
    process ends (``os._exit``): no thread it started can keep it alive with the parent waiting."""
    _after_fork(parent)
    for conn in others:  # earlier workers' pipe ends, inherited: not this worker's
        conn.close()
    code = 0

    def send(msg: tuple) -> None:
        try:
            outbox.send(msg)
        except Exception as e:  # an unpicklable result: the item fails, said why
            outbox.send((msg[0], None, f"internal error (the result could not be sent back: {type(e).__name__})"))

    async def main() -> None:
        loop = asyncio.get_running_loop()
        jobs: asyncio.Queue = asyncio.Queue()

        def read() -> None:  # a daemon thread: never joined, so never what keeps the worker alive
            try:
                while (i := inbox.recv()) is not None:
                    loop.call_soon_threadsafe(jobs.put_nowait, i)
            except (EOFError, OSError):
                pass
            for _ in range(max(1, concurrency)):
                loop.call_soon_threadsafe(jobs.put_nowait, None)

        close = await in_worker() if in_worker is not None else None
        threading.Thread(target=read, name="veil-worker-inbox", daemon=True).start()

        async def lane() -> None:
            while (i := await jobs.get()) is not None:
                try:
                    r = await work(items[i])
                except Exception as e:  # the item fails, not the worker: its result is lost(item, why)
                    log.error("worker_item_failed", worker=index, item=i, error=type(e).__name__)
                    send((i, None, f"internal error ({type(e).__name__}: {str(e)[:300]})"))
                    continue
                send((i, r, None))

        try:
            await asyncio.gather(*(lane() for _ in range(max(1, concurrency))))
        finally:
            if close is not None:
                await close()

    try:
        asyncio.run(main())
    except BaseException as e:  # the worker's documents in flight are lost; the parent says why
        log.error("worker_failed", worker=index, error=type(e).__name__)
        try:
            outbox.send(("fatal", None, f"the worker process failed ({type(e).__name__}: {str(e)[:300]})"))
        except Exception:
            pass
        code = 1
    try:
        outbox.close()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


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
    fatal: dict[int, str] = {}  # worker -> why it failed
    failed = done = 0
    t0 = time.perf_counter()
    parent = os.getpid()
    log.info("batch_workers", n=len(items), workers=workers)
    procs: list[Any] = []
    inboxes: list[Any] = []
    outboxes: list[Any] = []
    alive: set[int] = set()
    # (the objects every worker inherits stay out of the collector's way: without this, its
    # first collection in a worker writes to, and so copies, every page of the parent's heap)
    gc.freeze()

    def feed(w: int) -> None:
        """One more item for worker w while it holds fewer than ``lanes``; with none left and
        none held, its end mark. A worker that is gone takes nothing (its pipe is broken)."""
        if w not in alive:
            return
        if unsent and len(held[w]) < lanes:
            i = unsent.pop()
            try:
                inboxes[w].send(i)
                held[w].add(i)
            except (OSError, ValueError):
                unsent.append(i)  # another worker takes it; EOF on w's outbox accounts for w
        elif not unsent and not held[w]:
            try:
                inboxes[w].send(None)
            except (OSError, ValueError):
                pass

    with progress_bar(disable=not show_progress) as progress:
        task = progress.add_task(description, total=len(items), rate="0.0", failed=0)

        finished: set[int] = set()

        def finish(i: int, r: R) -> None:
            nonlocal failed, done
            results[i] = r
            finished.add(i)
            done += 1
            if is_failure(r):
                failed += 1
            if on_done is not None:
                on_done(items[i], r)
            progress.update(task, advance=1, rate=f"{done / max(1e-9, time.perf_counter() - t0):.1f}", failed=failed)

        try:
            for w in range(workers):
                inbox_r, inbox_w = ctx.Pipe(duplex=False)
                outbox_r, outbox_w = ctx.Pipe(duplex=False)
                p = ctx.Process(target=_worker_main, name=f"veil-worker-{w}", daemon=True,
                                args=(w, parent, inbox_r, outbox_w, inboxes + outboxes, items, work, lanes, in_worker))
                p.start()
                inbox_r.close()
                outbox_w.close()  # (the parent's copy: the pipe reports EOF once the worker's end closes)
                procs.append(p)
                inboxes.append(inbox_w)
                outboxes.append(outbox_r)
                alive.add(w)
            gc.unfreeze()
            for _ in range(lanes):  # round-robin: every worker gets work before any gets a second item
                for w in range(workers):
                    feed(w)
            while done < len(items):
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
                        why = fatal.get(w) or f"the worker process running it died (exit code {code})"
                        for i in sorted(held[w]):
                            finish(i, lost(items[i], why))
                        held[w].clear()
                        for v in list(alive):  # what it would have taken goes to the others
                            feed(v)
                        continue
                    if i == "fatal":
                        fatal[w] = str(why)
                        continue
                    held[w].discard(i)
                    if i not in finished:
                        finish(i, r if why is None else lost(items[i], why))
                    feed(w)
        finally:
            gc.unfreeze()
            for w, p in enumerate(procs):
                if p.is_alive() and done < len(items):
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
