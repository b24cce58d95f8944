"""TFG101: a ``tf.train.Saver`` constructed on every iteration of a session loop."""

from tfguard.static.checks._session_loop import LoopBuildRule


class SaverInSessionLoop(LoopBuildRule):
    """``tf.train.Saver()`` adds save and restore ops for every variable each time it is built."""

    code = "TFG101"
    name = "saver-in-session-loop"
    summary = "`tf.train.Saver()` built inside a loop that runs the graph"
    apis = frozenset({"tensorflow.train.Saver"})
    priority = 80
    effect = "builds new save/restore ops"
    fix = "create the Saver once, before the loop, and only call `saver.save()` inside it"
