"""Parameter-server training, one task per process.

The task comes from TF_CONFIG, or from classic TF1 flags (``--ps_hosts --worker_hosts --job_name
--task_index``). The ps serves until ``--stop_file`` appears, then exits. Worker 0, the chief, saves a
checkpoint every global step and summaries every 2, and creates ``--ready_file`` once its session is up;
another worker waits for that file (so that it never sleeps out the 30 s a non-chief waits for an uninitialised
model), then trains, pausing ``--pause`` seconds after each of its ``--steps`` steps. ``--hook_json`` adds a
GuardHook and saves its report, as README's recipe does. Its addresses are the caller's (127.0.0.1 in the tests).
"""

import argparse
import json
import os
import time

import tensorflow.compat.v1 as tf

parser = argparse.ArgumentParser()
for flag in ("--ps_hosts", "--worker_hosts", "--job_name", "--stop_file", "--checkpoint_dir", "--ready_file"):
    parser.add_argument(flag)
parser.add_argument("--task_index", type=int, default=0)
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--pause", type=float, default=0.0)
parser.add_argument("--hook_json", help="also guard the session with a GuardHook and save its report here "
                                        "(README's recipe)")
args = parser.parse_args()


def wait_for(path, seconds):
    deadline = time.time() + seconds
    while not os.path.exists(path) and time.time() < deadline:
        time.sleep(0.05)


tf.disable_eager_execution()
if os.environ.get("TF_CONFIG"):
    config = json.loads(os.environ["TF_CONFIG"])
    spec, job, index = config["cluster"], config["task"]["type"], int(config["task"]["index"])
else:
    spec = {"ps": args.ps_hosts.split(","), "worker": args.worker_hosts.split(",")}
    job, index = args.job_name, args.task_index
cluster = tf.train.ClusterSpec(spec)
server = tf.distribute.Server(cluster, job_name=job, task_index=index)
if job == "ps":
    wait_for(args.stop_file, 300)
    raise SystemExit(0)
chief = index == 0
with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:%d" % index)):
    global_step = tf.train.get_or_create_global_step()
    w = tf.Variable(tf.zeros([256, 256]))
    loss = tf.reduce_sum(tf.square(w - 1.0))
    train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=global_step)
tf.summary.scalar("loss", loss)
if not chief:
    wait_for(args.ready_file, 120)
# Each worker talks to the ps and to itself only, not to the other workers.
session_config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:%d" % index])
hooks = []
if args.hook_json:
    import tfguard

    hooks.append(tfguard.GuardHook(log=False))
with tf.train.MonitoredTrainingSession(master=server.target, is_chief=chief,
                                       checkpoint_dir=args.checkpoint_dir if chief else None,
                                       save_checkpoint_steps=1, save_summaries_steps=2, log_step_count_steps=None,
                                       hooks=hooks, config=session_config) as mon:
    if chief:
        open(args.ready_file, "w").close()
    for _ in range(args.steps):
        mon.run(train_op)
        if args.pause:
            time.sleep(args.pause)
if args.hook_json:
    with open(args.hook_json, "w") as handle:
        json.dump(hooks[0].report.to_dict(), handle)
print("done %s %d" % (job, index))
