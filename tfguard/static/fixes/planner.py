"""Attach a :class:`~tfguard.static.finding.Fix` to the findings of one analysed module."""

from __future__ import annotations

import ast
import dataclasses
import os
from typing import Dict, List, Optional, Sequence

from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.finding import Finding, Fix
from tfguard.static.fixes.context import FixContext
from tfguard.static.fixes.edits import apply_fixes
from tfguard.static.fixes.refusal import PYTHON2, UNPLANNED, NoFix, no_rule_fix
from tfguard.static.fixes.source import SourceText
from tfguard.static.quiet import checked_code
from tfguard.static.registry import all_rules
from tfguard.static.suppression import Suppressions

#: Set (to anything but "" or "0") to make an error inside a fix planner raise instead of being reported on the
#: finding: the test suite sets it (tests/conftest.py), so a fix that crashes fails the tests.
RAISE_ENV = "TFGUARD_RAISE_FIX_ERRORS"


def attach_fixes(
    analysis: ModuleAnalysis, text: str, findings: Sequence[Finding], suppressions: Suppressions
) -> List[Finding]:
    """Return ``findings`` with a fix on each one that has a fix which parses and touches no ``# noqa`` line.

    Each rule that offers a fix (``Rule.fix``) plans it from the node it reported the finding at
    (``ModuleAnalysis.reported_at``). Every other finding gets the reason it has none in ``no_fix``.
    """
    rules = all_rules()
    offers = {code: rule.fix for code, rule in rules.items() if rule.fix is not None}
    reasons: Dict[int, str] = {id(f): no_rule_fix(f.code) for f in findings if f.code not in offers}
    fixed: Dict[int, Fix] = {}
    ctx: Optional[FixContext] = None
    for finding in findings:
        if finding.code not in offers:
            continue
        node = analysis.reported_at(finding)
        if node is None:  # not reported at a node of this module's analysis
            continue
        ctx = ctx or FixContext(analysis, SourceText(text))
        try:
            fix = offers[finding.code].plan(ctx, finding, node)
        except NoFix as refused:
            reasons[id(finding)] = str(refused)
            continue
        except Exception as exc:  # noqa: BLE001 - tfguard's bug: reported on the finding, which stays
            if raise_fix_errors():
                raise
            reasons[id(finding)] = internal_error(exc)
            continue
        if fix is None:
            reasons[id(finding)] = UNPLANNED
        elif _acceptable(text, fix, suppressions):
            fixed[id(finding)] = fix
        else:
            reasons[id(finding)] = "the fix would touch a line with a `# noqa` comment, or not parse"
    return [dataclasses.replace(f, fix=fixed[id(f)]) if id(f) in fixed
            else dataclasses.replace(f, no_fix=reasons[id(f)]) if id(f) in reasons else f for f in findings]


def raise_fix_errors() -> bool:
    """Whether an error inside a fix planner raises (the tests) rather than being reported on its finding."""
    return os.environ.get(RAISE_ENV, "") not in ("", "0")


def internal_error(exc: BaseException) -> str:
    """The ``no_fix`` of a finding whose fix planner failed: tfguard's internal error, named as such."""
    return f"internal error in tfguard's fix planner ({type(exc).__name__}: {exc}): please report it"


def explain_python2(findings: Sequence[Finding]) -> List[Finding]:
    """Return the findings of a Python 2 file, each saying why it has no fix."""
    return [dataclasses.replace(f, no_fix=PYTHON2) for f in findings]


def touched_lines(fix: Fix) -> List[int]:
    """Return the lines whose text a fix changes (an insertion at a line's start changes none)."""
    lines: List[int] = []
    for edit in fix.edits:
        last = edit.end_line - 1 if edit.end_column == 1 and edit.end_line > edit.line else edit.end_line
        if edit.line == edit.end_line and edit.column == edit.end_column == 1:
            continue
        lines.extend(range(edit.line, last + 1))
    return lines


def _acceptable(text: str, fix: Fix, suppressions: Suppressions) -> bool:
    if any(line in suppressions.by_line for line in touched_lines(fix)):
        return False
    fixed, applied = apply_fixes(text, [fix])
    if not applied:
        return False
    try:
        with checked_code():
            ast.parse(fixed)
    except (SyntaxError, ValueError):
        return False
    return True
