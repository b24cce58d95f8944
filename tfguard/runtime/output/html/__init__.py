"""The run report as one offline HTML page (``tfguard run --html FILE``, ``tfguard report A.json [B.json] --html``).

A pure function of the JSON document ``tfguard run --json`` writes (runner.run_document): nothing is measured or
read from disk here. The page holds its CSS, script and SVG charts inline and a Content-Security-Policy that
refuses every request, so it opens the same from disk, an e-mail or a CI artifact. From the top:

- the verdict lines (one per diagnostic, or "no diagnostics"), then each diagnostic in full with the source lines
  it blames (its ``path``/``line`` when it carries them, and the growth sites, blocked changes and host-time lines
  its message names) and its help;
- step time over the run (the series the slowdown verdict judged, min/max per bucket so spikes survive
  downsampling, the warm-up it skips, the medians of its first and last fifth and the trend joining them, the loop
  start), graph size (ops) over the runs with the growth sites, the host share with its top source lines, where
  the wall time went (sess.run, summaries, Saver.save, outside sess.run) and the busiest fetch signatures;
- traces per function, when the document has a ``function_traces`` list (TF2 ``tf.function`` retracing, TFG908):
  each entry ``{"function": str, "path": str, "line": int, "traces": int, "calls": int, "trace_s": float | None,
  "run_s": float | None, "changes": [str]}`` (all but ``function`` and ``traces`` may be missing); left out
  otherwise;
- the run's facts (command, TensorFlow version, exit status, sessions, runs watched and the text report's
  evidence totals), devices, other sessions.

Two or more documents make one page with the runs side by side (:func:`render_comparison`).
"""

from __future__ import annotations

from typing import Any, Dict, Sequence, Tuple

from tfguard.runtime.output.html.page import html_page, report_body, title_of
from tfguard.runtime.output.html.side_by_side import comparison_page


def render_report(document: Dict[str, Any]) -> str:
    """The HTML page of one run document (or of a bare ``report.to_dict()``)."""
    subtitle = "TensorFlow %s, %s" % (document.get("tensorflow_version") or "?", "%d runs watched" % document["runs"]
                                      if "runs" in document else "no session watched")
    return html_page(title_of(document), subtitle, report_body(document))


def render_comparison(runs: Sequence[Tuple[str, Dict[str, Any]]]) -> str:
    """The HTML page of runs ``[(name, document)]`` side by side (A/B)."""
    return comparison_page(runs)


def write_page(path: str, html: str) -> None:
    """Write `html` to `path` (UTF-8); OSError when it cannot."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(html)


__all__ = ["render_comparison", "render_report", "write_page"]
