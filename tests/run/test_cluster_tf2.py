"""`tfguard report DIR` on a TF2 run's workers (MultiWorkerMirroredStrategy): their steps side by side, the
straggler named by its own time per step (the others wait for it in their all-reduce), the costly chief by its
checkpoints and summaries; synthetic documents, no TensorFlow."""

from __future__ import annotations

import json

from tfguard.runtime.verdict import DOCUMENT_VERSION, RunVerdict
from tfguard.views.cluster import ClusterView, Task
from tfguard.views.worker_steps import WorkerSteps

STEP = 0.01


def _document(index, own=0.001, steps=40, python=0.0, next_batches=None, writes=()):
    """A worker's run document: `steps` compiled steps of STEP seconds each, `own` of them outside the step."""
    wall = steps * STEP
    return {"version": DOCUMENT_VERSION, "command": ["train.py"], "exit_status": 0, "session_count": 0,
            "sessions": [], "diagnostics": [],
            "task": {"job": "worker", "index": index, "chief": index == 0, "cluster_jobs": ["worker"],
                     "source": "TF_CONFIG"},
            "steps": {"mode": "compiled", "steps": steps, "compiled_steps": steps, "eager_steps": 0,
                      "wall_seconds": wall, "step_seconds": wall - own * steps, "step_functions": [],
                      "eager_site": None, "next_batches": steps if next_batches is None else next_batches,
                      "next_seconds": 0.0,
                      "maps": [{"path": "train.py", "line": 9, "parallel": None, "python_calls": steps,
                                "python_seconds": python * steps}],
                      "writes": [dict(w, path="train.py", line=20, through="") for w in writes],
                      "intervals": [STEP] * (steps - 1)}}


def _view(documents, **margins):
    tasks = [Task("worker-%d.json" % i, RunVerdict.from_document(json.loads(json.dumps(d))))
             for i, d in enumerate(documents)]
    return ClusterView(tasks, **margins)


def _flags(view):
    return [line for line in view.render().splitlines() if line.startswith("  straggler:")]


def test_the_worker_the_others_wait_for_is_the_straggler():
    view = _view([_document(0, own=0.002), _document(1, own=0.006)])
    [flag] = _flags(view)
    assert flag.startswith("  straggler: worker-1 spends 6.00 ms per step on its own (outside its step: its loop, "
                           "taking the next batch), the other workers 2.00 ms: they wait for it at every step's "
                           "all-reduce, inside their step")


def test_a_keras_fit_worker_is_timed_by_its_input_pipeline_inside_the_step():
    """`fit` takes its batches inside the step: the pipeline's Python time is the worker's own."""
    view = _view([_document(0, own=0.0005, next_batches=1, python=0.0001),
                  _document(1, own=0.0005, next_batches=1, python=0.004)])
    [flag] = _flags(view)
    assert flag.startswith("  straggler: worker-1 spends 4.50 ms per step on its own (outside its step, and "
                           "4.00 ms per step in its input pipeline's Python functions inside it)")


def test_workers_alike_have_no_straggler():
    # x2 the other's own time but 1 ms of a 10 ms step: under the 25% that the others would wait for
    assert _flags(_view([_document(0, own=0.001), _document(1, own=0.002)])) == ["  straggler: none"]
    assert _flags(_view([_document(0, own=0.001, steps=9), _document(1, own=0.009, steps=9)])) == [
        "  straggler: not judged, fewer than two workers with 10 or more compiled steps"]


def test_the_table_shows_each_worker_and_the_costly_chief():
    saves = [{"kind": "save", "count": 40, "seconds": 0.1}, {"kind": "summary", "count": 80, "seconds": 0.02}]
    text = _view([_document(0, writes=saves), _document(1)]).render(width=0)
    rows = {line.split()[0]: line.split() for line in text.splitlines() if line.startswith("worker-")}
    assert rows["worker-0"][:7] == ["worker-0", "chief", "40", "10.0", "ms", "10.0", "ms"]
    assert "100 ms (40)" in " ".join(rows["worker-0"]) and "20.0 ms (80)" in " ".join(rows["worker-0"])
    assert rows["worker-1"][-1] == "-"
    assert "  costly chief: worker-0's checkpoints and summaries took 30% of its steps' wall time (40 checkpoints " \
           "100 ms, 80 summaries 20.0 ms)" in text


def test_a_worker_without_steps_is_shown_and_not_judged():
    idle = _document(1)
    del idle["steps"]
    view = _view([_document(0), idle])
    row = next(line for line in view.render().splitlines() if "no TF2 step" in line or line.startswith("diag"))
    assert "no TF2 step" in row
    assert _flags(view) == ["  straggler: not judged, fewer than two workers with 10 or more compiled steps"]


def test_eager_steps_have_no_own_time():
    steps = dict(_document(0)["steps"], mode="eager", compiled_steps=0, eager_steps=40)
    worker = WorkerSteps(steps)
    assert worker.own_time is None and worker.step_time("median") == STEP
