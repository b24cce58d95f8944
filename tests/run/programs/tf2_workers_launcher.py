"""Start a two-worker `MultiWorkerMirroredStrategy` run on 127.0.0.1, each worker under `tfguard run --json-dir`.

`tf2_workers_launcher.py REPORTS_DIR OUT_DIR MODE STEPS SLOW_WORKER`: runs tf2_distribute.py OUT_DIR MODE STEPS
--slow-worker SLOW_WORKER in two processes (REPORTS_DIR `-`: plainly, without tfguard), with TF_CONFIG naming
worker 0 and worker 1 on two free ports. TensorFlow is imported once, here, and each worker's process is forked
from this one (a test pays for one TensorFlow import, not two). Each worker's output goes to
OUT_DIR/worker-<index>.out and .err. A worker still running after 150 s is killed. Exits 0 when both workers
exited 0, else prints their statuses and exits 1.
"""

import json
import os
import signal
import socket
import sys
import time

import tensorflow  # noqa: F401 - loaded before forking

from tfguard.cli.main import main

PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf2_distribute.py")
reports, out, mode, steps, slow = sys.argv[1:6]


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    for sock in sockets:
        sock.bind(("127.0.0.1", 0))
    ports = [sock.getsockname()[1] for sock in sockets]
    for sock in sockets:
        sock.close()
    return ports


def start(index, cluster):
    pid = os.fork()
    if pid == 0:  # the worker's own process: its output to files, its task from TF_CONFIG
        status = 1
        try:
            for stream, suffix in ((1, "out"), (2, "err")):
                handle = os.open(os.path.join(out, "worker-%d.%s" % (index, suffix)),
                                 os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
                os.dup2(handle, stream)
            os.environ["TF_CONFIG"] = json.dumps({"cluster": cluster, "task": {"type": "worker", "index": index}})
            argv = [PROGRAM, out, mode, steps, "--slow-worker", slow]
            status = main(["run", "--json-dir", reports] + argv) if reports != "-" else plain(argv)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)
    return pid


def plain(argv):
    """The program as `python tf2_distribute.py ...` runs it (no guard): its exit status."""
    import runpy

    sys.argv = argv
    try:
        runpy.run_path(PROGRAM, run_name="__main__")
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # as Python would: the traceback on stderr, status 1
        import traceback

        traceback.print_exc()
        return 1
    return 0


def exit_code(status):
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)


os.makedirs(out, exist_ok=True)
cluster = {"worker": ["127.0.0.1:%d" % port for port in free_ports(2)]}
pids = [start(index, cluster) for index in (0, 1)]
statuses = {}
deadline = time.time() + 150
while len(statuses) < len(pids) and time.time() < deadline:
    for pid in pids:
        if pid not in statuses:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                statuses[pid] = exit_code(status)
    time.sleep(0.05)
for pid in pids:
    if pid not in statuses:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        statuses[pid] = "killed after 150 s"
codes = [statuses[pid] for pid in pids]
if codes != [0, 0]:
    print("worker statuses: %s" % codes)
sys.exit(0 if codes == [0, 0] else 1)
