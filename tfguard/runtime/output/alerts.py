"""Live alerts of the guard: warnings that a generic "error" filter cannot turn into a crash.

The guard warns from inside `sess.run`, after the step ran. A program run with `-W error`,
`warnings.simplefilter("error")` or pytest's `filterwarnings = error` asked for *its own*
warnings to fail, not for a guard's opinion to kill a healthy step; so a guard warning turns
into an exception only under a filter that names tfguard's warning classes
(`-W error::tfguard.GraphGrowthWarning`, `filterwarnings = error::tfguard.GuardWarning`).
Otherwise it is written to stderr instead. Under `tfguard run` alerts never go through the
warnings machinery at all (the program's behaviour must not change): they go to stderr.

An alert written to stderr is tfguard's own line, and wraps at spaces to 80 columns or `COLUMNS` (`width`), its
continuation lines indented, as the report does; the program's own output and TensorFlow's lines are never
touched, and an alert issued through `warnings.warn` is the warnings machinery's to format.
"""

from __future__ import annotations

import sys
import warnings
from typing import Callable, Optional, Type

from tfguard.runtime.errors import GuardWarning
from tfguard.runtime.output.fit import resolve_width, wrap_lines
from tfguard.runtime.record.tracebacks import user_stacklevel

#: Called before an alert is written to stderr: `tfguard run`'s progress line erases itself there.
before_write: Optional[Callable[[], None]] = None
#: Columns an alert on stderr wraps to: None for 80 or `COLUMNS`, 0 for one line (`tfguard run --wide`).
width: Optional[int] = None
#: Indent of an alert's continuation lines.
HANG = "    "


def emit(message: str, category: Type[GuardWarning], through_warnings: bool = True) -> None:
    """Issue `message` as a `category` warning at the user's line, never crashing on a generic filter."""
    if not through_warnings:
        _to_stderr(message, category)
        return
    try:
        warnings.warn(message, category, stacklevel=user_stacklevel())
    except GuardWarning:
        if asked_for_errors(category, message):
            raise
        _to_stderr(message, category)


def asked_for_errors(category: Type[GuardWarning], message: str) -> bool:
    """True when the first warnings filter matching a `category` warning is an "error" filter
    that names one of tfguard's warning classes (not `Warning` or `UserWarning`)."""
    for action, text, filter_category, _module, _line in warnings.filters:
        if text is not None and not text.match(message):
            continue
        if issubclass(category, filter_category):
            return action == "error" and issubclass(filter_category, GuardWarning)
    return False


def _to_stderr(message: str, category: Type[GuardWarning]) -> None:
    try:
        if before_write is not None:
            before_write()
        lines = wrap_lines(message, resolve_width(width), category.__name__ + ": ", HANG)
        sys.stderr.write("\n".join(lines) + "\n")
    except Exception:  # a closed or odd stderr must not break the program either
        pass
