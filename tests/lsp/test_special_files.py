"""Endless and special files over stdio: ``/dev/zero``, a named pipe and a folder named as a
session are refused promptly, naming the path, and the server keeps answering.

Before, ``pi/session/tree`` on ``/dev/zero`` read until the kernel killed the server, hovers
and the session views answered ``MemoryError`` and a grep never answered. pytest-timeout
turns a regression into a failure instead of a hang.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.lsp.harness import start_client
from tests.lsp.test_chat import request
from tests.lsp.test_run_tool import run, text_of

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.jsonl"
    os.mkfifo(path)
    return path


@contextlib.asynccontextmanager
async def serving(workspace: Path) -> AsyncIterator[LanguageClient]:
    """A started server (not a fixture: pytest-lsp would fail a passing test on the
    watcher registration this plain client declines)."""
    client = await start_client(workspace)
    try:
        yield client
    finally:
        with contextlib.suppress(Exception):
            await client.shutdown_session()


async def still_answers(client: LanguageClient, workspace: Path) -> None:
    status = await request(client, "pi/status", {})
    assert status["root"] == str(workspace / "ws")


async def refused(client: LanguageClient, method: str, params: dict[str, Any]) -> str:
    with pytest.raises(JsonRpcException) as raised:
        await request(client, method, params)
    message = str(raised.value.message)
    assert "MemoryError" not in message and "Traceback" not in message
    return message


SPECIAL = (("/dev/zero", "character device"), ("{fifo}", "named pipe"))


def special_paths(fifo: Path) -> list[tuple[str, str]]:
    return [(path.format(fifo=fifo), kind) for path, kind in SPECIAL]


async def test_session_views_refuse_a_device_a_pipe_and_a_folder(
    workspace: Path, fifo: Path
) -> None:
    folder = workspace / "ws" / "pkg"
    async with serving(workspace) as client:
        for method in ("pi/session/tree", "pi/session/messages", "pi/session/usage"):
            for path, kind in special_paths(fifo):
                message = await refused(client, method, {"file": path})
                assert message.startswith(f"{method}: {path}: "), message
                assert f"not a regular file ({kind})" in message, message
                await still_answers(client, workspace)
            message = await refused(client, method, {"file": str(folder)})
            assert str(folder) in message and "is a directory" in message, message
            await still_answers(client, workspace)


async def test_the_session_list_skips_a_pipe_and_a_device_in_the_folder(
    workspace: Path, fifo: Path
) -> None:
    folder = fifo.parent
    (folder / "zero.jsonl").symlink_to("/dev/zero")
    header = {"type": "session", "version": 3, "id": "s-real", "timestamp": "2026-01-01T00:00:00Z"}
    (folder / "real.jsonl").write_text(json.dumps({**header, "cwd": str(workspace)}) + "\n")
    async with serving(workspace) as client:
        listed = await request(client, "pi/session/list", {"sessionDir": str(folder)})
        assert [entry["id"] for entry in listed["sessions"]] == ["s-real"]
        await still_answers(client, workspace)


async def test_hover_and_grep_on_a_device_or_a_pipe(workspace: Path, fifo: Path) -> None:
    async with serving(workspace) as client:
        for path, kind in special_paths(fifo):
            params = types.HoverParams(
                types.TextDocumentIdentifier(Path(path).as_uri()), types.Position(0, 0)
            )
            assert await client.text_document_hover_async(params) is None  # nothing to show
            await still_answers(client, workspace)
            result = await run(client, {"tool": "grep", "args": {"pattern": "x", "path": path}})
            assert result["isError"] is True
            assert text_of(result) == f"Not a regular file: {path} ({kind})"
            await still_answers(client, workspace)
