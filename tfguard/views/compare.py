"""Separate runs side by side (an A/B comparison): ``tfguard report a.json b.json`` and the demo's table.

One column per run, the rows of runtime/output/comparison.py (the HTML page shows the same), then each run's
diagnostics in full. Cells wrap to fit the width given.
"""

from __future__ import annotations

import textwrap
from typing import Callable, List, Sequence, Tuple

from tfguard.runtime.output.comparison import ROWS, comparison_column
from tfguard.runtime.output.fit import widest, wrap_lines
from tfguard.runtime.verdict import RunVerdict

#: The longest word kept whole in a cell while the table is made to fit (a longer one may be cut).
_LONGEST_WORD = 30

def _fit(rows: List[List[str]], headers: List[str], width: int) -> str:
    """The table at most ``width`` columns wide (0: as it is), cells wrapped at spaces. Each column keeps its
    longest word whole (up to _LONGEST_WORD): a path or `tf.train.Saver(...)` cut in the middle cannot be read or
    copied. The run columns narrow first, then the row labels; only then are words cut (down to 12 columns)."""
    from tabulate import tabulate

    text = tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)
    excess = widest(text) - width
    if width <= 0 or excess <= 0:
        return text
    cells = [headers] + rows
    limits = [max(len(line) for row in cells for line in str(row[i]).splitlines() or [""]) for i in
              range(len(headers))]
    words = [min(_LONGEST_WORD, max([1] + [len(word) for row in cells for word in str(row[i]).split()]))
             for i in range(len(headers))]
    data = list(range(1, len(headers)))
    for columns, floor in ((data, lambda i: words[i]), ([0], lambda i: words[i]), (data + [0], lambda i: 12)):
        while excess > 0:
            narrowable = [i for i in columns if limits[i] > floor(i)]
            if not narrowable:
                break
            limits[max(narrowable, key=lambda i: limits[i])] -= 1
            excess -= 1

    def wrapped(cell: str, column: int) -> str:
        return "\n".join(textwrap.wrap(str(cell), width=limits[column], break_long_words=True,
                                       break_on_hyphens=False)) if len(str(cell)) > limits[column] else cell

    return tabulate([[wrapped(cell, i) for i, cell in enumerate(row)] for row in rows],
                    headers=[wrapped(h, i) for i, h in enumerate(headers)], tablefmt="simple",
                    disable_numparse=True)


def comparison_table(runs: Sequence[Tuple[str, RunVerdict]], width: int = 0,
                     relative: Callable[[str], str] = lambda text: text) -> str:
    """Runs [(name, run verdict)] side by side, then each run's diagnostics; cells wrap at `width`
    columns (0: no wrapping). `relative` rewrites the diagnostics' paths for display."""
    names = [name for name, _ in runs]
    columns = [comparison_column(verdict, relative) for _, verdict in runs]
    rows = [[label] + [col[i] for col in columns] for i, label in enumerate(ROWS)]
    table = _fit(rows, [""] + names, width)
    blocks = [table]
    for name, verdict in runs:
        notes = ["%s %s  %s" % (d.code, d.severity, relative(d.one_line))
                 for d in verdict.diagnostics]
        if notes:
            lines = ["%s diagnostics:" % name]
            for note in notes:
                lines += wrap_lines(note, width, indent="  ", subsequent="    ")
            blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
