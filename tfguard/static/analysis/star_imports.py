"""Names bound by ``from module import *`` of a project module, resolved as if imported by name.

astroid is kept from following star imports (it would parse whatever they name, TensorFlow included),
so a name with no binding in the file is looked up here, in the project modules the file star-imports:
the names in their ``__all__`` when they define one as a literal list or tuple of strings, else their
public module-level names.

``dataflow`` parameters are the module's :class:`~tfguard.static.analysis.dataflow.Dataflow` (typed ``Any``: the
dataflow imports this module, not the other way round).
"""

from __future__ import annotations

from typing import Any, Optional, Set

from astroid import nodes

from tfguard.static.analysis.values import PYMODULE, Value


def star_imported_value(dataflow: Any, name: str) -> Optional[Value]:
    """Return what ``name`` holds when a ``from m import *`` of a project module binds it, else None.

    The last star import that exports ``name`` wins, as at run time.
    """

    if dataflow.project is None:
        return None
    found = None
    for node in dataflow.module.body:
        if not (isinstance(node, nodes.ImportFrom) and node.names and node.names[0][0] == "*"):
            continue
        source = dataflow._module_value(node.modname, node.level)
        if source is None or source.kind != PYMODULE:
            continue
        if name in exported_names(source.node):
            found = node, source.node
    if found is None:
        return None
    node, module = found
    return dataflow._project_member(module, name, node.modname, node.level)


def exported_names(module: nodes.Module) -> Set[str]:
    """Return the names ``from module import *`` binds: its literal ``__all__``, else its public globals."""
    for assign in module.body:
        if isinstance(assign, nodes.Assign) and any(
            isinstance(target, nodes.AssignName) and target.name == "__all__" for target in assign.targets
        ):
            if isinstance(assign.value, (nodes.List, nodes.Tuple)) and all(
                isinstance(elt, nodes.Const) and isinstance(elt.value, str) for elt in assign.value.elts
            ):
                return {elt.value for elt in assign.value.elts}
            return set()  # a computed __all__: unknown, so nothing is taken for granted
    return {name for name in module.locals if not name.startswith("_")}
