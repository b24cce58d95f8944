import argparse

import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--debug", action="store_true")
args = parser.parse_args()
if args.debug:
    tf.config.run_functions_eagerly(True)  # eager on purpose, while debugging: the step stays wrapped

model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(10)])
optimizer = tf.keras.optimizers.Adam(1e-3)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
(x_train, y_train), _ = tf.keras.datasets.mnist.load_data()
dataset = tf.data.Dataset.from_tensor_slices((x_train.reshape(-1, 784) / 255.0, y_train)).batch(64)


@tf.function
def train_step(images, labels):
    with tf.GradientTape() as tape:
        loss = loss_fn(labels, model(images, training=True))
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


def plain_step(images, labels):
    with tf.GradientTape() as tape:
        loss = loss_fn(labels, model(images, training=True))
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


wrapped_step = tf.function(plain_step)  # wrapped once, before the loop


@tf.function
def train_epoch():
    for images, labels in dataset:  # the loop itself runs inside a tf.function
        plain_step(images, labels)


for epoch in range(10):
    for images, labels in dataset:
        loss = train_step(images, labels)
        loss = wrapped_step(images, labels)
    train_epoch()
    print(epoch, float(loss))
