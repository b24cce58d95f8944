"""TF2 seed, fixed: the same training as tf2_train.py, done the way TF 2 wants it.

The training step is a tf.function (traced once), the summaries and the checkpoint are written
every --log-every steps and at the last step, the input pipeline parses its CSV records with
TensorFlow's string ops, in parallel, and prefetches, and the evaluation predicts all samples in
one batch.
"""

import argparse
import os
import tempfile

import numpy as np
import tensorflow as tf

FEATURES = 16
#: Values per CSV record: FEATURES features of 256 samples each, averaged.
RAW_VALUES = FEATURES * 256


def parse(line, y):
    """Parse one CSV record and average its samples into the features (in TensorFlow ops, no Python)."""
    values = tf.strings.to_number(tf.strings.split(line, ","))
    return tf.reduce_mean(tf.reshape(values, [FEATURES, -1]), axis=1), y


def logged(model, gradients):
    """(name, tensor) of every layer's weights and their gradients, for the summaries."""
    for number, (variable, gradient) in enumerate(zip(model.trainable_variables, gradients)):
        name = "%d/%s" % (number, variable.name)
        yield name, variable
        yield name + "/gradient", gradient


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--model-dir", default=None)
    parser.add_argument("--log-every", type=int, default=100)
    args = parser.parse_args()
    model_dir = args.model_dir or tempfile.mkdtemp(prefix="tfguard-tf2-")
    rng = np.random.RandomState(0)
    raw = rng.rand(256, RAW_VALUES).astype(np.float32)
    lines = [",".join("%.4f" % v for v in row) for row in raw]
    features = raw.reshape(len(raw), FEATURES, -1).mean(axis=2)
    labels = features.sum(axis=1, keepdims=True).astype(np.float32)
    dataset = tf.data.Dataset.from_tensor_slices((lines, labels))
    dataset = dataset.map(parse, num_parallel_calls=tf.data.AUTOTUNE).batch(64).repeat().prefetch(tf.data.AUTOTUNE)
    model = tf.keras.Sequential([tf.keras.Input((FEATURES,)), tf.keras.layers.Dense(512, activation="relu"),
                                 tf.keras.layers.Dense(512, activation="relu"), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.01)
    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)
    writer = tf.summary.create_file_writer(os.path.join(model_dir, "logs"))

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss, gradients

    with writer.as_default():
        for step, (x, y) in enumerate(dataset.take(args.steps)):
            loss, gradients = train_step(x, y)
            if step % args.log_every == 0 or step == args.steps - 1:
                tf.summary.write("loss", loss, step=step)
                for name, tensor in logged(model, gradients):
                    tf.summary.write(name, tensor, step=step)
                checkpoint.write(os.path.join(model_dir, "ckpt"))
    predictions = model.predict(features[:32], batch_size=32, verbose=0)
    error = float(np.mean(np.abs(predictions - labels[:32])))
    print("tf2 seed fixed: %d steps, loss %.4f, predict error %.3f" % (args.steps, float(loss), error))


if __name__ == "__main__":
    main()
