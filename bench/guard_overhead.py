"""Overhead of the runtime guard per sess.run of a trivial graph.

Runs blocks of ``--runs`` calls of a trivial ``sess.run`` in one process, all inside
one guard block (``tfguard.frozen`` by default, ``--mode watch`` for the other), in
four variants: bare (the session's own ``run``, called past the guard), through a
pass-through wrapper (the noise floor: it does nothing), and guarded (``sess.run``,
which the guard wraps), and guarded with the host-time sampling of TFG903 paused for the
block (host_sampler.py: what the sampling thread costs). The variants of each round run in a random order, and the
result is the median over rounds of guarded/bare block time (1.000 = no overhead),
next to the same ratio for the pass-through wrapper: a guarded ratio no further from
1 than the wrapper's is noise, not guard cost. Entering and leaving the guard happen
once and are not part of the per-run figure; the guard's batched work (folding queued
runs into its statistics, the slowdown checks) happens inside the guarded blocks and
is.

Each block is timed on two clocks: wall time, what a training loop feels, and the CPU
time of the calling thread, which is where all of the guard's work runs and which the
other jobs of a shared machine disturb far less.

    python bench/guard_overhead.py [--rounds 201] [--runs 200] [--seed 0] [--mode frozen]
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

CLOCKS = (("wall", time.perf_counter), ("thread CPU", time.thread_time))
VARIANTS = ("bare", "wrapper", "guarded", "unsampled")


def main() -> int:
    """Run the benchmark and print per-run times and the overhead ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=201, help="rounds of (bare, wrapper, guarded) blocks")
    parser.add_argument("--runs", type=int, default=200, help="sess.run calls per block")
    parser.add_argument("--seed", type=int, default=0, help="seed of the block order")
    parser.add_argument("--mode", choices=("frozen", "watch"), default="frozen", help="the guard to measure")
    args = parser.parse_args()
    if args.rounds < 1 or args.runs < 1:
        print("error: --rounds and --runs must be positive", file=sys.stderr)
        return 2

    import tensorflow as tf

    import tfguard
    from tfguard.runtime.capture import host_sampler

    v1 = tf.compat.v1
    graph = v1.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [], name="x")
        y = x + 1.0
    sess = v1.Session(graph=graph)
    feed = {x: 1.0}
    bare_run = type(sess).run.__get__(sess)  # the session's own method, past any instance wrapper

    def pass_through(fetches, feed_dict=None, options=None, run_metadata=None):
        return bare_run(fetches, feed_dict, options, run_metadata)

    def block(run):
        starts = [clock() for _, clock in CLOCKS]
        for _ in range(args.runs):
            run(y, feed_dict=feed)
        return [clock() - start for (_, clock), start in zip(CLOCKS, starts)]

    for _ in range(300):  # warm-up
        sess.run(y, feed_dict=feed)
    order = random.Random(args.seed)
    times = {variant: [] for variant in VARIANTS}
    guard = tfguard.frozen if args.mode == "frozen" else tfguard.watch
    with guard(sess, warn=False) as active:
        runs = {"bare": bare_run, "wrapper": pass_through, "guarded": sess.run, "unsampled": sess.run}
        for _ in range(args.rounds):
            variants = list(VARIANTS)
            order.shuffle(variants)
            for variant in variants:
                host_sampler.pause(variant == "unsampled")
                times[variant].append(block(runs[variant]))
        host_sampler.pause(False)
    assert active.report.runs == 2 * args.rounds * args.runs  # every guarded run was recorded

    print("tfguard.%s, median of %d rounds of %d-run blocks in random order" % (args.mode, args.rounds, args.runs))
    for index, (name, _) in enumerate(CLOCKS):
        bare = [t[index] for t in times["bare"]]

        def per_run_us(variant, index=index):
            return statistics.median(t[index] for t in times[variant]) / args.runs * 1e6

        def ratio(variant, index=index, bare=bare):
            return statistics.median(t[index] / b for t, b in zip(times[variant], bare))

        def added_us(variant, index=index, bare=bare):
            return statistics.median((t[index] - b) / args.runs * 1e6 for t, b in zip(times[variant], bare))

        print("%s:" % name)
        print("  bare sess.run        %6.1f us" % per_run_us("bare"))
        print("  pass-through wrapper %6.1f us  ratio %.3f  %+.2f us/run (noise floor)" % (
            per_run_us("wrapper"), ratio("wrapper"), added_us("wrapper")))
        print("  guarded sess.run     %6.1f us  ratio %.3f  %+.2f us/run" % (
            per_run_us("guarded"), ratio("guarded"), added_us("guarded")))
        print("  (host sampling off)  %6.1f us  ratio %.3f  %+.2f us/run" % (
            per_run_us("unsampled"), ratio("unsampled"), added_us("unsampled")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
