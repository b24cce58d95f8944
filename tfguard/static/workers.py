"""Running a function over many items in worker processes, a chunk of items per task."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Callable, List, Sequence, Tuple, TypeVar

if TYPE_CHECKING:  # pragma: no cover
    from concurrent.futures import Future

Item = TypeVar("Item")
Result = TypeVar("Result")

#: Fewer items than this many per job are checked in-process: starting workers costs more.
MIN_ITEMS_PER_JOB = 2
#: Upper bound of items per task; small enough to balance the load, large enough to amortise pickling.
MAX_CHUNK = 16


def default_jobs() -> int:
    """Return the number of CPUs this process may run on."""
    counter = getattr(os, "process_cpu_count", None)  # Python 3.13+
    if counter is not None:
        return counter() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def worth_a_pool(items: int, jobs: int) -> bool:
    """Return whether ``items`` are enough to be worth starting ``jobs`` worker processes."""
    return jobs > 1 and items >= max(2, MIN_ITEMS_PER_JOB * jobs)


def chunked(items: Sequence[Item], jobs: int) -> List[List[Item]]:
    """Split ``items`` into chunks, about four per job, at most MAX_CHUNK items each.

    Items are dealt round-robin so that, when they come sorted largest first,
    every chunk gets a share of the large ones.
    """
    size = max(1, min(MAX_CHUNK, len(items) // (jobs * 4) or 1))
    count = max(1, -(-len(items) // size))
    return [list(items[start::count]) for start in range(count)]


def _context():
    import multiprocessing

    # fork starts workers at once and keeps what the parent registered (rules
    # defined at run time included); elsewhere the platform default is used.
    if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def map_in_processes(
    work: Callable[[List[Item]], List[Result]],
    items: Sequence[Item],
    jobs: int,
    on_lost: Callable[[Item, BaseException], Result],
    initializer: Callable[..., None],
    initargs: Tuple = (),
) -> List[Result]:
    """Return ``work(chunk)`` results for every chunk of ``items``, computed in ``jobs`` processes.

    ``work`` must be a module-level function (it is pickled by name) that handles
    its own per-item failures.  When a whole task fails (a worker process died),
    ``on_lost(item, exception)`` stands in for each of its items.  Results come
    in completion order; callers sort them.
    """
    from concurrent.futures import ProcessPoolExecutor  # imported only when workers start

    chunks = chunked(items, jobs)
    results: List[Result] = []
    executor = ProcessPoolExecutor(
        max_workers=min(jobs, len(chunks)), mp_context=_context(), initializer=initializer, initargs=initargs
    )
    try:
        futures: List[Tuple[Future, List[Item]]] = [(executor.submit(work, chunk), chunk) for chunk in chunks]
        for future, chunk in futures:
            try:
                results.extend(future.result())
            except Exception as exc:  # noqa: BLE001 - a dead worker loses its chunk, not the run
                results.extend(on_lost(item, exc) for item in chunk)
    except BaseException:
        executor.shutdown(wait=False, cancel_futures=True)
        raise
    executor.shutdown(wait=True)
    return results
