"""The TensorFlow and Python versions tfguard supports, and its one-line refusals of the others.

Runs on both legs (TF 2.x on the main one, TF 1.15.5 on Python 3.7 in tools/tf1_leg.sh).
"""

from __future__ import annotations

import sys
import types

import pytest

from tfguard.cli.errors import checker_python_error
from tfguard.runtime.tf_access import (
    UnsupportedTensorFlowError,
    tf_v1,
    unsupported_reason,
    version_of,
    version_reader,
)

pytestmark = pytest.mark.tf1


def _fake_tensorflow(version, compat_v1=True):
    module = types.ModuleType("tensorflow")
    module.__version__ = version
    if compat_v1:
        module.compat = types.SimpleNamespace(v1=types.ModuleType("tensorflow.compat.v1"))
    return module


@pytest.mark.parametrize("version", ["1.15.5", "1.15.0", "2.12.0", "2.21.0rc1"])
def test_supported_tensorflow_versions(version):
    assert unsupported_reason(_fake_tensorflow(version)) is None


@pytest.mark.parametrize("version", ["1.14.0", "1.13.2", "0.12.1", ""])
def test_tensorflow_older_than_1_15_is_refused_in_one_line(version):
    reason = unsupported_reason(_fake_tensorflow(version))
    assert reason is not None and "\n" not in reason
    assert reason.endswith("tfguard needs TensorFlow 1.15, or 2.x with tf.compat.v1")
    assert ("TensorFlow %s is not supported" % version if version else "of unknown version") in reason


def test_tensorflow_2_without_compat_v1_is_refused_in_one_line():
    assert unsupported_reason(_fake_tensorflow("2.30.0", compat_v1=False)) == (
        "TensorFlow 2.30.0 has no tf.compat.v1: tfguard needs TensorFlow 1.15, or 2.x with tf.compat.v1")


def test_tf_v1_raises_the_refusal_for_an_unsupported_tensorflow(monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorflow", _fake_tensorflow("1.14.0"))
    with pytest.raises(UnsupportedTensorFlowError, match=r"^TensorFlow 1\.14\.0 is not supported"):
        tf_v1()


def test_the_installed_tensorflow_is_supported_and_gives_the_v1_api():
    tensorflow = pytest.importorskip("tensorflow")
    assert unsupported_reason(tensorflow) is None and version_of(tensorflow) >= (1, 15)
    v1 = tf_v1()
    assert v1 is tensorflow.compat.v1
    for name in ("Session", "RunOptions", "RunMetadata", "train", "summary", "placeholder"):
        assert hasattr(v1, name), name


def test_the_version_reader_follows_graph_version_as_ops_are_added_and_after_finalize(tf):
    # On 1.15 it reads the counter behind the locking property; on 2.x it asks the property.
    graph = tf.Graph()
    read = version_reader(graph)
    seen = [(read(), graph.version)]
    with graph.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        seen.append((read(), graph.version))
        tf.add(x, 1.0)
    seen.append((read(), graph.version))
    graph.finalize()
    seen.append((read(), graph.version))
    assert [a for a, _ in seen] == [b for _, b in seen]
    assert seen[0][0] < seen[1][0] < seen[2][0] == seen[3][0]


def test_the_version_reader_asks_any_other_graph_for_its_version():
    graph = types.SimpleNamespace(version=7, _version="not the counter")
    read = version_reader(graph)
    assert read() == 7
    graph.version = 8
    assert read() == 8


@pytest.mark.parametrize("command", ["check", "rules", "rule"])
def test_the_checker_refuses_python_3_7_in_one_line_naming_the_python_it_needs(command):
    message = checker_python_error(command, (3, 7, 16, "final", 0))
    assert message is not None and "\n" not in message
    assert message.startswith("tfguard %s needs Python 3.8 or newer (this is Python 3.7.16;" % command)
    assert "pipx" not in message and "finds a newer Python" in message


@pytest.mark.parametrize("command, version", [("run", (3, 7, 16)), ("report", (3, 7, 16)), ("demo", (3, 7, 1)),
                                              ("check", (3, 8, 18)), ("check", (3, 12, 0))])
def test_what_runs_on_this_python_is_not_refused(command, version):
    assert checker_python_error(command, version) is None


@pytest.mark.skipif(sys.version_info >= (3, 8), reason="the search for a newer Python only runs on Python 3.7")
def test_tfguard_check_on_python_3_7_without_a_newer_python_says_what_to_install(capsys, monkeypatch):
    from tfguard.cli import checker_python, main

    monkeypatch.delenv(checker_python.ENV_PYTHON, raising=False)
    monkeypatch.setattr(checker_python, "candidates", lambda: [])
    assert main(["check", "."]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("tfguard: error: tfguard check needs Python 3.8 or newer (this is Python 3.7")
    assert "`pyenv install 3.11`" in err


def test_tf_function_traces_are_followed_only_where_tensorflow_has_the_hooks(monkeypatch):
    """TFG908 needs 2.13+'s polymorphic_function package; on 1.15 (this leg's) and older 2.x: not available."""
    from tfguard.runtime.tf_access import function_hooks

    real = sys.modules.get("tensorflow")
    if real is not None and version_of(real) >= (2, 13):
        assert function_hooks() is not None
    else:
        assert function_hooks() is None
    monkeypatch.setitem(sys.modules, "tensorflow", _fake_tensorflow("2.12.0"))
    assert function_hooks() is None


@pytest.mark.slow
def test_a_run_on_tensorflow_without_function_hooks_reports_as_before(tmp_path):
    """On TF 1.15 `tfguard run` follows no tf.function: the JSON has no `functions` and the program runs as is."""
    import json
    import subprocess

    from tests.run.conftest import tfguard

    tf = pytest.importorskip("tensorflow")
    script = tmp_path / "plain.py"
    script.write_text("import tensorflow as tf\nprint('loaded', bool(tf.__version__))\n", encoding="utf-8")
    report = tmp_path / "report.json"
    done = tfguard("run", "--json", report, script, cwd=tmp_path)
    plain = subprocess.run([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, cwd=str(tmp_path))
    assert done.returncode == plain.returncode == 0 and done.stdout == plain.stdout == "loaded True\n"
    document = json.loads(report.read_text(encoding="utf-8"))
    if version_of(tf) < (2, 13):
        assert "functions" not in document and "created no TensorFlow session" in done.stderr
    else:
        assert document["functions"] == {"available": True, "failed": False, "functions": []}
        assert document["diagnostics"] == []
        assert "created no TensorFlow session" in done.stderr  # no function traced: nothing to report
