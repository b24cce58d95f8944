"""The names a fix gives the ops it builds once (``saver``, ``init_op``, ``summary_op``, ``sum``...)."""

from __future__ import annotations

import re

from astroid import nodes

#: Names for the results of well-known APIs (by their last name).
NAMES = {
    "Saver": "saver", "global_variables_initializer": "init_op", "local_variables_initializer": "local_init_op",
    "merge_all": "summary_op", "merge": "summary_op", "get_next": "next_element", "assign": "assign_op",
    "assign_add": "increment_op", "assign_sub": "decrement_op", "make_one_shot_iterator": "iterator",
    "make_initializable_iterator": "iterator", "tables_initializer": "table_init_op",
}
OPERATOR_NAMES = {"+": "sum", "-": "difference", "*": "product", "/": "quotient", "//": "quotient", "%": "remainder",
                  "**": "power", "@": "matmul"}


def op_name(node: nodes.NodeNG, api: str) -> str:
    """The name for the result of ``node`` (built by ``api``, or ``"operator"``) once it is built before the loop."""
    leaf = api.rstrip("()").rsplit(".", 1)[-1]
    if api == "operator":
        if isinstance(node, nodes.BinOp):
            return OPERATOR_NAMES.get(node.op, "result")
        if isinstance(node, nodes.Subscript):
            return "element"
        if isinstance(node, nodes.UnaryOp):
            return "negated"
        return "comparison"
    if leaf in NAMES:
        return NAMES[leaf]
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", leaf).lower() or "hoisted"

