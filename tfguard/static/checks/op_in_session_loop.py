"""TFG102: any graph-building call or tensor operator on every iteration of a session loop."""

from tfguard.static.analysis.fact_types import BuildSite
from tfguard.static.checks._session_loop import LoopBuildRule
from tfguard.static.finding import SAFE
from tfguard.static.fixes import hoist
from tfguard.static.registry import FixOffer


class OpInSessionLoop(LoopBuildRule):
    """The catch-all: ops built in the loop that no more specific rule claims."""

    code = "TFG102"
    name = "op-in-session-loop"
    summary = "graph op built inside a loop that runs the graph"
    fix = FixOffer(
        SAFE,
        "builds the op once, before the loop",
        hoist.plan_hoist,
    )
    priority = 0
    effect = "adds new ops to the graph"
    advice = "build it once, before the loop, and run the existing tensor"

    def claims(self, site: BuildSite) -> bool:
        """Claim every site that builds ops (not bare session creation)."""
        return not site.creates_session
