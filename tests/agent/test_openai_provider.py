"""The OpenAI-compatible provider over real HTTP: the request it sends, the events it makes of
what the server streams, and every way a stream can fail (spec §13.3, §13.4)."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest

from pi_lsp.agent.model_api import ModelInfo, ModelRequest
from pi_lsp.agent.providers import provider_for
from pi_lsp.agent.providers.errors import (
    is_auth_error,
    is_context_overflow,
    is_retryable_error,
)
from pi_lsp.agent.providers.openai_completions import (
    NO_FINISH_REASON_MESSAGE,
    build_request_body,
    convert_messages,
    resolve_compat,
)
from pi_lsp.agent.providers.partial_json import parse_streaming_json
from pi_lsp.agent.providers.secret import Secret
from pi_lsp.agent.providers.transport import aclose_shared_clients, shared_client
from pi_lsp.tools.base import AbortSignal
from tests.agent.http_fixtures import (
    DROP,
    HOLD,
    LocalHTTPServer,
    RecordedRequest,
    Reply,
    json_reply,
    openai_chunk,
    openai_error_body,
    openai_text_reply,
    openai_tool_calls_reply,
    sse_reply,
)

KEY = Secret("sk-test-0123456789abcdef")
PNG = "iVBORw0KGgo="


def make_model(base_url: str = "http://127.0.0.1:9", **fields: Any) -> ModelInfo:
    values: dict[str, Any] = {
        "id": "gpt-test",
        "provider": "testai",
        "api": "openai-completions",
        "base_url": base_url + "/v1",
        "context_window": 20_000,
        "max_tokens": 4096,
    }
    values.update(fields)
    return ModelInfo(**values)


def user(text: str, timestamp: int = 1) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": timestamp}


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


def tool_call(call_id: str, name: str = "read", **arguments: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def tool_result(call_id: str, *content: dict[str, Any], name: str = "read") -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": list(content),
        "isError": False,
        "timestamp": 3,
    }


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def image(data: str = PNG) -> dict[str, Any]:
    return {"type": "image", "data": data, "mimeType": "image/png"}


def request_for(model: ModelInfo, *messages: dict[str, Any], **fields: Any) -> ModelRequest:
    values: dict[str, Any] = {
        "model": model,
        "system_prompt": "You are a test.",
        "messages": list(messages) or [user("hi")],
        "api_key": KEY,
    }
    values.update(fields)
    return ModelRequest(**values)


async def run(
    request: ModelRequest, signal: AbortSignal | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """All events (deep copies, so ``partial`` is as it was then) and the final message."""
    events = []
    async for event in provider_for(request.model).stream(request, signal):
        events.append(copy.deepcopy(event))
    last = events[-1]
    assert last["type"] in ("done", "error")
    assert [e["type"] for e in events].count("done") + [e["type"] for e in events].count(
        "error"
    ) == 1
    return events, last["message"] if last["type"] == "done" else last["error"]


def types(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


# --- a text answer -----------------------------------------------------------------------------


async def test_text_stream_events_message_and_wire_request(server: LocalHTTPServer) -> None:
    model = make_model(
        server.base_url,
        headers={"X-Team": "blue"},
        cost={"input": 2.0, "output": 8.0, "cacheRead": 0.5, "cacheWrite": 0},
    )
    server.enqueue(openai_text_reply("Hello there!", prompt_tokens=1200, cached_tokens=200))
    request = request_for(model, user("say hello"), max_tokens=3000)
    events, message = await run(request)

    assert types(events) == [
        "start",
        "text_start",
        "text_delta",
        "text_delta",
        "text_delta",
        "text_end",
        "done",
    ]
    assert "".join(e["delta"] for e in events if e["type"] == "text_delta") == "Hello there!"
    assert events[-2]["content"] == "Hello there!"
    assert events[-1]["reason"] == "stop"
    assert list(message) == [
        "role",
        "content",
        "api",
        "provider",
        "model",
        "usage",
        "stopReason",
        "timestamp",
        "responseId",
        "rawStopReason",
    ]
    assert message["content"] == [{"type": "text", "text": "Hello there!"}]
    assert message["usage"]["input"] == 1000
    assert message["usage"]["cacheRead"] == 200
    assert message["usage"]["output"] == 10
    assert message["usage"]["reasoning"] == 0
    assert message["usage"]["totalTokens"] == 1210
    assert message["usage"]["cost"]["total"] == pytest.approx((1000 * 2 + 10 * 8 + 200 * 0.5) / 1e6)
    assert message["responseId"] == "chatcmpl-test"
    assert message["rawStopReason"] == "stop"
    assert message["provider"] == "testai" and message["model"] == "gpt-test"

    (sent,) = server.requests
    assert sent.method == "POST" and sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.headers["x-team"] == "blue"
    assert sent.headers["content-type"] == "application/json"
    body = sent.json()
    assert body == build_request_body(request)
    assert list(body) == [
        "model",
        "messages",
        "stream",
        "stream_options",
        "store",
        "max_completion_tokens",
    ]
    assert body["messages"] == [
        {"role": "system", "content": "You are a test."},
        {"role": "user", "content": [{"type": "text", "text": "say hello"}]},
    ]
    assert body["stream_options"] == {"include_usage": True}
    assert body["store"] is False and body["max_completion_tokens"] == 3000
    # the body is compact JSON with non-ASCII kept, as JSON.stringify writes it
    assert b": " not in sent.body


async def test_non_ascii_and_lone_surrogates_in_the_body(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    server.enqueue(openai_text_reply("ok"))
    await run(request_for(model, user("héllo 😀 \ud800!")))
    assert "héllo 😀 !".encode() in server.requests[0].body


# --- the request body --------------------------------------------------------------------------


def test_body_messages_for_every_role() -> None:
    model = make_model(input=("text", "image"))
    messages = [
        {"role": "user", "content": "plain string", "timestamp": 0},
        {"role": "user", "content": [text("look"), image()], "timestamp": 0},
        assistant(text("Let me "), text("   "), text("check."), model=model),
        assistant(
            tool_call("c1", "read", path="a.txt", offset=2),
            tool_call("c2", "bash", command="echo é"),
            model=model,
            stopReason="toolUse",
        ),
        tool_result("c1", text("line 1"), text("line 2")),
        tool_result("c2", image(), name="bash"),
        user("thanks"),
        assistant(tool_call("c3", "ls"), model=model, stopReason="toolUse"),
        tool_result("c3", name="ls"),
    ]
    body = build_request_body(
        request_for(
            model,
            *messages,
            tools=[
                {"name": "read", "description": "Read a file", "parameters": {"type": "object"}}
            ],
        )
    )
    assert body["messages"] == [
        {"role": "system", "content": "You are a test."},
        {"role": "user", "content": "plain string"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
            ],
        },
        {"role": "assistant", "content": "Let me check."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read", "arguments": '{"path":"a.txt","offset":2}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "bash", "arguments": '{"command":"echo é"}'},
                },
            ],
        },
        {"role": "tool", "content": "line 1\nline 2", "tool_call_id": "c1"},
        {"role": "tool", "content": "(see attached image)", "tool_call_id": "c2"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Attached image(s) from tool result:"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
            ],
        },
        {"role": "user", "content": [{"type": "text", "text": "thanks"}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c3", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "content": "(no tool output)", "tool_call_id": "c3"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read",
                "description": "Read a file",
                "parameters": {"type": "object"},
                "strict": False,
            },
        }
    ]


def test_text_only_model_gets_placeholders_for_images() -> None:
    model = make_model(input=("text",))
    body = build_request_body(
        request_for(
            model,
            {
                "role": "user",
                "content": [text("see"), image(), image(), text("end")],
                "timestamp": 0,
            },
            assistant(tool_call("c1"), model=model, stopReason="toolUse"),
            tool_result("c1", text("Read image file [image/png]"), image()),
        )
    )
    assert body["messages"][1:] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "see"},
                {"type": "text", "text": "(image omitted: model does not support images)"},
                {"type": "text", "text": "end"},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
            ],
        },
        {
            "role": "tool",
            "content": "Read image file [image/png]\n"
            "(tool image omitted: model does not support images)",
            "tool_call_id": "c1",
        },
    ]
    assert "tools" in body and body["tools"] == []  # tool history without active tools


def test_cross_provider_transform() -> None:
    model = make_model()
    other = make_model(id="other-model", provider="elsewhere")
    messages = [
        user("one"),
        # another model's thinking becomes text; its redacted thinking is dropped
        assistant(
            {"type": "thinking", "thinking": "I pondered.", "thinkingSignature": "sig"},
            {"type": "thinking", "thinking": "secret", "thinkingSignature": "x", "redacted": True},
            text("Answer."),
            model=other,
        ),
        # failed and aborted answers are not replayed
        assistant(text("partial"), model=model, stopReason="error", errorMessage="boom"),
        assistant(text("cut"), model=model, stopReason="aborted"),
        # a tool call without result before the next user message
        assistant(tool_call("lost", "bash", command="ls"), model=model, stopReason="toolUse"),
        user("two"),
        # and one at the very end
        assistant(tool_call("last|item-xyz", "ls"), model=other, stopReason="toolUse"),
        {"role": "user", "content": None, "timestamp": 9},
    ]
    body = build_request_body(request_for(model, *messages))
    assert body["messages"][1:] == [
        {"role": "user", "content": [{"type": "text", "text": "one"}]},
        {"role": "assistant", "content": "I pondered.Answer."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "lost",
                    "type": "function",
                    "function": {"name": "bash", "arguments": '{"command":"ls"}'},
                }
            ],
        },
        {"role": "tool", "content": "No result provided", "tool_call_id": "lost"},
        {"role": "user", "content": [{"type": "text", "text": "two"}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "last", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "content": "No result provided", "tool_call_id": "last"},
    ]


def test_same_model_reasoning_is_replayed_in_its_field() -> None:
    model = make_model(reasoning=True)
    messages = [
        user("q"),
        assistant(
            {"type": "thinking", "thinking": "step 1", "thinkingSignature": "reasoning_content"},
            {"type": "thinking", "thinking": "step 2", "thinkingSignature": "reasoning_content"},
            text("A"),
            model=model,
        ),
    ]
    body = build_request_body(request_for(model, *messages, thinking_level="medium"))
    assert body["messages"][0] == {"role": "developer", "content": "You are a test."}
    assert body["messages"][2] == {
        "role": "assistant",
        "content": "A",
        "reasoning_content": "step 1\nstep 2",
    }
    assert body["reasoning_effort"] == "medium"


def test_compat_profiles() -> None:
    mistral = make_model(provider="mistral", reasoning=True)
    body = build_request_body(
        request_for(
            mistral,
            assistant(
                tool_call("call_abc-123"), model=make_model(provider="x"), stopReason="toolUse"
            ),
            tool_result("call_abc-123", text("ok")),
            max_tokens=100,
        )
    )
    assert "store" not in body and body["max_tokens"] == 100
    assert body["messages"][0]["role"] == "system"  # no developer role there
    assert body["messages"][1]["tool_calls"][0]["id"] == "callabc12"
    assert body["messages"][2] == {
        "role": "tool",
        "content": "ok",
        "tool_call_id": "callabc12",
        "name": "read",
    }
    explicit = make_model(
        compat={
            "supportsDeveloperRole": False,
            "supportsUsageInStreaming": False,
            "maxTokensField": "max_tokens",
            "supportsStrictMode": False,
        },
        reasoning=True,
    )
    assert resolve_compat(explicit).supports_developer_role is False
    body = build_request_body(
        request_for(explicit, tools=[{"name": "t", "description": "d", "parameters": {}}])
    )
    assert "stream_options" not in body and "max_tokens" in body
    assert body["messages"][0]["role"] == "system"
    assert "strict" not in body["tools"][0]["function"]
    bridged = make_model(compat={"requiresAssistantAfterToolResult": True})
    messages = convert_messages(
        bridged,
        "",
        [
            assistant(tool_call("c"), model=bridged, stopReason="toolUse"),
            tool_result("c", text("r")),
            user("next"),
        ],
    )
    assert [m["role"] for m in messages] == ["assistant", "tool", "assistant", "user"]
    assert messages[0]["content"] == ""


# --- streaming details -------------------------------------------------------------------------


async def test_tool_call_arguments_stream_in_pieces(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    calls = [
        {"id": "call_a", "name": "read", "arguments": {"path": "src/main.py", "limit": 20}},
        {"id": "call_b", "name": "bash", "arguments": {"command": "ls -la | head"}},
    ]
    server.enqueue(openai_tool_calls_reply(calls, text="Checking."))
    events, message = await run(request_for(model))
    assert message["stopReason"] == "toolUse" and message["rawStopReason"] == "tool_calls"
    assert message["content"] == [
        {"type": "text", "text": "Checking."},
        {"type": "toolCall", "id": "call_a", "name": "read", "arguments": calls[0]["arguments"]},
        {"type": "toolCall", "id": "call_b", "name": "bash", "arguments": calls[1]["arguments"]},
    ]
    deltas = [e for e in events if e["type"] == "toolcall_delta" and e["contentIndex"] == 1]
    seen = [e["partial"]["content"][1]["arguments"] for e in deltas]
    # best effort at every step: the pieces are '{"path"', ': "src/', 'main.py', '", "lim', …
    assert seen == [
        {},
        {},
        {"path": "src/"},
        {"path": "src/main.py"},
        {"path": "src/main.py"},
        {"path": "src/main.py", "limit": 20},
        {"path": "src/main.py", "limit": 20},
    ]
    assert [e["delta"] for e in deltas][:3] == ["", '{"path"', ': "src/']
    ends = [e for e in events if e["type"] == "toolcall_end"]
    assert [e["toolCall"]["id"] for e in ends] == ["call_a", "call_b"]
    assert types(events)[:3] == ["start", "text_start", "text_delta"]
    assert "text_end" in types(events)
    assert all("partialArgs" not in b for b in message["content"])


async def test_reasoning_fields_become_thinking(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url, reasoning=True)
    server.enqueue(
        sse_reply(
            [
                openai_chunk({"role": "assistant", "reasoning_content": "Let me "}),
                openai_chunk({"reasoning_content": "think."}),
                openai_chunk({"content": "Done."}),
                openai_chunk(
                    {},
                    finish_reason="stop",
                    usage={
                        "prompt_tokens": 50,
                        "completion_tokens": 30,
                        "prompt_cache_hit_tokens": 20,
                        "completion_tokens_details": {"reasoning_tokens": 12},
                    },
                ),
                "data: [DONE]\n\n",
            ]
        )
    )
    events, message = await run(request_for(model))
    assert types(events) == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_end",
        "done",
    ]
    assert message["content"] == [
        {"type": "thinking", "thinking": "Let me think.", "thinkingSignature": "reasoning_content"},
        {"type": "text", "text": "Done."},
    ]
    assert message["usage"]["cacheRead"] == 20 and message["usage"]["input"] == 30
    assert message["usage"]["reasoning"] == 12 and message["usage"]["output"] == 30


async def test_usage_with_cache_writes_and_usage_in_the_choice(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 5,
        "prompt_tokens_details": {"cached_tokens": 10, "cache_write_tokens": 30},
    }
    choice_usage = openai_chunk({}, finish_reason="stop")
    choice_usage["choices"][0]["usage"] = usage
    server.enqueue(sse_reply([openai_chunk({"content": "x"}), choice_usage, "data: [DONE]\n\n"]))
    _, message = await run(request_for(model))
    assert {
        k: message["usage"][k] for k in ("input", "cacheRead", "cacheWrite", "totalTokens")
    } == {
        "input": 60,
        "cacheRead": 10,
        "cacheWrite": 30,
        "totalTokens": 105,
    }


async def test_malformed_events_are_skipped(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    server.enqueue(
        sse_reply(
            [
                ": keep-alive comment\n\n",
                openai_chunk({"role": "assistant", "content": "Hel"}),
                "data: {not json at all\n\n",
                "this line is not SSE\n\n",
                "data: [1, 2]\n\n",
                'event: custom\ndata: {"choices": "nope"}\n\n',
                "data:\n\n",
                openai_chunk({"content": "lo"}),
                openai_chunk({}, finish_reason="stop"),
                "data: [DONE]\n\n",
                openai_chunk({"content": " after done is ignored"}),
            ]
        )
    )
    _, message = await run(request_for(model))
    assert message["stopReason"] == "stop"
    assert message["content"] == [{"type": "text", "text": "Hello"}]


async def test_events_split_across_network_chunks_and_crlf(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    first = json.dumps(openai_chunk({"role": "assistant", "content": "Hé"}))
    second = json.dumps(openai_chunk({"content": "llo"}, finish_reason="stop"))
    server.enqueue(
        sse_reply(
            [
                "data: " + first[:25],
                first[25:] + "\n",
                "\n",
                "data: " + second + "\r\n\r\n",
                "data: [DONE]\r\n\r\n",
            ]
        )
    )
    _, message = await run(request_for(model))
    assert message["content"] == [{"type": "text", "text": "Héllo"}]
    assert message["stopReason"] == "stop"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", {}),
        ('{"a', {}),
        ('{"a": "hel', {"a": "hel"}),
        ('{"a": "x", "b": 1', {"a": "x", "b": 1}),
        ('{"a": 12.', {"a": 12}),
        ('{"a": tr', {}),
        ('{"a": [1, {"b": "c', {"a": [1, {"b": "c"}]}),
        ('{"a": "line\\nbreak \\u00e9 \\u00', {"a": "line\nbreak é "}),
        ('{"a": 1}', {"a": 1}),
        ("[1, 2]", {}),
        ("not json", {}),
        ('{"a" 1}', {}),
    ],
)
def test_partial_json(text: str, expected: dict[str, Any]) -> None:
    assert parse_streaming_json(text) == expected


# --- failures ----------------------------------------------------------------------------------


async def test_connection_dropped_mid_stream(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    server.enqueue(
        sse_reply(
            [
                openai_chunk({"role": "assistant", "content": "Partial ans"}),
                openai_chunk(
                    {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "c1",
                                "function": {"name": "bash", "arguments": '{"comm'},
                            }
                        ]
                    }
                ),
                DROP,
            ]
        )
    )
    events, message = await run(request_for(model))
    assert types(events)[0] == "start" and types(events)[-1] == "error"
    assert events[-1]["reason"] == "error"
    assert message["stopReason"] == "error"
    assert "terminated" in message["errorMessage"]
    assert message["content"][0] == {"type": "text", "text": "Partial ans"}
    assert message["content"][1]["name"] == "bash"
    assert is_retryable_error(message)
    assert not is_context_overflow(message, model.context_window)


async def test_stream_without_finish_reason(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    server.enqueue(sse_reply([openai_chunk({"content": "Hi"}), "data: [DONE]\n\n"]))
    events, message = await run(request_for(model))
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == NO_FINISH_REASON_MESSAGE
    assert types(events)[-2] == "text_end"
    assert is_retryable_error(message)


@pytest.mark.parametrize(
    ("reason", "stop", "error"),
    [
        ("length", "length", None),
        ("end", "stop", None),
        ("function_call", "toolUse", None),
        ("content_filter", "error", "Provider finish_reason: content_filter"),
        ("weird_reason", "error", "Provider finish_reason: weird_reason"),
    ],
)
async def test_finish_reasons(
    server: LocalHTTPServer, reason: str, stop: str, error: str | None
) -> None:
    model = make_model(server.base_url)
    server.enqueue(openai_text_reply("abc", finish_reason=reason))
    _, message = await run(request_for(model))
    assert message["stopReason"] == stop
    assert message["rawStopReason"] == reason
    assert message.get("errorMessage") == error


async def test_error_object_inside_the_stream(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    server.enqueue(
        sse_reply(
            [
                openai_chunk({"content": "a"}),
                {"error": {"message": "The server is overloaded", "type": "server_error"}},
                HOLD,
            ]
        )
    )
    _, message = await run(request_for(model))
    assert message["errorMessage"] == "The server is overloaded"
    assert is_retryable_error(message)


async def test_rate_limit_with_retry_after(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    body = openai_error_body(
        "Rate limit reached for gpt-test in organization org-x on tokens per min.",
        kind="tokens",
        code="rate_limit_exceeded",
    )
    server.enqueue(json_reply(429, body, {"retry-after": "7"}))
    events, message = await run(request_for(model))
    assert types(events) == ["error"]  # no start: nothing was accepted
    assert events[0]["retryAfterMs"] == 7000
    assert message["errorMessage"] == "429: " + json.dumps(body["error"], separators=(",", ":"))
    assert message["content"] == [] and message["usage"]["totalTokens"] == 0
    assert is_retryable_error(message)
    assert "retryAfterMs" not in message


async def test_quota_errors_are_not_retried(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    body = openai_error_body(
        "You exceeded your current quota, please check your plan and billing details.",
        kind="insufficient_quota",
        code="insufficient_quota",
    )
    server.enqueue(json_reply(429, body))
    _, message = await run(request_for(model))
    assert message["errorMessage"].startswith("429: ")
    assert not is_retryable_error(message)


async def test_context_overflow_as_pi_recorded_it(server: LocalHTTPServer) -> None:
    """The exact body and errorMessage of the golden case overflow-compact-retry."""
    model = make_model(server.base_url)
    text_ = (
        "This model's maximum context length is 20000 tokens. However, your messages resulted "
        "in 25000 tokens. Please reduce the length of the messages."
    )
    body = {
        "error": {
            "message": text_,
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        }
    }
    server.enqueue(json_reply(400, body))
    _, message = await run(request_for(model))
    assert message["errorMessage"] == (
        '400: {"message":"This model\'s maximum context length is 20000 tokens. However, your '
        'messages resulted in 25000 tokens. Please reduce the length of the messages.",'
        '"type":"invalid_request_error","code":"context_length_exceeded"}'
    )
    assert is_context_overflow(message, model.context_window)
    assert not is_retryable_error(message)


async def test_error_body_without_json_and_without_body(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    server.enqueue(
        json_reply(502, "<html>Bad gateway</html>", raw=True),
        Reply(status=413, headers=[("Content-Type", "text/plain")], parts=[]),
    )
    server.enqueue(json_reply(200, {"error": {"message": "model not found"}}))
    _, first = await run(request_for(model))
    _, second = await run(request_for(model))
    _, third = await run(request_for(model))
    assert third["errorMessage"] == '200: {"message":"model not found"}'  # not an event stream
    assert first["errorMessage"] == "502: <html>Bad gateway</html>"
    assert is_retryable_error(first)
    assert second["errorMessage"] == "413 status code (no body)"
    assert is_context_overflow(second)


async def test_auth_failure_never_leaks_the_key(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    body = openai_error_body(f"Incorrect API key provided: {KEY}.", kind="invalid_request_error")
    server.enqueue(json_reply(401, body))
    events, message = await run(request_for(model))
    assert str(KEY) not in json.dumps(events)
    assert "***" in message["errorMessage"]
    assert is_auth_error(message) and not is_retryable_error(message)
    request = request_for(model)
    assert str(KEY) not in repr(request)


async def test_connection_refused() -> None:
    async with LocalHTTPServer() as closed:
        base = closed.base_url
    model = make_model(base)
    try:
        events, message = await run(request_for(model))
    finally:
        await aclose_shared_clients()
    assert types(events) == ["error"]
    assert message["errorMessage"].startswith("Connection error")
    assert is_retryable_error(message)


# --- abort -------------------------------------------------------------------------------------


async def test_abort_mid_stream_closes_the_connection(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    server.enqueue(sse_reply([openai_chunk({"role": "assistant", "content": "Hel"}), HOLD]))
    signal = AbortSignal()
    seen: list[str] = []
    final: dict[str, Any] = {}
    async for event in provider_for(model).stream(request_for(model), signal):
        seen.append(event["type"])
        if event["type"] == "text_delta":
            signal.abort()
        if event["type"] == "error":
            final = event
    assert seen == ["start", "text_start", "text_delta", "error"]
    assert final["reason"] == "aborted"
    assert final["error"]["stopReason"] == "aborted"
    assert final["error"]["errorMessage"] == "Request was aborted"
    assert final["error"]["content"] == [{"type": "text", "text": "Hel"}]
    await asyncio.wait_for(server.client_gone.wait(), timeout=10)


async def test_abort_before_the_response(server: LocalHTTPServer) -> None:
    arrived = asyncio.Event()
    never = asyncio.Event()

    async def stall(request: RecordedRequest) -> Reply:
        arrived.set()
        await never.wait()
        return openai_text_reply("late")

    server.handler = stall
    model = make_model(server.base_url)
    signal = AbortSignal()

    async def consume() -> list[dict[str, Any]]:
        return [event async for event in provider_for(model).stream(request_for(model), signal)]

    task = asyncio.create_task(consume())
    await asyncio.wait_for(arrived.wait(), timeout=10)
    signal.abort()
    events = await asyncio.wait_for(task, timeout=10)
    assert types(events) == ["error"]
    assert events[0]["reason"] == "aborted"


async def test_already_aborted_signal_sends_nothing(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    signal = AbortSignal()
    signal.abort()
    events, message = await run(request_for(model), signal)
    assert types(events) == ["error"] and message["stopReason"] == "aborted"
    assert server.requests == []


async def test_consumer_may_stop_early(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    server.enqueue(sse_reply([openai_chunk({"content": "a"}), HOLD]))
    stream = provider_for(model).stream(request_for(model))
    async for event in stream:
        if event["type"] == "text_delta":
            break
    await stream.aclose()  # type: ignore[attr-defined]
    await asyncio.wait_for(server.client_gone.wait(), timeout=10)


# --- clients -----------------------------------------------------------------------------------


async def test_one_client_per_base_url_and_keep_alive(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    assert shared_client(model.base_url) is shared_client(model.base_url + "/")
    assert shared_client(model.base_url) is not shared_client("http://127.0.0.1:1/v1")
    assert provider_for(model) is provider_for(make_model(server.base_url, id="other"))
    server.enqueue(openai_text_reply("one"), openai_text_reply("two"))
    _, first = await run(request_for(model))
    _, second = await run(request_for(model))
    assert first["content"][0]["text"] == "one" and second["content"][0]["text"] == "two"
    assert len(server.requests) == 2
