"""Two (or more) run verdicts on one page: their verdicts, a table of the same rows for each run (the rows of
``tfguard report A.json B.json``, built once in output/comparison.py), their step time and graph size on shared
axes, then each run's full report in its own column (stacked on a narrow screen)."""

from __future__ import annotations

from typing import Sequence, Tuple

from tfguard.runtime.output.comparison import ROWS, comparison_column
from tfguard.runtime.output.html import charts, evidence, page
from tfguard.runtime.output.html.markup import esc
from tfguard.runtime.output.html.verdict import verdict_lines
from tfguard.runtime.verdict import RunVerdict


def comparison_page(runs: Sequence[Tuple[str, RunVerdict]]) -> str:
    """The page of runs [(name, verdict)] side by side."""
    names = [name for name, _ in runs]
    css = charts.RUN_CLASSES
    heads = []
    for (name, verdict), cls in zip(runs, css * len(runs)):
        heads.append('<h2 class="run-name %s">%s: %s</h2>%s' % (cls, esc(name), esc(page.title_of(verdict)),
                                                                verdict_lines(verdict)))
    columns = [comparison_column(verdict) for _, verdict in runs]
    rows = [[esc(label)] + [esc(column[i]) for column in columns] for i, label in enumerate(ROWS)]
    table = evidence.table([""] + names, rows, "compare")
    plots = "".join('<figure class="plot"><figcaption>%s</figcaption>%s<output class="readout"></output></figure>'
                    % (esc(caption), svg) for caption, svg in charts.comparison_charts(runs))
    legend = " ".join('<span class="legend-%s">&#9632; %s</span>' % ("ab"[i] if i < 2 else "a", esc(name))
                      for i, name in enumerate(names))
    side = "".join('<div><h2 class="run-name %s">%s</h2>%s</div>' % (cls, esc(name), page.report_body(verdict))
                   for (name, verdict), cls in zip(runs, css * len(runs)))
    body = ('<section class="verdicts">%s</section><section id="compare"><h2>Side by side</h2>%s'
            '<p class="note">%s</p><div class="plots">%s</div></section><section class="side">%s</section>' % (
                "".join(heads), table, legend, plots, side))
    return page.html_page("tfguard report: %s" % " vs ".join(names), "%d runs side by side" % len(runs), body)


def render_comparison(runs: Sequence[Tuple[str, RunVerdict]]) -> str:
    """The HTML page of runs ``[(name, verdict)]`` side by side (A/B)."""
    return comparison_page(runs)
