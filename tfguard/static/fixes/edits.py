"""Applying the edits of several fixes to one text in a single consistent pass."""

from __future__ import annotations

from typing import List, Sequence, Tuple

from tfguard.static.finding import Edit, Fix
from tfguard.static.fixes.source import SourceText

Span = Tuple[int, int]


def _spans(source: SourceText, edits: Sequence[Edit]) -> List[Span]:
    return [(source.offset((e.line, e.column)), source.offset((e.end_line, e.end_column))) for e in edits]


def _conflict(one: Span, other: Span) -> bool:
    """Two edits conflict when their ranges overlap or one inserts inside (or at the edge of) the other's range.

    Two insertions at the same place do not conflict: they are applied in fix order.
    """
    (a, b), (c, d) = one, other
    if a == b and c == d:
        return False
    if a == b:
        return c <= a <= d
    if c == d:
        return a <= c <= b
    return a < d and c < b


def apply_fixes(text: str, fixes: Sequence[Fix]) -> Tuple[str, List[Fix]]:
    """Apply every fix whose edits conflict with no earlier fix's (fixes are taken in source order).

    Returns the new text and the fixes applied; the others are left for a later
    pass, on the text this one produces.
    """
    source = SourceText(text)
    ordered = sorted(fixes, key=lambda fix: min((e.line, e.column) for e in fix.edits) if fix.edits else (0, 0))
    taken: List[Span] = []
    applied: List[Fix] = []
    planned: List[Tuple[int, int, int, str]] = []
    seen_edits = set()
    for fix in ordered:
        if not fix.edits:
            continue
        if fix.edits in seen_edits:  # two findings fixed by one edit (callers of one input_fn): apply it once
            applied.append(fix)
            continue
        try:
            spans = _spans(source, fix.edits)
        except IndexError:
            continue  # a position past the end of this text: the fix was planned for another one
        if any(start > end or end > len(text) for start, end in spans):
            continue
        own_conflict = any(_conflict(s, t) for i, s in enumerate(spans) for t in spans[i + 1:])
        if own_conflict or any(_conflict(s, t) for s in spans for t in taken):
            continue
        taken.extend(spans)
        seen_edits.add(fix.edits)
        applied.append(fix)
        for (start, end), edit in zip(spans, fix.edits):
            planned.append((start, len(planned), end, edit.content))
    planned.sort()
    pieces: List[str] = []
    position = 0
    for start, _, end, content in planned:
        pieces.append(text[position:start])
        pieces.append(content)
        position = end
    pieces.append(text[position:])
    return "".join(pieces), applied
