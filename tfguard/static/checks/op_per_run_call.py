"""TFG109: a function that builds ops and runs a long-lived graph, so every call grows the graph."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Tuple

from tfguard.static.analysis.host_assigns import host_assigns
from tfguard.static.analysis.module import ModuleAnalysis, describe
from tfguard.static.analysis.per_call import PerCallBuilder, per_call_builders
from tfguard.static.checks._links import with_lines
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import Finding

#: How many further op-building lines the message lists.
_MORE_LINES = 3


class OpPerRunCall(NodeRule):
    """``predict()`` builds ``tf.nn.softmax`` and runs ``self.sess``: one more softmax per request."""

    code = "TFG109"
    name = "op-per-run-call"
    summary = "function builds graph ops and runs a long-lived session on every call (`predict`, `classify`, handlers)"

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report the first op-building line of each per-call builder (see :mod:`~tfguard.static.analysis.per_call`)."""
        host = {id(assign.node) for assign in host_assigns(module)}
        for builder in per_call_builders(module):
            builds = tuple(event for event in builder.builds if id(event.site.node) not in host)
            if not builds:
                continue  # only assignments from host values: TFG110 reports them, with their own fix
            builder = replace(builder, builds=builds)
            first = builder.builds[0]
            # A summary's chain starts at the function's own line: the finding is there.  Then the other
            # op-building lines and the run the message names (issue 44).
            named = [event.node for event in builder.builds[1:]] + [builder.run.node]
            chain = with_lines(first.chain[1:], module, named, first.node.lineno)
            yield self.finding(module, first.node, *self._message(module, builder), chain)

    @staticmethod
    def _message(module: ModuleAnalysis, builder: PerCallBuilder) -> Tuple[str, str]:
        first = builder.builds[0]
        site = first.site
        if first.node is not site.node:
            where = first.chain[-1].path
            place = f"line {site.line}" if where == module.path else f"{where}:{site.line}"
            what = f"`{describe(first.node)}` builds `{site.display}` (at {place})"
        else:
            what = f"`{site.display}` adds ops"
        lines = sorted({event.node.lineno for event in builder.builds[1:]} - {first.node.lineno})
        more = ""
        if lines:
            shown = ", ".join(str(line) for line in lines[:_MORE_LINES])
            more = f" (and line{'s' if len(lines) > 1 else ''} {shown}{', …' if len(lines) > _MORE_LINES else ''})"
        session = builder.session.description
        where = "in the enclosing function, before the closure" if builder.session.captured else (
            "in `__init__` or at module level")
        return (
            f"{what}{more} on every call of `{builder.label}()`, which runs the graph with {session} "
            f"(`{builder.run.display}` at line {builder.run.node.lineno}): the graph outlives the call and grows "
            f"with each one", f"build the ops once ({where}) and run the stored tensors, "
            "cache them lazily (`if self._op is None:`), or give each call its own `tf.Graph()`"
        )
