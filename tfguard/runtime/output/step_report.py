"""The text of a TF2 run's steps (the run's `steps` fact, record/steps.py's figures): one line of what the steps
were and where their time went (their diagnostics are the verdict's, PROGRAM scope, shown by text.py)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from tfguard.runtime.document import display_path, format_seconds


def _where(path: Optional[str], line: Optional[int]) -> str:
    return "%s:%d" % (display_path(path), line) if path and line else "an unknown line"


def _what(data: Dict[str, Any]) -> str:
    steps = data["steps"]
    if data["mode"] == "compiled":
        names = ", ".join("`%s`" % f["function"] for f in data["step_functions"][:2])
        return "%d step%s (calls of %s, which applies the gradients)" % (steps, "" if steps == 1 else "s", names)
    if data["mode"] == "eager":
        site = data.get("eager_site") or {}
        return "%d eager step%s (gradients applied at %s, in no tf.function)" % (
            steps, "" if steps == 1 else "s", _where(site.get("path"), site.get("line")))
    return "no step (no gradients applied)"


def render_steps(data: Dict[str, Any], width: Optional[int] = None) -> str:
    """The text of the document's `steps`."""
    from tfguard.runtime.output.fit import resolve_width, wrap_lines

    # With no step there is no span of steps to time ("no step in 0.00 us" read as a measurement): say what ran.
    spent = " in %s" % format_seconds(data["wall_seconds"]) if data["steps"] else ""
    parts: List[str] = [_what(data) + spent]
    if data["mode"] == "compiled":
        parts.append("%s in the step" % format_seconds(data["step_seconds"]))
    if data["next_batches"]:
        parts.append("%s getting %d batches" % (format_seconds(data["next_seconds"]), data["next_batches"]))
    python = sum(m["python_seconds"] for m in data["maps"])
    if python:
        parts.append("%s in the input pipeline's Python functions" % format_seconds(python))
    for kind, label in (("save", "checkpoint"), ("summary", "summary write"), ("flush", "summary flush")):
        writes = [w for w in data["writes"] if w["kind"] == kind]
        if writes:
            count = sum(w["count"] for w in writes)
            parts.append("%s in %d %s%s" % (format_seconds(sum(w["seconds"] for w in writes)), count, label,
                                           "" if count == 1 else "es" if label.endswith("flush") else "s"))
    columns = resolve_width(width)
    head = "tfguard TF2 steps: " + ", ".join(parts)
    lines = wrap_lines(head, columns, subsequent="    ") if columns else [head]
    return "\n".join(lines)
