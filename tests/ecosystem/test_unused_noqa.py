"""TFG001 unused-noqa: ``# noqa: TFG…`` codes that suppress nothing, judged after every other rule ran."""

from __future__ import annotations

from pathlib import Path

from tests.rule_support import check_file
from tfguard.static.config import Settings
from tfguard.static.engine import check_source
from tfguard.static.registry import SuppressionRule, all_rules
from tfguard.static.suppression import NoqaCode, read_suppressions

REPO_ROOT = Path(__file__).resolve().parents[2]
ALL = Settings(select=("ALL",))
WITH_TFG001 = Settings(extend_select=("TFG001",))

LOOP = """\
import tensorflow as tf
x = tf.placeholder(tf.float32)
with tf.Session() as sess:
    for step in range(100):
        saver = tf.train.Saver(){comment}
        sess.run(x)
"""


def located(findings):
    return [(f.line, f.column, f.end_column, f.code) for f in findings]


def test_noqa_codes_are_placed_on_their_comment_even_before_another_comment():
    suppressions = read_suppressions("x = 1  # noqa: TFG101, e501  # expect: TFG001\n")
    assert suppressions.codes == [NoqaCode(1, 16, 22, "TFG101"), NoqaCode(1, 24, 28, "E501")]
    assert suppressions.by_line == {1: frozenset({"TFG101", "E501"})}


def test_is_registered_off_by_default_as_a_suppression_rule():
    rule = all_rules()["TFG001"]
    assert isinstance(rule, SuppressionRule)
    assert (rule.name, rule.severity, rule.default_enabled) == ("unused-noqa", "warning", False)
    source = "import tensorflow as tf\nx = 1  # noqa: TFG101\n"
    assert check_source(source, "a.py") == []
    assert located(check_source(source, "a.py", WITH_TFG001)) == [(2, 16, 22, "TFG001")]


def test_a_noqa_that_suppresses_a_finding_is_used():
    source = LOOP.format(comment="  # noqa: TFG101")
    assert check_source(source, "a.py", ALL) == []


def test_a_stale_code_is_reported_and_the_used_one_on_the_same_line_is_not():
    source = LOOP.format(comment="  # noqa: TFG102, TFG101")
    findings = check_source(source, "a.py", ALL)
    assert located(findings) == [(5, 43, 49, "TFG001")]
    assert "TFG102" in findings[0].message and "no TFG102 finding" in findings[0].message


def test_unknown_tfguard_codes_are_reported_other_tools_codes_and_bare_noqa_are_not():
    source = "import tensorflow as tf\na = 1  # noqa: TFG1999\nb = 2  # noqa: E501, B008\nc = 3  # noqa\n"
    findings = check_source(source, "a.py", ALL)
    assert located(findings) == [(2, 16, 23, "TFG001")]
    assert "unknown rule code TFG1999" in findings[0].message


def test_codes_of_rules_not_enabled_for_the_file_are_not_judged():
    source = "import tensorflow as tf\nx = 1  # noqa: TFG101\n"
    settings = Settings(extend_select=("TFG001",), ignore=("TFG101",))
    assert check_source(source, "a.py", settings) == []
    per_file = Settings(extend_select=("TFG001",), per_file_ignores=(("a.py", ("TFG101",)),))
    assert check_source(source, "a.py", per_file) == []
    assert located(check_source(source, "b.py", per_file)) == [(2, 16, 22, "TFG001")]


def test_its_own_findings_can_be_suppressed_and_the_rule_can_be_ignored():
    assert check_source("import tensorflow as tf\nx = 1  # noqa: TFG101, TFG001\n", "a.py", ALL) == []
    ignored = Settings(select=("ALL",), ignore=("TFG001",))
    assert check_source("import tensorflow as tf\nx = 1  # noqa: TFG101\n", "a.py", ignored) == []


def test_not_run_on_files_that_do_not_parse_or_are_skipped():
    broken = "import tensorflow as tf\nx = (  # noqa: TFG101\n"
    assert [f.code for f in check_source(broken, "a.py", ALL)] == ["TFG000"]
    assert check_source("# tfguard: noqa\nimport tensorflow\nx = 1  # noqa: TFG101\n", "a.py", ALL) == []


def test_catalog_examples():
    folder = REPO_ROOT / "rules" / "TFG001-unused-noqa"
    bad = check_file(str(folder / "bad.py"), ALL)
    assert [(f.line, f.code) for f in bad] == [(7, "TFG001"), (10, "TFG001"), (12, "TFG001"), (12, "TFG001"),
                                              (14, "TFG001")]
    assert check_file(str(folder / "good.py"), ALL) == []
