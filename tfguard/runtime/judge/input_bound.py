"""TFG903 input-bound: the device waits on Python (input preparation) for half of the wall time or more.

It blames the line where the sampled host time went most (record/host_time.py), when the host was sampled.
"""

from __future__ import annotations

from typing import List

from tfguard.runtime.diagnostics import RuntimeDiagnostic
from tfguard.runtime.judge.graph_growth import DIAGNOSTIC as GRAPH_GROWTH
from tfguard.runtime.judge.shares import judged
from tfguard.runtime.record.evidence import Evidence
from tfguard.runtime.record.host_time import advice, describe
from tfguard.runtime.record.recorder import KERAS_PREDICT
from tfguard.runtime.record.recording import Recording
from tfguard.runtime.verdict import Diagnostic, Site


def input_advice(recording: Recording) -> str:
    """What to do about an input-bound run: fix per-step growth first, batch per-sample predictions, else by where
    the sampled host time went (host_time.py: tf.data for input, less often for plotting...), else tf.data."""
    if recording.repeated:
        return ("much of it building new ops on every step (%s): fix that first, then move input "
                "to tf.data with prefetch" % GRAPH_GROWTH.code)
    busiest = recording.busiest()
    if busiest is not None and busiest.made_by == KERAS_PREDICT and 2 * busiest.count >= recording.runs:
        return ("most runs are Keras `model.predict` calls (%d of %d runs), each on a small batch: batch the "
                "predictions (one `model.predict` over an array of all the samples, or `predict_on_batch` on "
                "batches), or call the model once on a batch tensor; each call's Python set-up costs more than "
                "the model" % (busiest.count, recording.runs))
    host = recording.host_time
    if host is not None:
        said = "host time: %s" % describe(host)
        return "%s; %s" % (said, advice(host) or "look at those lines first (no single cause: no advice guessed)")
    return "move input to tf.data with prefetch"


def judge(evidence: Evidence) -> List[Diagnostic]:
    """TFG903 when the share of the loop's wall time outside sess.run reaches the `host_threshold` option."""
    recording = evidence.recording
    if recording is None:
        return []
    host, options = recording.host_fraction, recording.options
    if host is None or recording.runs < options["min_runs"] or host < options["host_threshold"]:
        return []
    lines = (recording.host_time or {}).get("lines") or []
    top = lines[0] if lines else {}
    return judged([DIAGNOSTIC.finding(
        "input-bound: the device waits on Python for %d%% of the time" % round(host * 100), None, top.get("path"),
        top.get("line"), help=input_advice(recording),
        named=[Site(e["path"], e["line"]) for e in lines[1:]], host_fraction=host, runs=recording.runs)], recording)


DIAGNOSTIC = RuntimeDiagnostic(
    "TFG903", "input-bound", "warning", "The device waits on Python (input preparation) for half of the wall time "
    "or more.", "input-bound", judge)
