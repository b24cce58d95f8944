"""Finding the Python files to check under the paths given."""

from __future__ import annotations

import fnmatch
import os
import re
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Callable, Iterable, Iterator, Optional, Sequence, Tuple

#: Folders never descended into.
DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".venv", "venv", ".env", "env", ".tox", ".nox", ".eggs",
    "build", "dist", "site-packages", "node_modules", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".tfguard_cache",
)


def is_excluded(path: str, patterns: Sequence[str], root: Optional[str] = None) -> bool:
    """Return whether ``path`` matches one of the glob ``patterns``.

    A pattern without ``/`` is matched against the last part of the path
    (``build``, ``*_pb2.py``); one with ``/`` against the whole path
    (``tests/data/*``, ``**/generated/*``), both as given and, when ``root``
    is set, relative to ``root`` (the project folder).
    """
    posix = _strip_dot(path.replace(os.sep, "/"))
    name_matcher, path_matcher = _compiled(tuple(patterns))
    if name_matcher is not None and name_matcher(os.path.normcase(posix.rstrip("/").rpartition("/")[2])):
        return True
    if path_matcher is None:
        return False
    candidates = [posix]
    if root:
        rel = os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")
        if rel != ".." and not rel.startswith("../"):
            candidates.append(rel)
    return any(path_matcher(os.path.normcase(candidate)) for candidate in candidates)


@lru_cache(maxsize=32)
def _compiled(patterns: Tuple[str, ...]) -> Tuple[Optional[Callable], Optional[Callable]]:
    """Return matchers for the name patterns and the path patterns, each one regex (as fnmatch would match).

    Matching file by file with ``fnmatch`` was most of the time of a run whose results all come from the cache.
    """
    names = [pattern for pattern in patterns if "/" not in pattern]
    paths = []
    for pattern in patterns:
        if "/" in pattern:
            stripped = pattern.rstrip("/")
            paths.extend((stripped, stripped + "/*", "*/" + stripped))
    return _one_regex(names), _one_regex(paths)


def _one_regex(patterns: Sequence[str]) -> Optional[Callable]:
    if not patterns:
        return None
    alternatives = "|".join(f"(?:{fnmatch.translate(os.path.normcase(pattern))})" for pattern in patterns)
    return re.compile(alternatives).match


def is_excluded_with_parents(path: str, patterns: Sequence[str], root: Optional[str] = None) -> bool:
    """Return whether ``path`` or one of its parent folders is excluded (for ``--force-exclude``).

    Parents are only looked at below ``root`` (or, outside it, in the relative
    path as given), so a project that itself lives in a folder named ``build``
    is not excluded as a whole.
    """
    if is_excluded(path, patterns, root):
        return True
    posix = _strip_dot(path.replace(os.sep, "/"))
    rel = None
    if root:
        rel = os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")
        if rel == ".." or rel.startswith("../"):
            rel = None
    if rel is None and not posix.startswith(("/", "../")) and not os.path.isabs(path):
        rel = posix
    if rel is None:
        return False
    parts = PurePosixPath(rel).parts
    return any(is_excluded("/".join(parts[:i]), patterns) for i in range(1, len(parts)))


def is_virtualenv(folder: str) -> bool:
    """Return whether ``folder`` is a virtual environment, whatever its name (PEP 405 marker)."""
    return os.path.isfile(os.path.join(folder, "pyvenv.cfg"))


def _strip_dot(posix: str) -> str:
    while posix.startswith("./"):
        posix = posix[2:]
    return posix


def iter_python_files(
    paths: Iterable[str],
    exclude: Sequence[str] = DEFAULT_EXCLUDE,
    force_exclude: bool = False,
    root: Optional[str] = None,
) -> Iterator[str]:
    """Yield the Python files named by ``paths``, walking folders in sorted order.

    Files named explicitly are always yielded, as given, unless ``force_exclude``
    is set; files found by walking a folder are skipped when they match
    ``exclude`` (see :func:`is_excluded`, which ``root`` is passed to).
    """
    for path in paths:
        if force_exclude and is_excluded_with_parents(path, exclude, root):
            continue
        if os.path.isdir(path):
            yield from _walk(path, exclude, root)
        else:
            yield path


def _walk(top: str, exclude: Sequence[str], root: Optional[str]) -> Iterator[str]:
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not is_excluded(os.path.join(dirpath, d), exclude, root) and not is_virtualenv(os.path.join(dirpath, d))
        )
        for name in sorted(filenames):
            if not name.endswith((".py", ".pyi")):
                continue
            full = os.path.join(dirpath, name)
            if not is_excluded(full, exclude, root):
                # "./pkg/a.py" -> "pkg/a.py": relative paths stay relative, without noise.
                yield full[2:] if top in (".", "./") and full.startswith("./") else full
