"""What identifies a finding while the code around it moves: its code, the ``def`` or ``class`` around it (the
finding's ``scope``, read from the analysis) and the text of its line without its spacing.

A baseline entry (:mod:`tfguard.static.baseline`) and SARIF's ``partialFingerprints``
(:mod:`tfguard.static.formats.sarif`) both match findings on it.
"""

from __future__ import annotations

import hashlib
from typing import Dict, List

from tfguard.static.finding import Finding


def normalise(text: str) -> str:
    """Return ``text`` with runs of whitespace collapsed to one space and no leading or trailing space."""
    return " ".join(text.split())


def fingerprint(code: str, scope: str, line_text: str) -> str:
    """Return the fingerprint of a finding of ``code`` on a line with ``line_text`` inside ``scope``."""
    data = "\0".join((code, scope, normalise(line_text)))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:20]


class SourceLines:
    """The lines of each checked file, read once."""

    def __init__(self) -> None:
        self._files: Dict[str, List[str]] = {}

    def line(self, path: str, line: int) -> str:
        """Return the text of ``line`` in ``path`` ("" when the file or the line cannot be read)."""
        if path not in self._files:
            from tfguard.static.parsing import ParseFailure, decode_source  # imports astroid: only when needed

            try:
                with open(path, "rb") as handle:
                    source = decode_source(handle.read())
            except (OSError, ParseFailure):
                source = ""
            self._files[path] = source.splitlines()
        lines = self._files[path]
        return lines[line - 1] if 0 < line <= len(lines) else ""


def finding_fingerprint(finding: Finding, sources: SourceLines) -> str:
    """Return the fingerprint of ``finding``, its line read through ``sources``."""
    return fingerprint(finding.code, finding.scope, sources.line(finding.path, finding.line))
