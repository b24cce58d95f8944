"""TFG108: an assign op built on every iteration of a session loop."""

from tfguard.static.checks._session_loop import LoopBuildRule


class AssignInSessionLoop(LoopBuildRule):
    """``tf.assign(v, value)`` per step adds a constant and an assign op each time."""

    code = "TFG108"
    name = "assign-in-session-loop"
    summary = "`tf.assign` / `var.assign()` built inside a loop that runs the graph"
    apis = frozenset({"tensorflow.assign", "tensorflow.assign_add", "tensorflow.assign_sub"})
    methods = frozenset({"assign", "assign_add", "assign_sub"})
    priority = 30
    effect = "builds a new assign op (and a constant for its value)"
    fix = (
        "build one assign op fed by a placeholder before the loop and run it with feed_dict, "
        "or use `var.load(value, sess)`"
    )
