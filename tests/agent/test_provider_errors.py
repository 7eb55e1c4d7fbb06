"""What a failed response means (overflow §10.9, retryable §12.5, auth, quota) and how long to
wait before a retry (backoff, ``retry-after``)."""

from __future__ import annotations

import asyncio
import email.utils
from typing import Any

import httpx
import pytest

from pi_lsp.agent.providers.errors import (
    ErrorKind,
    classify_error,
    http_error_message,
    is_auth_error,
    is_context_overflow,
    is_quota_error,
    is_recoverable_length,
    is_retryable_error,
    network_error_message,
)
from pi_lsp.agent.providers.retry import (
    RetryPolicy,
    backoff_delay_ms,
    parse_retry_after,
    retry_after_ms,
    retry_delay_ms,
    sleep_ms,
)
from pi_lsp.tools.base import AbortSignal


def failed(text: str, **fields: Any) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": [],
        "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0},
        "stopReason": "error",
        "errorMessage": text,
    }
    message.update(fields)
    return message


def finished(stop: str, *, input: int, output: int, cache_read: int = 0) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [],
        "usage": {"input": input, "output": output, "cacheRead": cache_read, "cacheWrite": 0},
        "stopReason": stop,
    }


OVERFLOW_TEXTS = [
    # OpenAI-compatible, as Pi 0.85 recorded it (case overflow-compact-retry)
    '400: {"message":"This model\'s maximum context length is 20000 tokens. However, your '
    'messages resulted in 25000 tokens. Please reduce the length of the messages.",'
    '"type":"invalid_request_error","code":"context_length_exceeded"}',
    # Anthropic
    '400: {"type":"invalid_request_error","message":"prompt is too long: 213462 tokens > '
    '200000 maximum"}',
    "413: request_too_large",
    # Bedrock / Gemini / xAI / Groq / Mistral / Ollama / llama.cpp / LM Studio / vLLM wordings
    "Input is too long for requested model.",
    "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).",
    "This model's maximum prompt length is 131072 but the request contains 537812 tokens.",
    "Please reduce the length of the messages or completion.",
    "Your request exceeded model token limit: 131072",
    "prompt too long; exceeded max context length by 4 tokens",
    "the request exceeds the available context size, try increasing it",
    "input (12000 tokens) is longer than the model's context length (8192 tokens)",
    "Trying to keep the first 9000 tokens when context the overflows. However, the model is "
    "loaded with context length of only 8192 tokens, which is not enough. "
    "This exceeds the limit of 8192",
    "This model's maximum context length is 32768 tokens.",
    "prompt has 40,000 tokens, but the configured context size is 32,768 tokens",
    "model_context_window_exceeded",
    "context_length_exceeded",
    "Request exceeds the maximum allowed input length of 100,000 tokens",
    "400 status code (no body)",
    "413 (no body)",
    "The prompt exceeds the model's maximum context length of 128,000 tokens",
    "too large for model with 8192 maximum context length",
]


@pytest.mark.parametrize("text", OVERFLOW_TEXTS)
def test_overflow_wordings(text: str) -> None:
    message = failed(text)
    assert is_context_overflow(message)
    assert is_context_overflow(message, 20_000)
    assert not is_retryable_error(message)
    assert classify_error(message) is ErrorKind.OVERFLOW


@pytest.mark.parametrize(
    "text",
    [
        "Throttling error: Too many tokens, please wait before trying again.",
        "Service unavailable: too many tokens in flight",
        "429: Rate limit reached: too many tokens per minute",
        "Too many requests: token limit exceeded for this minute",
    ],
)
def test_rate_limits_that_mention_tokens_are_not_overflows(text: str) -> None:
    message = failed(text)
    assert not is_context_overflow(message)
    assert is_retryable_error(message)


def test_overflow_needs_an_error_stop_for_texts() -> None:
    text = "prompt is too long"
    assert not is_context_overflow({**failed(text), "stopReason": "stop"})
    assert not is_context_overflow({**failed(text), "stopReason": "aborted"})
    assert not is_context_overflow(failed(""))


def test_silent_and_length_overflows() -> None:
    assert is_context_overflow(finished("stop", input=19_000, output=50, cache_read=1_500), 20_000)
    assert not is_context_overflow(finished("stop", input=19_000, output=50), 20_000)
    assert not is_context_overflow(finished("stop", input=30_000, output=50))  # no window given
    assert is_context_overflow(finished("length", input=19_800, output=0), 20_000)
    assert not is_context_overflow(finished("length", input=19_700, output=0), 20_000)
    assert not is_context_overflow(finished("length", input=19_900, output=3), 20_000)


def test_recoverable_length() -> None:
    assert is_recoverable_length(finished("length", input=10, output=100), 16_384)
    assert not is_recoverable_length(finished("length", input=10, output=16_384), 16_384)
    assert not is_recoverable_length(finished("stop", input=10, output=100), 16_384)
    assert not is_recoverable_length(finished("length", input=10, output=100), 0)


@pytest.mark.parametrize(
    "text",
    [
        '529: {"type":"overloaded_error","message":"Overloaded"}',
        "Rate limit exceeded",
        "429: slow down",
        "500: internal",
        "502: <html>Bad gateway</html>",
        "503: Service Unavailable",
        "504 Gateway Timeout",
        "Network error: the connection was terminated before the response was complete",
        "Connection error: [Errno 111] Connection refused",
        "Request timed out waiting for the server",
        "terminated",
        "socket hang up",
        "fetch failed",
        "Stream ended without finish_reason",
        "Stream ended before message_stop",
        "upstream connect error or disconnect/reset before headers",
        "Provider returned error",
    ],
)
def test_retryable(text: str) -> None:
    message = failed(text)
    assert is_retryable_error(message)
    assert classify_error(message) is ErrorKind.RETRYABLE


@pytest.mark.parametrize(
    "text",
    [
        '429: {"message":"You exceeded your current quota, please check your plan and billing '
        'details.","type":"insufficient_quota","code":"insufficient_quota"}',
        "Monthly usage limit reached",
        "Your credit balance is too low: billing",
    ],
)
def test_quota_and_billing_are_never_retried(text: str) -> None:
    message = failed(text)
    assert is_quota_error(message)
    assert not is_retryable_error(message)
    assert classify_error(message) is ErrorKind.QUOTA


def test_auth_and_other_errors() -> None:
    unauthorized = failed('401: {"message":"Incorrect API key provided: sk-***","type":"x"}')
    assert is_auth_error(unauthorized) and not is_retryable_error(unauthorized)
    assert classify_error(unauthorized) is ErrorKind.AUTH
    assert classify_error(failed("403: permission denied")) is ErrorKind.AUTH
    assert classify_error(failed("Provider finish_reason: content_filter")) is ErrorKind.OTHER
    assert classify_error(finished("stop", input=1, output=1)) is ErrorKind.NONE
    assert classify_error({**failed("x"), "stopReason": "aborted"}) is ErrorKind.ABORTED
    # Pi's quirk: bare status numbers anywhere make an error look transient (spec §15.12)
    assert is_retryable_error(failed("Tool schema invalid at position 1500"))


def test_http_error_texts() -> None:
    assert http_error_message(400, b'{"error": {"message": "bad", "code": null}}') == (
        '400: {"message":"bad","code":null}'
    )
    assert http_error_message(500, '{"error": "plain string"}') == "500: plain string"
    assert http_error_message(404, '{"detail": "Not Found"}') == '404: {"detail":"Not Found"}'
    assert http_error_message(502, b"Bad Gateway\n") == "502: Bad Gateway"
    assert http_error_message(400, b"") == "400 status code (no body)"
    assert http_error_message(400, "é".encode()) == "400: é"


def test_network_error_texts() -> None:
    refused = network_error_message(httpx.ConnectError("refused"), streaming=False)
    assert refused == "Connection error: refused"
    timeout = network_error_message(httpx.ReadTimeout("read"), streaming=True)
    assert timeout.startswith("Request timed out while streaming")
    broken = network_error_message(httpx.RemoteProtocolError("peer closed"), streaming=True)
    assert "terminated" in broken and "peer closed" in broken
    for text in (refused, timeout, broken):
        assert is_retryable_error(failed(text))


# --- retry timing ------------------------------------------------------------------------------


def test_backoff() -> None:
    assert [backoff_delay_ms(n) for n in (1, 2, 3)] == [2000, 4000, 8000]
    assert backoff_delay_ms(3, 500) == 2000
    assert retry_delay_ms(2) == 4000
    assert retry_delay_ms(1, retry_after_ms=7000) == 7000  # the server asked for more
    assert retry_delay_ms(3, retry_after_ms=1000) == 8000  # never less than the backoff
    assert retry_delay_ms(1, retry_after_ms=61_000) is None  # beyond the provider cap
    assert retry_delay_ms(1, retry_after_ms=61_000, max_retry_delay_ms=0) == 61_000


def test_retry_after_headers() -> None:
    now = 1_700_000_000.0
    assert parse_retry_after("7") == 7000
    assert parse_retry_after("1.5") == 1500
    assert parse_retry_after("  ") is None and parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after(date, now=now) == 30_000
    assert parse_retry_after(email.utils.formatdate(now - 5, usegmt=True), now=now) == 0
    assert retry_after_ms({"Retry-After-Ms": "250", "Retry-After": "9"}) == 250
    assert retry_after_ms({"retry-after": "9"}) == 9000
    assert retry_after_ms({}) is None


def test_policy_from_settings() -> None:
    assert RetryPolicy.from_settings({}) == RetryPolicy()
    policy = RetryPolicy.from_settings(
        {"retry": {"maxRetries": 5, "baseDelayMs": 100, "provider": {"maxRetryDelayMs": 1000}}}
    )
    assert (policy.max_retries, policy.base_delay_ms, policy.max_retry_delay_ms) == (5, 100, 1000)
    assert policy.delay_ms(1) == 100 and policy.delay_ms(5) == 1600
    assert policy.delay_ms(6) is None
    assert policy.delay_ms(1, retry_after=2000) is None
    assert RetryPolicy.from_settings({"retry": {"maxDelayMs": 5}}).max_retry_delay_ms == 5
    assert RetryPolicy.from_settings({"retry": {"enabled": False}}).delay_ms(1) is None
    assert RetryPolicy.from_settings({"retry": {"maxRetries": "x"}}).max_retries == 3


async def test_sleep_is_injectable_and_abortable() -> None:
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    assert await sleep_ms(4000, sleep=fake_sleep) is True
    assert await sleep_ms(2000, AbortSignal(), sleep=fake_sleep) is True
    assert slept == [4.0, 2.0]

    forever = asyncio.Event()

    async def stuck(seconds: float) -> None:
        await forever.wait()

    signal = AbortSignal()
    waiting = asyncio.create_task(sleep_ms(60_000, signal, sleep=stuck))
    await asyncio.sleep(0)
    signal.abort()
    assert await asyncio.wait_for(waiting, timeout=10) is False
    assert await sleep_ms(10, signal, sleep=fake_sleep) is False
    assert slept == [4.0, 2.0]
