"""What a ``tf.function`` call passes that makes it trace again: a Python scalar that changes, a new object.

``tf.function`` keys its graphs on the *values* of Python scalars and strings (``3`` and ``4`` are two traces), and
on the identity of other Python objects; Tensors are keyed on dtype and shape only.  A varying Python scalar is
one the code shows changing from call to call of the loop around the call:

* a loop counter: the target of ``for i in range(...)``, the index of ``for i, x in enumerate(...)``;
* a name counted in the loop (``step += 1``) or assigned there from Python arithmetic on a varying value
  (``lr = base * 0.9 ** epoch``, ``t = max(1.0, 10 * 0.99 ** step)``, a local schedule function doing the same,
  ``float(...)``, ``int(...)``, ``x.item()``, an f-string);
* such an expression written in the call itself (``step + 1``).

Constants (``train_step(x, 0.2)``), Tensors (``tf.constant(epoch)``, a ``tf.Variable``, ``Dataset.enumerate()``
indices) and NumPy values (``np.exp(...)``, ``t.numpy()``: traced as Tensors) are not: a value is varying only
when the code shows it is Python and that it changes.
"""

from __future__ import annotations

from typing import FrozenSet, Optional, Set

from astroid import nodes

from tfguard.static.analysis.scopes import FUNCTIONS
from tfguard.static.analysis.tf_functions import TracedFunction, loop_targets, loops_around

#: Builtins that return a Python number or string.
PY_SCALAR_BUILTINS = frozenset({"float", "int", "round", "len", "abs", "max", "min", "str", "bool", "sum", "pow"})
#: Methods that turn a Tensor or NumPy value into a Python scalar (``.numpy()`` gives a NumPy value, which
#: tf.function traces as a Tensor: measured on TF 2.21, NumPy scalars of 6 values traced once).
TO_PYTHON_METHODS = frozenset({"item", "format"})
#: Python modules whose functions return Python numbers.
PY_MATH_MODULES = frozenset({"math", "random", "time"})
_MAX_DEPTH = 10
_ARITHMETIC = ", Python arithmetic on "


def varying_scalar(module, expr: nodes.NodeNG, call: nodes.Call) -> Optional[str]:
    """Return why ``expr`` (an argument of ``call``) is a Python scalar that changes from iteration to iteration
    of the loops around ``call``, or None when the code does not show it."""
    loops = list(loops_around(call))
    if not loops:
        return None
    return _varying(module, expr, loops, 0)


def _varying(module, expr: nodes.NodeNG, loops, depth: int) -> Optional[str]:
    if depth > _MAX_DEPTH:
        return None
    if isinstance(expr, nodes.Name):
        for loop in loops:
            if expr.name in loop_targets(loop):
                return _counter(loop, expr.name)
        for loop in loops:
            reason = _assigned_varying(module, expr.name, loop, loops, depth)
            if reason is not None:
                return reason
        return None
    if isinstance(expr, nodes.BinOp):
        left = _varying(module, expr.left, loops, depth + 1)
        right = _varying(module, expr.right, loops, depth + 1)
        if (left or right) and _is_python(module, expr.left, loops, depth) and _is_python(module, expr.right, loops,
                                                                                             depth):
            root = (left or right).split(_ARITHMETIC, 1)[-1]  # name the varying value, not each step to it
            return f"`{expr.as_string()}`{_ARITHMETIC}{root}"
        return None
    if isinstance(expr, nodes.UnaryOp):  # `-step`: as varying as its operand
        return _varying(module, expr.operand, loops, depth + 1)
    if isinstance(expr, nodes.JoinedStr):
        for value in expr.nodes_of_class(nodes.FormattedValue):
            inner = _varying(module, value.value, loops, depth + 1)
            if inner is not None:
                return f"an f-string of {inner}"
        return None
    if isinstance(expr, nodes.Call) and _returns_python(module, expr, loops, depth):
        for argument in expr.args:
            inner = _varying(module, argument, loops, depth + 1)
            if inner is not None:
                return f"`{expr.as_string()}`, a Python number from {inner}"
        if isinstance(expr.func, nodes.Attribute) and expr.func.attrname == "item":
            return f"`{expr.as_string()}`, a Python value read back from a tensor on each iteration"
    return None


def _counter(loop: nodes.NodeNG, name: str) -> Optional[str]:
    """Why the loop target ``name`` is a Python counter, or None when the loop yields other values."""
    iterable = getattr(loop, "iter", None)
    if not isinstance(iterable, nodes.Call) or not isinstance(iterable.func, nodes.Name):
        return None
    if iterable.func.name == "range" and isinstance(loop.target, nodes.AssignName):
        return f"`{name}`, the counter of the loop at line {loop.lineno}"
    if iterable.func.name == "enumerate" and isinstance(loop.target, nodes.Tuple) and loop.target.elts \
            and isinstance(loop.target.elts[0], nodes.AssignName) and loop.target.elts[0].name == name:
        return f"`{name}`, the `enumerate` index of the loop at line {loop.lineno}"
    return None


def _assigned_varying(module, name: str, loop: nodes.NodeNG, loops, depth: int) -> Optional[str]:
    for node in loop.nodes_of_class((nodes.Assign, nodes.AugAssign)):
        if not _runs_in(node, loop):
            continue
        if isinstance(node, nodes.AugAssign):
            if isinstance(node.target, nodes.AssignName) and node.target.name == name \
                    and isinstance(node.value, nodes.Const) and isinstance(node.value.value, (int, float)) \
                    and _initialised_to_number(node, name):
                return f"`{name}`, a Python number counted up at line {node.lineno}"
            continue
        if len(node.targets) != 1 or not isinstance(node.targets[0], nodes.AssignName) \
                or node.targets[0].name != name:
            continue
        inner = _varying(module, node.value, loops, depth + 1)
        if inner is not None and _is_python(module, node.value, loops, depth):
            return f"`{name}` (line {node.lineno}: {inner})"
    return None


def _runs_in(node: nodes.NodeNG, loop: nodes.NodeNG) -> bool:
    parent = node.parent
    while parent is not None and parent is not loop:
        if isinstance(parent, (*FUNCTIONS, nodes.Lambda, nodes.ClassDef)):
            return False
        parent = parent.parent
    return parent is loop


def _initialised_to_number(aug: nodes.AugAssign, name: str) -> bool:
    scope = aug.scope()
    for assign in scope.nodes_of_class(nodes.Assign):
        if assign.scope() is scope and any(isinstance(t, nodes.AssignName) and t.name == name for t in assign.targets):
            if isinstance(assign.value, nodes.Const) and isinstance(assign.value.value, (int, float)) \
                    and not isinstance(assign.value.value, bool):
                return True
    return False


def _is_python(module, expr: nodes.NodeNG, loops, depth: int) -> bool:
    """Whether ``expr`` is known to be a Python number or string (not a Tensor, not an array)."""
    if isinstance(expr, nodes.Const):
        return isinstance(expr.value, (int, float, str)) and not isinstance(expr.value, bool)
    if isinstance(expr, nodes.Name):
        return _varying(module, expr, loops, depth + 1) is not None
    if isinstance(expr, nodes.BinOp):
        return _is_python(module, expr.left, loops, depth + 1) and _is_python(module, expr.right, loops, depth + 1)
    if isinstance(expr, nodes.UnaryOp):
        return _is_python(module, expr.operand, loops, depth + 1)
    if isinstance(expr, nodes.JoinedStr):
        return True
    if isinstance(expr, nodes.Call):
        return _returns_python(module, expr, loops, depth)
    return False


def _returns_python(module, call: nodes.Call, loops, depth: int) -> bool:
    func = call.func
    if isinstance(func, nodes.Name) and func.name in PY_SCALAR_BUILTINS:
        return all(_is_python(module, a, loops, depth + 1) for a in call.args) or func.name in ("float", "int", "len",
                                                                                                 "str", "round")
    if isinstance(func, nodes.Attribute):
        if func.attrname in TO_PYTHON_METHODS and not call.args and func.attrname != "format":
            return True
        if func.attrname == "format" and isinstance(func.expr, nodes.Const) and isinstance(func.expr.value, str):
            return True
        if isinstance(func.expr, nodes.Name) and func.expr.name in PY_MATH_MODULES and module.qualname(func) is None:
            return True
    value = module.value(func)
    if value is not None and value.kind == "function" and isinstance(value.node, FUNCTIONS) and depth < _MAX_DEPTH:
        return _arithmetic_function(value.node)
    return False


def _arithmetic_function(function: nodes.NodeNG) -> bool:
    """Whether every ``return`` of ``function`` is Python arithmetic on its parameters and numeric literals."""
    params = {a.name for a in function.args.arguments}
    returns = [r for r in function.nodes_of_class(nodes.Return) if r.scope() is function]
    return bool(returns) and all(r.value is not None and _pure_arithmetic(r.value, params) for r in returns)


def _pure_arithmetic(expr: nodes.NodeNG, params: Set[str]) -> bool:
    if isinstance(expr, nodes.Const):
        return isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool)
    if isinstance(expr, nodes.Name):
        return expr.name in params
    if isinstance(expr, nodes.BinOp):
        return _pure_arithmetic(expr.left, params) and _pure_arithmetic(expr.right, params)
    if isinstance(expr, nodes.UnaryOp):
        return _pure_arithmetic(expr.operand, params)
    if isinstance(expr, nodes.IfExp):
        return _pure_arithmetic(expr.body, params) and _pure_arithmetic(expr.orelse, params)
    if isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Name) and expr.func.name in ("min", "max",
                                                                                                 "float", "int"):
        return all(_pure_arithmetic(a, params) for a in expr.args)
    if isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Attribute) \
            and isinstance(expr.func.expr, nodes.Name) and expr.func.expr.name == "math":
        return all(_pure_arithmetic(a, params) for a in expr.args)
    return False


# -- the parameter an argument fills ----------------------------------------------


def parameter_for(traced: TracedFunction, call: nodes.Call, argument: nodes.NodeNG) -> Optional[str]:
    """Return the name of the traced function's parameter that ``argument`` of ``call`` fills, if known."""
    function = traced.function
    if not isinstance(function, (*FUNCTIONS, nodes.Lambda)):
        return None
    for keyword in call.keywords or ():
        if keyword.value is argument:
            return keyword.arg
    if argument not in call.args or any(isinstance(a, nodes.Starred) for a in call.args):
        return None
    params = [a.name for a in (function.args.posonlyargs or []) + (function.args.args or [])]
    if params and params[0] in ("self", "cls") and isinstance(call.func, nodes.Attribute):
        params = params[1:]
    index = call.args.index(argument)
    return params[index] if index < len(params) else None


#: How a parameter may be used for ``tf.constant(value)`` at the call to keep every computed value.
TENSOR_USES: FrozenSet[str] = frozenset({"unused", "cast", "summary_step"})


def tensor_uses(module, traced: TracedFunction, parameter: str) -> Optional[FrozenSet[str]]:
    """Return how the traced function uses ``parameter`` when each use is one where a Tensor holding the same
    number computes the same values: not at all, as ``tf.cast(p, ...)``'s value, as a ``tf.summary`` ``step=``.
    None when some use is anything else (Python control flow, ``range``, a shape, formatting, arithmetic whose
    dtype would change, a nested call)."""
    function = traced.function
    if not isinstance(function, (*FUNCTIONS, nodes.Lambda)):
        return None
    uses: Set[str] = set()
    for name in function.nodes_of_class(nodes.Name):
        if name.name != parameter:
            continue
        parent = name.parent
        if isinstance(parent, nodes.Call) and parent.args and parent.args[0] is name \
                and module.call_qualname(parent) == "tensorflow.cast":
            uses.add("cast")
            continue
        if isinstance(parent, nodes.Keyword) and parent.arg == "step" and isinstance(parent.parent, nodes.Call):
            qualname = module.call_qualname(parent.parent) or ""
            if qualname.startswith("tensorflow.summary."):
                uses.add("summary_step")
                continue
        return None
    for assign in function.nodes_of_class(nodes.AssignName):
        if assign.name == parameter and not isinstance(assign.parent, nodes.Arguments):
            return None  # rebound: what the Python value was used for is not followed
    return frozenset(uses or {"unused"})


def is_int_counter(expr: nodes.NodeNG, call: nodes.Call) -> bool:
    """Whether ``expr`` is a loop counter that holds Python ints: a ``range``/``enumerate`` index, or a name
    started at an int literal and counted up by int literals."""
    if not isinstance(expr, nodes.Name):
        return False
    for loop in loops_around(call):
        if expr.name in loop_targets(loop):
            return _counter(loop, expr.name) is not None
        for aug in loop.nodes_of_class(nodes.AugAssign):
            if isinstance(aug.target, nodes.AssignName) and aug.target.name == expr.name and _runs_in(aug, loop):
                return isinstance(aug.value, nodes.Const) and type(aug.value.value) is int \
                    and _initialised_to_int(aug, expr.name)
    return False


def _initialised_to_int(aug: nodes.AugAssign, name: str) -> bool:
    scope = aug.scope()
    values = [
        assign.value for assign in scope.nodes_of_class(nodes.Assign)
        if assign.scope() is scope and any(isinstance(t, nodes.AssignName) and t.name == name for t in assign.targets)
    ]
    return bool(values) and all(isinstance(v, nodes.Const) and type(v.value) is int for v in values)
