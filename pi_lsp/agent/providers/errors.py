"""What a failed assistant message means: context overflow, retryable, auth, quota (Pi's rules).

Everything here reads the final assistant message of a stream (``stopReason``, ``errorMessage``,
``usage``): providers never raise, so the loop classifies the message and decides.

* :func:`is_context_overflow` — pi-ai's ``isContextOverflow`` (spec §10.9): an error text in one
  of the providers' overflow wordings, a silent overflow (``stop`` with more input than the
  window) or a length stop with no output at a full window. The loop answers with one
  compact-and-retry.
* :func:`is_retryable_error` — the session's retry rule (spec §12.5): overloaded, rate limit,
  429/5xx, network, timeouts, ``terminated``…; never an overflow, never quota or billing.
* :func:`is_auth_error` — a missing or rejected credential: retrying will not help.

Also the texts providers put in ``errorMessage`` for HTTP and network failures, so that the
rules above recognise them.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Mapping
from typing import Any

import httpx

from pi_lsp.js.json import json_stringify

__all__ = [
    "ErrorKind",
    "anthropic_error_message",
    "classify_error",
    "http_error_message",
    "is_auth_error",
    "is_context_overflow",
    "is_quota_error",
    "is_recoverable_length",
    "is_retryable_error",
    "network_error_message",
    "stream_error_message",
]

_N = r"[0-9,]+"
_OVERFLOW_PATTERNS = [
    r"prompt is too long",
    r"request_too_large",
    r"input is too long for requested model",
    r"exceeds the context window",
    rf"exceeds (the )?(model'?s )?maximum context length( of {_N} tokens?|\s*\({_N}\))",
    r"input token count.*exceeds the maximum",
    r"maximum prompt length is [0-9]+",
    r"reduce the length of the messages",
    r"maximum context length is [0-9]+ tokens",
    rf"exceeds (the )?maximum allowed input length of {_N} tokens?",
    r"input \([0-9]+ tokens\) is longer than the model'?s context length \([0-9]+ tokens\)",
    r"exceeds the limit of [0-9]+",
    r"exceeds the available context size",
    r"greater than the context length",
    r"context window exceeds limit",
    r"exceeded model token limit",
    r"too large for model with [0-9]+ maximum context length",
    rf"prompt has {_N} tokens?, but the configured context size is {_N} tokens?",
    r"model_context_window_exceeded",
    r"prompt too long; exceeded (max )?context length",
    r"range of input length should be",
    r"context[_ ]length[_ ]exceeded",
    r"too many tokens",
    r"token limit exceeded",
    r"^4(00|13)\s*(status code)?\s*\(no body\)",
]
_OVERFLOW = re.compile("|".join(f"(?:{p})" for p in _OVERFLOW_PATTERNS), re.IGNORECASE)
_NOT_OVERFLOW = re.compile(
    r"^(Throttling error|Service unavailable):|rate limit|too many requests", re.IGNORECASE
)

_RETRYABLE = re.compile(
    r"overloaded|provider.?returned.?error|rate.?limit|too many requests|429|500|502|503|504"
    r"|service.?unavailable|server.?error|internal.?error|network.?error|connection.?error"
    r"|connection.?refused|connection.?lost|websocket.?closed|websocket.?error"
    r"|other side closed|fetch failed|upstream.?connect|reset before headers|socket hang up"
    r"|ended without|stream ended before message_stop|http2 request did not get a response"
    r"|timed? out|timeout|terminated|retry delay"
    # pi-lsp: Bedrock's "Throttling error:" is a rate limit too (Pi's rule misses it)
    r"|throttl",
    re.IGNORECASE,
)
_QUOTA = re.compile(
    r"GoUsageLimitError|FreeUsageLimitError|Monthly usage limit reached|available balance"
    r"|insufficient_quota|out of budget|quota exceeded|billing",
    re.IGNORECASE,
)
_AUTH = re.compile(
    r"^40[13]\b|invalid.?api.?key|incorrect api key|invalid x-api-key|authentication"
    r"|unauthori[sz]ed|permission.?denied|no api key|api key is required|invalid_api_key",
    re.IGNORECASE,
)


def _error_text(message: Mapping[str, Any]) -> str | None:
    if message.get("stopReason") != "error":
        return None
    text = message.get("errorMessage")
    return text if isinstance(text, str) and text else None


def _usage(message: Mapping[str, Any], key: str) -> float:
    usage = message.get("usage")
    value = usage.get(key) if isinstance(usage, Mapping) else None
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0


def is_context_overflow(message: Mapping[str, Any], context_window: int | None = None) -> bool:
    """pi-ai's ``isContextOverflow(message, contextWindow?)`` (spec §10.9)."""
    text = _error_text(message)
    if text is not None and _OVERFLOW.search(text) and not _NOT_OVERFLOW.search(text):
        return True
    if not context_window or context_window <= 0:
        return False
    used = _usage(message, "input") + _usage(message, "cacheRead")
    stop = message.get("stopReason")
    if stop == "stop" and used > context_window:
        return True
    return stop == "length" and _usage(message, "output") == 0 and used >= 0.99 * context_window


def is_recoverable_length(message: Mapping[str, Any], desired_max: int) -> bool:
    """A length stop that produced less than the output budget the model allows."""
    return (
        message.get("stopReason") == "length"
        and desired_max > 0
        and _usage(message, "output") < desired_max
    )


def is_quota_error(message: Mapping[str, Any]) -> bool:
    """A usage-limit, quota or billing failure: waiting a few seconds will not fix it."""
    text = _error_text(message)
    return text is not None and bool(_QUOTA.search(text))


def is_auth_error(message: Mapping[str, Any]) -> bool:
    """A missing or rejected credential (HTTP 401/403, invalid key…)."""
    text = _error_text(message)
    return text is not None and bool(_AUTH.search(text))


def is_retryable_error(message: Mapping[str, Any], context_window: int | None = None) -> bool:
    """The session's auto-retry rule: a transient provider failure (spec §12.5).

    Never for an overflow (that is compaction's job) nor a quota or billing error. As in Pi the
    pattern holds bare status numbers, so any error text containing ``500`` looks transient.
    """
    text = _error_text(message)
    if text is None or is_context_overflow(message, context_window):
        return False
    if _QUOTA.search(text):
        return False
    return bool(_RETRYABLE.search(text))


class ErrorKind(enum.Enum):
    NONE = "none"
    ABORTED = "aborted"
    OVERFLOW = "overflow"
    QUOTA = "quota"
    AUTH = "auth"
    RETRYABLE = "retryable"
    OTHER = "other"


def classify_error(message: Mapping[str, Any], context_window: int | None = None) -> ErrorKind:
    """One label for the final message of a stream, in the order the loop should test them."""
    stop = message.get("stopReason")
    if stop == "aborted":
        return ErrorKind.ABORTED
    if is_context_overflow(message, context_window):
        return ErrorKind.OVERFLOW
    if stop != "error":
        return ErrorKind.NONE
    if is_quota_error(message):
        return ErrorKind.QUOTA
    if is_retryable_error(message, context_window):
        return ErrorKind.RETRYABLE
    if is_auth_error(message):
        return ErrorKind.AUTH
    return ErrorKind.OTHER


# ---------------------------------------------------------------------------------------------
# errorMessage texts


def http_error_message(status: int, body: bytes | str) -> str:
    """``{status}: {body}`` as pi-ai writes it for an HTTP error (spec §10.9, §13.4).

    A JSON body ``{"error": X}`` gives ``X`` written compactly (what Pi 0.85 recorded for an
    OpenAI-compatible 400); other JSON is written compactly; anything else verbatim. An empty
    body gives ``{status} status code (no body)``, the OpenAI SDK's wording that the overflow
    rule knows for 400 and 413.
    """
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    if not text.strip():
        return f"{status} status code (no body)"
    try:
        parsed = json.loads(text)
    except ValueError:
        return f"{status}: {text.strip()}"
    if isinstance(parsed, dict) and "error" in parsed and parsed["error"] is not None:
        inner = parsed["error"]
        return f"{status}: {inner if isinstance(inner, str) else json_stringify(inner)}"
    return f"{status}: {json_stringify(parsed)}"


def anthropic_error_message(status: int, body: bytes | str) -> str:
    """``{status} {text}`` as the Anthropic SDK words an HTTP error (what Pi 0.85 shows).

    A JSON body: its top-level ``message`` when it has one, else the whole body written
    compactly (``529 {"type":"error","error":{…}}``); any other body verbatim; an empty one
    ``{status} status code (no body)``.
    """
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    try:
        parsed: Any = json.loads(text) if text.strip() else None
    except ValueError:
        parsed = None
    if parsed:
        inner = parsed.get("message") if isinstance(parsed, dict) else None
        if inner:
            message = inner if isinstance(inner, str) else json_stringify(inner)
        else:
            message = json_stringify(parsed)
    else:
        message = text
    return f"{status} {message}" if message else f"{status} status code (no body)"


def stream_error_message(error: Any) -> str:
    """The text of an error object a provider sent inside the stream."""
    if isinstance(error, Mapping):
        inner = error.get("message")
        if isinstance(inner, str) and inner:
            return inner
        return json_stringify(dict(error))
    return error if isinstance(error, str) else json_stringify(error)


def network_error_message(error: httpx.HTTPError, *, streaming: bool) -> str:
    """A clear ``errorMessage`` for a transport failure, worded so the retry rule matches."""
    detail = str(error) or type(error).__name__
    if isinstance(error, httpx.TimeoutException):
        where = "while streaming the response" if streaming else "waiting for the server"
        return f"Request timed out {where} ({detail})"
    if isinstance(error, httpx.ConnectError):
        return f"Connection error: {detail}"
    if streaming:
        return (
            "Network error: the connection was terminated before the response was complete "
            f"({detail})"
        )
    return f"Network error: {detail}"
