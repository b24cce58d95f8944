"""Where the code shows that the Tensors a ``tf.function`` gets change shape from call to call.

A ``tf.function`` without ``input_signature`` or ``reduce_retracing=True`` traces once per input shape it sees.
The shape varies, as the code shows it, when a loop feeds the function

* batches of a ``tf.data`` pipeline padded per batch: ``padded_batch`` without fully fixed ``padded_shapes``
  (each batch is as long as its longest element), ``bucket_by_sequence_length`` / ``group_by_window`` (one
  shape per bucket, and per length within it), or a ``from_generator`` source declaring an unknown dimension
  (``None`` in ``output_shapes`` / ``output_signature``) that no ``batch`` squares;
* NumPy batches from a Python generator of the project that pads each batch to its own longest item
  (``max(len(x) for x in batch)``, ``pad_sequences(batch)`` without ``maxlen=``);
* images decoded one by one (``tf.image.decode_jpeg``, ``decode_image``, ``tf.io.decode_png``...) and not resized
  before the call.

A ``.batch(n)`` whose last batch is smaller gives at most two shapes: not reported.
"""

from __future__ import annotations

import os
from typing import List, Optional, Tuple

from astroid import nodes

from tfguard.static.analysis.datasets import datasets
from tfguard.static.analysis.tf_functions import loop_targets

#: Dataset methods (and ``tf.data.experimental`` transformations passed to ``apply``) that pad or bucket per batch.
BUCKETING = frozenset({"bucket_by_sequence_length", "group_by_window"})
DECODERS = frozenset({
    "tensorflow.image.decode_jpeg", "tensorflow.image.decode_png", "tensorflow.image.decode_image",
    "tensorflow.image.decode_bmp", "tensorflow.image.decode_gif", "tensorflow.io.decode_jpeg",
    "tensorflow.io.decode_png", "tensorflow.io.decode_image", "tensorflow.io.decode_bmp", "tensorflow.io.decode_gif",
})


def varying_batches(module, loop: nodes.NodeNG) -> Optional[str]:
    """Return how the pipeline a ``for`` loop iterates makes its shapes vary, or None."""
    found = varying_batches_at(module, loop)
    return found[0] if found is not None else None


def varying_batches_at(module, loop: nodes.NodeNG) -> Optional[Tuple[str, nodes.Call]]:
    """:func:`varying_batches`, and the call that makes the shapes vary (the line the message names)."""
    iterable = getattr(loop, "iter", None)
    if iterable is None:
        return None
    if isinstance(iterable, nodes.Call) and isinstance(iterable.func, nodes.Name) \
            and iterable.func.name in ("enumerate", "iter") and iterable.args:
        iterable = iterable.args[0]
    if isinstance(iterable, nodes.Call) and isinstance(iterable.func, nodes.Attribute) \
            and iterable.func.attrname in ("enumerate", "take", "repeat", "prefetch", "shuffle") \
            and not iterable.args[1:]:
        iterable = iterable.func.expr
    chain = datasets(module).chain(iterable) or _method_calls(module, iterable, 0)
    if not chain:
        return _padded_per_batch(module, iterable)
    return _varying_step(module, chain)


#: Keras' ``pad_sequences``: without ``maxlen`` it pads to the longest sequence it is given.
_PAD_SEQUENCES = "pad_sequences"


def _padded_per_batch(module, iterable: nodes.NodeNG) -> Optional[Tuple[str, nodes.NodeNG]]:
    """A Python generator of NumPy batches, each padded to its own longest item (issue 44): the loop iterates
    a call of a project function that ``yield``s and sizes its batches with ``max(len(x) for x in batch)``
    (``max(map(len, ...))``, ``max([len(x) ...])``) or ``pad_sequences(batch)`` without ``maxlen=``.  Padding
    to a fixed length (a constant, ``maxlen=MAX``) gives one shape: not reported."""
    if not isinstance(iterable, nodes.Call):
        return None
    function = module.called_function(iterable)
    if not isinstance(function, (nodes.FunctionDef, nodes.AsyncFunctionDef)) or not function.is_generator():
        return None
    for call in function.nodes_of_class(nodes.Call):
        if call.scope() is not function:
            continue
        if _max_of_lengths(call) or _pads_to_longest(call):
            how = call.as_string() if len(call.as_string()) <= 40 else call.as_string()[:37] + "..."
            return (f"`{function.name}()` pads each batch to its own longest item (`{how}`, "
                    f"{_place(module, call)})", call)
    return None


def _pads_to_longest(call: nodes.Call) -> bool:
    """``pad_sequences(seqs)`` with no ``maxlen`` (keyword or second argument): as long as the longest of ``seqs``."""
    return _called_name(call) == _PAD_SEQUENCES and len(call.args) < 2 \
        and not any(k.arg == "maxlen" for k in call.keywords or ())


def _called_name(call: nodes.Call) -> Optional[str]:
    func = call.func
    return func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", None)


def _max_of_lengths(call: nodes.Call) -> bool:
    """``max(len(x) for x in xs)``, ``max([len(x) for x in xs])``, ``max(map(len, xs))``."""
    if _called_name(call) != "max" or not isinstance(call.func, nodes.Name) or len(call.args) != 1:
        return False
    argument = call.args[0]
    if isinstance(argument, (nodes.GeneratorExp, nodes.ListComp)):
        return isinstance(argument.elt, nodes.Call) and _called_name(argument.elt) == "len"
    return isinstance(argument, nodes.Call) and _called_name(argument) == "map" and argument.args[:1] != [] \
        and isinstance(argument.args[0], nodes.Name) and argument.args[0].name == "len"


#: How far names, method chains and returned tuples are followed when the pipeline's source is not a known one.
_MAX_FOLLOW = 12


def _method_calls(module, expr: Optional[nodes.NodeNG], depth: int) -> List[nodes.Call]:
    """The method calls that built ``expr``, newest first, followed through names, subscripts and the items of
    tuples that project functions return: for pipelines whose source tfguard does not know as a dataset
    (``tfds.load(...)['train']``), where ``padded_batch`` and the bucketing methods are recognised by name."""
    if expr is None or depth > _MAX_FOLLOW:
        return []
    if isinstance(expr, nodes.Subscript):
        return _method_calls(module, expr.value, depth + 1)
    if isinstance(expr, nodes.Call):
        if isinstance(expr.func, nodes.Attribute):
            return [expr, *_method_calls(module, expr.func.expr, depth + 1)]
        return _returned(module, expr, None, depth)
    if isinstance(expr, nodes.Name):
        binding = module.dataflow.reaching_definition(expr)
        if not isinstance(binding, nodes.AssignName):
            return []
        parent = binding.parent
        if isinstance(parent, nodes.Assign):
            return _method_calls(module, parent.value, depth + 1)
        if isinstance(parent, nodes.Tuple) and isinstance(parent.parent, nodes.Assign) and binding in parent.elts:
            return _returned(module, parent.parent.value, parent.elts.index(binding), depth)
    return []


def _returned(module, call: nodes.NodeNG, index: Optional[int], depth: int) -> List[nodes.Call]:
    from tfguard.static.analysis.function_creation import analysis_of  # a sibling built on the same layer

    if not isinstance(call, nodes.Call) or module.call_qualname(call) is not None:
        return []
    function = module.called_function(call)
    owner = analysis_of(module, function) if function is not None else None
    if owner is None or not isinstance(function, (nodes.FunctionDef, nodes.AsyncFunctionDef)):
        return []
    for node in function.nodes_of_class(nodes.Return):
        value = node.value
        if value is None or node.scope() is not function:
            continue
        if index is not None:
            if not isinstance(value, (nodes.Tuple, nodes.List)) or index >= len(value.elts):
                continue
            value = value.elts[index]
        found = _method_calls(owner, value, depth + 1)
        if found:
            return found
    return []


def _place(module, call: nodes.NodeNG) -> str:
    """"line 12", or "data.py:12" for a call in another file of the project."""
    root = call.root()
    if root is module.module or not getattr(root, "file", None):
        return f"line {call.lineno}"
    return f"{os.path.basename(root.file)}:{call.lineno}"


def _varying_step(module, chain: List[nodes.Call]) -> Optional[Tuple[str, nodes.Call]]:
    batched = False
    for call in chain:  # newest first
        func = call.func
        method = func.attrname if isinstance(func, nodes.Attribute) else None
        if method == "padded_batch":
            if _fixed_shapes(_argument(call, 1, "padded_shapes")):
                return None
            return f"`padded_batch` ({_place(module, call)}) pads each batch to its own longest element", call
        if method in BUCKETING:
            return f"`{method}` ({_place(module, call)}) makes batches of a different length per bucket", call
        transformation, owner = _transformation(module, call) if method == "apply" else (None, module)
        if transformation is not None:
            inner = owner.call_qualname(transformation) or ""
            leaf = inner.rsplit(".", 1)[-1]
            if leaf in BUCKETING:
                return f"`{leaf}` ({_place(module, call)}) makes batches of a different length per bucket", call
        if method in ("batch", "unbatch", "rebatch"):
            batched = True
        qualname = module.call_qualname(call) or ""
        if qualname.endswith("Dataset.from_generator") and not batched:
            shapes = _argument(call, 3, "output_shapes") or _argument(call, 99, "output_signature")
            if shapes is not None and _has_unknown_dimension(shapes):
                return (f"`from_generator` ({_place(module, call)}) declares an unknown dimension, element by "
                        "element", call)
    return None


def _transformation(module, call: nodes.Call):
    """The call that made what ``ds.apply(...)`` gets, written there or bound to a name first
    (``bucketing = bucket_by_sequence_length(...)``, ``ds.apply(bucketing)``), and the analysis of its file."""
    owner = module.project.owner(call) if module.project is not None else None
    owner = owner or module
    argument = call.args[0] if call.args else None
    if isinstance(argument, nodes.Name):
        binding = owner.dataflow.reaching_definition(argument)
        if isinstance(binding, nodes.AssignName) and isinstance(binding.parent, nodes.Assign):
            argument = binding.parent.value
    return (argument, owner) if isinstance(argument, nodes.Call) else (None, owner)


def _argument(call: nodes.Call, index: int, keyword: str) -> Optional[nodes.NodeNG]:
    for k in call.keywords or ():
        if k.arg == keyword:
            return k.value
    return call.args[index] if len(call.args) > index else None


def _fixed_shapes(shapes: Optional[nodes.NodeNG]) -> bool:
    """Whether ``padded_shapes`` is written with literal sizes only (every batch padded to the same shape)."""
    if shapes is None:
        return False
    if isinstance(shapes, (nodes.List, nodes.Tuple)):
        return all(_fixed_shapes(e) if isinstance(e, (nodes.List, nodes.Tuple, nodes.Dict)) else _fixed_dim(e)
                   for e in shapes.elts)
    if isinstance(shapes, nodes.Dict):
        return all(_fixed_shapes(v) for _, v in shapes.items)
    return False


def _fixed_dim(dim: nodes.NodeNG) -> bool:
    return isinstance(dim, nodes.Const) and isinstance(dim.value, int) and dim.value >= 0 \
        and not isinstance(dim.value, bool)


def _has_unknown_dimension(shapes: nodes.NodeNG) -> bool:
    for const in shapes.nodes_of_class(nodes.Const):
        if const.value is None:
            return True
    return False


def decoded_per_item(module, loop: nodes.NodeNG, argument: nodes.NodeNG) -> Optional[str]:
    """Return how ``argument`` (in ``loop``'s body) is an image decoded there at its own size, or None."""
    found = decoded_per_item_at(module, loop, argument)
    return found[0] if found is not None else None


def decoded_per_item_at(module, loop: nodes.NodeNG, argument: nodes.NodeNG) -> Optional[Tuple[str, nodes.Call]]:
    """:func:`decoded_per_item`, and the decoding call (the line the message names).

    Followed through shape-keeping steps (``image[None]``, ``tf.expand_dims``, ``tf.cast``, ``image / 255``) and
    the names the loop body binds; a resize, crop, pad or reshape of the name there fixes the size: not reported.
    """
    expr = _unwrap(module, argument)
    if isinstance(expr, nodes.Name):
        bindings = [
            _unwrap(module, a.value) for a in loop.nodes_of_class(nodes.Assign)
            if len(a.targets) == 1 and isinstance(a.targets[0], nodes.AssignName) and a.targets[0].name == expr.name
        ]
        if any(_fixes_size(module, b) for b in bindings):
            return None
        decoded = [b for b in bindings if isinstance(b, nodes.Call) and module.call_named(b, DECODERS)]
        if not decoded:
            return None
        expr = decoded[0]
    if not isinstance(expr, nodes.Call):
        return None
    qualname = module.call_named(expr, DECODERS)
    if qualname is None:
        return None
    return f"an image decoded at its own size (`{qualname.rsplit('.', 1)[-1]}`, line {expr.lineno})", expr


#: Calls that keep their first argument's shape.
_SHAPE_KEEPING = frozenset({"tensorflow.expand_dims", "tensorflow.cast", "tensorflow.image.convert_image_dtype",
                            "tensorflow.convert_to_tensor"})


def _unwrap(module, expr: nodes.NodeNG) -> nodes.NodeNG:
    for _ in range(6):
        if isinstance(expr, nodes.Subscript):
            expr = expr.value
        elif isinstance(expr, nodes.BinOp) and isinstance(expr.right, nodes.Const):
            expr = expr.left
        elif isinstance(expr, nodes.Call) and expr.args and module.call_named(expr, _SHAPE_KEEPING):
            expr = expr.args[0]
        else:
            break
    return expr


def _fixes_size(module, expr: nodes.NodeNG) -> bool:
    if not isinstance(expr, nodes.Call):
        return False
    qualname = module.call_qualname(expr) or ""
    leaf = qualname.rsplit(".", 1)[-1]
    return qualname.startswith("tensorflow.") and ("resize" in leaf or "crop" in leaf or "pad" in leaf
                                                   or leaf == "reshape")


def fed_by_loop(loop: nodes.NodeNG, argument: nodes.NodeNG) -> bool:
    """Whether ``argument`` reads a name the ``for`` loop binds (the batch itself, or part of it)."""
    targets = loop_targets(loop)
    names = [argument, *argument.nodes_of_class(nodes.Name)]
    return any(isinstance(n, nodes.Name) and n.name in targets for n in names)
