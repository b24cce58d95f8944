"""TFG102: a global that a helper of the loop rebinds."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

EPOCHS = 4

temperature = 1.0
logits = tf.constant(np.linspace(-1.0, 1.0, 4, dtype=np.float32))


def anneal(epoch):
    global temperature
    temperature = 1.0 / (1 + epoch)


with tf.Session() as sess:
    for epoch in range(EPOCHS):
        anneal(epoch)
        print(epoch, sess.run(tf.nn.softmax(logits / temperature)).round(6).tolist())
