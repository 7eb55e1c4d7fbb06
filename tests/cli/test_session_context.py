"""``pi-lsp session context`` as a user runs it, in a subprocess: listing, JSON, leaves, errors."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.cli.session_commands import fingerprint, run_session
from tests.sessions import fixture_session_params
from tests.shared_data import CONFORMANCE

SPLIT_AFTER = CONFORMANCE / "compaction-split-after-compaction" / "expected-session.jsonl"
#: a v1 session with compactions: generated, and Pi's own when the shared material is there
V1_SESSIONS = fixture_session_params("before-compaction.jsonl")


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return run_session("context", *args)


def header(session_id: str = "s1") -> dict[str, Any]:
    return {
        "type": "session",
        "version": 3,
        "id": session_id,
        "timestamp": "2025-01-01T00:00:00.000Z",
        "cwd": "/w",
    }


def message_entry(entry_id: str, parent: str | None, message: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2025-01-01T00:00:01.000Z",
        "message": message,
    }


def write_session(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_listing_of_the_golden_session_shows_both_summaries() -> None:
    before = fingerprint(SPLIT_AFTER)
    proc = run(SPLIT_AFTER)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    lines = proc.stdout.split("\n")
    assert lines[0] == "leaf {E14} · 7 messages · thinking off · model oracle/oracle-model"
    titles = [line for line in lines if line.startswith("[")]
    assert [t.split()[1] for t in titles] == [
        "user",
        "assistant",
        "user",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert proc.stdout.count("compacted into the following summary:") == 2
    assert "No prior history." in proc.stdout and "TURN ONE SUMMARY" in proc.stdout
    assert fingerprint(SPLIT_AFTER) == before


def test_json_at_a_leaf_gives_the_request_messages() -> None:
    proc = run(SPLIT_AFTER, "--leaf", "{E10}", "--json")
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert list(payload) == ["leaf", "thinkingLevel", "model", "messages"]
    assert payload["leaf"] == "{E10}"
    assert payload["thinkingLevel"] == "off"
    assert payload["model"] == {"provider": "oracle", "modelId": "oracle-model"}
    roles = [m["role"] for m in payload["messages"]]
    assert roles == ["user", "user", "assistant", "toolResult", "assistant", "user"]
    # the summary made from an entry whose timestamp was normalized to {ISO} has no valid time
    assert payload["messages"][0]["timestamp"] is None
    requests = json.loads((SPLIT_AFTER.parent / "expected-requests.json").read_text())
    sent = requests[4]["messages"]
    assert payload["messages"][0]["content"] == sent[1]["content"]
    assert payload["messages"][-1]["content"] == sent[-1]["content"]


def test_unknown_leaf_is_a_usage_error_naming_the_id_and_the_file() -> None:
    proc = run(SPLIT_AFTER, "--leaf", "nope")
    assert proc.returncode == 2
    assert proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert f"{SPLIT_AFTER}: no entry with id 'nope'" in line


@pytest.mark.parametrize("source", V1_SESSIONS)
def test_v1_file_is_migrated_in_memory_only(source: Path) -> None:
    before = fingerprint(source)
    proc = run(source, "--json")
    assert proc.returncode == 0, proc.stderr
    assert "version 1" in proc.stderr and "in memory" in proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["model"] == {"provider": "anthropic", "modelId": "claude-opus-4-5"}
    assert payload["messages"][0]["content"][0]["text"].startswith(
        "The conversation history before this point was compacted"
    )
    assert fingerprint(source) == before


def test_rendering_of_tool_calls_results_images_thinking_and_bash(tmp_path: Path) -> None:
    image = {"type": "image", "data": "AAAAAAAA", "mimeType": "image/png"}
    records = [
        header(),
        {
            "type": "thinking_level_change",
            "id": "t",
            "parentId": None,
            "timestamp": "2025-01-01T00:00:00.500Z",
            "thinkingLevel": "high",
        },
        message_entry(
            "u",
            "t",
            {"role": "user", "content": [{"type": "text", "text": "look"}, image], "timestamp": 1},
        ),
        message_entry(
            "a",
            "u",
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm"},
                    {"type": "text", "text": "reading"},
                    {
                        "type": "toolCall",
                        "id": "c1",
                        "name": "read",
                        "arguments": {"path": "é.txt"},
                    },
                ],
                "provider": "prov",
                "model": "mod",
                "stopReason": "toolUse",
                "timestamp": 2,
            },
        ),
        message_entry(
            "r",
            "a",
            {
                "role": "toolResult",
                "toolCallId": "c1",
                "toolName": "read",
                "content": [{"type": "text", "text": "nope"}],
                "isError": True,
                "timestamp": 3,
            },
        ),
        message_entry(
            "b",
            "r",
            {
                "role": "bashExecution",
                "command": "ls",
                "output": "x",
                "exitCode": 1,
                "cancelled": False,
                "truncated": False,
                "timestamp": 4,
            },
        ),
        message_entry(
            "h",
            "b",
            {
                "role": "bashExecution",
                "command": "secret",
                "output": "y",
                "exitCode": 0,
                "cancelled": False,
                "truncated": False,
                "timestamp": 5,
                "excludeFromContext": True,
            },
        ),
        message_entry(
            "e",
            "h",
            {
                "role": "assistant",
                "content": [],
                "provider": "prov",
                "model": "mod",
                "stopReason": "error",
                "errorMessage": "400: too long",
                "timestamp": 6,
            },
        ),
    ]
    path = write_session(tmp_path / "s.jsonl", records)
    proc = run(path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (
        "leaf e · 5 messages · thinking high · model prov/mod\n\n"
        "[1] user\nlook\n[image image/png, 6 bytes]\n\n"
        "[2] assistant (toolUse)\n[thinking]\nhmm\nreading\n"
        '→ tool call read (c1) {"path":"é.txt"}\n\n'
        "[3] tool result read (c1) — error\nnope\n\n"
        "[4] user\nRan `ls`\n```\nx\n```\n\nCommand exited with code 1\n\n"
        "[5] assistant — error, not replayed to the model: 400: too long\n"
    )


def test_branch_leaf_and_null_content(tmp_path: Path) -> None:
    records = [
        header(),
        message_entry("1", None, {"role": "user", "content": "one", "timestamp": 1}),
        message_entry("2", "1", {"role": "user", "content": "two", "timestamp": 2}),
        message_entry("3", "1", {"role": "user", "content": None, "timestamp": 3}),
    ]
    path = write_session(tmp_path / "s.jsonl", records)
    proc = run(path, "--leaf", "2", "--json")
    assert [m["content"] for m in json.loads(proc.stdout)["messages"]] == ["one", "two"]
    proc = run(path, "--json")
    assert [m["content"] for m in json.loads(proc.stdout)["messages"]] == ["one", []]


def test_skipped_lines_are_reported_with_their_line_number(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(
        json.dumps(header())
        + "\n{broken\n"
        + json.dumps(message_entry("1", None, {"role": "user", "content": "hi", "timestamp": 1}))
        + "\n",
        encoding="utf-8",
    )
    before = fingerprint(path)
    proc = run(path)
    assert proc.returncode == 0
    assert f"{path}:2:" in proc.stderr
    assert proc.stdout.startswith(
        "leaf 1 · 1 message · thinking off · model none\n\n[1] user\nhi\n"
    )
    assert fingerprint(path) == before


def test_lone_surrogates_and_non_ascii_survive_json(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    entry = message_entry("1", None, {"role": "user", "content": "x", "timestamp": 1})
    line = json.dumps(entry).replace('"content": "x"', '"content": "\\ud800 ünï"')
    path.write_text(json.dumps(header()) + "\n" + line + "\n", encoding="utf-8")
    proc = run(path, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["messages"][0]["content"] == "\ud800 ünï"
    assert "\\ud800 ünï" in proc.stdout


def test_not_a_session_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text('\n{"type": "message", "id": "x"}\n', encoding="utf-8")
    before = fingerprint(path)
    proc = run(path)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert f"{path}:2: not a Pi session" in proc.stderr
    assert fingerprint(path) == before


def test_missing_file_and_directory_exit_1(tmp_path: Path) -> None:
    for target in (tmp_path / "missing.jsonl", tmp_path):
        proc = run(target)
        assert proc.returncode == 1
        assert str(target) in proc.stderr


def test_empty_file_is_an_empty_session_and_stays_empty(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    proc = run(path, "--json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == {
        "leaf": None,
        "thinkingLevel": "off",
        "model": None,
        "messages": [],
    }
    assert "empty" in proc.stderr
    assert path.read_bytes() == b""


def test_usage_errors_exit_2() -> None:
    assert run().returncode == 2
    assert run(SPLIT_AFTER, "--bogus").returncode == 2
