"""Chat sessions for the editor: ``pi/chat``, ``pi/session/*``, ``pi/models`` and
``pi/model/select``.

- :mod:`.sessions` — the sessions the server holds (:class:`~.sessions.ChatSessions`, kept in
  the server's features and released at shutdown), found by what a request names;
- :mod:`.runs` — the requests that run a session's agent or change what is held: ``pi/chat``,
  ``pi/session/compact``, ``pi/session/navigate``, ``pi/session/close``;
- :mod:`.events` — the agent's events in their ``pi/event`` form;
- :mod:`.models` — ``pi/models``, ``pi/model/select`` and the model choice of every request;
- :mod:`.mentions` — what the prompt box puts into a prompt: ``pi/complete/files``,
  ``pi/complete/commands``, and ``pi/chat``'s attached files, selections and images;
- :mod:`.checkpoints` — what the agent's ``edit`` / ``write`` calls changed, and
  ``pi/session/restoreFiles`` that puts it back;
- :mod:`.views` — the read-only views: ``pi/session/tree``, ``usage``, ``list``, ``messages``
  and the compaction preview.

The protocol is described in ``docs/protocol.md``.
"""

from __future__ import annotations

from typing import Any

from pi_lsp.server.features.chat import mentions, runs, views
from pi_lsp.server.features.chat.checkpoints import (
    FILE_CHANGE,
    RESTORE_FILES,
    file_change_request,
    restore_files_request,
)
from pi_lsp.server.features.chat.models import MODELS, SELECT, list_models, select_model
from pi_lsp.server.features.chat.runs import CHAT, CLOSE, COMPACT, NAVIGATE
from pi_lsp.server.features.chat.sessions import sessions_of
from pi_lsp.server.language_server import PiLanguageServer


def register(server: PiLanguageServer) -> None:
    sessions = sessions_of(server)

    @server.feature(CHAT)
    async def chat(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return await runs.chat(ls, sessions, params)

    @server.feature(COMPACT)
    async def compact(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return await runs.compact(ls, sessions, params)

    @server.feature(NAVIGATE)
    async def navigate(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return await runs.navigate(ls, sessions, params)

    @server.feature(CLOSE)
    async def close(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return await runs.close(ls, sessions, params)

    @server.feature(RESTORE_FILES)
    async def restore_files(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return await restore_files_request(ls, sessions, params)

    @server.feature(FILE_CHANGE)
    async def file_change(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return await file_change_request(ls, sessions, params)

    @server.feature(MODELS)
    def models(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return list_models(ls, sessions, params)

    @server.feature(SELECT)
    def select(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return select_model(ls, sessions, params)

    views.register(server)
    mentions.register(server)
