"""Class 3 (now fed through a placeholder): `sched.step()` halves `self.temperature`, read by the op of the loop."""
import numpy as np
import tensorflow.compat.v1 as tf

EPOCHS = 4


class Schedule:
    def __init__(self):
        self.temperature = 2.0

    def step(self):
        self.temperature *= 0.5


sched = Schedule()
logits = tf.constant(np.linspace(-1.0, 1.0, 4, dtype=np.float32))

with tf.Session() as sess:
    for epoch in range(EPOCHS):
        sched.step()
        print(epoch, sess.run(tf.nn.softmax(logits / sched.temperature)).round(6).tolist())
