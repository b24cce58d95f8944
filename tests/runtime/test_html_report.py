"""The HTML run report (tfguard.runtime.output.html) as a pure function of the run verdict: what the page says,
that it needs nothing from outside, its size on a long run, and the side-by-side page. The browser tests are in
tests/run/test_html_browser.py. Also run on Python 3.7 (the TF 1.15 leg), where the renderer must work too."""

from __future__ import annotations

import re
from html import escape

import pytest

from tests.runtime.html_documents import FACTS, LABEL, SITE, run_verdict
from tfguard.catalog import rule_page_url
from tfguard.runtime.output.html.downsample import bucketed
from tfguard.runtime.output.html.page import _WATCH, _asset, content_security_policy, render_report, script_hash
from tfguard.runtime.output.html.side_by_side import render_comparison
from tfguard.runtime.output.html.verdict import short
from tfguard.runtime.verdict import ACROSS_SESSIONS, Diagnostic, FunctionsVerdict, RunVerdict, SessionVerdict

pytestmark = pytest.mark.tf1
ONE_MB = 1 << 20


def _charts(html: str) -> int:
    return len(re.findall(r'<svg class="chart"', html))


def test_the_page_opens_with_the_verdict_then_each_diagnostic_with_its_source_line_and_help():
    html = render_report(run_verdict(200))
    verdict = html.index('class="verdict error"')
    diagnostics = html.index('id="diagnostics"')
    charts = html.index('id="steps"')
    assert verdict < diagnostics < charts
    assert "the graph keeps growing as steps go by: train.py:41" in html[verdict:diagnostics]
    card = html[diagnostics:charts]
    assert '<span class="where">train.py:41</span> <code class="src">loss_op = tf.reduce_mean(model(x))</code>' in card
    assert "<b>help:</b> build the op once, before the loop" in card
    assert 'href="%s"' % rule_page_url("TFG901") in card  # the rule page's one address (tfguard/catalog.py)


def test_a_healthy_run_says_so_in_one_line_and_has_no_diagnostics_section():
    html = render_report(run_verdict(200, growing=False))
    assert 'class="verdict ok"' in html and "no diagnostics: 200 runs watched, the graph did not grow (120 ops)" in html
    assert 'id="diagnostics"' not in html


def test_plots_step_time_with_the_verdicts_edges_and_loop_start_graph_size_host_share_and_costs():
    document = run_verdict(300, signatures=3)
    html = render_report(document)
    assert _charts(html) == 3  # step time, graph size, host share; the costs are a bar
    assert '<svg class="bar"' in html
    step = html[html.index('aria-label="step time over the run'):]
    step = step[:step.index("</svg>")]
    assert "first 20%:" in step and "last 20%:" in step and 'class="trend"' in step
    assert "loop starts (run 3)" in step and 'class="warmup"' in step
    assert "Top source lines outside sess.run" in html and "batch = next_batch(data)" in html
    assert "Saver.save" in html and "summaries" in html
    assert "`%s`" % escape(LABEL) in html


def test_the_facts_name_the_command_tensorflow_sessions_and_runs_watched():
    html = render_report(run_verdict(200))
    facts = html[html.index('id="facts"'):]
    for fact in ("tfguard run train.py --steps 200", "<th>TensorFlow</th><td>2.21.0", "<th>sessions watched</th>"
                 "<td>1", "<th>runs</th><td>200", "<th>session created at</th><td>train.py:30"):
        assert fact in facts, fact


def test_the_page_loads_nothing_from_outside_and_its_assets_cannot_end_their_tags_early():
    html = render_report(run_verdict(200))
    csp = content_security_policy()
    assert '<meta http-equiv="Content-Security-Policy" content="%s">' % csp in html
    assert "default-src 'none'" in csp
    # Scripts by hash only: the page's own two run, no inline script or handler a report value carried could.
    assert "script-src %s %s;" % (script_hash(_WATCH), script_hash(_asset("page.js"))) in csp
    assert "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0]
    assert re.findall(r"<script>(.*?)</script>", html, re.S) == [_WATCH, _asset("page.js")]
    # No attribute that makes a browser fetch: the only addresses are links to the rule pages.
    assert not re.search(r'\b(src|srcset|data|poster|action|formaction)\s*=', html)
    assert not re.search(r'<link\b|@import|url\(', html)
    assert set(re.findall(r'href="([^"]+)"', html)) == {rule_page_url("TFG901")}
    for name in ("style.css", "page.js"):
        assert "</" not in _asset(name)


def test_text_from_the_program_is_escaped():
    verdict = run_verdict(50)
    verdict.sessions[0].figures["growth_sites"][0]["code"] = "x = '</script><img src=x onerror=alert(1)>'"
    verdict.diagnostics[0] = verdict.diagnostics[0].with_headline(verdict.diagnostics[0].headline + " <b>bold</b>")
    verdict.facts["command"] = ["<i>train.py</i>"]
    html = render_report(verdict)
    assert "<img src=x" not in html and "&lt;/script&gt;&lt;img src=x" in html
    assert "<b>bold</b>" not in html and "<i>" not in html


def test_a_5000_step_run_with_256_signatures_makes_a_page_under_1_mb():
    html = render_report(run_verdict(5000, spike_at=3000, signatures=256, saves=40))
    assert len(html.encode("utf-8")) < ONE_MB
    assert _charts(html) == 3
    assert "248 more signatures in the JSON report" in html


def test_downsampling_keeps_each_buckets_lowest_and_highest_value():
    ys = [1.0] * 5000
    ys[3001] = 50.0
    buckets = bucketed(list(range(5000)), ys, limit=100)
    assert len(buckets) == 100
    assert max(b.high for b in buckets) == 50.0 and min(b.low for b in buckets) == 1.0
    spike = next(b for b in buckets if b.high == 50.0)
    assert spike.x <= 3001 <= spike.last_x and spike.mean < 2.0
    assert bucketed([1, 2, 3], [4.0, 5.0, 6.0]) == [(1, 1, 4.0, 4.0, 4.0), (2, 2, 5.0, 5.0, 5.0), (3, 3, 6.0, 6.0, 6.0)]


def test_a_long_series_is_drawn_with_a_bounded_number_of_points():
    html = render_report(run_verdict(5000))
    line = re.search(r'<polyline class="series time"[^>]*points="([^"]+)"', html).group(1)
    assert len(line.split()) <= 600


def test_traces_per_function_are_shown_only_when_the_run_traced_any():
    verdict = run_verdict(100)
    assert 'id="traces"' not in render_report(verdict)
    verdict.functions = FunctionsVerdict(True, False, [
        {"function": "train_step", "path": "train.py", "line": 12, "traced_calls": 40, "calls": 200,
         "trace_seconds": 0.4, "run_seconds": 0.05, "changes": [{"text": "argument lr: a Python float 0.1 -> 0.2"}]},
        {"function": "predict", "traced_calls": 2}])
    html = render_report(verdict)
    section = html[html.index('id="traces"'):]
    assert "train_step" in section and "train.py:12" in section and "argument lr: a Python float 0.1 -&gt; 0.2" in \
        section and "predict" in section


def test_a_tf2_run_without_a_session_shows_its_functions_and_their_diagnostics():
    function = {"function": "step", "path": "train.py", "line": 3, "traced_calls": 1, "calls": 20}
    healthy = RunVerdict(dict(FACTS, command=["tf2.py"]), functions=FunctionsVerdict(True, False, [function]))
    html = render_report(healthy)
    assert "no diagnostics: 1 tf.function traced" in html and "nothing to report" not in html
    assert 'id="traces"' in html
    retracing = RunVerdict(healthy.facts, functions=healthy.functions, diagnostics=[Diagnostic(
        "TFG908", "warning", "`step` keeps retracing", "pass a tensor", scope="function")])
    html = render_report(retracing)
    assert "`step` keeps retracing (tf.function)</p>" in html and "<b>help:</b> pass a tensor" in html


def test_a_run_without_a_session_says_there_is_nothing_to_report():
    html = render_report(RunVerdict(dict(FACTS, command=["prep.py"])))
    assert "prep.py created no TensorFlow session: nothing to report" in html
    assert _charts(html) == 0 and 'id="facts"' in html


def test_two_runs_side_by_side_verdicts_rows_shared_charts_and_each_report():
    bad, fixed = run_verdict(300), run_verdict(300, growing=False)
    html = render_comparison([("bad.json", bad), ("fixed.json", fixed)])
    assert html.index("bad.json: tfguard run") < html.index("fixed.json: tfguard run") < html.index('id="compare"')
    table = html[html.index('<table class="compare">'):html.index("</table>")]
    assert "<th>bad.json</th><th>fixed.json</th>" in table
    cells = re.sub(r' data-label="[^"]*"', "", table)
    assert "<td>graph ops start -&gt; end</td><td>120 -&gt; 718 (+598)</td><td>120 -&gt; 120 (+0)</td>" in cells
    assert "<td>top growth site</td><td>train.py:41 `loss_op = tf.reduce_mean(model(x))` (+596 ops, TFG102)</td>" \
        "<td>none</td>" in cells  # the row of `tfguard report a.json b.json`, in its words
    assert '<td data-label="fixed.json">none</td>' in table  # the run's name beside each cell on a phone
    shared = html[html.index('id="compare"'):html.index('class="side"')]
    assert _charts(shared) == 2 and shared.count('<polyline class="series run-a" data-label="bad.json"') == 2
    side = html[html.index('class="side"'):]
    assert side.count('<div><h2 class="run-name') == 2 and _charts(side) == 6


def test_a_verdict_line_cuts_a_long_headline_and_the_card_has_it_whole():
    assert short("Saver.save took 81% of wall time (120 saves)") == "Saver.save took 81% of wall time (120 saves)"
    assert short("x" * 200) == "x" * 159 + "\u2026"
    verdict = run_verdict(50)
    verdict.diagnostics[0] = verdict.diagnostics[0].with_headline("y" * 200)
    html = render_report(verdict)
    assert "y" * 159 + "\u2026" in html and "y" * 200 in html[html.index('id="diagnostics"'):]
    assert SITE["path"] == "train.py"


def test_other_sessions_and_diagnostics_across_sessions_are_shown():
    verdict = run_verdict(100, growing=False)
    other = run_verdict(30)
    verdict.sessions.append(SessionVerdict(2, "eval.py:7", 1, True, other.sessions[0].figures))
    verdict.diagnostics += [d.scoped("session", 2) for d in other.diagnostics]
    verdict.diagnostics.append(Diagnostic("TFG901", "error", "the graph keeps growing across sessions: eval.py:9",
                                          scope=ACROSS_SESSIONS))
    html = render_report(verdict)
    assert html.count("the graph keeps growing across sessions: eval.py:9 (across sessions)</p>") == 1
    sessions = html[html.index('id="sessions"'):]
    assert '<td data-label="created at">eval.py:7</td><td data-label="runs">30</td>' in sessions
    assert "TFG901 error" in sessions


def test_a_bare_report_to_dict_makes_a_page_too():
    verdict = run_verdict(60)
    verdict.facts = {}
    verdict.sessions[0].created_at = None
    html = render_report(verdict)
    assert "<title>tfguard runtime report</title>" in html and "TensorFlow ?" in html and _charts(html) == 3


def test_the_chart_and_the_ab_rows_show_the_edges_the_slowdown_verdict_took_not_edges_found_again():
    from tfguard.runtime.output.comparison import ROWS, comparison_column

    verdict = run_verdict(300)
    edges = verdict.sessions[0].figures["slowdown_edges"]
    assert edges["warmup"] == 30 and edges["last"] > edges["first"]
    # A verdict whose trend took other medians: the outputs say the verdict's, whatever the series would give.
    verdict.sessions[0].figures["slowdown_edges"] = dict(edges, first=0.004, last=0.0625)
    column = comparison_column(verdict)
    assert column[ROWS.index("step interval, first 20%")] == "4.0 ms"
    assert column[ROWS.index("step interval, last 20%")] == "62.5 ms"
    html = render_report(verdict)
    assert "first 20%: 4 ms" in html and "last 20%: 62.5 ms" in html
    verdict.sessions[0].figures["slowdown_edges"] = None  # a series too short for a ratio: no edges drawn
    assert "first 20%:" not in render_report(verdict)


def test_a_document_written_before_the_verdict_kept_its_edges_gets_them_on_load():
    from tfguard.runtime.judge.judgement import completed

    document = run_verdict(300).to_document()
    edges = document["sessions"][0].pop("slowdown_edges")
    assert completed(RunVerdict.from_document(document)).sessions[0].figures["slowdown_edges"] == edges
