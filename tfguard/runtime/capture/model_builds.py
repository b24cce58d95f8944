"""Where each Keras model was built: the user's lines, so that TFG908 can name the line that builds a model again.

Keras makes a model's train/test/predict `tf.function` inside `fit`/`predict` (`make_predict_function`): the
function's own creation shows only the calling line. A model built per call (`model = make_model()` in a loop,
then `model.predict(x)`) is the line to change, so while capture/function_calls.py follows traces, the
constructor of Keras' model class (Keras 3's `TensorFlowTrainer`, tf_keras' `Model`: every Sequential, Functional
and subclassed model runs it) notes the user's frames that built each model, and a trace looks for its model among
the traced Python function's closure (Keras' functions close over `self`).

The constructor patch is installed when the Keras module loads (capture/module_import.py) and undone with the
function patches. It adds a few frame reads per model built, never work per `tf.function` call.
"""

from __future__ import annotations

import functools
import sys
import types
import weakref
from typing import Any, Callable, Dict, List, Optional, Tuple

from tfguard.runtime import tf_access
from tfguard.runtime.capture.module_import import OnModulesImport

#: id(model) -> (weak reference to the model, serial, the user frames that built it); an entry goes with its model.
_built: Dict[int, Tuple[Any, int, tuple]] = {}
_serial = [0]
#: User frames kept per model, and closure levels searched for the model of a traced function.
_FRAMES = 4
_DEPTH = 3
_AUTOGRAPH_FILE = "__autograph_generated_file"


def install(undo: List[Callable[[], None]], active: Callable[[], bool], fail: Callable[[BaseException], None]
            ) -> None:
    """Patch Keras' model constructor now or when its module loads (the patch notes a model while `active()` says
    a sink is attached; an error of its own goes to `fail`); what undoes it goes to `undo`."""
    watch = OnModulesImport(list(tf_access.KERAS_MODEL_CLASSES), lambda module: _patch(module, undo, active, fail))
    undo.append(watch.remove)
    watch.install()


def _patch(module: Any, undo: List[Callable[[], None]], active: Callable[[], bool],
           fail: Callable[[BaseException], None]) -> None:
    model_class = tf_access.keras_class(module, tf_access.KERAS_MODEL_CLASSES)
    original = vars(model_class).get("__init__") if model_class is not None else None
    if original is None:  # another layout of this Keras: its models' building is not followed
        return
    model_class.__init__ = _wrap_init(original, active, fail)  # type: ignore[misc]
    undo.append(lambda: setattr(model_class, "__init__", original))


def _wrap_init(original: Callable, active: Callable[[], bool], fail: Callable[[BaseException], None]) -> Callable:
    @functools.wraps(original)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> Any:
        if active():
            try:
                _note(self, sys._getframe(1))
            except Exception as exc:  # tfguard's part only: the model is built as without the guard
                fail(exc)
        return original(self, *args, **kwargs)

    return __init__


def _note(model: Any, frame: Any) -> None:
    """Keep the user frames that build `model` (the constructor runs more than once for some models: the first)."""
    known = _built.get(id(model))
    if known is not None and known[0]() is model:
        return
    frames = _user_frames(model, frame)
    if not frames:
        return
    key = id(model)

    def forget(ref: Any) -> None:
        if _built.get(key, (None,))[0] is ref:
            del _built[key]

    try:
        ref = weakref.ref(model, forget)
    except TypeError:  # not weakly referable: its building is not followed
        return
    _serial[0] += 1
    _built[key] = (ref, _serial[0], frames)


def _user_frames(model: Any, frame: Any) -> tuple:
    """The first user frames of a stack (path, line, first line of the frame's code), past the constructors of
    `model` itself (a subclassed model's `super().__init__()` is not where the model is built)."""
    from tfguard.runtime.record.tracebacks import is_library_file

    found = []
    while frame is not None and len(found) < _FRAMES:
        code = frame.f_code
        if not is_library_file(code.co_filename) and _AUTOGRAPH_FILE not in code.co_filename \
                and not (code.co_name == "__init__" and frame.f_locals.get("self") is model):
            found.append((code.co_filename, frame.f_lineno, code.co_firstlineno))
        frame = frame.f_back
    return tuple(found)


def model_site(python_function: Any, site_code: Optional[Tuple[str, int]]
               ) -> Optional[Tuple[int, Tuple[str, int]]]:
    """(the model's serial, the user's line that built it) of the Keras model a traced function belongs to,
    found among its closure (to `_DEPTH` levels, through bound methods); None when none is known. The line is,
    of the building frames, the one in the function that makes the call (a `make_model()` in the loop: the
    loop's line), else the first."""
    if not _built:
        return None
    model = _find(python_function, 0, set())
    if model is None:
        return None
    _ref, serial, frames = model
    for path, line, first in frames:
        if site_code is not None and (path, first) == site_code:
            return serial, (path, line)
    return serial, (frames[0][0], frames[0][1])


def _find(value: Any, depth: int, seen: set) -> Any:
    """The `_built` entry of a model held by `value`'s closure cells, or None."""
    try:
        target = getattr(value, "__func__", value)
        target = getattr(target, "python_function", target)
        for _ in range(8):  # decorators (`do_not_convert`): the function they wrap
            if not hasattr(target, "__wrapped__"):
                break
            target = target.__wrapped__
        cells = getattr(target, "__closure__", None) or ()
    except Exception:  # a program's object whose attributes raise: not followed
        return None
    if id(target) in seen:
        return None
    seen.add(id(target))
    for cell in cells:
        try:
            contents = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        owner = contents.__self__ if isinstance(contents, types.MethodType) else None  # `self.train_step`
        for candidate in (contents, owner):
            entry = _built.get(id(candidate))
            if entry is not None and entry[0]() is candidate:
                return entry
        if depth < _DEPTH and callable(contents):
            found = _find(contents, depth + 1, seen)
            if found is not None:
                return found
    return None
