"""TFG305: ``CUDA_VISIBLE_DEVICES`` set after a session was created."""

from __future__ import annotations

from typing import Iterable, Optional

from astroid import nodes

from tfguard.static.analysis.devices import devices, env_var_written
from tfguard.static.analysis.module import ModuleAnalysis, describe
from tfguard.static.analysis.scopes import own_nodes, owner_scope, position
from tfguard.static.checks._links import with_lines
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import Finding


class CudaVisibleDevicesLate(NodeRule):
    """CUDA reads the variable once, when the first session initialises the GPUs."""

    code = "TFG305"
    name = "cuda-visible-devices-late"
    severity = "error"
    summary = "`CUDA_VISIBLE_DEVICES` set after a session was already created, so it has no effect"

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report writes of ``CUDA_VISIBLE_DEVICES`` that come after a session creation in the same scope."""
        for node in module.nodes_of(nodes.Assign, nodes.Call):
            if env_var_written(module, node) != "CUDA_VISIBLE_DEVICES":
                continue
            session = _earlier_session(module, node)
            if session is not None:
                yield self.finding(
                    module, node,
                    f"`CUDA_VISIBLE_DEVICES` is set after `{describe(session)}` at line {session.lineno} created a "
                    "session: the GPUs are already initialised, so this has no effect", "set it at the top of the "
                    "script, before any session is created",
                    with_lines((), module, [session], node.lineno),
                )


def _earlier_session(module: ModuleAnalysis, node: nodes.NodeNG) -> Optional[nodes.Call]:
    scope = owner_scope(node) or module.module
    here = position(node)
    direct = {id(site.node) for site in devices(module).sessions()}
    for other in own_nodes(scope):
        if not isinstance(other, nodes.Call) or position(other) >= here:
            continue
        if id(other) in direct:
            return other
        event = module.build_event(other)
        if event is not None and event.chain and any(e.site.creates_session for e in module.helper_events(event)):
            return other
    return None
