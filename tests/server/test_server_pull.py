"""A newer client: it pulls diagnostics (``textDocument/diagnostic``), none are pushed; it resolves code actions'
edits when the user picks them (``codeAction/resolve``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.server.conftest import SERVER_COMMAND, TRAIN, TRAIN_LOOP_LINE, client_capabilities
from tests.server.lsp_helpers import apply_edits, only_edits

pytest_lsp = pytest.importorskip("pytest_lsp", reason="pytest-lsp (Python 3.10+) is the client of these tests")
types = pytest.importorskip("lsprotocol.types")
ClientServerConfig, LanguageClient = pytest_lsp.ClientServerConfig, pytest_lsp.LanguageClient

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), scope="module")
async def client(lsp_client: LanguageClient):
    """The client, initialised with pull diagnostics."""
    await lsp_client.initialize_session(types.InitializeParams(capabilities=client_capabilities(pull=True)))
    yield
    await lsp_client.shutdown_session()


async def test_pulled_diagnostics_of_an_open_file(client: LanguageClient, project: Path):
    uri = (project / "train.py").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=TRAIN)))
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert report.kind == "full"
    assert [(d.code, d.range.start.line) for d in report.items] == [("TFG102", TRAIN_LOOP_LINE - 1)]
    await asyncio.sleep(0.2)
    assert uri not in client.diagnostics  # nothing pushed: the client pulls


async def test_fix_all_in_the_light_bulb_is_resolved_when_picked(client: LanguageClient, project: Path):
    uri = (project / "train.py").as_uri()
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        context=types.CodeActionContext(diagnostics=[])))
    fix_all = [a for a in actions if a.kind == "source.fixAll.tfguard"]
    assert len(fix_all) == 1 and fix_all[0].edit is None  # worked out only when picked
    resolved = await client.code_action_resolve_async(fix_all[0])
    fixed = apply_edits(TRAIN, only_edits(resolved, uri, version=1))  # versioned: this client takes them
    moved = "    scaled = tf.reduce_mean(y) * 2.0\n"
    hoisted = TRAIN.replace("    " + moved, "").replace("    for step", moved + "    for step")
    assert fixed == hoisted
