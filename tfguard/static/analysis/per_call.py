"""Per-call graph building: functions that build ops and run a graph that outlives the call.

A ``predict()`` / ``classify()`` / request handler that builds an op and runs it on a session that outlives the
call (``self.sess`` made in ``__init__``, a module-level session, ``K.get_session()``, or a session made in the
function on the *default* graph) adds ops to the same graph on every call, although no loop of the project is in
sight: the loop is the web server's, the notebook's or the user's. The facts here say which functions do that:

* what the function builds: its :class:`~tfguard.static.analysis.fact_types.FunctionSummary` ``builds`` (lazy-init
  guards, fresh graphs and the function's own session loops already left out), session creations aside;
* whether it runs a long-lived session directly (:func:`long_lived_session`);
* whether it looks called once per input (:func:`takes_per_call_input`): a request handler (``@app.route``), or
  a run fed with something derived from its parameters (or, on a session it makes itself, fetching something
  built from them) — a function that takes no input of its own, such as a model's ``init_variables(self)``, is
  usually setup and left alone;
* how the module calls it (:func:`call_pattern`): only once (module level, ``if __name__ == "__main__":``,
  ``__init__``, ``main()``, or a function itself only called once) makes it setup; a call in a loop leaves it to
  the session-loop rules (TFG1xx), which report at that call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Set, Tuple

from astroid import nodes

from tfguard.static.analysis import tfapi
from tfguard.static.analysis.dataflow import GRAPH, INSTANCE, SESSION
from tfguard.static.analysis.fact_types import BuildEvent, RunEvent
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.scopes import FUNCTIONS, FunctionNode, function_label, own_nodes, owner_scope, position
from tfguard.static.analysis.tfapi import APP_RUNNERS, PLAIN_SESSIONS

#: Decorators that register a request handler (Flask, FastAPI, Bottle, Sanic, aiohttp...): called per request.
_HANDLER_DECORATORS = frozenset({"route", "get", "post", "put", "delete", "api_route", "websocket", "endpoint"})
#: Call patterns (:func:`call_pattern`).
ONCE, IN_LOOP, UNKNOWN = "once", "loop", "unknown"
#: Session methods that run the graph.
_RUN_METHODS = frozenset({"run", "partial_run"})
#: How many callers deep "only called once" is followed.
_MAX_CALLER_DEPTH = 4


@dataclass(frozen=True)
class LongLivedSession:
    """A session that outlives a call of the function that runs it."""

    #: How it outlives the call, as prose: "`self.sess`, set in `Classifier.__init__`".
    description: str
    #: Made in the function itself, on the default graph (not an object's or the module's session).
    made_here: bool = False
    #: Kept by a closure: a parameter of an enclosing function, so every call of the closure runs the same
    #: session (``make_loader(sess)`` returning ``load(path)``).
    captured: bool = False


@dataclass(frozen=True)
class PerCallBuilder:
    """A function that adds ``builds`` to a long-lived graph on each call and runs it with ``run``."""

    function: FunctionNode
    builds: Tuple[BuildEvent, ...]
    run: RunEvent
    session: LongLivedSession

    @property
    def label(self) -> str:
        """``Class.method`` or ``function``: how the finding names the function."""
        return function_label(self.function)


def per_call_builders(module: ModuleAnalysis) -> List[PerCallBuilder]:
    """Return the module's functions that build ops on every call of a long-lived graph, in source order."""
    return module.facts("per_call_builders", _find)


def _find(module: ModuleAnalysis) -> List[PerCallBuilder]:
    # Most functions call no ``.run``: group the module's ``.run(...)`` calls by function first (from the
    # module's index), so only those functions get a summary.
    runs: Dict[int, Tuple[FunctionNode, List[nodes.Call]]] = {}
    for call in module.candidate_calls(frozenset(), _RUN_METHODS):
        scope = owner_scope(call)
        if _is_run_call(call) and isinstance(scope, FUNCTIONS):
            runs.setdefault(id(scope), (scope, []))[1].append(call)
    found = []
    for function, calls in sorted(runs.values(), key=lambda item: position(item[0])):
        builder = _per_call_builder(module, function, calls)
        if builder is not None:
            found.append(builder)
    return found


def _per_call_builder(
    module: ModuleAnalysis, function: FunctionNode, calls: List[nodes.Call]
) -> Optional[PerCallBuilder]:
    """The per-call builder ``function`` is, given its own ``.run(...)`` calls, or None.

    The function's summary (what it builds) is the costly part: it is asked for last.
    """
    if function.name in ("__init__", "main") or function.name.startswith("test") or _in_test_case(function):
        return None  # setup, the script's driver, a test: each runs once (a TestCase gets a fresh graph per test)
    if any(module.session_loop_of(call) is not None for call in calls):
        return None  # a step loop of its own: setup plus training, not per-call growth
    found = None
    for call in calls:
        run = module.run_event(call)
        if run is None or run.chain:
            continue
        session = long_lived_session(module, function, call)
        if session is not None and session.captured and not _escapes(function):
            continue  # called only inside the function that holds the session: as often as that function is
        if session is not None and takes_per_call_input(module, function, call, session.made_here or session.captured):
            found = (run, session)
            break
    if found is None or call_pattern(module, function) != UNKNOWN:
        return None
    summary = module.summary(function)
    if summary is None or summary.loops_over_steps or summary.resets_graph:
        return None
    builds = tuple(event for event in summary.builds if not event.site.creates_session)
    return PerCallBuilder(function, builds, *found) if builds else None


def _escapes(function: FunctionNode) -> bool:
    """Whether a nested function leaves the function that defines it (returned, passed to a call, stored): its
    callers are elsewhere (``load = make_loader(sess)`` then ``map(load, files)``). One only called where it is
    defined runs as often as that function, whose session is a parameter: who calls it is not known (silence)."""
    enclosing = function.parent.scope() if function.parent is not None else None
    if not isinstance(enclosing, FUNCTIONS):
        return False
    for name in enclosing.nodes_of_class(nodes.Name):
        if name.name != function.name or name.scope() is not enclosing:
            continue
        if isinstance(name.parent, nodes.Call) and name.parent.func is name:
            continue
        return True
    return False


def _is_run_call(call: nodes.Call) -> bool:
    return isinstance(call.func, nodes.Attribute) and call.func.attrname in _RUN_METHODS


# -- the session ---------------------------------------------------------------------------------------------


def long_lived_session(module: ModuleAnalysis, function: FunctionNode, run: nodes.Call) -> Optional[LongLivedSession]:
    """Return how the session ``run`` (a ``sess.run(...)`` in ``function``) outlives the call, or None.

    Long-lived: ``self.<attr>`` assigned only in other methods of the class, a name bound at module level or in
    an enclosing function, ``K.get_session()`` / ``tf.get_default_session()``, or a ``tf.Session()`` made in the
    function without a graph of its own (on the default graph, which is the process's). Parameters and
    anything unresolved are not: silence.
    """
    if not _is_run_call(run):
        return None
    receiver = run.func.expr
    value = module.value(receiver)
    if value is None or value.kind != SESSION:
        return None
    if isinstance(receiver, nodes.Call):
        return _made_session(module, function, receiver)
    if isinstance(receiver, nodes.Attribute):
        return _attribute_session(module, function, receiver)
    if isinstance(receiver, nodes.Name):
        return _name_session(module, function, receiver)
    return None


def _attribute_session(
    module: ModuleAnalysis, function: FunctionNode, receiver: nodes.Attribute
) -> Optional[LongLivedSession]:
    owner = module.value(receiver.expr)
    if owner is None or owner.kind != INSTANCE or not isinstance(receiver.expr, nodes.Name):
        return None
    targets = module.dataflow.instance_attributes(owner.node).get(receiver.attrname, [])
    if not targets:
        return None
    if any(owner_scope(target) is function for target in targets):
        return _bound_here(module, function, targets)
    places = sorted({function_label(scope) for scope in map(owner_scope, targets) if scope is not None})
    where = ", ".join(f"`{place}`" for place in places) or "the class"
    return LongLivedSession(f"`{receiver.as_string()}`, set in {where}")


def _name_session(module: ModuleAnalysis, function: FunctionNode, receiver: nodes.Name) -> Optional[LongLivedSession]:
    bindings = module.dataflow.definitions(receiver, receiver.name)
    if not bindings:
        return None
    if all(binding.scope() is not function for binding in bindings):
        scope = bindings[0].scope()
        if isinstance(scope, nodes.Module):
            return LongLivedSession(f"`{receiver.name}`, a module-level session")
        if isinstance(scope, FUNCTIONS):
            if isinstance(bindings[0].parent, nodes.Arguments):
                return LongLivedSession(f"`{receiver.name}`, passed to the enclosing `{scope.name}()` and kept by "
                                        "the closure", captured=True)
            return LongLivedSession(f"`{receiver.name}`, a session of the enclosing `{scope.name}()`")
        return None
    return _bound_here(module, function, bindings)


def _bound_here(module: ModuleAnalysis, function: FunctionNode, bindings) -> Optional[LongLivedSession]:
    """The session of bindings made in ``function``: long-lived only if every one is."""
    described = None
    for binding in bindings:
        if owner_scope(binding) is not function:
            return None
        made = _binding_session(module, function, binding)
        if made is None:
            return None
        described = described or made
    return described


def _binding_session(
    module: ModuleAnalysis, function: FunctionNode, binding: nodes.NodeNG
) -> Optional[LongLivedSession]:
    parent = binding.parent
    if isinstance(parent, nodes.Assign) and isinstance(parent.value, nodes.Call):
        return _made_session(module, function, parent.value)
    if isinstance(parent, (nodes.With, nodes.AsyncWith)):
        for context, alias in parent.items:
            if alias is binding and isinstance(context, nodes.Call):
                return _made_session(module, function, context)
    return None


def _made_session(module: ModuleAnalysis, function: FunctionNode, call: nodes.Call) -> Optional[LongLivedSession]:
    """How the session a call in ``function`` returns outlives the call: a getter, or one on the default graph."""
    api = module.call_qualname(call)
    if api in tfapi.SESSION_GETTERS:
        return LongLivedSession(f"`{call.func.as_string()}()`, the process's session")
    if api not in PLAIN_SESSIONS:
        return None
    if any(k.arg is None for k in call.keywords or ()):
        return None
    keyword = next((k.value for k in call.keywords or () if k.arg == "graph"), None)
    graph = call.args[1] if len(call.args) >= 2 else keyword
    if graph is not None:
        kept = _long_lived_graph(module, function, graph)
        if kept is None:
            return None
        return LongLivedSession(f"`{call.func.as_string()}()` made here on {kept}", made_here=True)
    if module.fresh_graph_before(call, function):
        return None
    return LongLivedSession(f"`{call.func.as_string()}()` made here on the default graph", made_here=True)


def _long_lived_graph(module: ModuleAnalysis, function: FunctionNode, graph: nodes.NodeNG) -> Optional[str]:
    """How the graph a session is made on outlives the call, as prose, or None (made here, or unknown).

    ``tf.Session(graph=graph)`` with ``graph = tf.Graph()`` at module level, or ``graph=self.graph`` set in
    ``__init__``: every call builds on that same graph.
    """
    value = module.value(graph)
    if value is None or value.kind != GRAPH:
        return None
    if isinstance(graph, nodes.Name):
        bindings = module.dataflow.definitions(graph, graph.name)
        if bindings and all(isinstance(b.scope(), nodes.Module) for b in bindings):
            return f"the module-level graph `{graph.name}`"
        return None
    if isinstance(graph, nodes.Attribute) and isinstance(graph.expr, nodes.Name):
        owner = module.value(graph.expr)
        if owner is None or owner.kind != INSTANCE:
            return None
        targets = module.dataflow.instance_attributes(owner.node).get(graph.attrname, [])
        if targets and all(owner_scope(target) is not function for target in targets):
            return f"`{graph.as_string()}`, a graph the object keeps"
    return None


# -- per-call input ------------------------------------------------------------------------------------------


def takes_per_call_input(module: ModuleAnalysis, function: FunctionNode, run: nodes.Call, own_session: bool) -> bool:
    """Return whether ``function`` looks called once per input: a request handler (``@app.route(...)``), or
    ``run``'s feed dict holds something derived from the function's own parameters (``self`` and sessions aside).

    A fetch derived from a parameter counts only when the function makes its session itself (a utility that
    computes something of its input, like ``read_tensor_from_image_file(name)``) or is a closure over a
    session of its enclosing function (``load(path)`` returned by ``make_loader(sess)``, mapped over a file
    list: the closure exists to be called per item): on a session of the object,
    ``reinitialize_weights(self, scope)`` takes configuration, not data, and is usually called once.
    """
    if _is_request_handler(function):
        return True
    inputs = run.args[1:2] + [k.value for k in run.keywords or () if k.arg == "feed_dict"]
    if own_session:
        inputs += run.args[:1] + [k.value for k in run.keywords or () if k.arg == "fetches"]
    if not inputs:
        return False
    derived = _parameter_derived_names(function)
    return any(name.name in derived for expr in inputs for name in _names_in(expr))


def _is_request_handler(function: FunctionNode) -> bool:
    decorators = function.decorators.nodes if function.decorators is not None else []
    for decorator in decorators:
        if isinstance(decorator, nodes.Call) and isinstance(decorator.func, nodes.Attribute):
            if decorator.func.attrname in _HANDLER_DECORATORS:
                return True
    return False


def _parameter_derived_names(function: FunctionNode) -> Set[str]:
    args = function.args
    parameters = [*(args.posonlyargs or []), *(args.args or []), *(args.kwonlyargs or [])]
    if parameters and isinstance(function.parent, nodes.ClassDef) and function.type in ("method", "classmethod"):
        parameters = parameters[1:]
    names = {p.name for p in parameters if not _looks_like_session(p.name)}
    names.update(n for n in (args.vararg, args.kwarg) if n)
    if not names:
        return names
    assignments = [node for node in own_nodes(function) if isinstance(node, (nodes.Assign, nodes.AugAssign, nodes.For))]
    changed = True
    while changed:
        changed = False
        for node in assignments:
            source = node.iter if isinstance(node, nodes.For) else node.value
            if not any(n.name in names for n in _names_in(source)):
                continue
            targets = [node.target] if isinstance(node, (nodes.For, nodes.AugAssign)) else node.targets
            for target in targets:
                for bound in target.nodes_of_class(nodes.AssignName):
                    if bound.name not in names:
                        names.add(bound.name)
                        changed = True
    return names


def _names_in(expr: nodes.NodeNG) -> List[nodes.Name]:
    return [expr] if isinstance(expr, nodes.Name) else list(expr.nodes_of_class(nodes.Name))


def _looks_like_session(name: str) -> bool:
    lowered = name.lower()
    return lowered in ("sess", "session") or lowered.startswith(("sess_", "session_")) or lowered.endswith("_sess")


# -- how the module calls the function ------------------------------------------------------------------------


def call_pattern(module: ModuleAnalysis, function: FunctionNode, depth: int = 0) -> str:
    """Return how the module calls ``function``: ONCE, IN_LOOP (some call repeats) or UNKNOWN.

    ONCE when it has calls and each is at module level (``if __name__ == "__main__":`` included), in
    ``__init__``, in ``main()``, or in a function itself only called once, never inside a loop or a
    comprehension; ``tf.app.run(main=f)`` counts as one call. IN_LOOP when one call repeats (the session-loop
    rules report that call). UNKNOWN when it is never called here (a handler, an API called from elsewhere) or
    only from functions whose callers are unknown.
    """
    memo: Dict[Tuple[int, int], str] = module.facts("per_call_patterns", lambda _: {})
    key = (id(function), depth)
    if key not in memo:
        memo[key] = UNKNOWN  # recursion: unknown
        memo[key] = _call_pattern(module, function, depth)
    return memo[key]


def _call_pattern(module: ModuleAnalysis, function: FunctionNode, depth: int) -> str:
    sites = _call_sites(module, function)
    if not sites:
        return UNKNOWN
    patterns = [_site_pattern(module, site, depth) for site in sites]
    if IN_LOOP in patterns:
        return IN_LOOP
    return ONCE if all(p == ONCE for p in patterns) else UNKNOWN


def _call_sites(module: ModuleAnalysis, function: FunctionNode) -> List[nodes.Call]:
    """The module's calls of ``function``; for a method, also ``x.name(...)`` on receivers not resolved (a
    parameter ``model`` may well be an instance): counting them can only make the pattern ONCE or IN_LOOP."""
    method = isinstance(function.parent, nodes.ClassDef)
    sites = []
    for call in module.candidate_calls(frozenset(), frozenset({function.name})):
        callee = module.called_function(call)
        if callee is function or (
            callee is None and method and isinstance(call.func, nodes.Attribute) and module.value(call.func) is None
        ):
            sites.append(call)
    for call in module.calls_to(APP_RUNNERS):
        for argument in [*call.args, *(k.value for k in call.keywords or ())]:
            value = module.value(argument)
            if value is not None and value.node is function:
                sites.append(call)
    return sites


def _site_pattern(module: ModuleAnalysis, call: nodes.Call, depth: int) -> str:
    if next(module.enclosing_loops(call), None) is not None or _in_comprehension(call):
        return IN_LOOP
    scope = owner_scope(call)
    if scope is None:
        return UNKNOWN
    if isinstance(scope, nodes.Module) or scope.name in ("__init__", "main") or _is_test(scope):
        return ONCE
    if depth >= _MAX_CALLER_DEPTH:
        return UNKNOWN
    # Called once per call of its caller: as often as the caller is (in a loop too, where the session-loop
    # rules report the caller's call).
    return call_pattern(module, scope, depth + 1)


def in_unit_test(node: nodes.NodeNG) -> bool:
    """Whether ``node`` is in a test function or a test case's method (at any depth of nested functions)."""
    scope = node.scope()
    while isinstance(scope, FUNCTIONS):
        if _is_test(scope):
            return True
        scope = scope.parent.scope() if scope.parent is not None else None
    return False


def _is_test(function: FunctionNode) -> bool:
    """A test function or a test case's method: the test runner calls it once."""
    return function.name.startswith(("test", "setUp")) or _in_test_case(function)


def _in_test_case(function: FunctionNode) -> bool:
    """Whether ``function`` is a method of a class deriving from a ``...TestCase`` (``tf.test.TestCase`` resets the
    default graph before each test, so what a test helper builds does not pile up)."""
    cls = function.parent.frame() if function.parent is not None else None
    if not isinstance(cls, nodes.ClassDef):
        return False
    return any(base.as_string().endswith("TestCase") for base in cls.bases)


def _in_comprehension(node: nodes.NodeNG) -> bool:
    parent = node.parent
    while parent is not None and not isinstance(parent, (*FUNCTIONS, nodes.Module)):
        if isinstance(parent, (nodes.ListComp, nodes.SetComp, nodes.DictComp, nodes.GeneratorExp)):
            return True
        parent = parent.parent
    return False
