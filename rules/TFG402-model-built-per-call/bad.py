import numpy as np
import tensorflow as tf


def predict_batch(batch):
    model = tf.keras.models.load_model("classifier.keras")
    return model.predict(batch, verbose=0)


def requests():
    while True:
        yield np.random.rand(4, 16).astype("float32")


for batch in requests():
    print(predict_batch(batch))  # expect: TFG402

for path in ["a.keras", "b.keras", "c.keras", "d.keras", "e.keras", "f.keras", "g.keras", "h.keras", "i.keras",
             "j.keras", "k.keras", "l.keras"]:
    scorer = tf.keras.models.load_model("scorer.keras")  # expect: TFG402
    scorer.load_weights(path)
    print(path, scorer.evaluate(np.zeros([8, 16]), np.zeros([8, 1]), verbose=0))
