"""JSON and numbers as JavaScript reads and writes them: ``JSON.parse``, ``JSON.stringify``,
``String(value)``, ``Object.keys``.

Pi writes session lines, trust stores and summarization requests with ``JSON.stringify`` and
prints numbers with ``String(number)``. Python's ``json`` and ``repr`` disagree in a few places,
handled here so that the text is JavaScript's, byte for byte:

* numbers: the shortest round-trip digits laid out as ECMAScript ``Number::toString`` does:
  exponent form only below ``1e-6`` or from ``1e21`` (``0.000015``, ``1e-7``, ``1e+21``),
  integral floats without ``.0``, ``-0`` as ``0``. Integers (Python ints, after parsing) print
  all their digits below ``1e21`` and from there on as the double JavaScript would hold.
  ``JSON.stringify`` writes ``NaN`` and ``±Infinity`` as ``null``;
* object keys: ``Object.keys`` and ``JSON.stringify`` list array-index keys (``"0"``, ``"17"``)
  first, in numeric order, then the others in insertion order. A session line is written in
  the order it was read instead (``key_order="insertion"``): for a line Pi wrote the two agree;
* strings keep non-ASCII characters; control characters are escaped as ``\\u00XX``
  (``\\b \\f \\n \\r \\t`` by their short forms) and lone surrogates, possible in parsed JSON,
  as ``\\udxxx``, as the well-formed ``JSON.stringify`` does;
* ``NaN``/``Infinity`` literals are not JSON: ``JSON.parse`` rejects them, so does
  :func:`parse_json`.

The JSON reader that keeps positions and V8's error texts (settings files, the trust store) is
:func:`pi_lsp.js.json_document.parse_json_document`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

__all__ = [
    "JsonParseError",
    "KeyOrder",
    "as_js_number",
    "escape_lone_surrogates",
    "js_number",
    "js_object_keys",
    "js_string",
    "json_stringify",
    "parse_json",
]

#: ``"javascript"``: ``Object.keys`` order (array indices first); ``"insertion"``: dict order.
KeyOrder = Literal["javascript", "insertion"]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_encode_string = json.encoder.encode_basestring
#: Integers from here on print in exponent form (``1e+21``), as JavaScript doubles do.
_EXPONENT_FROM = 10**21
_NON_FINITE = frozenset({"NaN", "Infinity", "-Infinity"})
_MAX_ARRAY_INDEX = 2**32 - 2


# ---------------------------------------------------------------------------------------------
# Reading


class JsonParseError(ValueError):
    """Text that ``JSON.parse`` would reject."""


def _reject_constant(name: str) -> Any:
    raise JsonParseError(f"{name} is not valid JSON")


#: One decoder for every call (``json.loads`` with a keyword builds a new one each time, which
#: cost as much as the parse for short lines). ``parse_constant`` is what makes the reading
#: JavaScript's: Python accepts ``NaN``/``Infinity``/``-Infinity`` literals, ``JSON.parse`` does
#: not. The C scanner keeps no state between calls (its key memo is cleared after each), so
#: sharing it is safe.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
_decode = _DECODER.decode
_scan_once = _DECODER.scan_once  # type: ignore[attr-defined]  # set by JSONDecoder.__init__


def parse_json(text: str) -> Any:
    """``JSON.parse(text)``; raises :class:`JsonParseError` where JavaScript throws."""
    if type(text) is str:
        # The common case, a value filling the whole text, straight from the scanner; anything
        # else (surrounding whitespace, a BOM, an error) goes the full way for its message.
        try:
            value, end = _scan_once(text, 0)
        except (StopIteration, ValueError, RecursionError):
            pass
        else:
            if end == len(text):
                return value
    try:
        if not isinstance(text, str):  # bytes: json.loads detects their encoding
            return json.loads(text, parse_constant=_reject_constant)
        if text.startswith("\ufeff"):
            # json.loads's own check, kept so the message stays the same
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        return _decode(text)
    except JsonParseError:
        raise
    except (ValueError, RecursionError) as error:
        raise JsonParseError(str(error)) from None


# ---------------------------------------------------------------------------------------------
# Numbers and String(value)


def _as_double(value: float) -> float:
    """The double JavaScript holds for ``value`` (an int too large for one is ±Infinity)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _shortest_digits(value: float) -> tuple[str, int]:
    """(digits without leading/trailing zeros, exponent) with value = digits × 10**exponent."""
    text = repr(value)  # shortest round-trip digits, like V8
    mantissa, _, exp_text = text.partition("e")
    exponent = int(exp_text) if exp_text else 0
    whole, _, fraction = mantissa.partition(".")
    fraction = fraction.rstrip("0")
    digits = (whole + fraction).lstrip("0")
    exponent -= len(fraction)
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    return stripped, exponent


def _finite_number(value: float) -> str:
    """ECMAScript ``Number::toString`` for a finite, non-zero double."""
    sign = "-" if value < 0 else ""
    digits, exponent = _shortest_digits(abs(value))
    k = len(digits)
    n = exponent + k  # the decimal point sits after n digits
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    power = n - 1
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{sign}{mantissa}e{'+' if power >= 0 else '-'}{abs(power)}"


def js_number(value: float) -> str:
    """``String(value)`` for a number: ``3``, ``2.5``, ``0.000015``, ``1e-7``, ``1e+21``,
    ``NaN``, ``-Infinity`` (a bool prints as ``true``/``false``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and abs(value) < _EXPONENT_FROM:
        return str(value)
    number = _as_double(value)
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number == 0:
        return "0"
    return _finite_number(number)


def as_js_number(value: float) -> float:
    """``value`` as a JavaScript number would hold it in JSON: an integral float becomes an int,
    so a detail writes ``3``, not ``3.0`` (:func:`js_number` is the same number as a text)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def js_string(value: Any) -> str:
    """JavaScript's ``String(value)`` for a JSON value that is not an object."""
    if value is None:
        return "null"
    if isinstance(value, bool | int | float):
        return js_number(value)
    if isinstance(value, list):
        return ",".join("" if v is None else js_string(v) for v in value)
    return str(value)


# ---------------------------------------------------------------------------------------------
# Writing


def _is_array_index(key: str) -> bool:
    return (
        key.isascii()
        and key.isdigit()
        and (key == "0" or not key.startswith("0"))
        and int(key) <= _MAX_ARRAY_INDEX
    )


def js_object_keys(keys: Iterable[str]) -> list[str]:
    """An object's keys (a mapping's, or a list in insertion order) in ``Object.keys`` order:
    array-index keys first, ascending, then the others as they came. Non-strings are left out."""
    strings = [key for key in keys if isinstance(key, str)]
    indices = sorted((key for key in strings if _is_array_index(key)), key=int)
    if not indices:
        return strings
    return indices + [key for key in strings if not _is_array_index(key)]


def escape_lone_surrogates(text: str) -> str:
    """``text`` with each lone surrogate as a ``\\udxxx`` escape (it cannot be UTF-8 encoded)."""
    if text.isascii():
        return text
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _json_string(text: str) -> str:
    return escape_lone_surrogates(_encode_string(text))


def _json_number(value: float) -> str:
    text = js_number(value)
    return "null" if text in _NON_FINITE else text


_Work = str | tuple[Any, int]  # literal text, or (value, depth) still to write


def _container_work(
    brackets: str, members: list[tuple[str, Any]], depth: int, indent: int
) -> list[_Work]:
    """The writing of one object or array, in order: each member's text (comma, line break,
    ``"key":``) followed by the member itself, then the closing bracket."""
    if not members:
        return [brackets]
    inner = "\n" + " " * (indent * (depth + 1)) if indent else ""
    outer = "\n" + " " * (indent * depth) if indent else ""
    work: list[_Work] = []
    for index, (label, member) in enumerate(members):
        work.append(("," if index else brackets[0]) + inner + label)
        work.append((member, depth + 1))
    work.append(outer + brackets[1])
    return work


def json_stringify(value: Any, *, key_order: KeyOrder = "javascript", indent: int = 0) -> str:
    """``JSON.stringify(value, null, indent)`` for JSON data (mappings with string keys, lists,
    tuples, strings, numbers, booleans, ``None``); raises :class:`TypeError` for anything else.

    Objects list their keys in ``key_order``. Works without recursion, so nesting depth is
    bounded only by memory.
    """
    out: list[str] = []
    colon = ": " if indent else ":"
    stack: list[_Work] = [(value, 0)]  # the next piece of work on top
    while stack:
        work = stack.pop()
        if isinstance(work, str):
            out.append(work)
            continue
        item, depth = work
        if isinstance(item, str):
            out.append(_json_string(item))
        elif item is None:
            out.append("null")
        elif item is True:
            out.append("true")
        elif item is False:
            out.append("false")
        elif isinstance(item, int | float):
            out.append(_json_number(item))
        elif isinstance(item, Mapping):
            pairs = (
                item.items()
                if key_order == "insertion"
                else [(key, item[key]) for key in js_object_keys(item)]
            )
            members = [
                (_json_string(key if isinstance(key, str) else str(key)) + colon, member)
                for key, member in pairs
            ]
            stack.extend(reversed(_container_work("{}", members, depth, indent)))
        elif isinstance(item, list | tuple):
            members = [("", member) for member in item]
            stack.extend(reversed(_container_work("[]", members, depth, indent)))
        else:
            raise TypeError(f"not JSON data: {type(item).__name__}")
    return "".join(out)
