"""Client-side helpers for the server tests: open and edit buffers, wait for diagnostics, apply edits."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Sequence

import pytest

types = pytest.importorskip("lsprotocol.types", reason="lsprotocol comes with pygls (pip install '.[server]')")

if TYPE_CHECKING:  # pragma: no cover
    from pytest_lsp import LanguageClient

#: How long a test waits for the server's diagnostics at most (a busy machine, a cold astroid).
WAIT_S = 120.0


async def published(client: LanguageClient, uri: str) -> Sequence[types.Diagnostic]:
    """Wait for the next diagnostics pushed for ``uri`` (the caller has cleared the last ones)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while uri not in client.diagnostics:
        if loop.time() > deadline:
            raise AssertionError(f"no diagnostics for {uri} within {WAIT_S} s")
        await asyncio.sleep(0.02)
    return list(client.diagnostics[uri])


class Buffers:
    """The documents a test client has open, with their versions."""

    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.versions: Dict[str, int] = {}
        self.texts: Dict[str, str] = {}

    async def open(self, path: Path, text: str = "") -> Sequence[types.Diagnostic]:
        """Open ``path`` (with ``text``, default its content on disk) and return its first diagnostics.

        A buffer already open gets the text as an edit instead (a client opens a document once)."""
        uri = path.as_uri()
        text = text or path.read_text()
        if uri in self.versions:
            return await self.replace(path, text)
        self.versions[uri], self.texts[uri] = 1, text
        self.client.diagnostics.pop(uri, None)
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
        return await published(self.client, uri)

    async def replace(self, path: Path, text: str) -> Sequence[types.Diagnostic]:
        """Replace the whole buffer of ``path`` (unsaved) and return the diagnostics of the new text."""
        uri = path.as_uri()
        self.versions[uri] += 1
        self.texts[uri] = text
        self.client.diagnostics.pop(uri, None)
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        return await published(self.client, uri)

    def close(self, path: Path) -> None:
        """Close the buffer of ``path``."""
        self.client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri())))


def apply_edits(text: str, edits: List[types.TextEdit]) -> str:
    """Apply LSP text edits (UTF-16 positions; the test texts are ASCII) to ``text``, as an editor would."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: types.Position) -> int:
        if position.line >= len(lines):
            return len(text)
        return starts[position.line] + position.character

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


def only_edits(action: types.CodeAction, uri: str, version: object = None) -> List[types.TextEdit]:
    """Return the edits a code action makes to ``uri`` (it must touch nothing else); with ``version``, they must
    be versioned edits (``documentChanges``) of that version of the buffer."""
    assert action.edit is not None, action
    if version is not None:
        changes = action.edit.document_changes
        assert changes is not None and len(changes) == 1, action.edit
        assert (changes[0].text_document.uri, changes[0].text_document.version) == (uri, version), changes
        return list(changes[0].edits)
    assert action.edit.changes is not None, action
    assert set(action.edit.changes) == {uri}, action.edit.changes
    return list(action.edit.changes[uri])
