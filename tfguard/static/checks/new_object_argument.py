"""TFG405: a new Python object (an optimizer, a layer, a loss, a lambda) passed to a ``tf.function`` per call."""

from __future__ import annotations

from typing import Iterable, Optional, Tuple

from astroid import nodes

from tfguard.static.analysis.callers import unsigned_calls_in_loops
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.tf_functions import builds_model, constructs_object, creation_link, enclosing_loop
from tfguard.static.checks._links import with_lines
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import Finding


class NewObjectArgument(NodeRule):
    """tf.function keys non-Tensor arguments on the object itself: a new object on every call is a new trace."""

    code = "TFG405"
    name = "new-object-argument"
    severity = "warning"
    summary = "a new Python object (an optimizer, a layer, a loss, a lambda) is passed to a `tf.function` on every call"

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report arguments of a tf.function called in a loop that are objects made anew in that same iteration."""
        for call, loop, traced in unsigned_calls_in_loops(module):
            if _made_in(traced, loop):
                continue  # a tf.function made in the same iteration traces anyway: TFG401's matter
            for argument in [*call.args, *(k.value for k in call.keywords or ())]:
                found = self._made_per_call(module, loop, argument)
                if found is None:
                    continue
                made, where = found
                yield self.finding(
                    module, argument,
                    f"{made} is passed to tf.function `{traced.label}` on every iteration of the loop at line "
                    f"{loop.lineno}: tf.function keys a Python object on the object itself, so each new one traces "
                    "a new graph (and a new optimizer or metric also starts from fresh state each time)", "create it "
                    "once, before the loop, and pass the same object, or read it from the function's closure",
                    # the line that makes the object, when the message names it, then the tf.function (issue 44)
                    [*with_lines((), module, [where], argument.lineno), creation_link(module.path, traced)],
                )

    def _made_per_call(self, module: ModuleAnalysis, loop: nodes.NodeNG,
                       argument: nodes.NodeNG) -> Optional[Tuple[str, nodes.NodeNG]]:
        """Return how ``argument`` is a new object per iteration, and the node that makes it; None if it is not."""
        if self._new_object(module, argument):
            return f"a new object, `{_short(argument)}`,", argument
        if not isinstance(argument, nodes.Name):
            return None
        bindings = [
            a for a in loop.nodes_of_class(nodes.Assign)
            if enclosing_loop(a) is loop and len(a.targets) == 1 and isinstance(a.targets[0], nodes.AssignName)
            and a.targets[0].name == argument.name
        ]
        if len(bindings) == 1 and self._new_object(module, bindings[0].value):
            made = f"`{argument.name}`, a new object made at line {bindings[0].lineno} (`{_short(bindings[0].value)}`),"
            return made, bindings[0]
        return None

    def _new_object(self, module: ModuleAnalysis, expr: nodes.NodeNG) -> bool:
        # A model built per iteration is the iteration's own model (a trial, a fold): TFG402's matter when it is
        # only predicted; passing it to a step function defined once is how per-fold training should be written.
        return constructs_object(module, expr) and not builds_model(module, expr)


def _made_in(traced, loop: nodes.NodeNG) -> bool:
    node = traced.creation
    while node is not None and node is not loop:
        node = node.parent
    return node is loop


def _short(node: nodes.NodeNG) -> str:
    text = node.as_string()
    return text if len(text) <= 40 else text[:37] + "..."
