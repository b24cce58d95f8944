"""Following calls into the project's other files."""

import os
import textwrap

from tfguard import check_paths
from tfguard.static.analysis.project import Project, find_project_root


def write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


LOOP = """\
import tensorflow as tf
{imports}
loss = tf.constant(1.0)
with tf.Session() as sess:
    for step in range(100):
        sess.run(loss)
        {call}
"""


def findings(root, *names):
    result = check_paths([str(root / n) for n in names])
    assert not result.errors
    return [
        (os.path.basename(f.path), f.line, f.code, [(os.path.basename(c.path), c.line, c.function) for c in f.chain])
        for f in result.findings
    ]


def test_from_import_of_a_sibling_module(tmp_path):
    write(tmp_path, {
        "pyproject.toml": "",
        "metrics.py": "import tensorflow as tf\ndef add_summaries(x):\n    tf.summary.scalar('x', x)\n",
        "train.py": LOOP.format(imports="from metrics import add_summaries", call="add_summaries(loss)"),
    })
    assert findings(tmp_path, "train.py") == [("train.py", 7, "TFG107", [("metrics.py", 3, "add_summaries")])]


def test_module_attribute_package_and_depth_three(tmp_path):
    write(tmp_path, {
        "pyproject.toml": "",
        "pkg/__init__.py": "",
        "pkg/utils.py": "from pkg import deep\ndef log(x):\n    deep.save(x)\n",
        "pkg/deep.py": "from .deeper import make\ndef save(x):\n    make()\n",
        "pkg/deeper.py": "import tensorflow as tf\ndef make():\n    return tf.train.Saver()\n",
        "train.py": LOOP.format(imports="import pkg.utils", call="pkg.utils.log(loss)"),
    })
    assert findings(tmp_path, "train.py") == [
        ("train.py", 7, "TFG101", [("utils.py", 3, "log"), ("deep.py", 3, "save"), ("deeper.py", 3, "make")])
    ]


def test_method_of_imported_class(tmp_path):
    write(tmp_path, {
        "setup.py": "",
        "src/lib/__init__.py": "",
        "src/lib/model.py": textwrap.dedent("""\
            import tensorflow as tf
            class Model:
                def build_summary(self):
                    return tf.summary.merge_all()
            """),
        "train.py": LOOP.format(imports="from lib.model import Model\nmodel = Model()", call="model.build_summary()"),
    })
    assert findings(tmp_path, "train.py") == [("train.py", 8, "TFG107", [("model.py", 4, "Model.build_summary")])]


def test_helper_that_runs_the_graph_makes_a_session_loop(tmp_path):
    write(tmp_path, {
        ".git/HEAD": "",
        "steps.py": "def train_step(sess, op):\n    return sess.run(op)\n",
        "train.py": textwrap.dedent("""\
            import tensorflow as tf
            from steps import train_step
            op = tf.no_op()
            sess = tf.Session()
            for i in range(30):
                train_step(sess, op)
                tf.constant(i)
            """),
    })
    assert findings(tmp_path, "train.py") == [("train.py", 7, "TFG102", [])]


def test_import_cycles_and_recursion_terminate(tmp_path):
    write(tmp_path, {
        "pyproject.toml": "",
        "a.py": "import tensorflow as tf\nimport b\ndef f(x):\n    b.g(x)\n    return tf.identity(x)\n",
        "b.py": "import a\ndef g(x):\n    a.f(x)\n",
        "train.py": LOOP.format(imports="import a", call="a.f(loss)"),
    })
    assert findings(tmp_path, "train.py") == [("train.py", 7, "TFG102", [("a.py", 5, "f")])]


def test_only_named_files_are_reported(tmp_path):
    write(tmp_path, {
        "pyproject.toml": "",
        "helpers.py": LOOP.format(imports="", call="tf.constant(2)") + "def h():\n    return tf.train.Saver()\n",
        "train.py": LOOP.format(imports="from helpers import h", call="h()"),
    })
    reported = findings(tmp_path, "train.py")
    assert [(name, code) for name, _, code, _ in reported] == [("train.py", "TFG101")]


def test_nothing_outside_the_project_is_followed(tmp_path):
    outside = tmp_path / "outside"
    project = tmp_path / "project"
    write(tmp_path, {
        "outside/ext.py": "import tensorflow as tf\ndef f():\n    tf.train.Saver()\n",
        "project/pyproject.toml": "",
        "project/train.py": LOOP.format(
            imports="import sys\nsys.path.insert(0, '../outside')\nfrom ext import f", call="f()"
        ),
    })
    assert outside.exists()
    assert findings(project, "train.py") == []


def test_dependencies_are_recorded(tmp_path):
    write(tmp_path, {
        "pyproject.toml": "",
        "m1.py": "import m2\ndef f():\n    m2.g()\n",
        "m2.py": "import tensorflow as tf\ndef g():\n    tf.constant(1)\n",
        "train.py": LOOP.format(imports="import m1", call="m1.f()"),
    })
    project = Project(str(tmp_path))
    from tests.rule_support import check_file

    check_file(str(tmp_path / "train.py"), project=project)
    assert project.dependencies(str(tmp_path / "train.py")) == [str(tmp_path / "m1.py"), str(tmp_path / "m2.py")]


def test_project_root_markers(tmp_path):
    write(tmp_path, {"pyproject.toml": "", "a/b/c.py": ""})
    assert find_project_root(str(tmp_path / "a" / "b" / "c.py")) == str(tmp_path)


def test_plain_checkout_without_markers_resolves_package_imports(tmp_path):
    write(tmp_path, {
        "gail/__init__.py": "",
        "gail/common/__init__.py": "",
        "gail/common/tf_util.py": "import tensorflow as tf\ndef save(sess):\n    tf.train.Saver().save(sess, 'x')\n",
        "gail/run/__init__.py": "",
        "gail/run/train.py": LOOP.format(imports="import gail.common.tf_util as U", call="U.save(sess)"),
    })
    result = check_paths([str(tmp_path / "gail" / "run" / "train.py")])
    assert [(f.line, f.code) for f in result.findings] == [(7, "TFG101"), (7, "TFG202")]
    assert find_project_root(str(tmp_path / "gail" / "run" / "train.py")) == str(tmp_path)


def test_cache_rechecks_callers_when_a_followed_module_changes(tmp_path):
    from tfguard.static.cache import ResultCache
    from tfguard.static.config import Settings

    write(tmp_path, {
        "pyproject.toml": "",
        "helpers.py": "import tensorflow as tf\ndef h():\n    return tf.identity(1)\n",
        "train.py": LOOP.format(imports="from helpers import h", call="h()"),
    })
    settings = Settings(root=str(tmp_path))

    def run():
        cache = ResultCache(str(tmp_path / ".cache"), settings)
        return [(f.line, f.code) for f in check_paths([str(tmp_path / "train.py")], settings, cache=cache).findings]

    assert run() == [(7, "TFG102")]
    assert run() == [(7, "TFG102")]  # from the cache
    (tmp_path / "helpers.py").write_text("import tensorflow as tf\ndef h():\n    return tf.train.Saver()\n")
    assert run() == [(7, "TFG101")]
