"""Run a callback on named modules: now for those loaded, else right after the program imports each one.

The Keras classes TFG910/TFG911 follow live in modules the program may import long after TensorFlow (`import
keras` or `tf.keras`'s lazy loading), so this watches for them by name with the same kind of finder
`import_hook.py` puts before TensorFlow; it stays on `sys.meta_path` until removed, since several of the named
modules may load at different times.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Iterable, Optional

from tfguard.runtime.capture.import_hook import _TensorFlowImportHook


class OnModulesImport:
    """Calls `callback(module)` once per named module: at `install` for a loaded one, else when it loads."""

    def __init__(self, names: Iterable[str], callback: Callable[[Any], None]) -> None:
        self.names = frozenset(names)
        self.callback = callback
        self._hook: Optional[_NamedImportHook] = None

    def install(self) -> None:
        """Call back now for each named module already loaded; watch the imports for the others."""
        for name in sorted(self.names):
            module = sys.modules.get(name)
            if module is not None:
                self._call(module)
        if self._hook is None:
            self._hook = _NamedImportHook(self.names, self._call)
            sys.meta_path.insert(0, self._hook)

    def remove(self) -> None:
        """Take the finder off `sys.meta_path` (a callback not made yet is then never made)."""
        if self._hook is not None and self._hook in sys.meta_path:
            sys.meta_path.remove(self._hook)
        self._hook = None

    def _call(self, module: Any) -> None:
        try:
            self.callback(module)
        except Exception as exc:
            from tfguard.runtime.safety import internal_error

            internal_error("tfguard's Keras patches", exc, "following Keras calls")


class _NamedImportHook(_TensorFlowImportHook):
    """The TensorFlow import hook's finder, for any of several module names and for as long as it is installed."""

    def __init__(self, names: frozenset, callback: Callable[[Any], None]) -> None:
        super().__init__(callback)
        self.names = names

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        """Find a named module with the other finders and hook its loader's exec_module."""
        if fullname not in self.names or self._busy:
            return None
        try:
            return self._hooked_spec(fullname, path, target)
        except Exception as exc:  # the other finders import the module as if tfguard were not there
            from tfguard.runtime.safety import internal_error

            internal_error("the import hook", exc, "following Keras calls")
            return None
