"""Reading Python 2 sources: converting them line for line to Python 3 text the parser accepts.

Old TF1 repositories are full of Python 2 files (``print x``, ``except E, e``, ``0777``, tab indentation).
When a file does not parse as Python 3, its text is converted with `fissix` (the maintained lib2to3
backport): leading tabs are expanded the Python 2 way (to the next multiple of 8), then only the fixers of
syntax that rewrite within one statement run.  The conversion is accepted only when it keeps every line
where it was, so findings point at the original lines.  Nothing is imported or run: fissix only parses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Dict, Optional, Tuple

#: The fissix fixers applied: Python 2 syntax that Python 3 rejects, each rewritten inside its statement.
#: (``tuple_params`` and ``except`` with a tuple target add statements; the line check rejects those.)
SYNTAX_FIXERS: Tuple[str, ...] = (
    "fissix.fixes.fix_print",        # print x, print >>f, x
    "fissix.fixes.fix_exec",         # exec code in ns
    "fissix.fixes.fix_except",       # except E, e
    "fissix.fixes.fix_raise",        # raise E, V
    "fissix.fixes.fix_ne",           # a <> b
    "fissix.fixes.fix_repr",         # `x`
    "fissix.fixes.fix_numliterals",  # 0777, 10L
    "fissix.fixes.fix_unicode",      # ur'...'
)

_LEADING_WHITESPACE = re.compile(r"[ \t]*")


@dataclass(frozen=True)
class Conversion:
    """The Python 3 text of a Python 2 file, with the same lines.

    ``indent_shifts`` maps a 1-based line whose leading tabs were expanded to
    (expanded indentation width, original indentation width), so columns can be
    mapped back to the original text.
    """

    source: str
    indent_shifts: Dict[int, Tuple[int, int]] = field(default_factory=dict)

    def original_column(self, line: int, column: int) -> int:
        """Map a 1-based column of the converted ``line`` back to the original text (tabs unexpanded)."""
        shift = self.indent_shifts.get(line)
        if shift is None:
            return column
        expanded, original = shift
        return column - expanded + original if column > expanded else min(column, original + 1)


def expand_leading_tabs(source: str) -> Tuple[str, Dict[int, Tuple[int, int]]]:
    """Expand tabs in each line's indentation to the next multiple of 8, as Python 2's tokenizer counts them."""
    lines = source.splitlines(keepends=True)
    shifts: Dict[int, Tuple[int, int]] = {}
    for number, line in enumerate(lines, start=1):
        indent = _LEADING_WHITESPACE.match(line).group()
        if "\t" in indent:
            expanded = indent.expandtabs(8)
            lines[number - 1] = expanded + line[len(indent):]
            shifts[number] = (len(expanded), len(indent))
    return "".join(lines), shifts


def convert(source: str) -> Optional[Conversion]:
    """Return ``source`` converted from Python 2, line for line, or None when that is not possible.

    None when fissix cannot parse it either (broken in any Python) or a fixer
    would add or remove lines.  Any converter failure is None, never an exception.
    """
    expanded, shifts = expand_leading_tabs(source)
    text = expanded if expanded.endswith("\n") else expanded + "\n"
    try:
        converted = str(_refactoring_tool().refactor_string(text, "<python2>"))
    except Exception:  # noqa: BLE001 - fissix raises parse, tokenize and fixer errors of many types
        return None
    if not expanded.endswith("\n") and converted.endswith("\n"):
        converted = converted[:-1]
    if converted.count("\n") != expanded.count("\n"):
        return None
    return Conversion(converted, shifts)


@lru_cache(maxsize=1)
def _refactoring_tool() -> Any:
    _load_grammar_safely()
    from fissix.refactor import RefactoringTool

    return RefactoringTool(list(SYNTAX_FIXERS))


def _load_grammar_safely() -> None:
    """Make fissix's grammar load work on a read-only home and in parallel workers.

    fissix caches its grammar tables as a pickle under the user's cache folder and
    fails when that folder cannot be created or written.  Loading goes through
    fissix's own loader first (atomic writes, so parallel workers are safe) and,
    on any failure, builds the tables in memory (about 50 ms, once per process).
    """
    import fissix  # noqa: F401 - installs fissix's own cached loader, which is wrapped below
    from fissix.pgen2 import driver, pgen

    cached_loader = driver.load_grammar
    if getattr(cached_loader, "tfguard_safe", False):
        return

    def load_grammar(gt: str = "Grammar.txt", gp: Optional[str] = None, save: bool = True, force: bool = False,
                     logger: Any = None) -> Any:
        try:
            return cached_loader(gt, gp, save, force, logger)
        except Exception:  # noqa: BLE001 - unwritable cache folder, unreadable or corrupt pickle
            return pgen.generate_grammar(gt)

    load_grammar.tfguard_safe = True  # type: ignore[attr-defined]
    driver.load_grammar = load_grammar
