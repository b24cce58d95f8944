"""Follow a TF2 program's Keras `predict`/`evaluate` calls, its callbacks' batch hooks and its host syncs.

Patches, made through the TF access layer while a recorder (record/keras_calls.py) is attached, undone when it
leaves; each calls straight through when none is attached:

- `predict`/`evaluate` of Keras' model class (Keras 3 or tf_keras, patched when the program imports it): a clock,
  the rows of the input, the user's calling line, and the time spent inside tf.function calls during the call
  (this module is also a sink of capture/function_calls.py). A call Keras makes itself (`fit`'s validation) is
  not the user's: it is not recorded.
- `CallbackList`: the span of each train batch (its begin hook to the end of its end hook), and on each user
  callback it holds, a timed wrapper of the train-batch hooks the callback implements (on the instance, keeping
  the hook's name and attributes, so Keras still sees which hooks a callback implements).
- the eager tensor's `.numpy()`, `__float__`, `__int__`, `__str__`, `__repr__`, `__format__`: a count per user
  line (the hot path: a frame lookup and a dict update, no clock); the first tensor of each line gives its
  device, dtype and size. A sync made inside another (printing calls `.numpy()`) or by library code (Keras'
  progress bar) is not counted.

An exception in tfguard's part detaches the recorder (one line on stderr); the program's calls go on.
"""

from __future__ import annotations

import functools
import sys
import threading
import time
import weakref
from typing import Any, Callable, List, Optional, Tuple

from tfguard.runtime import tf_access
from tfguard.runtime.capture import function_calls
from tfguard.runtime.capture.attrs import fail_sinks, undo_all
from tfguard.runtime.capture.module_import import OnModulesImport
from tfguard.runtime.capture.own_frames import hide_own_frame
from tfguard.runtime.record.tracebacks import is_library_file


class _Local(threading.local):
    #: [function seconds, function calls, dataset traces at the start] of the predict/evaluate call running.
    model_call: Optional[List[float]] = None
    inside = 0  # predict/evaluate calls running on this thread, Keras' own (fit's validation) included
    sync_depth = 0


_local = _Local()
#: The attached recorders (one in practice: `tfguard run`'s); the patches read this list.
_sinks: List[Any] = []
_lock = threading.Lock()
_undo: List[Callable[[], None]] = []
_imports: List[OnModulesImport] = []
#: Callbacks whose hooks are wrapped already (a CallbackList built again around the same callbacks).
_wrapped: "weakref.WeakSet[Any]" = weakref.WeakSet()
#: Code object -> whether it is the user's (not TensorFlow's, Keras', tfguard's), for the host-sync hot path.
_user_code: dict = {}


class _FunctionTime:
    """The sink of capture/function_calls.py: a tf.function call's time goes to the predict/evaluate call running
    (the model's own time); other calls are not this module's (the steps are run/step_watch.py's)."""

    failed = False

    def called(self, key: Any, seconds: float, function: Any = None) -> None:
        """One tf.function call (see function_calls; the function object is not needed here)."""
        running = _local.model_call
        if running is not None:
            running[0] += seconds
            running[1] += 1

    def traced(self, *_args: Any) -> None:
        """A trace of a user tf.function: counted by the function watch (TFG908), not here."""


_function_time = _FunctionTime()


def in_model_call() -> bool:
    """Whether a `predict`/`evaluate` the program called runs on this thread now (its tf.function calls are the
    model's, not the program's steps)."""
    return _local.model_call is not None


def in_predict_or_evaluate() -> bool:
    """Whether a Keras `predict`/`evaluate` runs on this thread now, the program's or Keras' own (`fit`'s
    validation): the batches it takes are its own, not the training steps' input."""
    return bool(_local.inside)


def attach(recorder: Any) -> None:
    """Start recording into `recorder` (patches what is loaded now, and the Keras modules when imported)."""
    with _lock:
        if recorder not in _sinks:
            _sinks.append(recorder)
        if len(_sinks) > 1:
            return
        function_calls.attach(_function_time)
        _patch_tensors()
        watch = OnModulesImport(list(tf_access.KERAS_MODEL_CLASSES) + list(tf_access.KERAS_CALLBACK_LISTS),
                                _keras_loaded)
        _imports.append(watch)
    watch.install()


def detach(recorder: Any) -> None:
    """Stop recording into `recorder`; the patches go when no recorder is left."""
    with _lock:
        if recorder in _sinks:
            _sinks.remove(recorder)
        if _sinks:
            return
        function_calls.detach(_function_time)
        while _imports:
            _imports.pop().remove()
        undo_all(_undo)


def _fail(where: str, exc: BaseException) -> None:
    fail_sinks(_sinks, where, exc, "following Keras calls and host syncs")


def _replace(cls: type, name: str, wrapper: Callable) -> None:
    original = cls.__dict__[name]
    setattr(cls, name, wrapper)
    _undo.append(lambda: setattr(cls, name, original))


# -- predict / evaluate ---------------------------------------------------------------------------------------
def _keras_loaded(module: Any) -> None:
    model_class = tf_access.keras_class(module, tf_access.KERAS_MODEL_CLASSES)
    if model_class is not None and _sinks:
        for method in tf_access.KERAS_MODEL_METHODS:
            if method in vars(model_class):
                _replace(model_class, method, _wrap_model_method(vars(model_class)[method], method))
    callback_list = tf_access.keras_class(module, tf_access.KERAS_CALLBACK_LISTS)
    if callback_list is not None and _sinks:
        _patch_callback_list(callback_list)


def _wrap_model_method(original: Callable, method: str) -> Callable:
    local, sinks, clock = _local, _sinks, time.perf_counter

    @functools.wraps(original)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        caller = sys._getframe(1)
        # not recorded: a call made inside another, or by Keras itself (fit's validation)
        if not sinks or local.model_call is not None or is_library_file(caller.f_code.co_filename):
            local.inside += 1
            try:
                return original(self, *args, **kwargs)
            except BaseException as exc:
                hide_own_frame(exc)
                raise
            finally:
                local.inside -= 1
        local.inside += 1
        running = local.model_call = [0.0, 0, function_calls.library_traces()]
        start = clock()
        try:
            return original(self, *args, **kwargs)
        except BaseException as exc:
            hide_own_frame(exc)
            raise
        finally:
            seconds = clock() - start
            local.model_call = None
            local.inside -= 1
            try:
                rows = _rows(args[0] if args else kwargs.get("x"))
                traces = function_calls.library_traces() - running[2]
                for sink in sinks:
                    sink.model_called(method, type(self).__name__, (caller.f_code.co_filename, caller.f_lineno),
                                      rows, seconds, running[0], int(running[1]), traces)
            except Exception as exc:
                _fail("a Keras %s call" % method, exc)

    return wrapper


def _rows(x: Any) -> Optional[int]:
    """Rows of a predict/evaluate input: the first dimension of an array or tensor (of the first one of a list or
    dict); None for a dataset, a generator or an unknown dimension."""
    for _ in range(4):
        if isinstance(x, dict):
            x = next(iter(x.values()), None)
        elif isinstance(x, (list, tuple)) and x and hasattr(x[0], "shape"):
            x = x[0]
        else:
            break
    shape = getattr(x, "shape", None)
    try:
        return int(shape[0]) if shape is not None and len(shape) else None
    except (TypeError, ValueError):
        return None


# -- callbacks ------------------------------------------------------------------------------------------------
def _patch_callback_list(cls: type) -> None:
    original_init = cls.__dict__["__init__"]

    @functools.wraps(original_init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        try:
            original_init(self, *args, **kwargs)
        except BaseException as exc:
            hide_own_frame(exc)
            raise
        if _sinks:
            try:
                for callback in tf_access.callbacks_of(self):
                    _wrap_callback(callback)
            except Exception as exc:
                _fail("a Keras CallbackList", exc)

    _replace(cls, "__init__", __init__)
    begin, end = (cls.__dict__.get(name) for name in tf_access.KERAS_BATCH_HOOKS)
    if begin is None or end is None:
        return
    _replace(cls, tf_access.KERAS_BATCH_HOOKS[0], _wrap_batch_begin(begin))
    _replace(cls, tf_access.KERAS_BATCH_HOOKS[1], _wrap_batch_end(end))


_batch_start = threading.local()


def _wrap_batch_begin(original: Callable) -> Callable:
    clock = time.perf_counter

    @functools.wraps(original)
    def on_train_batch_begin(self: Any, *args: Any, **kwargs: Any) -> Any:
        if _sinks:
            _batch_start.at = clock()
        try:
            return original(self, *args, **kwargs)
        except BaseException as exc:
            hide_own_frame(exc)
            raise

    return on_train_batch_begin


def _wrap_batch_end(original: Callable) -> Callable:
    clock = time.perf_counter

    @functools.wraps(original)
    def on_train_batch_end(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return original(self, *args, **kwargs)
        except BaseException as exc:
            hide_own_frame(exc)
            raise
        finally:
            start = getattr(_batch_start, "at", None)
            if start is not None and _sinks:
                _batch_start.at = None
                try:
                    for sink in _sinks:
                        sink.batch_ran(clock() - start)
                except Exception as exc:
                    _fail("a Keras train batch", exc)

    return on_train_batch_end


def _wrap_callback(callback: Any) -> None:
    """Time the train-batch hooks a user callback implements (itself or through its `on_batch_*` alias)."""
    module_file = getattr(sys.modules.get(type(callback).__module__), "__file__", None)
    if module_file and is_library_file(module_file):
        return  # Keras' own callbacks (History, ProgbarLogger, TensorBoard, ModelCheckpoint): judged elsewhere
    try:
        if callback in _wrapped:
            return
        _wrapped.add(callback)
    except TypeError:  # not weakly referable: left alone
        return
    for hook in tf_access.KERAS_BATCH_HOOKS:
        alias = hook.replace("train_", "")
        bound = getattr(callback, hook, None)
        if bound is None or (tf_access.is_default_hook(bound) and
                             tf_access.is_default_hook(getattr(callback, alias, None))):
            continue
        setattr(callback, hook, _timed_hook(bound, type(callback), hook))


def _timed_hook(bound: Callable, callback_class: type, hook: str) -> Callable:
    clock = time.perf_counter

    @functools.wraps(bound)
    def timed(*args: Any, **kwargs: Any) -> Any:
        if not _sinks:
            try:
                return bound(*args, **kwargs)
            except BaseException as exc:
                hide_own_frame(exc)
                raise
        start = clock()
        try:
            return bound(*args, **kwargs)
        except BaseException as exc:  # the callback's own error: shown as without the guard
            hide_own_frame(exc)
            raise
        finally:
            seconds = clock() - start
            try:
                for sink in _sinks:
                    sink.callback_ran(callback_class, hook, seconds)
            except Exception as exc:
                _fail("a Keras callback", exc)

    return timed


# -- host syncs -----------------------------------------------------------------------------------------------
def _patch_tensors() -> None:
    base = tf_access.eager_tensor_base()
    if base is None:
        return
    for name in tf_access.HOST_SYNC_METHODS:
        original = vars(base).get(name)
        if original is not None:
            _replace(base, name, _wrap_sync(original, name))


def _wrap_sync(original: Callable, kind: str) -> Callable:
    local, sinks, user_code, getframe = _local, _sinks, _user_code, sys._getframe

    @functools.wraps(original)
    def sync(self: Any, *args: Any) -> Any:
        if local.sync_depth or not sinks:
            try:
                return original(self, *args)
            except BaseException as exc:
                hide_own_frame(exc)
                raise
        frame = getframe(1)
        code = frame.f_code
        mine = user_code.get(code)
        if mine is None:
            mine = user_code[code] = not is_library_file(code.co_filename)
        local.sync_depth += 1
        try:
            return original(self, *args)
        except BaseException as exc:
            hide_own_frame(exc)
            raise
        finally:
            local.sync_depth -= 1
            if mine:
                try:
                    _count_sync(sinks[0], (code, frame.f_lineno, kind), self)
                except Exception as exc:
                    _fail("a host sync", exc)

    return sync


def _count_sync(recorder: Any, key: Tuple[Any, int, str], tensor: Any) -> None:
    counts = recorder.host_syncs
    count = counts.get(key)
    if count is None:
        counts[key] = 1
        recorder.host_sync_facts[key] = tf_access.tensor_facts(tensor)
    else:
        counts[key] = count + 1
