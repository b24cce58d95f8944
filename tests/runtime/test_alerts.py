"""Live alerts on stderr wrap to 80 columns or COLUMNS as the report does (issue 36 item 2), in milliseconds;
the program's own output is never wrapped (tests/run/test_run_cli.py runs a real program for that)."""

from __future__ import annotations

import warnings

from tfguard.runtime.errors import GraphGrowthWarning, SlowdownWarning
from tfguard.runtime.output import alerts

LONG = ("tfguard: the graph keeps growing at /home/someone/projects/train.py:52 `saver = tf.train.Saver()`: "
        "tf.train.Saver (Const, SaveV2, RestoreV2) added after 40 different runs since the loop started, most "
        "recently after run 41 (static rule TFG101): build the Saver once, before the loop")


def test_an_alert_on_stderr_wraps_to_columns_with_its_continuation_lines_indented(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "60")
    alerts.emit(LONG, GraphGrowthWarning, through_warnings=False)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) > 3 and all(len(line) <= 60 for line in lines)
    assert lines[0].startswith("GraphGrowthWarning: tfguard: the graph keeps growing")
    assert all(line.startswith(alerts.HANG) and not line.startswith(alerts.HANG + " ") for line in lines[1:])
    assert " ".join(line.strip() for line in lines) == "GraphGrowthWarning: " + LONG  # nothing lost at a wrap


def test_eighty_columns_without_columns_and_one_line_when_wide(monkeypatch, capsys):
    monkeypatch.delenv("COLUMNS", raising=False)
    alerts.emit(LONG, SlowdownWarning, through_warnings=False)
    assert max(len(line) for line in capsys.readouterr().err.splitlines()) <= 80
    monkeypatch.setattr(alerts, "width", 0)
    alerts.emit(LONG, SlowdownWarning, through_warnings=False)
    assert capsys.readouterr().err == "SlowdownWarning: %s\n" % LONG


def test_a_short_alert_is_one_line_and_a_warning_is_the_warnings_machinerys_to_format(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "60")
    alerts.emit("tfguard: short", GraphGrowthWarning, through_warnings=False)
    assert capsys.readouterr().err == "GraphGrowthWarning: tfguard: short\n"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        alerts.emit(LONG, GraphGrowthWarning)
    assert [str(w.message) for w in caught] == [LONG]  # the message itself is never cut into lines
