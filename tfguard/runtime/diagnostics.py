"""What a runtime diagnostic is (TFG901-TFG9xx): its declaration, and the finding a judge returns.

Each diagnostic is declared once, in its judge module under ``tfguard/runtime/judge/`` (``DIAGNOSTIC =
RuntimeDiagnostic(...)``), the way a static rule declares itself in its class: code, name, severity, summary, the
``tfguard run --fail-on`` name, and the function that judges it. ``tfguard.runtime.judge.all_diagnostics()``
collects them; ``--fail-on``, the pytest plugin's budgets, ``tfguard rules``/``rule``, the docs pages
(``rules/<code>-<name>/README.md``) and the report read that registry. Pure data here: nothing is judged.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, NamedTuple, Optional

SEVERITIES = ("error", "warning", "info")
#: What a judge reads: the typed recording of one guard (record/recording.py), the placement data of one
#: traced step (devices/placement.py), the FunctionRecords of a tf.function watch (record/functions.py), or the
#: ProgramRecord of a TF2 program's Keras calls, callbacks and host syncs (record/keras_calls.py).
INPUTS = ("recording", "placement", "functions", "program")


class RuntimeDiagnostic(NamedTuple):
    """One runtime diagnostic: ``severity`` is the most severe it is reported with."""

    code: str
    name: str
    severity: str
    summary: str
    #: The ``tfguard run --fail-on`` (and ``--tfguard-fail-on``) name, "" when it never fails a run.
    fail_on: str
    #: ``judge(recording, slowdown)`` -> findings (``"recording"``), ``judge(placement_data)`` (``"placement"``), or
    #: ``judge(function_records)`` (``"functions"``), ``judge(program_record)`` (``"program"``).
    judge: Callable[..., Any]
    reads: str = "recording"

    @property
    def slug(self) -> str:
        """The catalog folder name, ``TFG901-graph-growth``."""
        return "%s-%s" % (self.code, self.name)

    @property
    def page(self) -> str:
        """The diagnostic's page in the repository, ``rules/TFG901-graph-growth/README.md``."""
        return "rules/%s/README.md" % self.slug

    def finding(self, message: str, severity: Optional[str] = None, path: Optional[str] = None,
                line: Optional[int] = None, **evidence: Any) -> Dict[str, Any]:
        """One diagnostic of the JSON document: code, severity, message, the source line it blames (``path``,
        ``line``; None when it blames no line) and its evidence as fields."""
        return {"code": self.code, "severity": severity or self.severity, "message": message,
                "path": path, "line": line, "evidence": evidence}
