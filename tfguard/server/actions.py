"""Code actions: a finding's fix (as ``--fix`` applies it), fix all safe, and "add ``# noqa: CODE``".

A fix is offered when ``tfguard check --fix`` would apply it: safe, allowed by ``fixable``/``unfixable``;
an unsafe fix only with ``unsafe-fixes = true`` in the configuration, and its title says it is unsafe.
"Fix all safe" (``source.fixAll.tfguard``) is the text ``--fix`` would write: every safe fix, pass after
pass, each pass kept only when the result still checks cleanly.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

from lsprotocol import types

from tfguard.server.diagnostics import Positions
from tfguard.static.finding import SAFE, Finding, Fix
from tfguard.static.fixes.source import SourceText
from tfguard.static.quiet import checked_code
from tfguard.static.suppression import parse_noqa_comment, read_suppressions

#: The kind of the "fix all safe" action (ruff's is ``source.fixAll.ruff``).
FIX_ALL = "source.fixAll.tfguard"


@dataclass(frozen=True)
class Target:
    """The buffer an action edits: its URI, the version the edits were planned on, and whether the client takes
    versioned edits (``documentChanges``: it refuses them once the buffer has changed) or only plain ones."""

    uri: str
    version: Optional[int] = None
    versioned: bool = False

    def edit(self, edits: List[types.TextEdit]) -> types.WorkspaceEdit:
        """Return the workspace edit that makes ``edits`` to the buffer."""
        if self.versioned:
            return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
                edits=list(edits))])
        return types.WorkspaceEdit(changes={self.uri: list(edits)})


def wants(only: Optional[Sequence[str]], kind: str) -> bool:
    """Whether a request restricted to the ``only`` kinds asks for actions of ``kind`` (kinds nest by dots)."""
    return only is None or any(kind == k or kind.startswith(k + ".") for k in only)


def fix_action(target: Target, finding: Finding, fix: Fix, positions: Positions,
               diagnostic: Optional[types.Diagnostic]) -> types.CodeAction:
    """Return the quick fix that applies one finding's fix."""
    edits = [types.TextEdit(range=types.Range(positions.to_lsp(e.line, e.column),
                                              positions.to_lsp(e.end_line, e.end_column)),
                            new_text=e.content) for e in fix.edits]
    unsafe = fix.applicability != SAFE
    return types.CodeAction(
        title=f"{finding.code}: {fix.message}" + (" (unsafe fix)" if unsafe else ""),
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic] if diagnostic is not None else None,
        is_preferred=not unsafe,
        edit=target.edit(edits),
    )


def noqa_action(target: Target, finding: Finding, text: str, positions: Positions,
                diagnostic: Optional[types.Diagnostic]) -> Optional[types.CodeAction]:
    """Return the quick fix that adds ``# noqa: CODE`` to the finding's line, or None when that cannot be done
    safely (the line ends inside a string, say): the edited text must still parse and the comment suppress."""
    source = SourceText(text)
    if not 1 <= finding.line <= len(source.lines):
        return None
    line = source.line(finding.line)
    new_line = _with_noqa(line, finding.code)
    if new_line is None:
        return None
    start = source.offset((finding.line, 1))
    edited = text[:start] + new_line + text[start + len(line):]
    if not _suppresses(edited, finding):
        return None
    edit = types.TextEdit(range=types.Range(positions.to_lsp(finding.line, 1),
                                            positions.to_lsp(finding.line, len(line) + 1)), new_text=new_line)
    return types.CodeAction(
        title=f"{finding.code}: add `# noqa: {finding.code}` on line {finding.line}",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic] if diagnostic is not None else None,
        edit=target.edit([edit]),
    )


_NOQA_CODES = re.compile(r"(#\s*noqa:\s*[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*)", re.IGNORECASE)


def _with_noqa(line: str, code: str) -> Optional[str]:
    """Return ``line`` with ``code`` added to its ``# noqa:`` comment, or with a new comment at its end."""
    match = _NOQA_CODES.search(line)
    if match is not None and parse_noqa_comment(match.group(1)) is not None:
        return line[:match.end()] + f", {code}" + line[match.end():]
    stripped = line.rstrip()
    return f"{stripped}  # noqa: {code}" if stripped else None


def _suppresses(text: str, finding: Finding) -> bool:
    try:
        with checked_code():
            ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return read_suppressions(text).suppresses(finding)


def fix_all_action(target: Target, old: str, new: str, positions: Positions) -> types.CodeAction:
    """Return the "fix all safe" action: one edit from the first changed line to the last."""
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    head = 0
    while head < min(len(old_lines), len(new_lines)) and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while tail < min(len(old_lines), len(new_lines)) - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    start = types.Position(head, 0)
    end_line = len(old_lines) - tail
    end = types.Position(end_line, 0) if end_line < len(old_lines) or old.endswith(("\n", "\r")) \
        else positions.to_lsp(len(positions.source.lines), len(positions.source.lines[-1]) + 1)
    content = "".join(new_lines[head:len(new_lines) - tail])
    return types.CodeAction(
        title="tfguard: fix all safe",
        kind=FIX_ALL,
        edit=target.edit([types.TextEdit(range=types.Range(start, end), new_text=content)]),
    )


def unresolved_fix_all(uri: str, version: Optional[int]) -> types.CodeAction:
    """Return "fix all safe" without its edit, which ``codeAction/resolve`` works out if the user picks it."""
    return types.CodeAction(title="tfguard: fix all safe", kind=FIX_ALL, data={"uri": uri, "version": version})


def line_actions(target: Target, findings: Sequence[Finding], text: str, positions: Positions, first_line: int,
                 last_line: int, diagnostics: Dict[tuple, types.Diagnostic]) -> List[types.CodeAction]:
    """Return the quick fixes of the findings on lines ``first_line``..``last_line`` (1-based): each finding's
    fix if it has one, then its noqa action. ``diagnostics`` maps (code, line) to the client's diagnostic."""
    actions: List[types.CodeAction] = []
    noqa: List[types.CodeAction] = []
    seen_noqa = set()
    for finding in findings:
        if finding.end_line < first_line or finding.line > last_line:
            continue
        diagnostic = diagnostics.get((finding.code, finding.line - 1))
        if finding.fix is not None:
            actions.append(fix_action(target, finding, finding.fix, positions, diagnostic))
        if (finding.code, finding.line) not in seen_noqa:
            seen_noqa.add((finding.code, finding.line))
            action = noqa_action(target, finding, text, positions, diagnostic)
            if action is not None:
                noqa.append(action)
    return actions + noqa
