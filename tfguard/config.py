"""Settings: which rules run on which files."""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatch
from typing import Tuple

from tfguard.registry import PARSE_ERROR_CODE, all_rules


def _matches(code: str, selectors: Tuple[str, ...]) -> bool:
    return any(sel == "ALL" or code.startswith(sel) for sel in selectors)


@dataclass(frozen=True)
class Settings:
    """Rule selection and file exclusion, as merged from pyproject.toml and the command line."""

    select: Tuple[str, ...] = ()
    extend_select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()
    exclude: Tuple[str, ...] = ()
    extend_exclude: Tuple[str, ...] = ()
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = field(default=())

    def is_enabled(self, code: str, path: str = "") -> bool:
        """Return whether findings of ``code`` are reported for ``path``."""
        if code != PARSE_ERROR_CODE and not self._selected(code):
            return False
        if _matches(code, self.ignore):
            return False
        posix = path.replace("\\", "/")
        for pattern, codes in self.per_file_ignores:
            if fnmatch(posix, pattern) and _matches(code, codes):
                return False
        return True

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
