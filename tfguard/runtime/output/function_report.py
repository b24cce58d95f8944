"""A tf.function watch's report (run/function_watch.py) and its text: the diagnostics, then the most traced
functions."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from tfguard.runtime.document import format_seconds
from tfguard.runtime.judge.function_retracing import where
from tfguard.runtime.output.fit import fit_records, resolve_width, wrap_lines
from tfguard.runtime.verdict import FUNCTION, Diagnostic, FunctionsVerdict, RunVerdict

#: Functions listed in the text report; the JSON has them all.
FUNCTIONS_SHOWN = 8


class FunctionReport:
    """A tf.function watch's report: the functions (`functions`: each traced one's facts, the most traced first),
    their `diagnostics` (TFG908, typed), `table()` and `to_dict()` (the JSON document of a run of them)."""

    def __init__(self, functions: FunctionsVerdict, diagnostics: List[Diagnostic]) -> None:
        self.verdict = RunVerdict({}, [], functions, list(diagnostics))

    @property
    def diagnostics(self) -> List[Diagnostic]:
        """The diagnostics (TFG908), warnings first."""
        return self.verdict.diagnostics

    @property
    def functions(self) -> List[Dict[str, Any]]:
        """Each traced function's facts, the most traced first."""
        return self.verdict.traced_functions

    def to_dict(self) -> Dict[str, Any]:
        """The JSON document (verdict.py) of a run of these functions."""
        return self.verdict.to_document()

    def table(self, width: Optional[int] = None) -> str:
        """The text report (see render)."""
        return render(self.verdict, width)


def render(verdict: RunVerdict, width: Optional[int] = None) -> str:
    """The text of a verdict's tf.functions: their diagnostics, then a table of the most traced functions."""
    if verdict.functions is None or not verdict.functions.available:
        return "tf.function traces: not available on this TensorFlow (needs 2.13 or later)"
    functions = verdict.traced_functions
    calls = sum(f["calls"] for f in functions)
    lines = ["tfguard tf.function report: %d function%s traced, %d trace%s in %d call%s" % (
        len(functions), "" if len(functions) == 1 else "s", sum(f["traced_calls"] for f in functions),
        "" if sum(f["traced_calls"] for f in functions) == 1 else "s", calls, "" if calls == 1 else "s")]
    columns = resolve_width(width)
    for diagnostic in verdict.of_scope(FUNCTION):
        said = ["%s %s: %s" % (diagnostic.code, diagnostic.severity, diagnostic.headline)]
        said += ["help: " + diagnostic.help] if diagnostic.help else []
        for line in said:
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
