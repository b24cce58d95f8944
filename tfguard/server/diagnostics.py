"""Findings as LSP diagnostics: code, severity, range, the ``via`` chain, the rule page's link.

Findings count lines from 1 and columns in characters from 1, the end exclusive; LSP counts both from 0, and
columns in the code units of the position encoding agreed at initialisation (UTF-16 unless the client offers
another), which :class:`Positions` converts to.
"""

from __future__ import annotations

from typing import Callable, List, Optional, Sequence, Tuple

from lsprotocol import types
from pygls.uris import from_fs_path

from tfguard.server.runtime_findings import SOURCE as RUNTIME_SOURCE
from tfguard.server.runtime_findings import RuntimeFinding
from tfguard.static.finding import Finding
from tfguard.static.fixes.source import SourceText
from tfguard.static.formats.sarif import rule_page_uri

#: The checker's diagnostics' ``source``.
SOURCE = "tfguard"

_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
             "info": types.DiagnosticSeverity.Information}

#: A string's length in the client's code units.
Units = Callable[[str], int]


class Positions:
    """Converts between a text's (1-based line, 1-based character column) and LSP positions."""

    def __init__(self, text: str, units: Units) -> None:
        self.source = SourceText(text)
        self.units = units

    def to_lsp(self, line: int, column: int) -> types.Position:
        """Return the LSP position of a finding's (line, column); past the end of the text: its end."""
        lines = self.source.lines
        if line > len(lines):
            return types.Position(len(lines) - 1, self.units(lines[-1]))
        text = lines[max(line, 1) - 1]
        return types.Position(max(line, 1) - 1, self.units(text[:max(column, 1) - 1]))

    def from_lsp(self, position: types.Position) -> Tuple[int, int]:
        """Return the (1-based line, 1-based character column) of an LSP position."""
        lines = self.source.lines
        if position.line >= len(lines):
            return len(lines), len(lines[-1]) + 1
        text = lines[position.line]
        count = 0
        for index, char in enumerate(text):
            if count >= position.character:
                return position.line + 1, index + 1
            count += self.units(char)
        return position.line + 1, len(text) + 1

    def line_range(self, line: int) -> types.Range:
        """Return the range of a whole line (its text, not its ending)."""
        lines = self.source.lines
        line = min(max(line, 1), len(lines))
        text = lines[line - 1]
        first = len(text) - len(text.lstrip())
        return types.Range(types.Position(line - 1, self.units(text[:first])),
                           types.Position(line - 1, self.units(text)))

    def finding_range(self, finding: Finding) -> types.Range:
        """Return the range a finding covers (at least one character, so that editors underline it)."""
        start = self.to_lsp(finding.line, self._char_column(finding, finding.line, finding.column))
        end = self.to_lsp(finding.end_line, self._char_column(finding, finding.end_line, finding.end_column))
        if (end.line, end.character) <= (start.line, start.character):
            end = types.Position(start.line, start.character + 1)
        return types.Range(start, end)


    def _char_column(self, finding: Finding, line: int, column: int) -> int:
        """The character column of a finding's column: the rules report the parser's columns, which count the
        UTF-8 bytes of the line (they differ from characters on a line with non-ASCII text); TFG000 and the
        rules about ``# noqa`` comments (read with tokenize) count characters."""
        if not reports_bytes(finding.code) or not 1 <= line <= len(self.source.lines):
            return column
        try:
            return self.source.char_column(line, max(column, 1) - 1)
        except (IndexError, UnicodeError):
            return column


def reports_bytes(code: str) -> bool:
    """Whether findings of ``code`` carry the parser's (UTF-8 byte) columns: every rule of the checker but the
    parse error and the rules about suppression comments."""
    from tfguard.static.registry import PARSE_ERROR_CODE, SuppressionRule, all_rules

    return code != PARSE_ERROR_CODE and not isinstance(all_rules().get(code), SuppressionRule)


def finding_diagnostic(finding: Finding, positions: Positions, docs_url: str = "") -> types.Diagnostic:
    """Return the diagnostic of one finding of the checker."""
    related = [types.DiagnosticRelatedInformation(
        location=types.Location(uri=from_fs_path(link.path) or link.path,
                                range=_line_start(link.line)),
        message=f"via {link.function}()") for link in finding.chain]
    return types.Diagnostic(
        range=positions.finding_range(finding),
        message=finding.headline + (f"\nhelp: {finding.help}" if finding.help else ""),
        severity=_SEVERITY.get(finding.severity, types.DiagnosticSeverity.Error),
        code=finding.code,
        code_description=_description(finding.code, docs_url),
        source=SOURCE,
        related_information=related or None,
        data={"name": finding.name},
    )


def runtime_diagnostic(finding: RuntimeFinding, positions: Positions, docs_url: str = "") -> types.Diagnostic:
    """Return the diagnostic of one runtime finding: the whole blamed line."""
    return types.Diagnostic(
        range=positions.line_range(finding.line),
        message=finding.message,
        severity=_SEVERITY.get(finding.severity, types.DiagnosticSeverity.Warning),
        code=finding.code,
        code_description=_description(finding.code, docs_url),
        source=RUNTIME_SOURCE,
    )


def to_diagnostics(text: str, units: Units, findings: Sequence[Finding],
                   runtime: Sequence[RuntimeFinding] = (), docs_url: str = "") -> List[types.Diagnostic]:
    """Return the diagnostics of one buffer: the checker's findings, then the runtime ones."""
    if not findings and not runtime:
        return []
    positions = Positions(text, units)
    return ([finding_diagnostic(f, positions, docs_url) for f in findings]
            + [runtime_diagnostic(f, positions, docs_url) for f in runtime])


def _description(code: str, docs_url: str) -> Optional[types.CodeDescription]:
    href = rule_page_uri(code, docs_url)  # the address SARIF's helpUri gives the rule
    return types.CodeDescription(href=href) if href else None


def _line_start(line: int) -> types.Range:
    position = types.Position(max(line, 1) - 1, 0)
    return types.Range(position, position)
