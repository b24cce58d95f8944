"""MonitoredTrainingSession with its default hooks (step counter, checkpoints, summaries).

`monitored.py STEPS CHECKPOINT_DIR`
"""

import sys

import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
steps = int(sys.argv[1])
global_step = tf.train.get_or_create_global_step()
w = tf.Variable(tf.zeros([16, 16]))
train_op = tf.group(tf.assign_add(w, tf.ones([16, 16])), tf.assign_add(global_step, 1))
tf.summary.scalar("w", tf.reduce_sum(w))
with tf.train.MonitoredTrainingSession(checkpoint_dir=sys.argv[2], save_checkpoint_steps=100,
                                       save_summaries_steps=100, log_step_count_steps=50,
                                       hooks=[tf.train.StopAtStepHook(last_step=steps)]) as mon:
    while not mon.should_stop():
        mon.run(train_op)
print("done")
