"""The Anthropic Messages provider over real HTTP (spec §13.5): body, events, failures."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest

from pi_lsp.agent.model_api import ModelInfo, ModelRequest
from pi_lsp.agent.providers import provider_for
from pi_lsp.agent.providers.anthropic_messages import (
    ANTHROPIC_VERSION,
    NO_MESSAGE_STOP_MESSAGE,
    build_request_body,
)
from pi_lsp.agent.providers.errors import (
    anthropic_error_message,
    is_context_overflow,
    is_retryable_error,
)
from pi_lsp.agent.providers.secret import Secret
from pi_lsp.tools.base import AbortSignal
from tests.agent.http_fixtures import (
    DROP,
    HOLD,
    LocalHTTPServer,
    anthropic_events,
    anthropic_text_reply,
    anthropic_tool_reply,
    json_reply,
    sse_reply,
)

KEY = Secret("sk-ant-api03-testkey-0123456789")
PNG = "iVBORw0KGgo="


def make_model(base_url: str = "http://127.0.0.1:9", **fields: Any) -> ModelInfo:
    values: dict[str, Any] = {
        "id": "claude-test",
        "provider": "anthropic",
        "api": "anthropic-messages",
        "base_url": base_url,
        "context_window": 200_000,
        "max_tokens": 32_000,
        "input": ("text", "image"),
    }
    values.update(fields)
    return ModelInfo(**values)


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def assistant(*blocks: dict[str, Any], model: ModelInfo, **fields: Any) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": list(blocks),
        "api": model.api,
        "provider": model.provider,
        "model": model.id,
        "usage": {},
        "stopReason": "stop",
        "timestamp": 2,
    }
    message.update(fields)
    return message


def result(call_id: str, *content: dict[str, Any], is_error: bool = False) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": "read",
        "content": list(content),
        "isError": is_error,
        "timestamp": 3,
    }


def request_for(model: ModelInfo, *messages: dict[str, Any], **fields: Any) -> ModelRequest:
    values: dict[str, Any] = {
        "model": model,
        "system_prompt": "Be brief.",
        "messages": list(messages) or [user("hi")],
        "api_key": KEY,
    }
    values.update(fields)
    return ModelRequest(**values)


async def run(
    request: ModelRequest, signal: AbortSignal | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    events = [
        copy.deepcopy(event) async for event in provider_for(request.model).stream(request, signal)
    ]
    last = events[-1]
    return events, last["message"] if last["type"] == "done" else last["error"]


def types(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


async def test_thinking_and_text(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url, reasoning=True, cost={"input": 3.0, "output": 15.0})
    server.enqueue(
        anthropic_text_reply(
            "Paris is the capital.", thinking="The user asks…", input_tokens=50, cache_read=7
        )
    )
    request = request_for(model, user("capital of France?"), thinking_level="low", max_tokens=4000)
    events, message = await run(request)
    assert types(events)[:5] == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_end",
        "text_start",
    ]
    assert types(events)[-2:] == ["text_end", "done"]
    assert message["content"] == [
        {"type": "thinking", "thinking": "The user asks…", "thinkingSignature": "sig-abc"},
        {"type": "text", "text": "Paris is the capital."},
    ]
    assert message["stopReason"] == "stop" and message["rawStopReason"] == "end_turn"
    assert message["responseId"] == "msg_test"
    usage = message["usage"]
    assert (usage["input"], usage["output"], usage["cacheRead"], usage["cacheWrite"]) == (
        50,
        10,
        7,
        0,
    )
    assert usage["totalTokens"] == 67
    assert usage["cost"]["total"] == pytest.approx((50 * 3 + 10 * 15) / 1e6)

    (sent,) = server.requests
    assert sent.path == "/v1/messages?beta=true"
    assert sent.headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"  # budget thinking
    assert sent.headers["x-api-key"] == str(KEY)
    assert sent.headers["anthropic-version"] == ANTHROPIC_VERSION
    assert "authorization" not in sent.headers
    body = sent.json()
    assert body == build_request_body(request)
    assert list(body) == ["model", "messages", "max_tokens", "stream", "system", "thinking"]
    assert body["system"] == [
        {"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}
    ]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048, "display": "summarized"}
    assert body["max_tokens"] == 6048
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "capital of France?",
                    "cache_control": {"type": "ephemeral"},
                }
            ],
        }
    ]


def test_body_for_every_role() -> None:
    model = make_model()
    other = make_model(id="gpt-x", provider="openai", api="openai-completions")
    messages = [
        user("look"),
        {
            "role": "user",
            "content": [
                {"type": "image", "data": PNG, "mimeType": "image/png"},
                {"type": "text", "text": "  "},
            ],
            "timestamp": 1,
        },
        assistant(
            {"type": "thinking", "thinking": "signed", "thinkingSignature": "SIG"},
            {"type": "thinking", "thinking": "unsigned", "thinkingSignature": ""},
            {"type": "thinking", "thinking": "", "thinkingSignature": "opaque", "redacted": True},
            {"type": "text", "text": "Reading."},
            {"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "a"}},
            {"type": "toolCall", "id": "t2", "name": "read", "arguments": {"path": "b"}},
            model=model,
            stopReason="toolUse",
        ),
        result("t1", {"type": "text", "text": "A1"}, {"type": "text", "text": "A2"}),
        result("t2", {"type": "image", "data": PNG, "mimeType": "image/png"}, is_error=True),
        assistant(
            {"type": "thinking", "thinking": "foreign thought", "thinkingSignature": "reasoning"},
            {"type": "toolCall", "id": "call|weird/id", "name": "ls", "arguments": {}},
            model=other,
            stopReason="toolUse",
        ),
        result("call|weird/id"),
    ]
    tools = [
        {
            "name": "read",
            "description": "Read a file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
                "additionalProperties": False,
            },
        }
    ]
    body = build_request_body(request_for(model, *messages, tools=tools))
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "look"}]},
        {
            "role": "user",
            "content": [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": PNG},
                }
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "signed", "signature": "SIG"},
                {"type": "text", "text": "unsigned"},
                {"type": "redacted_thinking", "data": "opaque"},
                {"type": "text", "text": "Reading."},
                {"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "a"}},
                {"type": "tool_use", "id": "t2", "name": "read", "input": {"path": "b"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": "A1\nA2",
                    "is_error": False,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "t2",
                    "content": [
                        {"type": "text", "text": "(see attached image)"},
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/png", "data": PNG},
                        },
                    ],
                    "is_error": True,
                },
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "foreign thought"},
                {"type": "tool_use", "id": "call_weird_id", "name": "ls", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_weird_id",
                    "content": "",  # an empty result is sent empty (Pi 0.85)
                    "is_error": False,
                    "cache_control": {"type": "ephemeral"},
                }
            ],
        },
    ]
    assert body["tools"] == [
        {
            "name": "read",
            "description": "Read a file",
            "eager_input_streaming": True,
            "input_schema": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
            "cache_control": {"type": "ephemeral"},
        }
    ]
    assert "thinking" not in body and body["max_tokens"] == 32_000


def test_thinking_budget_never_exceeds_the_model_limit() -> None:
    model = make_model(reasoning=True, max_tokens=8000)
    body = build_request_body(request_for(model, max_tokens=8000, thinking_level="high"))
    assert body["max_tokens"] == 8000
    assert body["thinking"] == {
        "type": "enabled",
        "budget_tokens": 8000 - 1024,
        "display": "summarized",
    }
    adaptive = make_model(
        id="claude-opus-4-6",
        reasoning=True,
        compat={"forceAdaptiveThinking": True},
        thinking_level_map={"max": "max"},
    )
    body = build_request_body(request_for(adaptive, thinking_level="max"))
    assert body["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert body["output_config"] == {"effort": "max"}
    body = build_request_body(request_for(adaptive, thinking_level="minimal"))
    assert body["output_config"] == {"effort": "low"}
    assert build_request_body(request_for(adaptive))["thinking"] == {"type": "disabled"}
    no_off = make_model(reasoning=True, thinking_level_map={"off": None})
    assert "thinking" not in build_request_body(request_for(no_off))


async def test_tool_use_streams_arguments(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    calls = [{"id": "toolu_1", "name": "bash", "arguments": {"command": "git status --short"}}]
    server.enqueue(anthropic_tool_reply(calls))
    events, message = await run(request_for(model))
    assert message["stopReason"] == "toolUse"
    assert message["content"] == [
        {"type": "toolCall", "id": "toolu_1", "name": "bash", "arguments": calls[0]["arguments"]}
    ]
    partials = [
        e["partial"]["content"][0]["arguments"] for e in events if e["type"] == "toolcall_delta"
    ]
    # pieces: '{"comm', 'and": ', '"git s', …
    assert partials[:3] == [{}, {}, {"command": "git s"}]
    assert partials[-1] == calls[0]["arguments"]
    assert types(events)[-2:] == ["toolcall_end", "done"]


@pytest.mark.parametrize(
    ("reason", "stop", "error"),
    [
        ("max_tokens", "length", None),
        ("pause_turn", "stop", None),
        ("stop_sequence", "stop", None),
        ("refusal", "error", "The model refused to complete the request"),
        ("sensitive", "error", "Provider stopped with: sensitive"),
        ("brand_new", "error", "Unhandled stop reason: brand_new"),
    ],
)
async def test_stop_reasons(
    server: LocalHTTPServer, reason: str, stop: str, error: str | None
) -> None:
    model = make_model(server.base_url)
    server.enqueue(anthropic_text_reply("x", stop_reason=reason))
    _, message = await run(request_for(model))
    assert message["stopReason"] == stop and message.get("errorMessage") == error


async def test_prompt_too_long_is_an_overflow(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    body = {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "prompt is too long: 213462 tokens > 200000 maximum",
        },
    }
    server.enqueue(json_reply(400, body, {"request-id": "req_1"}))
    events, message = await run(request_for(model))
    assert types(events) == ["error"]
    assert message["errorMessage"] == (
        '400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too '
        'long: 213462 tokens > 200000 maximum"}}'
    )
    assert is_context_overflow(message, model.context_window)
    assert not is_retryable_error(message)


async def test_overloaded_http_and_in_stream(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    server.enqueue(
        json_reply(529, overloaded, {"retry-after": "3"}),
        sse_reply(
            anthropic_events(
                (
                    "message_start",
                    {
                        "type": "message_start",
                        "message": {"id": "m", "usage": {"input_tokens": 5, "output_tokens": 0}},
                    },
                ),
                ("error", overloaded),
                HOLD,
            )
        ),
    )
    events, first = await run(request_for(model))
    assert events[-1]["retryAfterMs"] == 3000
    assert first["errorMessage"] == (
        '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    )
    assert is_retryable_error(first)
    _, second = await run(request_for(model))
    assert second["errorMessage"] == json.dumps(overloaded)  # the event's data as sent
    assert second["usage"]["input"] == 5
    assert is_retryable_error(second)


async def test_dropped_connection_and_missing_stop(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    start = (
        "message_start",
        {"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 9}}},
    )
    block = (
        "content_block_start",
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    )
    delta = (
        "content_block_delta",
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "Half"},
        },
    )
    server.enqueue(
        sse_reply(anthropic_events(start, block, delta, DROP)),
        sse_reply(anthropic_events(start, block, delta, "event: bogus\ndata: {oops\n\n")),
    )
    _, dropped = await run(request_for(model))
    assert dropped["stopReason"] == "error" and "terminated" in dropped["errorMessage"]
    assert dropped["content"] == [{"type": "text", "text": "Half"}]
    assert is_retryable_error(dropped)
    _, unfinished = await run(request_for(model))
    assert unfinished["errorMessage"] == NO_MESSAGE_STOP_MESSAGE
    assert is_retryable_error(unfinished)


async def test_abort(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    reply = anthropic_text_reply("never finished")
    server.enqueue(sse_reply([*list(reply.parts)[:4], HOLD]))
    signal = AbortSignal()
    seen = []
    async for event in provider_for(model).stream(request_for(model), signal):
        seen.append(event["type"])
        if event["type"] == "text_delta":
            signal.abort()
        last = event
    assert seen[-1] == "error" and last["reason"] == "aborted"
    assert last["error"]["errorMessage"] == "Request was aborted"
    await asyncio.wait_for(server.client_gone.wait(), timeout=10)
    assert json.dumps(last["error"]).find(str(KEY)) == -1


def test_http_error_texts_are_the_sdks() -> None:
    """``{status} {text}`` as the Anthropic SDK writes it, which Pi shows (case http-400)."""
    assert anthropic_error_message(429, b"") == "429 status code (no body)"
    assert anthropic_error_message(500, b"upstream exploded") == "500 upstream exploded"
    assert anthropic_error_message(502, b'{"message": "bad gateway"}') == "502 bad gateway"
    assert anthropic_error_message(400, b'{"type": "error", "error": {"message": "x"}}') == (
        '400 {"type":"error","error":{"message":"x"}}'
    )
    assert anthropic_error_message(503, b"null") == "503 null"


async def test_an_unreadable_event_ends_the_stream(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    start = {"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 3}}}
    server.enqueue(
        sse_reply(anthropic_events(("message_start", start), b"event: message_delta\ndata: {x\n\n"))
    )
    _, message = await run(request_for(model))
    assert message["stopReason"] == "error"
    assert message["errorMessage"].startswith("Could not parse Anthropic SSE event message_delta")
    assert message["usage"]["input"] == 3 and message["usage"]["cacheWrite1h"] == 0
