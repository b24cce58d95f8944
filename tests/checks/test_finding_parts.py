"""A finding keeps its parts: the rule gives its headline and its help apart, and declares its own fix."""

from __future__ import annotations

import textwrap

import pytest

from tests.catalog_paths import relative, rule_folders
from tests.rule_support import calls_named, registered
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.config import Settings
from tfguard.static.engine import check_source
from tfguard.static.finding import SAFE, UNSAFE
from tfguard.static.fixes.availability import fix_offers
from tfguard.static.registry import all_rules

ALL_RULES = Settings(select=("ALL",))


def _outside_backticks(text: str) -> str:
    return "".join(part for index, part in enumerate(text.split("`")) if index % 2 == 0)


@pytest.mark.parametrize("folder", rule_folders(), ids=lambda folder: folder.name)
def test_a_headline_says_what_is_wrong_and_leaves_the_advice_to_the_help(folder):
    """A rule that still joins "what; what to do" into the headline (an old-style rule converted by passing its
    message and "") shows here: no headline holds a clause separator, and every rule gives advice."""
    path = folder / "bad.py"
    findings = check_source(path.read_text(encoding="utf-8"), relative(path), ALL_RULES)
    assert findings
    for finding in findings:
        assert "; " not in _outside_backticks(finding.headline), finding.headline
        assert finding.help, finding.code
        assert finding.message == f"{finding.headline}; {finding.help}"


def _old_style_rule():
    class OldStyle(NodeRule):
        code = "TFG990"
        name = "old-style"
        summary = "a rule that still passes one message"

        def check(self, module):
            for call in calls_named(module, "bad"):
                yield self.finding(module, call, "`bad()` is bad; do not call it", ())

    return [OldStyle]


def test_a_rule_that_passes_one_message_and_a_chain_fails_loudly_naming_itself():
    with registered(_old_style_rule), pytest.raises(TypeError, match="TFG990: finding"):
        check_source("import tensorflow as tf\nbad()\n", "t.py", Settings(select=("TFG990",)))


@pytest.mark.parametrize("code", sorted(fix_offers()))
def test_a_fix_is_declared_on_its_rule_with_its_safety_its_words_and_its_planner(code):
    offer = all_rules()[code].fix
    assert offer.applicability in (SAFE, UNSAFE)
    assert offer.what
    assert callable(offer.plan) and offer.plan.__module__.startswith("tfguard.static.fixes.")


def test_the_fix_is_planned_from_the_node_the_rule_reported():
    source = textwrap.dedent("""\
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None, 4])
        with tf.Session() as sess:
            for step in range(100):
                sess.run(tf.argmax(x, 1) + tf.argmax(x, 0), feed_dict={x: data})
    """)
    (finding,) = [f for f in check_source(source, "t.py", ALL_RULES) if f.code == "TFG102"]
    # the reported node is the whole sum, not one of the calls inside it
    assert finding.fix is not None and "`tf.argmax(x, 1) + tf.argmax(x, 0)`" in finding.fix.message


def test_findings_of_a_rule_without_a_fix_say_so():
    source = "import tensorflow as tf\ntf.ConfigProto(log_device_placement=True)\n"
    (finding,) = check_source(source, "t.py", ALL_RULES)
    assert all_rules()[finding.code].fix is None
    assert finding.fix is None and finding.no_fix == f"{finding.code} has no automatic fix (see `tfguard rule " \
                                                     f"{finding.code}`)"
