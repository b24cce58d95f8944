"""What ruff users reach for: -e/-o, --exit-non-zero-on-fix, one error prefix, --show-settings' real defaults."""

from __future__ import annotations

from pathlib import Path

from tfguard.static.discovery import DEFAULT_EXCLUDE
from tfguard.static.registry import all_rules

LOOP = """\
import tensorflow as tf

x = tf.placeholder(tf.float32, shape=[])
with tf.Session() as sess:
    for step in range(30):
        sess.run(x + 1.0, {x: float(step)})
"""


def test_short_flags_mean_what_they_mean_in_ruff(empty_project, run):
    Path("train.py").write_text(LOOP)
    status, out, _ = run("check", "-e", "-o", "report.txt", "train.py")  # ruff: -e --exit-zero, -o --output-file
    assert (status, out) == (0, "")
    assert "TFG102" in Path("report.txt").read_text()


def test_exit_non_zero_on_fix_fails_when_the_fix_changed_files(empty_project, run):
    Path("train.py").write_text(LOOP)
    assert run("check", "--fix", "--exit-non-zero-on-fix", "train.py")[0] == 1  # fixed, nothing left: still 1
    assert run("check", "train.py")[0] == 0
    assert run("check", "--fix", "--exit-non-zero-on-fix", "train.py")[0] == 0  # nothing to change
    Path("train.py").write_text(LOOP)
    assert run("check", "--fix", "train.py")[0] == 0  # without the flag, as before
    Path("train.py").write_text(LOOP)
    assert run("check", "--fix-only", "--exit-non-zero-on-fix", "train.py")[0] == 1


def test_every_error_has_the_one_prefix(empty_project, run):
    for args in (["check", "--output-format", "xml"], ["check", "-j", "zero"], ["rules", "--format", "csv"],
                 ["run", "--fail-on"], ["check", "--selct", "TFG1"]):
        status, out, err = run(*args)
        assert status == 2 and err.startswith("tfguard: error: "), (args, err)
        assert err.count("\n") == 1


def test_show_settings_prints_the_real_defaults(empty_project, run):
    status, out, _ = run("check", "--show-settings", "--isolated", "a.py")
    lines = out.splitlines()
    on = [code for code, rule in all_rules().items() if rule.default_enabled]
    assert f"select = {on}  (the default)" in lines and "select = []" not in lines
    assert f"exclude = {list(DEFAULT_EXCLUDE)}  (the default)" in lines
    assert "fixable = ['ALL']  (the default)" in lines
    assert f"rules checked = {on}" in lines
    status, out, _ = run("check", "--show-settings", "--isolated", "--select", "TFG101", "--ignore", "TFG101", "a.py")
    assert "select = ['TFG101']" in out.splitlines() and "rules checked = []" in out.splitlines()


def test_verbose_names_each_file_its_configuration_and_the_time(empty_project, run):
    Path("train.py").write_text(LOOP)
    Path("sub").mkdir()
    Path("sub/pyproject.toml").write_text("[tool.tfguard]\nignore = ['TFG102']\n")
    Path("sub/other.py").write_text(LOOP)
    status, out, err = run("check", "-v", "--no-cache", ".")
    assert status == 1 and "TFG102" in out
    assert "tfguard: verbose: checked train.py (settings: " in err
    assert f"tfguard: verbose: checked sub/other.py (settings: {Path('sub/pyproject.toml').resolve()})" in err
    assert "tfguard: verbose: 2 files in " in err and "cache: off)" in err
    assert "verbose" not in run("check", "--no-cache", ".")[2]


def test_watch_checks_again_when_a_file_changes_until_interrupted(empty_project, run, monkeypatch):
    from tfguard.cli import watching

    Path("train.py").write_text(LOOP)
    looks = []

    def fake_sleep(seconds):  # the first look finds train.py fixed, the second is Ctrl-C
        looks.append(seconds)
        if len(looks) == 1:
            Path("train.py").write_text(LOOP.replace("x + 1.0", "x"))
        else:
            raise KeyboardInterrupt

    monkeypatch.setattr(watching, "sleep", fake_sleep)
    status, out, err = run("check", "--watch", "--no-cache", "train.py")
    assert status == 130 and err.splitlines()[-1] == "tfguard: interrupted", err
    assert out.count("TFG102") == 1  # the first check; the second passes
    assert "tfguard: train.py changed: checking again" in err
    assert err.count("tfguard: watching train.py for changes (Ctrl-C stops)") == 2
    assert "All checks passed (1 file)." in err
    assert run("check", "--watch", "--add-noqa", "train.py")[2].startswith(
        "tfguard: error: --watch cannot be combined with --add-noqa")


def test_watch_keeps_watching_after_a_configuration_error(empty_project, run, monkeypatch):
    from tfguard.cli import watching

    Path("train.py").write_text(LOOP)
    looks = []

    def fake_sleep(seconds):  # a broken configuration, then a fixed one, then Ctrl-C
        looks.append(seconds)
        if len(looks) == 1:
            Path("tfguard.toml").write_text("selct = ['TFG1']\n")
        elif len(looks) == 2:
            Path("tfguard.toml").write_text("ignore = ['TFG102']\n")
        else:
            raise KeyboardInterrupt

    monkeypatch.setattr(watching, "sleep", fake_sleep)
    status, out, err = run("check", "--watch", "--no-cache", ".")
    assert status == 130
    assert "tfguard: error: tfguard.toml: unknown key 'selct'" in err
    assert err.count("tfguard: watching . for changes (Ctrl-C stops)") == 3
    assert "All checks passed (1 file)." in err
