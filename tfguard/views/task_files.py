"""``tfguard run --json-dir DIR``: one report file per cluster task, ``DIR/<job>-<index>.json``.

The task comes from TF_CONFIG, else from the first ``tf.distribute.Server`` the program creates (see
tfguard.runtime.run.cluster_task); a process that is no known task writes ``<host>-<pid>.json``. The document
gets a ``task`` entry (job, index, chief, source) that ``tfguard report DIR`` reads.
"""

from __future__ import annotations

import json
import os
import re
import socket
import sys
from typing import Any, Dict, Optional

from tfguard.runtime.run.cluster_task import ServerWatch, task_from_tf_config
from tfguard.runtime.verdict import RunVerdict

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def task_file_name(task: Optional[Dict[str, Any]], host: str, pid: int) -> str:
    """``worker-1.json`` for a known task, ``<host>-<pid>.json`` otherwise (no path separators either way)."""
    if task is not None:
        stem = "%s-%d" % (task["job"], task["index"])
    else:
        stem = "%s-%d" % (host or "process", pid)
    return _UNSAFE.sub("_", stem).lstrip(".") + ".json"


class TaskNaming:
    """Learns the process's task while the program runs and writes its report into the folder."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self._servers = ServerWatch()

    def install(self) -> None:
        """Start watching for the Server the program creates."""
        self._servers.install()

    def uninstall(self) -> None:
        """Stop watching (the task seen so far is kept)."""
        self._servers.uninstall()

    @property
    def task(self) -> Optional[Dict[str, Any]]:
        """The task of this process: TF_CONFIG's, else the Server's, else None."""
        return task_from_tf_config(os.environ) or self._servers.task

    def write(self, verdict: RunVerdict, quiet: bool = False) -> bool:
        """Write the run's document (with its task) into the folder; False after printing a one-line error."""
        task = self.task
        document = dict(verdict.to_document(), task=task)
        path = os.path.join(self.folder, task_file_name(task, socket.gethostname(), os.getpid()))
        try:
            os.makedirs(self.folder, exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(document, handle, indent=1)
                handle.write("\n")
        except OSError as exc:
            print("tfguard: error: cannot write %s: %s" % (path, exc.strerror or exc), file=sys.stderr)
            return False
        if not quiet:
            print("tfguard: wrote %s%s" % (path, "" if task else " (no cluster task known: TF_CONFIG unset, "
                                                                  "no tf.distribute.Server created)"),
                  file=sys.stderr)
        return True
