"""``--html FILE`` of ``tfguard run`` and ``tfguard report``: check where the page goes, and write it."""

from __future__ import annotations

import os
import sys
from typing import Callable

from tfguard.cli.errors import UsageError


def check_html_path(path: str) -> None:
    """Refuse, before anything runs, an ``--html`` path whose folder does not exist or that is a folder."""
    if os.path.isdir(path) or not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        raise UsageError("cannot write --html %s: %s" % (path, "it is a folder" if os.path.isdir(path)
                                                         else "no such folder"))


def write_html(path: str, write: Callable[[], None], quiet: bool = False) -> None:
    """Write the page to `path` with `write` (an output format's delivery, or the comparison page's write); a
    one-line UsageError when it cannot be written."""
    try:
        write()
    except OSError as exc:
        raise UsageError("cannot write %s: %s" % (path, exc.strerror or exc)) from None
    if not quiet:
        print("tfguard: wrote %s" % path, file=sys.stderr)
