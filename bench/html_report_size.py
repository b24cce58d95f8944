"""How large `tfguard run --html` pages are on real runs of 1,000 to 20,000 steps, and how large their JSON is.

Runs a small training loop under `tfguard run --json --html` for each step count, and prints the page's and the
JSON's size; `--grow-steps` runs of the growing example's shape (a new op, so a new fetch signature, on every step:
TFG901) too, fewer of them, as each step runs on a larger graph; `--tf2-steps` runs of a TF2 loop (a `tf.function`
step that applies gradients: its step-time chart and breakdown). The page draws at most 600 buckets per series
(min/max kept), so its size stays flat while the run grows; the JSON's series are capped by the recorder (2,048
points each; a TF2 run's step intervals at 500).

    python bench/html_report_size.py [--steps 1000,5000,20000] [--grow-steps 1000] [--tf2-steps 1000,20000]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOOP = '''
import sys
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
x = tf.placeholder(tf.float32, shape=[])
y = x * 2.0
with tf.Session() as sess:
    for step in range(int(sys.argv[1])):
        sess.run(y + 1.0 if "grow" in sys.argv else y, {x: float(step)})
'''
TF2_LOOP = '''
import sys
import tensorflow as tf

w = tf.Variable(1.0)
optimizer = tf.keras.optimizers.SGD(0.01)


@tf.function
def train_step(x):
    with tf.GradientTape() as tape:
        loss = (w * x) ** 2
    optimizer.apply_gradients([(tape.gradient(loss, w), w)])
    return loss


for step in range(int(sys.argv[1])):
    train_step(tf.constant(float(step % 7)))
'''
#: The kinds of loop measured: (name, source, extra argument).
LOOPS = {"healthy": (LOOP, []), "growing": (LOOP, ["grow"]), "tf2": (TF2_LOOP, [])}


def measure(folder: str, steps: int, kind: str) -> tuple:
    """(page bytes, JSON bytes) of one guarded run of the loop `kind` (LOOPS)."""
    source, extra = LOOPS[kind]
    script = os.path.join(folder, "loop.py")
    with open(script, "w", encoding="utf-8") as handle:
        handle.write(source)
    page, document = os.path.join(folder, "page.html"), os.path.join(folder, "doc.json")
    env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="3")
    command = [sys.executable, "-m", "tfguard", "run", "-q", "--html", page, "--json", document, script, str(steps)]
    done = subprocess.run(command + extra, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit("tfguard run failed: %s" % done.stderr[-2000:])
    return os.path.getsize(page), os.path.getsize(document)


def main() -> int:
    """Print one row per run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="1000,5000,20000", help="comma-separated step counts of healthy runs")
    parser.add_argument("--grow-steps", default="1000", help="comma-separated step counts of growing runs")
    parser.add_argument("--tf2-steps", default="1000,20000", help="comma-separated step counts of TF2 runs")
    args = parser.parse_args()
    runs = [(int(word), kind) for kind, words in (("healthy", args.steps), ("growing", args.grow_steps),
                                                  ("tf2", args.tf2_steps)) for word in words.split(",") if word.strip()]
    print("%8s  %-8s  %10s  %10s" % ("steps", "loop", "page", "JSON"))
    with tempfile.TemporaryDirectory() as folder:
        for steps, kind in runs:
            page, document = measure(folder, steps, kind)
            print("%8d  %-8s  %7.0f KB  %7.0f KB" % (steps, kind, page / 1024, document / 1024))
    return 0


if __name__ == "__main__":
    sys.exit(main())
