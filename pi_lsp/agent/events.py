"""The events an agent run emits, in Pi's JSON shapes, and their JSON-mode form (spec §12.1).

Every event is a plain dict with a ``"type"`` and Pi's keys in Pi's order, so that writing one
with :func:`~pi_lsp.js.json.json_stringify` gives the line ``pi --mode json`` prints. The
constructors below are the only place the shapes are spelled out.

Loop events (one run of the agent loop): ``agent_start``, ``agent_end {messages}``,
``turn_start``, ``turn_end {message, toolResults}``, ``message_start {message}``,
``message_update {assistantMessageEvent, message}`` (assistant messages only),
``message_end {message}``, ``tool_execution_start {toolCallId, toolName, args}``,
``tool_execution_update {…, partialResult}``, ``tool_execution_end {toolCallId, toolName,
result, isError}``.

Session events (the orchestration around runs): ``agent_end`` gains ``willRetry``;
``agent_settled``; ``queue_update {steering, followUp}``; ``compaction_start {reason}``;
``compaction_end {reason, result?, aborted, willRetry, errorMessage?}``; ``auto_retry_start``
/ ``auto_retry_end``; ``summarization_retry_*``; ``entry_appended {entry}``;
``thinking_level_changed {level}``.

pi-lsp adds one event Pi does not have: ``tool_output {toolCallId, toolName, delta}``, every
decoded chunk a tool (bash) prints, as it arrives, for editor panels. It is not part of the
JSON mode (:func:`to_json_event` drops it).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal

from pi_lsp.js.json import json_stringify

__all__ = [
    "PI_LSP_ONLY_EVENTS",
    "AgentEvent",
    "CompactionReason",
    "EventListener",
    "Listeners",
    "agent_end",
    "agent_settled",
    "agent_start",
    "auto_retry_end",
    "auto_retry_start",
    "compaction_end",
    "compaction_start",
    "entry_appended",
    "json_line",
    "json_mode_lines",
    "message_end",
    "message_start",
    "message_update",
    "queue_update",
    "summarization_retry_attempt_start",
    "summarization_retry_finished",
    "summarization_retry_scheduled",
    "thinking_level_changed",
    "to_json_event",
    "tool_execution_end",
    "tool_execution_start",
    "tool_execution_update",
    "tool_output",
    "turn_end",
    "turn_start",
]

AgentEvent = dict[str, Any]
Message = dict[str, Any]
CompactionReason = Literal["manual", "threshold", "overflow"]

#: A subscriber: called with every event in order; a coroutine is awaited before the run goes
#: on (as Pi awaits its listeners).
EventListener = Callable[[AgentEvent], Awaitable[None] | None]


class Listeners:
    """The subscribers of an event source, told in subscription order."""

    def __init__(self) -> None:
        self._listeners: list[EventListener] = []

    def add(self, listener: EventListener) -> Callable[[], None]:
        """Subscribe ``listener``; returns the function that unsubscribes it."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    async def tell(self, event: AgentEvent) -> None:
        """Call every listener with ``event``, awaiting those that return an awaitable."""
        for listener in list(self._listeners):
            outcome = listener(event)
            if inspect.isawaitable(outcome):
                await outcome


#: Event types pi-lsp emits that Pi has no counterpart for (left out of the JSON mode).
PI_LSP_ONLY_EVENTS = frozenset({"tool_output"})


# --- loop events ---------------------------------------------------------------------------------


def agent_start() -> AgentEvent:
    return {"type": "agent_start"}


def agent_end(messages: Sequence[Message], will_retry: bool | None = None) -> AgentEvent:
    """The end of a run: the messages it added. The session adds ``willRetry``."""
    event: AgentEvent = {"type": "agent_end", "messages": list(messages)}
    if will_retry is not None:
        event["willRetry"] = will_retry
    return event


def turn_start() -> AgentEvent:
    return {"type": "turn_start"}


def turn_end(message: Message, tool_results: Sequence[Message]) -> AgentEvent:
    return {"type": "turn_end", "message": message, "toolResults": list(tool_results)}


def message_start(message: Message) -> AgentEvent:
    return {"type": "message_start", "message": message}


def message_update(message: Message, assistant_event: Mapping[str, Any]) -> AgentEvent:
    """A streaming step of an assistant message: the provider event and the message so far."""
    return {
        "type": "message_update",
        "assistantMessageEvent": dict(assistant_event),
        "message": message,
    }


def message_end(message: Message) -> AgentEvent:
    return {"type": "message_end", "message": message}


def tool_execution_start(tool_call_id: str, tool_name: str, args: Any) -> AgentEvent:
    return {
        "type": "tool_execution_start",
        "toolCallId": tool_call_id,
        "toolName": tool_name,
        "args": args,
    }


def tool_execution_update(
    tool_call_id: str, tool_name: str, args: Any, partial_result: Mapping[str, Any]
) -> AgentEvent:
    return {
        "type": "tool_execution_update",
        "toolCallId": tool_call_id,
        "toolName": tool_name,
        "args": args,
        "partialResult": dict(partial_result),
    }


def tool_execution_end(
    tool_call_id: str, tool_name: str, result: Mapping[str, Any], is_error: bool
) -> AgentEvent:
    return {
        "type": "tool_execution_end",
        "toolCallId": tool_call_id,
        "toolName": tool_name,
        "result": dict(result),
        "isError": is_error,
    }


def tool_output(tool_call_id: str, tool_name: str, delta: str) -> AgentEvent:
    """pi-lsp only: a chunk of a tool's output as it is printed (not throttled, not cut)."""
    return {
        "type": "tool_output",
        "toolCallId": tool_call_id,
        "toolName": tool_name,
        "delta": delta,
    }


# --- session events ------------------------------------------------------------------------------


def agent_settled() -> AgentEvent:
    """Nothing more will run for the last prompt (retries and compactions included)."""
    return {"type": "agent_settled"}


def queue_update(steering: Sequence[str], follow_up: Sequence[str]) -> AgentEvent:
    return {"type": "queue_update", "steering": list(steering), "followUp": list(follow_up)}


def compaction_start(reason: CompactionReason) -> AgentEvent:
    return {"type": "compaction_start", "reason": reason}


def compaction_end(
    reason: CompactionReason,
    result: Mapping[str, Any] | None,
    *,
    aborted: bool,
    will_retry: bool,
    error_message: str | None = None,
) -> AgentEvent:
    """The end of a compaction; ``result`` is left out when there is none (Pi's ``undefined``)."""
    event: AgentEvent = {"type": "compaction_end", "reason": reason}
    if result is not None:
        event["result"] = dict(result)
    event["aborted"] = aborted
    event["willRetry"] = will_retry
    if error_message is not None:
        event["errorMessage"] = error_message
    return event


def auto_retry_start(
    attempt: int, max_attempts: int, delay_ms: int, error_message: str
) -> AgentEvent:
    return {
        "type": "auto_retry_start",
        "attempt": attempt,
        "maxAttempts": max_attempts,
        "delayMs": delay_ms,
        "errorMessage": error_message,
    }


def auto_retry_end(success: bool, attempt: int, final_error: str | None = None) -> AgentEvent:
    event: AgentEvent = {"type": "auto_retry_end", "success": success, "attempt": attempt}
    if final_error is not None:
        event["finalError"] = final_error
    return event


def summarization_retry_scheduled(
    attempt: int, max_attempts: int, delay_ms: int, error_message: str
) -> AgentEvent:
    return {
        "type": "summarization_retry_scheduled",
        "attempt": attempt,
        "maxAttempts": max_attempts,
        "delayMs": delay_ms,
        "errorMessage": error_message,
    }


def summarization_retry_attempt_start(source: Mapping[str, Any]) -> AgentEvent:
    """A retried summary request starts; ``source`` says which summary (e.g. ``{reason}``)."""
    return {"type": "summarization_retry_attempt_start", **source}


def summarization_retry_finished() -> AgentEvent:
    return {"type": "summarization_retry_finished"}


def thinking_level_changed(level: str) -> AgentEvent:
    return {"type": "thinking_level_changed", "level": level}


def entry_appended(entry: Mapping[str, Any]) -> AgentEvent:
    return {"type": "entry_appended", "entry": dict(entry)}


# --- JSON mode -----------------------------------------------------------------------------------


def _json_assistant_event(event: Mapping[str, Any]) -> dict[str, Any]:
    """A provider event without its ``partial`` message; ``toolcall_start`` names its call."""
    reduced = {key: value for key, value in event.items() if key != "partial"}
    if event.get("type") == "toolcall_start":
        partial = event.get("partial")
        content = partial.get("content") if isinstance(partial, Mapping) else None
        index = event.get("contentIndex")
        block = (
            content[index]
            if isinstance(content, list) and isinstance(index, int) and 0 <= index < len(content)
            else None
        )
        if not isinstance(block, Mapping) or block.get("type") != "toolCall":
            raise ValueError(f"toolcall_start content at index {index} is not a tool call")
        reduced["id"] = block.get("id")
        reduced["toolName"] = block.get("name")
    return reduced


def to_json_event(event: Mapping[str, Any]) -> dict[str, Any] | None:
    """The event as ``pi --mode json`` prints it, or None for a pi-lsp-only event.

    ``message_update`` is reduced to ``{type, usage, assistantMessageEvent}`` (no partial
    message anywhere); every other event is printed whole.
    """
    kind = event.get("type")
    if kind in PI_LSP_ONLY_EVENTS:
        return None
    if kind != "message_update":
        return dict(event)
    message = event.get("message")
    if not isinstance(message, Mapping) or message.get("role") != "assistant":
        raise ValueError("message_update message is not an assistant message")
    return {
        "type": "message_update",
        "usage": message.get("usage"),
        "assistantMessageEvent": _json_assistant_event(event.get("assistantMessageEvent") or {}),
    }


def json_line(value: Mapping[str, Any]) -> str:
    """One JSON-mode line (without the newline): the session header or a reduced event."""
    return json_stringify(value)


def json_mode_lines(
    header: Mapping[str, Any] | None, agent_events: Iterable[Mapping[str, Any]]
) -> Iterator[str]:
    """``pi --mode json`` output: the session header line first, then one line per event
    (reduced; pi-lsp-only events left out). A front end that prints as events arrive writes
    ``json_line(header)`` once and then :func:`json_line` of each :func:`to_json_event`."""
    if header is not None:
        yield json_line(header)
    for event in agent_events:
        reduced = to_json_event(event)
        if reduced is not None:
            yield json_line(reduced)
