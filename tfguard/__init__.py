"""tfguard: a static checker and a runtime guard for TensorFlow code (TF 1.x graphs and TF 2 tf.functions).

Importing this package never imports TensorFlow; the runtime guard imports it
on first use.  Nor does it import anything else, not even the standard library:
``python -m tfguard`` drops the working folder from ``sys.path`` in
``__main__``, which runs after this file, and a project module named like a
standard one (``json.py``) must not be imported before that.
"""

__version__ = "0.1.0"

__all__ = [
    "ChainLink",
    "CheckResult",
    "Finding",
    "GraphFrozenError",
    "GraphGrowthWarning",
    "GuardHook",
    "PlacementReport",
    "GuardWarning",
    "SessionReport",
    "RetracingWarning",
    "SlowdownWarning",
    "check_paths",
    "check_source",
    "frozen",
    "placement",
    "watch",
    "watch_functions",
    "__version__",
]

# Names resolved on first access (PEP 562) so that `import tfguard` never imports
# TensorFlow, nor anything at all: name -> (module, attribute).
_LAZY = {
    "ChainLink": ("tfguard.static.finding", "ChainLink"),
    "CheckResult": ("tfguard.static.engine", "CheckResult"),
    "Finding": ("tfguard.static.finding", "Finding"),
    "check_paths": ("tfguard.static.engine", "check_paths"),
    "check_source": ("tfguard.static.engine", "check_source"),
    "frozen": ("tfguard.runtime.run.guard", "frozen"),
    "watch": ("tfguard.runtime.run.guard", "watch"),
    "watch_functions": ("tfguard.runtime.run.function_watch", "watch_functions"),
    "GuardHook": ("tfguard.runtime.run.hook", "GuardHook"),
    "GraphFrozenError": ("tfguard.runtime.errors", "GraphFrozenError"),
    "GraphGrowthWarning": ("tfguard.runtime.errors", "GraphGrowthWarning"),
    "GuardWarning": ("tfguard.runtime.errors", "GuardWarning"),
    "SlowdownWarning": ("tfguard.runtime.errors", "SlowdownWarning"),
    "RetracingWarning": ("tfguard.runtime.errors", "RetracingWarning"),
    "SessionReport": ("tfguard.runtime.output.session_report", "SessionReport"),
    "placement": ("tfguard.runtime.devices.placement", "placement"),
    "PlacementReport": ("tfguard.runtime.devices.placement", "PlacementReport"),
}


def __getattr__(name: str) -> object:
    """Load the public names lazily (PEP 562)."""
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError("module 'tfguard' has no attribute %r" % (name,))
    import importlib

    value = getattr(importlib.import_module(target[0]), target[1])
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_LAZY))
