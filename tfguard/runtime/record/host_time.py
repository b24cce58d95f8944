"""Where the host time of a guarded loop goes, from sampled Python stacks (TFG903's cause and advice).

The sampler (host_sampler.py) looks at the guarding thread's stack a few dozen times a second while it is between
runs, and keeps, per sample, its innermost project line, the libraries called from it (innermost first) and the
project functions around it. This module is pure: it names the top lines with their share of wall time and
classifies each by cause, so that TFG903 advises by cause instead of always saying "tf.data":

- **input**: preparing the next batch in Python (NumPy, PIL, pandas, a `next_batch`/`load`/`augment` function):
  tf.data with prefetch;
- **plotting**, **logging**, **evaluation**, **checkpointing**: work the loop does on the side: do it less often,
  or in another process;
- **waiting**: sleeps and I/O waits (`time.sleep`, a queue, a socket, a subprocess): say what the loop waits on;
- **other**: Python work of another kind: the lines are named, no advice is guessed.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, Iterable, Optional, Sequence, Tuple

INPUT, PLOTTING, LOGGING, EVALUATION, CHECKPOINTING, WAITING, OTHER = (
    "input", "plotting", "logging", "evaluation", "checkpointing", "waiting", "other")
#: Lines named in a breakdown.
TOP_LINES = 3
#: Samples needed before a breakdown is given at all (a few dozen: about a second of host time).
MIN_SAMPLES = 20

_LIBRARIES = (
    (PLOTTING, ("matplotlib", "seaborn", "plotly", "bokeh", "pylab", "visdom")),
    (LOGGING, ("logging", "tqdm", "tensorboard", "tensorboardX", "wandb", "mlflow", "csv", "json")),
    (WAITING, ("threading", "queue", "socket", "selectors", "subprocess", "ssl", "http", "urllib", "urllib3",
               "requests", "multiprocessing", "asyncio", "select", "concurrent")),
    (CHECKPOINTING, ("pickle", "h5py", "joblib", "shelve")),
    (INPUT, ("numpy", "PIL", "cv2", "pandas", "scipy", "skimage", "imageio", "random", "gzip", "zipfile",
             "librosa", "soundfile", "sklearn")),
)
_TEXT = (
    (WAITING, re.compile(r"\bsleep\s*\(|\.wait\s*\(|\.join\s*\(|\binput\s*\(|\.recv\w*\s*\(|\.accept\s*\(")),
    (PLOTTING, re.compile(r"\bplt\.|\bsavefig\b|\bimshow\b|\bplot\w*\s*\(|\bfig\w*\.")),
    (CHECKPOINTING, re.compile(r"\bpickle\.dump|\bnp\.save|\.save\w*\s*\(|\bdump\s*\(")),
    (LOGGING, re.compile(r"\bprint\s*\(|\blog\w*\.|\blogger\b|\bwrite\s*\(|\bflush\s*\(|\btqdm\b|add_summary")),
    (EVALUATION, re.compile(r"\beval\w*\s*\(|\bvalidat\w*\s*\(|\btest\w*\s*\(|\baccuracy\b|\bscore\s*\(")),
    (INPUT, re.compile(r"\bnext_batch\b|\bbatch\w*\s*\(|\bnext\s*\(|\bload\w*\s*\(|\bread\w*\s*\(|\bnp\.|"
                       r"\brandom\.|\baugment\w*|\bpreprocess\w*|\bshuffle\b|\bfeed_dict\b|\bimread\b")),
)
_FUNCTIONS = (
    (PLOTTING, re.compile(r"plot|draw|visuali|figure|render", re.I)),
    (EVALUATION, re.compile(r"^(eval|evaluate|validate|validation|test|accuracy)|_eval$|evaluat", re.I)),
    (LOGGING, re.compile(r"^log|_log$|summar|report|print", re.I)),
    (CHECKPOINTING, re.compile(r"checkpoint|^save|_save$", re.I)),
    (INPUT, re.compile(r"batch|load|read|augment|preprocess|generat|input|sample|shuffle|__next__|__getitem__",
                       re.I)),
)
ADVICE = {
    INPUT: "the Python work is preparing input: move it to tf.data with prefetch",
    PLOTTING: "the Python work is plotting: plot less often, or in another process (write the numbers, plot them "
              "apart)",
    LOGGING: "the Python work is logging: log less often, or hand it to another thread or process",
    EVALUATION: "the Python work is evaluation: evaluate less often, or in another process on a checkpoint",
    CHECKPOINTING: "the Python work is saving files: save less often, or from another thread",
    WAITING: "the loop waits (a sleep or an I/O wait): remove the sleep, or overlap what it waits on with the "
             "steps",
}


def classify(code: str, libraries: Sequence[str], functions: Sequence[str]) -> str:
    """The cause of host time spent at a line: `code` is its text, `libraries` the packages it was inside
    (innermost first), `functions` the project functions around it (innermost first)."""
    for library in libraries:
        for cause, names in _LIBRARIES:
            if library in names:
                return cause
    for cause, pattern in _TEXT:
        if pattern.search(code):
            return cause
    for name in functions:
        for cause, pattern in _FUNCTIONS:
            if name != "<module>" and pattern.search(name):
                return cause
    return OTHER


def breakdown(samples: Iterable[Tuple[Tuple[str, int, Tuple[str, ...], Tuple[str, ...]], int]],
              host_fraction: Optional[float], source: Callable[[str, int], str]) -> Optional[Dict[str, Any]]:
    """Top lines of host time and its main cause from `samples`: ((path, line, libraries, functions), count)
    pairs; None with fewer than MIN_SAMPLES. Shares are of wall time (the host share split by sample counts)."""
    by_line: Dict[Tuple[str, int], Dict[str, Any]] = {}
    by_cause: Dict[str, int] = {}
    total = 0
    for (path, line, libraries, functions), count in samples:
        total += count
        code = source(path, line)
        cause = classify(code, libraries, functions)
        by_cause[cause] = by_cause.get(cause, 0) + count
        entry = by_line.get((path, line))
        if entry is None:
            entry = by_line[(path, line)] = {"path": path, "line": line, "code": code, "samples": 0, "causes": {}}
        entry["samples"] += count
        entry["causes"][cause] = entry["causes"].get(cause, 0) + count
    if total < MIN_SAMPLES or host_fraction is None:
        return None
    lines = sorted(by_line.values(), key=lambda e: (-e["samples"], e["path"], e["line"]))
    for entry in lines:
        causes = entry.pop("causes")
        entry["cause"] = max(sorted(causes), key=causes.get)
        entry["share"] = host_fraction * entry["samples"] / total
    cause = max(sorted(by_cause), key=by_cause.get)
    return {"samples": total, "cause": cause, "cause_share": by_cause[cause] / total,
            "lines": lines[:TOP_LINES]}


def describe(host: Dict[str, Any]) -> str:
    """`61% at step1.py:120 `plt.savefig(...)` (plotting), 12% at ...`."""
    return ", ".join("%d%% at %s:%d%s (%s)" % (round(100 * e["share"]), e["path"], e["line"],
                                             " `%s`" % e["code"] if e["code"] else "", e["cause"])
                     for e in host["lines"])


def advice(host: Optional[Dict[str, Any]]) -> Optional[str]:
    """Advice by the main cause when it holds at least half of the samples; None when no cause does."""
    if host is None or host["cause_share"] < 0.5:
        return None
    return ADVICE.get(host["cause"])
