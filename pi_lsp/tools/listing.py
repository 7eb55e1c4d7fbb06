"""What grep, find and ls share: the 50 KiB cap, the notice bracket and Pi's number format."""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from pi_lsp.tools.truncation import DEFAULT_MAX_BYTES, TruncationResult, format_size, truncate_head

#: JavaScript's ``Number.MAX_SAFE_INTEGER``: Pi's "no line limit" for these tools.
NO_LINE_LIMIT = 9007199254740991

BYTE_LIMIT_NOTICE = f"{format_size(DEFAULT_MAX_BYTES)} limit reached"


def cap_output(text: str) -> TruncationResult:
    """Keep whole lines from the start of ``text`` within 50 KiB (no line-count limit)."""
    return truncate_head(text, max_lines=NO_LINE_LIMIT)


def append_notices(text: str, notices: Sequence[str]) -> str:
    """``text`` followed by a blank line and all notices in one bracket, joined with ``". "``."""
    if not notices:
        return text
    return f"{text}\n\n[{'. '.join(notices)}]"


def details_or_none(details: dict[str, Any]) -> dict[str, Any] | None:
    """Pi leaves ``details`` undefined when nothing was noted."""
    return details or None


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
