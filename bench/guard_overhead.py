"""Overhead of tfguard.frozen per sess.run of a trivial graph.

Runs blocks of ``--runs`` calls of a trivial ``sess.run`` in one process, all inside
one ``tfguard.frozen`` block (so the graph is finalized for every variant), in three
variants: bare (the session's own ``run``, called past the guard), through a
pass-through wrapper (the noise floor: it does nothing), and guarded (``sess.run``,
which the guard wraps).  The variants of each round run in a random order, and the
result is the median over rounds of guarded/bare block time (1.000 = no overhead),
next to the same ratio for the pass-through wrapper: on a shared machine, a guarded
ratio no further from 1 than the wrapper's is noise, not guard cost.  Entering and
leaving the guard happen once and are not part of the per-run figure.  Times are
the process's CPU time, TensorFlow's own threads included.  A second figure times
``--pairs`` bare and guarded calls one by one and takes the median difference: the
guard's wall-clock cost per call.

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
    parser.add_argument("--pairs", type=int, default=20000, help="bare/guarded call pairs timed one by one")
    args = parser.parse_args()
    if args.rounds < 1 or args.runs < 1 or args.pairs < 1:
        print("error: --rounds, --runs and --pairs must be positive", file=sys.stderr)
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
    bare_run = type(sess).run.__get__(sess)  # the session's own method, past any instance wrapper

    def pass_through(fetches, *run_args, **run_kwargs):
        return bare_run(fetches, *run_args, **run_kwargs)

    def block(run) -> float:
        # CPU time of the whole process (TensorFlow's threads included): unlike wall time,
        # it does not count the time a shared machine gives to other jobs.
        start = time.process_time()
        for _ in range(args.runs):
            run(y, feed_dict=feed)
        return time.process_time() - start

    for _ in range(300):  # warm-up
        sess.run(y, feed_dict=feed)
    order = random.Random(args.seed)
    times = {"bare": [], "wrapper": [], "guarded": []}
    with tfguard.frozen(sess, warn=False):
        runs = {"bare": bare_run, "wrapper": pass_through, "guarded": sess.run}
        for _ in range(args.rounds):
            variants = list(times)
            order.shuffle(variants)
            for variant in variants:
                times[variant].append(block(runs[variant]))

        # Call by call: a bare call, then a guarded one, timed apart; the median of the
        # differences is the guard's own wall-clock cost, with almost no drift left in it.
        clock = time.perf_counter
        differences = []
        for _ in range(args.pairs):
            t0 = clock()
            bare_run(y, feed_dict=feed)
            t1 = clock()
            runs["guarded"](y, feed_dict=feed)
            t2 = clock()
            differences.append((t2 - t1) - (t1 - t0))

    def per_run_us(variant: str) -> float:
        return statistics.median(times[variant]) / args.runs * 1e6

    def paired(variant: str) -> float:
        return statistics.median(v / b for v, b in zip(times[variant], times["bare"]))

    blocks = "median of %d blocks of %d runs" % (args.rounds, args.runs)
    print("bare sess.run:        %.1f us (%s)" % (per_run_us("bare"), blocks))
    print("pass-through wrapper: %.1f us, ratio %.3f (noise floor)" % (per_run_us("wrapper"), paired("wrapper")))
    print("guarded sess.run:     %.1f us" % per_run_us("guarded"))
    print("overhead ratio:       %.3f (median of per-round guarded/bare)" % paired("guarded"))
    extra_us = statistics.median(differences) * 1e6
    print("call by call:         +%.2f us per sess.run, ratio %.3f (median of %d bare/guarded pairs, wall clock)" % (
        extra_us, 1 + extra_us / per_run_us("bare"), args.pairs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
