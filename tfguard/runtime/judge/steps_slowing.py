"""TFG902's TF2 case: steps get slower and slower, on the series of step intervals (record/steps.py).

The same verdict rules as for sessions (judge/slowdown.py): `stats.step_trend` finds a persisting trend of at least
`slowdown_threshold` (not a level shift) over at least `clocks.MIN_VERDICT_S` of steps, and a cause of the program's
own explains at least `EXPLAINS` of the rise, comparing the first fifth of the steps after warm-up with the last:

- ``python work``: the stepping thread's own CPU time per step rose (a list or history processed in full every step,
  host work that grows): blamed on the line that calls the step.

Otherwise (the time in the compiled step rose, or the wait between steps with no more CPU time) the rise may be other
jobs on the machine: silent, as the session verdict calls it contention.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from tfguard.runtime.document import format_seconds
from tfguard.runtime.judge import slowing_steps
from tfguard.runtime.judge.slowdown import EXPLAINS, PYTHON_WORK
from tfguard.runtime.judge.step_shares import options_of, where
from tfguard.runtime.record.clocks import MIN_VERDICT_S
from tfguard.runtime.record.stats import median_of, step_trend, warmup_points
from tfguard.runtime.record.steps import COMPILED, StepRecord


def _fifths(values: Sequence[float]) -> Optional[tuple]:
    body = list(values[warmup_points(len(values)):])
    edge = max(1, len(body) // 5)
    if len(body) < 2 * edge:
        return None
    return median_of(body[:edge]), median_of(body[-edge:])


def judge(record: StepRecord, options: Optional[Dict[str, Any]] = None) -> List[Dict[str, Any]]:
    """TFG902 on a TF2 run's steps (see module docstring)."""
    options = options_of(options)
    intervals = record.intervals()
    if record.wall() < MIN_VERDICT_S or not intervals:
        return []
    trend = step_trend(intervals, options["slowdown_threshold"])
    if not trend.significant:
        return []
    wall, cpu = _fifths(intervals), _fifths(record.cpu_intervals())
    if wall is None or cpu is None or wall[1] <= wall[0]:
        return []
    wall_rise, cpu_rise = wall[1] - wall[0], cpu[1] - cpu[0]
    if cpu_rise < EXPLAINS * wall_rise:
        return []
    site = record.step_call_site if record.mode == COMPILED else (
        record.eager_site.site if record.eager_site is not None else None)
    message = "steps got x%.2f slower by the end of the run than after warm-up (%s -> %s per step over %d steps), " \
              "and kept rising (a trend, not a level shift); the stepping thread's own CPU time per step rose %s -> " \
              "%s: look for Python work that grows each step in the loop around the step at %s (a list or history " \
              "processed in full every step, a growing Python structure)" % (
                  trend.slowdown or 0.0, format_seconds(wall[0]), format_seconds(wall[1]), record.steps,
                  format_seconds(cpu[0]), format_seconds(cpu[1]), where(site))
    return [slowing_steps.DIAGNOSTIC.finding(message, None, site[0] if site else None, site[1] if site else None,
                               slowdown=trend.slowdown, slowdown_cause=PYTHON_WORK, steps=record.steps,
                               step_seconds_first=wall[0], step_seconds_last=wall[1],
                               cpu_seconds_first=cpu[0], cpu_seconds_last=cpu[1])]
