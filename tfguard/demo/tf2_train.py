"""TF2 seed: the field reports' diseases in TF 2 form, in one small Keras training script.

The training step runs eagerly (a GradientTape step never wrapped in tf.function), every layer's
weights and gradients are written as summaries and flushed to disk and a checkpoint written on
every step, the input pipeline parses each CSV record in Python, one element at a time, and never
prefetches, and the evaluation calls `model.predict` once per sample. The fixed twin is
tf2_fixed.py. Small on purpose: it runs on a CPU in seconds, and each problem costs enough of
those seconds for the guard to judge it.
"""

import argparse
import os
import tempfile

import numpy as np
import tensorflow as tf

FEATURES = 16
#: Values per CSV record: FEATURES features of 256 samples each, averaged.
RAW_VALUES = FEATURES * 256


def parse_record(line):
    """Parse one CSV record and average its samples into the features (in Python)."""
    values = [float(v) for v in line.split(b",")]
    size = len(values) // FEATURES
    return np.array([sum(values[i:i + size]) / size for i in range(0, len(values), size)], np.float32)


def parse(line, y):
    x = tf.numpy_function(parse_record, [line], tf.float32)
    x.set_shape([FEATURES])
    return x, y


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
    args = parser.parse_args()
    model_dir = args.model_dir or tempfile.mkdtemp(prefix="tfguard-tf2-")
    rng = np.random.RandomState(0)
    raw = rng.rand(256, RAW_VALUES).astype(np.float32)
    lines = [",".join("%.4f" % v for v in row) for row in raw]
    features = raw.reshape(len(raw), FEATURES, -1).mean(axis=2)
    labels = features.sum(axis=1, keepdims=True).astype(np.float32)
    dataset = tf.data.Dataset.from_tensor_slices((lines, labels))
    dataset = dataset.map(parse).batch(64).repeat()  # expect: TFG204, TFG903
    model = tf.keras.Sequential([tf.keras.Input((FEATURES,)), tf.keras.layers.Dense(512, activation="relu"),
                                 tf.keras.layers.Dense(512, activation="relu"), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.01)
    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)
    writer = tf.summary.create_file_writer(os.path.join(model_dir, "logs"))

    def train_step(x, y):  # expect: TFG407, TFG909
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss, gradients

    with writer.as_default():
        for step, (x, y) in enumerate(dataset.take(args.steps)):
            loss, gradients = train_step(x, y)
            tf.summary.write("loss", loss, step=step)
            for name, tensor in logged(model, gradients):
                tf.summary.write(name, tensor, step=step)  # expect: TFG904
            writer.flush()  # expect: TFG201
            checkpoint.write(os.path.join(model_dir, "ckpt"))  # expect: TFG202, TFG905
    predictions = [model.predict(sample[None], verbose=0) for sample in features[:32]]  # expect: TFG406, TFG910
    error = float(np.mean(np.abs(np.concatenate(predictions) - labels[:32])))
    print("tf2 seed: %d steps, loss %.4f, predict error %.3f" % (args.steps, float(loss), error))


if __name__ == "__main__":
    main()
