"""The TF2 capture on small real programs, in this process (issue 47's field test): what counts as a step (two
optimizers applied in one batch are one), which summary calls are writes (a call that recorded nothing is none),
whose batches are the steps' input (not `predict`'s), and the guard's wrapper frames kept out of the program's
errors wherever they are shown."""

from __future__ import annotations

import sys
import traceback
from contextlib import contextmanager

import numpy as np
import pytest

from tfguard.runtime.capture.own_frames import hide_own_frame
from tfguard.runtime.capture.step_hooks import loop_position, same_step
from tfguard.runtime.run.program_watch import ProgramWatch
from tfguard.runtime.run.runner import _GUARD_DIR
from tfguard.runtime.run.step_watch import StepWatch


# -- what one step is, on plain Python frames ---------------------------------------------------------------------
def _steps(positions):
    """How many steps the applies at `positions` make (a new step wherever `same_step` says so)."""
    return sum(1 for before, now in zip(((),) + tuple(positions), positions) if not same_step(before, now))


def _loop_of_applies(positions, applies_per_batch, batches=3):
    def apply():
        positions.append(loop_position(sys._getframe(1)))

    def step():  # a GAN's step: the discriminator's optimizer, then the generator's
        apply()
        apply()

    def train_d():
        apply()

    def train_g():
        apply()

    for _ in range(batches):
        if applies_per_batch == "one":
            apply()
        elif applies_per_batch == "two in the loop":
            apply()
            apply()
        elif applies_per_batch == "two in a step function":
            step()
        elif applies_per_batch == "one in each of two functions":
            train_d()
            train_g()
        else:  # an inner loop over the optimizers: one line, applied again
            for _ in range(2):
                apply()


@pytest.mark.parametrize("kind, steps", [
    ("one", 3), ("two in the loop", 3), ("two in a step function", 3), ("one in each of two functions", 3),
    ("an inner loop", 6)])
def test_applies_in_one_loop_iteration_or_call_are_one_step(kind, steps):
    positions = []
    _loop_of_applies(positions, kind)
    assert _steps(positions) == steps


@pytest.mark.skipif(sys.version_info < (3, 11), reason="a bare raise re-raises the exception's own traceback: 3.11+")
def test_a_wrapper_hides_its_own_frame_only_from_errors_of_the_call_it_wraps(monkeypatch):
    def user():
        raise ValueError("the program's")

    def wrapper(call):
        try:
            return call()
        except BaseException as exc:
            hide_own_frame(exc)
            raise

    def frames(call):
        with pytest.raises(Exception) as raised:
            wrapper(call)
        return [entry.name for entry in traceback.extract_tb(raised.value.__traceback__)]

    assert frames(user) == ["frames", "user"]
    assert frames(lambda: {}["guard's own"]) == ["frames", "<lambda>"]
    monkeypatch.setenv("TFGUARD_TRACEBACK", "full")
    assert frames(user) == ["frames", "wrapper", "user"]


# -- on TensorFlow, in this process -------------------------------------------------------------------------------
@pytest.fixture
def tf():
    """TensorFlow, run eagerly as a TF2 program runs: another test of the same worker process may have switched it
    to graph mode (``tf.compat.v1.disable_eager_execution()``, which cannot be undone), and a variable made in graph
    mode is out of scope in the watch's eager block."""
    tensorflow = pytest.importorskip("tensorflow")
    from tensorflow.python.eager import context

    from tfguard.runtime import tf_access

    if tf_access.function_hooks() is None:
        pytest.skip("needs TensorFlow 2.13+")
    with context.eager_mode():
        yield tensorflow


@contextmanager
def _watched():
    """A StepWatch and a ProgramWatch (Keras calls) as `tfguard run` starts them; yields the step record."""
    from tensorflow.python.eager import context

    steps = StepWatch()
    program = ProgramWatch(steps)
    with context.eager_mode():
        steps.start()
        program.start()
        try:
            yield steps.record
        finally:
            program.stop()
            steps.stop()
    assert not steps.failed and not program.failed


def _gan(tf):
    """Two variables, each with its own optimizer (a GAN's generator and discriminator)."""
    d, g = tf.Variable(1.0), tf.Variable(2.0)
    return d, g, tf.keras.optimizers.SGD(0.1), tf.keras.optimizers.SGD(0.1)


def test_an_eager_gan_step_applying_two_optimizers_is_one_step(tf):
    d, g, d_opt, g_opt = _gan(tf)

    def train_step():
        for variable, optimizer in ((d, d_opt), (g, g_opt)):
            with tf.GradientTape() as tape:
                loss = variable * variable
            optimizer.apply_gradients([(tape.gradient(loss, variable), variable)])

    with _watched() as record:
        for _ in range(5):
            with tf.GradientTape(persistent=True) as tape:
                loss = d * g
            d_opt.apply_gradients([(tape.gradient(loss, d), d)])
            g_opt.apply_gradients([(tape.gradient(loss, g), g)])
    assert (record.mode, record.eager_steps) == ("eager", 5)
    with _watched() as record:
        for _ in range(4):
            train_step()  # an inner loop over the optimizers, in the step function: one step per optimizer
    assert record.eager_steps == 8


def test_two_compiled_step_functions_called_per_batch_are_one_step(tf):
    d, g, d_opt, g_opt = _gan(tf)

    @tf.function
    def train_d():
        with tf.GradientTape() as tape:
            loss = d * g
        d_opt.apply_gradients([(tape.gradient(loss, d), d)])

    @tf.function
    def train_g():
        with tf.GradientTape() as tape:
            loss = d * g
        g_opt.apply_gradients([(tape.gradient(loss, g), g)])

    with _watched() as record:
        for _ in range(6):
            train_d()
            train_g()
    assert record.compiled_steps == 6 and len(record.starts) == 6
    assert sorted(f.calls for f in record.functions.values()) == [6, 6]


def test_summary_calls_that_record_nothing_are_not_writes(tf, tmp_path):
    with _watched() as record:
        for step in range(5):
            tf.summary.scalar("loss", 1.0, step=step)  # no default writer: returns False
        writer = tf.summary.create_file_writer(str(tmp_path))
        with writer.as_default(step=0):
            with tf.summary.record_if(False):
                tf.summary.scalar("loss", 1.0)
                tf.summary.histogram("w", [1.0, 2.0])
            for _ in range(3):
                tf.summary.scalar("loss", 1.0)  # writes
    assert _summary_writes(record) == 3


def _summary_writes(record):
    return sum(cost.count for (kind, _, _), cost in record.writes.items() if kind == "summary")


def test_a_tensorboard_callback_writing_per_epoch_counts_its_epochs_writes_only(tf, tmp_path):
    # Keras 3 calls tf.summary.scalar for every batch under update_freq="epoch" too: those write nothing
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    found = {}
    for update_freq in ("epoch", 1):
        board = tf.keras.callbacks.TensorBoard(str(tmp_path / str(update_freq)), histogram_freq=1,
                                               update_freq=update_freq)
        with _watched() as record:
            model.fit(np.zeros((128, 2)), np.zeros((128, 1)), batch_size=4, epochs=2, verbose=0, callbacks=[board])
        found[update_freq] = (record.steps, _summary_writes(record))
    (steps, per_epoch), (_, per_batch) = found["epoch"], found[1]
    assert steps == 64 and per_epoch <= 2 * 8, found  # a few scalars and histograms per epoch
    assert per_batch >= steps, found  # the per-batch twin still writes every step


def test_batches_a_predict_takes_are_not_the_steps_input(tf):
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    dataset = tf.data.Dataset.from_tensor_slices(np.zeros((40, 2), "float32")).batch(4)
    with _watched() as alone:
        for _ in dataset:  # the program's own batches: counted
            pass
    with _watched() as record:
        model.predict(dataset, verbose=0)
        model.evaluate(dataset.map(lambda x: (x, x[:, :1])), verbose=0)
        for _ in dataset:
            pass
    assert alone.next_count >= 10 and record.next_count == alone.next_count


def _guard_frames(text_or_tb):
    text = text_or_tb if isinstance(text_or_tb, str) else "".join(traceback.format_tb(text_or_tb))
    return [line for line in text.splitlines() if _GUARD_DIR in line]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="a bare raise re-raises the exception's own traceback: 3.11+")
def test_errors_raised_in_a_generator_a_map_a_summary_and_a_callback_show_no_guard_frame(tf, tmp_path):
    def batches():
        yield np.zeros(2, "float32")
        raise ValueError("the generator's error")

    class Failing(tf.keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            raise RuntimeError("the callback's error")

    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    raised = []
    with _watched():
        dataset = tf.data.Dataset.from_generator(batches, output_signature=tf.TensorSpec((2,), tf.float32))
        with pytest.raises(tf.errors.InvalidArgumentError) as generator:
            for _ in dataset:
                pass
        raised.append(generator.value)
        with pytest.raises(TypeError) as mapped:
            dataset.map(lambda x: x + "1")  # the map's function fails as it is traced
        raised.append(mapped.value)
        with tf.summary.create_file_writer(str(tmp_path)).as_default(step=0):
            with pytest.raises(Exception) as summary:
                tf.summary.scalar("loss", "not a number")
        raised.append(summary.value)
        with pytest.raises(RuntimeError) as callback:
            model.fit(np.zeros((8, 2)), np.zeros((8, 1)), batch_size=4, verbose=0, callbacks=[Failing()])
        raised.append(callback.value)
    # TensorFlow puts the generator's traceback in its error's text: the user's line is there, the guard's is not
    assert "the generator's error" in str(raised[0]) and "in batches" in str(raised[0])
    assert _guard_frames(str(raised[0])) == []
    for exc in raised:
        assert _guard_frames(exc.__traceback__) == [], (exc, traceback.format_tb(exc.__traceback__))
    assert traceback.extract_tb(raised[3].__traceback__)[-1].name == "on_train_batch_end"
