"""`tfguard server` over stdio against malformed input (issue 46): a huge or non-numeric Content-Length, a body that
is not JSON, a request whose params do not fit its method, a didChange of a document never opened. Each is answered
as JSON-RPC says (or dropped with a log line), and the next request is still answered."""

from __future__ import annotations

import importlib.util
import io
import json
import os
from pathlib import Path

import pytest

from tests.server.conftest import HAVE_PYGLS, SERVER_COMMAND

pytestmark = pytest.mark.skipif(not HAVE_PYGLS, reason="pygls is not installed (pip install '.[server]')")
BENCH = Path(__file__).resolve().parents[2] / "bench" / "server_latency.py"


def _client_class():
    spec = importlib.util.spec_from_file_location("server_latency", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.StdioClient


@pytest.fixture
def client(tmp_path: Path):
    client = _client_class()(SERVER_COMMAND, cwd=str(tmp_path))
    client.request("initialize", {"processId": os.getpid(), "rootUri": tmp_path.as_uri(), "capabilities": {}})
    client.notify("initialized", {})
    yield client
    if client.process.poll() is None:
        assert client.close() == 0  # still alive: shutdown and exit as usual


def _raw(client, data: bytes) -> None:
    client.process.stdin.write(data)
    client.process.stdin.flush()


def _frame(message) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _reply(client, msg_id):
    """The server's response to `msg_id` (None: a response with id null), skipping notifications."""
    while True:
        message = client.next_message()
        if "method" not in message and message.get("id") == msg_id:
            return message
        assert not (message.get("method") == "window/showMessage"), message  # no "Error in server" pop-up


def _still_answers(client) -> None:
    assert client.request("shutdown", None) is None
    client.notify("exit", None)
    assert client.process.wait(timeout=60) == 0


def test_a_huge_content_length_is_refused_and_the_server_lives(client):
    _raw(client, b"Content-Length: 99999999999\r\n\r\n{}")
    error = _reply(client, None)["error"]
    assert error["code"] == -32700 and "over the server's limit" in error["message"]
    _still_answers(client)


def test_a_non_numeric_content_length_does_not_swallow_the_next_request(client):
    hover = {"jsonrpc": "2.0", "id": 7, "method": "shutdown"}
    _raw(client, b"Content-Length: abc\r\n\r\n" + json.dumps({"jsonrpc": "2.0", "method": "x"}).encode()
         + _frame(hover))
    error = _reply(client, None)["error"]
    assert error["code"] == -32700 and "not a number" in error["message"]
    assert _reply(client, 7) == {"jsonrpc": "2.0", "id": 7, "result": None}
    client.notify("exit", None)
    assert client.process.wait(timeout=60) == 0


def test_a_body_that_is_not_json_gets_a_parse_error(client):
    _raw(client, b"Content-Length: 9\r\n\r\n{not json")
    error = _reply(client, None)["error"]
    assert error["code"] == -32700 and "not JSON" in error["message"]
    _still_answers(client)


def test_a_request_whose_params_do_not_fit_is_answered_with_its_id(client):
    _raw(client, _frame({"jsonrpc": "2.0", "id": 41, "method": "textDocument/hover", "params": {}}))
    error = _reply(client, 41)["error"]
    assert error["code"] == -32602 and "textDocument/hover" in error["message"]
    _still_answers(client)


def test_did_change_of_a_document_never_opened_is_logged_not_shown(client, tmp_path: Path):
    uri = (tmp_path / "never.py").as_uri()
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                             "contentChanges": [{"text": "x = 1\n"}]})
    client.send({"id": 99, "method": "shutdown"})
    seen = []
    while True:
        message = client.next_message()
        if message.get("id") == 99:
            break
        seen.append(message)
    assert not [m for m in seen if m.get("method") == "window/showMessage"], seen
    logged = [m["params"]["message"] for m in seen if m.get("method") == "window/logMessage"]
    assert any("never opened" in line and "never.py" in line for line in logged), logged
    client.notify("exit", None)
    assert client.process.wait(timeout=60) == 0


def test_the_reader_hands_on_only_well_formed_frames():
    from tfguard.server.framing import BAD_FRAME, FramedReader

    good = _frame({"jsonrpc": "2.0", "id": 1, "method": "m"})
    stream = io.BytesIO(b"\r\nContent-Length: 12x\r\nContent-Type: a\r\n\r\n{\"a\": 1}" + good
                        + b"content-length: 2\r\n\r\n{}" + b"Content-Length: 5\r\n\r\n{}")
    reader = FramedReader(stream, limit=100)
    frames = []
    while True:
        header = reader.readline()
        if not header:
            break
        assert header.startswith(b"Content-Length: ") and reader.readline() == b"\r\n"
        frames.append(reader.read(int(header.split(b":")[1])))
    assert json.loads(frames[0])["method"] == BAD_FRAME
    assert frames[1:] == [good.split(b"\r\n\r\n", 1)[1], b"{}"]  # the cut-off last body is not handed on
