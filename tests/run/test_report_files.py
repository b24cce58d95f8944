"""`--json` round-trips through `tfguard report`, `--plot` PNGs, TensorBoard scalars (the demo: test_demo_run.py)."""

from __future__ import annotations

import json

import pytest

from tests.once import once
from tests.run.conftest import busiest, tfguard
from tfguard.runtime.output.session_report import SessionReport

pytestmark = pytest.mark.usefixtures("tensorflow_installed")
PNG_HEADER = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def saved_run(tmp_path_factory):
    """A growing run saved with --json and --tensorboard: (json path, logdir); run once this session, whichever
    xdist worker asks first (a module fixture alone would run it on each worker that gets one of these tests)."""
    from tests.run.conftest import TRAIN_SCRIPT

    def run(folder):
        script = folder / "train.py"
        script.write_text(TRAIN_SCRIPT, encoding="utf-8")
        done = tfguard("run", "--quiet", "--json", folder / "run.json", "--tensorboard", folder / "tb", script,
                       "30", "grow")
        assert done.returncode == 0, done.stderr

    folder, _ = once(tmp_path_factory, "test_report_files.py saved_run", run)
    return folder / "run.json", folder / "tb"


@pytest.mark.slow
def test_json_round_trips_through_report(saved_run):
    out, _ = saved_run
    document = busiest(json.loads(out.read_text(encoding="utf-8")))
    assert document["command"][-2:] == ["30", "grow"] and document["exit_status"] == 0
    assert document["runs"] == 31 and document["nodes_added"] >= 30
    done = tfguard("report", out)
    assert done.returncode == 0, done.stderr
    table = SessionReport.from_dict(json.loads(out.read_text(encoding="utf-8"))).table()
    assert table.split("\n", 1)[1] in done.stdout  # the same table, below its session title
    assert "tfguard run " in done.stdout and "TFG901" in done.stdout


@pytest.mark.slow
def test_plot_writes_a_png(saved_run, tmp_path):
    pytest.importorskip("matplotlib")
    out, _ = saved_run
    picture = tmp_path / "steps.png"
    done = tfguard("report", out, "--plot", picture)
    assert done.returncode == 0, done.stderr
    data = picture.read_bytes()
    assert data[:8] == PNG_HEADER and len(data) > 10_000


def test_tensorboard_event_files_hold_the_series(saved_run, tf_v1):
    out, logdir = saved_run
    document = busiest(json.loads(out.read_text(encoding="utf-8")))
    values = {}
    for event_file in logdir.glob("events.out.tfevents.*"):
        for event in tf_v1.train.summary_iterator(str(event_file)):
            for value in event.summary.value:
                values.setdefault(value.tag, []).append((event.step, value.simple_value))
    assert set(values) == {"tfguard/step_interval", "tfguard/graph_ops", "tfguard/host_fraction"}
    points = document["signatures"][0]["series"]["points"]
    assert [s for s, _ in values["tfguard/graph_ops"]] == [p[0] for p in points]
    assert [v for _, v in values["tfguard/graph_ops"]] == [float(p[2]) for p in points]
    assert values["tfguard/graph_ops"][-1][1] > values["tfguard/graph_ops"][0][1]  # it grew
    assert all(0.0 <= v <= 1.0 for _, v in values["tfguard/host_fraction"])
