"""An op built from a Python value the loop changes: feed the value through a placeholder built once (issue 40).

``sess.run(tf.nn.softmax(logits / temperature))`` with ``temperature`` a Python number the loop computes builds
a new op and a constant per iteration; built before the loop from ``temperature_ph = tf.placeholder(
logits.dtype.base_dtype, [])``, and run with ``feed_dict={temperature_ph: temperature}``, it computes the same:
TensorFlow converts a Python operand of an arithmetic operator to the tensor operand's dtype, as feeding does
(NumPy's conversion to that dtype, both).  ``tf.assign(v, value)`` / ``v.assign(value)`` feed ``value`` through
``tf.placeholder(v.dtype.base_dtype, v.get_shape())``, which the assign converts to the variable's dtype and
checks against its shape as before.  Safe only when the value is provably a Python number (or, for an assign, a
NumPy value; unsafe for a name or attribute tfguard cannot read, such as a global a helper rebinds), the op is the
first argument of a ``sess.run`` of the loop whose feed is absent or a dict literal, and every other part of the op
is what a hoist needs (the loop changes nothing else it reads).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from astroid import nodes

from tfguard.static.analysis.dataflow import TF
from tfguard.static.analysis.scopes import FUNCTIONS
from tfguard.static.analysis.tfapi import INITIALIZED_VARIABLE_APIS
from tfguard.static.finding import SAFE, UNSAFE, Edit, Fix
from tfguard.static.fixes.assign import python_value
from tfguard.static.fixes.context import FixContext
from tfguard.static.fixes.loops import INVARIANT, VARYING
from tfguard.static.fixes.naming import op_name
from tfguard.static.fixes.refusal import NoFix

#: Operators whose Python operand TensorFlow converts to the other operand's dtype.
ARITHMETIC = frozenset({"+", "-", "*", "/", "//", "%", "**"})


def plan_feed(ctx: FixContext, node: nodes.NodeNG, loop: nodes.NodeNG, why: str) -> Fix:
    """Return the placeholder fix for ``node``, which reads Python values the loop changes; NoFix (with ``why``,
    the hoist's reason, and what the feed lacks) when there is none."""
    run = node.parent
    if not (isinstance(run, nodes.Call) and run.args and run.args[0] is node
            and ctx.module.run_event(run) is not None):
        raise NoFix(f"built before the loop it would compute another value: {why}")
    feed = _feed_dict(run)
    if feed is False:
        raise NoFix(f"built before the loop it would compute another value: {why} (and the `sess.run` feed is not a "
                    "dict tfguard can add the value to)")
    if not _in_loop_body(run, loop):
        raise NoFix(f"built before the loop it would compute another value: {why}")
    scan = ctx.scan(loop)
    fed = _fed_values(ctx, node, scan)
    if not fed:
        raise NoFix(f"built before the loop it would compute another value: {why} (a placeholder carries only a "
                    "Python number that is an operand of arithmetic on a tensor, or the value of an assign)")
    status, rest = scan.expression_status(node, [value for value, _ in fed])
    if status != INVARIANT:
        raise NoFix(f"built before the loop it would compute another value: {rest if status == VARYING else why}")
    alias = ctx.tf_alias()
    source = ctx.source
    if alias is None or not source.starts_line(loop):
        raise NoFix(f"built before the loop it would compute another value: {why}")
    return _edits(ctx, node, loop, run, feed, fed, alias)


def _feed_dict(run: nodes.Call):
    """The run's feed: None when there is none, the Dict literal, or False when it is something else."""
    feeds = [k.value for k in run.keywords or () if k.arg == "feed_dict"]
    if len(run.args) > 2 or any(k.arg is None for k in run.keywords or ()):
        return False
    if len(run.args) == 2:
        feeds.append(run.args[1])
    if not feeds:
        return None
    return feeds[0] if len(feeds) == 1 and isinstance(feeds[0], nodes.Dict) else False


def _in_loop_body(run: nodes.NodeNG, loop: nodes.NodeNG) -> bool:
    parent = run.parent
    while parent is not None and parent is not loop:
        if isinstance(parent, (*FUNCTIONS, nodes.Lambda, nodes.ClassDef, nodes.ComprehensionScope, nodes.JoinedStr)):
            return False
        parent = parent.parent
    return parent is loop


def _fed_values(ctx: FixContext, node: nodes.NodeNG, scan) -> List[Tuple[nodes.NodeNG, str]]:
    """(the value, the placeholder's dtype and shape) for each Python value the loop changes that ``node`` reads."""
    found: List[Tuple[nodes.NodeNG, str]] = []
    source = ctx.source
    for sub in node.nodes_of_class((nodes.BinOp, nodes.Call)):
        if isinstance(sub, nodes.BinOp) and sub.op in ARITHMETIC:
            for value, tensor in ((sub.right, sub.left), (sub.left, sub.right)):
                if _varying_number(ctx, value, scan, numpy=False) and _tensor(ctx, tensor, scan):
                    found.append((value, f"{source.node_text(tensor)}.dtype.base_dtype, []"))
                    break
        elif isinstance(sub, nodes.Call):
            pair = _assigned(ctx, sub)
            if pair is not None and _varying_number(ctx, pair[1], scan, numpy=True) and _tensor(ctx, pair[0], scan):
                text = source.node_text(pair[0])
                found.append((pair[1], f"{text}.dtype.base_dtype, {text}.get_shape()"))
    # a value inside another one fed is fed with it
    return [(v, s) for v, s in found if not any(o is not v and v in o.nodes_of_class(type(v)) for o, _ in found)]


def _assigned(ctx: FixContext, call: nodes.Call) -> Optional[Tuple[nodes.NodeNG, nodes.NodeNG]]:
    """(variable, value) of ``tf.assign(v, value)`` or ``v.assign(value)`` on a ``tf.Variable``."""
    if call.keywords:
        return None
    if ctx.module.call_qualname(call) == "tensorflow.assign" and len(call.args) == 2:
        variable, value = call.args
    elif isinstance(call.func, nodes.Attribute) and call.func.attrname == "assign" and len(call.args) == 1:
        variable, value = call.func.expr, call.args[0]
    else:
        return None
    held = ctx.module.value(variable)
    if held is None or held.kind != TF or held.api not in INITIALIZED_VARIABLE_APIS:
        return None
    return variable, value


def _varying_number(ctx: FixContext, value: nodes.NodeNG, scan, numpy: bool) -> bool:
    """A value the loop changes that is a Python number (or NumPy value, ``numpy``); or, unproven, a name or
    attribute not known to hold anything of TensorFlow's (:func:`_proven` tells which)."""
    if scan.expression_status(value)[0] != VARYING:
        return False
    if not python_value(ctx, value, set(), 0):
        held = ctx.module.value(value)
        return isinstance(value, (nodes.Name, nodes.Attribute)) and (held is None or held.kind != TF)
    # a NumPy call may be an array of any shape: only an assign (the variable's shape) takes one
    return numpy or not any(isinstance(n, nodes.Call) and (ctx.module.call_qualname(n) or "").startswith("numpy.")
                            for n in value.nodes_of_class(nodes.Call))


def _tensor(ctx: FixContext, expr: nodes.NodeNG, scan) -> bool:
    """A name or attribute holding a tensor or variable that the loop does not change."""
    if not isinstance(expr, (nodes.Name, nodes.Attribute)):
        return False
    held = ctx.module.value(expr)
    return held is not None and held.kind == TF and held.tensor and scan.expression_status(expr)[0] == INVARIANT


def _edits(ctx: FixContext, node, loop, run, feed, fed, alias: str) -> Fix:
    source = ctx.source
    indent = source.indent(loop.lineno)
    names: Dict[str, str] = {}
    lines = []
    for value, spec in fed:
        text = source.node_text(value)
        if text not in names:
            base = value.name if isinstance(value, nodes.Name) else getattr(value, "attrname", "value")
            names[text] = ctx.fresh_name(f"{base}_ph")
            lines.append(f"{indent}{names[text]} = {alias}.placeholder({spec}){source.newline}")
    # the op's text with each fed value replaced by its placeholder
    base = source.offset(source.start(node))
    built = source.node_text(node)
    for value, _ in sorted(fed, key=lambda pair: source.offset(source.start(pair[0])), reverse=True):
        first = source.offset(source.start(value)) - base
        last = source.offset(source.end(value)) - base
        built = built[:first] + names[source.node_text(value)] + built[last:]
    if node.lineno != node.end_lineno:
        built = f"({built})"

    event = ctx.module.build_event(node)
    name = ctx.fresh_name(op_name(node, event.site.api if event is not None else "operator"))
    lines.append(f"{indent}{name} = {built}{source.newline}")
    entries = ", ".join(f"{names[text]}: {text}" for text in names)
    start, end = source.start(node), source.end(node)
    edits = [Edit(loop.lineno, 1, loop.lineno, 1, "".join(lines))]
    if feed is None:
        edits.append(Edit(start[0], start[1], end[0], end[1], f"{name}, feed_dict={{{entries}}}"))
    else:
        edits.append(Edit(start[0], start[1], end[0], end[1], name))
        brace = source.start(feed)
        separator = ", " if feed.items else ""
        edits.append(Edit(brace[0], brace[1] + 1, brace[0], brace[1] + 1, f"{entries}{separator}"))
    shown = " ".join(built.split())
    if len(shown) > 60:
        shown = shown[:59] + "…"
    values = ", ".join(f"`{text}`" for text in names)
    unproven = [f"`{source.node_text(v)}`" for v, _ in fed if not python_value(ctx, v, set(), 0)]
    risk = (f" (unsafe: tfguard cannot tell that {', '.join(dict.fromkeys(unproven))} is a Python number, which a "
            "placeholder of the tensor's dtype carries as the constant did)") if unproven else ""
    return Fix(UNSAFE if unproven else SAFE, f"Feed {values} through a placeholder built once: build `{shown}` as "
               f"`{name}` before the loop at line {loop.lineno} and run it with `{{{entries}}}`{risk}", tuple(edits))
