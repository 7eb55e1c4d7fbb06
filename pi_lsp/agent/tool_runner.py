"""Running the tool calls of one assistant message, as Pi's agent loop does (spec §12.4).

For every call: ``tool_execution_start``; preparation (unknown tool → ``Tool {name} not
found``, argument repair and schema check through :mod:`pi_lsp.tools.registry`, the
``before_tool_call`` hook that may block it, an abort → ``Operation aborted``); execution with
partial results as ``tool_execution_update`` and printed output as pi-lsp's ``tool_output``;
the ``after_tool_call`` hook that may replace the result; ``tool_execution_end``; then the
``toolResult`` message (``message_start`` / ``message_end``).

``parallel`` (Pi's default): calls are prepared one after the other (their start events in call
order), run concurrently, each ``tool_execution_end`` is sent when its call finishes, and the
result messages follow in call order once all are done. ``sequential``: one call after the
other, stopping after the call during which the run was aborted.

A batch ends the run after its turn (``terminate``) only when every result asks for it (only a
hook can ask, the built-in tools never do).
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pi_lsp.agent import events
from pi_lsp.tools.base import ABORTED_MESSAGE, AbortSignal, Tool, ToolContext, ToolResult
from pi_lsp.tools.registry import InvalidToolCall, execute, prepare_call

__all__ = [
    "AfterToolCall",
    "AfterToolCallContext",
    "AfterToolCallResult",
    "BeforeToolCall",
    "BeforeToolCallContext",
    "BeforeToolCallResult",
    "Emit",
    "ToolBatch",
    "ToolExecutionMode",
    "execute_tool_calls",
    "fail_truncated_tool_calls",
    "tool_calls_of",
    "truncated_call_message",
]

Message = dict[str, Any]
Emit = Callable[[dict[str, Any]], Awaitable[None]]
ToolExecutionMode = Literal["parallel", "sequential"]


def truncated_call_message(name: str) -> str:
    """The error result of a call in a response cut off at the output token limit."""
    return (
        f'Tool call "{name}" was not executed: the response hit the output token limit, so its '
        "arguments may be truncated. Re-issue the tool call with complete arguments."
    )


# --- hooks ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BeforeToolCallContext:
    assistant_message: Message
    tool_call: Mapping[str, Any]
    args: dict[str, Any]
    messages: Sequence[Message]
    #: the run's abort signal (Pi passes it to the hook beside the context)
    signal: AbortSignal | None = None


@dataclass(frozen=True, slots=True)
class BeforeToolCallResult:
    """Block the call: its result is an error with ``reason`` (or Pi's default text).

    ``settled`` (pi-lsp's, not Pi's) is the result of a call the hook carried out itself (the
    editor applied a reviewed edit): the tool does not run, the ``after_tool_call`` hook does."""

    block: bool = False
    reason: str | None = None
    terminate: bool = False
    settled: ToolResult | None = None


@dataclass(frozen=True, slots=True)
class AfterToolCallContext:
    assistant_message: Message
    tool_call: Mapping[str, Any]
    args: dict[str, Any]
    result: Mapping[str, Any]
    is_error: bool
    messages: Sequence[Message]


@dataclass(frozen=True, slots=True)
class AfterToolCallResult:
    """Replace parts of a finished call's result; None keeps the part as it is."""

    content: list[dict[str, Any]] | None = None
    details: Any = None
    is_error: bool | None = None
    usage: Mapping[str, Any] | None = None
    terminate: bool | None = None


BeforeToolCall = Callable[[BeforeToolCallContext], Awaitable[BeforeToolCallResult | None]]
AfterToolCall = Callable[[AfterToolCallContext], Awaitable[AfterToolCallResult | None]]


# --- one call ------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Outcome:
    """A finished call: the result (``content``, ``details``?, ``usage``?, ``terminate``?)."""

    call: Mapping[str, Any]
    result: dict[str, Any]
    is_error: bool


@dataclass(frozen=True, slots=True)
class _Prepared:
    call: Mapping[str, Any]
    tool: Tool
    args: dict[str, Any]


def _error_result(message: str) -> dict[str, Any]:
    return ToolResult.error(message).to_json()


def tool_calls_of(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The ``toolCall`` blocks of an assistant message, in order."""
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, Mapping) and b.get("type") == "toolCall"]


def _call_id(call: Mapping[str, Any]) -> str:
    return str(call.get("id", ""))


def _call_name(call: Mapping[str, Any]) -> str:
    return str(call.get("name", ""))


@dataclass
class _Batch:
    """What every call of one batch shares."""

    assistant: Message
    messages: Sequence[Message]
    tools: Mapping[str, Tool]
    context: ToolContext
    signal: AbortSignal | None
    emit: Emit
    before: BeforeToolCall | None
    after: AfterToolCall | None

    @property
    def aborted(self) -> bool:
        return self.signal is not None and self.signal.aborted

    async def prepare(self, call: Mapping[str, Any]) -> _Prepared | _Outcome:
        name = _call_name(call)
        tool = self.tools.get(name)
        if tool is None:
            return _Outcome(call, _error_result(f"Tool {name} not found"), True)
        try:
            _, args = prepare_call(name, call.get("arguments", {}))
            if self.before is not None:
                decision = await self.before(
                    BeforeToolCallContext(self.assistant, call, args, self.messages, self.signal)
                )
                if self.aborted:
                    return _Outcome(call, _error_result(ABORTED_MESSAGE), True)
                if decision is not None and decision.block:
                    result = _error_result(decision.reason or "Tool execution was blocked")
                    if decision.terminate:
                        result["terminate"] = True
                    return _Outcome(call, result, True)
                if decision is not None and decision.settled is not None:
                    settled = decision.settled
                    outcome = _Outcome(call, settled.to_json(), settled.is_error)
                    return await self.finish(_Prepared(call, tool, args), outcome)
        except InvalidToolCall as exc:
            return _Outcome(call, _error_result(str(exc)), True)
        except Exception as exc:  # a hook failure blocks the call, as in Pi
            return _Outcome(call, _error_result(str(exc) or type(exc).__name__), True)
        if self.aborted:
            return _Outcome(call, _error_result(ABORTED_MESSAGE), True)
        return _Prepared(call, tool, args)

    async def run(self, prepared: _Prepared) -> _Outcome:
        """Execute a prepared call, its updates and output sent as events, in order."""
        call = prepared.call
        call_id, name, raw_args = _call_id(call), _call_name(call), call.get("arguments")
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        accepting = True

        def on_update(partial: ToolResult) -> None:
            if accepting:
                queue.put_nowait(
                    events.tool_execution_update(call_id, name, raw_args, partial.to_json())
                )

        def on_output(chunk: str) -> None:
            if accepting and chunk:
                queue.put_nowait(events.tool_output(call_id, name, chunk))

        async def pump() -> None:
            while (event := await queue.get()) is not None:
                await self.emit(event)

        sender = asyncio.create_task(pump())
        context = dataclasses.replace(
            self.context, signal=self.signal, on_update=on_update, on_output=on_output
        )
        try:
            result = await execute(prepared.tool, prepared.args, context)
        finally:
            accepting = False
            queue.put_nowait(None)
            await sender
        outcome = _Outcome(call, result.to_json(), result.is_error)
        return await self.finish(prepared, outcome)

    async def finish(self, prepared: _Prepared, outcome: _Outcome) -> _Outcome:
        if self.after is None:
            return outcome
        try:
            change = await self.after(
                AfterToolCallContext(
                    self.assistant,
                    prepared.call,
                    prepared.args,
                    outcome.result,
                    outcome.is_error,
                    self.messages,
                )
            )
        except Exception as exc:
            return _Outcome(outcome.call, _error_result(str(exc) or type(exc).__name__), True)
        if change is None:
            return outcome
        result = dict(outcome.result)
        for key, value in (
            ("content", change.content),
            ("details", change.details),
            ("usage", change.usage),
            ("terminate", change.terminate),
        ):
            if value is not None:
                result[key] = value
        is_error = outcome.is_error if change.is_error is None else change.is_error
        return _Outcome(outcome.call, result, is_error)

    async def end(self, outcome: _Outcome) -> None:
        await _emit_end(outcome, self.emit)

    async def start(self, call: Mapping[str, Any]) -> None:
        await _emit_start(call, self.emit)


async def _emit_start(call: Mapping[str, Any], emit: Emit) -> None:
    await emit(events.tool_execution_start(_call_id(call), _call_name(call), call.get("arguments")))


async def _emit_end(outcome: _Outcome, emit: Emit) -> None:
    call = outcome.call
    await emit(
        events.tool_execution_end(
            _call_id(call), _call_name(call), outcome.result, outcome.is_error
        )
    )


def _result_message(outcome: _Outcome) -> Message:
    """Pi's ``toolResult`` message; absent ``details`` / ``usage`` are left out."""
    result = outcome.result
    message: Message = {
        "role": "toolResult",
        "toolCallId": _call_id(outcome.call),
        "toolName": _call_name(outcome.call),
        "content": list(result.get("content") or []),
    }
    if result.get("details") is not None:
        message["details"] = result["details"]
    if result.get("usage") is not None:
        message["usage"] = result["usage"]
    message["isError"] = outcome.is_error
    message["timestamp"] = int(time.time() * 1000)
    return message


async def _emit_result_message(message: Message, emit: Emit) -> None:
    await emit(events.message_start(message))
    await emit(events.message_end(message))


@dataclass(frozen=True, slots=True)
class ToolBatch:
    """The result messages of a batch, in call order, and whether the run should end."""

    messages: list[Message]
    terminate: bool


def _terminates(outcomes: Sequence[_Outcome]) -> bool:
    return bool(outcomes) and all(o.result.get("terminate") is True for o in outcomes)


async def fail_truncated_tool_calls(calls: Sequence[Mapping[str, Any]], emit: Emit) -> ToolBatch:
    """Calls of a response cut off at its token limit: none runs, each gets an error result."""
    messages: list[Message] = []
    for call in calls:
        await _emit_start(call, emit)
        outcome = _Outcome(call, _error_result(truncated_call_message(_call_name(call))), True)
        await _emit_end(outcome, emit)
        message = _result_message(outcome)
        await _emit_result_message(message, emit)
        messages.append(message)
    return ToolBatch(messages, False)


async def execute_tool_calls(
    assistant: Message,
    messages: Sequence[Message],
    tools: Mapping[str, Tool],
    context: ToolContext,
    *,
    signal: AbortSignal | None,
    emit: Emit,
    mode: ToolExecutionMode = "parallel",
    before_tool_call: BeforeToolCall | None = None,
    after_tool_call: AfterToolCall | None = None,
) -> ToolBatch:
    """Run the tool calls of ``assistant`` with the active ``tools`` (by name).

    ``context`` is the template of every call's :class:`ToolContext` (cwd, shell, image
    support); the signal and the streaming callbacks are set per call. ``messages`` is the
    context the calls were made in (given to the hooks).
    """
    batch = _Batch(
        assistant, messages, tools, context, signal, emit, before_tool_call, after_tool_call
    )
    calls = tool_calls_of(assistant)
    if mode == "sequential":
        return await _sequential(batch, calls)
    return await _parallel(batch, calls)


async def _sequential(batch: _Batch, calls: Sequence[Mapping[str, Any]]) -> ToolBatch:
    outcomes: list[_Outcome] = []
    messages: list[Message] = []
    for call in calls:
        await batch.start(call)
        prepared = await batch.prepare(call)
        outcome = prepared if isinstance(prepared, _Outcome) else await batch.run(prepared)
        await batch.end(outcome)
        message = _result_message(outcome)
        await _emit_result_message(message, batch.emit)
        outcomes.append(outcome)
        messages.append(message)
        if batch.aborted:
            break
    return ToolBatch(messages, _terminates(outcomes))


async def _parallel(batch: _Batch, calls: Sequence[Mapping[str, Any]]) -> ToolBatch:
    pending: list[_Outcome | _Prepared] = []
    for call in calls:
        await batch.start(call)
        prepared = await batch.prepare(call)
        if isinstance(prepared, _Outcome):
            await batch.end(prepared)
        pending.append(prepared)
        if batch.aborted:
            break

    async def finish(item: _Outcome | _Prepared) -> _Outcome:
        if isinstance(item, _Outcome):
            return item
        if batch.aborted:
            outcome = _Outcome(item.call, _error_result(ABORTED_MESSAGE), True)
        else:
            outcome = await batch.run(item)
        await batch.end(outcome)
        return outcome

    outcomes = list(await asyncio.gather(*(finish(item) for item in pending)))
    messages: list[Message] = []
    for outcome in outcomes:
        message = _result_message(outcome)
        await _emit_result_message(message, batch.emit)
        messages.append(message)
    return ToolBatch(messages, _terminates(outcomes))
