"""The Saver patch: a class-level timing wrapper on `Saver.save` (Saver objects are the user's), present only while
a guard is active; it only attributes time to guards whose graph matches, and is removed when the last guard exits."""

from __future__ import annotations

import functools
from contextlib import nullcontext
from threading import get_ident
from time import perf_counter
from typing import Any, Callable

from tfguard.runtime.capture.attrs import lock as _lock
from tfguard.runtime.capture.graph_patch import GraphPatch
from tfguard.runtime.capture.session_tap import SessionTap
from tfguard.runtime.safety import internal_error


class SaverPatch:
    """Class-level timing wrapper on `Saver.save`, present only while a guard is active."""

    _count = 0
    _owner: Any = None
    _original: Any = None

    @classmethod
    def attach(cls, saver_class: Any) -> None:
        """Install the wrapper on first use (reference counted)."""
        with _lock:
            if cls._count == 0:
                original = saver_class.__dict__["save"]
                cls._owner, cls._original = saver_class, original
                saver_class.save = cls._make_wrapper(original)
            cls._count += 1

    @classmethod
    def detach(cls) -> None:
        """Remove the wrapper when the last guard exits."""
        with _lock:
            cls._count -= 1
            if cls._count == 0:
                cls._owner.save = cls._original
                cls._owner = cls._original = None

    @staticmethod
    def _make_wrapper(original: Callable) -> Callable:
        @functools.wraps(original)
        def save(self, sess, *args, **kwargs):
            try:
                graph = getattr(sess, "graph", None)
                patch = GraphPatch._patches.get(id(graph))
                ident = get_ident()
                recorders = [r for r in patch.recorders if r.thread == ident and not r.failed] \
                    if patch and patch.graph is graph else []
                if recorders:
                    # The runs Saver.save makes are not training steps: timed as save_s, kept out of
                    # the step statistics (as under GuardHook, where they bypass the hooks).
                    tap = SessionTap._taps.get(id(sess))
                    quiet = tap.quiet(ident) if tap is not None and tap.session is sess else nullcontext()
                    quiet.__enter__()
            except Exception as exc:
                internal_error("Saver.save", exc, "timing Saver.save")
                recorders = []
            if not recorders:
                return original(self, sess, *args, **kwargs)
            t0 = perf_counter()
            try:
                return original(self, sess, *args, **kwargs)
            finally:
                try:
                    quiet.__exit__(None, None, None)
                    duration = perf_counter() - t0
                    for rec in recorders:
                        rec.record_save(duration)
                except Exception as exc:
                    for rec in recorders:
                        rec.failed = True
                    internal_error("Saver.save", exc, "timing Saver.save")

        return save
