"""tf.data pipelines whose cost TFG204/TFG205 describe cannot occur (issue 44, rule 3).

* A ``map`` whose function only restructures its element (``lambda x, y: x``, ``lambda d: (d["image"],
  d["label"])``, ``lambda d: {"inputs": d["text"]}``): it builds no op, only picks or renames tensors, so a
  parallel map has nothing to run in parallel (TFG204).
* A pipeline that yields one in-memory element (``Dataset.from_tensors(arrays)``, optionally repeated, with no
  ``map`` / ``interleave``; or one that ends in ``take(1)``): every batch is the same tensors already in memory,
  so a prefetch has nothing to prepare ahead (TFG205).
"""

from __future__ import annotations

from typing import List, Optional

from astroid import nodes

from tfguard.static.analysis.scopes import FUNCTIONS

#: Dataset methods that run a function or read files per element: each makes the pipeline do work.
_WORKING_METHODS = frozenset({
    "map", "interleave", "flat_map", "parallel_interleave", "apply", "map_and_batch", "filter", "from_generator",
    "TFRecordDataset", "TextLineDataset", "list_files",
})


def restructures_only(module, function: Optional[nodes.NodeNG]) -> bool:
    """Whether a map function only picks, renames or regroups the parts of its element (no op at all).

    ``function`` is the map's argument: a lambda, or a name bound to a ``def`` of this module whose body is
    one ``return`` (after a docstring) of such an expression.
    """
    if isinstance(function, nodes.Lambda):
        return _restructures(function.body, _parameters(function))
    if isinstance(function, nodes.Name):
        value = module.value(function)
        function = value.node if value is not None and value.kind == "function" else None
    if not isinstance(function, FUNCTIONS) or function.decorators is not None:
        return False
    body = [statement for statement in function.body
            if not (isinstance(statement, nodes.Expr) and isinstance(statement.value, nodes.Const))]
    return len(body) == 1 and isinstance(body[0], nodes.Return) and body[0].value is not None \
        and _restructures(body[0].value, _parameters(function))


def _parameters(function: nodes.NodeNG) -> frozenset:
    args = function.args
    names = [a.name for a in (*(args.posonlyargs or ()), *(args.args or ()))]
    if args.vararg:
        names.append(args.vararg)
    return frozenset(names)


def _restructures(expr: nodes.NodeNG, parameters: frozenset) -> bool:
    """A parameter, a constant item of one (``d["image"]``, ``x[0]``), or a tuple/list/dict of those."""
    if isinstance(expr, nodes.Name):
        return expr.name in parameters
    if isinstance(expr, nodes.Subscript):
        return isinstance(expr.slice, nodes.Const) and _restructures(expr.value, parameters)
    if isinstance(expr, (nodes.Tuple, nodes.List)):
        return all(_restructures(e, parameters) for e in expr.elts)
    if isinstance(expr, nodes.Dict):
        return all(isinstance(k, nodes.Const) and _restructures(v, parameters) for k, v in expr.items)
    return False


def yields_one_element(chain: List[nodes.Call]) -> bool:
    """Whether a pipeline (its calls, newest first) yields one in-memory element over and over, or only one."""
    leaves = [_leaf(call.func) for call in chain]
    if any(_takes_one(call) for call in chain):
        return True
    return leaves[-1] == "from_tensors" and not any(leaf in _WORKING_METHODS for leaf in leaves)


def _takes_one(call: nodes.Call) -> bool:
    return _leaf(call.func) == "take" and len(call.args) == 1 and isinstance(call.args[0], nodes.Const) \
        and call.args[0].value == 1


def _leaf(func: nodes.NodeNG) -> str:
    if isinstance(func, nodes.Attribute):
        return func.attrname
    return func.name if isinstance(func, nodes.Name) else ""
