"""Graph-running events and session loops: which calls run the graph, and which loops run it every iteration."""

from __future__ import annotations

from typing import Iterator, Optional

from astroid import nodes

from tfguard.static.analysis import tfapi
from tfguard.static.analysis.dataflow import INSTANCE, MODULE, RUNNER, SESSION, TF, is_session_attribute
from tfguard.static.analysis.eager import runs_eagerly
from tfguard.static.analysis.fact_types import RunEvent, describe
from tfguard.static.analysis.library_callables import graph_mode_module, is_keras_model_api
from tfguard.static.analysis.scopes import FUNCTIONS, LOOPS, Body, own_nodes
from tfguard.static.analysis.tfapi import KERAS_RUN_METHODS, SAVERS
from tfguard.static.analysis.trip_counts import repeats_a_bounded_handful
from tfguard.static.analysis.weight_loading import loads_model_parts


class GraphRunning:
    """The run-event and session-loop queries of :class:`~tfguard.static.analysis.module.ModuleAnalysis`.

    A mixin of the facade: it reads the core queries (``value``, ``qualname``, ``called_function``...) and
    the other concerns' queries through ``self``.
    """

    def run_event(self, node: nodes.NodeNG) -> Optional[RunEvent]:
        """Return how ``node`` runs the graph, or None if it does not."""
        if not isinstance(node, nodes.Call):
            return None
        key = id(node)
        if key not in self._run_events:
            self._run_events[key] = None
            self._run_events[key] = self._compute_run_event(node)
        return self._run_events[key]

    def _compute_run_event(self, call: nodes.Call) -> Optional[RunEvent]:
        direct = self._direct_run_event(call)
        if direct is not None and not runs_eagerly(self):  # TF 2 code: ``strategy.run(step)`` is no graph run
            return direct
        return self._helper_run_event(call)

    def _helper_run_event(self, call: nodes.Call) -> Optional[RunEvent]:
        function = self.called_function(call)
        if function is not None:
            summary = self.summary(function)
            if summary is not None and summary.run is not None:
                return RunEvent(call, describe(call), summary.run.chain)
        return None

    def _direct_run_event(self, call: nodes.Call) -> Optional[RunEvent]:
        func = call.func
        callee = self.value(func)
        if callee is not None:
            if callee.kind == RUNNER:
                return RunEvent(call, describe(call))
            if callee.kind == MODULE and callee.api in tfapi.GRAPH_RUN_FUNCTIONS:
                return RunEvent(call, describe(call))
        if isinstance(func, nodes.Attribute):
            method = func.attrname
            receiver = self.value(func.expr)
            kind = receiver.kind if receiver is not None else None
            keywords = {k.arg for k in call.keywords or ()}
            if method in ("run", "partial_run") and kind == SESSION:
                return RunEvent(call, f"{func.expr.as_string()}.{method}")
            if method in ("run", "eval") and kind == TF and not _is_distribution_strategy(receiver.api):
                return RunEvent(call, f"{func.expr.as_string()}.{method}")
            if method == "eval" and keywords & {"feed_dict", "session"}:
                return RunEvent(call, f"{func.expr.as_string()}.eval")
            opaque = receiver is None or (kind == MODULE and not tfapi.is_tf_name(receiver.api))
            if method == "eval" and opaque and call.args and isinstance(call.args[0], nodes.Dict):
                return RunEvent(call, f"{func.expr.as_string()}.eval")  # ``t.eval({x: batch})``: a feed dict
            if method == "load" and kind == TF and (len(call.args) >= 2 or "session" in keywords):
                return RunEvent(call, f"{func.expr.as_string()}.load")
            saves = method in ("save", "restore") and kind == TF and receiver.api in SAVERS
            if saves and (call.args or "sess" in keywords):
                return RunEvent(call, f"{func.expr.as_string()}.{method}")  # runs the saver's save/restore ops
            if method == "run" and kind is None and keywords & {"feed_dict", "options", "run_metadata"}:
                return RunEvent(call, f"{func.expr.as_string()}.run")
            if method in ("run", "partial_run") and kind is None and is_session_attribute(func.expr):
                return RunEvent(call, f"{func.expr.as_string()}.{method}")
            if method in KERAS_RUN_METHODS and self._is_keras_model(receiver) and graph_mode_module(self):
                return RunEvent(call, f"{func.expr.as_string()}.{method}")
        return None

    def is_saver_run(self, node: nodes.NodeNG) -> bool:
        """Whether ``node`` runs the graph only as ``saver.save(sess, path)`` / ``saver.restore(sess, path)`` does.

        Such a call runs the graph (a loop that builds a Saver and saves with it is a session loop), but
        it is no training step: a loop whose only runs are saves is not a step loop.
        """
        func = getattr(node, "func", None)
        if not (isinstance(func, nodes.Attribute) and func.attrname in ("save", "restore")):
            return False
        receiver = self.value(func.expr)
        return receiver is not None and receiver.kind == TF and receiver.api in SAVERS

    def _is_keras_model(self, receiver) -> bool:
        """``Sequential(...)``, ``load_model(...)``, or an instance of a project class deriving from a Keras Model."""
        if receiver is None:
            return False
        if receiver.kind == TF:
            return is_keras_model_api(receiver.api)
        if receiver.kind == INSTANCE:
            base = self._tf_base(receiver.node)
            return base is not None and base.rsplit(".", 1)[-1] in ("Model", "Sequential")
        return False

    def loop_run(self, loop: nodes.NodeNG) -> Optional[RunEvent]:
        """Return the first graph run in each iteration of ``loop``; None if it is no session loop."""
        key = id(loop)
        if key not in self._session_loops:
            self._session_loops[key] = None
            found = None
            for node in () if repeats_a_bounded_handful(loop) else self.iteration_nodes(loop):
                found = self.run_event(node)
                if found is not None:
                    break
            if found is not None and loads_model_parts(self, loop, found):
                found = None  # one assign per model variable: bounded by the model, not per step
            self._session_loops[key] = found
        return self._session_loops[key]

    def runs_every_iteration(self, loop: nodes.NodeNG) -> bool:
        """Return whether ``loop`` runs the graph on every iteration, however few its literal iterations are.

        The bounded-handful contract of :meth:`loop_run` is about graph growth; a rule whose cost is paid per
        iteration whatever the graph does (a session started per iteration, TFG105) asks this instead.
        """
        return self.loop_run(loop) is not None or any(
            self.run_event(node) is not None for node in self.iteration_nodes(loop))

    def only_saves(self, loop: nodes.NodeNG) -> bool:
        """Whether every graph run of ``loop``'s iterations is a ``saver.save``/``restore``: no step loop of its own."""
        return self.is_session_loop(loop) and all(
            self.is_saver_run(node) for node in self.iteration_nodes(loop) if self.run_event(node) is not None
        )

    def is_session_loop(self, loop: nodes.NodeNG) -> bool:
        """Return whether ``loop`` runs the graph on every iteration (directly or through helpers)."""
        return self.loop_run(loop) is not None

    @staticmethod
    def iteration_nodes(loop: nodes.NodeNG) -> Iterator[nodes.NodeNG]:
        """Yield the nodes evaluated on every iteration: the body, and a while loop's test."""
        roots = list(loop.body)
        if isinstance(loop, nodes.While):
            roots.insert(0, loop.test)
        yield from own_nodes(Body(roots))

    def enclosing_loops(self, node: nodes.NodeNG) -> Iterator[nodes.NodeNG]:
        """Yield the loops (innermost first) whose iterations run ``node``, within its own scope."""
        child, parent = node, node.parent
        while parent is not None and not isinstance(parent, (*FUNCTIONS, nodes.Lambda, nodes.ClassDef, nodes.Module)):
            if isinstance(parent, LOOPS) and (child in parent.body or child is getattr(parent, "test", None)):
                yield parent
            child, parent = parent, parent.parent

    def session_loop_of(self, node: nodes.NodeNG) -> Optional[nodes.NodeNG]:
        """Return the innermost session loop that runs ``node`` on every iteration, if any."""
        for loop in self.enclosing_loops(node):
            if self.is_session_loop(loop):
                return loop
        return None


def _is_distribution_strategy(api: str) -> bool:
    """``strategy.run(step_fn)`` replicates a step function across devices: it builds or runs ops, not the graph."""
    return api.startswith(("tensorflow.distribute.", "tensorflow.contrib.distribute.")) and "Strategy" in api
