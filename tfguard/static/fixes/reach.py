"""What a session loop can change besides the names its body binds: the facts that decide a hoist's safety.

The loop body is not the only place state changes: the functions and methods it calls may rebind module
globals (``global temperature``), store attributes (``self.temperature *= 0.5`` in ``sched.step()``) or fill a
container they are given (``rng.shuffle(buffer)``, ``np.copyto(buffer, x)``, a helper that writes
``out[...] = ...``).  :class:`LoopReach` follows the loop's calls into the project's functions and methods
(those :meth:`ModuleAnalysis.called_function` or the receiver's class resolve), a few calls deep, and records:

* names that *change* (no hoist can read them): globals rebound, containers mutated in place;
* attribute names stored by a reached method (``sched.temperature`` changes when ``step()`` stores
  ``self.temperature``);
* names that *may change* (a hoist reading them is unsafe): passed to, or called a method on, a call whose
  target tfguard cannot read (a library function, an unresolved method).
"""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Set

from astroid import nodes

from tfguard.static.analysis.dataflow import GRAPH, INSTANCE, RUNNER, SESSION, TF
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.scopes import FUNCTIONS, own_nodes

#: How many calls deep the loop's calls are followed into the project.
MAX_DEPTH = 4

#: Methods that change the object they are called on (lists, dicts, sets, NumPy arrays, deques...).
MUTATING_METHODS = frozenset({
    "append", "extend", "insert", "pop", "popitem", "update", "clear", "remove", "setdefault", "add",
    "discard", "sort", "reverse", "__setitem__", "__delitem__", "appendleft", "extendleft", "popleft",
    "rotate", "fill", "resize", "put", "itemset", "partition", "setflags", "intersection_update",
    "difference_update", "symmetric_difference_update",
})
#: Functions and methods that change their first argument in place, by the last name written.
MUTATES_FIRST_ARGUMENT = frozenset({
    "shuffle", "copyto", "put", "place", "putmask", "fill_diagonal", "heappush", "heappop", "heapify",
    "heapreplace", "heappushpop", "insort", "insort_left", "insort_right", "seed",
})
#: Calls that change none of their arguments: reading, printing, converting.
READ_ONLY_CALLS = frozenset({
    "print", "len", "int", "float", "str", "bool", "tuple", "list", "dict", "set", "frozenset", "range",
    "min", "max", "abs", "round", "sorted", "sum", "zip", "enumerate", "repr", "format", "isinstance",
    "hasattr", "getattr", "id", "hash", "type", "any", "all", "map", "filter", "reversed", "iter", "divmod",
})
#: Methods that read their receiver and arguments without changing them.
READ_ONLY_METHODS = frozenset({
    "format", "join", "split", "strip", "lower", "upper", "startswith", "endswith", "replace", "get", "keys",
    "values", "items", "copy", "count", "index", "mean", "sum", "std", "min", "max", "argmax", "argmin",
    "astype", "reshape", "tolist", "item", "info", "debug", "warning", "error", "write", "flush",
})


class LoopReach:
    """The changes a loop makes through what it calls (see the module docstring)."""

    def __init__(self, module: ModuleAnalysis, loop: nodes.NodeNG) -> None:
        self.module = module
        #: name -> why it changes (a hoist reading it is impossible).
        self.changed: Dict[str, str] = {}
        #: attribute name -> the method that stores it.
        self.stored_attributes: Dict[str, str] = {}
        #: name -> why it may change (a hoist reading it is unsafe).
        self.may_change: Dict[str, str] = {}
        self._seen: Set[int] = set()
        self._scan(list(_loop_nodes(loop)), depth=0, own=True)

    def _scan(self, body: List[nodes.NodeNG], depth: int, own: bool) -> None:
        for node in body:
            if isinstance(node, (nodes.Global, nodes.Nonlocal)) and not own:
                function = node.scope()
                for name in node.names:
                    if _assigned_in(function, name):
                        self.changed.setdefault(name, f"`{name}` is rebound by `{_name(function)}()`, "
                                                      "which the loop calls")
            elif isinstance(node, nodes.AssignAttr) and not own:
                self.stored_attributes.setdefault(node.attrname, _name(node.scope()))
            elif isinstance(node, nodes.Subscript) and node.ctx is not None and node.ctx.name in ("Store", "Del"):
                self._note_change(node.value, "is changed in place (`[...] =`)", own)
            elif isinstance(node, nodes.Call):
                self._call(node, depth, own)

    def _note_change(self, expr: nodes.NodeNG, why: str, own: bool) -> None:
        base = _base(expr)
        if base is None:
            return
        name, _ = base
        if own or not _is_local(expr, name):
            self.changed.setdefault(name, f"`{name}` {why}")

    def _call(self, call: nodes.Call, depth: int, own: bool) -> None:
        module = self.module
        func = call.func
        leaf = func.attrname if isinstance(func, nodes.Attribute) else func.name if isinstance(func, nodes.Name) else ""
        written = func.as_string()
        qualname = module.call_qualname(call)
        if qualname is not None and qualname.startswith("tensorflow"):
            return  # a TF call changes no Python value
        if isinstance(func, nodes.Attribute) and module.dataflow.is_method_of_tf_object(func):
            return  # dataset.shuffle(...), writer.add_summary(...), saver.save(...)
        if module.run_event(call) is not None:
            return  # sess.run(...) changes no Python value it is given
        for keyword in call.keywords or ():
            if keyword.arg == "out":
                self._note_change(keyword.value, f"is written by `{written}(out=...)`", own)
        if leaf in MUTATES_FIRST_ARGUMENT and call.args:
            self._note_change(call.args[0], f"is changed in place by `{written}()`", own)
        if isinstance(func, nodes.Attribute) and leaf in MUTATING_METHODS:
            self._note_change(func.expr, f"is changed in place by `.{leaf}()`", own)
            return
        if isinstance(func, nodes.Attribute):
            receiver = module.value(func.expr)
            if receiver is not None and receiver.kind in (SESSION, GRAPH, RUNNER, TF):
                return  # a method of a session, graph or TF object changes no Python value
        target = self._target(call)
        if target is not None:
            if depth < MAX_DEPTH and id(target) not in self._seen:
                self._seen.add(id(target))
                self._scan(list(own_nodes(target)), depth + 1, own=False)
            self._arguments_to(call, target, own)
            return
        if (isinstance(func, nodes.Name) and leaf in READ_ONLY_CALLS) or leaf in READ_ONLY_METHODS:
            return
        if not own:
            return  # what a helper passes to a library is about the helper's own values
        why = f"is passed to `{written}()`, which tfguard cannot read"
        for argument in [*call.args, *(k.value for k in call.keywords or ())]:
            for name in _names_in(argument):
                self.may_change.setdefault(name, f"`{name}` {why}")
        if isinstance(func, nodes.Attribute):
            base = _base(func.expr)
            if base is not None:
                self.may_change.setdefault(base[0], f"`{base[0]}` has `.{leaf}()` called on it, which tfguard "
                                                    "cannot read")

    def _target(self, call: nodes.Call) -> Optional[nodes.NodeNG]:
        """The project function or method ``call`` runs, if tfguard can tell."""
        module = self.module
        try:
            target = module.called_function(call)
        except Exception:  # noqa: BLE001 - an unresolvable call is an unknown one
            target = None
        if target is None and isinstance(call.func, nodes.Attribute):
            value = module.value(call.func.expr)
            if value is not None and value.kind == INSTANCE and isinstance(value.node, nodes.ClassDef):
                target = module.dataflow.method(value.node, call.func.attrname)
        return target if isinstance(target, FUNCTIONS) else None

    def _arguments_to(self, call: nodes.Call, target: nodes.NodeNG, own: bool) -> None:
        """A project function that changes a parameter in place changes what the caller passed."""
        parameters = [a.name for a in target.args.args or ()]
        if parameters and parameters[0] in ("self", "cls") and isinstance(call.func, nodes.Attribute):
            parameters = parameters[1:]
        mutated = _mutated_parameters(target)
        for position, argument in enumerate(call.args):
            if position < len(parameters) and parameters[position] in mutated:
                self._note_change(argument, f"is changed in place by `{_name(target)}()`, which the loop calls", own)
        for keyword in call.keywords or ():
            if keyword.arg in mutated:
                self._note_change(keyword.value, f"is changed in place by `{_name(target)}()`, which the loop calls",
                                  own)


def _loop_nodes(loop: nodes.NodeNG) -> Iterator[nodes.NodeNG]:
    """The nodes that run as the loop's own code: its test or iterable, body and else, no nested definitions."""
    for node in loop.nodes_of_class(nodes.NodeNG, skip_klass=(*FUNCTIONS, nodes.ClassDef, nodes.Lambda)):
        yield node


def _mutated_parameters(function: nodes.NodeNG) -> Set[str]:
    parameters = {a.name for a in function.args.args or ()} | {a.name for a in function.args.kwonlyargs or ()}
    found: Set[str] = set()
    for node in own_nodes(function):
        target = None
        if isinstance(node, nodes.Subscript) and node.ctx is not None and node.ctx.name in ("Store", "Del"):
            target = node.value
        elif isinstance(node, nodes.Call):
            func = node.func
            if isinstance(func, nodes.Attribute) and func.attrname in MUTATING_METHODS:
                target = func.expr
            elif _leaf(func) in MUTATES_FIRST_ARGUMENT and node.args:
                target = node.args[0]
            for keyword in node.keywords or ():
                if keyword.arg == "out" and isinstance(keyword.value, nodes.Name):
                    found.add(keyword.value.name)
        elif isinstance(node, nodes.AssignAttr) and isinstance(node.expr, nodes.Name):
            target = node.expr
        base = _base(target) if target is not None else None
        if base is not None and base[0] in parameters:
            found.add(base[0])
    return found - {"self", "cls"}


def _leaf(func: nodes.NodeNG) -> str:
    if isinstance(func, nodes.Attribute):
        return func.attrname
    return func.name if isinstance(func, nodes.Name) else ""


def _base(expr: nodes.NodeNG):
    """Return (name, expr) for the name at the root of ``a.b[1].c``, or None."""
    node = expr
    while isinstance(node, (nodes.Attribute, nodes.Subscript, nodes.AssignAttr, nodes.Starred)):
        node = node.value if isinstance(node, (nodes.Subscript, nodes.Starred)) else node.expr
    return (node.name, node) if isinstance(node, nodes.Name) else None


def _names_in(expr: nodes.NodeNG) -> List[str]:
    """The names an argument hands over (``buffer`` in ``buffer``, ``buffer[:4]``, ``(a, b)``)."""
    if isinstance(expr, (nodes.Tuple, nodes.List)):
        return [name for element in expr.elts for name in _names_in(element)]
    base = _base(expr)
    return [base[0]] if base is not None else []


def _is_local(expr: nodes.NodeNG, name: str) -> bool:
    """Whether ``name`` is a local of the function ``expr`` runs in (not a global it reaches)."""
    scope = expr.scope()
    if not isinstance(scope, FUNCTIONS):
        return False
    if any(isinstance(n, nodes.Global) and name in n.names for n in own_nodes(scope)):
        return False
    return name in scope.locals


def _assigned_in(function: nodes.NodeNG, name: str) -> bool:
    return any(isinstance(n, (nodes.AssignName, nodes.DelName)) and n.name == name for n in own_nodes(function))


def _name(function: nodes.NodeNG) -> str:
    parent = function.parent.frame() if function.parent is not None else None
    if isinstance(parent, nodes.ClassDef):
        return f"{parent.name}.{function.name}"
    return getattr(function, "name", "<lambda>")
