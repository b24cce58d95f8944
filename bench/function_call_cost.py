"""What `tfguard.watch_functions()` (and so `tfguard run`) adds to a call of a `tf.function` that does not retrace.

Two figures from one run, each the least block time of `--blocks` rounds of (bare, watched) blocks, per call:

1. the guard's own Python work per call: the patched `Function.__call__` around a do-nothing call (the counter,
   the clock, the sink), on the thread's CPU clock, `--calls` x 10 calls a block; the figure that code changes
   and Python versions move, and the one a busy machine disturbs least;
2. a real traced-once `tf.function` (`x + 1.0`, so that the guard's part is as large a share as it can be),
   `--calls` calls a block, on the wall clock: TensorFlow's own call costs tens to hundreds of microseconds,
   and on a shared machine their jitter is larger than the guard's part.

Issue 38's budget: at most about 5 us more per call.

    python bench/function_call_cost.py [--blocks 200] [--calls 100]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def main() -> int:
    """Time bare and watched blocks in turn and print the least of each, per call."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=200, help="rounds of (bare, watched) blocks")
    parser.add_argument("--calls", type=int, default=100, help="calls per block")
    args = parser.parse_args()
    if args.blocks < 1 or args.calls < 1:
        print("error: --blocks and --calls must be positive", file=sys.stderr)
        return 2

    import tensorflow as tf

    import tfguard

    @tf.function
    def add_one(x):
        return x + 1.0

    x = tf.constant(1.0)
    add_one(x)  # traced once, before any block

    def block() -> float:
        start = time.perf_counter()
        for _ in range(args.calls):
            add_one(x)
        return (time.perf_counter() - start) / args.calls

    own_bare, own_watched = _own_cost(args.blocks, args.calls * 10, add_one._key_for_call_stats)
    bare, watched = [], []
    watch = tfguard.watch_functions()
    for _ in range(args.blocks):
        bare.append(block())
        with watch if not watch._entered else _Again(watch):
            watched.append(block())
    report = watch.report()
    traced = sum(f["traced_calls"] for f in report.functions)
    if traced:
        print("error: the benchmark's function retraced under the watch (%d traces)" % traced, file=sys.stderr)
        return 1
    low_bare, low_watched = min(bare), min(watched)
    print("the guard's own work per call (patched __call__ around a do-nothing call), least of %d blocks of %d "
          "calls, thread CPU clock" % (args.blocks, args.calls * 10))
    print("  bare     %.3f us" % (own_bare * 1e6))
    print("  watched  %.3f us" % (own_watched * 1e6))
    print("  added    %.3f us per call" % ((own_watched - own_bare) * 1e6))
    print("tf.function call (x + 1.0, traced once), least of %d blocks of %d calls, wall clock (TensorFlow %s)" % (
        args.blocks, args.calls, tf.__version__))
    print("  bare     %.2f us" % (low_bare * 1e6))
    print("  watched  %.2f us" % (low_watched * 1e6))
    print("  added    %.2f us per call (x%.3f)" % ((low_watched - low_bare) * 1e6, low_watched / low_bare))
    return 0


def _own_cost(blocks: int, calls: int, key: object) -> tuple:
    """Least per-call time of a do-nothing `__call__`, bare and wrapped as function_capture wraps it (with a sink
    attached, so the counted path runs)."""
    from tfguard.runtime.capture import function_calls as function_capture
    from tfguard.runtime.run.function_watch import FunctionWatch

    class Stand:
        _key_for_call_stats = key

    def do_nothing(self, *args, **kwds):
        return None

    wrapped = function_capture._wrap_call(do_nothing)
    stand, value = Stand(), 1.0
    sink = FunctionWatch()

    def block(call) -> float:
        start = time.thread_time()
        for _ in range(calls):
            call(stand, value)
        return (time.thread_time() - start) / calls

    bare, watched = [], []
    function_capture._sinks.append(sink)
    try:
        for _ in range(blocks):
            bare.append(block(do_nothing))
            watched.append(block(wrapped))
    finally:
        function_capture._sinks.remove(sink)
    return min(bare), min(watched)


class _Again:
    """Start an already-entered watch again for the next block (its records go on)."""

    def __init__(self, watch):
        self.watch = watch

    def __enter__(self):
        self.watch.start()
        return self.watch

    def __exit__(self, *exc_info):
        self.watch.stop()
        return False


if __name__ == "__main__":
    sys.exit(main())
