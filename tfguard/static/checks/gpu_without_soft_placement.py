"""TFG301: ops pinned to a GPU, and a session without ``allow_soft_placement=True``."""

from __future__ import annotations

from typing import Iterable, List

from astroid import nodes

from tfguard.static.analysis.devices import SessionSite, devices
from tfguard.static.analysis.module import ModuleAnalysis, describe
from tfguard.static.checks._links import with_lines
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import Finding


class GpuWithoutSoftPlacement(NodeRule):
    """A hard GPU pin fails on a machine with fewer GPUs, or for an op with no GPU kernel."""

    code = "TFG301"
    name = "gpu-without-soft-placement"
    severity = "warning"
    summary = "ops pinned to a GPU while the module's session lacks `allow_soft_placement=True`"

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report each GPU pin when some session of the module is created without soft placement."""
        # No one-shot exemption (unlike TFG302 and TFG304): a script that runs its session once still fails at
        # that first run on a host with fewer GPUs; the hard pin's harm does not grow with the number of runs.
        facts = devices(module)
        lacking = []
        for session in facts.sessions():
            options = facts.config_options(session.config)
            if options is not None and not facts.sets_option(options, "allow_soft_placement"):
                lacking.append(session)
        if not lacking:
            return
        for pin in facts.gpu_pins():
            named = _named_sessions(pin, lacking)
            yield self.finding(
                module, pin,
                f"`{describe(pin)}` pins ops to `{facts.gpu_pin(pin)}`, but {_sessions_text(named)} "
                "without `allow_soft_placement=True`: on a machine without that GPU, "
                "or for an op with no GPU kernel, it fails with \"Could not satisfy explicit device "
                "specification\"", "pass `config=tf.ConfigProto(allow_soft_placement=True)`",
                with_lines((), module, [site.node for site in named], pin.lineno),  # the lines to change
            )


def _named_sessions(pin: nodes.NodeNG, lacking: List[SessionSite]) -> List[SessionSite]:
    """The sessions that run ``pin``'s ops: the one created in the same function, else every one lacking."""
    nearby = [site for site in lacking if site.node.scope() is pin.scope()]
    return nearby if len(nearby) == 1 else lacking


def _sessions_text(named: List[SessionSite]) -> str:
    """Name the sessions of :func:`_named_sessions` with their lines."""
    if len(named) == 1:
        session = named[0].node
        return f"`{describe(session)}` at line {session.lineno} is created"
    lines = [str(site.node.lineno) for site in named]
    return f"the sessions at lines {', '.join(lines[:-1])} and {lines[-1]} are created"
