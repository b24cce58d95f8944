"""TFG204 and TFG205: let tf.data work in parallel and ahead (``num_parallel_calls``, ``.prefetch``)."""

from __future__ import annotations

from typing import Optional

from astroid import nodes

from tfguard.static.analysis.dataflow import FUNCTION, TF
from tfguard.static.analysis.datasets import datasets
from tfguard.static.analysis.scopes import FUNCTIONS
from tfguard.static.analysis.tfapi import AUTOTUNE_NAMES
from tfguard.static.finding import SAFE, UNSAFE, Edit, Finding, Fix
from tfguard.static.fixes.context import FixContext
from tfguard.static.fixes.refusal import NoFix
from tfguard.static.fixes.source import Position
from tfguard.static.fixes.stateful import state_holding_ops

#: How many helper calls deep a map function is read for ops that hold state.
MAP_DEPTH = 4

ITERATOR_METHODS = frozenset({"make_one_shot_iterator", "make_initializable_iterator"})
ITERATOR_FUNCTIONS = frozenset({
    "tensorflow.data.make_one_shot_iterator", "tensorflow.data.make_initializable_iterator",
})


def autotune(ctx: FixContext) -> Optional[str]:
    """Return how this module spells AUTOTUNE: as it already does, else ``<tf alias>.data.AUTOTUNE`` in code written
    for TF 2 (:func:`~tfguard.static.analysis.tf2_spelling.speaks_tf2`) and ``<tf alias>.data.experimental.AUTOTUNE``
    elsewhere (the only one TF 1.x has)."""
    module = ctx.module
    for node in module.nodes_of(nodes.Attribute):
        if node.attrname == "AUTOTUNE" and module.qualname(node) in AUTOTUNE_NAMES:
            return ctx.source.node_text(node)
    for node in module.nodes_of(nodes.Name):
        if node.name == "AUTOTUNE" and module.qualname(node) in AUTOTUNE_NAMES and "AUTOTUNE" in module.module.locals:
            return "AUTOTUNE"
    alias = ctx.tf_alias()
    if alias is None:
        return None
    from tfguard.static.analysis.tf2_spelling import speaks_tf2

    return f"{alias}.data.AUTOTUNE" if speaks_tf2(module) else f"{alias}.data.experimental.AUTOTUNE"


def plan_parallel_map(ctx: FixContext, finding: Finding, node: nodes.NodeNG) -> Optional[Fix]:
    """Add ``num_parallel_calls=AUTOTUNE`` to a ``.map()``/``.interleave()`` call."""
    if not isinstance(node, nodes.Call) or not isinstance(node.func, nodes.Attribute):
        raise NoFix("not a `.map()` call tfguard can edit")
    arguments = [*node.args, *(node.keywords or ())]
    if not arguments or any(isinstance(a, nodes.Starred) for a in node.args) or any(
        k.arg is None for k in node.keywords or ()
    ):
        raise NoFix("the call passes `*args` or `**kwargs`, so where the argument goes is unknown")
    pipelines = datasets(ctx.module)
    if pipelines.is_contrib(pipelines.chain(node.func.expr) or []):
        raise NoFix("a `tf.contrib.data` dataset (TF 1.2/1.3): its `map` takes `num_threads`, and "
                    "`num_parallel_calls` would be a TypeError there")
    spelling = autotune(ctx)
    if spelling is None:
        raise NoFix("the module reaches TensorFlow through no name tfguard could spell AUTOTUNE with")
    last = max(arguments, key=lambda a: (a.end_lineno, a.end_col_offset))
    line, column = ctx.source.end(last)
    message = f"Pass `num_parallel_calls={spelling}` to `.{node.func.attrname}()`"
    risk = _parallel_risk(ctx, node)
    if risk:
        message += f" (unsafe: {risk})"
    return Fix(UNSAFE if risk else SAFE, message,
               (Edit(line, column, line, column, _argument_text(ctx, node, (line, column),
                                                                 f"num_parallel_calls={spelling}")),))


def _argument_text(ctx: FixContext, call: nodes.Call, at: Position, argument: str) -> str:
    """The text that adds ``argument`` after the last argument of ``call`` (which ends at ``at``): on the same line
    when the line stays within the file's line length, else on a line of its own, under the first argument (or one
    indent step in, when that would not fit either)."""
    line, column = at
    text = ctx.source.line(line)
    limit = ctx.source.line_length()
    if len(text) + len(", " + argument) <= limit:
        return ", " + argument
    rest = text[column - 1:].rstrip()
    first_line, first_column = ctx.source.start(call.args[0] if call.args else call.keywords[0])
    aligned = " " * (first_column - 1) if first_line == call.lineno else None
    if aligned is None or len(aligned) + len(argument) + len(rest) > limit:
        aligned = ctx.source.indent(line) + _indent_step(ctx)
    return "," + ctx.source.newline + aligned + argument


def _indent_step(ctx: FixContext) -> str:
    """The file's indent step: the smallest indentation of a line (2 spaces in Google style), else 4 spaces."""
    steps = [len(ctx.source.indent(n)) for n in range(1, len(ctx.source.lines) + 1)
             if ctx.source.line(n).strip() and ctx.source.indent(n).strip(" ") == "" and ctx.source.indent(n)]
    return " " * (min(steps) if steps else 4)


def _map_function(node: nodes.Call) -> Optional[nodes.NodeNG]:
    if node.args:
        return node.args[0]
    return next((k.value for k in node.keywords or () if k.arg in ("map_func", "func")), None)


def _parallel_risk(ctx: FixContext, node: nodes.Call) -> str:
    """Why running the map function on several elements at once may change the elements, or ""."""
    given = _map_function(node)
    function: Optional[nodes.NodeNG] = None
    if isinstance(given, nodes.Lambda):
        function = given
    elif given is not None:
        value = ctx.module.value(given) if isinstance(given, (nodes.Name, nodes.Attribute)) else None
        if value is not None and value.kind == FUNCTION:
            function = value.node
    if function is None:
        return ("tfguard cannot read the map function, and one that draws random numbers or keeps state gives "
                "other elements when calls run in parallel")
    found = _state_in(ctx, function, MAP_DEPTH, set())
    if not found:
        return ""
    return (f"the map function builds {found}, which keep state between calls (random draws): in parallel, "
            "which element gets which draw depends on timing, so runs stop being reproducible even with a seed "
            "and `deterministic=True` (TF 2.2+), which keeps only the order; stateless ops "
            "(`tf.random.stateless_uniform`) keep it")


def _state_in(ctx: FixContext, function: nodes.NodeNG, depth: int, seen: set) -> str:
    """The first state-holding op ``function`` (or a project helper it calls) builds, or ""."""
    module = ctx.module
    seen.add(id(function))
    body = [function.body] if isinstance(function, nodes.Lambda) else list(module.own_nodes(function))
    for root in body:
        for part in root.nodes_of_class((nodes.Call, nodes.BinOp), skip_klass=(*FUNCTIONS, nodes.ClassDef)):
            event = module.build_event(part)
            if event is not None and not event.chain:
                ops = state_holding_ops(event.site.api)
                if ops:
                    return f"`{event.site.display}` (ops `{'`, `'.join(ops[:3])}`)"
            if isinstance(part, nodes.Call) and depth > 0:
                callee = module.called_function(part)
                if callee is not None and id(callee) not in seen and callee.root() is module.module:
                    found = _state_in(ctx, callee, depth - 1, seen)
                    if found:
                        return found
    return ""


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
    if ctx.module.call_qualname(node) in ITERATOR_FUNCTIONS:
        # tf.data.make_one_shot_iterator(ds): the dataset is the argument, not ``tf.data``
        if node.args:
            return node.args[0]
        return next((k.value for k in node.keywords or () if k.arg == "dataset"), None)
    func = node.func
    if isinstance(func, nodes.Attribute) and func.attrname in ITERATOR_METHODS:
        return func.expr
    if isinstance(func, nodes.Attribute) and func.attrname in ("make_initializer", "fit"):
        if node.args:
            return node.args[0]
        return next((k.value for k in node.keywords or () if k.arg == "x"), None)
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
    if expr is None:
        raise NoFix("tfguard cannot tell which expression is the dataset consumed here")
    if spelling is None:
        raise NoFix("the module reaches TensorFlow through no name tfguard could spell AUTOTUNE with")
    function = _function_of(ctx, expr)
    if function is not None:
        # A pipeline built by a function (an input_fn): prefetch at its one return, which serves every caller.
        expr = _single_return_value(function, ctx)
        if expr is None:
            raise NoFix("the dataset comes from a function in another file, or one with more than one `return`")
    pipelines = datasets(ctx.module)
    if pipelines.is_contrib(pipelines.chain(expr) or []):
        raise NoFix("a `tf.contrib.data` dataset (TF 1.2/1.3): it has no `.prefetch()`, and "
                    "`tf.data.experimental.AUTOTUNE` does not exist there")
    held = ctx.module.value(expr)
    if held is not None and held.kind != TF:
        # ``tf.data.prefetch(...)`` would compile and re-check cleanly, then fail at run time
        raise NoFix(f"`{ctx.source.node_text(expr)}` is not a dataset")
    source = ctx.source
    start, end = source.start(expr), source.end(expr)
    edits = [Edit(end[0], end[1], end[0], end[1], f".prefetch({spelling})")]
    if not isinstance(expr, (nodes.Name, nodes.Attribute, nodes.Call, nodes.Subscript)):
        edits.insert(0, Edit(start[0], start[1], start[0], start[1], "("))
        edits[-1] = Edit(end[0], end[1], end[0], end[1], f").prefetch({spelling})")
    return Fix(SAFE, f"End the pipeline with `.prefetch({spelling})`", tuple(edits))
