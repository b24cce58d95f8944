"""TFG103: a variable initializer op built on every iteration of a session loop."""

from tfguard.static.checks._session_loop import LoopBuildRule
from tfguard.static.finding import SAFE
from tfguard.static.fixes import hoist
from tfguard.static.registry import FixOffer


class InitializerInSessionLoop(LoopBuildRule):
    """Initializer ops group one assign per variable; building them per step grows the graph fast."""

    code = "TFG103"
    name = "initializer-in-session-loop"
    summary = "variable initializer op built inside a loop that runs the graph"
    fix = FixOffer(
        SAFE,
        "builds the initializer once, before the loop",
        hoist.plan_hoist,
    )
    apis = frozenset({
        "tensorflow.global_variables_initializer",
        "tensorflow.local_variables_initializer",
        "tensorflow.variables_initializer",
        "tensorflow.tables_initializer",
    })
    priority = 60
    effect = "builds a new initializer op"
    advice = "build the initializer once, before the loop (and usually run it only once)"
