"""Judge saved run documents again with this checkout's judges and say whether they say the same.

    python tools/rejudge_documents.py RUN.json [RUN.json ...]

For a refactor of the judgement: documents written by `tfguard run --json` before it (version 2 or 3) are judged
again (judge/judgement.diagnose on each session, across_sessions on the run) and their diagnostics compared word
for word (code, severity, message). The slowdown verdict is the document's own (the raw series it was judged on are
not kept); paths in messages are relative to the working folder, so run it from the folder the documents were
written from. Exit status 1 when one differs.
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tfguard.runtime.judge.across_sessions import growth_across_sessions, session_record  # noqa: E402
from tfguard.runtime.judge.judgement import diagnose  # noqa: E402


def _said(diagnostics: list) -> list:
    return [(d["code"], d["severity"], d["message"]) for d in diagnostics]


def main(paths: list) -> int:
    """Print one line per document; 1 when a document's diagnostics differ."""
    differ = False
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
        if "mode" not in document:
            print("%s: no session" % path)
            continue
        sessions = [document] + [other["report"] for other in document.get("other_sessions", [])]
        facts = [document] + list(document.get("other_sessions", []))
        placement = ("TFG906", "TFG907")  # judged on the placement data, at the traced step
        same = all(_said(diagnose(s)) == [d for d in _said(s["diagnostics"]) if d[0] not in placement]
                   for s in sessions)
        across = _said(growth_across_sessions([session_record(s, f) for s, f in zip(sessions, facts)])) == \
            _said(document.get("across_sessions", []))
        differ = differ or not (same and across)
        print("%s: %d session%s, diagnostics %s, across sessions %s" % (
            path, len(sessions), "" if len(sessions) == 1 else "s", "same" if same else "DIFFER",
            "same" if across else "DIFFER"))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
