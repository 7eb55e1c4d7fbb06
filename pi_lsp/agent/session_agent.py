"""A chat session: the agent over a session file, with retries and compaction (spec §10.10).

:class:`SessionAgent` is what a front end talks to (``pi-lsp chat``, the server's ``pi/chat``).
It is Pi's ``AgentSession`` for the parts that shape context:

* **prompts** — ``/skill:`` and template expansion, then one run of the agent (:mod:`agent_core`)
  with the system prompt of the resources (:func:`pi_lsp.prompt.assemble.build_prompt`); while
  a run is active a prompt must say whether it steers or follows up;
* **persistence** — every message is appended to the :class:`SessionFile` on its
  ``message_end`` (user, assistant, tool results; ``custom`` as a custom-message entry); failed
  and aborted answers included;
* **retries** — a transient provider failure is retried (``auto_retry_start`` / ``_end``) with
  the ``retry`` settings, the failed answer dropped from the agent's context but kept in the
  file;
* **compaction** at Pi's three checkpoints, in Pi's order: inside a run before every request
  but the first (the ``prepare_next_turn`` hook), after a run (after the retry decision), and
  before a new prompt; a context overflow is answered by one compact-and-retry per run.
  Compaction goes through :func:`pi_lsp.session.compaction.run_compaction`, with a
  :class:`~pi_lsp.agent.provider_summarizer.ProviderSummarizer` over the session's provider;
* **events** — every loop event plus the session's own (:mod:`events`), to every subscriber.

Use::

    resources = load_resources(LoadOptions(cwd=cwd))
    session = SessionFile.create(cwd, provider=model.provider, model_id=model.id,
                                 thinking_level="off")          # or open / continue_recent
    agent = SessionAgent(provider=provider_for(model), model=model, session=session,
                         resources=resources, api_key=key)
    unsubscribe = agent.subscribe(on_event)      # plain or async callable, awaited in order
    task = asyncio.create_task(agent.prompt("fix the tests"))   # returns once settled
    await agent.prompt("also lint", streaming_behavior="steer")  # while it runs: queue
    await agent.abort()                          # cancels stream, tools, retry wait, compaction
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pi_lsp.agent import events
from pi_lsp.agent.agent_core import Agent, AgentBusyError, QueueMode
from pi_lsp.agent.events import AgentEvent, CompactionReason, EventListener, Listeners
from pi_lsp.agent.loop import AgentContext, NextTurn, TurnSnapshot
from pi_lsp.agent.model_api import ModelInfo, Provider, ThinkingLevel, thinking_level_or_off
from pi_lsp.agent.provider_summarizer import ProviderSummarizer
from pi_lsp.agent.providers.errors import (
    is_context_overflow,
    is_recoverable_length,
    is_retryable_error,
)
from pi_lsp.agent.providers.retry import RetryPolicy, Sleep, sleep_ms
from pi_lsp.agent.tool_runner import AfterToolCall, BeforeToolCall, ToolExecutionMode
from pi_lsp.js.dates import parse_timestamp_ms
from pi_lsp.prompt.assemble import build_prompt
from pi_lsp.resources.loader import Resources
from pi_lsp.resources.templates import expand_prompt_template, expand_skill_command
from pi_lsp.session.compaction import (
    AfterCompactHook,
    BeforeCompactHook,
    CompactionOutcome,
    run_compaction,
)
from pi_lsp.session.context import build_session_context
from pi_lsp.session.entry_store import EntryPath
from pi_lsp.session.llm_messages import convert_to_llm
from pi_lsp.session.session_file import SessionFile
from pi_lsp.session.summarizer import SummaryAborted, SummaryModel
from pi_lsp.session.tokens import (
    CompactionSettings,
    calculate_context_tokens,
    compaction_settings,
    estimate_context_tokens,
    estimate_messages_tokens,
    should_compact,
)
from pi_lsp.tools.base import AbortSignal, ToolContext

__all__ = [
    "COMPACTION_IN_PROGRESS",
    "NEEDS_STREAMING_BEHAVIOR",
    "OVERFLOW_RECOVERY_FAILED",
    "TRUNCATION_RECOVERY_FAILED",
    "SessionAgent",
]

Message = dict[str, Any]

OVERFLOW_RECOVERY_FAILED = (
    "Context overflow recovery failed after one compact-and-retry attempt. Try reducing context "
    "or switching to a larger-context model."
)
TRUNCATION_RECOVERY_FAILED = (
    "Truncated response recovery failed after one compact-and-retry attempt."
)
NEEDS_STREAMING_BEHAVIOR = (
    "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue "
    "the message."
)
COMPACTION_IN_PROGRESS = (
    "Cannot submit a prompt while compaction is in progress. Wait for compaction to finish and "
    "retry."
)


def _now_ms() -> int:
    return int(time.time() * 1000)


def _queue_mode(value: Any) -> QueueMode:
    return "all" if value == "all" else "one-at-a-time"


def _message_text(message: Mapping[str, Any]) -> str:
    """Pi's ``contentText(content, "")``: the text blocks run together."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        b["text"]
        for b in content
        if isinstance(b, Mapping) and b.get("type") == "text" and isinstance(b.get("text"), str)
    )


def _user_message(text: str, images: Sequence[Mapping[str, Any]] | None) -> Message:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    content.extend(dict(image) for image in images or ())
    return {"role": "user", "content": content, "timestamp": _now_ms()}


class SessionAgent:
    """An agent bound to a session file and a resources snapshot; see the module docstring.

    Build one with the session's ``provider`` and ``model``, an open :class:`SessionFile`
    (created with the model and thinking level for a new session) and the
    :class:`~pi_lsp.resources.loader.Resources` of its working directory (settings, tools,
    system prompt, skills, templates). The transcript is restored from the session's current
    branch. ``system_prompt`` replaces the one built from the resources; ``tool_context``
    replaces the default tool context (cwd, shell and image settings from the resources).
    ``emit_entry_events`` adds an ``entry_appended`` event after every entry this class
    appends (Pi only sends it for extension entries). ``sleep`` is the wait of retries (tests
    pass a fake). ``pi_quirks`` is given to compaction (see :mod:`pi_lsp.session.compaction`).
    """

    def __init__(
        self,
        *,
        provider: Provider,
        model: ModelInfo,
        session: SessionFile,
        resources: Resources,
        thinking_level: ThinkingLevel | None = None,
        api_key: str | None = None,
        get_api_key: Callable[[str], Awaitable[str | None]] | None = None,
        system_prompt: str | None = None,
        tool_context: ToolContext | None = None,
        tool_execution: ToolExecutionMode = "parallel",
        before_tool_call: BeforeToolCall | None = None,
        after_tool_call: AfterToolCall | None = None,
        before_compact: BeforeCompactHook | None = None,
        after_compact: AfterCompactHook | None = None,
        emit_entry_events: bool = False,
        sleep: Sleep = asyncio.sleep,
        pi_quirks: bool = False,
    ) -> None:
        self.session = session
        self.resources = resources
        self.provider = provider
        self._settings: Mapping[str, Any] = resources.settings.merged
        self._system_prompt = (
            system_prompt if system_prompt is not None else build_prompt(resources).text
        )
        context = build_session_context(session.entries, session.leaf_id)
        level: ThinkingLevel = thinking_level or thinking_level_or_off(context.thinking_level)

        def convert(messages: list[Message]) -> list[Message]:
            return convert_to_llm(messages, block_images=self._images_setting("blockImages", False))

        self.agent = Agent(
            provider=provider,
            model=model,
            tool_context=tool_context or self._default_tool_context(model, level),
            system_prompt=self._system_prompt,
            tools=resources.tools,
            messages=context.messages,
            thinking_level=level,
            api_key=api_key,
            get_api_key=get_api_key,
            steering_mode=_queue_mode(self._settings.get("steeringMode")),
            follow_up_mode=_queue_mode(self._settings.get("followUpMode")),
            tool_execution=tool_execution,
            convert=convert,
            prepare_next_turn=self._prepare_next_turn,
            before_tool_call=before_tool_call,
            after_tool_call=after_tool_call,
            session_id=session.session_id,
        )
        self._custom_tool_context = tool_context is not None
        self.agent.subscribe(self._handle_agent_event)
        self._api_key = api_key
        self._get_api_key = get_api_key
        self._before_compact = before_compact
        self._after_compact = after_compact
        self._emit_entry_events = emit_entry_events
        self._sleep = sleep
        self._pi_quirks = pi_quirks

        self._listeners = Listeners()
        self._steering_texts: list[str] = []
        self._follow_up_texts: list[str] = []
        self._run_active = False
        self._last_assistant: Message | None = None
        self._overflow_recovery_attempted = False
        self._retry_attempt = 0
        self._retry_signal: AbortSignal | None = None
        self._auto_compaction_signal: AbortSignal | None = None
        self._manual_compaction_signal: AbortSignal | None = None
        self._idle_waiters: list[asyncio.Future[None]] = []

    # -- configuration ------------------------------------------------------------------------

    def _images_setting(self, key: str, default: bool) -> bool:
        images = self._settings.get("images")
        value = images.get(key) if isinstance(images, Mapping) else None
        return value if isinstance(value, bool) else default

    def _default_tool_context(self, model: ModelInfo, level: ThinkingLevel) -> ToolContext:
        shell_path = self._settings.get("shellPath")
        prefix = self._settings.get("shellCommandPrefix")
        return ToolContext(
            cwd=Path(self.resources.cwd),
            model_supports_images=model.accepts_images,
            auto_resize_images=self._images_setting("autoResize", True),
            shell_path=shell_path if isinstance(shell_path, str) and shell_path else None,
            shell_command_prefix=prefix if isinstance(prefix, str) and prefix else None,
            env=self._session_environment(model, level),
        )

    def _session_environment(self, model: ModelInfo, level: ThinkingLevel) -> dict[str, str]:
        """The ``PI_*`` variables bash sees unless ``exposeSessionEnvironment`` is false."""
        if self._settings.get("exposeSessionEnvironment", True) is False:
            return {}
        env = {"PI_SESSION_ID": self.session.session_id}
        if self.session.path is not None:
            env["PI_SESSION_FILE"] = self.session.path
        env["PI_PROVIDER"] = model.provider
        env["PI_MODEL"] = model.id
        env["PI_REASONING_LEVEL"] = level
        return env

    @property
    def compaction_settings(self) -> CompactionSettings:
        return compaction_settings(self._settings)

    @property
    def retry_policy(self) -> RetryPolicy:
        return RetryPolicy.from_settings(self._settings)

    # -- changing the setup -------------------------------------------------------------------

    def reload(self, resources: Resources, *, system_prompt: str | None = None) -> None:
        """Take a new resources snapshot (settings, tools, system prompt, skills, templates).

        It applies from the next request on, also inside a running prompt (the next-turn
        refresh reads it).
        """
        self.resources = resources
        self._settings = resources.settings.merged
        self._system_prompt = (
            system_prompt if system_prompt is not None else build_prompt(resources).text
        )
        self.agent.state.tools = tuple(resources.tools)
        self.agent.steering_mode = _queue_mode(self._settings.get("steeringMode"))
        self.agent.follow_up_mode = _queue_mode(self._settings.get("followUpMode"))
        self._refresh_tool_context()

    async def set_thinking_level(self, level: ThinkingLevel) -> None:
        """Change the thinking level; recorded in the session (``thinking_level_change``)."""
        if level == self.agent.state.thinking_level:
            return
        self.agent.state.thinking_level = level
        await self._entry_appended(self.session.append_thinking_level_change(level))
        await self._emit(events.thinking_level_changed(level))
        self._refresh_tool_context()

    async def set_model(self, model: ModelInfo, provider: Provider | None = None) -> None:
        """Change the model (and the provider that speaks its API); recorded in the session."""
        if provider is not None:
            self.provider = self.agent.provider = provider
        previous = self.agent.state.model
        self.agent.state.model = model
        if (previous.provider, previous.id) != (model.provider, model.id):
            await self._entry_appended(self.session.append_model_change(model.provider, model.id))
        self._refresh_tool_context()

    def _refresh_tool_context(self) -> None:
        if not self._custom_tool_context:
            self.agent.tool_context = self._default_tool_context(self.model, self.thinking_level)

    # -- state --------------------------------------------------------------------------------

    @property
    def model(self) -> ModelInfo:
        return self.agent.state.model

    @property
    def thinking_level(self) -> ThinkingLevel:
        return self.agent.state.thinking_level

    @property
    def system_prompt(self) -> str:
        return self._system_prompt

    @property
    def messages(self) -> list[Message]:
        """The agent's context: what the next request is built from."""
        return self.agent.state.messages

    @property
    def is_streaming(self) -> bool:
        """A prompt is being processed (its run, retries, compactions and continuations)."""
        return self._run_active

    @property
    def is_compacting(self) -> bool:
        return (
            self._auto_compaction_signal is not None or self._manual_compaction_signal is not None
        )

    @property
    def is_idle(self) -> bool:
        return not self._run_active and not self.is_compacting

    @property
    def retry_attempt(self) -> int:
        return self._retry_attempt

    @property
    def steering_messages(self) -> list[str]:
        return list(self._steering_texts)

    @property
    def follow_up_messages(self) -> list[str]:
        return list(self._follow_up_texts)

    # -- events -------------------------------------------------------------------------------

    def subscribe(self, listener: EventListener) -> Callable[[], None]:
        """Call ``listener`` with every event, in order (awaited if it returns an awaitable).
        Returns the function that unsubscribes it."""
        return self._listeners.add(listener)

    async def _emit(self, event: AgentEvent) -> None:
        await self._listeners.tell(event)

    async def _emit_queue_update(self) -> None:
        await self._emit(events.queue_update(self._steering_texts, self._follow_up_texts))

    async def _handle_agent_event(self, event: AgentEvent) -> None:
        kind = event["type"]
        message = event.get("message")
        if kind == "message_start" and isinstance(message, dict) and message.get("role") == "user":
            self._overflow_recovery_attempted = False
            await self._unqueue(_message_text(message))

        if kind == "agent_end":
            await self._emit({**event, "willRetry": self._will_retry_after(event)})
        else:
            await self._emit(event)

        if kind == "message_end" and isinstance(message, dict):
            await self._persist(message)
            if message.get("role") == "assistant":
                self._last_assistant = message
                stop = message.get("stopReason")
                if stop not in ("error", "length"):
                    self._overflow_recovery_attempted = False
                if stop != "error" and self._retry_attempt > 0:
                    await self._emit(events.auto_retry_end(True, self._retry_attempt))
                    self._retry_attempt = 0

    async def _unqueue(self, text: str) -> None:
        """A queued message is being delivered: take it off the displayed queue."""
        if not text:
            return
        for texts in (self._steering_texts, self._follow_up_texts):
            if text in texts:
                texts.remove(text)
                await self._emit_queue_update()
                return

    async def _persist(self, message: Message) -> None:
        role = message.get("role")
        if role == "custom":
            entry_id = self.session.append_custom_message_entry(
                str(message.get("customType")),
                message.get("content"),
                bool(message.get("display")),
                message.get("details"),
            )
        elif role in ("user", "assistant", "toolResult"):
            entry_id = self.session.append_message(message)
        else:
            return
        await self._entry_appended(entry_id)

    async def _entry_appended(self, entry_id: str) -> None:
        if self._emit_entry_events:
            entry = self.session.get_entry(entry_id)
            if entry is not None:
                await self._emit(events.entry_appended(entry))

    # -- idle ---------------------------------------------------------------------------------

    def _resolve_idle(self) -> None:
        if not self.is_idle:
            return
        waiters, self._idle_waiters = self._idle_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def wait_for_idle(self) -> None:
        """Return once no prompt, retry or compaction is in progress."""
        if self.is_idle:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._idle_waiters.append(waiter)
        await waiter

    # -- prompting ----------------------------------------------------------------------------

    def expand(self, text: str) -> str:
        """``/skill:name args`` and ``/template args`` expanded as Pi does before sending."""
        expanded = expand_skill_command(text, self.resources.skills).text
        return expand_prompt_template(expanded, self.resources.templates)

    async def prompt(
        self,
        text: str,
        *,
        images: Sequence[Mapping[str, Any]] | None = None,
        streaming_behavior: str | None = None,
        expand_prompt_templates: bool = True,
    ) -> None:
        """Send a user message and wait until everything it started has settled.

        While a prompt is being processed, ``streaming_behavior`` (``"steer"`` or
        ``"followUp"``) queues the message instead; without it that is an error. Before a new
        run the last answer is checked for compaction (checkpoint 2).
        """
        if self._manual_compaction_signal is not None:
            raise AgentBusyError(COMPACTION_IN_PROGRESS)
        expanded = self.expand(text) if expand_prompt_templates else text
        if self.is_streaming:
            if streaming_behavior is None:
                raise AgentBusyError(NEEDS_STREAMING_BEHAVIOR)
            if streaming_behavior == "followUp":
                await self._queue_follow_up(expanded, images)
            else:
                await self._queue_steer(expanded, images)
            return
        last = self._find_last_assistant()
        if last is not None:
            await self._check_compaction(last, skip_aborted_check=False)
        message = _user_message(expanded, images)
        self.agent.state.system_prompt = self._system_prompt
        await self._run_agent_prompt([message])

    async def steer(self, text: str, images: Sequence[Mapping[str, Any]] | None = None) -> None:
        """Queue a message for after the current turn (expanded like a prompt)."""
        await self._queue_steer(self.expand(text), images)

    async def follow_up(self, text: str, images: Sequence[Mapping[str, Any]] | None = None) -> None:
        """Queue a message for when the agent would stop (expanded like a prompt)."""
        await self._queue_follow_up(self.expand(text), images)

    async def _queue_steer(self, text: str, images: Sequence[Mapping[str, Any]] | None) -> None:
        self._steering_texts.append(text)
        await self._emit_queue_update()
        self.agent.steer(_user_message(text, images))

    async def _queue_follow_up(self, text: str, images: Sequence[Mapping[str, Any]] | None) -> None:
        self._follow_up_texts.append(text)
        await self._emit_queue_update()
        self.agent.follow_up(_user_message(text, images))

    async def clear_queue(self) -> tuple[list[str], list[str]]:
        """Drop every queued message; returns the (steering, follow-up) texts that were queued."""
        steering, follow_up = self._steering_texts, self._follow_up_texts
        self._steering_texts, self._follow_up_texts = [], []
        self.agent.clear_all_queues()
        await self._emit_queue_update()
        return steering, follow_up

    def _find_last_assistant(self) -> Message | None:
        for message in reversed(self.agent.state.messages):
            if message.get("role") == "assistant":
                return message
        return None

    async def _run_agent_prompt(self, messages: list[Message]) -> None:
        self._run_active = True
        try:
            await self.agent.prompt(messages)
            while await self._after_run():
                await self.agent.continue_()
        finally:
            self._run_active = False
            try:
                await self._emit(events.agent_settled())
            finally:
                self._resolve_idle()

    async def _after_run(self) -> bool:
        """Checkpoint 1: retry, else compact; True when the agent should continue."""
        message, self._last_assistant = self._last_assistant, None
        if message is None:
            return False
        if self._is_retryable(message) and await self._prepare_retry(message):
            return True
        if message.get("stopReason") == "error" and self._retry_attempt > 0:
            attempt, self._retry_attempt = self._retry_attempt, 0
            error = message.get("errorMessage")
            await self._emit(
                events.auto_retry_end(False, attempt, error if isinstance(error, str) else None)
            )
        if await self._check_compaction(message):
            return True
        return self.agent.has_queued_messages()

    # -- aborting -----------------------------------------------------------------------------

    async def abort(self) -> None:
        """Abort whatever runs (a retry wait, a compaction, the provider stream and tools) and
        wait until idle. The aborted answer is kept in the session."""
        self.abort_retry()
        self.abort_compaction()
        self.agent.abort()
        await self.wait_for_idle()

    def abort_retry(self) -> None:
        if self._retry_signal is not None:
            self._retry_signal.abort()

    def abort_compaction(self) -> None:
        for signal in (self._manual_compaction_signal, self._auto_compaction_signal):
            if signal is not None:
                signal.abort()

    # -- retries ------------------------------------------------------------------------------

    def _is_retryable(self, message: Mapping[str, Any]) -> bool:
        return is_retryable_error(message, self.model.context_window or 0)

    def _will_retry_after(self, event: Mapping[str, Any]) -> bool:
        policy = self.retry_policy
        if not policy.enabled or self._retry_attempt >= policy.max_retries:
            return False
        for message in reversed(event.get("messages") or []):
            if isinstance(message, Mapping) and message.get("role") == "assistant":
                return self._is_retryable(message)
        return False

    async def _prepare_retry(self, message: Message) -> bool:
        """Wait before retrying a transient failure; False when no retry is left."""
        policy = self.retry_policy
        if not policy.enabled:
            return False
        attempt = self._retry_attempt + 1
        # Pi's session retry waits its own backoff: a server's retry-after is not read
        # (pi-ai reads it only for provider-level retries, off by default; recorded case
        # http-429-retry-after)
        delay = policy.delay_ms(attempt)
        if delay is None:
            return False
        self._retry_attempt = attempt
        error = message.get("errorMessage")
        await self._emit(
            events.auto_retry_start(
                attempt,
                policy.max_retries,
                delay,
                error if isinstance(error, str) and error else "Unknown error",
            )
        )
        self._drop_last_assistant()
        signal = AbortSignal()
        self._retry_signal = signal
        try:
            waited = await sleep_ms(delay, signal, sleep=self._sleep)
        finally:
            self._retry_signal = None
        if not waited:
            attempt, self._retry_attempt = self._retry_attempt, 0
            await self._emit(events.auto_retry_end(False, attempt, "Retry cancelled"))
            return False
        return True

    def _drop_last_assistant(self, *, only_failed: bool = False) -> None:
        messages = self.agent.state.messages
        if not messages or messages[-1].get("role") != "assistant":
            return
        if only_failed and messages[-1].get("stopReason") not in ("error", "length"):
            return
        self.agent.state.messages = messages[:-1]

    # -- compaction ---------------------------------------------------------------------------

    def _predates_latest_compaction(self, message: Mapping[str, Any]) -> bool:
        """Whether ``message`` is older than the branch's latest compaction (its usage or
        error describes a context that no longer exists).

        Pi compares the message's timestamp with the compaction's, which at millisecond
        resolution also calls an answer that started in the very millisecond of the compaction
        stale; pi-lsp looks up where the message is stored in the branch first and compares
        timestamps only for a message it cannot find.
        """
        branch = self.session.get_branch()
        types = self.session.get_branch_types()
        latest = next((i for i in range(len(types) - 1, -1, -1) if types[i] == "compaction"), None)
        if latest is None:
            return False
        # from the leaf back: the message is recent; an entry read again from the file is a
        # new dict, never the agent's message, so the search ends where the held ones do
        for index in range(len(branch) - 1, -1, -1):
            if isinstance(branch, EntryPath) and not branch.is_live(index):
                break
            if branch[index].get("message") is message:
                return index < latest
        compacted_at = parse_timestamp_ms(branch[latest].get("timestamp"))
        timestamp = message.get("timestamp")
        return (
            isinstance(timestamp, int | float)
            and not math.isnan(compacted_at)
            and timestamp <= compacted_at
        )

    async def _check_compaction(
        self, message: Mapping[str, Any], *, skip_aborted_check: bool = True
    ) -> bool:
        """Pi's ``_checkCompaction``: overflow recovery or threshold compaction for an answer.

        Returns True when the agent should continue (an overflow was compacted for a retry, or
        messages are queued).
        """
        settings = self.compaction_settings
        if not settings.enabled:
            return False
        if skip_aborted_check and message.get("stopReason") == "aborted":
            return False
        model = self.model
        window = model.context_window or 0
        same_model = message.get("provider") == model.provider and message.get("model") == model.id
        if self._predates_latest_compaction(message):
            return False

        overflow = same_model and is_context_overflow(message, window)
        truncated = same_model and is_recoverable_length(message, model.max_tokens)
        if overflow or truncated:
            will_retry = message.get("stopReason") != "stop"
            if not will_retry:
                return await self._run_auto_compaction("overflow", False)
            if self._overflow_recovery_attempted:
                error = OVERFLOW_RECOVERY_FAILED if overflow else TRUNCATION_RECOVERY_FAILED
                await self._emit(
                    events.compaction_end(
                        "overflow", None, aborted=False, will_retry=False, error_message=error
                    )
                )
                return False
            self._overflow_recovery_attempted = True
            self._drop_last_assistant()
            return await self._run_auto_compaction("overflow", True)

        usage = message.get("usage")
        tokens = calculate_context_tokens(usage) if isinstance(usage, Mapping) else 0
        if message.get("stopReason") == "error" or tokens == 0:
            messages = self.agent.state.messages
            estimate = estimate_context_tokens(messages)
            if estimate.last_usage_index is not None and self._predates_latest_compaction(
                messages[estimate.last_usage_index]
            ):
                return False
            tokens = estimate.tokens
        if should_compact(tokens, window, settings):
            return await self._run_auto_compaction("threshold", False)
        return False

    def _summary_model(self) -> SummaryModel:
        model = self.model
        return SummaryModel(model.context_window, model.max_tokens, model.reasoning)

    def _summarizer(self, signal: AbortSignal, reason: CompactionReason) -> ProviderSummarizer:
        return ProviderSummarizer(
            self.provider,
            self.model,
            api_key=self._api_key,
            get_api_key=self._get_api_key,
            retry=self.retry_policy,
            signal=signal,
            on_event=self._emit,
            source={"source": "compaction", "reason": reason},
            sleep=self._sleep,
        )

    async def _compact(
        self,
        reason: CompactionReason,
        will_retry: bool,
        signal: AbortSignal,
        on_prepared: Callable[[], Awaitable[None]] | None,
        custom_instructions: str | None = None,
    ) -> CompactionOutcome | None:
        """Run one compaction on the current branch; the entry is appended unless aborted."""
        user_hook = self._before_compact

        async def before(event: Any) -> Any:
            if on_prepared is not None:
                await on_prepared()
            return await user_hook(event) if user_hook is not None else None

        def append(fields: dict[str, Any]) -> Mapping[str, Any]:
            if signal.aborted:
                raise SummaryAborted("Compaction cancelled")
            payload = {key: value for key, value in fields.items() if key != "type"}
            entry_id = self.session.append_entry(str(fields["type"]), payload)
            stored = self.session.get_entry(entry_id)
            return stored if stored is not None else {"id": entry_id, **fields}

        outcome = await run_compaction(
            self.session.get_branch(),
            self.compaction_settings,
            self._summarizer(signal, reason),
            self._summary_model(),
            reason=reason,
            will_retry=will_retry,
            custom_instructions=custom_instructions,
            thinking_level=self.thinking_level,
            append_entry=append,
            before_compact=before,
            after_compact=self._after_compact,
            pi_quirks=self._pi_quirks,
        )
        if outcome is not None:
            entry_id = outcome.entry.get("id")
            if isinstance(entry_id, str):
                await self._entry_appended(entry_id)
        return outcome

    def _rebuild_messages(self) -> list[Message]:
        """The agent's context from the session's branch (after a compaction)."""
        messages = build_session_context(self.session.entries, self.session.leaf_id).messages
        self.agent.state.messages = list(messages)
        return messages

    @staticmethod
    def _result(outcome: CompactionOutcome, tokens_after: int) -> dict[str, Any]:
        """The result ``compaction_end`` reports, in Pi's key order."""
        result = outcome.result
        data: dict[str, Any] = {
            "summary": result.summary,
            "firstKeptEntryId": result.first_kept_entry_id,
            "tokensBefore": result.tokens_before,
            "estimatedTokensAfter": tokens_after,
        }
        if result.usage is not None:
            data["usage"] = dict(result.usage)
        if result.details is not None:
            data["details"] = dict(result.details)
        return data

    async def _run_auto_compaction(self, reason: CompactionReason, will_retry: bool) -> bool:
        """Threshold or overflow compaction; True when the agent should continue."""
        started = False
        signal = AbortSignal()

        async def on_prepared() -> None:
            nonlocal started
            started = True
            self._auto_compaction_signal = signal
            await self._emit(events.compaction_start(reason))

        try:
            outcome = await self._compact(reason, will_retry, signal, on_prepared)
            if outcome is None:
                return False
            messages = self._rebuild_messages()
            result = self._result(outcome, estimate_messages_tokens(messages))
            await self._emit(
                events.compaction_end(reason, result, aborted=False, will_retry=will_retry)
            )
            if will_retry:
                self._drop_last_assistant(only_failed=True)
                return True
            return self.agent.has_queued_messages()
        except SummaryAborted:
            if started:
                await self._emit(
                    events.compaction_end(reason, None, aborted=True, will_retry=False)
                )
            return False
        except Exception as exc:
            if started:
                text = str(exc) or "compaction failed"
                error = (
                    f"Context overflow recovery failed: {text}"
                    if reason == "overflow"
                    else f"Auto-compaction failed: {text}"
                )
                await self._emit(
                    events.compaction_end(
                        reason, None, aborted=False, will_retry=False, error_message=error
                    )
                )
            return False
        finally:
            self._auto_compaction_signal = None
            self._resolve_idle()

    async def compact(self, custom_instructions: str | None = None) -> dict[str, Any]:
        """Compact now (``/compact``): aborts the current run first, never continues it.

        Returns the result ``compaction_end`` reports. Raises what went wrong (``Already
        compacted``, ``Nothing to compact (session too small)``, a failed summary, an abort).
        """
        await self.abort()
        signal = AbortSignal()
        self._manual_compaction_signal = signal
        await self._emit(events.compaction_start("manual"))
        try:
            outcome = await self._compact("manual", False, signal, None, custom_instructions)
            if outcome is None:  # run_compaction raises for a manual compaction instead
                raise SummaryAborted("Compaction cancelled")
            messages = self._rebuild_messages()
            result = self._result(outcome, estimate_messages_tokens(messages))
            self._manual_compaction_signal = None
            await self._emit(
                events.compaction_end("manual", result, aborted=False, will_retry=False)
            )
            return result
        except Exception as exc:
            aborted = isinstance(exc, SummaryAborted)
            self._manual_compaction_signal = None
            await self._emit(
                events.compaction_end(
                    "manual",
                    None,
                    aborted=aborted,
                    will_retry=False,
                    error_message=None if aborted else f"Compaction failed: {exc}",
                )
            )
            raise
        finally:
            self._manual_compaction_signal = None
            self._resolve_idle()

    # -- checkpoint 3 -------------------------------------------------------------------------

    async def _prepare_next_turn(self, turn: TurnSnapshot) -> NextTurn:
        """Before every request of a run but the first: compact if over the threshold, and
        refresh the system prompt, tools, model and thinking level."""
        context = turn.context
        model = self.model
        window = model.context_window or 0
        if window > 0 and should_compact(
            estimate_context_tokens(context.messages).tokens, window, self.compaction_settings
        ):
            await self._run_auto_compaction("threshold", False)
            context = AgentContext(
                context.system_prompt, list(self.agent.state.messages), context.tools
            )
        state = self.agent.state
        return NextTurn(
            context=AgentContext(self._system_prompt, context.messages, state.tools),
            model=state.model,
            thinking_level=state.thinking_level,
        )
