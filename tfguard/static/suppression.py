"""``# noqa`` comments, read with tokenize because astroid drops comments."""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence

from tfguard.static.finding import Finding

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_FILE_NOQA = re.compile(r"#\s*tfguard:\s*noqa\b", re.IGNORECASE)

#: Text every suppression comment contains, tested before tokenizing (which is slow).
_MARKER = "noqa"

#: Marker for a bare noqa comment, which suppresses every code on its line.
ALL_CODES: FrozenSet[str] = frozenset({"*"})


@dataclass(frozen=True)
class NoqaCode:
    """One code named by a ``# noqa: CODES`` comment, with its place in the file (1-based columns)."""

    line: int
    column: int
    end_column: int
    code: str


@dataclass
class Suppressions:
    """The ``# noqa`` comments of one file, keyed by line."""

    by_line: Dict[int, FrozenSet[str]] = field(default_factory=dict)
    skip_file: bool = False
    #: Every code named explicitly, in file order (bare noqa comments name none).
    codes: List[NoqaCode] = field(default_factory=list)

    def suppresses(self, finding: Finding) -> bool:
        """Return whether a comment on the finding's line suppresses it."""
        codes = self.by_line.get(finding.line)
        if codes is None:
            return False
        return codes is ALL_CODES or finding.code in codes


def parse_noqa_comment(comment: str) -> Optional[FrozenSet[str]]:
    """Return the codes a ``# noqa`` comment names, ALL_CODES for a bare one, None if it is not one."""
    match = _NOQA.search(comment)
    if match is None:
        return None
    if match.group("codes") is None:
        return ALL_CODES
    return frozenset(c.upper() for c in re.split(r"[\s,]+", match.group("codes")) if c)


def noqa_codes(comment: str, line: int, column: int) -> List[NoqaCode]:
    """Return the codes a ``# noqa: CODES`` comment starting at ``line``/``column`` (1-based) names, placed."""
    match = _NOQA.search(comment)
    if match is None or match.group("codes") is None:
        return []
    start = match.start("codes")
    return [
        NoqaCode(line, column + start + code.start(), column + start + code.end(), code.group().upper())
        for code in re.finditer(r"[A-Za-z]+[0-9]+", match.group("codes"))
    ]


def read_suppressions(source: str) -> Suppressions:
    """Collect the suppression comments of ``source``; a tokenize error keeps what was read."""
    result = Suppressions()
    if _MARKER not in source.lower():
        return result  # both comment forms contain "noqa": most files need no tokenize pass
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type != tokenize.COMMENT:
                continue
            if _FILE_NOQA.search(tok.string):
                result.skip_file = True
                continue
            codes = parse_noqa_comment(tok.string)
            if codes is not None:
                line = tok.start[0]
                result.codes.extend(noqa_codes(tok.string, line, tok.start[1] + 1))
                previous = result.by_line.get(line)
                if previous is ALL_CODES or codes is ALL_CODES:
                    result.by_line[line] = ALL_CODES
                else:
                    result.by_line[line] = (previous or frozenset()) | codes
    except (tokenize.TokenError, SyntaxError):
        pass
    return result


def apply_suppressions(findings: Iterable[Finding], suppressions: Suppressions) -> List[Finding]:
    """Drop the findings that a comment suppresses."""
    if suppressions.skip_file:
        return []
    return [f for f in findings if not suppressions.suppresses(f)]


@dataclass(frozen=True)
class SuppressionAudit:
    """What a rule about ``# noqa`` comments needs: one file's comments and its findings before suppression.

    ``findings`` are those of every other rule that ran on the file and is
    enabled for it; ``is_enabled(code)`` says whether a code was checked there.
    """

    path: str
    suppressions: Suppressions
    findings: Sequence[Finding]
    is_enabled: Callable[[str], bool]
