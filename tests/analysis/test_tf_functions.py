"""TF 2 tf.function facts (TFG401-TFG405): which calls reach a tf.function, what varies, when TF 2 code it is.

Mutation sample of ``tfguard/static/analysis/retrace_arguments.py`` (issue 46; ``python tools/mutation_sample.py
tfguard/static/analysis/retrace_arguments.py --sample 60 -- -m "not slow" tests/analysis/test_tf_functions.py
tests/fixes/test_retracing_fixes.py``, seed 40): the survivors judged equivalent, each with why:

- ``return False`` -> ``return None`` at the end of ``_initialised_to_number``, ``_returns_python``,
  ``_is_python`` and ``is_int_counter``: every caller reads the result as a truth value (``if``, ``and``, ``all``).
- ``_MAX_DEPTH = 10`` -> ``11``, ``varying_scalar``'s starting depth ``0`` -> ``1``, a unary operand's
  ``depth + 1`` -> ``depth + 2``: the depth only bounds the work on chains of assignments 10 deep, which no
  program writes; no verdict is made from it.
"""

import textwrap

import astroid
import pytest
from astroid import nodes

from tests.catalog_paths import fixture_files
from tfguard import check_source
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.retrace_arguments import is_int_counter, parameter_for, tensor_uses, varying_scalar
from tfguard.static.analysis.tf_functions import tf2_code, tf_functions
from tfguard.static.config import Settings

HEADER = "import numpy as np\nimport tensorflow as tf\n"
TF2_RULES = Settings(select=("TFG4",))


def analyse(source: str) -> ModuleAnalysis:
    return ModuleAnalysis(astroid.parse(HEADER + textwrap.dedent(source)), "m.py")


def calls_of(analysis: ModuleAnalysis, name: str):
    return [c for c in analysis.nodes_of(nodes.Call) if c.func.as_string() == name]


def codes(source: str, settings: Settings = TF2_RULES):
    found = check_source(HEADER + textwrap.dedent(source), "m.py", settings)
    return sorted((f.line - 2, f.code) for f in found)  # lines of the dedented source, after HEADER


def test_calls_reach_decorated_defs_bound_names_and_self_attributes():
    analysis = analyse("""
        @tf.function
        def step(x):
            return x

        def plain(x):
            return x

        fast = tf.function(plain, input_signature=[tf.TensorSpec([None])])

        class Agent:
            def __init__(self):
                self._act = tf.function(self.act_body, reduce_retracing=True)

            @tf.function
            def train(self, x):
                return x

            def act_body(self, x):
                return x

            def run(self, x):
                return self._act(x), self.train(x)

        step(1); fast(2); plain(3)
    """)
    facts = tf_functions(analysis)
    assert facts.traced_of(calls_of(analysis, "step")[0]).label == "step"
    assert facts.traced_of(calls_of(analysis, "fast")[0]).has_signature
    assert facts.traced_of(calls_of(analysis, "plain")[0]) is None
    assert facts.traced_of(calls_of(analysis, "self._act")[0]).relaxes_shapes
    assert facts.traced_of(calls_of(analysis, "self.train")[0]).label == "train"


def test_code_inside_a_tf_function_runs_only_while_it_traces():
    analysis = analyse("""
        @tf.function
        def outer(x):
            def helper(y):
                return inner(y)
            @tf.function
            def inner(y):
                return y
            return helper(x)
    """)
    facts = tf_functions(analysis)
    (helper_call,) = calls_of(analysis, "inner")
    assert facts.inside_trace(helper_call)


@pytest.mark.parametrize("source, expected", [
    ("with tf.summary.create_file_writer('l').as_default():\n    pass\n", True),  # TF 2 summaries
    ("sess = tf.Session()\n", False),
    ("tf.compat.v1.disable_eager_execution()\n", False),
    ("x = tf.placeholder(tf.float32)\n", False),
])
def test_tf2_code_is_told_from_graph_mode_code(source, expected):
    assert tf2_code(analyse(source)) is expected


def _argument_reason(source: str, position: int):
    analysis = analyse(source)
    call = calls_of(analysis, "step")[-1]
    return varying_scalar(analysis, call.args[position], call)


@pytest.mark.parametrize("source, varies", [
    ("for epoch in range(n):\n    step(x, epoch)\n", True),
    ("for i, batch in enumerate(ds):\n    step(batch, i)\n", True),
    ("s = 0\nwhile True:\n    s += 1\n    step(x, s)\n", True),
    ("def lr(e):\n    return 0.1 * 0.9 ** e\nfor e in range(n):\n    r = lr(e)\n    step(x, r)\n", True),
    ("for e in range(n):\n    t = max(1.0, 10.0 * 0.99 ** e)\n    step(x, t)\n", True),
    ("for e in range(n):\n    step(x, f'run {e}')\n", True),
    ("for e in range(n):\n    step(x, 0.2)\n", False),
    ("for e in range(n):\n    step(x, tf.constant(e))\n", False),
    # NumPy values are traced as Tensors (TF 2.21: a NumPy scalar taking 6 values traced once)
    ("for e in range(n):\n    w = min(5.0, 50 / (1 + np.exp(3 - e)))\n    step(x, w)\n", False),
    ("for n_, batch in ds.enumerate():\n    step(batch, n_)\n", False),
    ("for e in range(n):\n    step(x, sigmas[e])\n", False),  # of unknown kind: silent
    # issue 46: operands of unknown kind, unary operands, helpers that are not Python arithmetic
    ("for e in range(n):\n    r = w[0] * e\n    step(x, r)\n", False),
    ("for e in range(n):\n    r = e * w[0]\n    step(x, r)\n", False),
    ("for e in range(n):\n    r = -0.5 * e\n    step(x, r)\n", True),
    ("for e in range(n):\n    r = -w[0] * e\n    step(x, r)\n", False),
    ("for e in range(n):\n    step(x, -e)\n", True),
    ("for e in range(n):\n    r = 0.5 * -e\n    step(x, r)\n", True),
    ("def lr(e):\n    return tf.exp(e)\nfor e in range(n):\n    r = lr(e)\n    step(x, r)\n", False),
    ("def lr(e):\n    pass\nfor e in range(n):\n    r = lr(e)\n    step(x, r)\n", False),
    ("def lr(e):\n    if e:\n        return 0.1 * e\n    return t.numpy()\nfor e in range(n):\n    r = lr(e)\n"
     "    step(x, r)\n", False),
    ("def lr(e):\n    return -e if e > 3 else max(0.1, float(e))\nfor e in range(n):\n    r = lr(e)\n"
     "    step(x, r)\n", True),
    ("def lr(e):\n    return math.exp(-e)\nfor e in range(n):\n    r = lr(e)\n    step(x, r)\n", True),
    ("def lr(e):\n    return np.exp(-e)\nfor e in range(n):\n    r = lr(e)\n    step(x, r)\n", False),
    ("def lr(e):\n    return True\nfor e in range(n):\n    r = lr(e)\n    step(x, r)\n", False),
    ("for e in range(n):\n    r = 'a' + str(e)\n    step(x, r)\n", True),
    ("for e in range(n):\n    r = True + e\n    step(x, r)\n", False),
    ("for e in range(n):\n    r = int(t.item()) * e\n    step(x, r)\n", True),
    ("for e in range(n):\n    r = t.numpy() * e\n    step(x, r)\n", False),
    ("for e in range(n):\n    r = t.item() * e\n    step(x, r)\n", True),
    ("for e in range(n):\n    q = e * 2\n    step(x, r)\n", False),  # another name varies
    ("for e in range(n):\n    r, q = e * 2, 1\n    step(x, r)\n", False),  # unpacking is not followed
    ("for e in range(n):\n    r = '{}'.format(e)\n    step(x, r)\n", True),
    ("for e in range(n):\n    r = fmt.format(e)\n    step(x, r)\n", False),
    ("for e in range(n):\n    r = abs(t) * e\n    step(x, r)\n", False),
    ("for e in range(n):\n    r = abs(3) * e\n    step(x, r)\n", True),
    ("for e in range(n):\n    r = math.sqrt(2) * e\n    step(x, r)\n", True),
    ("for e in range(n):\n    r = f'{e}'\n    step(x, r)\n", True),
    ("for e in range(n):\n    step(x, float(e))\n", True),
    ("for e in range(n):\n    step(x, t.item())\n", True),
    ("for e in range(n):\n    step(x, g(e))\n", False),
    ("s = 0.0\nwhile True:\n    s += 0.5\n    step(x, s)\n", True),
    ("s = True\nwhile True:\n    s += 1\n    step(x, s)\n", False),
    ("s = t\nwhile True:\n    s += 1\n    step(x, s)\n", False),
    ("s = 0\nwhile True:\n    s += d\n    step(x, s)\n", False),
    ("for e in range(n):\n    def inner():\n        r = e * 2\n    r = t\n    step(x, r)\n", False),
    ("for a, b in zip(p, q):\n    step(x, a)\n", False),
    ("for e in items:\n    step(x, e)\n", False),
    ("for i, (a, b) in enumerate(ds):\n    step(x, i)\n", True),
    ("for b, i in enumerate(ds):\n    step(x, i)\n", False),
    ("for e in ds.range(n):\n    step(x, e)\n", False),
])
def test_varying_python_scalars(source, varies):
    body = "@tf.function\ndef step(x, v):\n    return x\n" + source
    assert (_argument_reason(body, 1) is not None) is varies


@pytest.mark.parametrize("body, uses", [
    ("return x", {"unused"}),
    ("return x * tf.cast(v, tf.float32)", {"cast"}),
    ("tf.summary.scalar('l', x, step=v)\n    return x", {"summary_step"}),
    ("return x * v", None),  # arithmetic: an int32 Tensor times a float32 one fails where the int converted
    ("if v > 3:\n        return x\n    return -x", None),
    ("return tf.zeros([v])", None),
    ("v = v + 1\n    return x", None),
    # issue 46: a use the fix keeps, then one it does not (the scan must go on past the first)
    ("tf.summary.scalar('l', x, step=v)\n    if v > 5:\n        return x\n    return -x", None),
    ("y = tf.cast(v, tf.float32)\n    if v > 5:\n        return y\n    return -x", None),
    ("tf.summary.scalar('l', x, step=v)\n    return x * tf.cast(v, tf.float32)", {"cast", "summary_step"}),
    ("return tf.cast(x, v)", None),
    ("log(x, step=v)\n    return x", None),
    ("tf.summary.scalar('l', x, v)\n    return x", None),
    ("tf.summary.scalar('l', x, description=v)\n    return x", None),
    ("for v in range(3):\n        x = x + 1\n    return x", None),
])
def test_a_parameter_is_used_only_as_a_tensor_where_a_tensor_computes_the_same(body, uses):
    analysis = analyse(f"@tf.function\ndef step(x, v):\n    {body}\n")
    traced = tf_functions(analysis).all()[0]
    found = tensor_uses(analysis, traced, "v")
    assert (set(found) if found is not None else None) == uses


def test_the_tf2_rules_stay_silent_on_the_tf1_fixtures():
    for path in fixture_files():
        if path.name.startswith("tf2_") and not path.name.startswith("tf2_strategy"):  # the TF 2 fixtures
            continue
        found = check_source(path.read_text(encoding="utf-8"), str(path), TF2_RULES)
        assert [f"{f.line}: {f.code}" for f in found if f.code.startswith("TFG4")] == [], path.name


def test_the_tf1_rules_stay_silent_on_the_tf2_fixtures():
    tf1 = Settings(select=("TFG1", "TFG2", "TFG3"))
    for name in ("tf2_retracing_custom_loop.py", "tf2_retracing_custom_loop_fixed.py", "tf2_models_per_request.py",
                 "tf2_dqn_agent_predict.py", "tf2_gradient_tape_steps.py"):
        path = next(p for p in fixture_files() if p.name == name)
        found = check_source(path.read_text(encoding="utf-8"), str(path), tf1)
        assert [f"{f.line}: {f.code}" for f in found] == [], name


def test_a_factory_called_per_iteration_and_one_called_once():
    assert codes("""
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

        def make_step():
            @tf.function
            def step(x):
                return model(x)
            return step

        once = make_step()
        for x in data:
            once(x)
            fresh = make_step()
            fresh(x)
    """) == [(13, "TFG401")]


def test_a_per_run_factory_given_a_new_optimizer_is_silent():
    # Stronger_GCN's shape: the new optimizer would retrace a hoisted function anyway.
    assert codes("""
        def trainer():
            @tf.function
            def step(model, optimizer, x):
                return model(x)
            return step

        for run in range(runs):
            optimizer = tf.keras.optimizers.Adam()
            train = trainer()
            for epoch in range(epochs):
                train(model, optimizer, x)
    """) == []


def test_a_helper_whose_nested_function_uses_the_layer_it_is_given_is_silent():
    # dynastes' shape: each call is given another layer, which the traced function calls.
    assert codes("""
        def time_layer(layer, q):
            @tf.function
            def run(x):
                return layer(x)
            return run(q)

        for layer in layers:
            time_layer(layer, q)
    """) == []


def test_a_model_built_by_a_helper_that_trains_it_is_silent():
    # brb's shape: `training()` builds, fits and returns a model per fold.
    assert codes("""
        def training(x, y):
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(loss="mse")
            model.fit(x, y)
            return model

        for fold in folds:
            model = training(fold.x, fold.y)
            print(model.evaluate(fold.x, fold.y))
    """) == []


def test_a_loop_of_a_few_iterations_named_by_a_constant_is_a_bounded_handful():
    # qhbm-library's tests: `num_rerolls = 5`, `for _ in range(num_rerolls)` in a test function.
    assert codes("""
        def test_fidelity():
            num_rerolls = 5
            for _ in range(num_rerolls):
                fidelity = tf.function(lambda a: a * 2)
                fidelity(1.0)
    """) == []
    assert codes("""
        num_rerolls = 4
        for _ in range(num_rerolls):
            fidelity = tf.function(lambda a: a * 2)
            fidelity(1.0)
    """) == []


def test_a_literal_loop_of_five_traces_is_reported_outside_tests():
    # TensorFlow warns at 5 traces in 10 calls: a script's loop of 5 or more literal iterations that retraces on
    # each is reported (issue 44); 4 stay silent.
    assert codes("""
        for factor in [0.5, 1.0, 2.0, 4.0, 8.0]:
            scale(x, factor)
    """.replace("scale(x", "tf.function(lambda a, b: a * b)(x")) == [(3, "TFG401")]
    assert codes("""
        @tf.function
        def scale(a, b):
            return a * b

        for factor in [0.5, 1.0, 2.0, 4.0, 8.0]:
            scale(x, factor)
        for factor in [0.5, 1.0, 2.0, 4.0]:
            scale(x, factor)
    """) == [(7, "TFG403")]


def test_a_function_made_per_iteration_for_the_objects_that_iteration_makes_is_silent():
    # qhbm-library's tests: new Keras objects per configuration, handed to a tf.function of an unreadable helper.
    assert codes("""
        for n in sizes:
            data_h, data_infer = make_objects(n)
            data_h.set_weights(weights)
            loss = tf.function(library.loss)
            loss(data_infer, data_h)  # and TFG405 leaves the new objects to TFG401's judgement
    """) == []


@pytest.mark.parametrize("call_text, argument, parameter", [
    ("step(x, v)", "v", "v"),
    ("step(x, v=e)", "e", "v"),
    ("step(v=e, x=x)", "x", "x"),
    ("step(x, *rest)", "x", None),
    ("step(x, e, 3)", "3", None),  # more arguments than parameters
    ("model.step(x, e)", "e", "v"),  # a method called on an object: `self` is not an argument
])
def test_the_parameter_an_argument_fills(call_text, argument, parameter):
    analysis = analyse(f"class M:\n    @tf.function\n    def step(self, x, v):\n        return x\n"
                       f"@tf.function\ndef step(x, v):\n    return x\nfor e in range(n):\n    {call_text}\n")
    call = calls_of(analysis, call_text.split("(")[0])[-1]
    traced = tf_functions(analysis).all()[0 if call_text.startswith("model.") else -1]  # M.step, or step
    node = next(n for n in list(call.args) + [k.value for k in call.keywords or ()] if n.as_string() == argument)
    assert parameter_for(traced, call, node) == parameter


@pytest.mark.parametrize("loop, counter", [
    ("for e in range(n):\n    step(x, e)\n", True),
    ("for i, b in enumerate(ds):\n    step(x, i)\n", True),
    ("for e in items:\n    step(x, e)\n", False),
    ("e = 0\nwhile True:\n    e += 1\n    step(x, e)\n", True),
    ("e = 0.0\nwhile True:\n    e += 1\n    step(x, e)\n", False),  # a float: tf.constant would make it float32
    ("e = 0\nwhile True:\n    e += 0.5\n    step(x, e)\n", False),
    ("e = 0\ne = 0.0\nwhile True:\n    e += 1\n    step(x, e)\n", False),
    ("while True:\n    e += 1\n    step(x, e)\n", False),  # started nowhere the module shows
    ("for e in range(n):\n    step(x, e + 1)\n", False),
    ("e = 0\nk = 0.0\nwhile True:\n    k += 0.5\n    e += 1\n    step(x, e)\n", True),  # another name counted first
])
def test_an_int_counter_is_told_from_other_numbers(loop, counter):
    analysis = analyse("@tf.function\ndef step(x, v):\n    return x\n" + loop)
    call = calls_of(analysis, "step")[-1]
    assert is_int_counter(call.args[1], call) is counter
