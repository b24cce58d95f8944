"""See a TF2 training loop beyond its `tf.function` calls: gradients applied, the next batch taken, checkpoints and
summaries written, each with the user's line.

The places are the TF access layer's (`tf_access.step_targets`): class or module attributes of TensorFlow, Keras 3
and tf_keras, patched once each package is loaded while a sink is attached, and put back when the last one leaves.
Each wrapper calls the original exactly as the program did and returns what it returned; only the outermost of
nested calls of one kind is seen (`Checkpoint.save` calls `write`, `tf.summary.scalar` calls `write`), and only
calls made eagerly: a summary or an optimizer's `apply` inside a `tf.function` trace runs once, at trace time.

A sink has:

- `applied(function, site)`: gradients applied. `function` is the `tf.function` object whose trace applied them
  (its calls are the steps), or None when they were applied eagerly; `site` then is `EagerSite`;
- `next_batch(seconds, site)`: a tf.data iterator's `next` taken eagerly (a custom loop's `for x in dataset`);
- `python_input(seconds, map_site, parallel)`: a Python function of an input pipeline ran (`tf.numpy_function`,
  `tf.py_function`, `Dataset.from_generator`), on tf.data's threads, for the `Dataset.map` made at `map_site`;
- `map_made(site, parallel)`: a `Dataset.map` was made (`parallel`: its `num_parallel_calls`, None when serial);
- `input_source(site, kind, name, defined, parallel)`: the pipeline whose Python function is timed for `site` (a
  `fit` call, a `Dataset.from_generator`) reads a Python input: `kind` is tf_access' GENERATOR, PY_DATASET,
  SEQUENCE or FROM_GENERATOR, `name` and `defined` the generator's `def` or the dataset class and its line;
- `wrote(kind, seconds, site, through)`: a checkpoint saved (`save`), a summary written (`summary`) or flushed
  (`flush`); `through` names the Keras callback whose method wrote it ("" for the program's own call).

An exception from a sink stops every sink (one line on stderr, the program goes on unwatched); a BaseException (the
guard's stop at `--max-steps`) goes through to the program, after the call it follows has finished.
"""

from __future__ import annotations

import functools
import sys
import threading
import time
import weakref
from typing import Any, Callable, List, NamedTuple, Optional, Tuple

from tfguard.runtime import tf_access
from tfguard.runtime.capture import function_calls
from tfguard.runtime.capture.attrs import fail_sinks, undo_all
from tfguard.runtime.capture.import_hook import OnTensorFlowImport
from tfguard.runtime.capture.own_frames import hide_own_frame
from tfguard.runtime.record.tracebacks import is_library_file

Site = Optional[Tuple[str, int]]


class EagerSite(NamedTuple):
    """Where eager gradients were applied: the user's line, the user function it is in (name and definition line;
    "<module>" for a script's top level), and whether Keras stood between (a `fit` with `run_eagerly=True`)."""

    site: Site
    function: str
    definition: int
    through_keras: bool


#: Keras' own methods that run a train step: eager gradients applied under them come from `run_eagerly=True`.
_KERAS_TRAINING = frozenset(("fit", "train_on_batch", "train_step", "one_step_on_data"))


class _Local(threading.local):
    busy = ""  # the kind of the outermost patched call running on this thread ("": none)
    map_site: Site = None  # the Dataset.map being made on this thread, and its parallel calls
    map_parallel: Any = None
    in_map = False
    applied_at: Tuple[Any, ...] = ()  # where the last eager apply ran (`loop_position`)


_local = _Local()
_sinks: List[Any] = []
_lock = threading.Lock()
_undo: List[Callable[[], None]] = []
_hooks: List[OnTensorFlowImport] = []
#: Where each Keras callback object was made (weakly held): a save or summary its method writes blames that line.
_callback_sites: "weakref.WeakKeyDictionary[Any, Site]" = weakref.WeakKeyDictionary()


def attach(sink: Any) -> None:
    """Start calling `sink`; the places are patched now for packages loaded, else when the program loads them."""
    with _lock:
        if sink not in _sinks:
            _sinks.append(sink)
        if _hooks:
            return
        for package in tf_access.STEP_PACKAGES:
            hook = OnTensorFlowImport(functools.partial(_patch_package, package), package)
            _hooks.append(hook)
    for hook in list(_hooks):
        hook.install()


def detach(sink: Any) -> None:
    """Stop calling `sink`; every patch goes when no sink is left."""
    with _lock:
        if sink in _sinks:
            _sinks.remove(sink)
        if _sinks:
            return
        while _hooks:
            _hooks.pop().remove()
        undo_all(_undo)


def _patch_package(package: str, _module: Any) -> None:
    if not _sinks:
        return
    for owner, attribute, kind in tf_access.step_targets(package):
        original = vars(owner)[attribute]
        setattr(owner, attribute, _WRAPPERS[kind](original, kind))
        _undo.append(functools.partial(setattr, owner, attribute, original))


def _fail(where: str, exc: BaseException) -> None:
    fail_sinks(_sinks, where, exc, "following the training loop")


def _notify(method: str, *args: Any) -> None:
    try:
        for sink in list(_sinks):
            getattr(sink, method)(*args)
    except Exception as exc:
        _fail("a TF2 %s" % method, exc)


# -- where the user is -----------------------------------------------------------------------------------------
def user_site(frame: Any) -> Tuple[Site, str]:
    """(the first line outside TensorFlow, Keras and tfguard from `frame` outwards, the class of the Keras callback
    on the way whose object was made by the program, with the line that made it then instead)."""
    while frame is not None:
        code = frame.f_code
        if not is_library_file(code.co_filename):
            return (code.co_filename, frame.f_lineno), ""
        if "callback" in code.co_filename:
            owner = frame.f_locals.get("self")
            try:
                made = _callback_sites.get(owner) if owner is not None else None
            except TypeError:  # not weakly referable
                made = None
            if made is not None:
                return made, type(owner).__name__
        frame = frame.f_back
    return None, ""


def user_codes(frame: Any, count: int) -> List[Any]:
    """The code objects of the first `count` program frames (outside TensorFlow, Keras, tfguard) from `frame` out."""
    found: List[Any] = []
    while frame is not None and len(found) < count:
        if not is_library_file(frame.f_code.co_filename):
            found.append(frame.f_code)
        frame = frame.f_back
    return found


def _eager_site(frame: Any) -> EagerSite:
    through_keras = False
    while frame is not None:
        code = frame.f_code
        if not is_library_file(code.co_filename):
            return EagerSite((code.co_filename, frame.f_lineno), code.co_name, code.co_firstlineno, through_keras)
        through_keras = through_keras or code.co_name in _KERAS_TRAINING
        frame = frame.f_back
    return EagerSite(None, "", 0, through_keras)


#: User frames a step's position is read from (the apply's or call's function, and the loops around it).
POSITION_DEPTH = 4


def loop_position(frame: Any, depth: int = POSITION_DEPTH) -> Tuple[Any, ...]:
    """Where the program is, from `frame` out: (frame id, code, last instruction) of its nearest `depth` user frames
    (outside TensorFlow, Keras and tfguard), outermost first; `same_step` compares two of them."""
    found = []
    while frame is not None and len(found) < depth:
        code = frame.f_code
        if not is_library_file(code.co_filename):
            found.append((id(frame), code, frame.f_lasti))
        frame = frame.f_back
    return tuple(reversed(found))


def same_step(before: Tuple[Any, ...], now: Tuple[Any, ...]) -> bool:
    """Whether `now` is later in the same loop iteration or function call as `before` (two optimizers applied in
    one batch: a GAN's or a domain-adversarial step): from the outermost frame in, the frames are the same ones and
    the first instruction that differs comes later. The same instruction again (a loop's next iteration, the step
    function called again) or an earlier one starts a new step; so does another frame (a new call) or another
    depth. A frame's id is reused by the next call of the same function: that call starts at an earlier
    instruction than the one the last call applied at, and so starts a new step all the same."""
    if not before or len(before) != len(now):
        return False
    for (frame_a, code_a, at_a), (frame_b, code_b, at_b) in zip(before, now):
        if frame_a != frame_b or code_a is not code_b:
            return False
        if at_b != at_a:
            return at_b > at_a
    return False


# -- the wrappers, one per kind ------------------------------------------------------------------------------------
def _wrap_apply(original: Callable, kind: str) -> Callable:
    @functools.wraps(original)
    def apply(*args: Any, **kwargs: Any) -> Any:
        if _local.busy or not _sinks:
            try:
                return original(*args, **kwargs)
            except BaseException as exc:
                hide_own_frame(exc)
                raise
        _local.busy = kind
        try:
            result = original(*args, **kwargs)
        except BaseException as exc:
            hide_own_frame(exc)
            raise
        finally:
            _local.busy = ""
        tracing, function = function_calls.tracing()
        if tracing:
            if function is not None:
                _notify("applied", function, None)
        elif tf_access.executing_eagerly() and _first_replica():
            _eager_applied(sys._getframe(1))
        return result

    return apply


def _eager_applied(frame: Any) -> None:
    """An eager apply: one step, unless it follows the last one in the same loop iteration or call (`same_step`)."""
    try:
        position = loop_position(frame)
        joins = same_step(_local.applied_at, position)
        _local.applied_at = position
    except Exception as exc:
        _fail("an eager apply", exc)
        return
    if not joins:
        _notify("applied", None, _eager_site(frame))


def _first_replica() -> bool:
    """False on the replica threads of an eager `strategy.run` but the first: one step, not one per replica."""
    replica = tf_access.replica_thread(threading.current_thread())
    return replica is None or replica[0] == 0


def _wrap_write(original: Callable, kind: str) -> Callable:
    clock = time.perf_counter

    @functools.wraps(original)
    def write(*args: Any, **kwargs: Any) -> Any:
        if _local.busy or not _sinks or function_calls.tracing()[0]:
            try:
                return original(*args, **kwargs)
            except BaseException as exc:
                hide_own_frame(exc)
                raise
        _local.busy = kind
        start = clock()
        result = None
        try:
            result = original(*args, **kwargs)
            return result
        except BaseException as exc:
            hide_own_frame(exc)
            raise
        finally:
            seconds = clock() - start
            _local.busy = ""
            # a summary call that recorded nothing (no default writer, `record_if` off) is no write
            if tf_access.executing_eagerly() and (kind != tf_access.SUMMARY or tf_access.summary_wrote(result)):
                site, through = user_site(sys._getframe(1))
                _notify("wrote", kind, seconds, site, through)

    return write


def _wrap_next(original: Callable, kind: str) -> Callable:
    clock = time.perf_counter

    @functools.wraps(original)
    def __next__(self: Any) -> Any:
        if not _sinks or _local.busy or function_calls.tracing()[0]:
            try:
                return original(self)
            except BaseException as exc:  # StopIteration too: it ends the program's loop
                hide_own_frame(exc)
                raise
        _local.busy = kind  # a distributed iterator's next over a plain one's is one batch
        start = clock()
        try:
            return original(self)
        except BaseException as exc:
            hide_own_frame(exc)
            raise
        finally:
            seconds = clock() - start
            _local.busy = ""
            frame = sys._getframe(1)  # the `for` loop's frame, usually the user's own
            site = (frame.f_code.co_filename, frame.f_lineno)
            if is_library_file(site[0]):
                site = user_site(frame)[0]
            _notify("next_batch", seconds, site)

    return __next__


def _wrap_map(original: Callable, kind: str) -> Callable:
    @functools.wraps(original)
    def map(*args: Any, **kwargs: Any) -> Any:
        if not _sinks or _local.in_map:
            try:
                return original(*args, **kwargs)
            except BaseException as exc:
                hide_own_frame(exc)
                raise
        site = None
        parallel = None
        try:
            site = user_site(sys._getframe(1))[0]
            parallel = tf_access.map_parallel_calls(args[1:], kwargs)
            _notify("map_made", site, parallel)
        except Exception as exc:
            _fail("a Dataset.map", exc)
        _local.in_map, _local.map_site, _local.map_parallel = True, site, parallel
        try:
            return original(*args, **kwargs)
        except BaseException as exc:  # the map's function raised as it was traced
            hide_own_frame(exc)
            raise
        finally:
            _local.in_map, _local.map_site, _local.map_parallel = False, None, None

    return map


def _wrap_py_function(original: Callable, kind: str) -> Callable:
    @functools.wraps(original)
    def _internal_py_func(func: Any, *args: Any, **kwargs: Any) -> Any:
        if not _sinks or not callable(func):
            try:
                return original(func, *args, **kwargs)
            except BaseException as exc:
                hide_own_frame(exc)
                raise
        if _local.in_map:
            map_site, parallel = _local.map_site, _local.map_parallel
        else:  # made outside a map (Dataset.from_generator makes its own, a Keras fit's for a generator)
            frame = sys._getframe(1)
            map_site, parallel = user_site(frame)[0], None
            try:
                parallel = _python_source(frame, map_site)
            except Exception as exc:
                _fail("a Python input", exc)
        try:
            return original(_timed_input(func, map_site, parallel), *args, **kwargs)
        except BaseException as exc:
            hide_own_frame(exc)
            raise

    return _internal_py_func


def _python_source(frame: Any, site: Site) -> Any:
    """Say which Python input a pipeline made outside a map reads (a generator or PyDataset given to Keras, the
    generator of a `Dataset.from_generator`), with the line that defines it; its parallelism (None: serial)."""
    source = tf_access.input_source(frame)
    if source is None:
        return None
    kind, what, parallel = source
    name, defined = _defined(what)
    _notify("input_source", site, kind, name, defined, parallel)
    return True if parallel else None


def _defined(what: Any) -> Tuple[str, Site]:
    """(name, defining line) of a generator object or function (its `def`), or of an object (its class)."""
    code = getattr(what, "gi_code", None) or getattr(what, "__code__", None)
    if code is not None:
        return code.co_name, (code.co_filename, code.co_firstlineno)
    cls = what if isinstance(what, type) else type(what)
    try:
        import inspect

        return cls.__name__, (inspect.getsourcefile(cls) or "", inspect.getsourcelines(cls)[1])
    except (OSError, TypeError):  # a class with no source (made at run time): its name only
        return cls.__name__, None


def _timed_input(func: Callable, map_site: Site, parallel: Any) -> Callable:
    clock = time.perf_counter

    @functools.wraps(func)
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = clock()
        try:
            return func(*args, **kwargs)
        except BaseException as exc:  # shown in the text of the error TensorFlow raises in the program
            hide_own_frame(exc)
            raise
        finally:
            if _sinks:
                _notify("python_input", clock() - start, map_site, parallel)

    return timed


def _wrap_callback_init(original: Callable, kind: str) -> Callable:
    @functools.wraps(original)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        try:
            original(self, *args, **kwargs)
        except BaseException as exc:
            hide_own_frame(exc)
            raise
        if _sinks:
            try:
                if self not in _callback_sites:  # a subclass's __init__ calls this one too: its first line
                    _callback_sites[self] = user_site(sys._getframe(1))[0]
            except TypeError:  # not weakly referable: its writes blame the user's line that led to them
                pass
            except Exception as exc:
                _fail("a Keras callback", exc)

    return __init__


_WRAPPERS = {tf_access.APPLY: _wrap_apply, tf_access.SAVE: _wrap_write, tf_access.SUMMARY: _wrap_write,
             tf_access.FLUSH: _wrap_write, tf_access.NEXT: _wrap_next, tf_access.MAP: _wrap_map,
             tf_access.PY_FUNCTION: _wrap_py_function, tf_access.CALLBACK: _wrap_callback_init}
