"""The TF 2 half shared by TFG201 and TFG202: a write made on every step of an eager loop, and a Keras callback
set to write every few batches.

Both rules say the same two things about different writes (summaries, checkpoints), so the wording of their TF 2
findings is made here once: "`call` <does> <how often> of <loop>", with the helper's lines when the write sits in
a function the step calls.
"""

from __future__ import annotations

from typing import Callable, Iterator, Sequence

from tfguard.static.analysis.eager_cadence import every_step_sites
from tfguard.static.analysis.eager_steps import eager_steps, frequent_callback
from tfguard.static.analysis.frequency import StepAnalysis
from tfguard.static.analysis.module import ModuleAnalysis, describe
from tfguard.static.analysis.step_effects import StepEffect, merged_chain
from tfguard.static.checks._links import with_default
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import Finding

Places = Callable[[ModuleAnalysis, Sequence[StepEffect]], str]


def every_step_writes(rule: NodeRule, module: ModuleAnalysis, steps: StepAnalysis, kind: str, does: str,
                      advice: str, places: Places) -> Iterator[Finding]:
    """``rule``'s findings for each write of ``kind`` (a step effect) made on every step of an eager loop.

    ``does`` says what the write does ("writes summaries"); ``places`` names the lines of the writes a called
    helper makes, for the finding that sits at the call.
    """
    loops = eager_steps(module)
    for call, loop, reached in every_step_sites(module, kind):
        how = f"{loops.how_often(call, loop)} of {steps.loop_text(loop)}"
        if not reached:
            headline = f"`{describe(call)}` {does} {how}"
            yield rule.finding(module, call, headline, advice, with_default((), module, steps, call, loop))
            continue
        headline = (f"`{describe(call)}` calls `{describe(reached[0].site)}` ({places(module, reached)}) on each "
                    f"call, so it {does} {how}")
        yield rule.finding(module, call, headline, advice,
                           with_default(merged_chain(reached), module, steps, call, loop))


def frequent_callbacks(rule: NodeRule, module: ModuleAnalysis, which: str, does: str,
                       advice: str) -> Iterator[Finding]:
    """``rule``'s findings for each Keras callback ``which`` (a qualified name) set to write every few batches;
    the headline is "`call` (its setting) <does>"."""
    for call in module.candidate_calls(frozenset(), frozenset({which})):
        setting = frequent_callback(module, call, which)
        if setting is not None:
            yield rule.finding(module, call, f"`{describe(call)}` ({setting}) {does}", advice)
