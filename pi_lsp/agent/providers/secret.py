"""Keeping credentials out of logs, errors, events and reprs.

A provider's credentials are the API key and every header value its configuration gives
(``models.json`` ``headers``, literal or resolved from the environment or a command, and the
``Authorization`` header built from the key). A server may echo them back — in an error
body, in a streamed error event — so every text that comes from a provider on its way to an
error message goes through :func:`redactor_for`, which masks all of them; the process keeps
every value it has seen in :data:`KNOWN_SECRETS`, which :class:`RedactingFilter` applies to
the log.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable

from pi_lsp.agent.model_api import ModelRequest

__all__ = [
    "KNOWN_SECRETS",
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "RedactingFilter",
    "Redactor",
    "Secret",
    "redact",
    "redact_log_output",
    "redactor_for",
]

REDACTED = "***"

#: Shorter values are not masked: they would mask ordinary words (``"on"``, ``"1"``).
MIN_SECRET_LENGTH = 4


class Secret(str):
    """A string whose ``repr`` never shows its value: an API key or a credential header.

    It is a ``str`` (headers and ``ModelRequest.api_key`` take it as is); only ``repr`` (and so
    every dataclass repr, log record ``%r`` and traceback of locals) prints ``'***'``.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return repr(REDACTED)


def _spellings(value: str) -> set[str]:
    """The value and the forms a server's JSON error body may quote it in."""
    forms = {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}
    return {form for form in forms if len(form) >= MIN_SECRET_LENGTH}


class Redactor:
    """Masks a set of secret values (each replaced by ``***``), longest first, so a value
    that contains another (``Bearer <key>``) is masked whole. Safe to share across threads."""

    def __init__(self, values: Iterable[str | None] = ()) -> None:
        self._lock = threading.Lock()
        self._values: tuple[str, ...] = ()
        self.add(*values)

    def add(self, *values: str | None) -> None:
        new = {form for value in values if value for form in _spellings(str(value))}
        with self._lock:
            if new.issubset(self._values):
                return
            merged = new.union(self._values)
            self._values = tuple(sorted(merged, key=lambda v: (-len(v), v)))

    def __bool__(self) -> bool:
        return bool(self._values)

    def __call__(self, text: str) -> str:
        for value in self._values:
            if value in text:
                text = text.replace(value, REDACTED)
        return text


#: Every credential this process has sent to a provider (for the log, see RedactingFilter).
KNOWN_SECRETS = Redactor()


def redactor_for(request: ModelRequest) -> Redactor:
    """The masker of everything ``request`` sends as a credential: its API key and every
    configured header value. The values join :data:`KNOWN_SECRETS`."""
    values = (request.api_key, *request.model.headers.values())
    KNOWN_SECRETS.add(*values)
    return Redactor(values)


def redact(text: str, *secrets: str | None) -> str:
    """``text`` with every occurrence of each non-trivial secret replaced by ``***``."""
    return Redactor(secrets)(text)


class RedactingFilter(logging.Filter):
    """A handler filter that masks known secrets in the formatted message and traceback."""

    def __init__(self, redactor: Redactor = KNOWN_SECRETS) -> None:
        super().__init__()
        self._redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._redactor:
            return True
        record.msg = self._redactor(record.getMessage())
        record.args = None
        if record.exc_info:
            text = logging.Formatter().formatException(record.exc_info)
            record.exc_text = self._redactor(text)
            record.exc_info = None
        if record.stack_info:
            record.stack_info = self._redactor(record.stack_info)
        return True


def redact_log_output() -> None:
    """Mask :data:`KNOWN_SECRETS` in everything the log writes: the root logger's handlers
    (``--log-file``) and the last-resort handler that prints warnings to stderr."""
    handlers = [*logging.getLogger().handlers, logging.lastResort]
    for handler in handlers:
        if handler is not None and not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
