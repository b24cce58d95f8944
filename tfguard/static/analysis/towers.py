"""Per-device tower loops and the variables their towers create.

A *tower loop* is a ``for`` loop whose body enters ``tf.device(...)`` on a GPU
or on a device built from the loop variable, or a ``name_scope`` /
``variable_scope`` named from the loop variable (``'tower_%d' % i``).  Each
tower that calls ``tf.get_variable`` (directly or through a helper of this
module) needs variable reuse from the second tower on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

from astroid import nodes

from tfguard.static.analysis.devices import devices, is_literal_false
from tfguard.static.analysis.frequency import frequency
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.scopes import FUNCTIONS, function_label, is_ancestor, own_nodes, owner_scope, position
from tfguard.static.analysis.tfapi import NAME_OR_VARIABLE_SCOPES
from tfguard.static.finding import ChainLink

GET_VARIABLE = "tensorflow.get_variable"
_GET_VARIABLE = frozenset({GET_VARIABLE})
_VARIABLE_SCOPE = frozenset({"tensorflow.variable_scope"})
_TOWER_CONTEXTS = NAME_OR_VARIABLE_SCOPES | {"tensorflow.device"}
_MAX_DEPTH = 6


@dataclass(frozen=True)
class VariableCreation:
    """A call in a tower loop that reaches ``tf.get_variable`` at ``site`` through ``chain``."""

    node: nodes.Call
    site: nodes.Call
    chain: Tuple[ChainLink, ...]


class TowerAnalysis:
    """Finds tower loops and the unshared variable creations in them."""

    def __init__(self, module: ModuleAnalysis) -> None:
        self.module = module
        self.steps = frequency(module)

    def tower_loops(self) -> List[nodes.NodeNG]:
        """Return every tower loop of the module, in source order."""
        return [loop for loop in self.module.nodes_of(nodes.For) if self.is_tower_loop(loop)]

    def is_tower_loop(self, loop: nodes.For) -> bool:
        """Return whether ``loop`` builds one tower per iteration."""
        for node in self.steps.iteration_nodes(loop):
            if not isinstance(node, nodes.Call) or not node.args and not node.keywords:
                continue
            qualname = self.module.call_named(node, _TOWER_CONTEXTS)
            if qualname == "tensorflow.device":
                if devices(self.module).gpu_pin(node) or self._mentions_variant(node.args[:1], loop):
                    return True
            elif qualname in NAME_OR_VARIABLE_SCOPES and self._mentions_variant(_scope_name(node), loop):
                return True
        return False

    def unshared_creations(self, loop: nodes.For) -> List[VariableCreation]:
        """Return the calls in tower loop ``loop`` that create variables with no reuse in force."""
        if self._loop_reuses(loop):
            return []
        found: List[VariableCreation] = []
        for node in self.steps.iteration_nodes(loop):
            if not isinstance(node, nodes.Call) or self._shared_or_unique(node, loop):
                continue
            creation = self._creation(node, loop)
            if creation is not None:
                found.append(creation)
        return found

    # -- reuse ----------------------------------------------------------------------

    def _loop_reuses(self, loop: nodes.For) -> bool:
        """``reuse_variables()`` in the loop, or before it in the same function."""
        scope = owner_scope(loop) or self.module.module
        start = position(loop)
        for node in own_nodes(scope):
            if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute):
                if node.func.attrname == "reuse_variables" and (position(node) < start or is_ancestor(loop, node)):
                    return True
        return False

    def _shared_or_unique(self, node: nodes.NodeNG, loop: Optional[nodes.For]) -> bool:
        """An enclosing ``variable_scope(reuse=…)``, or one named from the loop variable."""
        parent = node.parent
        while parent is not None and not isinstance(parent, (*FUNCTIONS, nodes.Module)):
            if isinstance(parent, (nodes.With, nodes.AsyncWith)):
                for context, _ in parent.items:
                    if self.module.call_named(context, _VARIABLE_SCOPE) is None:
                        continue
                    reuse = next((k.value for k in context.keywords or () if k.arg == "reuse"), None)
                    if reuse is not None and not is_literal_false(reuse):
                        return True
                    per_tower = loop is not None and is_ancestor(loop, parent)
                    if per_tower and self._mentions_variant(_scope_name(context), loop):
                        return True
            parent = parent.parent
        return False

    def _mentions_variant(self, exprs, loop: nodes.For) -> bool:
        variant = self.steps.variant_names(loop)
        for expr in exprs:
            for sub in (expr, *expr.nodes_of_class((nodes.Name, nodes.Attribute))):
                if isinstance(sub, nodes.Name) and sub.name in variant:
                    return True
                if isinstance(sub, nodes.Attribute) and sub.as_string() in variant:
                    return True
        return False

    # -- creations ------------------------------------------------------------------

    def _creation(self, call: nodes.Call, loop: nodes.For) -> Optional[VariableCreation]:
        if self.module.call_named(call, _GET_VARIABLE):
            if self._mentions_variant(_variable_name(call), loop):
                return None
            return VariableCreation(call, call, ())
        function = self.module.called_function(call)
        if function is None:
            return None
        inner = self._first_site(function, 0, set(), _literal_parameters(call, function, frozenset()))
        if inner is None:
            return None
        site, chain = inner
        return VariableCreation(call, site, chain)

    def _first_site(
        self, function, depth: int, seen: set, literal_params: frozenset = frozenset()
    ) -> Optional[Tuple[nodes.Call, Tuple[ChainLink, ...]]]:
        """Return the first ``tf.get_variable`` a local function reaches without reuse, with its chain.

        Only a variable whose name is fixed — a string literal, or a parameter that
        every call on the way passed a string literal — collides in the next tower;
        a name computed at run time (``"W_%d" % self.count``) may be unique.
        """
        if depth > _MAX_DEPTH or id(function) in seen:
            return None
        seen.add(id(function))
        label = function_label(function)
        for node in own_nodes(function):
            if not isinstance(node, nodes.Call) or self._shared_or_unique(node, None):
                continue
            if isinstance(node.func, nodes.Attribute) and node.func.attrname == "reuse_variables":
                return None
            link = ChainLink(self.module.path, node.lineno, label)
            if self.module.call_named(node, _GET_VARIABLE):
                if _fixed_name(_variable_name(node), literal_params):
                    return node, (link,)
                continue
            callee = self.module.called_function(node)
            if callee is not None:
                inner = self._first_site(callee, depth + 1, seen, _literal_parameters(node, callee, literal_params))
                if inner is not None:
                    return inner[0], (link, *inner[1])
        return None


def _is_fixed_string(expr: nodes.NodeNG, literal_params: frozenset) -> bool:
    if isinstance(expr, nodes.Const):
        return isinstance(expr.value, str)
    return isinstance(expr, nodes.Name) and expr.name in literal_params


def _fixed_name(names: List[nodes.NodeNG], literal_params: frozenset) -> bool:
    return bool(names) and all(_is_fixed_string(name, literal_params) for name in names)


def _literal_parameters(call: nodes.Call, callee: nodes.NodeNG, literal_params: frozenset) -> frozenset:
    """Return the parameters of ``callee`` that ``call`` binds to fixed strings."""
    params = [a.name for a in (callee.args.posonlyargs or []) + (callee.args.args or [])]
    if params and isinstance(callee.parent, nodes.ClassDef) and isinstance(call.func, nodes.Attribute):
        params = params[1:]  # bound method: ``self`` is not passed explicitly
    fixed = set()
    for param, arg in zip(params, call.args):
        if _is_fixed_string(arg, literal_params):
            fixed.add(param)
    for keyword in call.keywords or ():
        if keyword.arg and _is_fixed_string(keyword.value, literal_params):
            fixed.add(keyword.arg)
    defaults = callee.args.defaults or []
    for param, default in zip(params[len(params) - len(defaults):], defaults):
        given = params.index(param) < len(call.args) or any(k.arg == param for k in call.keywords or ())
        if not given and _is_fixed_string(default, frozenset()):
            fixed.add(param)
    return frozenset(fixed)


def _scope_name(call: nodes.Call) -> List[nodes.NodeNG]:
    names = list(call.args[:1])
    names.extend(k.value for k in call.keywords or () if k.arg in ("name_or_scope", "name", "default_name"))
    return names


def _variable_name(call: nodes.Call) -> List[nodes.NodeNG]:
    return list(call.args[:1]) + [k.value for k in call.keywords or () if k.arg == "name"]
