"""TFG202: a checkpoint saved on every training step."""

from __future__ import annotations

from typing import Iterable

from astroid import nodes

from tfguard.static.analysis.frequency import frequency
from tfguard.static.analysis.module import ModuleAnalysis, describe
from tfguard.static.analysis.steps import is_checkpoint_save
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import Finding


class CheckpointEveryStep(NodeRule):
    """Each ``saver.save`` copies every variable to the host and writes it to disk."""

    code = "TFG202"
    name = "checkpoint-every-step"
    severity = "warning"
    summary = "`saver.save()` runs on every training step"

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report ``saver.save(...)`` calls that run on every step of a session loop."""
        steps = frequency(module)
        for call in module.nodes_of(nodes.Call):
            if not is_checkpoint_save(module, call):
                continue
            loop = steps.every_step_loop(call)
            if loop is not None:
                yield self.finding(
                    module, call,
                    f"`{describe(call)}` writes a checkpoint on every step of {steps.loop_text(loop)}; "
                    "save under a guard such as `if step % 1000 == 0:` or a time check "
                    "(TensorFlow's own default saves every 600 seconds)",
                )
