"""``tfguard check --watch``: check, then check again whenever a checked file or a configuration file changes.

Polling (one look at the files' modification times and sizes a second), as simple and portable as can be: no
dependency, the same on every system. Ctrl-C stops it (one ``tfguard: interrupted`` line, status 130).
"""

from __future__ import annotations

import fnmatch
import os
import sys
import time
from typing import Callable, Dict, Sequence, Tuple

from tfguard.cli.errors import PROG, UsageError
from tfguard.static.config import ConfigError
from tfguard.static.discovery import DEFAULT_EXCLUDE

#: Seconds between two looks at the files.
INTERVAL = 1.0
#: What is looked at: Python files and what configures them.
_WATCHED = ("*.py", "*.pyi", "pyproject.toml", "tfguard.toml", ".tfguard.toml", ".gitignore")

sleep = time.sleep  # a test replaces it


def snapshot(paths: Sequence[str]) -> Dict[str, Tuple[int, int]]:
    """Return ``{file: (mtime_ns, size)}`` of the watched files under ``paths`` (skipping the default exclusions)."""
    seen: Dict[str, Tuple[int, int]] = {}

    def look(path: str) -> None:
        try:
            stat = os.stat(path)
        except OSError:
            return
        seen[path] = (stat.st_mtime_ns, stat.st_size)

    for root in paths:
        if os.path.isfile(root):
            look(root)
            continue
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not any(fnmatch.fnmatch(d, pattern) for pattern in DEFAULT_EXCLUDE)]
            for name in files:
                if any(fnmatch.fnmatch(name, pattern) for pattern in _WATCHED):
                    look(os.path.join(folder, name))
    return seen


def _changed(before: Dict[str, Tuple[int, int]], after: Dict[str, Tuple[int, int]]) -> str:
    for path in sorted(set(before) | set(after)):
        if before.get(path) != after.get(path):
            return path
    return ""


def watch(check_once: Callable[[], int], paths: Sequence[str]) -> int:
    """Run ``check_once`` now and after every change under ``paths``, until Ctrl-C (KeyboardInterrupt)."""
    shown = ", ".join(paths)
    while True:
        before = snapshot(paths)
        try:
            check_once()
        except (UsageError, ConfigError) as exc:  # a configuration mistyped while watching: say it, keep watching
            print(f"{PROG}: error: {exc}", file=sys.stderr)
        print(f"{PROG}: watching {shown} for changes (Ctrl-C stops)", file=sys.stderr)
        sys.stderr.flush()
        while True:
            sleep(INTERVAL)
            after = snapshot(paths)
            path = _changed(before, after)
            if path:
                print(f"\n{PROG}: {path} changed: checking again", file=sys.stderr)
                break
