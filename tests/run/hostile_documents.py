"""Run documents with a hostile value in one field (or in every string field at once), for the tests that show a
crafted report file can neither run script on the page nor crash `tfguard report` (tests/run/test_report_hostile.py,
tests/run/test_html_browser.py)."""

from __future__ import annotations

import copy
from dataclasses import replace
from html.parser import HTMLParser
from typing import Any, Dict, Iterator, List, Tuple

from tests.runtime.html_documents import SITE, run_verdict
from tfguard.runtime.verdict import ACROSS_SESSIONS, FUNCTION, PROGRAM, Diagnostic, FunctionsVerdict, Site

#: Ends every context it could land in (title, attribute, style, script), then tries three ways to run script; each
#: one that ran would mark the page's root element, which the browser tests read.
HOSTILE = ("</title></style></script>\"'><script>document.documentElement.setAttribute('data-pwned','script')"
           "</script><img src=x onerror=\"document.documentElement.setAttribute('data-pwned','onerror')\">"
           "<svg onload=document.documentElement.setAttribute('data-pwned','svg')>\u202e\x1b[31m")
Path = Tuple[Any, ...]


def full_document() -> Dict[str, Any]:
    """A run document with every part the schema describes filled in: two sessions (saves, two fetch signatures,
    a frozen violation), a diagnostic across sessions, a traced function (TFG908), host time, and a TF2 loop's
    steps with TFG902's edges."""
    verdict = run_verdict(200, saves=3, signatures=2)
    other = run_verdict(50, growing=False, seed=2).sessions[0]
    verdict.sessions.append(replace(other, number=2, created_at="train.py:80"))
    verdict.sessions[0].figures["frozen_violations"] = [{
        "path": "train.py", "line": 41, "code": SITE["code"], "api": "tf.reduce_mean", "step": 3, "rule": "TFG102"}]
    change = {"argument": "n", "kind": "value", "before": "1", "after": "2", "count": 29, "first_call": 2,
              "text": "argument `n`: Python value 1 -> 2"}
    verdict.functions = FunctionsVerdict(True, False, [{
        "function": "step", "path": "train.py", "line": 3, "calls": 30, "traces": 30, "traced_calls": 30,
        "traced_call_numbers": [1, 2], "objects": 1, "most_traced_calls_of_one_object": 30, "trace_seconds": 0.5,
        "run_seconds": 0.7, "call_sites": [{"path": "train.py", "line": 8, "traced_calls": 30}],
        "first_arguments": [{"argument": "n", "value": "0"}], "changes": [change]}])
    verdict.facts["steps"] = tf2_steps()
    verdict.diagnostics += [
        Diagnostic("TFG902", "warning", "steps got x2.00 slower", "look at train.py:30", [Site("train.py", 30)],
                   {"step_seconds_first": 0.01, "step_seconds_last": 0.02, "warmup_intervals": 5,
                    "first_fifth_end": 14, "last_fifth_start": 40}, PROGRAM),
        Diagnostic("TFG906", "warning", "a graph per session", "build the graph once", [Site("train.py", 12)],
                   {"note": "x", "graph": 2, "sites": [dict(SITE)]}, ACROSS_SESSIONS),
        Diagnostic("TFG908", "warning", "`step` keeps retracing", "pass tensors", [Site("train.py", 8)],
                   {"function": "step", "changes": [change]}, FUNCTION)]
    return verdict.to_document()


def tf2_steps() -> Dict[str, Any]:
    """A TF2 loop's `steps` fact (record/steps.py): 50 compiled steps with a batch taken, a serial map, a
    checkpoint and a summary written by lines of train.py."""
    from tfguard.runtime.record.steps import StepRecord

    record = StepRecord()
    record.step_function(1, "train_step", "train.py", 10)
    for step in range(50):
        record.compiled_step(record.functions[1], step * 0.02, 0.01, step * 0.01)
        record.next_batch(0.002, ("train.py", 29))
    record.map_made(("train.py", 12), None)
    record.python_input(0.05, ("train.py", 12), None)
    record.wrote("save", 0.05, ("train.py", 35), "ModelCheckpoint")
    record.wrote("summary", 0.001, ("train.py", 33), "")
    return dict(record.to_dict(), failed=False)


def fields(node: Any, path: Path = ()) -> Iterator[Path]:
    """Every field below `node`, as a path of keys and indexes (the first item of each list: the others have the
    same schema)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield path + (key,)
            yield from fields(value, path + (key,))
    elif isinstance(node, list) and node:
        yield path + (0,)
        yield from fields(node[0], path + (0,))


def value_at(document: Dict[str, Any], path: Path) -> Any:
    """The value at `path`."""
    for part in path:
        document = document[part]
    return document


def with_value(document: Dict[str, Any], path: Path, value: Any) -> Dict[str, Any]:
    """A copy of `document` with `value` at `path`."""
    changed = copy.deepcopy(document)
    value_at(changed, path[:-1])[path[-1]] = value
    return changed


def hostile_everywhere(document: Dict[str, Any]) -> Dict[str, Any]:
    """A copy with HOSTILE appended to every string value the schema lets be any string (kept only where the
    document still fits the schema: not a diagnostic's code or severity, an enum, a site's kind)."""
    from tfguard.runtime.output.schema_check import first_problem

    changed = copy.deepcopy(document)
    for path in list(fields(changed)):
        value = value_at(changed, path)
        if isinstance(value, str):
            value_at(changed, path[:-1])[path[-1]] = value + HOSTILE
            if first_problem(changed) is not None:
                value_at(changed, path[:-1])[path[-1]] = value
    return changed


class Tags(HTMLParser):
    """The start tags of a page, with their attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: List[Tuple[str, List[Tuple[str, Any]]]] = []

    def handle_starttag(self, tag: str, attrs: List[Tuple[str, Any]]) -> None:
        self.tags.append((tag, attrs))


def page_problems(html: str) -> List[str]:
    """What a value injected into the page made of it: a script element beyond the page's two, an event-handler
    attribute, an img element (the page has none)."""
    parser = Tags()
    parser.feed(html)
    found = []
    scripts = [tag for tag, _ in parser.tags if tag == "script"]
    if len(scripts) != 2:
        found.append("%d script elements" % len(scripts))
    for tag, attrs in parser.tags:
        handlers = [name for name, _ in attrs if name.startswith("on")]
        if handlers or tag == "img":
            found.append("<%s %s>" % (tag, " ".join(handlers)))
    return found
