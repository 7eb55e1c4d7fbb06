"""Read-only views of chat sessions for the editor: the session tree, the context meter, the
session picker, the transcript, and the compaction preview.

* ``pi/session/tree`` — the tree view of ``pi-lsp session tree --json``;
* ``pi/session/usage`` — what the next request of a session (or of a working directory, with no
  session) fills its context window with, by kind (:mod:`pi_lsp.prompt.usage`), against the
  model's window and the compaction threshold (``window − reserveTokens``);
* ``pi/session/list`` — the session files of a working directory (or a session folder), newest
  first (:mod:`pi_lsp.session.listing`);
* ``pi/session/messages`` — the entries of the active branch, root to leaf, as stored;
* ``pi/session/compact`` with ``dryRun`` — :func:`compact_dry_run`, the facts of
  ``pi-lsp session compact --dry-run`` for the session's branch and settings.

A session the server holds is looked at as it is held; any other file is only read — never
locked, never written. The protocol is in ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from pi_lsp.agent.loop import tool_definitions
from pi_lsp.agent.model_api import ModelInfo
from pi_lsp.agent.model_choice import fallback_models
from pi_lsp.agent.providers.config import (
    ModelChoiceError,
    ModelsConfigError,
    all_models,
    load_models_config,
    models_json_path,
    resolve_model,
)
from pi_lsp.prompt.usage import context_usage
from pi_lsp.resources.loader import Resources
from pi_lsp.server.features.chat.runs import COMPACT
from pi_lsp.server.features.chat.sessions import ChatSession, ChatSessions, sessions_of
from pi_lsp.server.language_server import PiLanguageServer
from pi_lsp.server.requests import agent_dir_of, failed, path_param, read_params, string_param
from pi_lsp.session.compaction_preview import preview_compaction
from pi_lsp.session.context import SessionContext, build_session_context
from pi_lsp.session.entries import default_session_dir
from pi_lsp.session.errors import SessionFileError
from pi_lsp.session.listing import list_sessions
from pi_lsp.session.session_file import SessionFile
from pi_lsp.session.tokens import compaction_settings
from pi_lsp.session.tree_view import build_tree_view, tree_view_json

TREE = "pi/session/tree"
USAGE = "pi/session/usage"
LIST = "pi/session/list"
MESSAGES = "pi/session/messages"

#: Entry types a transcript never shows (extension state).
HIDDEN_ENTRY_TYPES = frozenset({"custom"})


# --- which session, which model ---------------------------------------------------------------


@contextmanager
def _file_errors(method: str) -> Iterator[None]:
    """A session file that fails while it is read (one rewritten in place since it was
    loaded, a disk error) fails the request, naming the file, instead of an internal error."""
    try:
        yield
    except SessionFileError as error:
        raise failed(f"{method}: {error}", {"path": error.path}) from error


def _names_a_session(raw: Mapping[str, Any]) -> bool:
    return raw.get("session") is not None or raw.get("file") is not None


def _located(
    ls: PiLanguageServer, sessions: ChatSessions, raw: Mapping[str, Any], method: str
) -> tuple[ChatSession | None, SessionFile]:
    found = sessions.locate(ls, raw, method)
    if isinstance(found, ChatSession):
        return found, found.session
    return None, found


def _context(session: SessionFile) -> SessionContext | None:
    return build_session_context(session.entries, session.leaf_id) if session.entries else None


def _model(
    ls: PiLanguageServer,
    sessions: ChatSessions,
    held: ChatSession | None,
    context: SessionContext | None,
    resources: Resources,
) -> ModelInfo | None:
    """The model whose window counts: the held session's; else the one the session recorded,
    the one picked with ``pi/model/select``, the settings' default (each if models.json or a
    built-in provider knows it); else the first models.json model with a key, as ``pi/chat``
    would pick it. ``None`` when there is none (or models.json is broken)."""
    if held is not None:
        return held.resolved.model
    agent_dir = agent_dir_of(ls)
    try:
        config = load_models_config(models_json_path(agent_dir))
    except ModelsConfigError:
        return None
    for provider, model_id in fallback_models(
        context, sessions.selected, resources.settings.merged
    ):
        try:
            return resolve_model(
                config, provider, model_id, agent_dir=agent_dir, require_key=False
            ).model
        except ModelChoiceError:
            continue
    for info in all_models(config):
        try:
            return resolve_model(config, info.provider, info.id, agent_dir=agent_dir).model
        except ModelChoiceError:
            continue
    return None


# --- pi/session/tree --------------------------------------------------------------------------


def session_tree(ls: PiLanguageServer, sessions: ChatSessions, params: Any) -> dict[str, Any]:
    found = sessions.locate(ls, read_params(params, TREE), TREE)
    session = found.session if isinstance(found, ChatSession) else found
    try:
        return tree_view_json(build_tree_view(session))
    except SessionFileError as error:  # e.g. rewritten in place since it was loaded
        raise failed(f"{TREE}: {error}", {"path": error.path}) from error


# --- pi/session/usage -------------------------------------------------------------------------


def session_usage(ls: PiLanguageServer, sessions: ChatSessions, params: Any) -> dict[str, Any]:
    raw = read_params(params, USAGE)
    held: ChatSession | None = None
    session: SessionFile | None = None
    context: SessionContext | None = None
    if _names_a_session(raw):
        held, session = _located(ls, sessions, raw, USAGE)
        context = _context(session)
        cwd = session.cwd
    else:
        cwd_param = string_param(raw, "cwd", USAGE)
        cwd = path_param(ls, cwd_param) if cwd_param is not None else ls.state.root
    resources = ls.state.snapshot(cwd)
    document = ls.state.prompt(cwd)
    messages = context.messages if context is not None else []
    usage = context_usage(document, tool_definitions(resources.tools), messages)
    model = _model(ls, sessions, held, context, resources)
    window = model.context_window if model is not None else ls.state.settings.model_window
    reserve = compaction_settings(resources.settings.merged).reserve_tokens
    return {
        "cwd": session.cwd if session is not None else resources.cwd,
        "session": held.session_id if held is not None else None,
        "model": {"provider": model.provider, "id": model.id} if model is not None else None,
        "contextWindow": window,
        "reserveTokens": reserve,
        "threshold": window - reserve,
        "total": usage.total,
        "estimated": usage.estimated,
        "usageTokens": usage.usage_tokens,
        "categories": [category.to_json() for category in usage.categories],
    }


# --- pi/session/list --------------------------------------------------------------------------


async def session_list(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
    raw = read_params(params, LIST)
    cwd_param = string_param(raw, "cwd", LIST)
    session_dir = string_param(raw, "sessionDir", LIST)
    cwd = path_param(ls, cwd_param) if cwd_param is not None else ls.state.root
    if session_dir is not None:
        folder = path_param(ls, session_dir)
        only_cwd = cwd if cwd_param is not None else None
    else:
        folder = default_session_dir(os.path.realpath(cwd), agent_dir_of(ls))
        only_cwd = None
    # every file is read in a worker thread: a long folder never holds up other requests
    found = await asyncio.to_thread(list_sessions, folder, cwd=only_cwd)
    return {"sessions": [listing.to_json() for listing in found]}


# --- pi/session/messages ----------------------------------------------------------------------


def session_messages(ls: PiLanguageServer, sessions: ChatSessions, params: Any) -> dict[str, Any]:
    raw = read_params(params, MESSAGES)
    leaf = string_param(raw, "leafId", MESSAGES)
    held, session = _located(ls, sessions, raw, MESSAGES)
    if leaf is not None and session.get_entry(leaf) is None:
        raise JsonRpcInvalidParams(f"{MESSAGES}: Entry {leaf} not found")
    leaf_id = leaf if leaf is not None else session.leaf_id
    path = session.get_branch(leaf_id) if leaf_id is not None else []
    return {
        "session": held.session_id if held is not None else None,
        "file": session.path,
        "cwd": session.cwd,
        "leafId": leaf_id,
        "entries": [dict(entry) for entry in path if entry.get("type") not in HIDDEN_ENTRY_TYPES],
    }


# --- pi/session/compact {"dryRun": true} ------------------------------------------------------


def compact_dry_run(
    ls: PiLanguageServer, sessions: ChatSessions, raw: Mapping[str, Any]
) -> dict[str, Any]:
    """What ``pi/session/compact`` would do now, with nothing summarised, locked or written.

    The branch, settings and window are the ones the compaction would use: a held session's
    resources and model, else the file read as it is and its working directory's settings.
    """
    with _file_errors(COMPACT):
        return _compact_preview(ls, sessions, raw)


def _compact_preview(
    ls: PiLanguageServer, sessions: ChatSessions, raw: Mapping[str, Any]
) -> dict[str, Any]:
    held, session = _located(ls, sessions, raw, COMPACT)
    resources = held.resources if held is not None else ls.state.snapshot(session.cwd)
    context = _context(session) if held is None else None
    model = _model(ls, sessions, held, context, resources)
    window = model.context_window if model is not None else ls.state.settings.model_window
    settings = compaction_settings(resources.settings.merged)
    preview = preview_compaction(session.get_branch(), settings, window).to_json()
    if not preview["compactable"]:
        raise failed(f"{COMPACT}: {preview['reason']}")
    cut = preview["cut"]
    return {
        "dryRun": True,
        "cutEntryId": cut["turnStartEntryId"] if cut["isSplitTurn"] else cut["firstKeptEntryId"],
        "firstKeptEntryId": cut["firstKeptEntryId"],
        "isSplitTurn": cut["isSplitTurn"],
        "summarizedCount": len(preview["summarized"]),
        "keptCount": len(preview["kept"]),
        "tokensBefore": preview["tokensBefore"],
        "estimatedTokensAfter": preview["estimatedTokensAfter"],
        "readFiles": list(preview["readFiles"]),
        "modifiedFiles": list(preview["modifiedFiles"]),
    }


# --- registration -----------------------------------------------------------------------------


def register(server: PiLanguageServer) -> None:
    sessions = sessions_of(server)

    @server.feature(TREE)
    def tree(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return session_tree(ls, sessions, params)

    @server.feature(USAGE)
    def usage(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        with _file_errors(USAGE):
            return session_usage(ls, sessions, params)

    @server.feature(LIST)
    async def listing(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return await session_list(ls, params)

    @server.feature(MESSAGES)
    def messages(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        with _file_errors(MESSAGES):
            return session_messages(ls, sessions, params)
