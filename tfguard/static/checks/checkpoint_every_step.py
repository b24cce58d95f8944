"""TFG202: a checkpoint saved on every training step."""

from __future__ import annotations

from typing import Iterable

from astroid import nodes

from tfguard.static.analysis.eager_steps import CHECKPOINT_CALLBACK
from tfguard.static.analysis.frequency import frequency
from tfguard.static.analysis.module import ModuleAnalysis, describe
from tfguard.static.analysis.step_effects import CHECKPOINT_SAVE, merged_chain, step_effects
from tfguard.static.analysis.steps import is_checkpoint_save
from tfguard.static.checks._eager_writes import every_step_writes, frequent_callbacks
from tfguard.static.checks._links import with_default
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
                        with_default((), module, steps, call, loop),  # the default the message names
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
                        with_default(merged_chain(reached), module, steps, call, loop),
                    )
        yield from self._eager(module, steps)

    def _eager(self, module: ModuleAnalysis, steps) -> Iterable[Finding]:
        """TF 2: ``manager.save()``, ``ckpt.save``/``write``, ``model.save``/``save_weights`` on every step of a
        custom loop, and ``ModelCheckpoint(..., save_freq=N)`` with N at most a few batches."""
        yield from every_step_writes(self, module, steps, CHECKPOINT_SAVE, "writes a checkpoint", FIX, _first_place)
        yield from frequent_callbacks(
            self, module, CHECKPOINT_CALLBACK,
            "saves the model every few batches: each save copies every weight to the host and writes it to disk",
            "save once per epoch (`save_freq=\"epoch\"`, the default) or every few hundred batches")


def _first_place(module: ModuleAnalysis, reached) -> str:
    """The line of the first checkpoint write a called helper makes ("line 12", or "other.py, line 12")."""
    site = reached[0]
    where = "line" if site.owner.path == module.path else f"{site.owner.path}, line"
    return f"{where} {site.site.lineno}"
