"""Naming a task's report (TF_CONFIG, chief) and `tfguard report`'s cluster view on bad input; no TensorFlow."""

from __future__ import annotations

import json
import os
import socket

import pytest

from tfguard.runtime.run.cluster_task import task_from_tf_config
from tfguard.runtime.verdict import DOCUMENT_VERSION as REPORT_VERSION
from tfguard.views.task_files import task_file_name


def _tf_config(cluster, job, index):
    return {"TF_CONFIG": json.dumps({"cluster": cluster, "task": {"type": job, "index": index}})}


@pytest.mark.parametrize(("cluster", "job", "index", "chief"), [
    ({"ps": ["h:1"], "worker": ["h:2", "h:3"]}, "worker", 0, True),  # no chief job: worker 0 is the chief
    ({"ps": ["h:1"], "worker": ["h:2", "h:3"]}, "worker", 1, False),
    ({"chief": ["h:0"], "worker": ["h:2"]}, "worker", 0, False),  # a chief job: worker 0 is a plain worker
    ({"chief": ["h:0"], "worker": ["h:2"]}, "chief", 0, True),
    ({"master": ["h:0"], "ps": ["h:1"]}, "master", 0, True),
    ({"ps": ["h:1"], "worker": ["h:2"]}, "ps", 0, False),
])
def test_tf_config_names_the_task_and_the_chief(cluster, job, index, chief):
    task = task_from_tf_config(_tf_config(cluster, job, index))
    assert task == {"job": job, "index": index, "chief": chief, "cluster_jobs": sorted(cluster),
                    "source": "TF_CONFIG"}
    assert task_file_name(task, "host", 7) == "%s-%d.json" % (job, index)


@pytest.mark.parametrize("value", ["", "{", "[]", '{"cluster": {}}', '{"task": {"index": 1}}',
                                   '{"task": {"type": "worker", "index": -1}}'])
def test_tf_config_without_a_task_names_none(value):
    assert task_from_tf_config({"TF_CONFIG": value}) is None
    assert task_file_name(None, "build-host.local", 41) == "build-host.local-41.json"


def test_a_task_name_never_leaves_the_folder():
    task = {"job": "../evil/job", "index": 2}
    assert task_file_name(task, "h", 1) == "_evil_job-2.json"


def _write(path, document):
    path.write_text(json.dumps(document))
    return path


def test_cluster_view_of_tasks_without_sessions_judges_nothing(tmp_path, run):
    folder = tmp_path / "reports"
    folder.mkdir()
    for index in (0, 1):
        _write(folder / ("ps-%d.json" % index), {"version": REPORT_VERSION, "command": ["train.py"],
                                                "exit_status": 0, "session_count": 0, "sessions": [],
                                                "diagnostics": []})
    status, out, err = run("report", str(folder))
    assert (status, err) == (0, "")
    assert out.splitlines()[0] == "tfguard cluster report: 2 tasks (ps-0, ps-1)"
    assert "  straggler: not judged, fewer than two tasks with 10 or more steps" in out
    assert "  costly chief: not judged, no chief (no chief/master job, no worker-0)" in out


@pytest.mark.parametrize(("args", "message"), [
    (["{dir}/empty"], "no *.json reports in {dir}/empty"),
    (["{dir}/nothing-*.json"], "no reports match {dir}/nothing-*.json"),
    (["{dir}/ps-0.json", "{dir}/missing.json"], "report not found: {dir}/missing.json"),
    (["{dir}/ps-0.json", "{dir}/other.json"], "{dir}/other.json is not a tfguard runtime report (version 4)"),
    (["{dir}/ps-0.json", "{dir}/ps-0.json", "--plot", "{dir}/x.png"],
     "--plot draws one report or a comparison of separate runs, not a cluster's tasks"),
    (["{dir}", "--straggler-margin", "0.5"], "--straggler-margin needs a number above 1, got '0.5'"),
    (["{dir}", "--hook-margin", "lots"], "--hook-margin needs a number above 0 and at most 1, got 'lots'"),
])
def test_bad_cluster_input_is_one_line_and_status_2(tmp_path, run, args, message):
    (tmp_path / "empty").mkdir()
    _write(tmp_path / "ps-0.json", {"version": REPORT_VERSION, "command": ["ps.py"], "session_count": 0,
                                    "sessions": [], "diagnostics": []})
    _write(tmp_path / "other.json", {"version": 99})
    status, out, err = run("report", *[arg.format(dir=tmp_path) for arg in args])
    assert (status, out) == (2, "")
    assert err == "tfguard: error: %s\n" % message.format(dir=tmp_path)


def test_reports_saved_by_hand_are_named_by_their_file_and_the_slow_one_straggles(tmp_path, run):
    """`json.dump(guard.report.to_dict(), ...)` into worker-<index>.json, as README's GuardHook recipe does."""
    tf = pytest.importorskip("tensorflow")
    import time

    import tfguard

    v1 = tf.compat.v1
    for index, pause in ((0, 0.0), (1, 0.01), (2, 0.0)):
        graph = tf.Graph()
        with graph.as_default():
            x = v1.placeholder(tf.float32, [])
            y = x + 1.0
        with v1.Session(graph=graph) as sess, tfguard.watch(sess, warn=False) as guard:
            for step in range(12):
                sess.run(y, {x: float(step)})
                time.sleep(pause)
        _write(tmp_path / ("worker-%d.json" % index), guard.report.to_dict())
    status, out, err = run("report", "--wide", str(tmp_path))
    assert (status, err) == (0, "")
    table = out.split("\n\n")[1]
    rows = {line.split()[0]: line.split() for line in table.splitlines() if line.startswith("worker-")}
    assert [rows[name][1] for name in ("worker-0", "worker-1", "worker-2")] == ["chief", "worker", "worker"]
    assert [rows[name][2] for name in ("worker-0", "worker-1", "worker-2")] == ["12", "12", "12"]
    stragglers = [line for line in out.splitlines() if line.startswith("  straggler:")]
    assert len(stragglers) == 1 and stragglers[0].startswith("  straggler: worker-1 steps take ")
    assert "  costly chief: none" in out


def test_json_dir_names_a_process_outside_a_cluster_by_host_and_pid(tmp_path, run, monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    script = tmp_path / "hello.py"
    script.write_text("print('hello')\n")
    folder = tmp_path / "reports" / "new"  # created when missing
    status, out, err = run("run", "--json-dir", str(folder), str(script))
    assert (status, out) == (0, "hello\n")
    [written] = list(folder.iterdir())
    assert written.name == task_file_name(None, socket.gethostname(), os.getpid())
    assert json.loads(written.read_text())["task"] is None
    assert err.endswith("tfguard: wrote %s (no cluster task known: TF_CONFIG unset, no tf.distribute.Server "
                        "created)\n" % written)


def test_json_dir_takes_the_task_from_tf_config(tmp_path, run, monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"chief": ["h:1"], "worker": ["h:2"]},
                                                "task": {"type": "chief", "index": 0}}))
    script = tmp_path / "hello.py"
    script.write_text("print('hello')\n")
    status, _, err = run("run", "--quiet", "--json-dir", str(tmp_path / "reports"), str(script))
    assert (status, err) == (0, "")
    document = json.loads((tmp_path / "reports" / "chief-0.json").read_text())
    assert document["task"] == {"job": "chief", "index": 0, "chief": True, "cluster_jobs": ["chief", "worker"],
                                "source": "TF_CONFIG"}


def test_json_dir_that_is_a_file_is_a_usage_error(tmp_path, run):
    script = tmp_path / "hello.py"
    script.write_text("print('hello')\n")
    status, out, err = run("run", "--json-dir", str(script), str(script))
    assert (status, out, err) == (2, "", "tfguard: error: --json-dir %s is a file, not a folder\n" % script)
