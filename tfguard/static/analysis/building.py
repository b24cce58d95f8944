"""Graph-building events: which calls and operators add ops to the graph, and which build only once."""

from __future__ import annotations

from typing import List, Optional, Tuple

from astroid import nodes

from tfguard.static.analysis import tfapi
from tfguard.static.analysis.dataflow import INSTANCE, MODULE, TF
from tfguard.static.analysis.fact_types import BuildEvent, BuildSite, describe
from tfguard.static.analysis.scopes import FUNCTIONS

#: Expressions that add an op when an operand is a tensor (``a + b``, ``t[0]``, ``-t``, ``a < b``, ``t += 1``).
OPERATOR_NODES = (nodes.BinOp, nodes.UnaryOp, nodes.Subscript, nodes.Compare, nodes.AugAssign)


class GraphBuilding:
    """The build-event queries of :class:`~tfguard.static.analysis.module.ModuleAnalysis`.

    A mixin of the facade: it reads the core queries (``value``, ``qualname``, ``called_function``...) and
    the other concerns' queries through ``self``.
    """

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
        if summary is None or not summary.builds_for(node, function):
            return None
        return self._best_helper_event(node, function, summary)

    def _operator_event(self, node: nodes.NodeNG) -> Optional[BuildEvent]:
        if isinstance(node, nodes.AugAssign):
            if not isinstance(node.target, nodes.AssignName):
                return None
            operands = [node.target, node.value]
        elif isinstance(node, nodes.Subscript):
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
                    if self.none_default_guard(parent, boundary) is None:
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
                    and not _returns_a_build(self, statement.body[-1])
                ):
                    return True
        return False

    def none_default_guard(self, branch: nodes.If, function: nodes.NodeNG) -> Optional[Tuple[str, int]]:
        """Return (name, position) when ``branch`` tests a parameter of ``function`` that defaults to ``None``.

        ``def step(sess, train_op=None): if train_op is None: train_op = ...`` builds on every call that
        leaves ``train_op`` out: no cache, since the name does not outlive the call.
        """
        if not isinstance(function, FUNCTIONS):
            return None
        tested = _absence_tested_name(branch.test)
        if tested is None:
            return None
        arguments = function.args
        positional = list(arguments.posonlyargs or []) + list(arguments.args or [])
        defaults = list(arguments.defaults or [])
        with_defaults = positional[len(positional) - len(defaults):] if defaults else []
        for parameter, default in zip(with_defaults, defaults):
            if parameter.name == tested and isinstance(default, nodes.Const) and default.value is None:
                return parameter.name, positional.index(parameter)
        for parameter, default in zip(arguments.kwonlyargs or [], arguments.kw_defaults or []):
            if parameter.name == tested and isinstance(default, nodes.Const) and default.value is None:
                return parameter.name, -1
        return None

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

    def helper_events(self, event: BuildEvent) -> List[BuildEvent]:
        """Return every build site reachable from a helper-call event (just ``event`` for a direct one)."""
        if not event.chain:
            return [event]
        function = self.called_function(event.node)
        summary = self.summary(function) if function is not None else None
        if not summary:
            return [event]
        return [BuildEvent(event.node, inner.site, inner.chain) for inner in summary.builds_for(event.node, function)]


def _absence_tested_name(test: nodes.NodeNG) -> Optional[str]:
    """The plain name ``test`` checks for absence (``x is None``, ``not x``, ``x == None``), if that is all it does."""
    if isinstance(test, nodes.UnaryOp) and test.op == "not" and isinstance(test.operand, nodes.Name):
        return test.operand.name
    if isinstance(test, nodes.Compare) and len(test.ops) == 1 and isinstance(test.left, nodes.Name):
        op, right = test.ops[0]
        if op in ("is", "==") and isinstance(right, nodes.Const) and right.value is None:
            return test.left.name
    return None


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
    if isinstance(test, nodes.Call) and isinstance(test.func, nodes.Attribute) and test.func.attrname == "has_key":
        return True  # Python 2's ``cache.has_key(k)``: ``k in cache``
    if isinstance(test, nodes.Compare) and len(test.ops) == 1:
        op, right = test.ops[0]
        return op == "in" or (op in ("is not", "!=") and isinstance(right, nodes.Const) and right.value is None)
    return False


def _tests_absence(test: nodes.NodeNG) -> bool:
    """``x is None``, ``not x``, ``k not in d``, ``not d.has_key(k)``, ``not hasattr(o, n)``: true until cached."""
    return _absence_checks(test)


def _returns_a_build(analysis, statement: nodes.Return) -> bool:
    """``if detailed: return tf.summary.histogram(...)``: an early return of a new op is a branch, not a cache hit."""
    value = statement.value
    return value is not None and any(
        analysis.build_event(node) is not None for node in (value, *value.nodes_of_class(nodes.Call))
    )


def _tests_presence(test: nodes.NodeNG, truthiness: bool = False) -> bool:
    """``x is not None``, ``k in d``, ``hasattr(o, n)`` (and plain ``x`` with ``truthiness``): true once cached."""
    return _presence_checks(test, truthiness)
