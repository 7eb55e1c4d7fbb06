"""No rebuild without a real change: the server's own writes never wake its watcher.

Reading a ``trust.json`` takes Pi's lock (a ``trust.json.lock`` folder made and removed), so
once a project is trusted every rebuild used to wake the watcher for the next one, for ever.
These tests drive the server over stdio with a client that leaves watching to the server (as
Neovim does) and count rebuilds through ``pi/status``.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.harness import WAIT, project_needing_trust, start_client, wait_until

IDLE_SECONDS = 5.0


async def _status(client: LanguageClient) -> Any:
    return await asyncio.wait_for(client.protocol.send_request_async("pi/status", {}), WAIT)


async def _trust(client: LanguageClient, params: dict[str, Any]) -> Any:
    return await asyncio.wait_for(client.protocol.send_request_async("pi/trust", params), WAIT)


async def _started(client: LanguageClient) -> Any:
    """The status once the server watches its folders and has loaded everything once."""
    for _ in range(1000):
        status = await _status(client)
        if status.watchedFolders and status.rebuilds >= 1:
            return status
        await asyncio.sleep(0.02)
    raise AssertionError("the server never started watching")


async def _next_rebuild(client: LanguageClient, after: int) -> Any:
    """The status once more than ``after`` rebuilds have run."""
    for _ in range(int(WAIT / 0.02)):
        status = await _status(client)
        if status.rebuilds > after:
            return status
        await asyncio.sleep(0.02)
    raise AssertionError(f"no rebuild after {after}")


def _codes(diagnostics: list[types.Diagnostic]) -> list[str]:
    return [str(d.code) for d in diagnostics]


async def test_a_trusted_project_is_idle_and_a_real_change_rebuilds_once(
    workspace: Path,
) -> None:
    ws, system = project_needing_trust(workspace)
    agent = workspace / "agent"
    pkg = ws / "pkg" / "AGENTS.md"
    client = await start_client(workspace, "neovim")  # the server watches for itself
    try:
        await _started(client)
        await wait_until(client, system, lambda ds: "PI203" in _codes(ds))
        result = await _trust(client, {"cwd": str(ws), "decision": True})
        assert result.trusted is True
        await wait_until(client, system, lambda ds: "PI203" not in _codes(ds))
        await asyncio.sleep(1.0)  # the watcher's report of the trust.json write, if any

        before = (await _status(client)).rebuilds
        await asyncio.sleep(IDLE_SECONDS)
        idle = await _status(client)
        assert idle.rebuilds == before, f"{idle.rebuilds - before} rebuilds while idle"

        # writes that feed no prompt: a trust query (it takes the lock), an atomic-write
        # temp, a session file, a lock of another store
        assert (await _trust(client, {"cwd": str(ws)})).trusted is True
        (agent / ".trust.json.5f3a.tmp").write_text("{}")
        sessions = agent / "sessions" / "--ws--"
        sessions.mkdir(parents=True)
        (sessions / "2026-01-01_abc.jsonl").write_text(json.dumps({"type": "session"}) + "\n")
        (ws / ".pi" / "settings.json.lock").mkdir()
        os.rmdir(ws / ".pi" / "settings.json.lock")

        # a real change after them: one rebuild, whose reason is that file alone (had any
        # of the writes above been taken for a change, it would be in this reason too, or
        # have made a rebuild of its own before it)
        pkg.write_text("# Tools\n\n- Use npm as well.\n")
        rebuilt = await _next_rebuild(client, idle.rebuilds)
        assert list(rebuilt.lastRebuild.reason) == [str(pkg)]
        await wait_until(client, pkg, lambda ds: "PI101" not in _codes(ds))
        await asyncio.sleep(1.0)
        after = await _status(client)
        assert after.rebuilds == idle.rebuilds + 1
        assert list(after.lastRebuild.reason) == [str(pkg)]
    finally:
        await client.shutdown_session()


async def test_rewriting_a_context_file_with_the_same_text_is_no_change(
    workspace: Path,
) -> None:
    pkg = workspace / "ws" / "pkg" / "AGENTS.md"
    root_file = workspace / "ws" / "AGENTS.md"
    client = await start_client(workspace, "neovim")
    try:
        started = await _started(client)
        pkg.write_text("# Tools\n\n- Use npm as well.\n")
        first = await _next_rebuild(client, started.rebuilds)
        assert list(first.lastRebuild.reason) == [str(pkg)]
        pkg.write_text("# Tools\n\n- Use npm as well.\n")  # saved again, unchanged
        root_file.write_text("# Tools\n\n- Use yarn to install packages.\n")
        second = await _next_rebuild(client, first.rebuilds)
        assert list(second.lastRebuild.reason) == [str(root_file)]
    finally:
        await client.shutdown_session()


async def test_the_clients_reports_of_bookkeeping_are_no_change(workspace: Path) -> None:
    pkg = workspace / "ws" / "pkg" / "AGENTS.md"
    client = await start_client(workspace)  # the client says what changed (VS Code)
    try:
        started = await _started(client)
        lock = workspace / "ws" / ".pi" / "trust.json.lock"
        temp = workspace / "ws" / ".pi" / ".settings.json.0c1d.tmp"
        # nothing is written (the server's own watcher sees nothing): the reports alone count;
        # pkg's is its first, so it counts as a change
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                [
                    types.FileEvent(uri=lock.as_uri(), type=types.FileChangeType.Created),
                    types.FileEvent(uri=lock.as_uri(), type=types.FileChangeType.Deleted),
                    types.FileEvent(uri=temp.as_uri(), type=types.FileChangeType.Deleted),
                    types.FileEvent(uri=pkg.as_uri(), type=types.FileChangeType.Changed),
                ]
            )
        )
        rebuilt = await _next_rebuild(client, started.rebuilds)
        assert list(rebuilt.lastRebuild.reason) == [str(pkg)]
    finally:
        await client.shutdown_session()
