import os

import tensorflow as tf


def main():
    sess = tf.Session()
    os.environ["CUDA_VISIBLE_DEVICES"] = "1"  # expect: TFG305
    x = tf.constant(3.0)
    print(sess.run(x * 2))


if __name__ == "__main__":
    main()
