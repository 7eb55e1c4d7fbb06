"""What the editor receives of a chat: agent events in their ``pi/event`` form, and the answer
a ``pi/chat`` request returns (the last assistant message and its text)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_lsp.server.event_stream import EventStream


def forward_event(stream: EventStream, event: Mapping[str, Any]) -> None:
    """Send one agent event on ``stream`` in its ``pi/event`` form.

    ``message_update`` becomes coalesced ``text_delta`` / ``thinking_delta`` text (other
    streaming steps are dropped: the finished message follows in ``message_end``);
    ``tool_output`` (bash's printed chunks) becomes coalesced ``tool_output`` text;
    ``tool_execution_update`` is dropped (its partial result is that same output);
    ``turn_end`` and ``agent_end`` leave out the messages already sent. Everything else goes
    out as Pi's JSON mode prints it.
    """
    kind = event.get("type")
    if kind == "message_update":
        step = event.get("assistantMessageEvent")
        if isinstance(step, Mapping) and step.get("type") in ("text_delta", "thinking_delta"):
            delta = step.get("delta")
            if isinstance(delta, str):
                stream.emit_text(str(step["type"]), delta, contentIndex=step.get("contentIndex"))
        return
    if kind == "tool_execution_update":
        return
    if kind == "tool_output":
        delta = event.get("delta")
        if isinstance(delta, str):
            stream.emit_text(
                "tool_output",
                delta,
                toolCallId=event.get("toolCallId"),
                toolName=event.get("toolName"),
            )
        return
    if kind == "turn_end":
        results = event.get("toolResults")
        count = len(results) if isinstance(results, list) else 0
        stream.emit({"type": "turn_end", "toolResultCount": count})
        return
    if kind == "agent_end":
        messages = event.get("messages")
        stream.emit(
            {
                "type": "agent_end",
                "willRetry": bool(event.get("willRetry", False)),
                "messageCount": len(messages) if isinstance(messages, list) else 0,
            }
        )
        return
    stream.emit(dict(event))


def last_assistant(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    found: dict[str, Any] | None = None
    for message in reversed(messages):
        if message.get("role") == "assistant":
            found = message
            break
    return found


def text_of(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if not isinstance(content, list):
        return ""
    return "".join(
        str(block.get("text", ""))
        for block in content
        if isinstance(block, Mapping) and block.get("type") == "text"
    )
