"""TFG202's fix is safe exactly when the files left at the end are the last save's either way (issue 40)."""

from __future__ import annotations

import textwrap

import pytest

from tfguard.static.config import Settings
from tfguard.static.engine import check_source

PROGRAM = """\
import os
import tensorflow as tf

w = tf.Variable(0.0)
grow = tf.assign_add(w, 1.0)
saver = tf.train.Saver({saver})
with tf.Session() as sess:
    for step in range(200):
        sess.run(grow)
{extra}        saver.save(sess, "ckpt/model"{save})
"""


def _fix(saver: str = "max_to_keep=1", save: str = ", global_step=step", extra: str = ""):
    source = PROGRAM.format(saver=saver, save=save, extra=textwrap.indent(extra, " " * 8))
    (finding,) = [f for f in check_source(source, "t.py", Settings(select=("TFG202",)))]
    return finding.fix


@pytest.mark.parametrize("saver, save, why", [
    ("max_to_keep=1", ", global_step=step", "keeps one checkpoint"),
    ("var_list=[w], max_to_keep=1", ", step", "keeps one checkpoint"),
    ("", "", "every save writes the same files"),
    ("max_to_keep=3", ", write_meta_graph=False", "every save writes the same files"),
])
def test_the_last_save_decides_the_files_so_the_cadence_is_safe(saver, save, why):
    fix = _fix(saver, save)
    assert fix.applicability == "safe", fix.message
    assert why in fix.message
    assert "if step % 20 == 0 or step == 199:" in fix.edits[0].content


@pytest.mark.parametrize("saver, save, extra, why", [
    ("", ", global_step=step", "", "keeps its last `max_to_keep` checkpoints"),
    ("max_to_keep=2", ", global_step=step", "", "keeps its last `max_to_keep` checkpoints"),
    ("max_to_keep=1, keep_checkpoint_every_n_hours=1", ", global_step=step", "", "by other rules"),
    ("max_to_keep=1", ", global_step=step", "if step == 50:\n    break\n", "a `break`"),
    ("max_to_keep=1", ", global_step=step", "if step == 50:\n    raise SystemExit(1)\n", "a `raise`"),
    ("max_to_keep=1", ", global_step=step", "print(saver.last_checkpoints)\n", "more than this save"),
    ("max_to_keep=1", ", global_step=step", "print(tf.train.latest_checkpoint('ckpt'))\n", "may read the checkpoint"),
    ("max_to_keep=1", ", global_step=step", "print(os.listdir('ckpt'))\n", "may read the checkpoint"),
])
def test_otherwise_the_cadence_stays_unsafe_saying_why(saver, save, extra, why):
    fix = _fix(saver, save, extra)
    assert fix.applicability == "unsafe"
    assert why in fix.message


def test_a_helper_of_the_loop_that_lists_the_folder_keeps_it_unsafe():
    source = PROGRAM.format(saver="max_to_keep=1", save=", global_step=step", extra="        report()\n").replace(
        "w = tf.Variable", "def report():\n    print(os.listdir('ckpt'))\n\n\nw = tf.Variable")
    (finding,) = check_source(source, "t.py", Settings(select=("TFG202",)))
    assert finding.fix.applicability == "unsafe" and "`report` in the loop" in finding.fix.message


def test_a_saver_bound_twice_or_in_the_loop_is_unsafe():
    source = PROGRAM.format(saver="max_to_keep=1", save=", global_step=step", extra="").replace(
        "with tf.Session", "saver = tf.train.Saver(max_to_keep=9)\nwith tf.Session")
    (finding,) = check_source(source, "t.py", Settings(select=("TFG202",)))
    assert finding.fix.applicability == "unsafe" and "not bound once" in finding.fix.message


def test_a_save_under_an_if_of_the_loop_is_unsafe():
    fix = _fix(extra="if step > 0:\n    pass\n")
    assert fix.applicability == "safe"  # an `if` before the save is not around it
    source = PROGRAM.format(saver="max_to_keep=1", save=", global_step=step", extra="").replace(
        "        saver.save(", "        if step >= 0:\n            saver.save(")
    findings = check_source(source, "t.py", Settings(select=("TFG202",)))
    assert all(f.fix is None or f.fix.applicability == "unsafe" for f in findings)
