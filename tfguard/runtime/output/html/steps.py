"""A TF2 run's sections of the page: its steps (calls of the function that applies the gradients, or eager
`apply_gradients`) over the run with TFG902's trend where it judged one, where the steps' time went (input waits,
in the step, the host's Python between steps, checkpoints, summaries), and each retracing tf.function's traces over
its calls.

Every figure is the run verdict's: the run's `steps` fact (record/steps.py's `to_dict`: its step intervals and
`time_parts`), TFG902's evidence (the medians and where it took them) and the traced functions' call numbers.
Nothing is measured or judged here; a chart the figures cannot draw is left out with a line saying why.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

from tfguard.runtime.document import display_path, format_seconds, significant
from tfguard.runtime.judge.slowing_steps import DIAGNOSTIC as SLOWING_STEPS
from tfguard.runtime.output.html.charts import RUN_CLASSES
from tfguard.runtime.output.html.downsample import bucketed
from tfguard.runtime.output.html.evidence import figure, table
from tfguard.runtime.output.html.markup import esc
from tfguard.runtime.output.html.svg import Plot, stacked_bar
from tfguard.runtime.record.stats import warmup_points
from tfguard.runtime.verdict import PROGRAM, Diagnostic, RunVerdict

#: Retracing functions drawn (the most traced first); the table of the traces section has them all.
_FUNCTIONS_DRAWN = 4
#: Traced calls drawn as a staircase (each one a step); more are drawn as a line through buckets of them.
_STAIRS = 200
#: The breakdown's parts: (time_parts key, name, css class of the page's palette).
PARTS = (("input", "waiting for input", "input"), ("step", "in the step", "run"),
         ("host", "host (Python between steps)", "outside"), ("saves", "checkpoints", "save"),
         ("summaries", "summaries", "summaries"))


def _ms(value: float) -> str:
    if not value:
        return "0"
    return significant(value / 1e3) + " s" if value >= 1e3 else significant(value) + " ms"


def _count(value: float) -> str:
    return "{:,}".format(int(value)) if value == int(value) else significant(value)


#: The evidence of TFG902's TF2 finding the chart draws: where it took its medians, and the medians.
_EDGES = ("warmup_intervals", "first_fifth_end", "last_fifth_start", "step_seconds_first", "step_seconds_last")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def slowing_verdict(verdict: RunVerdict) -> Optional[Diagnostic]:
    """TFG902 judged on the TF2 steps (PROGRAM scope, with the edges of its medians), None when it was not (or a
    report file's evidence, which no schema types, holds something else than numbers there)."""
    return next((d for d in verdict.of_scope(PROGRAM) if d.code == SLOWING_STEPS.code
                 and all(_number(d.evidence.get(name)) for name in _EDGES)), None)


def step_time_chart(steps: Dict[str, Any], slowing: Optional[Diagnostic]) -> Optional[str]:
    """Time from one step to the next over the run (a point per `intervals_per_point` intervals); where TFG902
    judged the steps slower, the warm-up it skipped, the medians of its first and last fifth and their trend."""
    values = [v * 1e3 for v in steps.get("intervals") or []]
    if len(values) < 2:
        return None
    per_point = float(steps.get("intervals_per_point") or 1.0)
    # Interval i runs from step i + 1 to step i + 2: drawn at the step it starts from.
    xs = [1 + i * per_point for i in range(len(values))]
    buckets = bucketed(xs, values)
    # The scale fits the steps after the warm-up (the first step traces the function: a start-up spike would
    # flatten the rest); the warm-up is drawn cut at the top, its height said in its span's tooltip.
    skip = warmup_points(len(values))
    after = [b.high for b in buckets if b.x >= xs[skip]] or [b.high for b in buckets]
    plot = Plot((xs[0], xs[-1]), (0.0, max(after)), _ms, "ms", "step")
    if slowing is None:
        plot.shade(xs[0], xs[skip], "warm-up: %d point%s, up to %s" % (
            skip, "" if skip == 1 else "s", _ms(max(values[:skip]))))
    if any(b.low != b.high for b in buckets):
        plot.band(buckets, "time")
    plot.line([(b.x, b.mean) for b in buckets], "time", "step time")
    label = "time per step over the run"
    if slowing is not None:
        evidence = slowing.evidence
        skip, first_end, last_start = (1.0 + int(evidence[k]) for k in (
            "warmup_intervals", "first_fifth_end", "last_fifth_start"))
        first, last = evidence["step_seconds_first"] * 1e3, evidence["step_seconds_last"] * 1e3
        plot.shade(xs[0], skip, "warm-up: %d steps the verdict skips (up to %s)" % (
            skip - 1, _ms(max(values[:max(1, int((skip - 1) / per_point))]))))
        plot.segment(skip, first_end, first, "first 20%%: %s" % _ms(first))
        plot.segment(last_start, xs[-1], last, "last 20%%: %s" % _ms(last))
        plot.marks.append('<line class="trend" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>' % (
            plot.sx((skip + first_end) / 2.0), plot.sx((last_start + xs[-1]) / 2.0), plot.sy(first), plot.sy(last)))
        label += ": %s (x%s)" % (SLOWING_STEPS.code, significant(last / first) if first > 0 else "?")
    return plot.svg(label)


def parts_of(steps: Dict[str, Any]) -> List[Tuple[str, Optional[float], str]]:
    """[(name, seconds or None, css class)] of the steps' `time_parts` ([] for a document without them)."""
    parts = steps.get("time_parts") or {}
    if not parts:
        return []
    return [(name, parts.get(key), css) for key, name, css in PARTS]


def _callbacks_note(program: Optional[Dict[str, Any]]) -> str:
    """Which user callbacks' batch hooks the host part holds (Keras `fit`, the program's facts), or ""."""
    callbacks = sorted((c for c in (program or {}).get("callbacks") or [] if c.get("seconds")),
                       key=lambda c: -c["seconds"])
    if not callbacks:
        return ""
    return '<p class="note">%s</p>' % esc("the host part holds the batch hooks of %s" % ", ".join(
        "`%s` (%s:%s) %s" % (c["name"], display_path(c["path"]), c["line"], format_seconds(c["seconds"]))
        for c in callbacks[:4]))


def breakdown(steps: Dict[str, Any], program: Optional[Dict[str, Any]] = None) -> str:
    """Where the steps' wall time went: a stacked bar and its table (time, share), or a line saying why not; the
    user callbacks whose batch hooks the host part holds (`program`: the verdict's Keras facts)."""
    parts = parts_of(steps)
    wall = float((steps.get("time_parts") or {}).get("wall") or 0.0)
    if not parts or wall <= 0:
        return '<p class="note">%s</p>' % esc("no breakdown: the steps took no measurable time" if parts else
                                               "no breakdown: the report was written before tfguard kept one")
    bar = stacked_bar([(name, value or 0.0, css) for name, value, css in parts], wall,
                      "where the steps' time went")
    rows = [['<span class="swatch %s"></span>' % css, esc(name),
             esc("not apart: eager steps run in the loop's Python" if value is None else
                 format_seconds(value) if value else "none"),
             esc("%s%%" % significant(100 * value / wall) if value else "-")] for name, value, css in parts]
    return ('<figure class="plot wide"><figcaption>%s</figcaption>%s</figure>%s' % (
        esc("Where the steps' %s went" % format_seconds(wall)), bar,
        table(["", "part", "time", "share of the steps' time"], rows, "breakdown"))) + (
            _callbacks_note(program) if steps.get("mode") == "compiled" else "")


def retracing(verdict: RunVerdict) -> List[Dict[str, Any]]:
    """The traced functions that traced on more than one call, the most traced first."""
    found = [f for f in verdict.traced_functions if int(f.get("traced_calls") or 0) > 1]
    return sorted(found, key=lambda f: -int(f.get("traced_calls") or 0))


def traces_chart(functions: Sequence[Dict[str, Any]]) -> Optional[str]:
    """Traces so far against each function's own calls (a staircase per function: a step where a call traced),
    beside the line of a trace on every call; None when no function's traced calls were kept."""
    lines = []
    for entry in functions[:_FUNCTIONS_DRAWN]:
        numbers = [int(n) for n in entry.get("traced_call_numbers") or []]
        if not numbers:
            continue
        calls = int(entry.get("calls") or numbers[-1])
        points = [(float(n), float(i + 1)) for i, n in enumerate(numbers)]
        if len(numbers) == int(entry.get("traced_calls") or 0) and calls > numbers[-1]:
            points.append((float(calls), float(len(numbers))))  # every traced call kept: no trace after the last
        lines.append((entry.get("function") or "?", points))
    if not lines:
        return None
    last = max(p[-1][0] for _, p in lines)
    most = max(p[-1][1] for _, p in lines)
    plot = Plot((1.0, last), (0.0, most), _count, "traces", "call of the function")
    plot.marks.append('<line class="marker" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>' % (
        plot.sx(1.0), plot.sx(min(last, most)), plot.sy(1.0), plot.sy(min(last, most))))
    for (name, points), css in zip(lines, RUN_CLASSES):
        if len(points) > _STAIRS:  # a function traced on hundreds of calls: its count as a line, bucketed
            buckets = bucketed([x for x, _ in points], [y for _, y in points], _STAIRS)
            plot.line([(b.last_x, b.high) for b in buckets], css, name)
        else:
            plot.line(points, css, name, step=True)
    return plot.svg("traces over each function's calls: %s" % ", ".join(
        "%s %d" % (name, points[-1][1]) for name, points in lines))


def steps_section(verdict: RunVerdict) -> str:
    """The TF2 steps' section: step time, where the time went; "" when the run kept no TF2 steps."""
    steps = verdict.facts.get("steps")
    if not steps or not steps.get("steps"):
        return ""
    slowing = slowing_verdict(verdict)
    count = steps["steps"]
    what = ("calls of %s" % ", ".join("`%s`" % f["function"] for f in steps.get("step_functions") or [])
            if steps.get("mode") == "compiled" else "eager apply_gradients")
    caption = "Time per step (%s steps: %s)%s" % (count, what, ": %s, %s -> %s per step" % (
        SLOWING_STEPS.code, format_seconds(slowing.evidence["step_seconds_first"]),
        format_seconds(slowing.evidence["step_seconds_last"])) if slowing is not None else "")
    chart = figure(step_time_chart(steps, slowing), caption, "too few steps to draw")
    return '<section id="tf2-steps"><h2>Steps</h2><div class="plots">%s<div>%s</div></div></section>' % (
        chart, breakdown(steps, verdict.program))


def traces_over_calls(verdict: RunVerdict) -> str:
    """The chart of the retracing functions' traces over their calls ("" when none traced on more than one call),
    for the traces section."""
    functions = retracing(verdict)
    if not functions:
        return ""
    names = ", ".join(f.get("function") or "?" for f in functions[:_FUNCTIONS_DRAWN])
    legend = " ".join('<span class="legend-%s">&#9632; %s</span>' % (css, esc(f.get("function") or "?"))
                      for f, css in zip(functions[:_FUNCTIONS_DRAWN], RUN_CLASSES))
    # Beside the chart (two a row, as the other sections), its legend; one above the other on a phone.
    return '<div class="plots">%s<div><p class="note">%s; dashed: a trace on every call</p></div></div>' % (
        figure(traces_chart(functions), "Traces over the calls of %s" % names,
               "no traced call numbers kept"), legend)
