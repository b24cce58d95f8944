"""TF2 seed, fixed: the same training as tf2_train.py, done the way TF 2 wants it.

The training step is a tf.function (traced once), the summary and the checkpoint are written
every --log-every steps and at the last step, the input pipeline maps in parallel and
prefetches, and the evaluation predicts all samples in one batch.
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
    parser.add_argument("--log-every", type=int, default=100)
    args = parser.parse_args()
    model_dir = args.model_dir or tempfile.mkdtemp(prefix="tfguard-tf2-")
    rng = np.random.RandomState(0)
    features = rng.rand(1024, FEATURES).astype(np.float32)
    labels = features.sum(axis=1, keepdims=True).astype(np.float32)
    dataset = tf.data.Dataset.from_tensor_slices((features, labels))
    dataset = dataset.map(augment, num_parallel_calls=tf.data.AUTOTUNE).batch(32).repeat().prefetch(tf.data.AUTOTUNE)
    model = tf.keras.Sequential([tf.keras.Input((FEATURES,)), tf.keras.layers.Dense(32, activation="relu"),
                                 tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.01)
    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)
    writer = tf.summary.create_file_writer(os.path.join(model_dir, "logs"))

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss

    with writer.as_default():
        for step, (x, y) in enumerate(dataset.take(args.steps)):
            loss = train_step(x, y)
            if step % args.log_every == 0 or step == args.steps - 1:
                tf.summary.write("loss", loss, step=step)
                checkpoint.write(os.path.join(model_dir, "ckpt"))
    predictions = model.predict(features[:32], batch_size=32, verbose=0)
    error = float(np.mean(np.abs(predictions - labels[:32])))
    print("tf2 seed fixed: %d steps, loss %.4f, predict error %.3f" % (args.steps, float(loss), error))


if __name__ == "__main__":
    main()
