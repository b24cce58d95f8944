"""Parameter-server training, one task per process, the task named by TF_CONFIG.

`ps_training.py STEPS CHECKPOINT_DIR READY_FILE [PAUSE_S]`: the ps serves until it is stopped; worker 0, the
chief, saves a checkpoint every global step and summaries every 2, and creates READY_FILE once its session
is up; another worker waits for READY_FILE (so that it never waits out the 30 s a non-chief sleeps while the
model is not initialised), then trains, pausing PAUSE_S after each step. Everything binds 127.0.0.1 only
(the cluster in TF_CONFIG).
"""

import json
import os
import sys
import time

import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
config = json.loads(os.environ["TF_CONFIG"])
job, index = config["task"]["type"], int(config["task"]["index"])
cluster = tf.train.ClusterSpec(config["cluster"])
server = tf.distribute.Server(cluster, job_name=job, task_index=index)
if job == "ps":
    server.join()
steps, checkpoint_dir, ready_file = int(sys.argv[1]), sys.argv[2], sys.argv[3]
pause = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
chief = index == 0
with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:%d" % index)):
    global_step = tf.train.get_or_create_global_step()
    w = tf.Variable(tf.zeros([256, 256]))
    loss = tf.reduce_sum(tf.square(w - 1.0))
    train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=global_step)
tf.summary.scalar("loss", loss)
if not chief:
    deadline = time.time() + 120
    while not os.path.exists(ready_file) and time.time() < deadline:
        time.sleep(0.05)
# Each worker talks to the ps and to itself only, not to the other workers.
session_config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:%d" % index])
with tf.train.MonitoredTrainingSession(master=server.target, is_chief=chief,
                                       checkpoint_dir=checkpoint_dir if chief else None,
                                       save_checkpoint_steps=1, save_summaries_steps=2, log_step_count_steps=None,
                                       config=session_config) as mon:
    if chief:
        open(ready_file, "w").close()
    for _ in range(steps):
        mon.run(train_op)
        if pause:
            time.sleep(pause)
print("done %s %d" % (job, index))
