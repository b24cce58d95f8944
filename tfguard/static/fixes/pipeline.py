"""TFG204 and TFG205: let tf.data work in parallel and ahead (``num_parallel_calls``, ``.prefetch``)."""

from __future__ import annotations

from typing import Optional

from astroid import nodes

from tfguard.static.analysis.dataflow import FUNCTION
from tfguard.static.finding import SAFE, Edit, Finding, Fix
from tfguard.static.fixes.context import FixContext

AUTOTUNE_NAMES = frozenset({"tensorflow.data.experimental.AUTOTUNE", "tensorflow.data.AUTOTUNE"})
ITERATOR_METHODS = frozenset({"make_one_shot_iterator", "make_initializable_iterator"})
ITERATOR_FUNCTIONS = frozenset({
    "tensorflow.data.make_one_shot_iterator", "tensorflow.data.make_initializable_iterator",
})


def autotune(ctx: FixContext) -> Optional[str]:
    """Return how this module spells AUTOTUNE: as it already does, else ``<tf alias>.data.experimental.AUTOTUNE``."""
    module = ctx.module
    for node in module.nodes_of(nodes.Attribute):
        if node.attrname == "AUTOTUNE" and module.qualname(node) in AUTOTUNE_NAMES:
            return ctx.source.node_text(node)
    for node in module.nodes_of(nodes.Name):
        if node.name == "AUTOTUNE" and module.qualname(node) in AUTOTUNE_NAMES and "AUTOTUNE" in module.module.locals:
            return "AUTOTUNE"
    alias = ctx.tf_alias()
    return f"{alias}.data.experimental.AUTOTUNE" if alias else None


def plan_parallel_map(ctx: FixContext, finding: Finding, node: nodes.NodeNG) -> Optional[Fix]:
    """Add ``num_parallel_calls=AUTOTUNE`` to a ``.map()``/``.interleave()`` call."""
    if not isinstance(node, nodes.Call) or not isinstance(node.func, nodes.Attribute):
        return None
    arguments = [*node.args, *(node.keywords or ())]
    if not arguments or any(isinstance(a, nodes.Starred) for a in node.args) or any(
        k.arg is None for k in node.keywords or ()
    ):
        return None
    spelling = autotune(ctx)
    if spelling is None:
        return None
    last = max(arguments, key=lambda a: (a.end_lineno, a.end_col_offset))
    line, column = ctx.source.end(last)
    return Fix(SAFE, f"Pass `num_parallel_calls={spelling}` to `.{node.func.attrname}()`",
               (Edit(line, column, line, column, f", num_parallel_calls={spelling}"),))


def _consumed(ctx: FixContext, node: nodes.NodeNG) -> Optional[nodes.NodeNG]:
    """Return the dataset expression a TFG205 finding's node consumes (see the rule's ``_consumers``)."""
    if isinstance(node.parent, nodes.Lambda) and node is node.parent.body:
        return node
    if isinstance(node, nodes.Return):
        return node.value
    if not isinstance(node, nodes.Call):
        return None
    for keyword in node.keywords or ():
        if keyword.arg == "input_fn":  # estimator.train(input_fn=...): the function's return is the pipeline
            value = keyword.value
            return value.body if isinstance(value, nodes.Lambda) else value
    func = node.func
    if isinstance(func, nodes.Attribute) and func.attrname in ITERATOR_METHODS:
        return func.expr
    if isinstance(func, nodes.Attribute) and func.attrname in ("make_initializer", "fit"):
        if node.args:
            return node.args[0]
        return next((k.value for k in node.keywords or () if k.arg == "x"), None)
    if node.args and ctx.module.call_qualname(node) in ITERATOR_FUNCTIONS:
        return node.args[0]
    return None


def _function_of(ctx: FixContext, expr: nodes.NodeNG) -> Optional[nodes.NodeNG]:
    """The project function whose result ``expr`` is (``make_input()``), or that it names (``input_fn=make_input``)."""
    if isinstance(expr, nodes.Call):
        return ctx.module.called_function(expr)
    value = ctx.module.value(expr) if isinstance(expr, nodes.Name) else None
    return value.node if value is not None and value.kind == FUNCTION else None


def _single_return_value(function: nodes.NodeNG, ctx: FixContext) -> Optional[nodes.NodeNG]:
    """The value of ``function``'s only ``return`` when the function is in the file being fixed, else None."""
    if function.root() is not ctx.module.module:
        return None
    returns = [node for node in ctx.module.own_nodes(function) if isinstance(node, nodes.Return)]
    if len(returns) != 1 or returns[0].value is None:
        return None
    return returns[0].value


def plan_prefetch(ctx: FixContext, finding: Finding, node: nodes.NodeNG) -> Optional[Fix]:
    """End the consumed pipeline with ``.prefetch(AUTOTUNE)`` where it is consumed."""
    expr = _consumed(ctx, node)
    spelling = autotune(ctx)
    if expr is None or spelling is None:
        return None
    function = _function_of(ctx, expr)
    if function is not None:
        # A pipeline built by a function (an input_fn): prefetch at its one return, which serves every caller.
        expr = _single_return_value(function, ctx)
        if expr is None:
            return None
    source = ctx.source
    start, end = source.start(expr), source.end(expr)
    edits = [Edit(end[0], end[1], end[0], end[1], f".prefetch({spelling})")]
    if not isinstance(expr, (nodes.Name, nodes.Attribute, nodes.Call, nodes.Subscript)):
        edits.insert(0, Edit(start[0], start[1], start[0], start[1], "("))
        edits[-1] = Edit(end[0], end[1], end[0], end[1], f").prefetch({spelling})")
    return Fix(SAFE, f"End the pipeline with `.prefetch({spelling})`", tuple(edits))
