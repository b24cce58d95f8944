"""See every call and every trace of every `tf.function` (Keras' train/test/predict functions included).

Class-level patches, made through the TF access layer (`tf_access.function_hooks`) while at least one sink
is attached, and undone when the last one leaves:

- `Function.__call__`: a counter and a clock per call, nothing else (the per-call cost of the guard);
- the module function TensorFlow calls once per trace, only when the function cache misses: the traced
  arguments' types, the tracing time, the user's calling line and the `tf.function` object that traced;
- `Function.__init__`: the user's lines that created each `tf.function` object (held weakly), so that a function
  created per call is named where it is created, and its *variant* (the functions its Python function closes
  over: Keras' train and test functions are one Python function closing over `train_step` or `test_step`);
- Keras' model constructor (capture/model_builds.py, when Keras loads): the user's lines that built each model,
  so that a trace of a model's train/test/predict function names where its model was built (a model per call).

A call made while a trace runs (a `tf.function` called inside another one, Keras' `one_step_on_data` inside
`multi_step_on_iterator`) is part of that outer trace, as TensorFlow's own retracing detector counts only the
calls made eagerly: it is neither counted nor timed. Functions of TensorFlow itself (tf.data's wrappers of a
`map` function, variable initializers) are not followed.

A sink has `called(key, seconds, function)` (`function`: the `tf.function` object called) and
`traced(key, python_function, name, serial, parameters, seconds, site, variant, created, model)` (`model`: the
serial of the Keras model the function belongs to and the user's line that built it, or None); an exception from a
sink detaches every sink (one line on stderr): the program's calls go on, unwatched.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
import weakref
from typing import Any, Callable, List, Optional, Tuple

from tfguard.runtime import tf_access
from tfguard.runtime.capture import model_builds
from tfguard.runtime.capture.attrs import fail_sinks, undo_all
from tfguard.runtime.capture.own_frames import hide_own_frame

_AUTOGRAPH_FILE = "__autograph_generated_file"


class _Local(threading.local):
    depth = 0  # traces running on this thread
    tracing: Any = None  # the tf.function object whose outermost trace runs on this thread (None: unknown)


_local = _Local()
#: The attached sinks; the patched functions read this list (empty: they call straight through).
_sinks: List[Any] = []
_lock = threading.Lock()
_undo: List[Callable[[], None]] = []
#: A serial number per tf.function object (held weakly: the program's objects are freed as they would be).
_serials: "weakref.WeakKeyDictionary[Any, int]" = weakref.WeakKeyDictionary()
_serial_count = [0]
_call_code: List[Any] = []
#: Traces of TensorFlow's own functions (tf.data's pipeline functions): not followed, only counted (TFG910).
_library_trace_count = [0]


def call_code() -> Any:
    """The code of the patched `Function.__call__` (a stack with it is inside a tf.function call), or None."""
    return _call_code[0] if _call_code else None


def library_traces() -> int:
    """How many traces of TensorFlow's own functions (tf.data's map and pipeline functions) ran so far."""
    return _library_trace_count[0]


#: The user's frames that created each tf.function object: ((path, line, first line of the frame's code), ...).
_created: "weakref.WeakKeyDictionary[Any, tuple]" = weakref.WeakKeyDictionary()
#: User frames kept per creation, and closures followed for a variant.
_CREATION_FRAMES = 4
_VARIANT_DEPTH = 6
#: The graph of each trace running now -> the tf.function object tracing it: a `tf.distribute` replica thread
#: builds `strategy.run`'s function into its caller's graph, on a thread of its own (see `tracing`).
_traced_graphs: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()


def available() -> bool:
    """Whether the loaded TensorFlow lets the guard follow `tf.function` calls and traces."""
    return tf_access.function_hooks() is not None


def attach(sink: Any) -> bool:
    """Start calling `sink` on every call and trace; False (nothing attached) where TensorFlow has no hooks."""
    with _lock:
        if not _undo:
            hooks = tf_access.function_hooks()
            if hooks is None:
                return False
            _patch(hooks)
        if sink not in _sinks:
            _sinks.append(sink)
        return True


def detach(sink: Any) -> None:
    """Stop calling `sink`; the patches go when no sink is left."""
    with _lock:
        if sink in _sinks:
            _sinks.remove(sink)
        if not _sinks:
            _unpatch()


def _unpatch() -> None:
    undo_all(_undo)


def _fail(where: str, exc: BaseException) -> None:
    fail_sinks(_sinks, where, exc, "following tf.function traces")


def _patch(hooks: tf_access.FunctionHooks) -> None:
    cls, module, name = hooks.function_class, hooks.tracing_module, hooks.trace_name
    original_call = cls.__dict__["__call__"]
    original_trace = getattr(module, name)
    call = _wrap_call(original_call)
    del _call_code[:]
    _call_code.append(call.__code__)
    cls.__call__ = call
    _undo.append(lambda: setattr(cls, "__call__", original_call))
    original_init = cls.__dict__.get("__init__")
    if original_init is not None:
        cls.__init__ = _wrap_init(original_init)
        _undo.append(lambda: setattr(cls, "__init__", original_init))
    setattr(module, name, _wrap_trace(original_trace, _tensorflow_dir()))
    _undo.append(lambda: setattr(module, name, original_trace))
    model_builds.install(_undo, lambda: bool(_sinks), lambda exc: _fail("a Keras model's building", exc))


def _tensorflow_dir() -> str:
    module = sys.modules.get("tensorflow")
    path = getattr(module, "__file__", None)
    return os.path.dirname(os.path.abspath(path)) + os.sep if path else "\0"


def _wrap_call(original: Callable) -> Callable:
    local, sinks, clock = _local, _sinks, time.perf_counter

    @functools.wraps(original)
    def __call__(self: Any, *args: Any, **kwds: Any) -> Any:
        if local.depth or not sinks:
            try:
                return original(self, *args, **kwds)
            except BaseException as exc:  # the program's error: shown without this frame (own_frames.py)
                hide_own_frame(exc)
                raise
        start = clock()
        try:
            return original(self, *args, **kwds)
        except BaseException as exc:
            hide_own_frame(exc)
            raise
        finally:
            seconds = clock() - start
            try:
                key = self._key_for_call_stats
                for sink in sinks:
                    sink.called(key, seconds, self)
            except Exception as exc:
                _fail("a tf.function call", exc)

    return __call__


def _wrap_init(original: Callable) -> Callable:
    sinks = _sinks

    @functools.wraps(original)
    def __init__(self: Any, *args: Any, **kwds: Any) -> None:
        try:
            original(self, *args, **kwds)
        except BaseException as exc:
            hide_own_frame(exc)
            raise
        if sinks and not _local.depth:
            try:
                frames = _user_frames(sys._getframe(1))
                if frames:
                    _created[self] = frames
            except TypeError:  # not weakly referable: its creation is not followed
                pass
            except Exception as exc:
                _fail("a tf.function creation", exc)

    return __init__


def _user_frames(frame: Any) -> tuple:
    """The first `_CREATION_FRAMES` user frames of a stack (path, line, first line of the frame's code)."""
    from tfguard.runtime.record.tracebacks import is_library_file

    found = []
    while frame is not None and len(found) < _CREATION_FRAMES:
        code = frame.f_code
        if not is_library_file(code.co_filename) and _AUTOGRAPH_FILE not in code.co_filename:
            found.append((code.co_filename, frame.f_lineno, code.co_firstlineno))
        frame = frame.f_back
    return tuple(found)


def _wrap_trace(original: Callable, tensorflow_dir: str) -> Callable:
    local, sinks, clock = _local, _sinks, time.perf_counter

    @functools.wraps(original)
    def trace(function_type: Any, type_context: Any, func_graph: Any, tracing_options: Any,
              *args: Any, **kwds: Any) -> Any:
        if local.depth or not sinks:
            try:
                return original(function_type, type_context, func_graph, tracing_options, *args, **kwds)
            except BaseException as exc:
                hide_own_frame(exc)
                raise
        seen = None
        try:
            seen = _before_trace(function_type, tracing_options, tensorflow_dir)
        except Exception as exc:
            _fail("a tf.function trace", exc)
        local.depth += 1
        local.tracing = seen[9] if seen is not None else None
        _note_graph(func_graph, local.tracing)
        start = clock()
        try:
            return original(function_type, type_context, func_graph, tracing_options, *args, **kwds)
        except BaseException as exc:
            hide_own_frame(exc)
            raise
        finally:
            seconds = clock() - start
            local.depth -= 1
            local.tracing = None
            _note_graph(func_graph, None)
            if seen is not None:
                try:
                    for sink in list(sinks):
                        sink.traced(seen[0], seen[1], seen[2], seen[3], seen[4], seconds, seen[5], seen[6],
                                    seen[7], seen[8])
                except Exception as exc:
                    _fail("a tf.function trace", exc)

    return trace


def _before_trace(function_type: Any, tracing_options: Any, tensorflow_dir: str) -> Optional[tuple]:
    """(key, python function, name, serial, parameters, site, variant, created, model, tf.function object) of a
    trace about to run; None for TF's own."""
    python_function, name, _cache = tf_access.traced_function(tracing_options)
    key = tf_access.function_key(python_function)
    filename = getattr(key, "co_filename", "")
    if filename and os.path.abspath(filename).startswith(tensorflow_dir):
        _library_trace_count[0] += 1
        return None
    site, function, site_code = _caller(sys._getframe(2))
    serial = _serial_of(function)
    return (key, python_function, name, serial, tf_access.traced_parameters(function_type), site,
            variant_of(python_function), _creation_site(function, site, site_code),
            model_builds.model_site(python_function, site_code), function)


def variant_of(python_function: Any) -> tuple:
    """The code objects of the functions `python_function` closes over, followed through closures, bound methods
    and `tf.function`s (`python_function`) to `_VARIANT_DEPTH` levels: Keras' train and test functions, one
    Python function closing over `train_step` or `test_step`, are two variants; a function created again by the
    same factory is the same one."""
    found: List[Any] = []
    seen = set()

    def visit(value: Any, depth: int) -> None:
        try:
            target = getattr(value, "__func__", value)  # a bound method: its function, never its object
            target = getattr(target, "python_function", target)  # a tf.function: the Python function it wraps
            for _ in range(8):  # decorators (`do_not_convert`): the function they wrap, at the same level
                if not hasattr(target, "__wrapped__"):
                    break
                target = target.__wrapped__
            code = getattr(target, "__code__", None)
        except Exception:  # a program's object whose attributes raise: not followed
            return
        if code is None or id(target) in seen:
            return
        seen.add(id(target))
        if depth:
            found.append(code)
        if depth < _VARIANT_DEPTH:
            for cell in getattr(target, "__closure__", None) or ():
                try:
                    contents = cell.cell_contents
                except ValueError:  # an empty cell
                    continue
                if callable(contents):
                    visit(contents, depth + 1)

    visit(python_function, 0)
    return tuple(found)


def _creation_site(function: Any, site: Optional[Tuple[str, int]], site_code: Optional[Tuple[str, int]]
                   ) -> Optional[Tuple[str, int]]:
    """The user's line that created `function`: of its creation's user frames, the one in the function that makes
    the call (a factory called in the loop: the loop's line), else the first."""
    try:
        frames = _created.get(function) if function is not None else None
    except TypeError:
        return None
    if not frames:
        return None
    for path, line, first in frames:
        if site_code is not None and (path, first) == site_code:
            return (path, line)
    return (frames[0][0], frames[0][1])


def _caller(frame: Any) -> Tuple[Optional[Tuple[str, int]], Any, Optional[Tuple[str, int]]]:
    """The user's calling line (the first frame outside TensorFlow, Keras, tfguard and AutoGraph's generated
    code), the `tf.function` object whose call is tracing (from the patched `__call__`'s frame) and the calling
    frame's code (path, first line)."""
    from tfguard.runtime.record.tracebacks import is_library_file

    function = None
    call_code = _call_code[0] if _call_code else None
    while frame is not None:
        code = frame.f_code
        if code is call_code and function is None:
            function = frame.f_locals.get("self")
        elif not is_library_file(code.co_filename) and _AUTOGRAPH_FILE not in code.co_filename:
            return (code.co_filename, frame.f_lineno), function, (code.co_filename, code.co_firstlineno)
        frame = frame.f_back
    return None, function, None


def tracing() -> Tuple[bool, Any]:
    """(whether a tf.function traces on this thread now, the tf.function object tracing or None).

    A `tf.distribute` replica thread (`strategy.run` in a trace) traces for the thread that made it: the
    tf.function is the one whose trace owns the graph the replica builds in.
    """
    if _local.depth:
        return True, _local.tracing
    replica = tf_access.replica_thread(threading.current_thread()) if _traced_graphs else None
    if replica is not None:
        for graph in tf_access.outer_graphs(replica[1]):
            try:
                function = _traced_graphs.get(graph)
            except TypeError:  # not weakly referable
                function = None
            if function is not None:
                return True, function
    return False, None


def _note_graph(graph: Any, function: Any) -> None:
    """Note (or forget, `function` None) the tf.function object whose trace builds `graph`."""
    try:
        if function is not None:
            _traced_graphs[graph] = function
        else:
            _traced_graphs.pop(graph, None)
    except TypeError:  # not weakly referable: replica threads of that trace are not followed
        pass


def _serial_of(function: Any) -> int:
    """A number for the tf.function object (0: none known), the same for every trace of that object."""
    if function is None:
        return 0
    try:
        serial = _serials.get(function)
        if serial is None:
            _serial_count[0] += 1
            serial = _serials[function] = _serial_count[0]
        return serial
    except TypeError:  # not weakly referable
        return id(function)
