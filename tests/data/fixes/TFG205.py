import tensorflow as tf


def parse(record):
    return tf.parse_single_example(record, {"x": tf.FixedLenFeature([8], tf.float32)})["x"]


def train_input_fn(files, batch_size=64):
    dataset = tf.data.TFRecordDataset(files)
    dataset = dataset.map(parse, num_parallel_calls=4)
    dataset = dataset.shuffle(10000).repeat().batch(batch_size)
    return dataset.prefetch(tf.data.experimental.AUTOTUNE)


def eval_batches(files):
    dataset = (tf.data.TFRecordDataset(files)
               .map(parse, num_parallel_calls=4)
               .batch(256))
    iterator = dataset.prefetch(tf.data.experimental.AUTOTUNE).make_one_shot_iterator()  # expect: TFG205
    return iterator.get_next()


def train(estimator, files):
    estimator.train(input_fn=lambda: train_input_fn(files), max_steps=10000)  # expect: TFG205
