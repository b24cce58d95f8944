"""What the loop variable of ``for v in tf.trainable_variables():`` holds: a variable.

``tf.trainable_variables()``, ``tf.global_variables()``, ``tf.get_collection(...)`` and their kin return
Python lists of graph objects; each element is a TensorFlow object (a variable, for the variable lists),
so ``v.assign(...)`` on it builds an op like on any variable.

``dataflow`` parameters are the module's :class:`~tfguard.static.analysis.dataflow.Dataflow` (typed ``Any``: the
dataflow imports this module, not the other way round).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from astroid import nodes

from tfguard.static.analysis import tfapi
from tfguard.static.analysis.values import TF, Value


def iteration_element(dataflow: Any, loop: nodes.NodeNG, index_path: Sequence[int] = ()) -> Optional[Value]:
    """Return what each element of a ``for`` loop's (or comprehension's) iterable holds, if it is a graph list.

    ``index_path`` is where the name sits in a tuple target, outermost first: ``for t, e in zip(targets,
    evals)`` takes ``e`` from ``evals`` (``[1]``), ``for i, (t, e) in enumerate(zip(a, b))`` ``t`` from
    ``a`` (``[1, 0]``).
    """
    iterable: Optional[nodes.NodeNG] = loop.iter
    for position in index_path:
        call = iterable if isinstance(iterable, nodes.Call) and isinstance(iterable.func, nodes.Name) else None
        if call is not None and call.func.name == "zip" and position < len(call.args):
            iterable = call.args[position]
        elif call is not None and call.func.name == "enumerate" and position == 1 and call.args:
            iterable = call.args[0]
        else:
            return None
    return _list_element(dataflow, iterable, 0)


def _list_element(dataflow: Any, expr: Optional[nodes.NodeNG], depth: int) -> Optional[Value]:
    """What each item of a list of graph objects holds, through ``list()``/``sorted()``, slices, filtering
    comprehensions (``[v for v in tf.trainable_variables() if 'target' in v.name]``) and names bound to them."""
    if expr is None or depth > _MAX_DEPTH:
        return None
    if isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Name) and expr.func.name in _PASS_THROUGH \
            and len(expr.args) == 1:
        return _list_element(dataflow, expr.args[0], depth + 1)
    if isinstance(expr, nodes.Subscript) and isinstance(expr.slice, nodes.Slice):
        return _list_element(dataflow, expr.value, depth + 1)
    if isinstance(expr, (nodes.ListComp, nodes.GeneratorExp)) and len(expr.generators) == 1:
        generator = expr.generators[0]
        if isinstance(expr.elt, nodes.Name) and isinstance(generator.target, nodes.AssignName) \
                and expr.elt.name == generator.target.name:
            return _list_element(dataflow, generator.iter, depth + 1)
        return None
    if isinstance(expr, nodes.Name):
        bindings = dataflow.definitions(expr, expr.name)
        values = [
            _list_element(dataflow, b.parent.value, depth + 1)
            if isinstance(b.parent, nodes.Assign) and b in b.parent.targets else None
            for b in bindings
        ]
        if values and all(v is not None for v in values):
            return values[0]
    iterable = dataflow.value(expr)
    if iterable is None or iterable.kind != TF:
        return None
    if iterable.api in tfapi.VARIABLE_LISTS:
        return Value(TF, api="tensorflow.Variable", tensor=True)
    if iterable.api in tfapi.GRAPH_OBJECT_LISTS:
        return Value(TF, api=f"{iterable.api}[]", tensor=True)
    return None


#: Calls that keep a list's items: ``sorted(tf.trainable_variables(), key=...)`` holds variables.
_PASS_THROUGH = frozenset({"list", "sorted", "reversed", "tuple"})
_MAX_DEPTH = 8
