"""The per-module analysis handed to every rule.

It answers, once per module and memoised:

* what each expression holds (:class:`~tfguard.static.analysis.dataflow.Dataflow`),
* which calls and operators add ops to the graph (:meth:`ModuleAnalysis.build_event`),
* which calls run the graph (:meth:`ModuleAnalysis.run_event`),
* what each local function does when called (:meth:`ModuleAnalysis.summary`),
* which loops run the graph (:meth:`ModuleAnalysis.is_session_loop`), and whether an
  iteration starts from a fresh graph (:meth:`ModuleAnalysis.fresh_graph_before`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, FrozenSet, Iterator, List, Optional, Tuple, TypeVar

from astroid import nodes

from tfguard.static.analysis import tfapi
from tfguard.static.analysis.dataflow import (
    FUNCTION,
    INSTANCE,
    MODULE,
    RUNNER,
    SESSION,
    TF,
    Dataflow,
    Value,
)
from tfguard.static.analysis.scopes import FUNCTIONS, LOOPS, ScopeNode, function_label, is_ancestor, own_nodes, position
from tfguard.static.finding import ChainLink

#: How many helper calls deep a build or a run is followed.
MAX_CALL_DEPTH = 6
#: How many function summaries may be computed inside one another (calls followed while computing).
MAX_SUMMARY_NESTING = 24
#: How many distinct build sites a function summary keeps.
MAX_SUMMARY_BUILDS = 32

OPERATOR_NODES = (nodes.BinOp, nodes.UnaryOp, nodes.Subscript, nodes.Compare)


@dataclass(frozen=True)
class BuildSite:
    """A place that adds something to the graph (or creates a session) when it runs.

    ``api`` is the canonical TF name (``tensorflow.train.Saver``), a method name
    (``.assign``) or ``operator``; ``display`` is the code as written (``tf.train.Saver()``).
    ``creates_session`` marks Session constructors, which add no op.
    """

    node: nodes.NodeNG
    api: str
    display: str
    creates_session: bool = False

    @property
    def line(self) -> int:
        """The 1-based line the site starts on."""
        return self.node.lineno


@dataclass(frozen=True)
class BuildEvent:
    """A node in some scope that, when it runs, leads to ``site`` through ``chain``.

    For a direct build ``site.node is node`` and ``chain`` is empty; for a call to a
    helper ``chain`` holds one link per function entered, the last one at the site.
    """

    node: nodes.NodeNG
    site: BuildSite
    chain: Tuple[ChainLink, ...] = ()


@dataclass(frozen=True)
class RunEvent:
    """A node that runs the graph, directly (``sess.run``) or through helpers."""

    node: nodes.NodeNG
    display: str
    chain: Tuple[ChainLink, ...] = ()


@dataclass
class FunctionSummary:
    """What calling a local function does to the graph."""

    builds: List[BuildEvent] = field(default_factory=list)
    run: Optional[RunEvent] = None
    resets_graph: bool = False
    returns: Optional[Value] = None
    #: The function runs the graph in a loop of its own (or of a function it calls): a
    #: training loop's ``train_one_epoch()`` — so a loop calling it loops over epochs, not steps.
    loops_over_steps: bool = False


def describe(node: nodes.NodeNG, limit: int = 60) -> str:
    """Return short source text for ``node``, with call arguments elided: ``tf.train.Saver()``."""
    if isinstance(node, nodes.Call):
        text = f"{node.func.as_string()}()"
    else:
        text = node.as_string()
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


_Fact = TypeVar("_Fact")


class ModuleAnalysis:
    """Shared static facts about one parsed module; every query is memoised."""

    #: Function summaries being computed, across modules (the analysis is single-threaded).
    _summary_depth = 0

    def __init__(self, module: nodes.Module, path: str, project=None) -> None:
        self.module = module
        self.path = path
        #: The :class:`~tfguard.static.analysis.project.Project` whose files calls are followed into.
        self.project = project
        self.dataflow = Dataflow(module, path, project)
        self.dataflow.function_return = self._function_return
        self._summaries: Dict[int, Optional[FunctionSummary]] = {}
        self._session_loops: Dict[int, Optional[RunEvent]] = {}
        self._build_events: Dict[int, Optional[BuildEvent]] = {}
        self._run_events: Dict[int, Optional[RunEvent]] = {}
        self._scopes: Optional[List[ScopeNode]] = None
        self._index: Optional[Dict[object, List[nodes.NodeNG]]] = None
        self._alias_map: Optional[Dict[str, FrozenSet[str]]] = None
        self._by_leaf: Optional[Dict[str, List[nodes.Call]]] = None
        self._facts: Dict[str, Any] = {}
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
        """Return the local function or method a call resolves to, if any."""
        callee = self.value(call.func)
        if callee is None:
            return None
        if callee.kind == FUNCTION:
            return callee.node
        if callee.kind == INSTANCE or (callee.kind == "class"):
            cls = callee.node
            method = self.dataflow.method(cls, "__call__" if callee.kind == INSTANCE else "__init__")
            return method
        return None

    # -- builds ---------------------------------------------------------------------

    def build_event(self, node: nodes.NodeNG) -> Optional[BuildEvent]:
        """Return how running ``node`` adds to the graph, or None if it does not."""
        key = id(node)
        if key not in self._build_events:
            self._build_events[key] = None  # cycle guard
            self._build_events[key] = self._compute_build_event(node)
        return self._build_events[key]

    def _compute_build_event(self, node: nodes.NodeNG) -> Optional[BuildEvent]:
        if isinstance(node, OPERATOR_NODES):
            return self._operator_event(node)
        if not isinstance(node, nodes.Call):
            return None
        site = self._direct_build_site(node)
        if site is not None:
            return BuildEvent(node, site)
        function = self.called_function(node)
        if function is None:
            return None
        summary = self.summary(function)
        if summary is None or not summary.builds:
            return None
        return self._best_helper_event(node, function, summary)

    def _operator_event(self, node: nodes.NodeNG) -> Optional[BuildEvent]:
        if isinstance(node, nodes.Subscript):
            operands = [node.value]
        elif isinstance(node, nodes.BinOp):
            operands = [node.left, node.right]
        elif isinstance(node, nodes.UnaryOp):
            if node.op == "not":
                return None
            operands = [node.operand]
        else:
            if not all(op in ("<", ">", "<=", ">=") for op, _ in node.ops):
                return None
            operands = [node.left, *(right for _, right in node.ops)]
        for operand in operands:
            value = self.value(operand)
            if value is not None and value.kind == TF and value.tensor:
                return BuildEvent(node, BuildSite(node, "operator", describe(node)))
        return None

    def _direct_build_site(self, call: nodes.Call) -> Optional[BuildSite]:
        callee = self.value(call.func)
        if callee is not None and callee.kind == MODULE and tfapi.is_tf_name(callee.api):
            api = callee.api
            if api in tfapi.SESSION_CLASSES:
                return BuildSite(call, api, describe(call), creates_session=True)
            if api == "tensorflow.get_variable" and self._in_reusing_scope(call):
                return None
            if tfapi.builds_ops(api):
                return BuildSite(call, api, describe(call))
            return None
        if callee is not None and callee.kind == TF and not self.dataflow.is_method_of_tf_object(call.func):
            return BuildSite(call, f"{callee.api}()", describe(call))
        if callee is not None and callee.kind == INSTANCE and self.called_function(call) is None:
            base = self._tf_base(callee.node)
            if base is not None:
                return BuildSite(call, f"{base}()", describe(call))
        func = call.func
        if isinstance(func, nodes.Attribute) and func.attrname in tfapi.OP_BUILDING_METHODS:
            receiver = self.value(func.expr)
            if receiver is not None and receiver.kind == TF:
                return BuildSite(call, f".{func.attrname}", describe(call))
        return None

    def _in_reusing_scope(self, node: nodes.NodeNG) -> bool:
        """Return whether ``node`` runs inside ``with tf.variable_scope(..., reuse=True|tf.AUTO_REUSE)``."""
        parent = node.parent
        while parent is not None and not isinstance(parent, (*FUNCTIONS, nodes.Module)):
            if isinstance(parent, (nodes.With, nodes.AsyncWith)):
                for context, _ in parent.items:
                    if isinstance(context, nodes.Call) and self.call_qualname(context) in tfapi.VARIABLE_SCOPES:
                        if any(k.arg == "reuse" and self._is_reuse_value(k.value) for k in context.keywords or ()):
                            return True
            parent = parent.parent
        return False

    def _is_reuse_value(self, value: nodes.NodeNG) -> bool:
        if isinstance(value, nodes.Const):
            return value.value is True
        return self.qualname(value) == "tensorflow.AUTO_REUSE"

    def built_once(self, node: nodes.NodeNG, boundary: nodes.NodeNG) -> bool:
        """Return whether ``node`` is a lazy initialisation inside ``boundary`` (a loop or function).

        ``if self.saver is None: self.saver = tf.train.Saver()``, ``if key not in
        cache: …``, and a function that first returns a cached value
        (``if key in cache: return cache[key]``) build once, not on every call.
        """
        child, parent = node, node.parent
        while parent is not None and parent is not boundary:
            if isinstance(parent, nodes.If):
                if child in parent.body and _tests_absence(parent.test):
                    return True
                if child in parent.orelse and _tests_presence(parent.test):
                    return True
            child, parent = parent, parent.parent
        if parent is boundary and isinstance(boundary, FUNCTIONS):
            for statement in boundary.body:
                if statement is child:
                    break
                if (
                    isinstance(statement, nodes.If)
                    and _tests_presence(statement.test, truthiness=True)
                    and statement.body
                    and isinstance(statement.body[-1], nodes.Return)
                ):
                    return True
        return False

    def _tf_base(self, cls: nodes.ClassDef, seen=None) -> Optional[str]:
        """Return the TF class (Keras Model or Layer) a local class derives from, if any."""
        seen = seen if seen is not None else set()
        if id(cls) in seen:
            return None
        seen.add(id(cls))
        for base in cls.bases:
            name = self.qualname(base)
            if name in tfapi.CALLABLE_BASES:
                return name
            value = self.value(base)
            if value is not None and value.kind == "class":
                owner = self.project.owner(value.node) if self.project is not None else None
                found = (owner or self)._tf_base(value.node, seen)
                if found is not None:
                    return found
        return None

    @staticmethod
    def _best_helper_event(call: nodes.Call, function, summary: FunctionSummary) -> BuildEvent:
        # Rules pick the most specific site among ``helper_events``; this is the first one.
        first = summary.builds[0]
        return BuildEvent(call, first.site, first.chain)

    def helper_events(self, event: BuildEvent) -> List[BuildEvent]:
        """Return every build site reachable from a helper-call event (just ``event`` for a direct one)."""
        if not event.chain:
            return [event]
        function = self.called_function(event.node)
        summary = self.summary(function) if function is not None else None
        if not summary:
            return [event]
        return [BuildEvent(event.node, inner.site, inner.chain) for inner in summary.builds]

    # -- runs -----------------------------------------------------------------------

    def run_event(self, node: nodes.NodeNG) -> Optional[RunEvent]:
        """Return how ``node`` runs the graph, or None if it does not."""
        if not isinstance(node, nodes.Call):
            return None
        key = id(node)
        if key not in self._run_events:
            self._run_events[key] = None
            self._run_events[key] = self._compute_run_event(node)
        return self._run_events[key]

    def _compute_run_event(self, call: nodes.Call) -> Optional[RunEvent]:
        func = call.func
        callee = self.value(func)
        if callee is not None:
            if callee.kind == RUNNER:
                return RunEvent(call, describe(call))
            if callee.kind == MODULE and callee.api in tfapi.GRAPH_RUN_FUNCTIONS:
                return RunEvent(call, describe(call))
        if isinstance(func, nodes.Attribute):
            method = func.attrname
            receiver = self.value(func.expr)
            kind = receiver.kind if receiver is not None else None
            keywords = {k.arg for k in call.keywords or ()}
            if method in ("run", "partial_run") and kind == SESSION:
                return RunEvent(call, f"{func.expr.as_string()}.{method}")
            if method in ("run", "eval") and kind == TF:
                return RunEvent(call, f"{func.expr.as_string()}.{method}")
            if method == "eval" and keywords & {"feed_dict", "session"}:
                return RunEvent(call, f"{func.expr.as_string()}.eval")
            if method == "load" and kind == TF and (len(call.args) >= 2 or "session" in keywords):
                return RunEvent(call, f"{func.expr.as_string()}.load")
            if method == "run" and kind is None and keywords & {"feed_dict", "options", "run_metadata"}:
                return RunEvent(call, f"{func.expr.as_string()}.run")
        function = self.called_function(call)
        if function is not None:
            summary = self.summary(function)
            if summary is not None and summary.run is not None:
                return RunEvent(call, describe(call), summary.run.chain)
        return None

    # -- loops ----------------------------------------------------------------------

    def loop_run(self, loop: nodes.NodeNG) -> Optional[RunEvent]:
        """Return the first graph run in each iteration of ``loop``; None if it is no session loop."""
        key = id(loop)
        if key not in self._session_loops:
            self._session_loops[key] = None
            found = None
            for node in self.iteration_nodes(loop):
                found = self.run_event(node)
                if found is not None:
                    break
            self._session_loops[key] = found
        return self._session_loops[key]

    def is_session_loop(self, loop: nodes.NodeNG) -> bool:
        """Return whether ``loop`` runs the graph on every iteration (directly or through helpers)."""
        return self.loop_run(loop) is not None

    @staticmethod
    def iteration_nodes(loop: nodes.NodeNG) -> Iterator[nodes.NodeNG]:
        """Yield the nodes evaluated on every iteration: the body, and a while loop's test."""
        roots = list(loop.body)
        if isinstance(loop, nodes.While):
            roots.insert(0, loop.test)
        yield from own_nodes(_Body(roots))

    def enclosing_loops(self, node: nodes.NodeNG) -> Iterator[nodes.NodeNG]:
        """Yield the loops (innermost first) whose iterations run ``node``, within its own scope."""
        child, parent = node, node.parent
        while parent is not None and not isinstance(parent, (*FUNCTIONS, nodes.Lambda, nodes.ClassDef, nodes.Module)):
            if isinstance(parent, LOOPS) and (child in parent.body or child is getattr(parent, "test", None)):
                yield parent
            child, parent = parent, parent.parent

    def session_loop_of(self, node: nodes.NodeNG) -> Optional[nodes.NodeNG]:
        """Return the innermost session loop that runs ``node`` on every iteration, if any."""
        for loop in self.enclosing_loops(node):
            if self.is_session_loop(loop):
                return loop
        return None

    def fresh_graph_before(self, node: nodes.NodeNG, boundary: nodes.NodeNG) -> bool:
        """Return whether, inside ``boundary`` (a loop or function), ``node`` runs on a fresh graph.

        True when it is inside ``with <graph made in boundary>.as_default():`` or
        comes after a ``tf.reset_default_graph()`` (or a helper that resets) in ``boundary``.
        """
        if isinstance(node, nodes.Call):
            for keyword in node.keywords or ():
                if keyword.arg == "graph" and self._is_fresh_graph(keyword.value, boundary):
                    return True
        child, parent = node, node.parent
        while parent is not None and parent is not boundary:
            if isinstance(parent, (nodes.With, nodes.AsyncWith)) and child in parent.body:
                if any(self._is_fresh_graph_context(ctx, boundary) for ctx, _ in parent.items):
                    return True
            child, parent = parent, parent.parent
        here = position(node)
        for other in own_nodes(_Body(boundary.body)):
            if isinstance(other, nodes.Call) and position(other) < here and self._resets_graph(other):
                return True
        return False

    def _is_fresh_graph_context(self, context: nodes.NodeNG, boundary: nodes.NodeNG) -> bool:
        if not (isinstance(context, nodes.Call) and isinstance(context.func, nodes.Attribute)):
            return False
        if context.func.attrname != "as_default":
            return False
        return self._is_fresh_graph(context.func.expr, boundary)

    def _is_fresh_graph(self, graph: nodes.NodeNG, boundary: nodes.NodeNG) -> bool:
        """Return whether ``graph`` is a ``tf.Graph()`` created inside ``boundary`` (each iteration or call)."""
        if isinstance(graph, nodes.Call):
            return self.call_qualname(graph) == "tensorflow.Graph"
        if isinstance(graph, nodes.Name):
            definitions = self.dataflow.definitions(graph, graph.name)
            return bool(definitions) and all(
                is_ancestor(boundary, d)
                and isinstance(d.parent, nodes.Assign)
                and self.call_qualname(d.parent.value) == "tensorflow.Graph"
                for d in definitions
            )
        return False

    def _resets_graph(self, call: nodes.Call) -> bool:
        if self.call_qualname(call) in tfapi.GRAPH_RESETS:
            return True
        function = self.called_function(call)
        if function is None:
            return False
        summary = self.summary(function)
        return summary is not None and summary.resets_graph

    # -- function summaries ---------------------------------------------------------

    def summary(self, function: nodes.NodeNG) -> Optional[FunctionSummary]:
        """Return what calling a local function does; None while it is being computed (recursion)."""
        key = id(function)
        if key in self._summaries:
            return self._summaries[key]
        if self.project is not None and function.root() is not self.module:
            owner = self.project.owner(function)
            return owner.summary(function) if owner is not None else None
        if ModuleAnalysis._summary_depth >= MAX_SUMMARY_NESTING:
            return None  # too deep to follow: unknown, and not memoised
        ModuleAnalysis._summary_depth += 1
        try:
            return self._compute_summary(function)
        finally:
            ModuleAnalysis._summary_depth -= 1

    def _compute_summary(self, function: nodes.NodeNG) -> FunctionSummary:
        key = id(function)
        self._summaries[key] = None
        summary = FunctionSummary()
        label = function_label(function)
        returns: List[Optional[Value]] = []
        seen_sites = set()
        for node in own_nodes(function):
            if isinstance(node, nodes.Return) and node.value is not None:
                returns.append(self.value(node.value))
            if isinstance(node, nodes.Call) and self.call_qualname(node) in tfapi.GRAPH_RESETS:
                summary.resets_graph = True
            if not summary.loops_over_steps and (
                (isinstance(node, LOOPS) and self.is_session_loop(node)) or self.calls_step_loop(node)
            ):
                summary.loops_over_steps = True
            run = self.run_event(node) if summary.run is None else None
            if run is not None and len(run.chain) < MAX_CALL_DEPTH:
                summary.run = RunEvent(run.node, run.display, (ChainLink(self.path, node.lineno, label), *run.chain))
            event = self.build_event(node)
            if event is None or len(event.chain) >= MAX_CALL_DEPTH or len(summary.builds) >= MAX_SUMMARY_BUILDS:
                continue
            # Builds inside the function's own session loops are reported there.
            if self.session_loop_of(node) is not None or self.fresh_graph_before(node, function):
                continue
            if self.built_once(node, function):
                continue
            for inner in self.helper_events(event):
                if id(inner.site.node) not in seen_sites:
                    seen_sites.add(id(inner.site.node))
                    chain = (ChainLink(self.path, node.lineno, label), *inner.chain)
                    summary.builds.append(BuildEvent(node, inner.site, chain))
        summary.returns = self.dataflow.combine(returns) if returns else None
        self._summaries[key] = summary
        return summary

    def calls_step_loop(self, node: nodes.NodeNG) -> bool:
        """Return whether ``node`` calls a function that runs the graph in a loop of its own."""
        if not isinstance(node, nodes.Call):
            return False
        function = self.called_function(node)
        if function is None:
            return False
        summary = self.summary(function)
        return summary is not None and summary.loops_over_steps

    def _function_return(self, function: nodes.NodeNG) -> Optional[Value]:
        summary = self.summary(function)
        return summary.returns if summary is not None else None


def _absence_checks(test: nodes.NodeNG) -> bool:
    if isinstance(test, nodes.BoolOp):
        return any(_absence_checks(v) for v in test.values)
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        return _presence_checks(test.operand)
    if isinstance(test, nodes.Compare) and len(test.ops) == 1:
        op, right = test.ops[0]
        return op == "not in" or (op in ("is", "==") and isinstance(right, nodes.Const) and right.value is None)
    return False


def _presence_checks(test: nodes.NodeNG, truthiness: bool = True) -> bool:
    if isinstance(test, nodes.BoolOp):
        return any(_presence_checks(v, truthiness) for v in test.values)
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        return _absence_checks(test.operand)
    if truthiness and isinstance(test, (nodes.Name, nodes.Attribute, nodes.Subscript)):
        return True
    if isinstance(test, nodes.Call) and isinstance(test.func, nodes.Name) and test.func.name == "hasattr":
        return True
    if isinstance(test, nodes.Compare) and len(test.ops) == 1:
        op, right = test.ops[0]
        return op == "in" or (op in ("is not", "!=") and isinstance(right, nodes.Const) and right.value is None)
    return False


def _tests_absence(test: nodes.NodeNG) -> bool:
    """``x is None``, ``not x``, ``k not in d``, ``not hasattr(o, n)``: true until something is cached."""
    return _absence_checks(test)


def _tests_presence(test: nodes.NodeNG, truthiness: bool = False) -> bool:
    """``x is not None``, ``k in d``, ``hasattr(o, n)`` (and plain ``x`` with ``truthiness``): true once cached."""
    return _presence_checks(test, truthiness)


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


class _Body:
    """A statement list walked like a scope body."""

    def __init__(self, body) -> None:
        self.body = body
