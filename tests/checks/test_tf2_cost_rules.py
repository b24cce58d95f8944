"""TFG406-TFG408 (issue 44): where each finding is placed, its chain, its two-part message, and TFG408's default."""

from __future__ import annotations

import textwrap

from tfguard.static.checks import host_sync_per_step, predict_in_loop, step_never_compiled
from tfguard.static.config import Settings
from tfguard.static.engine import check_source

AGENT = textwrap.dedent("""\
    import gym
    import numpy as np
    from tensorflow import keras


    class Agent:
        def __init__(self):
            self.model = keras.Sequential([keras.layers.Dense(2)])

        def q_values(self, state):
            return self.model.predict(state, verbose=0)


    env = gym.make("CartPole-v1")
    agent = Agent()
    for episode in range(100):
        state = np.reshape(env.reset(), [1, 4])
        for t in range(500):
            q = agent.q_values(state)
            state, reward, done, _ = env.step(int(np.argmax(q[0])))
            state = np.reshape(state, [1, 4])
""")

STEP = textwrap.dedent("""\
    import tensorflow as tf

    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.Adam()
    dataset = tf.data.Dataset.from_tensor_slices((tf.zeros([64, 4]), tf.zeros([64, 1]))).batch(8)


    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss


    def train_epoch():
        for x, y in dataset:
            loss = train_step(x, y)
            print(float(loss))


    for epoch in range(100):
        train_epoch()
""")


def findings(source: str, select: str):
    """The findings of the rules ``select`` names on ``source``."""
    return check_source(source, "train.py", Settings(select=tuple(select.split(","))))


def test_a_predict_reached_through_a_method_is_reported_at_the_predict_with_the_loop_call_in_its_chain():
    [finding] = findings(AGENT, "TFG406")
    assert (finding.line, [link.line for link in finding.chain]) == (11, [19])
    headline, advice = finding.headline, finding.help
    assert "loop at line 18" in headline and "through the call at line 19" in headline
    assert advice == predict_in_loop.ADVICE.format(method="predict")


def test_an_uncompiled_step_is_reported_at_its_def_with_the_per_batch_loop_call_in_its_chain():
    [finding] = findings(STEP, "TFG407")
    assert (finding.line, [link.line for link in finding.chain]) == (8, [17])
    headline, advice = finding.headline, finding.help
    assert headline.startswith("the training step `train_step()`") and advice == step_never_compiled.ADVICE


def test_wrapping_the_step_before_the_loop_silences_it():
    wrapped = STEP.replace("def train_epoch():", "train_step = tf.function(train_step)\n\n\ndef train_epoch():")
    assert findings(wrapped, "TFG407") == []


def test_host_syncs_are_off_by_default_and_reported_when_selected():
    assert [f.code for f in check_source(STEP, "train.py", Settings())].count("TFG408") == 0
    [finding] = findings(STEP, "TFG408")
    assert (finding.line, finding.severity, [link.line for link in finding.chain]) == (18, "info", [17])
    assert finding.help == host_sync_per_step.ADVICE


def test_a_host_sync_every_hundred_steps_is_silent():
    guarded = STEP.replace("        print(float(loss))", "        if epoch % 100 == 0:\n            print(float(loss))")
    assert findings(guarded, "TFG408") == []
