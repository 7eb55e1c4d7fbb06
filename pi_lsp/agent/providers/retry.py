"""How long to wait before retrying a transient provider failure (spec §12.5, §16.1).

The loop decides *whether* to retry (:func:`pi_lsp.agent.providers.errors.is_retryable_error`);
this module says *how long*: ``baseDelayMs × 2^(attempt-1)``, or longer when the server asked for
more with ``retry-after`` / ``retry-after-ms`` (a provider's ``error`` event carries that as
``retryAfterMs``). A server asking for more than ``retry.provider.maxRetryDelayMs`` ends the
retries. :func:`sleep_ms` waits with an injectable sleep, so tests never wait for real.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import math
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pi_lsp.tools.base import AbortSignal

__all__ = [
    "RetryPolicy",
    "Sleep",
    "backoff_delay_ms",
    "parse_retry_after",
    "retry_after_ms",
    "retry_delay_ms",
    "sleep_ms",
]

#: ``sleep(seconds)``; ``asyncio.sleep`` unless a test injects its own.
Sleep = Callable[[float], Awaitable[None]]

DEFAULT_MAX_RETRIES = 3
DEFAULT_BASE_DELAY_MS = 2000
DEFAULT_MAX_RETRY_DELAY_MS = 60_000


def backoff_delay_ms(attempt: int, base_delay_ms: int = DEFAULT_BASE_DELAY_MS) -> int:
    """``base × 2^(attempt-1)`` for attempt 1, 2, 3…"""
    return int(base_delay_ms * 2 ** max(attempt - 1, 0))


def retry_delay_ms(
    attempt: int,
    *,
    base_delay_ms: int = DEFAULT_BASE_DELAY_MS,
    retry_after_ms: int | None = None,
    max_retry_delay_ms: int = DEFAULT_MAX_RETRY_DELAY_MS,
) -> int | None:
    """The wait before retry number ``attempt``; None when the server wants more than the cap.

    The server's delay is honoured as a minimum; ``max_retry_delay_ms`` ≤ 0 means no cap.
    """
    delay = backoff_delay_ms(attempt, base_delay_ms)
    if retry_after_ms is None:
        return delay
    if 0 < max_retry_delay_ms < retry_after_ms:
        return None
    return max(delay, retry_after_ms)


def parse_retry_after(value: str | None, *, now: float | None = None) -> int | None:
    """A ``retry-after`` header in milliseconds: delta seconds or an HTTP date; None if unusable."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return max(0, math.ceil(seconds * 1000)) if math.isfinite(seconds) else None
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    current = time.time() if now is None else now
    return max(0, math.ceil((when.timestamp() - current) * 1000))


def retry_after_ms(headers: Mapping[str, str], *, now: float | None = None) -> int | None:
    """The delay a response asks for: ``retry-after-ms`` (OpenAI) first, then ``retry-after``."""
    lowered = {k.lower(): v for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms is not None:
        try:
            millis = float(raw_ms)
        except ValueError:
            pass
        else:
            if math.isfinite(millis):
                return max(0, math.ceil(millis))
    return parse_retry_after(lowered.get("retry-after"), now=now)


async def sleep_ms(
    delay_ms: int, signal: AbortSignal | None = None, *, sleep: Sleep = asyncio.sleep
) -> bool:
    """Wait ``delay_ms``; False (at once) if ``signal`` aborts first, else True."""
    if signal is not None and signal.aborted:
        return False
    if signal is None:
        await sleep(delay_ms / 1000)
        return True
    sleeper = asyncio.ensure_future(sleep(delay_ms / 1000))
    waiter = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({sleeper, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (sleeper, waiter):
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
    return not signal.aborted


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Pi's ``retry`` settings: ``enabled``, ``maxRetries``, ``baseDelayMs`` and
    ``provider.maxRetryDelayMs`` (legacy ``maxDelayMs``)."""

    enabled: bool = True
    max_retries: int = DEFAULT_MAX_RETRIES
    base_delay_ms: int = DEFAULT_BASE_DELAY_MS
    max_retry_delay_ms: int = DEFAULT_MAX_RETRY_DELAY_MS

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> RetryPolicy:
        """Read the merged settings; values of the wrong type fall back to the defaults."""
        retry = settings.get("retry")
        if not isinstance(retry, Mapping):
            return cls()
        provider = retry.get("provider")
        cap = provider.get("maxRetryDelayMs") if isinstance(provider, Mapping) else None
        if cap is None:
            cap = retry.get("maxDelayMs")
        return cls(
            enabled=retry.get("enabled") is not False,
            max_retries=_number(retry.get("maxRetries"), DEFAULT_MAX_RETRIES),
            base_delay_ms=_number(retry.get("baseDelayMs"), DEFAULT_BASE_DELAY_MS),
            max_retry_delay_ms=_number(cap, DEFAULT_MAX_RETRY_DELAY_MS),
        )

    def delay_ms(self, attempt: int, retry_after: int | None = None) -> int | None:
        """The wait before retry ``attempt`` (1-based); None: do not retry (limit or cap)."""
        if not self.enabled or attempt > self.max_retries:
            return None
        return retry_delay_ms(
            attempt,
            base_delay_ms=self.base_delay_ms,
            retry_after_ms=retry_after,
            max_retry_delay_ms=self.max_retry_delay_ms,
        )


def _number(value: Any, default: int) -> int:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return int(value)
    return default
