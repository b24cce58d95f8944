"""TFG205: a tf.data pipeline consumed with no ``prefetch``."""

from __future__ import annotations

from typing import Iterable, Iterator, List, Optional, Tuple

from astroid import nodes

from tfguard.static.analysis.cheap_pipelines import yields_one_element
from tfguard.static.analysis.datasets import datasets
from tfguard.static.analysis.inspection import is_literal_demo, only_inspects
from tfguard.static.analysis.module import ModuleAnalysis, describe
from tfguard.static.analysis.scopes import FUNCTIONS, function_label, own_nodes
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.checks.dataset_map_serial import autotune_name
from tfguard.static.finding import SAFE, ChainLink, Finding
from tfguard.static.fixes import pipeline
from tfguard.static.registry import FixOffer

ITERATOR_METHODS = frozenset({"make_one_shot_iterator", "make_initializable_iterator"})
ITERATOR_FUNCTIONS = frozenset({
    "tensorflow.data.make_one_shot_iterator", "tensorflow.data.make_initializable_iterator",
})


class DatasetNoPrefetch(NodeRule):
    """Without a prefetch the GPU idles while the CPU prepares each next batch."""

    code = "TFG205"
    name = "dataset-no-prefetch"
    severity = "warning"
    summary = "a tf.data pipeline is consumed without `.prefetch()`, so input and training never overlap"
    fix = FixOffer(
        SAFE,
        "ends the pipeline with `.prefetch(tf.data.experimental.AUTOTUNE)`",
        pipeline.plan_prefetch,
    )

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report each place a known pipeline without a prefetch is consumed, its source in the chain."""
        pipelines = datasets(module)
        for report_at, consumed, how, returned_at in _consumers(module):
            chain = pipelines.chain(consumed)
            if chain is None or pipelines.has_prefetch(chain) or is_literal_demo(module, chain):
                continue
            if only_inspects(module, pipelines) or yields_one_element(chain):
                continue  # one in-memory element: nothing to prepare ahead (issue 44)
            source = chain[-1]
            links = [] if returned_at is None else [_link(module, returned_at)]
            links.append(_link(module, source))
            where = _path_of(module, source)
            place = f"line {source.lineno}" if where == module.path else f"{where}:{source.lineno}"
            others = _other_branch_sources(module, pipelines, consumed, source)
            if others and where == module.path:
                # ``if fmt == "tfrecords": ds = ... elif fmt == "csv": ds = ...``: every branch's pipeline
                place = " or ".join(f"line {line}" for line in sorted({source.lineno, *others}))
                links.extend(ChainLink(module.path, line, links[-1].function) for line in sorted(set(others)))
            advice = (
                "pass `output_buffer_size=` to its `.map()` (this `tf.contrib.data` API has no `.prefetch()`)"
                if pipelines.is_contrib(chain) else "end the pipeline with `.prefetch(%s)`" % autotune_name(module)
            )
            yield self.finding(
                module, report_at,
                f"{how} the tf.data pipeline started at {place} (`{describe(source)}`), which has "
                f"no `.prefetch()` on every path: training waits while the CPU prepares each batch", advice,
                links,
            )


def _other_branch_sources(module: ModuleAnalysis, pipelines, consumed: nodes.NodeNG, source: nodes.Call) -> List[int]:
    """The start lines of the other pipelines a name may hold when it is consumed (one per branch that
    binds it), each with no prefetch either; [] when the name has one binding."""
    if not isinstance(consumed, nodes.Name):
        return []
    lines = []
    for binding in module.dataflow.definitions(consumed, consumed.name):
        if not isinstance(binding.parent, nodes.Assign):
            return []
        chain = pipelines.chain(binding.parent.value)
        if chain is None or pipelines.has_prefetch(chain):
            return []
        if chain[-1] is not source and chain[-1].root() is module.module:
            lines.append(chain[-1].lineno)
    return lines


def _link(module: ModuleAnalysis, node: nodes.NodeNG) -> ChainLink:
    scope = node.scope()
    label = function_label(scope) if isinstance(scope, FUNCTIONS) else (
        "<lambda>" if isinstance(scope, nodes.Lambda) else "<module>")
    return ChainLink(_path_of(module, node), node.lineno, label)


def _path_of(module: ModuleAnalysis, node: nodes.NodeNG) -> str:
    """The displayed path of the file ``node`` is in (a pipeline may be built in another project module)."""
    if module.project is None or node.root() is module.module:
        return module.path
    owner = module.project.owner(node)
    return owner.path if owner is not None else module.path


def _consumers(module: ModuleAnalysis) -> List[Tuple[nodes.NodeNG, nodes.NodeNG, str, Optional[nodes.NodeNG]]]:
    """Return (node to report, dataset expression, verb phrase, return statement or None) per consuming site.

    Consumers are iterators (``make_one_shot_iterator()``, ``tf.data.make_*_iterator(ds)``),
    ``iterator.make_initializer(ds)``, ``model.fit(ds)`` and calls handing an ``input_fn=`` over
    (reported at that call, the function's ``return`` in the chain).  A function that merely
    returns a dataset consumes nothing.
    """
    found: List[Tuple[nodes.NodeNG, nodes.NodeNG, str, Optional[nodes.NodeNG]]] = []
    for call in module.nodes_of(nodes.Call):
        func = call.func
        if call.args and module.call_named(call, ITERATOR_FUNCTIONS):
            found.append((call, call.args[0], f"`{describe(call)}` consumes", None))
        elif isinstance(func, nodes.Attribute) and func.attrname in ITERATOR_METHODS:
            found.append((call, func.expr, f"`{describe(call)}` consumes", None))
        elif isinstance(func, nodes.Attribute) and func.attrname in ("make_initializer", "fit") and (
            call.args or any(k.arg == "x" for k in call.keywords or ())
        ):
            data = call.args[0] if call.args else next(k.value for k in call.keywords if k.arg == "x")
            found.append((call, data, f"`{describe(call)}` consumes", None))
        for keyword in call.keywords or ():
            if keyword.arg == "input_fn" and not _feeds_a_tpu(module, call):
                for node, expr in _returned(module, keyword.value):
                    found.append((call, expr, f"`{describe(call)}` consumes, through `input_fn`,", node))
                    break
    return found


def _feeds_a_tpu(module: ModuleAnalysis, call: nodes.Call) -> bool:
    """``TPUEstimator(...).train(input_fn=...)``: the TPU infeed prefetches the input function's dataset itself."""
    if _names_tpu_estimator(call.func):
        return True
    func = call.func
    if isinstance(func, nodes.Attribute):
        receiver = module.value(func.expr)
        if receiver is not None and "TPUEstimator" in receiver.api:
            return True
        if isinstance(func.expr, nodes.Name):  # ``estimator = tpu_estimator.TPUEstimator(...)`` of any spelling
            for binding in module.dataflow.definitions(func.expr, func.expr.name):
                parent = binding.parent
                if isinstance(parent, nodes.Assign) and isinstance(parent.value, nodes.Call):
                    if _names_tpu_estimator(parent.value.func):
                        return True
    return False


def _names_tpu_estimator(func: nodes.NodeNG) -> bool:
    name = func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", "")
    return name == "TPUEstimator"


def _returned(module: ModuleAnalysis, function: nodes.NodeNG) -> Iterator[Tuple[nodes.NodeNG, nodes.NodeNG]]:
    """Yield (return statement, returned expression) of a local function, a lambda, or a name bound to one."""
    if isinstance(function, nodes.Lambda):
        yield function.body, function.body
        return
    if isinstance(function, nodes.Name):
        value = module.value(function)
        function = value.node if value is not None and value.kind == "function" else None
    if isinstance(function, FUNCTIONS):
        for node in own_nodes(function):
            if isinstance(node, nodes.Return) and node.value is not None:
                yield node, node.value
