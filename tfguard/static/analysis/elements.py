"""What the loop variable of ``for v in tf.trainable_variables():`` holds: a variable.

``tf.trainable_variables()``, ``tf.global_variables()``, ``tf.get_collection(...)`` and their kin return
Python lists of graph objects; each element is a TensorFlow object (a variable, for the variable lists),
so ``v.assign(...)`` on it builds an op like on any variable.

``dataflow`` parameters are the module's :class:`~tfguard.static.analysis.dataflow.Dataflow` (typed ``Any``: the
dataflow imports this module, not the other way round).
"""

from __future__ import annotations

from typing import Any, Optional

from astroid import nodes

from tfguard.static.analysis import tfapi
from tfguard.static.analysis.values import TF, Value


def iteration_element(dataflow: Any, loop: nodes.NodeNG) -> Optional[Value]:
    """Return what each element of a ``for`` loop's (or comprehension's) iterable holds, if it is a graph list."""

    iterable = dataflow.value(loop.iter)
    if iterable is None or iterable.kind != TF:
        return None
    if iterable.api in tfapi.VARIABLE_LISTS:
        return Value(TF, api="tensorflow.Variable", tensor=True)
    if iterable.api in tfapi.GRAPH_OBJECT_LISTS:
        return Value(TF, api=f"{iterable.api}[]", tensor=True)
    return None
