"""Start a 1 ps + 2 worker cluster on 127.0.0.1, each task in its own process under `tfguard run --json-dir`.

`cluster_launcher.py REPORTS_DIR WORK_DIR STEPS PAUSE`: TensorFlow is imported once, here, and each task's
process is forked from this one (so that a test pays for one TensorFlow import, not three). The ps is given its
task by TF1 flags (its report is named from the Server it creates), the workers by TF_CONFIG; worker 1 also saves
its GuardHook's report as WORK_DIR/hook/worker-1.json. When both
workers are done (or after 200 s) the ps is told to stop; a task still running then is killed. Exits 0 when
every task exited 0.
"""

import json
import os
import signal
import socket
import sys
import time

import tensorflow  # noqa: F401 - loaded before forking

from tfguard.cli.main import main

PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ps_training.py")
reports, work, steps, pause = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    for sock in sockets:
        sock.bind(("127.0.0.1", 0))
    ports = [sock.getsockname()[1] for sock in sockets]
    for sock in sockets:
        sock.close()
    return ports


def start(argv, tf_config=None):
    pid = os.fork()
    if pid == 0:  # the task's own process
        status = 1
        try:
            if tf_config is not None:
                os.environ["TF_CONFIG"] = json.dumps(tf_config)
            status = main(["run", "--json-dir", reports, PROGRAM] + argv)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)
    return pid


def exit_code(status):
    """os.waitstatus_to_exitcode, which Python 3.7 (the TF 1.15 leg) lacks."""
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)


def wait(pids, deadline):
    statuses = {}
    while len(statuses) < len(pids) and time.time() < deadline:
        for pid in pids:
            if pid not in statuses:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    statuses[pid] = exit_code(status)
        time.sleep(0.05)
    return statuses


ps_port, chief_port, worker_port = free_ports(3)
cluster = {"ps": ["127.0.0.1:%d" % ps_port], "worker": ["127.0.0.1:%d" % chief_port, "127.0.0.1:%d" % worker_port]}
stop_file, ready_file = os.path.join(work, "stop"), os.path.join(work, "chief-ready")
ps = start(["--ps_hosts", cluster["ps"][0], "--worker_hosts", ",".join(cluster["worker"]), "--job_name", "ps",
            "--task_index", "0", "--stop_file", stop_file])
os.makedirs(os.path.join(work, "hook"), exist_ok=True)
common = ["--steps", steps, "--checkpoint_dir", os.path.join(work, "checkpoints"), "--ready_file", ready_file]
workers = [start(common, {"cluster": cluster, "task": {"type": "worker", "index": 0}}),
           start(common + ["--pause", pause, "--hook_json", os.path.join(work, "hook", "worker-1.json")],
                 {"cluster": cluster, "task": {"type": "worker", "index": 1}})]
statuses = wait(workers, time.time() + 200)
open(stop_file, "w").close()
statuses.update(wait([ps], time.time() + 30))
for pid in [ps] + workers:
    if pid not in statuses:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        statuses[pid] = "killed"
print("statuses: ps %s, worker-0 %s, worker-1 %s" % tuple(statuses[pid] for pid in [ps] + workers))
sys.exit(0 if all(statuses[pid] == 0 for pid in [ps] + workers) else 1)
