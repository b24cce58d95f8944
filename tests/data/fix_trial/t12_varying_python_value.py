"""TFG102: an op built from a value the loop changes (a Python temperature)."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

EPOCHS = 4

logits = tf.constant(np.linspace(-1.0, 1.0, 4, dtype=np.float32))
with tf.Session() as sess:
    for epoch in range(EPOCHS):
        temperature = 1.0 / (1 + epoch)
        print(epoch, sess.run(tf.nn.softmax(logits / temperature)).round(6).tolist())
