"""Settings: which rules run on which files, and reading them from ``[tool.tfguard]``."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from fnmatch import fnmatch
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from tfguard.static.registry import PARSE_ERROR_CODE, all_rules

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.9/3.10 only
    import tomli as tomllib

#: The table of pyproject.toml that holds tfguard's settings.
TABLE = "tool.tfguard"

_LIST_KEYS = ("select", "ignore", "extend-select", "exclude", "extend-exclude", "fixable", "unfixable")
_CODE_KEYS = ("select", "ignore", "extend-select", "fixable", "unfixable")
_KNOWN_KEYS = _LIST_KEYS + ("per-file-ignores", "baseline", "py2", "respect-gitignore", "docs-url", "extend",
                             "unsafe-fixes", "runtime-report")
#: Configuration files, in the order one folder's are preferred (as ruff prefers .ruff.toml, ruff.toml, then
#: pyproject.toml); the first two hold the settings at top level, pyproject.toml in ``[tool.tfguard]``.
CONFIG_NAMES = (".tfguard.toml", "tfguard.toml", "pyproject.toml")

#: Explains a selector that names no static rule (the command line says where runtime codes go), or None.
Explain = Callable[[str], Optional[str]]


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
    #: ``unsafe-fixes = true``: ``--fix`` and the editor's code actions offer unsafe fixes too.
    unsafe_fixes: bool = False
    #: ``runtime-report``: the ``tfguard run --json`` report whose findings the language server shows (absolute).
    runtime_report: str = ""

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
            elif os.path.isabs(anchored):  # anchored to the folder of the file that wrote it (see _anchor)
                if _matches_anchored(os.path.abspath(path).replace(os.sep, "/"), anchored):
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


def normalize_codes(selectors: Iterable[str]) -> Tuple[str, ...]:
    """Return rule codes and prefixes in upper case: codes are case-insensitive everywhere (``tfg1`` is ``TFG1``,
    ``all`` is ``ALL``), on the command line, in configuration files and in ``# noqa`` comments."""
    return tuple(selector.strip().upper() for selector in selectors)


def validate_selectors(selectors: Iterable[str], where: str, explain: Optional[Explain] = None) -> None:
    """Raise ConfigError unless every selector is ``ALL`` or a prefix of a known code (any case).

    ``where`` names the option or key in the message (``--select``, ``pyproject.toml: select``);
    ``explain`` may give the reason of an unknown one instead of "unknown rule code" (a runtime code).
    """
    codes: Tuple[str, ...] = ()
    for given in selectors:
        selector = given.strip().upper()
        if selector == "ALL":
            continue
        if not codes:
            codes = (PARSE_ERROR_CODE, *all_rules())  # imports every rule: only when there is something to check
        if not selector or not any(code.startswith(selector) for code in codes):
            reason = explain(selector) if explain is not None and selector else None
            raise ConfigError(f"{where}: {reason or f'unknown rule code or prefix {given!r}'}")


def find_config_file(start: str) -> Tuple[Optional[str], Optional[str]]:
    """Return the closest configuration file at or above ``start``, and the nearest pyproject.toml.

    A configuration file is a ``.tfguard.toml`` or ``tfguard.toml``, or a pyproject.toml with a
    ``[tool.tfguard]`` table (see :data:`CONFIG_NAMES`). The second value is the nearest pyproject.toml
    with or without the table (it still fixes the project root when no configuration exists); each is
    None when there is none.
    """
    folder = os.path.abspath(start)
    if not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    nearest = None
    while True:
        for name in CONFIG_NAMES:
            candidate = os.path.join(folder, name)
            if not os.path.isfile(candidate):
                continue
            if name != "pyproject.toml":
                return candidate, nearest
            nearest = nearest or candidate
            if tool_table(read_toml(candidate), candidate) is not None:
                return candidate, nearest
        parent = os.path.dirname(folder)
        if parent == folder:
            return None, nearest
        folder = parent


def _display(path: str) -> str:
    rel = _relative_to(path, os.getcwd())
    return rel if rel is not None else path


def read_toml(path: str) -> Dict[str, Any]:
    """Read a TOML file; any problem is a one-line ConfigError."""
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{_display(path)}: invalid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{_display(path)}: invalid TOML: {exc.reason}") from None
    except OSError as exc:
        raise ConfigError(f"{_display(path)}: cannot read: {exc.strerror or exc}") from None


def tool_table(document: Mapping[str, Any], path: str) -> Optional[Mapping[str, Any]]:
    """Return the table of tfguard's settings in the document of ``path`` (None: a pyproject.toml without it)."""
    if settings_at_top_level(path):  # tfguard.toml, .tfguard.toml: the settings at top level
        return document
    node: Any = document
    for part in TABLE.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    if not isinstance(node, Mapping):
        raise ConfigError(f"{_display(path)}: [{TABLE}] must be a table")
    return node


def settings_at_top_level(path: str) -> bool:
    """Whether a configuration file holds the settings at top level (tfguard.toml) or in [tool.tfguard]."""
    return os.path.basename(path) in CONFIG_NAMES[:2]


def _string_list(value: Any, where: str) -> Tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where} must be a list of strings")
    return tuple(value)


def _unknown_key(key: str, where: str, table_name: str) -> ConfigError:
    import difflib

    close = difflib.get_close_matches(key, _KNOWN_KEYS, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return ConfigError(f"{where}: unknown key {key!r} in {table_name}{hint}")


def _anchor(pattern: str, root: str) -> str:
    """Anchor a ``per-file-ignores`` glob with a ``/`` to the folder of the file that wrote it (an absolute
    pattern), so that it means the same in a configuration that extends that file."""
    stripped = _strip_dot_slash(pattern.replace("\\", "/"))
    if "/" not in stripped or os.path.isabs(stripped):
        return stripped
    return glob_escape(os.path.abspath(root).replace(os.sep, "/")) + "/" + stripped


def glob_escape(text: str) -> str:
    """Escape the glob characters of a folder name (``[``, ``*``, ``?``), as ``glob.escape`` does."""
    return "".join(f"[{char}]" if char in "[]*?" else char for char in text)


def _table_values(table: Mapping[str, Any], where: str, root: str, table_name: str,
                  explain: Optional[Explain]) -> Dict[str, Any]:
    """Read the keys of one configuration table into Settings field values (``extend`` left out)."""
    for key in table:
        if key not in _KNOWN_KEYS:
            raise _unknown_key(key, where, table_name)
    values: Dict[str, Any] = {}
    for key in _LIST_KEYS:
        if key in table:
            items = _string_list(table[key], f"{where}: {key!r}")
            if key in _CODE_KEYS:
                validate_selectors(items, f"{where}: {key}", explain)
                items = normalize_codes(items)
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
            validate_selectors(items, f"{where}: per-file-ignores {pattern!r}", explain)
            pairs.append((_anchor(pattern, root), normalize_codes(items)))
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
    if "unsafe-fixes" in table:
        if not isinstance(table["unsafe-fixes"], bool):
            raise ConfigError(f"{where}: 'unsafe-fixes' must be true or false")
        values["unsafe_fixes"] = table["unsafe-fixes"]
    if "runtime-report" in table:
        if not isinstance(table["runtime-report"], str) or not table["runtime-report"]:
            raise ConfigError(f"{where}: 'runtime-report' must be the path of a `tfguard run --json` report")
        values["runtime_report"] = os.path.join(root, os.path.expanduser(table["runtime-report"]))
    return values


def _merge(base: Dict[str, Any], child: Dict[str, Any]) -> Dict[str, Any]:
    """Lay a configuration's values over those of the file it extends: keys replace, except ``extend-select``
    and ``extend-exclude`` (added) and ``per-file-ignores`` (merged, the extending file's globs winning)."""
    merged = dict(base)
    for key, value in child.items():
        if key in ("extend_select", "extend_exclude"):
            merged[key] = tuple(base.get(key, ())) + tuple(value)
        elif key == "per_file_ignores":
            patterns = dict(base.get(key, ()))
            patterns.update(dict(value))
            merged[key] = tuple(patterns.items())
        else:
            merged[key] = value
    return merged


def read_config_file(path: str, explain: Optional[Explain] = None) -> Settings:
    """Read a configuration file (following ``extend``), rooted at its folder; raise ConfigError on any problem.

    ``extend = "../pyproject.toml"`` (relative to the file, ``~`` expanded) names a configuration file whose
    settings this one starts from, as ruff's ``extend`` does; chains are followed and a loop is an error.
    """
    path = os.path.abspath(path)
    return Settings(root=os.path.dirname(path), **_file_values(path, explain, []))


def _file_values(path: str, explain: Optional[Explain], chain: List[str]) -> Dict[str, Any]:
    if path in chain:
        raise ConfigError(f"{_display(chain[0])}: 'extend' goes round in a circle through {_display(path)}")
    table = tool_table(read_toml(path), path)
    if table is None:
        raise ConfigError(f"{_display(path)}: no [{TABLE}] table")
    table_name = os.path.basename(path) if settings_at_top_level(path) else f"[{TABLE}]"
    where = _display(path)
    values = _table_values({k: v for k, v in table.items() if k != "extend"}, where, os.path.dirname(path),
                           table_name, explain)
    if "extend" not in table:
        return values
    if not isinstance(table["extend"], str) or not table["extend"]:
        raise ConfigError(f"{where}: 'extend' must be the path of a configuration file")
    base = os.path.join(os.path.dirname(path), os.path.expanduser(table["extend"]))
    if not os.path.isfile(base):
        raise ConfigError(f"{where}: 'extend': configuration file not found: {table['extend']}")
    return _merge(_file_values(os.path.abspath(base), explain, chain + [path]), values)


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
