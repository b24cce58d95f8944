"""TFG403 and TFG404: hand a ``tf.function`` a Tensor instead of a Python value; relax its input shapes.

TFG403 (safe): ``train_step(x, epoch)`` becomes ``train_step(x, tf.constant(epoch))`` only when the traced function
uses that parameter in ways a Tensor holding the same number computes the same values: not at all, as the value
of ``tf.cast(p, ...)``, or as the ``step=`` of a ``tf.summary`` call (then ``tf.constant(p, dtype=tf.int64)``, the
dtype summaries write, and only for an int counter).  Any other use (Python control flow, ``range(p)``, a shape,
string formatting, arithmetic, a call of another function) may change the values or fail: no fix.

TFG404 (unsafe): ``@tf.function`` becomes ``@tf.function(reduce_retracing=True)`` (``experimental_relax_shapes``
before TF 2.9).  Unsafe: the relaxed trace sees ``None`` for the dimensions that varied, so Python code reading
``x.shape[1]`` gets ``None`` (a ``range``, a static reshape) or fails, and one general graph may run slower.
"""

from __future__ import annotations

from typing import Optional

from astroid import nodes

from tfguard.static.analysis.retrace_arguments import is_int_counter, parameter_for, tensor_uses
from tfguard.static.analysis.tf_functions import tf_functions
from tfguard.static.finding import SAFE, UNSAFE, Edit, Finding, Fix
from tfguard.static.fixes.context import FixContext
from tfguard.static.fixes.refusal import NoFix


def plan_tensor_argument(ctx: FixContext, finding: Finding, node: nodes.NodeNG) -> Optional[Fix]:
    """Wrap the varying Python argument ``node`` in ``tf.constant(...)`` when provably equivalent."""
    call = node.parent.parent if isinstance(node.parent, nodes.Keyword) else node.parent
    if not isinstance(call, nodes.Call):
        raise NoFix("the argument is not written in the call")
    traced = tf_functions(ctx.module).traced_of(call)
    if traced is None:
        raise NoFix("the tf.function's Python function is not in this file")
    parameter = parameter_for(traced, call, node)
    if parameter is None:
        raise NoFix("which parameter the argument fills is not known (`*args`, `**kwargs`, or too many arguments)")
    uses = tensor_uses(ctx.module, traced, parameter)
    if uses is None:
        raise NoFix(
            f"`{traced.label}` uses `{parameter}` as a Python value (control flow, `range`, a shape, formatting, "
            "arithmetic or a call), where a Tensor may compute other values or fail: pass a Tensor by hand after "
            "checking those uses"
        )
    alias = ctx.tf_alias()
    if alias is None:
        raise NoFix("the module reaches TensorFlow through no name tfguard could spell `tf.constant` with")
    closing = ")"
    if "summary_step" in uses:
        if not is_int_counter(node, call):
            raise NoFix(f"`{parameter}` is a summary `step=`, and the argument is not known to be an int counter")
        closing = f", dtype={alias}.int64)"
    start, end = ctx.source.start(node), ctx.source.end(node)
    text = ctx.source.node_text(node)
    shown = f"{alias}.constant({text}{closing}"
    return Fix(SAFE, f"Pass `{shown}` instead of the Python value",
               (Edit(*start, *start, f"{alias}.constant("), Edit(*end, *end, closing)))


def plan_relax_shapes(ctx: FixContext, finding: Finding, node: nodes.NodeNG) -> Optional[Fix]:
    """Add ``reduce_retracing=True`` to the ``tf.function`` the call ``node`` calls (unsafe, see above)."""
    if not isinstance(node, nodes.Call):
        raise NoFix("not a call tfguard can read")
    traced = tf_functions(ctx.module).traced_of(node)
    if traced is None:
        raise NoFix("the tf.function is not created in this file")
    creation = traced.creation
    why = "unsafe: the trace then sees `None` for the dimensions that varied, and code reading static shapes changes"
    if isinstance(creation, nodes.Call):
        arguments = [*creation.args, *(creation.keywords or ())]
        if any(isinstance(a, nodes.Starred) for a in creation.args) or any(
                k.arg is None for k in creation.keywords or ()):
            raise NoFix("the `tf.function(...)` call passes `*args` or `**kwargs`")
        if arguments:
            last = max(arguments, key=lambda a: (a.end_lineno, a.end_col_offset))
            line, column = ctx.source.end(last)
            edit = Edit(line, column, line, column, ", reduce_retracing=True")
        else:
            line, column = ctx.source.end(creation)
            edit = Edit(line, column - 1, line, column - 1, "reduce_retracing=True")
    else:
        line, column = ctx.source.end(creation)
        edit = Edit(line, column, line, column, "(reduce_retracing=True)")
    return Fix(UNSAFE, f"Pass `reduce_retracing=True` to tf.function `{traced.label}` (TF 2.9+; {why})", (edit,))
