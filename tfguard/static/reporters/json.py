"""The machine-readable JSON format (schema version 1)."""

from __future__ import annotations

import json
from typing import Any, Dict

from tfguard.static.engine import CheckResult
from tfguard.static.finding import Finding

#: Bumped when a key is renamed or removed; adding keys keeps the version.
SCHEMA_VERSION = 1


def to_document(result: CheckResult) -> Dict[str, Any]:
    """Return ``{"version", "findings", "errors"}`` with findings sorted by path, line, column, code."""
    return {
        "version": SCHEMA_VERSION,
        "findings": [finding.to_dict() for finding in sorted(result.findings, key=Finding.sort_key)],
        "errors": [{"path": e.path, "message": e.message} for e in sorted(result.errors, key=lambda e: e.path)],
    }


def render(result: CheckResult) -> str:
    """Return the JSON document, indented, with a final newline."""
    return json.dumps(to_document(result), indent=2) + "\n"
