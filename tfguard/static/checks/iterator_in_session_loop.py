"""TFG106: a dataset iterator (or its ``get_next()``) built on every iteration of a session loop."""

from tfguard.static.checks._session_loop import LoopBuildRule
from tfguard.static.finding import SAFE
from tfguard.static.fixes import hoist
from tfguard.static.registry import FixOffer


class IteratorInSessionLoop(LoopBuildRule):
    """A new iterator restarts the input pipeline and adds its ops every step."""

    code = "TFG106"
    name = "iterator-in-session-loop"
    summary = "dataset iterator or `get_next()` built inside a loop that runs the graph"
    fix = FixOffer(
        SAFE,
        "builds `get_next()` once, before the loop; a one-shot iterator only as an unsafe fix",
        hoist.plan_hoist,
    )
    apis = frozenset({
        "tensorflow.data.make_one_shot_iterator",
        "tensorflow.data.make_initializable_iterator",
        "tensorflow.data.Iterator.from_structure",
        "tensorflow.data.Iterator.from_string_handle",
    })
    methods = frozenset({"make_one_shot_iterator", "make_initializable_iterator", "get_next", "make_initializer"})
    priority = 40
    effect = "builds a new iterator op"
    advice = "create the iterator and its `get_next()` tensors once, before the loop, and run them"
