"""TFG112: a new ``tf.summary.FileWriter`` created on every step of a training loop."""

from __future__ import annotations

from typing import Iterable

from astroid import nodes

from tfguard.static.analysis.frequency import frequency
from tfguard.static.analysis.module import ModuleAnalysis, describe
from tfguard.static.analysis.tfapi import FILE_WRITERS
from tfguard.static.checks._links import with_default
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import Finding


class FileWriterInSessionLoop(NodeRule):
    """Each ``FileWriter`` opens a new event file and starts a writer thread; made per step, it does so per step."""

    code = "TFG112"
    name = "filewriter-in-session-loop"
    severity = "warning"
    summary = "`tf.summary.FileWriter(...)` created on every step of a training loop (a new event file per step)"

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report each summary writer constructed on every step (unguarded) of a step loop."""
        steps = frequency(module)
        for call in module.calls_to(FILE_WRITERS):
            if next(module.enclosing_loops(call), None) is None:
                continue
            loop = steps.every_step_loop(call)
            if loop is None:
                continue
            graph = " and serialises the whole graph into it again" if _writes_graph(call) else ""
            yield self.finding(
                module, call,
                f"`{describe(call)}` creates a new summary writer {steps.how_often(call, loop)} of "
                f"{steps.loop_text(loop)}: each opens a new event file{graph} and starts a writer thread, "
                "writers opened within the same second overwrite each other's file, and TensorBoard reads only the "
                "newest file of a run folder", "create the writer once, before the loop, and call `add_summary` on it",
                with_default((), module, steps, call, loop),  # the default the message names
            )


def _writes_graph(call: nodes.Call) -> bool:
    """``FileWriter(logdir, sess.graph)`` or ``graph=...``: the graph goes into every new file."""
    return len(call.args) >= 2 or any(k.arg in ("graph", "graph_def") for k in call.keywords or ())
