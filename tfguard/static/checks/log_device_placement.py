"""TFG302: ``log_device_placement=True`` left in a session config."""

from __future__ import annotations

from typing import Iterable

from astroid import nodes

from tfguard.static.analysis.devices import is_literal_true
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.one_shot import is_one_shot_script
from tfguard.static.analysis.tfapi import CONFIG_PROTO
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import Finding

#: The headline and the help of every finding.
MESSAGE = (
    "`log_device_placement=True` logs the device of every op in the graph (thousands of lines for a real "
    "model, on every session)", "it is a debugging switch: remove it, or take it from a command-line flag"
)


class LogDevicePlacement(NodeRule):
    """A debugging option that floods the log, left on in training code."""

    code = "TFG302"
    name = "log-device-placement"
    severity = "warning"
    summary = "`log_device_placement=True` hard-coded in a session config"

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report a literal ``log_device_placement=True`` in ``ConfigProto(...)`` or assigned to a config."""
        if is_one_shot_script(module):
            return  # a script that runs its session once: the log, the pin or the GPU grab is its point
        config_calls = {id(call) for call in module.calls_to(CONFIG_PROTO)}
        for node in module.nodes_of(nodes.Call, nodes.Assign):
            if isinstance(node, nodes.Call):
                if id(node) not in config_calls:
                    continue
                for keyword in node.keywords or ():
                    if keyword.arg == "log_device_placement" and is_literal_true(keyword.value):
                        yield self.finding(module, keyword if keyword.lineno else keyword.value, *MESSAGE)
            elif is_literal_true(node.value) and any(
                isinstance(t, nodes.AssignAttr) and t.attrname == "log_device_placement" for t in node.targets
            ):
                yield self.finding(module, node, *MESSAGE)
