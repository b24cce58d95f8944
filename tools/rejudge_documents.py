"""Judge saved run documents again with this checkout's judges and say whether they say the same.

    python tools/rejudge_documents.py RUN.json [RUN.json ...]

For a refactor of the judgement: documents written by `tfguard run --json` (version 2, 3 or 4; the earlier ones
converted on load, runtime/verdict.py) are judged again (judge/judgement.diagnose on each session, with its
placement data; the judgement across sessions on the run) and their diagnostics compared word for word (code,
severity, what they say). A version 2/3 diagnostic said its headline and help in one message (``headline — help``);
its TFG901 error's help was the repeated site's fix, shown apart: either way compares as the same. The slowdown
verdict is the document's own (the raw series it was judged on are not kept); paths in messages are relative to
the working folder, so run it from the folder the documents were written from. Exit status 1 when one differs.
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tfguard.runtime.judge import judge_evidence  # noqa: E402
from tfguard.runtime.judge.across_sessions import session_record  # noqa: E402
from tfguard.runtime.judge.judgement import diagnose  # noqa: E402
from tfguard.runtime.record.evidence import Evidence  # noqa: E402
from tfguard.runtime.verdict import ACROSS_SESSIONS, RunVerdict  # noqa: E402


def _said(diagnostics: list) -> list:
    """(code, severity, headline, help) of each; a headline that says its help after a dash is split there."""
    said = []
    for d in diagnostics:
        headline, dash, advice = d.headline.partition(" \u2014 ")
        said.append((d.code, d.severity, headline if dash and not d.help else d.headline, d.help or advice))
    return said


def _same(saved: list, again: list) -> bool:
    # A version 2/3 document kept no help apart: the help judged again is then left out of the comparison.
    return len(saved) == len(again) and all(
        s[:3] == a[:3] and (s[3] == a[3] or not s[3]) for s, a in zip(saved, again))


def main(paths: list) -> int:
    """Print one line per document; 1 when a document's diagnostics differ."""
    differ = False
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            verdict = RunVerdict.from_document(json.load(handle))
        if not verdict.sessions:
            print("%s: no session" % path)
            continue
        same = all(_same(_said(verdict.of_session(s.number)), _said(diagnose(s.figures, placement=s.get("placement"))))
                   for s in verdict.sessions)
        again = judge_evidence(Evidence(ACROSS_SESSIONS, sessions=[session_record(s) for s in verdict.sessions]))
        across = _same(_said(verdict.of_scope(ACROSS_SESSIONS)), _said(again))
        differ = differ or not (same and across)
        print("%s: %d session%s, diagnostics %s, across sessions %s" % (
            path, len(verdict.sessions), "" if len(verdict.sessions) == 1 else "s", "same" if same else "DIFFER",
            "same" if across else "DIFFER"))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
