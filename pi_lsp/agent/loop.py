"""One run of the agent loop (spec §12.2) and the streaming of one response (§12.3).

:func:`run_agent_loop` starts a run with prompt messages, :func:`run_agent_loop_continue` goes
on from the context as it is (a retry, an overflow recovery). A run is a series of turns: the
messages waiting to be injected (steering, then follow-ups when the run would stop), one
assistant response, the tool calls it makes (:mod:`tool_runner`); a response that failed or was
aborted ends the run. Before every turn but the first the ``prepare_next_turn`` hook may
replace the context, model and thinking level (the session compacts there, spec §10.10).

Everything the run does is reported through ``emit`` (:mod:`events`); the caller keeps its own
copy of the transcript from the ``message_end`` events. Messages are Pi's JSON dicts.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.agent import events
from pi_lsp.agent.model_api import (
    ModelInfo,
    ModelRequest,
    Provider,
    ThinkingLevel,
    empty_usage,
)
from pi_lsp.agent.output_budget import request_max_tokens
from pi_lsp.agent.providers.secret import redactor_for
from pi_lsp.agent.tool_runner import (
    AfterToolCall,
    BeforeToolCall,
    Emit,
    ToolBatch,
    ToolExecutionMode,
    execute_tool_calls,
    fail_truncated_tool_calls,
    tool_calls_of,
)
from pi_lsp.session.llm_messages import convert_to_llm
from pi_lsp.tools.base import AbortSignal, Tool, ToolContext
from pi_lsp.tools.registry import BUILTIN_TOOLS

__all__ = [
    "ABORTED_REQUEST_MESSAGE",
    "ABORT_GRACE_SECONDS",
    "NO_FINAL_EVENT_MESSAGE",
    "AgentContext",
    "LoopConfig",
    "NextTurn",
    "TurnSnapshot",
    "collect_response",
    "failure_message",
    "run_agent_loop",
    "run_agent_loop_continue",
    "stream_assistant_response",
    "tool_definitions",
]

Message = dict[str, Any]

#: ``errorMessage`` of a response the loop had to cut off itself after an abort.
ABORTED_REQUEST_MESSAGE = "Request was aborted"
#: ``errorMessage`` when a provider's stream ends without ``done`` or ``error``.
NO_FINAL_EVENT_MESSAGE = "Stream ended without a final event"
#: Seconds a provider gets after an abort to end its stream on its own.
ABORT_GRACE_SECONDS = 2.0


@dataclass
class AgentContext:
    """What a request is built from: the system prompt, the transcript, the active tools."""

    system_prompt: str
    messages: list[Message]
    tools: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TurnSnapshot:
    """A finished turn, given to ``prepare_next_turn`` / ``should_stop_after_turn``."""

    message: Message
    tool_results: list[Message]
    context: AgentContext
    new_messages: list[Message]


@dataclass(frozen=True, slots=True)
class NextTurn:
    """What ``prepare_next_turn`` changes for the next request (None keeps the current)."""

    context: AgentContext | None = None
    model: ModelInfo | None = None
    thinking_level: ThinkingLevel | None = None


MessageSource = Callable[[], Awaitable[list[Message]]]


@dataclass
class LoopConfig:
    """How a run talks to its model and tools, and the hooks the session plugs in.

    ``tool_context`` is the template of every tool call's context (cwd, shell, image support);
    ``get_api_key(provider)`` is asked before every request and wins over ``api_key``.
    ``on_stream_error(message, event)`` sees the final ``error`` event of a response (it may
    carry the server's ``retryAfterMs``, which never reaches the message).
    """

    provider: Provider
    model: ModelInfo
    tool_context: ToolContext
    thinking_level: ThinkingLevel = "off"
    api_key: str | None = None
    get_api_key: Callable[[str], Awaitable[str | None]] | None = None
    tool_execution: ToolExecutionMode = "parallel"
    convert_to_llm: Callable[[list[Message]], list[Message]] = field(default=convert_to_llm)
    transform_context: (
        Callable[[list[Message], AbortSignal | None], Awaitable[list[Message]]] | None
    ) = None
    get_steering_messages: MessageSource | None = None
    get_follow_up_messages: MessageSource | None = None
    prepare_next_turn: Callable[[TurnSnapshot], Awaitable[NextTurn | None]] | None = None
    should_stop_after_turn: Callable[[TurnSnapshot], Awaitable[bool]] | None = None
    before_tool_call: BeforeToolCall | None = None
    after_tool_call: AfterToolCall | None = None
    on_stream_error: Callable[[Message, Mapping[str, Any]], None] | None = None
    #: the session's id, passed on in every request (prompt-cache key, session headers)
    session_id: str | None = None


def tool_definitions(names: Sequence[str]) -> list[dict[str, Any]]:
    """The request's tool list (``name``, ``description``, ``parameters``) for built-in tools."""
    return [
        {"name": t.name, "description": t.description, "parameters": t.parameters}
        for t in _active_tools(names).values()
    ]


def _active_tools(names: Sequence[str]) -> dict[str, Tool]:
    return {name: BUILTIN_TOOLS[name] for name in names if name in BUILTIN_TOOLS}


def failure_message(model: ModelInfo, error: str, *, aborted: bool) -> Message:
    """The assistant message that stands for a response that could not even be streamed."""
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": ""}],
        "api": model.api,
        "provider": model.provider,
        "model": model.id,
        "usage": empty_usage(),
        "stopReason": "aborted" if aborted else "error",
        "errorMessage": error,
        "timestamp": int(time.time() * 1000),
    }


# --- streaming one response ----------------------------------------------------------------------


class _ProviderStalled(Exception):
    """The provider did not end its stream within the grace period after an abort."""


class _ProviderFailed(Exception):
    """The provider raised instead of ending its stream with an ``error`` event."""


async def _until_done(
    stream: AsyncIterator[dict[str, Any]], signal: AbortSignal | None
) -> AsyncGenerator[dict[str, Any], None]:
    """The provider's events; after an abort it has :data:`ABORT_GRACE_SECONDS` to finish."""
    loop = asyncio.get_running_loop()
    aborted_waiter: asyncio.Future[None] | None = None
    deadline: float | None = None
    try:
        while True:
            step = asyncio.ensure_future(anext(stream))
            if signal is None:
                await asyncio.wait({step})
            elif not signal.aborted:
                if aborted_waiter is None:
                    aborted_waiter = asyncio.ensure_future(signal.wait())
                waiting: set[asyncio.Future[Any]] = {step, aborted_waiter}
                await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            if not step.done():
                if deadline is None:
                    deadline = loop.time() + ABORT_GRACE_SECONDS
                try:
                    await asyncio.wait_for(asyncio.shield(step), max(0.0, deadline - loop.time()))
                except TimeoutError:
                    step.cancel()
                    with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                        await step
                    raise _ProviderStalled() from None
            try:
                event = step.result()
            except StopAsyncIteration:
                return
            except Exception as exc:
                raise _ProviderFailed(str(exc) or type(exc).__name__) from exc
            yield event
    finally:
        if aborted_waiter is not None:
            aborted_waiter.cancel()
        closer = getattr(stream, "aclose", None)
        if closer is not None:
            with contextlib.suppress(Exception):
                await closer()


async def stream_assistant_response(
    context: AgentContext,
    config: LoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
) -> Message:
    """Stream one response into ``context.messages`` and report it (spec §12.3).

    ``start`` adds the partial message (``message_start``), each delta replaces it
    (``message_update``), ``done``/``error`` put the final one in its place (``message_end``,
    preceded by ``message_start`` when no partial came first). A provider that raises, ends
    without a final event, or ignores an abort gets an ``error``/``aborted`` message instead.
    """
    messages = context.messages
    if config.transform_context is not None:
        messages = await config.transform_context(messages, signal)
    llm_messages = config.convert_to_llm(messages)
    tools = tool_definitions(context.tools)
    api_key = config.api_key
    if config.get_api_key is not None:
        api_key = (await config.get_api_key(config.model.provider)) or api_key
    request = ModelRequest(
        model=config.model,
        system_prompt=context.system_prompt,
        messages=llm_messages,
        tools=tools,
        max_tokens=request_max_tokens(config.model, context.system_prompt, llm_messages, tools),
        thinking_level=config.thinking_level,
        api_key=api_key,
        session_id=config.session_id,
    )

    partial: Message | None = None
    final: Message | None = None
    try:
        try:
            stream = config.provider.stream(request, signal)
        except Exception as exc:
            raise _ProviderFailed(str(exc) or type(exc).__name__) from exc
        provider_events = _until_done(stream, signal)
        async with contextlib.aclosing(provider_events):
            async for event in provider_events:
                kind = event.get("type")
                if kind == "start":
                    partial = event["partial"]
                    context.messages.append(partial)
                    await emit(events.message_start(dict(partial)))
                elif kind in ("done", "error"):
                    final = event["message"] if kind == "done" else event["error"]
                    if kind == "error" and config.on_stream_error is not None:
                        config.on_stream_error(final, event)
                    break
                elif partial is not None and "partial" in event:
                    partial = event["partial"]
                    context.messages[-1] = partial
                    await emit(events.message_update(dict(partial), event))
    except _ProviderStalled:
        final = _cut_off(partial, config.model)
    except _ProviderFailed as exc:
        aborted = signal is not None and signal.aborted
        final = failure_message(config.model, redactor_for(request)(str(exc)), aborted=aborted)
    if final is None:
        aborted = signal is not None and signal.aborted
        final = (
            _cut_off(partial, config.model)
            if aborted
            else failure_message(config.model, NO_FINAL_EVENT_MESSAGE, aborted=False)
        )

    if partial is not None:
        context.messages[-1] = final
    else:
        context.messages.append(final)
        await emit(events.message_start(dict(final)))
    await emit(events.message_end(final))
    return final


async def collect_response(
    provider: Provider, request: ModelRequest, signal: AbortSignal | None = None
) -> tuple[Message, Mapping[str, Any]]:
    """Stream ``request`` to its end without reporting it: the final message and final event.

    The same rules as :func:`stream_assistant_response` apply to a provider that raises, ends
    without a final event or ignores an abort. The event is ``{}`` when there was none.
    """
    partial: Message | None = None
    try:
        try:
            stream = provider.stream(request, signal)
        except Exception as exc:
            raise _ProviderFailed(str(exc) or type(exc).__name__) from exc
        provider_events = _until_done(stream, signal)
        async with contextlib.aclosing(provider_events):
            async for event in provider_events:
                kind = event.get("type")
                if kind == "done":
                    return event["message"], event
                if kind == "error":
                    return event["error"], event
                if isinstance(event.get("partial"), dict):
                    partial = event["partial"]
    except _ProviderStalled:
        return _cut_off(partial, request.model), {}
    except _ProviderFailed as exc:
        aborted = signal is not None and signal.aborted
        return failure_message(request.model, redactor_for(request)(str(exc)), aborted=aborted), {}
    if signal is not None and signal.aborted:
        return _cut_off(partial, request.model), {}
    return failure_message(request.model, NO_FINAL_EVENT_MESSAGE, aborted=False), {}


def _cut_off(partial: Message | None, model: ModelInfo) -> Message:
    """An aborted message from what had streamed so far."""
    if partial is None:
        return failure_message(model, ABORTED_REQUEST_MESSAGE, aborted=True)
    message = dict(partial)
    message["stopReason"] = "aborted"
    message["errorMessage"] = ABORTED_REQUEST_MESSAGE
    return message


# --- the run -------------------------------------------------------------------------------------


async def _poll(source: MessageSource | None) -> list[Message]:
    return list(await source()) if source is not None else []


async def run_agent_loop(
    prompts: Sequence[Message],
    context: AgentContext,
    config: LoopConfig,
    emit: Emit,
    signal: AbortSignal | None = None,
) -> list[Message]:
    """A run that starts with ``prompts``; returns the messages it added (prompts included)."""
    new_messages: list[Message] = list(prompts)
    current = AgentContext(
        context.system_prompt, [*context.messages, *prompts], tuple(context.tools)
    )
    await emit(events.agent_start())
    await emit(events.turn_start())
    for prompt in prompts:
        await emit(events.message_start(prompt))
        await emit(events.message_end(prompt))
    await _run_loop(current, new_messages, config, signal, emit)
    return new_messages


async def run_agent_loop_continue(
    context: AgentContext,
    config: LoopConfig,
    emit: Emit,
    signal: AbortSignal | None = None,
) -> list[Message]:
    """A run that goes on from ``context`` as it is (its last message must not be an answer)."""
    if not context.messages:
        raise ValueError("Cannot continue: no messages in context")
    last_role = context.messages[-1].get("role")
    if last_role == "assistant":
        raise ValueError("Cannot continue from message role: assistant")
    new_messages: list[Message] = []
    current = AgentContext(context.system_prompt, list(context.messages), tuple(context.tools))
    await emit(events.agent_start())
    await emit(events.turn_start())
    await _run_loop(current, new_messages, config, signal, emit)
    return new_messages


async def _run_loop(
    context: AgentContext,
    new_messages: list[Message],
    config: LoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
) -> None:
    last_turn: TurnSnapshot | None = None
    pending = await _poll(config.get_steering_messages)
    while True:
        has_more_tool_calls = True
        while has_more_tool_calls or pending:
            if last_turn is not None:
                if config.prepare_next_turn is not None:
                    update = await config.prepare_next_turn(last_turn)
                    if update is not None:
                        context = update.context or context
                        config = _with_turn_update(config, update)
                # preparing may take long (a compaction): pick up what was steered meanwhile
                if not pending:
                    pending = await _poll(config.get_steering_messages)
                await emit(events.turn_start())

            for message in pending:
                await emit(events.message_start(message))
                await emit(events.message_end(message))
                context.messages.append(message)
                new_messages.append(message)
            pending = []

            assistant = await stream_assistant_response(context, config, signal, emit)
            new_messages.append(assistant)
            if assistant.get("stopReason") in ("error", "aborted"):
                await emit(events.turn_end(assistant, []))
                await emit(events.agent_end(new_messages))
                return

            calls = tool_calls_of(assistant)
            tool_results: list[Message] = []
            has_more_tool_calls = False
            if calls:
                batch = await _run_tools(assistant, calls, context, config, signal, emit)
                tool_results = batch.messages
                has_more_tool_calls = not batch.terminate
                context.messages.extend(tool_results)
                new_messages.extend(tool_results)

            await emit(events.turn_end(assistant, tool_results))
            last_turn = TurnSnapshot(assistant, tool_results, context, new_messages)
            if config.should_stop_after_turn is not None and await config.should_stop_after_turn(
                last_turn
            ):
                await emit(events.agent_end(new_messages))
                return
            pending = await _poll(config.get_steering_messages)

        follow_ups = await _poll(config.get_follow_up_messages)
        if not follow_ups:
            break
        pending = follow_ups
    await emit(events.agent_end(new_messages))


async def _run_tools(
    assistant: Message,
    calls: Sequence[Mapping[str, Any]],
    context: AgentContext,
    config: LoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
) -> ToolBatch:
    if assistant.get("stopReason") == "length":
        return await fail_truncated_tool_calls(calls, emit)
    return await execute_tool_calls(
        assistant,
        context.messages,
        _active_tools(context.tools),
        config.tool_context,
        signal=signal,
        emit=emit,
        mode=config.tool_execution,
        before_tool_call=config.before_tool_call,
        after_tool_call=config.after_tool_call,
    )


def _with_turn_update(config: LoopConfig, update: NextTurn) -> LoopConfig:
    return dataclasses.replace(
        config,
        model=update.model or config.model,
        thinking_level=update.thinking_level or config.thinking_level,
    )
