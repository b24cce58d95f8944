"""Walking a module by scope, without descending into nested definitions."""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Union

from astroid import nodes

FunctionNode = Union[nodes.FunctionDef, nodes.AsyncFunctionDef]
ScopeNode = Union[nodes.Module, nodes.FunctionDef, nodes.AsyncFunctionDef]
FUNCTIONS = (nodes.FunctionDef, nodes.AsyncFunctionDef)
LOOPS = (nodes.For, nodes.AsyncFor, nodes.While)


def own_nodes(scope: ScopeNode) -> Iterator[nodes.NodeNG]:
    """Yield every node that runs as part of ``scope``'s own code, in source order.

    Bodies of nested functions, lambdas and classes are skipped; a nested
    definition's decorators and default values are not, since they run here.
    """
    stack: List[nodes.NodeNG] = list(reversed(scope.body))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(_children_run_here(node)))


def _children_run_here(node: nodes.NodeNG) -> List[nodes.NodeNG]:
    if isinstance(node, (*FUNCTIONS, nodes.Lambda)):
        run_here: List[nodes.NodeNG] = [d for d in node.args.defaults if d is not None]
        decorators = getattr(node, "decorators", None)
        if decorators is not None:
            run_here.insert(0, decorators)
        return run_here
    if isinstance(node, nodes.ClassDef):
        return [node.decorators] if node.decorators is not None else []
    return list(node.get_children())


def owner_scope(node: nodes.NodeNG) -> Optional[ScopeNode]:
    """Return the module or function whose own code contains ``node`` (None inside a lambda or class body)."""
    child, parent = node, node.parent
    while parent is not None:
        if isinstance(parent, FUNCTIONS) and child in parent.body:
            return parent
        if isinstance(parent, (nodes.Lambda, nodes.ClassDef)) and child not in _children_run_here(parent):
            return None
        if isinstance(parent, FUNCTIONS):
            return owner_scope(parent)
        child, parent = parent, parent.parent
    return child if isinstance(child, nodes.Module) else None


def position(node: nodes.NodeNG) -> tuple:
    """Return a sortable (line, column) for ``node``."""
    return (node.lineno or 0, node.col_offset or 0)


def is_ancestor(ancestor: Optional[nodes.NodeNG], node: nodes.NodeNG) -> bool:
    """Return whether ``ancestor`` is a proper ancestor of ``node``."""
    if ancestor is None:
        return False
    parent = node.parent
    while parent is not None:
        if parent is ancestor:
            return True
        parent = parent.parent
    return False


def function_label(function: nodes.NodeNG) -> str:
    """Return ``Class.method`` for a method, ``name`` for a function: how chains name a hop."""
    parent = function.parent
    if isinstance(parent, nodes.ClassDef):
        return f"{parent.name}.{function.name}"
    return function.name


class Body:
    """A statement list walked like a scope body (``own_nodes(Body(loop.body))``)."""

    def __init__(self, body) -> None:
        self.body = body


#: The statement lists of a node: every ``def`` and ``class`` sits in one of them.
_STATEMENT_LISTS = ("body", "orelse", "handlers", "finalbody", "cases")


def scope_names(module: nodes.Module) -> Dict[int, str]:
    """Map each line inside a ``def`` or ``class`` to the innermost one's dotted name (``Trainer.fit``).

    What a baseline entry and a SARIF fingerprint name a finding's place by: a line of the ``def`` line itself
    (or of its body) belongs to it, a decorator's line to the code around it.
    """
    names: Dict[int, str] = {}
    stack = [(module, "")]
    while stack:
        node, prefix = stack.pop()
        for name in _STATEMENT_LISTS:
            children = getattr(node, name, None)
            for child in children if isinstance(children, list) else ():
                if isinstance(child, (*FUNCTIONS, nodes.ClassDef)):
                    dotted = f"{prefix}{child.name}"
                    first = _def_line(child)
                    for line in range(first, (child.end_lineno or first) + 1):
                        names[line] = dotted  # an enclosing def was mapped first: inner defs overwrite
                    stack.append((child, dotted + "."))
                else:
                    stack.append((child, prefix))
    return names


def _def_line(node: nodes.NodeNG) -> int:
    """The line of a def's (or class's) keyword: astroid counts a decorated one from its first decorator."""
    position = getattr(node, "position", None)  # the ``def name`` part (astroid >= 2.11)
    return position.lineno if position is not None else node.lineno
