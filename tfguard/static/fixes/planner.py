"""Attach a :class:`~tfguard.static.finding.Fix` to the findings of one analysed module."""

from __future__ import annotations

import ast
import dataclasses
import os
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from astroid import nodes

from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.finding import Finding, Fix
from tfguard.static.fixes import assign, cadence, hoist, pipeline, retracing
from tfguard.static.fixes.context import FixContext
from tfguard.static.fixes.edits import apply_fixes
from tfguard.static.fixes.refusal import PYTHON2, UNPLANNED, NoFix, no_rule_fix
from tfguard.static.fixes.source import SourceText
from tfguard.static.quiet import checked_code
from tfguard.static.suppression import Suppressions

#: Set (to anything but "" or "0") to make an error inside a fix planner raise instead of being reported on the
#: finding: the test suite sets it (tests/conftest.py), so a fix that crashes fails the tests.
RAISE_ENV = "TFGUARD_RAISE_FIX_ERRORS"

Planner = Callable[[FixContext, Finding, nodes.NodeNG], Optional[Fix]]


def _hoist_or_load(ctx: FixContext, finding: Finding, node: nodes.NodeNG) -> Optional[Fix]:
    """Hoist the assign; else feed its value to the variable's initializer (no op at all) when its result is
    unused; else feed it through a placeholder built once."""
    try:
        hoisted = hoist.plan_hoist(ctx, finding, node, feed=False)
    except NoFix as refused:
        load = assign.plan_load(ctx, finding, node)
        if load is None:
            return hoist.plan_hoist(ctx, finding, node)
        return dataclasses.replace(load, message=f"{load.message} (not hoisted: {refused})")
    return hoisted or assign.plan_load(ctx, finding, node)


#: Rule code -> the function that plans its fix; rules not listed have none (see availability.py).
PLANNERS: Dict[str, Planner] = {
    "TFG101": hoist.plan_hoist,
    "TFG102": hoist.plan_hoist,
    "TFG103": hoist.plan_hoist,
    "TFG106": hoist.plan_hoist,
    "TFG107": hoist.plan_hoist,
    "TFG108": _hoist_or_load,
    "TFG201": cadence.plan_guard,
    "TFG202": cadence.plan_guard,
    "TFG204": pipeline.plan_parallel_map,
    "TFG205": pipeline.plan_prefetch,
    "TFG403": retracing.plan_tensor_argument,
    "TFG404": retracing.plan_relax_shapes,
}


def attach_fixes(
    analysis: ModuleAnalysis, text: str, findings: Sequence[Finding], suppressions: Suppressions
) -> List[Finding]:
    """Return ``findings`` with a fix on each one that has a fix which parses and touches no ``# noqa`` line.

    Every other finding gets the reason it has none in ``no_fix``.
    """
    wanted = [f for f in findings if f.code in PLANNERS and f.path == analysis.path]
    reasons: Dict[int, str] = {id(f): no_rule_fix(f.code) for f in findings if f.code not in PLANNERS}
    fixed: Dict[int, Fix] = {}
    if wanted:
        ctx = FixContext(analysis, SourceText(text))
        located = _nodes_at(analysis.module, {_key(f) for f in wanted})
        for finding in wanted:
            reason = UNPLANNED
            for node in located.get(_key(finding), ()):
                try:
                    fix = PLANNERS[finding.code](ctx, finding, node)
                except NoFix as refused:
                    reason = str(refused)  # several nodes share one span: the innermost one's reason is kept
                    continue
                except Exception as exc:  # noqa: BLE001 - tfguard's bug: reported on the finding, which stays
                    if raise_fix_errors():
                        raise
                    reason = internal_error(exc)
                    break
                if fix is not None:
                    if _acceptable(text, fix, suppressions):
                        fixed[id(finding)] = fix
                        break
                    reason = "the fix would touch a line with a `# noqa` comment, or not parse"
            if id(finding) not in fixed:
                reasons[id(finding)] = reason
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


def _key(finding: Finding) -> Tuple[int, int, int, int]:
    return finding.line, finding.column, finding.end_line, finding.end_column


def _nodes_at(module: nodes.Module, keys) -> Dict[Tuple[int, int, int, int], List[nodes.NodeNG]]:
    """Return the nodes at each finding's position (several nodes can share one span: outermost first)."""
    found: Dict[Tuple[int, int, int, int], List[nodes.NodeNG]] = {}
    lines = {key[0] for key in keys}
    for node in module.nodes_of_class(nodes.NodeNG):
        if getattr(node, "lineno", None) not in lines or node.col_offset is None:
            continue
        end = node.end_col_offset if node.end_col_offset is not None else node.col_offset
        key = (node.lineno, node.col_offset + 1, node.end_lineno or node.lineno, end + 1)
        if key in keys:
            found.setdefault(key, []).append(node)
    return found


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
