"""`tfguard run`'s watch of a TF2 program's Keras calls, callbacks and host syncs (TFG910-TFG912).

It attaches a `KerasCallRecorder` (record/keras_calls.py) to capture/keras_calls.py once the program imports
TensorFlow, and at the end judges its record (`judgement.judge_program`) into the run verdict's `program` scope,
its steps read from the run's step watch (run/step_watch.py: the one step series) given at its making.
TensorFlow is never imported here; on TensorFlow 1.15 (no eager tensors, no Keras 3) nothing is followed.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from tfguard.runtime import tf_access
from tfguard.runtime.capture import keras_calls
from tfguard.runtime.capture.import_hook import OnTensorFlowImport
from tfguard.runtime.judge.judgement import judge_program
from tfguard.runtime.record.keras_calls import KerasCallRecorder
from tfguard.runtime.verdict import Diagnostic


class ProgramWatch:
    """Follows the program's Keras calls and host syncs from `start` to `stop`."""

    def __init__(self, steps: Any = None) -> None:
        self.recorder = KerasCallRecorder()
        #: The run's step watch (run/step_watch.py), whose one step series the record's steps are read from.
        self.steps = steps
        self._on_import = OnTensorFlowImport(self._tensorflow_loaded)
        self.available: Optional[bool] = None  # None: TensorFlow not loaded yet
        self._attached = False

    @property
    def failed(self) -> bool:
        """Whether tfguard failed internally while following (its record is then left out)."""
        return self.recorder.failed

    def start(self) -> None:
        """Follow now if TensorFlow is loaded, else from when the program imports it."""
        self._on_import.install()

    def stop(self) -> None:
        """Stop following (idempotent); the record stays."""
        self._on_import.remove()
        self.recorder.stop()
        if self._attached:
            keras_calls.detach(self.recorder)
            self._attached = False

    def _tensorflow_loaded(self, tensorflow: Any) -> None:
        self.available = tf_access.version_of(tensorflow) >= (2, 0) and tf_access.eager_tensor_base() is not None
        if self.available:
            keras_calls.attach(self.recorder)
            self._attached = True

    def judged(self) -> Optional[Tuple[Dict[str, Any], List[Diagnostic]]]:
        """The record's figures and its TFG910-TFG912 diagnostics; None when nothing was followed (TensorFlow
        1.15, not loaded) or tfguard failed while following."""
        if not self.available or self.failed:
            return None
        steps = self.steps.record if self.steps is not None and not self.steps.failed else None
        return judge_program(self.recorder.recording(steps))
