"""Knowing when the files that feed the prompt change, inside the workspace and out of it.

Inside the workspace the client watches for us (``workspace/didChangeWatchedFiles``, registered
dynamically with our glob patterns) when it can; otherwise watchfiles does. The agent dir and
the user's ``~/.agents/skills`` are outside any workspace: watchfiles always watches them.
The events that are real changes (:mod:`pi_lsp.server.disk_changes`) become
``request_rebuild(paths)``; the server's own writes and bookkeeping never do.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterable, Sequence

from lsprotocol import types
from watchfiles import Change, awatch

from pi_lsp.resources.agent_dir import home_dir, resolve_agent_dir
from pi_lsp.resources.layout import agents_skills_dir
from pi_lsp.resources.relevance import WATCH_GLOBS
from pi_lsp.server.convert import path_of
from pi_lsp.server.language_server import PiLanguageServer

log = logging.getLogger(__name__)

REGISTRATION_ID = "pi-lsp-watched-files"
WATCH_DEBOUNCE_MS = 30


class Watcher:
    """watchfiles over some folders, feeding the server's rebuilds until stopped."""

    def __init__(self, ls: PiLanguageServer, folders: Sequence[str]) -> None:
        self.folders = tuple(folders)
        self._ls = ls
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._run())

    def stop(self) -> None:
        self._stop.set()

    def _relevant(self, change: Change, path: str) -> bool:
        return self._ls.disk_changes.may_matter(path, change == Change.deleted)

    async def _run(self) -> None:
        try:
            async for changes in awatch(
                *self.folders,
                watch_filter=self._relevant,
                debounce=WATCH_DEBOUNCE_MS,
                step=10,
                stop_event=self._stop,
                recursive=True,
            ):
                disk_changed(self._ls, ((path, c == Change.deleted) for c, path in changes))
        except Exception as error:  # a vanished folder ends watching, not the server
            log.warning("watching %s stopped: %s", ", ".join(self.folders), error)


def disk_changed(ls: PiLanguageServer, events: Iterable[tuple[str, bool]]) -> None:
    """Rebuild for the ``(path, deleted)`` events that are real changes, if any is."""
    changed = ls.disk_changes.real_changes(events)
    if changed:
        ls.request_rebuild(changed)


def _supports_dynamic_watching(ls: PiLanguageServer) -> bool:
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace is not None else None
    return bool(watched is not None and watched.dynamic_registration)


async def start_watching(ls: PiLanguageServer) -> Watcher | None:
    """Register our patterns with the client, and watch what it cannot."""
    folders: list[str] = []
    if _supports_dynamic_watching(ls):
        options = types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern=g) for g in WATCH_GLOBS]
        )
        registration = types.Registration(
            id=REGISTRATION_ID,
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=options,
        )
        try:
            await asyncio.wait_for(
                ls.client_register_capability_async(types.RegistrationParams([registration])), 5.0
            )
            ls.client_watches = True
        except Exception as error:
            log.warning("the client did not take our file watchers (%s); watching ourselves", error)
            folders.append(ls.state.root)
    else:
        folders.append(ls.state.root)
    env = dict(os.environ)
    home = home_dir(env)
    agent_dir = resolve_agent_dir(ls.state.settings.agent_dir, env=env, home=home)
    folders += [agent_dir, agents_skills_dir(home)]
    existing = [f for f in dict.fromkeys(folders) if os.path.isdir(f)]
    if not existing:
        return None
    watcher = Watcher(ls, existing)
    watcher.start()
    ls.watched_folders = watcher.folders
    return watcher


def register(server: PiLanguageServer) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: PiLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
        deleted = types.FileChangeType.Deleted
        disk_changed(ls, ((path_of(c.uri), c.type == deleted) for c in params.changes))
