"""Small helpers shared by the command-line tests."""

from __future__ import annotations

from typing import List, Tuple

#: Files that never mention tensorflow are not analysed, so every test source starts with this.
TF = "import tensorflow as tf\n"


def located(document: dict) -> List[Tuple[str, int, str]]:
    """Return (path, line, code) of every finding of a json document, in report order."""
    return [(f["path"], f["line"], f["code"]) for f in document["findings"]]
