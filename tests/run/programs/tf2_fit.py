"""A Keras `fit` (Keras 3, or tf_keras with `tf_keras`) with a slow Python map and a checkpoint every batch, or
their fixed twins (`fixed`: a parallel, prefetched map and one checkpoint per epoch).

    tf2_fit.py OUTDIR keras|tf_keras [fixed]
"""

import os
import sys
import time

import numpy as np
import tensorflow as tf

out, flavour, fixed = sys.argv[1], sys.argv[2], "fixed" in sys.argv[3:]
if flavour == "tf_keras":
    import tf_keras as keras
else:
    import keras
x = np.random.RandomState(0).rand(256, 8).astype("float32")
y = x.sum(axis=1, keepdims=True)


def augment(row):
    time.sleep(0.004)  # a slow Python augmentation
    return row


def prepare(row, target):
    row = tf.numpy_function(augment, [row], tf.float32)
    row.set_shape([8])
    return row, target


data = tf.data.Dataset.from_tensor_slices((x, y))
if fixed:
    data = data.map(prepare, num_parallel_calls=tf.data.AUTOTUNE).batch(8).prefetch(tf.data.AUTOTUNE)
else:
    data = data.map(prepare).batch(8)  # serial map
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
weights = os.path.join(out, "model.weights.h5" if flavour == "keras" else "model_weights")
saver = keras.callbacks.ModelCheckpoint(weights, save_weights_only=True, save_freq="epoch" if fixed else 1)  # saver
history = model.fit(data, epochs=2, callbacks=[saver], verbose=0)  # fit
print("epochs", len(history.history["loss"]))
