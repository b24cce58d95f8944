import tensorflow as tf


def parse(record):
    features = tf.parse_single_example(record, {"image": tf.FixedLenFeature([], tf.string)})
    image = tf.image.decode_jpeg(features["image"], channels=3)
    return tf.image.resize_images(image, [224, 224])


def make_dataset(pattern, batch_size):
    files = tf.data.Dataset.list_files(pattern)
    dataset = files.interleave(tf.data.TFRecordDataset, cycle_length=4,
                               num_parallel_calls=tf.data.experimental.AUTOTUNE)  # expect: TFG204
    dataset = dataset.map(parse, num_parallel_calls=tf.data.experimental.AUTOTUNE)  # expect: TFG204
    return dataset.batch(batch_size).prefetch(1)
