"""TFG408: a training step's result read on the host (``.numpy()``, ``float()``, ``print``) on every step (off by
default, info)."""

from __future__ import annotations

from typing import FrozenSet, Iterable, Optional

from astroid import nodes

from tfguard.static.analysis.keras_steps import runs_a_handful, step_called
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.scopes import FUNCTIONS, function_label
from tfguard.static.analysis.tf_functions import enclosing_loop, tf2_code, tf_functions
from tfguard.static.finding import ChainLink, Finding
from tfguard.static.registry import Rule

#: Python conversions that copy a tensor to the host and wait for it.
_CONVERSIONS = frozenset({"float", "int", "bool"})

#: The headline: which read, of which step's result, in which loop (formatted with read, step, loop).
HEADLINE = "{read} copies the result of `{step}()` to the host on every step of the loop at line {loop}"
#: The advice: when it costs, and what to write instead.
ADVICE = (
    "the Python loop waits for the device to finish the step before it can queue the next one; on a GPU with "
    "small steps that idles the device (on a CPU it costs nothing): accumulate on the device (a "
    "`tf.keras.metrics.Mean`, or `total += loss` as a tensor) and read it every N steps or once per epoch"
)


class HostSyncPerStep(Rule):
    """A per-step ``.numpy()`` or ``print(loss)`` serialises the host and the device (GPU only, small steps)."""

    code = "TFG408"
    name = "host-sync-per-step"
    severity = "info"
    summary = "a training step's result is copied to the host (`.numpy()`, `float()`, `print`) on every step"
    default_enabled = False

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report each unconditional host read of a step's result in the loop that calls the step."""
        if not tf2_code(module) or not module.candidate_calls(frozenset(), frozenset({"GradientTape"})):
            return
        facts = tf_functions(module)
        for assign in module.nodes_of(nodes.Assign):
            value = assign.value
            if not isinstance(value, nodes.Call) or facts.inside_trace(assign):
                continue
            loop = enclosing_loop(assign)
            if loop is None or runs_a_handful(loop):
                continue
            step = step_called(module, value)
            if step is None:
                continue
            names = frozenset(target.name for target in assign.targets[0].nodes_of_class(nodes.AssignName)) \
                if isinstance(assign.targets[0], (nodes.AssignName, nodes.Tuple, nodes.List)) else frozenset()
            seen = set()
            for read in _reads(module, loop, assign, names):
                statement = read.statement()
                if id(statement) in seen:
                    continue
                seen.add(id(statement))
                headline = HEADLINE.format(read=f"`{read.as_string()[:50]}`", step=function_label(step),
                                           loop=loop.lineno)
                end_col = read.end_col_offset if read.end_col_offset is not None else read.col_offset
                scope = assign.scope()
                label = function_label(scope) if isinstance(scope, FUNCTIONS) else "<module>"
                yield Finding(path=module.path, line=read.lineno, column=read.col_offset + 1,
                              end_line=read.end_lineno or read.lineno, end_column=end_col + 1, code=self.code,
                              name=self.name, severity=self.severity, headline=headline, help=ADVICE,
                              chain=(ChainLink(module.path, assign.lineno, label),))


def _reads(module: ModuleAnalysis, loop: nodes.NodeNG, assign: nodes.Assign,
           names: FrozenSet[str]) -> Iterable[nodes.Call]:
    """The calls of ``loop``'s body after ``assign`` that read one of ``names`` on the host, on every iteration."""
    if not names:
        return
    for node in module.iteration_nodes(loop):
        if not isinstance(node, nodes.Call) or (node.lineno or 0) < (assign.lineno or 0):
            continue
        if enclosing_loop(node) is not loop or _guarded(node, loop):
            continue
        if _host_read(node, names):
            yield node


def _host_read(call: nodes.Call, names: FrozenSet[str]) -> bool:
    func = call.func
    if isinstance(func, nodes.Attribute) and func.attrname == "numpy" and _named(func.expr, names):
        return True
    if isinstance(func, nodes.Name) and func.name in _CONVERSIONS and len(call.args) == 1 \
            and _named(call.args[0], names):
        return True
    if isinstance(func, nodes.Name) and func.name == "print":
        return any(_named(arg, names) or _formats(arg, names) for arg in call.args)
    return False


def _named(expr: Optional[nodes.NodeNG], names: FrozenSet[str]) -> bool:
    """``loss`` or ``losses[0]`` / ``losses["total"]`` for a result name ``loss``/``losses``."""
    while isinstance(expr, nodes.Subscript):
        expr = expr.value
    return isinstance(expr, nodes.Name) and expr.name in names


def _formats(expr: nodes.NodeNG, names: FrozenSet[str]) -> bool:
    """An f-string or ``%``/``.format`` text that formats one of ``names`` (its value, not its ``.numpy()``)."""
    if isinstance(expr, nodes.JoinedStr):
        return any(isinstance(part, nodes.FormattedValue) and _named(part.value, names) for part in expr.values)
    if isinstance(expr, nodes.BinOp) and expr.op == "%":
        right = expr.right
        items = right.elts if isinstance(right, nodes.Tuple) else [right]
        return any(_named(item, names) for item in items)
    return False


def _guarded(node: nodes.NodeNG, loop: nodes.NodeNG) -> bool:
    """Under an ``if`` (or a conditional expression, an ``except``) inside the loop: not every step (``if step %
    100 == 0:``); a read that every branch makes is rare enough to leave."""
    child, parent = node, node.parent
    while parent is not None and parent is not loop:
        if isinstance(parent, (nodes.If, nodes.IfExp)) and child is not parent.test:
            return True
        if isinstance(parent, nodes.ExceptHandler):
            return True
        child, parent = parent, parent.parent
    return False
