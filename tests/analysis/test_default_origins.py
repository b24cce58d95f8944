"""A guard that holds on every step by default says which default makes it so (issue 40, class 2)."""

from __future__ import annotations

import textwrap

from tests.catalog_paths import FIXTURES_DIR
from tfguard.static.config import Settings
from tfguard.static.engine import check_paths, check_source

TRAINER = """\
    import tensorflow as tf
    {constant}
    class Trainer(object):
        def __init__(self, sess, args, hist_every=1):
            self.sess = sess
            self.hist_every = hist_every
            self.loss = tf.reduce_mean(tf.random_normal([4]))
            self.summary = tf.summary.histogram("loss", self.loss)
            self.writer = tf.summary.FileWriter("logs")
        def train(self, steps):
            for step in range(steps):
                value = self.sess.run(self.summary)
                if step % {divisor} == 0:
                    self.writer.add_summary(value, step)
    """


def _message(divisor: str, constant: str = "") -> str:
    source = textwrap.dedent(TRAINER.format(divisor=divisor, constant=constant))
    findings = [f for f in check_source(source, "trainer.py") if f.code == "TFG201"]
    assert len(findings) == 1, findings
    return findings[0].message


def test_a_module_constant_is_named():
    assert "`LOG_EVERY` defaults to 1: `LOG_EVERY = 1` (line 2)" in _message("LOG_EVERY", "LOG_EVERY = 1")


def test_a_keyword_default_is_named():
    assert "the keyword default `hist_every=1` of `__init__()` (line 4)" in _message("self.hist_every")


def test_an_argparse_default_in_the_driver_beside_the_module_is_named():
    folder = FIXTURES_DIR / "projects" / "options_in_main"
    result = check_paths([str(folder)], Settings(select=("TFG201",)), jobs=1)
    messages = [f.message for f in result.findings if f.code == "TFG201"]
    assert len(messages) == 1
    assert "`self.n_critic` defaults to 1: the argparse default of `--n_critic` (main.py:14)" in messages[0]
