"""Objects and classes passed in: parameters from call sites, the unique-method fallback, star imports."""

import os
import textwrap

from tfguard import check_paths
from tfguard.static.config import Settings
from tfguard.static.engine import check_source

ALL = Settings(select=("ALL",))

NET = """\
import tensorflow as tf


class Net(object):
    def checkpoint(self, sess, path):
        return tf.train.Saver().save(sess, path)


class Log(object):
    def checkpoint(self, sess, path):
        print(path)


def fit(sess, net):
    for step in range(100):
        sess.run("train")
        net.checkpoint(sess, "/tmp/m")
"""


def lines_codes(source):
    return [(f.line, f.code) for f in check_source(textwrap.dedent(source), "t.py", ALL)]


def test_every_call_site_must_agree():
    assert lines_codes(NET + "fit(None, Net())\n") == [(17, "TFG101"), (17, "TFG202")]
    assert lines_codes(NET + "fit(None, Log())\n") == []
    assert lines_codes(NET + "fit(None, Net())\nfit(None, Log())\n") == []  # two kinds: unknown
    assert lines_codes(NET + "fit(None, net=Net())\n") == [(17, "TFG101"), (17, "TFG202")]


def test_star_arguments_make_the_parameter_unknown():
    assert lines_codes(NET + "args = (None, Net())\nfit(*args)\n") == []


def test_fallback_needs_one_class_whose_method_builds_or_runs():
    # No call site: two classes define ``checkpoint``, so the fallback does not pick one.
    assert lines_codes(NET) == []
    only_log = NET.replace("class Net(object):\n    def checkpoint", "class Net(object):\n    def save")
    assert lines_codes(only_log) == []  # one class, but its ``checkpoint`` builds and runs nothing
    only_net = NET.replace("class Log(object):\n    def checkpoint", "class Log(object):\n    def write")
    assert lines_codes(only_net) == [(17, "TFG101"), (17, "TFG202")]


def test_class_passed_in_and_instantiated():
    source = """\
        import tensorflow as tf


        class Model(object):
            def summaries(self):
                return tf.summary.merge_all()


        def train(sess, model_cls):
            model = model_cls()
            for step in range(100):
                sess.run("op")
                model.summaries()


        train(None, model_cls=Model)
    """
    assert lines_codes(source) == [(13, "TFG107")]


def write(root, files):
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text))


def test_star_import_respects_all_and_ignores_a_computed_one(tmp_path):
    loop = ("from helpers import *\nwith Session() as sess:\n"
            "    for i in range(90):\n        sess.run('x')\n        Saver()\n")
    write(tmp_path, {"pyproject.toml": "", "train.py": loop,
                     "helpers.py": "import tensorflow as tf\nSession = tf.Session\nSaver = tf.train.Saver\n"})

    def found():
        result = check_paths([str(tmp_path / "train.py")], ALL)
        return [(os.path.basename(f.path), f.line, f.code) for f in result.findings]

    assert found() == [("train.py", 5, "TFG101")]  # no __all__: every public name
    write(tmp_path, {"helpers.py": "import tensorflow as tf\n__all__ = ['Session']\n"
                                   "Session = tf.Session\nSaver = tf.train.Saver\n"})
    assert found() == []
    write(tmp_path, {"helpers.py": "import tensorflow as tf\n__all__ = ['Session'] + ['Saver']\n"
                                   "Session = tf.Session\nSaver = tf.train.Saver\n"})
    assert found() == []  # a computed __all__: nothing is taken for granted
