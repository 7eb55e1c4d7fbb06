"""Changes the server's change filter must never drop, driven over stdio.

The filter drops an event whose file is as it was (same bytes, same kind of file) when the
snapshots last saw it. These are the cases where "as it was" used to be judged wrongly: a
copy swapped for a symlink with the same text, a file the snapshots read between two of its
events, and a file read from a folder a settings file names, whose name is no resource name.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.harness import WAIT, start_client, wait_until


async def _status(client: LanguageClient) -> Any:
    return await asyncio.wait_for(client.protocol.send_request_async("pi/status", {}), WAIT)


async def _started(client: LanguageClient) -> Any:
    """The status once the server watches its folders and has loaded everything once."""
    for _ in range(1000):
        status = await _status(client)
        if (status.watchedFolders or status.clientWatches) and status.rebuilds >= 1:
            return status
        await asyncio.sleep(0.02)
    raise AssertionError("the server never started watching")


async def _rebuild_for(client: LanguageClient, path: Path, after: int) -> Any:
    """The status once a rebuild after the ``after``-th names ``path`` in its reason."""
    for _ in range(int(WAIT / 0.02)):
        status = await _status(client)
        if status.rebuilds > after and str(path) in list(status.lastRebuild.reason or ()):
            return status
        await asyncio.sleep(0.02)
    raise AssertionError(f"no rebuild for {path}: {status}")


def _codes(diagnostics: list[types.Diagnostic]) -> list[str]:
    return [str(d.code) for d in diagnostics]


def _has(code: str) -> Any:
    return lambda ds: code in _codes(ds)


def _lacks(code: str) -> Any:
    return lambda ds: code not in _codes(ds)


def _report_change(client: LanguageClient, path: Path) -> None:
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            [types.FileEvent(uri=path.as_uri(), type=types.FileChangeType.Changed)]
        )
    )


async def test_a_copy_replaced_by_a_symlink_with_the_same_text_is_a_change(
    workspace: Path,
) -> None:
    pkg = workspace / "ws" / "pkg"
    claude = pkg / "CLAUDE.md"
    client = await start_client(workspace, "neovim")  # the server watches for itself
    try:
        await _started(client)
        claude.write_bytes((pkg / "AGENTS.md").read_bytes())  # a copy: Pi never reads it
        await wait_until(client, claude, _has("PI201"))
        # the same text, now as a link to the file Pi reads (swapped in whole, as tools do)
        temporary = pkg / ".CLAUDE.md.1a2b.tmp"
        os.symlink("AGENTS.md", temporary)
        os.replace(temporary, claude)
        await wait_until(client, claude, _lacks("PI201"))
    finally:
        await client.shutdown_session()


async def test_a_file_read_between_its_reports_is_compared_with_what_was_read(
    workspace: Path,
) -> None:
    """A, reported; B, read by a rebuild for another file; A again, reported: A is shown."""
    root_file = workspace / "ws" / "AGENTS.md"
    pkg = workspace / "ws" / "pkg" / "AGENTS.md"
    conflicting = "# Tools\n\n- Always use pnpm.\n"  # with the root's "use npm": PI101
    agreeing = "# Tools\n\n- Use npm as well.\n"
    # the client watches (as VS Code does): only what the test reports is reported
    client = await start_client(workspace, watches=True)
    try:
        started = await _started(client)
        pkg.write_text(conflicting + "\n")  # A
        _report_change(client, pkg)
        first = await _rebuild_for(client, pkg, started.rebuilds)
        pkg.write_text(agreeing)  # B, not reported yet
        _report_change(client, root_file)  # re-reads the chain, pkg's file among it
        await _rebuild_for(client, root_file, first.rebuilds)
        await wait_until(client, pkg, _lacks("PI101"))
        pkg.write_text(conflicting + "\n")  # A again (a checkout and its undo)
        _report_change(client, pkg)  # the one report of both writes
        await wait_until(client, pkg, _has("PI101"))
    finally:
        await client.shutdown_session()


async def test_a_template_from_a_folder_the_settings_name_is_watched(workspace: Path) -> None:
    folder = workspace / "ws" / "team-prompts"
    folder.mkdir()
    template = folder / "review.md"
    template.write_text("Review the change.\n")
    settings = {"prompts": [str(folder)]}
    (workspace / "agent" / "settings.json").write_text(json.dumps(settings))
    client = await start_client(workspace, "neovim")
    try:
        started = await _started(client)
        template.write_text("Review the change, then list the risks.\n")
        rebuilt = await _rebuild_for(client, template, started.rebuilds)
        assert list(rebuilt.lastRebuild.reason) == [str(template)]
    finally:
        await client.shutdown_session()
