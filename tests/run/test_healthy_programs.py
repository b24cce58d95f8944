"""Realistic programs under `tfguard run --fail-on`: healthy ones pass, the bad twin fails on its line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.run.conftest import busiest, tfguard, valid_document
from tfguard.runtime.verdict import RunVerdict

pytestmark = pytest.mark.usefixtures("tensorflow_installed")
PROGRAMS = Path(__file__).resolve().parent / "programs"


def _run(tmp_path, script, *args, fail_on="growth,slowdown,saves"):
    out = tmp_path / "run.json"
    done = tfguard("run", "--fail-on", fail_on, "--json", out, PROGRAMS / script, *args)
    return done, busiest(valid_document(json.loads(out.read_text(encoding="utf-8"))))


def _line(script, marker):
    lines = (PROGRAMS / script).read_text(encoding="utf-8").splitlines()
    return next(number for number, text in enumerate(lines, 1) if marker in text)


@pytest.mark.slow
def test_mnist_style_setup_lazy_growth_and_one_save_pass(tmp_path):
    done, document = _run(tmp_path, "mnist_style.py", "40")
    assert done.returncode == 0, done.stderr
    assert "trained 40 steps" in done.stdout
    kinds = {site["line"]: site["kind"] for site in document["growth_sites"]}
    assert {kinds[_line("mnist_style.py", marker)] for marker in (
        "# setup: built after the session", "merged = tf.summary.merge_all()", "saver = tf.train.Saver()")} == {"setup"}
    assert kinds[_line("mnist_style.py", "# one-time: built lazily")] == "one-time"
    assert kinds[_line("mnist_style.py", "# one-time: built after the first")] == "one-time"
    assert [(d["code"], d["severity"]) for d in document["diagnostics"] if d["code"] == "TFG901"] == [
        ("TFG901", "info")]
    assert document["saves"] == 1 and "TFG905" not in {d["code"] for d in document["diagnostics"]}
    assert "Warning" not in done.stderr  # nothing repeated: no live alert


@pytest.mark.slow
def test_mnist_style_leak_fails_on_its_line_with_a_readable_report(tmp_path):
    done, document = _run(tmp_path, "mnist_style.py", "40", "leak")
    assert done.returncode == 1, done.stderr
    assert "trained 40 steps" in done.stdout  # the program (warnings.simplefilter("error")) ran to its end
    assert "failing (--fail-on): growth (TFG901)" in done.stderr
    site = document["growth_sites"][0]
    assert (site["line"], site["kind"]) == (_line("mnist_style.py", "# the leak"), "repeated")
    assert site["api"] == "tf.math.reduce_mean" and "Mean" in site["op_types"]
    growth = next(d for d in document["diagnostics"] if d["code"] == "TFG901" and d["severity"] == "error")
    assert (growth["path"], growth["line"]) == (site["path"], site["line"])  # located: the line it blames
    assert growth["evidence"]["sites"][0]["ops_added"] == site["ops_added"]
    report = done.stderr[done.stderr.index("tfguard runtime report"):]
    assert report.index("diagnostics") < report.index("graph growth") < report.index("fetch signatures")
    assert "more signatures (all in the JSON report)" in report
    assert len(document["signatures"]) > 40  # a new fetch every step: all of them stay in --json
    # the live alert, whatever COLUMNS it wrapped to
    assert "GraphGrowthWarning: tfguard: the graph keeps growing at" in " ".join(done.stderr.split())
    assert "autowatch.py" not in done.stderr and "runner.py" not in done.stderr


@pytest.mark.slow
def test_interactive_session_tutorial_builds_its_model_after_the_session(tmp_path):
    script = tmp_path / "tutorial.py"
    script.write_text(
        "import tensorflow.compat.v1 as tf\n"
        "tf.disable_eager_execution()\n"
        "sess = tf.InteractiveSession()\n"
        "x = tf.placeholder(tf.float32, [None, 4])\n"
        "w = tf.Variable(tf.zeros([4, 1]))\n"
        "loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))\n"
        "train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)\n"
        "tf.global_variables_initializer().run()\n"
        "for _ in range(40):\n"
        "    train.run(feed_dict={x: [[1.0, 2.0, 3.0, 4.0]]})\n"
        "print(loss.eval(feed_dict={x: [[1.0, 2.0, 3.0, 4.0]]}))\n", encoding="utf-8")
    out = tmp_path / "run.json"
    done = tfguard("run", "--fail-on", "growth,slowdown", "--json", out, script)
    assert done.returncode == 0, done.stderr
    document = busiest(json.loads(out.read_text(encoding="utf-8")))
    assert document["nodes_added"] > 20 and document["growth_ops"]["setup"] == document["nodes_added"]
    assert not document["diagnostics"] or "TFG901" not in {d["code"] for d in document["diagnostics"]}


@pytest.mark.timing
@pytest.mark.slow
def test_other_jobs_starting_halfway_are_not_a_slowdown(tmp_path):
    done, document = _run(tmp_path, "steady_loop.py", "300", "busy", fail_on="growth,slowdown")
    assert done.returncode == 0, done.stderr
    assert "TFG902" not in {d["code"] for d in document["diagnostics"]}


@pytest.mark.timing
@pytest.mark.slow
def test_a_growing_graph_still_slows_down_and_fails(tmp_path):
    done, document = _run(tmp_path, "steady_loop.py", "80", "grow", fail_on="growth,slowdown")
    assert done.returncode == 1, done.stderr
    codes = {(d["code"], d["severity"]) for d in document["diagnostics"]}
    assert {("TFG901", "error"), ("TFG902", "warning")} <= codes, document["diagnostics"]
    assert document["slowdown_shape"] == "trend"
    slowdown = next(d["message"] for d in document["diagnostics"] if d["code"] == "TFG902")
    assert "steady_loop.py:%d" % _line("steady_loop.py", "# the graph grows on every step") in slowdown


@pytest.mark.slow
def test_a_training_loop_on_a_worker_thread_is_the_one_guarded(tmp_path):
    script = tmp_path / "threaded.py"
    script.write_text(
        "import threading\n"
        "import tensorflow.compat.v1 as tf\n"
        "tf.disable_eager_execution()\n"
        "x = tf.placeholder(tf.float32, [])\n"
        "w = tf.Variable(0.0)\n"
        "step = tf.assign_add(w, x)\n"
        "sess = tf.Session()\n"
        "sess.run(tf.global_variables_initializer())\n"
        "def train():\n"
        "    for _ in range(400):\n"
        "        sess.run(step, feed_dict={x: 1.0})\n"
        "worker = threading.Thread(target=train)\n"
        "worker.start()\n"
        "worker.join()\n"
        "print(sess.run(w))\n", encoding="utf-8")
    out = tmp_path / "run.json"
    done = tfguard("run", "--fail-on", "growth,slowdown", "--json", out, script)
    assert done.returncode == 0, done.stderr
    document = busiest(json.loads(out.read_text(encoding="utf-8")))
    train = max(document["signatures"], key=lambda s: s["count"])  # by runs: the order by run time is the load's
    # Followed once the worker has made 50 runs while the main thread waited.
    assert train["label"].startswith("AssignAdd") and train["count"] == 350, document["signatures"]
    assert train["count"] + document["other_thread_runs"] == 401  # the main thread's last run included
    assert "400.0" in done.stdout


@pytest.mark.slow
def test_monitored_training_session_hooks_own_runs_are_not_steps(tmp_path):
    done, document = _run(tmp_path, "monitored.py", "200", tmp_path / "checkpoints", fail_on="growth,slowdown")
    assert done.returncode == 0, done.stderr
    assert document["runs"] <= 210  # not ~2 runs per step: the hooks' global_step reads are left out
    assert document["dominant_signature"].startswith("group_deps")
    # The dominant signature by its label: the list is ordered by total run time, which the load decides (under
    # load the hooks' three checkpoint runs took longer in all than the 200 steps).
    dominant = next(s for s in document["signatures"] if s["label"] == document["dominant_signature"])
    assert dominant["count"] >= 190


@pytest.mark.slow
def test_queue_runners_filling_a_batch_queue_are_not_followed(tmp_path):
    script = tmp_path / "queues.py"
    script.write_text(
        "import tensorflow.compat.v1 as tf\n"
        "tf.disable_eager_execution()\n"
        "queue = tf.FIFOQueue(2000, tf.float32, shapes=[[]])\n"
        "enqueue = queue.enqueue(tf.random.uniform([]))\n"
        "tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue]))\n"
        "batch = queue.dequeue_many(100)\n"
        "total = tf.reduce_sum(batch)\n"
        "sess = tf.Session()\n"
        "coord = tf.train.Coordinator()\n"
        "threads = tf.train.start_queue_runners(sess=sess, coord=coord)\n"
        "for _ in range(20):\n"
        "    sess.run(total)\n"
        "coord.request_stop()\n"
        "coord.join(threads, stop_grace_period_secs=5, ignore_live_threads=True)\n"
        "print('done')\n", encoding="utf-8")
    out = tmp_path / "run.json"
    done = tfguard("run", "--fail-on", "growth", "--json", out, script)
    assert done.returncode == 0, done.stderr
    document = busiest(json.loads(out.read_text(encoding="utf-8")))
    assert document["runs"] == 20 and document["dominant_signature"].startswith("Sum")
    assert document["other_thread_runs"] >= 2000  # the runner's enqueues, counted apart


@pytest.mark.slow
def test_gan_with_reinitialised_iterator_per_epoch_passes(tmp_path):
    done, document = _run(tmp_path, "gan_epochs.py", "3", "60", tmp_path / "gan", fail_on="growth,slowdown")
    assert done.returncode == 0, done.stderr
    assert document["growth_ops"]["repeated"] == 0 and document["growth_ops"]["one-time"] == 0
    assert sorted(sig["count"] for sig in document["signatures"])[-2:] == [177, 177]  # D and G steps


@pytest.mark.timing
@pytest.mark.slow
def test_each_real_slowdown_fails_with_its_own_cause(tmp_path):
    """A growing wait, growing Python work and a growing feed: each its own session, each TFG902 with its cause."""
    done = tfguard("run", "--fail-on", "slowdown", "--json", tmp_path / "run.json", PROGRAMS / "slowdowns.py", "2.5",
                   "sleep", "cpu", "feed", "steady")
    document = valid_document(json.loads((tmp_path / "run.json").read_text(encoding="utf-8")))
    assert done.returncode == 1, done.stderr
    assert "failing (--fail-on): slowdown (TFG902)" in done.stderr
    verdict = RunVerdict.from_document(document)
    reports = {s["dominant_signature"].split(":")[0]: dict(s.figures, diagnostics=[
        {"code": d.code, "message": d.one_line} for d in verdict.of_session(s.number)]) for s in verdict.sessions}
    expected = {"sleep": ("host wait", "the process is waiting, not computing"),
                "cpu": ("python work", "look for Python-side work that grows each step"),
                "feed": ("growing feed", "fed per run at the start")}
    for kind, (cause, words) in expected.items():
        report = reports[kind]
        message = next((d["message"] for d in report["diagnostics"] if d["code"] == "TFG902"), None)
        assert report["slowdown_cause"] == cause and message and words in message, (kind, report["diagnostics"])
    steady = reports["steady"]
    assert steady["verdict_window_s"] > 1.5 and not steady["slowdown_significant"]
    assert done.stderr.count("SlowdownWarning") == 3  # given when each session ended, with the final words


@pytest.mark.timing
@pytest.mark.slow
def test_guard_hook_and_the_runner_agree_on_host_fraction(tmp_path):
    """One definition of run time: GuardHook times the step's own Session.run, not the hooks around it."""
    done, document = _run(tmp_path, "monitored.py", "400", tmp_path / "checkpoints", "hook", fail_on="growth")
    assert done.returncode == 0, done.stderr
    hook = json.loads(done.stdout.split("guard hook report: ", 1)[1].splitlines()[0])
    assert hook["runs"] == 400 and hook["saves"] >= 8
    assert document["host_fraction"] > 0.2 and abs(hook["host_fraction"] - document["host_fraction"]) < 0.05, (
        hook["host_fraction"], document["host_fraction"])
    assert abs(hook["save_s"] - document["save_s"]) < 0.5 * document["save_s"]
