"""Builds a helper makes only in one branch of an ``if`` on a parameter, and calls that never take that branch.

``def step(self, sess, batch, forward_only): ... if forward_only: fetch = tf.argmax(self.logits, 1)``
called as ``model.step(sess, batch, False)`` in a training loop never builds that op there; called with
``True`` from an evaluation loop it does.  A guard is an ``if P:`` / ``if not P:`` (``else`` branches
too, and what follows an ``if P: return`` in the same block) whose test is a plain parameter ``P`` the
function never rebinds; a call skips the branch when it passes a constant of the other truth value for
``P`` (by position or keyword) or leaves ``P`` at a constant default.  Anything else (a variable,
``*args``, ``**kwargs``) may take the branch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

from astroid import nodes

from tfguard.static.analysis.scopes import FUNCTIONS

_UNKNOWN = object()


@dataclass(frozen=True)
class BranchGuard:
    """The build runs only when parameter ``name`` (at ``position``, -1 for keyword-only) is ``truth``-y."""

    name: str
    position: int
    truth: bool
    default: object  # the default's constant value, or _UNKNOWN


def branch_guards(node: nodes.NodeNG, function: nodes.NodeNG) -> Tuple[BranchGuard, ...]:
    """Return the guards on parameters of ``function`` that the ``if`` statements around ``node`` set."""
    if not isinstance(function, FUNCTIONS):
        return ()
    found: List[BranchGuard] = []
    child, parent = node, node.parent
    while parent is not None:
        found.extend(_early_return_guards(function, child))
        if parent is function:
            break
        if isinstance(parent, nodes.If) and child is not parent.test:
            tested = _tested_parameter(parent.test)
            if tested is not None:
                name, truth = tested
                guard = _guard(function, name, truth if child in parent.body else not truth)
                if guard is not None:
                    found.append(guard)
        child, parent = parent, parent.parent
    return tuple(found)


def _early_return_guards(function: nodes.NodeNG, statement: nodes.NodeNG) -> List[BranchGuard]:
    """``if not verbose: return x`` above ``statement`` in the same block: it runs only when ``verbose``."""
    guards: List[BranchGuard] = []
    sibling = statement.previous_sibling() if statement.is_statement else None
    while sibling is not None:
        if isinstance(sibling, nodes.If) and not sibling.orelse and sibling.body and isinstance(
            sibling.body[-1], (nodes.Return, nodes.Raise)
        ):
            tested = _tested_parameter(sibling.test)
            if tested is not None:
                guard = _guard(function, tested[0], not tested[1])
                if guard is not None:
                    guards.append(guard)
        sibling = sibling.previous_sibling()
    return guards


def call_skips(call: nodes.Call, function: nodes.NodeNG, guards: Tuple[BranchGuard, ...]) -> bool:
    """Return whether ``call`` passes (or defaults) a constant that makes one of ``guards`` false."""
    if any(isinstance(arg, nodes.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords or ()):
        return False
    return any(_truth_of(call, function, guard) is (not guard.truth) for guard in guards)


def _truth_of(call: nodes.Call, function: nodes.NodeNG, guard: BranchGuard) -> Optional[bool]:
    for keyword in call.keywords or ():
        if keyword.arg == guard.name:
            return _constant_truth(keyword.value)
    position = guard.position
    is_method = isinstance(function.parent, nodes.ClassDef) and function.type == "method"
    through_class = isinstance(call.func, nodes.Attribute) and isinstance(call.func.expr, nodes.Name) and (
        call.func.expr.name == function.parent.name
    )  # ``Model.step(model, ...)`` writes ``self``
    if is_method and isinstance(call.func, nodes.Attribute) and not through_class and position >= 0:
        position -= 1  # ``obj.step(sess, batch, False)``: ``self`` is not written
    if 0 <= position < len(call.args):
        return _constant_truth(call.args[position])
    if guard.default is _UNKNOWN:
        return None
    return bool(guard.default)


def _constant_truth(expr: nodes.NodeNG) -> Optional[bool]:
    if isinstance(expr, nodes.Const):
        return bool(expr.value)
    return None


def _tested_parameter(test: nodes.NodeNG) -> Optional[Tuple[str, bool]]:
    if isinstance(test, nodes.Name):
        return test.name, True
    if isinstance(test, nodes.UnaryOp) and test.op == "not" and isinstance(test.operand, nodes.Name):
        return test.operand.name, False
    return None


def _guard(function: nodes.NodeNG, name: str, truth: bool) -> Optional[BranchGuard]:
    bindings = function.locals.get(name, ())
    if len(bindings) != 1 or not isinstance(bindings[0].parent, nodes.Arguments):
        return None  # not a parameter, or rebound in the body
    arguments = function.args
    positional = list(arguments.posonlyargs or []) + list(arguments.args or [])
    defaults = list(arguments.defaults or [])
    for index, parameter in enumerate(positional):
        if parameter.name == name:
            offset = index - (len(positional) - len(defaults))
            default = defaults[offset] if offset >= 0 else None
            return BranchGuard(name, index, truth, _default_value(default))
    for parameter, default in zip(arguments.kwonlyargs or [], arguments.kw_defaults or []):
        if parameter.name == name:
            return BranchGuard(name, -1, truth, _default_value(default))
    return None


def _default_value(default: Optional[nodes.NodeNG]) -> object:
    if isinstance(default, nodes.Const):
        return default.value
    return _UNKNOWN
