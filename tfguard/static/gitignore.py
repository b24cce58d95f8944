"""``.gitignore`` files, matched as git matches them, so that walking a folder skips what git ignores (as ruff).

Each folder's ``.gitignore`` holds patterns relative to that folder; a later pattern wins over an earlier one,
a deeper file over a shallower one, ``!`` re-includes, a trailing ``/`` matches folders only, a ``/`` at the
start or in the middle anchors the pattern to its folder, and ``**`` spans folders. The repository's
``.git/info/exclude`` applies too. Files above the repository root (the first folder up with ``.git``) are
not read; outside a repository only the ``.gitignore`` files of the walked folders apply.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import Dict, List, Optional, Pattern, Tuple

#: One compiled pattern: (regex over the path relative to its folder, negated, folders only).
Rule = Tuple[Pattern[str], bool, bool]


def translate(pattern: str) -> Optional[Tuple[str, bool, bool]]:
    """Return (regex, negated, folders only) for one ``.gitignore`` line, or None for a blank or comment line."""
    line = pattern.rstrip("\n").rstrip("\r")
    while line.endswith(" ") and not line.endswith("\\ "):
        line = line[:-1]
    if not line or line.startswith("#"):
        return None
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    elif line.startswith("\\!") or line.startswith("\\#"):
        line = line[1:]
    folders_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    line = line.lstrip("/")
    regex = "" if anchored else "(?:.*/)?"
    index = 0
    while index < len(line):
        char = line[index]
        if line.startswith("**/", index):
            regex += "(?:.*/)?"
            index += 3
            continue
        if line.startswith("/**", index) and index + 3 == len(line):
            regex += "/.*"
            index += 3
            continue
        if line.startswith("**", index):
            regex += ".*"
            index += 2
            continue
        if char == "*":
            regex += "[^/]*"
        elif char == "?":
            regex += "[^/]"
        elif char == "\\" and index + 1 < len(line):
            index += 1
            regex += re.escape(line[index])
        elif char == "[":
            end = line.find("]", index + 2 if line.startswith("[!", index) or line.startswith("[^", index)
                            else index + 1)
            if end < 0:
                regex += re.escape(char)
            else:
                body = line[index + 1:end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                regex += "[" + body.replace("\\", "\\\\") + "]"
                index = end
        else:
            regex += re.escape(char)
        index += 1
    return regex, negated, folders_only


@lru_cache(maxsize=1024)
def rules_of(folder: str) -> Tuple[Rule, ...]:
    """The compiled rules of ``folder/.gitignore`` (and of ``.git/info/exclude`` in a repository root)."""
    rules: List[Rule] = []
    for name in (os.path.join(".git", "info", "exclude"), ".gitignore"):
        try:
            with open(os.path.join(folder, name), encoding="utf-8", errors="surrogateescape") as handle:
                lines = handle.readlines()
        except OSError:
            continue
        for line in lines:
            translated = translate(line)
            if translated is not None:
                regex, negated, folders_only = translated
                try:
                    rules.append((re.compile(regex + r"\Z", re.S), negated, folders_only))
                except re.error:  # a pattern git would not match either
                    continue
    return tuple(rules)


def repository_root(folder: str) -> Optional[str]:
    """The first folder at or above ``folder`` that holds ``.git``, or None."""
    current = os.path.abspath(folder)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


class GitIgnore:
    """Whether a path is ignored by the ``.gitignore`` files between the repository root and it."""

    def __init__(self, top: str) -> None:
        top = os.path.abspath(top if os.path.isdir(top) else os.path.dirname(top))
        self._floor = repository_root(top) or top
        #: folder -> the (folder, rules) pairs that apply to its entries, outermost first (only folders with rules)
        self._chains: Dict[str, Tuple[Tuple[str, Tuple[Rule, ...]], ...]] = {}

    def _chain(self, folder: str) -> Tuple[Tuple[str, Tuple[Rule, ...]], ...]:
        chain = self._chains.get(folder)
        if chain is None:
            parent = os.path.dirname(folder)
            if folder == self._floor or parent == folder or not folder.startswith(self._floor + os.sep):
                outer: Tuple[Tuple[str, Tuple[Rule, ...]], ...] = ()
            else:
                outer = self._chain(parent)
            own = rules_of(folder)
            chain = outer + ((folder, own),) if own else outer
            self._chains[folder] = chain
        return chain

    def ignored(self, path: str, is_folder: bool) -> bool:
        """Return whether git would ignore ``path`` (a folder when ``is_folder``); the last match decides."""
        absolute = os.path.abspath(path)
        folder = os.path.dirname(absolute)
        if folder != self._floor and not folder.startswith(self._floor + os.sep):
            return False
        verdict = False
        for base, rules in self._chain(folder):  # outermost first: a deeper .gitignore wins
            rel = absolute[len(base):].lstrip(os.sep).replace(os.sep, "/")
            for regex, negated, folders_only in rules:
                if folders_only and not is_folder:
                    continue
                if regex.match(rel):
                    verdict = not negated
        return verdict
