"""Every TensorFlow name in tfguard's API tables exists in the installed TensorFlow (compat.v1)."""

import pytest

from tfguard.static.analysis import tfapi

tf = pytest.importorskip("tensorflow")

NAME_TABLES = [
    "SESSION_CLASSES", "SESSION_GETTERS", "GRAPH_FACTORIES", "GRAPH_RESETS",
    "GRAPH_RUN_FUNCTIONS", "NON_OP_APIS", "SEQUENCE_RETURNING", "STATE_CHANGING_APIS", "STATEFUL_APIS",
    "VARIABLE_APIS",
]


def table_names():
    names = {value for value in tfapi.RENAMES.values()}
    for table in NAME_TABLES:
        names.update(getattr(tfapi, table))
    for module_name, _ in _rule_apis():
        names.add(module_name)
    return sorted(n for n in names if n.startswith("tensorflow") and not n.startswith(tfapi.LEGACY_PREFIXES))


def _rule_apis():
    from tfguard.static.checks._session_loop import LoopBuildRule
    from tfguard.static.registry import all_rules

    for rule in all_rules().values():
        if isinstance(rule, LoopBuildRule):
            for api in rule.apis:
                yield api, rule.code


def resolve(name: str):
    if name.startswith("tensorflow.python."):
        import importlib

        module_name = name[: -len(".*")] if name.endswith(".*") else name.rsplit(".", 1)[0]
        module = importlib.import_module(module_name)
        return module if name.endswith(".*") else getattr(module, name.rsplit(".", 1)[1])
    obj = tf.compat.v1
    for part in name.split(".")[1:]:
        if part == "*":
            break
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("name", table_names())
def test_name_exists_in_tensorflow(name):
    assert resolve(name) is not None


def test_tables_are_not_empty():
    assert len(table_names()) > 100
