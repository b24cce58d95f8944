"""TFG107: a summary op built on every iteration of a session loop."""

from tfguard.static.checks._session_loop import LoopBuildRule
from tfguard.static.finding import UNSAFE
from tfguard.static.fixes import hoist
from tfguard.static.registry import FixOffer


class SummaryOpInSessionLoop(LoopBuildRule):
    """Summary ops built per step pile up, and ``merge_all`` then fetches all of them."""

    code = "TFG107"
    name = "summary-op-in-session-loop"
    summary = "summary op (`tf.summary.scalar`, `merge_all`…) built inside a loop that runs the graph"
    fix = FixOffer(
        UNSAFE,
        "builds the summary op once, before the loop; its values are then written under one tag "
        "instead of `loss`, `loss_1`...",
        hoist.plan_hoist,
    )
    apis = frozenset({
        "tensorflow.summary.scalar",
        "tensorflow.summary.histogram",
        "tensorflow.summary.image",
        "tensorflow.summary.audio",
        "tensorflow.summary.text",
        "tensorflow.summary.tensor_summary",
        "tensorflow.summary.merge",
        "tensorflow.summary.merge_all",
    })
    priority = 50
    effect = "builds a new summary op"
    advice = "build the summary ops and `merge_all()` once, before the loop, and fetch the merged tensor"
