"""Summaries made only of scalars: writing them every step costs next to nothing.

``writer.add_summary(s, step)`` where ``s`` was fetched from ``tf.summary.scalar`` ops (or a ``merge`` of
them) appends a few floats to the event file: a GAN that logs its two losses on every step keeps its
curves at full resolution for the price of a few microseconds.  Histograms, images and audio are the cost
TFG201 is about.  The written value is followed to the ``sess.run`` that fetched it and from there to the
summary calls that built it; anything not followed counts as not scalar.

``merge_all()`` merges what the whole program made, so it is scalar-only when no summary but a scalar is made
in this module nor in the project modules it imports (followed a few imports deep), and no TensorFlow builder
of other summaries is called there (``tf.contrib.layers.summarize_weights()``, ``summarize_activations``,
``add_gradients_summaries``): one definition, whether the histograms are made here or elsewhere (issue 32,
item 20).  TF 0.x names (``tf.scalar_summary``, ``tf.merge_summary``) are the same calls.
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
    if _scalar_proto(module, write.args[0]):
        return True
    fetches = _fetches_behind(module, write.args[0])
    return bool(fetches) and all(_is_scalar(module, fetch, 0) for fetch in fetches)


def _scalar_proto(module, value: nodes.NodeNG) -> bool:
    """``s = tf.Summary(); s.value.add(simple_value=epsilon, tag="epsilon")`` (or
    ``tf.Summary(value=[tf.Summary.Value(tag=..., simple_value=...)])``): a protocol buffer of scalars built
    in Python, no op run; scalars as a ``tf.summary.scalar`` is."""
    if not isinstance(value, nodes.Name):
        return False
    binding = module.dataflow.reaching_definition(value)
    if not isinstance(binding, nodes.AssignName) or not isinstance(binding.parent, nodes.Assign):
        return False
    made = binding.parent.value
    if not (isinstance(made, nodes.Call) and module.call_qualname(made) == "tensorflow.Summary"):
        return False
    added = [call for call in binding.scope().nodes_of_class(nodes.Call)
             if isinstance(call.func, nodes.Attribute) and call.func.attrname == "add"
             and call.func.expr.as_string() == f"{value.name}.value"]
    keywords = [k.arg for call in added for k in call.keywords or ()]
    keywords += [k.arg for v in made.nodes_of_class(nodes.Call) if v is not made for k in v.keywords or ()]
    values = [k for k in keywords if k not in ("tag", "node_name", "metadata")]
    return bool(values) and all(k == "simple_value" for k in values)


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
            return merges_only_scalars(module)
        return False
    values = _assigned_values(module, expr)
    return bool(values) and all(_is_scalar(module, v, depth + 1) for v in values)


def merges_only_scalars(module) -> bool:
    """Whether ``merge_all()`` in ``module`` merges scalars only: some scalar summary is made here, and no other
    summary is made here or in the project modules this one imports."""
    return module.facts("merges_only_scalars", _merges_only_scalars)


def _merges_only_scalars(module) -> bool:
    if not module.calls_to(frozenset({SCALAR})):
        return False
    seen = set()
    pending = [(module, 0)]
    while pending:
        current, depth = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if _makes_other_summaries(current):
            return False
        if depth < _IMPORT_DEPTH:
            pending.extend((imported, depth + 1) for imported in _project_imports(current))
    return True


#: How many imports deep the project is followed for summaries ``merge_all()`` would merge.
_IMPORT_DEPTH = 3
#: Last names of summary builders other than scalars (a name with "summar" in it counts too).
_OTHER_SUMMARY_LEAVES = frozenset({"histogram", "image", "audio", "text", "tensor_summary"})
#: Summary calls that make no summary of their own, or only scalars.
_NOT_OTHER = frozenset({SCALAR, MERGE, MERGE_ALL, "tensorflow.summary.FileWriter",
                        "tensorflow.summary.FileWriterCache"})


def _makes_other_summaries(module) -> bool:
    """A histogram, image, audio or text summary, or a TF builder of summaries (``summarize_weights``)."""
    for call in module.nodes_of(nodes.Call):
        func = call.func
        leaf = func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", "")
        if leaf not in _OTHER_SUMMARY_LEAVES and "summar" not in leaf.lower():
            continue
        name = module.call_qualname(call)
        if name is None or not name.startswith("tensorflow.") or name in _NOT_OTHER:
            continue
        if name.startswith(("tensorflow.summary.Summary", "tensorflow.Summary")):
            continue  # the protocol buffer, written by hand
        if name in SUMMARY_CALLS or "summar" in name.rsplit(".", 1)[-1].lower():
            return True
    return False


def _project_imports(module) -> List[object]:
    """The analyses of the project modules ``module`` imports."""
    return module.imported_analyses()


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
