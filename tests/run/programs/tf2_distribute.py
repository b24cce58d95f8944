"""A TF2 program under `tf.distribute`, each way chosen by an argument.

    tf2_distribute.py OUTDIR loop|fit [STEPS] [--slow-worker INDEX]

Without TF_CONFIG the strategy is a `MirroredStrategy` over two logical CPU devices; with TF_CONFIG (two workers
on localhost) a `MultiWorkerMirroredStrategy`. `loop`: a custom loop, `strategy.run(step, ...)` inside a
tf.function, over a distributed dataset; `fit`: Keras `fit` under `strategy.scope()`. `--slow-worker INDEX`: the
input function of that worker (TF_CONFIG's task index) sleeps 100 ms per batch, a straggler made on purpose.
Writes OUTDIR/result-<task>.txt and prints the loop's last loss, as a real program's output to compare.
"""

import json
import os
import sys
import time

import numpy as np
import tensorflow as tf

out, mode = sys.argv[1], sys.argv[2]
steps = int(sys.argv[3]) if len(sys.argv) > 3 and not sys.argv[3].startswith("--") else 24
slow = int(sys.argv[sys.argv.index("--slow-worker") + 1]) if "--slow-worker" in sys.argv else -1
config = json.loads(os.environ.get("TF_CONFIG") or "{}")
task = config.get("task", {}).get("index", 0) if config else 0
if config:
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
else:
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
tf.keras.utils.set_random_seed(1)
x = np.random.RandomState(0).rand(256, 8).astype("float32")
y = x.sum(axis=1, keepdims=True)


def batches():  # the input function
    for i in range(0, len(x), 16):
        if task == slow:
            time.sleep(0.1)  # the slow worker's input
        yield x[i:i + 16], y[i:i + 16]


spec = (tf.TensorSpec((None, 8), tf.float32), tf.TensorSpec((None, 1), tf.float32))
dataset = tf.data.Dataset.from_generator(batches, output_signature=spec).repeat()
options = tf.data.Options()
options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
dataset = dataset.with_options(options)
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(16), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.01)

if mode == "fit":
    model.compile(optimizer, "mse")
    history = model.fit(dataset, epochs=1, steps_per_epoch=steps, verbose=0)
    loss = None  # not printed: Keras' loss under MirroredStrategy differs from run to run, without the guard too
else:
    def replica_step(xb, yb):
        with tf.GradientTape() as tape:
            per_example = (model(xb) - yb) ** 2
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=16)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))  # applies
        return loss

    @tf.function
    def train_step(xb, yb):  # the step
        losses = strategy.run(replica_step, args=(xb, yb))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)

    iterator = iter(strategy.experimental_distribute_dataset(dataset))
    for _ in range(steps):
        xb, yb = next(iterator)
        loss = train_step(xb, yb)  # calls the step
if config:
    # TensorFlow's own race at exit, without the guard too: a worker that leaves right after its last all-reduce may
    # close its socket while the other still receives from it ("Collective ops is aborted by: Socket closed", the
    # slower worker's exit status 1). Both wait for their last step, meet in one more all-reduce, and the one that
    # gets there first gives the other a moment to fetch it.
    if loss is not None:
        float(loss)
    strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(lambda: tf.constant(1.0)), axis=None).numpy()
    time.sleep(1.0)
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "result-%d.txt" % task), "w") as handle:
    handle.write("%d steps, %d replicas\n" % (steps, strategy.num_replicas_in_sync))
print("%s after %d steps on %d replicas" % ("loss %.3f" % float(loss) if loss is not None else "fit ran", steps,
                                             strategy.num_replicas_in_sync))
