"""Running the checker's work on a thread with a large stack, so that deep but valid code is parsed and analysed.

CPython compiles an ``if``/``elif`` chain of a thousand branches or a
thousand-term ``+`` expression, but parsing it into an astroid tree and walking
that tree recurse once per level: with the main thread's stack (8 MiB) and
Python's default recursion limit (1000) that ends in a RecursionError.  So
every file is parsed and analysed on one helper thread per process, started
with a :data:`STACK_BYTES` stack (address space, committed only as it is
used), while the recursion limit is raised to :data:`RECURSION_LIMIT` for the
length of the call.  Code that CPython itself rejects (``too many nested
parentheses``, a RecursionError of its own compiler) still fails to parse.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
from typing import Any, Callable, List, Optional, Tuple, TypeVar

Result = TypeVar("Result")

#: Stack of the helper thread; 1 GiB of address space holds the recursion limit below with room to spare.
STACK_BYTES = 1024 * 1024 * 1024
#: Recursion limit while the helper thread works (Python's default is 1000).
RECURSION_LIMIT = 100_000

_Job = Tuple[Callable[..., Any], tuple, threading.Event, List[Any]]

_lock = threading.Lock()
_jobs: Optional["queue.SimpleQueue[_Job]"] = None
_thread: Optional[threading.Thread] = None
_pid: Optional[int] = None


def _serve(jobs: "queue.SimpleQueue[_Job]") -> None:
    while True:
        function, args, done, box = jobs.get()
        try:
            box.append((True, function(*args)))
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller, who re-raises it
            box.append((False, exc))
        finally:
            del function, args
            done.set()


def _helper() -> "queue.SimpleQueue[_Job]":
    """Return the job queue of this process's helper thread, starting the thread when there is none (or after fork)."""
    global _jobs, _thread, _pid
    if _jobs is None or _pid != os.getpid() or _thread is None or not _thread.is_alive():
        jobs: "queue.SimpleQueue[_Job]" = queue.SimpleQueue()
        previous = threading.stack_size()
        try:
            threading.stack_size(STACK_BYTES)
        except (ValueError, RuntimeError):  # a platform that refuses: keep the default stack
            pass
        try:
            thread = threading.Thread(target=_serve, args=(jobs,), name="tfguard-deep-stack", daemon=True)
            thread.start()
        finally:
            threading.stack_size(previous)
        _jobs, _thread, _pid = jobs, thread, os.getpid()
    return _jobs


def call_with_deep_stack(function: Callable[..., Result], *args: Any) -> Result:
    """Return ``function(*args)`` computed on the large-stack helper thread; its exception is raised here.

    Calls from several threads take turns.  A call made on the helper thread
    itself runs at once.  A KeyboardInterrupt while waiting propagates at once;
    the helper finishes that call in the background and drops its result.
    """
    if threading.current_thread() is _thread and _pid == os.getpid():
        return function(*args)
    with _lock:
        jobs = _helper()
        done = threading.Event()
        box: List[Any] = []
        previous = sys.getrecursionlimit()
        if previous < RECURSION_LIMIT:
            sys.setrecursionlimit(RECURSION_LIMIT)
        try:
            jobs.put((function, args, done, box))
            done.wait()
        finally:
            if previous < RECURSION_LIMIT:
                sys.setrecursionlimit(previous)
    succeeded, value = box[0]
    if succeeded:
        return value
    raise value
