"""Run a callback on the `tensorflow` module: now when it is loaded, else right after the program imports it.

tfguard never imports TensorFlow itself: the session watcher of `tfguard run` and the cluster-task naming of
`--json-dir` both patch TensorFlow classes only once the program has loaded it.
"""

from __future__ import annotations

import importlib.abc
import sys
from typing import Any, Callable, Optional


class OnTensorFlowImport:
    """Calls `callback(tensorflow)` once: at `install` if TensorFlow is loaded, else when it has loaded (`name`: another
    top-level package, `keras` say, the same way)."""

    def __init__(self, callback: Callable[[Any], None], name: str = "tensorflow") -> None:
        self.callback = callback
        self.name = name
        self._hook: Optional[_TensorFlowImportHook] = None

    def install(self) -> None:
        """Call back now if TensorFlow is already loaded, else put an import hook first on `sys.meta_path`."""
        module = sys.modules.get(self.name)
        if module is not None:
            try:
                self.callback(module)
            except Exception as exc:
                from tfguard.runtime.safety import internal_error

                internal_error("tfguard's TensorFlow patches", exc, "watching TensorFlow's sessions")
            return
        self._hook = _TensorFlowImportHook(self._loaded, self.name)
        sys.meta_path.insert(0, self._hook)

    def remove(self) -> None:
        """Take the import hook off `sys.meta_path` (a callback not made yet is then never made)."""
        if self._hook is not None and self._hook in sys.meta_path:
            sys.meta_path.remove(self._hook)
        self._hook = None

    def _loaded(self, module: Any) -> None:
        if self._hook is not None and self._hook in sys.meta_path:
            sys.meta_path.remove(self._hook)
        self.callback(module)


class _TensorFlowImportHook(importlib.abc.MetaPathFinder):
    """Calls `callback(module)` right after the top-level `tensorflow` package has loaded."""

    def __init__(self, callback: Callable[[Any], None], name: str = "tensorflow") -> None:
        self.callback = callback
        self.name = name
        self._busy = False

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        """Find `tensorflow` with the other finders and hook its loader's exec_module."""
        if fullname != self.name or self._busy:
            return None
        try:
            return self._hooked_spec(fullname, path, target)
        except Exception as exc:  # the other finders import TensorFlow as if tfguard were not there
            from tfguard.runtime.safety import internal_error

            internal_error("the import hook", exc, "watching TensorFlow's sessions")
            return None

    def _hooked_spec(self, fullname: str, path: Any, target: Any) -> Any:
        self._busy = True
        try:
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    break
            else:
                return None
        finally:
            self._busy = False
        loader = spec.loader
        original = getattr(loader, "exec_module", None)
        if original is None:
            return spec
        callback = self.callback

        def exec_module(module: Any) -> None:
            try:
                original(module)
            finally:
                try:
                    del loader.exec_module  # back to the class's method
                except AttributeError:
                    pass
            try:
                callback(module)
            except Exception as exc:  # TensorFlow is loaded as if tfguard were not there
                from tfguard.runtime.safety import internal_error

                internal_error("the import hook", exc, "watching TensorFlow's sessions")

        loader.exec_module = exec_module
        return spec
