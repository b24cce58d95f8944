"""TFG110: an assign op built from a host value on every call of a function that runs more than once."""

from __future__ import annotations

from typing import Iterable, Tuple

from tfguard.static.analysis.host_assigns import HostAssign, host_assigns
from tfguard.static.analysis.module import ModuleAnalysis, describe
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import Finding


class AssignFromHostValue(NodeRule):
    """``sess.run(v.assign(weights[i]))`` in ``set_weights()``: an assign op and a constant per variable per call."""

    code = "TFG110"
    name = "assign-from-host-value"
    summary = (
        "`v.assign(value)` / `tf.assign(v, value)` from a NumPy or Python value built on each call of a function "
        "that runs the graph (`load`, `set_weights`, `restore`...)"
    )

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report each assignment of :func:`~tfguard.static.analysis.host_assigns.host_assigns`."""
        for assign in host_assigns(module):
            yield self.finding(module, assign.node, *self._message(assign))

    @staticmethod
    def _message(assign: HostAssign) -> Tuple[str, str]:
        return (
            f"`{describe(assign.node)}` assigns {assign.origin} (`{describe(assign.value, 30)}`): each call of "
            f"`{assign.label}()` adds an assign op and a constant holding the whole value to the graph, which "
            "grows by that size per call (up to the 2 GB GraphDef limit)",
            "feed the value to the variable's initializer "
            "(`sess.run(variable.initializer, {variable.initializer.inputs[1]: value})`), or build one assign op fed "
            "by a placeholder once and run it with `feed_dict`"
        )
