"""Fit report text to the terminal: 80 columns, or `COLUMNS`; 0 means wide (no wrapping, `--wide`).

Prose (a diagnostic's message) wraps at spaces with a hanging indent, so a path or a `file:line` shorter
than the line stays whole and clickable (only a word longer than the whole line is cut); table cells wrap
the same way inside their column, the widest columns narrowed first.
"""

from __future__ import annotations

import os
import textwrap
from typing import List, Optional

DEFAULT_WIDTH = 80
#: Narrower than this and wrapped text would be a word per line: keep this width at least.
MIN_WIDTH = 40


def terminal_width(environ: Optional[dict] = None) -> int:
    """`COLUMNS` when it is a positive number (at least MIN_WIDTH), else 80; never the size of a terminal the
    output may not be going to (a pipe, a log file)."""
    value = (os.environ if environ is None else environ).get("COLUMNS", "")
    try:
        width = int(value)
    except ValueError:
        return DEFAULT_WIDTH
    return max(MIN_WIDTH, width) if width > 0 else DEFAULT_WIDTH


def resolve_width(width: Optional[int]) -> int:
    """`width` as given (0: wide), or the terminal's when None."""
    return terminal_width() if width is None else width


def wrap_lines(text: str, width: int, indent: str = "", subsequent: str = "") -> List[str]:
    """`text` as lines of at most `width` columns (a word longer than a line is cut), starting with
    `indent`, continued with `subsequent`; one line when `width` is 0."""
    if width <= 0 or len(indent) + len(text) <= width:
        return [indent + text]
    return textwrap.wrap(text, width=width, initial_indent=indent, subsequent_indent=subsequent,
                         break_long_words=True, break_on_hyphens=False) or [indent]


def widest(text: str) -> int:
    """The longest line of `text`."""
    return max((len(line) for line in text.splitlines()), default=0)


def fit_table(rows: List[List[object]], headers: List[str], width: int, shrink: List[int],
              least: int = 8, **options: object) -> str:
    """`tabulate(rows, headers, "simple")`, and when wider than `width` (0: never), the columns in `shrink`
    narrowed, the widest first (to `least` characters at most), their cells and headers wrapped inside them."""
    from tabulate import tabulate

    text = tabulate(rows, headers=headers, tablefmt="simple", **options)
    excess = widest(text) - width
    if width <= 0 or excess <= 0 or not rows:
        return text
    sizes = [max([len(line) for cell in [headers[i]] + [row[i] for row in rows]
                  for line in str(cell).splitlines()] or [0]) for i in range(len(headers))]
    limits = {i: sizes[i] for i in shrink}
    # First down to each column's longest word (a path stays whole), then, if still too wide, to `least`.
    words = {i: max([len(word) for cell in [headers[i]] + [row[i] for row in rows] for word in str(cell).split()]
                    or [0]) for i in shrink}
    for floor in (lambda i: max(least, words[i]), lambda i: least):
        while excess > 0:
            narrowable = [i for i in limits if limits[i] > floor(i)]
            if not narrowable:
                break
            column = max(narrowable, key=lambda i: limits[i])
            limits[column] -= 1
            excess -= 1
    def wrapped(cell: object, column: int) -> object:
        limit = limits.get(column)
        if limit is None or len(str(cell)) <= limit:
            return cell
        # At spaces: a path or `file:line` stays whole unless it is longer than the column itself.
        return "\n".join(textwrap.wrap(str(cell), width=limit, break_long_words=True, break_on_hyphens=False))

    return tabulate([[wrapped(cell, i) for i, cell in enumerate(row)] for row in rows],
                    headers=[wrapped(header, i) for i, header in enumerate(headers)], tablefmt="simple", **options)


def fit_records(rows: List[List[object]], headers: List[str], width: int, **options: object) -> str:
    """`tabulate(rows, headers, "simple")` when it fits `width` (0: always); else one record per row: its first
    cell on a line, then ``header value`` pairs, wrapped under it (a table of many columns read at 80)."""
    from tabulate import tabulate

    text = tabulate(rows, headers=headers, tablefmt="simple", **options)
    if width <= 0 or widest(text) <= width or not rows:
        return text
    lines = []
    for row in rows:
        lines += wrap_lines(str(row[0]), width, "  ", "    ")
        pairs = ", ".join("%s %s" % (header, cell) for header, cell in zip(headers[1:], row[1:]) if str(cell))
        lines += wrap_lines(pairs, width, "    ", "    ")
    return "\n".join(lines)
