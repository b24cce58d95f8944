"""Loops that poll: each iteration waits (``time.sleep``) or takes the next checkpoint as it appears.

A polling evaluator (``while True:`` restore the newest checkpoint, evaluate, ``time.sleep(EVAL_INTERVAL_SECS)``;
``for path in tf.train.checkpoints_iterator(train_dir):``) runs a handful of iterations an hour by construction:
whatever it does per iteration (open a session, restore) is paid once per wait, not once per step.
"""

from __future__ import annotations

from astroid import nodes

from tfguard.static.analysis.module import ModuleAnalysis

#: Calls that make the calling thread wait.
_SLEEPS = frozenset({"time.sleep"})

#: Iterables that yield each new checkpoint as training writes it (they sleep between checkpoints).
_CHECKPOINT_POLLERS = frozenset({
    "tensorflow.train.checkpoints_iterator",
    "tensorflow.contrib.training.checkpoints_iterator",
})


def is_polling_loop(module: ModuleAnalysis, loop: nodes.NodeNG) -> bool:
    """Return whether ``loop`` waits in its own iteration (a ``time.sleep`` not inside a nested loop, guarded or
    not) or iterates over a checkpoints iterator."""
    iterable = getattr(loop, "iter", None)
    if isinstance(iterable, nodes.Call) and module.call_named(iterable, _CHECKPOINT_POLLERS):
        return True
    return any(
        isinstance(node, nodes.Call) and module.call_named(node, _SLEEPS) is not None
        and next(module.enclosing_loops(node), None) is loop
        for node in module.iteration_nodes(loop)
    )
