"""What no client can do to the server: the guards around pygls' message reading (issue 46).

pygls 2.1 reads ``Content-Length`` with no limit (``Content-Length: 99999999999`` ends the server with a
MemoryError), loses its place after a header it cannot read (the body of a message with a non-numeric length
swallows the next message's header), drops a message whose body is not JSON without the -32700 reply JSON-RPC
asks for, never answers a request whose params do not fit its type (the client waits forever), and tells the user
"Error in server: KeyError" for a ``didChange`` of a document never opened. The server reads its stdin through
:class:`FramedReader` (only well-formed frames reach pygls; a bad one becomes a :data:`BAD_FRAME` notification)
and structures messages through :func:`guard_messages`, which answers those cases as JSON-RPC says. These belong
upstream in pygls (io_.run_async and JsonRPCProtocol.structure_message); until then they live here.
"""

from __future__ import annotations

import json
import logging
from typing import Any, BinaryIO, Callable, Dict, Optional

logger = logging.getLogger("tfguard.server")

#: The largest message body read (an editor sends a whole file in didOpen; 64 MiB is far above any source file).
MAX_BODY = 64 * 1024 * 1024
#: The longest header line read at once (a longer one is no header: the reader looks for the next).
MAX_HEADER = 64 * 1024
#: The notification a bad frame becomes, for :func:`guard_messages` to answer with -32700 on the event loop.
BAD_FRAME = "$/tfguard/badFrame"
PARSE_ERROR, INVALID_PARAMS = -32700, -32602
_HEADER = b"content-length:"


class FramedReader:
    """A stdin for pygls that hands on only well-formed frames (``Content-Length: N`` and N bytes of body).

    A frame whose length is not a number, or over MAX_BODY, is replaced by a BAD_FRAME notification, and reading
    goes on at the next ``Content-Length`` header (its body, of unknown length, is skipped)."""

    def __init__(self, stream: BinaryIO, limit: int = MAX_BODY) -> None:
        self._stream = stream
        self._limit = limit
        self._buffer = b""
        self._lost = False  # after a bad frame: skip to the next Content-Length header

    def readline(self) -> bytes:
        """The next header line of the current frame (b"" at the end of input)."""
        if not self._buffer:
            self._buffer = self._frame()
        end = self._buffer.find(b"\n") + 1 or len(self._buffer)
        line, self._buffer = self._buffer[:end], self._buffer[end:]
        return line

    def read(self, size: int) -> bytes:
        """`size` bytes of the current frame's body."""
        data, self._buffer = self._buffer[:size], self._buffer[size:]
        return data

    def _frame(self) -> bytes:
        length: Optional[bytes] = None
        while True:
            line = self._stream.readline(MAX_HEADER)
            if not line:
                return b""
            if self._lost or length is None:
                at = line.lower().find(_HEADER)
                if self._lost and at < 0:
                    continue  # part of a body whose length was unreadable
                if at > 0:  # a body without a newline, then the next header
                    line = line[at:]
                self._lost = False
            if line.strip() == b"":
                if length is None:
                    continue  # a stray blank line between messages
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = value.strip()
        if not length.isdigit():
            self._lost = True
            return _bad_frame("Content-Length is not a number: %r" % length.decode("ascii", "replace")[:40])
        size = int(length)
        if size > self._limit:
            self._lost = True
            return _bad_frame("Content-Length %d is over the server's limit of %d bytes" % (size, self._limit))
        body = self._stream.read(size)
        if len(body) < size:
            return b""  # the input ended inside the body
        return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _bad_frame(message: str) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "method": BAD_FRAME, "params": {"message": message}}).encode("ascii")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class _Answered:
    """What a message already answered (or dropped) here becomes: pygls' handle_message ignores it."""

    jsonrpc = ""

    def __init__(self, why: str) -> None:
        self.why = why

    def __repr__(self) -> str:
        return "message handled by tfguard: %s" % self.why


def error_reply(msg_id: Any, code: int, message: str) -> Dict[str, Any]:
    """A JSON-RPC error response (``id`` null when the request's id could not be read)."""
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def guard_messages(server: Any, log: Callable[[str], None]) -> None:
    """Wrap `server.protocol`'s message structuring: a BAD_FRAME gets -32700 (id null); a request whose params do
    not fit its method's type gets -32602 with its id; a notification that does not fit, or a ``didChange`` of a
    document never opened, is dropped with a line in the client's log instead of "Error in server"."""
    protocol = server.protocol
    structure = protocol.structure_message

    def structure_message(data: Dict[str, Any]) -> Any:
        if "jsonrpc" not in data:
            return data  # a nested object, not a message
        method = data.get("method")
        if method == BAD_FRAME:
            message = str((data.get("params") or {}).get("message", "bad message frame"))
            protocol._send_data(error_reply(None, PARSE_ERROR, "Parse error: %s" % message))
            return _Answered(message)
        try:
            structured = structure(data)
        except Exception as exc:  # pygls' JsonRpcInvalidParams / JsonRpcInternalError
            why = "%s params do not fit: %s" % (method, type(exc).__name__)
            if "id" in data and method is not None:
                protocol._send_data(error_reply(data["id"], INVALID_PARAMS, "Invalid params: %s" % why))
            else:
                log(why)
            return _Answered(why)
        if method == "textDocument/didChange" and not _is_open(server, structured):
            why = "didChange for a document that was never opened (ignored): %s" % structured.params.text_document.uri
            log(why)
            return _Answered(why)
        return structured

    protocol.structure_message = structure_message


def _is_open(server: Any, message: Any) -> bool:
    from urllib.parse import unquote

    try:
        return unquote(message.params.text_document.uri) in server.workspace.text_documents
    except Exception:  # no workspace yet (before initialize): pygls decides
        return True


def answer_unparsable(server: Any, error: Exception) -> bool:
    """For pygls' error handler: a body that is not JSON gets the -32700 reply (id null); True when it did."""
    if isinstance(error, json.JSONDecodeError) or (isinstance(error, UnicodeDecodeError)):
        server.protocol._send_data(error_reply(None, PARSE_ERROR, "Parse error: the message is not JSON (%s)"
                                               % error))
        return True
    return False
