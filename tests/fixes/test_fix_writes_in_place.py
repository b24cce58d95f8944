"""`--fix` (and `--add-noqa`) write into the user's file, they do not replace it: a symlink stays a symlink (its
target gets the fix), hard links stay one file, owner, group and mode stay the user's, and a file the user cannot
write, or made read-only, is "not fixed" with the reason. Nothing is lost when a write fails part-way."""

from __future__ import annotations

import os
import stat

import pytest

from tfguard.static import atomic
from tfguard.static.atomic import FileChanged, write_in_place

# One safe fix (TFG102: the argmax built in the loop is hoisted out of it).
TRAIN = """\
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 4])
logits = tf.layers.dense(x, 2)
with tf.Session() as sess:
    for step in range(100):
        sess.run(tf.argmax(logits, 1))
"""


def _fixed(path):
    return "tf.argmax(logits, 1)\n" in path.read_text() and "sess.run(tf.argmax" not in path.read_text()


def test_a_plain_file_is_fixed_in_its_own_inode_with_its_mode(empty_project, write, run):
    path = write("train.py", TRAIN)
    os.chmod(path, 0o640)
    inode = os.stat(path).st_ino
    status, _, err = run("check", "--no-cache", "--fix", "train.py")
    assert status == 0, err
    assert _fixed(path) and os.stat(path).st_ino == inode and stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert [p.name for p in empty_project.iterdir() if p.name.startswith(".tfguard-fix-")] == []


def test_a_symlink_stays_a_symlink_and_its_target_gets_the_fix(empty_project, write, run, tmp_path_factory):
    outside = tmp_path_factory.mktemp("shared") / "train.py"
    outside.write_text(TRAIN)
    link = empty_project / "train.py"
    link.symlink_to(outside)
    status, _, err = run("check", "--no-cache", "--fix", "train.py")
    assert status == 0, err
    assert link.is_symlink() and os.readlink(link) == str(outside)
    assert _fixed(outside)


def test_hard_links_stay_one_file_and_it_is_fixed_once(empty_project, write, run):
    path = write("train.py", TRAIN)
    other = empty_project / "copy_of_train.py"
    os.link(path, other)
    status, _, err = run("check", "--no-cache", "--fix", "train.py", "copy_of_train.py")
    assert status == 0, err
    assert os.stat(path).st_ino == os.stat(other).st_ino and os.stat(path).st_nlink == 2
    assert _fixed(path) and _fixed(other)
    assert "not fixed" not in err and "Fixed 1 finding in 1 file." in err  # one file, fixed once


def test_a_second_name_of_a_file_already_written_is_not_written_again(tmp_path):
    from tfguard.static.config import Settings
    from tfguard.static.fixes.fix_files import Fixer

    path = tmp_path / "train.py"
    path.write_text(TRAIN)
    os.link(path, tmp_path / "again.py")
    fixer = Fixer(Settings(), lambda f: f.fix is not None and f.fix.applicability == "safe")
    first, second = fixer.plan_file(str(path)), fixer.plan_file(str(tmp_path / "again.py"))
    fixer.write(first)
    fixer.write(second)
    assert first.skipped == "" and _fixed(path)
    assert second.skipped == "it is the same file as %s (a link), fixed there" % path


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give the file away")
def test_a_file_of_another_user_keeps_its_owner_and_group_when_root_fixes_it(empty_project, write, run):
    path = write("train.py", TRAIN)
    os.chown(path, 1234, 5678)
    status, _, err = run("check", "--no-cache", "--fix", "train.py")
    assert status == 0, err
    assert _fixed(path) and (os.stat(path).st_uid, os.stat(path).st_gid) == (1234, 5678)


def test_a_read_only_file_is_not_fixed_and_says_why(empty_project, write, run):
    path = write("train.py", TRAIN)
    os.chmod(path, 0o444)
    status, _, err = run("check", "--no-cache", "--fix", "train.py")
    assert path.read_text() == TRAIN and stat.S_IMODE(os.stat(path).st_mode) == 0o444
    assert "tfguard: warning: train.py: not fixed: it is read-only (mode 444)" in err
    assert status == 1  # the finding is still there


def test_add_noqa_leaves_a_read_only_file_as_it_is(empty_project, write, run):
    path = write("train.py", TRAIN)
    os.chmod(path, 0o444)
    _, _, err = run("check", "--no-cache", "--add-noqa", "train.py")
    assert path.read_text() == TRAIN
    assert "train.py: no noqa added: it is read-only (mode 444)" in err and "Added 0 noqa directives." in err


def test_add_noqa_writes_through_a_symlink(empty_project, run, tmp_path_factory):
    outside = tmp_path_factory.mktemp("shared") / "train.py"
    outside.write_text(TRAIN)
    (empty_project / "train.py").symlink_to(outside)
    run("check", "--no-cache", "--add-noqa", "train.py")
    assert (empty_project / "train.py").is_symlink() and "# noqa: TFG102" in outside.read_text()


def test_write_in_place_refuses_a_file_that_changed(tmp_path):
    path = tmp_path / "a.py"
    path.write_bytes(b"new meanwhile\n")
    with pytest.raises(FileChanged):
        write_in_place(str(path), b"fixed\n", b"as read\n")
    assert path.read_bytes() == b"new meanwhile\n"


def test_a_write_that_fails_part_way_puts_the_original_back(tmp_path, monkeypatch):
    path = tmp_path / "a.py"
    path.write_bytes(b"original\n")
    real = atomic._overwrite
    calls = []

    def failing(stream, data):
        calls.append(data)
        if len(calls) == 1:
            stream.seek(0)
            stream.write(data[:3])  # part of it, then the disk is full
            raise OSError(28, "No space left on device")
        real(stream, data)

    monkeypatch.setattr(atomic, "_overwrite", failing)
    with pytest.raises(OSError, match="No space left"):
        write_in_place(str(path), b"fixed text\n", b"original\n")
    assert path.read_bytes() == b"original\n" and calls == [b"fixed text\n", b"original\n"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]  # the safety copy is gone once not needed


def test_when_even_the_original_cannot_be_put_back_the_safety_copy_is_kept_and_named(tmp_path, monkeypatch):
    path = tmp_path / "a.py"
    path.write_bytes(b"original\n")

    def broken(stream, data):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(atomic, "_overwrite", broken)
    with pytest.raises(OSError) as caught:
        write_in_place(str(path), b"fixed\n", b"original\n", prefix=".tfguard-fix-")
    copies = [p for p in tmp_path.iterdir() if p.name.startswith(".tfguard-fix-")]
    assert len(copies) == 1 and copies[0].read_bytes() == b"original\n"
    assert str(copies[0]) in str(caught.value)
