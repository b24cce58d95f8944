"""Class 7 (now correct): prefetch for `tf.data.make_one_shot_iterator(input_fn())` and
`tf.data.make_initializable_iterator(ds)` goes on the dataset, not on `tf.data`."""
import numpy as np
import tensorflow.compat.v1 as tf

STEPS = 4


def input_fn():
    return tf.data.Dataset.from_tensor_slices(np.arange(10, dtype=np.int64)).batch(2)


eval_data = tf.data.Dataset.from_tensor_slices(np.arange(6, dtype=np.int64) * 10).batch(3)
train_batch = tf.data.make_one_shot_iterator(input_fn()).get_next()
eval_iterator = tf.data.make_initializable_iterator(eval_data)
eval_batch = eval_iterator.get_next()

with tf.Session() as sess:
    for step in range(STEPS):
        print("train", step, sess.run(train_batch).tolist())
    sess.run(eval_iterator.initializer)
    print("eval", sess.run(eval_batch).tolist(), sess.run(eval_batch).tolist())
