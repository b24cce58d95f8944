"""TFG105: a new Session created on every iteration without a fresh graph."""

from astroid import nodes

from tfguard.static.analysis.fact_types import BuildEvent, BuildSite
from tfguard.static.analysis.frequency import frequency
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.polling import is_polling_loop
from tfguard.static.checks._session_loop import LoopBuildRule


class SessionPerIteration(LoopBuildRule):
    """Each Session allocates a runtime and re-initialises state on the same, growing graph."""

    code = "TFG105"
    name = "session-per-iteration"
    summary = "`tf.Session()` created on each iteration of a loop without a fresh graph"
    apis = frozenset({"tensorflow.Session", "tensorflow.InteractiveSession"})
    priority = 20
    counts_small_loops = True  # session start-up is paid per iteration: ten literal iterations pay it ten times
    effect = "creates a new session on the same graph"
    advice = (
        "create one session before the loop, or give each iteration its own graph "
        "(`with tf.Graph().as_default():` or `tf.reset_default_graph()` first)"
    )

    def claims(self, site: BuildSite) -> bool:
        """Claim Session and InteractiveSession constructors."""
        return site.creates_session and site.api in self.apis

    def applies_at(self, module: ModuleAnalysis, node: nodes.NodeNG, loop: nodes.NodeNG, event: BuildEvent) -> bool:
        """A session opened by ``with`` (so closed again) under a condition that changes between iterations
        (``if step % 1000 == 0:``: an evaluation every so often) is made a few times over a run, not on every
        iteration, and leaves nothing behind: no finding. Neither is one in a loop that polls (a ``time.sleep``
        in each iteration, a ``checkpoints_iterator``): a polling evaluator opens one per new checkpoint.
        Precision over recall."""
        site = event.site.node
        closed = isinstance(site.parent, (nodes.With, nodes.AsyncWith)) and any(
            context is site for context, _ in site.parent.items)
        if not closed:
            return True
        return frequency(module).guard(node, loop) is None and not is_polling_loop(module, loop)

