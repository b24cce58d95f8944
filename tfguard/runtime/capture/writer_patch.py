"""Time `FileWriter.add_summary` and `FileWriter.flush` while a guard is active (TFG904's writer cost).

A class-level wrapper, reference counted like `SaverPatch`: the time goes to the recorders of the calling
thread (a writer has no session or graph to tell whose it is). What the program's calls do and return is
unchanged; the wrapper only reads the clock around them.
"""

from __future__ import annotations

import functools
import threading
from threading import get_ident
from time import perf_counter
from typing import Any, Callable, Dict, List

from tfguard.runtime.capture.graph_patch import GraphPatch

_lock = threading.RLock()
_METHODS = ("add_summary", "flush")


def _recorders_of_this_thread() -> List[Any]:
    ident = get_ident()
    found = []
    for patch in list(GraphPatch._patches.values()):
        found += [r for r in patch.recorders if r.thread == ident]
    return found


def _timed(original: Callable) -> Callable:
    @functools.wraps(original)
    def call(*args: Any, **kwargs: Any) -> Any:
        t0 = perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            duration = perf_counter() - t0
            try:
                for recorder in _recorders_of_this_thread():
                    recorder.record_summary_write(duration)
            except Exception:  # the guard's bookkeeping must never change what the program's call does
                pass

    return call


class WriterPatch:
    """Timing wrappers on a FileWriter class's `add_summary` and `flush`, present only while a guard is active."""

    _count = 0
    _owner: Any = None
    _saved: Dict[str, Any] = {}

    @classmethod
    def attach(cls, writer_class: Any) -> None:
        """Install the wrappers on first use (reference counted)."""
        with _lock:
            if cls._count == 0:
                cls._owner, cls._saved = writer_class, {}
                for name in _METHODS:
                    original = getattr(writer_class, name, None)
                    if original is None:
                        continue
                    # Inherited methods (add_summary lives on a base class) are shadowed, then removed again.
                    cls._saved[name] = writer_class.__dict__.get(name)
                    setattr(writer_class, name, _timed(original))
            cls._count += 1

    @classmethod
    def detach(cls) -> None:
        """Remove the wrappers when the last guard exits."""
        with _lock:
            if cls._count <= 0:
                return
            cls._count -= 1
            if cls._count == 0 and cls._owner is not None:
                for name, previous in cls._saved.items():
                    if previous is None:
                        delattr(cls._owner, name)
                    else:
                        setattr(cls._owner, name, previous)
                cls._owner, cls._saved = None, {}
