"""Keep the guard's wrapper frames out of the program's own errors, where they are raised.

`tfguard run` filters the guard's frames from the traceback it prints (run/runner.py), but a program's error is
often shown elsewhere: a traceback the program prints itself (`logging.exception`, `traceback.print_exc()`), the
text TensorFlow puts in the error of a `tf.data` generator or `numpy_function` that raised, a test runner's report.
So each wrapper the TF2 capture installs drops its own frame from an error that came from the call it wraps, as
it passes: the traceback then reads as without the guard. Only that frame goes: an error raised by the guard's own
code has no frame of the wrapped call below the wrapper's and keeps every frame (it is tfguard's), and
`TFGUARD_TRACEBACK=full` keeps them all.

The wrapper calls `hide_own_frame(exc)` in an `except BaseException as exc:` around the wrapped call, then a bare
`raise`: a bare `raise` adds no frame to the traceback (Python 3.11+ re-raises the exception's own traceback; an
older Python re-raises the one it caught, and the frame stays).
"""

from __future__ import annotations

import os
import sys


def hide_own_frame(exc: BaseException) -> None:
    """Drop the calling wrapper's frame from `exc`'s traceback when the error came from below it (see module
    docstring); leave it when it was raised in the wrapper itself or `TFGUARD_TRACEBACK=full` is set."""
    tb = exc.__traceback__
    if tb is None or tb.tb_next is None or tb.tb_frame is not sys._getframe(1):
        return
    if os.environ.get("TFGUARD_TRACEBACK") == "full":
        return
    exc.__traceback__ = tb.tb_next
