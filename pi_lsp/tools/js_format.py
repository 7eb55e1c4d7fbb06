"""Numbers in tool details as Pi's JavaScript holds them.

Texts print numbers with :func:`pi_lsp.js.json.js_number`.
"""

from __future__ import annotations


def as_js_number(value: float) -> float:
    """``value`` with an integral float turned into an int, so JSON details read like Pi's."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value
