"""Load TensorFlow lazily and pick the v1 API (`tf.compat.v1` on 2.x, `tf` on 1.15)."""

from __future__ import annotations

from typing import Any


def tf_v1() -> Any:
    """The TF 1.x-style API module; imports TensorFlow on first call."""
    import tensorflow as tf  # imported here so that `import tfguard` stays TF-free

    compat = getattr(tf, "compat", None)
    return getattr(compat, "v1", None) or tf
