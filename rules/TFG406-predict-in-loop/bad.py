import random

import gym
import numpy as np
from tensorflow import keras


class Agent:
    def __init__(self, actions):
        self.actions = actions
        self.epsilon = 1.0
        self.model = keras.Sequential([keras.layers.Dense(24, activation="relu"), keras.layers.Dense(actions)])
        self.model.compile(loss="mse", optimizer="adam")

    def act(self, state):
        if np.random.rand() <= self.epsilon:
            return random.randrange(self.actions)
        return int(np.argmax(self.model.predict(state, verbose=0)[0]))  # expect: TFG406


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
    notes.append(generator.predict(window, verbose=0)[0])  # expect: TFG406
