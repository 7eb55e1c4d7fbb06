"""Checkpoints of the files the agent changes, and ``pi/session/restoreFiles``.

:class:`CheckpointRecorder` gives a held session's agent a ``before_tool_call`` and an
``after_tool_call`` hook: before an ``edit`` or ``write`` runs, the file it names is read;
after it ran, the file is read again and, if it changed, the change is recorded in the
session's :class:`~pi_lsp.session.file_checkpoints.CheckpointStore`, keyed to the assistant
message that made the call. ``bash`` is not followed (what a command changes cannot be known
without watching the whole tree). The hooks never block or change a call: a failure to record
is logged and the call goes on, as it would without checkpoints.

``pi/session/restoreFiles`` puts the files back (see :func:`restore_files_request` and
``docs/protocol.md``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from pi_lsp.agent.tool_runner import (
    AfterToolCallContext,
    AfterToolCallResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
)
from pi_lsp.server.language_server import PiLanguageServer
from pi_lsp.server.requests import failed, flag_param, read_params, string_param
from pi_lsp.session.file_checkpoints import (
    CheckpointStore,
    FileState,
    change_of,
    read_state,
    restore_files,
    revert_change,
)
from pi_lsp.session.session_file import SessionFile
from pi_lsp.tools.paths import resolve_to_cwd

if TYPE_CHECKING:
    from pi_lsp.server.features.chat.sessions import ChatSession, ChatSessions

log = logging.getLogger(__name__)

RESTORE_FILES = "pi/session/restoreFiles"
FILE_CHANGE = "pi/session/fileChange"
RESTORE_BUSY = "Wait for the current response to finish before restoring files."

#: The tools whose changes are recorded: each names the one file it changes in ``path``.
FILE_TOOLS = frozenset({"edit", "write"})


def turn_entry_id(session: SessionFile) -> str | None:
    """The entry of the assistant message whose tool calls run now: the leaf, or the nearest
    assistant message above it (after earlier results of the same message were appended)."""
    entry_id = session.leaf_id
    while entry_id is not None:
        entry = session.get_entry(entry_id)
        if entry is None:
            return None
        message = entry.get("message")
        if isinstance(message, Mapping) and message.get("role") == "assistant":
            return entry_id
        parent = entry.get("parentId")
        entry_id = parent if isinstance(parent, str) else None
    return None


class CheckpointRecorder:
    """The tool-call hooks that record a session's file changes (see the module docstring)."""

    def __init__(self, session: SessionFile, cwd: Callable[[], str]) -> None:
        self.session = session
        self.store = CheckpointStore.beside(session.path)
        self._cwd = cwd
        self._pending: dict[str, tuple[str, FileState]] = {}
        self._recording = asyncio.Lock()

    async def before_tool_call(self, context: BeforeToolCallContext) -> BeforeToolCallResult | None:
        call = context.tool_call
        path = context.args.get("path")
        if call.get("name") not in FILE_TOOLS or not isinstance(path, str):
            return None
        try:
            absolute = resolve_to_cwd(path, self._cwd())
            before = await asyncio.to_thread(read_state, absolute)
            self._pending[str(call.get("id", ""))] = (absolute, before)
        except Exception:
            log.exception("reading %s before the agent changes it failed", path)
        return None

    def discard(self, context: BeforeToolCallContext) -> None:
        """Forget the reading of a call that will not run."""
        self._pending.pop(str(context.tool_call.get("id", "")), None)

    async def after_tool_call(self, context: AfterToolCallContext) -> AfterToolCallResult | None:
        call = context.tool_call
        call_id = str(call.get("id", ""))
        pending = self._pending.pop(call_id, None)
        if pending is None:
            return None
        absolute, before = pending
        try:
            # One at a time: the change recorded last is the one read last, so the newest
            # change of a file says what the agent left in it.
            async with self._recording:
                after = await asyncio.to_thread(read_state, absolute, keep_up_to=0)
                await asyncio.to_thread(
                    self.store.record,
                    entry_id=turn_entry_id(self.session),
                    path=absolute,
                    tool=str(call.get("name")),
                    tool_call_id=call_id,
                    before=before,
                    after=after,
                )
        except Exception:
            log.exception("recording the agent's change of %s failed", absolute)
        return None


def _store_of(target: ChatSession | SessionFile) -> CheckpointStore:
    if isinstance(target, SessionFile):  # a session the server does not hold: only read
        return CheckpointStore.beside(target.path)
    return target.checkpoints.store


async def restore_files_request(
    ls: PiLanguageServer, sessions: ChatSessions, params: Any
) -> dict[str, Any]:
    """``pi/session/restoreFiles {session|file, entryId, after?, force?, dryRun?}``: every file
    the agent changed at (unless ``after``) or after ``entryId`` back to its state before; what
    was (or would be) done."""
    raw = read_params(params, RESTORE_FILES)
    tool_call_id = string_param(raw, "toolCallId", RESTORE_FILES)
    entry_id = string_param(raw, "entryId", RESTORE_FILES, required=tool_call_id is None)
    force = flag_param(raw, "force", RESTORE_FILES)
    dry_run = flag_param(raw, "dryRun", RESTORE_FILES)
    after = flag_param(raw, "after", RESTORE_FILES)
    target = sessions.locate(ls, raw, RESTORE_FILES)
    session = target if isinstance(target, SessionFile) else target.session
    if entry_id is not None and session.get_entry(entry_id) is None:
        raise JsonRpcInvalidParams(f"{RESTORE_FILES}: Entry {entry_id} not found")
    store = _store_of(target)
    if tool_call_id is not None and change_of(store, tool_call_id) is None:
        raise JsonRpcInvalidParams(f"{RESTORE_FILES}: no recorded change of {tool_call_id}")
    held = None if isinstance(target, SessionFile) else target
    if held is not None and held.busy and not dry_run:
        raise failed(RESTORE_BUSY)
    entry_ids = [str(entry.get("id")) for entry in session.entries]
    # A held session runs nothing while its files are put back.
    async with held.lock if held is not None else contextlib.nullcontext():
        if tool_call_id is not None:
            results = await asyncio.to_thread(
                revert_change, store, tool_call_id, force=force, dry_run=dry_run
            )
        else:
            assert entry_id is not None
            results = await asyncio.to_thread(
                restore_files, store, entry_ids, entry_id, force=force, dry_run=dry_run, after=after
            )
    files = [result.to_json(session.cwd) for result in results]
    return {
        "session": session.session_id,
        "entryId": entry_id,
        **({"toolCallId": tool_call_id} if tool_call_id is not None else {}),
        "dryRun": dry_run,
        "files": files,
        "touched": [f["path"] for f in files if f["action"] in ("restore", "delete")],
        "userChanged": [f["path"] for f in files if f["userChanged"]],
    }


async def file_change_request(
    ls: PiLanguageServer, sessions: ChatSessions, params: Any
) -> dict[str, Any]:
    """``pi/session/fileChange {session|file, toolCallId}``: the file one edit or write call
    changed and its text before the call, for a review of a change already made."""
    raw = read_params(params, FILE_CHANGE)
    tool_call_id = string_param(raw, "toolCallId", FILE_CHANGE, required=True)
    assert tool_call_id is not None
    target = sessions.locate(ls, raw, FILE_CHANGE)
    session = target if isinstance(target, SessionFile) else target.session
    store = _store_of(target)
    change = change_of(store, tool_call_id)
    if change is None:
        raise JsonRpcInvalidParams(f"{FILE_CHANGE}: no recorded change of {tool_call_id}")
    data = store.blob(change.before_sha256) if change.before_sha256 is not None else None
    now = await asyncio.to_thread(read_state, change.path, keep_up_to=0)
    left = FileState(change.exists_after, change.after_sha256)
    return {
        "session": session.session_id,
        "toolCallId": tool_call_id,
        "tool": change.tool,
        "path": change.path,
        "relativePath": os.path.relpath(change.path, session.cwd),
        "existed": change.existed,
        "before": data.decode("utf-8", "replace") if data is not None else None,
        "notKept": change.not_restorable,
        "changedSince": not (now.exists == left.exists and now.same_content(left)),
        "reverted": change.seq in store.reverted,
    }
