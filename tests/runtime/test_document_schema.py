"""The JSON document against the JSON Schema the package ships (output/run-report.schema.json), in milliseconds:
a synthetic recorder's report, every diagnostic located (path, line) with its evidence, and what the schema
refuses. Real documents of real programs are checked in tests/run (valid_document)."""

from __future__ import annotations

import jsonschema
import pytest

from tests.runtime.test_verdict_texts import OPTIONS, _data, _site
from tfguard.runtime.judge import all_diagnostics
from tfguard.runtime.judge.judgement import diagnose, judged_session
from tfguard.runtime.output.formats import SCHEMA_PATH, document_schema
from tfguard.runtime.output.session_report import SessionReport
from tfguard.runtime.record.recorder import DEFAULT_OPTIONS
from tfguard.runtime.record.recording import Recording, SignatureRecord, SiteRecord, Violation
from tfguard.runtime.verdict import DOCUMENT_VERSION, SessionVerdict

VALIDATOR = jsonschema.Draft202012Validator(document_schema())


def judged_document(recording):
    """A guard's document (`SessionReport.to_dict()`) of a judged recording."""
    figures, found = judged_session(recording)
    return SessionReport(SessionVerdict(figures=figures), found).to_dict()


def _recording(**changes):
    values = dict(runs=100, wall_s=10.0, run_s=4.0, host_fraction=0.6, options=dict(DEFAULT_OPTIONS),
                  signatures=[SignatureRecord("train:0 <- x:0", count=100, run_time={"count": 100, "total": 4.0},
                                              interval={"count": 99, "total": 9.9})])
    values.update(changes)
    return Recording(**values)


def test_the_schema_is_a_valid_draft_2020_12_schema_of_this_version():
    jsonschema.Draft202012Validator.check_schema(document_schema())
    assert document_schema()["properties"]["version"] == {"const": DOCUMENT_VERSION}
    assert SCHEMA_PATH.endswith("run-report.schema.json")


def test_a_judged_recording_is_a_valid_document_with_every_diagnostic_located():
    site = SiteRecord(**_site())
    document = judged_document(_recording(growth_sites=[site], saves=4, save_s=2.5, wall_s=10.0,
                                          frozen_violations=[Violation("train.py", 20, "x = 1", None, 3, "TFG102")]))
    VALIDATOR.validate(document)
    codes = [d["code"] for d in document["diagnostics"]]
    assert codes == ["TFG901", "TFG903", "TFG905"]
    growth, input_bound, saves = document["diagnostics"]
    assert growth["sites"][0] == {"path": "train.py", "line": 12, "role": "blamed"}
    assert growth["evidence"]["blocked"][0]["after_run"] == 3 and growth["help"]
    assert input_bound["evidence"] == {"host_fraction": 0.6, "runs": 100}
    assert saves["sites"] == [] and saves["evidence"]["saves"] == 4 and saves["help"] == "save less often"


def test_a_one_time_site_is_blamed_by_the_info_line():
    one_time = diagnose(_data(growth_sites=[_site(kind="one-time", first=3, last=4, line=7)]), OPTIONS)
    assert [(d.severity, d.path, d.line) for d in one_time] == [("info", "train.py", 7)]


GOOD = {"scope": "session", "session": 0, "code": "TFG901", "severity": "error", "headline": "h", "help": "",
        "sites": [], "evidence": {}}


@pytest.mark.parametrize("broken", [
    dict(GOOD, code="TFG9"), dict(GOOD, severity="fatal"), dict(GOOD, scope="everywhere"),
    {k: v for k, v in GOOD.items() if k != "sites"}, dict(GOOD, sites=[{"path": "a.py", "line": 3}]),
    dict(GOOD, headline=""),
])
def test_the_schema_refuses_a_diagnostic_without_its_location_or_with_a_bad_code(broken):
    document = judged_document(_recording())
    document["diagnostics"] = [broken]
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(document)


def test_every_declared_diagnostic_has_a_code_the_schema_accepts():
    pattern = document_schema()["$defs"]["diagnostic"]["properties"]["code"]["pattern"]
    assert all(jsonschema.Draft202012Validator({"pattern": pattern}).is_valid(code) for code in all_diagnostics())
