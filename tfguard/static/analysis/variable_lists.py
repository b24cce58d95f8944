"""Expressions that hold a list of a model's variables: ``tf.trainable_variables()``, ``model.variables``,
``tf.get_collection(...)``, and names or attributes bound to one (``self.t_params = tf.get_collection(...)``,
the usual style of DDPG and DQN code), through ``zip``/``list``/``sorted``/``enumerate`` and comprehensions
over them.
"""

from __future__ import annotations

from typing import Dict, List

from astroid import nodes

#: Attributes and functions that hold a model's variables.
VARIABLE_LISTS = frozenset({"variables", "trainable_variables", "global_variables", "local_variables",
                            "model_variables", "moving_average_variables", "trainable_weights", "weights",
                            "get_collection", "all_variables"})
_WRAPPERS = ("zip", "list", "sorted", "reversed", "enumerate", "tuple")
_DEPTH = 6  # zip(a, self.params) -> sorted([...]) -> a comprehension -> a name -> tf.trainable_variables()


def is_variable_list(module, node: nodes.NodeNG, depth: int = 0) -> bool:
    """Return whether ``node`` (in ``module``, a ModuleAnalysis) is known to hold a list of variables."""
    if depth > _DEPTH or node is None:
        return False
    if isinstance(node, nodes.Call):
        func = node.func
        name = func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", "")
        if name in _WRAPPERS:
            return any(is_variable_list(module, arg, depth + 1) for arg in node.args)
        return name in VARIABLE_LISTS
    if isinstance(node, (nodes.ListComp, nodes.GeneratorExp)):
        return bool(node.generators) and is_variable_list(module, node.generators[0].iter, depth + 1)
    if isinstance(node, nodes.Subscript) and isinstance(node.slice, nodes.Slice):
        return is_variable_list(module, node.value, depth + 1)  # ``params[:n]``
    if isinstance(node, nodes.Attribute):
        if node.attrname in VARIABLE_LISTS:
            return True
        values = _attribute_values(module).get(node.attrname, [])
    elif isinstance(node, nodes.Name):
        try:
            _, assignments = node.lookup(node.name)
        except Exception:  # noqa: BLE001 - astroid's scope lookup on odd code: no claim
            return False
        values = [a.parent.value for a in assignments
                  if isinstance(a, nodes.AssignName) and isinstance(a.parent, nodes.Assign)]
    else:
        return False
    return bool(values) and all(is_variable_list(module, value, depth + 1) for value in values)


def _attribute_values(module) -> Dict[str, List[nodes.NodeNG]]:
    """attribute name -> the values assigned to ``<anything>.name = value`` in the module."""
    return module.facts("attribute_values", _collect)


def _collect(module) -> Dict[str, List[nodes.NodeNG]]:
    found: Dict[str, List[nodes.NodeNG]] = {}
    for statement in module.nodes_of(nodes.Assign):
        for target in statement.targets:
            if isinstance(target, nodes.AssignAttr):
                found.setdefault(target.attrname, []).append(statement.value)
    return found
