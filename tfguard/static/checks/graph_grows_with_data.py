"""TFG111: ops built once per item of the data set (per file, per line) outside any session loop."""

from __future__ import annotations

from typing import Iterable, Optional

from astroid import nodes

from tfguard.static.analysis.eager_steps import eager_tf2_code
from tfguard.static.analysis.fact_types import loop_text
from tfguard.static.analysis.module import ModuleAnalysis, describe
from tfguard.static.analysis.run_fetches import attribute_value
from tfguard.static.analysis.scopes import Body, is_ancestor, own_nodes
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import Finding

#: Calls whose result has one item per file or per record of a data set on disk.
_DATA_LISTINGS = frozenset({
    "os.listdir", "os.scandir", "os.walk", "glob.glob", "glob.iglob",
    "tensorflow.gfile.Glob", "tensorflow.gfile.ListDirectory", "tensorflow.io.gfile.glob",
    "tensorflow.io.gfile.listdir", "tensorflow.gfile.Walk", "tensorflow.io.gfile.walk",
})
#: Methods whose result has one item per file or line: ``path.glob("*.jpg")``, ``handle.readlines()``.
_DATA_METHODS = frozenset({"glob", "rglob", "iterdir", "readlines"})
#: Calls that keep the items of what they wrap.
_PASS_THROUGH = frozenset({"sorted", "list", "enumerate", "reversed", "tuple", "zip"})
_MAX_DEPTH = 6


class GraphGrowsWithData(NodeRule):
    """A graph with ops per file or per record grows with the data set, up to the 2 GB GraphDef limit."""

    code = "TFG111"
    name = "graph-grows-with-data"
    severity = "warning"
    summary = "ops built for each file or record of a data set (a graph as large as the data)"

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report the first op built in each loop over a data listing that runs no graph in its iterations."""
        if eager_tf2_code(module):
            return  # eager TF 2: ops run and are freed, no graph grows (issue 44)
        for loop in module.nodes_of(nodes.For):
            source = _data_source(module, loop.iter, 0)
            if source is None or module.is_session_loop(loop):
                continue  # a loop that runs the graph is TFG102's
            build = next((node for node in own_nodes(Body(list(loop.body)))
                          if module.build_event(node) is not None), None)
            if build is None:
                continue
            yield self._finding(module, build, f"every iteration of {loop_text(loop)}", source)
        for comprehension in module.nodes_of(nodes.ListComp, nodes.GeneratorExp, nodes.SetComp, nodes.DictComp):
            source = _data_source(module, comprehension.generators[0].iter, 0)
            if source is None:
                continue
            calls = [node for node in comprehension.nodes_of_class(nodes.Call)
                     if not is_ancestor(comprehension.generators[0].iter, node)]
            if any(module.run_event(node) is not None for node in calls):
                continue  # it runs the graph per item: a loop of runs, not only of builds
            build = next((node for node in calls if module.build_event(node) is not None), None)
            if build is not None:
                where = f"each item of the comprehension at line {comprehension.lineno}"
                yield self._finding(module, build, where, source)

    def _finding(self, module: ModuleAnalysis, build: nodes.NodeNG, where: str, source: nodes.Call) -> Finding:
        return self.finding(
            module, build,
            f"`{describe(build)}` adds ops on {where}, which goes over `{describe(source)}`: one set of ops "
            "per file or record, so the graph (and its GraphDef, 2 GB at most) grows with the data set", "build "
            "the ops once on a placeholder and feed each item, or read the files with a `tf.data` pipeline "
            "(`Dataset.from_tensor_slices(paths).map(load)`)",
        )


def _data_source(module: ModuleAnalysis, expr: Optional[nodes.NodeNG], depth: int) -> Optional[nodes.Call]:
    """The listing call a loop's iterable comes from (``os.listdir(d)``, ``glob.glob(p)``, ``f.readlines()``)."""
    if expr is None or depth > _MAX_DEPTH:
        return None
    if isinstance(expr, nodes.Call):
        if module.call_qualname(expr) in _DATA_LISTINGS or _listing_name(module, expr):
            return expr
        func = expr.func
        if isinstance(func, nodes.Attribute) and func.attrname in _DATA_METHODS:
            return expr
        if isinstance(func, nodes.Name) and func.name in _PASS_THROUGH:
            for argument in expr.args:
                found = _data_source(module, argument, depth + 1)
                if found is not None:
                    return found
        return None
    if isinstance(expr, (nodes.ListComp, nodes.GeneratorExp)):
        return _data_source(module, expr.generators[0].iter, depth + 1)
    if isinstance(expr, nodes.Subscript) and isinstance(expr.slice, nodes.Slice):
        return None  # ``files[:10]``: a handful, not the data set
    if isinstance(expr, nodes.Attribute):
        bound = attribute_value(expr)  # ``self.imagefiles = sorted(glob.glob(...))`` bound once in the class
        return _data_source(module, bound, depth + 1) if bound is not None else None
    if isinstance(expr, nodes.Name):
        bindings = module.dataflow.definitions(expr, expr.name)
        if len(bindings) == 1 and isinstance(bindings[0].parent, nodes.Assign) \
                and bindings[0] in bindings[0].parent.targets:
            return _data_source(module, bindings[0].parent.value, depth + 1)
    return None


def _listing_name(module: ModuleAnalysis, call: nodes.Call) -> bool:
    """``listdir(d)`` / ``glob(p)`` imported bare (``from os import listdir``, ``from glob import glob``)."""
    name = module.call_qualname(call)
    if name is not None:
        return False
    func = call.func
    if isinstance(func, nodes.Name):
        for binding in module.dataflow.definitions(func, func.name):
            if isinstance(binding, nodes.ImportFrom) and binding.modname in ("os", "glob") \
                    and func.name in ("listdir", "glob", "iglob", "walk", "scandir"):
                return True
    if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) and func.expr.name in ("os", "glob"):
        return func.attrname in ("listdir", "glob", "iglob", "walk", "scandir")
    return False
