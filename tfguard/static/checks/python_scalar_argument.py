"""TFG403: a Python number or string that changes from call to call, passed to a ``tf.function``."""

from __future__ import annotations

from typing import Iterable

from tfguard.static.analysis.callers import unsigned_calls_in_loops
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.retrace_arguments import varying_scalar_with_sites
from tfguard.static.analysis.scopes import FUNCTIONS, function_label
from tfguard.static.analysis.tf_functions import creation_link
from tfguard.static.checks._links import with_lines
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import SAFE, ChainLink, Finding
from tfguard.static.fixes import retracing
from tfguard.static.registry import FixOffer


class PythonScalarArgument(NodeRule):
    """tf.function keys its graphs on Python values: every new epoch number, learning rate or string traces."""

    code = "TFG403"
    name = "python-scalar-argument"
    severity = "warning"
    summary = "a varying Python number or string is passed to a `tf.function`: every new value traces a new graph"
    fix = FixOffer(
        SAFE,
        "passes `tf.constant(value)` when the function uses the parameter only as a tensor (unused, "
        "`tf.cast`, a summary `step=`); none otherwise",
        retracing.plan_tensor_argument,
    )

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report each varying Python scalar argument of a tf.function called in a loop (no ``input_signature``)."""
        for call, _loop, traced in unsigned_calls_in_loops(module, through_callers=True):
            for argument in [*call.args, *(k.value for k in call.keywords or ())]:
                named: list = []
                reason, helper_calls = varying_scalar_with_sites(module, argument, call, named=named)
                if reason is None:
                    continue
                # the helper calls the message names, outermost first, then the line to change (issue 44)
                links = [ChainLink(module.path, site.lineno, _label(site)) for site in helper_calls]
                yield self.finding(
                    module, argument,
                    f"{reason}, is passed to tf.function `{traced.label}` as a Python value: each new value traces "
                    f"a new graph (tf.function keys its graphs on Python values, Tensors only on dtype and shape)",
                    f"pass a Tensor instead, `tf.constant({argument.as_string()})` (or a `tf.Variable` you "
                    "`assign`), or give the function an `input_signature`",
                    # then the assignments the reason names by line (issue 44)
                    [*with_lines(links, module, named, argument.lineno), creation_link(module.path, traced)],
                )


def _label(node) -> str:
    scope = node.scope()
    return function_label(scope) if isinstance(scope, FUNCTIONS) else "<module>"
