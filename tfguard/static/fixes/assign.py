"""TFG108 (unsafe): ``sess.run(tf.assign(v, value))`` with a value the loop changes becomes ``v.load(value, sess)``.

``Variable.load`` feeds the value to the variable's initializer: no op is added.
It only takes Python or NumPy values, so a value that is a tensor gets no fix.
"""

from __future__ import annotations

from typing import Optional, Tuple

from astroid import nodes

from tfguard.static.analysis.dataflow import TF
from tfguard.static.finding import UNSAFE, Edit, Finding, Fix
from tfguard.static.fixes.context import FixContext


def _variable_and_value(ctx: FixContext, call: nodes.Call) -> Optional[Tuple[nodes.NodeNG, nodes.NodeNG]]:
    keywords = {k.arg: k.value for k in call.keywords or ()}
    if ctx.module.call_qualname(call) == "tensorflow.assign":
        if len(call.args) == 2 and not keywords:
            return call.args[0], call.args[1]
        return None
    func = call.func
    if isinstance(func, nodes.Attribute) and func.attrname == "assign" and len(call.args) == 1 and not keywords:
        return func.expr, call.args[0]
    return None


def plan_load(ctx: FixContext, finding: Finding, node: nodes.NodeNG) -> Optional[Fix]:
    """Return the ``v.load(value, sess)`` fix for an assign that is the only fetch of a statement's ``sess.run``."""
    if finding.chain or not isinstance(node, nodes.Call):
        return None
    run = node.parent
    if not (isinstance(run, nodes.Call) and isinstance(run.func, nodes.Attribute) and run.func.attrname == "run"
            and run.args == [node] and not run.keywords and isinstance(run.parent, nodes.Expr)):
        return None
    if ctx.module.run_event(run) is None:
        return None
    found = _variable_and_value(ctx, node)
    if found is None:
        return None
    variable, value = found
    if not isinstance(variable, (nodes.Name, nodes.Attribute)):
        return None
    held = ctx.module.value(value)
    if held is not None and held.kind == TF:
        return None
    for part in value.nodes_of_class((nodes.Call, nodes.BinOp, nodes.UnaryOp, nodes.Subscript)):
        if ctx.module.build_event(part) is not None:
            return None
    source = ctx.source
    start, end = source.start(run), source.end(run)
    text = f"{source.node_text(variable)}.load({source.node_text(value)}, {source.node_text(run.func.expr)})"
    return Fix(UNSAFE, f"Replace with `{text}`, which adds no op (unsafe: `load` takes only Python or NumPy "
               "values, and returns nothing)", (Edit(start[0], start[1], end[0], end[1], text),))
