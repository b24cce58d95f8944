"""A Keras `fit` (Keras 3, or tf_keras with `tf_keras`) fed by a slow Python input, one batch at a time: a generator
(`generator`), a `keras.utils.PyDataset` / tf_keras `Sequence` (`dataset`); a custom loop over the generator (`loop`);
or their fixed twins (`fixed`: Keras 3's PyDataset with 4 workers, which make the batches ahead of the step, under
tf_keras, whose `fit(workers=4)` ran slower than one worker here, a prefetched tf.data pipeline; `loopfixed`: a
custom loop over a tf.data pipeline whose parallel map makes the batches).

    tf2_python_input.py OUTDIR keras|tf_keras generator|dataset|loop|fixed|loopfixed
"""

import sys
import time

import numpy as np

flavour, case = sys.argv[2], sys.argv[3]
if flavour == "tf_keras":
    import tf_keras as keras
else:
    import keras
x = np.random.RandomState(0).rand(256, 8).astype("float32")
y = x.sum(axis=1, keepdims=True)


def batches():  # generator
    while True:
        for start in range(0, 256, 8):
            time.sleep(0.05)  # a slow Python batch
            yield x[start:start + 8], y[start:start + 8]


Base = getattr(keras.utils, "PyDataset", None) or keras.utils.Sequence


class Batches(Base):  # dataset
    def __init__(self, workers=1):
        if flavour == "keras":
            super().__init__(workers=workers)
        else:
            super().__init__()

    def __len__(self):
        return 32

    def __getitem__(self, index):
        time.sleep(0.05)  # a slow Python batch
        start = index % 32 * 8  # the 32 batches again, as the generator gives them (never an empty batch)
        return x[start:start + 8], y[start:start + 8]


model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
if case == "generator":
    history = model.fit(batches(), steps_per_epoch=32, epochs=2, verbose=0)  # fit generator
elif case == "dataset":
    history = model.fit(Batches(), epochs=2, verbose=0)  # fit dataset
elif case == "fixed" and flavour == "keras":
    history = model.fit(Batches(workers=4), epochs=2, verbose=0)
elif case == "fixed":
    import tensorflow as tf

    data = tf.data.Dataset.from_tensor_slices((x, y)).batch(8).prefetch(tf.data.AUTOTUNE)
    history = model.fit(data, epochs=2, verbose=0)
if case in ("loop", "loopfixed"):
    import tensorflow as tf

    optimizer = keras.optimizers.SGD(0.01)

    @tf.function
    def train_step(a, b):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(a) - b) ** 2)
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss

    def load(index):
        time.sleep(0.05)  # the same slow Python batch, on tf.data's threads
        start = index % 32 * 8  # the 32 batches again, as the generator gives them (never an empty batch)
        return x[start:start + 8], y[start:start + 8]

    if case == "loop":
        source = batches()
    else:
        source = tf.data.Dataset.range(64).map(
            lambda i: tf.numpy_function(load, [i], (tf.float32, tf.float32)),
            num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE)
    for step, (a, b) in enumerate(source):  # loop
        train_step(a, b)
        if step == 63:
            break
    print("steps", step + 1)
else:
    print("epochs", len(history.history["loss"]))
