"""Finding the Python files to check under the paths given."""

from __future__ import annotations

import os
from fnmatch import fnmatch
from pathlib import PurePosixPath
from typing import Iterable, Iterator, Sequence

#: Folders never descended into.
DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".venv", "venv", ".env", "env", ".tox", ".nox", ".eggs",
    "build", "dist", "site-packages", "node_modules", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".tfguard_cache",
)


def is_excluded(path: str, patterns: Sequence[str]) -> bool:
    """Return whether ``path`` matches one of the glob ``patterns``.

    A pattern without ``/`` is matched against the last part of the path
    (``build``, ``*_pb2.py``); one with ``/`` against the whole path
    (``tests/data/*``, ``**/generated/*``).
    """
    posix = path.replace(os.sep, "/")
    while posix.startswith("./"):
        posix = posix[2:]
    name = PurePosixPath(posix).name
    for pattern in patterns:
        if "/" in pattern:
            stripped = pattern.rstrip("/")
            if fnmatch(posix, stripped) or fnmatch(posix, stripped + "/*") or fnmatch(posix, "*/" + stripped):
                return True
        elif fnmatch(name, pattern):
            return True
    return False


def iter_python_files(
    paths: Iterable[str], exclude: Sequence[str] = DEFAULT_EXCLUDE, force_exclude: bool = False
) -> Iterator[str]:
    """Yield the Python files named by ``paths``, walking folders in sorted order.

    Files named explicitly are always yielded unless ``force_exclude`` is set;
    files found by walking a folder are skipped when they match ``exclude``.
    """
    for root in paths:
        if os.path.isdir(root):
            yield from _walk(root, exclude)
        elif not force_exclude or not is_excluded(root, exclude):
            yield root


def _walk(root: str, exclude: Sequence[str]) -> Iterator[str]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not is_excluded(os.path.join(dirpath, d), exclude))
        for name in sorted(filenames):
            if not name.endswith((".py", ".pyi")):
                continue
            full = os.path.join(dirpath, name)
            if not is_excluded(full, exclude):
                yield full
