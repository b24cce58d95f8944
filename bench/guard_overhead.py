"""Overhead of tfguard.frozen per sess.run of a trivial graph.

Runs blocks of ``--runs`` calls of a trivial ``sess.run`` in one process, in three
variants: bare, through a pass-through wrapper installed the way the guard installs
its own (the noise floor: it does nothing), and inside ``tfguard.frozen``.  The three
variants of each round run in a random order, and the result is the median over
rounds of guarded/bare block time (1.000 = no overhead), next to the same ratio for
the pass-through wrapper: on a shared machine, a guarded ratio no further from 1 than
the wrapper's is noise, not guard cost.

    python bench/guard_overhead.py [--rounds 101] [--runs 200] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def main() -> int:
    """Run the benchmark and print per-run times and the overhead ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=101, help="rounds of (bare, wrapper, guarded) blocks")
    parser.add_argument("--runs", type=int, default=200, help="sess.run calls per block")
    parser.add_argument("--seed", type=int, default=0, help="seed of the block order")
    args = parser.parse_args()
    if args.rounds < 1 or args.runs < 1:
        print("error: --rounds and --runs must be positive", file=sys.stderr)
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
    original_run = sess.run

    def pass_through(fetches, *run_args, **run_kwargs):
        return original_run(fetches, *run_args, **run_kwargs)

    def block() -> float:
        start = time.perf_counter()
        for _ in range(args.runs):
            sess.run(y, feed_dict=feed)
        return time.perf_counter() - start

    def timed(variant: str) -> float:
        if variant == "guarded":
            with tfguard.frozen(sess, warn=False):
                return block()
        if variant == "wrapper":
            sess.run = pass_through
            try:
                return block()
            finally:
                del sess.run
        return block()

    for _ in range(300):  # warm-up
        sess.run(y, feed_dict=feed)
    order = random.Random(args.seed)
    times = {"bare": [], "wrapper": [], "guarded": []}
    for _ in range(args.rounds):
        variants = list(times)
        order.shuffle(variants)
        for variant in variants:
            times[variant].append(timed(variant))

    def per_run_us(variant: str) -> float:
        return statistics.median(times[variant]) / args.runs * 1e6

    def paired(variant: str) -> float:
        return statistics.median(v / b for v, b in zip(times[variant], times["bare"]))

    blocks = "median of %d blocks of %d runs" % (args.rounds, args.runs)
    print("bare sess.run:        %.1f us (%s)" % (per_run_us("bare"), blocks))
    print("pass-through wrapper: %.1f us, ratio %.3f (noise floor)" % (per_run_us("wrapper"), paired("wrapper")))
    print("guarded sess.run:     %.1f us" % per_run_us("guarded"))
    print("overhead ratio:       %.3f (median of per-round guarded/bare)" % paired("guarded"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
