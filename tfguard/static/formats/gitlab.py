"""The ``gitlab`` format: GitLab Code Quality JSON (a list of issues with ``description``, ``check_name``,
``fingerprint``, ``severity`` and ``location``), shown in merge requests.

A fingerprint identifies a finding across commits: the hash of its file, code and message, and how many
identical ones come before it in the file, but not its line, so a finding does not read as new because code
above it moved (as ruff does it). Paths are relative to ``CI_PROJECT_DIR`` when GitLab sets it, else to the
working folder.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from typing import Any, Dict, List, Tuple

from tfguard.static.finding import CheckResult, Finding
from tfguard.static.formats.options import PLAIN, RenderOptions

#: Finding severity -> Code Quality severity (info, minor, major, critical, blocker).
SEVERITIES = {"error": "major", "warning": "minor", "info": "info"}


def project_path(path: str) -> str:
    """Return ``path`` relative to the project GitLab checked out (or the working folder), in posix form."""
    base = os.environ.get("CI_PROJECT_DIR") or os.getcwd()
    rel = os.path.relpath(os.path.abspath(path), base)
    shown = path if rel == os.pardir or rel.startswith(os.pardir + os.sep) else rel
    return shown.replace(os.sep, "/")


def fingerprint(path: str, code: str, message: str, occurrence: int) -> str:
    """Return the stable fingerprint of the ``occurrence``-th finding (from 0) with this file, code and message."""
    key = "\0".join((path, code, message, str(occurrence)))
    return hashlib.blake2b(key.encode("utf-8"), digest_size=16).hexdigest()


def render(result: CheckResult, options: RenderOptions = PLAIN) -> str:
    """Return the Code Quality report: a JSON list, one issue per finding and per file that could not be checked."""
    issues: List[Dict[str, Any]] = []
    seen: "Counter[Tuple[str, str, str]]" = Counter()
    for finding in sorted(result.findings, key=Finding.sort_key):
        path = project_path(finding.path)
        key = (path, finding.code, finding.message)
        issues.append({
            "description": f"{finding.code} {finding.message}",
            "check_name": finding.code,
            "fingerprint": fingerprint(*key, seen[key]),
            "severity": SEVERITIES.get(finding.severity, "major"),
            "location": {"path": path, "lines": {"begin": finding.line, "end": max(finding.line, finding.end_line)}},
        })
        seen[key] += 1
    for error in sorted(result.errors, key=lambda e: e.path):
        path = project_path(error.path)
        issues.append({
            "description": f"tfguard could not check this file: {error.message}",
            "check_name": "file-error",
            "fingerprint": fingerprint(path, "error", error.message, 0),
            "severity": "critical",
            "location": {"path": path, "lines": {"begin": 1, "end": 1}},
        })
    return json.dumps(issues, indent=2) + "\n"
