"""Numbers as Pi's JavaScript prints them into tool texts and details."""

from __future__ import annotations

import math
from decimal import Decimal


def js_number(value: float) -> str:
    """A number as JavaScript's ``String(value)`` writes it (``3``, ``2.5``, ``1e+21``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if abs(value) < 10**21 else js_number(float(value))
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" not in text:
        return text
    mantissa, exponent_text = text.split("e")
    exponent = int(exponent_text)
    if -7 < exponent < 0:
        return format(Decimal(text), "f")
    return f"{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent)}"


def as_js_number(value: float) -> float:
    """``value`` with an integral float turned into an int, so JSON details read like Pi's."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value
