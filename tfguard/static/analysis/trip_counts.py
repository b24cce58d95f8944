"""Loops whose number of iterations is written in the code, and small enough to repeat nothing that matters.

``for case in [(2, 3), (4, 5)]:`` in a unit test or ``for i in range(3):`` builds a bounded handful of ops, saves
a handful of checkpoints, runs the graph a handful of times: the graph does not grow "on every iteration" of
a training loop.  Such a loop is no session loop when it, with every loop around it in the same function,
makes at most :data:`SMALL_TRIP_COUNT` iterations in all (DeepPerf draws the same line at literal ranges of
at most 10).  Only literals count: ``range(3)``, ``range(2, 8, 2)``, a list, tuple, set or dict display, and
``enumerate``/``zip``/``reversed``/``sorted`` of them; ``range(N)`` with a named constant is not followed.
"""

from __future__ import annotations

from typing import Optional

from astroid import nodes

from tfguard.static.analysis.scopes import FUNCTIONS, LOOPS

#: The most iterations (all enclosing literal loops multiplied) that still count as a bounded handful.
SMALL_TRIP_COUNT = 10

_WRAPPERS = ("enumerate", "reversed", "sorted", "list", "tuple")


def literal_trip_count(loop: nodes.NodeNG) -> Optional[int]:
    """Return how many times ``loop`` iterates when the code says so with literals, else None."""
    if isinstance(loop, nodes.While):
        return 0 if isinstance(loop.test, nodes.Const) and not loop.test.value else None
    return _length(getattr(loop, "iter", None))


def _length(iterable: Optional[nodes.NodeNG]) -> Optional[int]:
    if isinstance(iterable, (nodes.List, nodes.Tuple, nodes.Set)):
        if any(isinstance(e, nodes.Starred) for e in iterable.elts):
            return None
        return len(iterable.elts)
    if isinstance(iterable, nodes.Dict):
        return len(iterable.items) if all(k is not None for k, _ in iterable.items) else None
    if not (isinstance(iterable, nodes.Call) and isinstance(iterable.func, nodes.Name) and not iterable.keywords):
        return None
    name, args = iterable.func.name, iterable.args
    if name in ("range", "xrange"):
        return _range_length(args)
    if name in _WRAPPERS and len(args) == 1:
        return _length(args[0])
    if name == "zip" and args:
        lengths = [_length(a) for a in args]
        return None if any(n is None for n in lengths) else min(lengths)
    return None


def _range_length(bounds) -> Optional[int]:
    if not bounds or len(bounds) > 3 or not all(_is_int(b) for b in bounds):
        return None
    values = [_int(b) for b in bounds]
    start, stop, step = (0, values[0], 1) if len(values) == 1 else (*values[:2], values[2] if len(values) == 3 else 1)
    if step == 0:
        return None
    return len(range(start, stop, step))


def _is_int(node: nodes.NodeNG) -> bool:
    if isinstance(node, nodes.UnaryOp) and node.op == "-":
        node = node.operand
    return isinstance(node, nodes.Const) and type(node.value) is int


def _int(node: nodes.NodeNG) -> int:
    if isinstance(node, nodes.UnaryOp):
        return -node.operand.value
    return node.value


def repeats_a_bounded_handful(loop: nodes.NodeNG, limit: int = SMALL_TRIP_COUNT) -> bool:
    """Return whether ``loop`` and the loops around it (same function) make at most ``limit`` iterations."""
    total = 1
    node: Optional[nodes.NodeNG] = loop
    child = None
    while node is not None and not isinstance(node, (*FUNCTIONS, nodes.Lambda, nodes.ClassDef, nodes.Module)):
        if isinstance(node, LOOPS) and (child is None or child in node.body):
            count = literal_trip_count(node)
            if count is None:
                return False
            total *= count
            if total > limit:
                return False
        child, node = node, node.parent
    return True


#: The most iterations a rollout loop makes (A3C's ``t_max``, an n-step return): a loop bounded by a constant no
#: larger is part of one training step of the loop around it, not an epoch of steps.
ROLLOUT_TRIP_COUNT = 32


def constant_trip_count(loop: nodes.NodeNG) -> Optional[int]:
    """How many times ``loop`` iterates when the code says so with a literal or a module constant bound once
    to an int (``for _ in range(ROLLOUT):`` with ``ROLLOUT = 20``), else None."""
    count = literal_trip_count(loop)
    if count is not None or not isinstance(loop, (nodes.For, nodes.AsyncFor)):
        return count
    iterable = loop.iter
    if not (isinstance(iterable, nodes.Call) and isinstance(iterable.func, nodes.Name)
            and iterable.func.name in ("range", "xrange") and len(iterable.args) == 1 and not iterable.keywords):
        return None
    bound = iterable.args[0]
    if not isinstance(bound, nodes.Name):
        return None
    bindings = loop.root().locals.get(bound.name, [])
    if len(bindings) != 1 or not isinstance(bindings[0].parent, nodes.Assign) or not _is_int(bindings[0].parent.value):
        return None
    if any(isinstance(scope, FUNCTIONS) and bound.name in scope.locals for scope in _scopes_between(loop)):
        return None  # a local of the same name shadows the module constant
    return _int(bindings[0].parent.value)


def _scopes_between(node: nodes.NodeNG):
    scope = node.scope()
    while not isinstance(scope, nodes.Module):
        yield scope
        scope = scope.parent.scope()
