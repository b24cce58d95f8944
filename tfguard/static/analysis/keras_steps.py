"""TF 2 per-step facts for the cost rules TFG406-TFG408: which loops reach a line, one-sample inputs, training steps.

* :func:`loop_path`: the unbounded loop (not one of a handful of literal iterations, not inside a ``tf.function``)
  that runs a node on every iteration, directly or through the module's calls of the function holding it (up to
  :data:`MAX_HOPS` calls up, read from :meth:`~tfguard.static.analysis.inference.ParameterInference.call_sites`),
  with no ``tf.function`` on the way;
* :func:`one_sample`: an expression that is one sample (``x[i:i+1]``, ``x[None]``, ``np.expand_dims``,
  ``reshape(1, ...)``, ``np.array([x])``, a state from ``env.reset()``/``env.step()``, a transition unpacked from a
  replay minibatch), followed through names and, along a loop path, through a helper's parameters;
* :func:`is_step_function`: a Python function that takes gradients with ``tf.GradientTape`` and applies them
  (``apply_gradients``, ``assign_sub``), itself or in a helper it calls.

Like the rest of the checker it reads source only, never TensorFlow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from astroid import nodes

from tfguard.static.analysis.inference import argument_for
from tfguard.static.analysis.scopes import FUNCTIONS, function_label, is_ancestor, own_nodes
from tfguard.static.analysis.tf_functions import assigned_in, bounded_loop, enclosing_loop, tf_functions
from tfguard.static.analysis.trip_counts import SMALL_TRIP_COUNT, literal_trip_count
from tfguard.static.finding import ChainLink

#: How many calls up from a function to the loop that calls it are followed.
MAX_HOPS = 3
#: Calls that add a batch axis of one, by canonical name.
_BATCH_OF_ONE = frozenset({"numpy.expand_dims", "tensorflow.expand_dims", "numpy.atleast_2d"})
#: Calls that make an array from a list: ``np.array([x])`` is a batch of one.
_FROM_LIST = frozenset({"numpy.array", "numpy.asarray", "numpy.stack", "numpy.vstack", "numpy.float32",
                        "tensorflow.constant", "tensorflow.convert_to_tensor", "tensorflow.stack"})
#: Calls that make an array of a given shape.
_FILLED = frozenset({"numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "tensorflow.zeros", "tensorflow.ones"})
#: Fewest names a minibatch loop unpacks for its items to be transitions (state, action, reward, next_state...).
_TRANSITION_FIELDS = 4
#: Methods that apply gradients to variables.
APPLY_METHODS = frozenset({"apply_gradients", "assign_sub"})


@dataclass(frozen=True)
class LoopPath:
    """How a node runs on every iteration of ``loop``: ``calls[0]`` is in the loop, each next call is in the
    function the previous one calls, and the last is the node itself (or the call of the function asked about)."""

    loop: nodes.NodeNG
    calls: Tuple[nodes.NodeNG, ...]

    def chain(self, path: str) -> Tuple[ChainLink, ...]:
        """The links of every call before the last one: the loop's call first."""
        return tuple(ChainLink(path, call.lineno, _label(call)) for call in self.calls[:-1])


def _label(node: nodes.NodeNG) -> str:
    scope = node.scope()
    return function_label(scope) if isinstance(scope, FUNCTIONS) else "<module>"


def loop_path(module, node: nodes.NodeNG) -> Optional[LoopPath]:
    """Return how ``node`` runs on every iteration of an unbounded loop of ``module``, or None.

    ``node``'s own loop counts when it is not a bounded handful of iterations; otherwise the calls of its function
    are followed up (module-local call sites, :data:`MAX_HOPS` deep).  A loop inside a ``tf.function``, a call of a
    ``tf.function`` and a function traced by one end the search: compiled code runs there.
    """
    facts = tf_functions(module)
    if facts.inside_trace(node):
        return None
    loop = _repeating_loop(node)
    if loop is not None:
        return LoopPath(loop, (node,))
    function = node.scope()
    if not isinstance(function, FUNCTIONS):
        return None
    found = function_loop_path(module, function)
    return LoopPath(found.loop, found.calls + (node,)) if found is not None else None


def function_loop_path(module, function: nodes.NodeNG, hops: int = 0) -> Optional[LoopPath]:
    """Return how calls of ``function`` run on every iteration of an unbounded loop of ``module`` (the last call
    of the path calls ``function``), or None."""
    memo: Dict[int, Optional[LoopPath]] = module.facts("keras_steps_paths", lambda _: {})
    key = id(function)
    if key in memo:
        return memo[key]
    memo[key] = None  # recursion: no path while computing
    facts = tf_functions(module)
    found = None
    if hops < MAX_HOPS and not facts.is_traced_body(function) and not facts.inside_trace(function):
        for call in _calls_of(module, function):
            if facts.traced_of(call) is not None or facts.inside_trace(call):
                continue
            loop = _repeating_loop(call)
            if loop is not None:
                found = LoopPath(loop, (call,))
                break
            caller = call.scope()
            if isinstance(caller, FUNCTIONS) and caller is not function:
                upper = function_loop_path(module, caller, hops + 1)
                if upper is not None:
                    found = LoopPath(upper.loop, upper.calls + (call,))
                    break
    memo[key] = found
    return found


def _repeating_loop(node: nodes.NodeNG) -> Optional[nodes.NodeNG]:
    """The innermost loop of ``node``'s own function that repeats it more than a handful of times: a bounded
    loop (``for _ in range(10):`` in a replay helper) multiplies the cadence of the loop that calls the helper."""
    loop = enclosing_loop(node)
    while loop is not None:
        if not runs_a_handful(loop):
            return loop
        loop = enclosing_loop(loop)
    return None


def runs_a_handful(loop: nodes.NodeNG) -> bool:
    """:func:`~tfguard.static.analysis.tf_functions.bounded_loop`, for comprehensions too: ``[f(x) for x in xs]``
    repeats as often as ``xs`` is long, a handful only when ``xs`` is a short literal."""
    generators = getattr(loop, "generators", None)
    if not generators:
        return bounded_loop(loop) or _takes_a_handful(getattr(loop, "iter", None))
    count = literal_trip_count(generators[0])
    outer = enclosing_loop(loop)
    return count is not None and count <= SMALL_TRIP_COUNT and (outer is None or runs_a_handful(outer))


def _takes_a_handful(iterable: Optional[nodes.NodeNG]) -> bool:
    """``dataset.take(1)``: a handful of elements, by a literal count."""
    return isinstance(iterable, nodes.Call) and isinstance(iterable.func, nodes.Attribute) \
        and iterable.func.attrname == "take" and len(iterable.args) == 1 and isinstance(iterable.args[0], nodes.Const) \
        and type(iterable.args[0].value) is int and iterable.args[0].value <= SMALL_TRIP_COUNT


def _calls_of(module, function: nodes.NodeNG) -> list:
    """The module's calls of ``function``: the inferred call sites, or, for a method the dataflow cannot reach
    (``agent = Agent()`` under ``if __name__ == "__main__":``), ``x.method(...)`` on a name bound to ``Class(...)``
    in the caller's own scope."""
    sites = [call for call, _bound in module.dataflow.inference.call_sites(function) or ()]
    cls = function.parent
    if sites or not isinstance(cls, nodes.ClassDef):
        return sites
    for call in module.candidate_calls(frozenset(), frozenset({function.name})):
        func = call.func
        if not (isinstance(func, nodes.Attribute) and func.attrname == function.name
                and isinstance(func.expr, nodes.Name)):
            continue
        made = [b for b in assigned_in(call.scope(), func.expr.name) if isinstance(b, nodes.Assign)]
        if made and all(isinstance(b.value, nodes.Call) and isinstance(b.value.func, nodes.Name)
                        and b.value.func.name == cls.name for b in made):
            sites.append(call)
    return sites


# -- one sample -------------------------------------------------------------------------


def one_sample(module, expr: Optional[nodes.NodeNG], path: Optional[LoopPath] = None, depth: int = 0) -> bool:
    """Return whether ``expr`` is one sample: a batch of one row, one environment state, or one stored transition.

    A name is one sample when every binding of it in its function is; a parameter when the call of ``path`` that
    enters its function passes one.
    """
    if expr is None or depth > 8:
        return False
    if isinstance(expr, nodes.Subscript):
        return _adds_axis_or_takes_one(expr.slice) or (
            _keeps_the_first_axis(expr.slice) and one_sample(module, expr.value, path, depth + 1))
    if isinstance(expr, nodes.Call):
        return _call_makes_one(module, expr, path, depth)
    if isinstance(expr, nodes.Name):
        return _name_is_one(module, expr, path, depth)
    if isinstance(expr, nodes.BinOp) and expr.op in ("/", "*", "-", "+"):
        return one_sample(module, expr.left, path, depth + 1)  # ``image / 255.0``, ``x / float(n_vocab)``
    return False


def _adds_axis_or_takes_one(index: nodes.NodeNG) -> bool:
    parts = index.elts if isinstance(index, nodes.Tuple) else [index]
    for part in parts:
        if isinstance(part, nodes.Const) and part.value is None:
            return True  # x[None], x[None, :]
        if isinstance(part, nodes.Attribute) and part.attrname == "newaxis":
            return True
        if isinstance(part, nodes.Slice) and _one_wide(part):
            return True
    return isinstance(index, nodes.List) and len(index.elts) == 1  # x[[i]]


def _keeps_the_first_axis(index: nodes.NodeNG) -> bool:
    """``x[:, :i + 1, :]``: every row of the first axis (of a batch of one, one row)."""
    first = index.elts[0] if isinstance(index, nodes.Tuple) and index.elts else index
    return isinstance(first, nodes.Slice) and first.lower is None and first.upper is None and first.step is None


def _one_wide(part: nodes.Slice) -> bool:
    """``i:i+1`` (or ``0:1``): a slice one row wide."""
    lower, upper = part.lower, part.upper
    if part.step is not None or upper is None:
        return False
    if isinstance(upper, nodes.BinOp) and upper.op == "+" and isinstance(upper.right, nodes.Const) \
            and upper.right.value == 1 and lower is not None:
        return upper.left.as_string() == lower.as_string()
    lower_value = 0 if lower is None else lower.value if isinstance(lower, nodes.Const) else None
    return isinstance(upper, nodes.Const) and isinstance(lower_value, int) and upper.value == lower_value + 1


def _call_makes_one(module, call: nodes.Call, path: Optional[LoopPath], depth: int) -> bool:
    qualname = module.call_qualname(call) or _written_numpy(call.func)
    if qualname in _BATCH_OF_ONE:
        return True
    if qualname in _FILLED and call.args and _leading_one(call.args[0]):
        return True  # ``np.zeros((1, maxlen, len(chars)))``: a batch of one, filled in afterwards
    if qualname in _FROM_LIST and call.args and isinstance(call.args[0], (nodes.List, nodes.Tuple)) \
            and len(call.args[0].elts) == 1:
        return True
    func = call.func
    leaf = func.attrname if isinstance(func, nodes.Attribute) else func.name if isinstance(func, nodes.Name) else ""
    if leaf == "reshape":
        if qualname in ("numpy.reshape", "tensorflow.reshape"):
            return len(call.args) >= 2 and _leading_one(call.args[1])
        if len(call.args) == 2 and isinstance(call.args[1], nodes.Starred) \
                and isinstance(call.args[1].value, nodes.Attribute) and call.args[1].value.attrname == "shape" \
                and call.args[0].as_string() == "-1":
            return True  # ``np.array(state).reshape(-1, *state.shape)``: one more axis in front of one sample
        return bool(call.args) and _leading_one(call.args[0])  # ``x.reshape(1, -1)``, ``x.reshape((1, n))``
    if leaf in ("reset", "step") and isinstance(func, nodes.Attribute) and "env" in func.expr.as_string().lower():
        return True  # ``env.reset()``, ``env.step(action)``: one environment state
    if leaf in ("astype", "copy") and isinstance(func, nodes.Attribute):
        return one_sample(module, func.expr, path, depth + 1)
    if call.args and (_keeps_the_batch(qualname) or _project_helper(module, call, qualname)):
        # ``transform_images(img, size)``, ``self.reshape(x)``, ``tf.image.resize(x, ...)``, ``tf.cast(x, ...)``:
        # a helper or an op that prepares one sample keeps it one sample
        return one_sample(module, call.args[0], path, depth + 1)
    return False


def _written_numpy(func: nodes.NodeNG) -> Optional[str]:
    """``np.reshape`` written in a file that never imports NumPy (a notebook cell saved alone): its usual name."""
    if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) and func.expr.name in ("np", "numpy"):
        return "numpy." + func.attrname
    return None


def _project_helper(module, call: nodes.Call, qualname: Optional[str]) -> bool:
    """A function of the project (resolved, or imported from a module that is no library tfguard knows)."""
    if module.called_function(call) is not None:
        return True
    return bool(qualname) and "." in qualname and not qualname.startswith(
        ("tensorflow.", "numpy.", "keras.", "tf_keras.", "builtins.", "random.", "collections."))


def _keeps_the_batch(qualname: Optional[str]) -> bool:
    return bool(qualname) and (qualname.startswith("tensorflow.image.") or qualname in (
        "tensorflow.cast", "tensorflow.convert_to_tensor", "numpy.float32", "numpy.copy", "numpy.asarray"))


def _leading_one(shape: nodes.NodeNG) -> bool:
    if isinstance(shape, (nodes.List, nodes.Tuple)) and shape.elts:
        shape = shape.elts[0]
    return isinstance(shape, nodes.Const) and shape.value == 1


def _name_is_one(module, name: nodes.Name, path: Optional[LoopPath], depth: int) -> bool:
    function = name.scope()
    if isinstance(function, FUNCTIONS) and _is_parameter(function, name.name):
        return _argument_is_one(module, function, name.name, path, depth)
    bindings = _reaching(name) or [b for b in assigned_in(function, name.name) if not isinstance(b, nodes.Arguments)]
    if not bindings:
        return False
    for binding in bindings:
        while isinstance(binding, (nodes.Tuple, nodes.List)):  # ``a, b = ...``, ``for a, b in ...``
            binding = binding.parent
        if isinstance(binding, nodes.Arguments):  # ``state = np.float32(state)``: the parameter, as passed
            owner = binding.parent
            if not (isinstance(owner, FUNCTIONS) and _argument_is_one(module, owner, name.name, path, depth)):
                return False
        elif isinstance(binding, nodes.Assign):
            value = binding.value
            if isinstance(value, nodes.Call) and _unpacks_env_step(binding, value) or _transition_field(binding):
                continue
            if not one_sample(module, value, path, depth + 1):
                return False
        elif isinstance(binding, (nodes.For, nodes.Comprehension)):
            if not (_transition_field(binding) or _batches_of_one(binding.iter)):
                return False
        else:
            return False
    return True


def _reaching(name: nodes.Name) -> list:
    """The assignments of ``name`` that reach this use, as astroid filters them (``img = read(); img = img[None]``:
    the second), in the same function; empty when astroid cannot say."""
    try:
        _, found = name.lookup(name.name)
    except Exception:  # astroid raises on odd scopes: fall back to every binding
        return []
    bindings = []
    for node in found:
        if not isinstance(node, nodes.AssignName):
            return []
        if node.parent is not None and isinstance(node.parent, nodes.Assign) and is_ancestor(node.parent, name):
            return _before(name, node.parent)  # ``state = np.float32(state)``: the right side reads the earlier one
        bindings.append(node.parent)  # a parameter's parent is the Arguments node
    return bindings


def _before(name: nodes.Name, statement: nodes.Assign) -> list:
    """The last binding of ``name`` in its function before ``statement`` (its parameter when none), in source order:
    a straight-line approximation for a name read on the right of its own assignment."""
    function = statement.scope()
    earlier = [b for b in assigned_in(function, name.name)
               if not isinstance(b, nodes.Arguments) and (b.lineno or 0) < (statement.lineno or 0)]
    if earlier:
        return [max(earlier, key=lambda b: b.lineno or 0)]
    if isinstance(function, FUNCTIONS) and name.name in {a.name for a in function.args.args or ()}:
        return [function.args]
    return []


def _unpacks_env_step(binding: nodes.Assign, value: nodes.Call) -> bool:
    func = value.func
    return isinstance(func, nodes.Attribute) and func.attrname in ("step", "reset") \
        and "env" in func.expr.as_string().lower() and isinstance(binding.targets[0], nodes.Tuple)


def _batches_of_one(iterable: Optional[nodes.NodeNG], depth: int = 0) -> bool:
    """``DataGenerator(path, batch_size=1)``, ``dataset.batch(1)`` (through ``enumerate`` and a name bound once):
    each item is a batch of one."""
    if isinstance(iterable, nodes.Call) and isinstance(iterable.func, nodes.Name) \
            and iterable.func.name == "enumerate" and iterable.args:
        iterable = iterable.args[0]
    if isinstance(iterable, nodes.Name) and depth < 2:
        bindings = _reaching(iterable)
        return len(bindings) == 1 and isinstance(bindings[0], nodes.Assign) \
            and _batches_of_one(bindings[0].value, depth + 1)
    if not isinstance(iterable, nodes.Call):
        return False
    if isinstance(iterable.func, nodes.Attribute) and iterable.func.attrname == "batch" and iterable.args:
        return _is_one(iterable.args[0])
    return any(keyword.arg == "batch_size" and _is_one(keyword.value) for keyword in iterable.keywords or ())


def _is_one(node: nodes.NodeNG) -> bool:
    return isinstance(node, nodes.Const) and node.value == 1 and type(node.value) is int


def _transition_field(loop: nodes.NodeNG) -> bool:
    """``for state, action, reward, next_state, done in minibatch:``: each name is one stored transition's field."""
    target = getattr(loop, "target", None)
    if isinstance(loop, nodes.Assign):  # ``state, action, reward, next_state, done = mini_batch[i]``
        target = loop.targets[0] if isinstance(loop.value, nodes.Subscript) else None
    return isinstance(target, nodes.Tuple) and len(target.elts) >= _TRANSITION_FIELDS


def _is_parameter(function: nodes.NodeNG, name: str) -> bool:
    arguments = function.args
    names = {a.name for a in (*(arguments.posonlyargs or ()), *(arguments.args or ()), *(arguments.kwonlyargs or ()))}
    return name in names and not any(not isinstance(b, nodes.Arguments) for b in assigned_in(function, name))


def _argument_is_one(module, function: nodes.NodeNG, name: str, path: Optional[LoopPath], depth: int) -> bool:
    if path is None:
        return False
    for index, call in enumerate(path.calls[:-1]):
        if isinstance(call, nodes.Call) and module.called_function(call) is function:
            bound = isinstance(call.func, nodes.Attribute)
            argument = argument_for(call, function, name, bound)
            if not isinstance(argument, nodes.NodeNG):
                return False
            upper = LoopPath(path.loop, path.calls[:index + 1])
            return one_sample(module, argument, upper, depth + 1)
    return False


# -- training steps ---------------------------------------------------------------------


def is_step_function(module, function: nodes.NodeNG) -> bool:
    """Return whether ``function`` takes gradients with a ``GradientTape`` and applies them (``apply_gradients``,
    ``assign_sub``), in its own code or in a module-local function it calls."""
    memo: Dict[int, bool] = module.facts("keras_steps_steps", lambda _: {})
    key = id(function)
    if key not in memo:
        memo[key] = _tapes(module, function) and _applies(module, function, 0)
    return memo[key]


def _tapes(module, function: nodes.NodeNG) -> bool:
    for node in own_nodes(function):
        if isinstance(node, nodes.With):
            for item, _ in node.items:
                if isinstance(item, nodes.Call) and (module.call_qualname(item) or "").endswith("GradientTape"):
                    return True
    return False


def _applies(module, function: nodes.NodeNG, depth: int) -> bool:
    for node in own_nodes(function):
        if not isinstance(node, nodes.Call):
            continue
        if isinstance(node.func, nodes.Attribute) and node.func.attrname in APPLY_METHODS:
            return True
        if depth < 1:
            callee = module.called_function(node)
            if isinstance(callee, FUNCTIONS) and callee.root() is module.module and callee is not function \
                    and _applies(module, callee, depth + 1):
                return True
    return False


def inline_step_loop(module, tape_with: nodes.With) -> Optional[nodes.NodeNG]:
    """The repeating loop whose own iteration opens this ``GradientTape`` and applies its gradients (the step
    written in the loop's body, not in a function), or None."""
    loop = _repeating_loop(tape_with)
    if loop is None or tf_functions(module).inside_trace(tape_with):
        return None
    for node in module.iteration_nodes(loop):
        if not isinstance(node, nodes.Call) or enclosing_loop(node) is not loop:
            continue
        if isinstance(node.func, nodes.Attribute) and node.func.attrname in APPLY_METHODS:
            return loop
        callee = module.called_function(node)  # ``apply(grads)``: a helper of this file that applies them
        if isinstance(callee, FUNCTIONS) and callee.root() is module.module and _applies(module, callee, 1):
            return loop
    return None


def eager_on_purpose(node: nodes.NodeNG) -> bool:
    """Under an ``if`` whose test names eager or debug mode (``if FLAGS.mode == "eager_tf":``, ``if args.debug:``):
    the program runs eagerly there by choice, to debug."""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, nodes.Module):
        if isinstance(parent, nodes.If) and child is not parent.test:
            text = parent.test.as_string().lower()
            if "eager" in text or "debug" in text:
                return True
        child, parent = parent, parent.parent
    return False


def tape_blocks(module, function: Optional[nodes.NodeNG] = None):
    """The ``with tf.GradientTape() as tape:`` blocks of the module (or of ``function``'s own code)."""
    found = []
    for call in module.candidate_calls(frozenset(), frozenset({"GradientTape"})):
        parent = call.parent
        if isinstance(parent, nodes.With) and any(item is call for item, _ in parent.items) \
                and (module.call_qualname(call) or "").endswith("GradientTape") \
                and (function is None or parent.scope() is function):
            found.append(parent)
    return found


def step_called(module, call: nodes.Call) -> Optional[nodes.NodeNG]:
    """Return the training-step function ``call`` calls, compiled or not (a ``tf.function`` whose Python function
    is a step, or a plain one), when it is in this module; else None."""
    traced = tf_functions(module).traced_of(call)
    function = traced.function if traced is not None else module.called_function(call)
    if isinstance(function, FUNCTIONS) and function.root() is module.module and is_step_function(module, function):
        return function
    return None
