"""TFG105: a new Session created on every iteration without a fresh graph."""

from tfguard.static.analysis.events import BuildSite
from tfguard.static.checks._session_loop import LoopBuildRule


class SessionPerIteration(LoopBuildRule):
    """Each Session allocates a runtime and re-initialises state on the same, growing graph."""

    code = "TFG105"
    name = "session-per-iteration"
    summary = "`tf.Session()` created on each iteration of a loop without a fresh graph"
    apis = frozenset({"tensorflow.Session", "tensorflow.InteractiveSession"})
    priority = 20
    effect = "creates a new session on the same graph"
    fix = (
        "create one session before the loop, or give each iteration its own graph "
        "(`with tf.Graph().as_default():` or `tf.reset_default_graph()` first)"
    )

    def claims(self, site: BuildSite) -> bool:
        """Claim Session and InteractiveSession constructors."""
        return site.creates_session and site.api in self.apis
