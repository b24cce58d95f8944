"""A client that pulls diagnostics (``textDocument/diagnostic``) gets them by request, and none pushed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.server.conftest import SERVER_COMMAND, TRAIN, TRAIN_LOOP_LINE, client_capabilities

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
