"""Checking files and folders with each file's own settings (see :mod:`tfguard.static.settings_resolver`).

Files are found as :func:`~tfguard.static.engine.check_paths` finds them, each folder walked with the settings
that govern it; a file found that way is then also held to the exclusions of its own configuration. Files are
grouped by their settings and project root, and each group is checked as one run (its own worker processes, and
its own pack in the result cache, whose key holds the settings), so the result does not depend on the order of
the paths, nor on which of them comes first.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from tfguard.static.cache import ResultCache
from tfguard.static.config import Settings
from tfguard.static.discovery import DEFAULT_EXCLUDE, is_excluded_with_parents, iter_python_files
from tfguard.static.engine import check_files
from tfguard.static.finding import CheckResult, FileError, Finding
from tfguard.static.project_root import find_project_root
from tfguard.static.settings_resolver import SettingsResolver


def exclusions(settings: Settings) -> Tuple[str, ...]:
    """Return the globs a walk skips under ``settings``: ``exclude`` (or the default list) and ``extend-exclude``."""
    return tuple(settings.exclude or DEFAULT_EXCLUDE) + tuple(settings.extend_exclude)


def discover(paths: Sequence[str], resolver: SettingsResolver, force_exclude: bool = False,
             skipped: Optional[List[FileError]] = None) -> List[Tuple[str, str, Settings]]:
    """Return (file, the path of the command line that led to it, its settings) for every Python file to check.

    Each path is walked with its own settings; a file found while walking is skipped when its own settings
    exclude it (or a folder above it, up to their root). Files and folders skipped as unreadable go to
    ``skipped``. Files named on the command line are always checked unless ``force_exclude``.
    """
    found: List[Tuple[str, str, Settings]] = []
    by_folder: Dict[str, Settings] = {}  # the folder of a walked file, as spelt -> its settings

    def on_skip(path: str, reason: str) -> None:
        if skipped is not None:
            skipped.append(FileError(path, reason))

    for path in paths:
        walking = resolver.settings_for(path)
        for file in iter_python_files([path], exclusions(walking), force_exclude=force_exclude,
                                      root=walking.root or None, on_skip=on_skip,
                                      respect_gitignore=walking.respect_gitignore):
            if file == path:
                found.append((file, path, walking))
                continue
            folder = os.path.dirname(file)
            own = by_folder.get(folder)
            if own is None:
                own = by_folder[folder] = resolver.settings_for(file, is_file=True)
            if own is not walking and is_excluded_with_parents(file, exclusions(own), own.root or None):
                continue
            found.append((file, path, own))
    return found


@dataclass
class ConfiguredRun:
    """A check of files with their own settings: the result, the files checked, and a cache warning if any."""

    result: CheckResult
    files: List[str] = field(default_factory=list)
    cache_warning: Optional[str] = None


def check_configured(paths: Sequence[str], resolver: SettingsResolver, force_exclude: bool = False,
                     jobs: Optional[int] = 1, cache_dir: Optional[str] = None) -> ConfiguredRun:
    """Check every Python file under ``paths`` with its own settings.

    With ``cache_dir``, results are cached there (one pack per set of settings).
    """
    skipped: List[FileError] = []
    files = discover(paths, resolver, force_exclude, skipped)
    roots: Dict[str, str] = {}
    groups: Dict[Tuple[Settings, str], List[str]] = {}
    for file, path, settings in files:
        if path not in roots:
            roots[path] = find_project_root(path)
        groups.setdefault((settings, roots[path]), []).append(file)
    caches: Dict[Settings, ResultCache] = {}
    result = CheckResult()
    for (settings, root), group in groups.items():
        cache = None
        if cache_dir is not None:
            cache = caches.get(settings) or caches.setdefault(settings, ResultCache(cache_dir, settings))
        part = check_files(group, settings, root, paths, jobs=jobs, cache=cache)
        result.findings.extend(part.findings)
        result.errors.extend(part.errors)
        result.files_checked += part.files_checked
        result.python2_files.extend(part.python2_files)
    result.findings.sort(key=Finding.sort_key)
    result.errors.sort(key=lambda error: error.path)
    result.python2_files.sort()
    result.skipped = sorted(skipped, key=lambda error: error.path)
    warning = next((cache.warning for cache in caches.values() if cache.warning), None)
    return ConfiguredRun(result, [file for file, _, _ in files], warning)
