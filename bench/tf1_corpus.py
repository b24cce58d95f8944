"""A generated corpus of TF1-style projects for the speed benchmark.

Files come from templates filled with random names and sizes (a fixed seed
gives the same corpus every time): layer helpers, models, input pipelines,
training scripts with session loops (a few with the mistakes tfguard reports),
evaluation code, and plain utilities that never mention TensorFlow.  Import
styles vary the way real TF1 code does.
"""

from __future__ import annotations

import os
import random
from typing import Dict, List

IMPORT_STYLES = (
    "import tensorflow as tf\n",
    "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n",
    "import tensorflow.compat.v1 as tf\n",
    "from tensorflow.compat import v1 as tf\n",
    "import tensorflow\ntf = tensorflow\n",
)

_WORDS = (
    "conv", "dense", "res", "attn", "embed", "proj", "norm", "pool", "gate", "mix", "head", "stem", "block",
    "fuse", "score", "logit", "feat", "enc", "dec", "ctx", "query", "key", "value", "mask", "seq", "img",
    "text", "audio", "loss", "metric", "batch", "step", "lr", "decay", "warm", "clip", "grad", "opt",
)
_ACTIVATIONS = ("tf.nn.relu", "tf.nn.elu", "tf.nn.tanh", "tf.nn.sigmoid", "None")


class _Names:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: Dict[str, int] = {}

    def make(self, parts: int = 2) -> str:
        base = "_".join(self.rng.choice(_WORDS) for _ in range(parts))
        count = self.used.get(base, 0)
        self.used[base] = count + 1
        return base if count == 0 else f"{base}_{count}"


def _layer_function(rng: random.Random, names: _Names) -> str:
    name = names.make()
    lines = [
        f"def {name}(x, units={rng.choice((32, 64, 128, 256))}, training=False, scope=None):",
        f'    """Build the {name.replace("_", " ")} block on ``x``."""',
        f'    with tf.variable_scope(scope or "{name}", reuse=tf.AUTO_REUSE):',
    ]
    for index in range(rng.randint(2, 7)):
        kind = rng.randrange(6)
        act = rng.choice(_ACTIVATIONS)
        if kind == 0:
            lines.append(f'        x = tf.layers.dense(x, units, activation={act}, name="dense_{index}")')
        elif kind == 1:
            lines.append("        x = tf.layers.batch_normalization(x, training=training)")
        elif kind == 2:
            lines.append(f"        x = tf.nn.dropout(x, keep_prob={rng.choice((0.5, 0.8, 0.9))})")
        elif kind == 3:
            lines.append(f'        w = tf.get_variable("w_{index}", [units, units],'
                         ' initializer=tf.glorot_uniform_initializer())')
            lines.append("        x = tf.matmul(x, w)")
        elif kind == 4:
            lines.append(f"        x = x + tf.reduce_mean(x, axis=-1, keepdims=True) * {rng.random():.3f}")
        else:
            lines.append("        if training:")
            lines.append(f"            x = tf.identity(x, name=\"{name}_train_{index}\")")
    lines.append("        return x")
    return "\n".join(lines) + "\n"


def _layers_module(rng: random.Random, names: _Names) -> str:
    body = [rng.choice(IMPORT_STYLES), "\n"]
    body += ["\n\n" + _layer_function(rng, names) for _ in range(rng.randint(4, 16))]
    return '"""Layer helpers."""\n\n' + "".join(body)


def _model_module(rng: random.Random, names: _Names, helpers: List[str]) -> str:
    cls = "".join(part.title() for part in names.make().split("_")) + "Model"
    uses = rng.sample(helpers, min(len(helpers), rng.randint(1, 4))) if helpers else []
    head = [rng.choice(IMPORT_STYLES)]
    for module, function in uses:
        head.append(f"from {module} import {function}\n")
    lines = [
        f"class {cls}(object):",
        f'    """The {cls} network."""',
        "",
        "    def __init__(self, hparams):",
        "        self.hparams = hparams",
        "        self.global_step = tf.train.get_or_create_global_step()",
        "",
        "    def build(self, features, labels, training=False):",
        '        x = tf.cast(features["inputs"], tf.float32)',
    ]
    for _, function in uses:
        lines.append(f"        x = {function}(x, training=training)")
    for index in range(rng.randint(1, 6)):
        lines.append(f'        x = tf.layers.dense(x, self.hparams.hidden_size, name="out_{index}")')
    lines += [
        "        logits = tf.layers.dense(x, self.hparams.num_classes)",
        "        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))",
        "        self.loss = loss",
        "        return logits, loss",
        "",
        "    def train_op(self, loss):",
        "        optimizer = tf.train.AdamOptimizer(self.hparams.learning_rate)",
        "        grads_and_vars = optimizer.compute_gradients(loss)",
        "        clipped = [(tf.clip_by_norm(g, 5.0), v) for g, v in grads_and_vars if g is not None]",
        "        return optimizer.apply_gradients(clipped, global_step=self.global_step)",
    ]
    for _ in range(rng.randint(1, 7)):
        extra = names.make()
        lines += [
            "",
            f"    def {extra}(self, x):",
            f'        """Helper {extra}."""',
            f"        return tf.reduce_sum(x * {rng.randint(1, 9)}, axis={rng.choice((0, 1, -1))})",
        ]
    return '"""A model."""\n\n' + "".join(head) + "\n\n" + "\n".join(lines) + "\n"


def _input_module(rng: random.Random, names: _Names) -> str:
    fn = names.make()
    lines = [
        rng.choice(IMPORT_STYLES),
        "",
        f"def {fn}_parse(record):",
        "    features = tf.parse_single_example(record, {",
        '        "inputs": tf.FixedLenFeature([%d], tf.float32),' % rng.choice((16, 32, 64)),
        '        "label": tf.FixedLenFeature([], tf.int64),',
        "    })",
        '    return features, features.pop("label")',
        "",
        "",
        f"def {fn}_dataset(pattern, batch_size={rng.choice((16, 32, 128))}, training=True):",
        '    """Return the batched input pipeline."""',
        "    files = tf.data.Dataset.list_files(pattern, shuffle=training)",
        "    dataset = files.interleave(tf.data.TFRecordDataset, cycle_length=4)",
        f"    dataset = dataset.map({fn}_parse, num_parallel_calls=4)",
        "    if training:",
        f"        dataset = dataset.shuffle({rng.choice((1000, 10000))}).repeat()",
        "    dataset = dataset.batch(batch_size).prefetch(1)",
        "    iterator = tf.data.make_one_shot_iterator(dataset)",
        "    return iterator.get_next()",
    ]
    for _ in range(rng.randint(1, 8)):
        extra = names.make()
        lines += ["", "", f"def {extra}(tensor):", f"    return tf.reshape(tensor, [-1, {rng.randint(2, 64)}])"]
    return '"""Input pipeline."""\n' + "\n".join(lines) + "\n"


def _train_module(rng: random.Random, names: _Names, models: List[str], inputs: List[str]) -> str:
    fn = names.make()
    head = [rng.choice(IMPORT_STYLES), "import os\nimport time\n"]
    if models:
        module, cls = rng.choice(models)
        head.append(f"from {module} import {cls}\n")
        model_line = f"    model = {cls}(hparams)"
    else:
        model_line = "    model = None"
    if inputs:
        module, function = rng.choice(inputs)
        head.append(f"from {module} import {function}\n")
        input_line = f"    features, labels = {function}(hparams.train_files)"
    else:
        input_line = "    features, labels = tf.placeholder(tf.float32, [None, 32]), tf.placeholder(tf.int64, [None])"
    mistake = rng.random()
    loop_extra: List[str] = []
    if mistake < 0.15:
        loop_extra = ["            saver = tf.train.Saver()",
                      "            saver.save(sess, os.path.join(logdir, 'ckpt'), step)"]
    elif mistake < 0.25:
        loop_extra = ["            sess.run(tf.global_variables_initializer())"]
    elif mistake < 0.32:
        loop_extra = ["            summary = tf.summary.scalar('loss', loss)",
                      "            writer.add_summary(sess.run(summary), step)"]
    lines = [
        "",
        "",
        f"def {fn}_log(step, value, started):",
        "    elapsed = time.time() - started",
        '    print("step %d loss %.4f (%.1fs)" % (step, value, elapsed))',
        "",
        "",
        f"def {fn}(hparams, logdir):",
        '    """Train the model and write checkpoints to ``logdir``."""',
        input_line,
        model_line,
        "    logits, loss = model.build(features, labels, training=True)",
        "    train_op = model.train_op(loss)",
        "    saver = tf.train.Saver(max_to_keep=5)",
        "    init = tf.global_variables_initializer()",
        "    writer = tf.summary.FileWriter(logdir)",
        "    with tf.Session() as sess:",
        "        sess.run(init)",
        "        started = time.time()",
        "        for step in range(hparams.train_steps):",
        "            _, value = sess.run([train_op, loss])",
        *loop_extra,
        f"            if step % {rng.choice((50, 100, 500))} == 0:",
        f"                {fn}_log(step, value, started)",
        "                saver.save(sess, os.path.join(logdir, 'model.ckpt'), global_step=step)",
        "    writer.close()",
    ]
    for _ in range(rng.randint(1, 7)):
        extra = names.make()
        lines += [
            "",
            "",
            f"def {extra}(sess, tensors, feeds):",
            "    results = []",
            "    for feed in feeds:",
            "        results.append(sess.run(tensors, feed_dict=feed))",
            "    return results",
        ]
    lines += ["", "", 'if __name__ == "__main__":', f"    {fn}(None, '/tmp/{fn}')"]
    return '"""Training entry point."""\n' + "".join(head) + "\n".join(lines) + "\n"


def _plain_module(rng: random.Random, names: _Names) -> str:
    lines = ['"""Utilities without TensorFlow."""', "import json", "import os", "import re", "", ""]
    for _ in range(rng.randint(5, 18)):
        fn = names.make()
        lines += [
            f"def {fn}(path, default=None):",
            f'    """Read {fn.replace("_", " ")} settings from ``path``."""',
            "    if not os.path.exists(path):",
            "        return default",
            '    with open(path) as handle:',
            "        data = json.load(handle)",
            f'    return {{k: v for k, v in data.items() if re.match(r"^{fn[:3]}", k)}}',
            "",
            "",
        ]
    return "\n".join(lines)


def _eval_module(rng: random.Random, names: _Names) -> str:
    fn = names.make()
    lines = [
        rng.choice(IMPORT_STYLES),
        "import numpy as np",
        "",
        "",
        f"def {fn}(checkpoint, features, labels, batches={rng.randint(10, 100)}):",
        '    """Evaluate a checkpoint."""',
        "    logits = tf.layers.dense(features, 10)",
        "    predictions = tf.argmax(logits, axis=-1)",
        "    accuracy, update = tf.metrics.accuracy(labels, predictions)",
        "    saver = tf.train.Saver()",
        "    with tf.Session() as sess:",
        "        saver.restore(sess, checkpoint)",
        "        sess.run(tf.local_variables_initializer())",
        "        for _ in range(batches):",
        "            sess.run(update)",
        "        return float(sess.run(accuracy))",
    ]
    for _ in range(rng.randint(1, 9)):
        extra = names.make()
        lines += ["", "", f"def {extra}(values):", "    return np.mean(np.asarray(values), axis=0)"]
    return '"""Evaluation."""\n' + "\n".join(lines) + "\n"


def _module_text(kind: str, rng: random.Random, names: _Names, helpers: List[tuple], models: List[tuple],
                 inputs: List[tuple]) -> str:
    if kind == "layers":
        return _layers_module(rng, names)
    if kind == "model":
        return _model_module(rng, names, helpers)
    if kind == "input":
        return _input_module(rng, names)
    if kind == "train":
        return _train_module(rng, names, models, inputs)
    if kind == "eval":
        return _eval_module(rng, names)
    return _plain_module(rng, names)


def generate_corpus(directory: str, files: int = 2000, seed: int = 1234) -> List[str]:
    """Write ``files`` Python files under ``directory`` (packages of ~40 files) and return their paths."""
    rng = random.Random(seed)
    written: List[str] = []
    package_index = 0
    while len(written) < files:
        package = f"proj{package_index}"
        package_index += 1
        root = os.path.join(directory, package)
        names = _Names(rng)
        helpers: List[tuple] = []
        models: List[tuple] = []
        inputs: List[tuple] = []
        plan = ["layers"] * 8 + ["model"] * 8 + ["input"] * 5 + ["train"] * 8 + ["eval"] * 4 + ["plain"] * 6
        for index, kind in enumerate(plan):
            if len(written) >= files:
                break
            sub = {"layers": "layers", "model": "models", "input": "data", "train": "train",
                   "eval": "evaluation", "plain": "utils"}[kind]
            folder = os.path.join(root, sub)
            if not os.path.isdir(folder):
                os.makedirs(folder)
                for init in (os.path.join(root, "__init__.py"), os.path.join(folder, "__init__.py")):
                    if not os.path.exists(init):
                        with open(init, "w", encoding="utf-8") as handle:
                            handle.write("")
            stem = f"{kind}_{index}"
            module = f"{package}.{sub}.{stem}"
            text = _module_text(kind, rng, names, helpers, models, inputs)
            if kind == "layers":
                defs = [line for line in text.splitlines() if line.startswith("def ")]
                helpers.extend((module, line[4:line.index("(")]) for line in defs)
            elif kind == "model":
                models.append((module, text.split("class ", 1)[1].split("(", 1)[0]))
            elif kind == "input":
                fn = text.split("_dataset(", 1)[0].rsplit("def ", 1)[1] + "_dataset"
                inputs.append((module, fn))
            path = os.path.join(folder, stem + ".py")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
            written.append(path)
    return written


def _write(path: str, text: str) -> str:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


def _big_layers_module(rng: random.Random, names: _Names, functions: int) -> str:
    body = [rng.choice(IMPORT_STYLES), "\n"]
    body += ["\n\n" + _layer_function(rng, names) for _ in range(functions)]
    return '"""A model zoo: every layer helper of the code base in one file."""\n\n' + "".join(body)


def generate_real_layout(directory: str, files: int = 600, seed: int = 4321) -> List[str]:
    """Write a code base laid out as real TF1 repositories are; return the paths.

    A ``common`` package that every sub-project imports (its layers, and three
    very large model-zoo files of a few thousand lines), then sub-projects of
    about 40 files whose models import ``common`` and their own layers and
    whose training scripts import their models, as :func:`generate_corpus`
    writes them.  Unlike the flat corpus, modules are imported across packages,
    so a checker that follows imports parses ``common`` over and over unless it
    keeps neighbours together.
    """
    rng = random.Random(seed)
    written: List[str] = []
    common = os.path.join(directory, "common")
    written.append(_write(os.path.join(directory, "setup.py"), "from setuptools import setup\n\nsetup()\n"))
    written.append(_write(os.path.join(common, "__init__.py"), ""))
    names = _Names(rng)
    shared: List[tuple] = []
    for index in range(3):
        text = _big_layers_module(rng, names, 300)
        shared.extend((f"common.zoo_{index}", line[4:line.index("(")])
                      for line in text.splitlines() if line.startswith("def "))
        written.append(_write(os.path.join(common, f"zoo_{index}.py"), text))
    for index in range(12):
        text = _layers_module(rng, names)
        shared.extend((f"common.layers_{index}", line[4:line.index("(")])
                      for line in text.splitlines() if line.startswith("def "))
        written.append(_write(os.path.join(common, f"layers_{index}.py"), text))
    project = 0
    while len(written) < files:
        package = f"project_{project}"
        project += 1
        local: List[tuple] = []
        models: List[tuple] = []
        inputs: List[tuple] = []
        plan = ["layers"] * 6 + ["model"] * 10 + ["input"] * 5 + ["train"] * 10 + ["eval"] * 4 + ["plain"] * 5
        for index, kind in enumerate(plan):
            if len(written) >= files:
                break
            module = f"{package}.{kind}_{index}"
            helpers = rng.sample(shared, 3) + local
            text = _module_text(kind, rng, names, helpers, models, inputs)
            if kind == "layers":
                local.extend((module, line[4:line.index("(")]) for line in text.splitlines()
                             if line.startswith("def "))
            elif kind == "model":
                models.append((module, text.split("class ", 1)[1].split("(", 1)[0]))
            elif kind == "input":
                inputs.append((module, text.split("_dataset(", 1)[0].rsplit("def ", 1)[1] + "_dataset"))
            elif kind == "train":  # the step loop calls into common: the checker follows it there
                zoo_module, zoo_function = rng.choice(shared[:900])
                loop = "        for step in range(hparams.train_steps):\n"
                text = text.replace(loop, loop + f"            probe = {zoo_function}(features)\n", 1)
                text = text.replace('"""Training entry point."""\n',
                                    f'"""Training entry point."""\nfrom {zoo_module} import {zoo_function}\n', 1)
            written.append(_write(os.path.join(directory, package, f"{kind}_{index}.py"), text))
        _write(os.path.join(directory, package, "__init__.py"), "")
    return written
