"""The last ``tfguard run --json`` report's findings, on the lines they blame, until those files change.

The report is the one the ``runtime-report`` setting names (``[tool.tfguard]``, relative to the configuration
file), read into its run verdict (runtime/verdict.py; an earlier version converted). Every diagnostic of the run,
of every scope, is placed on the line it blames (its blamed site); one that blames no line is not shown (silence
rather than a guess).

A finding is shown only while its file is as it was when the run made it: the file on disk is not newer than
the report and the buffer has no unsaved edit (so the blamed line is the one the run saw).
Paths relative in the report are relative to the folder the run started in, which the report does not
record: the report's own folder, then the configuration's root, are tried in turn.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Tuple

from tfguard.runtime.verdict import Diagnostic, RunVerdict

#: Where the diagnostics come from, in the editor's problem list.
SOURCE = "tfguard run"


@dataclass(frozen=True)
class RuntimeFinding:
    """One runtime diagnostic placed on a line: the message says what the run measured there."""

    path: str
    line: int
    code: str
    severity: str
    message: str


@dataclass
class _Loaded:
    stamp: Tuple[int, int]
    findings: List[RuntimeFinding]


class RuntimeReports:
    """Reads runtime reports when they change (modification time and size) and answers per file."""

    def __init__(self) -> None:
        self._loaded: Dict[str, _Loaded] = {}
        #: The last problem met reading a report ("" when none), for the server's log.
        self.problem = ""

    def findings_for(self, report: str, path: str, text: str, roots: Iterable[str]) -> List[RuntimeFinding]:
        """Return the findings of ``report`` on the file at absolute ``path`` whose buffer holds ``text``."""
        if not report:
            return []
        try:
            status = os.stat(report)
        except OSError:
            self._loaded.pop(report, None)
            return []
        stamp = (status.st_mtime_ns, status.st_size)
        loaded = self._loaded.get(report)
        if loaded is None or loaded.stamp != stamp:
            loaded = self._loaded[report] = _Loaded(stamp, self._read(report, list(roots)))
        mine = [f for f in loaded.findings if f.path == path]
        if not mine or not _unchanged_since(path, text, status.st_mtime_ns):
            return []
        lines = text.splitlines()
        return [f for f in mine if 1 <= f.line <= len(lines)]

    def _read(self, report: str, roots: List[str]) -> List[RuntimeFinding]:
        try:
            with open(report, encoding="utf-8") as handle:
                document = json.load(handle)
            self.problem = ""
            return list(placed_findings(document, [os.path.dirname(os.path.abspath(report)), *roots]))
        except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
            self.problem = f"cannot read the runtime report {report}: {type(exc).__name__}: {exc}"
            return []


def _unchanged_since(path: str, text: str, report_mtime_ns: int) -> bool:
    try:
        if os.stat(path).st_mtime_ns > report_mtime_ns:
            return False
        with open(path, "rb") as handle:
            on_disk = handle.read()
    except OSError:
        return False
    return on_disk.decode("utf-8", errors="replace").replace("\r\n", "\n") == text.replace("\r\n", "\n")


def placed_findings(document: Dict[str, Any], folders: List[str]) -> Iterable[RuntimeFinding]:
    """Yield the findings of a run document's verdict placed on source lines (each once)."""
    seen = set()
    for diagnostic in RunVerdict.from_document(document).diagnostics:
        for found in _place(diagnostic, folders):
            key = (found.path, found.line, found.code, found.message)
            if key not in seen:
                seen.add(key)
                yield found


def _place(diagnostic: Diagnostic, folders: List[str]) -> Iterable[RuntimeFinding]:
    # One that blames no line is not shown (silence rather than a guess).
    blamed = diagnostic.blamed
    if blamed is not None and isinstance(blamed.line, int):
        path = _resolve(blamed.path, folders)
        if path is not None:
            yield RuntimeFinding(path, blamed.line, diagnostic.code, diagnostic.severity, diagnostic.one_line)


def _resolve(path: str, folders: List[str]) -> Optional[str]:
    if not path or path.startswith("<"):
        return None
    if os.path.isabs(path):
        return os.path.normpath(path)
    for folder in folders:
        candidate = os.path.normpath(os.path.join(folder, path))
        if os.path.isfile(candidate):
            return candidate
    return None
