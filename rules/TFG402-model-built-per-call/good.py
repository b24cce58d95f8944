import numpy as np
import tensorflow as tf

model = tf.keras.models.load_model("classifier.keras")


def predict_batch(batch):
    return model.predict(batch, verbose=0)


def requests():
    while True:
        yield np.random.rand(4, 16).astype("float32")


for batch in requests():
    print(predict_batch(batch))

scorer = tf.keras.models.load_model("scorer.keras")
for path in ["a.keras", "b.keras", "c.keras", "d.keras", "e.keras", "f.keras", "g.keras", "h.keras", "i.keras",
             "j.keras", "k.keras", "l.keras"]:
    scorer.load_weights(path)
    print(path, scorer.evaluate(np.zeros([8, 16]), np.zeros([8, 1]), verbose=0))

for trial in range(20):  # a model built per trial and trained: its one predict trace is part of the trial
    trial_model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    trial_model.compile(loss="mse", optimizer="adam")
    trial_model.fit(np.zeros([8, 16]), np.zeros([8, 1]), verbose=0)
    print(trial, trial_model.predict(np.zeros([1, 16]), verbose=0))
