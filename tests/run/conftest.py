"""Helpers for `tfguard run` / `report` / `demo` tests: the real CLI in a child process."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.console import python_m_tfguard

REPO_ROOT = Path(__file__).resolve().parents[2]
DEMO_DIR = REPO_ROOT / "tfguard" / "demo"


def tfguard(*args, cwd=None, timeout=300):
    """Run `python -m tfguard ARGS` with the checkout on PYTHONPATH; return CompletedProcess."""
    return python_m_tfguard(*args, cwd=cwd, timeout=timeout)


def valid_document(document):
    """`document` (a `tfguard run --json` document), after checking it against the JSON Schema the package ships."""
    import jsonschema

    from tfguard.runtime.output.formats import document_schema

    jsonschema.Draft202012Validator(document_schema()).validate(document)
    return document


def busiest(document):
    """A run document's busiest session as one dict, as these tests read a run: the run's facts, the session's
    facts and figures, and its own diagnostics (``code``, ``severity``, ``message``: the headline and its help in
    one line, ``path`` and ``line`` of the line it blames, ``evidence``)."""
    from tfguard.runtime.verdict import RunVerdict

    verdict = RunVerdict.from_document(document)
    data = dict(verdict.facts, session_count=len(verdict.sessions))
    session = verdict.busiest
    if session is not None:
        data.update(session.to_dict())
        data["diagnostics"] = [{"code": d.code, "severity": d.severity, "message": d.one_line, "path": d.path,
                                "line": d.line, "evidence": d.evidence} for d in verdict.of_session(session.number)]
    return data


@pytest.fixture(scope="session")
def tensorflow_installed():
    """Skip when TensorFlow is missing (the run tests execute real TF scripts)."""
    pytest.importorskip("tensorflow")


TRAIN_SCRIPT = '''
import sys
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
print("argv=" + repr(sys.argv[1:]))
print("path0=" + sys.path[0])
steps = int(sys.argv[1])
x = tf.placeholder(tf.float32, [])
w = tf.Variable(1.0)
step = tf.assign_add(w, x)
init = tf.global_variables_initializer()
with tf.Session() as sess:
    sess.run(init)
    for i in range(steps):
        sess.run(step, {x: 1.0})
        if "grow" in sys.argv:
            tf.add(w, 1.0)  # grows the graph
print("finished")
if "boom" in sys.argv:
    raise ValueError("boom from the script")
if "exit7" in sys.argv:
    sys.exit(7)
'''


@pytest.fixture
def train_script(tmp_path):
    """A tiny training script: `train.py STEPS [grow] [boom] [exit7]`."""
    path = tmp_path / "train.py"
    path.write_text(TRAIN_SCRIPT, encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def tf_v1():
    """tf.compat.v1, imported in the test process."""
    tensorflow = pytest.importorskip("tensorflow")
    return tensorflow.compat.v1
