"""Settings: which rules run on which files, and reading them from ``[tool.tfguard]``."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from fnmatch import fnmatch
from typing import Any, Dict, Iterable, Mapping, Optional, Sequence, Tuple

from tfguard.static.registry import PARSE_ERROR_CODE, all_rules

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.9/3.10 only
    import tomli as tomllib

#: The table of pyproject.toml that holds tfguard's settings.
TABLE = "tool.tfguard"

_LIST_KEYS = ("select", "ignore", "extend-select", "exclude", "extend-exclude", "fixable", "unfixable")
_KNOWN_KEYS = _LIST_KEYS + ("per-file-ignores", "baseline", "py2", "respect-gitignore", "docs-url")


class ConfigError(Exception):
    """A bad configuration file or selector; the message is one line, ready to print."""


def _matches(code: str, selectors: Tuple[str, ...]) -> bool:
    return any(sel == "ALL" or code.startswith(sel) for sel in selectors)


def _relative_to(path: str, root: str) -> Optional[str]:
    """Return ``path`` relative to ``root`` in posix form, or None when it lies outside."""
    rel = os.path.relpath(os.path.abspath(path), root)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return None
    return rel.replace(os.sep, "/")


def _strip_dot_slash(pattern: str) -> str:
    while pattern.startswith("./"):
        pattern = pattern[2:]
    return pattern


def _matches_anchored(rel: str, pattern: str) -> bool:
    """Match a root-relative posix path against an anchored glob; ``dir/`` and ``dir`` also cover what is
    inside the folder, as ruff's ``tests/`` does."""
    stripped = pattern.rstrip("/")
    return fnmatch(rel, stripped) or fnmatch(rel, stripped + "/*")


@dataclass(frozen=True)
class Settings:
    """Rule selection and file exclusion, as merged from pyproject.toml and the command line.

    ``root`` is the folder of the configuration file (or the working folder):
    ``per_file_ignores`` patterns are matched against paths relative to it.
    ``baseline`` is the configured baseline file, made absolute against ``root``
    (empty: none).  ``python2``: files that are not Python 3 are converted from
    Python 2 and checked (``py2 = "off"`` or ``--py2=off``: they get TFG000).
    ``fixable``/``unfixable`` choose the codes ``--fix`` may fix
    (empty ``fixable``: every code). ``respect_gitignore``: walking a folder skips what its ``.gitignore``
    files ignore (``respect-gitignore = false`` or ``--no-respect-gitignore``: it does not).
    """

    select: Tuple[str, ...] = ()
    extend_select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()
    exclude: Tuple[str, ...] = ()
    extend_exclude: Tuple[str, ...] = ()
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = field(default=())
    root: str = ""
    baseline: str = ""
    python2: bool = True
    fixable: Tuple[str, ...] = ()
    unfixable: Tuple[str, ...] = ()
    respect_gitignore: bool = True
    docs_url: str = ""

    def may_fix(self, code: str) -> bool:
        """Return whether ``--fix`` may apply fixes of ``code`` (``fixable``/``unfixable``)."""
        if self.fixable and not _matches(code, self.fixable):
            return False
        return not _matches(code, self.unfixable)

    def is_enabled(self, code: str, path: str = "") -> bool:
        """Return whether findings of ``code`` are reported for ``path``."""
        if code != PARSE_ERROR_CODE and not self._selected(code):
            return False
        if _matches(code, self.ignore):
            return False
        return not any(_matches(code, codes) for codes in self._per_file_codes(path))

    def _per_file_codes(self, path: str) -> Iterable[Tuple[str, ...]]:
        """Yield the codes of each ``per-file-ignores`` pattern that matches ``path``, as ruff matches them.

        A pattern with a ``/`` is anchored to ``root`` (``tests/**`` is ``<root>/tests/**``, so
        ``src/tests/x.py`` does not match); one without matches the file name in any folder
        (``*_pb2.py``, ``__init__.py``). The result is the same from every working folder.
        """
        if not self.per_file_ignores or not path or path.startswith("<"):
            return
        rel = _relative_to(path, self.root or os.getcwd())
        basename = os.path.basename(path)
        for pattern, codes in self.per_file_ignores:
            anchored = _strip_dot_slash(pattern.replace("\\", "/"))
            if "/" not in anchored:
                if fnmatch(basename, anchored):
                    yield codes
            elif rel is not None and _matches_anchored(rel, anchored):
                yield codes

    def _selected(self, code: str) -> bool:
        rule = all_rules().get(code)
        if rule is None:
            return False
        selectors = (self.select or ()) + self.extend_select
        explicit = any(sel == "ALL" or sel == code for sel in selectors)
        if explicit:
            return True
        if not self.select and rule.default_enabled:
            return True
        return rule.default_enabled and _matches(code, selectors)


def validate_selectors(selectors: Iterable[str], where: str) -> None:
    """Raise ConfigError unless every selector is ``ALL`` or a prefix of a known code.

    ``where`` names the option or key in the message (``--select``, ``pyproject.toml: select``).
    """
    codes: Tuple[str, ...] = ()
    for selector in selectors:
        if selector == "ALL":
            continue
        if not codes:
            codes = (PARSE_ERROR_CODE, *all_rules())  # imports every rule: only when there is something to check
        if not selector or not any(code.startswith(selector) for code in codes):
            raise ConfigError(f"{where}: unknown rule code or prefix {selector!r}")


def find_pyproject(start: str) -> Optional[str]:
    """Return the nearest pyproject.toml with a ``[tool.tfguard]`` table at or above ``start``.

    Without such a table anywhere, return the nearest pyproject.toml (it still
    fixes the project root), or None when there is none.
    """
    folder = os.path.abspath(start)
    if not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    nearest = None
    while True:
        candidate = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(candidate):
            nearest = nearest or candidate
            if _tool_table(_read_toml(candidate), candidate) is not None:
                return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return nearest
        folder = parent


def _display(path: str) -> str:
    rel = _relative_to(path, os.getcwd())
    return rel if rel is not None else path


def _read_toml(path: str) -> Dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{_display(path)}: invalid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{_display(path)}: invalid TOML: {exc.reason}") from None
    except OSError as exc:
        raise ConfigError(f"{_display(path)}: cannot read: {exc.strerror or exc}") from None


def _tool_table(document: Mapping[str, Any], path: str) -> Optional[Mapping[str, Any]]:
    node: Any = document
    for part in TABLE.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    if not isinstance(node, Mapping):
        raise ConfigError(f"{_display(path)}: [{TABLE}] must be a table")
    return node


def _string_list(value: Any, where: str) -> Tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where} must be a list of strings")
    return tuple(value)


def settings_from_table(table: Mapping[str, Any], where: str, root: str) -> Settings:
    """Build Settings from a ``[tool.tfguard]`` table; ``where`` prefixes error messages."""
    for key in table:
        if key not in _KNOWN_KEYS:
            raise ConfigError(f"{where}: unknown key {key!r} in [{TABLE}]")
    values: Dict[str, Any] = {}
    for key in _LIST_KEYS:
        if key in table:
            items = _string_list(table[key], f"{where}: {key!r}")
            if key in ("select", "ignore", "extend-select", "fixable", "unfixable"):
                validate_selectors(items, f"{where}: {key}")
            if key == "select" and not items:  # it would read as "no rule" but mean the default rules
                raise ConfigError(f"{where}: 'select' is empty; leave it out for the default rules, "
                                  "or name the rules to check")
            values[key.replace("-", "_")] = items
    if "per-file-ignores" in table:
        raw = table["per-file-ignores"]
        if not isinstance(raw, Mapping):
            raise ConfigError(f"{where}: 'per-file-ignores' must be a table of glob = [codes]")
        pairs = []
        for pattern, codes in raw.items():
            items = _string_list(codes, f"{where}: per-file-ignores {pattern!r}")
            validate_selectors(items, f"{where}: per-file-ignores {pattern!r}")
            pairs.append((pattern, items))
        values["per_file_ignores"] = tuple(pairs)
    if "baseline" in table:
        if not isinstance(table["baseline"], str) or not table["baseline"]:
            raise ConfigError(f"{where}: 'baseline' must be the path of a baseline file")
        values["baseline"] = os.path.join(root, table["baseline"])
    if "py2" in table:
        values["python2"] = parse_switch(table["py2"], f"{where}: 'py2'")
    if "respect-gitignore" in table:
        if not isinstance(table["respect-gitignore"], bool):
            raise ConfigError(f"{where}: 'respect-gitignore' must be true or false")
        values["respect_gitignore"] = table["respect-gitignore"]
    if "docs-url" in table:
        values["docs_url"] = docs_url(table["docs-url"], f"{where}: 'docs-url'")
    return Settings(root=root, **values)


def docs_url(value: Any, where: str) -> str:
    """Read the docs site's base address: an ``https://`` or ``http://`` URL; raise ConfigError otherwise."""
    if not isinstance(value, str) or not value.startswith(("https://", "http://")) or not value.split("//", 1)[1]:
        raise ConfigError(f"{where} must be the http(s):// address of the docs site, such as "
                          "'https://docs.example.com/tfguard/'")
    return value


def parse_switch(value: Any, where: str) -> bool:
    """Read an on/off setting: ``"on"``/``"off"`` or a TOML boolean; raise ConfigError otherwise."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("on", "off"):
        return value.lower() == "on"
    raise ConfigError(f"{where} must be \"on\" or \"off\"")


def load_settings(config_file: Optional[str] = None, start: str = ".") -> Settings:
    """Read the settings from ``config_file``, or from the nearest pyproject.toml above ``start``.

    An explicit ``config_file`` must exist and hold a ``[tool.tfguard]`` table.
    Without any configuration the defaults apply, rooted at the working folder.
    Raises ConfigError with a one-line message for any problem.
    """
    if config_file is not None:
        if not os.path.isfile(config_file):
            raise ConfigError(f"config file not found: {config_file}")
        path: Optional[str] = os.path.abspath(config_file)
    else:
        path = find_pyproject(start)
    if path is None:
        return Settings(root=os.getcwd())
    table = _tool_table(_read_toml(path), path)
    if table is None:
        if config_file is not None:
            raise ConfigError(f"{_display(path)}: no [{TABLE}] table")
        return Settings(root=os.path.dirname(path))
    return settings_from_table(table, _display(path), os.path.dirname(path))


def override(
    settings: Settings,
    select: Optional[Sequence[str]] = None,
    ignore: Optional[Sequence[str]] = None,
    extend_select: Sequence[str] = (),
    exclude: Optional[Sequence[str]] = None,
    extend_exclude: Sequence[str] = (),
    python2: Optional[bool] = None,
    respect_gitignore: Optional[bool] = None,
    docs_url: Optional[str] = None,
) -> Settings:
    """Apply command-line options: ``select``/``ignore``/``exclude``/``python2``/``docs_url`` replace, ``extend_*``
    add."""
    changes: Dict[str, Any] = {}
    if docs_url is not None:
        changes["docs_url"] = docs_url
    if respect_gitignore is not None:
        changes["respect_gitignore"] = respect_gitignore
    if python2 is not None:
        changes["python2"] = python2
    if select is not None:
        changes["select"] = tuple(select)
    if ignore is not None:
        changes["ignore"] = tuple(ignore)
    if exclude is not None:
        changes["exclude"] = tuple(exclude)
    changes["extend_select"] = settings.extend_select + tuple(extend_select)
    changes["extend_exclude"] = settings.extend_exclude + tuple(extend_exclude)
    return replace(settings, **changes)
