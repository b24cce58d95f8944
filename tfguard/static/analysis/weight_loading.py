"""Loops over a model's parts that load weights: one assign per variable, bounded by the model, not by time.

``for name, value in weights.items(): sess.run(tf.get_variable(name).assign(value))`` (a ``.npy`` weight dict
loaded into a VGG) runs the graph on every iteration, but its iterations are the model's variables: each
builds the one assign that variable needs, as building them all once would.  Such a loop is no session loop
(issue 32, item 10); a loop around it that runs every step still is, and so is a call of its function from one.

A weight-loading loop: every graph run directly in its iterations fetches an assign (``v.assign(w)``,
``tf.assign(v, w)``) or is a ``v.load(w, sess)``, and each assigned variable is new per iteration: a name the
loop takes from a list of variables (``for v, w in zip(tf.trainable_variables(), values)``), or bound in the
iteration by a lookup that reads the loop's own names (``var = tf.get_variable(param_name)``).
"""

from __future__ import annotations

from typing import Optional, Set

from astroid import nodes

from tfguard.static.analysis.scopes import Body, is_ancestor, own_nodes
from tfguard.static.analysis.variable_lists import is_variable_list

#: Methods that assign a value to their receiver variable.
_ASSIGN_METHODS = frozenset({"assign", "load"})
#: Lookups of a variable (or its tensor) by name.
_LOOKUPS = frozenset({"get_variable", "get_tensor_by_name", "get_operation_by_name", "Variable"})


def loads_model_parts(module, loop: nodes.NodeNG, first=None) -> bool:
    """Return whether ``loop`` (a ``for`` loop) only assigns each of a model's variables once per iteration, or
    loops over the parts of one part (``for data in weights[op_name]``) inside such a loop."""
    if not isinstance(loop, nodes.For):
        return False
    if first is not None and (not isinstance(first.node, nodes.Call) or _assigned_variable(first.node) is None):
        return False  # cheap first: the loop's first run (``first``, a RunEvent) assigns nothing
    if _loads_parts(module, loop):
        return True
    reads = {n.name for n in (loop.iter, *loop.iter.nodes_of_class(nodes.Name)) if isinstance(n, nodes.Name)}
    for outer in module.enclosing_loops(loop):
        names = {n.name for n in outer.target.nodes_of_class(nodes.AssignName)} if isinstance(
            outer, nodes.For) else set()
        if reads & names and _loads_parts(module, outer):
            return True
    return False


def _loads_parts(module, loop: nodes.For) -> bool:
    cache = module.facts("model_part_loops", lambda _: {})
    key = id(loop)
    if key not in cache:
        cache[key] = False  # a cycle guard
        cache[key] = _compute_loads_parts(module, loop)
    return cache[key]


def _compute_loads_parts(module, loop: nodes.For) -> bool:
    body = list(own_nodes(Body(list(loop.body))))
    targets: Set[str] = set()
    iterated_variables: Set[str] = set()
    for inner in [loop, *(n for n in body if isinstance(n, nodes.For))]:
        # a nested loop over the parts' parts (``self.data[op_name].items()``) counts when its iterable reads
        # this loop's names; one that does not (the whole model, on every step) makes the same assigns again
        reads = {n.name for n in inner.iter.nodes_of_class(nodes.Name)}
        if inner is not loop and not reads & targets:
            continue
        names = {n.name for n in inner.target.nodes_of_class(nodes.AssignName)}
        targets |= names
        if is_variable_list(module, inner.iter):
            iterated_variables |= names
    runs = 0
    for node in body:
        if not isinstance(node, nodes.Call) or module.run_event(node) is None:
            continue
        if module.called_function(node) is not None:
            return False  # a helper's runs: not read here
        variable = _assigned_variable(node)
        if variable is None or not _new_per_iteration(variable, loop, targets, iterated_variables):
            return False
        runs += 1
    return runs > 0


def _assigned_variable(run: nodes.Call) -> Optional[nodes.NodeNG]:
    """The variable ``sess.run(v.assign(w))``, ``sess.run(tf.assign(v, w))`` or ``v.load(w, sess)`` assigns."""
    func = run.func
    if isinstance(func, nodes.Attribute) and func.attrname == "load":
        return func.expr
    fetch = run.args[0] if run.args else None
    if not isinstance(fetch, nodes.Call) or not isinstance(fetch.func, nodes.Attribute):
        return None
    if fetch.func.attrname in _ASSIGN_METHODS:
        receiver = fetch.func.expr
        if isinstance(receiver, nodes.Name) and receiver.name in ("tf", "tf1", "tensorflow"):
            return fetch.args[0] if fetch.args else None  # tf.assign(v, w)
        return receiver
    return None


def _new_per_iteration(variable: nodes.NodeNG, loop: nodes.For, targets: Set[str], iterated: Set[str]) -> bool:
    if isinstance(variable, nodes.Call):
        return _lookup_of(variable, targets, loop)
    if not isinstance(variable, nodes.Name):
        return False
    if variable.name in iterated:
        return True
    bindings = [a for a in variable.lookup(variable.name)[1] if is_ancestor(loop, a)]
    return bool(bindings) and all(_bound_by_lookup(a, targets, loop) for a in bindings)


def _bound_by_lookup(assignment: nodes.NodeNG, targets: Set[str], loop: nodes.For) -> bool:
    statement = assignment.parent
    return isinstance(statement, nodes.Assign) and isinstance(statement.value, nodes.Call) and _lookup_of(
        statement.value, targets, loop)


def _lookup_of(call: nodes.Call, targets: Set[str], loop: nodes.For) -> bool:
    """``tf.get_variable(param_name)``: a lookup whose arguments read one of the loop's names."""
    func = call.func
    name = func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", "")
    if name not in _LOOKUPS:
        return False
    arguments = [*call.args, *(k.value for k in call.keywords or ())]
    if any(_reads(a, targets) for a in arguments):
        return True
    # ``with tf.variable_scope(op_name, reuse=True): tf.get_variable('weights')``: the scope names the part
    parent = call.parent
    while parent is not None and parent is not loop and not isinstance(parent, (nodes.FunctionDef, nodes.Module)):
        if isinstance(parent, nodes.With) and any(
                isinstance(item, nodes.Call) and _leaf(item.func) == "variable_scope" and _reads(item, targets)
                for item, _ in parent.items):
            return True
        parent = parent.parent
    return False


def _leaf(func: nodes.NodeNG) -> str:
    return func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", "")


def _reads(expr: nodes.NodeNG, targets: Set[str]) -> bool:
    return any(isinstance(n, nodes.Name) and n.name in targets for n in (expr, *expr.nodes_of_class(nodes.Name)))
