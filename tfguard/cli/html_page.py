"""``--html FILE`` of ``tfguard run`` and ``tfguard report``: check where the page goes, and write it."""

from __future__ import annotations

import os
import sys

from tfguard.cli.errors import UsageError


def check_html_path(path: str) -> None:
    """Refuse, before anything runs, an ``--html`` path whose folder does not exist or that is a folder."""
    if os.path.isdir(path) or not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        raise UsageError("cannot write --html %s: %s" % (path, "it is a folder" if os.path.isdir(path)
                                                         else "no such folder"))


def write_html(path: str, html: str, quiet: bool = False) -> None:
    """Write the page to `path`; a one-line UsageError when it cannot be written."""
    from tfguard.runtime.html_report import write_page

    try:
        write_page(path, html)
    except OSError as exc:
        raise UsageError("cannot write %s: %s" % (path, exc.strerror or exc)) from None
    if not quiet:
        print("tfguard: wrote %s" % path, file=sys.stderr)
