"""A :class:`~pi_lsp.session.summarizer.Summarizer` that asks the session's own model.

Compaction and branch summaries build a :class:`~pi_lsp.session.summarizer.SummaryRequest`
(system prompt, one user message, the final output budget); this turns it into a
:class:`~pi_lsp.agent.model_api.ModelRequest` without tools, streams it through the provider,
and returns the final message as a :class:`~pi_lsp.session.summarizer.SummaryResponse`.

Like Pi's ``completeSummarization``, a transient failure (the session's retry rule) is retried
with the session's retry policy, reported as ``summarization_retry_scheduled`` (before the
wait), ``summarization_retry_attempt_start`` (after it) and ``summarization_retry_finished``
(once, at the end, if anything was retried). An abort during a wait answers ``aborted``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from pi_lsp.agent import events
from pi_lsp.agent.events import AgentEvent
from pi_lsp.agent.loop import collect_response
from pi_lsp.agent.model_api import (
    ModelInfo,
    ModelRequest,
    Provider,
    thinking_level_or_off,
)
from pi_lsp.agent.providers.errors import is_retryable_error
from pi_lsp.agent.providers.retry import RetryPolicy, Sleep, sleep_ms
from pi_lsp.session.summarizer import SummaryRequest, SummaryResponse
from pi_lsp.tools.base import AbortSignal

__all__ = ["ProviderSummarizer", "summary_model_request"]

Message = dict[str, Any]


def summary_model_request(
    request: SummaryRequest, model: ModelInfo, api_key: str | None = None
) -> ModelRequest:
    """The model request for a summary: its prompt and message, no tools, its final budget."""
    level = thinking_level_or_off(request.reasoning)
    return ModelRequest(
        model=model,
        system_prompt=request.system_prompt,
        messages=[dict(message) for message in request.messages],
        tools=[],
        max_tokens=request.max_tokens,
        thinking_level=level,
        api_key=api_key,
        cache_retention="none",  # a one-off request: no cache writes, no session routing
    )


def _response(message: Mapping[str, Any]) -> SummaryResponse:
    content = message.get("content")
    blocks = (
        tuple(b for b in content if isinstance(b, Mapping)) if isinstance(content, list) else ()
    )
    usage = message.get("usage")
    error = message.get("errorMessage")
    return SummaryResponse(
        content=blocks,
        stop_reason=str(message.get("stopReason", "stop")),
        usage=usage if isinstance(usage, Mapping) else None,
        error_message=error if isinstance(error, str) else None,
    )


class ProviderSummarizer:
    """Answers summary requests with ``provider`` and ``model`` (see the module docstring).

    ``signal`` aborts the request in flight and any wait between attempts; ``on_event``
    receives the ``summarization_retry_*`` events, ``source`` is merged into the
    ``…_attempt_start`` one (Pi: ``{"source": "compaction", "reason": …}``).
    """

    def __init__(
        self,
        provider: Provider,
        model: ModelInfo,
        *,
        api_key: str | None = None,
        get_api_key: Callable[[str], Awaitable[str | None]] | None = None,
        retry: RetryPolicy | None = None,
        signal: AbortSignal | None = None,
        on_event: Callable[[AgentEvent], Awaitable[None] | None] | None = None,
        source: Mapping[str, Any] | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.provider = provider
        self.model = model
        self.api_key = api_key
        self.get_api_key = get_api_key
        self.retry = retry if retry is not None else RetryPolicy()
        self.signal = signal
        self.on_event = on_event
        self.source = dict(source or {})
        self._sleep = sleep

    async def _emit(self, event: AgentEvent) -> None:
        if self.on_event is not None:
            outcome = self.on_event(event)
            if inspect.isawaitable(outcome):
                await outcome

    async def _once(self, request: SummaryRequest) -> tuple[Message, Mapping[str, Any]]:
        api_key = self.api_key
        if self.get_api_key is not None:
            api_key = (await self.get_api_key(self.model.provider)) or api_key
        model_request = summary_model_request(request, self.model, api_key)
        return await collect_response(self.provider, model_request, self.signal)

    async def complete(self, request: SummaryRequest) -> SummaryResponse:
        attempt = 0
        retried = False
        while True:
            message, _final_event = await self._once(request)
            stop = message.get("stopReason")
            if stop != "error" or attempt >= self.retry.max_retries or not self.retry.enabled:
                break
            if not is_retryable_error(message, self.model.context_window):
                break
            # Pi's own backoff; a server's retry-after is not read (as the session's retry)
            delay = self.retry.delay_ms(attempt + 1)
            if delay is None:
                break
            attempt += 1
            retried = True
            error_text = str(message.get("errorMessage") or "Unknown error")
            await self._emit(
                events.summarization_retry_scheduled(
                    attempt, self.retry.max_retries, delay, error_text
                )
            )
            if not await sleep_ms(delay, self.signal, sleep=self._sleep):
                await self._emit(events.summarization_retry_finished())
                aborted = {k: v for k, v in message.items() if k != "errorMessage"}
                aborted["stopReason"] = "aborted"
                return _response(aborted)
            await self._emit(events.summarization_retry_attempt_start(self.source))
        if retried:
            await self._emit(events.summarization_retry_finished())
        return _response(message)
