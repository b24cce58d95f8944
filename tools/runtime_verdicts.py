"""Record the runtime verdicts of the example, demo and test programs, to compare a refactor's before and after.

``python tools/runtime_verdicts.py OUT.json`` runs each program under ``tfguard run --json`` (one after the other)
and writes, per program, what does not depend on timing (from a document of any version, runtime/verdict.py): the
exit status, the diagnostics' codes and severities, the growth sites (line, kind, ops added), the runs, the graph's
ops and the frozen violations. ``ONLY=name,name`` runs a subset again. Compare two files with ``diff``. Timing
verdicts (TFG902, TFG903, the share verdicts) are kept too: on a quiet machine they are stable, and a difference is
then worth a look (under load they may differ for a reason that is not the code).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tfguard.runtime.verdict import ACROSS_SESSIONS, FUNCTION, PROGRAM, RunVerdict  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
PROGRAMS = REPO / "tests" / "run" / "programs"
DEMO = REPO / "tfguard" / "demo"
#: (name, arguments after `tfguard run`), {tmp} stands for a fresh folder.
RUNS = [
    ("examples/train.py", [str(REPO / "examples" / "train.py")]),
    ("seed000_summaries", [str(DEMO / "seed000_summaries.py")]),
    ("seed000_fixed", [str(DEMO / "seed000_fixed.py")]),
    ("seed002_input_bound", [str(DEMO / "seed002_input_bound.py")]),
    ("seed002_fixed", [str(DEMO / "seed002_fixed.py")]),
    ("seed003_saver_in_loop", [str(DEMO / "seed003_saver_in_loop.py")]),
    ("seed003_fixed", [str(DEMO / "seed003_fixed.py")]),
    ("mnist_style", [str(PROGRAMS / "mnist_style.py"), "40"]),
    ("mnist_style leak", [str(PROGRAMS / "mnist_style.py"), "40", "leak"]),
    ("session_per_item", [str(PROGRAMS / "session_per_item.py"), "8"]),
    ("meta_graph_per_item", [str(PROGRAMS / "meta_graph_per_item.py"), "{tmp}", "30"]),
    ("meta_graph_per_item fixed", [str(PROGRAMS / "meta_graph_per_item.py"), "{tmp}", "30", "fixed"]),
    ("restore_per_request", [str(PROGRAMS / "restore_per_request.py"), "6"]),
    ("monitored", [str(PROGRAMS / "monitored.py"), "200", "{tmp}"]),
    ("gan_epochs", [str(PROGRAMS / "gan_epochs.py"), "3", "20", "{tmp}"]),
    ("steady_loop freeze", ["--freeze-after", "3", str(PROGRAMS / "steady_loop.py"), "60", "grow"]),
    ("steady_loop", [str(PROGRAMS / "steady_loop.py"), "60"]),
]


def summary(document: dict) -> dict:
    """What a run's document says that does not depend on timing, in the same terms for every version: the
    busiest session's figures and diagnostics, the other sessions', those across sessions (and, from version 4,
    the tf.functions' and the program's)."""
    verdict = RunVerdict.from_document(document)
    main = verdict.busiest
    figures = main.figures if main is not None else {}
    others = [s for s in verdict.sessions if s is not main]
    found = {
        "runs": figures.get("runs"),
        "nodes_added": figures.get("nodes_added"),
        "session_count": len(verdict.sessions),
        "diagnostics": sorted((d.code, d.severity) for d in verdict.of_session(main.number)) if main else [],
        "growth_sites": sorted((os.path.basename(s["path"]), s["line"], s["kind"], s["ops_added"])
                               for s in figures.get("growth_sites", [])),
        "frozen_violations": [(os.path.basename(v["path"]), v["line"], v["api"]) for v in
                              figures.get("frozen_violations", [])],
        "signatures": len(figures.get("signatures", [])),
        "across_sessions": sorted((d.code, d.severity) for d in verdict.of_scope(ACROSS_SESSIONS)),
        "other_sessions": sorted((d.code, d.severity) for s in others for d in verdict.of_session(s.number)),
    }
    rest = sorted((d.scope, d.code, d.severity) for d in verdict.diagnostics if d.scope in (FUNCTION, PROGRAM))
    if rest:
        found["functions_and_program"] = rest
    return found


def main() -> int:
    out = {}
    env = dict(os.environ, PYTHONPATH=str(REPO), TF_CPP_MIN_LOG_LEVEL="3")
    only = os.environ.get("ONLY")  # a comma-separated subset of the names, to run again
    for name, args in RUNS:
        if only and name not in only.split(","):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            json_path = os.path.join(tmp, "run.json")
            folder = os.path.join(tmp, "work")
            os.mkdir(folder)
            argv = [a.replace("{tmp}", folder) for a in args]
            done = subprocess.run([sys.executable, "-m", "tfguard", "run", "-q", "--json", json_path] + argv,
                                  cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  timeout=1800)
            record = {"exit_status": done.returncode}
            if os.path.exists(json_path):
                with open(json_path, encoding="utf-8") as handle:
                    record.update(summary(json.load(handle)))
            else:
                record["stderr"] = done.stderr[-500:]
            out[name] = record
            print(name, json.dumps(record), flush=True)
    with open(sys.argv[1], "w", encoding="utf-8") as handle:
        json.dump(out, handle, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
