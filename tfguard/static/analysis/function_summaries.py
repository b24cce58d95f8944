"""Function summaries: what calling a project function does to the graph, followed across calls and modules.

The interprocedural facts live here: build sites reached through helpers, runs inside helpers, graph resets,
return values, and whether a function runs a step loop of its own.
"""

from __future__ import annotations

from typing import List, Optional

from astroid import nodes

from tfguard.static.analysis import tfapi
from tfguard.static.analysis.branch_guards import branch_guards
from tfguard.static.analysis.dataflow import Value
from tfguard.static.analysis.fact_types import BuildEvent, FunctionSummary, RunEvent
from tfguard.static.analysis.scopes import LOOPS, function_label, own_nodes
from tfguard.static.finding import ChainLink

#: How many helper calls deep a build or a run is followed.
MAX_CALL_DEPTH = 6
#: How many function summaries may be computed inside one another (calls followed while computing).
MAX_SUMMARY_NESTING = 24
#: How many distinct build sites a function summary keeps.
MAX_SUMMARY_BUILDS = 32


class FunctionSummaries:
    """The function-summary queries of :class:`~tfguard.static.analysis.module.ModuleAnalysis`.

    A mixin of the facade: it reads the core queries (``value``, ``qualname``, ``called_function``...) and
    the other concerns' queries through ``self``.
    """

    #: Function summaries being computed, across modules (the analysis is single-threaded).
    _summary_depth = 0

    @staticmethod
    def _best_helper_event(call: nodes.Call, function: nodes.NodeNG, summary: FunctionSummary) -> BuildEvent:
        # Rules pick the most specific site among ``helper_events``; this is the first one.
        first = summary.builds_for(call, function)[0]
        return BuildEvent(call, first.site, first.chain)

    def summary(self, function: nodes.NodeNG) -> Optional[FunctionSummary]:
        """Return what calling a local function does; None while it is being computed (recursion)."""
        key = id(function)
        if key in self._summaries:
            return self._summaries[key]
        if self.project is not None and function.root() is not self.module:
            owner = self.project.owner(function)
            return owner.summary(function) if owner is not None else None
        if FunctionSummaries._summary_depth >= MAX_SUMMARY_NESTING:
            return None  # too deep to follow: unknown, and not memoised
        FunctionSummaries._summary_depth += 1
        try:
            return self._compute_summary(function)
        finally:
            FunctionSummaries._summary_depth -= 1

    def _compute_summary(self, function: nodes.NodeNG) -> FunctionSummary:
        key = id(function)
        self._summaries[key] = None
        summary = FunctionSummary()
        label = function_label(function)
        returns: List[Optional[Value]] = []
        seen_sites = set()
        for node in own_nodes(function):
            if isinstance(node, nodes.Return) and node.value is not None:
                returns.append(self.value(node.value))
            if isinstance(node, nodes.Call) and self.call_qualname(node) in tfapi.GRAPH_RESETS:
                summary.resets_graph = True
            if not summary.loops_over_steps and (
                (isinstance(node, LOOPS) and self.is_session_loop(node) and not self.only_saves(node))
                or self.calls_step_loop(node)
            ):
                summary.loops_over_steps = True
            run = self.run_event(node) if summary.run is None else None
            if run is not None and len(run.chain) < MAX_CALL_DEPTH and not self.is_saver_run(node):
                # a helper that only saves is no step: only the loop that saves directly counts it
                summary.run = RunEvent(run.node, run.display, (ChainLink(self.path, node.lineno, label), *run.chain))
            event = self.build_event(node)
            if event is None or len(event.chain) >= MAX_CALL_DEPTH or len(summary.builds) >= MAX_SUMMARY_BUILDS:
                continue
            # Builds inside the function's own session loops are reported there.
            if self.session_loop_of(node) is not None or self.fresh_graph_before(node, function):
                continue
            if self.built_once(node, function):
                continue
            guard = self._parameter_guard(node, function)
            for inner in self.helper_events(event):
                if id(inner.site.node) not in seen_sites:
                    seen_sites.add(id(inner.site.node))
                    chain = (ChainLink(self.path, node.lineno, label), *inner.chain)
                    summary.builds.append(BuildEvent(node, inner.site, chain))
                    if guard is not None:
                        summary.parameter_guards[id(node)] = guard
                    branches = branch_guards(node, function)
                    if branches:
                        summary.branch_guards[id(node)] = branches
        summary.returns = self.dataflow.combine(returns) if returns else None
        self._summaries[key] = summary
        return summary

    def _parameter_guard(self, node: nodes.NodeNG, function: nodes.NodeNG):
        """The (name, position) of the ``None``-default parameter an enclosing ``if P is None:`` tests, if any."""
        child, parent = node, node.parent
        while parent is not None and parent is not function:
            if isinstance(parent, nodes.If) and child in parent.body:
                guard = self.none_default_guard(parent, function)
                if guard is not None:
                    return guard
            child, parent = parent, parent.parent
        return None

    def calls_step_loop(self, node: nodes.NodeNG) -> bool:
        """Return whether ``node`` calls a function that runs the graph in a loop of its own."""
        if not isinstance(node, nodes.Call):
            return False
        function = self.called_function(node)
        if function is None:
            return False
        summary = self.summary(function)
        return summary is not None and summary.loops_over_steps

    def _function_return(self, function: nodes.NodeNG) -> Optional[Value]:
        summary = self.summary(function)
        return summary.returns if summary is not None else None
