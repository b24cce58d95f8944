"""Simple, flow-insensitive local dataflow: what kind of object an expression holds.

No inference into TensorFlow: names are resolved through their assignments in
this module only (astroid's ``locals``), the way ruff resolves qualified names.
"""

from __future__ import annotations

import os
import re
from typing import Dict, List, Optional, Sequence

from astroid import nodes

from tfguard.static.analysis import tfapi
from tfguard.static.analysis.elements import iteration_element
from tfguard.static.analysis.inference import ParameterInference
from tfguard.static.analysis.library_callables import is_runner_factory
from tfguard.static.analysis.scopes import FUNCTIONS, position
from tfguard.static.analysis.star_imports import star_imported_value
from tfguard.static.analysis.values import (  # noqa: F401 - the kinds are read from here by the rules too
    CLASS,
    DATA,
    FUNCTION,
    GRAPH,
    INSTANCE,
    MODULE,
    PYMODULE,
    RUNNER,
    SESSION,
    TF,
    Value,
)

#: Deepest chain of expressions and bindings followed for one query; beyond it a value is unknown.
MAX_RESOLUTION_DEPTH = 120

_SESSION_PARAM = re.compile(r"(^|_)(sess|session)($|_|\d)", re.IGNORECASE)


_IN_PROGRESS = object()


class Dataflow:
    """Resolves names and expressions of one module to :class:`Value` s, memoised per node."""

    #: Nesting of ``value`` calls in progress, across modules (the analysis is single-threaded).
    _depth = 0

    def __init__(self, module: nodes.Module, path: str = "", project=None) -> None:
        self.module = module
        self.path = path
        #: The :class:`~tfguard.static.analysis.project.Project` used to follow imports, if any.
        self.project = project
        self._memo: Dict[int, object] = {}
        self._globals: Dict[tuple, object] = {}
        self._names: Dict[tuple, object] = {}
        self._instance_attrs: Dict[int, Dict[str, List[nodes.NodeNG]]] = {}
        #: Set by the module analysis: returns the Value a call to a local function returns.
        self.function_return = lambda function: None
        #: Set by the module analysis: returns the module's calls whose last written name is the given one.
        self.calls_with_leaf = lambda leaf: ()
        #: What parameters hold, from the call sites of their functions.
        self.inference = ParameterInference(self)

    # -- public API -----------------------------------------------------------------

    def value(self, expr: Optional[nodes.NodeNG]) -> Optional[Value]:
        """Return what ``expr`` holds, or None when unknown."""
        if expr is None:
            return None
        key = id(expr)
        cached = self._memo.get(key)
        if cached is _IN_PROGRESS:
            return None
        if key in self._memo:
            return cached  # type: ignore[return-value]
        if self.project is not None and expr.root() is not self.module:
            owner = self.project.owner(expr)
            return owner.dataflow.value(expr) if owner is not None else None
        if Dataflow._depth >= MAX_RESOLUTION_DEPTH:
            return None  # unknown, and not memoised: a shallower query may still resolve it
        self._memo[key] = _IN_PROGRESS
        Dataflow._depth += 1
        try:
            result = self._compute(expr)
        except BaseException:
            del self._memo[key]
            raise
        finally:
            Dataflow._depth -= 1
        self._memo[key] = result
        return result

    def qualname(self, expr: Optional[nodes.NodeNG]) -> Optional[str]:
        """Return the canonical TF name an expression refers to (``tensorflow.train.Saver``), if any."""
        value = self.value(expr)
        if value is not None and value.kind == MODULE:
            return value.api
        return None

    def definitions(self, node: nodes.NodeNG, name: str) -> Sequence[nodes.NodeNG]:
        """Return the nodes that bind ``name`` as seen from ``node`` (Python's scoping rules)."""
        scope = node.scope()
        first = True
        while scope is not None:
            if not (isinstance(scope, nodes.ClassDef) and not first):
                found = scope.locals.get(name)
                if found:
                    return found
            first = False
            parent = scope.parent
            scope = parent.scope() if parent is not None else None
        return ()

    def reaching_definition(self, name: nodes.Name) -> Optional[nodes.NodeNG]:
        """Return the binding of ``name`` that its use most likely sees: the last one above it.

        Bindings in the use's own scope whose statement starts before the use's
        statement are preferred (so in ``ds = ds.map(f)`` the right-hand ``ds`` is the
        previous ``ds``); a name bound only in an enclosing scope gets that scope's
        last binding.  Positions stand in for control flow.
        """
        bindings = self.definitions(name, name.name)
        if not bindings:
            return None
        scope = name.scope()
        here = position(name.statement())
        local = [b for b in bindings if b.scope() is scope]
        if local:
            earlier = [b for b in local if position(b.statement()) < here]
            return max(earlier, key=lambda b: position(b.statement())) if earlier else None
        return max(bindings, key=lambda b: position(b.statement()))

    def instance_attributes(self, cls: nodes.ClassDef) -> Dict[str, List[nodes.NodeNG]]:
        """Return ``self.X = …`` targets of every method of ``cls`` and its local bases, by name."""
        key = id(cls)
        if key not in self._instance_attrs:
            attrs: Dict[str, List[nodes.NodeNG]] = {}
            self._instance_attrs[key] = attrs
            for base in self.local_bases(cls):
                for name, targets in self.instance_attributes(base).items():
                    attrs.setdefault(name, []).extend(targets)
            for method in cls.body:
                if not isinstance(method, FUNCTIONS) or not method.args.args:
                    continue
                self_name = method.args.args[0].name
                for target in method.nodes_of_class(nodes.AssignAttr):
                    if isinstance(target.expr, nodes.Name) and target.expr.name == self_name:
                        attrs.setdefault(target.attrname, []).append(target)
        return self._instance_attrs[key]

    def local_bases(self, cls: nodes.ClassDef) -> List[nodes.ClassDef]:
        """Return the base classes of ``cls`` that are defined in this module."""
        bases = []
        for base in cls.bases:
            value = self.value(base)
            if value is not None and value.kind == CLASS and value.node is not cls:
                bases.append(value.node)
        return bases

    def method(self, cls: nodes.ClassDef, name: str, seen=None) -> Optional[nodes.NodeNG]:
        """Return the method ``name`` of a local class, looked up through local bases."""
        seen = seen or set()
        if id(cls) in seen:
            return None
        seen.add(id(cls))
        for node in cls.locals.get(name, ()):
            if isinstance(node, FUNCTIONS):
                return node
        for base in self.local_bases(cls):
            found = self.method(base, name, seen)
            if found is not None:
                return found
        return None

    def is_method_of_tf_object(self, func: nodes.NodeNG) -> bool:
        """Return whether ``func`` is ``obj.attr`` on a TF object (a method, not a callable layer)."""
        if not isinstance(func, nodes.Attribute):
            return False
        receiver = self.value(func.expr)
        return receiver is not None and receiver.kind == TF

    # -- computation ----------------------------------------------------------------

    def _compute(self, expr: nodes.NodeNG) -> Optional[Value]:
        if isinstance(expr, nodes.Name):
            return self._name_value(expr)
        if isinstance(expr, nodes.Attribute):
            return self._attribute(expr)
        if isinstance(expr, nodes.Call):
            return self._call(expr)
        if isinstance(expr, nodes.Subscript):
            base = self.value(expr.value)
            if base is not None and base.kind == DATA:
                return base  # an item of an array or of a run's result is data too
            if base is not None and base.kind == TF and _is_non_op_result(base):
                return None  # an item of what a non-op API returned (a list, a config object): not known
            if base is not None and base.kind == TF:
                if base.api.rsplit(".", 1)[-1] in tfapi.PAIR_LIST_METHODS:
                    return Value(TF, api=f"{base.api}[]", tensor=False)  # one (grad, var) pair
                return Value(TF, api=base.api, tensor=True)
            return None
        if isinstance(expr, nodes.BinOp):
            return self._operator_chain(expr)
        if isinstance(expr, nodes.AssignName) and isinstance(expr.parent, nodes.AugAssign):
            return self._name_value(expr)  # ``t`` in ``t += 1``: what it held before
        if isinstance(expr, nodes.UnaryOp):
            return None if expr.op == "not" else self._tensor_if_any(expr.operand)
        if isinstance(expr, nodes.Compare):
            return self._compare(expr)
        if isinstance(expr, nodes.IfExp):
            return self.combine([self.value(expr.body), self.value(expr.orelse)])
        if isinstance(expr, nodes.NamedExpr):
            return self.value(expr.value)
        if isinstance(expr, nodes.ListComp):
            return self._filtered_graph_list(expr)
        return None

    def _filtered_graph_list(self, expr: nodes.ListComp) -> Optional[Value]:
        """``[v for v in tf.trainable_variables() if 'target' in v.name]`` is a list of the same graph objects."""
        if len(expr.generators) != 1:
            return None
        generator = expr.generators[0]
        if not (isinstance(expr.elt, nodes.Name) and isinstance(generator.target, nodes.AssignName)
                and expr.elt.name == generator.target.name):
            return None
        inner = self.value(generator.iter)
        if inner is not None and inner.kind == TF and (
            inner.api in tfapi.VARIABLE_LISTS or inner.api in tfapi.GRAPH_OBJECT_LISTS
        ):
            return inner
        return None

    def _name_value(self, name: nodes.Name) -> Optional[Value]:
        # Every ``tf`` in a function resolves the same way: cache by (scope, name).
        key = (id(name.scope()), name.name)
        if key in self._names:
            cached = self._names[key]
            return None if cached is _IN_PROGRESS else cached  # type: ignore[return-value]
        self._names[key] = _IN_PROGRESS
        try:
            bindings = _without_self_updates(self.definitions(name, name.name))
            if bindings:
                result = self.combine([self._binding_value(d, name.name) for d in bindings])
            else:
                result = star_imported_value(self, name.name)
        except BaseException:
            del self._names[key]
            raise
        self._names[key] = result
        return result

    def _operator_chain(self, expr: nodes.BinOp) -> Optional[Value]:
        """``a + b + c + ...``: walk the left-nested chain without recursion, however long, memoising each link."""
        spine = [expr]
        while isinstance(spine[-1].left, nodes.BinOp) and id(spine[-1].left) not in self._memo:
            spine.append(spine[-1].left)
        result = self._tensor_if_any(spine[-1].left, spine[-1].right)
        for index in range(len(spine) - 2, -1, -1):
            self._memo[id(spine[index + 1])] = result
            if result is None:
                result = self._tensor_if_any(spine[index].right)
        return result

    def _tensor_if_any(self, *operands: nodes.NodeNG) -> Optional[Value]:
        for operand in operands:
            value = self.value(operand)
            if value is not None and value.kind == TF and value.tensor:
                return Value(TF, api=value.api, tensor=True)
        return None

    def _compare(self, expr: nodes.Compare) -> Optional[Value]:
        if all(op in ("<", ">", "<=", ">=") for op, _ in expr.ops):
            return self._tensor_if_any(expr.left, *(right for _, right in expr.ops))
        return None

    def _attribute(self, expr: nodes.Attribute) -> Optional[Value]:
        base = self.value(expr.expr)
        if base is None:
            return None
        if base.kind == MODULE:
            return Value(MODULE, api=tfapi.canonical(f"{base.api}.{expr.attrname}"))
        if base.kind == PYMODULE:
            return self._project_member(base.node, expr.attrname)
        if base.kind == INSTANCE:
            targets = self.instance_attributes(base.node).get(expr.attrname)
            if targets:
                return self.combine([self._binding_value(t) for t in targets])
            method = self.method(base.node, expr.attrname)
            return Value(FUNCTION, node=method) if method is not None else None
        if base.kind == CLASS:
            method = self.method(base.node, expr.attrname)
            return Value(FUNCTION, node=method) if method is not None else None
        if base.kind == SESSION and expr.attrname == "graph":
            return Value(GRAPH)
        if base.kind == TF:
            if expr.attrname in _STATIC_ATTRIBUTES:
                return Value(DATA, api=expr.attrname)  # ``t.shape[0]`` is a static dimension, not an op
            if _is_non_op_result(base):
                return None  # a field of what a non-op API returned (``mnist.test.images``): not known
            return Value(TF, api=f"{base.api}.{expr.attrname}")
        if base.kind == DATA:
            return base  # ``train_x.shape``, ``batch.labels``
        return None

    def _call(self, call: nodes.Call) -> Optional[Value]:
        func = call.func
        callee = self.value(func)
        if callee is not None:
            if callee.kind == MODULE:
                if is_runner_factory(callee.api) and not tfapi.is_tf_name(callee.api):
                    return Value(RUNNER, api=callee.api)  # ``U.function(inputs, outputs)``
                return self._tf_call(callee.api)
            if callee.kind == TF and not self.is_method_of_tf_object(func):
                return Value(TF, api=f"{callee.api}()", tensor=True)
            if callee.kind == FUNCTION:
                return self.function_return(callee.node)
            if callee.kind == CLASS:
                return Value(INSTANCE, node=callee.node)
        if isinstance(func, nodes.Attribute):
            receiver = self.value(func.expr)
            if receiver is not None:
                return self._method_result(receiver, func.attrname)
        return None

    @staticmethod
    def _tf_call(api: str) -> Optional[Value]:
        if api.startswith("numpy."):
            return Value(DATA, api=api)
        if not tfapi.is_tf_name(api):
            return None
        if tfapi.returns_data(api):
            return Value(DATA, api=api)
        if api in tfapi.SESSION_CLASSES or api in tfapi.SESSION_GETTERS:
            return Value(SESSION, api=api)
        if api in tfapi.GRAPH_FACTORIES:
            return Value(GRAPH, api=api)
        if api in tfapi.RUNNER_FACTORIES:
            return Value(RUNNER, api=api)
        return Value(TF, api=api, tensor=tfapi.returns_single_tensor(api))

    @staticmethod
    def _method_result(receiver: Value, method: str) -> Optional[Value]:
        if receiver.kind == SESSION:
            if method == "make_callable":
                return Value(RUNNER)
            if method in ("as_default", "__enter__"):
                return receiver
            if method == "run":
                return Value(DATA, api="Session.run")  # NumPy values
            return None
        if receiver.kind == GRAPH:
            if method in tfapi.GRAPH_LOOKUP_METHODS:
                return Value(TF, api=f"Graph.{method}", tensor=True)
            if method == "as_default":
                return receiver
            return None
        if receiver.kind == TF and method in tfapi.SESSION_MAKING_METHODS.get(receiver.api or "", ()):
            return Value(SESSION, api=f"{receiver.api}.{method}")  # ``sv.managed_session(server.target)``
        if receiver.kind == TF and method in tfapi.OP_BUILDING_METHODS:
            return Value(TF, api=f"{receiver.api}.{method}", tensor=method in tfapi.TENSOR_RETURNING_METHODS)
        return None

    @staticmethod
    def combine(values: Sequence[Optional[Value]]) -> Optional[Value]:
        """Merge the values of several bindings of one name: known only if they agree."""
        known = [v for v in values if v is not _NONE_CONSTANT]
        if not known or any(v is None for v in known):
            return None
        first = known[0]
        if all(v == first for v in known):
            return first
        kinds = {v.kind for v in known}
        if kinds == {TF}:
            return Value(TF, api=first.api, tensor=all(v.tensor for v in known))
        if kinds == {MODULE}:
            return first if len({v.api for v in known}) == 1 else None
        if len(kinds) == 1 and first.kind in (SESSION, GRAPH, RUNNER):
            return first
        return None

    # -- bindings -------------------------------------------------------------------

    def _binding_value(self, binding: nodes.NodeNG, name: str = "") -> Optional[Value]:
        if isinstance(binding, (nodes.Import, nodes.ImportFrom)):
            return self._import_value(binding, name)
        if isinstance(binding, FUNCTIONS):
            return Value(FUNCTION, node=binding)
        if isinstance(binding, nodes.ClassDef):
            return Value(CLASS, node=binding)
        if isinstance(binding, (nodes.AssignName, nodes.AssignAttr)):
            return self._target_value(binding)
        return None

    def _import_value(self, node: nodes.NodeNG, name: str) -> Optional[Value]:
        for imported, alias in node.names:
            if isinstance(node, nodes.ImportFrom):
                if (alias or imported) == name and imported != "*":
                    return self._from_import_value(node, imported)
            elif alias == name:
                return self._module_value(imported)
            elif alias is None and imported.split(".")[0] == name:
                return self._module_value(name)
        return None

    def _module_value(self, modname: str, level: int = 0) -> Optional[Value]:
        """The value of an imported module: a TF name, a project module, or an opaque name."""
        if not level and tfapi.is_tf_name(modname):
            return Value(MODULE, api=tfapi.canonical(modname))
        if self.project is not None:
            found = self.project.resolve(modname, self.module.file or self.path, level)
            if found is not None:
                analysis = self.project.analysis(found)
                return Value(PYMODULE, node=analysis.module) if analysis is not None else None
        return None if level else Value(MODULE, api=modname)

    def _from_import_value(self, node: nodes.ImportFrom, imported: str) -> Optional[Value]:
        if not node.level and tfapi.is_tf_name(node.modname):
            return Value(MODULE, api=tfapi.canonical(f"{node.modname}.{imported}"))
        source = self._module_value(node.modname, node.level)
        if source is not None and source.kind == PYMODULE:
            return self._project_member(source.node, imported, node.modname, node.level)
        if source is None and node.level and self.project is not None:
            return self._module_value(f"{node.modname}.{imported}" if node.modname else imported, node.level)
        return Value(MODULE, api=f"{node.modname}.{imported}") if not node.level else None

    def _project_member(self, module: nodes.Module, name: str, modname: str = "", level: int = 0) -> Optional[Value]:
        """The value of ``name`` in a project module: a global it defines, or its submodule."""
        owner = self.project.owner(module) if self.project is not None else None
        if owner is None:
            return None
        if name in module.locals:
            return owner.dataflow.global_value(name)
        if module.file and os.path.basename(module.file) == "__init__.py":
            found = self.project.resolve(name, module.file, 1)
            if found is not None:
                analysis = self.project.analysis(found)
                return Value(PYMODULE, node=analysis.module) if analysis is not None else None
        return None

    def global_value(self, name: str) -> Optional[Value]:
        """Return what the module-level name ``name`` of this module holds (None inside an import cycle)."""
        key = ("global", name)
        if key in self._globals:
            cached = self._globals[key]
            return None if cached is _IN_PROGRESS else cached  # type: ignore[return-value]
        self._globals[key] = _IN_PROGRESS
        result = self.combine([self._binding_value(d, name) for d in self.module.locals.get(name, ())])
        self._globals[key] = result
        return result

    def _target_value(self, target: nodes.NodeNG) -> Optional[Value]:
        parent = target.parent
        index_path: List[int] = []
        child = target
        while isinstance(parent, (nodes.Tuple, nodes.List, nodes.Starred)):
            if isinstance(parent, nodes.Starred):
                return None
            index_path.append(parent.elts.index(child))
            child, parent = parent, parent.parent
        if isinstance(parent, nodes.Assign):
            return self._unpacked(parent.value, list(reversed(index_path)))
        if isinstance(parent, (nodes.AnnAssign, nodes.NamedExpr)):
            return self.value(parent.value) if not index_path else None
        if isinstance(parent, nodes.AugAssign):
            return self._tensor_if_any(parent.value)
        if isinstance(parent, (nodes.With, nodes.AsyncWith)):
            for context, alias in parent.items:
                if alias is child:
                    return self._unpacked(context, list(reversed(index_path)))
            return None
        if isinstance(parent, nodes.Arguments):
            return self._parameter_value(target, parent)
        if isinstance(parent, (nodes.For, nodes.Comprehension)) and child is parent.target:
            return iteration_element(self, parent, list(reversed(index_path)))
        return None

    def _unpacked(self, expr: nodes.NodeNG, index_path: List[int]) -> Optional[Value]:
        for index in index_path:
            if isinstance(expr, (nodes.Tuple, nodes.List)):
                if index >= len(expr.elts) or any(isinstance(e, nodes.Starred) for e in expr.elts):
                    return None
                expr = expr.elts[index]
                continue
            value = self.value(expr)
            if value is not None and value.kind == DATA:
                return value
            if value is None or value.kind != TF or _is_non_op_result(value):
                return None
            if index in tfapi.unknown_item_positions(value.api):
                return Value(DATA, api="list")  # a list of lists: its items are not known to be tensors
            return Value(TF, api=value.api, tensor=index not in tfapi.list_item_positions(value.api))
        if isinstance(expr, nodes.Const) and expr.value is None:
            return _NONE_CONSTANT
        return self.value(expr)

    def _parameter_value(self, target: nodes.AssignName, arguments: nodes.Arguments) -> Optional[Value]:
        function = arguments.parent
        positional = list(arguments.posonlyargs or []) + list(arguments.args or [])
        if (
            isinstance(function, FUNCTIONS)
            and positional
            and positional[0] is target
            and isinstance(function.parent, nodes.ClassDef)
            and function.type == "method"
        ):
            return Value(INSTANCE, node=function.parent)
        if _SESSION_PARAM.search(target.name):
            return Value(SESSION, api="parameter")
        if isinstance(function, FUNCTIONS):
            inferred = self.inference.parameter_value(target, function)
            return inferred if isinstance(inferred, Value) else None
        return None

    def import_binding_value(self, node: nodes.NodeNG, name: str) -> Optional[Value]:
        """Return what the import ``node`` binds to ``name``."""
        return self._import_value(node, name)


_NONE_CONSTANT = Value("none")

#: Attributes of tensors and variables that are Python values (static shape, dtype, name), not ops.
_STATIC_ATTRIBUTES = frozenset({"shape", "dtype", "name", "ndim", "graph", "device", "op"})


def _is_non_op_result(value: Value) -> bool:
    """What a TF API that builds no op returned (``tf.train.get_checkpoint_state()``, a getter): no tensor to index."""
    api = value.api
    if value.tensor or not tfapi.is_tf_name(api) or tfapi.builds_ops(api):
        return False
    # lists of the graph's variables and tensors hold graph objects: their items are tensors
    return api not in tfapi.VARIABLE_LISTS and api not in tfapi.GRAPH_OBJECT_LISTS and tfapi.tf1_kind(api) != "getter"


def is_session_attribute(expr: nodes.NodeNG) -> bool:
    """Return whether ``expr`` is an attribute named like a session (``trainer.sess``, ``self.model.session``).

    ``trainer.sess.run(...)`` runs the graph even when the class of ``trainer`` is unknown.
    """
    return isinstance(expr, nodes.Attribute) and _SESSION_PARAM.search(expr.attrname) is not None


def _without_self_updates(bindings: Sequence[nodes.NodeNG]) -> Sequence[nodes.NodeNG]:
    """Leave out ``v = v + 1``, ``v = -v`` and ``v += 1`` when ``v`` has other bindings.

    An operator keeps what its operand is (a tensor stays a tensor, a number a number), so such
    a rebinding adds nothing the other bindings do not say, and following it would only loop back.
    """
    kept = [b for b in bindings if not _updates_itself(b)]
    return kept if kept and len(kept) < len(bindings) else bindings


def _updates_itself(binding: nodes.NodeNG) -> bool:
    if not isinstance(binding, nodes.AssignName):
        return False
    parent = binding.parent
    if isinstance(parent, nodes.AugAssign):
        return True
    if isinstance(parent, nodes.Assign) and _keeps_items_of(parent.value, binding.name):
        return True  # ``params = sorted(params, key=lambda v: v.name)``: the same items, reordered
    if not isinstance(parent, nodes.Assign) or not isinstance(parent.value, (nodes.BinOp, nodes.UnaryOp)):
        return False
    stack = [parent.value]  # no recursion: the operand may be a chain of hundreds of operators
    while stack:
        node = stack.pop()
        if isinstance(node, nodes.Name) and node.name == binding.name:
            return True
        stack.extend(node.get_children())
    return False


def _keeps_items_of(value: nodes.NodeNG, name: str) -> bool:
    """``sorted(name, ...)``, ``list(name)``, ``tuple(name)``, ``reversed(name)``: the items of ``name``."""
    return (isinstance(value, nodes.Call) and isinstance(value.func, nodes.Name)
            and value.func.name in ("sorted", "list", "tuple", "reversed") and bool(value.args)
            and isinstance(value.args[0], nodes.Name) and value.args[0].name == name)
