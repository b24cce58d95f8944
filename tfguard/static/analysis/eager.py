"""Whether a module runs eagerly (TF 2 code): then none of its calls is a graph run.

``strategy.run(train_step, args=(x, y))`` and ``tf.math.argmax(model(x), -1)`` in a TF 2 training loop execute
eagerly: ops run and are freed, nothing grows, and no loop there is a ``Session.run`` loop.  A module shows
that it builds graphs by what it writes: a session (``tf.Session``, ``InteractiveSession``,
``MonitoredTrainingSession``, ``K.get_session()``), the graph-mode switches (``disable_eager_execution()``,
``disable_v2_behavior()``), a graph made default (``Graph().as_default()``), placeholders, variable
initializers, a Saver, ``K.function``, a library callable that runs the graph (``U.function``, see
library_callables), or a name that says it holds a session (``sess``, ``self.session``).
A module with none of these runs eagerly.  Graph growth in TF 2 (``tf.function`` retracing) is another problem.
"""

from __future__ import annotations

import re
from typing import FrozenSet

from astroid import nodes

from tfguard.static.analysis import tfapi
from tfguard.static.analysis.dataflow import MODULE
from tfguard.static.analysis.library_callables import is_runner_factory

#: Calls that only make sense when the module builds a graph and runs it in a session.
GRAPH_MODE_APIS: FrozenSet[str] = (
    tfapi.SESSION_CLASSES | tfapi.SESSION_GETTERS | tfapi.RUNNER_FACTORIES | tfapi.GRAPH_FACTORIES
    | frozenset({
        "tensorflow.disable_eager_execution", "tensorflow.disable_v2_behavior", "tensorflow.placeholder",
        "tensorflow.placeholder_with_default", "tensorflow.sparse_placeholder",
        "tensorflow.global_variables_initializer", "tensorflow.local_variables_initializer",
        "tensorflow.variables_initializer", "tensorflow.train.Saver", "tensorflow.train.start_queue_runners",
        "tensorflow.keras.backend.set_session", "tensorflow.keras.backend.gradients",
        "tensorflow.reset_default_graph",
    })
)

#: Names that hold a session (``sess``, ``session``, ``self.train_sess``), as the dataflow reads parameters.
_SESSION_NAME = re.compile(r"(^|_)(sess|session)($|_|\d)", re.IGNORECASE)


def runs_eagerly(analysis) -> bool:
    """Return whether the module of ``analysis`` (a ModuleAnalysis) shows no sign of graph mode."""
    return analysis.facts("runs_eagerly", _compute)


def _compute(analysis) -> bool:
    if analysis.calls_to(GRAPH_MODE_APIS):
        return False
    for call in analysis.nodes_of(nodes.Call):
        callee = analysis.value(call.func)
        if callee is not None and callee.kind == MODULE and is_runner_factory(callee.api):
            return False  # ``U.function([x], [loss])``: baselines' tf_util runs the graph in a session
    names = {node.name for node in analysis.nodes_of(nodes.Name, nodes.AssignName)}
    names.update(node.attrname for node in analysis.nodes_of(nodes.Attribute, nodes.AssignAttr))
    if "as_default" in names:
        return False  # ``with graph.as_default():``, ``sess.as_default()``
    return not any(_SESSION_NAME.search(name) for name in names)
