"""Streaming a reshuffled dataset once per epoch to a host-side learner."""
import numpy as np
import tensorflow as tf

NUM_EXAMPLES, BATCH_SIZE, NUM_EPOCHS = 10000, 32, 50
features = np.random.rand(NUM_EXAMPLES, 16).astype(np.float32)
labels = np.random.randint(0, 2, NUM_EXAMPLES)
dataset = tf.data.Dataset.from_tensor_slices((features, labels))


def update_host_model(batch_features, batch_labels):
    """Stand-in for a learner that lives outside TensorFlow."""
    return float(np.mean(batch_features)) + float(np.mean(batch_labels))


with tf.Session() as sess:
    epoch_data = dataset.shuffle(NUM_EXAMPLES).batch(BATCH_SIZE).prefetch(1)  # expect: TFG102
    iterator = epoch_data.make_one_shot_iterator()  # expect: TFG106
    next_batch = iterator.get_next()  # expect: TFG106
    for epoch in range(NUM_EPOCHS):
        while True:
            try:
                batch_features, batch_labels = sess.run(next_batch)
            except tf.errors.OutOfRangeError:
                break
            update_host_model(batch_features, batch_labels)
