"""Issue 31: a finding reached through a helper (`via` lines) is silenced at the call in the loop, and says so."""

from __future__ import annotations

from tfguard.static.config import Settings
from tfguard.static.engine import check_source
from tfguard.static.formats.text import format_finding

HELPER = ("import numpy as np\n"
          "import tensorflow as tf\n"
          "\n"
          "point_in = tf.placeholder(tf.float32, [4])\n"
          "\n"
          "def distance(centroids):\n"
          "    return tf.reduce_sum(tf.square(centroids - point_in), axis=1){helper}\n"
          "\n"
          "with tf.Session() as sess:\n"
          "    centroids = tf.Variable(np.zeros((8, 4), np.float32))\n"
          "    for point in np.random.rand(10, 4):\n"
          "        print(sess.run(distance(centroids), feed_dict={{point_in: point}})){call}\n")


def findings(helper: str = "", call: str = ""):
    source = HELPER.format(helper=helper, call=call)
    return check_source(source, "train.py", Settings(extend_select=("TFG001",)))


def test_the_help_line_says_where_noqa_goes():
    (finding,) = findings()
    assert finding.code == "TFG102" and finding.line == 12 and [link.line for link in finding.chain] == [7]
    lines = format_finding(finding)
    assert lines[1].startswith("  help: ")
    assert lines[1].endswith("; silence it here with `# noqa: TFG102`, not in distance()")
    assert lines[2] == "  via line 7 in distance()"


def test_noqa_at_the_call_silences_it_and_at_the_helper_it_does_not():
    assert findings(call="  # noqa: TFG102") == []
    left = findings(helper="  # noqa: TFG102")
    assert [(f.code, f.line) for f in left] == [("TFG001", 7), ("TFG102", 12)]


def test_a_finding_without_helpers_gets_no_such_hint():
    inline = HELPER.format(helper="", call="").replace("distance(centroids)", "tf.reduce_sum(centroids)")
    (finding,) = check_source(inline, "train.py")
    assert not finding.chain and "noqa" not in finding.message
