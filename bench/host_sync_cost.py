"""What `tfguard run`'s Keras and host-sync watch (TFG910-TFG912) adds to a host sync and to a tf.function call.

From one run, the least block time of `--blocks` rounds of (bare, recorded) blocks, per call, wall clock:

1. `float(t)` on a scalar eager tensor (the cheapest host sync there is, so the guard's part is as large a share as
   it can be): the patched method's frame lookup and count;
2. `t.numpy()` on the same tensor;
3. a traced-once `tf.function` (`x + 1.0`): the watch is one more sink of the function-call patch (the step count).

A bare block runs with nothing patched; a recorded block with the recorder attached (capture/keras_calls.py).
Issue 47's budget: the guard's own work at most a few microseconds per sync and per call.

    python bench/host_sync_cost.py [--blocks 100] [--calls 200]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def main() -> int:
    """Time bare and recorded blocks in turn and print the least of each, per call."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=100, help="rounds of (bare, recorded) blocks")
    parser.add_argument("--calls", type=int, default=200, help="calls per block")
    args = parser.parse_args()
    if args.blocks < 1 or args.calls < 1:
        print("error: --blocks and --calls must be positive", file=sys.stderr)
        return 2

    import tensorflow as tf

    from tfguard.runtime.capture import keras_calls
    from tfguard.runtime.record.keras_calls import KerasCallRecorder

    @tf.function
    def add_one(x):
        return x + 1.0

    t = tf.constant(1.5)
    add_one(t)  # traced once, before any block
    calls = args.calls

    def syncs_float() -> float:
        start = time.perf_counter()
        for _ in range(calls):
            float(t)
        return (time.perf_counter() - start) / calls

    def syncs_numpy() -> float:
        start = time.perf_counter()
        for _ in range(calls):
            t.numpy()
        return (time.perf_counter() - start) / calls

    def function_calls() -> float:
        start = time.perf_counter()
        for _ in range(calls):
            add_one(t)
        return (time.perf_counter() - start) / calls

    cases = [("float(t)", syncs_float), ("t.numpy()", syncs_numpy), ("tf.function call", function_calls)]
    times = {name: ([], []) for name, _ in cases}
    recorder = KerasCallRecorder()
    for _ in range(args.blocks):
        for name, block in cases:
            times[name][0].append(block())
        keras_calls.attach(recorder)
        try:
            for name, block in cases:
                times[name][1].append(block())
        finally:
            keras_calls.detach(recorder)
    counted = sum(recorder.host_syncs.values())
    if counted != 2 * args.blocks * calls:
        print("error: the recorder counted %d syncs, not %d" % (counted, 2 * args.blocks * calls), file=sys.stderr)
        return 1
    print("least of %d blocks of %d calls, wall clock (TensorFlow %s)" % (args.blocks, calls, tf.__version__))
    for name, (bare, recorded) in times.items():
        low_bare, low_recorded = min(bare), min(recorded)
        print("  %-17s bare %8.3f us  recorded %8.3f us  added %6.3f us (x%.3f)" % (
            name, low_bare * 1e6, low_recorded * 1e6, (low_recorded - low_bare) * 1e6, low_recorded / low_bare))
    return 0


if __name__ == "__main__":
    sys.exit(main())
