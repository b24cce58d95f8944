"""The guard's verdicts, live and final: graph growth and slowdown, and the diagnostics TFG901-TFG905.

One module for every judgment, so that what is said while the program runs and what the final
report says come from the same code:

- **Live** (while the program runs): only graph growth, which is certain once it happened. A
  line that grew the graph after `growth.REPEATED_EVENTS` different runs of the loop, and still
  did in the second half of the loop so far, gets one `GraphGrowthWarning` (`growth_alert`); the
  site stays *repeated* in the final report (`GrowthSite.alerted`), so the final report never
  contradicts the alert.
- **Final** (when the guard ends; `guard.report` inside the block is a snapshot of the same
  judgment on the runs so far): slowdown (`judge_slowdown`), and TFG901-TFG905 (`diagnose`). A
  `SlowdownWarning` is issued only then, with the final verdict's text.

A slowdown is the program's own when a trend test finds steps getting steadily slower (see
stats.step_trend: x`slowdown_threshold` or more, Mann-Kendall p < 0.001, not a level shift) over
at least `clocks.MIN_VERDICT_S` of marked runs, and, comparing the first fifth of the runs with the
last fifth (clocks.compare), one cause of the program's own explains at least half of the rise of
wall time per run (`EXPLAINS`):

- ``graph growth``: a repeated growth site grew the graph in the measured window;
- ``growing feed``: the bytes fed per run rose x`slowdown_threshold` and sess.run time rose;
- ``python work``: the time outside sess.run rose, and so did the guarding thread's own CPU time per run;
- ``host wait``: the time outside sess.run rose, while the guarding thread neither computed more
  nor waited longer for a CPU: the program is waiting on something that takes longer every step;
- ``tensorflow work``: the process's CPU time per run rose, while other jobs did not take more of
  the CPUs (under contention TensorFlow's thread pool spins and migrates: its CPU time rises with
  wall time then, and is only trusted when it rose as much as wall time; nor when the probe got
  x`slowdown_threshold` faster or more, which says the two fifths' CPU times are not comparable: a
  steady scalar loop here used x1.45 more CPU per run while the probe took half its CPU time).

Otherwise a slower wall time is *contention*: other jobs took more of the CPUs (`/proc/stat`,
beyond this process's own CPU time) or the guarding thread waited longer for a CPU
(`/proc/thread-self/schedstat`).
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence

from tfguard.runtime.document import after_run, after_runs, format_seconds
from tfguard.runtime.judge.summary_cost import summary_cost
from tfguard.runtime.record.clocks import MIN_VERDICT_S
from tfguard.runtime.record.growth import ONE_TIME, REPEATED, site_text, what_grew
from tfguard.runtime.record.host_time import advice, describe
from tfguard.runtime.record.stats import step_trend

#: A cause explains a slowdown when its rise per run is at least this share of wall time's rise per run.
EXPLAINS = 0.5
#: Other jobs took this many more CPUs in the last fifth than in the first: the CPUs got busier.
OTHERS_RISE_CPUS = 0.25
#: Over the whole run wall time per run must rise more than this for any slowdown (not a passing bump).
WHOLE_RUN_RISE = 1.1
GRAPH_GROWTH, GROWING_FEED, PYTHON_WORK, HOST_WAIT, TENSORFLOW_WORK = (
    "graph growth", "growing feed", "python work", "host wait", "tensorflow work")
_TOP_SITES = 3


def growth_alert(record: Dict[str, Any], step: int) -> str:
    """The live GraphGrowthWarning's text for a repeated growth site (`GrowthSite.to_dict()`)."""
    return ("tfguard: the graph keeps growing at %s: %s added after %d different runs since the loop started, "
            "most recently after run %d (static rule %s): %s" % (
                site_text(record), what_grew(record), record["events_in_loop"], step, record["rule"],
                record["fix"]))


def _at_first_speed(windows: Dict[str, Any]) -> Dict[str, Any]:
    """`windows` with the last fifth's CPU times divided by how much slower the CPUs got (the probe's rise)."""
    first, last = windows["first"], windows["last"]
    change = _ratio(first.get("probe"), last.get("probe"))
    last = dict(last)
    if change is not None and change > 1.0:  # slower CPUs only: a faster probe is no evidence of more work
        for name in ("process_cpu", "thread_cpu"):
            if last[name] is not None:
                last[name] /= change
    return dict(windows, last=last, cpu_speed_change=change)


def _ratio(first: Optional[float], last: Optional[float]) -> Optional[float]:
    if first is None or last is None or first <= 0:
        return None
    return last / first


def _rise(windows: Dict[str, Any], name: str) -> Optional[float]:
    first, last = windows["first"][name], windows["last"][name]
    return None if first is None or last is None else last - first


def judge_slowdown(values: Sequence[float], threshold: float, windows: Optional[Dict[str, Any]],
                   growing_sites: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    """The slowdown verdict of a trend series `values` given the clock windows (clocks.compare, None when the
    run was too short) and the repeated growth sites that grew during the measured window.

    Returns the report's slowdown fields (see the module docstring for the causes).
    """
    trend = step_trend(values, threshold)
    verdict: Dict[str, Any] = {
        "slowdown": trend.slowdown,
        "slowdown_shape": trend.shape,
        "slowdown_points": trend.points,
        "slowdown_cause": None,
        "verdict_window_s": None,
        "wall_per_run_growth": None,
        "cpu_per_run_growth": None,
        "thread_cpu_per_run_growth": None,
        "host_per_run_growth": None,
        "feed_bytes_growth": None,
        "feed_bytes_first": None,
        "feed_bytes_last": None,
        "others_cpus_rise": None,
        "cpu_speed_change": None,
        "contention": False,
    }
    cause = None
    if windows is not None:
        raw, windows = windows, _at_first_speed(windows)
        first, last = windows["first"], windows["last"]
        verdict.update({
            "cpu_speed_change": windows["cpu_speed_change"],
            "verdict_window_s": windows["span_s"],
            "wall_per_run_growth": _ratio(first["wall"], last["wall"]),
            "cpu_per_run_growth": _ratio(first["process_cpu"], last["process_cpu"]),
            "thread_cpu_per_run_growth": _ratio(first["thread_cpu"], last["thread_cpu"]),
            "host_per_run_growth": _ratio(first["host"], last["host"]),
            "feed_bytes_growth": _ratio(first["feed_bytes"], last["feed_bytes"]),
            "feed_bytes_first": first["feed_bytes"],
            "feed_bytes_last": last["feed_bytes"],
            "others_cpus_rise": _rise(windows, "others_cpus"),
        })
        cause, contention = _own_cause(verdict, windows, raw, threshold, growing_sites)
        verdict["contention"] = contention
    # Too short a run (under clocks.MIN_VERDICT_S of marks) or a slowdown no cause of the program's own explains:
    # no verdict (silence rather than a false alarm).
    significant = trend.significant and cause is not None
    verdict["slowdown_significant"] = significant
    verdict["slowdown_cause"] = cause if significant else None
    return verdict


def _own_cause(verdict: Dict[str, Any], windows: Dict[str, Any], raw: Dict[str, Any], threshold: float,
               growing_sites: Sequence[Dict[str, Any]]) -> "tuple[Optional[str], bool]":
    """(the program's own cause of the rise of wall time per run or None, whether other jobs took the CPUs).

    `windows` has CPU times at the first fifth's CPU speed (more work), `raw` as measured (time computing).
    """
    wall_rise = _rise(windows, "wall")
    others_rise = verdict["others_cpus_rise"]
    queue_rise = _rise(windows, "queue_wait")
    busier = others_rise is not None and others_rise >= OTHERS_RISE_CPUS
    queued = queue_rise is not None and wall_rise > 0 and queue_rise >= 0.5 * EXPLAINS * wall_rise
    contention = busier or queued
    if verdict["wall_per_run_growth"] is None or verdict["wall_per_run_growth"] <= WHOLE_RUN_RISE:
        # Over the whole run (last fifth against the first) wall time per run did not rise: a passing bump.
        return None, contention

    wall_growth = verdict["wall_per_run_growth"]

    def explains(name: str, growth_name: Optional[str] = None, relative: bool = False) -> bool:
        """Whether `name`'s rise per run explains half of wall time's: in seconds, or with `relative` (a
        measure other jobs do not stretch) as a ratio: x1.5 of it explains x2.25 of wall time (half in log terms),
        since on a saturated machine wall time stretches every second of the program's own work alike."""
        rise = _rise(windows, name)
        if rise is None:
            return False
        growth = _ratio(windows["first"][name], windows["last"][name])
        if growth_name is not None and (growth is None or growth < threshold):
            return False
        if rise >= EXPLAINS * wall_rise:
            return True
        return relative and growth is not None and growth >= threshold and \
            math.log(growth) >= EXPLAINS * math.log(wall_growth)

    if growing_sites:
        return GRAPH_GROWTH, contention
    feed_growth = verdict["feed_bytes_growth"]
    if feed_growth is not None and feed_growth >= threshold and explains("run", relative=True):
        return GROWING_FEED, contention
    host_rise = _rise(windows, "host")
    # Computing (however fast the CPUs are) or runnable and waiting for a CPU is not waiting on something.
    busy_rise = max(0.0, _rise(raw, "thread_cpu") or 0.0) + max(0.0, queue_rise or 0.0)
    if explains("host", "host_per_run_growth") and busy_rise < EXPLAINS * host_rise and \
            (queue_rise is not None or not busier):
        return HOST_WAIT, contention
    # Python-side work runs outside sess.run: the time outside it must have grown too, by half of wall time's rise
    # (next to other jobs the thread's CPU time inside sess.run rose x1.5-2.6 on steady loops here).
    if explains("host", "host_per_run_growth") and explains("thread_cpu", "thread_cpu_per_run_growth", relative=True):
        return PYTHON_WORK, contention
    speed = verdict["cpu_speed_change"]
    comparable = speed is None or speed >= 1.0 / threshold  # a much faster probe: CPU times not comparable
    if comparable and explains("process_cpu", "cpu_per_run_growth"):
        process_rise = _rise(windows, "process_cpu")
        if not contention or process_rise >= wall_rise:
            return TENSORFLOW_WORK, contention
    return None, contention


def _bytes(value: Optional[float]) -> str:
    if value is None:
        return "?"
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if value >= size:
            return "%.1f %s" % (value / size, unit)
    return "%d bytes" % value


def slowdown_message(verdict: Dict[str, Any], sites: List[Dict[str, Any]], runs: int) -> str:
    """TFG902's text: how much slower, measured how, and the cause of the program's own that explains it."""
    own_runs = verdict["slowdown_measure"] == "run time"
    message = "%s of `%s` got x%.2f slower by the end of the run than after warm-up, and kept rising " \
              "(a trend, not a level shift)" % (
                  "the run time" if own_runs else "steps", verdict["dominant_signature"], verdict["slowdown"] or 0.0)
    cause = verdict.get("slowdown_cause")
    if cause == GRAPH_GROWTH:
        growing = growing_in_window(sites, verdict.get("loop_start", 0), runs)
        return message + "; meanwhile the graph grew at " + ", ".join(
            "%s (%s)" % (site_text(s), what_grew(s)) for s in growing[:_TOP_SITES])
    if cause == GROWING_FEED:
        return message + ("; the graph did not grow, but the feed did: %s fed per run at the start, %s at the end "
                          "(x%.2f), and TensorFlow works on all of it every step. Look for an array or list that is "
                          "appended to before it is fed (feed a fixed-size batch)" % (
                              _bytes(verdict["feed_bytes_first"]), _bytes(verdict["feed_bytes_last"]),
                              verdict["feed_bytes_growth"]))
    if cause == PYTHON_WORK:
        return message + ("; the graph did not grow meanwhile, but the guarding thread's own CPU time per run rose "
                          "x%.2f: look for Python-side work that grows each step (a list or history processed in "
                          "full every step)" % verdict["thread_cpu_per_run_growth"])
    if cause == HOST_WAIT:
        return message + ("; time outside sess.run grows (x%.2f per run) while the CPU time per run does not: the "
                          "process is waiting, not computing. Look for a wait that takes longer each step (a reader "
                          "over a growing file list, a queue that drains, a sleep or a lock)"
                          % verdict["host_per_run_growth"])
    return message + ("; the graph did not grow meanwhile, but the process's CPU time per run rose x%.2f: TensorFlow "
                      "does more work per run (a variable, queue or table that grows)" % (
                          verdict["cpu_per_run_growth"] or 0.0))


def growing_in_window(sites: List[Dict[str, Any]], loop_start: int, runs: int) -> List[Dict[str, Any]]:
    """The repeated growth sites that grew after the first fifth of the loop (the slowdown's measured window)."""
    window_start = loop_start + (runs - loop_start) // 5
    return [s for s in sites if s["kind"] == REPEATED and s["last_step"] >= window_start]


def diagnose(data: Dict[str, Any], options: Dict[str, Any]) -> List[Dict[str, str]]:
    """TFG901-TFG905 from a report's data."""
    found = []
    sites = data["growth_sites"]
    repeated = [s for s in sites if s["kind"] == REPEATED]
    one_time = [s for s in sites if s["kind"] == ONE_TIME]
    if repeated or data["frozen_violations"]:
        parts = ["%s: %s added after %d different runs since the loop started, most recently after run %d "
                 "(%d ops; static rule %s)" % (
                     site_text(s), what_grew(s), s["events_in_loop"], s["last_step"], s["ops_added"], s["rule"])
                 for s in repeated[:_TOP_SITES]]
        parts += ["%s: blocked %s%s (static rule %s)" % (
            site_text(v), after_run(v["step"]) if v["step"] is not None else "",
            ", " + v["api"] if v["api"] else "", v["rule"])
            for v in data["frozen_violations"][:_TOP_SITES]]
        message = "the graph keeps growing as steps go by" if repeated \
            else "code tried to add ops to the frozen graph"
        found.append({"code": "TFG901", "severity": "error", "message": message + ": " + "; ".join(parts)})
    if one_time:
        parts = ["%s: %s added %s (%d ops)" % (
            site_text(s), what_grew(s), after_runs(s["first_step"], s["last_step"]),
            s["ops_added"]) for s in one_time[:_TOP_SITES]]
        if data["frozen_violations"]:  # it stopped because the graph was frozen, not by itself
            message = "the graph grew after the loop started, until it was frozen: %s" % "; ".join(parts)
        else:
            message = ("the graph grew a few times after the loop started, then stopped: %s. Fine when it is "
                       "meant to happen once (lazy set-up); building it before the loop makes that "
                       "explicit" % "; ".join(parts))
        found.append({"code": "TFG901", "severity": "info", "message": message})
    if data["slowdown_significant"]:
        found.append({"code": "TFG902", "severity": "warning",
                      "message": slowdown_message(data, sites, data["runs"])})
    # The shares (TFG903-TFG905) judge a training run: a run shorter than the slowdown verdict's minimum
    # (a smoke test) is too short to judge, and says so in an info line instead of a warning.
    too_short = data["wall_s"] < options.get("min_share_s", MIN_VERDICT_S)
    shares = []
    host = data["host_fraction"]
    if host is not None and data["runs"] >= options["min_runs"] and host >= options["host_threshold"]:
        shares.append({"code": "TFG903", "severity": "warning", "message":
                       "input-bound: the device waits on Python for %d%% of the time — %s" % (
                           round(host * 100), _input_advice(data, repeated))})
    summaries = _summaries_verdict(data, options)
    if summaries is not None:
        shares.append(summaries)
    if data["wall_s"] > 0 and data["saves"] >= options["min_saves"] and \
            data["save_s"] / data["wall_s"] >= options["save_threshold"]:
        shares.append({"code": "TFG905", "severity": "warning", "message":
                       "Saver.save took %d%% of wall time (%d saves) — save less often" % (
                           round(100 * data["save_s"] / data["wall_s"]), data["saves"])})
    for share in shares:
        if too_short:
            share = {"code": share["code"], "severity": "info", "message": "not judged: the run took %s, under "
                     "the %s a share verdict needs (a smoke run is no training run); measured: %s" % (
                         format_seconds(data["wall_s"]), format_seconds(options.get("min_share_s", MIN_VERDICT_S)),
                         share["message"].split(" — ")[0])}
        found.append(share)
    return found


def _summaries_verdict(data: Dict[str, Any], options: Dict[str, Any]) -> Optional[Dict[str, str]]:
    """TFG904 when summary ops are fetched on most runs, with what they cost, said the way TFG905 says it."""
    runs = data["runs"]
    fetching = [s for s in data["signatures"] if s["summary_ops"]]
    count = sum(s["count"] for s in fetching)
    if not runs or count < options["min_runs"] or count / runs < options["summary_share"]:
        return None
    ops = sorted({op for s in fetching for op in s["summary_ops"]})
    cost = summary_cost(data)
    wall = data["wall_s"]
    writer = ""
    if cost["writer_calls"]:
        writer = "FileWriter.add_summary/flush %s in %d calls" % (format_seconds(cost["writer_s"]),
                                                                  cost["writer_calls"])
    if cost["pairs"] and wall > 0:
        # Some summary runs may have no like step (an evaluation step): what is measured is a lower bound.
        label, _base, with_, without = max(cost["pairs"], key=lambda p: p[2])
        measured = "took %s%s of wall time (%s: runs that fetch them took %s median against %s for the same " \
                   "step without them%s)" % (
                       "at least " if cost["unmatched_runs"] else "", _percent(cost["seconds"] / wall),
                       format_seconds(cost["seconds"]), format_seconds(with_), format_seconds(without),
                       ", " + writer if writer else "")
    elif writer and wall > 0:
        measured = "cost %s of wall time in %s; their run time is not measured (no run of the same step " \
                   "without them to compare with)" % (_percent(cost["writer_s"] / wall), writer)
    else:
        measured = "cost not measured (no run of the same step without them to compare with)"
    return {"code": "TFG904", "severity": "warning", "message":
            "summary ops (%s) fetched on %d of %d runs %s — fetch them every N steps instead" % (
                ", ".join(ops), count, runs, measured)}


def _percent(share: float) -> str:
    """A share as a whole percent; under half a percent is "<1%" (measured, not nothing)."""
    return "<1%" if 0 < share < 0.005 else "%d%%" % round(100 * share)


def _input_advice(data: Dict[str, Any], repeated: List[Dict[str, Any]]) -> str:
    """What to do about an input-bound run: fix per-step growth first, batch per-sample predictions, else by where
    the sampled host time went (host_time.py: tf.data for input, less often for plotting...), else tf.data."""
    if repeated:
        return ("much of it building new ops on every step (TFG901): fix that first, then move input "
                "to tf.data with prefetch")
    busiest = max(data["signatures"], key=lambda s: s["count"], default=None)
    if busiest is not None and busiest.get("made_by") == "keras predict" and 2 * busiest["count"] >= data["runs"]:
        return ("most runs are Keras `model.predict` calls (%d of %d runs), each on a small batch: batch the "
                "predictions (one `model.predict` over an array of all the samples, or `predict_on_batch` on "
                "batches), or call the model once on a batch tensor; each call's Python set-up costs more than "
                "the model" % (busiest["count"], data["runs"]))
    host = data.get("host_time")
    if host is not None:
        said = "host time: %s" % describe(host)
        return "%s; %s" % (said, advice(host) or "look at those lines first (no single cause: no advice guessed)")
    return "move input to tf.data with prefetch"
