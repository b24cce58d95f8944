"""The text of a tf.function watch's report (run/function_watch.py): its diagnostics, then the most traced functions."""

from __future__ import annotations

from typing import Any, Dict, Optional

from tfguard.runtime.document import format_seconds
from tfguard.runtime.judge.function_retracing import where

#: Functions listed in the text report; the JSON has them all.
FUNCTIONS_SHOWN = 8


def render(data: Dict[str, Any], width: Optional[int] = None) -> str:
    """The text of a function report: diagnostics, then a table of the most traced functions."""
    from tfguard.runtime.output.fit import fit_records, resolve_width, wrap_lines

    if not data.get("available"):
        return "tf.function traces: not available on this TensorFlow (needs 2.13 or later)"
    functions = data.get("functions") or []
    calls = sum(f["calls"] for f in functions)
    lines = ["tfguard tf.function report: %d function%s traced, %d trace%s in %d call%s" % (
        len(functions), "" if len(functions) == 1 else "s", sum(f["traced_calls"] for f in functions),
        "" if sum(f["traced_calls"] for f in functions) == 1 else "s", calls, "" if calls == 1 else "s")]
    columns = resolve_width(width)
    for diagnostic in data.get("diagnostics") or []:
        line = "%s %s: %s" % (diagnostic["code"], diagnostic["severity"], diagnostic["message"])
        lines.extend(wrap_lines(line, columns, subsequent="    ") if columns else [line])
    rows = [[f["function"], where(f["path"], f["line"]), f["traced_calls"], f["calls"],
             format_seconds(f["trace_seconds"]), format_seconds(f["run_seconds"])]
            for f in functions[:FUNCTIONS_SHOWN]]
    if rows:
        table = fit_records(rows, ["function", "defined at", "traced calls", "calls", "tracing", "running"],
                            columns or 0, disable_numparse=True)
        lines += [""] + table.splitlines()
    if len(functions) > FUNCTIONS_SHOWN:
        lines.append("%d more functions traced (--json has them)" % (len(functions) - FUNCTIONS_SHOWN))
    return "\n".join(lines)
