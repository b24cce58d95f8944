"""`tfguard.watch_functions()`: follow every `tf.function` of the program for a `with` block (TFG908).

    with tfguard.watch_functions() as functions:
        train()
    print(functions.report().table())

It records each Python function's calls and traces (record/functions.py, through capture/function_calls.py),
raises the live alert once per function that keeps retracing (a `RetracingWarning`; under `tfguard run` a line on
stderr), and judges them at the end (judge/function_retracing.py, TFG908); output/function_report.py writes the
text. On a TensorFlow without the hooks (1.15, 2.x before 2.13)
nothing is patched and the report says "not available". TensorFlow is never imported here: a block entered
before the program imports TensorFlow starts following when it does.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from tfguard.runtime.capture import function_calls
from tfguard.runtime.capture.import_hook import OnTensorFlowImport
from tfguard.runtime.errors import RetracingWarning
from tfguard.runtime.judge import function_retracing as retracing
from tfguard.runtime.judge.judgement import judge_functions
from tfguard.runtime.output.alerts import emit
from tfguard.runtime.output.function_report import FunctionReport
from tfguard.runtime.record.functions import FunctionRecord, describe
from tfguard.runtime.verdict import Diagnostic, FunctionsVerdict

_IGNORED = object()


class FunctionWatch:
    """Records the calls and traces of every tf.function while entered (see module docstring)."""

    def __init__(self, alerts_through_warnings: bool = True) -> None:
        self.alerts_through_warnings = alerts_through_warnings
        self._records: Dict[Any, Any] = {}
        self._on_import = OnTensorFlowImport(self._tensorflow_loaded)
        self.available: Optional[bool] = None  # None: TensorFlow not loaded yet
        self.failed = False
        self._entered = False

    def __enter__(self) -> "FunctionWatch":
        if self._entered:
            raise RuntimeError("a tfguard function watch cannot be entered twice; create a new one")
        self._entered = True
        self.start()
        return self

    def __exit__(self, *exc_info: Any) -> bool:
        self.stop()
        return False

    def start(self) -> None:
        """Follow tf.functions now if TensorFlow is loaded, else from when the program imports it."""
        self._on_import.install()

    def stop(self) -> None:
        """Stop following (idempotent); the records stay."""
        self._on_import.remove()
        function_calls.detach(self)

    def _tensorflow_loaded(self, _tensorflow: Any) -> None:
        self.available = function_calls.attach(self)

    # -- the sink of capture/function_calls ----------------------------------------------------------------
    def called(self, key: Any, seconds: float, function: Any = None) -> None:
        """One finished call of a tf.function keyed `key`."""
        record = self._records.get(key)
        if record is None:
            record = self._records[key] = _new_record(key)
        if record is not _IGNORED:
            record.calls += 1
            record.call_seconds += seconds

    def traced(self, key: Any, python_function: Any, name: str, serial: int, parameters: Any, seconds: float,
               site: Any, variant: Any = None, created: Any = None, model: Any = None) -> None:
        """One trace of a tf.function keyed `key` (see capture/function_calls)."""
        record = self._records.get(key)
        if record is None:
            record = self._records[key] = _new_record(key, python_function, name)
        if record is _IGNORED:
            return
        arguments = [(parameter, describe(trace_type)) for parameter, trace_type in parameters]
        if record.traced(seconds, arguments, serial, site, variant, created, model) and retracing.alert_due(record):
            record.alerted = True
            emit(retracing.alert_message(record), RetracingWarning, self.alerts_through_warnings)

    # -- results ---------------------------------------------------------------------------------------
    @property
    def records(self) -> List[FunctionRecord]:
        """The functions that traced or were called, in the order first seen."""
        return [record for record in self._records.values() if record is not _IGNORED]

    def judged(self) -> Tuple[FunctionsVerdict, List[Diagnostic]]:
        """The functions so far and their diagnostics (judge/judgement.judge_functions)."""
        return judge_functions(self.records, self.available, self.failed)

    def report(self) -> FunctionReport:
        """The report so far (final after the block)."""
        return FunctionReport(*self.judged())


def _new_record(key: Any, python_function: Any = None, name: str = "") -> Any:
    """A FunctionRecord named after the key (a code object, as TensorFlow keys its detector)."""
    path = getattr(key, "co_filename", None)
    if path is None:
        code = getattr(python_function, "__code__", None)
        path = getattr(code, "co_filename", "<unknown>")
        line = getattr(code, "co_firstlineno", 0)
        qualname = getattr(python_function, "__qualname__", name or repr(key))
    else:
        line = key.co_firstlineno
        qualname = getattr(key, "co_qualname", key.co_name)
    return FunctionRecord(str(qualname).replace(".<locals>", ""), path, line)


def watch_functions() -> FunctionWatch:
    """A `with` block that follows every tf.function call and trace, and judges retracing (TFG908)."""
    return FunctionWatch()

