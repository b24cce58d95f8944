"""TFG404: Tensors whose shape changes from call to call, passed to a ``tf.function`` that keys on every shape."""

from __future__ import annotations

from typing import Iterable, Optional, Tuple

from astroid import nodes

from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.tf_functions import creation_link, loops_around, tf2_code, tf_functions
from tfguard.static.analysis.varying_shapes import decoded_per_item_at, fed_by_loop, varying_batches_at
from tfguard.static.checks._links import with_lines
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import UNSAFE, Finding
from tfguard.static.fixes import retracing
from tfguard.static.registry import FixOffer


class VaryingInputShape(NodeRule):
    """Without ``input_signature`` or ``reduce_retracing=True`` every new input shape is a new trace."""

    code = "TFG404"
    name = "varying-input-shape"
    severity = "warning"
    summary = ("a `tf.function` without `input_signature` or `reduce_retracing=True` gets inputs whose shape "
               "varies (padded or bucketed batches, images at their own size)")
    fix = FixOffer(
        UNSAFE,
        "passes `reduce_retracing=True` to the tf.function (static shapes read in it become None)",
        retracing.plan_relax_shapes,
    )

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report calls, in a loop, of an unrelaxed tf.function fed batches or images whose shape varies."""
        facts = tf_functions(module)
        if not facts.all() or not tf2_code(module):
            return  # no tf.function here to call (the cheap test first)
        for call in module.nodes_of(nodes.Call):
            traced = facts.traced_of(call)
            if traced is None or traced.has_signature or traced.relaxes_shapes or facts.inside_trace(call):
                continue
            found = self._varying(module, call)
            if found is None:
                continue
            reason, source = found
            yield self.finding(
                module, call,
                f"tf.function `{traced.label}` gets inputs whose shape varies: {reason}, and every new shape "
                f"traces a new graph", f"give `{traced.label}` an `input_signature` with `None` for the varying "
                "dimensions (`tf.TensorSpec([None, None], tf.int64)`), or pass `reduce_retracing=True`",
                # the line that makes the shapes vary, then the tf.function (issue 44)
                [*with_lines((), module, [source], call.lineno), creation_link(module.path, traced)],
            )

    def _varying(self, module: ModuleAnalysis, call: nodes.Call) -> Optional[Tuple[str, nodes.NodeNG]]:
        """How the inputs of ``call`` vary in shape, and the node that makes them vary; None if the code does
        not show it."""
        arguments = [*call.args, *(k.value for k in call.keywords or ())]
        for loop in loops_around(call):
            if not isinstance(loop, nodes.For):
                continue
            batches = varying_batches_at(module, loop)
            if batches is not None and any(fed_by_loop(loop, a) for a in arguments):
                return batches
            for argument in arguments:
                decoded = decoded_per_item_at(module, loop, argument)
                if decoded is not None:
                    return decoded
        return None
