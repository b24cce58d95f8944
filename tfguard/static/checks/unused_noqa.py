"""TFG001: a ``# noqa: TFG…`` comment that suppresses nothing."""

from __future__ import annotations

from typing import Iterable, Optional, Set, Tuple

from tfguard.static.finding import Finding
from tfguard.static.registry import SuppressionRule, rule_codes
from tfguard.static.suppression import NoqaCode, SuppressionAudit

#: Only codes of this tool are judged: a noqa for E501 belongs to flake8 and the like.
OWN_PREFIX = "TFG"


class UnusedNoqa(SuppressionRule):
    """A ``# noqa: TFG…`` code with no finding of that code on its line (stale, or a typo)."""

    code = "TFG001"
    name = "unused-noqa"
    severity = "warning"
    summary = "`# noqa: TFG…` names a code that has no finding on its line"
    default_enabled = False

    def check_suppressions(self, audit: SuppressionAudit) -> Iterable[Finding]:
        """Yield one finding per ``# noqa`` code that suppresses nothing.

        Codes of rules that are not enabled for the file are not judged (their
        findings were never computed); bare ``# noqa`` comments and other tools'
        codes are left alone.
        """
        found: Set[Tuple[int, str]] = {(f.line, f.code) for f in audit.findings}
        known = set(rule_codes())
        for noqa in audit.suppressions.codes:
            problem = self._problem(noqa, found, known, audit)
            if problem is not None:
                yield Finding(
                    path=audit.path,
                    line=noqa.line,
                    column=noqa.column,
                    end_line=noqa.line,
                    end_column=noqa.end_column,
                    code=self.code,
                    name=self.name,
                    severity=self.severity,
                    headline=problem[0],
                    help=problem[1],
                )

    def _problem(self, noqa: NoqaCode, found: Set[Tuple[int, str]], known: Set[str],
                 audit: SuppressionAudit) -> Optional[Tuple[str, str]]:
        if not noqa.code.startswith(OWN_PREFIX) or noqa.code == self.code:
            return None
        if noqa.code not in known:
            return f"`# noqa` names unknown rule code {noqa.code}", "remove it or fix the code"
        if not audit.is_enabled(noqa.code) or (noqa.line, noqa.code) in found:
            return None
        return f"unused `# noqa` code {noqa.code}: there is no {noqa.code} finding on this line", "remove it"
