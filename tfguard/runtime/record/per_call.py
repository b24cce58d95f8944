"""Whether graph growth comes from a function that builds ops and runs the graph on every call (static TFG109).

The static rule TFG109 is about a ``predict()`` that builds an op and runs it, called again and again by code
outside the project (a web server, a notebook). At run time that shows as: the ops of a growth site were built
inside the same function whose frame runs the graph, outside any loop of that function that also runs it (a loop
would make it a session loop, TFG10x), and no caller of the project calls it from a loop (the static rule
reports that call instead). Frames of TensorFlow, of tfguard, of installed packages (``site-packages``: a web
framework's serving loop) and of the standard library are not the project's.
"""

from __future__ import annotations

import dis
import os
import sysconfig
from types import CodeType, FrameType
from typing import Dict, Iterable, List, Optional, Tuple

from tfguard.runtime.record.tracebacks import _frame_fields, is_library_file

#: The static rule and its fix, as `tracebacks.rule_for_api` gives them for the other rules.
PER_CALL_RULE = ("TFG109", "build the ops once (in __init__ or at module level) and run the stored tensors, "
                 "cache them lazily, or give each call its own tf.Graph()")

_STDLIB = os.path.abspath(sysconfig.get_paths()["stdlib"]) + os.sep
_loops: Dict[CodeType, List[Tuple[int, int, frozenset]]] = {}


def run_frame(start: Optional[FrameType]) -> Optional[FrameType]:
    """The first frame from `start` outwards that is neither TensorFlow's nor tfguard's: who ran the graph."""
    frame = start
    while frame is not None and is_library_file(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def builds_per_call(traceback: Iterable, runner: Optional[FrameType]) -> bool:
    """Whether an op whose `Operation.traceback` is `traceback` (outermost first) was built by the function whose
    frame `runner` runs the graph, once per call of it (see the module docstring).

    An op imported from a GraphDef (`tf.import_graph_def`, `import_meta_graph`) has no traceback (None).
    """
    if runner is None or not traceback:
        return False
    code = runner.f_code
    built_at = None
    for path, line, name in map(_frame_fields, traceback):
        if path == code.co_filename and name == code.co_name and line in _lines(code):
            built_at = line
    if built_at is None or _in_one_loop(code, built_at, runner.f_lineno):
        return False
    caller = runner.f_back
    while caller is not None:
        if _is_project_file(caller.f_code.co_filename) and _in_one_loop(caller.f_code, caller.f_lineno):
            return False
        caller = caller.f_back
    return True


def _is_project_file(filename: str) -> bool:
    if is_library_file(filename) or filename.startswith("<"):
        return False
    absolute = os.path.abspath(filename)
    parts = absolute.replace("\\", "/").split("/")
    return not absolute.startswith(_STDLIB) and "site-packages" not in parts and "dist-packages" not in parts


def _lines(code: CodeType) -> frozenset:
    return frozenset(line for _, line in dis.findlinestarts(code) if line is not None)


def _in_one_loop(code: CodeType, *lines: int) -> bool:
    """Whether one loop of `code` (a backward jump's span) holds instructions of every one of `lines`."""
    return any(all(line in loop_lines for line in lines) for _, _, loop_lines in _loop_spans(code))


def _loop_spans(code: CodeType) -> List[Tuple[int, int, frozenset]]:
    found = _loops.get(code)
    if found is None:
        instructions = []
        line = None
        for instruction in dis.get_instructions(code):
            positions = getattr(instruction, "positions", None)  # Python 3.11+
            if positions is not None and positions.lineno is not None:
                line = positions.lineno
            elif type(instruction.starts_line) is int:  # Python < 3.13
                line = instruction.starts_line
            instructions.append((instruction, line))
        found = []
        jumps = set(dis.hasjrel) | set(dis.hasjabs)
        for instruction, _ in instructions:
            target = instruction.argval
            if instruction.opcode in jumps and isinstance(target, int) and target <= instruction.offset:
                body = frozenset(ln for ins, ln in instructions
                                 if ln is not None and target <= ins.offset <= instruction.offset)
                found.append((target, instruction.offset, body))
        _loops[code] = found
    return found
