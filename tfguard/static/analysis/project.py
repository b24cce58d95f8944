"""The checked project: resolving imports to its files, and analysing each file at most once.

A call in a session loop to ``utils.add_summaries()`` or ``from model import
accuracy`` is followed into the project's other files.  Imports resolve the
way Python would for a script in the project: relative to the importing file's
folder first, then the project root and its ``src/`` folder.  Nothing outside
the project root is ever read.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from typing import TYPE_CHECKING, Dict, Iterable, List, Optional, Sequence, Set

from astroid import nodes

from tfguard.static.drivers import DriverScan
from tfguard.static.parsing import ParseFailure, decode_source, parse_module
from tfguard.static.project_root import ROOT_MARKERS, find_project_root, package_base  # noqa: F401 - ROOT_MARKERS re-exported

if TYPE_CHECKING:  # pragma: no cover
    from tfguard.static.analysis.module import ModuleAnalysis

#: How many followed (not checked) modules stay parsed at once.
MAX_CACHED_MODULES = 32


class Project:
    """Resolves project imports to files and holds their analyses, keyed by absolute path."""

    def __init__(self, root: str, checked_paths: Sequence[str] = (), python2: bool = True) -> None:
        self.root = os.path.abspath(root)
        #: The paths of the run as given; a followed module is named as the run names it when it checks it.
        self._spellings = [(os.path.abspath(path), path) for path in checked_paths]
        #: Whether files that are not Python 3 are read as Python 2 (see :mod:`tfguard.static.python2`).
        self.python2 = python2
        self._followed: "OrderedDict[str, Optional[ModuleAnalysis]]" = OrderedDict()
        self._by_module: Dict[int, "ModuleAnalysis"] = {}
        self._imports: Dict[str, Set[str]] = {}
        #: Tells which files that never mention TensorFlow import project modules that do (driver scripts),
        #: and resolves imports to project files for both.
        self.drivers = DriverScan(self.root)
        self.search_paths: List[str] = self.drivers.search_paths

    # -- registration ---------------------------------------------------------------

    def register(self, analysis: "ModuleAnalysis") -> None:
        """Make ``analysis`` known, so nodes of its module can be traced back to it."""
        self._by_module[id(analysis.module)] = analysis

    def release(self, analysis: "ModuleAnalysis") -> None:
        """Forget a checked file's analysis once its findings are out."""
        self._by_module.pop(id(analysis.module), None)

    def owner(self, node: nodes.NodeNG) -> Optional["ModuleAnalysis"]:
        """Return the analysis of the module ``node`` belongs to, if the project holds it."""
        return self._by_module.get(id(node.root()))

    # -- imports --------------------------------------------------------------------

    def resolve(self, modname: str, importer: str, level: int = 0) -> Optional[str]:
        """Return the project file that ``import modname`` in ``importer`` loads, if any (and remember the import)."""
        found = self.drivers.resolve(modname, importer, level)
        if found is not None:
            self._imports.setdefault(os.path.abspath(importer), set()).add(found)
        return found

    def note_dependency(self, importer: str, path: str) -> None:
        """Record that the findings of ``importer`` read ``path`` without importing it (its option defaults)."""
        self._imports.setdefault(os.path.abspath(importer), set()).add(os.path.abspath(path))

    def analysis(self, path: str) -> Optional["ModuleAnalysis"]:
        """Return the analysis of a project file, parsing it on first use (None if unreadable)."""
        from tfguard.static.analysis.module import ModuleAnalysis

        path = os.path.abspath(path)
        if path in self._followed:
            self._followed.move_to_end(path)
            return self._followed[path]
        self._followed[path] = None  # an import cycle sees "unknown" while parsing
        analysis: Optional[ModuleAnalysis] = None
        try:
            source = self.read_source(path)
            analysis = ModuleAnalysis(parse_module(source, path, self.python2), self.display_path(path), project=self)
        except (OSError, ParseFailure, RecursionError):
            analysis = None
        self._remember(path, analysis)
        return analysis

    def read_source(self, path: str) -> str:
        """Return the text of a project file that the analysis follows into (raises OSError, ParseFailure).

        Read from disk; the language server's project reads the editor's unsaved buffers instead.
        """
        with open(path, "rb") as handle:
            return decode_source(handle.read())

    def cached_paths(self) -> List[str]:
        """Return the absolute paths of the files whose analyses (or failures to parse) the project holds."""
        return list(self._followed)

    def forget(self, changed: Iterable[str]) -> None:
        """Drop the analyses of the ``changed`` files and of every file whose analysis followed into one of them.

        For a project that outlives one run (the language server's): its files change between checks.
        Which files reach TensorFlow through their imports is worked out afresh too.
        """
        stale = {os.path.abspath(path) for path in changed}
        if not stale:
            return
        grew = True
        while grew:  # importers of stale files are stale, up the import graph
            grew = False
            for importer, imported in self._imports.items():
                if importer not in stale and imported & stale:
                    stale.add(importer)
                    grew = True
        for path in stale:
            analysis = self._followed.pop(path, None)
            if analysis is not None:
                self.release(analysis)
            self._imports.pop(path, None)
        self.drivers = DriverScan(self.root)
        self.search_paths = self.drivers.search_paths

    def checked_analysis(self, path: str, source: str) -> Optional["ModuleAnalysis"]:
        """Return the analysis made earlier in this run of a file now checked, if it fits.

        A file often gets parsed as another file's import before its own turn comes;
        its analysis is reused when it was built from the same text under the same
        displayed path.
        """
        analysis = self._followed.get(os.path.abspath(path))
        if analysis is None or analysis.path != path or analysis.module.file_bytes != source.encode("utf-8"):
            return None
        self._followed.move_to_end(os.path.abspath(path))
        return analysis

    def adopt(self, analysis: "ModuleAnalysis") -> None:
        """Keep a checked file's analysis, so files checked later that import it need not parse it again."""
        self._remember(os.path.abspath(analysis.module.file or analysis.path), analysis)

    def _remember(self, path: str, analysis: Optional["ModuleAnalysis"]) -> None:
        self._followed[path] = analysis
        self._followed.move_to_end(path)
        if analysis is not None:
            self.register(analysis)
        while len(self._followed) > MAX_CACHED_MODULES:
            _, dropped = self._followed.popitem(last=False)
            if dropped is not None:
                self.release(dropped)

    def dependencies(self, path: str) -> List[str]:
        """Return every project file whose content the analysis of ``path`` has looked into so far."""
        start = os.path.abspath(path)
        seen: Set[str] = set()
        stack = [start]
        while stack:
            for dep in self._imports.get(stack.pop(), ()):
                if dep not in seen and dep != start:
                    seen.add(dep)
                    stack.append(dep)
        return sorted(seen)

    def display_path(self, path: str) -> str:
        """Return the name of the file at absolute ``path`` in messages.

        Under a path the run was given, the name the run gives the file when
        it checks it (so a chain reads the same whether the module was checked
        before it was followed or not, with any number of processes); else
        relative to the working folder when it is below it, else absolute.
        """
        for absolute, spelled in self._spellings:
            if path == absolute:
                return spelled
            if path.startswith(absolute.rstrip(os.sep) + os.sep):
                full = os.path.join(spelled, os.path.relpath(path, absolute))
                return full[2:] if spelled in (".", "./") and full.startswith("./") else full
        rel = os.path.relpath(path)
        return path if rel.startswith("..") else rel
