"""``convert_to_llm`` and ``bash_execution_to_text`` (spec §9.2–§9.3), and the projection checked
against what Pi 0.85 really sent (the compaction and overflow golden cases)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.session.context import build_session_context
from pi_lsp.session.llm_messages import (
    BLOCKED_IMAGE_TEXT,
    bash_execution_to_text,
    convert_to_llm,
)
from pi_lsp.session.migration import migrate_records
from tests.sessions import FIXTURE_NAMES, fixture_session_params
from tests.shared_data import CONFORMANCE, PI_FIXTURES

Message = dict[str, Any]

COMPACTION_WRAP = (
    "The conversation history before this point was compacted into the following summary:"
    "\n\n<summary>\n{}\n</summary>"
)
BRANCH_WRAP = (
    "The following is a summary of a branch that this conversation came back from:"
    "\n\n<summary>\n{}</summary>"
)


def bash(**fields: Any) -> Message:
    message = {
        "role": "bashExecution",
        "command": "ls",
        "output": "a\nb",
        "exitCode": 0,
        "cancelled": False,
        "truncated": False,
        "timestamp": 5,
    }
    message.update(fields)
    return message


def test_bash_execution_text() -> None:
    assert bash_execution_to_text(bash()) == "Ran `ls`\n```\na\nb\n```"
    assert bash_execution_to_text(bash(output="")) == "Ran `ls`\n(no output)"
    assert (
        bash_execution_to_text(bash(exitCode=2))
        == "Ran `ls`\n```\na\nb\n```\n\nCommand exited with code 2"
    )
    assert bash_execution_to_text(bash(exitCode=None)) == "Ran `ls`\n```\na\nb\n```"
    cancelled = bash(cancelled=True, exitCode=137)
    assert bash_execution_to_text(cancelled) == "Ran `ls`\n```\na\nb\n```\n\n(command cancelled)"
    truncated = bash(truncated=True, fullOutputPath="/tmp/pi-bash-x.log", exitCode=1)
    assert bash_execution_to_text(truncated) == (
        "Ran `ls`\n```\na\nb\n```\n\nCommand exited with code 1"
        "\n\n[Output truncated. Full output: /tmp/pi-bash-x.log]"
    )
    # truncated without a spill file: no marker
    assert bash_execution_to_text(bash(truncated=True)) == "Ran `ls`\n```\na\nb\n```"


def test_convert_roles() -> None:
    user = {"role": "user", "content": "hi", "timestamp": 1}
    assistant = {"role": "assistant", "content": [], "timestamp": 2}
    tool = {"role": "toolResult", "toolCallId": "c", "content": [], "timestamp": 3}
    custom_text = {
        "role": "custom",
        "customType": "x",
        "content": "note",
        "display": True,
        "timestamp": 4,
    }
    image = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    custom_blocks = {**custom_text, "content": [image]}
    branch = {"role": "branchSummary", "summary": "B", "fromId": "f", "timestamp": 6}
    compaction = {"role": "compactionSummary", "summary": "C", "tokensBefore": 9, "timestamp": 7}
    hidden = bash(excludeFromContext=True)
    odd = {"role": "somethingNew", "timestamp": 8}
    messages = [
        user,
        assistant,
        tool,
        bash(),
        hidden,
        custom_text,
        custom_blocks,
        branch,
        compaction,
        odd,
    ]
    converted = convert_to_llm(messages)
    assert converted[0] is user and converted[1] is assistant and converted[2] is tool
    assert converted[3:] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Ran `ls`\n```\na\nb\n```"}],
            "timestamp": 5,
        },
        {"role": "user", "content": [{"type": "text", "text": "note"}], "timestamp": 4},
        {"role": "user", "content": [image], "timestamp": 4},
        {
            "role": "user",
            "content": [{"type": "text", "text": BRANCH_WRAP.format("B")}],
            "timestamp": 6,
        },
        {
            "role": "user",
            "content": [{"type": "text", "text": COMPACTION_WRAP.format("C")}],
            "timestamp": 7,
        },
    ]
    assert messages[5]["content"] == "note"  # input untouched


def test_summary_wrappers_exactly() -> None:
    [branch, compaction] = convert_to_llm(
        [
            {"role": "branchSummary", "summary": "x", "fromId": "f", "timestamp": 1},
            {"role": "compactionSummary", "summary": "y", "tokensBefore": 1, "timestamp": 1},
        ]
    )
    assert branch["content"][0]["text"].endswith("<summary>\nx</summary>")
    assert compaction["content"][0]["text"].endswith("<summary>\ny\n</summary>")


def test_block_images() -> None:
    image = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    text = {"type": "text", "text": "look"}
    user = {"role": "user", "content": [text, image, image, text, image], "timestamp": 1}
    tool = {"role": "toolResult", "toolCallId": "c", "content": [image], "timestamp": 2}
    assistant = {"role": "assistant", "content": [text], "timestamp": 3}
    plain = {"role": "user", "content": [text], "timestamp": 4}
    blocked = {"type": "text", "text": BLOCKED_IMAGE_TEXT}
    converted = convert_to_llm([user, tool, assistant, plain], block_images=True)
    assert converted[0]["content"] == [text, blocked, text, blocked]
    assert converted[1]["content"] == [blocked]
    assert converted[2] is assistant and converted[3] is plain
    assert user["content"][1] is image
    assert convert_to_llm([user])[0] is user


# --- the golden cases -------------------------------------------------------------------------
#
# Each main-agent request of a case is answered by one assistant message in the session file (a
# failed request too: its error message stays in the file). The leaf that preceded the request is
# that assistant's parent. Projecting the session there and converting it must give the messages
# of the request body after the system prompt.


def chat_completions_messages(messages: list[Message]) -> list[Message]:
    """The model messages in the OpenAI chat-completions shape the oracle recorded (spec §13.3,
    §13.4), for the content these cases hold: text, tool calls and text tool results."""
    shaped: list[Message] = []
    for message in messages:
        role = message["role"]
        if role == "user":
            content = message["content"]
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            shaped.append({"role": "user", "content": content})
        elif role == "assistant":
            if message.get("stopReason") in ("error", "aborted"):
                continue  # not replayed (§13.3)
            blocks = message["content"]
            assert {b["type"] for b in blocks} <= {"text", "toolCall"}, blocks
            text = "".join(b["text"] for b in blocks if b["type"] == "text")
            calls = [b for b in blocks if b["type"] == "toolCall"]
            out: Message = {"role": "assistant", "content": text or None}
            if calls:
                out["tool_calls"] = [
                    {
                        "id": call["id"],
                        "type": "function",
                        "function": {
                            "name": call["name"],
                            "arguments": json.dumps(call["arguments"], separators=(",", ":")),
                        },
                    }
                    for call in calls
                ]
            shaped.append(out)
        elif role == "toolResult":
            assert all(b["type"] == "text" for b in message["content"])
            text = "\n".join(b["text"] for b in message["content"])
            shaped.append(
                {
                    "role": "tool",
                    "content": text or "(no tool output)",
                    "tool_call_id": message["toolCallId"],
                }
            )
        else:
            raise AssertionError(f"not a model role: {role}")
    return shaped


GOLDEN_CASES = sorted(
    path.name
    for path in CONFORMANCE.iterdir()
    if path.name.startswith(("compaction-", "overflow-"))
    and (path / "expected-session.jsonl").is_file()
)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def test_golden_cases_are_present() -> None:
    assert {
        "compaction-split-after-compaction",
        "compaction-split-turn",
        "compaction-threshold-midrun",
        "overflow-compact-retry",
        "overflow-retry-exhausted",
    } <= set(GOLDEN_CASES)


@pytest.mark.parametrize("case", GOLDEN_CASES)
def test_projection_matches_every_recorded_request(case: str) -> None:
    folder = CONFORMANCE / case
    records = read_jsonl(folder / "expected-session.jsonl")
    assert records[0]["type"] == "session" and records[0]["version"] == 3
    entries = records[1:]
    requests = json.loads((folder / "expected-requests.json").read_text(encoding="utf-8"))
    # summarization requests carry no tools; every other request is the agent's
    agent_requests = [body for body in requests if "tools" in body]
    answers = [e for e in entries if e["type"] == "message" and e["message"]["role"] == "assistant"]
    assert len(agent_requests) == len(answers)
    for number, (body, answer) in enumerate(zip(agent_requests, answers, strict=True)):
        context = build_session_context(entries, answer["parentId"])
        expected = body["messages"]
        assert expected[0]["role"] == "system"
        got = chat_completions_messages(convert_to_llm(context.messages))
        assert got == expected[1:], f"{case}: request {number} (leaf {answer['parentId']})"
        assert context.thinking_level == "off"
        assert context.model == {"provider": "oracle", "modelId": "oracle-model"}


def test_split_after_compaction_sends_both_summaries() -> None:
    folder = CONFORMANCE / "compaction-split-after-compaction"
    entries = read_jsonl(folder / "expected-session.jsonl")[1:]
    context = build_session_context(entries)
    roles = [m["role"] for m in context.messages]
    assert roles.count("compactionSummary") == 2
    assert roles[0] == "compactionSummary"
    assert context.messages[0]["summary"].startswith("No prior history.")
    older = roles.index("compactionSummary", 1)
    assert context.messages[older]["summary"] == "## Goal\nTURN ONE SUMMARY"


# --- real sessions --------------------------------------------------------------------------------


@pytest.mark.shared
def test_pi_fixture_sessions_are_the_ones_the_tests_name() -> None:
    assert sorted(path.name for path in PI_FIXTURES.glob("*.jsonl")) == sorted(FIXTURE_NAMES)


@pytest.mark.parametrize("source", fixture_session_params(*FIXTURE_NAMES))
def test_real_sessions_project_after_migration(source: Path) -> None:
    records = read_jsonl(source)
    migrate_records(records)
    assert records[0]["type"] == "session" and records[0]["version"] == 3
    entries = records[1:]
    context = build_session_context(entries)
    assert context.entries and context.entries[-1] is entries[-1]
    converted = convert_to_llm(context.messages)
    assert converted
    assert {m["role"] for m in converted} <= {"user", "assistant", "toolResult"}
    # a v1 file is one chain: every entry is on the path, and the compaction layout applies
    compactions = [e for e in entries if e["type"] == "compaction"]
    if compactions:
        assert context.entries[0] is compactions[-1]
        assert context.messages[0]["role"] == "compactionSummary"
    else:
        assert len(context.entries) == len(entries)
