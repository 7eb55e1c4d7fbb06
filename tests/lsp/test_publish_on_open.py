"""Opening a file sends its diagnostics again only when they would differ from what the client
shows: diagnostics published for the file as on disk hold for a buffer with the same text.

VS Code takes every publish as new diagnostics: it asks for the file's code actions again and
drops the commands of the quick-fix menu the user may have open (the user clicked a finding in
the Problems panel, which opened its file, then the light bulb). So the server must not send
the same diagnostics again for the opened buffer; it must still send them, stamped with the
buffer's version, once the buffer's text is not the text they were computed from.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.harness import (
    WAIT,
    diagnostics_for,
    open_document,
    replace_document,
    start_client,
    wait_until,
)

PKG_TEXT = "# Tools\n\n- Always use pnpm.\n"  # conftest: contradicts ws/AGENTS.md (npm)


def record_publishes(client: LanguageClient) -> list[types.PublishDiagnosticsParams]:
    """Every publish the client receives, in order (the client still keeps the latest)."""
    received: list[types.PublishDiagnosticsParams] = []
    handlers = client.protocol.fm.features  # pytest-lsp's own handler keeps the latest
    keep_latest = handlers[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def publish(params: types.PublishDiagnosticsParams) -> None:
        received.append(params)
        keep_latest(params)

    handlers[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    return received


async def _status(client: LanguageClient) -> Any:
    return await asyncio.wait_for(client.protocol.send_request_async("pi/status", {}), WAIT)


async def rebuilt_for(client: LanguageClient, path: Path, after: int) -> None:
    """Return once a rebuild after the first ``after`` has gone through ``path``, and so has
    published what it had to: the server publishes as the rebuild ends, before it answers."""
    for _ in range(int(WAIT / 0.02)):
        status = await _status(client)
        last = status.lastRebuild
        reason = None if last is None else last.reason
        if status.rebuilds > after and (reason is None or str(path) in list(reason)):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"no rebuild for {path} after {after}")


def for_uri(
    received: list[types.PublishDiagnosticsParams], uri: str
) -> list[types.PublishDiagnosticsParams]:
    return [params for params in received if params.uri == uri]


def conflicts(diagnostics: list[types.Diagnostic]) -> bool:
    return any(d.code == "PI101" for d in diagnostics)


async def test_opening_a_file_as_on_disk_publishes_nothing_and_an_edit_does(
    workspace: Path,
) -> None:
    pkg = workspace / "ws" / "pkg" / "AGENTS.md"
    client = await start_client(workspace, watches=True)
    received = record_publishes(client)
    try:
        on_disk = await wait_until(client, pkg, conflicts)
        [first] = for_uri(received, pkg.as_uri())
        assert first.version is None  # published for the file on disk
        before = int((await _status(client)).rebuilds)

        uri = open_document(client, pkg)  # version 1, the text on disk
        await rebuilt_for(client, pkg, before)
        assert for_uri(received, uri) == [first]  # the same diagnostics were not sent again
        assert list(client.diagnostics[uri]) == on_disk

        # an edit that moves nothing: the finding is the same, the text is not
        replace_document(client, pkg, PKG_TEXT + "\nMore text.\n", 2)
        edited = await wait_until(client, pkg, lambda _: len(for_uri(received, uri)) > 1)
        [_, second] = for_uri(received, uri)
        assert second.version == 2
        assert edited == on_disk

        # an edit that removes the finding
        replace_document(client, pkg, "# Tools\n", 3)
        await wait_until(client, pkg, lambda found: not found)
        assert for_uri(received, uri)[-1].version == 3
    finally:
        await client.shutdown_session()


async def test_opening_a_buffer_that_differs_from_the_disk_publishes_for_its_version(
    workspace: Path,
) -> None:
    """Same findings, at the same place, but not from the same text (an unsaved buffer the
    editor restored): the buffer's version-stamped publish is still sent."""
    pkg = workspace / "ws" / "pkg" / "AGENTS.md"
    client = await start_client(workspace, watches=True)
    received = record_publishes(client)
    try:
        on_disk = await wait_until(client, pkg, conflicts)
        before = int((await _status(client)).rebuilds)
        uri = open_document(client, pkg, PKG_TEXT + "\nNot saved yet.\n")
        await rebuilt_for(client, pkg, before)
        [first, second] = for_uri(received, uri)
        assert (first.version, second.version) == (None, 1)
        assert list(second.diagnostics) == on_disk
    finally:
        await client.shutdown_session()


async def test_closing_an_edited_file_brings_back_the_diagnostics_of_the_disk(
    workspace: Path,
) -> None:
    pkg = workspace / "ws" / "pkg" / "AGENTS.md"
    client = await start_client(workspace, watches=True)
    received = record_publishes(client)
    try:
        on_disk = await wait_until(client, pkg, conflicts)
        uri = open_document(client, pkg)
        replace_document(client, pkg, "# Tools\n", 2)
        await wait_until(client, pkg, lambda found: not found)
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri))
        )
        back = await wait_until(client, pkg, conflicts)
        assert back == on_disk
        assert for_uri(received, uri)[-1].version is None  # the file on disk again

        # opened again, as on disk: nothing more to send
        before = int((await _status(client)).rebuilds)
        count = len(for_uri(received, uri))
        open_document(client, pkg)
        await rebuilt_for(client, pkg, before)
        assert len(for_uri(received, uri)) == count
        assert await diagnostics_for(client, pkg) == on_disk
    finally:
        await client.shutdown_session()
