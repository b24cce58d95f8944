"""Issue 45, the TF1 report's figures that read wrong: "outside sess.run" is one figure of one definition on the
whole page (and in the text report), computed once by the judge; fetch-signature rows that differ only past the cut
never read the same; the graph-size chart's axis shows a small growth on a large graph. The browser check of the
chart is in tests/run/test_html_browser.py. Also run on Python 3.7 (the TF 1.15 leg)."""

from __future__ import annotations

import re
import threading

import pytest

from tests.runtime.html_documents import run_verdict, session_figures
from tfguard.runtime.document import shown_labels, significant
from tfguard.runtime.judge.judgement import completed, derived_figures
from tfguard.runtime.output.html.charts import graph_size_chart, size_range
from tfguard.runtime.output.html.page import render_report
from tfguard.runtime.output.session_report import SessionReport
from tfguard.runtime.record.recorder import DEFAULT_OPTIONS, Recorder
from tfguard.runtime.run.reporting import report_of
from tfguard.runtime.verdict import RunVerdict, SessionVerdict

pytestmark = pytest.mark.tf1

SETUP_S = 30.0  # a long set-up before the loop: the whole session's "outside" share is then far from the loop's


def _with_setup():
    """A session whose loop took `wall_s` and whose set-up before it took SETUP_S more."""
    figures = session_figures(200)
    loop = {"wall_s": figures["wall_s"], "run_s": figures["run_s"], "save_s": 0.0}
    figures.update(wall_s=figures["wall_s"] + SETUP_S, loop=loop,
                   host_fraction=1.0 - loop["run_s"] / loop["wall_s"])
    figures.pop("time_parts")
    figures.update(derived_figures(figures))
    return figures


def test_the_outside_share_is_the_host_share_in_every_part_of_the_judged_figures():
    figures = _with_setup()
    parts = figures["time_parts"]
    assert parts["outside_share"] == figures["host_fraction"]
    outside = [p for p in parts["parts"] if p["name"] == "outside sess.run"][0]
    assert outside["share"] == figures["host_fraction"]
    assert abs(sum(p["seconds"] for p in parts["parts"]) - parts["span_s"]) < 1e-9  # the parts are the loop
    assert abs(parts["before_loop_s"] - SETUP_S) < 1e-9


def test_the_page_and_the_text_show_one_outside_share():
    figures = _with_setup()
    verdict = RunVerdict({"tensorflow_version": "1.15.5"}, [SessionVerdict(1, "train.py:30", 1, False, figures)],
                         None, [])
    html = render_report(verdict)
    one = significant(100 * figures["host_fraction"]) + "%"
    whole = significant(100 * (figures["wall_s"] - figures["run_s"]) / figures["wall_s"]) + "%"
    assert one != whole
    assert "Outside sess.run (host): %s of the loop&#x27;s wall time" % one in html
    assert "<th>outside sess.run (host)</th><td>%s</td>" % one in html
    assert re.search(r'<td data-label="part">outside sess.run</td><td data-label="time">[^<]+</td>'
                     r'<td data-label="share of the loop&#x27;s wall time">%s</td>' % re.escape(one), html)
    assert "outside sess.run: %.1f%%" % (100 * figures["host_fraction"]) in html  # the bar's tooltip
    assert whole not in html
    assert "before the loop (set-up" in html
    text = SessionReport(verdict.sessions[0], []).table(width=0)
    assert re.search(r"outside sess.run \(host\)\s+%s" % re.escape(one), text)


def test_an_earlier_document_without_the_loop_figures_is_split_over_its_wall_time():
    figures = session_figures(200)
    for name in ("time_parts", "summary_cost"):
        figures.pop(name)
    verdict = completed(RunVerdict({}, [SessionVerdict(1, None, 1, False, figures)], None, []))
    parts = verdict.sessions[0].figures["time_parts"]
    assert parts["span_s"] == figures["wall_s"] and parts["outside_share"] == figures["host_fraction"]


class _Graph:
    version = 7


class _Tensor:
    def __init__(self, name):
        self.name = name


def test_signatures_that_differ_past_the_cut_are_told_apart_in_the_recording_and_the_tables():
    """The field run's char-RNN: six signatures whose fetch and feed lists differ only in their last names."""
    recorder = Recorder(_Graph(), "watch", threading.get_ident(), dict(DEFAULT_OPTIONS, warn=False))
    fetches = [_Tensor("Model/RNN/multi_rnn_cell/cell_%d/lstm_cell/BiasAdd:0" % i) for i in range(4)]
    feeds = [_Tensor("Model/input_%s:0" % name) for name in ("x", "y", "keep_prob", "learning_rate")]
    clock = 0.0
    for phase in range(6):
        run_fetches = tuple(fetches + [_Tensor("Model/phase_%d/cost:0" % phase)])
        run_feeds = tuple(feeds + [_Tensor("Model/phase_%d/initial_state:0" % phase)])
        for _ in range(3):
            recorder.record(run_fetches, run_feeds, clock, clock + 1e-3)
            clock += 2e-3
    recorder.record(_Tensor("train_op"), (), clock, clock + 1e-3)
    recorder.finish()
    labels = [s.label for s in recorder.recording().signatures]
    assert len(labels) == 7 and len(set(labels)) == 7
    assert all("phase_" in label for label in labels if label != "train_op")
    report = report_of(recorder)
    table = report.table(width=100)
    rows = table[table.index("fetch signatures by total run time"):].splitlines()[1:]
    shown = [row.strip() for row in rows if "phase_" in row]
    assert shown and len(set(shown)) == len(shown), table  # each row's label keeps the name that tells it apart
    html = render_report(report.verdict)
    codes = re.findall(r'<td data-label="fetches &lt;- feeds"><code>(.*?)</code>', html)
    assert len(codes) == 7 and len(set(codes)) == 7


def test_shown_labels_keep_where_labels_part_and_number_the_same_names():
    head = "Model/cost:0, Model/final_state/c:0, Model/final_state/h:0 <- Model/x:0, Model/y:0, "
    labels = [head + "Model/state_%d:0" % i for i in range(3)] + ["a, b <- x", "a, b <- x", "short"]
    shown = shown_labels(labels, 60)
    assert all(len(text) <= 64 for text in shown) and len(set(shown)) == len(shown)
    assert [text.endswith("Model/state_%d:0" % i) for i, text in enumerate(shown[:3])] == [True] * 3
    assert shown[3:] == ["a, b <- x [1]", "a, b <- x [2]", "short"]
    assert shown_labels(["x" * 80], 60) == ["x" * 57 + "..."]  # alone, it is cut as before


def test_the_graph_size_axis_shows_a_small_growth_on_a_large_graph():
    """The field run: 2000 -> 2012 ops drawn flat on a 0-2000 axis hid the growth its verdict was about."""
    low, high = size_range([2000] * 10 + [2006] * 10 + [2012] * 10)
    assert 1990 <= low < 2000 and 2012 < high <= 2020
    assert size_range([120, 300, 518]) == (0.0, 518 * 1.05)  # a growth as large as the graph: from 0
    assert size_range([120] * 5) == (0.0, 120 * 1.05)  # no growth: nothing to zoom onto
    figures = session_figures(30)
    figures["all_runs_series"] = {"bucket": 1, "points": [[i, 0.01, 2000 + (i // 10) * 6] for i in range(30)]}
    svg = graph_size_chart(figures)
    y0 = float(re.search(r'data-y0="([\d.]+)"', svg).group(1))
    assert 1990 <= y0 < 2000
    assert 'class="axis-break"' in svg and "axis from 1,99" in svg
    assert 'class="axis-break"' not in graph_size_chart(session_figures(30))  # 120 -> 178 ops shows from 0
    assert 'class="axis-break"' not in render_report(run_verdict(200))
