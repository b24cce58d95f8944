"""Two (or more) run reports on one page: their verdicts, a table of the same rows for each run, their step time
and graph size on shared axes, then each run's full report in its own column (stacked on a narrow screen).

The rows are those of ``tfguard report A.json B.json`` (tfguard.reports.compare), computed here from the runtime's
own helpers: the runtime does not import the reports package.
"""

from __future__ import annotations

from html import escape
from typing import Any, Dict, List, Sequence, Tuple

from tfguard.runtime.document import display_path, format_seconds
from tfguard.runtime.output.html import charts, evidence, page, verdict
from tfguard.runtime.record.series import trend_series


def _ms(value: Any) -> str:
    return "-" if value is None else "%.1f ms" % (value * 1e3)


def comparison_rows(document: Dict[str, Any]) -> List[Tuple[str, str]]:
    """[(row, cell)] of one run, the same rows for every run."""
    if "mode" not in document:
        return [("runs", "no TensorFlow session")]
    edges = charts.verdict_edges(trend_series(document).values)
    first, last = (edges[3], edges[4]) if edges else (None, None)
    sites = [s for s in document.get("growth_sites") or [] if s.get("kind") != "setup"]
    top = sites[0] if sites else None
    slowdown = document.get("slowdown")
    host = document.get("host_fraction")
    cost = charts.summary_cost(document)
    return [
        ("runs", str(document["runs"])),
        ("graph ops start -> end", "%d -> %d (+%d)" % (document["nodes_start"], document["nodes_end"],
                                                     document["nodes_added"])),
        ("step time, first 20%", _ms(first)),
        ("step time, last 20%", _ms(last)),
        ("slowdown", "-" if slowdown is None else "x%.2f%s" % (
            slowdown, " (significant)" if document.get("slowdown_significant") else " (no significant trend)")),
        ("top growth site", "none" if top is None else "%s:%d (+%d ops, %s)" % (
            display_path(top["path"]), top["line"], top["ops_added"], top.get("rule") or top["kind"])),
        ("diagnostics", ", ".join(d["code"] + (" (info)" if d["severity"] == "info" else "")
                                  for d in verdict.all_diagnostics(document)) or "none"),
        ("Saver.save calls (time)", "%d (%s)" % (document["saves"], format_seconds(document["save_s"]))),
        ("summary runs (cost)", "none" if not cost["runs"] else "%d (%s)" % (
            cost["runs"], format_seconds(cost["seconds"]) if cost["pairs"] or cost["writer_calls"]
            else "not measured")),
        ("outside sess.run (host)", "-" if host is None else "%.0f%%" % (100 * host)),
        ("guarded wall time", format_seconds(document["wall_s"])),
    ]


def comparison_page(runs: Sequence[Tuple[str, Dict[str, Any]]]) -> str:
    """The page of runs [(name, document)] side by side."""
    names = [name for name, _ in runs]
    css = charts.RUN_CLASSES
    heads = []
    for (name, document), cls in zip(runs, css * len(runs)):
        heads.append('<h2 class="run-name %s">%s: %s</h2>%s' % (cls, escape(name), escape(page.title_of(document)),
                                                                verdict.verdict_lines(document)))
    columns = [comparison_rows(document) for _, document in runs]
    labels = [label for label, _ in max(columns, key=len)]
    rows = [[escape(label)] + [escape(dict(col).get(label, "-")) for col in columns] for label in labels]
    table = evidence.table([""] + names, rows, "compare")
    plots = "".join('<figure class="plot"><figcaption>%s</figcaption>%s<output class="readout"></output></figure>'
                    % (escape(caption), svg) for caption, svg in charts.comparison_charts(runs))
    legend = " ".join('<span class="legend-%s">&#9632; %s</span>' % ("ab"[i] if i < 2 else "a", escape(name))
                      for i, name in enumerate(names))
    side = "".join('<div><h2 class="run-name %s">%s</h2>%s</div>' % (cls, escape(name), page.report_body(document))
                   for (name, document), cls in zip(runs, css * len(runs)))
    body = ('<section class="verdicts">%s</section><section id="compare"><h2>Side by side</h2>%s'
            '<p class="note">%s</p><div class="plots">%s</div></section><section class="side">%s</section>' % (
                "".join(heads), table, legend, plots, side))
    return page.html_page("tfguard report: %s" % " vs ".join(names), "%d runs side by side" % len(runs), body)
