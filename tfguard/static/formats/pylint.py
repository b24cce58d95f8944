"""The ``pylint`` format: ``path:line: [CODE(name)] message``, pylint's ``parseable`` layout, which CI tools
(Jenkins' warnings plugin, reviewdog's ``-f=pylint``) read."""

from __future__ import annotations

from tfguard.static.finding import CheckResult, Finding
from tfguard.static.formats.options import PLAIN, RenderOptions
from tfguard.static.formats.text import display_path


def format_finding(finding: Finding) -> str:
    """Return the line of one finding."""
    return f"{display_path(finding.path)}:{finding.line}: [{finding.code}({finding.name})] {finding.message}"


def render(result: CheckResult, options: RenderOptions = PLAIN) -> str:
    """Return a line per finding, then one ``[TFG-error(file-error)]`` line per file that could not be checked."""
    lines = [format_finding(f) for f in sorted(result.findings, key=Finding.sort_key)]
    lines += [f"{display_path(e.path)}:1: [error(file-error)] {e.message}"
              for e in sorted(result.errors, key=lambda e: e.path)]
    return "".join(line + "\n" for line in lines)
