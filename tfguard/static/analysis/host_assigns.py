"""Assign ops built from host values in functions that run more than once (the facts behind TFG110).

``sess.run(v.assign(weights[i]))`` or ``tf.assign(v, np.load(path))`` in a ``load``/``set_weights``/``restore``
method builds an assign op *and a constant holding the value* each time the method runs: the graph grows by the
size of the model per call. The facts here say which assignments do that:

* the site: ``tf.assign`` / ``tf.assign_add`` / ``tf.assign_sub`` or ``.assign`` / ``.assign_add`` /
  ``.assign_sub`` on a TF variable, built in the function's own code (not in a session loop of the function,
  where TFG108 reports it, not under a lazy-init guard, not on a fresh graph);
* its value comes from the host (:func:`host_value`): a literal, a NumPy call, the result of a graph run, a
  parameter of the function or anything derived from them by subscripts, iteration and arithmetic, and never a
  value the dataflow knows to be a tensor;
* the function runs the graph itself (directly or through a helper), whoever made the session;
* the module does not call the function only once (:func:`~tfguard.static.analysis.per_call.call_pattern`):
  calls at module level, in ``__init__`` or ``main()`` only make it setup. ``__init__``, ``main`` and test
  functions are setup themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from astroid import nodes

from tfguard.static.analysis import tfapi
from tfguard.static.analysis.dataflow import SESSION, TF
from tfguard.static.analysis.elements import iteration_element
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.per_call import ONCE, call_pattern
from tfguard.static.analysis.scopes import FUNCTIONS, FunctionNode, function_label, own_nodes, owner_scope, position
from tfguard.static.analysis.tfapi import ASSIGN_APIS

ASSIGN_METHODS = frozenset({".assign", ".assign_add", ".assign_sub"})
_METHOD_NAMES = frozenset(name[1:] for name in ASSIGN_METHODS)
#: Builtins that turn a host value into another host value.
_HOST_BUILTINS = frozenset({"float", "int", "list", "tuple", "dict", "sorted", "reversed", "abs", "round"})
#: Calls whose result is host data read from a file (``pickle.load(f)``, ``h5py.File(p)[name]``, ``json.load``).
_HOST_LOADERS = ("numpy.", "pickle.", "cPickle.", "joblib.", "json.", "h5py.", "scipy.")
#: How many bindings deep a value is traced.
_MAX_DEPTH = 8


@dataclass(frozen=True)
class HostAssign:
    """An assignment from a host value, built on every call of ``function``."""

    node: nodes.Call
    function: FunctionNode
    #: The value expression as written (``weights[i]``).
    value: nodes.NodeNG
    #: What makes the value a host value, as prose: "the parameter `weights`".
    origin: str

    @property
    def label(self) -> str:
        """``Class.method`` or ``function``: how the finding names the function."""
        return function_label(self.function)


def host_assigns(module: ModuleAnalysis) -> List[HostAssign]:
    """Return the module's assignments from host values built on every call of a repeatable function."""
    return module.facts("host_assigns", _find)


def _find(module: ModuleAnalysis) -> List[HostAssign]:
    # Few calls are assignments: take the calls whose last written name is ``assign*`` from the module's index
    # and group them by function, so only those functions are looked at.
    by_function: Dict[int, Tuple[FunctionNode, List[nodes.Call]]] = {}
    for call in module.candidate_calls(ASSIGN_APIS, _METHOD_NAMES):
        scope = owner_scope(call)
        if isinstance(scope, FUNCTIONS) and not _is_setup(scope):
            by_function.setdefault(id(scope), (scope, []))[1].append(call)
    found: List[HostAssign] = []
    for function, calls in by_function.values():
        sites = [call for call in calls if _assign_site(module, call)]
        if not sites or not _runs_the_graph(module, function):
            continue
        candidates = []
        for site in sites:
            if module.session_loop_of(site) is not None:
                continue  # TFG108 reports assignments built in a loop that runs the graph
            if module.built_once(site, function) or module.fresh_graph_before(site, function):
                continue
            value = _assigned_value(module, site)
            origin = host_value(module, value, function) if value is not None else None
            if origin is not None:
                candidates.append(HostAssign(site, function, value, origin))
        if candidates and call_pattern(module, function) != ONCE:
            found.extend(candidates)
    found.sort(key=lambda assign: position(assign.node))
    return found


def _is_setup(function: FunctionNode) -> bool:
    name = function.name
    return name in ("__init__", "main", "build", "build_graph", "build_model") or name.startswith(("test", "setUp"))


def _assign_site(module: ModuleAnalysis, call: nodes.Call) -> bool:
    event = module.build_event(call)
    if event is None:
        func = call.func
        return (
            isinstance(func, nodes.Attribute) and f".{func.attrname}" in ASSIGN_METHODS
            and _zipped_variable(module, func.expr)
        )
    if event.chain:
        return False
    api = event.site.api
    return api in ASSIGN_APIS or api in ASSIGN_METHODS


def _zipped_variable(module: ModuleAnalysis, expr: nodes.NodeNG) -> bool:
    """``v`` in ``for v, w in zip(self.variables, weights)``, where ``self.variables`` is a list of variables."""
    if not isinstance(expr, nodes.Name):
        return False
    bindings = module.dataflow.definitions(expr, expr.name)
    if len(bindings) != 1 or not isinstance(bindings[0].parent, nodes.Tuple):
        return False
    target = bindings[0].parent
    loop = target.parent
    if not (isinstance(loop, (nodes.For, nodes.Comprehension)) and target is loop.target):
        return False
    iterable = loop.iter
    if not (isinstance(iterable, nodes.Call) and isinstance(iterable.func, nodes.Name) and iterable.func.name == "zip"):
        return False
    index = target.elts.index(bindings[0])
    if index >= len(iterable.args):
        return False
    listed = module.value(iterable.args[index])
    return listed is not None and listed.kind == TF and listed.api in tfapi.VARIABLE_LISTS


def _runs_the_graph(module: ModuleAnalysis, function: FunctionNode) -> bool:
    return any(isinstance(node, nodes.Call) and module.run_event(node) is not None for node in own_nodes(function))


def _assigned_value(module: ModuleAnalysis, call: nodes.Call) -> Optional[nodes.NodeNG]:
    """The value argument: ``tf.assign(ref, value)`` or ``ref.assign(value)``."""
    is_method = isinstance(call.func, nodes.Attribute) and module.call_qualname(call) not in ASSIGN_APIS
    index = 0 if is_method else 1
    if len(call.args) > index:
        return call.args[index]
    return next((k.value for k in call.keywords or () if k.arg == "value"), None)


def host_value(module: ModuleAnalysis, expr: nodes.NodeNG, function: FunctionNode, depth: int = 0) -> Optional[str]:
    """Return what makes ``expr`` (in ``function``) a host value, as prose; None when it may be a tensor.

    Host values: literals, NumPy (and pickle/JSON/h5py) calls, results of graph runs, parameters of ``function``
    (sessions and ``self`` aside) that the dataflow does not know to be tensors, and what subscripts,
    arithmetic, builtins and iteration derive from them.
    """
    if depth > _MAX_DEPTH:
        return None
    value = module.value(expr)
    if value is not None and value.kind in (TF, SESSION):
        return None
    if isinstance(expr, nodes.Const) and isinstance(expr.value, (int, float, bool)):
        return "a Python constant"
    if isinstance(expr, (nodes.List, nodes.Tuple)):
        origins = [host_value(module, e, function, depth + 1) for e in expr.elts]
        return "a Python list" if origins and all(origins) else None
    if isinstance(expr, nodes.Subscript):
        return host_value(module, expr.value, function, depth + 1)
    if isinstance(expr, nodes.BinOp):
        left = host_value(module, expr.left, function, depth + 1)
        right = host_value(module, expr.right, function, depth + 1)
        if left and right:
            return left if left != "a Python constant" else right
        return None
    if isinstance(expr, nodes.UnaryOp):
        return host_value(module, expr.operand, function, depth + 1)
    if isinstance(expr, nodes.Call):
        return _host_call(module, expr, function, depth)
    if isinstance(expr, nodes.Name):
        return _host_name(module, expr, function, depth)
    return None


def _host_call(module: ModuleAnalysis, call: nodes.Call, function: FunctionNode, depth: int) -> Optional[str]:
    run = module.run_event(call)
    if run is not None and not run.chain:
        return f"the result of `{run.display}`"
    name = module.qualname(call.func) or ""
    if name.startswith(_HOST_LOADERS):
        return f"`{name}()`, a host array" if name.startswith("numpy.") else f"`{name}()`, host data"
    func = call.func
    if isinstance(func, nodes.Name):
        if func.name in _HOST_BUILTINS and call.args:
            return host_value(module, call.args[0], function, depth + 1)
    if isinstance(func, nodes.Attribute) and func.attrname in ("astype", "reshape", "copy", "get", "pop"):
        return host_value(module, func.expr, function, depth + 1)  # ``w.astype(np.float32)``, ``weights.get(k)``
    return None


def _host_name(module: ModuleAnalysis, name: nodes.Name, function: FunctionNode, depth: int) -> Optional[str]:
    bindings = module.dataflow.definitions(name, name.name)
    if not bindings or any(not _in_function(binding, function) for binding in bindings):
        return None
    origins = [_binding_origin(module, binding, function, depth) for binding in bindings]
    return origins[0] if all(origins) else None


def _in_function(binding: nodes.NodeNG, function: FunctionNode) -> bool:
    scope = binding.scope()
    while scope is not None and scope is not function:
        if isinstance(scope, FUNCTIONS) or isinstance(scope, nodes.Module):
            return False
        scope = scope.parent.scope() if scope.parent is not None else None
    return scope is function


def _binding_origin(module: ModuleAnalysis, binding: nodes.NodeNG, function: FunctionNode, depth: int) -> Optional[str]:
    if not isinstance(binding, nodes.AssignName):
        return None
    parent = binding.parent
    if isinstance(parent, nodes.Arguments):
        return _parameter_origin(module, binding, function)
    if isinstance(parent, nodes.Assign):
        return host_value(module, parent.value, function, depth + 1)
    # ``for w in weights``, ``for v, w in zip(variables, weights)``, ``for i, w in enumerate(weights)``
    path: List[int] = []
    child = binding
    while isinstance(parent, (nodes.Tuple, nodes.List)):
        path.append(parent.elts.index(child))
        child, parent = parent, parent.parent
    if isinstance(parent, (nodes.For, nodes.Comprehension)) and child is parent.target:
        if iteration_element(module.dataflow, parent) is not None:
            return None  # ``for v in tf.trainable_variables()``: graph objects
        return _element_origin(module, parent.iter, list(reversed(path)), function, depth)
    if isinstance(parent, nodes.Assign):
        return host_value(module, parent.value, function, depth + 1)
    return None


def _element_origin(
    module: ModuleAnalysis, iterable: nodes.NodeNG, path: List[int], function: FunctionNode, depth: int
) -> Optional[str]:
    """Where an element taken from ``iterable`` at ``path`` (tuple positions) comes from."""
    if isinstance(iterable, nodes.Call) and isinstance(iterable.func, nodes.Name):
        builtin = iterable.func.name
        if builtin == "zip" and path and path[0] < len(iterable.args):
            return _element_origin(module, iterable.args[path[0]], path[1:], function, depth + 1)
        if builtin == "enumerate" and iterable.args:
            if path and path[0] == 0:
                return "a Python counter"
            if path and path[0] == 1:
                return _element_origin(module, iterable.args[0], path[1:], function, depth + 1)
            return None
        if builtin in ("range", "xrange"):
            return "a Python counter"
    if isinstance(iterable, nodes.Call) and isinstance(iterable.func, nodes.Attribute):
        if iterable.func.attrname in ("items", "values") and not iterable.args:
            if iterable.func.attrname == "items" and path and path[0] == 0:
                return "a Python key"
            return host_value(module, iterable.func.expr, function, depth + 1)
    if path:
        return None  # an unpacked element of something else: unknown
    return host_value(module, iterable, function, depth + 1)


def _parameter_origin(module: ModuleAnalysis, binding: nodes.AssignName, function: FunctionNode) -> Optional[str]:
    arguments = function.args
    positional = list(arguments.posonlyargs or []) + list(arguments.args or [])
    if positional and positional[0] is binding and isinstance(function.parent, nodes.ClassDef):
        return None  # ``self``
    lowered = binding.name.lower()
    if "sess" in lowered or lowered in ("graph", "scope", "name"):
        return None
    value = module.value(binding)
    if value is not None:
        return None  # the call sites pass something known (a tensor, an object): not a host value
    return f"the parameter `{binding.name}`"
