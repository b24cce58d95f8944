"""TFG108: ``sess.run(tf.assign(v, value))`` with a value the loop changes feeds the value to ``v``'s initializer.

``sess.run(v.initializer, {v.initializer.inputs[1]: value})`` is what ``Variable.load(value, sess)`` runs (TF 1.15
and 2.x, ``variables.py``), without ``load``, which TF 2.x deprecates: the initializer assigns its input to the
variable, and feeding that input sets it to ``value`` with no op added.  A fed value must be a Python or NumPy
value: safe when tfguard can prove it is one (numbers, the loop's counter, NumPy calls, arithmetic on those) and
the variable is a ``tf.Variable``/``tf.get_variable`` (whose initializer is the assign of its initial value);
unsafe otherwise, saying why.  A value that is a tensor gets no fix (it cannot be fed).
"""

from __future__ import annotations

from typing import Optional, Set, Tuple

from astroid import nodes

from tfguard.static.analysis.dataflow import TF
from tfguard.static.analysis.tfapi import INITIALIZED_VARIABLE_APIS
from tfguard.static.finding import SAFE, UNSAFE, Edit, Finding, Fix
from tfguard.static.fixes.context import FixContext

#: Builtins that turn Python numbers into Python numbers.
NUMBER_BUILTINS = frozenset({"float", "int", "abs", "min", "max", "round", "bool"})
#: How deep a value is followed through names bound to other names.
MAX_DEPTH = 8


def _variable_and_value(ctx: FixContext, call: nodes.Call) -> Optional[Tuple[nodes.NodeNG, nodes.NodeNG]]:
    keywords = {k.arg: k.value for k in call.keywords or ()}
    if ctx.module.call_qualname(call) == "tensorflow.assign":
        if len(call.args) == 2 and not keywords:
            return call.args[0], call.args[1]
        return None
    func = call.func
    if isinstance(func, nodes.Attribute) and func.attrname == "assign" and len(call.args) == 1 and not keywords:
        return func.expr, call.args[0]
    return None


def plan_load(ctx: FixContext, finding: Finding, node: nodes.NodeNG) -> Optional[Fix]:
    """Return the fix that feeds the value to the variable's initializer, for an assign that is a statement's only
    ``sess.run`` fetch (its result unused)."""
    if finding.chain or not isinstance(node, nodes.Call):
        return None
    run = node.parent
    if not (isinstance(run, nodes.Call) and isinstance(run.func, nodes.Attribute) and run.func.attrname == "run"
            and run.args == [node] and not run.keywords and isinstance(run.parent, nodes.Expr)):
        return None
    if ctx.module.run_event(run) is None:
        return None
    found = _variable_and_value(ctx, node)
    if found is None:
        return None
    variable, value = found
    if not isinstance(variable, (nodes.Name, nodes.Attribute)):
        return None
    held = ctx.module.value(value)
    if held is not None and held.kind == TF:
        return None
    for part in value.nodes_of_class((nodes.Call, nodes.BinOp, nodes.UnaryOp, nodes.Subscript)):
        if ctx.module.build_event(part) is not None:
            return None
    source = ctx.source
    start, end = source.start(run), source.end(run)
    name, fed = source.node_text(variable), source.node_text(value)
    text = f"{source.node_text(run.func.expr)}.run({name}.initializer, {{{name}.initializer.inputs[1]: {fed}}})"
    message = (f"Feed the value to the variable's initializer: `{text}` adds no op (what the deprecated "
               "`Variable.load` does)")
    reasons = []
    kept = ctx.module.value(variable)
    if kept is None or kept.kind != TF or kept.api not in INITIALIZED_VARIABLE_APIS or (
            kept.api == "tensorflow.get_variable" and _partitioned(ctx)):
        reasons.append(f"tfguard cannot tell that `{name}` is a `tf.Variable`, whose initializer assigns its input")
    if not python_value(ctx, value, set(), 0):
        reasons.append(f"tfguard cannot tell that `{fed}` is a Python or NumPy value (a tensor cannot be fed)")
    if reasons:
        message += f" (unsafe: {'; '.join(reasons)})"
    return Fix(UNSAFE if reasons else SAFE, message, (Edit(start[0], start[1], end[0], end[1], text),))


def _partitioned(ctx: FixContext) -> bool:
    """A ``partitioner=`` anywhere in the module: a ``get_variable`` may be a PartitionedVariable (no initializer)."""
    return any(k.arg == "partitioner" for k in ctx.module.module.nodes_of_class(nodes.Keyword))


def python_value(ctx: FixContext, expr: nodes.NodeNG, seen: Set[str], depth: int) -> bool:
    """Whether ``expr`` is certainly a Python number or a NumPy value: literals, NumPy calls, ``range``/
    ``enumerate`` counters, number builtins, arithmetic on those, names every binding of which is one (a
    parameter: every call of its function in the module passes one), attributes every store of which is one."""
    if depth > MAX_DEPTH:
        return False
    if isinstance(expr, nodes.Const):
        return type(expr.value) in (int, float, bool)
    if isinstance(expr, nodes.UnaryOp):
        return expr.op in ("-", "+") and python_value(ctx, expr.operand, seen, depth + 1)
    if isinstance(expr, nodes.BinOp):
        return python_value(ctx, expr.left, seen, depth + 1) and python_value(ctx, expr.right, seen, depth + 1)
    if isinstance(expr, nodes.Call):
        qualname = ctx.module.call_qualname(expr) or ""
        if qualname.startswith("numpy."):
            return all(python_value(ctx, a, seen, depth + 1) or _literal(a) for a in expr.args)
        if isinstance(expr.func, nodes.Name) and expr.func.name in NUMBER_BUILTINS and not _shadowed(expr.func):
            return bool(expr.args) and not expr.keywords and all(python_value(ctx, a, seen, depth + 1)
                                                                  for a in expr.args)
        return False
    if isinstance(expr, nodes.Name):
        return _name_is_python(ctx, expr, seen, depth)
    if isinstance(expr, nodes.Attribute):
        return _attribute_is_python(ctx, expr.attrname, seen, depth)
    return False


def _attribute_is_python(ctx: FixContext, attribute: str, seen: Set[str], depth: int) -> bool:
    """``obj.attr`` where every store of ``.attr`` in the module (any object) is a Python number."""
    key = "." + attribute
    if key in seen:
        return True
    stores = [n for n in ctx.module.module.nodes_of_class((nodes.AssignAttr, nodes.DelAttr)) if n.attrname == attribute]
    if not stores:
        return False
    inner = seen | {key}
    for store in stores:
        value = _stored_value(store)
        if value is None or not python_value(ctx, value, inner, depth + 1):
            return False
    return True


def _stored_value(target: nodes.NodeNG) -> Optional[nodes.NodeNG]:
    """The value a store target receives: ``x = value``, ``x op= value``, ``a, x = ..., value``; None otherwise."""
    parent = target.parent
    if isinstance(parent, nodes.Assign) and parent.targets == [target]:
        return parent.value
    if isinstance(parent, nodes.AugAssign):
        return parent.value
    if isinstance(parent, nodes.Tuple) and isinstance(parent.parent, nodes.Assign):
        return _unpacked(parent, target)
    return None


def _script(module: nodes.Module) -> bool:
    """A module that runs when executed (top-level code or ``if __name__ == "__main__":``), not a library."""
    for statement in module.body:
        if isinstance(statement, (nodes.With, nodes.For, nodes.While)):
            return True
        if isinstance(statement, nodes.If) and "__name__" in statement.test.as_string():
            return True
    return False


def _parameter_is_python(ctx: FixContext, binding: nodes.AssignName, seen: Set[str], depth: int) -> bool:
    """A parameter of a function of this module every call of which passes a Python number for it."""
    arguments = binding.parent
    function = arguments.parent
    if not isinstance(function, nodes.FunctionDef) or isinstance(function.parent, nodes.ClassDef):
        return False
    if binding not in (arguments.args or []) or function.decorators is not None:
        return False
    if not function.name.startswith("_") and not _script(ctx.module.module):
        return False  # another module may import it and pass anything
    index = arguments.args.index(binding)
    calls = 0
    for name in ctx.module.module.nodes_of_class(nodes.Name):
        if name.name != function.name:
            continue
        call = name.parent
        if not (isinstance(call, nodes.Call) and call.func is name) or any(
                isinstance(a, nodes.Starred) for a in call.args) or any(k.arg is None for k in call.keywords or ()):
            return False  # passed on, or called with arguments tfguard cannot match
        passed = call.args[index] if index < len(call.args) else next(
            (k.value for k in call.keywords or () if k.arg == binding.name), None)
        if passed is None or not python_value(ctx, passed, seen, depth + 1):
            return False
        calls += 1
    return calls > 0


def _literal(expr: nodes.NodeNG) -> bool:
    """A literal argument to a NumPy call (a shape, a dtype name)."""
    if isinstance(expr, (nodes.Tuple, nodes.List)):
        return all(_literal(e) for e in expr.elts)
    return isinstance(expr, nodes.Const)


def _shadowed(name: nodes.Name) -> bool:
    try:
        scope, _ = name.lookup(name.name)
    except Exception:  # noqa: BLE001 - astroid's scope lookup on odd code: no claim
        return True
    return not (isinstance(scope, nodes.Module) and scope.name == "builtins")


def _name_is_python(ctx: FixContext, name: nodes.Name, seen: Set[str], depth: int) -> bool:
    if name.name in seen:
        return True  # ``lr = lr * 0.1``: the other bindings decide
    try:
        scope, _ = name.lookup(name.name)
    except Exception:  # noqa: BLE001 - astroid's scope lookup on odd code: no claim
        return False
    bindings = scope.locals.get(name.name, []) if scope is not None else []
    if not bindings:
        return False
    inner = seen | {name.name}
    for binding in bindings:
        if not isinstance(binding, nodes.AssignName):
            return False
        parent = binding.parent
        if isinstance(parent, nodes.For):
            if not _counter(parent, binding):
                return False
        elif isinstance(parent, nodes.Assign) and parent.targets == [binding]:
            if not python_value(ctx, parent.value, inner, depth + 1):
                return False
        elif isinstance(parent, nodes.Tuple) and isinstance(parent.parent, nodes.Assign):
            value = _unpacked(parent, binding)  # ``BASE_LR, GAMMA = 0.01, 0.5``
            if value is None or not python_value(ctx, value, inner, depth + 1):
                return False
        elif isinstance(parent, nodes.Arguments):
            if not _parameter_is_python(ctx, binding, inner, depth):
                return False
        elif isinstance(parent, nodes.AugAssign):
            if not python_value(ctx, parent.value, inner, depth + 1):
                return False
        else:
            return False
    return True


def _unpacked(target: nodes.Tuple, binding: nodes.AssignName) -> Optional[nodes.NodeNG]:
    """The element of ``a, b = x, y`` bound to ``binding`` (a flat tuple of as many values), or None."""
    statement = target.parent
    value = statement.value
    if statement.targets != [target] or not isinstance(value, (nodes.Tuple, nodes.List)):
        return None
    if len(value.elts) != len(target.elts) or any(isinstance(e, nodes.Starred) for e in (*value.elts, *target.elts)):
        return None
    return value.elts[target.elts.index(binding)]


def _counter(loop: nodes.For, target: nodes.AssignName) -> bool:
    """``for i in range(...)`` or the index of ``for i, x in enumerate(...)``: an int."""
    call = loop.iter
    if not isinstance(call, nodes.Call) or not isinstance(call.func, nodes.Name) or _shadowed(call.func):
        return False
    if call.func.name == "range":
        return loop.target is target
    if call.func.name == "enumerate":
        return isinstance(loop.target, nodes.Tuple) and bool(loop.target.elts) and loop.target.elts[0] is target
    return False

