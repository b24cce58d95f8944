"""TFG201 and TFG202 (unsafe): write summaries or checkpoints every N steps of the loop's counter."""

from __future__ import annotations

from typing import Optional

from astroid import nodes

from tfguard.static.analysis.frequency import frequency
from tfguard.static.finding import UNSAFE, Edit, Finding, Fix
from tfguard.static.fixes.context import FixContext
from tfguard.static.fixes.refusal import NoFix

#: Steps between two writes, as TensorFlow's own hooks default to.
EVERY = {"TFG201": 100, "TFG202": 1000}


def loop_counter(loop: nodes.NodeNG) -> Optional[str]:
    """Return the step counter of ``for step in range(...)`` or ``for step, x in enumerate(...)``, if any."""
    if not isinstance(loop, nodes.For) or not isinstance(loop.iter, nodes.Call):
        return None
    func = loop.iter.func
    if not isinstance(func, nodes.Name):
        return None
    target = loop.target
    if func.name == "range" and isinstance(target, nodes.AssignName):
        return target.name
    if func.name == "enumerate" and isinstance(target, nodes.Tuple) and target.elts:
        first = target.elts[0]
        return first.name if isinstance(first, nodes.AssignName) else None
    return None


def plan_guard(ctx: FixContext, finding: Finding, node: nodes.NodeNG) -> Optional[Fix]:
    """Wrap an every-step ``saver.save(...)`` or ``writer.add_summary(sess.run(...), ...)`` in ``if step % N == 0:``.

    A summary written from a name is left alone: the ``sess.run`` that fetched it would still
    evaluate the summary op every step (TFG201 would then report that fetch instead).
    """
    statement = node.parent
    if finding.chain:
        raise NoFix("the write happens in a helper the loop calls: the fix belongs in the helper")
    if not isinstance(statement, nodes.Expr) or statement.value is not node:
        raise NoFix("the write is not a statement of its own that an `if` could wrap")
    loop = frequency(ctx.module).every_step_loop(node)
    counter = loop_counter(loop) if loop is not None else None
    if counter is None or ctx.scan(loop).bound[counter] != 1 or counter in ctx.scan(loop).mutated:
        raise NoFix("the loop has no step counter (`for step in range(...)` or `enumerate`) to test")
    written = node.args[0] if node.args else None
    if finding.code == "TFG201" and (not isinstance(written, nodes.Call) or ctx.module.run_event(written) is None):
        # a summary fetched by another sess.run every step would still be fetched every step
        raise NoFix("the summary is fetched by a `sess.run` that runs every step anyway: fetch it only on the "
                    "steps that write it")
    if "range" in ctx.module.module.locals or "enumerate" in ctx.module.module.locals:
        raise NoFix("`range`/`enumerate` are not the builtins in this module")
    source = ctx.source
    if not (source.starts_line(statement) and source.ends_line(statement) and source.starts_line(loop)):
        raise NoFix("the statement shares its line with other code")
    if any(n.lineno != n.end_lineno for n in statement.nodes_of_class((nodes.Const, nodes.JoinedStr))):
        raise NoFix("re-indenting would change a string that spans lines")
    body_indent, loop_indent = source.indent(loop.body[0].fromlineno), source.indent(loop.lineno)
    unit = body_indent[len(loop_indent):] if body_indent.startswith(loop_indent) else ""
    if not unit or unit.strip(" \t"):
        raise NoFix("the loop's indentation cannot be read")
    indent = source.indent(statement.fromlineno)
    every = EVERY[finding.code]
    lines = [f"{indent}if {counter} % {every} == 0:{source.newline}"]
    for lineno in range(statement.fromlineno, statement.tolineno + 1):
        lines.append(unit + source.line(lineno) + source.newline)
    end = source.next_line_start(statement.tolineno)
    what = "summaries" if finding.code == "TFG201" else "checkpoints"
    return Fix(UNSAFE, f"Write {what} only every {every} steps: `if {counter} % {every} == 0:` (unsafe: "
               "fewer writes)", (Edit(statement.fromlineno, 1, end[0], end[1], "".join(lines)),))
