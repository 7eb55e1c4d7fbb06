"""Session orchestration (spec §10.10, §12.5): persistence, retries, the three compaction
checkpoints, overflow recovery, queues, abort, manual compaction.

A :class:`~pi_lsp.agent.session_agent.SessionAgent` over a real session file and resources
loaded from a temporary agent dir, answered by the scripted provider. Retry waits go through a
fake sleep that only records the delay.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.agent.agent_core import AgentBusyError
from pi_lsp.agent.model_api import ModelInfo, Provider
from pi_lsp.agent.providers.registry import provider_for
from pi_lsp.agent.session_agent import (
    OVERFLOW_RECOVERY_FAILED,
    TRUNCATION_RECOVERY_FAILED,
    SessionAgent,
)
from pi_lsp.resources.loader import LoadOptions, load_resources
from pi_lsp.session.compaction import BeforeCompactDecision, BeforeCompactEvent, CompactionResult
from pi_lsp.session.session_file import SessionFile
from pi_lsp.session.summarizer import SummaryAborted
from tests.agent.http_fixtures import (
    LocalHTTPServer,
    json_reply,
    openai_error_body,
    openai_text_reply,
    openai_tool_calls_reply,
)
from tests.agent.scripted_provider import ScriptedProvider, oracle_model

Event = dict[str, Any]
OVERFLOW_400 = {
    "error": 400,
    "message": "This model's maximum context length is 20000 tokens. Please reduce the length "
    "of the messages.",
    "code": "context_length_exceeded",
}
#: threshold = 20000 - 4000 = 16000 tokens
SMALL_WINDOW = {"compaction": {"reserveTokens": 4000, "keepRecentTokens": 100}}


class Setup:
    def __init__(
        self,
        tmp_path: Path,
        script: list[dict[str, Any]],
        *,
        settings: dict[str, Any] | None = None,
        model: ModelInfo | None = None,
        provider: Provider | None = None,
        **options: Any,
    ) -> None:
        self.tmp = tmp_path
        agent_dir = tmp_path / "agent"
        (agent_dir / "prompts").mkdir(parents=True)
        (agent_dir / "settings.json").write_text(json.dumps(settings or {}))
        (agent_dir / "prompts" / "review.md").write_text("Review $1 carefully.")
        self.cwd = tmp_path / "proj"
        self.cwd.mkdir()
        home = tmp_path / "home"
        home.mkdir()
        self.resources = load_resources(
            LoadOptions(
                cwd=str(self.cwd), agent_dir=str(agent_dir), home=str(home), env={"HOME": str(home)}
            )
        )
        self.model = model or oracle_model(context_window=20_000)
        self.session_dir = tmp_path / "sessions"
        self.session = SessionFile.create(
            str(self.cwd),
            session_dir=str(self.session_dir),
            provider=self.model.provider,
            model_id=self.model.id,
            thinking_level="off",
        )
        self.provider = ScriptedProvider(script)
        self.delays: list[float] = []

        async def fake_sleep(seconds: float) -> None:
            self.delays.append(seconds)

        options.setdefault("sleep", fake_sleep)
        self.agent = SessionAgent(
            provider=provider or self.provider,
            model=self.model,
            session=self.session,
            resources=self.resources,
            **options,
        )
        self.events: list[Event] = []
        self.agent.subscribe(self.events.append)

    def of(self, kind: str) -> list[Event]:
        return [e for e in self.events if e["type"] == kind]

    def types(self) -> list[str]:
        skip = {"message_update", "tool_execution_update", "tool_output"}
        return [e["type"] for e in self.events if e["type"] not in skip]

    def file_entries(self) -> list[dict[str, Any]]:
        (path,) = self.session_dir.glob("*.jsonl")
        return [json.loads(line) for line in path.read_text().splitlines()]

    def file_messages(self) -> list[dict[str, Any]]:
        return [e["message"] for e in self.file_entries() if e["type"] == "message"]


def texts(messages: list[dict[str, Any]]) -> list[str]:
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            out.append("".join(b.get("text", "") for b in content if b.get("type") == "text"))
        else:
            out.append(str(message.get("summary", content)))
    return out


# --- persistence ---------------------------------------------------------------------------------


async def test_a_new_session_is_written_at_the_first_answer(tmp_path: Path) -> None:
    s = Setup(tmp_path, [{"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}}]}])
    assert not s.session_dir.exists()
    await s.agent.prompt("hello")
    entries = s.file_entries()
    assert [e["type"] for e in entries] == [
        "session",
        "model_change",
        "thinking_level_change",
        "message",
        "message",
        "message",
        "message",
    ]
    assert [m["role"] for m in s.file_messages()] == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
    ]
    assert s.file_messages() == s.agent.messages
    assert s.types()[-1] == "agent_settled"


async def test_a_reopened_session_restores_the_context(tmp_path: Path) -> None:
    s = Setup(tmp_path, [{"text": "first answer"}])
    await s.agent.prompt("hello")
    s.session.close()
    (path,) = s.session_dir.glob("*.jsonl")
    with SessionFile.open(path) as reopened:
        provider = ScriptedProvider([{"text": "second answer"}])
        agent = SessionAgent(
            provider=provider, model=s.model, session=reopened, resources=s.resources
        )
        assert texts(agent.messages) == ["hello", "first answer"]
        await agent.prompt("again")
        assert texts(provider.requests[0].messages) == ["hello", "first answer", "again"]


async def test_prompts_are_expanded_and_bash_sees_the_session(tmp_path: Path) -> None:
    call = {"name": "bash", "arguments": {"command": "echo $PI_PROVIDER/$PI_MODEL"}}
    s = Setup(tmp_path, [{"tool_calls": [call]}])
    await s.agent.prompt("/review main.py")
    assert texts(s.agent.messages)[:3] == ["Review main.py carefully.", "", "oracle/oracle-model\n"]


async def test_entry_events_on_request(tmp_path: Path) -> None:
    s = Setup(tmp_path, [{"text": "a"}], emit_entry_events=True)
    await s.agent.prompt("hello")
    appended = [e["entry"]["message"]["role"] for e in s.of("entry_appended")]
    assert appended == ["user", "assistant"]


# --- retries -------------------------------------------------------------------------------------


async def test_a_transient_error_is_retried(tmp_path: Path) -> None:
    s = Setup(tmp_path, [{"error": 503, "message": "overloaded"}, {"text": "recovered"}])
    await s.agent.prompt("hello")
    (start,) = s.of("auto_retry_start")
    assert start == {
        "type": "auto_retry_start",
        "attempt": 1,
        "maxAttempts": 3,
        "delayMs": 2000,
        "errorMessage": '503: {"message":"overloaded","type":"invalid_request_error","code":null}',
    }
    assert s.delays == [2.0]
    assert [e["willRetry"] for e in s.of("agent_end")] == [True, False]
    assert s.of("auto_retry_end") == [{"type": "auto_retry_end", "success": True, "attempt": 1}]
    assert texts(s.agent.messages) == ["hello", "recovered"]  # the failure left the context
    assert [m["stopReason"] for m in s.file_messages()[1:]] == ["error", "stop"]  # not the file
    assert s.types().count("agent_settled") == 1


async def test_retries_give_up_after_max_retries(tmp_path: Path) -> None:
    error = {"error": 500, "message": "server error"}
    s = Setup(tmp_path, [error] * 4)
    await s.agent.prompt("hello")
    assert [e["attempt"] for e in s.of("auto_retry_start")] == [1, 2, 3]
    assert s.delays == [2.0, 4.0, 8.0]
    (end,) = s.of("auto_retry_end")
    assert (end["success"], end["attempt"]) == (False, 3)
    assert end["finalError"].startswith("500: ")
    assert s.of("agent_end")[-1]["willRetry"] is False
    assert len(s.provider.requests) == 4


async def test_retry_settings_and_retry_after(tmp_path: Path) -> None:
    """The session's retry waits Pi's backoff from the settings; a server's retry-after,
    shorter or beyond the provider cap, changes nothing (Pi 0.85: anthropic case
    http-429-retry-after)."""
    settings = {
        "retry": {"baseDelayMs": 10, "maxRetries": 1, "provider": {"maxRetryDelayMs": 1000}}
    }
    for where, asked in (("short", 500), ("capped", 5000)):
        script = [{"error": 429, "message": "rate limit", "retry_after_ms": asked}, {"text": "ok"}]
        s = Setup(tmp_path / where, script, settings=settings)
        await s.agent.prompt("hello")
        assert s.delays == [0.01], where
        assert [e["delayMs"] for e in s.of("auto_retry_start")] == [10], where
        assert len(s.provider.requests) == 2, where


async def test_errors_that_are_not_transient_are_not_retried(tmp_path: Path) -> None:
    s = Setup(tmp_path, [{"error": 401, "message": "invalid api key"}])
    await s.agent.prompt("hello")
    assert s.of("auto_retry_start") == [] and s.of("agent_end")[0]["willRetry"] is False


async def test_abort_cancels_the_retry_wait(tmp_path: Path) -> None:
    s = Setup(tmp_path, [{"error": 503, "message": "overloaded"}], sleep=asyncio.sleep)
    task = asyncio.create_task(s.agent.prompt("hello"))
    while not s.of("auto_retry_start"):
        await asyncio.sleep(0.01)
    await asyncio.wait_for(s.agent.abort(), 5)
    await task
    assert s.of("auto_retry_end") == [
        {"type": "auto_retry_end", "success": False, "attempt": 1, "finalError": "Retry cancelled"}
    ]
    assert len(s.provider.requests) == 1 and s.agent.is_idle


# --- compaction checkpoints ----------------------------------------------------------------------


def summary(text: str = "## Goal\nSUMMARY") -> dict[str, Any]:
    return {"text": text, "usage": {"prompt_tokens": 300, "completion_tokens": 10}}


async def test_threshold_compaction_after_a_run(tmp_path: Path) -> None:
    script = [
        {"text": "a" * 400},
        {"text": "b", "usage": {"prompt_tokens": 17000, "completion_tokens": 100}},
        summary(),
    ]
    s = Setup(tmp_path, script, settings=SMALL_WINDOW)
    await s.agent.prompt("first " + "f" * 400)
    await s.agent.prompt("second " + "g" * 400)
    order = s.types()
    assert order[-4:] == ["agent_end", "compaction_start", "compaction_end", "agent_settled"]
    end = s.of("compaction_end")[0]
    assert end["reason"] == "threshold" and end["willRetry"] is False
    assert end["result"]["tokensBefore"] == 17100
    assert len(s.provider.requests) == 3  # no continuation
    assert s.agent.messages[0]["role"] == "compactionSummary"
    assert [e["type"] for e in s.file_entries()][-1] == "compaction"


async def test_compaction_before_a_prompt_catches_an_aborted_answer(tmp_path: Path) -> None:
    script = [
        {"text": "a" * 400},
        {
            "hang": True,
            "text": "partial",
            "usage": {"prompt_tokens": 17000, "completion_tokens": 5},
        },
        summary(),
        {"text": "fresh"},
    ]
    s = Setup(tmp_path, script, settings=SMALL_WINDOW)
    await s.agent.prompt("first " + "f" * 400)
    task = asyncio.create_task(s.agent.prompt("second"))
    await s.provider.hanging.wait()
    await s.agent.abort()
    await task
    assert s.of("compaction_start") == []  # checkpoint 1 skips an aborted answer
    assert s.file_messages()[-1]["stopReason"] == "aborted"  # kept in the file
    await s.agent.prompt("third")
    order = s.types()
    settled = len(order) - 1 - order[::-1].index("agent_settled", 1)
    assert order[settled + 1 : settled + 4] == ["compaction_start", "compaction_end", "agent_start"]
    assert texts(s.provider.requests[-1].messages)[-1] == "third"


async def test_midrun_compaction_before_the_next_request(tmp_path: Path) -> None:
    big = {"name": "bash", "arguments": {"command": "head -c 9000 /dev/zero | tr '\\0' p"}}
    script = [
        {"text": "a" * 400},
        {"tool_calls": [big], "usage": {"prompt_tokens": 14000, "completion_tokens": 30}},
        summary(),
        {"text": "final"},
    ]
    settings = {"compaction": {"reserveTokens": 4000, "keepRecentTokens": 2500}}
    s = Setup(tmp_path, script, settings=settings)
    await s.agent.prompt("first " + "f" * 400)
    await s.agent.prompt("s" * 1000)  # kept: the cut falls on this turn, not inside it
    order = s.types()
    i = order.index("compaction_start")
    assert order[i - 1 : i + 3] == ["turn_end", "compaction_start", "compaction_end", "turn_start"]
    assert s.of("compaction_end")[0]["result"]["tokensBefore"] == 14030 + 2250
    final_request = s.provider.requests[-1]
    assert [m["role"] for m in final_request.messages] == [
        "user",
        "user",
        "assistant",
        "toolResult",
    ]
    assert texts(final_request.messages)[0].startswith("The conversation history before this")


async def test_overflow_is_compacted_and_retried_once(tmp_path: Path) -> None:
    script = [{"text": "a" * 400}, OVERFLOW_400, summary(), {"text": "recovered"}]
    s = Setup(tmp_path, script, settings=SMALL_WINDOW)
    await s.agent.prompt("first " + "f" * 400)
    await s.agent.prompt("second " + "g" * 400)
    end = s.of("compaction_end")[0]
    assert (end["reason"], end["willRetry"]) == ("overflow", True)
    assert s.of("agent_end")[-2]["willRetry"] is False  # overflow is not an auto-retry
    retried = s.provider.requests[-1]
    assert all(m.get("stopReason") != "error" for m in retried.messages)
    assert texts(s.agent.messages)[-1] == "recovered"
    assert [m.get("stopReason") for m in s.file_messages()].count("error") == 1


async def test_a_second_overflow_in_the_run_gives_up(tmp_path: Path) -> None:
    script = [{"text": "a" * 400}, OVERFLOW_400, summary(), OVERFLOW_400]
    s = Setup(tmp_path, script, settings=SMALL_WINDOW)
    await s.agent.prompt("first " + "f" * 400)
    await s.agent.prompt("second " + "g" * 400)
    last = s.of("compaction_end")[-1]
    assert last == {
        "type": "compaction_end",
        "reason": "overflow",
        "aborted": False,
        "willRetry": False,
        "errorMessage": OVERFLOW_RECOVERY_FAILED,
    }
    assert len(s.provider.requests) == 4


async def test_a_silent_overflow_compacts_without_retry(tmp_path: Path) -> None:
    script = [
        {"text": "a" * 400},
        {"text": "b", "usage": {"prompt_tokens": 21000, "completion_tokens": 5}},
        summary(),
    ]
    s = Setup(tmp_path, script, settings=SMALL_WINDOW)
    await s.agent.prompt("first " + "f" * 400)
    await s.agent.prompt("second " + "g" * 400)
    end = s.of("compaction_end")[0]
    assert (end["reason"], end["willRetry"]) == ("overflow", False)
    assert len(s.provider.requests) == 3


async def test_a_cut_off_answer_is_compacted_and_retried_once(tmp_path: Path) -> None:
    cut = {
        "text": "half",
        "finish_reason": "length",
        "usage": {"prompt_tokens": 900, "completion_tokens": 50},
    }
    script = [{"text": "a" * 400}, cut, summary(), cut]
    s = Setup(tmp_path, script, settings=SMALL_WINDOW)
    await s.agent.prompt("first " + "f" * 400)
    await s.agent.prompt("second " + "g" * 400)
    ends = s.of("compaction_end")
    assert (ends[0]["reason"], ends[0]["willRetry"]) == ("overflow", True)
    assert ends[1]["errorMessage"] == TRUNCATION_RECOVERY_FAILED


async def test_a_failed_summary_is_reported_and_nothing_is_written(tmp_path: Path) -> None:
    script = [
        {"text": "a" * 400},
        {"text": "b", "usage": {"prompt_tokens": 17000, "completion_tokens": 5}},
        {"error": 400, "message": "bad summary request"},
    ]
    s = Setup(tmp_path, script, settings=SMALL_WINDOW)
    await s.agent.prompt("first " + "f" * 400)
    await s.agent.prompt("second " + "g" * 400)
    (end,) = s.of("compaction_end")
    assert end["errorMessage"].startswith("Auto-compaction failed: Summarization failed: 400: ")
    assert "compaction" not in [e["type"] for e in s.file_entries()]


async def test_summaries_are_retried_like_answers(tmp_path: Path) -> None:
    script = [
        {"text": "a" * 400},
        {"text": "b", "usage": {"prompt_tokens": 17000, "completion_tokens": 5}},
        {"error": 503, "message": "overloaded"},
        summary(),
    ]
    s = Setup(tmp_path, script, settings=SMALL_WINDOW)
    await s.agent.prompt("first " + "f" * 400)
    await s.agent.prompt("second " + "g" * 400)
    kinds = [e["type"] for e in s.events if e["type"].startswith(("summarization_", "compaction_"))]
    assert kinds == [
        "compaction_start",
        "summarization_retry_scheduled",
        "summarization_retry_attempt_start",
        "summarization_retry_finished",
        "compaction_end",
    ]
    attempt = s.of("summarization_retry_attempt_start")[0]
    assert attempt == {
        "type": "summarization_retry_attempt_start",
        "source": "compaction",
        "reason": "threshold",
    }
    assert s.of("compaction_end")[0]["result"]["summary"] == "## Goal\nSUMMARY"


async def test_compaction_hooks(tmp_path: Path) -> None:
    async def cancel(event: BeforeCompactEvent) -> BeforeCompactDecision:
        return BeforeCompactDecision(cancel=True)

    script = [
        {"text": "a" * 400},
        {"text": "b", "usage": {"prompt_tokens": 17000, "completion_tokens": 5}},
    ]
    s = Setup(tmp_path, script, settings=SMALL_WINDOW, before_compact=cancel)
    await s.agent.prompt("first " + "f" * 400)
    await s.agent.prompt("second " + "g" * 400)
    (end,) = s.of("compaction_end")
    assert (end["aborted"], end["willRetry"], "result" in end) == (True, False, False)

    async def supply(event: BeforeCompactEvent) -> BeforeCompactDecision:
        result = CompactionResult("from a hook", event.preparation.first_kept_entry_id, 42)
        return BeforeCompactDecision(compaction=result)

    s = Setup(tmp_path / "supply", script, settings=SMALL_WINDOW, before_compact=supply)
    await s.agent.prompt("first " + "f" * 400)
    await s.agent.prompt("second " + "g" * 400)
    stored = s.file_entries()[-1]
    assert (stored["summary"], stored["fromHook"]) == ("from a hook", True)
    assert len(s.provider.requests) == 2  # no summary request


# --- queues, abort, manual compaction ------------------------------------------------------------


async def test_steering_and_follow_ups_while_running(tmp_path: Path) -> None:
    s = Setup(
        tmp_path, [{"hang": True, "text": "working"}, {"text": "steered"}, {"text": "followed"}]
    )
    task = asyncio.create_task(s.agent.prompt("go"))
    await s.provider.hanging.wait()
    with pytest.raises(AgentBusyError, match="streamingBehavior"):
        await s.agent.prompt("now")
    await s.agent.prompt("change course", streaming_behavior="steer")
    await s.agent.prompt("/review x", streaming_behavior="followUp")
    assert s.agent.steering_messages == ["change course"]
    assert s.agent.follow_up_messages == ["Review x carefully."]
    s.provider.hold.set()
    await task
    assert texts(s.agent.messages) == [
        "go",
        "working",
        "change course",
        "steered",
        "Review x carefully.",
        "followed",
    ]
    updates = [(e["steering"], e["followUp"]) for e in s.of("queue_update")]
    assert updates == [
        (["change course"], []),
        (["change course"], ["Review x carefully."]),
        ([], ["Review x carefully."]),
        ([], []),
    ]


async def test_abort_keeps_the_aborted_answer(tmp_path: Path) -> None:
    s = Setup(tmp_path, [{"hang": True, "text": "partial"}])
    task = asyncio.create_task(s.agent.prompt("go"))
    await s.provider.hanging.wait()
    await s.agent.abort()
    await task
    assert s.agent.is_idle
    assert s.file_messages()[-1]["stopReason"] == "aborted"
    assert s.types()[-1] == "agent_settled"


async def test_manual_compaction(tmp_path: Path) -> None:
    s = Setup(
        tmp_path,
        [{"text": "a" * 400}, {"text": "b"}, summary("## Goal\nMANUAL")],
        settings=SMALL_WINDOW,
    )
    with pytest.raises(Exception, match="Nothing to compact"):
        await s.agent.compact()
    failed = s.of("compaction_end")[0]
    assert failed["errorMessage"] == "Compaction failed: Nothing to compact (session too small)"
    await s.agent.prompt("first " + "f" * 400)
    await s.agent.prompt("second " + "g" * 400)
    result = await s.agent.compact("focus on tests")
    assert result["summary"] == "## Goal\nMANUAL"
    assert list(result) == [
        "summary",
        "firstKeptEntryId",
        "tokensBefore",
        "estimatedTokensAfter",
        "usage",
        "details",
    ]
    assert "Additional focus: focus on tests" in texts(s.provider.requests[-1].messages)[0]
    assert s.of("compaction_start")[-1]["reason"] == "manual"
    with pytest.raises(Exception, match="Already compacted"):
        await s.agent.compact()


async def test_aborting_a_manual_compaction(tmp_path: Path) -> None:
    script = [{"text": "a" * 400}, {"text": "b" * 400}, {"hang": True}]
    s = Setup(tmp_path, script, settings=SMALL_WINDOW)
    await s.agent.prompt("first " + "f" * 400)
    await s.agent.prompt("second " + "g" * 400)
    task = asyncio.create_task(s.agent.compact())
    await s.provider.hanging.wait()
    with pytest.raises(AgentBusyError, match="compaction is in progress"):
        await s.agent.prompt("third")
    s.agent.abort_compaction()
    with pytest.raises(SummaryAborted):
        await task
    end = s.of("compaction_end")[-1]
    assert (end["aborted"], "errorMessage" in end) == (True, False)
    assert "compaction" not in [e["type"] for e in s.file_entries()]


# --- end to end over HTTP ------------------------------------------------------------------------


async def test_end_to_end_with_the_openai_provider(tmp_path: Path) -> None:
    """The real OpenAI-compatible provider against a local server: a tool call, a rate limit
    answered by a retry after Pi's 2 s backoff (the server's retry-after is not read), then
    the answer."""
    async with LocalHTTPServer() as server:
        server.enqueue(
            openai_tool_calls_reply(
                [{"name": "bash", "arguments": {"command": "echo hi"}, "id": "call_a"}],
                prompt_tokens=2000,
                completion_tokens=20,
            ),
            json_reply(
                429,
                openai_error_body("Rate limit reached", kind="requests"),
                {"retry-after": "3"},
            ),
            openai_text_reply("all done", prompt_tokens=2100, completion_tokens=5),
        )
        model = ModelInfo(
            id="test-model",
            provider="local",
            api="openai-completions",
            base_url=server.base_url + "/v1",
            context_window=20_000,
            max_tokens=16_384,
        )
        s = Setup(tmp_path, [], model=model, provider=provider_for(model), api_key="sk-test")
        await asyncio.wait_for(s.agent.prompt("x" * 400), 30)

    assert texts(s.agent.messages) == ["x" * 400, "", "hi\n", "all done"]
    assert s.delays == [2.0]  # Pi's backoff, though the server asked for 3 s
    (retry,) = s.of("auto_retry_start")
    assert retry["errorMessage"].startswith("429: ")
    assert [m.get("stopReason") for m in s.file_messages()] == [
        None,
        "toolUse",
        None,
        "error",
        "stop",
    ]
    bodies = [request.json() for request in server.requests]
    assert [m["role"] for m in bodies[1]["messages"]] == ["system", "user", "assistant", "tool"]
    assert bodies[1] == bodies[2]  # the retry sends the same request again
    assert bodies[1]["max_completion_tokens"] == 20_000 - 4096 - (2020 + 1)
    assert server.requests[0].headers["authorization"] == "Bearer sk-test"


async def test_changing_level_model_and_resources(tmp_path: Path) -> None:
    call = {"name": "bash", "arguments": {"command": "echo $PI_MODEL $PI_REASONING_LEVEL"}}
    s = Setup(tmp_path, [{"text": "a"}, {"tool_calls": [call]}], emit_entry_events=True)
    await s.agent.prompt("hello")
    await s.agent.set_thinking_level("high")
    await s.agent.set_thinking_level("high")  # unchanged: nothing recorded
    other = dataclasses.replace(oracle_model(context_window=50_000), id="other-model")
    await s.agent.set_model(other)
    s.agent.reload(s.resources, system_prompt="Changed prompt.")
    await s.agent.prompt("again")
    kinds = [e["type"] for e in s.file_entries()]
    assert kinds[5:7] == ["thinking_level_change", "model_change"]
    assert s.of("thinking_level_changed") == [{"type": "thinking_level_changed", "level": "high"}]
    request = s.provider.requests[1]
    assert (request.model.id, request.thinking_level) == ("other-model", "high")
    assert request.system_prompt == "Changed prompt."
    assert texts(s.agent.messages)[4] == "other-model high\n"
    appended = [e["entry"]["type"] for e in s.of("entry_appended")]
    assert appended[2:4] == ["thinking_level_change", "model_change"]
