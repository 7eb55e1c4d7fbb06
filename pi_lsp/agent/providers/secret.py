"""Keeping API keys out of logs, errors, events and reprs."""

from __future__ import annotations

__all__ = ["REDACTED", "Secret", "redact"]

REDACTED = "***"


class Secret(str):
    """A string whose ``repr`` never shows its value: an API key or a credential header.

    It is a ``str`` (headers and ``ModelRequest.api_key`` take it as is); only ``repr`` (and so
    every dataclass repr, log record ``%r`` and traceback of locals) prints ``'***'``.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return repr(REDACTED)


def redact(text: str, *secrets: str | None) -> str:
    """``text`` with every occurrence of each non-trivial secret replaced by ``***``."""
    for secret in secrets:
        if secret and len(secret) >= 4 and secret in text:
            text = text.replace(secret, REDACTED)
    return text
