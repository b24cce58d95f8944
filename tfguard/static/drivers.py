"""Driver scripts: files that never say ``tensorflow`` but import project modules that do.

``drive.py`` that only does ``from agent import Agent`` and calls ``bot.sync()`` in a loop runs
the graph through ``agent.py``.  The byte prefilter would skip it; this module tells, without
parsing anything (a scan of import lines and a look at the files they name), whether such a
file reaches TensorFlow through the project's own modules.  Kept free of astroid so that the
prefilter stays cheap: a file that imports nothing of the project costs one regex search.
"""

from __future__ import annotations

import os
import re
from typing import Dict, Iterator, List, Optional, Set, Tuple

from tfguard.static.project_root import package_base

#: Files that mention one of these (as bytes) are analysed anyway (see ``engine.mentions_tensorflow``).
TF_MARKERS = (b"tensorflow", b"keras")

_IMPORT_LINE = re.compile(
    rb"^[ \t]*(?:from[ \t]+(?P<dots>\.*)[ \t]*(?P<module>[\w.]*)[ \t]+import[ \t]+(?P<names>[^#\n;]*)"
    rb"|import[ \t]+(?P<modules>[^#\n;]+))",
    re.MULTILINE,
)
_NAME = re.compile(rb"[A-Za-z_][\w.]*")


def imported_modules(data: bytes) -> Iterator[Tuple[str, int]]:
    """Yield ``(dotted module name, relative level)`` for each module the import lines of ``data`` may load.

    ``from pkg import a`` yields ``pkg`` and ``pkg.a`` (``a`` may be a submodule); a
    cheap over-approximation: import lines inside strings count too.
    """
    if b"import" not in data:
        return
    for match in _IMPORT_LINE.finditer(data):
        if match.group("modules") is not None:
            for part in match.group("modules").split(b","):
                name = _NAME.match(part.strip())
                if name:
                    yield name.group().decode("ascii", "replace"), 0
            continue
        level = len(match.group("dots"))
        module = match.group("module").decode("ascii", "replace")
        if module:
            yield module, level
        for part in match.group("names").strip(b"()\\ \t\r").split(b","):
            name = _NAME.match(part.strip(b" \t\r()"))
            if name and name.group() != b"import":
                leaf = name.group().decode("ascii", "replace")
                yield (f"{module}.{leaf}" if module else leaf), level


class DriverScan:
    """Answers, for the files of one project, whether a file reaches TensorFlow through its imports.

    Results are memoised per file for the length of a run.
    """

    def __init__(self, root: str) -> None:
        self.root = os.path.abspath(root)
        self.search_paths: List[str] = [self.root]
        src = os.path.join(self.root, "src")
        if os.path.isdir(src):
            self.search_paths.append(src)
        self._reaches: Dict[str, Optional[bool]] = {}
        self._imports: Dict[str, List[str]] = {}

    def reaches_tensorflow(self, path: str, data: bytes) -> Tuple[bool, Tuple[str, ...]]:
        """Return whether ``path`` (content ``data``) imports, directly or through project modules, one using TF.

        Also return the project files looked at (absolute paths, sorted): the answer, and so a
        cached result of ``path``, depends on their content.
        """
        start = os.path.abspath(path)
        visited: Set[str] = set()
        found = self._reaches_from(start, data, visited)
        visited.discard(start)
        return found, tuple(sorted(visited))

    def _reaches_from(self, path: str, data: Optional[bytes], visited: Set[str]) -> bool:
        if path in visited:
            return bool(self._reaches.get(path))
        visited.add(path)
        known = self._reaches.get(path)
        if known is not None and data is None:
            visited.update(self._closure(path))
            return known
        if data is None:
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
            except OSError:
                self._reaches[path] = False
                return False
            if any(marker in data for marker in TF_MARKERS):
                self._reaches[path] = True
                return True
        found = False
        imports = self._imports[path] = self.project_imports(path, data)
        for imported in imports:
            if self._reaches_from(imported, None, visited):
                found = True
                break
        self._reaches[path] = found
        return found

    def _closure(self, path: str) -> Set[str]:
        seen: Set[str] = set()
        stack = [path]
        while stack:
            for imported in self._imports.get(stack.pop(), ()):
                if imported not in seen:
                    seen.add(imported)
                    stack.append(imported)
        return seen

    def project_imports(self, path: str, data: bytes) -> List[str]:
        """Return the project files that the import lines of ``path`` may load, in order, without repeats."""
        found: List[str] = []
        for module, level in imported_modules(data):
            target = self.resolve(module, path, level)
            if target is not None and target not in found and target != path:
                found.append(target)
        return found

    def resolve(self, modname: str, importer: str, level: int = 0) -> Optional[str]:
        """Return the project file that ``import modname`` in ``importer`` loads, if any (as the analysis resolves)."""
        parts = [p for p in modname.split(".") if p] if modname else []
        importer_dir = os.path.dirname(os.path.abspath(importer))
        if level:
            base = importer_dir
            for _ in range(level - 1):
                base = os.path.dirname(base)
            bases = [base]
        else:
            if not parts:
                return None
            bases = [importer_dir, package_base(importer_dir), *self.search_paths]
        for base in bases:
            found = module_file(base, parts)
            if found is not None and os.path.commonpath([self.root, found]) == self.root:
                return found
        return None


def module_file(base: str, parts: List[str]) -> Optional[str]:
    """Return the absolute path of module ``parts`` under folder ``base`` (``a/b.py`` or ``a/b/__init__.py``)."""
    target = os.path.join(base, *parts)
    if parts:
        candidate = target + ".py"
        if os.path.isfile(candidate):
            return os.path.abspath(candidate)
    init = os.path.join(target, "__init__.py")
    if os.path.isfile(init):
        return os.path.abspath(init)
    return None
