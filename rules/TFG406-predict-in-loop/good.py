import random

import gym
import numpy as np
import tensorflow as tf
from tensorflow import keras


class Agent:
    def __init__(self, actions):
        self.actions = actions
        self.epsilon = 1.0
        self.model = keras.Sequential([keras.layers.Dense(24, activation="relu"), keras.layers.Dense(actions)])
        self.model.compile(loss="mse", optimizer="adam")

    @tf.function
    def q_values(self, state):
        return self.model(state, training=False)

    def act(self, state):
        if np.random.rand() <= self.epsilon:
            return random.randrange(self.actions)
        return int(np.argmax(self.q_values(tf.constant(state, tf.float32))[0]))


env = gym.make("CartPole-v1")
agent = Agent(2)
for episode in range(1000):
    state = np.reshape(env.reset(), [1, 4])
    done = False
    while not done:
        action = agent.act(state)
        state, reward, done, _ = env.step(action)
        state = np.reshape(state, [1, 4])

generator = keras.models.load_model("melody.keras")
notes = list(np.random.rand(32, 8))
for _ in range(500):
    window = np.expand_dims(np.array(notes[-32:]), 0)
    notes.append(generator(window, training=False).numpy()[0])

images = np.random.rand(1000, 28, 28)
scores = generator.predict(images, batch_size=256, verbose=0)  # the rows batched: one predict call
for path in ["val_a.npy", "val_b.npy"]:
    print(path, generator.evaluate(np.load(path), verbose=0))  # a data set per call, twice
