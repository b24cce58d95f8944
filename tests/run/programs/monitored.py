"""MonitoredTrainingSession with its default hooks (step counter, checkpoints, summaries).

`monitored.py STEPS CHECKPOINT_DIR [hook]`: with `hook`, a `tfguard.GuardHook` records the same loop,
each step waits 2 ms on the host (an input read), and the hook's report is printed as JSON.
"""

import json
import sys
import time

import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
steps = int(sys.argv[1])
with_hook = "hook" in sys.argv[3:]
global_step = tf.train.get_or_create_global_step()
w = tf.Variable(tf.zeros([16, 16]))
train_op = tf.group(tf.assign_add(w, tf.ones([16, 16])), tf.assign_add(global_step, 1))
tf.summary.scalar("w", tf.reduce_sum(w))
hooks = [tf.train.StopAtStepHook(last_step=steps)]
if with_hook:
    import tfguard

    guard_hook = tfguard.GuardHook(log=False)
    hooks.insert(0, guard_hook)
with tf.train.MonitoredTrainingSession(checkpoint_dir=sys.argv[2], save_checkpoint_steps=50 if with_hook else 100,
                                       save_summaries_steps=100, log_step_count_steps=50, hooks=hooks) as mon:
    while not mon.should_stop():
        if with_hook:
            time.sleep(0.002)
        mon.run(train_op)
if with_hook:
    report = guard_hook.report
    print("guard hook report: " + json.dumps({key: report.to_dict()[key] for key in (
        "runs", "host_fraction", "save_s", "saves", "run_s", "wall_s")}))
print("done")
