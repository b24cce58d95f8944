"""tfguard.watch: growth attribution, live warnings, diagnostics TFG901-TFG905."""

from __future__ import annotations

import json
import time
import warnings

import pytest

import tfguard
from tfguard.runtime.document import display_path
from tfguard.runtime.output.session_report import SessionReport


def _codes(report):
    return [code for code, _, _ in report.diagnostics]


def test_saver_in_loop_is_top_growth_site(tf, graph, sess):
    g, parts = graph
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with g.as_default(), tfguard.watch(sess) as guard:
            for _ in range(4):
                sess.run(parts["step"], feed_dict={parts["x"]: 1.0})
                tf.train.Saver()  # the growth site
    report = guard.report
    path, line, ops_added, events, kind = report.growth_sites[0]
    assert path == __file__
    assert "tf.train.Saver()  # the growth site" in open(path).read().splitlines()[line - 1]
    assert ops_added == report.nodes_added > 0
    assert events == 4 and kind == "repeated"
    assert report.to_dict()["growth_sites"][0]["api"] == "tf.train.Saver"
    assert report.to_dict()["growth_sites"][0]["rule"] == "TFG101"
    assert "TFG901" in _codes(report)
    assert "TFG101" in dict((c, m) for c, _, m in report.diagnostics)["TFG901"]
    growth = [w for w in caught if issubclass(w.category, tfguard.GraphGrowthWarning)]
    assert len(growth) == 1 and "tf.train.Saver" in str(growth[0].message)
    assert growth[0].filename == __file__  # the warning names the user's line, not the guard's


def test_a_significant_slowdown_is_tfg902_and_one_warning_at_the_users_line(tf, monkeypatch):
    """What a slowdown verdict becomes, whatever the machine's load: the verdict (judge/slowdown.py's judge_slowdown,
    tested on synthetic series) is made significant here; a real ramp is the timing test below."""
    from tfguard.runtime.judge import slowdown as slowdown_judge

    judge_slowdown = slowdown_judge.judge_slowdown

    def significant(values, threshold, windows, growing):
        verdict = judge_slowdown(values, threshold, windows, growing)
        verdict.update(slowdown=2.0, slowdown_significant=True, slowdown_cause=slowdown_judge.GRAPH_GROWTH)
        return verdict

    monkeypatch.setattr(slowdown_judge, "judge_slowdown", significant)
    g = tf.Graph()
    with g.as_default():
        base = tf.constant(1.0)
    sess = tf.Session(graph=g)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with g.as_default(), tfguard.watch(sess) as guard:
            for _ in range(12):  # every step fetches a new tensor: the trend is judged on all runs
                sess.run(tf.add(base, 1.0))  # GROWS EVERY STEP
        report = guard.report
    sess.close()
    line = next(n for n, text in enumerate(open(__file__).read().splitlines(), 1) if "# GROWS EVERY" + " STEP" in text)
    assert report.dominant_signature == "(all runs)"
    message = dict((c, m) for c, _, m in report.diagnostics)["TFG902"]
    assert "got x2.00 slower" in message
    assert "meanwhile the graph grew at %s:%d" % (display_path(__file__), line) in message
    slow = [w for w in caught if issubclass(w.category, tfguard.SlowdownWarning)]
    assert len(slow) == 1 and str(slow[0].message) == "tfguard: " + message and slow[0].filename == __file__
    assert "TFG901" in _codes(report)


@pytest.mark.timing
@pytest.mark.slow
def test_growing_loop_slows_down_significantly(tf):
    """A loop that fetches a reduction over ever more ops really gets slower per step."""
    g = tf.Graph()
    with g.as_default():
        base = tf.constant(1.0)
        total = tf.identity(base)
        nodes = [total]
    sess = tf.Session(graph=g)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with g.as_default(), tfguard.watch(sess) as guard:
            for _ in range(80):  # about 3 s: long enough for the CPU-clock marks the slowdown verdict needs
                sess.run(nodes[-1])
                chunk = nodes[-1]
                for _ in range(25):
                    chunk = tf.add(chunk, base)  # the loop grows the graph
                nodes.append(chunk)
    report = guard.report
    sess.close()
    # Every step fetches a new tensor (its own signature), so the trend is judged on all runs.
    assert report.dominant_signature == "(all runs)"
    assert report.slowdown_significant and report.slowdown > 1.05
    assert report.nodes_added >= 80 * 25
    assert "TFG901" in _codes(report) and "TFG902" in _codes(report)
    assert any(issubclass(w.category, tfguard.GraphGrowthWarning) for w in caught)


@pytest.mark.timing
@pytest.mark.slow
def test_seed_003_like_loop_shows_significant_slowdown(tf):
    """Same train op every step, but a Saver per step makes every step slower (seed 003)."""
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(tf.zeros([64, 64]))
        train_op = tf.assign_add(w, tf.ones([64, 64]))
        loss = tf.reduce_sum(w)
        init = tf.global_variables_initializer()
        export_ops = []
    sess = tf.Session(graph=g)
    sess.run(init)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with g.as_default(), tfguard.watch(sess) as guard:
            for _ in range(100):  # well past the 1.5 s a slowdown verdict needs
                sess.run([train_op, loss])
                export_ops.append(tf.identity(loss))
                for _ in range(5):
                    g.as_graph_def()  # like Saver.save(write_meta_graph=True): cost grows with the graph
                for _ in range(15):
                    tf.add(loss, 1.0)
    report = guard.report
    assert report.slowdown_significant, (report.slowdown, report.to_dict().get("verdict_window_s"))
    assert "TFG902" in _codes(report)
    slow = [w for w in caught if issubclass(w.category, tfguard.SlowdownWarning)]
    # The message names the file as every report does (relative to the working folder when under it).
    assert slow and display_path(__file__) + ":" in str(slow[0].message) and slow[0].filename == __file__
    sess.close()


def test_python_sleep_before_each_run_is_input_bound(tf, graph, sess):
    g, parts = graph
    with tfguard.frozen(sess, min_share_s=0) as guard:
        for _ in range(8):
            time.sleep(0.05)  # far longer than a run, even on a busy machine
            sess.run(parts["w"])
    report = guard.report
    # What holds at any load: the sleeps are host time (a busy machine sleeps longer, never shorter), and the
    # verdict follows the measured share (its threshold is tested on synthetic recordings, test_verdict_texts.py).
    assert report.wall_s - report.run_s >= 8 * 0.05
    assert ("TFG903" in _codes(report)) == (report.host_fraction >= report.options["host_threshold"])
    if report.host_fraction >= report.options["host_threshold"]:
        assert "move input to tf.data with prefetch" in dict((c, m) for c, _, m in report.diagnostics)["TFG903"]


def test_fast_loop_is_not_input_bound(tf, graph, sess):
    g, parts = graph
    with g.as_default():
        heavy = tf.reduce_sum(tf.matmul(tf.ones([400, 400]), tf.ones([400, 400])))
    with tfguard.frozen(sess) as guard:
        for _ in range(10):
            sess.run(heavy)
    report = guard.report
    # A short run (under min_share_s) is never judged input-bound, whatever the load made of its host share: at
    # most an info line saying it was not judged.
    assert report.wall_s >= report.options["min_share_s"] or \
        all(severity == "info" for code, severity, _ in report.diagnostics if code == "TFG903")
    assert report.run_s > 0 and report.host_fraction is not None


def test_merge_all_fetched_every_run(tf, graph, sess):
    g, parts = graph
    with g.as_default():
        tf.summary.scalar("w", parts["w"])
        merged = tf.summary.merge_all()
    with tfguard.frozen(sess, min_share_s=0) as guard:
        for _ in range(6):
            sess.run([parts["step"], merged], feed_dict={parts["x"]: 1.0})
    report = guard.report
    assert "TFG904" in _codes(report)
    assert "MergeSummary" in dict((c, m) for c, _, m in report.diagnostics)["TFG904"]


def test_summary_writer_time_and_like_steps_give_tfg904_its_cost(tf, graph, sess, tmp_path):
    g, parts = graph
    with g.as_default():
        tf.summary.scalar("w", parts["w"])
        merged = tf.summary.merge_all()
        writer = tf.summary.FileWriter(str(tmp_path))
    with tfguard.frozen(sess, min_share_s=0) as guard:
        for i in range(12):
            if i % 4 == 3:
                sess.run(parts["step"], feed_dict={parts["x"]: 1.0})
            else:
                _, summary = sess.run([parts["step"], merged], feed_dict={parts["x"]: 1.0})
                writer.add_summary(summary, i)
                writer.flush()
    writer.close()
    report = guard.report.to_dict()
    assert report["summary_writes"] == 18 and report["summary_write_s"] > 0
    message = {d["code"]: d["headline"] for d in report["diagnostics"]}["TFG904"]
    assert "for the same step without them, FileWriter.add_summary/flush" in message
    assert "add_summary" not in vars(tf.summary.FileWriter)  # inherited again, as before the guard


def test_saver_save_share_of_wall_time(tf, graph, sess, tmp_path):
    g, parts = graph
    with g.as_default():
        saver = tf.train.Saver()
    with g.as_default(), tfguard.frozen(sess, min_share_s=0) as guard:
        for i in range(5):
            sess.run(parts["step"], feed_dict={parts["x"]: 1.0})
            saver.save(sess, str(tmp_path / "model"), global_step=i)
    report = guard.report
    assert report.saves == 5 and report.save_s > 0
    # The share is the load's to decide (saves and steps slow down unevenly); the verdict follows it (its threshold
    # is tested on synthetic recordings, test_verdict_texts.py).
    share = report.save_s / report.wall_s
    assert ("TFG905" in _codes(report)) == (share >= report.options["save_threshold"]), share
    assert type(saver).save is tf.train.Saver.save
    assert "functools" not in repr(tf.train.Saver.__dict__["save"])


def test_report_round_trips_through_json(tf, graph, sess):
    g, parts = graph
    with g.as_default(), tfguard.watch(sess, warn=False) as guard:
        for _ in range(5):
            sess.run(parts["step"], feed_dict={parts["x"]: 1.0})
            tf.constant(1.0)
    data = json.loads(json.dumps(guard.report.to_dict()))
    rebuilt = SessionReport.from_dict(data)
    assert rebuilt.table() == guard.report.table()
    assert str(rebuilt) == rebuilt.table()
    assert rebuilt.growth_sites == guard.report.growth_sites
    points = data["signatures"][0]["series"]["points"]
    assert len(points) == 4 and all(len(p) == 3 for p in points)
    assert "step <- x:0" in guard.report.table()
    with pytest.raises(ValueError, match="unsupported"):
        SessionReport.from_dict({"version": 99})


def test_more_runs_between_train_steps_is_not_a_slowdown(tf):
    """A DQN acting greedily (a sess.run per action) more and more often between its train steps:
    the train step's own run time is compared, not the growing interval between train steps."""
    g = tf.Graph()
    with g.as_default():
        state = tf.placeholder(tf.float32, [64, 64], name="state")
        w = tf.Variable(tf.ones([64, 64]))
        action = tf.argmax(tf.matmul(state, w), axis=1, name="action")
        train = tf.assign_add(w, tf.matmul(state, w) * 1e-6, name="train")
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=g)
    sess.run(init)
    feed = {state: [[0.01] * 64] * 64}
    with tfguard.watch(sess, warn=False) as guard:
        for step in range(300):
            if step % 4 < step // 75:  # action runs before no train step at first, before 3 in 4 at the end
                for _ in range(2):
                    sess.run(action, feed_dict=feed)
            sess.run(train, feed_dict=feed)
    sess.close()
    report = guard.report
    train_sig = next(sig for sig in report.signatures if sig["count"] == 300)
    assert report.dominant_signature == train_sig["label"] and report.slowdown_measure == "run time"
    # More and more runs sit between train steps (how much longer the intervals got is the load's to say).
    acting = next(sig for sig in report.signatures if sig["label"].startswith("action"))
    assert acting["count"] == 2 * sum(1 for step in range(300) if step % 4 < step // 75)
    assert "TFG902" not in _codes(report)
