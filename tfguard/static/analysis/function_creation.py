"""Where a new ``tf.function`` (or a new Keras model) is made again and again, and when that is unavoidable.

A ``tf.function`` object keeps its graphs; a new one has none, so the first call of every new one traces.  A new
one is made each iteration when ``@tf.function def step`` or ``tf.function(f)`` sits in a loop's body, and on
every call of a function ``F`` that makes one and calls it (or returns it: a factory).  Such a trace is
unavoidable when the same iteration (or call of ``F``) also builds the objects the traced function works on (a
k-fold loop building a new model, optimizer or strategy per fold; a test helper given a new layer each time):
hoisting the function would not save the trace, since a new model needs one anyway, and a hoisted function
closing over ``model`` would keep the first model's variables.  Those are not reported.

Creations are cached, and not made again, when they are stored on an object or in a dict (``self._fn =
tf.function(...)``, ``cache[key] = ...``), made under an ``if ... is None`` / ``not in`` test, or made in a
function decorated with ``functools.lru_cache`` / ``cache``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Set, Tuple

from astroid import nodes

from tfguard.static.analysis.scopes import FUNCTIONS
from tfguard.static.analysis.tf_functions import TracedFunction, constructs_object, tf_functions

_CACHING_DECORATORS = frozenset({"lru_cache", "cache", "cached", "memoize", "cached_property"})
#: How deep functions defined beside the traced one are followed for the names they use.
_MAX_HELPER_DEPTH = 3


@dataclass(frozen=True)
class PerCallCreation:
    """A tf.function that a function makes on every call and then calls (or returns)."""

    traced: TracedFunction
    #: ``"calls"`` when the function calls it, ``"returns"`` when it hands it back (a factory).
    use: str


def creation_statement(traced: TracedFunction) -> nodes.NodeNG:
    """Return the node that makes ``traced`` each time it runs: the decorated ``def`` or the call."""
    if traced.function is not None and isinstance(traced.function, FUNCTIONS) and traced.creation.parent is not None \
            and isinstance(traced.creation.parent, nodes.Decorators):
        return traced.function
    return traced.creation


def is_cached(module, traced: TracedFunction) -> bool:
    """Return whether the creation is kept and reused rather than made again (see the module docstring)."""
    node = creation_statement(traced)
    if isinstance(node, nodes.Call):
        parent = node.parent
        if isinstance(parent, nodes.Assign) and any(
            isinstance(t, (nodes.AssignAttr, nodes.Subscript)) for t in parent.targets
        ):
            return True
    scope = node.parent
    while scope is not None and not isinstance(scope, (*FUNCTIONS, nodes.Module)):
        if isinstance(scope, nodes.If) and _tests_absence(scope.test):
            return True
        scope = scope.parent
    if isinstance(scope, FUNCTIONS) and scope.decorators is not None:
        for decorator in scope.decorators.nodes:
            target = decorator.func if isinstance(decorator, nodes.Call) else decorator
            leaf = target.attrname if isinstance(target, nodes.Attribute) else getattr(target, "name", "")
            if leaf in _CACHING_DECORATORS:
                return True
    if isinstance(node, FUNCTIONS) and _stored_on_object(node):
        return True
    return False


def _tests_absence(test: nodes.NodeNG) -> bool:
    for compare in test.nodes_of_class(nodes.Compare):
        for op, right in compare.ops:
            if op in ("not in", "in"):
                return True
            if op in ("is", "==") and isinstance(right, nodes.Const) and right.value is None:
                return True
    return isinstance(test, nodes.UnaryOp) and test.op == "not"


def _stored_on_object(function: nodes.NodeNG) -> bool:
    owner = function.parent
    for assign in owner.nodes_of_class(nodes.Assign):
        if isinstance(assign.value, nodes.Name) and assign.value.name == function.name and any(
            isinstance(t, (nodes.AssignAttr, nodes.Subscript)) for t in assign.targets
        ):
            return True
    return False


def per_call_creations(module, function: nodes.NodeNG) -> List[PerCallCreation]:
    """Return the tf.functions ``function`` makes on each call, uncached, and calls or returns."""
    found: List[PerCallCreation] = []
    if not isinstance(function, FUNCTIONS):
        return found
    facts = tf_functions(module)
    if facts.is_traced_body(function) or facts.inside_trace(function):
        return found
    for traced in facts.all():
        node = creation_statement(traced)
        if _owner_function(node) is not function or is_cached(module, traced):
            continue
        use = _use_in(facts, function, traced)
        if use is not None:
            found.append(PerCallCreation(traced, use))
    return found


def _owner_function(node: nodes.NodeNG) -> Optional[nodes.NodeNG]:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, (*FUNCTIONS, nodes.Lambda, nodes.ClassDef, nodes.Module)):
            return parent
        parent = parent.parent
    return None


def _use_in(facts, function: nodes.NodeNG, traced: TracedFunction) -> Optional[str]:
    for call in function.nodes_of_class(nodes.Call):
        if _owner_function(call) is function and facts.traced_of(call) is traced:
            return "calls"
    for ret in function.nodes_of_class(nodes.Return):
        if ret.value is None or _owner_function(ret) is not function:
            continue
        if ret.value is traced.creation:
            return "returns"
        if isinstance(traced.function, FUNCTIONS) and isinstance(ret.value, nodes.Name) \
                and ret.value.name == traced.function.name:
            return "returns"
    return None


def options_vary(traced: TracedFunction, owner: nodes.NodeNG) -> bool:
    """Whether the ``tf.function(...)`` options read names bound in ``owner`` (its parameters or locals): each
    creation is then a different function on purpose (``experimental_implements`` naming the call's seeds)."""
    creation = traced.creation
    if not isinstance(creation, nodes.Call):
        return False
    options = [k.value for k in creation.keywords or ()] + list(creation.args[1:])
    bound = set(owner.locals) if isinstance(owner, FUNCTIONS) else set()
    return any(n.name in bound for option in options for n in option.nodes_of_class(nodes.Name))


def fresh_objects(module, statements: List[nodes.NodeNG]) -> Set[str]:
    """Return the names that ``statements`` (a loop body, a function body) bind to a newly made object."""
    names: Set[str] = set()
    for statement in statements:
        for assign in _own(statement, nodes.Assign):
            if not constructs_object(module, assign.value) and not _tuple_of_objects(module, assign.value) \
                    and not _unknown_model_builder(module, assign.value):
                continue
            for target in assign.targets:
                names.update(n.name for n in target.nodes_of_class(nodes.AssignName))
    return names


#: Methods only a Keras model or layer has: a name bound from an unknown call and used so holds one.
_MODEL_METHODS = frozenset({"set_weights", "get_weights", "load_weights", "trainable_variables", "fit", "compile"})


def _unknown_model_builder(module, value: nodes.NodeNG) -> bool:
    """``model = make_model()`` where tfguard cannot read ``make_model``: it may well build a new model, and a
    fresh-state silence errs on the quiet side (it only ever silences)."""
    if not isinstance(value, nodes.Call):
        return False
    func = value.func
    leaf = func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", "")
    if module.value(func) is None and ("model" in leaf.lower() or "net" in leaf.lower().split("_")):
        return True
    # ``data_h, data_infer = get_random_hamiltonian(...)`` then ``data_h.set_weights(...)``: a Keras object made by
    # a call (read or not) in this iteration
    assign = value.parent
    bound = {n.name for t in getattr(assign, "targets", ()) for n in t.nodes_of_class(nodes.AssignName)}
    scope = assign.parent if assign is not None else None
    return bool(bound) and scope is not None and any(
        isinstance(a.expr, nodes.Name) and a.expr.name in bound and a.attrname in _MODEL_METHODS
        for a in scope.nodes_of_class(nodes.Attribute)
    )


def _tuple_of_objects(module, value: nodes.NodeNG) -> bool:
    return isinstance(value, nodes.Tuple) and any(constructs_object(module, e) for e in value.elts)


def _own(statement: nodes.NodeNG, kind: type) -> List[nodes.NodeNG]:
    found = [statement] if isinstance(statement, kind) else []
    stack = list(statement.get_children())
    while stack:
        node = stack.pop()
        if isinstance(node, (*FUNCTIONS, nodes.Lambda, nodes.ClassDef)):
            continue
        if isinstance(node, kind):
            found.append(node)
        stack.extend(node.get_children())
    return found


def used_names(function: Optional[nodes.NodeNG], siblings: Tuple[nodes.NodeNG, ...] = ()) -> Set[str]:
    """Return the free names ``function`` reads, with those of the functions beside it (``siblings``) it uses."""
    seen: Set[int] = set()
    names: Set[str] = set()
    stack = [(function, 0)] if function is not None else []
    by_name = {s.name: s for s in siblings if isinstance(s, FUNCTIONS)}
    while stack:
        current, depth = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        local = {n.name for n in current.nodes_of_class(nodes.AssignName)}
        for name in current.nodes_of_class(nodes.Name):
            if name.name in local:
                continue
            names.add(name.name)
            helper = by_name.get(name.name)
            if helper is not None and depth < _MAX_HELPER_DEPTH:
                stack.append((helper, depth + 1))
    return names


def object_parameters(function: nodes.NodeNG, traced_function: Optional[nodes.NodeNG]) -> Set[str]:
    """Return the parameters of ``function`` that ``traced_function`` (nested in it) uses as objects: calls them
    or reads their attributes (a layer, a model, a kernel handed in)."""
    if traced_function is None or not isinstance(function, FUNCTIONS):
        return set()
    params = {a.name for a in function.args.arguments} - {"self", "cls"}
    found: Set[str] = set()
    for node in traced_function.nodes_of_class((nodes.Call, nodes.Attribute)):
        target = node.func if isinstance(node, nodes.Call) else node.expr
        if isinstance(target, nodes.Name) and target.name in params:
            found.add(target.name)
    return found


def nested_functions(statements: List[nodes.NodeNG]) -> Tuple[nodes.NodeNG, ...]:
    """Return the functions defined directly in ``statements`` (or in their blocks)."""
    found: List[nodes.NodeNG] = []
    for statement in statements:
        if isinstance(statement, FUNCTIONS):
            found.append(statement)
            continue
        stack = list(statement.get_children())
        while stack:
            node = stack.pop()
            if isinstance(node, FUNCTIONS):
                found.append(node)
                continue
            if isinstance(node, (nodes.Lambda, nodes.ClassDef)):
                continue
            stack.extend(node.get_children())
    return tuple(found)


def analysis_of(module, node: nodes.NodeNG):
    """Return the ModuleAnalysis holding ``node``: ``module`` itself, or the project's analysis of its file."""
    if node.root() is module.module:
        return module
    project = getattr(module, "project", None)
    return project.owner(node) if project is not None else None
