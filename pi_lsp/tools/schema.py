"""Checking a model's tool arguments against a tool's JSON Schema (the subset the tools use)."""

from __future__ import annotations

from typing import Any

_TYPE_NAMES = {
    "string": "string",
    "number": "number",
    "integer": "integer",
    "boolean": "boolean",
    "array": "array",
    "object": "object",
}


def _has_type(value: Any, expected: str) -> bool:
    if expected == "string":
        return isinstance(value, str)
    if expected == "boolean":
        return isinstance(value, bool)
    if expected == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if expected == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if expected == "array":
        return isinstance(value, list)
    if expected == "object":
        return isinstance(value, dict)
    return True


def validate(schema: dict[str, Any], value: Any, where: str = "") -> list[str]:
    """Every way ``value`` breaks ``schema``, one readable line each (empty when it fits)."""
    label = where or "arguments"
    expected = schema.get("type")
    if isinstance(expected, str) and not _has_type(value, expected):
        return [f"{label}: must be {_TYPE_NAMES.get(expected, expected)}"]
    problems: list[str] = []
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                problems.append(f"{label}: must have required property '{key}'")
        properties: dict[str, Any] = schema.get("properties", {})
        for key, sub in properties.items():
            if key in value:
                problems.extend(validate(sub, value[key], f"{where}.{key}" if where else key))
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            problems.extend(validate(schema["items"], item, f"{label}[{index}]"))
    return problems
