"""The step reaches a tf.function as a summary's `step=` and then as a Python value (`if step > 5:` prints while it
traces): a Tensor would print once, so TFG403 must not give a safe fix (issue 46)."""
import sys

import tensorflow as tf

writer = tf.summary.create_file_writer(sys.argv[1] if len(sys.argv) > 1 else "logs")


@tf.function
def log_step(x, step):
    with writer.as_default():
        tf.summary.write("x", tf.reduce_mean(x), step=step)
    if step > 5:
        print("late step")
    return x * 2.0


x = tf.constant([1.0, 2.0])
steps = len(sys.argv) + 6  # 8 when run as `python program.py LOGDIR`
for step in range(steps):
    print(step, log_step(x, step).numpy().tolist())
