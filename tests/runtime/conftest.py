"""Shared fixtures: TensorFlow imported once per session, graph mode via tf.compat.v1."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


@pytest.fixture(scope="session")
def tf():
    """The tf.compat.v1 API (or tf on 1.15)."""
    tensorflow = pytest.importorskip("tensorflow")
    v1 = getattr(getattr(tensorflow, "compat", None), "v1", None) or tensorflow
    v1.logging.set_verbosity(v1.logging.ERROR)
    return v1


@pytest.fixture
def graph(tf):
    """A fresh graph with a placeholder x, a variable w and a train-like op; yields (graph, parts)."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        w = tf.Variable(1.0, name="w")
        step = tf.group(tf.assign_add(w, x), name="step")
        init = tf.global_variables_initializer()
    yield g, {"x": x, "w": w, "step": step, "init": init}


@pytest.fixture
def sess(tf, graph):
    """A session on `graph` with variables initialized."""
    g, parts = graph
    session = tf.Session(graph=g)
    session.run(parts["init"])
    yield session
    session.close()
