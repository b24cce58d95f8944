"""The one result type of the static checker."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Dict, Tuple


@dataclass(frozen=True)
class ChainLink:
    """One hop from a call inside a loop down to the line that builds the op."""

    path: str
    line: int
    function: str


@dataclass(frozen=True)
class Finding:
    """A rule violation at a source location; lines and columns are 1-based.

    ``end_column`` points one past the last character, as in SARIF.
    ``chain`` lists the helper-function hops when the offending op is built
    inside a function called from the reported line.
    """

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    name: str
    severity: str
    message: str
    chain: Tuple[ChainLink, ...] = field(default=())

    def sort_key(self) -> tuple:
        """Order findings by path, line, column, code."""
        return (self.path, self.line, self.column, self.code)

    def to_dict(self) -> Dict[str, Any]:
        """Return the JSON-ready form used by the json reporter."""
        data = asdict(self)
        data["chain"] = [asdict(link) for link in self.chain]
        return data
