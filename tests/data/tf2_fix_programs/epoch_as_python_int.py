"""TFG403's safe fix, run: the epoch reaches train_step as a Python int (one trace per epoch) before the fix."""
import sys

import tensorflow as tf

tf.random.set_seed(0)
weights = tf.Variable(tf.ones([4, 1]))
writer = tf.summary.create_file_writer(sys.argv[1] if len(sys.argv) > 1 else "logs")


@tf.function
def train_step(x, epoch, run_id):
    scale = 1.0 + tf.cast(epoch, tf.float32) / 10.0
    with writer.as_default():
        tf.summary.write("scale", scale, step=epoch)
    weights.assign_sub(0.01 * scale * tf.reduce_mean(x, axis=0, keepdims=True)[:, :1] * tf.ones([4, 1]))
    return tf.reduce_sum(weights)


x = tf.random.normal([8, 4])
for epoch in range(12):
    print(epoch, float(train_step(x, epoch, 7)))
print("traces", train_step.experimental_get_tracing_count(), file=sys.stderr)
