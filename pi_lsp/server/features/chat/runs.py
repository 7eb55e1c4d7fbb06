"""The chat requests that run a held session's agent or change what the server holds.

``pi/chat`` sends one prompt; while it runs, the session's events go out as numbered
``pi/event`` notifications on an :class:`~pi_lsp.server.event_stream.EventStream` stamped
``{"session", "turn"}`` — ``turn`` counts the requests that ran the agent in this session
(chats and compactions), ``seq`` the events of one of them. Text deltas, thinking deltas and
tool output are coalesced; every other event is one notification. Cancelling the request
(``$/cancelRequest``) aborts the run: the model stream is closed and running tools are killed
(bash: the whole process group), the remaining events go out, and the request is answered
with ``RequestCancelled``.

Also here: ``pi/session/navigate`` (move the leaf, optionally leaving a branch summary),
``pi/session/compact`` (manual compaction; its ``dryRun`` preview is in
:mod:`~pi_lsp.server.features.chat.views`) and ``pi/session/close``. The protocol is described
in ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from pi_lsp.agent.provider_summarizer import ProviderSummarizer
from pi_lsp.agent.providers.secret import KNOWN_SECRETS
from pi_lsp.agent.session_agent import COMPACTION_IN_PROGRESS, NEEDS_STREAMING_BEHAVIOR
from pi_lsp.prompt.file_args import auto_resize_setting
from pi_lsp.server.event_stream import EventStream
from pi_lsp.server.features.chat import mentions
from pi_lsp.server.features.chat.events import last_assistant, text_of
from pi_lsp.server.features.chat.models import thinking_param
from pi_lsp.server.features.chat.sessions import ChatSession, ChatSessions, abort_now
from pi_lsp.server.language_server import PiLanguageServer
from pi_lsp.server.requests import (
    ABORT_GRACE,
    event_sender,
    failed,
    flag_param,
    path_param,
    read_params,
    string_param,
)
from pi_lsp.session.branch_summary import RUN_ACTIVE, navigate_tree
from pi_lsp.session.summarizer import SummaryModel
from pi_lsp.session.tokens import branch_summary_reserve_tokens
from pi_lsp.tools.base import AbortSignal

log = logging.getLogger(__name__)

CHAT = "pi/chat"
NAVIGATE = "pi/session/navigate"
COMPACT = "pi/session/compact"
CLOSE = "pi/session/close"

STREAMING_BEHAVIORS = ("steer", "followUp")

T = TypeVar("T")


async def chat(ls: PiLanguageServer, sessions: ChatSessions, params: Any) -> dict[str, Any]:
    raw = read_params(params, CHAT)
    text = raw.get("text")
    if not isinstance(text, str) or not text.strip():
        raise JsonRpcInvalidParams(f"{CHAT}: 'text' must be the message to send")
    behavior = raw.get("streamingBehavior")
    if behavior is not None and behavior not in STREAMING_BEHAVIORS:
        raise JsonRpcInvalidParams(f"{CHAT}: 'streamingBehavior' must be 'steer' or 'followUp'")
    thinking = thinking_param(raw, CHAT)
    known = set(sessions.sessions)
    held = sessions.get(ls, raw, CHAT, create=True)
    if held.busy:
        text, images, _ = await _attach(held, raw, text)
        return await _queue(held, text, behavior, images)
    provider, model = string_param(raw, "provider", CHAT), string_param(raw, "model", CHAT)
    if held.session_id in known and (provider or model or thinking):
        sessions.switch_model(ls, held, CHAT, provider, model, thinking)
    sessions.refresh(ls, held)
    text, images, expand = await _attach(held, raw, text)
    async with held.lock:
        stream = _open_stream(ls, held)
        try:
            agent = held.agent
            work = agent.prompt(text, images=images, expand_prompt_templates=expand)
            await _run(held, work, lambda: abort_now(agent))
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


async def compact(ls: PiLanguageServer, sessions: ChatSessions, params: Any) -> dict[str, Any]:
    raw = read_params(params, COMPACT)
    instructions = string_param(raw, "customInstructions", COMPACT)
    if flag_param(raw, "dryRun", COMPACT):  # a preview: nothing summarised, locked or written
        from pi_lsp.server.features.chat.views import compact_dry_run

        return compact_dry_run(ls, sessions, raw)
    held = sessions.get(ls, raw, COMPACT, create=False)
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


async def navigate(ls: PiLanguageServer, sessions: ChatSessions, params: Any) -> dict[str, Any]:
    raw = read_params(params, NAVIGATE)
    target = string_param(raw, "entryId", NAVIGATE, required=True)
    assert target is not None
    summarize = flag_param(raw, "summarize", NAVIGATE)
    replace = flag_param(raw, "replaceInstructions", NAVIGATE)
    instructions = string_param(raw, "customInstructions", NAVIGATE)
    label = string_param(raw, "label", NAVIGATE)
    held = sessions.get(ls, raw, NAVIGATE, create=False)
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


async def close(ls: PiLanguageServer, sessions: ChatSessions, params: Any) -> dict[str, Any]:
    raw = read_params(params, CLOSE)
    session_id = string_param(raw, "session", CLOSE)
    file = string_param(raw, "file", CLOSE)
    held = sessions.sessions.get(session_id) if session_id is not None else None
    if held is None and file is not None:
        held = sessions.held_by_path(path_param(ls, file))
    if held is None:
        return {"closed": False}
    if held.busy:
        await held.agent.abort()
    async with held.lock:
        sessions.sessions.pop(held.session_id, None)
        held.close()
    return {"closed": True, "session": held.session_id}


async def _attach(
    held: ChatSession, raw: dict[str, Any], text: str
) -> tuple[str, list[dict[str, str]] | None, bool]:
    """The prompt with its attachments (:mod:`.mentions`): files and selections go before the
    text, expanded first (``/template`` still works); whether the agent should still expand."""
    if not mentions.has_attachments(raw):
        return text, None, True
    settings = held.agent.resources.settings.merged
    attached = await mentions.attachments(
        raw, CHAT, held.session.cwd, held.agent.model, auto_resize_setting(settings)
    )
    if attached.text:
        return attached.text + held.agent.expand(text), attached.images or None, False
    return text, attached.images or None, True


async def _queue(
    held: ChatSession, text: str, behavior: Any, images: list[dict[str, str]] | None
) -> dict[str, Any]:
    """A prompt for a session that is busy: queued as steering or follow-up, or refused."""
    if behavior is None:
        raise failed(f"{CHAT}: {NEEDS_STREAMING_BEHAVIOR}")
    if held.agent.is_compacting:
        raise failed(f"{CHAT}: {COMPACTION_IN_PROGRESS}")
    if behavior == "steer":
        await held.agent.steer(text, images)
    else:
        await held.agent.follow_up(text, images)
    return {**held.summary(), "turn": held.turn, "queued": behavior}


def _open_stream(ls: PiLanguageServer, held: ChatSession) -> EventStream:
    held.turn += 1
    stream = EventStream(event_sender(ls), {"session": held.session_id, "turn": held.turn})
    held.stream = stream
    return stream


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
