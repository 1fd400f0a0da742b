"""Running many documents: bounded async concurrency (so an LLM endpoint such as vLLM gets
requests together and batches them), a progress bar with docs/s and ETA, and a journal of
finished documents so an interrupted batch resumes without redoing or duplicating work."""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Awaitable, Callable, Sequence, TypeVar

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
) -> list[R]:
    """Run ``work`` on every item with at most ``concurrency`` in flight; results in input order.
    ``on_done`` is called as each finishes (journal it there)."""
    if show_progress is None:
        show_progress = sys.stderr.isatty()
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
