"""Scoring every checkpoint of a run on the test set."""
import numpy as np
import tensorflow as tf

MODEL_DIR = "/tmp/cifar10_train"
test_images = np.random.rand(256, 32, 32, 3).astype(np.float32)
test_labels = np.random.randint(0, 10, 256)

checkpoints = tf.train.get_checkpoint_state(MODEL_DIR).all_model_checkpoint_paths
with tf.Session() as sess:
    for checkpoint in checkpoints:
        restorer = tf.train.import_meta_graph(checkpoint + ".meta")  # expect: TFG104
        restorer.restore(sess, checkpoint)
        accuracy = sess.run("accuracy:0", feed_dict={"images:0": test_images, "labels:0": test_labels})
        print(checkpoint, accuracy)
