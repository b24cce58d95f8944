"""Pipelines built in one place and consumed in another: datasets passed as parameters, kept in attributes.

:class:`~tfguard.static.analysis.datasets.DatasetAnalysis` follows a pipeline back through names, method
chains and returns; this module adds the links real projects put between the building and the consuming code:

* a parameter (``def preprocess(dataset): return dataset.map(parse)``): what the function's call sites in its
  module pass (a pipeline that lacks a prefetch decides, as for the other joins);
* a module attribute (``data.train_dataset`` of a project module): the module-level binding there;
* an object attribute (``self.dataset`` set in ``__init__``): what the class's methods assign to it.

Anything else stays unknown, and the rules stay silent.
"""

from __future__ import annotations

from typing import Any, List, Optional

from astroid import nodes

from tfguard.static.analysis.inference import UNKNOWN_ARGUMENT, argument_for
from tfguard.static.analysis.scopes import FUNCTIONS
from tfguard.static.analysis.values import INSTANCE, PYMODULE


def passed_in_chain(pipelines: Any, parameter: nodes.AssignName, depth: int) -> Optional[List[nodes.Call]]:
    """The pipeline chain the call sites of ``parameter``'s function pass for it (None when none passes one)."""
    function = parameter.parent.parent
    if not isinstance(function, FUNCTIONS):
        return None
    positional = list(parameter.parent.posonlyargs or []) + list(parameter.parent.args or [])
    if positional and positional[0] is parameter and isinstance(function.parent, nodes.ClassDef):
        return None  # ``self``
    dataflow = _owner(pipelines, function).module.dataflow
    sites = dataflow.inference.call_sites(function)
    if not sites:
        return None
    owner = _owner(pipelines, function)
    chains = []
    for call, bound in sites:
        argument = argument_for(call, function, parameter.name, bound)
        if argument is UNKNOWN_ARGUMENT or argument is None:
            continue
        found = owner.chain(argument, depth + 1)
        if found is not None:
            chains.append(found)
    return _deciding(owner, chains)


def attribute_chain(pipelines: Any, expr: nodes.Attribute, depth: int) -> Optional[List[nodes.Call]]:
    """The chain of ``module.name`` (a project module's global) or ``self.name`` (an object's attribute)."""
    module = pipelines.module
    base = module.value(expr.expr)
    if base is None:
        return None
    if base.kind == PYMODULE:
        owner = _owner(pipelines, base.node)
        bindings = base.node.locals.get(expr.attrname, [])
        chains = [
            owner.chain(b.parent.value, depth + 1) for b in bindings
            if isinstance(b, nodes.AssignName) and isinstance(b.parent, nodes.Assign)
        ]
        return _deciding(owner, [c for c in chains if c is not None]) if chains and all(chains) else None
    if base.kind == INSTANCE:
        targets = module.dataflow.instance_attributes(base.node).get(expr.attrname, [])
        owner = _owner(pipelines, base.node)
        values = [t.parent.value for t in targets if isinstance(t.parent, nodes.Assign)]
        if not values or len(values) != len(targets):
            return None
        chains = [owner.chain(value, depth + 1) for value in values]
        return _deciding(owner, chains) if all(c is not None for c in chains) else None
    return None


def _owner(pipelines: Any, node: nodes.NodeNG) -> Any:
    """The DatasetAnalysis of the module ``node`` belongs to (this one when it is not a followed module)."""
    module = pipelines.module
    if module.project is None or node.root() is module.module:
        return pipelines
    analysis = module.project.owner(node)
    if analysis is None:
        return pipelines
    return analysis.facts("datasets", type(pipelines))  # the same memo as datasets.datasets()


def _deciding(pipelines: Any, chains: List[List[nodes.Call]]) -> Optional[List[nodes.Call]]:
    """The chain that decides among several: one without a prefetch, so a missing one is not hidden."""
    if not chains:
        return None
    return sorted(chains, key=pipelines.has_prefetch)[0]
