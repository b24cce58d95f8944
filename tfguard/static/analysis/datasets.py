"""tf.data pipelines: which expressions are datasets, and the chain of calls that built them.

A pipeline's chain is followed back from an expression to its source
(``tf.data.TFRecordDataset(...)``, ``Dataset.from_tensor_slices(...)``) through
method chains, parenthesised multi-line chains, reassignments
(``ds = ds.map(f)``) and calls to functions of the same module that return a
dataset.  Parameters (what the function's call sites pass), project module
attributes and object attributes are followed too (:mod:`~tfguard.static.analysis.dataset_flow`).
Unknown links (a parameter no call site of its module fills with a known
pipeline) end the chain as *unknown*, and rules stay silent about it.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional

from astroid import nodes

from tfguard.static.analysis.dataset_flow import _owner, attribute_chain, passed_in_chain
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.scopes import is_ancestor, own_nodes, position

#: Dataset methods that return a new dataset.
DATASET_METHODS = frozenset({
    "map", "batch", "padded_batch", "shuffle", "repeat", "prefetch", "filter", "interleave", "flat_map",
    "apply", "take", "skip", "cache", "unbatch", "concatenate", "shard", "with_options", "window",
    "enumerate", "unique", "take_while", "ignore_errors", "rebatch", "snapshot", "ragged_batch",
    "map_with_legacy_function", "filter_with_legacy_function", "bucket_by_sequence_length",
})

#: Canonical names of calls that create a dataset.
_SOURCE = re.compile(
    r"^tensorflow\.data\.(Dataset\.\w+|\w+Dataset|experimental\.(\w+Dataset|make_\w+_dataset|Counter"
    r"|sample_from_datasets|choose_from_datasets))$"
)

#: Sources whose datasets already end in a prefetch.
PREFETCHING_SOURCES = frozenset({
    "tensorflow.data.experimental.make_csv_dataset",
    "tensorflow.data.experimental.make_batched_features_dataset",
})

#: Transformations for ``Dataset.apply`` that prefetch.
PREFETCHING_TRANSFORMATIONS = frozenset({
    "tensorflow.data.experimental.prefetch_to_device",
    "tensorflow.data.experimental.copy_to_device",
    # ``from tensorflow.contrib.data import prefetch_to_device`` (TF 1.x), which canonical() spells so
    "tensorflow.data.prefetch_to_device", "tensorflow.data.copy_to_device",
})

_MAX_DEPTH = 40


def datasets(module: ModuleAnalysis) -> "DatasetAnalysis":
    """Return the module's memoised :class:`DatasetAnalysis`."""
    return module.facts("datasets", DatasetAnalysis)


class DatasetAnalysis:
    """Follows tf.data pipelines of one module."""

    def __init__(self, module: ModuleAnalysis) -> None:
        self.module = module
        self._chains: Dict[int, Optional[List[nodes.Call]]] = {}

    def chain(self, expr: Optional[nodes.NodeNG], depth: int = 0) -> Optional[List[nodes.Call]]:
        """Return the calls that built the dataset ``expr`` holds, newest first; None if not a known dataset."""
        if expr is None or depth > _MAX_DEPTH:
            return None
        key = id(expr)
        if key not in self._chains:
            self._chains[key] = None  # cycle guard
            self._chains[key] = self._compute(expr, depth)
        return self._chains[key]

    def is_dataset(self, expr: Optional[nodes.NodeNG]) -> bool:
        """Return whether ``expr`` is known to hold a tf.data dataset."""
        return self.chain(expr) is not None

    def is_contrib(self, chain: List[nodes.Call]) -> bool:
        """Whether a pipeline starts from ``tf.contrib.data`` (TF 1.2/1.3: ``map`` takes ``num_threads`` there,
        not ``num_parallel_calls``)."""
        for call in chain:  # canonical names spell ``tf.contrib.data`` as ``tf.data``: read the spelling
            root = call.func
            while isinstance(root, nodes.Attribute):
                root = root.expr
            if "contrib.data." in call.func.as_string():
                return True
            if isinstance(root, nodes.Name):
                _, bindings = root.lookup(root.name)
                for binding in bindings:
                    statement = binding.statement()
                    if isinstance(statement, nodes.ImportFrom) and "contrib.data" in (statement.modname or ""):
                        return True
        return False

    def has_prefetch(self, chain: List[nodes.Call]) -> bool:
        """Return whether a pipeline chain prefetches anywhere."""
        for call in chain:
            func = call.func
            if isinstance(func, nodes.Attribute) and func.attrname == "prefetch":
                return True
            if isinstance(func, nodes.Attribute) and func.attrname == "map" and any(
                    keyword.arg == "output_buffer_size" for keyword in call.keywords or ()):
                return True  # ``tf.contrib.data`` (TF 1.2/1.3): the map keeps that many elements ready ahead
            if isinstance(func, nodes.Attribute) and func.attrname == "apply" and call.args:
                transformation = call.args[0]
                if isinstance(transformation, nodes.Call):
                    if self.module.call_named(transformation, PREFETCHING_TRANSFORMATIONS):
                        return True
            if self.module.call_named(call, PREFETCHING_SOURCES):
                return True
        return False

    def _compute(self, expr: nodes.NodeNG, depth: int) -> Optional[List[nodes.Call]]:
        if isinstance(expr, nodes.Call):
            return self._call_chain(expr, depth)
        if isinstance(expr, nodes.Name):
            chains = [
                self.chain(binding.parent.value, depth + 1) if _is_assignment(binding)
                else passed_in_chain(self, binding, depth) if _is_parameter(binding)
                else self._unpacked_chain(binding, depth)
                for binding in self._reaching_bindings(expr)
            ]
            known = [c for c in chains if c is not None]
            if not known:
                return None
            # A path without a prefetch decides (``if fast: ds = ds.prefetch(1)`` leaves one).
            known.sort(key=self.has_prefetch)
            return known[0]
        if isinstance(expr, nodes.NamedExpr):
            return self.chain(expr.value, depth + 1)
        if isinstance(expr, nodes.Attribute):
            return attribute_chain(self, expr, depth)
        return None

    def _unpacked_chain(self, binding: nodes.NodeNG, depth: int) -> Optional[List[nodes.Call]]:
        """``train_data, test_data = utils.get_mnist_dataset(batch_size)``: the item of a returned tuple."""
        target = binding.parent
        if not (isinstance(binding, nodes.AssignName) and isinstance(target, nodes.Tuple)
                and isinstance(target.parent, nodes.Assign) and binding in target.elts):
            return None
        if any(isinstance(e, nodes.Starred) for e in target.elts):
            return None
        return self.item_chain(target.parent.value, target.elts.index(binding), depth + 1)

    def item_chain(self, expr: Optional[nodes.NodeNG], index: int, depth: int) -> Optional[List[nodes.Call]]:
        """The pipeline at ``index`` of a tuple: written in place, or returned by a function of the project."""
        if expr is None or depth > _MAX_DEPTH:
            return None
        if isinstance(expr, (nodes.Tuple, nodes.List)):
            elements = expr.elts
            if index >= len(elements) or any(isinstance(e, nodes.Starred) for e in elements):
                return None
            return self.chain(elements[index], depth + 1)
        if not isinstance(expr, nodes.Call) or self.module.call_qualname(expr) is not None:
            return None
        function = self.module.called_function(expr)
        if function is None:
            return None
        owner = _owner(self, function)
        returned = [owner.item_chain(node.value, index, depth + 1) for node in own_nodes(function)
                    if isinstance(node, nodes.Return) and node.value is not None]
        known = [c for c in returned if c is not None]
        if not known:
            return None
        known.sort(key=self.has_prefetch)
        return [expr, *known[0]]

    def _reaching_bindings(self, name: nodes.Name) -> List[nodes.NodeNG]:
        """Return the bindings of ``name`` that may reach it: the last one above it and, when that one
        sits in a branch of an ``if`` the use is not in, what reaches the ``if`` on the other path."""
        dataflow = self.module.dataflow
        binding = dataflow.reaching_definition(name)
        found: List[nodes.NodeNG] = []
        while binding is not None and len(found) < _MAX_DEPTH:
            found.append(binding)
            branch = _branch_not_holding(binding, name)
            if branch is None:
                break
            statement, other_branch = branch
            others = [b for b in _bindings_in(dataflow, name, other_branch)]
            if others:
                found.append(max(others, key=lambda b: position(b.statement())))
                break
            earlier = [
                b for b in dataflow.definitions(name, name.name)
                if b.scope() is name.scope() and position(b.statement()) < position(statement)
            ]
            binding = max(earlier, key=lambda b: position(b.statement())) if earlier else None
        return found

    def _call_chain(self, call: nodes.Call, depth: int) -> Optional[List[nodes.Call]]:
        func = call.func
        if isinstance(func, nodes.Attribute) and func.attrname in DATASET_METHODS:
            inner = self.chain(func.expr, depth + 1)
            if inner is not None:
                return [call, *inner]
        qualname = self.module.call_qualname(call)
        if qualname is not None:
            return [call] if _SOURCE.match(qualname) else None
        function = self.module.called_function(call)
        if function is None:
            return None
        returned = [
            self.chain(node.value, depth + 1)
            for node in own_nodes(function)
            if isinstance(node, nodes.Return) and node.value is not None
        ]
        known = [c for c in returned if c is not None]
        if not known:
            return None
        # The pipeline that lacks a prefetch decides, so a missing one is not hidden by another return.
        known.sort(key=self.has_prefetch)
        return [call, *known[0]]


def _is_parameter(binding: nodes.NodeNG) -> bool:
    return isinstance(binding, nodes.AssignName) and isinstance(binding.parent, nodes.Arguments)


def _is_assignment(binding: nodes.NodeNG) -> bool:
    return isinstance(binding, nodes.AssignName) and isinstance(binding.parent, (nodes.Assign, nodes.AnnAssign))


def _branch_not_holding(binding: nodes.NodeNG, use: nodes.NodeNG):
    """Return (the ``if``, its other branch) when ``binding`` is in one branch of an ``if`` without ``use``."""
    child, parent = binding, binding.parent
    while parent is not None and not isinstance(parent, (nodes.FunctionDef, nodes.AsyncFunctionDef, nodes.Module)):
        if isinstance(parent, nodes.If) and child is not parent.test and not is_ancestor(parent, use):
            return parent, (parent.orelse if child in parent.body else parent.body)
        child, parent = parent, parent.parent
    return None


def _bindings_in(dataflow, name: nodes.Name, statements) -> List[nodes.NodeNG]:
    return [
        b for b in dataflow.definitions(name, name.name)
        if b.scope() is name.scope() and any(s is b or is_ancestor(s, b) for s in statements)
    ]
