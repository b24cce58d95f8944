"""What `tfguard run`'s watch of a TF2 training loop (run/step_watch.py) adds per step and per `tf.function` call.

Three figures from one run, each the least block time of `--blocks` rounds of (bare, watched) blocks:

1. the guard's own Python work per `tf.function` call, with `tfguard run`'s sinks attached (the function watch,
   TFG908, the step watch and the Keras capture's, which times calls inside a predict/evaluate, with a recorder):
   a call of a function that is no step, and a call of a step function (its time, start and thread CPU clock
   recorded); the patched `__call__` around a do-nothing call, thread CPU clock;
2. the same for an eager `next` on a tf.data iterator (the patched `__next__` around a do-nothing one);
3. a real compiled training step (a small Dense model, `tf.function`, SGD), `--steps` steps a block, wall clock,
   bare against watched (the loop's sampling thread, capture/loop_sampler.py, running): the ratio in one run.

Issue 47's budget: at most about 5 us of the guard's own work per step and per tf.function call.

    python bench/tf2_step_cost.py [--blocks 50] [--steps 50]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def main() -> int:
    """Time bare and watched blocks in turn and print the least of each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=50, help="rounds of (bare, watched) blocks")
    parser.add_argument("--steps", type=int, default=50, help="training steps per block")
    args = parser.parse_args()
    if args.blocks < 1 or args.steps < 1:
        print("error: --blocks and --steps must be positive", file=sys.stderr)
        return 2

    import numpy as np
    import tensorflow as tf

    from tfguard.runtime.run.function_watch import FunctionWatch
    from tfguard.runtime.run.step_watch import StepWatch

    calls = 20000
    other, step = _own_call_cost(args.blocks, calls)
    next_cost = _own_next_cost(args.blocks, calls)
    print("the guard's own work, least of %d blocks of %d calls, thread CPU clock" % (args.blocks, calls))
    print("  tf.function call (no step)   %.3f us added" % (other * 1e6))
    print("  tf.function call (a step)    %.3f us added" % (step * 1e6))
    print("  eager tf.data next           %.3f us added" % (next_cost * 1e6))

    model = tf.keras.Sequential([tf.keras.Input((32,)), tf.keras.layers.Dense(64), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.01)
    x = tf.constant(np.random.rand(16, 32).astype("float32"))
    y = tf.constant(np.random.rand(16, 1).astype("float32"))

    def train_step(xb, yb):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(xb) - yb) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    functions, steps = FunctionWatch(alerts_through_warnings=False), StepWatch()
    functions.start()
    steps.start()
    compiled = tf.function(train_step)
    compiled(x, y)  # traced once, watched: its calls are steps from here on
    functions.stop()
    steps.stop()

    def block() -> float:
        start = time.perf_counter()
        for _ in range(args.steps):
            compiled(x, y)
        return (time.perf_counter() - start) / args.steps

    bare, watched = [], []
    for _ in range(args.blocks):
        bare.append(block())
        functions.start()
        steps.start()
        try:
            watched.append(block())
        finally:
            functions.stop()
            steps.stop()
    if steps.record.compiled_steps != 1 + args.blocks * args.steps:
        print("error: the watch counted %d steps" % steps.record.compiled_steps, file=sys.stderr)
        return 1
    low_bare, low_watched = min(bare), min(watched)
    print("a compiled training step (Dense 32-64-1, batch 16, SGD), least of %d blocks of %d steps, wall clock "
          "(TensorFlow %s)" % (args.blocks, args.steps, tf.__version__))
    print("  bare     %.2f us" % (low_bare * 1e6))
    print("  watched  %.2f us" % (low_watched * 1e6))
    print("  added    %.2f us per step (x%.3f)" % ((low_watched - low_bare) * 1e6, low_watched / low_bare))
    return 0


def _least(blocks: int, calls: int, bare_call, watched_call, sinks, attach) -> float:
    """Least watched block minus least bare block, per call, on the thread's CPU clock."""
    def block(call) -> float:
        start = time.thread_time()
        for _ in range(calls):
            call()
        return (time.thread_time() - start) / calls

    bare, watched = [], []
    attach(sinks)
    try:
        for _ in range(blocks):
            bare.append(block(bare_call))
            watched.append(block(watched_call))
    finally:
        attach([])
    return min(watched) - min(bare)


def _own_call_cost(blocks: int, calls: int) -> tuple:
    """(added per call of a function that is no step, added per call of a step function)."""
    from tfguard.runtime.capture import function_calls, keras_calls
    from tfguard.runtime.record.keras_calls import KerasCallRecorder
    from tfguard.runtime.run.function_watch import FunctionWatch
    from tfguard.runtime.run.step_watch import StepWatch

    class Stand:
        _key_for_call_stats = _Stand.__code__

    def do_nothing(self, *args, **kwds):
        return None

    wrapped = function_calls._wrap_call(do_nothing)
    plain, step = Stand(), Stand()
    watch = StepWatch()
    watch.applied(step, None)  # `step` applied gradients in its trace: its calls are steps
    sinks = [FunctionWatch(), watch, keras_calls._function_time]

    def attach(wanted):
        function_calls._sinks[:] = wanted
        keras_calls._sinks[:] = [KerasCallRecorder()] if wanted else []

    other = _least(blocks, calls, lambda: do_nothing(plain, 1.0), lambda: wrapped(plain, 1.0), sinks, attach)
    stepped = _least(blocks, calls, lambda: do_nothing(step, 1.0), lambda: wrapped(step, 1.0), sinks, attach)
    return other, stepped


def _own_next_cost(blocks: int, calls: int) -> float:
    """Added per eager `next` on a tf.data iterator (the patched `__next__` around a do-nothing one)."""
    from tfguard.runtime import tf_access
    from tfguard.runtime.capture import step_hooks
    from tfguard.runtime.run.step_watch import StepWatch

    def do_nothing(self):
        return None

    wrapped = step_hooks._wrap_next(do_nothing, tf_access.NEXT)

    def attach(wanted):
        step_hooks._sinks[:] = wanted

    return _least(blocks, calls, lambda: do_nothing(None), lambda: wrapped(None), [StepWatch()], attach)


def _Stand():
    return None


if __name__ == "__main__":
    sys.exit(main())
