"""Check a saved run document against the JSON Schema the package ships (run-report.schema.json) before anything
reads it: a report file may come from anyone (a CI artifact of a fork), and a string where a number belongs must be
a one-line refusal, not an error deep in a table or a page.

The schema uses a small part of JSON Schema (type, const, enum, required, properties, additionalProperties, items,
minimum, minLength, minItems, maxItems, pattern, allOf, if/then, local ``$ref``); this module reads exactly that
part, so checking a report needs no extra package (the tests check the same documents with `jsonschema` too)."""

from __future__ import annotations

import json
import math
import re
from typing import Any, Dict, List, Optional

from tfguard.runtime.output.formats import document_schema

_SCHEMA: Optional[Dict[str, Any]] = None


def schema() -> Dict[str, Any]:
    """The shipped run-document schema (read once)."""
    global _SCHEMA
    if _SCHEMA is None:
        _SCHEMA = document_schema()
    return _SCHEMA


def _is_type(value: Any, name: str) -> bool:
    # bool is an int in Python, never a number in JSON; NaN and infinities are no JSON numbers either.
    if name == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or \
            (isinstance(value, float) and math.isfinite(value) and value.is_integer())
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return isinstance(value, {"string": str, "object": dict, "array": list, "boolean": bool,
                              "null": type(None)}[name])


def _resolve(reference: str) -> Dict[str, Any]:
    node: Any = schema()
    for part in reference.lstrip("#/").split("/"):
        node = node[part]
    return node


def problems(value: Any, rule: Dict[str, Any], where: str = "") -> List[str]:
    """What makes `value` not fit `rule` (a node of the schema), each as ``where: what``; empty when it fits."""
    found: List[str] = []
    here = where or "the document"
    if "$ref" in rule:
        found += problems(value, _resolve(rule["$ref"]), where)
    for part in rule.get("allOf", ()):
        found += problems(value, part, where)
    if "if" in rule and not problems(value, rule["if"], where):
        found += problems(value, rule.get("then", {}), where)
    if found:
        return found
    if "type" in rule:
        names = rule["type"] if isinstance(rule["type"], list) else [rule["type"]]
        if not any(_is_type(value, name) for name in names):
            return ["%s: %s, not %s" % (here, " or ".join(names), _json_type(value))]
    if "const" in rule and not _same(value, rule["const"]):
        return ["%s: must be %s" % (here, json.dumps(rule["const"]))]
    if "enum" in rule and not any(_same(value, option) for option in rule["enum"]):
        return ["%s: one of %s" % (here, ", ".join(json.dumps(option) for option in rule["enum"]))]
    if _is_type(value, "number") and "minimum" in rule and value < rule["minimum"]:
        return ["%s: at least %s" % (here, rule["minimum"])]
    if isinstance(value, str):
        if len(value) < rule.get("minLength", 0):
            return ["%s: empty" % here]
        if "pattern" in rule and not re.search(rule["pattern"], value):
            return ["%s: does not match %s" % (here, rule["pattern"])]
    if isinstance(value, dict):
        missing = [key for key in rule.get("required", ()) if key not in value]
        if missing:
            return ["%s: missing %s" % (here, ", ".join(missing))]
        named = rule.get("properties", {})
        for key, item in value.items():
            inner = named.get(key, rule.get("additionalProperties", True))
            if inner is False:
                found.append("%s: unexpected %s" % (here, key))
            elif isinstance(inner, dict):
                found += problems(item, inner, "%s.%s" % (where, key) if where else key)
    if isinstance(value, list) and not rule.get("minItems", 0) <= len(value) <= rule.get("maxItems", len(value)):
        return ["%s: %s items, not %d" % (here, _between(rule, len(value)), len(value))]
    if isinstance(value, list) and isinstance(rule.get("items"), dict):
        for index, item in enumerate(value):
            found += problems(item, rule["items"], "%s[%d]" % (where, index))
    return found


def _between(rule: Dict[str, Any], count: int) -> str:
    low, high = rule.get("minItems", 0), rule.get("maxItems")
    return str(low) if low == high else "at least %d" % low if count < low else "at most %d" % high


def _same(value: Any, expected: Any) -> bool:
    return type(value) is type(expected) and value == expected or \
        (_is_type(value, "number") and _is_type(expected, "number") and value == expected)


def _json_type(value: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _is_type(value, name):
            return name
    return "a non-finite number" if isinstance(value, float) else type(value).__name__


def first_problem(document: Any) -> Optional[str]:
    """The first place where `document` does not fit the run-document schema (``where: what``), or None.

    A version-2 document (still read) is checked as the version-3 one it reads as: its diagnostics lack the
    ``path``, ``line`` and ``evidence`` that version 3 added."""
    if isinstance(document, dict) and document.get("version") == 2:
        document = _as_version_3(json.loads(json.dumps(document)))
    found = problems(document, schema())
    return found[0] if found else None


def _as_version_3(node: Any) -> Any:
    if isinstance(node, dict):
        if node.get("version") == 2:
            node["version"] = 3
        if "severity" in node and "code" in node:
            node.setdefault("path", None)
            node.setdefault("line", None)
            node.setdefault("evidence", {})
        for value in node.values():
            _as_version_3(value)
    elif isinstance(node, list):
        for value in node:
            _as_version_3(value)
    return node
