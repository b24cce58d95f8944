"""The guard's own Python work per sess.run, without TensorFlow's: a session whose `run` does nothing.

`bench/guard_overhead.py` measures the guard next to a real trivial `sess.run`, where the other jobs of a shared
machine move the figure by several microseconds. This one times only what the guard adds in Python (the wrapper,
queueing the run, the batched folds, and in watch mode the look for new ops after every run): blocks of `--runs`
calls of a do-nothing `run`, bare and guarded in turn, and prints the least block time of each over `--blocks`
rounds, on the calling thread's CPU clock. It does not count the cache misses the guard causes TensorFlow, so it is
a lower bound of guard_overhead.py's figure; it is the figure that tells Python versions and code changes apart.

    python bench/guard_python_cost.py [--mode frozen|watch] [--blocks 15] [--runs 20000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


class DoNothingSession:
    """A session stand-in: TensorFlow's graph, and a `run` with BaseSession.run's parameters that does nothing."""

    def __init__(self, graph):
        self.graph = graph

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Return at once."""
        return None


def main() -> int:
    """Time bare and guarded blocks in turn and print the least of each, per run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("frozen", "watch"), default="frozen", help="the guard to measure")
    parser.add_argument("--blocks", type=int, default=15, help="rounds of (bare, guarded) blocks")
    parser.add_argument("--runs", type=int, default=20000, help="calls per block")
    args = parser.parse_args()
    if args.blocks < 1 or args.runs < 1:
        print("error: --blocks and --runs must be positive", file=sys.stderr)
        return 2

    import tensorflow as tf

    import tfguard

    v1 = tf.compat.v1
    graph = v1.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [], name="x")
        y = x + 1.0
    sess = DoNothingSession(graph)
    feed = {x: 1.0}
    bare_run = type(sess).run.__get__(sess)

    def block(run):
        start = time.thread_time()
        for _ in range(args.runs):
            run(y, feed_dict=feed)
        return (time.thread_time() - start) / args.runs * 1e6

    bare, guarded = [], []
    guard = tfguard.frozen if args.mode == "frozen" else tfguard.watch
    with guard(sess, warn=False, sample_gpu=False) as active:
        for _ in range(args.blocks):
            bare.append(block(bare_run))
            guarded.append(block(sess.run))
    assert active.report.runs == args.blocks * args.runs  # every guarded run was recorded
    print("tfguard.%s on Python %s, TensorFlow %s: least of %d blocks of %d runs, thread CPU" % (
        args.mode, sys.version.split()[0], tf.__version__, args.blocks, args.runs))
    print("  bare run     %5.2f us" % min(bare))
    print("  guarded run  %5.2f us  the guard's Python work: %+.2f us/run" % (min(guarded), min(guarded) - min(bare)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
