"""tfguard: a TensorFlow 1.x graph-hygiene linter and runtime guard.

Importing this package never imports TensorFlow; the runtime guard imports it
on first use.
"""

from __future__ import annotations

from typing import Any

from tfguard.engine import CheckResult, check_paths, check_source
from tfguard.finding import ChainLink, Finding

__version__ = "0.1.0"

__all__ = ["ChainLink", "CheckResult", "Finding", "check_paths", "check_source", "__version__"]
