"""Each open file's settings, as ``tfguard check`` finds them, noticed when they change.

The closest ``.tfguard.toml``, ``tfguard.toml`` or pyproject.toml with a ``[tool.tfguard]`` table at or above
the file wins (:class:`~tfguard.static.settings_resolver.SettingsResolver`, the CLI's own resolver). The resolver
remembers what it read; it is replaced by a fresh one when the client reports a change to a configuration file
(``workspace/didChangeWatchedFiles``) or when, before a check, a configuration file above the checked file was
created, changed or removed (its modification time and size: clients that watch no files are served too).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from tfguard.static.config import CONFIG_NAMES, ConfigError, Settings
from tfguard.static.configured import exclusions
from tfguard.static.discovery import is_excluded_with_parents
from tfguard.static.settings_resolver import SettingsResolver

#: The configuration files of the folders from one file's up to the file system's root: (path, mtime, size).
Stamp = Tuple[Tuple[str, int, int], ...]


@dataclass(frozen=True)
class FileSettings:
    """The settings of one file, or the one-line reason there are none (a bad configuration file)."""

    settings: Optional[Settings]
    error: str = ""

    def excludes(self, path: str) -> bool:
        """Whether the settings exclude ``path`` (or a folder above it, up to their root), as ``--force-exclude``
        does on the command line; a file whose configuration is broken is excluded too (silence, not noise)."""
        if self.settings is None:
            return True
        return is_excluded_with_parents(path, exclusions(self.settings), self.settings.root or None)


class Configuration:
    """Resolves file settings with the CLI's resolver and starts over when a configuration file changes."""

    def __init__(self) -> None:
        self._resolver = SettingsResolver()
        self._stamps: Dict[str, Stamp] = {}

    def reload(self) -> None:
        """Forget every configuration file read so far (one changed)."""
        self._resolver = SettingsResolver()
        self._stamps = {}

    def settings_for(self, path: str) -> FileSettings:
        """Return the settings of the file at absolute ``path``, re-reading them if a configuration file above
        it changed since the last time."""
        folder = os.path.dirname(os.path.abspath(path))
        stamp = config_stamp(folder)
        if folder in self._stamps and self._stamps[folder] != stamp:
            self.reload()
        self._stamps[folder] = stamp
        try:
            return FileSettings(self._resolver.settings_for(path, is_file=True))
        except ConfigError as exc:
            self.reload()  # read the file again next time: the user is fixing it
            return FileSettings(None, str(exc))


def config_stamp(folder: str) -> Stamp:
    """Return the modification time and size of every configuration file at or above ``folder``."""
    found = []
    while True:
        for name in CONFIG_NAMES:
            candidate = os.path.join(folder, name)
            try:
                status = os.stat(candidate)
            except OSError:
                continue
            found.append((candidate, status.st_mtime_ns, status.st_size))
        parent = os.path.dirname(folder)
        if parent == folder:
            return tuple(found)
        folder = parent


def is_config_file(path: str) -> bool:
    """Whether ``path`` is named like a configuration file tfguard reads."""
    return os.path.basename(path) in CONFIG_NAMES
