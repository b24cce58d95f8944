"""Step-decayed learning rate held in a variable, as in many Faster R-CNN ports."""
import numpy as np
import tensorflow as tf

BASE_LR, GAMMA, STEP_SIZE, MAX_STEPS = 0.001, 0.1, 20000, 70000
x = tf.placeholder(tf.float32, [None, 128], name="features")
y = tf.placeholder(tf.int64, [None], name="labels")
logits = tf.layers.dense(x, 21)
loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
learning_rate = tf.Variable(BASE_LR, trainable=False, name="learning_rate")
global_step = tf.Variable(0, trainable=False, name="global_step")
train_op = tf.train.MomentumOptimizer(learning_rate, 0.9).minimize(loss, global_step=global_step)
decay_learning_rate = tf.assign(learning_rate, learning_rate * GAMMA)
init_op = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init_op)
    for step in range(MAX_STEPS):
        if (step + 1) % STEP_SIZE == 0:
            sess.run(decay_learning_rate)
        xs, ys = np.random.rand(256, 128), np.random.randint(0, 21, 256)
        sess.run(train_op, feed_dict={x: xs, y: ys})
