"""Slowdown verdicts on real TensorFlow loops: steady loops next to other jobs stay silent, short ones get none.

The steady loops' test rests on real timing (marked ``timing``: left out unless asked for, see tests/conftest.py);
the verdict's rules themselves are tested on synthetic series in test_verdicts.py.

The real slowdowns (a growing wait, growing Python work, a growing feed, a growing graph) fail
`tfguard run --fail-on slowdown` in tests/run/test_healthy_programs.py.
"""

from __future__ import annotations

import subprocess
import sys
import time
import warnings

import pytest

import tfguard
from tfguard.runtime.record.clocks import MIN_VERDICT_S

#: Seconds each guarded loop runs: past clocks.MIN_VERDICT_S, so that a verdict is given at all.
_LOOP_SECONDS = 2.0
#: Busy processes that end themselves after this many seconds, whatever happens to the test.
_BUSY_LIFETIME_S = 20


def _start_busy(count):
    code = "import time\nend = time.time() + %d\nwhile time.time() < end: pass\n" % _BUSY_LIFETIME_S
    return [subprocess.Popen([sys.executable, "-c", code]) for _ in range(count)]


def _stop_busy(processes):
    for process in processes:
        process.kill()
        process.wait()


def _steady_loop(tf, size):
    """A graph and session whose step costs the same every time (a matmul of `size`, or a scalar add)."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [size, size])
        w = tf.Variable(tf.ones([size, size]) * 0.001)
        y = tf.reduce_sum(tf.matmul(x, w)) if size > 1 else tf.reduce_sum(x + w)
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=g)
    sess.run(init)
    import numpy

    return sess, y, {x: numpy.ones([size, size], numpy.float32)}


@pytest.mark.timing
@pytest.mark.slow
@pytest.mark.parametrize("pattern", ["middle third", "throughout"])
def test_steady_loop_next_to_other_jobs_never_warns_nor_fails(tf, pattern):
    """Two busy processes from a third of the way to two thirds, or all along: never a slowdown, on 4 loops
    each (0.2 ms and ~2 ms steps), every one long enough to get a verdict."""
    verdicts = []
    for repeat in range(4):
        sess, y, feed = _steady_loop(tf, 1 if repeat % 2 else 300)
        busy = _start_busy(2) if pattern == "throughout" else []
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                with tfguard.frozen(sess) as guard:
                    start = time.perf_counter()
                    while True:
                        gone = (time.perf_counter() - start) / _LOOP_SECONDS
                        if gone >= 1.0:
                            break
                        if pattern == "middle third" and not busy and 1 / 3 <= gone < 2 / 3:
                            busy = _start_busy(2)
                        elif pattern == "middle third" and busy and gone >= 2 / 3:
                            _stop_busy(busy)
                            busy = []
                        sess.run(y, feed_dict=feed)
        finally:
            _stop_busy(busy)
            sess.close()
        report = guard.report
        assert report.verdict_window_s is not None and report.verdict_window_s > 1.5, report.verdict_window_s
        assert not any(issubclass(w.category, tfguard.SlowdownWarning) for w in caught)
        assert "TFG902" not in [code for code, _, _ in report.diagnostics], (repeat, report.diagnostics)
        verdicts.append((report.slowdown, report.slowdown_shape, report.contention))
    assert len(verdicts) == 4


def test_a_tenth_of_a_second_gets_no_verdict(tf, graph, sess):
    """Runs that get several times slower within 0.1 s: far too short for a slowdown verdict."""
    g, parts = graph
    with tfguard.watch(sess) as guard:
        start = time.perf_counter()
        step = 0
        # 0.1 s and at least 30 runs (a busy machine runs fewer in 0.1 s): still far from clocks.MIN_VERDICT_S
        while step < 30 or time.perf_counter() - start < 0.1:
            sum(range(20 * step))  # host work that grows every step
            sess.run(parts["step"], feed_dict={parts["x"]: 1.0})
            step += 1
        elapsed = time.perf_counter() - start
    report = guard.report
    assert report.runs >= 30 and elapsed < MIN_VERDICT_S
    assert report.verdict_window_s is None and not report.slowdown_significant
    assert "TFG902" not in [code for code, _, _ in report.diagnostics]
