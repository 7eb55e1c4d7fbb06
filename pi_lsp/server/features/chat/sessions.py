"""The sessions a server holds for the editor's chats.

The server keeps one :class:`~pi_lsp.agent.session_agent.SessionAgent` per session it has been
asked about (by id or by file), over the session file (locked while held) and the latest
resources snapshot of the session's working directory; :class:`ChatSessions` finds, opens and
releases them, the requests in :mod:`~pi_lsp.server.features.chat.runs` and
:mod:`~pi_lsp.server.features.chat.views` use them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, Mapping
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from pi_lsp.agent.events import AgentEvent
from pi_lsp.agent.model_api import ThinkingLevel
from pi_lsp.agent.model_choice import (
    clamp_thinking_level,
    fallback_models,
    initial_thinking_level,
    record_model_choice,
)
from pi_lsp.agent.providers.config import ResolvedModel
from pi_lsp.agent.providers.registry import provider_for
from pi_lsp.agent.session_agent import SessionAgent
from pi_lsp.agent.tool_runner import BeforeToolCall, BeforeToolCallContext, BeforeToolCallResult
from pi_lsp.resources.loader import Resources
from pi_lsp.server.event_stream import EventStream
from pi_lsp.server.features.chat.approvals import ApprovalGate
from pi_lsp.server.features.chat.checkpoints import CheckpointRecorder
from pi_lsp.server.features.chat.events import forward_event
from pi_lsp.server.features.chat.models import choose, thinking_param
from pi_lsp.server.language_server import PiLanguageServer
from pi_lsp.server.requests import SHUTDOWN_WAIT, agent_dir_of, failed, path_param, string_param
from pi_lsp.session.context import SessionContext, build_session_context
from pi_lsp.session.entries import default_session_dir
from pi_lsp.session.errors import NotASessionError, SessionFileError
from pi_lsp.session.session_file import SessionFile

log = logging.getLogger(__name__)

MODEL_BUSY = "Wait for the current response to finish before changing the model."


# --- one session ------------------------------------------------------------------------------


class ChatSession:
    """A session the server holds: its file, its agent and model, and the running request.

    ``lock`` is held by the request that runs the agent (a chat or a compaction); while it is
    held, that request's :class:`EventStream` receives the agent's events.
    """

    def __init__(
        self,
        session: SessionFile,
        resources: Resources,
        resolved: ResolvedModel,
        thinking: ThinkingLevel,
        before_tool_call: BeforeToolCall | None = None,
    ) -> None:
        self.session = session
        self.before_tool_call = before_tool_call
        self.resources = resources
        self.resolved = resolved
        self.thinking: ThinkingLevel = thinking
        self.turn = 0
        self.stream: EventStream | None = None
        self.lock = asyncio.Lock()
        self.tasks: set[asyncio.Task[Any]] = set()
        self._unsubscribe: Callable[[], None] | None = None
        self.checkpoints = CheckpointRecorder(session, lambda: self.resources.cwd)
        self.agent = self._new_agent()

    @property
    def session_id(self) -> str:
        return self.session.session_id

    async def _before_tool_call(
        self, context: BeforeToolCallContext
    ) -> BeforeToolCallResult | None:
        """The checkpoint reads the file the call may change before the user is asked (the
        editor may apply a reviewed change while the question is open); a denied call changes
        nothing, so its reading is dropped."""
        await self.checkpoints.before_tool_call(context)
        if self.before_tool_call is None:
            return None
        verdict = await self.before_tool_call(context)
        if verdict is not None and verdict.block:
            self.checkpoints.discard(context)
        return verdict

    @property
    def busy(self) -> bool:
        return self.lock.locked()

    def _new_agent(self) -> SessionAgent:
        """An agent over the session's current branch (after a move, a model change, …)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        agent = SessionAgent(
            provider=provider_for(self.resolved.model),
            model=self.resolved.model,
            session=self.session,
            resources=self.resources,
            thinking_level=self.thinking,
            api_key=self.resolved.api_key,
            before_tool_call=self._before_tool_call,
            after_tool_call=self.checkpoints.after_tool_call,
        )
        self._unsubscribe = agent.subscribe(self._forward)
        return agent

    def rebuild(
        self,
        *,
        resources: Resources | None = None,
        resolved: ResolvedModel | None = None,
        thinking: ThinkingLevel | None = None,
    ) -> None:
        if resources is not None:
            self.resources = resources
        if resolved is not None:
            self.resolved = resolved
        if thinking is not None:
            self.thinking = thinking
        self.agent = self._new_agent()

    def _forward(self, event: AgentEvent) -> None:
        stream = self.stream
        if stream is None or stream.closed:
            return
        try:
            forward_event(stream, event)
        except Exception:  # a notification that cannot be made must not stop the run
            log.exception("forwarding a %s event failed", event.get("type"))

    def summary(self) -> dict[str, Any]:
        model = self.resolved.model
        return {
            "session": self.session_id,
            "file": self.session.path,
            "cwd": self.session.cwd,
            "model": {"provider": model.provider, "id": model.id},
            "thinkingLevel": self.thinking,
        }

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.session.close()


# --- the server's sessions --------------------------------------------------------------------


class ChatSessions:
    """Every session one server holds, by session id; the model chosen for new sessions."""

    def __init__(self) -> None:
        self.sessions: dict[str, ChatSession] = {}
        self.selected: tuple[str, str] | None = None

    # -- finding and opening sessions -------------------------------------------------------

    def held_by_path(self, path: str) -> ChatSession | None:
        real = os.path.realpath(path)
        for held in self.sessions.values():
            if held.session.path is not None and os.path.realpath(held.session.path) == real:
                return held
        return None

    @staticmethod
    def find_file(session_id: str, folders: list[str]) -> str | None:
        """The file of session ``session_id`` (``<timestamp>_<id>.jsonl``) in ``folders``."""
        suffix = f"_{session_id}.jsonl"
        for folder in folders:
            with contextlib.suppress(OSError):
                for name in sorted(os.listdir(folder)):
                    if name.endswith(suffix):
                        return os.path.join(folder, name)
        return None

    def _folders(self, ls: PiLanguageServer, raw: Mapping[str, Any], cwd: str) -> list[str]:
        folders = []
        session_dir = raw.get("sessionDir")
        if isinstance(session_dir, str) and session_dir:
            folders.append(path_param(ls, session_dir))
        folders.append(default_session_dir(os.path.realpath(cwd), agent_dir_of(ls)))
        return folders

    def get(
        self,
        ls: PiLanguageServer,
        raw: Mapping[str, Any],
        method: str,
        *,
        create: bool,
        switching: bool = False,
    ) -> ChatSession:
        """The session ``raw`` names (``session`` id or ``file``), opened if not held yet; a
        new one when it names none and ``create`` is set. With ``switching`` a saved session
        opens with the model and level it records, for the caller to switch it."""
        session_id = string_param(raw, "session", method)
        file = string_param(raw, "file", method)
        cwd_param = string_param(raw, "cwd", method)
        cwd = path_param(ls, cwd_param) if cwd_param is not None else ls.state.root
        if session_id is not None and session_id in self.sessions:
            return self.sessions[session_id]
        if file is not None:
            path = path_param(ls, file)
            held = self.held_by_path(path)
            if held is not None:
                return held
        elif session_id is not None:
            found = self.find_file(session_id, self._folders(ls, raw, cwd))
            if found is None:
                raise JsonRpcInvalidParams(
                    f"{method}: no session {session_id!r} is open or saved for {cwd}; "
                    "give its 'file'"
                )
            path = found
        elif not create:
            raise JsonRpcInvalidParams(f"{method}: give 'session' (an id) or 'file'")
        else:
            path = ""
        session = self._open(ls, raw, method, path, cwd)
        try:
            return self._hold(ls, raw, method, session, switching=switching)
        except BaseException:
            session.close()
            raise

    def _open(
        self, ls: PiLanguageServer, raw: Mapping[str, Any], method: str, path: str, cwd: str
    ) -> SessionFile:
        try:
            if path:
                return SessionFile.open(path, cwd=cwd)
            if raw.get("persist") is False:
                return SessionFile.in_memory(cwd)
            session_dir = string_param(raw, "sessionDir", method)
            return SessionFile.create(
                cwd,
                agent_dir=agent_dir_of(ls),
                session_dir=path_param(ls, session_dir) if session_dir is not None else None,
            )
        except NotASessionError as error:
            raise JsonRpcInvalidParams(f"{method}: {error}") from error
        except SessionFileError as error:
            raise failed(f"{method}: {error}", {"path": error.path}) from error

    def _hold(
        self,
        ls: PiLanguageServer,
        raw: Mapping[str, Any],
        method: str,
        session: SessionFile,
        *,
        switching: bool = False,
    ) -> ChatSession:
        resources = ls.state.snapshot(session.cwd)
        context: SessionContext | None = None
        if session.entries:
            context = build_session_context(session.entries, session.leaf_id)
        fallbacks = fallback_models(context, self.selected, resources.settings.merged)
        provider = string_param(raw, "provider", method)
        model = string_param(raw, "model", method)
        level_param = thinking_param(raw, method)
        # pi/model/select on a saved session: resume it as it was (Pi's resume without
        # --model/--thinking); the caller's switch then appends the change, as /model does.
        resume_as_saved = switching and context is not None
        try:
            if resume_as_saved:
                resolved = choose(ls, method, None, None, fallbacks)
            else:
                resolved = choose(ls, method, provider, model, fallbacks)
        except JsonRpcException:
            if not (resume_as_saved and (provider or model)):
                raise
            # Nothing it records or defaults to is usable: start with the requested model.
            resolved = choose(ls, method, provider, model, [])
            session.append_model_change(resolved.model.provider, resolved.model.id)
        level = initial_thinking_level(
            None if resume_as_saved else level_param, resources.settings.merged, session, context
        )
        thinking = clamp_thinking_level(resolved.model, level)
        record_model_choice(session, resolved.model, thinking, context)
        held = ChatSession(session, resources, resolved, thinking, ApprovalGate(ls, session))
        self.sessions[held.session_id] = held
        return held

    # -- requests ---------------------------------------------------------------------------

    def refresh(self, ls: PiLanguageServer, held: ChatSession) -> None:
        """Before a prompt: the latest resources of the session's folder."""
        resources = ls.state.snapshot(held.session.cwd)
        if resources is not held.resources:
            held.rebuild(resources=resources)

    def switch_model(
        self,
        ls: PiLanguageServer,
        held: ChatSession,
        method: str,
        provider: str | None,
        model: str | None,
        thinking: str | None,
    ) -> None:
        if held.busy:
            raise failed(MODEL_BUSY)
        resolved = held.resolved
        if provider or model:
            resolved = choose(ls, method, provider, model, [])
        level = clamp_thinking_level(resolved.model, thinking or held.thinking)
        current = held.resolved.model
        if (resolved.model.provider, resolved.model.id) != (current.provider, current.id):
            held.session.append_model_change(resolved.model.provider, resolved.model.id)
        if level != held.thinking:
            held.session.append_thinking_level_change(level)
        held.rebuild(resolved=resolved, thinking=level)

    def locate(
        self, ls: PiLanguageServer, raw: Mapping[str, Any], method: str
    ) -> ChatSession | SessionFile:
        """The session ``raw`` names (``session`` id or ``file``): the one the server holds,
        else its file read (not locked, never written)."""
        session_id = string_param(raw, "session", method)
        file = string_param(raw, "file", method)
        held = self.sessions.get(session_id) if session_id is not None else None
        if held is None and file is not None:
            held = self.held_by_path(path_param(ls, file))
        if held is not None:
            return held
        if file is None and session_id is not None:
            cwd_param = string_param(raw, "cwd", method)
            cwd = path_param(ls, cwd_param) if cwd_param is not None else ls.state.root
            file = self.find_file(session_id, self._folders(ls, raw, cwd))
            if file is None:
                raise JsonRpcInvalidParams(f"{method}: no session {session_id!r}; give its 'file'")
        if file is None:
            raise JsonRpcInvalidParams(f"{method}: give 'session' (an id) or 'file'")
        try:
            return SessionFile.read(path_param(ls, file))
        except NotASessionError as error:
            raise JsonRpcInvalidParams(f"{method}: {error}") from error
        except SessionFileError as error:
            raise failed(f"{method}: {error}", {"path": error.path}) from error

    async def shutdown(self, timeout: float = SHUTDOWN_WAIT) -> None:
        """Abort every run, wait (at most ``timeout`` seconds) for the requests to answer, and
        release every session file (at the ``shutdown`` request: no tool may outlive the
        server)."""
        for held in self.sessions.values():
            abort_now(held.agent)
        tasks = {task for held in self.sessions.values() for task in held.tasks}
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)
        for held in list(self.sessions.values()):
            held.close()
        self.sessions.clear()


def abort_now(agent: SessionAgent) -> None:
    """Abort whatever the agent runs (a retry wait, a compaction, the model stream, tools)
    without waiting: :meth:`SessionAgent.abort` minus its wait for idle."""
    agent.abort_retry()
    agent.abort_compaction()
    agent.agent.abort()


def sessions_of(server: PiLanguageServer) -> ChatSessions:
    """The sessions ``server`` holds (for the other session requests)."""
    return server.feature_state(ChatSessions)
