"""Attribute TensorFlow activity to the user's source line and the TF API it called."""

from __future__ import annotations

import linecache
import os
import sys
from types import CodeType, FrameType
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

# Packages whose frames are "library", never the user's line.
_LIBRARY_PACKAGES = ("tensorflow", "tensorflow_core", "tensorflow_estimator", "tf_keras", "keras")
_RUNTIME_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# TF's decorator/dispatch plumbing: skipped when looking for the API the user called (the
# weak-tensor wrapper around `tf.reduce_mean`, the operator overloads behind `a + b`).
_PLUMBING_PARTS = (os.sep + "python" + os.sep + "util" + os.sep, os.sep + "weak_tensor_ops.py",
                   os.sep + "override_binary_operator.py", os.sep + "tensor_math_operator_overrides.py")
# TF 1.15 defines the operator overloads as closures inside math_ops.py itself (2.x moved them to the files
# above): `x * 2` runs `binary_op_wrapper` -> `_mul_dispatch` -> `tf.math.multiply`.
_PLUMBING_FUNCTIONS = ("binary_op_wrapper", "r_binary_op_wrapper", "binary_op_wrapper_sparse")
_MATH_OPS_FILE = os.sep + "ops" + os.sep + "math_ops.py"

_internal_cache: Dict[str, bool] = {}


def _library_dirs() -> List[str]:
    dirs = []
    for name in _LIBRARY_PACKAGES:
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None) if module else None
        if path:
            dirs.append(os.path.dirname(os.path.abspath(path)) + os.sep)
    return dirs


def is_library_file(filename: str) -> bool:
    """True for files of TensorFlow (and its Keras/Estimator companions) or of this runtime."""
    known = _internal_cache.get(filename)
    if known is not None:
        return known
    absolute = os.path.abspath(filename) if filename and not filename.startswith("<") else filename
    result = absolute.startswith(_RUNTIME_DIR + os.sep) or any(
        absolute.startswith(d) for d in _library_dirs()
    )
    if not result:
        parts = absolute.replace("\\", "/").split("/")
        result = any(p in _LIBRARY_PACKAGES for p in parts[:-1]) and "site-packages" in parts
    _internal_cache[filename] = result
    return result


def user_stacklevel() -> int:
    """`stacklevel` for a `warnings.warn` made by the caller that names the user's line.

    That is the first frame, counting out from the caller's caller, outside TensorFlow
    and this runtime, however deep the guard's own calls are (1 if there is none).
    """
    frame = sys._getframe(2)
    level = 2
    while frame is not None and is_library_file(frame.f_code.co_filename):
        frame = frame.f_back
        level += 1
    return level if frame is not None else 1


def source_line(path: str, line: int) -> str:
    """The stripped text of `path:line`, or '' when unavailable."""
    return linecache.getline(path, line).strip()


def live_stack(start: FrameType) -> List[FrameType]:
    """Frames from `start` outwards (innermost first)."""
    frames = []
    frame: Optional[FrameType] = start
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    return frames


def user_and_api_from_frames(frames: Sequence[FrameType]) -> Tuple[Optional[Tuple[str, int]], Optional[str]]:
    """From innermost-first live frames: the first user (path, line) and the TF API it called."""
    for index, frame in enumerate(frames):
        filename = frame.f_code.co_filename
        if not is_library_file(filename):
            callees = list(reversed(frames[:index]))  # outermost callee first
            return (filename, frame.f_lineno), _api_of_live(callees)
    return None, None


def _api_of_live(callees: Sequence[FrameType]) -> Optional[str]:
    """The first public API among the callees: `x * 2` goes through `math_ops._mul_dispatch`, a private
    helper no user calls, to `tf.math.multiply`."""
    for frame in callees:
        if _is_plumbing(frame.f_code.co_filename, frame.f_code.co_name):
            operator = _operator_api(frame)
            if operator is not None:
                return operator
            continue
        api = resolve_api(frame.f_code, frame.f_globals, frame.f_locals)
        if not is_private_api(api):
            return api
    return None


def _operator_api(frame: FrameType) -> Optional[str]:
    """The API of TF 1.15's operator closure (`binary_op_wrapper`, for `x * 2`), by its operator name, as 2.x
    names it (`tf.math.multiply`); None for other frames. The closure converts the Python operand itself
    before it calls the operator's private dispatcher, so its callees would name `tf.convert_to_tensor`."""
    if frame.f_code.co_name not in _PLUMBING_FUNCTIONS:
        return None
    op_name = frame.f_locals.get("op_name")
    if not isinstance(op_name, str) or not op_name:
        return None
    return _OPERATOR_APIS.get(op_name, "tf.math." + op_name)


#: TF 1.15 `binary_op_wrapper` operator names whose public API is not `tf.math.<name>`.
_OPERATOR_APIS = {"mul": "tf.math.multiply", "sub": "tf.math.subtract", "div": "tf.math.divide",
                  "mod": "tf.math.floormod", "matmul": "tf.linalg.matmul", "and": "tf.math.logical_and",
                  "or": "tf.math.logical_or", "xor": "tf.math.logical_xor"}


def is_private_api(api: str) -> bool:
    """Whether an API name has a private part (`tensorflow.python.ops.math_ops._mul_dispatch`)."""
    return any(part.startswith("_") and not part.startswith("__") for part in api.split("."))


def _is_plumbing(filename: str, name: str = "") -> bool:
    if name in _PLUMBING_FUNCTIONS and filename.endswith(_MATH_OPS_FILE):
        return True
    return any(part in filename for part in _PLUMBING_PARTS) or filename.startswith(_RUNTIME_DIR)


def _frame_fields(frame: Any) -> Tuple[str, int, str]:
    filename = getattr(frame, "filename", None)
    if filename is None:  # TF 1.15: plain tuples (filename, lineno, name, line)
        return frame[0], frame[1], frame[2]
    return filename, frame.lineno, frame.name


def user_and_api_from_traceback(traceback: Iterable[Any]) -> Tuple[Optional[Tuple[str, int]], Optional[str]]:
    """From an `Operation.traceback` (outermost first): the user's (path, line) and the API called."""
    frames = [_frame_fields(f) for f in traceback]
    for index in range(len(frames) - 1, -1, -1):
        filename, lineno, _ = frames[index]
        if not is_library_file(filename):
            for callee_file, callee_line, callee_name in frames[index + 1:]:
                if _is_plumbing(callee_file, callee_name):
                    continue
                return (filename, lineno), _api_of_summary(callee_file, callee_line, callee_name)
            return (filename, lineno), None
    return None, None


_file_modules: Optional[Dict[str, Any]] = None


def _module_for_file(filename: str) -> Any:
    global _file_modules
    if _file_modules is None or filename not in _file_modules:
        _file_modules = {}
        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None)
            if path:
                _file_modules[os.path.abspath(path)] = module
    return _file_modules.get(os.path.abspath(filename))


def _api_of_summary(filename: str, lineno: int, name: str) -> Optional[str]:
    module = _module_for_file(filename)
    if module is None:
        return name
    for value in list(vars(module).values()):
        for code in _codes_of(value):
            if code.co_name == name and _code_has_line(code, lineno):
                return resolve_api(code, vars(module), {})
        if isinstance(value, type) and getattr(value, "__module__", None) == module.__name__:
            for attribute in vars(value).values():
                code = _code_of(attribute)
                if code is not None and code.co_name == name and _code_has_line(code, lineno):
                    return _api_name(value, name, module.__name__)
    return module.__name__ + "." + name


def _code_of(value: Any) -> Optional[CodeType]:
    codes = _codes_of(value)
    return codes[0] if codes else None


def _unwrapped(value: Any) -> List[Any]:
    """`value` and what its decorators wrap (deprecation, dispatch, weak tensors), outermost first."""
    chain = []
    for _ in range(8):
        if value is None:
            break
        chain.append(value)
        value = getattr(value, "__wrapped__", None) or getattr(value, "__func__", None)
    return chain


def _codes_of(value: Any) -> List[CodeType]:
    return [code for code in (getattr(v, "__code__", None) for v in _unwrapped(value)) if code is not None]


def _code_has_line(code: CodeType, lineno: int) -> bool:
    if hasattr(code, "co_lines"):
        return any(line == lineno for _, _, line in code.co_lines())
    import dis  # Python < 3.10

    return any(line == lineno for _, line in dis.findlinestarts(code))


def _exported_names(obj: Any) -> Optional[Sequence[str]]:
    if not isinstance(obj, type):
        for inner in _unwrapped(obj)[1:]:
            names = _exported_names(inner) if not isinstance(inner, type) and inner is not obj else None
            if names:
                return names
    namespace = vars(obj) if isinstance(obj, type) else getattr(obj, "__dict__", {})
    names = namespace.get("_tf_api_names_v1") or namespace.get("_tf_api_names")
    if names:
        return names
    keras = namespace.get("_keras_api_names_v1") or namespace.get("_keras_api_names")
    return ["keras." + name.split("keras.", 1)[-1] for name in keras] if keras else None


def resolve_api(code: CodeType, f_globals: Dict[str, Any], f_locals: Dict[str, Any]) -> str:
    """Public TF name (`tf.train.Saver`) of the function or method running `code`."""
    name = code.co_name
    module_name = f_globals.get("__name__", "")
    owner = f_locals.get("self") if f_locals else None
    if owner is not None:
        cls = owner if isinstance(owner, type) else type(owner)
        for klass in cls.__mro__:
            if _code_of(vars(klass).get(name)) is code:
                return _api_name(klass, name, module_name)
    function = f_globals.get(name)
    if function is not None:
        names = _exported_names(function)
        if names:
            return "tf." + names[0]
    return module_name + "." + getattr(code, "co_qualname", name)


def _api_name(klass: type, method: str, module_name: str) -> str:
    """`tf.train.Saver` for Saver.__init__, `tf.keras.Model.fit`; the class that defines the method
    is named, never a distant exported base (`fit` is not `tf.Module.fit`)."""
    names = _exported_names(klass)
    base = "tf." + names[0] if names else getattr(klass, "__module__", module_name) + "." + klass.__qualname__
    return base if method == "__init__" else base + "." + method


# Static rule that would have caught graph growth through a given TF API, and its fix.
_RULES = (
    ("TFG101", lambda api: "Saver" in api,
     "create the tf.train.Saver once, before the loop, and only call saver.save() inside it"),
    ("TFG103", lambda api: "initializ" in api.lower(),
     "create the initializer op once, before the loop, and run that op"),
    ("TFG104", lambda api: "import_meta_graph" in api or "import_graph_def" in api,
     "import the graph once, before the loop"),
    ("TFG106", lambda api: "iterator" in api.lower() or "get_next" in api,
     "create the iterator and its get_next() tensor once, before the loop"),
    ("TFG107", lambda api: ".summary." in api or api.endswith("_summary"),
     "build the summary ops once (merge_all() before the loop) and fetch the merged op"),
    ("TFG108", lambda api: ".assign" in api or api.split(".")[-1].startswith("assign"),
     "create the assign op once with a tf.placeholder value and feed the value"),
)
_DEFAULT_RULE = ("TFG102", "build the op once, before the loop (feed changing values through a "
                 "tf.placeholder), and only sess.run it inside")


def rule_for_api(api: Optional[str]) -> Tuple[str, str]:
    """(static rule code, fix) for graph growth through `api`."""
    if api:
        for code, matches, fix in _RULES:
            if matches(api):
                return code, fix
    return _DEFAULT_RULE
