"""Keeping the editor in step with the disk: watching, incremental rebuilds, settings, progress."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.harness import (
    WAIT,
    diagnostics_for,
    next_notification,
    prompt_change_for,
    start_client,
    wait_until,
)


def _codes(diagnostics: list[types.Diagnostic]) -> list[str]:
    return [str(d.code) for d in diagnostics]


def _notify(client: LanguageClient, path: Path, kind: types.FileChangeType) -> None:
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(uri=path.as_uri(), type=kind)])
    )


async def _status(client: LanguageClient) -> Any:
    return await asyncio.wait_for(client.protocol.send_request_async("pi/status", {}), WAIT)


async def _watching(client: LanguageClient) -> Any:
    """The status once the server has set up its watching (it does so after initialized)."""
    for _ in range(200):
        status = await _status(client)
        if status.watchedFolders:
            return status
        await asyncio.sleep(0.02)
    raise AssertionError("the server never started watching")


async def test_a_new_folder_gets_diagnostics_and_loses_them_when_deleted(workspace: Path) -> None:
    client = await start_client(workspace)
    try:
        await diagnostics_for(client, workspace / "ws" / "pkg" / "AGENTS.md")
        other = workspace / "ws" / "other" / "AGENTS.md"
        other.parent.mkdir()
        other.write_text("# Build\n\n- Always use yarn.\n")
        _notify(client, other, types.FileChangeType.Created)
        shown = await wait_until(client, other, lambda ds: "PI101" in _codes(ds))
        assert shown[0].range.start.line == 2
        shutil.rmtree(other.parent)
        _notify(client, other.parent, types.FileChangeType.Deleted)
        assert await wait_until(client, other, lambda ds: not ds) == []
        status = await _status(client)
        assert str(other.parent) not in status.workingDirectories
    finally:
        await client.shutdown_session()


async def test_a_file_that_is_not_open_follows_an_edit_on_disk(workspace: Path) -> None:
    client = await start_client(workspace)
    try:
        pkg = workspace / "ws" / "pkg" / "AGENTS.md"
        await diagnostics_for(client, pkg)
        pkg.write_text("# Tools\n\n- Use npm as well.\n")
        _notify(client, pkg, types.FileChangeType.Changed)
        assert await wait_until(client, pkg, lambda ds: not ds) == []
        status = await _status(client)
        assert status.lastRebuild.reason == [str(pkg)]
    finally:
        await client.shutdown_session()


async def test_the_client_watches_with_our_patterns(workspace: Path) -> None:
    config_client = await start_client(workspace)  # VS Code: dynamic registration
    registrations: list[Any] = []
    try:
        # pytest-lsp answers registerCapability with an error, so the server falls back to
        # watching the workspace itself; the attempt is what we check here
        status = await _watching(config_client)
        assert status.clientWatches is False
        assert str(workspace / "ws") in status.watchedFolders
    finally:
        await config_client.shutdown_session()
    client = await start_client(workspace, start=False)

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        registrations.extend(params.registrations)

    await _initialize(client, workspace, "visual-studio-code")
    try:
        status = await _watching(client)
        [registration] = registrations
        assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
        globs = [w["globPattern"] for w in registration.register_options["watchers"]]
        assert "**/SKILL.md" in globs
        assert status.clientWatches is True
        assert str(workspace / "ws") not in status.watchedFolders  # the client does it
        assert str(workspace / "agent") in status.watchedFolders  # outside the workspace
    finally:
        await client.shutdown_session()


async def test_without_client_watching_the_server_sees_disk_changes_itself(
    workspace: Path,
) -> None:
    client = await start_client(workspace, "neovim")  # no dynamic registration
    try:
        pkg = workspace / "ws" / "pkg" / "AGENTS.md"
        await diagnostics_for(client, pkg)
        await _watching(client)
        pkg.write_text("# Tools\n\n- Use npm here too.\n")  # and tell nobody
        assert await wait_until(client, pkg, lambda ds: not ds) == []
    finally:
        await client.shutdown_session()


async def test_the_agent_dir_is_watched(workspace: Path) -> None:
    (workspace / "ws" / "pkg" / "AGENTS.md").unlink()
    global_file = workspace / "agent" / "AGENTS.md"
    global_file.write_text("- Write a test for every bug fix.\n")
    client = await start_client(workspace)
    try:
        root_file = workspace / "ws" / "AGENTS.md"
        await _watching(client)
        while (await _status(client)).rebuilds < 1:  # the first load is done
            await asyncio.sleep(0.02)
        assert not client.diagnostics.get(root_file.as_uri())
        global_file.write_text("- Never use npm to install packages; use pnpm.\n")
        shown = await wait_until(client, root_file, lambda ds: "PI101" in _codes(ds))
        assert shown[0].related_information is not None
        assert shown[0].related_information[0].location.uri == global_file.as_uri()
    finally:
        await client.shutdown_session()


async def test_configuration_sets_severities_and_follows_changes(workspace: Path) -> None:
    client = await start_client(workspace, start=False)
    client.set_configuration({"severities": {"PI101": "error"}}, section="pi-lsp")
    await _initialize(client, workspace, "visual-studio-code")
    try:
        pkg = workspace / "ws" / "pkg" / "AGENTS.md"
        shown = await wait_until(
            client,
            pkg,
            lambda ds: ds and ds[0].severity == types.DiagnosticSeverity.Error,
        )
        assert shown[0].code_description is not None
        assert shown[0].code_description.href.endswith("#pi101-conflicting-instructions")
        client.set_configuration(
            {"severities": {"conflicting-instructions": "off"}}, section="pi-lsp"
        )
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        assert await wait_until(client, pkg, lambda ds: not ds) == []
        client.set_configuration({"severities": {"PI999": "loud"}}, section="pi-lsp")
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        await wait_until(client, pkg, lambda ds: bool(ds))  # back to the defaults
        messages = [m.message for m in client.log_messages]
        assert any("PI999" in m for m in messages)
    finally:
        await client.shutdown_session()


async def test_the_first_load_reports_progress(workspace: Path) -> None:
    client = await start_client(workspace)
    try:
        await diagnostics_for(client, workspace / "ws" / "pkg" / "AGENTS.md")
        [reports] = list(client.progress_reports.values())
        assert reports[0].kind == "begin"
        assert reports[-1].kind == "end"
    finally:
        await client.shutdown_session()


async def test_the_prompt_change_says_why(workspace: Path) -> None:
    client = await start_client(workspace)
    try:
        pkg = workspace / "ws" / "pkg" / "AGENTS.md"
        await diagnostics_for(client, pkg)

        def edit() -> None:
            pkg.write_text("- Use npm.\n")
            _notify(client, pkg, types.FileChangeType.Changed)

        params = await prompt_change_for(client, pkg, edit)
        assert list(params.cwds) == [str(workspace / "ws" / "pkg")]
        assert list(params.reason) == [str(pkg)]
    finally:
        await client.shutdown_session()


async def test_a_storm_of_changes_ends_in_few_rebuilds(workspace: Path) -> None:
    client = await start_client(workspace)
    try:
        pkg = workspace / "ws" / "pkg" / "AGENTS.md"
        await diagnostics_for(client, pkg)
        before = (await _status(client)).rebuilds
        for n in range(500):
            pkg.write_text(f"# Tools\n\n- Use npm, take {n}.\n")
            _notify(client, pkg, types.FileChangeType.Changed)
        await wait_until(client, pkg, lambda ds: not ds)
        await asyncio.sleep(0.3)
        after = (await _status(client)).rebuilds
        assert 1 <= after - before < 50  # gathered, not one per change
    finally:
        await client.shutdown_session()


@pytest.mark.parametrize(
    "bad",
    [b"{ not json", b"\x00\xff\xfe", b'{"defaultProjectTrust": 12}'],
    ids=["syntax", "binary", "wrong-type"],
)
async def test_a_broken_settings_file_is_reported_and_the_server_carries_on(
    workspace: Path, bad: bytes
) -> None:
    settings = workspace / "agent" / "settings.json"
    settings.write_bytes(bad)
    client = await start_client(workspace)
    try:
        await diagnostics_for(client, workspace / "ws" / "pkg" / "AGENTS.md")
        if bad != b'{"defaultProjectTrust": 12}':
            [problem] = await diagnostics_for(client, settings)
            assert problem.severity in (
                types.DiagnosticSeverity.Error,
                types.DiagnosticSeverity.Warning,
            )
        assert settings.read_bytes() == bad  # never rewritten
        hover = await client.text_document_hover_async(
            types.HoverParams(
                types.TextDocumentIdentifier((workspace / "ws" / "AGENTS.md").as_uri()),
                types.Position(0, 0),
            )
        )
        assert hover is not None
    finally:
        await client.shutdown_session()


async def _initialize(client: LanguageClient, tmp: Path, client_name: str) -> None:
    from pytest_lsp import client_capabilities

    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(client_name),
            root_uri=(tmp / "ws").as_uri(),
            initialization_options={"agentDir": str(tmp / "agent"), "debounceMs": 5},
        )
    )


async def test_next_notification_times_out_rather_than_hanging(workspace: Path) -> None:
    client = await start_client(workspace)
    try:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(next_notification(client, "pi/neverSent"), 0.2)
    finally:
        await client.shutdown_session()
