"""The findings of a report a real ``tfguard run --json`` wrote appear on the line the run blames."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.server.conftest import SERVER_COMMAND, client_capabilities
from tests.server.lsp_helpers import Buffers

pytest_lsp = pytest.importorskip("pytest_lsp", reason="pytest-lsp (Python 3.10+) is the client of these tests")
types = pytest.importorskip("lsprotocol.types")
ClientServerConfig, LanguageClient = pytest_lsp.ClientServerConfig, pytest_lsp.LanguageClient

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]

GROWING = textwrap.dedent('''\
    import tensorflow.compat.v1 as tf

    tf.disable_eager_execution()
    x = tf.placeholder(tf.float32, [])
    with tf.Session() as sess:
        for step in range(60):
            y = tf.add(x, 1.0)
            sess.run(y, feed_dict={x: 1.0})
    ''')


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), scope="module")
async def client(lsp_client: LanguageClient):
    """The client, initialised with push diagnostics."""
    await lsp_client.initialize_session(types.InitializeParams(capabilities=client_capabilities()))
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose script `tfguard run --json run.json` has run (its graph grows at line 7)."""
    pytest.importorskip("tensorflow")
    root = tmp_path_factory.mktemp("ran")
    (root / "tfguard.toml").write_text('runtime-report = "run.json"\n')
    (root / "grow.py").write_text(GROWING)
    done = subprocess.run([sys.executable, "-m", "tfguard", "run", "--json", "run.json", "grow.py"], cwd=root,
                          capture_output=True, text=True, timeout=300)
    assert (root / "run.json").is_file(), done.stderr
    return root


async def test_the_growth_site_of_a_real_run_is_a_diagnostic_on_its_line(client: LanguageClient, ran: Path):
    buffers = Buffers(client)
    diagnostics = await buffers.open(ran / "grow.py")
    runtime = [d for d in diagnostics if d.source == "tfguard run"]
    assert [(d.code, d.range.start.line, d.severity) for d in runtime] == [
        ("TFG901", 6, types.DiagnosticSeverity.Error)]
    assert runtime[0].message.startswith("the graph keeps growing as steps go by: grow.py:7")
    assert [d.code for d in diagnostics if d.source == "tfguard"] == ["TFG102"]  # the checker agrees
    assert [d.source for d in await buffers.replace(ran / "grow.py", GROWING + "\n")] == ["tfguard"]
