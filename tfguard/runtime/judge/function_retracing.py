"""TFG908 function-retracing: does a `tf.function` keep retracing as calls go by, or did it trace a bounded handful?

Reads the FunctionRecords of a function watch (record/functions.py: `Evidence.functions`) only. A function
*keeps retracing* (warning) when all hold:

1. it traced in at least `RETRACE_THRESHOLD` different calls;
2. it still traced in the later half of its calls, in at least `LATE_TRACES` of them (a fixed set of input
   shapes, or a `training` flag, is traced once per member early on, and then never again);
3. the traces grow one tf.function object's cache (one object traced in `RETRACE_THRESHOLD` calls or more: a
   Python value, shape or object that changes), or they come from new objects used only a few calls each (at
   least one traced call per `CALLS_PER_NEW_TRACE` calls: a tf.function or a model created per call). A model
   built per fold of a cross-validation and then fit for many steps traces once per fold: that is information.

Condition 2 is waived when the traced calls are that dense over the whole run (one per `CALLS_PER_NEW_TRACE`
calls or more): a set of 9 shapes cycled through in 20 calls has not shown that it is bounded.

Any other function traced in 2 or more calls is `info` (a bounded handful); one traced once is not reported.
The live alert (`alert_due`) fires once per function, when its traced calls reach `ALERT_TRACES` and the
conditions hold at that moment.
"""

from __future__ import annotations

import os
from typing import List, Optional

from tfguard.runtime.diagnostics import RuntimeDiagnostic
from tfguard.runtime.document import display_path, format_seconds
from tfguard.runtime.record.evidence import Evidence
from tfguard.runtime.record.functions import FunctionRecord
from tfguard.runtime.record.tracebacks import is_library_file
from tfguard.runtime.verdict import Diagnostic, Site

#: Traced calls that can make a function one that keeps retracing (TensorFlow's own detector warns at 5 traces
#: within 10 calls).
RETRACE_THRESHOLD = 5
#: Traced calls that must fall in the later half of the calls.
LATE_TRACES = 2
#: New tf.function objects used this many calls each, or fewer, keep retracing.
CALLS_PER_NEW_TRACE = 4
#: Traced calls at which the live alert fires (higher than the threshold: a fixed set of 5-9 input shapes met in
#: the first calls must not alert before the run shows that the set is bounded).
ALERT_TRACES = 10

#: Calling lines of the leading change named besides the blamed one.
MAX_NAMED_CALLS = 5

#: What to write instead, per kind of change.
_ADVICE = {
    "value": "pass the changing Python value as a tensor (tf.constant(...) or a tf.Variable), or give the "
             "function an input_signature",
    "shape": "give the function an input_signature with None for the dimensions that vary, or "
             "reduce_retracing=True",
    "dtype": "cast the argument to one dtype before the call",
    "object": "create the object once and pass the same one (or pass tensors), instead of a new object per call",
    "structure": "pass the same structure on every call (tensors in a fixed-length list or dict)",
    "new-function": "create the tf.function (or the Keras model) once, outside the loop or the function that "
                    "runs per call, and call that one",
}


def keeps_retracing(record: FunctionRecord, calls: Optional[int] = None) -> bool:
    """Whether `record` keeps retracing (module docstring), judged after `calls` calls (default: all)."""
    calls = record.calls if calls is None else calls
    traced = record.traced_call_count
    if traced < RETRACE_THRESHOLD:
        return False
    dense = traced * CALLS_PER_NEW_TRACE >= calls
    if dense:
        return True
    late = sum(1 for call in record.traced_calls if call * 2 > calls)
    return late >= LATE_TRACES and record.most_traced_calls_of_one_object >= RETRACE_THRESHOLD


def alert_due(record: FunctionRecord) -> bool:
    """Whether the live alert is due now, right after a new traced call (once per function)."""
    if record.alerted or record.traced_call_count < ALERT_TRACES:
        return False
    return keeps_retracing(record, record.calls + 1)  # the call in progress traced


def severity(record: FunctionRecord) -> Optional[str]:
    """warning, info or None (traced in one call only). A function the live alert named stays a warning: the
    report never contradicts what was printed while the program ran (its message says the last traced call)."""
    if record.traced_call_count < 2:
        return None
    return "warning" if record.alerted or keeps_retracing(record) else "info"


def where(path: str, line: int) -> str:
    """`train.py:12`; a library's file from its package on (`keras/src/backend/tensorflow/trainer.py:279`)."""
    marker = "site-packages" + os.sep
    shown = path.split(marker, 1)[1] if marker in path else display_path(path)
    return "%s:%d" % (shown, line)


def _changes_text(record: FunctionRecord, limit: int = 2) -> str:
    changes = record.top_changes()
    if not changes and record.variants > 1:
        return "no argument changed: %d functions made from one Python function (Keras' train and test " \
               "functions, say) traced each" % record.variants
    if not changes:
        return "no argument changed (the same arguments traced again)"
    parts = ["%s (%s)" % (change.text(), _times(change.count)) for change in changes[:limit]]
    more = len(changes) - limit
    return "; ".join(parts) + ("; and %d more" % more if more > 0 else "")


def _times(count: int) -> str:
    return "once" if count == 1 else "%d times" % count


def _cost(record: FunctionRecord) -> str:
    run = max(0.0, record.call_seconds - record.trace_seconds)
    return "tracing took %s, running %s" % (format_seconds(record.trace_seconds), format_seconds(run))


def _head(record: FunctionRecord) -> str:
    """`step` (defined at train.py:3, created again at train.py:20): a library's function (Keras' train function)
    is said to be one, the user's lines (where it is called, where it is created, where its Keras model is built
    again) are the lines named; the creating line is said when it is not the calling line."""
    if is_library_file(record.path):
        defined = "a function of %s" % where(record.path, record.line).split("/")[0]
    else:
        defined = "defined at %s" % where(record.path, record.line)
    created, built = record.created_site(), record.built_site()
    if created is not None and created not in (record.retrace_site(), built):
        defined += ", created again at %s" % where(*created)
    if built is not None:
        defined += "; the model is built again at %s %s" % (where(*built), _built_times(record))
    return "`%s` (%s)" % (record.name, defined)


def _built_times(record: FunctionRecord) -> str:
    """`for each call` when every traced call after the first came with a new model, else `(7 times)`."""
    models = sum(record.built_sites.values())
    return "for each call" if models + 1 >= record.traced_call_count else "(%s)" % _times(models)


def message(record: FunctionRecord, level: str) -> str:
    """The diagnostic's one-line message."""
    site = record.retrace_site()
    called = " called from %s" % where(*site) if site else ""
    last = record.traced_calls[-1] if record.traced_calls else 0
    head = _head(record) + called
    counts = "%d traces in %d calls" % (record.traced_call_count, record.calls)
    if record.objects > 1:
        counts += " of %d tf.function objects" % record.objects
    if level == "warning":
        return "%s keeps retracing: %s, the last in call %d; what changed: %s; %s" % (
            head, counts, last, _changes_text(record), _cost(record))
    return "%s traced a bounded handful: %s, the last in call %d; what changed: %s; %s" % (
        head, counts, last, _changes_text(record), _cost(record))


def advice(record: FunctionRecord, level: str) -> str:
    """What to write instead, for a function that keeps retracing ("" for a bounded handful)."""
    if level != "warning" or not record.top_changes():
        return ""
    kind = record.top_changes()[0].kind
    built = record.built_site()
    if kind == "new-function" and built is not None:
        return "build the Keras model once, outside the loop or the function that runs per call (not at %s " \
               "for each call), and call that model" % where(*built)
    return _ADVICE.get(kind, "")


def alert_message(record: FunctionRecord) -> str:
    """The live alert, when a function's traced calls cross ALERT_TRACES."""
    site = record.retrace_site()
    return "tfguard: %s %s keeps retracing: %d traces in %d calls so far%s; what changed: %s" % (
        DIAGNOSTIC.code, _head(record), record.traced_call_count, record.calls + 1,
        ", called from %s" % where(*site) if site else "", _changes_text(record, 1))


def judge(evidence: Evidence) -> List[Diagnostic]:
    """TFG908 findings of the functions that traced in 2 calls or more, warnings first; each is located at the
    user's calling line of the traces (`path`/`line`), else at the definition; the line that built the Keras models
    made again, the line that created the objects made again and the definition (unless it is a library's) are
    NAMED sites; its figures are its evidence."""
    found = []
    for record in evidence.functions:
        level = severity(record)
        if level is None:
            continue
        site = record.retrace_site() or (record.path, record.line)
        found.append(DIAGNOSTIC.finding(
            message(record, level), level, site[0], site[1], help=advice(record, level),
            named=_named(record, tuple(site)),
            function=record.name, definition_path=record.path,
            definition_line=record.line, traces=record.traced_call_count, calls=record.calls,
            objects=record.objects, trace_seconds=record.trace_seconds,
            run_seconds=max(0.0, record.call_seconds - record.trace_seconds),
            changes=[change.to_dict() for change in record.top_changes()[:3]]))
    found.sort(key=lambda d: (d.severity != "warning", -d.evidence["traces"]))
    return found


def _named(record: FunctionRecord, blamed: tuple) -> List[Site]:
    """The other lines to show: the other calling lines of the leading change's traces (a literal passed on
    several lines), where the Keras models and the objects were created again, and the definition (not a
    library's)."""
    changes = record.top_changes()
    lines = sorted(changes[0].sites)[:MAX_NAMED_CALLS] if changes else []
    lines.append(record.built_site())
    lines.append(record.created_site())
    if not is_library_file(record.path):
        lines.append((record.path, record.line))
    named: List[Site] = []
    for line in lines:
        if line is not None and tuple(line) != blamed and all((s.path, s.line) != tuple(line) for s in named):
            named.append(Site(line[0], line[1]))
    return named


DIAGNOSTIC = RuntimeDiagnostic(
    "TFG908", "function-retracing", "warning", "A `tf.function` keeps retracing as calls go by (warning), or traced "
    "a bounded handful of times (info).", "retracing", judge)
