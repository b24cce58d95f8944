"""An error inside a fix planner is tfguard's bug: it fails the tests, and in use the finding says so."""

from __future__ import annotations

import dataclasses
import textwrap

import pytest

from tfguard.static.config import Settings
from tfguard.static.engine import check_source
from tfguard.static.fixes import planner
from tfguard.static.registry import all_rules

SOURCE = textwrap.dedent("""\
    import tensorflow as tf

    x = tf.placeholder(tf.float32, [None, 4])
    with tf.Session() as sess:
        for step in range(100):
            sess.run(tf.argmax(x, 1), feed_dict={x: data})
""")


def _crashing(ctx, finding, node):
    raise KeyError("boom")


@pytest.fixture
def crashing_planner(monkeypatch):
    rule = type(all_rules()["TFG102"])
    monkeypatch.setattr(rule, "fix", dataclasses.replace(rule.fix, plan=_crashing))


def test_the_fixture_finding_has_a_fix_without_the_crash():
    (finding,) = [f for f in check_source(SOURCE, "t.py", Settings()) if f.code == "TFG102"]
    assert finding.fix is not None


def test_an_error_in_a_planner_raises_under_the_tests(crashing_planner, monkeypatch):
    monkeypatch.setenv(planner.RAISE_ENV, "1")
    with pytest.raises(KeyError, match="boom"):
        check_source(SOURCE, "t.py", Settings())


def test_an_error_in_a_planner_is_reported_as_an_internal_error_in_use(crashing_planner, monkeypatch):
    monkeypatch.delenv(planner.RAISE_ENV, raising=False)
    (finding,) = [f for f in check_source(SOURCE, "t.py", Settings()) if f.code == "TFG102"]
    assert finding.fix is None
    assert finding.no_fix == "internal error in tfguard's fix planner (KeyError: 'boom'): please report it"


def test_the_suite_runs_with_planner_errors_raised():
    assert planner.raise_fix_errors()
