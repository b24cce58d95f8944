"""How fast are ``tfguard server``'s diagnostics as you type, against a ``tfguard check`` process?

Usage::

    python bench/server_latency.py                  # a generated 2,000-line training script, 5 rounds
    python bench/server_latency.py --lines 300 --rounds 2   # a smoke run

Measured in one run, on one generated file (seed-like: layer-building functions, then a session loop that
builds an op on every step, TFG102):

* ``tfguard check --no-cache FILE``: the wall time of the whole process (start, imports, parse, analysis,
  fixes planned), median of ``--rounds`` runs;
* the server (one process, started and initialised once, the file opened once): the wall time from sending
  ``textDocument/didChange`` (one line edited) to receiving the ``publishDiagnostics`` of that version,
  median of ``--rounds`` edits.

Prints both medians and their ratio (server edit / check process). The client here is a plain JSON-RPC
client over the server's stdin/stdout, as an editor is.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

#: Seconds to wait for one server answer at most.
TIMEOUT_S = 300.0


def generate(lines: int) -> str:
    """Return a training script of about ``lines`` lines: layer functions, then a loop with a TFG102."""
    parts = ['"""A long training script."""', "import numpy as np", "import tensorflow as tf", ""]
    index = 0
    while len(parts) < lines - 12:
        parts += [f"def layer_{index}(x, units={index % 7 + 8}):",
                  f'    """Layer {index}."""',
                  f"    with tf.variable_scope('layer_{index}'):",
                  "        w = tf.get_variable('w', [int(x.shape[-1]), units])",
                  "        b = tf.get_variable('b', [units], initializer=tf.zeros_initializer())",
                  "        y = tf.nn.relu(tf.matmul(x, w) + b)",
                  "        if units > 10:",
                  "            y = tf.nn.dropout(y, rate=0.1)",
                  "        return y", "", ""]
        index += 1
    parts += ["x_in = tf.placeholder(tf.float32, [None, 4])",
              "h = layer_0(x_in)",
              "loss = tf.reduce_mean(h)",
              "train_op = tf.train.AdamOptimizer(0.01).minimize(loss)",
              "with tf.Session() as sess:",
              "    sess.run(tf.global_variables_initializer())",
              "    for step in range(1000):",
              "        batch = np.random.rand(32, 4)",
              "        scaled = tf.multiply(x_in, 2.0)",
              "        sess.run([train_op, scaled], feed_dict={x_in: batch})", ""]
    return "\n".join(parts)


class StdioClient:
    """A minimal LSP client: JSON-RPC messages framed with Content-Length over a subprocess's pipes."""

    def __init__(self, command: List[str], cwd: str) -> None:
        self.process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.messages: "queue.Queue[Dict[str, Any]]" = queue.Queue()
        self._next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                header = stream.readline()
                if not header:
                    return
                if header in (b"\r\n", b"\n"):
                    break
                name, _, value = header.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            if length is None:
                return
            self.messages.put(json.loads(stream.read(length)))

    def send(self, message: Dict[str, Any]) -> None:
        """Send one message."""
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def request(self, method: str, params: Any) -> Any:
        """Send a request and return its result (notifications met meanwhile are dropped)."""
        self._next_id += 1
        self.send({"id": self._next_id, "method": method, "params": params})
        while True:
            message = self.next_message()
            if message.get("id") == self._next_id and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result")
            if "method" in message and "id" in message:  # a request from the server: answer it
                self.send({"id": message["id"], "result": None})

    def notify(self, method: str, params: Any) -> None:
        """Send a notification."""
        self.send({"method": method, "params": params})

    def next_message(self) -> Dict[str, Any]:
        """Return the next message from the server (raises when none comes in time)."""
        try:
            return self.messages.get(timeout=TIMEOUT_S)
        except queue.Empty:
            raise RuntimeError(f"the server said nothing for {TIMEOUT_S:.0f} s") from None

    def diagnostics(self, uri: str, version: int) -> List[Dict[str, Any]]:
        """Wait for the diagnostics the server publishes for ``uri`` at ``version``."""
        while True:
            message = self.next_message()
            if message.get("method") == "textDocument/publishDiagnostics":
                params = message["params"]
                if params["uri"] == uri and params.get("version") == version:
                    return params["diagnostics"]
            elif "method" in message and "id" in message:
                self.send({"id": message["id"], "result": None})

    def close(self) -> Optional[int]:
        """Shut the server down (shutdown, exit) and return its exit status."""
        self.request("shutdown", None)
        self.notify("exit", None)
        return self.process.wait(timeout=TIMEOUT_S)


def check_process_s(path: Path, rounds: int) -> List[float]:
    """Return the wall time of each ``tfguard check --no-cache`` process on ``path``."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "tfguard", "check", "--no-cache", "-q", str(path)],
                              cwd=path.parent, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if done.returncode != 1 or "TFG102" not in done.stdout:
            raise RuntimeError(f"tfguard check did not report the TFG102: {done.stdout}{done.stderr}")
    return times


def server_edit_s(path: Path, text: str, rounds: int) -> List[float]:
    """Return, for each edit of one line, the time until the server published the new diagnostics."""
    client = StdioClient([sys.executable, "-m", "tfguard", "server"], cwd=str(path.parent))
    uri = path.as_uri()
    client.request("initialize", {"processId": os.getpid(), "rootUri": path.parent.as_uri(), "capabilities": {}})
    client.notify("initialized", {})
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                            "text": text}})
    first = client.diagnostics(uri, 1)
    if [d["code"] for d in first] != ["TFG102"]:
        raise RuntimeError(f"the server did not report the TFG102: {first}")
    line = text.splitlines().index("        return y")  # the first layer's last line (0-based)
    times = []
    for version in range(2, rounds + 2):
        new = f"        return y  # edit {version}"
        start = time.perf_counter()
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": {"line": line, "character": 0},
                                          "end": {"line": line, "character": len(text.splitlines()[line])}},
                                "text": new}]})
        found = client.diagnostics(uri, version)
        times.append(time.perf_counter() - start)
        text = "\n".join(new if i == line else old for i, old in enumerate(text.splitlines())) + "\n"
        if [d["code"] for d in found] != ["TFG102"]:
            raise RuntimeError(f"after the edit, the server reported {found}")
    status = client.close()
    if status != 0:
        raise RuntimeError(f"the server exited with status {status}")
    return times


def main(argv: Optional[List[str]] = None) -> int:
    """Run the benchmark; print both medians and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=2000, help="length of the generated file (default 2000)")
    parser.add_argument("--rounds", type=int, default=5, help="check processes and edits to time (default 5)")
    args = parser.parse_args(argv)
    if args.lines < 50 or args.rounds < 1:
        print("error: --lines must be at least 50 and --rounds positive", file=sys.stderr)
        return 2
    text = generate(args.lines)
    with tempfile.TemporaryDirectory(prefix="tfguard-server-bench-") as folder:
        path = Path(folder) / "train_long.py"
        path.write_text(text)
        check = check_process_s(path, args.rounds)
        edit = server_edit_s(path, text, args.rounds)
    lines = len(text.splitlines())
    check_median, edit_median = statistics.median(check), statistics.median(edit)
    print(f"file: {lines} lines, {args.rounds} rounds")
    print(f"tfguard check process: median {check_median:.3f} s")
    print(f"server, diagnostics after an edit: median {edit_median:.3f} s")
    print(f"ratio (server edit / check process): {edit_median / check_median:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
