import os

os.environ["CUDA_VISIBLE_DEVICES"] = "1"

import tensorflow as tf  # noqa: E402 - after choosing the GPU on purpose


def main():
    sess = tf.Session()
    x = tf.constant(3.0)
    print(sess.run(x * 2))


if __name__ == "__main__":
    main()
