"""`tfguard.watch_functions()` on real tf.functions and Keras models (TensorFlow 2.13+): every call and trace
counted, TFG908 naming the definition, the calling line and what changed."""

from __future__ import annotations

import sys
import warnings

import pytest

tf = pytest.importorskip("tensorflow")

import tfguard  # noqa: E402
from tfguard.runtime import tf_access  # noqa: E402
from tfguard.runtime.capture import function_calls  # noqa: E402

pytestmark = pytest.mark.skipif(tf_access.function_hooks() is None, reason="needs TensorFlow 2.13+")


@pytest.fixture(autouse=True)
def eager():
    """Run each test eagerly, as a TF2 program does: another test of the same worker process may have switched
    TensorFlow to graph mode (``tf.compat.v1.disable_eager_execution()``, which cannot be undone)."""
    from tensorflow.python.eager import context

    with context.eager_mode():
        yield


def _line_of(function, text):
    """The line number of the first line of `function`'s source that contains `text`."""
    import inspect

    lines, start = inspect.getsourcelines(function)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _retracing_scalar():
    @tf.function
    def step(x, n):
        return x * n

    for i in range(12):
        step(tf.ones([4, 3]), i)  # CALL


def test_a_python_scalar_argument_is_named_with_its_lines():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with tfguard.watch_functions() as functions:
            _retracing_scalar()
    call_line = _line_of(_retracing_scalar, "# CALL")
    (diagnostic,) = functions.report().diagnostics
    assert diagnostic.severity == "warning" and diagnostic.code == "TFG908"
    assert diagnostic.line == call_line and diagnostic.path == __file__
    evidence = diagnostic.evidence
    assert evidence["definition_line"] == _line_of(_retracing_scalar, "@tf.function")
    assert evidence["traces"] == 12 and evidence["calls"] == 12
    assert "argument `n`: Python value 10 -> 11 (11 times)" in diagnostic.headline
    assert "tracing took" in diagnostic.headline and "running" in diagnostic.headline
    alerts = [w for w in caught if issubclass(w.category, tfguard.RetracingWarning)]
    assert len(alerts) == 1 and alerts[0].lineno == call_line and alerts[0].filename == __file__


def test_shapes_dtypes_and_new_objects_are_said():
    class Adam:
        pass

    @tf.function
    def f(x, opt=None):
        return tf.reduce_sum(tf.cast(x, tf.float32))

    with tfguard.watch_functions() as functions:
        f(tf.ones([32, 10]))
        f(tf.ones([17, 10]))
        f(tf.ones([17, 10], tf.float64))
        f(tf.ones([17, 10], tf.float64), Adam())
    (record,) = functions.report().functions
    kinds = {change["kind"]: change["text"] for change in record["changes"]}
    assert kinds["shape"] == "argument `x`: shape float32[32, 10] -> float32[17, 10]"
    assert kinds["dtype"] == "argument `x`: dtype float32[17, 10] -> float64[17, 10]"
    assert kinds["object"] == "argument `opt`: a new object of class Adam"


def test_tensor_arguments_and_one_function_are_silent():
    @tf.function
    def step(x, n):
        return x * n

    with tfguard.watch_functions() as functions:
        for i in range(30):
            step(tf.ones([4, 3]), tf.constant(float(i)))
    assert functions.report().diagnostics == []
    (record,) = functions.report().functions
    assert record["calls"] == 30 and record["traced_calls"] == 1


def test_a_training_flag_is_information():
    @tf.function
    def forward(x, training):
        return x * 2.0 if training else x

    with tfguard.watch_functions() as functions:
        for i in range(20):
            forward(tf.ones([2]), i % 2 == 0)
    (diagnostic,) = functions.report().diagnostics
    assert diagnostic.severity == "info" and "Python value True -> False" in diagnostic.headline


def test_a_tf_function_made_per_iteration_keeps_retracing():
    with tfguard.watch_functions() as functions:
        for _ in range(8):
            double = tf.function(lambda x: x * 2.0)
            double(tf.ones([2]))
    (diagnostic,) = functions.report().diagnostics
    assert diagnostic.severity == "warning" and "of 8 tf.function objects" in diagnostic.headline
    assert "a new tf.function object" in diagnostic.headline


def test_functions_called_inside_a_function_are_part_of_its_trace():
    @tf.function
    def inner(x, n):
        return x * n

    @tf.function
    def outer(x):
        return inner(x, 2) + inner(x, 3)

    with tfguard.watch_functions() as functions:
        for _ in range(10):
            outer(tf.ones([2]))
    assert [(f["function"], f["calls"], f["traced_calls"]) for f in functions.report().functions] == [
        ("test_functions_called_inside_a_function_are_part_of_its_trace.outer", 10, 1)]


def test_a_keras_model_built_per_prediction_keeps_retracing_and_one_model_is_silent():
    keras = pytest.importorskip("keras")
    import numpy as np

    data = np.ones((4, 3), dtype="float32")
    with tfguard.watch_functions() as functions:
        for _ in range(6):
            model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
            model.predict(data, verbose=0)  # PREDICT
    warned = [d for d in functions.report().diagnostics if d.severity == "warning"]
    assert len(warned) == 1 and warned[0].path == __file__
    this_test = test_a_keras_model_built_per_prediction_keeps_retracing_and_one_model_is_silent
    assert warned[0].line == _line_of(this_test, "# PREDICT")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    with tfguard.watch_functions() as functions:
        for _ in range(6):
            model.predict(data, verbose=0)
    assert functions.report().diagnostics == []


def _make_model(keras):
    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])  # the factory's own line: not the one


@pytest.mark.parametrize("package", ["keras", "tf_keras"])
def test_a_keras_model_built_per_call_is_named_where_the_loop_builds_it(package):
    keras = pytest.importorskip(package)
    import numpy as np

    data = np.ones((1, 3), dtype="float32")
    with tfguard.watch_functions() as functions:
        for _ in range(6):
            model = _make_model(keras)  # BUILD
            model.predict(data, verbose=0)  # PREDICT
    (warned,) = [d for d in functions.report().diagnostics if d.severity == "warning"]
    this_test = test_a_keras_model_built_per_call_is_named_where_the_loop_builds_it
    assert (warned.path, warned.line) == (__file__, _line_of(this_test, "# PREDICT"))
    named = [(site.path, site.line) for site in warned.sites[1:]]
    assert named == [(__file__, _line_of(this_test, "# BUILD"))]
    assert "the model is built again at" in warned.headline and "for each call" in warned.headline
    (record,) = [f for f in functions.report().functions if f["built_at"]]
    assert record["built_at"] == [{"path": __file__, "line": _line_of(this_test, "# BUILD"), "models": 5}]


def test_a_subclassed_model_is_named_where_it_is_built_not_at_its_super_init():
    keras = pytest.importorskip("keras")
    import numpy as np

    class Net(keras.Model):
        def __init__(self):
            super().__init__()  # SUPER: inside the model's own constructor
            self.dense = keras.layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    def infer(x):
        net = Net()  # BUILD
        return net.predict(x, verbose=0)  # PREDICT

    data = np.ones((1, 3), dtype="float32")
    with tfguard.watch_functions() as functions:
        for _ in range(6):
            infer(data)
    (warned,) = [d for d in functions.report().diagnostics if d.severity == "warning"]
    this_test = test_a_subclassed_model_is_named_where_it_is_built_not_at_its_super_init
    assert warned.line == _line_of(this_test, "# PREDICT")
    assert [site.line for site in warned.sites[1:]] == [_line_of(this_test, "# BUILD")]


def test_a_model_built_before_the_watch_is_not_said_to_be_built_again():
    keras = pytest.importorskip("keras")
    import numpy as np

    data = np.ones((1, 3), dtype="float32")
    models = [_make_model(keras) for _ in range(6)]  # built while no watch runs: their building is not noted
    with tfguard.watch_functions() as functions:
        for model in models:
            model.predict(data, verbose=0)
    (warned,) = [d for d in functions.report().diagnostics if d.severity == "warning"]
    assert "built again" not in warned.headline and len(warned.sites) == 1


def _make_step(scale):
    @tf.function
    def step(x):
        return x * scale

    return step  # the factory's own line: not the one to change


def test_a_function_created_per_call_is_named_where_the_loop_creates_it():
    with tfguard.watch_functions() as functions:
        for _ in range(8):
            step = _make_step(2.0)  # CREATE
            step(tf.ones([2]))  # CALL
    (diagnostic,) = functions.report().diagnostics
    this_test = test_a_function_created_per_call_is_named_where_the_loop_creates_it
    assert diagnostic.severity == "warning" and diagnostic.line == _line_of(this_test, "# CALL")
    named = [(site.path, site.line) for site in diagnostic.sites[1:]]
    assert named[0] == (__file__, _line_of(this_test, "# CREATE"))
    assert "created again at" in diagnostic.headline


def test_keras_train_and_test_functions_are_not_a_model_created_again():
    keras = pytest.importorskip("keras")
    import numpy as np

    x, y = np.ones((32, 3), dtype="float32"), np.ones((32, 1), dtype="float32")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    with tfguard.watch_functions() as functions:
        model.fit(x, y, batch_size=8, epochs=3, validation_split=0.25, verbose=0)  # FIT
    report = functions.report()
    assert all("created again" not in d.headline and d.severity == "info" for d in report.diagnostics)
    assert all(change["kind"] != "new-function" for f in report.functions for change in f["changes"])
    assert all("keras/src" not in d.headline for d in report.diagnostics)


def test_the_patches_are_undone_after_the_block():
    hooks = tf_access.function_hooks()
    call, trace = hooks.function_class.__call__, getattr(hooks.tracing_module, hooks.trace_name)
    with tfguard.watch_functions() as functions:
        assert hooks.function_class.__call__ is not call
        with tfguard.watch_functions():  # nested: the patches stay until the last watch ends
            pass
        assert hooks.function_class.__call__ is not call
    assert hooks.function_class.__call__ is call and getattr(hooks.tracing_module, hooks.trace_name) is trace
    assert functions.available and not function_calls._sinks


def test_the_model_constructor_patch_is_undone_after_the_block():
    pytest.importorskip("keras")
    from keras.src.backend.tensorflow.trainer import TensorFlowTrainer

    init, finders = vars(TensorFlowTrainer)["__init__"], list(sys.meta_path)
    with tfguard.watch_functions():
        assert vars(TensorFlowTrainer)["__init__"] is not init
    assert vars(TensorFlowTrainer)["__init__"] is init and sys.meta_path == finders


def test_an_internal_error_stops_the_watch_not_the_program(capsys):
    @tf.function
    def f(x):
        return x + 1.0

    with tfguard.watch_functions() as functions:
        functions.called = None  # a broken sink: calling it raises TypeError
        assert float(f(tf.constant(1.0))) == 2.0
        assert float(f(tf.constant(2.0))) == 3.0
    assert functions.failed and "tfguard: internal error in a tf.function call" in capsys.readouterr().err
