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

from typing import FrozenSet, List, Optional, Set

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
    return varying_scalar_with_sites(module, expr, call)[0]


def varying_scalar_with_sites(module, expr: nodes.NodeNG, call: nodes.Call, levels: int = 2,
                              named: Optional[List[nodes.NodeNG]] = None):
    """:func:`varying_scalar`, and the calls of the helpers it went through (issue 44): a parameter of the helper
    that makes ``call`` is varying when a call of the helper passes a varying value for it (``run_batch(x, epoch)``
    in ``for epoch in range(n):``), up to ``levels`` helpers up.  Returns (reason or None, [helper calls]).

    ``named``, when given, receives the assignments the reason names by line ("line 33: ...", "counted up at
    line 36"), so that the finding's chain can hold them."""
    loops = list(loops_around(call))
    found: List[nodes.NodeNG] = []
    reason = _varying(module, expr, loops, 0, found) if loops else None
    if reason is not None or levels == 0:
        if reason is not None and named is not None:
            named.extend(found)
        return reason, []
    return _through_callers(module, expr, call, levels, named)


def _through_callers(module, expr: nodes.NodeNG, call: nodes.Call, levels: int, named):
    from tfguard.static.analysis.callers import call_sites
    from tfguard.static.analysis.inference import argument_for

    function = call.scope()
    if not isinstance(expr, nodes.Name) or not isinstance(function, FUNCTIONS):
        return None, []
    if not _plain_parameter(function, expr):
        return _derived_from_parameter(module, expr, function, levels, named)
    for site in call_sites(module, function):
        argument = argument_for(site, function, expr.name, isinstance(site.func, nodes.Attribute))
        if not isinstance(argument, nodes.NodeNG):
            continue
        reason, sites = varying_scalar_with_sites(module, argument, site, levels - 1, named)
        if reason is not None:
            return f"{reason}, passed to `{function.name}()` at line {site.lineno} as `{expr.name}`", [*sites, site]
    return None, []


def _derived_from_parameter(module, expr: nodes.Name, function: nodes.NodeNG, levels: int, named):
    """A local computed once per call of ``function``, before its loops, by Python arithmetic on a parameter
    (``lr = 0.1 * 0.9 ** epoch`` in ``def train_epoch(epoch):``): constant in the inner loop, but a new value
    on each call when the callers pass a varying one (issue 44).  Returns (reason or None, [helper calls])."""
    from tfguard.static.analysis.callers import call_sites
    from tfguard.static.analysis.inference import argument_for

    bindings = function.locals.get(expr.name, [])
    if len(bindings) != 1 or not isinstance(bindings[0].parent, nodes.Assign) or expr.scope() is not function:
        return None, []
    assign = bindings[0].parent
    if len(assign.targets) != 1 or assign.targets[0] is not bindings[0] \
            or any(loop.scope() is function for loop in loops_around(assign)):
        return None, []  # bound in a loop of the function: the loop's own matter
    value = assign.value
    parameters = [n for n in value.nodes_of_class(nodes.Name) if _plain_parameter(function, n)]
    for parameter in dict.fromkeys(n.name for n in parameters):
        if not _python_given(module, value, parameter, 0):
            continue
        for site in call_sites(module, function):
            argument = argument_for(site, function, parameter, isinstance(site.func, nodes.Attribute))
            if not isinstance(argument, nodes.NodeNG):
                continue
            found: List[nodes.NodeNG] = []
            reason, sites = varying_scalar_with_sites(module, argument, site, levels - 1, found)
            if reason is not None:
                if named is not None:
                    named.extend([assign, *found])
                return (f"`{expr.name}` (line {assign.lineno}: `{value.as_string()}`{_ARITHMETIC}`{parameter}`, "
                        f"set once per call of `{function.name}()`), {reason}, passed to `{function.name}()` at "
                        f"line {site.lineno} as `{parameter}`", [*sites, site])
    return None, []


def _python_given(module, expr: nodes.NodeNG, parameter: str, depth: int) -> bool:
    """Whether ``expr`` is a Python number or string when the parameter ``parameter`` is one."""
    if depth > _MAX_DEPTH:
        return False
    if isinstance(expr, nodes.Name):
        return expr.name == parameter or _module_number(module, expr)
    if isinstance(expr, nodes.Const):
        return isinstance(expr.value, (int, float, str)) and not isinstance(expr.value, bool)
    if isinstance(expr, nodes.BinOp):
        return _python_given(module, expr.left, parameter, depth + 1) \
            and _python_given(module, expr.right, parameter, depth + 1)
    if isinstance(expr, nodes.UnaryOp):
        return _python_given(module, expr.operand, parameter, depth + 1)
    if isinstance(expr, nodes.Call) and not expr.keywords:
        func = expr.func
        python = (isinstance(func, nodes.Name) and func.name in PY_SCALAR_BUILTINS) or (
            isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name)
            and func.expr.name in PY_MATH_MODULES and module.qualname(func) is None)
        return python and all(_python_given(module, a, parameter, depth + 1) for a in expr.args)
    return False


def _plain_parameter(function: nodes.NodeNG, name: nodes.Name) -> bool:
    """``name`` reads a parameter of ``function`` that the function never rebinds."""
    arguments = function.args
    names = {a.name for a in (*(arguments.posonlyargs or ()), *(arguments.args or ()), *(arguments.kwonlyargs or ()))}
    if name.name not in names or name.scope() is not function:
        return False
    return not any(
        isinstance(node, nodes.AssignName) and node.name == name.name and node.scope() is function
        and not isinstance(node.parent, nodes.Arguments) for node in function.nodes_of_class(nodes.AssignName)
    )


def _varying(module, expr: nodes.NodeNG, loops, depth: int,
             named: Optional[List[nodes.NodeNG]] = None) -> Optional[str]:
    """Why ``expr`` varies across the iterations of ``loops``, or None; the assignments the reason names by
    line are appended to ``named`` (when given)."""
    if named is None:
        named = []
    if depth > _MAX_DEPTH:
        return None
    if isinstance(expr, nodes.Name):
        for loop in loops:
            if expr.name in loop_targets(loop):
                return _counter(loop, expr.name)
        for loop in loops:
            reason = _assigned_varying(module, expr.name, loop, loops, depth, named)
            if reason is not None:
                return reason
        return None
    if isinstance(expr, nodes.BinOp):
        left_named: List[nodes.NodeNG] = []
        right_named: List[nodes.NodeNG] = []
        left = _varying(module, expr.left, loops, depth + 1, left_named)
        right = _varying(module, expr.right, loops, depth + 1, right_named)
        if (left or right) and _is_python(module, expr.left, loops, depth) and _is_python(module, expr.right, loops,
                                                                                             depth):
            root = (left or right).split(_ARITHMETIC, 1)[-1]  # name the varying value, not each step to it
            named.extend(left_named if left else right_named)  # the root's lines, and the steps to it
            return f"`{expr.as_string()}`{_ARITHMETIC}{root}"
        return None
    if isinstance(expr, nodes.UnaryOp):  # `-step`: as varying as its operand
        return _varying(module, expr.operand, loops, depth + 1)
    if isinstance(expr, nodes.JoinedStr):
        for value in expr.nodes_of_class(nodes.FormattedValue):
            inner = _varying(module, value.value, loops, depth + 1, named)
            if inner is not None:
                return f"an f-string of {inner}"
        return None
    if isinstance(expr, nodes.Call) and _returns_python(module, expr, loops, depth):
        for argument in expr.args:
            inner = _varying(module, argument, loops, depth + 1, named)
            if inner is not None:
                return f"`{expr.as_string()}`, a Python number from {inner}"
        if isinstance(expr.func, nodes.Attribute) and expr.func.attrname == "item":
            return f"`{expr.as_string()}`, a Python value read back from a tensor on each iteration"
    return None


def _counter(loop: nodes.NodeNG, name: str) -> Optional[str]:
    """Why the loop target ``name`` is a Python counter, or None when the loop yields other values."""
    iterable = getattr(loop, "iter", None)
    if isinstance(iterable, (nodes.List, nodes.Tuple)) and isinstance(loop.target, nodes.AssignName) \
            and len(iterable.elts) > 1 and all(isinstance(e, nodes.Const) for e in iterable.elts):
        # ``for scale in [0.5, 1.0, 2.0]:``: Python numbers or strings written out, each a new trace (issue 44)
        return f"`{name}`, a value of the literal list of the loop at line {loop.lineno}"
    if not isinstance(iterable, nodes.Call) or not isinstance(iterable.func, nodes.Name):
        return None
    if iterable.func.name == "range" and isinstance(loop.target, nodes.AssignName):
        return f"`{name}`, the counter of the loop at line {loop.lineno}"
    if iterable.func.name == "enumerate" and isinstance(loop.target, nodes.Tuple) and loop.target.elts \
            and isinstance(loop.target.elts[0], nodes.AssignName) and loop.target.elts[0].name == name:
        return f"`{name}`, the `enumerate` index of the loop at line {loop.lineno}"
    return None


def _assigned_varying(module, name: str, loop: nodes.NodeNG, loops, depth: int,
                      named: List[nodes.NodeNG]) -> Optional[str]:
    for node in loop.nodes_of_class((nodes.Assign, nodes.AugAssign)):
        if not _runs_in(node, loop):
            continue
        if isinstance(node, nodes.AugAssign):
            if isinstance(node.target, nodes.AssignName) and node.target.name == name \
                    and isinstance(node.value, nodes.Const) and isinstance(node.value.value, (int, float)) \
                    and _initialised_to_number(node, name):
                named.append(node)
                return f"`{name}`, a Python number counted up at line {node.lineno}"
            continue
        if len(node.targets) != 1 or not isinstance(node.targets[0], nodes.AssignName) \
                or node.targets[0].name != name:
            continue
        inner_named: List[nodes.NodeNG] = []
        inner = _varying(module, node.value, loops, depth + 1, inner_named)
        if inner is not None and _is_python(module, node.value, loops, depth):
            named.extend([node, *inner_named])
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
        return _varying(module, expr, loops, depth + 1) is not None or _module_number(module, expr)
    if isinstance(expr, nodes.BinOp):
        return _is_python(module, expr.left, loops, depth + 1) and _is_python(module, expr.right, loops, depth + 1)
    if isinstance(expr, nodes.UnaryOp):
        return _is_python(module, expr.operand, loops, depth + 1)
    if isinstance(expr, nodes.JoinedStr):
        return True
    if isinstance(expr, nodes.Call):
        return _returns_python(module, expr, loops, depth)
    return False


def _module_number(module, name: nodes.Name) -> bool:
    """``STEPS`` bound once, at module level, to a number (``STEPS = 1000``, ``EPOCHS, STEPS = 50, 1000``)."""
    if name.lookup(name.name)[0] is not module.module:
        return False
    bindings = module.module.locals.get(name.name, [])
    if len(bindings) != 1 or not isinstance(bindings[0], nodes.AssignName):
        return False
    binding, parent = bindings[0], bindings[0].parent
    value = None
    if isinstance(parent, nodes.Assign):
        value = parent.value
    elif isinstance(parent, nodes.Tuple) and isinstance(parent.parent, nodes.Assign) \
            and isinstance(parent.parent.value, nodes.Tuple) and len(parent.elts) == len(parent.parent.value.elts):
        value = parent.parent.value.elts[parent.elts.index(binding)]
    number = isinstance(value, nodes.Const) and isinstance(value.value, (int, float))
    return number and not isinstance(value.value, bool)


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
