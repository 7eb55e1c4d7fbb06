"""One JSON value per line, read with ``JSON.parse`` rules and written as ``JSON.stringify`` does.

Pi writes each session line with ``JSON.stringify`` (compact, insertion order, non-ASCII
kept). Python's ``json`` module agrees except in three places, handled here so that a file
read and written again keeps its bytes:

* numbers: JavaScript prints a float with the shortest round-trip digits but switches to
  exponent form only below ``1e-6`` or from ``1e21`` (``0.000015``, not ``1.5e-05``) and prints
  integral floats without ``.0``; ``-0`` prints as ``0``;
* lone surrogates (``"\\ud800"`` in the input) are written as ``\\ud800`` escapes, as the
  well-formed ``JSON.stringify`` does, instead of raw code points UTF-8 cannot encode;
* ``NaN``/``Infinity`` literals are not JSON: ``JSON.parse`` rejects them, so does
  :func:`parse_json`.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

__all__ = ["JsonLineError", "js_number", "parse_json", "stringify"]

_SURROGATE = re.compile("[\ud800-\udfff]")
_encode_string = json.encoder.encode_basestring


class JsonLineError(ValueError):
    """A line that ``JSON.parse`` would reject."""


def _reject_constant(name: str) -> Any:
    raise JsonLineError(f"{name} is not valid JSON")


def parse_json(text: str) -> Any:
    """``JSON.parse(text)``; raises :class:`JsonLineError` where JavaScript throws."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except JsonLineError:
        raise
    except (ValueError, RecursionError) as error:
        raise JsonLineError(str(error)) from None


def js_number(value: float) -> str:
    """``String(value)`` for a finite JavaScript number (ECMAScript Number::toString)."""
    if value == 0:
        return "0"
    if not math.isfinite(value):
        return "null"  # JSON.stringify writes null for NaN and ±Infinity
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


def _string(text: str) -> str:
    encoded: str = _encode_string(text)
    if _SURROGATE.search(encoded):
        encoded = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", encoded)
    return encoded


def stringify(value: Any) -> str:
    """``JSON.stringify(value)`` for JSON data (dicts with string keys, lists, scalars).

    Works without recursion, so nesting depth is bounded only by memory.
    """
    out: list[str] = []
    # a stack of pending work: values to write, or literal text to emit
    stack: list[tuple[bool, Any]] = [(False, value)]
    while stack:
        is_text, item = stack.pop()
        if is_text:
            out.append(item)
            continue
        if isinstance(item, str):
            out.append(_string(item))
        elif item is None:
            out.append("null")
        elif item is True:
            out.append("true")
        elif item is False:
            out.append("false")
        elif isinstance(item, int):
            out.append(str(item))
        elif isinstance(item, float):
            out.append(js_number(item))
        elif isinstance(item, dict):
            if not item:
                out.append("{}")
                continue
            out.append("{")
            pending: list[tuple[bool, Any]] = []
            for index, (key, member) in enumerate(item.items()):
                prefix = "," if index else ""
                pending.append((True, f"{prefix}{_string(str(key))}:"))
                pending.append((False, member))
            pending.append((True, "}"))
            stack.extend(reversed(pending))
        elif isinstance(item, list | tuple):
            if not item:
                out.append("[]")
                continue
            out.append("[")
            pending = []
            for index, member in enumerate(item):
                if index:
                    pending.append((True, ","))
                pending.append((False, member))
            pending.append((True, "]"))
            stack.extend(reversed(pending))
        else:
            raise TypeError(f"not JSON data: {type(item).__name__}")
    return "".join(out)
