"""Argument types shared by the commands' parsers."""

from __future__ import annotations

import argparse
from typing import List, Optional, Sequence


def comma_list(value: str) -> List[str]:
    """Split a comma-separated option value, dropping blanks."""
    return [item.strip() for item in value.split(",") if item.strip()]


def flatten(groups: Optional[Sequence[Sequence[str]]]) -> Optional[List[str]]:
    """Join the lists of a repeated comma-list option; None when the option was not given."""
    if groups is None:
        return None
    return [item for group in groups for item in group]


def jobs(value: str) -> int:
    """A ``-j`` value: a whole number of at least 1."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {number}")
    return number
