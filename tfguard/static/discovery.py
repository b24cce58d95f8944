"""Finding the Python files to check under the paths given."""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Callable, Iterable, Iterator, Optional, Sequence, Tuple

from tfguard.static.gitignore import GitIgnore

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


#: Called with (path, reason) for each file or folder skipped while walking a folder.
OnSkip = Callable[[str, str], None]


def iter_python_files(
    paths: Iterable[str],
    exclude: Sequence[str] = DEFAULT_EXCLUDE,
    force_exclude: bool = False,
    root: Optional[str] = None,
    on_skip: Optional[OnSkip] = None,
    respect_gitignore: bool = False,
) -> Iterator[str]:
    """Yield the Python files named by ``paths``, walking folders in sorted order.

    Files named explicitly are always yielded, as given, unless ``force_exclude``
    is set (reading them is the caller's business, and so is failing to);
    files found by walking a folder are skipped when they match ``exclude``
    (see :func:`is_excluded`, which ``root`` is passed to).  While walking, a
    ``*.py`` that is not a readable regular file (a FIFO, a socket, a broken or
    looping symbolic link, a file without read permission) and a sub-folder
    that cannot be listed are skipped, each reported to ``on_skip`` with the
    reason: reading a FIFO would wait forever.  Symbolic links to folders are
    not followed. With ``respect_gitignore``, what the ``.gitignore`` files ignore is skipped while walking
    (see :mod:`tfguard.static.gitignore`); paths named explicitly are still checked, as ruff does.
    """
    for path in paths:
        if force_exclude and is_excluded_with_parents(path, exclude, root):
            continue
        if os.path.isdir(path):
            yield from _walk(path, exclude, root, on_skip or _ignore, GitIgnore(path) if respect_gitignore else None)
        else:
            yield path


def _ignore(path: str, reason: str) -> None:
    pass


def _walk(top: str, exclude: Sequence[str], root: Optional[str], on_skip: OnSkip,
          ignore: Optional[GitIgnore]) -> Iterator[str]:
    strip = top in (".", "./")  # "./pkg/a.py" -> "pkg/a.py": relative paths stay relative, without noise
    folders = [top]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError as exc:
            on_skip(_shown(folder, strip), f"cannot read folder: {exc.strerror or exc}")
            continue
        subfolders = []
        for entry in entries:
            full = os.path.join(folder, entry.name)
            if _is_folder(entry):
                if not is_excluded(full, exclude, root) and not is_virtualenv(full) and not (
                        ignore is not None and ignore.ignored(full, True)):
                    subfolders.append(full)
                continue
            if not entry.name.endswith((".py", ".pyi")) or is_excluded(full, exclude, root):
                continue
            if ignore is not None and ignore.ignored(full, False):
                continue
            problem = _unreadable(entry)
            if problem is not None:
                on_skip(_shown(full, strip), problem)
                continue
            yield _shown(full, strip)
        folders.extend(reversed(subfolders))


def _shown(path: str, strip: bool) -> str:
    return path[2:] if strip and path.startswith("./") else path


def _is_folder(entry: os.DirEntry) -> bool:
    """Return whether ``entry`` is a folder to walk into: a real one, not a symbolic link to one."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _unreadable(entry: os.DirEntry) -> Optional[str]:
    """Return why a walked ``*.py`` entry cannot be checked, or None when it is a readable regular file."""
    try:
        mode = entry.stat().st_mode  # follows a symbolic link
    except OSError as exc:
        if entry.is_symlink():
            return f"broken symbolic link ({exc.strerror or exc})"
        return f"cannot read: {exc.strerror or exc}"
    if stat.S_ISDIR(mode):  # a symbolic link to a folder named like a module
        return "symbolic link to a folder, not followed"
    problem = not_a_regular_file(mode)
    if problem is not None:
        return problem
    if not os.access(entry.path, os.R_OK):
        return "cannot read: Permission denied"
    return None


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a file"


def not_a_regular_file(mode: int) -> Optional[str]:
    """Return why a file of this ``st_mode`` cannot be checked (a folder, a FIFO...), or None for a regular file.

    A FIFO is never opened: that would wait for a writer forever.
    """
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "cannot read: Is a directory"
    return f"not a regular file ({_kind(mode)})"
