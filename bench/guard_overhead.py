"""Overhead of tfguard.frozen per sess.run of a trivial graph.

Interleaves bare and guarded blocks in one process (the order alternating from pair to
pair) and prints the median over pairs of guarded/bare block time (1.000 = no overhead).
Pairs run back to back share the machine's state, so the paired ratio resists the drift
of a shared machine better than a ratio of two separate medians.

    python bench/guard_overhead.py [--blocks 21] [--runs 300]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def main() -> int:
    """Run the benchmark and print per-run times and the overhead ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=21, help="bare/guarded block pairs")
    parser.add_argument("--runs", type=int, default=300, help="sess.run calls per block")
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
    sess = v1.Session(graph=graph)
    feed = {x: 1.0}

    def block() -> float:
        start = time.perf_counter()
        for _ in range(args.runs):
            sess.run(y, feed_dict=feed)
        return time.perf_counter() - start

    for _ in range(200):  # warm-up
        sess.run(y, feed_dict=feed)
    bare, guarded = [], []
    for i in range(args.blocks):
        order = (False, True) if i % 2 == 0 else (True, False)
        for use_guard in order:
            if use_guard:
                with tfguard.frozen(sess, warn=False):
                    guarded.append(block())
            else:
                bare.append(block())
    bare_us = statistics.median(bare) / args.runs * 1e6
    guarded_us = statistics.median(guarded) / args.runs * 1e6
    paired = statistics.median(g / b for g, b in zip(guarded, bare))
    print("bare sess.run:    %.1f us (median of %d blocks of %d runs)" % (bare_us, args.blocks, args.runs))
    print("guarded sess.run: %.1f us" % guarded_us)
    print("overhead ratio:   %.3f (median of paired guarded/bare blocks)" % paired)
    return 0


if __name__ == "__main__":
    sys.exit(main())
