"""What a loop does to the names and the graph an expression reads: the facts a hoist needs to be safe."""

from __future__ import annotations

from collections import Counter
from typing import Collection, Iterator, List, Optional, Set, Tuple

from astroid import nodes

from tfguard.static.analysis.module import OPERATOR_NODES, ModuleAnalysis
from tfguard.static.analysis.scopes import Body, is_ancestor, own_nodes, position
from tfguard.static.analysis.tfapi import (
    REGISTERING_EXCEPTIONS,
    REGISTERING_PREFIXES,
    STATE_CREATING,
    STATE_CREATING_PREFIXES,
)
from tfguard.static.fixes.reach import LoopReach
from tfguard.static.fixes.stateful import state_holding_ops

#: Methods that change the object they are called on: a name they are called on is not loop-invariant.
MUTATING_METHODS = frozenset({
    "append", "extend", "insert", "pop", "popitem", "update", "clear", "remove", "setdefault", "add",
    "discard", "sort", "reverse", "__setitem__", "__delitem__",
})

#: Builtins whose result depends only on their arguments.
PURE_BUILTINS = frozenset({
    "len", "int", "float", "str", "bool", "tuple", "list", "dict", "range", "min", "max", "abs", "round",
    "sorted", "sum", "zip", "enumerate",
})

#: Expression nodes a hoisted expression may not contain (they bind names or suspend).
_UNHOISTABLE = (nodes.Lambda, nodes.ListComp, nodes.SetComp, nodes.DictComp, nodes.GeneratorExp,
                nodes.NamedExpr, nodes.Yield, nodes.YieldFrom, nodes.Await)

INVARIANT, IMPURE, VARYING = "invariant", "impure", "varying"


def creates_state(api: str) -> bool:
    """Return whether building ``api`` creates state (variables, an iterator) rather than a stateless op."""
    return api in STATE_CREATING or api.startswith(STATE_CREATING_PREFIXES)


def registers(api: str) -> bool:
    """Return whether building ``api`` adds its op to a collection that ``merge_all`` reads."""
    return api.startswith(REGISTERING_PREFIXES) and api not in REGISTERING_EXCEPTIONS


def _chain(node: nodes.NodeNG) -> Optional[Tuple[str, ...]]:
    """Return ``("self", "model", "loss")`` for ``self.model.loss``, None for anything else."""
    parts: List[str] = []
    while isinstance(node, (nodes.Attribute, nodes.AssignAttr, nodes.DelAttr)):
        parts.append(node.attrname)
        node = node.expr
    if not isinstance(node, nodes.Name):
        return None
    parts.append(node.name)
    return tuple(reversed(parts))


def _base_name(node: nodes.NodeNG) -> Optional[str]:
    while isinstance(node, (nodes.Attribute, nodes.Subscript, nodes.AssignAttr, nodes.DelAttr)):
        node = node.value if isinstance(node, nodes.Subscript) else node.expr
    return node.name if isinstance(node, nodes.Name) else None


class LoopScan:
    """The names a loop binds or mutates and the graph-building nodes it runs, read once per loop."""

    def __init__(self, module: ModuleAnalysis, loop: nodes.NodeNG) -> None:
        self.module = module
        self.loop = loop
        #: What the loop changes through the functions and methods it calls.
        self.reach = LoopReach(module, loop)
        self.bound: Counter = Counter()
        self.mutated: Set[str] = set()
        self.stored_chains: Set[Tuple[str, ...]] = set()
        self.reads: List[nodes.Name] = []
        for node in loop.nodes_of_class((nodes.AssignName, nodes.DelName, nodes.Global, nodes.Nonlocal,
                                         nodes.AssignAttr, nodes.DelAttr, nodes.Subscript, nodes.Call,
                                         nodes.Name, nodes.Import, nodes.ImportFrom)):
            self._note(node)
        #: The nodes that build what collection readers read: variables, summaries, or anything through a helper.
        self.builds: List[nodes.NodeNG] = []
        for node in own_nodes(Body([loop])):
            if isinstance(node, (nodes.Call, *OPERATOR_NODES)):
                event = module.build_event(node)
                if event is not None and (event.chain or creates_state(event.site.api) or registers(event.site.api)):
                    self.builds.append(node)

    def _note(self, node: nodes.NodeNG) -> None:
        if isinstance(node, (nodes.AssignName, nodes.DelName)):
            self.bound[node.name] += 1
        elif isinstance(node, (nodes.Global, nodes.Nonlocal)):
            self.bound.update(node.names)
        elif isinstance(node, (nodes.Import, nodes.ImportFrom)):
            self.bound.update((alias or name).split(".")[0] for name, alias in node.names)
        elif isinstance(node, (nodes.AssignAttr, nodes.DelAttr)):
            chain = _chain(node)
            if chain is None:
                base = _base_name(node)
                if base is not None:
                    self.mutated.add(base)
            else:
                self.stored_chains.add(chain)
        elif isinstance(node, nodes.Subscript):
            if node.ctx is not None and node.ctx.name in ("Store", "Del"):
                base = _base_name(node)
                if base is not None:
                    self.mutated.add(base)
        elif isinstance(node, nodes.Call):
            func = node.func
            if isinstance(func, nodes.Attribute) and func.attrname in MUTATING_METHODS and not self._tf_call(node):
                base = _base_name(func.expr)
                if base is not None:
                    self.mutated.add(base)
        elif isinstance(node, nodes.Name):
            self.reads.append(node)

    def _tf_call(self, call: nodes.Call) -> bool:
        """``tf.add(...)``, ``dataset.shuffle(...)``: a TF API or a TF object's method, not a container's."""
        name = self.module.call_qualname(call)
        if name is not None and name.startswith("tensorflow"):
            return True
        return self.module.dataflow.is_method_of_tf_object(call.func)

    def expression_status(self, expr: nodes.NodeNG, skip: Collection[nodes.NodeNG] = ()) -> Tuple[str, str]:
        """Return (INVARIANT | IMPURE | VARYING, why) for an expression inside the loop.

        VARYING: it reads a name or attribute the loop changes, in its body or through what it calls
        (no hoist possible); IMPURE: it reads something the loop may change, calls something that is
        neither a TF build nor a pure builtin, or builds an op that holds state between runs (an unsafe
        hoist).  The subtrees in ``skip`` are not read (values fed through a placeholder instead).
        """
        impure = ""
        reach = self.reach
        for node in _walk(expr, {id(n) for n in skip}):
            if isinstance(node, _UNHOISTABLE):
                return VARYING, f"it contains a `{type(node).__name__}`"
            if isinstance(node, nodes.Name):
                if self.bound[node.name] or node.name in self.mutated:
                    return VARYING, f"`{node.name}` changes inside the loop"
                if node.name in reach.changed:
                    return VARYING, reach.changed[node.name]
                if not impure and node.name in reach.may_change:
                    impure = reach.may_change[node.name]
            elif isinstance(node, nodes.Attribute):
                chain = _chain(node)
                if chain is not None and any(_prefix(chain, stored) for stored in self.stored_chains):
                    return VARYING, f"`{'.'.join(chain)}` changes inside the loop"
                if node.attrname in reach.stored_attributes and not self._is_tf(node):
                    return VARYING, (f"`{node.as_string()}` may change: `{reach.stored_attributes[node.attrname]}()`, "
                                     f"which the loop calls, stores `.{node.attrname}`")
            if isinstance(node, nodes.Call) and not impure and not self._pure_call(node):
                impure = f"it calls `{node.func.as_string()}`, whose result may change between iterations"
            if isinstance(node, (nodes.Call, *OPERATOR_NODES)) and not impure:
                impure = self._state_held(node)
        return (IMPURE, impure) if impure else (INVARIANT, "")

    def _is_tf(self, node: nodes.NodeNG) -> bool:
        value = self.module.value(node)
        return value is not None and value.kind in ("tf", "module")

    def _state_held(self, node: nodes.NodeNG) -> str:
        """Why building ``node`` once gives other values than building it per iteration, or ""."""
        event = self.module.build_event(node)
        if event is None or event.chain:
            return ""
        ops = state_holding_ops(event.site.api)
        if not ops:
            return ""
        shown = ", ".join(f"`{op}`" for op in ops[:3]) + (" ..." if len(ops) > 3 else "")
        return (f"`{event.site.display}` builds {shown}, an op that keeps state between runs (random draws, "
                "a variable, queue, reader or iterator): one op run every iteration computes other values "
                "than a new one built per iteration")

    def _pure_call(self, call: nodes.Call) -> bool:
        event = self.module.build_event(call)
        if event is not None and not event.chain:
            return True
        func = call.func
        if isinstance(func, nodes.Name) and func.name in PURE_BUILTINS:
            return func.name not in self.module.module.locals
        name = self.module.call_qualname(call)
        return name is not None and name.startswith("tensorflow.")

    def other_builds(self, node: nodes.NodeNG) -> List[nodes.NodeNG]:
        """Return the nodes of :attr:`builds` outside ``node`` and its ancestors."""
        return [b for b in self.builds if b is not node and not is_ancestor(b, node) and not is_ancestor(node, b)]

    def read_before(self, name: str, node: nodes.NodeNG) -> bool:
        """Return whether the loop reads ``name`` before ``node`` in an iteration."""
        start = position(node)
        return any(read.name == name and position(read) < start for read in self.reads)


def _walk(expr: nodes.NodeNG, skip: Set[int]) -> Iterator[nodes.NodeNG]:
    """``expr`` and the nodes under it, in order, leaving out the subtrees whose ids are in ``skip``."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if id(node) in skip:
            continue
        yield node
        stack.extend(reversed(list(node.get_children())))


def _prefix(one: Tuple[str, ...], other: Tuple[str, ...]) -> bool:
    shorter = min(len(one), len(other))
    return one[:shorter] == other[:shorter]
