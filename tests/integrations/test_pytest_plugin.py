"""The pytest plugin, run by pytest itself (pytester) on sample test files that use real TensorFlow sessions."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]
pytest.importorskip("tensorflow")

HELPERS = '''
import time

import pytest
import tensorflow as tf

v1 = tf.compat.v1


def doubling_graph():
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [])
        y = x * 2.0
    return graph, x, y
'''

@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch):
    """The end-of-run table as a table: these tests read its rows (at 80 columns it is one record per test)."""
    monkeypatch.setenv("COLUMNS", "200")


SAMPLE = HELPERS + '''

def test_clean():
    graph, x, y = doubling_graph()
    with v1.Session(graph=graph) as sess:
        for step in range(10):
            sess.run(y, {x: float(step)})


def test_grows():
    graph, x, y = doubling_graph()
    with graph.as_default(), v1.Session(graph=graph) as sess:
        for step in range(10):
            sess.run(y + 1.0, {x: float(step)})  # GROWTH SITE


def test_no_session():
    assert sum([1, 2]) == 3
'''


def _outcomes(result):
    """Passed, failed, skipped... without pytest's own warnings (measuring coverage makes one: tfguard is imported
    before pytest could rewrite its asserts; TensorFlow 1.15 on Python 3.7 warns on import)."""
    return {name: count for name, count in result.parseoutcomes().items() if name not in ("warnings", "warning")}


def test_without_the_option_or_a_marker_the_plugin_does_nothing(pytester):
    import tensorflow as tf

    pytester.makepyfile(test_sample=SAMPLE)
    plain_init = tf.compat.v1.Session.__dict__["__init__"]
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert _outcomes(result) == {"passed": 3}
    assert "- tfguard -" not in result.stdout.str() and "tests guarded" not in result.stdout.str()
    assert tf.compat.v1.Session.__dict__["__init__"] is plain_init


def test_a_test_whose_graph_keeps_growing_fails_naming_the_test_and_the_site(pytester, monkeypatch):
    path = pytester.makepyfile(test_sample=SAMPLE)
    result = pytester.runpytest("-p", "no:cacheprovider", "--tfguard")
    assert _outcomes(result) == {"passed": 2, "failed": 1}
    out = result.stdout.str()
    site_line = next(number for number, line in enumerate(path.read_text().splitlines(), 1) if "GROWTH SITE" in line)
    assert "tfguard: test_sample.py::test_grows failed its guard:" in out
    assert "TFG901 error, session created at test_sample.py:" in out
    assert "(--tfguard-fail-on growth)" not in out  # growth is the default: no option was given
    assert "test_sample.py:%d" % site_line in out
    result.stdout.fnmatch_lines([
        "*- tfguard -*",
        "3 tests guarded: 2 used TensorFlow, 1 failed its guard",
        "test * sessions * runs * ops added * after warm-up * step median * host * slowdown * diagnostics * verdict",
        "test_sample.py::test_clean * 1 * 10 * 0 * 0 * ok",
        "test_sample.py::test_grows * 1 * 10 * 20 * 18 * TFG901* FAILED",
    ])


def test_the_short_summary_line_gives_the_cause_and_line_first(pytester, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # pytest shortens the line to the terminal's width
    path = pytester.makepyfile(test_sample=SAMPLE)
    site_line = next(number for number, line in enumerate(path.read_text().splitlines(), 1) if "GROWTH SITE" in line)
    result = pytester.runpytest("-p", "no:cacheprovider", "--tfguard", "--tfguard-fail-on", "growth", "-ra")
    result.stdout.fnmatch_lines(["FAILED test_sample.py::test_grows - graph grew by * ops at test_sample.py:%d*"
                                 % site_line])
    assert "TFG901 error (--tfguard-fail-on growth), session created at" in result.stdout.str()


def test_fail_on_none_only_reports_and_a_bad_name_is_a_usage_error(pytester):
    pytester.makepyfile(test_sample=SAMPLE)
    result = pytester.runpytest("-p", "no:cacheprovider", "--tfguard", "--tfguard-fail-on", "none")
    assert _outcomes(result) == {"passed": 3}
    result.stdout.fnmatch_lines(["test_sample.py::test_grows * TFG901* error: TFG901*"])
    result = pytester.runpytest("-p", "no:cacheprovider", "--tfguard", "--tfguard-fail-on", "growth,speed")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tfguard-fail-on: unknown name 'speed' (choose from growth, slowdown*"])


BUDGETS = HELPERS + '''

@pytest.mark.tfguard(max_new_ops=0, warmup_runs=3)
def test_growth_only_during_warmup():
    graph, x, y = doubling_graph()
    with graph.as_default(), v1.Session(graph=graph) as sess:
        for step in range(8):
            if step < 3:
                tf.constant(float(step))  # lazily built during the first 3 runs
            sess.run(y, {x: 1.0})


@pytest.mark.tfguard(max_new_ops=2)
def test_growth_after_warmup():
    graph, x, y = doubling_graph()
    with graph.as_default(), v1.Session(graph=graph) as sess:
        for step in range(8):
            sess.run(y, {x: 1.0})
            if step == 5:
                tf.constant(1.0) + tf.constant(2.0)  # LATE SITE


@pytest.mark.tfguard(max_step_ms=1)
def test_slow_steps():
    graph, x, y = doubling_graph()
    with v1.Session(graph=graph) as sess:
        for step in range(6):
            time.sleep(0.01)
            sess.run(y, {x: 1.0})


@pytest.mark.tfguard(max_step_ms=60000, max_input_bound=1.0)
def test_within_generous_budgets():
    graph, x, y = doubling_graph()
    with v1.Session(graph=graph) as sess:
        for step in range(6):
            sess.run(y, {x: 1.0})


@pytest.mark.tfguard(max_input_bound=0.5)
def test_input_bound():
    graph, x, y = doubling_graph()
    with v1.Session(graph=graph) as sess:
        for step in range(6):
            time.sleep(0.1)  # a run of this graph takes far less, even on a busy machine
            sess.run(y, {x: 1.0})


@pytest.mark.tfguard(max_new_ops=0)
def test_budget_without_a_session():
    assert True
'''


def test_marker_budgets_pass_and_fail_with_the_measured_value(pytester, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # pytest shortens the short summary's lines to the terminal's width
    path = pytester.makepyfile(test_budgets=BUDGETS)
    result = pytester.runpytest("-p", "no:cacheprovider", "-rf")  # the markers alone guard their tests
    outcomes = {report.head_line: report.outcome for report in result.reprec.getreports("pytest_runtest_logreport")
                if report.when == "call"}
    assert outcomes == {"test_growth_only_during_warmup": "passed", "test_growth_after_warmup": "failed",
                        "test_slow_steps": "failed", "test_within_generous_budgets": "passed",
                        "test_input_bound": "failed", "test_budget_without_a_session": "failed"}
    out = result.stdout.str()
    late_line = next(number for number, line in enumerate(path.read_text().splitlines(), 1) if "LATE SITE" in line)
    assert "max_new_ops=2 exceeded: 3 ops added after 1 warm-up run" in out
    assert "test_budgets.py:%d (3 ops, one-time)" % late_line in out
    # 10 ms of sleep or more (a busy machine sleeps longer, never shorter)
    result.stdout.re_match_lines([r".*max_step_ms=1 exceeded: steps took (1\d|[2-9]\d|\d{3,})\.\d{3} ms "
                                  r"\(median; session created at test_budgets.py:\d+, 6 runs\)"])
    result.stdout.re_match_lines([r".*max_input_bound=0.5 exceeded: the device waited on Python \d+% of the time"])
    assert "max_new_ops=0 not checked: no session ran past its 1 warm-up run (most runs: 0)" in out
    result.stdout.fnmatch_lines(["FAILED test_budgets.py::test_growth_after_warmup - graph grew by 3 ops after "
                                 "warm-up at test_budgets.py:%d*" % late_line])


def test_a_bad_marker_argument_is_a_usage_error(pytester):
    pytester.makepyfile(test_bad="import pytest\n\n@pytest.mark.tfguard(max_new_op=0)\ndef test_x():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*test_bad.py::test_x: @pytest.mark.tfguard unknown argument max_new_op (known: "
                                 "max_new_ops, warmup_runs, max_step_ms, max_input_bound)"])


KINDS = HELPERS + '''

@pytest.fixture
def session():
    graph, x, y = doubling_graph()
    with v1.Session(graph=graph) as sess:
        yield sess, x, y


def test_session_from_a_fixture(session):
    sess, x, y = session
    for step in range(5):
        with sess.graph.as_default():
            sess.run(y * 3.0, {x: 1.0})  # FIXTURE SITE


def test_explicit_guard(tfguard_guard):
    graph, x, y = doubling_graph()
    with v1.Session(graph=graph) as sess:
        with tfguard_guard(sess) as guard:
            for step in range(5):
                sess.run(y, {x: 1.0})
        assert guard.report.runs == 5
        assert guard.report.nodes_added == 0


class TestGraphCase(tf.test.TestCase):
    def test_method(self):
        with tf.Graph().as_default() as graph, self.session(graph=graph) as sess:
            x = tf.constant(1.0)
            for step in range(5):
                sess.run(x + 1.0)  # TESTCASE SITE
'''


def test_fixture_sessions_testcase_methods_and_the_explicit_guard(pytester):
    path = pytester.makepyfile(test_kinds=KINDS)
    lines = path.read_text().splitlines()
    sites = {tag: next(n for n, line in enumerate(lines, 1) if tag in line) for tag in ("FIXTURE", "TESTCASE")}
    plain = pytester.runpytest("-p", "no:cacheprovider")
    # The explicit guard works without --tfguard, and fails nothing (tf.test.TestCase's own deprecated
    # test_session method is collected and skipped).
    assert _outcomes(plain) == {"passed": 3, "skipped": 1}
    result = pytester.runpytest("-p", "no:cacheprovider", "--tfguard")
    outcomes = {report.head_line: report.outcome for report in result.reprec.getreports("pytest_runtest_logreport")
                if report.when == "call"}
    assert outcomes == {"test_session_from_a_fixture": "failed", "test_explicit_guard": "passed",
                        "TestGraphCase.test_method": "failed", "TestGraphCase.test_session": "skipped"}
    out = result.stdout.str()
    assert "test_kinds.py:%d" % sites["FIXTURE"] in out
    assert "test_kinds.py:%d" % sites["TESTCASE"] in out
    result.stdout.fnmatch_lines(["test_kinds.py::TestGraphCase::test_method * 1 * 5 * TFG901* FAILED",
                                 "test_kinds.py::test_explicit_guard * 1 * 5 * 0 * 0 * ok"])


def test_loading_the_plugin_imports_no_tensorflow(pytester):
    pytester.makepyfile(test_light="import sys\n\ndef test_x():\n    assert 'tensorflow' not in sys.modules\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--tfguard")
    assert _outcomes(result) == {"passed": 1}
    result.stdout.fnmatch_lines(["1 test guarded: 0 used TensorFlow, 0 failed its guard"])


@pytest.mark.slow
def test_xdist_workers_send_their_verdicts_to_the_controller(pytester):
    pytest.importorskip("xdist")
    pytester.makepyfile(test_sample=SAMPLE)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "--tfguard", timeout=240)
    assert _outcomes(result) == {"passed": 2, "failed": 1}
    result.stdout.fnmatch_lines(["*tfguard: test_sample.py::test_grows failed its guard:",
                                 "3 tests guarded: 2 used TensorFlow, 1 failed its guard",
                                 "test_sample.py::test_clean * ok",
                                 "test_sample.py::test_grows * FAILED"])


def test_the_end_of_run_table_fits_80_columns_as_one_record_per_test(monkeypatch):
    from tfguard.integrations.pytest_plugin import summary_lines

    monkeypatch.delenv("COLUMNS", raising=False)
    verdict = dict(nodeid="tests/test_a_long_module_name.py::test_grows_when_the_loop_builds_ops", sessions=[1],
                   runs=10, ops_added=20, new_ops_after_warmup=18, step_s=0.035, host_fraction=0.4, slowdown=None,
                   codes=["TFG901", "TFG902"], label="FAILED", failures=["growth"])
    lines = summary_lines([verdict, dict(verdict, nodeid="test_b.py::test_steady", ops_added=0, codes=[],
                                         new_ops_after_warmup=0, label="ok", failures=[])])
    assert max(len(line) for line in lines) <= 80
    assert lines[:2] == ["2 tests guarded: 2 used TensorFlow, 1 failed its guard", "  test_b.py::test_steady"]
    assert "diagnostics TFG901, TFG902, verdict FAILED" in " ".join(lines)


def test_a_session_made_in_a_helper_module_is_named_at_the_line_tfguard_run_names(pytester):
    """pytest --tfguard and tfguard run agree: the session's place is the user's line that made it (the helper's)."""
    helper = pytester.makepyfile(sessions='''
import tensorflow as tf


def open_session(graph):
    return tf.compat.v1.Session(graph=graph)  # HELPER LINE
''')
    pytester.makepyfile(test_helper=HELPERS + '''
from sessions import open_session


def test_grows_in_a_helper_session():
    graph, x, y = doubling_graph()
    with graph.as_default():
        sess = open_session(graph)
        for step in range(10):
            sess.run(y + 1.0, {x: float(step)})
        sess.close()
''')
    result = pytester.runpytest("-p", "no:cacheprovider", "--tfguard")
    assert _outcomes(result) == {"failed": 1}
    line = next(n for n, text in enumerate(helper.read_text().splitlines(), 1) if "HELPER LINE" in text)
    assert "session created at sessions.py:%d:" % line in result.stdout.str()
