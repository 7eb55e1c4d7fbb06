"""Chat sessions for the editor: ``pi/chat``, the session tree, navigation, compaction, models.

The server keeps one :class:`~pi_lsp.agent.session_agent.SessionAgent` per session it has been
asked about (by id or by file), over the session file (locked while held) and the latest
resources snapshot of the session's working directory. A ``pi/chat`` request sends one prompt;
while it runs, the session's events go out as numbered ``pi/event`` notifications on an
:class:`~pi_lsp.server.event_stream.EventStream` stamped ``{"session", "turn"}`` — ``turn``
counts the requests that ran the agent in this session (chats and compactions), ``seq`` the
events of one of them. Text deltas, thinking deltas and tool output are coalesced; every other
event is one notification. Cancelling the request (``$/cancelRequest``) aborts the run: the
model stream is closed and running tools are killed (bash: the whole process group), the
remaining events go out, and the request is answered with ``RequestCancelled``.

Also here: ``pi/session/tree`` (the tree view of ``pi-lsp session tree --json``),
``pi/session/navigate`` (move the leaf, optionally leaving a branch summary),
``pi/session/compact`` (manual compaction; its ``dryRun`` preview and the other read-only
views are in :mod:`pi_lsp.server.features.chat.views`), ``pi/session/close``, ``pi/models`` and
``pi/model/select``. The protocol is described in ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from pi_lsp.agent.events import AgentEvent
from pi_lsp.agent.model_api import ThinkingLevel
from pi_lsp.agent.model_choice import (
    clamp_thinking_level,
    fallback_models,
    initial_thinking_level,
    record_model_choice,
)
from pi_lsp.agent.provider_summarizer import ProviderSummarizer
from pi_lsp.agent.providers.config import (
    ResolvedModel,
)
from pi_lsp.agent.providers.registry import provider_for
from pi_lsp.agent.providers.secret import KNOWN_SECRETS
from pi_lsp.agent.session_agent import (
    COMPACTION_IN_PROGRESS,
    NEEDS_STREAMING_BEHAVIOR,
    SessionAgent,
)
from pi_lsp.resources.loader import Resources
from pi_lsp.server.event_stream import Event, EventStream
from pi_lsp.server.features.chat.events import forward_event, last_assistant, text_of
from pi_lsp.server.features.chat.models import (
    MODELS,
    SELECT,
    choose,
    list_models,
    select_model,
    thinking_param,
)
from pi_lsp.server.language_server import PiLanguageServer
from pi_lsp.server.requests import (
    ABORT_GRACE,
    SHUTDOWN_WAIT,
    agent_dir_of,
    failed,
    flag_param,
    path_param,
    read_params,
    shut_down,
    string_param,
)
from pi_lsp.session.branch_summary import RUN_ACTIVE, navigate_tree
from pi_lsp.session.context import SessionContext, build_session_context
from pi_lsp.session.entries import default_session_dir
from pi_lsp.session.errors import NotASessionError, SessionFileError
from pi_lsp.session.session_file import SessionFile
from pi_lsp.session.summarizer import SummaryModel
from pi_lsp.session.tokens import branch_summary_reserve_tokens
from pi_lsp.session.tree_view import build_tree_view, tree_view_json
from pi_lsp.tools.base import AbortSignal

log = logging.getLogger(__name__)

CHAT = "pi/chat"
TREE = "pi/session/tree"
NAVIGATE = "pi/session/navigate"
COMPACT = "pi/session/compact"
CLOSE = "pi/session/close"
EVENT_METHOD = "pi/event"

MODEL_BUSY = "Wait for the current response to finish before changing the model."
STREAMING_BEHAVIORS = ("steer", "followUp")

T = TypeVar("T")


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
    ) -> None:
        self.session = session
        self.resources = resources
        self.resolved = resolved
        self.thinking: ThinkingLevel = thinking
        self.turn = 0
        self.stream: EventStream | None = None
        self.lock = asyncio.Lock()
        self.tasks: set[asyncio.Task[Any]] = set()
        self._unsubscribe: Callable[[], None] | None = None
        self.agent = self._new_agent()

    @property
    def session_id(self) -> str:
        return self.session.session_id

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

    # -- models -----------------------------------------------------------------------------

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
        held = ChatSession(session, resources, resolved, thinking)
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

    async def chat(self, ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        raw = read_params(params, CHAT)
        text = raw.get("text")
        if not isinstance(text, str) or not text.strip():
            raise JsonRpcInvalidParams(f"{CHAT}: 'text' must be the message to send")
        behavior = raw.get("streamingBehavior")
        if behavior is not None and behavior not in STREAMING_BEHAVIORS:
            raise JsonRpcInvalidParams(f"{CHAT}: 'streamingBehavior' must be 'steer' or 'followUp'")
        thinking = thinking_param(raw, CHAT)
        known = set(self.sessions)
        held = self.get(ls, raw, CHAT, create=True)
        if held.busy:
            return await _queue(held, text, behavior)
        provider, model = string_param(raw, "provider", CHAT), string_param(raw, "model", CHAT)
        if held.session_id in known and (provider or model or thinking):
            self.switch_model(ls, held, CHAT, provider, model, thinking)
        self.refresh(ls, held)
        async with held.lock:
            stream = _open_stream(ls, held)
            try:
                agent = held.agent
                await _run(held, agent.prompt(text), lambda: abort_now(agent))
            except JsonRpcException:
                raise
            except Exception as error:
                raise failed(f"{CHAT}: {KNOWN_SECRETS(str(error))}") from error
            finally:
                stream.close()
                held.stream = None
        last = last_assistant(held.agent.messages)
        result = {**held.summary(), "turn": held.turn, "events": stream.seq}
        result["stopReason"] = last.get("stopReason") if last is not None else None
        result["text"] = text_of(last) if last is not None else ""
        if last is not None and isinstance(last.get("errorMessage"), str):
            result["errorMessage"] = last["errorMessage"]
            log.warning(
                "%s: session %s turn %d ended with an error: %s",
                CHAT,
                held.session_id,
                held.turn,
                last["errorMessage"],
            )
        result["leafId"] = held.session.leaf_id
        return result

    async def compact(self, ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        raw = read_params(params, COMPACT)
        instructions = string_param(raw, "customInstructions", COMPACT)
        if flag_param(raw, "dryRun", COMPACT):  # a preview: nothing summarised, locked or written
            from pi_lsp.server.features.chat.views import compact_dry_run

            return compact_dry_run(ls, self, raw)
        held = self.get(ls, raw, COMPACT, create=False)
        if held.busy:  # Pi's /compact stops the running answer first
            await held.agent.abort()
        async with held.lock:
            stream = _open_stream(ls, held)
            try:
                outcome = await _run(
                    held, held.agent.compact(instructions), held.agent.abort_compaction
                )
            except JsonRpcException:
                raise
            except Exception as error:
                raise failed(f"{COMPACT}: {error}") from error
            finally:
                stream.close()
                held.stream = None
        return {
            "session": held.session_id,
            "turn": held.turn,
            "events": stream.seq,
            **outcome,
            "leafId": held.session.leaf_id,
        }

    async def navigate(self, ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        raw = read_params(params, NAVIGATE)
        target = string_param(raw, "entryId", NAVIGATE, required=True)
        assert target is not None
        summarize = flag_param(raw, "summarize", NAVIGATE)
        replace = flag_param(raw, "replaceInstructions", NAVIGATE)
        instructions = string_param(raw, "customInstructions", NAVIGATE)
        label = string_param(raw, "label", NAVIGATE)
        held = self.get(ls, raw, NAVIGATE, create=False)
        if held.busy:
            raise failed(RUN_ACTIVE)
        if held.session.get_entry(target) is None:
            raise JsonRpcInvalidParams(f"{NAVIGATE}: Entry {target} not found")
        async with held.lock:
            signal = AbortSignal()
            model = held.resolved.model
            summarizer = ProviderSummarizer(
                held.agent.provider,
                model,
                api_key=held.resolved.api_key,
                retry=held.agent.retry_policy,
                signal=signal,
            )
            moving = navigate_tree(
                held.session,
                target,
                summarize=summarize,
                summarizer=summarizer,
                model=SummaryModel(model.context_window, model.max_tokens, model.reasoning),
                reserve_tokens=branch_summary_reserve_tokens(held.resources.settings.merged),
                custom_instructions=instructions,
                replace_instructions=replace,
                label=label,
            )
            try:
                outcome = await _run(held, moving, signal.abort)
            except JsonRpcException:
                raise
            except Exception as error:
                raise failed(f"{NAVIGATE}: {error}") from error
            finally:
                held.rebuild()  # the agent's context is the new branch
        summary = outcome.summary_entry
        return {
            "session": held.session_id,
            "cancelled": outcome.cancelled,
            "aborted": outcome.aborted,
            "leafId": held.session.leaf_id,
            "editorText": outcome.editor_text,
            "summaryEntry": dict(summary) if summary is not None else None,
        }

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

    def tree(self, ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        found = self.locate(ls, read_params(params, TREE), TREE)
        session = found.session if isinstance(found, ChatSession) else found
        try:
            return tree_view_json(build_tree_view(session))
        except SessionFileError as error:  # e.g. rewritten in place since it was loaded
            raise failed(f"{TREE}: {error}", {"path": error.path}) from error

    async def close(self, ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        raw = read_params(params, CLOSE)
        session_id = string_param(raw, "session", CLOSE)
        file = string_param(raw, "file", CLOSE)
        held = self.sessions.get(session_id) if session_id is not None else None
        if held is None and file is not None:
            held = self.held_by_path(path_param(ls, file))
        if held is None:
            return {"closed": False}
        if held.busy:
            await held.agent.abort()
        async with held.lock:
            self.sessions.pop(held.session_id, None)
            held.close()
        return {"closed": True, "session": held.session_id}

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


async def _queue(held: ChatSession, text: str, behavior: Any) -> dict[str, Any]:
    """A prompt for a session that is busy: queued as steering or follow-up, or refused."""
    if behavior is None:
        raise failed(f"{CHAT}: {NEEDS_STREAMING_BEHAVIOR}")
    if held.agent.is_compacting:
        raise failed(f"{CHAT}: {COMPACTION_IN_PROGRESS}")
    if behavior == "steer":
        await held.agent.steer(text)
    else:
        await held.agent.follow_up(text)
    return {**held.summary(), "turn": held.turn, "queued": behavior}


def _open_stream(ls: PiLanguageServer, held: ChatSession) -> EventStream:
    held.turn += 1
    failed_once = False

    def send(event: Event) -> None:
        nonlocal failed_once
        if shut_down(ls):
            return
        try:
            ls.protocol.notify(EVENT_METHOD, event)
        except Exception:  # the client is gone: the run must still end (and its tools die)
            if not failed_once:
                log.exception("sending %s failed", EVENT_METHOD)
            failed_once = True

    stream = EventStream(send, {"session": held.session_id, "turn": held.turn})
    held.stream = stream
    return stream


def abort_now(agent: SessionAgent) -> None:
    """Abort whatever the agent runs (a retry wait, a compaction, the model stream, tools)
    without waiting: :meth:`SessionAgent.abort` minus its wait for idle."""
    agent.abort_retry()
    agent.abort_compaction()
    agent.agent.abort()


async def _run(held: ChatSession, work: Awaitable[T], abort: Callable[[], None]) -> T:
    """Await ``work``; when the request is cancelled, ``abort()`` it, let it wind down (its
    events still go out), and re-raise the cancellation."""
    task: asyncio.Future[T] = asyncio.ensure_future(work)
    current = asyncio.current_task()
    if current is not None:
        held.tasks.add(current)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        abort()
        try:
            done, _ = await asyncio.wait({task}, timeout=ABORT_GRACE)
            if not done:
                log.warning("a run ignored its abort for %s s; cancelling it", ABORT_GRACE)
                task.cancel()
                await asyncio.wait({task})
        except asyncio.CancelledError:
            task.cancel()
            raise
        if not task.cancelled() and task.exception() is not None:
            log.info("aborted run ended with %r", task.exception())
        raise
    finally:
        if current is not None:
            held.tasks.discard(current)


# --- registration -----------------------------------------------------------------------------


def sessions_of(server: PiLanguageServer) -> ChatSessions:
    """The sessions ``server`` holds (for the other session requests)."""
    return server.feature_state(ChatSessions)


def register(server: PiLanguageServer) -> None:
    sessions = sessions_of(server)

    @server.feature(CHAT)
    async def chat(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return await sessions.chat(ls, params)

    @server.feature(COMPACT)
    async def compact(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return await sessions.compact(ls, params)

    @server.feature(NAVIGATE)
    async def navigate(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return await sessions.navigate(ls, params)

    @server.feature(CLOSE)
    async def close(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return await sessions.close(ls, params)

    @server.feature(TREE)
    def tree(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return sessions.tree(ls, params)

    @server.feature(MODELS)
    def models(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return list_models(ls, sessions, params)

    @server.feature(SELECT)
    def select(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return select_model(ls, sessions, params)
