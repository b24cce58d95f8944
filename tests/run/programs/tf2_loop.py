"""A TF2 custom training loop with the seed programs' problems, each chosen by an argument, and their fixed twins.

    tf2_loop.py OUTDIR [eager] [summaries] [checkpoints] [slowing] [fixed] [exit3]

`fixed` turns each chosen problem into its fix: the step under tf.function, summaries every 100 steps, checkpoints
every 200,
no growing history. Writes OUTDIR/result.txt and prints the last loss, as a real program's output to compare.
"""

import os
import sys

import numpy as np
import tensorflow as tf

out, flags = sys.argv[1], set(sys.argv[2:])
fixed = "fixed" in flags
tf.keras.utils.set_random_seed(1)
model = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(16), tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.SGD(0.01)
x = np.random.RandomState(0).rand(64, 8).astype("float32")
y = x.sum(axis=1, keepdims=True)
steps = {"eager": 40, "summaries": 1000, "checkpoints": 200, "slowing": 400}
count = max([steps[f] for f in flags if f in steps] or [50])
dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(8).repeat().take(count)
writer = tf.summary.create_file_writer(os.path.join(out, "logs"))
manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=model, optimizer=optimizer), out, max_to_keep=2)


def train_step(xb, yb):  # the step
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(xb) - yb) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # applies
    return loss


if "eager" not in flags or fixed:
    train_step = tf.function(train_step)
history = []
for step, (xb, yb) in enumerate(dataset):
    loss = train_step(xb, yb)  # calls the step
    if "summaries" in flags and (not fixed or step % 100 == 0):
        with writer.as_default(step=step):
            for weight in model.trainable_variables:
                tf.summary.write(weight.name, weight)  # every weight
        writer.flush()  # flush
    if "checkpoints" in flags and (not fixed or step % 200 == 0):
        manager.save()  # checkpoint
    if "slowing" in flags and not fixed:
        history.extend(range(10000))  # ~15 ms of summing a step by the end: x5 quiet, x3 or more busy
        total = sum(history)  # grows
with open(os.path.join(out, "result.txt"), "w") as handle:
    handle.write("%d steps\n" % (step + 1))
print("loss %.3f after %d steps" % (float(loss), step + 1))
sys.exit(3 if "exit3" in flags else 0)
