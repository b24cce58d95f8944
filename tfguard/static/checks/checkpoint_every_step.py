"""TFG202: a checkpoint saved on every training step."""

from __future__ import annotations

from typing import Iterable

from astroid import nodes

from tfguard.static.analysis.frequency import frequency
from tfguard.static.analysis.module import ModuleAnalysis, describe
from tfguard.static.analysis.step_effects import CHECKPOINT_SAVE, step_effects
from tfguard.static.analysis.steps import is_checkpoint_save
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import UNSAFE, Finding
from tfguard.static.fixes import cadence
from tfguard.static.registry import FixOffer

FIX = (
    "save under a guard such as `if step % 1000 == 0:` or a time check "
    "(TensorFlow's own default saves every 600 seconds)"
)


class CheckpointEveryStep(NodeRule):
    """Each ``saver.save`` copies every variable to the host and writes it to disk."""

    code = "TFG202"
    name = "checkpoint-every-step"
    severity = "warning"
    summary = "`saver.save()` runs on every training step"
    fix = FixOffer(
        UNSAFE,
        "saves only every N steps (1000, or a tenth of a shorter loop) and on the last step; safe "
        "when the last save decides the files left (`max_to_keep=1`, or one path for every save)",
        cadence.plan_guard,
    )

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report ``saver.save(...)`` calls made on every step of a session loop, directly or in a helper it calls."""
        steps = frequency(module)
        effects = step_effects(module)
        for call in module.nodes_of(nodes.Call):
            if next(module.enclosing_loops(call), None) is None:
                continue
            if is_checkpoint_save(module, call):
                loop = steps.every_step_loop(call)
                if loop is not None:
                    yield self.finding(
                        module, call,
                        f"`{describe(call)}` writes a checkpoint {steps.how_often(call, loop)} of "
                        f"{steps.loop_text(loop)}", FIX,
                    )
                continue
            reached = effects.through_helpers(call, CHECKPOINT_SAVE)
            if reached:
                loop = steps.every_step_loop(call)
                if loop is not None:
                    site = reached[0]
                    where = "line" if site.owner.path == module.path else f"{site.owner.path}, line"
                    yield self.finding(
                        module, call,
                        f"`{describe(call)}` calls `{describe(site.site)}` ({where} {site.site.lineno}) on each call, "
                        f"so it writes a checkpoint {steps.how_often(call, loop)} of {steps.loop_text(loop)}", FIX,
                        site.chain,
                    )
