"""Running a function over many items in worker processes, a chunk of items per task."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from typing import TYPE_CHECKING, Callable, Iterator, List, Optional, Sequence, Tuple, TypeVar

if TYPE_CHECKING:  # pragma: no cover
    from concurrent.futures import Future

Item = TypeVar("Item")
Result = TypeVar("Result")

#: Fewer items than this many per job are checked in-process: starting workers costs more.
MIN_ITEMS_PER_JOB = 2


def default_jobs() -> int:
    """Return the number of CPUs this process may run on."""
    counter = getattr(os, "process_cpu_count", None)  # Python 3.13+
    if counter is not None:
        return counter() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


#: With the automatic number of processes, each one gets at least this much source to check: below it, the
#: cost of starting a worker and of parsing the modules both workers import is more than a worker saves
#: (bench/lint_speed.py: -j 2 broke even with -j 1 at about 30 KiB of code, and took 0.76x at 85 KiB).
MIN_BYTES_PER_WORKER = 32 * 1024


def worth_a_pool(items: int, jobs: int) -> bool:
    """Return whether ``items`` are enough to be worth starting ``jobs`` worker processes."""
    return jobs > 1 and items >= max(2, MIN_ITEMS_PER_JOB * jobs)


def automatic_jobs(total_bytes: int, cpus: Optional[int] = None) -> int:
    """Return how many processes to check ``total_bytes`` of source in when ``-j`` is not given.

    One per CPU, but no more than one per :data:`MIN_BYTES_PER_WORKER`: a small
    project is checked in this process, as fast as with ``-j 1``.
    """
    return max(1, min(cpus or default_jobs(), total_bytes // MIN_BYTES_PER_WORKER))


def chunked_in_order(items: Sequence[Item], weights: Sequence[int], jobs: int) -> List[List[Item]]:
    """Split ``items`` into runs of neighbours, about four per job by weight, heaviest run first.

    Neighbours stay together: files of one package import each other, and a
    worker that checks them one after the other parses each module once (as a
    followed import, then as its own file) where dealing files out one by one
    made every worker parse it.  Heaviest first keeps the load balanced: the
    runs handed out last are light.
    """
    target = max(1, sum(weights) // (jobs * 4))
    runs: List[Tuple[int, List[Item]]] = []
    run: List[Item] = []
    weight = 0
    for item, item_weight in zip(items, weights):
        run.append(item)
        weight += item_weight
        if weight >= target:
            runs.append((weight, run))
            run, weight = [], 0
    if run:
        runs.append((weight, run))
    runs.sort(key=lambda pair: -pair[0])
    return [run for _, run in runs]


def _context():
    import multiprocessing

    # fork starts workers at once and keeps what the parent registered (rules
    # defined at run time included); elsewhere the platform default is used.
    if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _worker_entry(initializer: Callable[..., None], initargs: Tuple) -> None:
    """Run first in every worker process: ignore Ctrl-C (the parent decides), then the caller's initializer."""
    if hasattr(signal, "pthread_sigmask"):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    initializer(*initargs)


@contextlib.contextmanager
def _sigint_held() -> Iterator[None]:
    """Hold Ctrl-C back while worker processes are forked; a Ctrl-C meanwhile arrives when the block ends.

    A worker forked while SIGINT is blocked inherits the block, so it cannot be
    interrupted before :func:`_worker_entry` makes it ignore the signal: a
    Ctrl-C to the process group then stops the parent alone, which stops the
    workers, instead of tracebacks from half-started workers and a broken pool.
    """
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _stop_at_once(executor) -> None:
    """Stop the workers of ``executor`` without waiting for their running tasks (after Ctrl-C)."""
    # shutdown() forgets both; the private names are those of CPython 3.8 to 3.13.
    processes = list((getattr(executor, "_processes", None) or {}).values())
    manager = getattr(executor, "_executor_manager_thread", None)
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(5)
    if manager is not None:
        # Its end races with the executor's exit handler ("Bad file descriptor" at interpreter exit) otherwise.
        manager.join(5)


def map_in_processes(
    work: Callable[[List[Item]], List[Result]],
    chunks: Sequence[List[Item]],
    jobs: int,
    on_lost: Callable[[Item, BaseException], Result],
    initializer: Callable[..., None],
    initargs: Tuple = (),
) -> List[Result]:
    """Return ``work(chunk)`` results for every one of ``chunks``, computed in ``jobs`` processes, in that order.

    ``work`` must be a module-level function (it is pickled by name) that handles
    its own per-item failures.  When a whole task fails (a worker process died),
    ``on_lost(item, exception)`` stands in for each of its items.  Results come
    in completion order; callers sort them.  Workers ignore Ctrl-C; a
    KeyboardInterrupt in the caller terminates them and propagates at once.
    """
    from concurrent.futures import ProcessPoolExecutor  # imported only when workers start

    results: List[Result] = []
    executor = None
    try:
        with _sigint_held():
            executor = ProcessPoolExecutor(
                max_workers=min(jobs, len(chunks)), mp_context=_context(), initializer=_worker_entry,
                initargs=(initializer, initargs),
            )
            futures: List[Tuple[Future, List[Item]]] = [(executor.submit(work, chunk), chunk) for chunk in chunks]
        for future, chunk in futures:
            try:
                results.extend(future.result())
            except Exception as exc:  # noqa: BLE001 - a dead worker loses its chunk, not the run
                results.extend(on_lost(item, exc) for item in chunk)
    except BaseException:
        if executor is not None:
            _stop_at_once(executor)
        raise
    executor.shutdown(wait=True)
    return results
