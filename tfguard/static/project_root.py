"""Finding a checked project's root folder (the folder of its nearest root marker).

Kept apart from :mod:`tfguard.static.analysis.project` so that the result cache and the
command line can place the cache folder without importing astroid.
"""

from __future__ import annotations

import os
from typing import Optional

#: Files or folders that mark the root of a project.
ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def find_project_root(path: str, fallback: Optional[str] = None) -> str:
    """Return the nearest folder at or above ``path`` holding a root marker.

    Without one, ``fallback`` if given, else the folder above the outermost
    package (folders with ``__init__.py``) that contains ``path``, so that
    ``import pkg.mod`` resolves when a single file of a plain checkout is checked.
    """
    start = os.path.abspath(path)
    folder = start if os.path.isdir(start) else os.path.dirname(start)
    current = folder
    while True:
        if any(os.path.exists(os.path.join(current, marker)) for marker in ROOT_MARKERS):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return fallback if fallback is not None else package_base(folder)
        current = parent


def package_base(folder: str) -> str:
    """Return the folder above the outermost package containing ``folder`` (``folder`` itself if none)."""
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return folder


__all__ = ["ROOT_MARKERS", "find_project_root", "package_base"]
