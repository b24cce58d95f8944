"""What a runtime diagnostic is (TFG901-TFG9xx): its declaration, and the finding a judge returns.

Each diagnostic is declared once, in its judge module under ``tfguard/runtime/judge/`` (``DIAGNOSTIC =
RuntimeDiagnostic(...)``), the way a static rule declares itself in its class: code, name, severity, summary, the
``tfguard run --fail-on`` name, and the function that judges it. ``tfguard.runtime.judge.all_diagnostics()``
collects them; ``--fail-on``, the pytest plugin's budgets, ``tfguard rules``/``rule``, the docs pages
(``rules/<code>-<name>/README.md``) and the report read that registry. Every judge reads one typed input,
``judge(evidence)`` (record/evidence.py), and returns typed diagnostics (verdict.py). Pure data here: nothing is
judged.
"""

from __future__ import annotations

from typing import Any, Callable, List, NamedTuple, Optional, Sequence

from tfguard.runtime.verdict import BLAMED, NAMED, Diagnostic, Site

SEVERITIES = ("error", "warning", "info")


class RuntimeDiagnostic(NamedTuple):
    """One runtime diagnostic: ``severity`` is the most severe it is reported with."""

    code: str
    name: str
    severity: str
    summary: str
    #: The ``tfguard run --fail-on`` (and ``--tfguard-fail-on``) name, "" when it never fails a run.
    fail_on: str
    #: ``judge(evidence)`` -> the findings (record/evidence.py: one typed input, whatever the scope).
    judge: Callable[[Any], List[Diagnostic]]

    @property
    def slug(self) -> str:
        """The catalog folder name, ``TFG901-graph-growth``."""
        return "%s-%s" % (self.code, self.name)

    @property
    def page(self) -> str:
        """The diagnostic's page in the repository, ``rules/TFG901-graph-growth/README.md``."""
        return "rules/%s/README.md" % self.slug

    def finding(self, headline: str, severity: Optional[str] = None, path: Optional[str] = None,
                line: Optional[int] = None, help: str = "", named: Sequence[Site] = (),  # noqa: A002
                **evidence: Any) -> Diagnostic:
        """One diagnostic: its headline, severity (default: the declared one), the source line it blames
        (``path``, ``line``; None when it blames none), its help (what to do, shown on its own line), more
        lines it names, and its evidence (figures by name). Its scope is set by the judgement that called the
        judge."""
        sites = [Site(path, line, BLAMED)] if path is not None and line is not None else []
        sites += [Site(s.path, s.line, NAMED) for s in named]
        return Diagnostic(self.code, severity or self.severity, headline, help, sites, evidence)
