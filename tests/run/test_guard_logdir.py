"""`logdir=` on the guard context managers, and Saver.save runs kept out of the steps."""

from __future__ import annotations

import pytest

import tfguard


@pytest.fixture
def session_parts(tf_v1):
    tf = tf_v1
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [])
        w = tf.Variable(1.0)
        step = tf.assign_add(w, x)
        saver = tf.train.Saver()
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=graph)
    sess.run(init)
    yield sess, step, x, saver
    sess.close()


def _tags(tf, logdir):
    tags = {}
    for event_file in logdir.glob("events.out.tfevents.*"):
        for event in tf.train.summary_iterator(str(event_file)):
            for value in event.summary.value:
                tags[value.tag] = tags.get(value.tag, 0) + 1
    return tags


def test_frozen_with_logdir_writes_scalars_without_touching_the_graph(tf_v1, session_parts, tmp_path):
    sess, step, x, _ = session_parts
    version = sess.graph.version
    with tfguard.frozen(sess, logdir=str(tmp_path), tensorboard_every=5) as guard:
        for _ in range(20):
            sess.run(step, {x: 1.0})
    assert sess.graph.version == version
    tags = _tags(tf_v1, tmp_path)
    assert tags["tfguard/step_interval"] == len(guard.report.signatures[0]["series"]["points"]) == 19
    assert tags["tfguard/graph_ops"] == 19 and tags["tfguard/host_fraction"] == 19


def test_bad_tensorboard_options_are_one_line_errors(session_parts):
    sess = session_parts[0]
    with pytest.raises(ValueError, match="tensorboard_every needs logdir"):
        tfguard.watch(sess, tensorboard_every=5)
    with pytest.raises(ValueError, match="positive int"):
        tfguard.watch(sess, logdir="x", tensorboard_every=0)


def test_runs_made_by_saver_save_are_not_steps(session_parts, tmp_path):
    sess, step, x, saver = session_parts
    with sess.graph.as_default(), tfguard.watch(sess) as guard:
        for i in range(6):
            sess.run(step, {x: 1.0})
            saver.save(sess, str(tmp_path / "model"), global_step=i, write_meta_graph=False)
    report = guard.report
    assert report.runs == 6 and report.saves == 6
    assert report.dominant_signature == report.signatures[0]["label"]
    assert report.host_fraction < 1.0 - report.run_s / report.wall_s  # save time is not host time
