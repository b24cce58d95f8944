"""TF2 seed: the field reports' diseases in TF 2 form, in one small Keras training script.

The training step runs eagerly (a GradientTape step never wrapped in tf.function), a summary is
written and flushed to disk and a checkpoint written on every step, the input pipeline maps one
element at a time and never prefetches, and the evaluation calls `model.predict` once per sample.
The fixed twin is tf2_fixed.py. Tiny on purpose: it runs on a CPU in seconds.
"""

import argparse
import os
import tempfile

import numpy as np
import tensorflow as tf

FEATURES = 16


def augment(x, y):
    """Per-example preprocessing: a little noise and standardisation."""
    x = x + tf.random.normal(tf.shape(x), stddev=0.01)
    return (x - tf.reduce_mean(x)) / (tf.math.reduce_std(x) + 1e-6), y


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--model-dir", default=None)
    args = parser.parse_args()
    model_dir = args.model_dir or tempfile.mkdtemp(prefix="tfguard-tf2-")
    rng = np.random.RandomState(0)
    features = rng.rand(1024, FEATURES).astype(np.float32)
    labels = features.sum(axis=1, keepdims=True).astype(np.float32)
    dataset = tf.data.Dataset.from_tensor_slices((features, labels))
    dataset = dataset.map(augment).batch(32).repeat()  # expect: TFG204  # todo-expect: TFG903
    model = tf.keras.Sequential([tf.keras.Input((FEATURES,)), tf.keras.layers.Dense(32, activation="relu"),
                                 tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.01)
    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)
    writer = tf.summary.create_file_writer(os.path.join(model_dir, "logs"))

    def train_step(x, y):  # expect: TFG407, TFG909
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss

    with writer.as_default():
        for step, (x, y) in enumerate(dataset.take(args.steps)):
            loss = train_step(x, y)
            tf.summary.write("loss", loss, step=step)  # todo-expect: TFG904
            writer.flush()  # expect: TFG201
            checkpoint.write(os.path.join(model_dir, "ckpt"))  # expect: TFG202  # todo-expect: TFG905
    predictions = [model.predict(sample[None], verbose=0) for sample in features[:32]]  # expect: TFG406, TFG910
    error = float(np.mean(np.abs(np.concatenate(predictions) - labels[:32])))
    print("tf2 seed: %d steps, loss %.4f, predict error %.3f" % (args.steps, float(loss), error))


if __name__ == "__main__":
    main()
