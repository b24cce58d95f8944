"""Setup, one-time and repeated graph growth; guard alerts under "error" warning filters."""

from __future__ import annotations

import warnings

import pytest

import tfguard


def _codes(report, severity=None):
    return [code for code, sev, _ in report.diagnostics if severity is None or sev == severity]


def _line_of(marker):
    lines = open(__file__, encoding="utf-8").read().splitlines()
    return next(number for number, text in enumerate(lines, 1) if marker in text and "_line_of" not in text)


def _watched_loop(tf, steps, leak=False, lazy=False):
    """A session created first, set-up ops built after it, then a loop: (guard, sess)."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        w = tf.Variable(1.0, name="w")
        train = tf.assign_add(w, x)
    sess = tf.Session(graph=g)
    with g.as_default(), tfguard.watch(sess) as guard:
        sess.run(tf.global_variables_initializer())  # setup: built after the session
        saver = tf.train.Saver()  # noqa: F841  # setup: before the loop
        for step in range(steps):
            sess.run(train, feed_dict={x: 1.0})
            if lazy and step == 0:
                tf.reduce_max(w)  # one-time: built on the first step
            if leak:
                tf.reduce_mean(w * 2.0)  # repeated: the leak
    sess.close()
    return guard


def test_setup_after_the_session_is_not_growth(tf):
    report = _watched_loop(tf, 30).report
    assert report.nodes_added > 0
    assert {kind for *_, kind in report.growth_sites} == {"setup"}
    assert report.diagnostics == [] or "TFG901" not in _codes(report)
    assert "graph growth after the loop started" not in report.table()


def test_one_time_growth_is_information_with_its_line(tf):
    report = _watched_loop(tf, 30, lazy=True).report
    one_time = [site for site in report.growth_sites if site[4] == "one-time"]
    assert [site[1] for site in one_time] == [_line_of("# one-time: built on the first step")]
    # (a short run may add "not judged" share lines, info too)
    assert _codes(report, "info").count("TFG901") == 1 and not _codes(report, "error")
    message = dict((sev, m) for code, sev, m in report.diagnostics if code == "TFG901")["info"]
    assert "`tf.reduce_max(w)  # one-time: built on the first step`" in message
    # TF 2.x reads its resource variable through a ReadVariableOp; 1.15's ref variable is read without an op.
    read = "ReadVariableOp, " if tf.resource_variables_enabled() else ""
    assert "tf.math.reduce_max (%sConst, Range, Max)" % read in message


def test_repeated_growth_is_an_error_naming_api_op_type_and_source(tf):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = _watched_loop(tf, 30, leak=True).report
    path, line, ops, events, kind = report.growth_sites[0]
    assert (path, line, kind) == (__file__, _line_of("# repeated: the leak"), "repeated")
    assert events == 30
    site = report.to_dict()["growth_sites"][0]
    assert site["api"] == "tf.math.reduce_mean" and "Mean" in site["op_types"] and "Mul" in site["op_types"]
    assert _codes(report, "error") == ["TFG901"]
    error = dict((sev, m) for code, sev, m in report.diagnostics if code == "TFG901")["error"]
    assert "tf.reduce_mean(w * 2.0)" in error and "tf.math.reduce_mean" in error
    growth = [w for w in caught if issubclass(w.category, tfguard.GraphGrowthWarning)]
    assert len(growth) == 1 and growth[0].filename == __file__  # once, at the user's line
    wide = report.table(0)  # no wrapping: a cell may wrap anywhere at 80 columns
    assert "weak_tensor" not in wide and "runs that grew it" in wide


def test_a_generic_error_filter_never_turns_a_guard_alert_into_a_crash(tf, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # -W error, pytest's filterwarnings = error
        guard = _watched_loop(tf, 12, leak=True)
    assert "TFG901" in _codes(guard.report, "error")
    assert "GraphGrowthWarning: tfguard: the graph keeps growing" in " ".join(capsys.readouterr().err.split())


def test_an_error_filter_naming_the_guard_warning_raises_on_repeated_growth(tf):
    with warnings.catch_warnings():
        warnings.simplefilter("error", tfguard.GuardWarning)
        with pytest.raises(tfguard.GraphGrowthWarning, match="keeps growing"):
            _watched_loop(tf, 12, leak=True)
        _watched_loop(tf, 12, lazy=True)  # one-time growth never warns


def test_one_save_is_not_saving_too_often(tf, graph, sess, tmp_path):
    g, parts = graph
    with g.as_default():
        saver = tf.train.Saver()
    with g.as_default(), tfguard.frozen(sess) as guard:
        for _ in range(3):
            sess.run(parts["step"], feed_dict={parts["x"]: 1.0})
        saver.save(sess, str(tmp_path / "model"))  # one final save: most of this short block
    report = guard.report
    assert report.saves == 1 and "TFG905" not in _codes(report)
    # however large that one save's share is (a busy machine makes the block's wall time anything), one save is
    # not saving too often: the verdict on the same record with the save at half the wall time
    from tfguard.runtime.judge.judgement import diagnose
    from tfguard.runtime.record.recorder import DEFAULT_OPTIONS

    data = dict(report.to_dict(), save_s=report.wall_s * 0.5)
    assert "TFG905" not in {d.code for d in diagnose(data, dict(DEFAULT_OPTIONS, min_share_s=0))}


def test_frozen_error_on_a_monitored_session_does_not_blame_a_frozen_block(tf):
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(0.0)
        inc = tf.assign_add(w, 1.0)
        with tf.train.MonitoredSession() as mon:
            with pytest.raises(tfguard.GraphFrozenError) as info:
                with tfguard.watch(mon):
                    mon.run(inc)
                    tf.constant(2.0)
    assert "tfguard.frozen block" not in str(info.value)
    assert "finalized before tfguard was attached (MonitoredSession" in str(info.value)


def test_a_line_named_by_a_live_warning_stays_repeated_in_the_final_report(tf):
    """Growth on the first 8 steps, then 200 steps without: warned live, so never "one-time" at the end."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        w = tf.Variable(1.0, name="w")
        train = tf.assign_add(w, x)
    sess = tf.Session(graph=g)
    sess.run(w.initializer)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with g.as_default(), tfguard.watch(sess) as guard:
            for step in range(208):
                sess.run(train, feed_dict={x: 1.0})
                if step < 8:
                    tf.reduce_mean(w * 2.0)  # grows early, then stops
    sess.close()
    alerts = [w for w in caught if issubclass(w.category, tfguard.GraphGrowthWarning)]
    assert len(alerts) == 1
    site = guard.report.to_dict()["growth_sites"][0]
    assert site["kind"] == "repeated" and site["last_step"] <= 9
    assert ("TFG901", "error") in [(c, s) for c, s, _ in guard.report.diagnostics]


def test_check_every_is_deprecated_and_ignored(sess):
    with pytest.warns(DeprecationWarning, match="check_every is ignored"):
        tfguard.watch(sess, check_every=100)
