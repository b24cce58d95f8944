"""`tfguard run --html` on a real TF2 custom loop (a `tf.function` step fed by a serial `numpy_function` map, a summary
every step, a checkpoint every 10 steps, a helper function retraced on a Python int) in headless Chromium: its
verdicts, the time per step, where the steps' time went and the retraced function's traces over its calls. One
TensorFlow child process for the module (tests/run/browser.py refuses the network; skips without Chromium)."""

from __future__ import annotations

import json
import re

import pytest

from tests.run.browser import chromium, dump_dom, root_attribute, with_measure
from tests.run.conftest import tfguard, valid_document
from tfguard.runtime.judge.judgement import completed
from tfguard.runtime.output.html.page import render_report
from tfguard.runtime.verdict import RunVerdict

pytestmark = pytest.mark.slow
PHONE = 390

LOOP = """
import time

import numpy as np
import tensorflow as tf


def load(x):
    time.sleep(0.001)
    return x


data = tf.data.Dataset.from_tensor_slices(np.ones((240, 4), np.float32))
data = data.map(lambda x: tf.numpy_function(load, [x], tf.float32)).batch(2)
model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.SGD(0.01)
writer = tf.summary.create_file_writer("logs")
checkpoint = tf.train.Checkpoint(model=model)


@tf.function
def train_step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(model(x) ** 2)
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return loss


@tf.function
def scaled(loss, factor):
    return loss * factor


with writer.as_default():
    for step, x in enumerate(data):
        loss = train_step(x)
        tf.summary.write("loss", scaled(loss, step // 30), step=step)
        if step % 10 == 0:
            checkpoint.write("ckpt/model")
print("done")
"""


@pytest.fixture(scope="module")
def loop_run(tmp_path_factory):
    """(folder, document, page's HTML) of `tfguard run --html --json` on LOOP."""
    pytest.importorskip("tensorflow")
    out = tmp_path_factory.mktemp("tf2loop")
    (out / "loop.py").write_text(LOOP, encoding="utf-8")
    done = tfguard("run", "--html", "page.html", "--json", "doc.json", "loop.py", cwd=out)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == "done\n"  # the program's own output, unchanged
    document = valid_document(json.loads((out / "doc.json").read_text(encoding="utf-8")))
    return out, document, (out / "page.html").read_text(encoding="utf-8")


def _section(html: str, name: str) -> str:
    start = html.index('id="%s"' % name)
    return html[start:html.index("</section>", start)]


def _shares(section: str) -> dict:
    return dict(re.findall(r'data-label="part">([^<]+)</td><td data-label="time">[^<]*</td>'
                           r'<td data-label="share of the steps&#x27; time">([^<]+)</td>', section))


def test_the_page_is_the_documents_and_shows_every_diagnostic_of_the_loop(loop_run, monkeypatch):
    out, document, html = loop_run
    monkeypatch.chdir(out)  # paths are shown relative to the folder the program ran in
    assert render_report(completed(RunVerdict.from_document(document))) == html
    codes = {d["code"] for d in document["diagnostics"]}
    assert "TFG904" in codes  # a summary every step: judged (warning or info) whatever the machine's speed
    verdicts = html[html.index('class="verdicts"'):html.index('id="diagnostics"')]
    assert set(re.findall(r">(TFG9\d\d)</a>", verdicts)) == codes
    assert "nothing to report" not in html and "120 training steps watched" in html


def test_the_steps_chart_and_the_breakdown_hold_the_documents_figures(loop_run):
    _, document, html = loop_run
    steps = document["steps"]
    assert (steps["mode"], steps["steps"], [f["function"] for f in steps["step_functions"]]) == (
        "compiled", 120, ["train_step"])
    section = _section(html, "tf2-steps")
    assert section.count('<svg class="chart"') == 1 and "Time per step (120 steps: calls of `train_step`)" in section
    points = re.search(r'<polyline class="series time" data-label="step time" points="([^"]+)"', section).group(1)
    assert len(points.split()) == len(steps["intervals"]) == 119
    parts, shares = steps["time_parts"], _shares(section)
    for name, key in (("waiting for input", "input"), ("checkpoints", "saves"), ("summaries", "summaries")):
        assert parts[key] > 0 and shares[name] == "%.3g%%" % (100 * parts[key] / parts["wall"]), name
    assert 'class="part save"' in section and 'class="part input"' in section


def test_the_retraced_function_is_drawn_over_its_calls(loop_run):
    _, document, html = loop_run
    (scaled,) = [f for f in document["functions"]["functions"] if f["function"] == "scaled"]
    assert scaled["traced_call_numbers"] == [1, 31, 61, 91] and scaled["calls"] == 120
    traces = _section(html, "traces")
    assert "Traces over the calls of scaled" in traces and "scaled 4" in traces
    assert re.findall(r'<polyline class="series run-a" data-label="(\w+)"', traces) == ["scaled"]


def test_the_page_renders_offline_at_desk_and_phone_width(loop_run, tmp_path):
    chromium()
    out, _, html = loop_run
    page = with_measure(out / "page.html", tmp_path / "page.html")
    dom = dump_dom(page, tmp_path)
    assert root_attribute(dom, "data-ready") == "1" and root_attribute(dom, "data-refused") is None
    assert root_attribute(dom, "data-charts") == str(html.count('<svg class="chart"')) == "2"
    assert root_attribute(dom, "data-overflow") == "0"
    assert "point at the chart to read its values" in _section(dom, "tf2-steps")
    assert root_attribute(dump_dom(page, tmp_path, width=PHONE), "data-overflow") == "0"
