"""Scripts that look at a tf.data pipeline rather than train on it (TFG204/TFG205 stay silent there).

A script that builds a pipeline and prints 20 batches, dumps them to PNG files or walks an API demo over
``Dataset.range(100)`` is not input-bound training: a serial ``map`` or a missing ``prefetch`` costs it a
few milliseconds.  The input rules report a pipeline only where it can cost real time:

- the module trains: it calls an optimizer's ``minimize``/``apply_gradients``, Keras' ``fit``/``train_on_batch``,
  an Estimator's ``train``/``evaluate``/``train_and_evaluate``, ``slim.learning.train``, or names a training op
  (``train_op``, ``train_step``, ``optimizer``) that another module built;
- or it runs a long evaluation: a loop that runs the graph or iterates the dataset more than
  :data:`LONG_EVALUATION_TRIP_COUNT` times, or an unknown number of times (``while True``, ``range(steps)``);
- or it consumes the pipeline in no loop of its own (a library module: its caller may train).

A pipeline whose source is a small literal (``Dataset.range(100)``, ``from_tensor_slices([1, 2, 3])``) is a demo
wherever it is.
"""

from __future__ import annotations

import re
from typing import List, Optional

from astroid import nodes

from tfguard.static.analysis.scopes import LOOPS
from tfguard.static.analysis.steps import fetched
from tfguard.static.analysis.trip_counts import literal_trip_count

#: The most iterations of a consuming loop that still count as a look at the data, not an evaluation.
LONG_EVALUATION_TRIP_COUNT = 1000

#: Methods whose call trains a model (or runs an Estimator's evaluation over its input_fn).
TRAINING_METHODS = frozenset({
    "minimize", "apply_gradients", "fit", "fit_generator", "train_on_batch", "train_and_evaluate",
})

#: Estimator methods that consume an ``input_fn`` for a long run.
ESTIMATOR_RUNS = frozenset({"train", "evaluate"})

#: Names that stand for a training op built elsewhere.
_TRAINING_NAME = re.compile(r"(^|_)(train_op|train_step|train_ops|optimizer|optimizers|opt|solver)($|_)", re.I)


def only_inspects(module, pipelines) -> bool:
    """Return whether the module only looks at its pipelines (see the module docstring)."""
    return module.facts("only_inspects", lambda m: _compute(m, pipelines))


def is_literal_demo(module, chain: List[nodes.Call]) -> bool:
    """Return whether the pipeline ``chain`` starts from a small literal source (``Dataset.range(100)``)."""
    source = chain[-1]
    func = source.func
    leaf = func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", "")
    if leaf == "range":
        return all(isinstance(a, nodes.Const) and type(a.value) is int for a in source.args) and bool(source.args) \
            and max(a.value for a in source.args) <= LONG_EVALUATION_TRIP_COUNT
    if leaf in ("from_tensor_slices", "from_tensors") and source.args:
        data = source.args[0]
        return _constant_display(data) and _literal_size(data) <= LONG_EVALUATION_TRIP_COUNT
    return False


def _constant_display(node: nodes.NodeNG) -> bool:
    """``[1, 2, 3]``, ``[[1, 2], [3, 4]]``, ``5``: numbers written out, not arrays named (``(features, labels)``)."""
    if isinstance(node, (nodes.List, nodes.Tuple)):
        return all(_constant_display(e) for e in node.elts)
    return isinstance(node, nodes.Const)


def _literal_size(node: nodes.NodeNG) -> int:
    if isinstance(node, (nodes.List, nodes.Tuple)):
        return len(node.elts)
    return 1


def _compute(module, pipelines) -> bool:
    if _trains(module):
        return False
    consuming = [loop for loop in module.nodes_of(*LOOPS) if _consumes(module, pipelines, loop)]
    if not consuming:
        return False  # a library module, or a consumer this analysis does not see: its caller decides
    return all(_short(pipelines, loop) or _fetches_only_demos(module, pipelines, loop) for loop in consuming)


def _trains(module) -> bool:
    for call in module.nodes_of(nodes.Call):
        func = call.func
        leaf = func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", "")
        if leaf in TRAINING_METHODS:
            return True
        if leaf in ESTIMATOR_RUNS and any(k.arg == "input_fn" for k in call.keywords or ()):
            return True
        if leaf == "train" and isinstance(func, nodes.Attribute) and func.expr.as_string().endswith("learning"):
            return True  # ``slim.learning.train(train_op, logdir)``
    names = {node.name for node in module.nodes_of(nodes.Name, nodes.AssignName)}
    names.update(node.attrname for node in module.nodes_of(nodes.Attribute, nodes.AssignAttr))
    return any(_TRAINING_NAME.search(name) for name in names)


def _consumes(module, pipelines, loop: nodes.NodeNG) -> bool:
    """A session loop, or a loop over a dataset (eager iteration)."""
    if isinstance(loop, (nodes.For, nodes.AsyncFor)) and pipelines.is_dataset(loop.iter):
        return True
    return any(module.run_event(node) is not None for node in module.iteration_nodes(loop))


def _short(pipelines, loop: nodes.NodeNG) -> bool:
    count: Optional[int] = literal_trip_count(loop)
    if count is None and isinstance(loop, (nodes.For, nodes.AsyncFor)):
        count = _taken(pipelines.chain(loop.iter) or [])
    return count is not None and count <= LONG_EVALUATION_TRIP_COUNT


def _fetches_only_demos(module, pipelines, loop: nodes.NodeNG) -> bool:
    """A loop whose graph runs each fetch the next element of a literal demo pipeline (``Dataset.range(100)``)."""
    runs = [node for node in module.iteration_nodes(loop) if module.run_event(node) is not None]
    for run in runs:
        items = fetched(module, run)
        if not items or not all(_demo_element(module, pipelines, item) for item in items):
            return False
    return bool(runs)


def _demo_element(module, pipelines, expr: nodes.NodeNG) -> bool:
    """``next_number`` bound once to ``<demo pipeline>.make_one_shot_iterator().get_next()``."""
    if isinstance(expr, nodes.Name):
        definitions = module.dataflow.definitions(expr, expr.name)
        if len(definitions) != 1 or not isinstance(definitions[0].parent, nodes.Assign):
            return False
        expr = definitions[0].parent.value
    while isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Attribute) and expr.func.attrname in (
        "get_next", "make_one_shot_iterator", "make_initializable_iterator"
    ):
        expr = expr.func.expr
    chain = pipelines.chain(expr)
    return chain is not None and is_literal_demo(module, chain)


def _taken(chain: List[nodes.Call]) -> Optional[int]:
    """``dataset.take(20)``: the literal number of elements a loop over the chain sees."""
    for call in chain:
        func = call.func
        if isinstance(func, nodes.Attribute) and func.attrname == "take" and call.args:
            count = call.args[0]
            if isinstance(count, nodes.Const) and type(count.value) is int:
                return count.value
    return None
