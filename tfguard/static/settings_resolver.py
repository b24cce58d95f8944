"""Which settings apply to a file: those of the closest configuration file above it, as ruff resolves them.

Each checked file gets the settings of the closest ``.tfguard.toml``, ``tfguard.toml`` or pyproject.toml with a
``[tool.tfguard]`` table at or above it (``extend`` followed), then the command line's options over them; so the
result of a file never depends on the other paths of the command line, their order, or the working folder.
``--config FILE`` gives every file the settings of FILE, ``--isolated`` the defaults.
"""

from __future__ import annotations

import os
from typing import Callable, Dict, Optional, Tuple

from tfguard.static.config import (
    CONFIG_NAMES,
    TABLE,
    Explain,
    Settings,
    read_config_file,
    read_toml,
    settings_at_top_level,
    tool_table,
)

#: The command line's options, applied over the settings a configuration file gave.
Adjust = Callable[[Settings], Settings]


def _unchanged(settings: Settings) -> Settings:
    return settings


class SettingsResolver:
    """Resolves and remembers the settings of files, folder by folder (each file is read once)."""

    def __init__(self, config_file: Optional[str] = None, isolated: bool = False,
                 adjust: Optional[Adjust] = None, explain: Optional[Explain] = None) -> None:
        self._adjust = adjust or _unchanged
        self._explain = explain
        self._isolated = isolated
        self._forced = os.path.abspath(config_file) if config_file is not None else None
        #: folder -> (closest configuration file or None, nearest pyproject.toml or None)
        self._folders: Dict[str, Tuple[Optional[str], Optional[str]]] = {}
        #: configuration file (or "" for the defaults rooted at a folder) -> settings
        self._settings: Dict[Tuple[str, str], Settings] = {}
        if self._forced is not None:
            if not os.path.isfile(self._forced):
                from tfguard.static.config import ConfigError

                raise ConfigError(f"config file not found: {config_file}")
            self._load(self._forced, "")

    def source_for(self, path: str, is_file: bool = False) -> Optional[str]:
        """Return the absolute path of the configuration file that configures ``path``, or None (defaults).

        ``is_file`` spares a look at the disk when the caller knows ``path`` is a file (found by a walk).
        """
        if self._isolated:
            return None
        if self._forced is not None:
            return self._forced
        return self._folder(_folder_of(path, is_file))[0]

    def settings_for(self, path: str, is_file: bool = False) -> Settings:
        """Return the settings of ``path`` (a file or a folder), the command line's options applied."""
        if self._isolated:
            return self._load("", os.getcwd())
        source = self.source_for(path, is_file)
        if source is not None:
            return self._load(source, "")
        nearest = self._folder(_folder_of(path, is_file))[1]
        return self._load("", os.path.dirname(nearest) if nearest else os.getcwd())

    def _load(self, source: str, root: str) -> Settings:
        key = (source, root)
        if key not in self._settings:
            settings = read_config_file(source, self._explain) if source else Settings(root=root)
            self._settings[key] = self._adjust(settings)
        return self._settings[key]

    def _folder(self, folder: str) -> Tuple[Optional[str], Optional[str]]:
        known = self._folders.get(folder)
        if known is not None:
            return known
        found: Optional[str] = None
        nearest: Optional[str] = None
        for name in CONFIG_NAMES:
            candidate = os.path.join(folder, name)
            if not os.path.isfile(candidate):
                continue
            if name != "pyproject.toml":
                found = candidate
                break
            nearest = candidate
            if tool_table(read_toml(candidate), candidate) is not None:
                found = candidate
            break
        if found is None:
            parent = os.path.dirname(folder)
            above = self._folder(parent) if parent != folder else (None, None)
            found = above[0]
            nearest = nearest or above[1]
        self._folders[folder] = (found, nearest)
        return found, nearest


def _folder_of(path: str, is_file: bool = False) -> str:
    absolute = os.path.abspath(path)
    return os.path.dirname(absolute) if is_file or not os.path.isdir(absolute) else absolute


def describe(path: str, resolver: SettingsResolver) -> str:
    """Return what ``tfguard check --show-settings PATH`` prints: the configuration file and the settings."""
    source = resolver.source_for(path)
    settings = resolver.settings_for(path)
    lines = [f"Resolved settings for: {path}",
             "Settings path: " + (f"{source}" + ("" if settings_at_top_level(source) else f" [{TABLE}]")
                                  if source else "none (the defaults)"),
             f"root = {settings.root}"]
    from tfguard.static.discovery import DEFAULT_EXCLUDE
    from tfguard.static.registry import all_rules

    # An empty select, exclude or fixable means the default, printed as what it is (ruff prints the resolved set).
    defaults = {"select": [code for code, rule in all_rules().items() if rule.default_enabled],
                "exclude": list(DEFAULT_EXCLUDE), "fixable": ["ALL"]}
    for name in ("select", "extend_select", "ignore", "exclude", "extend_exclude", "fixable", "unfixable"):
        value = list(getattr(settings, name))
        shown = f"{value}" if value or name not in defaults else f"{defaults[name]}  (the default)"
        lines.append(f"{name.replace('_', '-')} = {shown}")
    enabled = [code for code in all_rules() if settings.is_enabled(code, path)]
    lines.append(f"rules checked = {enabled}")
    lines.append("per-file-ignores = {%s}" % ", ".join(f"{pattern!r}: {list(codes)}"
                                                       for pattern, codes in settings.per_file_ignores))
    lines.append(f"baseline = {settings.baseline!r}")
    lines.append(f"py2 = {'on' if settings.python2 else 'off'}")
    lines.append(f"respect-gitignore = {'true' if settings.respect_gitignore else 'false'}")
    lines.append(f"docs-url = {settings.docs_url!r}")
    lines.append(f"unsafe-fixes = {'true' if settings.unsafe_fixes else 'false'}")
    lines.append(f"runtime-report = {settings.runtime_report!r}")
    return "\n".join(lines) + "\n"
