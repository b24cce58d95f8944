"""Class 1 (now unsafe): fixed noise to compare epochs, a seeded random op built every epoch.

Every new op draws the same numbers; one op built before the loop draws new ones each run.
"""
import tensorflow.compat.v1 as tf

EPOCHS = 4

with tf.Session() as sess:
    for epoch in range(EPOCHS):
        z = sess.run(tf.random_normal([3, 2], seed=42))
        print(epoch, z.round(6).tolist())
