"""TFG201: summaries written (or summary ops evaluated) on every training step."""

from __future__ import annotations

from typing import Iterable, Iterator

from astroid import nodes

from tfguard.static.analysis.frequency import frequency
from tfguard.static.analysis.module import ModuleAnalysis, describe
from tfguard.static.analysis.steps import fetched, is_summary_tensor, is_summary_write
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import Finding

DEFAULTS = "TensorFlow's own defaults write summaries every 100 steps"


class SummaryEveryStep(NodeRule):
    """Writing summaries every step costs a GPU→host copy, serialisation and disk I/O per step."""

    code = "TFG201"
    name = "summary-every-step"
    severity = "warning"
    summary = "summaries written (or the summary op fetched) on every training step"

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report unguarded ``add_summary`` calls, and summary fetches every step for a guarded write."""
        steps = frequency(module)
        guarded_loops = {}
        for call in module.nodes_of(nodes.Call):
            if not is_summary_write(module, call):
                continue
            loop = steps.every_step_loop(call)
            if loop is not None:
                yield self.finding(
                    module, call,
                    f"`{describe(call)}` writes summaries on every step of {steps.loop_text(loop)}; "
                    f"write them under a guard such as `if step % 100 == 0:` ({DEFAULTS})",
                )
            elif steps.step_loop(call) is not None:
                guarded_loops.setdefault(id(steps.step_loop(call)), (steps.step_loop(call), call))
        for loop, write in guarded_loops.values():
            yield from self._fetches_every_step(module, loop, write)

    def _fetches_every_step(self, module: ModuleAnalysis, loop, write: nodes.Call) -> Iterator[Finding]:
        steps = frequency(module)
        guard = steps.guard(write, loop)
        when = f"only when `{guard.as_string()}`" if guard is not None else "only on some steps"
        for run in steps.direct_runs(loop):
            if steps.every_step_loop(run) is not loop:
                continue
            summaries = [f for f in fetched(module, run) if is_summary_tensor(module, f)]
            if summaries:
                yield self.finding(
                    module, run,
                    f"`{describe(run)}` evaluates the summary op `{summaries[0].as_string()}` on every step of "
                    f"{steps.loop_text(loop)}, but it is written {when} (line {write.lineno}); fetch it in a "
                    f"separate `sess.run` under that guard ({DEFAULTS})",
                )
