"""``pi/runTool`` over stdio: streamed ``pi/event``s, cancellation, progress, errors."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled
from pytest_lsp import LanguageClient

from pi_lsp.server.features.tool_runs import register, runs_of
from pi_lsp.server.language_server import PiLanguageServer
from pi_lsp.server.requests import plain
from tests.lsp.harness import CLIENTS, WAIT, start_client
from tests.processes import alive, all_gone

Event = dict[str, Any]


@pytest.fixture(autouse=True)
def private_temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The server inherits TMPDIR: bash's full-output files land in this test's directory."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    return temp


class Events:
    """Every ``pi/event`` the client receives, as plain dicts, in arrival order."""

    def __init__(self, client: LanguageClient) -> None:
        self.received: list[Event] = []
        self.prompt_announced = asyncio.Event()

        # pygls tags handlers with attributes: they must be functions, not bound methods.
        def on_event(params: Any) -> None:
            self.received.append(plain(params))

        def on_prompt_changed(params: Any) -> None:
            self.prompt_announced.set()

        client.feature("pi/event")(on_event)
        client.feature("pi/systemPromptChanged")(on_prompt_changed)

    def of(self, stream: Any) -> list[Event]:
        return [e for e in self.received if e["stream"] == stream]

    async def until(self, predicate: Callable[[list[Event]], bool]) -> None:
        deadline = time.monotonic() + WAIT
        while not predicate(self.received):
            assert time.monotonic() < deadline, f"no such event in {self.received[-5:]}"
            await asyncio.sleep(0.01)


async def open_client(
    workspace: Path, client_name: str = "visual-studio-code"
) -> tuple[LanguageClient, Events]:
    """A started client that records events, once the server's first rebuild is done.

    (A shutdown that meets the first rebuild still running is slow; waiting keeps these tests
    about tool runs. Nothing depends on the announcement coming: after a while we go on.)
    """
    client = await start_client(workspace, client_name)
    events = Events(client)  # no await since initialize: no notification can be missed
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(events.prompt_announced.wait(), 10)
    return client, events


def send_run(
    client: LanguageClient, params: dict[str, Any], msg_id: str | None = None
) -> asyncio.Task[Any]:
    """Send the request now (pytest-lsp's ``send_request_async`` is a coroutine) and return
    the task that waits for the response."""
    return asyncio.ensure_future(
        client.protocol.send_request_async("pi/runTool", params, msg_id=msg_id)
    )


async def run(client: LanguageClient, params: dict[str, Any]) -> dict[str, Any]:
    result = plain(await asyncio.wait_for(send_run(client, params), WAIT))
    assert isinstance(result, dict)
    return result


def text_of(result: dict[str, Any]) -> str:
    return "".join(block.get("text", "") for block in result["content"])


def output_of(events: list[Event]) -> str:
    return "".join(e["text"] for e in events if e["type"] == "output")


def check_stream(events: list[Event], result: dict[str, Any]) -> list[Event]:
    """The stream is complete and in order; its end event says what the response says."""
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    types_ = [e["type"] for e in events]
    assert types_[0] == "start" and types_[-1] == "end"
    assert set(types_[1:-1]) <= {"output"}
    end = events[-1]
    assert end["isError"] == result["isError"]
    assert end["content"] == result["content"]
    assert end.get("details") == result.get("details")
    return [e for e in events if e["type"] == "output"]


async def started_sleeper(
    client: LanguageClient, events: Events, where: Path, **extra: Any
) -> tuple[Any, list[int], str]:
    """A bash run in ``where`` that records the shell's and a background sleep's pids, then
    waits."""
    msg_id = str(uuid.uuid4())
    stream = f"sleeper-{msg_id}"
    command = "echo $$ > pids; sleep 300 & echo $! >> pids; echo started; wait"
    pending = send_run(
        client,
        {
            "tool": "bash",
            "args": {"command": command},
            "cwd": str(where),
            "stream": stream,
            **extra,
        },
        msg_id,
    )
    await events.until(lambda _: "started" in output_of(events.of(stream)))
    pids = [int(line) for line in (where / "pids").read_text().split()]
    assert len(pids) == 2 and all(alive(pid) for pid in pids)
    return pending, pids, msg_id


# --- streaming --------------------------------------------------------------------------------


@pytest.mark.parametrize("client_name", CLIENTS)
async def test_fast_output_is_coalesced_and_nothing_is_lost(
    workspace: Path, client_name: str
) -> None:
    client, events = await open_client(workspace, client_name)
    try:
        command = "for i in $(seq 1 20000); do echo line $i; done"
        result = await run(client, {"tool": "bash", "args": {"command": command}})
        stream = result["stream"]
        outputs = check_stream(events.of(stream), result)
        streamed = output_of(outputs)
        assert streamed == "".join(f"line {i}\n" for i in range(1, 20001))
        # The model's view is cut; the stream and the full-output file have everything.
        assert result["details"]["truncation"]["truncated"] is True
        assert streamed == Path(result["details"]["fullOutputPath"]).read_text()
        assert len(outputs) < 20000 / 20
        start = events.of(stream)[0]
        assert (start["tool"], start["args"]) == ("bash", {"command": command})
    finally:
        await client.shutdown_session()


async def test_output_under_the_limit_equals_the_result(workspace: Path) -> None:
    client, events = await open_client(workspace)
    try:
        command = "seq 1 500; echo 'to stderr' >&2; printf 'no newline'"
        result = await run(client, {"tool": "bash", "args": {"command": command}})
        assert result["isError"] is False and "details" not in result
        outputs = check_stream(events.of(result["stream"]), result)
        assert output_of(outputs) == text_of(result)
    finally:
        await client.shutdown_session()


async def test_slow_output_arrives_piece_by_piece(workspace: Path) -> None:
    client, events = await open_client(workspace)
    try:
        command = "echo a; sleep 0.3; echo b"
        result = await run(client, {"tool": "bash", "args": {"command": command}, "stream": 7})
        assert result["stream"] == 7
        outputs = check_stream(events.of(7), result)
        assert [e["text"] for e in outputs] == ["a\n", "b\n"]
    finally:
        await client.shutdown_session()


async def test_output_arrives_while_the_command_still_runs(workspace: Path) -> None:
    client, events = await open_client(workspace)
    try:
        command = "echo a; while [ ! -e go ]; do sleep 0.02; done; echo b"
        where = workspace / "tmp"  # outside the workspace: no rebuild for what it writes
        params = {"tool": "bash", "args": {"command": command}, "cwd": str(where), "stream": "gate"}
        pending = send_run(client, params)
        await events.until(lambda _: output_of(events.of("gate")) == "a\n")
        assert not pending.done()
        (where / "go").touch()
        result = plain(await asyncio.wait_for(pending, WAIT))
        outputs = check_stream(events.of("gate"), result)
        assert output_of(outputs) == "a\nb\n" == text_of(result)
    finally:
        await client.shutdown_session()


async def test_a_failing_command_is_a_result_not_an_error(workspace: Path) -> None:
    client, events = await open_client(workspace)
    try:
        result = await run(client, {"tool": "bash", "args": {"command": "echo oops; exit 3"}})
        assert result["isError"] is True
        assert text_of(result) == "oops\n\n\nCommand exited with code 3"
        outputs = check_stream(events.of(result["stream"]), result)
        assert output_of(outputs) == "oops\n"
    finally:
        await client.shutdown_session()


async def test_two_runs_stream_side_by_side(workspace: Path) -> None:
    client, events = await open_client(workspace)
    try:
        first, second = await asyncio.gather(
            run(client, {"tool": "bash", "args": {"command": "seq 1 1500"}, "stream": "one"}),
            run(client, {"tool": "bash", "args": {"command": "seq 5 1000"}, "stream": "two"}),
        )
        assert output_of(check_stream(events.of("one"), first)) == text_of(first)
        assert output_of(check_stream(events.of("two"), second)) == text_of(second)
    finally:
        await client.shutdown_session()


# --- other tools and errors -------------------------------------------------------------------


async def test_read_runs_in_the_workspace_root_by_default(workspace: Path) -> None:
    client, events = await open_client(workspace)
    try:
        result = await run(client, {"tool": "read", "args": {"path": "AGENTS.md"}})
        assert result["isError"] is False
        assert "Use npm to install packages." in text_of(result)
        stream = check_stream(events.of(result["stream"]), result)
        assert stream == []  # read streams nothing: start, then end

        result = await run(client, {"tool": "read", "args": {"path": "AGENTS.md"}, "cwd": "pkg"})
        assert "Always use pnpm." in text_of(result)
    finally:
        await client.shutdown_session()


async def test_nested_arguments_reach_the_tool_as_plain_objects(workspace: Path) -> None:
    client, events = await open_client(workspace)
    try:
        events.prompt_announced.clear()
        args = {"path": "pkg/AGENTS.md", "edits": [{"oldText": "pnpm", "newText": "bun"}]}
        result = await run(client, {"tool": "edit", "args": args})
        assert result["isError"] is False, text_of(result)
        assert (workspace / "ws" / "pkg" / "AGENTS.md").read_text().endswith("Always use bun.\n")
        with contextlib.suppress(TimeoutError):  # let the rebuild for the edit finish
            await asyncio.wait_for(events.prompt_announced.wait(), 10)
    finally:
        await client.shutdown_session()


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"tool": "nope", "args": {}}, "unknown tool 'nope'"),
        ({"tool": "read", "args": {}}, "invalid arguments for read"),
        ({"tool": "read", "args": "AGENTS.md"}, "must be a JSON object"),
        ({"args": {}}, "'tool' must be"),
        ({"tool": "read", "args": {"path": "x"}, "cwd": 3}, "'cwd' must be"),
    ],
)
async def test_a_call_that_cannot_run_is_an_error_response(
    workspace: Path, params: dict[str, Any], words: str
) -> None:
    client, events = await open_client(workspace)
    try:
        with pytest.raises(JsonRpcException) as raised:
            await run(client, params)
        assert raised.value.code == types.ErrorCodes.InvalidParams
        assert words in raised.value.message
        assert events.received == []
        # The server is fine.
        result = await run(client, {"tool": "ls", "args": {}})
        assert "AGENTS.md" in text_of(result)
    finally:
        await client.shutdown_session()


async def test_a_stream_id_in_use_is_refused(workspace: Path) -> None:
    client, events = await open_client(workspace)
    try:
        pending, pids, msg_id = await started_sleeper(client, events, workspace / "tmp")
        stream = events.received[0]["stream"]
        with pytest.raises(JsonRpcException, match="still running"):
            await run(client, {"tool": "ls", "args": {}, "stream": stream})
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
        with pytest.raises(JsonRpcRequestCancelled):
            await asyncio.wait_for(pending, WAIT)
        assert await all_gone(pids)
    finally:
        await client.shutdown_session()


# --- cancellation -----------------------------------------------------------------------------


@pytest.mark.parametrize("client_name", CLIENTS)
async def test_cancel_request_kills_the_command_and_its_children(
    workspace: Path, client_name: str
) -> None:
    client, events = await open_client(workspace, client_name)
    try:
        pending, pids, msg_id = await started_sleeper(client, events, workspace / "tmp")
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
        with pytest.raises(JsonRpcRequestCancelled):
            await asyncio.wait_for(pending, WAIT)
        assert await all_gone(pids)

        stream = events.received[0]["stream"]
        run_events = events.of(stream)
        end = run_events[-1]
        assert end["type"] == "end" and end["isError"] is True and end["aborted"] is True
        assert end["content"][0]["text"].endswith("Command aborted")
        assert [e["seq"] for e in run_events] == list(range(1, len(run_events) + 1))

        result = await run(client, {"tool": "bash", "args": {"command": "echo still here"}})
        assert text_of(result) == "still here\n"
    finally:
        await client.shutdown_session()


async def test_shutting_the_server_down_kills_running_commands(workspace: Path) -> None:
    client, events = await open_client(workspace)
    pending, pids, _ = await started_sleeper(client, events, workspace / "tmp")
    await client.shutdown_session()
    assert await all_gone(pids)
    pending.cancel()


# --- progress ---------------------------------------------------------------------------------


async def test_progress_on_the_clients_token(workspace: Path) -> None:
    client, _ = await open_client(workspace)
    try:
        token = "my-token"
        client.progress_reports[token] = []  # as if the client had announced it
        result = await run(
            client,
            {"tool": "bash", "args": {"command": "seq 1 5"}, "workDoneToken": token},
        )
        assert result["isError"] is False
        reports = client.progress_reports[token]
        begin, *middle, end = reports
        assert isinstance(begin, types.WorkDoneProgressBegin)
        assert (begin.title, begin.message, begin.cancellable) == ("pi: bash", "seq 1 5", True)
        assert all(isinstance(r, types.WorkDoneProgressReport) for r in middle)
        assert middle and middle[-1].message == "5 lines of output"
        assert isinstance(end, types.WorkDoneProgressEnd)
        assert end.message == "done: 5 lines of output"
    finally:
        await client.shutdown_session()


@pytest.mark.parametrize("client_name", CLIENTS)
async def test_progress_on_a_token_the_server_creates(workspace: Path, client_name: str) -> None:
    client, _ = await open_client(workspace, client_name)
    try:
        result = await run(client, {"tool": "bash", "args": {"command": "echo one; exit 1"}})
        assert result["isError"] is True
        [reports] = [
            r for token, r in client.progress_reports.items() if str(token).startswith("pi-lsp/")
        ]
        assert isinstance(reports[0], types.WorkDoneProgressBegin)
        assert reports[0].title == "pi: bash"
        assert isinstance(reports[-1], types.WorkDoneProgressEnd)
        assert reports[-1].message == "failed: 1 line of output"
    finally:
        await client.shutdown_session()


async def test_cancelling_the_progress_aborts_the_run(workspace: Path) -> None:
    client, events = await open_client(workspace)
    try:
        token = "stop-me"
        client.progress_reports[token] = []
        pending, pids, _ = await started_sleeper(
            client, events, workspace / "tmp", workDoneToken=token
        )
        client.protocol.notify(
            types.WINDOW_WORK_DONE_PROGRESS_CANCEL, types.WorkDoneProgressCancelParams(token)
        )
        result = plain(await asyncio.wait_for(pending, WAIT))
        assert result["isError"] is True and text_of(result).endswith("Command aborted")
        assert await all_gone(pids)
        assert events.received[-1]["aborted"] is True
        end = client.progress_reports[token][-1]
        assert isinstance(end, types.WorkDoneProgressEnd) and end.message == "aborted"
    finally:
        await client.shutdown_session()


# --- in process -------------------------------------------------------------------------------


class Wire:
    """A writer for a server without a client: keeps every message it sends."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.messages.append(json.loads(data))

    def close(self) -> None:
        pass


async def test_shutdown_aborts_the_runs_and_waits_until_they_answered(tmp_path: Path) -> None:
    """What the shutdown handler calls: every command dies, every run gets its end event."""
    server = PiLanguageServer()
    wire = Wire()
    server.protocol.set_writer(wire, include_headers=False)
    register(server)
    command = "echo $$ > pids; sleep 300 & echo $! >> pids; wait"
    params = {"tool": "bash", "args": {"command": command}, "cwd": str(tmp_path), "stream": 1}
    running = asyncio.ensure_future(runs_of(server).run(server, params))
    pids_file = tmp_path / "pids"
    deadline = time.monotonic() + WAIT
    while len(pids_file.read_text().split() if pids_file.exists() else []) < 2:
        assert time.monotonic() < deadline and not running.done()
        await asyncio.sleep(0.01)
    pids = [int(pid) for pid in pids_file.read_text().split()]

    await server.stop_features()
    assert running.done()
    result = running.result()
    assert result["isError"] is True and text_of(result) == "Command aborted"
    assert await all_gone(pids)
    events = [m["params"] for m in wire.messages if m.get("method") == "pi/event"]
    assert [(e["seq"], e["type"]) for e in events] == [(1, "start"), (2, "end")]
    assert events[-1]["aborted"] is True
    await server.stop_features()  # nothing running: returns at once
