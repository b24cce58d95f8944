"""`tfguard run --html` on a real Keras `fit` (a serial `numpy_function` map with no prefetch, `ModelCheckpoint`
every 8 batches, a callback that sleeps per batch) in headless Chromium: the steps are the calls of Keras' train
function, and its input wait (taken inside that function) is the serial map's Python time, as TFG903 counts it.
One TensorFlow child process for the module (tests/run/browser.py refuses the network; skips without Chromium)."""

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

FIT = """
import time

import numpy as np
import tensorflow as tf

keras = tf.keras


def load(x):
    time.sleep(0.002)
    return x


class Slow(keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        time.sleep(0.001)


xs = np.ones((256, 4), np.float32)
data = tf.data.Dataset.from_tensor_slices((xs, xs[:, :1]))
data = data.map(lambda x, y: (tf.ensure_shape(tf.numpy_function(load, [x], tf.float32), [4]), y)).batch(4)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("sgd", "mse")
saver = keras.callbacks.ModelCheckpoint("ckpt.weights.h5", save_weights_only=True, save_freq=8)
model.fit(data, epochs=2, verbose=0, callbacks=[Slow(), saver])
print("done")
"""


@pytest.fixture(scope="module")
def fit_run(tmp_path_factory):
    """(folder, document, page's HTML) of `tfguard run --html --json` on FIT."""
    pytest.importorskip("tensorflow")
    out = tmp_path_factory.mktemp("tf2fit")
    (out / "fit.py").write_text(FIT, encoding="utf-8")
    done = tfguard("run", "--html", "page.html", "--json", "doc.json", "fit.py", cwd=out)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == "done\n"
    document = valid_document(json.loads((out / "doc.json").read_text(encoding="utf-8")))
    return out, document, (out / "page.html").read_text(encoding="utf-8")


def _section(html: str, name: str) -> str:
    start = html.index('id="%s"' % name)
    return html[start:html.index("</section>", start)]


def test_the_fit_batches_are_the_steps_and_the_page_is_the_documents(fit_run, monkeypatch):
    out, document, html = fit_run
    monkeypatch.chdir(out)
    assert render_report(completed(RunVerdict.from_document(document))) == html
    steps = document["steps"]
    assert (steps["mode"], steps["steps"], steps["next_batches"]) == ("compiled", 128, 0)  # 2 epochs of 64 batches
    # Which shares are judged is the machine's to say (a busy one stretches the steps, not the map's sleeps): the
    # page shows whichever the document has, or says there are none.
    codes = {d["code"] for d in document["diagnostics"]}
    verdicts = html[html.index('class="verdicts"'):html.index("</section>", html.index('class="verdicts"'))]
    assert set(re.findall(r">(TFG9\d\d)</a>", verdicts)) == codes
    assert codes or "no diagnostics: 128 training steps watched" in verdicts


def test_the_breakdown_counts_the_serial_maps_python_time_as_the_steps_wait(fit_run):
    _, document, html = fit_run
    steps = document["steps"]
    parts = steps["time_parts"]
    (serial,) = [m for m in steps["maps"] if m["python_calls"]]
    assert serial["parallel"] is None and parts["input"] == min(serial["python_seconds"], steps["step_seconds"])
    assert abs(parts["input"] + parts["step"] - steps["step_seconds"]) < 1e-9
    assert parts["saves"] == sum(w["seconds"] for w in steps["writes"] if w["kind"] == "save") > 0
    section = _section(html, "tf2-steps")
    assert "Time per step (128 steps: calls of `%s`)" % steps["step_functions"][0]["function"] in section
    shares = dict(re.findall(r'data-label="part">([^<]+)</td><td data-label="time">[^<]*</td>'
                             r'<td data-label="share of the steps&#x27; time">([^<]+)</td>', section))
    assert shares["waiting for input"] == "%.3g%%" % (100 * parts["input"] / parts["wall"])
    assert shares["summaries"] == "-"
    assert "the host part holds the batch hooks of `Slow` (fit.py:15)" in section


def test_the_fit_page_renders_offline(fit_run, tmp_path):
    chromium()
    out, _, html = fit_run
    dom = dump_dom(with_measure(out / "page.html", tmp_path / "page.html"), tmp_path)
    assert root_attribute(dom, "data-ready") == "1" and root_attribute(dom, "data-refused") is None
    assert root_attribute(dom, "data-charts") == str(html.count('<svg class="chart"')) == "1"
    assert root_attribute(dom, "data-overflow") == "0"
