"""Which task of a TF1 cluster this process is: from TF_CONFIG, or from the ``tf.distribute.Server`` it creates.

``tfguard run --json-dir DIR`` names each process's report ``<job>-<index>.json`` from this, so that one command
per task and one ``tfguard report DIR`` give the cluster's picture. TF_CONFIG wins (it is what the launcher set);
otherwise the first Server the program creates says its job and task index (its ``server_def``). The Server
class is patched only in this process, once the program imports TensorFlow, and put back when the run ends.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Dict, List, Mapping, Optional

from tfguard.runtime.capture.import_hook import OnTensorFlowImport

#: Jobs that make a task the chief; without one in the cluster, worker 0 is (MonitoredTrainingSession's
#: usual `is_chief=(task_index == 0)`).
CHIEF_JOBS = ("chief", "master")


def task_record(job: str, index: int, cluster_jobs: List[str], source: str) -> Dict[str, Any]:
    """The JSON-ready task of a report: job, index, whether it is the chief, where that came from."""
    chief = job in CHIEF_JOBS or (job == "worker" and index == 0 and not set(CHIEF_JOBS) & set(cluster_jobs))
    return {"job": job, "index": index, "chief": chief, "cluster_jobs": sorted(cluster_jobs), "source": source}


def task_from_tf_config(environ: Mapping[str, str]) -> Optional[Dict[str, Any]]:
    """The task TF_CONFIG names (``{"cluster": {...}, "task": {"type": "worker", "index": 1}}``), or None when
    TF_CONFIG is unset or names no task."""
    text = environ.get("TF_CONFIG")
    if not text:
        return None
    try:
        config = json.loads(text)
        task = config["task"]
        job, index = str(task["type"]), int(task.get("index", 0))
        cluster = config.get("cluster") or {}
        jobs = list(cluster) if isinstance(cluster, dict) else []
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    if not job or index < 0:
        return None
    return task_record(job, index, jobs, "TF_CONFIG")


class ServerWatch:
    """Notes the job and task index of the first ``tf.distribute.Server`` created while installed."""

    def __init__(self) -> None:
        self.task: Optional[Dict[str, Any]] = None
        self._on_import = OnTensorFlowImport(self._patch)
        self._patched: Optional[tuple] = None

    def install(self) -> None:
        """Patch now if TensorFlow is already loaded, else when the program imports it."""
        self._on_import.install()

    def uninstall(self) -> None:
        """Remove the import hook and put the Server class back."""
        self._on_import.remove()
        if self._patched is not None:
            cls, original = self._patched
            cls.__init__ = original
            self._patched = None

    def _patch(self, tensorflow: Any) -> None:
        try:  # tf.distribute.Server; TF 1.x before 1.14 has it as tf.train.Server only (the same class)
            distribute = getattr(tensorflow, "distribute", None)
            cls = getattr(distribute, "Server", None) or tensorflow.train.Server
            original = cls.__dict__["__init__"]
        except Exception:  # another TensorFlow layout: the task then comes from TF_CONFIG only
            return
        watch = self

        @functools.wraps(original)
        def __init__(server: Any, *args: Any, **kwargs: Any) -> None:
            original(server, *args, **kwargs)
            try:
                if watch.task is None:
                    watch.task = _task_of_server(server)
            except Exception as exc:  # the report is then named after the host
                from tfguard.runtime.safety import internal_error

                internal_error("tf.distribute.Server()", exc, "naming the cluster task")

        cls.__init__ = __init__
        self._patched = (cls, original)


def _task_of_server(server: Any) -> Optional[Dict[str, Any]]:
    try:
        server_def = server.server_def
        jobs = [job.name for job in server_def.cluster.job]
        if not server_def.job_name:
            return None
        return task_record(str(server_def.job_name), int(server_def.task_index), jobs, "tf.distribute.Server")
    except Exception:  # never break the program over naming its report
        return None
