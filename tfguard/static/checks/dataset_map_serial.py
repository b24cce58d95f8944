"""TFG204: ``Dataset.map`` / ``interleave`` without ``num_parallel_calls``."""

from __future__ import annotations

from typing import Iterable

from astroid import nodes

from tfguard.static.analysis.cheap_pipelines import restructures_only
from tfguard.static.analysis.datasets import datasets
from tfguard.static.analysis.inspection import is_literal_demo, only_inspects
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import SAFE, Finding
from tfguard.static.fixes import pipeline
from tfguard.static.registry import FixOffer

#: Position of ``num_parallel_calls`` among each method's positional parameters.
PARALLEL_ARG_INDEX = {"map": 1, "interleave": 3}
#: Keywords that set the parallelism: ``num_threads`` is its name in ``tf.contrib.data.Dataset.map`` (TF 1.2/1.3),
#: where ``num_parallel_calls`` does not exist (passing it there would be a TypeError).
PARALLEL_KEYWORDS = frozenset({"num_parallel_calls", "num_threads"})


class DatasetMapSerial(NodeRule):
    """Without ``num_parallel_calls`` the function runs on one element at a time, on one CPU thread."""

    code = "TFG204"
    name = "dataset-map-serial"
    severity = "warning"
    summary = "`Dataset.map()` / `interleave()` without `num_parallel_calls` processes one element at a time"
    fix = FixOffer(
        SAFE,
        "passes `num_parallel_calls=tf.data.experimental.AUTOTUNE`; unsafe when the map function "
        "draws random numbers",
        pipeline.plan_parallel_map,
    )

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report ``.map``/``.interleave`` calls on a known dataset that set no ``num_parallel_calls``."""
        pipelines = datasets(module)
        for call in module.nodes_of(nodes.Call):
            func = call.func
            if not isinstance(func, nodes.Attribute) or func.attrname not in PARALLEL_ARG_INDEX:
                continue
            if any(k.arg in PARALLEL_KEYWORDS for k in call.keywords or ()):
                continue
            if len(call.args) > PARALLEL_ARG_INDEX[func.attrname] or not pipelines.is_dataset(func.expr):
                continue
            if is_literal_demo(module, pipelines.chain(func.expr)) or only_inspects(module, pipelines):
                continue
            if func.attrname == "map" and call.args and restructures_only(module, call.args[0]):
                continue  # ``lambda x, y: x``: picks tensors, runs no op (issue 44)
            function = call.args[0].as_string() if call.args else "its function"
            advice = (
                "pass `num_threads=` the number of CPU cores (this `tf.contrib.data` API has no `num_parallel_calls`)"
                if pipelines.is_contrib(pipelines.chain(func.expr) or [])
                else "pass `num_parallel_calls=%s` (or the number of CPU cores)" % autotune_name(module)
            )
            yield self.finding(
                module, call,
                f"`.{func.attrname}({function})` runs on one element at a time, on one CPU thread, while the "
                "training step waits for its input", advice,
            )


def autotune_name(module: ModuleAnalysis) -> str:
    """How the advice spells AUTOTUNE: ``tf.data.AUTOTUNE`` in code written for TF 2, else
    ``tf.data.experimental.AUTOTUNE`` (the only one TF 1.x has)."""
    from tfguard.static.analysis.tf2_spelling import speaks_tf2

    return "tf.data.AUTOTUNE" if speaks_tf2(module) else "tf.data.experimental.AUTOTUNE"
