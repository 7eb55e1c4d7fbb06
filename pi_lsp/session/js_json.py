"""``JSON.stringify`` as JavaScript writes a parsed JSON value (compact form).

Pi measures tool-call arguments by the length of their ``JSON.stringify`` text and prints them
that way in summarization requests, so the text has to be JavaScript's, not Python's:

* object keys that are array indices (``"0"``, ``"17"``) come first, in numeric order, then the
  other keys in insertion order (the order of ``Object.keys``);
* numbers as JavaScript prints them (``1`` for ``1.0``, ``1e+21``), non-finite ones as ``null``;
* strings keep non-ASCII characters; control characters and lone surrogates are escaped as
  ``\\u00XX`` / ``\\udXXX`` (lower-case hex), ``\\b \\f \\n \\r \\t`` by their short forms.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from pi_lsp.tools.js_format import js_number

__all__ = ["js_object_keys", "js_stringify"]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_MAX_SAFE_INTEGER = 2**53


def _is_array_index(key: str) -> bool:
    return (
        key.isascii()
        and key.isdigit()
        and (key == "0" or not key.startswith("0"))
        and int(key) < 2**32 - 1
    )


def js_object_keys(value: Mapping[str, Any]) -> list[str]:
    """The keys of a parsed JSON object in JavaScript's enumeration order."""
    keys = [key for key in value if isinstance(key, str)]
    indices = sorted((key for key in keys if _is_array_index(key)), key=int)
    if not indices:
        return keys
    return indices + [key for key in keys if not _is_array_index(key)]


def _string(text: str) -> str:
    out = json.dumps(text, ensure_ascii=False)
    if out.isascii():
        return out
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", out)


def _number(value: float) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "null"
    if isinstance(value, int) and abs(value) > _MAX_SAFE_INTEGER:
        # JavaScript parsed it into a double: print what that double prints
        return js_number(float(value))
    return js_number(value)


def js_stringify(value: Any) -> str:
    """``JSON.stringify(value)`` for a value parsed from JSON (dicts, lists, scalars)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, int | float):
        return _number(value)
    if isinstance(value, Mapping):
        members = [f"{_string(key)}:{js_stringify(value[key])}" for key in js_object_keys(value)]
        return "{" + ",".join(members) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(js_stringify(item) for item in value) + "]"
    # not a JSON value (JavaScript would drop it from an object); print its text as a string
    return _string(str(value))
