"""The default text format: a short line per finding, an indented ``help:`` line with the fix, the ``via`` chain.

``full`` (``--show-source``) adds the source line under each finding, with carets under the flagged code, as
ruff's ``full`` format does.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Dict, List, Optional

from tfguard.printable import printable, printable_line
from tfguard.static.finding import SAFE, UNSAFE, CheckResult, Finding
from tfguard.static.formats.options import PLAIN, RenderOptions
from tfguard.static.registry import SEVERITIES

#: ANSI styles of the coloured report.
_BOLD, _RED, _YELLOW, _CYAN, _BLUE, _RESET = "\033[1m", "\033[31m", "\033[33m", "\033[36m", "\033[34m", "\033[0m"
_SEVERITY_COLOR = {"error": _RED, "warning": _YELLOW, "info": _BLUE}


def display_path(path: str) -> str:
    """Return ``path`` relative to the working folder when it lies inside it, else as given."""
    if path.startswith("<") or not os.path.isabs(path):
        return path
    rel = os.path.relpath(path, os.getcwd())
    return path if rel == os.pardir or rel.startswith(os.pardir + os.sep) else rel


def _paint(text: str, style: str, color: bool) -> str:
    return f"{style}{text}{_RESET}" if color and text else text


def format_finding(finding: Finding, color: bool = False, source: Optional[List[str]] = None) -> List[str]:
    """Return the lines of one finding: ``path:line:col: CODE what``, then ``help:`` and ``via`` lines.

    A finding that ``--fix`` fixes is marked ``[*]`` after its code, as ruff does. ``via`` names a hop in the
    same file by its line only. With ``source`` (the file's lines), the flagged line is shown with carets.
    """
    marker = " [*]" if finding.fix is not None and finding.fix.applicability == SAFE else ""
    # Names and messages come from the checked files: escaped before any colour is added (tfguard/printable.py).
    what, help_text = printable_line(finding.headline), printable_line(finding.help)
    where = _paint(f"{printable_line(display_path(finding.path))}:{finding.line}:{finding.column}:", _BOLD, color)
    code = _paint(finding.code, _BOLD + _SEVERITY_COLOR.get(finding.severity, _RED), color)
    lines = [f"{where} {code}{marker} {what}"]
    if source is not None:
        lines.extend(_snippet(finding, source, color))
    if help_text:
        lines.append(f"  {_paint('help:', _BOLD + _CYAN, color)} {help_text}")
    for link in finding.chain:
        place = f"line {link.line}" if link.path == finding.path else f"{display_path(link.path)}:{link.line}"
        lines.append(printable_line(f"  via {place} in {link.function}()"))
    return lines


def fix_lines(finding: Finding) -> List[str]:
    """Return the ``--show-fixes`` line of a finding: its fix and how safe it is, or why it has none."""
    if finding.fix is not None:
        return [printable_line(f"  fix ({finding.fix.applicability}): {finding.fix.message}")]
    return [printable_line(f"  no fix: {finding.no_fix}")] if finding.no_fix else []


def _snippet(finding: Finding, source: List[str], color: bool) -> List[str]:
    if not 1 <= finding.line <= len(source):
        return []
    text = printable(source[finding.line - 1].rstrip("\r\n"))
    number = str(finding.line)
    gutter = " " * len(number)
    start = max(1, finding.column)
    end = finding.end_column if finding.end_line == finding.line and finding.end_column > start else len(text) + 1
    end = min(max(end, start + 1), len(text) + 1) if text else start + 1
    pad = "".join(char if char == "\t" else " " for char in text[:start - 1])
    carets = _paint("^" * max(1, end - start), _BOLD + _SEVERITY_COLOR.get(finding.severity, _RED), color)
    bar = _paint("|", _BLUE, color)
    return [f"{gutter} {bar}", f"{_paint(number, _BLUE, color)} {bar} {text}", f"{gutter} {bar} {pad}{carets}"]


def _read_lines(path: str, cache: Dict[str, Optional[List[str]]]) -> Optional[List[str]]:
    if path not in cache:
        try:
            with open(path, "rb") as handle:
                cache[path] = handle.read().decode("utf-8", "replace").splitlines()
        except OSError:
            cache[path] = None
    return cache[path]


def render(result: CheckResult, options: RenderOptions = PLAIN) -> str:
    """The ``text`` format: every finding (with ``--show-fixes``, each one's fix or why it has none), then every
    file error."""
    return _render(result, False, options.color, options.show_fixes)


def render_full(result: CheckResult, options: RenderOptions = PLAIN) -> str:
    """The ``full`` format: :func:`render` with the source line of each finding, carets under the flagged code."""
    return _render(result, True, options.color, options.show_fixes)


def _render(result: CheckResult, show_source: bool, color: bool, show_fixes: bool) -> str:
    lines: List[str] = []
    sources: Dict[str, Optional[List[str]]] = {}
    for finding in sorted(result.findings, key=Finding.sort_key):
        source = _read_lines(finding.path, sources) if show_source else None
        lines.extend(format_finding(finding, color, source))
        if show_fixes:
            lines.extend(fix_lines(finding))
        if show_source:
            lines.append("")
    lines.extend(f"{printable_line(display_path(error.path))}: {_paint('error:', _BOLD + _RED, color)} "
                 f"{printable_line(error.message)}"
                 for error in sorted(result.errors, key=lambda e: e.path))
    return "".join(line + "\n" for line in lines)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def summary(result: CheckResult) -> str:
    """Return the one-line summary, e.g. ``Found 3 findings (2 errors, 1 warning) in 5 files.``"""
    files = _plural(result.files_checked, "file")
    if result.python2_files:
        files += f", {len(result.python2_files)} of them read as Python 2"
    unchecked = f" {_plural(len(result.errors), 'file')} could not be checked." if result.errors else ""
    if not result.findings:
        if result.errors:
            return f"No findings in {files}.{unchecked}"
        return f"All checks passed ({files})."
    counts = Counter(finding.severity for finding in result.findings)
    parts = [_plural(counts[severity], severity) if severity != "info" else f"{counts[severity]} info"
             for severity in SEVERITIES if counts[severity]]
    return f"Found {_plural(len(result.findings), 'finding')} ({', '.join(parts)}) in {files}.{unchecked}"


def fixable_summary(result: CheckResult) -> str:
    """Return what ``--fix`` could do, as ruff says it, or "" when no finding has a fix.

    ``[*] 2 fixable with `--fix` (1 hidden fix can be enabled with `--unsafe-fixes`).``, or, with no safe fix,
    ``No fixes available (1 hidden fix can be enabled with `--fix --unsafe-fixes`).``
    """
    safe = sum(1 for f in result.findings if f.fix is not None and f.fix.applicability == SAFE)
    unsafe = sum(1 for f in result.findings if f.fix is not None and f.fix.applicability == UNSAFE)
    hidden = (f"{unsafe} hidden fix{'' if unsafe == 1 else 'es'} can be enabled with "
              f"`{'--unsafe-fixes' if safe else '--fix --unsafe-fixes'}`")
    if safe:
        return f"[*] {safe} fixable with `--fix`" + (f" ({hidden})." if unsafe else ".")
    if unsafe:
        return f"No fixes available ({hidden})."
    return ""
