"""Peak memory of a hyper-parameter sweep, plain and under `tfguard run`.

Each trial builds its own graph with a large variable (``--mb`` MiB), trains a few steps
and either closes its session or drops it (``--unclosed``), as sweeps do. The script is
run plainly and under ``tfguard run`` in child processes; each prints its peak RSS.

    python bench/sweep_memory.py [--trials 10] [--mb 64]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SWEEP = '''
import resource, sys
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()
trials, mb, unclosed = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "unclosed"
side = int((mb * 2 ** 20 / 4) ** 0.5)
for trial in range(trials):
    with tf.Graph().as_default():
        w = tf.Variable(tf.random.uniform([side, side]))
        step = tf.assign_add(w, tf.ones([side, side]) * 0.001)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        for _ in range(5):
            sess.run(step.op)
        if not unclosed:
            sess.close()
print("peak_rss_mib=%.0f" % (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0))
'''


def _peak(command):
    env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="3")
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1].split("=")[1])


def main() -> int:
    """Run the sweep both ways, closed and unclosed, and print the peak RSS of each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--mb", type=int, default=64, help="MiB of the variable each trial allocates")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        script = os.path.join(folder, "sweep.py")
        with open(script, "w", encoding="utf-8") as handle:
            handle.write(SWEEP)
        print("sweep of %d trials, %d MiB variable each: peak RSS" % (args.trials, args.mb))
        for mode in ("closed", "unclosed"):
            sweep = [script, str(args.trials), str(args.mb), mode]
            plain = _peak([sys.executable] + sweep)
            guarded = _peak([sys.executable, "-m", "tfguard", "run", "--quiet"] + sweep)
            print("  sessions %-8s  plain %6.0f MiB  tfguard run %6.0f MiB  ratio %.3f" % (
                mode, plain, guarded, guarded / plain))
    return 0


if __name__ == "__main__":
    sys.exit(main())
