"""The agent loop (spec §12): turns, streaming, tool execution, queues, abort, events.

Driven through :class:`~pi_lsp.agent.agent_core.Agent` with a scripted in-process provider;
tools are the real built-ins (bash runs real commands in a temporary folder).
"""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.agent import events, loop
from pi_lsp.agent.agent_core import Agent, AgentBusyError
from pi_lsp.agent.events import to_json_event
from pi_lsp.agent.loop import (
    AgentContext,
    LoopConfig,
    NextTurn,
    TurnSnapshot,
    run_agent_loop,
    run_agent_loop_continue,
)
from pi_lsp.agent.output_budget import estimate_request_tokens, request_max_tokens
from pi_lsp.agent.tool_runner import (
    AfterToolCallContext,
    AfterToolCallResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
    truncated_call_message,
)
from pi_lsp.js.json import json_stringify
from pi_lsp.tools.base import ToolContext
from tests.agent.scripted_provider import ORACLE_MODEL, ScriptedProvider, oracle_model

Event = dict[str, Any]


def bash(command: str, call_id: str | None = None) -> dict[str, Any]:
    call: dict[str, Any] = {"name": "bash", "arguments": {"command": command}}
    if call_id is not None:
        call["id"] = call_id
    return call


class Harness:
    def __init__(self, script: list[dict[str, Any]], cwd: Path, **options: Any) -> None:
        self.provider = ScriptedProvider(script)
        self.events: list[Event] = []
        options.setdefault("tools", ("read", "bash"))
        self.agent = Agent(
            provider=self.provider,
            model=options.pop("model", ORACLE_MODEL),
            tool_context=ToolContext(cwd=cwd),
            system_prompt="You are a test.",
            **options,
        )
        self.agent.subscribe(self.events.append)

    def types(self, *, updates: bool = False) -> list[str]:
        skip = set() if updates else {"message_update", "tool_execution_update", "tool_output"}
        return [e["type"] for e in self.events if e["type"] not in skip]

    def of(self, kind: str) -> list[Event]:
        return [e for e in self.events if e["type"] == kind]


def roles(messages: list[dict[str, Any]]) -> list[str]:
    return [m["role"] for m in messages]


# --- one response --------------------------------------------------------------------------------


async def test_a_text_answer(tmp_path: Path) -> None:
    h = Harness(
        [{"text": "x" * 90, "usage": {"prompt_tokens": 50, "completion_tokens": 5}}], tmp_path
    )
    await h.agent.prompt("hello")
    assert h.types() == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "message_end",
        "turn_end",
        "agent_end",
    ]
    updates = [e["assistantMessageEvent"]["type"] for e in h.of("message_update")]
    assert updates == ["text_start", "text_delta", "text_delta", "text_delta", "text_end"]
    start = h.of("message_start")[1]["message"]
    assert start["stopReason"] == "pending"  # a shallow copy, as in Pi: stop reason of then
    answer = h.agent.state.messages[-1]
    assert answer["content"] == [{"type": "text", "text": "x" * 90}]
    assert answer["usage"]["totalTokens"] == 55
    assert roles(h.agent.state.messages) == ["user", "assistant"]
    assert h.of("agent_end")[0]["messages"] == h.agent.state.messages
    request = h.provider.requests[0]
    assert request.system_prompt == "You are a test."
    assert [t["name"] for t in request.tools] == ["read", "bash"]
    assert roles(request.messages) == ["user"]


async def test_an_error_answer_ends_the_run(tmp_path: Path) -> None:
    h = Harness([{"error": 400, "message": "bad request"}], tmp_path)
    await h.agent.prompt("hello")
    assert h.types()[-4:] == ["message_start", "message_end", "turn_end", "agent_end"]
    failed = h.agent.state.messages[-1]
    assert failed["stopReason"] == "error"
    assert failed["errorMessage"].startswith('400: {"message":"bad request"')
    assert h.agent.state.error_message == failed["errorMessage"]
    assert len(h.provider.requests) == 1


async def test_a_provider_that_raises_gives_an_error_answer(tmp_path: Path) -> None:
    h = Harness([{"raise": "socket closed"}], tmp_path)
    await h.agent.prompt("hello")
    failed = h.agent.state.messages[-1]
    assert (failed["stopReason"], failed["errorMessage"]) == ("error", "socket closed")
    assert h.types()[-2:] == ["turn_end", "agent_end"]


# --- tools ---------------------------------------------------------------------------------------


async def test_a_tool_call_then_the_answer(tmp_path: Path) -> None:
    h = Harness([{"tool_calls": [bash("echo hi")]}, {"text": "done"}], tmp_path)
    await h.agent.prompt("run it")
    assert h.types() == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "message_end",
        "tool_execution_start",
        "tool_execution_end",
        "message_start",
        "message_end",
        "turn_end",
        "turn_start",
        "message_start",
        "message_end",
        "turn_end",
        "agent_end",
    ]
    end = h.of("tool_execution_end")[0]
    assert end["toolCallId"] == "call_0_0" and end["isError"] is False
    assert end["result"] == {"content": [{"type": "text", "text": "hi\n"}]}
    result = h.agent.state.messages[2]
    assert list(result) == ["role", "toolCallId", "toolName", "content", "isError", "timestamp"]
    assert h.of("turn_end")[0]["toolResults"] == [result]
    assert roles(h.provider.requests[1].messages) == ["user", "assistant", "toolResult"]
    deltas = "".join(e["delta"] for e in h.of("tool_output"))
    assert deltas == "hi\n"


async def test_unknown_inactive_and_invalid_calls_are_error_results(tmp_path: Path) -> None:
    calls = [
        {"name": "nope", "arguments": {}},
        {"name": "grep", "arguments": {"pattern": "x"}},  # built-in, but not active
        {"name": "bash", "arguments": {}},
    ]
    h = Harness([{"tool_calls": calls}], tmp_path)
    await h.agent.prompt("go")
    results = [m for m in h.agent.state.messages if m["role"] == "toolResult"]
    texts = [r["content"][0]["text"] for r in results]
    assert texts[:2] == ["Tool nope not found", "Tool grep not found"]
    assert "command" in texts[2]
    assert all(r["isError"] and r["details"] == {} for r in results)


async def test_parallel_calls_append_results_in_call_order(tmp_path: Path) -> None:
    release = tmp_path / "release"
    slow = bash(f"while [ ! -e {release} ]; do sleep 0.01; done; echo slow")
    fast = bash("echo fast")
    h = Harness([{"tool_calls": [slow, fast]}], tmp_path)

    def release_slow_after_fast(event: Event) -> None:
        if event["type"] == "tool_execution_end" and event["toolCallId"] == "call_0_1":
            release.touch()

    h.agent.subscribe(release_slow_after_fast)
    await asyncio.wait_for(h.agent.prompt("go"), 10)
    kinds = [e["type"] for e in h.events if e["type"].startswith("tool_execution_")]
    assert kinds[:2] == ["tool_execution_start", "tool_execution_start"]  # both before any end
    ends = [e["toolCallId"] for e in h.of("tool_execution_end")]
    assert ends == ["call_0_1", "call_0_0"]  # the second call finished first
    results = [m for m in h.agent.state.messages if m["role"] == "toolResult"]
    assert [r["toolCallId"] for r in results] == ["call_0_0", "call_0_1"]
    assert [r["content"][0]["text"] for r in results] == ["slow\n", "fast\n"]


async def test_sequential_calls_run_one_after_the_other(tmp_path: Path) -> None:
    calls = [bash("echo one > f.txt"), bash("cat f.txt")]
    h = Harness([{"tool_calls": calls}], tmp_path, tool_execution="sequential")
    await h.agent.prompt("go")
    kinds = [e["type"] for e in h.events if e["type"].startswith(("tool_execution_", "message_"))]
    kinds = [k for k in kinds if k not in ("message_update", "tool_execution_update")]
    assert kinds[4:12] == [
        "tool_execution_start",
        "tool_execution_end",
        "message_start",
        "message_end",
        "tool_execution_start",
        "tool_execution_end",
        "message_start",
        "message_end",
    ]
    assert h.agent.state.messages[3]["content"][0]["text"] == "one\n"


async def test_calls_of_a_cut_off_answer_are_not_run(tmp_path: Path) -> None:
    target = tmp_path / "created"
    item = {"tool_calls": [bash(f"touch {target}")], "finish_reason": "length"}
    h = Harness([item, {"text": "ok"}], tmp_path)
    await h.agent.prompt("go")
    assert not target.exists()
    result = h.agent.state.messages[2]
    assert result["isError"] is True
    assert result["content"] == [{"type": "text", "text": truncated_call_message("bash")}]
    assert truncated_call_message("bash").startswith(
        'Tool call "bash" was not executed: the response hit the output token limit'
    )
    assert len(h.provider.requests) == 2  # the run goes on so the model can re-issue the call


async def test_tool_updates_become_events(tmp_path: Path) -> None:
    h = Harness([{"tool_calls": [bash("echo a; sleep 0.25; echo b")]}], tmp_path)
    await h.agent.prompt("go")
    updates = h.of("tool_execution_update")
    assert updates and updates[0]["partialResult"] == {"content": []}
    assert all(
        u["toolCallId"] == "call_0_0" and u["args"] == {"command": "echo a; sleep 0.25; echo b"}
        for u in updates
    )
    last = updates[-1]["partialResult"]["content"][0]["text"]
    assert last == "a\nb\n"
    order = [e["type"] for e in h.events]
    assert order.index("tool_execution_end") > max(
        i for i, kind in enumerate(order) if kind == "tool_execution_update"
    )


async def test_hooks_block_replace_and_terminate(tmp_path: Path) -> None:
    seen: list[str] = []

    async def before(ctx: BeforeToolCallContext) -> BeforeToolCallResult | None:
        seen.append(ctx.args["command"])
        if "forbidden" in ctx.args["command"]:
            return BeforeToolCallResult(block=True, reason="not allowed", terminate=True)
        return None

    async def after(ctx: AfterToolCallContext) -> AfterToolCallResult:
        return AfterToolCallResult(content=[{"type": "text", "text": "replaced"}], terminate=True)

    h = Harness(
        [{"tool_calls": [bash("echo fine"), bash("echo forbidden")]}],
        tmp_path,
        before_tool_call=before,
        after_tool_call=after,
    )
    await h.agent.prompt("go")
    results = [m for m in h.agent.state.messages if m["role"] == "toolResult"]
    # a blocked call never runs, so the after-hook only sees the other one
    assert [r["content"][0]["text"] for r in results] == ["replaced", "not allowed"]
    assert seen == ["echo fine", "echo forbidden"]
    # every result asked to terminate: no further request
    assert len(h.provider.requests) == 1
    assert h.types()[-2:] == ["turn_end", "agent_end"]


async def test_a_blocked_call_alone_does_not_terminate(tmp_path: Path) -> None:
    async def before(ctx: BeforeToolCallContext) -> BeforeToolCallResult:
        return BeforeToolCallResult(block=True)

    h = Harness(
        [{"tool_calls": [bash("echo x")]}, {"text": "ok"}], tmp_path, before_tool_call=before
    )
    await h.agent.prompt("go")
    result = h.agent.state.messages[2]
    assert result["content"][0]["text"] == "Tool execution was blocked"
    assert len(h.provider.requests) == 2


# --- queues and the next-turn hook ---------------------------------------------------------------


async def test_steering_is_delivered_after_the_tool_batch(tmp_path: Path) -> None:
    h = Harness([{"tool_calls": [bash("echo x")]}, {"text": "answer"}], tmp_path)

    def steer_on_tool(event: Event) -> None:
        if event["type"] == "tool_execution_start":
            h.agent.steer(
                {"role": "user", "content": [{"type": "text", "text": "also this"}], "timestamp": 1}
            )

    h.agent.subscribe(steer_on_tool)
    await h.agent.prompt("go")
    assert roles(h.agent.state.messages) == ["user", "assistant", "toolResult", "user", "assistant"]
    assert roles(h.provider.requests[1].messages) == ["user", "assistant", "toolResult", "user"]


async def test_follow_ups_wait_until_the_run_would_stop(tmp_path: Path) -> None:
    h = Harness([{"text": "first"}, {"text": "second"}], tmp_path)
    for text in ("one", "two"):
        h.agent.follow_up(
            {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}
        )
    await h.agent.prompt("go")
    texts = [m["content"][0]["text"] for m in h.agent.state.messages]
    assert texts == ["go", "first", "one", "second", "two", "ok"]
    assert h.types().count("agent_start") == 1
    assert h.types().count("turn_start") == 3


async def test_all_mode_delivers_every_queued_message_at_once(tmp_path: Path) -> None:
    h = Harness([{"text": "first"}], tmp_path, follow_up_mode="all")
    for text in ("one", "two"):
        h.agent.follow_up(
            {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}
        )
    await h.agent.prompt("go")
    assert [m["role"] for m in h.provider.requests[1].messages] == [
        "user",
        "assistant",
        "user",
        "user",
    ]


async def test_prepare_next_turn_runs_before_every_request_but_the_first(tmp_path: Path) -> None:
    calls: list[int] = []

    async def prepare(turn: TurnSnapshot) -> NextTurn:
        calls.append(len(turn.context.messages))
        context = AgentContext("new prompt", turn.context.messages, turn.context.tools)
        return NextTurn(context=context, model=oracle_model(context_window=50_000))

    h = Harness(
        [{"tool_calls": [bash("echo x")]}, {"text": "done"}], tmp_path, prepare_next_turn=prepare
    )
    await h.agent.prompt("go")
    assert calls == [3]  # once: after the tool batch, not before the first request
    second = h.provider.requests[1]
    assert second.system_prompt == "new prompt" and second.model.context_window == 50_000
    order = h.types()
    assert order[order.index("turn_end") + 1] == "turn_start"


async def test_prompt_while_running_is_refused(tmp_path: Path) -> None:
    h = Harness([{"hang": True, "text": "partial"}], tmp_path)
    task = asyncio.create_task(h.agent.prompt("go"))
    await h.provider.hanging.wait()
    with pytest.raises(AgentBusyError):
        await h.agent.prompt("again")
    with pytest.raises(AgentBusyError):
        await h.agent.continue_()
    h.provider.hold.set()
    await task
    assert h.agent.state.messages[-1]["stopReason"] == "stop"


async def test_continue_needs_a_transcript_that_does_not_end_with_an_answer(
    tmp_path: Path,
) -> None:
    h = Harness([{"text": "a"}], tmp_path)
    with pytest.raises(ValueError, match="No messages to continue from"):
        await h.agent.continue_()
    await h.agent.prompt("go")
    with pytest.raises(ValueError, match="Cannot continue from message role: assistant"):
        await h.agent.continue_()
    h.agent.steer({"role": "user", "content": [{"type": "text", "text": "more"}], "timestamp": 1})
    await h.agent.continue_()  # takes the queued message
    assert [m["role"] for m in h.agent.state.messages] == ["user", "assistant", "user", "assistant"]


async def test_loop_continue_checks_its_context() -> None:
    config = LoopConfig(
        provider=ScriptedProvider(), model=ORACLE_MODEL, tool_context=ToolContext(cwd=Path("."))
    )

    async def emit(event: Event) -> None:
        return None

    with pytest.raises(ValueError, match="no messages"):
        await run_agent_loop_continue(AgentContext("", []), config, emit)
    answer = {"role": "assistant", "content": []}
    with pytest.raises(ValueError, match="role: assistant"):
        await run_agent_loop_continue(AgentContext("", [answer]), config, emit)
    got = await run_agent_loop(
        [], AgentContext("", [{"role": "user", "content": "hi"}]), config, emit
    )
    assert roles(got) == ["assistant"]


# --- abort ---------------------------------------------------------------------------------------


async def test_abort_while_streaming_keeps_the_aborted_answer(tmp_path: Path) -> None:
    h = Harness([{"hang": True, "text": "partial answer"}], tmp_path)
    task = asyncio.create_task(h.agent.prompt("go"))
    await h.provider.hanging.wait()
    h.agent.abort()
    await task
    aborted = h.agent.state.messages[-1]
    assert aborted["stopReason"] == "aborted"
    assert aborted["content"] == [{"type": "text", "text": "partial answer"}]
    assert h.types()[-3:] == ["message_end", "turn_end", "agent_end"]
    assert not h.agent.is_running


async def test_abort_kills_a_running_command(tmp_path: Path) -> None:
    h = Harness([{"tool_calls": [bash("echo started; sleep 30")]}], tmp_path)

    def abort_when_running(event: Event) -> None:
        if event["type"] == "tool_output":
            h.agent.abort()

    h.agent.subscribe(abort_when_running)
    await asyncio.wait_for(h.agent.prompt("go"), 10)
    result = next(m for m in h.agent.state.messages if m["role"] == "toolResult")
    assert result["isError"] is True and "Command aborted" in result["content"][0]["text"]
    # the next request sees the abort at once and ends the run with an aborted answer
    assert h.agent.state.messages[-1]["stopReason"] == "aborted"
    assert h.types()[-2:] == ["turn_end", "agent_end"]


async def test_a_provider_that_ignores_the_abort_is_cut_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loop, "ABORT_GRACE_SECONDS", 0.05)
    h = Harness([{"ignore_abort": True, "text": "so far"}], tmp_path)
    task = asyncio.create_task(h.agent.prompt("go"))
    await h.provider.hanging.wait()
    h.agent.abort()
    await asyncio.wait_for(task, 5)
    answer = h.agent.state.messages[-1]
    assert answer["stopReason"] == "aborted" and answer["errorMessage"] == "Request was aborted"
    assert answer["content"] == [{"type": "text", "text": "so far"}]


async def test_a_listener_that_fails_closes_the_run(tmp_path: Path) -> None:
    h = Harness([{"text": "a"}], tmp_path)

    def explode(event: Event) -> None:
        if event["type"] == "turn_start":
            raise RuntimeError("listener broke")

    h.agent.subscribe(explode)
    await h.agent.prompt("go")
    last = h.agent.state.messages[-1]
    assert (last["stopReason"], last["errorMessage"]) == ("error", "listener broke")
    assert h.types()[-4:] == ["message_start", "message_end", "turn_end", "agent_end"]
    assert not h.agent.is_running


# --- output budget (spec §13.2) ------------------------------------------------------------------


def _user(text: str, ts: int) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}


def _answer(text: str, total: int, ts: int) -> dict[str, Any]:
    usage = {"input": total, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total}
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "usage": usage,
        "stopReason": "stop",
        "timestamp": ts,
    }


def test_budget_without_usage_counts_prompt_tools_and_messages() -> None:
    tools = [{"name": "t", "description": "d", "parameters": {}}]
    messages = [_user("x" * 400, 1)]
    want = math.ceil(8 / 4) + math.ceil(len(json_stringify(tools)) / 4) + 100
    assert estimate_request_tokens("p" * 8, messages, tools) == want
    model = oracle_model(context_window=20_000, max_tokens=16_384)
    assert request_max_tokens(model, "p" * 8, messages, tools) == 20_000 - want - 4096


def test_budget_uses_the_last_usage_unless_a_newer_message_precedes_it() -> None:
    messages = [_user("x" * 400, 1), _answer("a", 1100, 2), _user("y" * 400, 3)]
    assert estimate_request_tokens("p" * 4000, messages, []) == 1100 + 100
    # a summary made after the answer, placed before it: the usage is stale
    stale = [_user("s" * 40, 10), _answer("a", 1100, 2), _user("y" * 400, 11)]
    assert estimate_request_tokens("", stale, []) == 10 + 1 + 100
    failed = [*messages[:1], {**_answer("", 5000, 2), "stopReason": "error"}]
    assert estimate_request_tokens("", failed, []) == 100


def test_budget_is_at_least_one_and_at_most_the_model_cap() -> None:
    model = oracle_model(context_window=5000, max_tokens=300)
    assert request_max_tokens(model, "", [_user("x" * 40_000, 1)], []) == 1
    assert request_max_tokens(model, "", [_user("x", 1)], []) == 300
    unlimited = oracle_model(context_window=0, max_tokens=300)
    assert request_max_tokens(unlimited, "", [_user("x" * 40_000, 1)], []) == 300


async def test_every_request_is_clamped(tmp_path: Path) -> None:
    model = oracle_model(context_window=20_000)
    h = Harness(
        [
            {
                "tool_calls": [bash("echo hi")],
                "usage": {"prompt_tokens": 2000, "completion_tokens": 20},
            }
        ],
        tmp_path,
        model=model,
    )
    await h.agent.prompt("x" * 400)
    first, second = h.provider.requests
    assert first.max_tokens == request_max_tokens(
        model, first.system_prompt, first.messages, first.tools
    )
    assert second.max_tokens == 20_000 - 4096 - (2020 + 1)  # usage + "hi\n" (3 chars)


# --- JSON mode -----------------------------------------------------------------------------------


async def test_json_mode_reduces_updates_and_drops_pi_lsp_events(tmp_path: Path) -> None:
    h = Harness([{"tool_calls": [bash("echo hi")]}, {"text": "ok"}], tmp_path)
    await h.agent.prompt("go")
    reduced = [to_json_event(e) for e in h.events]
    assert all(
        r is None for r, e in zip(reduced, h.events, strict=True) if e["type"] == "tool_output"
    )
    updates = [r for r in reduced if r is not None and r["type"] == "message_update"]
    assert all(list(u) == ["type", "usage", "assistantMessageEvent"] for u in updates)
    assert all("partial" not in u["assistantMessageEvent"] for u in updates)
    start = next(u for u in updates if u["assistantMessageEvent"]["type"] == "toolcall_start")
    assert start["assistantMessageEvent"] == {
        "type": "toolcall_start",
        "contentIndex": 0,
        "id": "call_0_0",
        "toolName": "bash",
    }
    others = [r for r, e in zip(reduced, h.events, strict=True) if e["type"] == "turn_end"]
    assert others[0] == h.of("turn_end")[0]
    json.dumps(reduced)  # all plain JSON


def test_event_shapes() -> None:
    assert events.compaction_end("threshold", None, aborted=False, will_retry=False) == {
        "type": "compaction_end",
        "reason": "threshold",
        "aborted": False,
        "willRetry": False,
    }
    assert list(events.agent_end([], will_retry=True)) == ["type", "messages", "willRetry"]
    assert events.auto_retry_end(False, 2, "boom")["finalError"] == "boom"
    assert "finalError" not in events.auto_retry_end(True, 1)
    with pytest.raises(ValueError):
        to_json_event(
            {"type": "message_update", "message": {"role": "user"}, "assistantMessageEvent": {}}
        )


async def test_collect_response_without_a_signal_waits_for_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(loop, "ABORT_GRACE_SECONDS", 0.001)  # only applies after an abort

    class Slow:
        def __init__(self) -> None:
            self.inner = ScriptedProvider([{"text": "late"}])

        async def stream(self, request: Any, signal: Any = None) -> Any:
            await asyncio.sleep(0.05)
            async for event in self.inner.stream(request, signal):
                yield event

    request = loop.ModelRequest(model=ORACLE_MODEL, system_prompt="", messages=[])
    message, event = await loop.collect_response(Slow(), request)
    assert (message["stopReason"], event["type"]) == ("stop", "done")
    assert message["content"] == [{"type": "text", "text": "late"}]
