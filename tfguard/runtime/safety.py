"""tfguard's own errors never become the guarded program's: they stop the guard, not the program.

Every place where control passes from the program (or TensorFlow, or pytest) into tfguard -- a wrapped
`Session.run`, `Saver.save`, a graph hook, the import hook, a `GuardHook` method, the pytest plugin's hooks,
`tfguard run`'s own set-up and report -- runs tfguard's part inside a shield: an internal error is written as
one line on stderr, that says it is tfguard's, the guard of that session stops (its wrappers call straight
through from then on), and the program goes on with its own output, files and exit status. `failures` keeps
what went wrong, so that `tfguard run --fail-on` can exit with `GUARD_FAILED_STATUS`, which says the guard
failed, not the program.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, List, Optional

#: Exit status of `tfguard run --fail-on ...` (and of the pytest plugin's failing verdicts) when the program
#: itself exited 0 but tfguard failed internally: EX_SOFTWARE of sysexits.h, "internal software error".
GUARD_FAILED_STATUS = 70
#: One line per internal error, in the order they happened (the process's, not one guard's).
failures: List[str] = []


def reraise_deliberate(exc: BaseException) -> None:
    """Re-raise `exc` when tfguard raises it on purpose: a guard warning that the program's warnings filter
    names as an error (alerts.py), a GraphFrozenError of a frozen block. Those are no internal errors."""
    from tfguard.runtime.errors import GraphFrozenError, GuardWarning

    if isinstance(exc, (GuardWarning, GraphFrozenError)):
        raise exc


def internal_error(where: str, exc: BaseException, stopped: str = "guarding this session") -> str:
    """Note tfguard's internal error `exc` in `where` and write its one warning line on stderr; return the line."""
    try:
        line = "tfguard: internal error in %s (%s: %s); stopped %s, the program goes on unguarded" % (
            where, type(exc).__name__, _one_line(exc), stopped)
    except Exception:  # an exception whose str() fails: still one line
        line = "tfguard: internal error in %s; stopped %s, the program goes on unguarded" % (where, stopped)
    failures.append(line)
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except Exception:  # a closed or odd stderr must not break the program either
        pass
    return line


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:200] + ("..." if len(text) > 200 else "")


def shielded(where: str, fallback: Any = None, on_error: Optional[Callable[[], None]] = None,
             stopped: str = "guarding this session") -> Callable[[Callable], Callable]:
    """Decorate a guard-only function (one that never calls the program's code): an `Exception` it raises
    is reported by `internal_error`, `on_error` is called, and `fallback` is returned instead.

    BaseExceptions (KeyboardInterrupt, tfguard run's MaxStepsReached) pass: they are no internal errors.
    """
    def decorate(function: Callable) -> Callable:
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return function(*args, **kwargs)
            except Exception as exc:
                internal_error(where, exc, stopped)
                if on_error is not None:
                    try:
                        on_error()
                    except Exception:
                        pass
                return fallback

        call.__name__ = getattr(function, "__name__", "call")
        call.__doc__ = function.__doc__
        call.__wrapped__ = function  # type: ignore[attr-defined]
        return call

    return decorate


def give_up(guarded: Any, where: str, exc: BaseException, stopped: str = "guarding this session") -> None:
    """Stop guarding `guarded` after tfguard's internal error `exc` in `where`: set its `failed`, call its
    `on_failure()` (which takes its patches back; its own error is swallowed: `failed` alone makes the wrappers
    call straight through), and write the one warning line, only the first time."""
    reraise_deliberate(exc)
    if getattr(guarded, "failed", False):
        return
    try:
        guarded.failed = True
    except Exception:
        pass
    try:
        guarded.on_failure()
    except Exception:
        pass
    internal_error(where, exc, stopped)


def failed_since(count: int) -> bool:
    """Whether an internal error happened after the first `count` ones."""
    return len(failures) > count
