"""What a tf.function retrace costs, and which arguments retrace: the numbers docs/tf2-functions.md quotes.

Usage::

    python bench/tf2_retracing.py            # TF 2 eager, CPU; about 20 s with TensorFlow's import

Prints, for a small function (a matmul and a reduction on a 32x32 input):

* the mean time of a call that traces (a new Python int each call) and of a cached call (the same Tensor shape);
* how many traces 12 calls make with: a Python int that changes, a Tensor holding it, a NumPy scalar holding it,
  a new optimizer object each call, a new tf.function object each call, and 12 batch lengths without and with
  ``reduce_retracing=True``.
"""

from __future__ import annotations

import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

CALLS = 12


def main() -> None:
    """Run the measurements and print them."""
    import numpy as np
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")  # TensorFlow's own retracing warning is what is measured here
    x = tf.random.normal([32, 32])

    def body(x, v):
        return tf.reduce_sum(tf.matmul(x, x)) * tf.cast(v, tf.float32)

    traced = tf.function(body)
    traced(x, 0)
    start = time.perf_counter()
    for value in range(1, 1 + CALLS * 4):
        traced(x, value)
    per_trace = (time.perf_counter() - start) / (CALLS * 4)
    cached = tf.function(body)
    cached(x, tf.constant(0))
    start = time.perf_counter()
    for value in range(CALLS * 40):
        cached(x, tf.constant(value))
    per_call = (time.perf_counter() - start) / (CALLS * 40)
    print(f"a call that traces: {per_trace * 1e3:.1f} ms; a cached call: {per_call * 1e3:.2f} ms "
          f"({per_trace / per_call:.0f}x)")

    def count(make_args, function=None) -> int:
        function = function or tf.function(body)
        for i in range(CALLS):
            function(*make_args(i))
        return function.experimental_get_tracing_count()

    print(f"traces in {CALLS} calls:")
    print(f"  a Python int that changes: {count(lambda i: (x, i))}")
    print(f"  tf.constant of it: {count(lambda i: (x, tf.constant(i)))}")
    print(f"  a NumPy scalar of it: {count(lambda i: (x, np.float64(i)))}")

    def with_object(x, optimizer):
        return tf.reduce_sum(x)

    objects = tf.function(with_object)
    print(f"  a new optimizer each call: {count(lambda i: (x, tf.keras.optimizers.SGD()), objects)}")
    fresh = 0
    for i in range(CALLS):
        function = tf.function(body)
        function(x, tf.constant(i))
        fresh += function.experimental_get_tracing_count()
    print(f"  a new tf.function each call: {fresh}")

    def lengths(x):
        return tf.reduce_sum(x)

    plain, relaxed = tf.function(lengths), tf.function(lengths, reduce_retracing=True)
    for n in range(1, CALLS + 1):
        plain(tf.ones([4, n]))
        relaxed(tf.ones([4, n]))
    print(f"  {CALLS} batch lengths: {plain.experimental_get_tracing_count()}; "
          f"with reduce_retracing=True: {relaxed.experimental_get_tracing_count()}")
    print(f"TensorFlow {tf.__version__}, Keras {tf.keras.__version__ if hasattr(tf.keras, '__version__') else '?'}")


if __name__ == "__main__":
    main()
