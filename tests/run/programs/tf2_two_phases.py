"""A TF2 program that trains in two phases (field wave f: the TensorBoard get-started notebook, a lab's
train_epoch): a Keras `fit` (compiled steps), then a plain Python epoch function that loops over the batches and
applies the gradients eagerly. The second phase is an eager training step (TFG909), to compile as the loop's body."""

import numpy as np
import tensorflow as tf

keras = tf.keras
x = np.random.RandomState(0).rand(256, 8).astype("float32")
y = (x.sum(axis=1) > 4).astype("float32")
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, batch_size=32, epochs=2, verbose=0)  # phase 1: 16 compiled steps

optimizer = keras.optimizers.Adam()
batches = [(x[i:i + 32], y[i:i + 32]) for i in range(0, 256, 32)]


def train_epoch(batches):
    for xb, yb in batches:  # the batch loop
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(xb) - yb[:, None]) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))  # applies
    return float(loss)


for epoch in range(3):  # phase 2: 24 eager steps
    print("epoch", epoch, train_epoch(batches) >= 0)
