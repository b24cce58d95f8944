"""GuardHook inside MonitoredTrainingSession."""

from __future__ import annotations

import pytest

import tfguard


def test_monitored_training_session_with_guard_hook(tf, tmp_path):
    g = tf.Graph()
    with g.as_default():
        global_step = tf.train.get_or_create_global_step()
        w = tf.Variable(0.0)
        train_op = tf.group(tf.assign_add(w, 1.0), tf.assign_add(global_step, 1))
        tf.summary.scalar("w", w)
        hook = tfguard.GuardHook()
        stop = tf.train.StopAtStepHook(last_step=15)
        with tf.train.MonitoredTrainingSession(checkpoint_dir=None, hooks=[hook, stop]) as mon:
            while not mon.should_stop():
                mon.run(train_op)
    report = hook.report
    assert report.mode == "hook"
    assert report.runs == 15
    assert report.nodes_added == 0
    assert report.signature(train_op.name)["count"] == 15
    assert report.signature(train_op.name)["interval"]["count"] == 14


def test_frozen_on_monitored_session(tf):
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(0.0)
        inc = tf.assign_add(w, 1.0)
        with tf.train.MonitoredSession() as mon:
            assert g.finalized
            with pytest.raises(tfguard.GraphFrozenError) as info:
                with tfguard.frozen(mon) as guard:
                    for _ in range(3):
                        mon.run(inc)
                    tf.train.Saver()
            assert g.finalized  # it was finalized before the block: it stays so
            assert "run" not in vars(mon)
    assert info.value.api == "tf.train.Saver" and info.value.step == 3
    assert guard.report.runs == 3


def test_guard_hook_times_checkpoint_saver_hook_saves(tf, tmp_path):
    g = tf.Graph()
    with g.as_default():
        global_step = tf.train.get_or_create_global_step()
        w = tf.Variable(tf.zeros([32, 32]))
        train_op = tf.group(tf.assign_add(w, tf.ones([32, 32])), tf.assign_add(global_step, 1))
        hook = tfguard.GuardHook(log=False, min_share_s=0)
        stop = tf.train.StopAtStepHook(last_step=8)
        with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), save_checkpoint_steps=1,
                                               save_summaries_steps=None, hooks=[hook, stop]) as mon:
            while not mon.should_stop():
                mon.run(train_op)
    report = hook.report
    assert report.saves >= 8 and report.save_s > 0
    share = report.save_s / report.wall_s  # the load's to decide; the verdict follows it
    assert ("TFG905" in [code for code, _, _ in report.diagnostics]) == (share >= report.options["save_threshold"])
    assert type(tf.train.Saver.__dict__["save"]).__name__ == "function"
    assert "functools" not in repr(tf.train.Saver.__dict__["save"])
    assert g._check_not_finalized.__self__ is g  # the graph's own method again
