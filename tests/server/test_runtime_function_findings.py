"""The editor shows TFG908 on the calling line a `tfguard run --json` document blames (its `functions` entry)."""

from __future__ import annotations

from tfguard.server.runtime_findings import placed_findings


def test_a_retracing_function_is_placed_on_its_calling_line(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\n\nstep(x, epoch)\n", encoding="utf-8")
    finding = {"code": "TFG908", "severity": "warning", "message": "`step` keeps retracing", "path": str(script),
               "line": 3, "evidence": {"function": "step"}}
    document = {"version": 3, "functions": {"available": True, "failed": False, "functions": [],
                                            "diagnostics": [finding]}}
    (placed,) = placed_findings(document, [str(tmp_path)])
    assert (placed.path, placed.line, placed.code, placed.severity) == (str(script), 3, "TFG908", "warning")
