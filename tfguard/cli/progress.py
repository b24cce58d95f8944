"""A one-line progress indicator for long work, drawn on a terminal only (never into a file or a pipe)."""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Callable, Optional

#: Seconds of work before the line first appears (short work stays silent), and between redraws.
DELAY_S = 2.0
INTERVAL_S = 0.5


def wanted(stream: Any, choice: Optional[bool] = None) -> bool:
    """Return whether to draw on ``stream``: ``choice`` when given, else only on a terminal (not ``TERM=dumb``)."""
    if choice is not None:
        return choice
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"
    except ValueError:  # a closed stream
        return False


class Progress:
    """Redraw ``describe()`` (plus the elapsed time) on one line of ``stream`` from a background thread;
    an empty ``describe()`` draws nothing (yet).

    Use as a context manager; the line is erased when the block ends, so what is printed afterwards starts
    on a clean line. Nothing is drawn when ``enabled`` is false.
    """

    def __init__(self, stream: Any, describe: Callable[[], str], enabled: bool,
                 delay_s: float = DELAY_S) -> None:
        self._stream = stream
        self._describe = describe
        self._enabled = enabled
        self._delay_s = delay_s
        self._stop = threading.Event()
        self._drawn = False
        self._lock = threading.Lock()
        self._thread: Optional[threading.Thread] = None
        self._started = 0.0

    def __enter__(self) -> "Progress":
        self._started = time.monotonic()
        if self._enabled:
            self._thread = threading.Thread(target=self._loop, name="tfguard-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.clear()

    def clear(self) -> None:
        """Erase the line if it is drawn."""
        with self._lock:
            if self._drawn:
                self._write("\r\033[K")
                self._drawn = False

    def _loop(self) -> None:
        if self._stop.wait(self._delay_s):
            return
        while not self._stop.is_set():
            try:
                said = self._describe()
            except Exception:  # noqa: BLE001 - a progress line is never worth a crash
                said = ""
            if not said:  # nothing to tell yet (no session): draw nothing
                self._stop.wait(INTERVAL_S)
                continue
            text = "%s  %.0f s" % (said, time.monotonic() - self._started)
            with self._lock:
                if self._stop.is_set():
                    return
                self._write("\r\033[K" + text)
                self._drawn = True
            self._stop.wait(INTERVAL_S)

    def _write(self, text: str) -> None:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):  # the terminal went away
            self._stop.set()
