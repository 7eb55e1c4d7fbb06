"""Clauses as the lint's reader gets them, for tests that call ``read_choices`` directly."""

from __future__ import annotations

from pi_lsp.lint.vocabulary import CODE_MASK


def masked_clause(text: str) -> tuple[str, str]:
    """``text`` with its backticks removed, and the same with inline code masked."""
    plain, masked, inside = [], [], False
    for char in text:
        if char == "`":
            inside = not inside
            continue
        plain.append(char)
        masked.append(CODE_MASK if inside else char)
    return "".join(plain), "".join(masked)
