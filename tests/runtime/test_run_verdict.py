"""The run verdict (runtime/verdict.py), judged once and read by every output: a verdict holding one diagnostic of
every scope is shown or counted whole by the text, the JSON document, the HTML page, the A/B page, the language
server and `--fail-on` / the pytest budgets; earlier documents convert on load. Synthetic, no TensorFlow."""

from __future__ import annotations

import json

import jsonschema

from tests.runtime.html_documents import FACTS, session_figures
from tfguard.integrations.budgets import verdict as budget_verdict
from tfguard.runtime.judge import fail_on_codes
from tfguard.runtime.output.formats import FORMATS, document_schema
from tfguard.runtime.output.html.page import render_report
from tfguard.runtime.output.html.side_by_side import render_comparison
from tfguard.runtime.verdict import (
    ACROSS_SESSIONS,
    DOCUMENT_VERSION,
    FUNCTION,
    PROGRAM,
    SCOPES,
    SESSION,
    Diagnostic,
    FunctionsVerdict,
    RunVerdict,
    SessionVerdict,
    Site,
)
from tfguard.server.runtime_findings import placed_findings
from tfguard.views.compare import comparison_table

#: One diagnostic of every scope, each saying which it is.
EVERY_SCOPE = [
    Diagnostic("TFG901", "error", "the session headline", "the session help", [Site("train.py", 41)],
               {"sites": []}, SESSION, 1),
    Diagnostic("TFG901", "error", "the across-sessions headline", "", [Site("train.py", 42)],
               {"graph": 1, "sessions": [1, 2]}, ACROSS_SESSIONS),
    Diagnostic("TFG908", "warning", "the function headline", "the function help", [Site("train.py", 43)],
               {"function": "step"}, FUNCTION),
    Diagnostic("TFG905", "warning", "the program headline", "the program help", [Site("train.py", 44)], {},
               PROGRAM),
]
FUNCTION_FACTS = {"function": "step", "path": "train.py", "line": 3, "calls": 12, "traces": 12, "traced_calls": 12,
                  "objects": 1, "trace_seconds": 0.2, "run_seconds": 0.3, "call_sites": [], "changes": []}


def _verdict():
    """A two-session run with a tf.function and one diagnostic of every scope."""
    figures = session_figures()
    sessions = [SessionVerdict(1, "train.py:30", 1, False, figures), SessionVerdict(2, "train.py:31", 1, True,
                                                                                   dict(figures, runs=3))]
    functions = FunctionsVerdict(True, False, [FUNCTION_FACTS])
    return RunVerdict(dict(FACTS, command=["train.py"]), sessions, functions, list(EVERY_SCOPE))


def _headlines(text):
    return [d.headline for d in EVERY_SCOPE if d.headline in text]


def test_the_verdict_holds_every_scope():
    assert sorted(d.scope for d in _verdict().diagnostics) == sorted(SCOPES)


def test_the_text_shows_every_diagnostic_with_its_help():
    text = FORMATS["text"].render(_verdict(), 0)
    assert _headlines(text) == [d.headline for d in EVERY_SCOPE]
    assert all("help: " + d.help in text for d in EVERY_SCOPE if d.help)


def test_the_json_document_holds_every_diagnostic_and_reads_back_the_same():
    document = json.loads(FORMATS["json"].render(_verdict(), 0))
    jsonschema.Draft202012Validator(document_schema()).validate(document)
    assert document["version"] == DOCUMENT_VERSION and len(document["sessions"]) == 2
    assert [(d["scope"], d["headline"]) for d in document["diagnostics"]] == [(d.scope, d.headline)
                                                                            for d in EVERY_SCOPE]
    assert RunVerdict.from_document(document).to_document() == document


def test_the_html_page_shows_every_diagnostic_and_the_functions():
    html = render_report(_verdict())
    assert _headlines(html) == [d.headline for d in EVERY_SCOPE]
    assert all(d.help in html for d in EVERY_SCOPE if d.help)
    assert '<section id="traces">' in html and '<section id="sessions">' in html


def test_the_a_b_page_and_table_show_every_diagnostic():
    runs = [("a.json", _verdict()), ("b.json", RunVerdict())]
    assert _headlines(render_comparison(runs)) == [d.headline for d in EVERY_SCOPE]
    table = comparison_table(runs)
    assert _headlines(table) == [d.headline for d in EVERY_SCOPE]
    assert "TFG901, TFG901, TFG908, TFG905" in table


def test_the_language_server_places_every_diagnostic_on_its_line(tmp_path):
    (tmp_path / "train.py").write_text("x = 1\n" * 50, encoding="utf-8")
    found = list(placed_findings(_verdict().to_document(), [str(tmp_path)]))
    assert [(f.line, f.code) for f in found] == [(41, "TFG901"), (42, "TFG901"), (43, "TFG908"), (44, "TFG905")]
    assert found[0].message == "the session headline \u2014 the session help"


def test_fail_on_and_the_pytest_budgets_count_every_diagnostic():
    verdict = _verdict()
    assert verdict.fired_codes() == {"TFG901", "TFG908", "TFG905"}
    records = [{"origin": "created at train.py:%d" % line, "runs": 10, "nodes_added": 0, "new_ops_after_warmup": 0,
                "step_s": None, "host_fraction": None, "slowdown": None, "repeated_growth": []} for line in (30, 31)]
    result = budget_verdict(verdict, records, None, fail_on_codes())
    assert len(result["failures"]) == 4 and result["codes"] == ["TFG901", "TFG905", "TFG908"]
    assert all(any(d.headline in failure for failure in result["failures"]) for d in EVERY_SCOPE)


def test_a_version_3_run_document_converts_on_load():
    said = {"code": "TFG905", "severity": "warning", "message": "saved \u2014 save less", "path": "t.py",
            "line": 5, "evidence": {"saves": 4}}
    main = dict(session_figures(), version=3, diagnostics=[said], created_at="train.py:30", session_number=1,
                graph_number=1, graph_ran_before=False)
    old = dict(main, command=["train.py"], session_count=2, other_sessions=[{
        "created_at": "train.py:31", "session_number": 2, "graph_number": 1, "graph_ran_before": True,
        "report": dict(main, diagnostics=[dict(said, path=None, line=None)])}],
        across_sessions=[dict(said, code="TFG901", severity="info", graph=1, sessions=[1, 2], sites=[])],
        functions={"available": True, "failed": False, "functions": [FUNCTION_FACTS], "diagnostics": [
            dict(said, code="TFG908", path="f.py", line=9)]})
    verdict = RunVerdict.from_document(json.loads(json.dumps(old)))
    assert [(s.number, s.created_at) for s in verdict.sessions] == [(1, "train.py:30"), (2, "train.py:31")]
    assert verdict.traced_functions == [FUNCTION_FACTS] and verdict.command == "train.py"
    assert [(d.scope, d.session, d.code, d.path) for d in verdict.diagnostics] == [
        (SESSION, 1, "TFG905", "t.py"), (SESSION, 2, "TFG905", None), (ACROSS_SESSIONS, None, "TFG901", "t.py"),
        (FUNCTION, None, "TFG908", "f.py")]
    assert verdict.diagnostics[0].headline == "saved \u2014 save less"
    assert verdict.diagnostics[2].evidence["graph"] == 1
    jsonschema.Draft202012Validator(document_schema()).validate(verdict.to_document())
