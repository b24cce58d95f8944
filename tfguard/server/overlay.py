"""The project the language server analyses: open buffers over the files on disk, kept between checks.

A check follows calls into the project's other files (:class:`~tfguard.static.analysis.project.Project`); in
the editor those files may be open with unsaved edits, and the analysis must see what the user sees. The
project lives as long as the server, so its parsed neighbours are reused from one keystroke to the next;
before each check, the files whose text changed since they were analysed (on disk or in a buffer) are
forgotten, with every file that followed into them.
"""

from __future__ import annotations

import os
from typing import Callable, Dict, Optional, Tuple

from tfguard.static.analysis.project import Project
from tfguard.static.parsing import decode_source

#: Absolute path -> the unsaved text of the file open in the editor, or None when it is not open.
Buffers = Callable[[str], Optional[str]]

#: What a file's analysis was made from: ("buffer", text hash) or ("disk", mtime in ns, size).
Stamp = Tuple[object, ...]


class OverlayProject(Project):
    """A :class:`Project` that reads open buffers before the disk and forgets what changed under it."""

    def __init__(self, root: str, buffers: Buffers, python2: bool = True) -> None:
        # Files are named by their absolute paths in findings and chains: the editor speaks in URIs.
        super().__init__(root, [os.path.abspath(root)], python2=python2)
        self._buffers = buffers
        self._stamps: Dict[str, Stamp] = {}

    def read_source(self, path: str) -> str:
        """Return the editor's text of ``path`` when it is open, else the file's text on disk."""
        text = self._buffers(path)
        if text is not None:
            self._stamps[path] = ("buffer", hash(text))
            return text
        stamp = disk_stamp(path)
        with open(path, "rb") as handle:
            data = handle.read()
        self._stamps[path] = stamp
        return decode_source(data)

    def checked(self, path: str, text: str) -> None:
        """Note that ``path`` was just checked from ``text`` (its analysis is adopted by the project)."""
        self._stamps[os.path.abspath(path)] = ("buffer", hash(text))

    def refresh(self) -> None:
        """Forget every held analysis whose file's text is no longer what it was made from."""
        changed = [path for path in self.cached_paths() if self._current_stamp(path) != self._stamps.get(path)]
        for path in changed:
            self._stamps.pop(path, None)
        self.forget(changed)

    def forget_file(self, path: str) -> None:
        """Forget one file's analysis (and its importers'), e.g. after fixes were planned on another text of it."""
        self._stamps.pop(os.path.abspath(path), None)
        self.forget([path])

    def _current_stamp(self, path: str) -> Optional[Stamp]:
        text = self._buffers(path)
        if text is not None:
            return ("buffer", hash(text))
        return disk_stamp(path)


def disk_stamp(path: str) -> Optional[Stamp]:
    """Return what identifies the file's content on disk cheaply (modification time and size), None if gone."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return ("disk", status.st_mtime_ns, status.st_size)
