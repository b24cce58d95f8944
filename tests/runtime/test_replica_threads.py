"""A `tf.distribute` replica thread traces for the tf.function whose graph it builds in (MirroredStrategy's
`strategy.run` inside a tf.function); no TensorFlow: stand-ins of the thread class and the graphs."""

from __future__ import annotations

import threading

from tfguard.runtime import tf_access
from tfguard.runtime.capture import function_calls


class _Graph:
    def __init__(self, outer=None):
        self.outer_graph = outer


def _replica_class():
    """A stand-in of TensorFlow's `_MirroredReplicaThread`, named and placed as TensorFlow's is."""
    cls = type("_MirroredReplicaThread", (threading.Thread,), {})
    cls.__module__ = "tensorflow.python.distribute.mirrored_run"
    return cls


def _on_replica_thread(replica_id, graph, call):
    thread = _replica_class()(target=lambda: seen.append(call()))
    thread.replica_id, thread.graph = replica_id, graph
    seen = []
    thread.start()
    thread.join()
    return seen[0]


def test_a_replica_thread_is_known_by_its_class_and_module():
    assert tf_access.replica_thread(threading.current_thread()) is None
    graph = _Graph()
    assert _on_replica_thread(1, graph, lambda: tf_access.replica_thread(threading.current_thread())) == (1, graph)
    other = type("_MirroredReplicaThread", (threading.Thread,), {})  # the name alone is not TensorFlow's thread
    assert tf_access.replica_thread(other()) is None


def test_a_replica_thread_traces_for_the_function_whose_graph_holds_its_graph():
    function, traced = object(), _Graph()
    inner = _Graph(outer=_Graph(outer=traced))  # strategy.run inside a while loop's body, inside the trace
    function_calls._note_graph(traced, function)
    try:
        assert _on_replica_thread(0, inner, function_calls.tracing) == (True, function)
        assert _on_replica_thread(0, _Graph(), function_calls.tracing) == (False, None)  # another graph
        assert function_calls.tracing() == (False, None)  # this thread traces nothing
    finally:
        function_calls._note_graph(traced, None)
    assert _on_replica_thread(0, inner, function_calls.tracing) == (False, None)  # the trace ended
