"""The last ``tfguard run --json`` report's findings, on the lines they blame, until those files change.

The report is the one the ``runtime-report`` setting names (``[tool.tfguard]``, relative to the configuration
file). A diagnostic that carries its own ``path`` and ``line`` is placed there. Otherwise (the document as
``tfguard run`` writes it today) the places come from the report's evidence: TFG901 on each growth site (repeated
sites for the error, one-time sites for the info) and each blocked change to a frozen graph, TFG903 on the
top lines of host time; a diagnostic with no place is not shown (silence rather than a guess).

A finding is shown only while its file is as it was when the run made it: the file on disk is not newer than
the report, the buffer has no unsaved edit, and the blamed line still reads as the report recorded it.
Paths relative in the report are relative to the folder the run started in, which the report does not
record: the report's own folder, then the configuration's root, are tried in turn.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Tuple

from tfguard.runtime.record.growth import what_grew

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
    #: The blamed line's text as the run saw it ("" when the report does not say).
    source_line: str = ""


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
        return [f for f in mine if 1 <= f.line <= len(lines)
                and (not f.source_line or lines[f.line - 1].strip() == f.source_line.strip())]

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
    """Yield the findings of a run document (and of the other sessions it reports) placed on source lines."""
    reports = [document] + [other["report"] for other in document.get("other_sessions") or []
                            if isinstance(other, dict) and isinstance(other.get("report"), dict)]
    seen = set()
    for report in reports:
        functions = (report.get("functions") or {}).get("diagnostics") or []  # TFG908: located at the call
        for diagnostic in list(report.get("diagnostics") or []) + list(report.get("across_sessions") or []) + \
                list(functions):
            for found in _place(diagnostic, report, folders):
                key = (found.path, found.line, found.code, found.message)
                if key not in seen:
                    seen.add(key)
                    yield found


def _place(diagnostic: Dict[str, Any], report: Dict[str, Any], folders: List[str]) -> Iterable[RuntimeFinding]:
    code, severity, message = diagnostic["code"], diagnostic["severity"], diagnostic["message"]
    if diagnostic.get("path") and isinstance(diagnostic.get("line"), int):
        path = _resolve(diagnostic["path"], folders)
        if path is not None:
            yield RuntimeFinding(path, diagnostic["line"], code, severity, message)
        return
    for site, what in _evidence(code, severity, report):
        path = _resolve(site.get("path") or "", folders)
        if path is not None and isinstance(site.get("line"), int):
            help_text = f"\nhelp: {site['fix']}" if site.get("fix") else ""
            yield RuntimeFinding(path, site["line"], code, severity, f"{what}{help_text}\nrun report: {message}",
                                 site.get("code") or "")


def _evidence(code: str, severity: str, report: Dict[str, Any]) -> Iterable[Tuple[Dict[str, Any], str]]:
    """The places a diagnostic without its own place is about, each with what the run measured there."""
    if code == "TFG901":
        kind = "repeated" if severity == "error" else "one-time"
        for site in report.get("growth_sites") or []:
            if site.get("kind") == kind:
                yield site, "the graph grew here during the run: %s added after %d runs (%d ops)" % (
                    what_grew(site), site.get("events_in_loop") or site.get("growth_events") or 0,
                    site.get("ops_added") or 0)
        if severity == "error":
            for violation in report.get("frozen_violations") or []:
                yield violation, "this line tried to add ops to the frozen graph%s" % (
                    " (%s)" % violation["api"] if violation.get("api") else "")
    elif code == "TFG903":
        for entry in (report.get("host_time") or {}).get("lines") or []:
            yield entry, "%d%% of the run's wall time was spent on this line outside sess.run (%s)" % (
                round(100 * (entry.get("share") or 0)), entry.get("cause") or "host work")


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
