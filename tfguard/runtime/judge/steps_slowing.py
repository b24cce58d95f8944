"""TFG902's TF2 case: steps get slower and slower, on the series of step intervals (record/steps.py).

The steps got slower when the median interval of the last fifth of the steps after warm-up is `slowdown_threshold`
times that of the first fifth or more, over at least `clocks.MIN_VERDICT_S` of steps. The cause is the program's
own when the stepping thread's own CPU time per step is itself a significant, persisting trend (`stats.step_trend`:
Mann-Kendall p < 0.001, not a level shift) of x`CPU_GROWTH` or more that alone adds at least `CPU_EXPLAINS` of the
first fifth's step time: ``python work`` (a list or history processed in full every step, host work that
grows), blamed on the line that calls the step.

Other jobs on the machine never raise a thread's own CPU time, but they stretch wall time (on the shared machine
these tests run on, x15 for the same CPU work): so the CPU series, not the wall series, carries the trend test here.
Each step function is judged on its own series (its calls' start-to-start intervals): a program that runs a fast
Keras `fit` and then a slower custom loop has two series, neither slower, not one that "got slower" at the phase
change (as a session's series is split where its fetches change, judge/slowdown.py).

A slowdown with no such trend (inside the compiled step, or a wait with no more CPU time) is silent: it may be
contention, as the session verdict calls it. So are eager steps (TFG909 comes first): the thread that runs them
dispatches every op itself, and a busy machine raises that CPU time too (a field program's eager step: x1.4 more CPU
per step while other jobs made it x9.8 slower).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from tfguard.runtime.document import format_seconds
from tfguard.runtime.judge.slowdown import PYTHON_WORK
from tfguard.runtime.judge.step_shares import options_of, split, where
from tfguard.runtime.record.clocks import MIN_VERDICT_S
from tfguard.runtime.record.stats import median_of, step_trend, warmup_points
from tfguard.runtime.record.steps import COMPILED, StepRecord

#: The least rise of the thread's own CPU time per step, as a share of the first fifth's step time.
CPU_EXPLAINS = 0.1
#: The least growth of the thread's own CPU time per step (first fifth to last) that counts as a cause.
CPU_GROWTH = 1.5


def _fifths(values: Sequence[float]) -> Optional[tuple]:
    """(first fifth's median, last fifth's median, (warm-up points, first fifth's last index, last fifth's first
    index)) of the series after its warm-up; None when too short."""
    skip = warmup_points(len(values))
    body = list(values[skip:])
    edge = max(1, len(body) // 5)
    if len(body) < 2 * edge:
        return None
    return median_of(body[:edge]), median_of(body[-edge:]), (skip, skip + edge - 1, len(values) - edge)


def judge(record: StepRecord, diagnostic: Any, options: Optional[Dict[str, Any]] = None) -> List[Any]:
    """TFG902 (`diagnostic`, slowing_steps.py's declaration) on a TF2 run's steps (see module docstring): on each
    step function's own series, the one that slowed the most named."""
    options = options_of(options)
    if record.mode != COMPILED or record.wall() < MIN_VERDICT_S or not record.intervals():
        return []
    series = record.function_series()
    found = [finding for function, steps in series
             for finding in _judge_series(record, function, steps, len(series) > 1, diagnostic, options)]
    return sorted(found, key=lambda finding: -finding.evidence["slowdown"])[:1]


def _judge_series(record: StepRecord, function: Any, steps: List[int], several: bool, diagnostic: Any,
                  options: Dict[str, Any]) -> List[Any]:
    """TFG902 on the steps one step function started (`steps`: their indices in the record): its own intervals, so
    that a fast Keras `fit` followed by a slower custom loop is two series, not one that got slower."""
    starts, thread_cpu = record.starts, record.thread_cpu
    if len(steps) < 2 or starts[steps[-1]] + record.seconds[steps[-1]] - starts[steps[0]] < MIN_VERDICT_S:
        return []
    intervals = [starts[b] - starts[a] for a, b in zip(steps, steps[1:])]
    cpu_intervals = [thread_cpu[b] - thread_cpu[a] for a, b in zip(steps, steps[1:])]
    threshold = options["slowdown_threshold"]
    wall, cpu = _fifths(intervals), _fifths(cpu_intervals)
    if wall is None or cpu is None or not wall[0] or wall[1] < threshold * wall[0]:
        return []
    trend = step_trend(cpu_intervals, CPU_GROWTH)
    if not trend.significant or cpu[1] < CPU_GROWTH * cpu[0] or cpu[1] - cpu[0] < CPU_EXPLAINS * wall[0]:
        return []
    slowdown = wall[1] / wall[0]
    site = (function.call_site or record.step_call_site) if several else record.step_call_site
    count = function.calls if several else record.steps  # all of them, beyond the steps whose times are kept
    message = "%s got x%.2f slower by the end of the run than after warm-up (%s -> %s per step over %d steps), " \
              "while the stepping thread's own CPU time per step kept rising (a trend, not a level shift) %s -> " \
              "%s — look for Python work that grows each step in the loop around the step at %s (a list or history " \
              "processed in full every step, a growing Python structure)" % (
                  "the steps of `%s`" % function.name if several else "steps", slowdown, format_seconds(wall[0]),
                  format_seconds(wall[1]), count, format_seconds(cpu[0]), format_seconds(cpu[1]), where(site))
    headline, advice = split(message)
    return [diagnostic.finding(headline, None, site[0] if site else None, site[1] if site else None, help=advice,
                               slowdown=slowdown, slowdown_cause=PYTHON_WORK, steps=count,
                               step_seconds_first=wall[0], step_seconds_last=wall[1],
                               cpu_seconds_first=cpu[0], cpu_seconds_last=cpu[1],
                               # Where the medians were taken, as indices into the run's step intervals (the
                               # chart's): the steps of this function at the edges of its warm-up and fifths.
                               warmup_intervals=steps[wall[2][0]], first_fifth_end=steps[wall[2][1]],
                               last_fifth_start=steps[wall[2][2]])]
