"""Patching one attribute of an object exactly: read what the instance itself holds, put it back as it was.

Session and graph patches are instance attributes on the guarded objects only, so that taking them back leaves
the object as it was (the class's method again, or the instance's own earlier value).
"""

from __future__ import annotations

import functools
import threading
import weakref
from typing import Any, Callable, List

#: The instance held no value of its own (the attribute came from its class).
MISSING = object()
#: Held while a patch is installed or removed (one lock for the session, graph and Saver patches).
lock = threading.RLock()


def instance_attr(obj: Any, name: str) -> Any:
    """The instance-level value of `obj.name`, or MISSING when it comes from the class."""
    value = getattr(obj, name, MISSING)
    if value is MISSING:
        return MISSING
    if getattr(value, "__self__", None) is obj and getattr(value, "__func__", None) is getattr(type(obj), name, None):
        return MISSING
    return value


def weakly_bound(method: Callable, owner: Any) -> Callable:
    """`method` bound to `owner` through a weak reference, when it is a bound method of `owner`.

    A wrapper stored on `owner` that held the bound method would make a reference cycle: the
    session would then outlive the program's last reference to it until the garbage collector
    runs, and so would the memory it holds.
    """
    func = getattr(method, "__func__", None)
    if func is None or getattr(method, "__self__", None) is not owner:
        return method
    ref = weakref.ref(owner)

    @functools.wraps(func)
    def call(*args: Any, **kwargs: Any) -> Any:
        return func(ref(), *args, **kwargs)

    return call



def restore_attr(obj: Any, name: str, previous: Any) -> None:
    """Put back what `instance_attr` read: delete the instance's value when it had none of its own."""
    if previous is MISSING:
        try:
            delattr(obj, name)
        except AttributeError:
            pass
    else:
        setattr(obj, name, previous)


def undo_all(undo: List[Callable[[], None]]) -> None:
    """Run a capture module's undo list, last patch first; a patch that cannot be taken back stays (with no sink
    left it calls straight through)."""
    while undo:
        try:
            undo.pop()()
        except Exception:
            pass


def fail_sinks(sinks: List[Any], where: str, exc: BaseException, doing: str) -> None:
    """tfguard's own error in a capture module's wrapper: every sink stops (marked ``failed``; the wrappers then
    call straight through), said once on stderr (runtime/safety.py)."""
    from tfguard.runtime.safety import internal_error

    failed = list(sinks)
    del sinks[:]
    for sink in failed:
        try:
            sink.failed = True
        except Exception:
            pass
    internal_error(where, exc, doing)
