"""Summaries made only of scalars: writing them every step costs next to nothing.

``writer.add_summary(s, step)`` where ``s`` was fetched from ``tf.summary.scalar`` ops (or a ``merge`` of
them) appends a few floats to the event file: a GAN that logs its two losses on every step keeps its
curves at full resolution for the price of a few microseconds.  Histograms, images and audio are the cost
TFG201 is about.  The written value is followed to the ``sess.run`` that fetched it and from there to the
summary calls that built it; anything not followed counts as not scalar.
"""

from __future__ import annotations

from typing import List, Optional

from astroid import nodes

from tfguard.static.analysis.dataflow import INSTANCE

SCALAR = "tensorflow.summary.scalar"
MERGE = "tensorflow.summary.merge"
MERGE_ALL = "tensorflow.summary.merge_all"
SUMMARY_CALLS = frozenset({
    SCALAR, "tensorflow.summary.histogram", "tensorflow.summary.image", "tensorflow.summary.audio",
    "tensorflow.summary.text", "tensorflow.summary.tensor_summary",
})

_MAX_DEPTH = 8


def writes_only_scalars(module, write: nodes.Call) -> bool:
    """Return whether the summary ``write`` (``writer.add_summary(s, ...)``) writes scalar summaries only."""
    if not write.args:
        return False
    fetches = _fetches_behind(module, write.args[0])
    return bool(fetches) and all(_is_scalar(module, fetch, 0) for fetch in fetches)


def _fetches_behind(module, value: nodes.NodeNG) -> List[nodes.NodeNG]:
    """The fetch expressions of the ``sess.run`` whose result ``value`` (a name) is."""
    if not isinstance(value, nodes.Name):
        return []
    binding = module.dataflow.reaching_definition(value)
    if not isinstance(binding, nodes.AssignName):
        return []
    child, parent, path = binding, binding.parent, []
    while isinstance(parent, (nodes.Tuple, nodes.List)):
        path.append(parent.elts.index(child))
        child, parent = parent, parent.parent
    if not isinstance(parent, nodes.Assign) or not isinstance(parent.value, nodes.Call):
        return []
    run = parent.value
    if module.run_event(run) is None or not run.args:
        return []
    fetch = run.args[0]
    for index in reversed(path):
        if not isinstance(fetch, (nodes.List, nodes.Tuple)) or index >= len(fetch.elts):
            return []
        fetch = fetch.elts[index]
    return [fetch]


def _is_scalar(module, expr: nodes.NodeNG, depth: int) -> bool:
    if depth > _MAX_DEPTH:
        return False
    if isinstance(expr, nodes.Call):
        name = module.call_qualname(expr)
        if name == SCALAR:
            return True
        if name == MERGE and expr.args and isinstance(expr.args[0], (nodes.List, nodes.Tuple)):
            return bool(expr.args[0].elts) and all(_is_scalar(module, e, depth + 1) for e in expr.args[0].elts)
        if name == MERGE_ALL:
            made = module.calls_to(SUMMARY_CALLS)
            return bool(made) and all(module.call_qualname(call) == SCALAR for call in made)
        return False
    values = _assigned_values(module, expr)
    return bool(values) and all(_is_scalar(module, v, depth + 1) for v in values)


def _assigned_values(module, expr: nodes.NodeNG) -> Optional[List[nodes.NodeNG]]:
    if isinstance(expr, nodes.Name):
        bindings = module.dataflow.definitions(expr, expr.name)
    elif isinstance(expr, nodes.Attribute):
        owner = module.value(expr.expr)
        if owner is None or owner.kind != INSTANCE:
            return None
        bindings = module.dataflow.instance_attributes(owner.node).get(expr.attrname, [])
    else:
        return None
    values = []
    for binding in bindings:
        parent = binding.parent
        if not isinstance(parent, nodes.Assign) or parent.targets[0] is not binding:
            return None
        values.append(parent.value)
    return values
