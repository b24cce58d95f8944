"""A recording judged: the slowdown verdict and every diagnostic that reads the recording, into the document.

`judged_document(recording)` is the JSON document of one guard (``Report.to_dict()``): the recording's fields,
the slowdown verdict's fields, and ``diagnostics`` (each judge's findings, in code order). A snapshot while the
program runs and the final report are the same judgement, on the runs so far and on all of them.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from tfguard.runtime.document import REPORT_VERSION
from tfguard.runtime.judge import all_diagnostics
from tfguard.runtime.judge.slowdown import slowdown_of
from tfguard.runtime.record.recording import Recording

#: The document's fields that come after the slowdown verdict's, in the document's order.
_AFTER_SLOWDOWN = ("all_runs_series", "host_gap_series", "signatures", "growth_sites", "frozen_violations",
                   "options")


def judge(recording: Recording) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    """(the slowdown verdict, the findings of every diagnostic that reads a recording, in code order)."""
    slowdown = slowdown_of(recording)
    findings = [finding for d in all_diagnostics().values() if d.reads == "recording"
                for finding in d.judge(recording, slowdown)]
    return slowdown, findings


def judged_document(recording: Recording) -> Dict[str, Any]:
    """The guard's JSON document: recorded fields, slowdown verdict, diagnostics (see the module docstring)."""
    slowdown, findings = judge(recording)
    recorded = recording.to_dict()
    data: Dict[str, Any] = {"version": REPORT_VERSION}
    data.update((k, v) for k, v in recorded.items() if k not in _AFTER_SLOWDOWN)
    data.update(slowdown)
    data.update((k, recorded[k]) for k in _AFTER_SLOWDOWN)
    data["diagnostics"] = findings
    return data


def diagnose(data: Dict[str, Any], options: Optional[Dict[str, Any]] = None) -> List[Dict[str, Any]]:
    """The findings of every diagnostic that reads a recording, on a document's data (its slowdown verdict as it
    says it): a saved ``tfguard run --json`` document judged again, or a test's synthetic figures."""
    recording = Recording.from_dict(dict(data, options=options if options is not None else data["options"]))
    return [finding for d in all_diagnostics().values() if d.reads == "recording"
            for finding in d.judge(recording, data)]
