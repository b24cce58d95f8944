"""TFG101: a ``tf.train.Saver`` constructed on every iteration of a session loop."""

from tfguard.static.checks._session_loop import LoopBuildRule
from tfguard.static.finding import SAFE
from tfguard.static.fixes import hoist
from tfguard.static.registry import FixOffer


class SaverInSessionLoop(LoopBuildRule):
    """``tf.train.Saver()`` adds save and restore ops for every variable each time it is built."""

    code = "TFG101"
    name = "saver-in-session-loop"
    summary = "`tf.train.Saver()` built inside a loop that runs the graph"
    fix = FixOffer(
        SAFE,
        "builds the Saver once, before the loop, with `max_to_keep=None` when each per-iteration "
        "Saver saved once (the same files stay on disk); unsafe otherwise (one Saver deletes all but "
        "its last `max_to_keep` checkpoints)",
        hoist.plan_hoist,
    )
    apis = frozenset({"tensorflow.train.Saver"})
    priority = 80
    effect = "builds new save/restore ops"
    advice = "create the Saver once, before the loop, and only call `saver.save()` inside it"
