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
        self, module: ModuleAnalysis, node: nodes.NodeNG, message: str, chain: Sequence[ChainLink] = ()
    ) -> Finding:
        """Return this rule's finding at ``node`` (1-based columns, end one past the last character).

        With a ``chain`` the help part of the message ends with where ``# noqa`` goes: on the reported line, the
        call in the loop, since suppressions are matched against the line a finding is reported at, never against
        the helper's line that builds the op (a comment there silences nothing).
        """
        if chain:
            last = chain[-1]  # the helper that builds the op
            message += f"; silence it here with `# noqa: {self.code}`, not in {last.function}()"
        end_col = node.end_col_offset if node.end_col_offset is not None else node.col_offset
        return Finding(
            path=module.path,
            line=node.lineno,
            column=node.col_offset + 1,
            end_line=node.end_lineno or node.lineno,
            end_column=end_col + 1,
            code=self.code,
            name=self.name,
            severity=self.severity,
            message=message,
            chain=tuple(chain),
        )
