"""``pi-lsp chat`` as a user runs it: the console script in a subprocess, a real HTTP model.

The model is :class:`~tests.agent.http_fixtures.LocalHTTPServer` on the test's event loop,
answering in OpenAI's streaming format; the CLI runs as an asyncio subprocess, so the server
keeps serving while the test waits for it. A models.json in the agent dir points the provider
``local`` at the server, with a literal API key that must never show up in what the CLI prints
or in the session file.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.agent.http_fixtures import (
    LocalHTTPServer,
    json_reply,
    openai_error_body,
    openai_text_reply,
    openai_tool_calls_reply,
)
from tests.agent.local_models import write_local_models
from tests.processes import alive

PI_LSP = Path(sys.executable).parent / "pi-lsp"
API_KEY = "sk-test-Zq9-very-secret-key"


@dataclass
class Done:
    code: int
    stdout: str
    stderr: str

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stdout.splitlines()]


def setup(tmp: Path, base_url: str) -> None:
    for name in ("home", "agent", "proj"):
        (tmp / name).mkdir(exist_ok=True)
    write_local_models(tmp / "agent", base_url, API_KEY, "m1")


async def chat(tmp: Path, *args: str) -> Done:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(HOME=str(tmp / "home"), PI_CODING_AGENT_DIR=str(tmp / "agent"))
    env.pop("OPENAI_API_KEY", None)
    process = await asyncio.create_subprocess_exec(
        str(PI_LSP),
        "chat",
        *args,
        cwd=tmp / "proj",
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode is not None
    return Done(process.returncode, out.decode(), err.decode())


def session_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.jsonl"))


def entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def no_key_in(*texts: str) -> bool:
    return all(API_KEY not in text for text in texts)


async def test_text_mode_prints_the_answer_and_saves_the_session(tmp_path: Path) -> None:
    async with LocalHTTPServer() as server:
        setup(tmp_path, server.base_url)
        server.enqueue(openai_text_reply("Hello there.\nSecond line."))
        sessions = tmp_path / "sessions"
        done = await chat(tmp_path, "-p", "--model", "m1", "--session-dir", str(sessions), "hi")

    assert done.code == 0, done.stderr
    assert done.stdout == "Hello there.\nSecond line.\n"
    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    body = request.json()
    assert body["model"] == "m1" and body["stream"] is True
    assert body["messages"][-1]["content"] in ("hi", [{"type": "text", "text": "hi"}])

    [file] = session_files(sessions)
    kinds = [(e["type"], e.get("message", {}).get("role")) for e in entries(file)]
    assert kinds == [
        ("session", None),
        ("model_change", None),
        ("thinking_level_change", None),
        ("message", "user"),
        ("message", "assistant"),
    ]
    assert entries(file)[1]["provider"] == "local" and entries(file)[1]["modelId"] == "m1"
    assert no_key_in(done.stdout, done.stderr, file.read_text())


async def test_json_mode_prints_the_header_then_every_event(tmp_path: Path) -> None:
    async with LocalHTTPServer() as server:
        setup(tmp_path, server.base_url)
        server.enqueue(openai_text_reply("Fine."))
        done = await chat(tmp_path, "--mode", "json", "--no-session", "--model", "local/m1", "hi")

    assert done.code == 0, done.stderr
    lines = done.lines()
    header = lines[0]
    assert header["type"] == "session" and header["cwd"] == str((tmp_path / "proj").resolve())
    kinds = [line["type"] for line in lines[1:]]
    assert kinds[:4] == ["agent_start", "turn_start", "message_start", "message_end"]
    assert kinds[-3:] == ["turn_end", "agent_end", "agent_settled"]
    updates = [line for line in lines if line["type"] == "message_update"]
    assert updates and all(set(u) == {"type", "usage", "assistantMessageEvent"} for u in updates)
    deltas = [
        u["assistantMessageEvent"]["delta"]
        for u in updates
        if "delta" in u["assistantMessageEvent"]
    ]
    assert "".join(deltas) == "Fine."
    assert "partial" not in json.dumps(updates)
    assert lines[-2]["willRetry"] is False
    # --no-session: nothing written anywhere
    assert not (tmp_path / "agent" / "sessions").exists()
    assert no_key_in(done.stdout, done.stderr)


async def test_a_bash_call_runs_and_the_session_keeps_it(tmp_path: Path) -> None:
    command = "echo from-bash > made.txt; echo printed"
    async with LocalHTTPServer() as server:
        setup(tmp_path, server.base_url)
        server.enqueue(
            openai_tool_calls_reply([{"name": "bash", "arguments": {"command": command}}]),
            openai_text_reply("All done."),
        )
        sessions = tmp_path / "sessions"
        done = await chat(
            tmp_path, "--mode", "json", "--model", "m1", "--session-dir", str(sessions), "go"
        )

    assert done.code == 0, done.stderr
    assert (tmp_path / "proj" / "made.txt").read_text() == "from-bash\n"
    lines = done.lines()
    [end] = [line for line in lines if line["type"] == "tool_execution_end"]
    assert end["toolName"] == "bash" and end["isError"] is False
    assert end["result"]["content"] == [{"type": "text", "text": "printed\n"}]
    assert not any(line["type"] == "tool_output" for line in lines)  # pi-lsp's own event
    # The model received the result.
    tool_message = server.requests[1].json()["messages"][-1]
    assert tool_message["role"] == "tool" and "printed" in json.dumps(tool_message)

    [file] = session_files(sessions)
    roles = [e["message"]["role"] for e in entries(file) if e["type"] == "message"]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    assert lines[0]["id"] == entries(file)[0]["id"]  # the header printed is the file's
    assert no_key_in(done.stdout, done.stderr, file.read_text())


async def test_continue_resumes_the_latest_session_with_its_model(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    async with LocalHTTPServer() as server:
        setup(tmp_path, server.base_url)
        server.enqueue(openai_text_reply("Noted."), openai_text_reply("It was 42."))
        first = await chat(tmp_path, "--model", "m1", "--session-dir", str(sessions), "keep 42")
        # No --model: the resumed session says which model.
        second = await chat(tmp_path, "--continue", "--session-dir", str(sessions), "what was it?")

    assert (first.code, second.code) == (0, 0), second.stderr
    assert second.stdout == "It was 42.\n"
    texts = [json.dumps(m) for m in server.requests[1].json()["messages"]]
    assert any("keep 42" in t for t in texts) and any("Noted." in t for t in texts)
    [file] = session_files(sessions)
    roles = [e["message"]["role"] for e in entries(file) if e["type"] == "message"]
    assert roles == ["user", "assistant", "user", "assistant"]
    assert sum(1 for e in entries(file) if e["type"] == "model_change") == 1


async def test_an_unknown_model_or_provider_is_a_usage_error(tmp_path: Path) -> None:
    async with LocalHTTPServer() as server:
        setup(tmp_path, server.base_url)
        model = await chat(tmp_path, "--model", "no-such-model", "hi")
        provider = await chat(tmp_path, "--provider", "nowhere", "--model", "m1", "hi")
        none = await chat(tmp_path, "--provider", "local", "--model", "m9", "hi")

    assert model.code == 2 and 'unknown model "no-such-model"' in model.stderr
    assert "local/m1" in model.stderr  # the choices are listed
    assert provider.code == 2 and 'unknown provider "nowhere"' in provider.stderr
    assert none.code == 2 and 'provider "local" has no model "m9"' in none.stderr
    assert server.requests == []
    assert not (tmp_path / "agent" / "sessions").exists()
    assert no_key_in(model.stderr, provider.stderr, none.stderr)


async def test_a_broken_models_json_is_named_with_its_line(tmp_path: Path) -> None:
    setup(tmp_path, "http://127.0.0.1:9")
    models = tmp_path / "agent" / "models.json"
    models.write_text('{\n  "providers": {\n    "local": {"baseUrl": 3}\n  }\n}\n')
    done = await chat(tmp_path, "--model", "m1", "hi")
    assert done.code == 2
    assert done.stderr.startswith(f"pi-lsp: {models}:3:")
    assert "baseUrl" in done.stderr

    models.write_text('{\n  "providers": {,\n}\n')
    done = await chat(tmp_path, "--model", "m1", "hi")
    assert done.code == 2 and f"{models}:2:" in done.stderr


async def test_a_failed_request_exits_1_in_text_mode_without_showing_the_key(
    tmp_path: Path,
) -> None:
    async with LocalHTTPServer() as server:
        setup(tmp_path, server.base_url)
        body = openai_error_body(
            f"Incorrect API key provided: {API_KEY}.", kind="invalid_request_error"
        )
        server.enqueue(json_reply(401, body))
        sessions = tmp_path / "sessions"
        text = await chat(tmp_path, "--model", "m1", "--session-dir", str(sessions), "hi")
        server.enqueue(json_reply(401, body))
        json_mode = await chat(tmp_path, "--mode", "json", "--model", "m1", "--no-session", "hi")

    assert text.code == 1 and text.stdout == ""
    assert "Incorrect API key provided" in text.stderr
    assert json_mode.code == 0  # as Pi 0.85: the events carry the error (anthropic http-400)
    assert json_mode.stderr == ""
    last_message = [line for line in json_mode.lines() if line["type"] == "message_end"][-1]
    assert last_message["message"]["stopReason"] == "error"
    [file] = session_files(sessions)  # the failed answer is kept, as Pi keeps it
    assert no_key_in(text.stdout, text.stderr, json_mode.stdout, json_mode.stderr)
    assert no_key_in(file.read_text())


async def test_sigterm_aborts_the_run_and_kills_the_command(tmp_path: Path) -> None:
    pids_file = tmp_path / "pids"
    command = f"echo $$ > {pids_file}; sleep 300 & echo $! >> {pids_file}; wait"
    async with LocalHTTPServer() as server:
        setup(tmp_path, server.base_url)
        server.enqueue(
            openai_tool_calls_reply([{"name": "bash", "arguments": {"command": command}}])
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
        env.update(HOME=str(tmp_path / "home"), PI_CODING_AGENT_DIR=str(tmp_path / "agent"))
        process = await asyncio.create_subprocess_exec(
            str(PI_LSP),
            "chat",
            "--mode",
            "json",
            "--model",
            "m1",
            "--session-dir",
            str(tmp_path / "sessions"),
            "wait",
            cwd=tmp_path / "proj",
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        deadline = asyncio.get_running_loop().time() + 20
        while len(pids_file.read_text().split() if pids_file.exists() else []) < 2:
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.02)
        pids = [int(pid) for pid in pids_file.read_text().split()]
        process.terminate()
        out, _ = await asyncio.wait_for(process.communicate(), 20)

    assert process.returncode == 143
    assert not any(alive(pid) for pid in pids)
    lines = [json.loads(line) for line in out.decode().splitlines()]
    [end] = [line for line in lines if line["type"] == "tool_execution_end"]
    assert end["isError"] is True
    assert lines[-1]["type"] == "agent_settled"
    assert len(server.requests) == 1
    [file] = session_files(tmp_path / "sessions")
    messages = [e["message"] for e in entries(file) if e["type"] == "message"]
    assert [m["role"] for m in messages][:3] == ["user", "assistant", "toolResult"]
    assert messages[2]["isError"] is True
    assert messages[-1]["role"] == "assistant" and messages[-1]["stopReason"] == "aborted"
