"""Objects and classes passed in: what a parameter holds, inferred from the call sites of its function.

``Runner(Net())`` makes ``net`` in ``Runner.__init__(self, net)`` a ``Net`` instance, and so ``self.net``;
``train(model_cls=Model)`` makes ``model_cls`` the class ``Model``.  Call sites are looked for in the
module that defines the function (so results do not depend on which other files happen to be parsed),
and a parameter is known only when every call site passes the same kind of value.

Where a parameter has no call site at all, a method called on it (``self.net.checkpoint(...)``) falls back
to the one class of the module and of the project modules it imports that defines a method of that name,
and only when that method builds or runs the graph (the caller checks that).

``dataflow`` parameters are the module's :class:`~tfguard.static.analysis.dataflow.Dataflow` (typed ``Any``: the
dataflow imports this module, not the other way round).
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional

from astroid import nodes

from tfguard.static.analysis.scopes import FUNCTIONS
from tfguard.static.analysis.values import CLASS, INSTANCE, PYMODULE, Value

#: More call sites than this: the parameter is left unknown (a utility called from everywhere).
MAX_CALL_SITES = 16

#: Marks a parameter whose function has no call site in its module.
NO_CALL_SITE = object()


class ParameterInference:
    """Infers parameters from call sites, for one module's :class:`~tfguard.static.analysis.dataflow.Dataflow`."""

    def __init__(self, dataflow: Any) -> None:
        self.dataflow = dataflow
        self._sites: Dict[int, Optional[List[nodes.Call]]] = {}
        self._methods: Optional[Dict[str, List[nodes.NodeNG]]] = None

    def parameter_value(self, target: nodes.AssignName, function: nodes.NodeNG) -> object:
        """Return the Value every call site passes for parameter ``target``, None, or :data:`NO_CALL_SITE`."""
        sites = self.call_sites(function)
        if sites is None:
            return None
        if not sites:
            return NO_CALL_SITE
        values: List[Optional[Value]] = []
        for call, skip in sites:
            argument = argument_for(call, function, target.name, skip)
            if argument is UNKNOWN_ARGUMENT:
                return None
            values.append(self.dataflow.value(argument) if argument is not None else None)
        return self.dataflow.combine(values)

    def call_sites(self, function: nodes.NodeNG) -> Optional[List[tuple]]:
        """Return ``(call, bound)`` for each call of ``function`` in its module; None when too many to trust.

        ``bound`` is True when the call passes no explicit ``self`` (``obj.method()``, ``Class()``).
        """
        key = id(function)
        if key in self._sites:
            return self._sites[key]
        self._sites[key] = []  # recursion guard: a call site inside the function's own arguments
        found: List[tuple] = []
        cls = function.parent if isinstance(function.parent, nodes.ClassDef) else None
        is_init = cls is not None and function.name == "__init__"
        leaf = cls.name if is_init else function.name
        parameters = {a.name for a in function.args.args or ()} if cls is None else set()
        for call in self.dataflow.calls_with_leaf(leaf):
            func = call.func
            if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) and \
                    func.expr.name in parameters and call.scope() is function:
                # ``critic.train(...)`` inside ``def train(sess, critic)``: a method of a parameter, not a call
                # of ``train`` itself; resolving it here would ask for this very parameter's call sites
                continue
            callee = self.dataflow.value(call.func)
            if callee is None:
                continue
            if is_init and callee.kind == "class" and callee.node is cls:
                found.append((call, True))
            elif not is_init and callee.kind == "function" and callee.node is function:
                found.append((call, cls is not None and _is_bound(call)))
            if len(found) > MAX_CALL_SITES:
                self._sites[key] = None
                return None
        self._sites[key] = found
        return found

    def unique_method(self, name: str) -> Optional[nodes.NodeNG]:
        """Return the method ``name`` when exactly one class here or in the project modules imported defines it.

        Classes defined or imported at module level count, and those of the project modules imported.
        """
        if self._methods is None:
            self._methods = {}
            for cls in self._known_classes():
                for method in cls.body:
                    if isinstance(method, FUNCTIONS):
                        self._methods.setdefault(method.name, []).append(method)
        found = self._methods.get(name, [])
        return found[0] if len(found) == 1 else None

    def _known_classes(self) -> Iterable[nodes.ClassDef]:

        # Module-level bindings only (``module.locals``): cheap, and where classes and imports live.
        seen = set()
        candidates: List[nodes.ClassDef] = []
        for name, bindings in self.dataflow.module.locals.items():
            for node in bindings:
                if isinstance(node, nodes.ClassDef):
                    candidates.append(node)
                elif isinstance(node, (nodes.Import, nodes.ImportFrom)):
                    value = self.dataflow.import_binding_value(node, name)
                    if value is None:
                        continue
                    if value.kind == CLASS:
                        candidates.append(value.node)
                    elif value.kind == PYMODULE:
                        candidates.extend(n for n in value.node.body if isinstance(n, nodes.ClassDef))
        for cls in candidates:
            if id(cls) not in seen:
                seen.add(id(cls))
                yield cls


#: What :func:`argument_for` returns for a call that passes ``*args`` or ``**kwargs``.
UNKNOWN_ARGUMENT = object()


def _is_bound(call: nodes.Call) -> bool:
    return isinstance(call.func, nodes.Attribute)


def argument_for(call: nodes.Call, function: nodes.NodeNG, name: str, bound: bool) -> object:
    """Return the expression ``call`` passes for parameter ``name`` (its default, or None), or UNKNOWN_ARGUMENT.

    ``bound``: the call passes no explicit ``self`` (``obj.method()``, ``Class()``).
    """
    arguments = function.args
    positional = list(arguments.posonlyargs or []) + list(arguments.args or [])
    if bound and function.type in ("method", "classmethod") and positional:
        positional = positional[1:]
    if any(isinstance(arg, nodes.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords or ()):
        return UNKNOWN_ARGUMENT
    names = [p.name for p in positional]
    if name in names:
        index = names.index(name)
        if index < len(call.args):
            return call.args[index]
    for keyword in call.keywords or ():
        if keyword.arg == name:
            return keyword.value
    default = _default_of(arguments, name)
    return default


def _default_of(arguments: nodes.Arguments, name: str) -> Optional[nodes.NodeNG]:
    positional = list(arguments.posonlyargs or []) + list(arguments.args or [])
    defaults = list(arguments.defaults or [])
    offset = len(positional) - len(defaults)
    for index, param in enumerate(positional):
        if param.name == name and index >= offset:
            return defaults[index - offset]
    for param, default in zip(arguments.kwonlyargs or [], arguments.kw_defaults or []):
        if param.name == name:
            return default
    return None


def uninferred_parameter(dataflow: Any, expr: nodes.NodeNG) -> bool:
    """Return whether ``expr`` is a parameter (or ``self.x`` set only from one) whose function has no call site.

    Such a receiver may get the unique-method fallback (:meth:`ParameterInference.unique_method`).
    """
    dataflow = _owner_dataflow(dataflow, expr)
    if dataflow is None:
        return False
    if isinstance(expr, nodes.Name):
        bindings = dataflow.definitions(expr, expr.name)
        return bool(bindings) and all(_is_uncalled_parameter(dataflow, binding) for binding in bindings)
    if isinstance(expr, nodes.Attribute) and isinstance(expr.expr, nodes.Name):

        owner = dataflow.value(expr.expr)
        if owner is None or owner.kind != INSTANCE:
            return False
        targets = dataflow.instance_attributes(owner.node).get(expr.attrname)
        if not targets:
            return False
        for target in targets:
            assign = target.parent
            if not (isinstance(assign, nodes.Assign) and isinstance(assign.value, nodes.Name)):
                return False
            if not uninferred_parameter(dataflow, assign.value):
                return False
        return True
    return False


def _is_uncalled_parameter(dataflow: Any, binding: nodes.NodeNG) -> bool:
    if not (isinstance(binding, nodes.AssignName) and isinstance(binding.parent, nodes.Arguments)):
        return False
    function = binding.parent.parent
    if not isinstance(function, FUNCTIONS):
        return False
    positional = list(binding.parent.posonlyargs or []) + list(binding.parent.args or [])
    if positional and positional[0] is binding and function.type in ("method", "classmethod"):
        return False
    return dataflow.inference.call_sites(function) == []


def _owner_dataflow(dataflow: Any, node: nodes.NodeNG) -> Optional[Any]:
    """Return the dataflow of the module ``node`` belongs to (call sites are looked for there)."""
    if node.root() is dataflow.module:
        return dataflow
    owner = dataflow.project.owner(node) if dataflow.project is not None else None
    return owner.dataflow if owner is not None else None
