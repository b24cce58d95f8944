"""A base for rules that report findings at one node, with an optional helper-call chain."""

from __future__ import annotations

from typing import Sequence

from astroid import nodes

from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.finding import ChainLink, Finding
from tfguard.static.registry import Rule


class NodeRule(Rule):
    """A rule whose findings each point at one AST node."""

    def finding(
        self, module: ModuleAnalysis, node: nodes.NodeNG, headline: str, help: str,
        chain: Sequence[ChainLink] = (),
    ) -> Finding:
        """Return this rule's finding at ``node`` (1-based columns, end one past the last character): ``headline``
        says what is wrong, ``help`` what to do ("" when nothing more is to be said).

        With a ``chain`` the help ends with where ``# noqa`` goes: on the reported line, the call in the loop, since
        suppressions are matched against the line a finding is reported at, never against the helper's line that
        builds the op (a comment there silences nothing).
        """
        if not isinstance(headline, str) or not isinstance(help, str):
            # A rule written before headline and help were apart passes (module, node, message, chain).
            raise TypeError(f"{self.code}: finding() takes the headline and the help as two strings")
        if chain:
            last = chain[-1]  # the helper that builds the op
            # a link at module level (a session, a default the message names) has no function to name
            where = f"at line {last.line}" if last.function == "<module>" else f"in {last.function}()"
            silence = f"silence it here with `# noqa: {self.code}`, not {where}"
            help = f"{help}; {silence}" if help else silence
        end_col = node.end_col_offset if node.end_col_offset is not None else node.col_offset
        finding = Finding(
            path=module.path,
            line=node.lineno,
            column=node.col_offset + 1,
            end_line=node.end_lineno or node.lineno,
            end_column=end_col + 1,
            code=self.code,
            name=self.name,
            severity=self.severity,
            headline=headline,
            help=help,
            chain=tuple(chain),
        )
        module.note_reported_at(finding, node)  # the rule's fix is planned from this node (fixes/planner.py)
        return finding
