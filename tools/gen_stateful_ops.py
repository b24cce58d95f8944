"""Write ``tfguard/static/fixes/tf_stateful_apis.json``: which public TF APIs build ops that hold state.

A hoist (build the op once, before the loop) keeps what the program computes only when running one op many
times gives what running many fresh ops once each gave.  That is false for an op whose *kernel* keeps state
between runs: a seeded ``RandomStandardNormal`` returns the same draw from every fresh op but a new draw from
every run of one op; a ``VariableV2``, ``FIFOQueueV2`` or ``OneShotIterator`` built per iteration is a new
variable, queue or iterator each time; ``Print``'s ``first_n`` counts the runs of its op.  TensorFlow says which
ops are stateful (``OpDef.is_stateful``); of those, the ops that reach their state through an input (a resource
handle or a reference: ``AssignVariableOp``, ``IteratorGetNext``, ``QueueDequeueV2``, ``ReaderReadV2``) act on
state the program already shares between iterations, so one op or many do the same.  The ops that hold state
are therefore: stateful, no resource or reference input, at least one output (an op with no output, such as
``Assert`` or ``SaveV2``, gives no value that could differ; what it writes is covered by the fix rules).

This script (the only place that imports TensorFlow for this) reads the op registry, finds the op each
generated wrapper (``gen_*_ops.random_standard_normal``) builds from its source, and follows the calls of
every public ``tf.compat.v1`` function and class (``__init__``) through TensorFlow's own Python source, so that
``tf.random_normal`` -> ``random_ops.random_normal`` -> ``gen_random_ops.random_standard_normal`` ->
``RandomStandardNormal`` is recorded.  Public methods of public classes are recorded by their name
(``.sample``), as the checker sees a method call.  A call resolved only at run time (a dispatcher, a function
passed as an argument) is not followed: the data can miss an API, never invent one, and tfguard keeps its own
short list of state-creating APIs beside it (``tfguard/static/fixes/loops.py``).

Run ``python tools/gen_stateful_ops.py`` after upgrading TensorFlow and commit the file;
``tests/fixes/test_stateful_data.py`` fails while it is stale for the installed release.
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import re
import sys
import textwrap
import types
from typing import Dict, List, Optional, Set

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(ROOT, "tfguard", "static", "fixes", "tf_stateful_apis.json")

_OP_NAME = re.compile(r'_apply_op_helper\(\s*"(\w+)"')
#: How many calls deep a public API is followed into TensorFlow's source.
MAX_DEPTH = 8


#: Stateful in the registry, yet holding nothing between runs when TensorFlow's own code builds them:
#: ``If``/``While``/``Case`` are stateful only through the ops of their branches and bodies, which this script
#: follows in TensorFlow's source (a random op in a ``tf.cond`` of ``tf.image.random_flip_left_right`` is recorded
#: itself); a ``TensorArray`` or stack op makes a new resource in the step's container on every run, gone when the
#: run ends.  They still count for an API that takes a function of the caller's (``tf.cond``, ``tf.map_fn``,
#: ``tf.while_loop``): what that function builds is not followed.  (``tf.norm`` and ``tf.losses.*`` were classed
#: stateful for these alone, issue 40.)
PER_RUN_OPS = frozenset({"If", "While", "Case", "TensorArrayV3", "TensorArrayV2", "TensorArray", "StackV2", "Stack"})
#: Parameter names of public TF functions that take a function or object of the caller's, whose builds are not
#: followed (an RNN cell, a TPU computation, a state saver).
_FUNCTION_PARAMETERS = re.compile(
    r"(^|_)(fn|fns|func|function|body|cond|branch|branches|pairs|f|op|cell|cells|cell_fw|cell_bw|computation|"
    r"state_saver|obj)$")


def _takes_a_function(obj) -> bool:
    """Whether a public API has a parameter for a function of the caller's (``true_fn``, ``body``, ``map_func``)."""
    try:
        parameters = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return True  # unknown: keep every op
    return any(_FUNCTION_PARAMETERS.search(name) for name in parameters)


def _holds_state(op_def) -> bool:
    from tensorflow.core.framework import types_pb2

    if not op_def.is_stateful or not op_def.output_arg:
        return False
    return not any(arg.type == types_pb2.DT_RESOURCE or arg.is_ref for arg in op_def.input_arg)


def _wrapper_ops() -> Dict[int, str]:
    """Map id(generated wrapper function) -> the op it builds, for every ``gen_*`` module loaded."""
    found: Dict[int, str] = {}
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith("tensorflow.") or not name.rsplit(".", 1)[-1].startswith("gen_"):
            continue
        for value in vars(module).values():
            if not isinstance(value, types.FunctionType) or value.__module__ != name:
                continue
            try:
                match = _OP_NAME.search(inspect.getsource(value))
            except (OSError, TypeError):
                continue
            if match:
                found[id(value)] = match.group(1)
    return found


class Tracer:
    """Follows calls from a Python callable through TensorFlow's source to the ops it builds."""

    def __init__(self, wrappers: Dict[int, str], holding: Set[str]) -> None:
        self.wrappers = wrappers
        self.holding = holding
        self.memo: Dict[int, Set[str]] = {}

    def ops(self, obj, depth: int = MAX_DEPTH, owner: Optional[type] = None) -> Set[str]:
        """Return the state-holding ops ``obj`` may build."""
        if isinstance(obj, type):
            init = obj.__dict__.get("__init__")
            return self.ops(init, depth, obj) if init is not None else set()
        obj = inspect.unwrap(obj) if callable(obj) else obj
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        if not isinstance(obj, types.FunctionType):
            return set()
        op = self.wrappers.get(id(obj))
        if op is not None:
            return {op} if op in self.holding else set()
        if not (obj.__module__ or "").startswith("tensorflow") or depth <= 0:
            return set()
        key = id(obj)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = set()  # a cycle adds nothing
        found: Set[str] = set()
        for callee in self._callees(obj, owner):
            found |= self.ops(callee, depth - 1, owner if isinstance(callee, types.FunctionType) else None)
        self.memo[key] = found
        return found

    @staticmethod
    def _callees(func: types.FunctionType, owner: Optional[type]) -> List[object]:
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
        except (OSError, TypeError, SyntaxError, IndentationError):
            return []
        scope = dict(func.__globals__)
        callees = []
        inner = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                inner.add(id(node.value))
        for node in ast.walk(tree):
            # every function the body names may be called: directly, or passed on
            # (``functools.partial(random_ops.random_uniform, seed=seed)``)
            if isinstance(node, (ast.Name, ast.Attribute)) and id(node) not in inner and isinstance(node.ctx, ast.Load):
                target = _resolve(node, scope, owner)
                if callable(target) or isinstance(target, (staticmethod, classmethod)):
                    callees.append(target)
        return callees


def _resolve(expr: ast.expr, scope: dict, owner: Optional[type]):
    parts: List[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    if expr.id in ("self", "cls") and owner is not None:
        value: object = owner
    elif expr.id in scope:
        value = scope[expr.id]
    else:
        return None
    for part in reversed(parts):
        try:
            value = inspect.getattr_static(value, part)
        except AttributeError:
            return None
    return value


def _public_api(tf) -> Dict[str, object]:
    """Return canonical name (``tensorflow.random_normal``) -> object for the public ``tf.compat.v1`` API."""
    found: Dict[str, object] = {}
    seen: Set[int] = set()

    def walk(module, prefix: str) -> None:
        if id(module) in seen:
            return
        seen.add(id(module))
        for name in sorted(dir(module)):
            if name.startswith("_") or name == "compat":  # tf.compat.v1.compat.v2...: the same API again
                continue
            try:
                value = getattr(module, name)
            except Exception:  # noqa: BLE001 - a lazy module that fails to load is left out
                continue
            if isinstance(value, types.ModuleType):
                if getattr(value, "__name__", "").startswith(("tensorflow._api.", "tensorflow.compat.v1")):
                    walk(value, f"{prefix}.{name}")
            elif callable(value):
                found.setdefault(f"{prefix}.{name}", value)

    walk(tf.compat.v1, "tensorflow")
    return found


def build() -> dict:
    """Return the data: the TF version, the state-holding ops and which APIs and methods build them."""
    import tensorflow as tf
    from tensorflow.python.framework import op_def_registry

    api = _public_api(tf)
    wrappers = _wrapper_ops()
    names = set(wrappers.values()) | {name for name in dir(tf.raw_ops) if not name.startswith("_")}
    registry = {name: op_def_registry.get(name) for name in sorted(names)}
    holding = {name for name, op_def in registry.items() if op_def is not None and _holds_state(op_def)}
    tracer = Tracer(wrappers, holding)
    apis: Dict[str, List[str]] = {}
    methods: Dict[str, Set[str]] = {}
    for name, value in sorted(api.items()):
        ops = tracer.ops(value)
        if not isinstance(value, type) and not _takes_a_function(value):
            ops = ops - PER_RUN_OPS
        if ops:
            apis[name] = sorted(ops)
        if isinstance(value, type):
            for attr, member in vars(value).items():
                if attr.startswith("_") or not isinstance(member, (types.FunctionType, staticmethod, classmethod)):
                    continue
                member_ops = tracer.ops(member, owner=value)
                if member_ops:
                    methods.setdefault(f".{attr}", set()).update(member_ops)
    return {
        "tensorflow": tf.__version__,
        "ops": sorted(holding),
        "apis": apis,
        "methods": {name: sorted(ops) for name, ops in sorted(methods.items())},
    }


def main() -> int:
    """Regenerate the data file; print a one-line summary."""
    data = build()
    with open(OUTPUT, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1, sort_keys=True)
        handle.write("\n")
    print(f"wrote {os.path.relpath(OUTPUT, ROOT)}: {len(data['ops'])} state-holding ops, {len(data['apis'])} APIs, "
          f"{len(data['methods'])} methods (TensorFlow {data['tensorflow']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
