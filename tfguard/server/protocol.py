"""The LSP glue: pygls features that hand each request to :class:`~tfguard.server.state.ServerState`.

Checks run on one worker thread, in the order they were asked for, so the event loop keeps reading messages
while a long file is checked; a check whose buffer changed again meanwhile is skipped or not published (the
newer version's check follows). Only the event loop's thread writes to the client. Diagnostics are pushed
(``textDocument/publishDiagnostics``) unless the client pulls them (``textDocument/diagnostic``), as ruff's
server does. No request ever ends the server: an internal error is logged to the client and the request
answered with nothing.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, List, Optional, Tuple

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from tfguard.server import actions, framing, hover
from tfguard.server.configuration import is_config_file
from tfguard.server.diagnostics import Positions, to_diagnostics
from tfguard.server.state import ServerState

logger = logging.getLogger("tfguard.server")

#: Files whose change makes the server check the open files again: configuration files (read again first) and
#: JSON files (a runtime report; whether it changed is told by its modification time).
WATCHED = "**/{pyproject.toml,tfguard.toml,.tfguard.toml,*.json}"


class TfguardServer(LanguageServer):
    """The pygls server, with the state the features share."""

    def __init__(self, version: str) -> None:
        super().__init__("tfguard", version, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.state = ServerState()
        self.checks = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tfguard-check")
        #: What the client can do: pull diagnostics, resolve a code action's edit later, refresh pulled ones.
        self.pull = False
        self.resolve_edits = False
        self.refresh = False
        self.versioned_edits = False
        self.shut_down = False

    def units(self) -> Callable[[str], int]:
        """Return how long a string is in the client's position encoding."""
        return self.workspace.position_codec.client_num_units

    async def on_checker(self, job: Callable[..., Any], *args: Any) -> Any:
        """Run ``job`` on the checking thread; an internal error is logged and becomes None."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.checks, job, *args)
        except Exception as exc:  # noqa: BLE001 - one bad file must never end the server
            self.log(f"internal error: {type(exc).__name__}: {exc}", types.MessageType.Error)
            logger.exception("tfguard server: internal error")
            return None

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls' handler of an error outside a request: a body that is not JSON is answered with -32700 (the
        JSON-RPC reply), not shown to the user as "Error in server" (framing.py)."""
        if not framing.answer_unparsable(self, error):
            super().report_server_error(error, source)

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        """Send a line to the client's log."""
        self.window_log_message(types.LogMessageParams(type=kind, message=f"tfguard: {message}"))


def file_path(uri: str) -> Optional[str]:
    """Return the absolute path of a ``file:`` URI, None for other schemes (untitled buffers)."""
    if not uri.startswith("file:"):
        return None
    path = to_fs_path(uri)
    return os.path.abspath(path) if path else None


#: A line for the user: (its kind, its text, shown as a message rather than only logged).
Note = Tuple[types.MessageType, str, bool]


def diagnostics_now(server: TfguardServer, path: str, fresh: bool, text: Optional[str] = None
                    ) -> Optional[Tuple[List[types.Diagnostic], List[Note]]]:
    """Check an open file (on the checking thread) and return its diagnostics and what to tell the user (sent
    by the caller, on the event loop: only that thread writes to the client); None when the file was closed, or
    edited again since ``text`` (a check of the newer text is queued behind this one)."""
    state = server.state
    if text is not None and state.buffer_text(path) is not text:
        return None
    checked = state.check(path, fresh=fresh)
    if checked is None:
        return None
    notes: List[Note] = []
    if checked.skipped:
        problem = state.settings(path).error
        if problem and problem not in state.reported:
            state.reported.add(problem)
            notes.append((types.MessageType.Error, problem, True))
        if (path, checked.skipped) not in state.reported:  # once per file and reason, not on every keystroke
            state.reported.add((path, checked.skipped))
            notes.append((types.MessageType.Info, f"{path}: {checked.skipped}", False))
        return [], notes
    runtime = state.runtime_findings(path)
    if state.runtime.problem and state.runtime.problem not in state.reported:
        state.reported.add(state.runtime.problem)
        notes.append((types.MessageType.Warning, state.runtime.problem, False))
    docs_url = checked.settings.docs_url if checked.settings is not None else ""
    return to_diagnostics(checked.text, server.units(), checked.findings, runtime, docs_url), notes


async def diagnostics_of(server: TfguardServer, path: str, fresh: bool, text: Optional[str] = None
                         ) -> Optional[List[types.Diagnostic]]:
    """Run :func:`diagnostics_now` on the checking thread, tell the user its notes, return the diagnostics."""
    done = await server.on_checker(diagnostics_now, server, path, fresh, text)
    if done is None:
        return None
    found, notes = done
    for kind, message, show in notes:
        if show:
            server.window_show_message(types.ShowMessageParams(type=kind, message=f"tfguard: {message}"))
        else:
            server.log(message, kind)
    return found


async def publish(server: TfguardServer, uri: str, fresh: bool = True) -> None:
    """Check the buffer of ``uri`` and push its diagnostics, unless it changed meanwhile or the client pulls."""
    path = file_path(uri)
    if path is None or server.pull:
        return
    buffer = server.state.buffers.get(path)
    if buffer is None:
        return
    version, text = buffer.version, buffer.text
    found = await diagnostics_of(server, path, fresh, text)
    current = server.state.buffers.get(path)
    if found is None or current is None or current.text is not text:
        return  # closed, or edited again: the newer version's check publishes
    server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, version=version,
                                                                            diagnostics=found))


def build_server(version: str) -> TfguardServer:
    """Return the language server with every feature registered."""
    server = TfguardServer(version)
    framing.guard_messages(server, lambda line: server.log(line, types.MessageType.Warning))

    @server.feature(types.INITIALIZE)
    def initialize(ls: TfguardServer, params: types.InitializeParams) -> None:
        text_document = params.capabilities.text_document
        ls.pull = text_document is not None and text_document.diagnostic is not None
        code_action = text_document.code_action if text_document is not None else None
        resolve = code_action.resolve_support if code_action is not None else None
        ls.resolve_edits = resolve is not None and "edit" in resolve.properties
        workspace = params.capabilities.workspace
        diagnostics = workspace.diagnostics if workspace is not None else None
        ls.refresh = diagnostics is not None and bool(diagnostics.refresh_support)
        edits = workspace.workspace_edit if workspace is not None else None
        ls.versioned_edits = edits is not None and bool(edits.document_changes)

    @server.feature(types.INITIALIZED)
    def initialized(ls: TfguardServer, params: types.InitializedParams) -> None:
        workspace = ls.client_capabilities.workspace
        watched = workspace.did_change_watched_files if workspace is not None else None
        if watched is not None and watched.dynamic_registration:
            ls.client_register_capability(types.RegistrationParams(registrations=[types.Registration(
                id="tfguard-watched-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(
                    watchers=[types.FileSystemWatcher(glob_pattern=WATCHED)]))]))

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: TfguardServer, params: None) -> None:
        ls.shut_down = True

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: TfguardServer, params: types.DidOpenTextDocumentParams) -> None:
        await _changed(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: TfguardServer, params: types.DidChangeTextDocumentParams) -> None:
        await _changed(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: TfguardServer, params: types.DidSaveTextDocumentParams) -> None:
        await _recheck_all(ls)  # a saved file may be followed into from the other open files

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: TfguardServer, params: types.DidCloseTextDocumentParams) -> None:
        path = file_path(params.text_document.uri)
        if path is not None:
            ls.checks.submit(ls.state.close, path)
        if not ls.pull:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri,
                                                                                diagnostics=[]))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def watched_files(ls: TfguardServer, params: types.DidChangeWatchedFilesParams) -> None:
        paths = [file_path(change.uri) or "" for change in params.changes]
        if any(is_config_file(path) for path in paths):
            await ls.on_checker(ls.state.reload)
        await _recheck_all(ls)

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, types.DiagnosticOptions(
        identifier="tfguard", inter_file_dependencies=True, workspace_diagnostics=False))
    async def pull_diagnostics(ls: TfguardServer, params: types.DocumentDiagnosticParams
                               ) -> types.RelatedFullDocumentDiagnosticReport:
        path = file_path(params.text_document.uri)
        found = await diagnostics_of(ls, path, False) if path is not None else None
        return types.RelatedFullDocumentDiagnosticReport(items=found or [])

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, actions.FIX_ALL], resolve_provider=True))
    async def code_action(ls: TfguardServer, params: types.CodeActionParams) -> Optional[List[types.CodeAction]]:
        path = file_path(params.text_document.uri)
        if path is None:
            return None
        return await ls.on_checker(_code_actions, ls, path, params)

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve_code_action(ls: TfguardServer, params: types.CodeAction) -> types.CodeAction:
        resolved = await ls.on_checker(_resolve, ls, params)
        return resolved if resolved is not None else params

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: TfguardServer, params: types.HoverParams) -> Optional[types.Hover]:
        path = file_path(params.text_document.uri)
        if path is None:
            return None
        return await ls.on_checker(_hover, ls, path, params.position)

    return server


async def _changed(server: TfguardServer, uri: str) -> None:
    path = file_path(uri)
    if path is None:
        return
    document = server.workspace.get_text_document(uri)
    if document.language_id not in (None, "python") and not path.endswith(".py"):
        return  # a client that sends every file it opens: only Python is checked
    server.state.open(path, document.source, document.version)
    await publish(server, uri)


async def _recheck_all(server: TfguardServer) -> None:
    await server.on_checker(server.state.invalidate)  # a file they follow into may have changed
    if server.pull:
        if server.refresh:
            server.workspace_diagnostic_refresh(None)
        return
    for uri in list(server.workspace.text_documents):
        await publish(server, uri)


def _code_actions(server: TfguardServer, path: str, params: types.CodeActionParams) -> List[types.CodeAction]:
    state = server.state
    checked = state.fixes(path)
    if checked is None or checked.skipped:
        return []
    uri = params.text_document.uri
    target = actions.Target(uri, checked.version, server.versioned_edits)
    positions = Positions(checked.text, server.units())
    only = params.context.only
    found: List[types.CodeAction] = []
    if actions.wants(only, types.CodeActionKind.QuickFix):
        first, _ = positions.from_lsp(params.range.start)
        last, _ = positions.from_lsp(params.range.end)
        sent = {(d.code, d.range.start.line): d for d in params.context.diagnostics if d.source == "tfguard"}
        found.extend(actions.line_actions(target, checked.findings, checked.text, positions, first, last, sent))
    asked = only is not None and actions.wants(only, actions.FIX_ALL)
    if asked or only is None and server.resolve_edits and any(
            f.fix is not None and f.fix.applicability == "safe" for f in checked.findings):
        if not asked:  # the light bulb: the edit is worked out if the user picks it (codeAction/resolve)
            found.append(actions.unresolved_fix_all(uri, checked.version))
        else:
            fixed = state.fix_all(path)
            if fixed is not None:
                found.append(actions.fix_all_action(target, checked.text, fixed, positions))
    return found


def _resolve(server: TfguardServer, action: types.CodeAction) -> types.CodeAction:
    data = action.data if isinstance(action.data, dict) else {}
    path = file_path(str(data.get("uri", "")))
    checked = server.state.check(path) if path is not None else None
    if checked is None or checked.skipped or checked.version != data.get("version"):
        return action  # the buffer changed since: nothing to apply
    fixed = server.state.fix_all(path)
    if fixed is None:
        return action
    target = actions.Target(data["uri"], checked.version, server.versioned_edits)
    return actions.fix_all_action(target, checked.text, fixed, Positions(checked.text, server.units()))


def _hover(server: TfguardServer, path: str, position: types.Position) -> Optional[types.Hover]:
    state = server.state
    checked = state.check(path)
    if checked is None or checked.skipped:
        return None
    line, column = Positions(checked.text, server.units()).from_lsp(position)
    codes = hover.noqa_codes_at(checked.text, line, column)
    if not codes:
        codes = [f.code for f in state.findings_on_line(path, line)]
        codes += [f.code for f in state.runtime_findings(path) if f.line == line]
    docs_url = checked.settings.docs_url if checked.settings is not None else ""
    text = hover.describe_codes(codes, docs_url)
    if text is None:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))


def serve(version: str) -> int:
    """Serve LSP over stdin/stdout until the client says ``exit``; return the exit status (0 after
    ``shutdown``, else 1, as the protocol asks)."""
    logging.basicConfig(level=logging.WARNING, format="%(message)s")  # on stderr: stdout carries the protocol
    server = build_server(version)
    server.start_io(stdin=framing.FramedReader(sys.stdin.buffer))  # only well-formed frames reach pygls
    server.checks.shutdown(wait=False, cancel_futures=True)
    return 0 if server.shut_down else 1
