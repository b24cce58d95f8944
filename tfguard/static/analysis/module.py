"""The per-module analysis handed to every rule: :class:`ModuleAnalysis`, a small facade.

Its core (here) indexes the module and resolves names through the dataflow; the facts rules read come from one
module each, mixed into the facade so that every query is one memoised method on the analysis:

* what each expression holds: :class:`~tfguard.static.analysis.dataflow.Dataflow` (``value``, ``qualname``);
* graph-building events: :mod:`~tfguard.static.analysis.building` (``build_event``, ``built_once``);
* graph-running events and session loops: :mod:`~tfguard.static.analysis.session_loops` (``run_event``,
  ``is_session_loop``, ``session_loop_of``);
* fresh graphs: :mod:`~tfguard.static.analysis.fresh_graphs` (``fresh_graph_before``);
* function summaries, the interprocedural facts: :mod:`~tfguard.static.analysis.function_summaries` (``summary``).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, FrozenSet, Iterator, List, Optional, TypeVar

from astroid import nodes

from tfguard.static.analysis import tfapi
from tfguard.static.analysis.building import OPERATOR_NODES, GraphBuilding
from tfguard.static.analysis.dataflow import FUNCTION, INSTANCE, Dataflow, Value
from tfguard.static.analysis.fact_types import BuildEvent, BuildSite, FunctionSummary, RunEvent, describe
from tfguard.static.analysis.fresh_graphs import FreshGraphs
from tfguard.static.analysis.function_summaries import FunctionSummaries
from tfguard.static.analysis.inference import uninferred_parameter
from tfguard.static.analysis.scopes import FUNCTIONS, ScopeNode, own_nodes, scope_names
from tfguard.static.analysis.session_loops import GraphRunning

__all__ = ["OPERATOR_NODES", "BuildEvent", "BuildSite", "FunctionSummary", "ModuleAnalysis", "RunEvent", "describe"]

_Fact = TypeVar("_Fact")


class ModuleAnalysis(GraphBuilding, GraphRunning, FreshGraphs, FunctionSummaries):
    """Shared static facts about one parsed module; every query is memoised."""

    def __init__(self, module: nodes.Module, path: str, project=None) -> None:
        self.module = module
        self.path = path
        #: The :class:`~tfguard.static.analysis.project.Project` whose files calls are followed into.
        self.project = project
        self.dataflow = Dataflow(module, path, project)
        self.dataflow.function_return = self._function_return
        self.dataflow.calls_with_leaf = lambda leaf: self._calls_by_leaf().get(leaf, ())
        self._summaries: Dict[int, Optional[FunctionSummary]] = {}
        self._session_loops: Dict[int, Optional[RunEvent]] = {}
        self._build_events: Dict[int, Optional[BuildEvent]] = {}
        self._run_events: Dict[int, Optional[RunEvent]] = {}
        self._graph_resets: Dict[int, List[tuple]] = {}
        self._scopes: Optional[List[ScopeNode]] = None
        self._index: Optional[Dict[object, List[nodes.NodeNG]]] = None
        self._alias_map: Optional[Dict[str, FrozenSet[str]]] = None
        self._by_leaf: Optional[Dict[str, List[nodes.Call]]] = None
        self._facts: Dict[str, Any] = {}
        #: id(finding) -> the node a rule reported it at, for planning its fix (see ``NodeRule.finding``).
        self._reported_at: Dict[int, nodes.NodeNG] = {}
        if project is not None:
            project.register(self)

    def facts(self, name: str, build: Callable[["ModuleAnalysis"], _Fact]) -> _Fact:
        """Return ``build(self)``, built once per module and kept under ``name``.

        How the analyses built on this one (datasets, devices, step frequency...) and
        the checks keep their per-module results.
        """
        found = self._facts.get(name)
        if found is None:
            found = self._facts[name] = build(self)
        return found

    def note_reported_at(self, finding: Any, node: nodes.NodeNG) -> None:
        """Remember that a rule reported ``finding`` at ``node``: its fix is planned from that node."""
        self._reported_at[id(finding)] = node

    def reported_at(self, finding: Any) -> Optional[nodes.NodeNG]:
        """Return the node a rule of this module reported ``finding`` at, or None (a finding made elsewhere)."""
        return self._reported_at.get(id(finding))

    def scope_at(self, line: int) -> str:
        """Return the dotted name of the innermost ``def`` or ``class`` around ``line`` ("" at module level)."""
        return self.facts("scope_names", lambda analysis: scope_names(analysis.module)).get(line, "")

    # -- convenience ----------------------------------------------------------------

    def value(self, expr: Optional[nodes.NodeNG]) -> Optional[Value]:
        """Return what ``expr`` holds (see :class:`Dataflow`)."""
        return self.dataflow.value(expr)

    def qualname(self, expr: Optional[nodes.NodeNG]) -> Optional[str]:
        """Return the canonical TF name ``expr`` refers to, if any."""
        return self.dataflow.qualname(expr)

    def call_qualname(self, call: nodes.NodeNG) -> Optional[str]:
        """Return the canonical TF name of the function a Call node calls, if any."""
        return self.qualname(call.func) if isinstance(call, nodes.Call) else None

    def call_named(self, call: nodes.NodeNG, names: FrozenSet[str]) -> Optional[str]:
        """Return the canonical TF name of ``call`` when it is one of ``names``, else None.

        Cheaper than :meth:`call_qualname` on every call: the last name written
        (``Session`` in ``tf.Session()``, or an alias bound to it by an import or
        an assignment) is compared first, and only a possible match is resolved.
        """
        if not isinstance(call, nodes.Call):
            return None
        leaf = _leaf_name(call.func)
        if leaf is None:
            return None
        wanted = tfapi.leaf_names(names)
        if leaf not in wanted and not (self._aliases().get(leaf, frozenset()) & wanted):
            return None
        qualname = self.call_qualname(call)
        return qualname if qualname in names else None

    def calls_to(self, names: FrozenSet[str]) -> List[nodes.Call]:
        """Return the module's calls of the canonical TF names ``names``, in source order.

        Only calls whose last written name could stand for one of them are resolved.
        """
        return [call for call in self.candidate_calls(names) if self.call_qualname(call) in names]

    def candidate_calls(self, names: FrozenSet[str], leaves: FrozenSet[str] = frozenset()) -> List[nodes.Call]:
        """Return, in source order, the calls that may be calls of ``names`` or of methods named ``leaves``.

        A cheap syntactic filter: the last name written (or what an alias of it
        stands for) matches; resolve each candidate before trusting it.
        """
        key = ("candidates", names, leaves)
        if self._index is None:
            self._index = _index_by_class(self.module)
        if key not in self._index:
            by_leaf = self._calls_by_leaf()
            wanted = tfapi.leaf_names(names) | leaves
            matching = set(wanted) | {alias for alias, stands_for in self._aliases().items() if stands_for & wanted}
            candidates = [call for leaf in matching for call in by_leaf.get(leaf, ())]
            candidates.sort(key=lambda n: (n.fromlineno or 0, n.col_offset or 0))
            self._index[key] = candidates
        return self._index[key]

    def _calls_by_leaf(self) -> Dict[str, List[nodes.Call]]:
        if self._by_leaf is None:
            by_leaf: Dict[str, List[nodes.Call]] = {}
            for call in self.nodes_of(nodes.Call):
                leaf = _leaf_name(call.func)
                if leaf is not None:
                    by_leaf.setdefault(leaf, []).append(call)
            self._by_leaf = by_leaf
        return self._by_leaf

    def _aliases(self) -> Dict[str, FrozenSet[str]]:
        """Map each name bound by ``from x import a as b`` or ``b = x.a`` to the last names it may stand for."""
        if self._alias_map is None:
            direct: Dict[str, set] = {}
            for node in self.nodes_of(nodes.ImportFrom):
                for imported, alias in node.names:
                    if alias:
                        direct.setdefault(alias, set()).add(imported)
            for node in self.nodes_of(nodes.Assign):
                leaf = _leaf_name(node.value)
                if leaf is not None:
                    for target in node.targets:
                        if isinstance(target, nodes.AssignName):
                            direct.setdefault(target.name, set()).add(leaf)
            resolved: Dict[str, FrozenSet[str]] = {}
            for name in direct:
                seen, stack = set(), [name]
                while stack:
                    for leaf in direct.get(stack.pop(), ()):
                        if leaf not in seen:
                            seen.add(leaf)
                            stack.append(leaf)
                resolved[name] = frozenset(seen)
            self._alias_map = resolved
        return self._alias_map

    def scopes(self) -> List[ScopeNode]:
        """Return the module and every function in it (methods and nested functions included)."""
        if self._scopes is None:
            self._scopes = [self.module, *self.nodes_of(*FUNCTIONS)]
        return self._scopes

    def nodes_of(self, *types: type) -> List[nodes.NodeNG]:
        """Return every node of the given exact classes in the module, in source order.

        The module is walked once and indexed by class, so rules asking for all
        calls or all assignments do not each walk the whole tree again.
        """
        if self._index is None:
            self._index = _index_by_class(self.module)
        if len(types) == 1:
            return self._index.get(types[0], [])
        if types not in self._index:
            found = [node for kind in types for node in self._index.get(kind, ())]
            found.sort(key=lambda n: (n.fromlineno or 0, n.col_offset or 0))
            self._index[types] = found
        return self._index[types]

    def own_nodes(self, scope: ScopeNode) -> Iterator[nodes.NodeNG]:
        """Yield the nodes that run as ``scope``'s own code (nested definitions excluded)."""
        return own_nodes(scope)

    def called_function(self, call: nodes.Call) -> Optional[nodes.NodeNG]:
        """Return the local function or method a call resolves to, if any.

        A method called on a parameter that no call site fills (``self.net.checkpoint()``) is the one
        method of that name in the module's and its imported project modules' classes, when exactly
        one defines it and it builds or runs the graph.
        """
        callee = self.value(call.func)
        if callee is None:
            return self._unique_method_of_parameter(call)
        if callee.kind == FUNCTION:
            return callee.node
        if callee.kind == INSTANCE or (callee.kind == "class"):
            cls = callee.node
            method = self.dataflow.method(cls, "__call__" if callee.kind == INSTANCE else "__init__")
            return method
        return None

    def imported_analyses(self) -> List["ModuleAnalysis"]:
        """The analyses of the project modules this module imports (``from models.dcgan import DCGAN``)."""
        project = self.project
        if project is None:
            return []
        found = []
        importer = self.module.file or self.path
        for node in self.nodes_of(nodes.Import, nodes.ImportFrom):
            if isinstance(node, nodes.Import):
                names, level = [name for name, _ in node.names], 0
            else:
                names = [node.modname] if node.modname else [name for name, _ in node.names]
                level = node.level or 0
            for name in names:
                path = project.resolve(name, importer, level)
                analysis = project.analysis(path) if path is not None else None
                if analysis is not None and analysis is not self:
                    found.append(analysis)
        return found

    def _unique_method_of_parameter(self, call: nodes.Call) -> Optional[nodes.NodeNG]:
        func = call.func
        if not isinstance(func, nodes.Attribute) or func.attrname.startswith("__"):
            return None
        if not uninferred_parameter(self.dataflow, func.expr):
            return None
        if func.attrname == "run" and "sess" in func.expr.as_string().rsplit(".", 1)[-1].lower():
            return None  # ``sess.run(...)`` in ``Worker.run(self, sess, coord)``: the session's run, not the method
        method = self.dataflow.inference.unique_method(func.attrname)
        if method is None:
            return None
        summary = self.summary(method)
        if summary is None or not (summary.builds or summary.run is not None):
            return None
        return method


def _index_by_class(module: nodes.Module) -> Dict[object, List[nodes.NodeNG]]:
    """Walk ``module`` once, in source order, and list its nodes by class.

    Reads each class's ``_astroid_fields`` directly: about 1.4x faster than
    ``get_children()``, whose generators dominate a walk of every node.
    """
    index: Dict[object, List[nodes.NodeNG]] = {}
    node_class = nodes.NodeNG
    stack: List[nodes.NodeNG] = [module]
    push, pop = stack.append, stack.pop
    while stack:
        node = pop()
        index.setdefault(type(node), []).append(node)
        for name in reversed(node._astroid_fields):
            if name == "doc_node":  # docstrings are not children (get_children skips them too)
                continue
            value = getattr(node, name)
            if value is None:
                continue
            if isinstance(value, node_class):
                push(value)
                continue
            for item in reversed(value):
                if isinstance(item, node_class):
                    push(item)
                elif isinstance(item, tuple):  # With.items, Dict.items, Compare.ops
                    for part in reversed(item):
                        if isinstance(part, node_class):
                            push(part)
    return index


def _leaf_name(expr: nodes.NodeNG) -> Optional[str]:
    if isinstance(expr, nodes.Attribute):
        return expr.attrname
    if isinstance(expr, nodes.Name):
        return expr.name
    return None
