"""What the language server tests share: the server command, a project on disk, a client's capabilities."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

#: The server needs pygls (Python 3.9+); the client of most tests is pytest-lsp's (Python 3.10+): the modules
#: that need one skip, saying why, where it is missing.
HAVE_PYGLS = importlib.util.find_spec("pygls") is not None

#: The server as an editor starts it.
SERVER_COMMAND = [sys.executable, "-m", "tfguard", "server"]

#: A seed-like training script: an op built on every step of the session loop (TFG102, line 14).
TRAIN = textwrap.dedent('''\
    import numpy as np
    import tensorflow as tf

    x = tf.placeholder(tf.float32, [None, 4], name="x")
    w = tf.Variable(tf.zeros([4, 1]))
    y = tf.matmul(x, w)
    loss = tf.reduce_mean(tf.square(y))
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(1000):
            batch = np.random.rand(32, 4)
            scaled = tf.reduce_mean(y) * 2.0
            sess.run([train_op, scaled], feed_dict={x: batch})
    ''')
TRAIN_LOOP_LINE = 14  # 1-based: `scaled = tf.reduce_mean(y) * 2.0`


def write_project(root: Path) -> Path:
    """Write a small project: its configuration excludes ``generated/`` and names a runtime report."""
    (root / "pyproject.toml").write_text(textwrap.dedent('''\
        [project]
        name = "demo"

        [tool.tfguard]
        extend-exclude = ["generated"]
        runtime-report = "run.json"
        '''))
    (root / "train.py").write_text(TRAIN)
    (root / "generated").mkdir()
    (root / "generated" / "train_copy.py").write_text(TRAIN)
    return root


def client_capabilities(pull: bool = False) -> Any:
    """Return what a plain editor client can do; with ``pull``, a newer one: it pulls diagnostics, and resolves
    a code action's edit when the user picks the action."""
    from lsprotocol import types

    return types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(related_information=True),
            diagnostic=types.DiagnosticClientCapabilities() if pull else None,
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(
                        value_set=[types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll])),
                resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"]) if pull else None),
            hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
        ),
        workspace=types.WorkspaceClientCapabilities(
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=False),
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True) if pull else None),
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh project folder for one test module."""
    return write_project(tmp_path_factory.mktemp("project"))
