"""The machine-readable JSON format (schema version 1)."""

from __future__ import annotations

import json
from typing import Any, Dict

from tfguard.static.finding import CheckResult, Finding
from tfguard.static.formats.options import PLAIN, RenderOptions

#: Bumped when a key is renamed or removed; adding keys keeps the version.
SCHEMA_VERSION = 1


#: The note of a file that is not Python 3 and was checked as Python 2.
PYTHON2_NOTE = "not Python 3: checked as Python 2, converted line for line"


def to_document(result: CheckResult) -> Dict[str, Any]:
    """Return ``{"version", "findings", "errors"}`` with findings sorted by path, line, column, code.

    A ``notes`` list is added when some file was not read as plain Python 3: one entry per
    Python 2 source (``{"path", "python2": true, "message"}``).
    """
    document: Dict[str, Any] = {
        "version": SCHEMA_VERSION,
        "findings": [finding.to_dict() for finding in sorted(result.findings, key=Finding.sort_key)],
        "errors": [{"path": e.path, "message": e.message} for e in sorted(result.errors, key=lambda e: e.path)],
    }
    if result.python2_files:
        document["notes"] = [{"path": path, "python2": True, "message": PYTHON2_NOTE}
                             for path in sorted(result.python2_files)]
    return document


def render(result: CheckResult, options: RenderOptions = PLAIN) -> str:
    """Return the JSON document, indented, with a final newline."""
    return json.dumps(to_document(result), indent=2) + "\n"
