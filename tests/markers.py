"""Read the findings that example files expect, written as comments on the offending line.

``# expect: TFG101`` says the checker must report TFG101 on that line;
``# expect: TFG102, TFG108, TFG108`` lists several findings (a repeated code
counts once per repetition).  ``# todo-expect: TFG102`` marks a finding the
checker should report but does not yet: a known gap, kept visible.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from tfguard.static.finding import Finding

#: One marker comment: ``# expect: CODES`` or ``# todo-expect: CODES``.
MARKER_RE = re.compile(r"#\s*(?P<todo>todo-)?expect:(?P<codes>[^#]*)")
CODE_RE = re.compile(r"TFG\d{3}")

LineCode = tuple[int, str]


@dataclass
class Markers:
    """The expected and the known-missing findings of one file, as (line, code) counts."""

    expected: Counter[LineCode] = field(default_factory=Counter)
    todo: Counter[LineCode] = field(default_factory=Counter)


def read_markers(source: str) -> Markers:
    """Parse every marker comment of ``source``; a malformed code raises ValueError."""
    markers = Markers()
    for line_number, line in enumerate(source.splitlines(), start=1):
        # A line may carry both kinds: `# expect: TFG204  # todo-expect: TFG903`.
        for match in MARKER_RE.finditer(line):
            codes = [code.strip() for code in match.group("codes").split(",")]
            for code in codes:
                if not CODE_RE.fullmatch(code):
                    raise ValueError(
                        f"line {line_number}: malformed marker code {code!r} in {line.strip()!r}"
                    )
            target = markers.todo if match.group("todo") else markers.expected
            target.update((line_number, code) for code in codes)
    return markers


def finding_counts(findings: Iterable[Finding]) -> Counter[LineCode]:
    """Count findings by (line, code), the form markers are compared in."""
    return Counter((finding.line, finding.code) for finding in findings)


def restrict(counts: Counter[LineCode], codes: Collection[str]) -> Counter[LineCode]:
    """Keep only the entries whose code is in ``codes``."""
    return Counter({key: n for key, n in counts.items() if key[1] in codes})
