"""The facts the module analysis hands out: build sites and events, run events, function summaries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from astroid import nodes

from tfguard.static.analysis.branch_guards import call_skips
from tfguard.static.analysis.dataflow import Value
from tfguard.static.finding import ChainLink


@dataclass(frozen=True)
class BuildSite:
    """A place that adds something to the graph (or creates a session) when it runs.

    ``api`` is the canonical TF name (``tensorflow.train.Saver``), a method name
    (``.assign``) or ``operator``; ``display`` is the code as written (``tf.train.Saver()``).
    ``creates_session`` marks Session constructors, which add no op.
    """

    node: nodes.NodeNG
    api: str
    display: str
    creates_session: bool = False

    @property
    def line(self) -> int:
        """The 1-based line the site starts on."""
        return self.node.lineno


@dataclass(frozen=True)
class BuildEvent:
    """A node in some scope that, when it runs, leads to ``site`` through ``chain``.

    For a direct build ``site.node is node`` and ``chain`` is empty; for a call to a
    helper ``chain`` holds one link per function entered, the last one at the site.
    """

    node: nodes.NodeNG
    site: BuildSite
    chain: Tuple[ChainLink, ...] = ()


@dataclass(frozen=True)
class RunEvent:
    """A node that runs the graph, directly (``sess.run``) or through helpers."""

    node: nodes.NodeNG
    display: str
    chain: Tuple[ChainLink, ...] = ()


@dataclass
class FunctionSummary:
    """What calling a local function does to the graph."""

    builds: List[BuildEvent] = field(default_factory=list)
    run: Optional[RunEvent] = None
    resets_graph: bool = False
    returns: Optional[Value] = None
    #: The function runs the graph in a loop of its own (or of a function it calls): a
    #: training loop's ``train_one_epoch()`` — so a loop calling it loops over epochs, not steps.
    loops_over_steps: bool = False
    #: Builds made only when the caller leaves a parameter at its ``None`` default
    #: (``if train_op is None: train_op = opt.minimize(loss)``): id of the build node -> (name, position).
    parameter_guards: Dict[int, Tuple[str, int]] = field(default_factory=dict)
    #: Builds made only in one branch of an ``if`` on a parameter (``if forward_only:``): id of the build
    #: node -> its guards (see ``branch_guards``); a call passing the other constant skips them.
    branch_guards: Dict[int, tuple] = field(default_factory=dict)

    def builds_for(self, call: nodes.Call, function: nodes.NodeNG) -> List[BuildEvent]:
        """Return the builds a call of the function makes: those guarded by a parameter it passes are left out."""
        if not self.parameter_guards and not self.branch_guards:
            return self.builds
        return [
            b for b in self.builds
            if not _passes(call, function, self.parameter_guards.get(id(b.node)))
            and not call_skips(call, function, self.branch_guards.get(id(b.node), ()))
        ]


def _passes(call: nodes.Call, function: nodes.NodeNG, guard: Optional[Tuple[str, int]]) -> bool:
    """Return whether ``call`` gives the guarded parameter a value other than ``None`` (or may: ``*args``)."""
    if guard is None:
        return False
    name, position = guard
    if any(isinstance(arg, nodes.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords or ()):
        return True
    for keyword in call.keywords or ():
        if keyword.arg == name:
            return not _is_none(keyword.value)
    is_method = isinstance(function.parent, nodes.ClassDef) and function.type == "method"
    if is_method and isinstance(call.func, nodes.Attribute):
        position -= 1  # ``obj.method(a)``: ``a`` is the second parameter
    if 0 <= position < len(call.args):
        return not _is_none(call.args[position])
    return False


def _is_none(expr: nodes.NodeNG) -> bool:
    return isinstance(expr, nodes.Const) and expr.value is None


def loop_text(loop: nodes.NodeNG, limit: int = 60) -> str:
    """Name a loop for messages by its header: "the `while True` loop at line 12".

    Not by the call that makes it a session loop: that may be a helper
    (``get_flat()``) written anywhere in the body, not on the loop's line.
    """
    if isinstance(loop, nodes.While):
        header = f"while {loop.test.as_string()}"
    elif isinstance(loop, nodes.For):
        keyword = "async for" if isinstance(loop, nodes.AsyncFor) else "for"
        target = loop.target
        names = ", ".join(e.as_string() for e in target.elts) if isinstance(target, nodes.Tuple) else target.as_string()
        header = f"{keyword} {names} in {loop.iter.as_string()}"
    else:
        return f"the loop at line {loop.lineno}"
    header = " ".join(header.split())
    if len(header) > limit:
        header = header[: limit - 1] + "…"
    return f"the `{header}` loop at line {loop.lineno}"


def describe(node: nodes.NodeNG, limit: int = 60) -> str:
    """Return short source text for ``node``, with call arguments elided: ``tf.train.Saver()``."""
    if _long_operator_chain(node):
        text = _source_text(node)  # printing hundreds of nested terms is slow (and may recurse too deep)
    else:
        try:
            text = f"{node.func.as_string()}()" if isinstance(node, nodes.Call) else node.as_string()
        except RecursionError:
            text = _source_text(node)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _source_text(node: nodes.NodeNG) -> str:
    """Return the source from ``node``'s start to the end of its first line (``"…"`` when unavailable)."""
    data = getattr(node.root(), "file_bytes", None)
    if not data or not node.lineno:
        return "…"
    if isinstance(data, str):
        data = data.encode("utf-8")
    lines = data.split(b"\n")
    if node.lineno > len(lines):
        return "…"
    return lines[node.lineno - 1][node.col_offset or 0:].decode("utf-8", "replace").strip()


def _long_operator_chain(node: nodes.NodeNG, limit: int = 32) -> bool:
    for _ in range(limit):
        if not isinstance(node, nodes.BinOp):
            return False
        node = node.left
    return True
