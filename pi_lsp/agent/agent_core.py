"""The stateful agent: one transcript, one run at a time, queues, abort (Pi's ``Agent``).

:class:`Agent` wraps :mod:`loop` the way pi-agent-core does: it keeps the transcript (every
message is added on its ``message_end``), the system prompt, model, thinking level and active
tools; it runs one prompt (or continuation) at a time and hands every event to its listeners,
awaiting each; it holds the steering queue (delivered after the current turn) and the follow-up
queue (delivered when the run would stop), each drained ``one-at-a-time`` or ``all``; and it
aborts the running turn (the provider stream is cancelled, tools get the abort signal — bash
kills its process group).

It knows nothing of session files or compaction: :mod:`session_agent` builds those on top.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pi_lsp.agent import events
from pi_lsp.agent.events import AgentEvent, EventListener, Listeners
from pi_lsp.agent.loop import (
    AgentContext,
    LoopConfig,
    NextTurn,
    TurnSnapshot,
    failure_message,
    run_agent_loop,
    run_agent_loop_continue,
)
from pi_lsp.agent.model_api import ModelInfo, Provider, ThinkingLevel
from pi_lsp.agent.tool_runner import AfterToolCall, BeforeToolCall, ToolExecutionMode
from pi_lsp.session.llm_messages import convert_to_llm
from pi_lsp.tools.base import AbortSignal, ToolContext

__all__ = ["Agent", "AgentBusyError", "AgentState", "QueueMode"]

Message = dict[str, Any]
QueueMode = Literal["all", "one-at-a-time"]


class AgentBusyError(RuntimeError):
    """A prompt or continuation was asked for while a run is active."""


@dataclass
class AgentState:
    """What the agent holds between runs (and while one streams)."""

    system_prompt: str
    model: ModelInfo
    thinking_level: ThinkingLevel = "off"
    tools: tuple[str, ...] = ()
    messages: list[Message] = field(default_factory=list)
    is_streaming: bool = False
    streaming_message: Message | None = None
    pending_tool_calls: frozenset[str] = frozenset()
    error_message: str | None = None


class _Queue:
    def __init__(self, mode: QueueMode) -> None:
        self.mode: QueueMode = mode
        self.items: list[Message] = []

    def drain(self) -> list[Message]:
        if self.mode == "all":
            drained, self.items = self.items, []
            return drained
        if not self.items:
            return []
        first, self.items = self.items[0], self.items[1:]
        return [first]


@dataclass
class _Run:
    signal: AbortSignal
    done: asyncio.Event


class Agent:
    """Runs the loop over one transcript; see the module docstring.

    ``prepare_next_turn``, ``should_stop_after_turn``, ``before_tool_call`` and
    ``after_tool_call`` are the loop's hooks (the session sets the first one). ``tool_context``
    is the template of every tool call's context.
    """

    def __init__(
        self,
        *,
        provider: Provider,
        model: ModelInfo,
        tool_context: ToolContext,
        system_prompt: str = "",
        tools: Sequence[str] = (),
        messages: Sequence[Message] = (),
        thinking_level: ThinkingLevel = "off",
        api_key: str | None = None,
        get_api_key: Callable[[str], Awaitable[str | None]] | None = None,
        steering_mode: QueueMode = "one-at-a-time",
        follow_up_mode: QueueMode = "one-at-a-time",
        tool_execution: ToolExecutionMode = "parallel",
        convert: Callable[[list[Message]], list[Message]] = convert_to_llm,
        transform_context: (
            Callable[[list[Message], AbortSignal | None], Awaitable[list[Message]]] | None
        ) = None,
        prepare_next_turn: Callable[[TurnSnapshot], Awaitable[NextTurn | None]] | None = None,
        should_stop_after_turn: Callable[[TurnSnapshot], Awaitable[bool]] | None = None,
        before_tool_call: BeforeToolCall | None = None,
        after_tool_call: AfterToolCall | None = None,
        on_stream_error: Callable[[Message, Any], None] | None = None,
        session_id: str | None = None,
    ) -> None:
        self.state = AgentState(
            system_prompt=system_prompt,
            model=model,
            thinking_level=thinking_level,
            tools=tuple(tools),
            messages=list(messages),
        )
        self.provider = provider
        self.tool_context = tool_context
        self.api_key = api_key
        self.get_api_key = get_api_key
        self.tool_execution: ToolExecutionMode = tool_execution
        self.convert = convert
        self.transform_context = transform_context
        self.prepare_next_turn = prepare_next_turn
        self.should_stop_after_turn = should_stop_after_turn
        self.before_tool_call = before_tool_call
        self.after_tool_call = after_tool_call
        self.on_stream_error = on_stream_error
        self.session_id = session_id
        self._steering = _Queue(steering_mode)
        self._follow_up = _Queue(follow_up_mode)
        self._listeners = Listeners()
        self._run: _Run | None = None

    # -- events -------------------------------------------------------------------------------

    def subscribe(self, listener: EventListener) -> Callable[[], None]:
        """Call ``listener`` with every event (awaited if it returns an awaitable), in order.
        Returns the function that unsubscribes it."""
        return self._listeners.add(listener)

    async def _process(self, event: AgentEvent) -> None:
        """Update the state for ``event``, then tell every listener."""
        kind = event["type"]
        state = self.state
        if kind in ("message_start", "message_update"):
            state.streaming_message = event["message"]
        elif kind == "message_end":
            state.streaming_message = None
            state.messages.append(event["message"])
        elif kind == "tool_execution_start":
            state.pending_tool_calls = state.pending_tool_calls | {event["toolCallId"]}
        elif kind == "tool_execution_end":
            state.pending_tool_calls = state.pending_tool_calls - {event["toolCallId"]}
        elif kind == "turn_end":
            message = event["message"]
            if message.get("role") == "assistant" and message.get("errorMessage"):
                state.error_message = message["errorMessage"]
        elif kind == "agent_end":
            state.streaming_message = None
        await self._listeners.tell(event)

    # -- queues -------------------------------------------------------------------------------

    @property
    def steering_mode(self) -> QueueMode:
        return self._steering.mode

    @steering_mode.setter
    def steering_mode(self, mode: QueueMode) -> None:
        self._steering.mode = mode

    @property
    def follow_up_mode(self) -> QueueMode:
        return self._follow_up.mode

    @follow_up_mode.setter
    def follow_up_mode(self, mode: QueueMode) -> None:
        self._follow_up.mode = mode

    def steer(self, message: Message) -> None:
        """Queue ``message`` for after the current turn (before the next response)."""
        self._steering.items.append(message)

    def follow_up(self, message: Message) -> None:
        """Queue ``message`` for when the run would otherwise stop."""
        self._follow_up.items.append(message)

    def clear_steering_queue(self) -> None:
        self._steering.items = []

    def clear_follow_up_queue(self) -> None:
        self._follow_up.items = []

    def clear_all_queues(self) -> None:
        self.clear_steering_queue()
        self.clear_follow_up_queue()

    def has_queued_messages(self) -> bool:
        return bool(self._steering.items or self._follow_up.items)

    # -- runs ---------------------------------------------------------------------------------

    @property
    def is_running(self) -> bool:
        return self._run is not None

    @property
    def signal(self) -> AbortSignal | None:
        """The abort signal of the active run."""
        return self._run.signal if self._run is not None else None

    def abort(self) -> None:
        """Abort the active run (its provider stream and tools), if any."""
        if self._run is not None:
            self._run.signal.abort()

    async def wait_for_idle(self) -> None:
        """Return when the active run (and its listeners) have finished."""
        if self._run is not None:
            await self._run.done.wait()

    def reset(self) -> None:
        if self._run is not None:
            raise AgentBusyError(
                "Agent is already processing. Wait for completion before resetting."
            )
        self.state.messages = []
        self.state.is_streaming = False
        self.state.streaming_message = None
        self.state.pending_tool_calls = frozenset()
        self.state.error_message = None
        self.clear_all_queues()

    async def prompt(self, messages: str | Message | Sequence[Message]) -> None:
        """Run with new prompt message(s) (a text becomes a user message)."""
        if self._run is not None:
            raise AgentBusyError(
                "Agent is already processing a prompt. Use steer() or followUp() to queue "
                "messages, or wait for completion."
            )
        await self._run_prompts(_as_messages(messages))

    async def continue_(self) -> None:
        """Go on from the transcript; its last message must be a user or tool-result message.

        An assistant-ending transcript first takes a queued steering (else follow-up) message
        and runs with it; only when none is queued is that an error.
        """
        if self._run is not None:
            raise AgentBusyError(
                "Agent is already processing. Wait for completion before continuing."
            )
        if not self.state.messages:
            raise ValueError("No messages to continue from")
        if self.state.messages[-1].get("role") == "assistant":
            steering = self._steering.drain()
            if steering:
                await self._run_prompts(steering, skip_initial_steering_poll=True)
                return
            follow_ups = self._follow_up.drain()
            if follow_ups:
                await self._run_prompts(follow_ups)
                return
            raise ValueError("Cannot continue from message role: assistant")
        await self._with_lifecycle(
            lambda signal: run_agent_loop_continue(
                self._context(), self._config(), self._process, signal
            )
        )

    async def _run_prompts(
        self, messages: list[Message], *, skip_initial_steering_poll: bool = False
    ) -> None:
        await self._with_lifecycle(
            lambda signal: run_agent_loop(
                messages,
                self._context(),
                self._config(skip_initial_steering_poll),
                self._process,
                signal,
            )
        )

    def _context(self) -> AgentContext:
        state = self.state
        return AgentContext(state.system_prompt, list(state.messages), state.tools)

    def _config(self, skip_initial_steering_poll: bool = False) -> LoopConfig:
        skip = skip_initial_steering_poll

        async def steering() -> list[Message]:
            nonlocal skip
            if skip:
                skip = False
                return []
            return self._steering.drain()

        async def follow_ups() -> list[Message]:
            return self._follow_up.drain()

        return LoopConfig(
            provider=self.provider,
            model=self.state.model,
            tool_context=self.tool_context,
            thinking_level=self.state.thinking_level,
            api_key=self.api_key,
            get_api_key=self.get_api_key,
            tool_execution=self.tool_execution,
            convert_to_llm=self.convert,
            transform_context=self.transform_context,
            get_steering_messages=steering,
            get_follow_up_messages=follow_ups,
            prepare_next_turn=self.prepare_next_turn,
            should_stop_after_turn=self.should_stop_after_turn,
            before_tool_call=self.before_tool_call,
            after_tool_call=self.after_tool_call,
            on_stream_error=self.on_stream_error,
            session_id=self.session_id,
        )

    async def _with_lifecycle(self, run: Callable[[AbortSignal], Awaitable[Any]]) -> None:
        if self._run is not None:
            raise AgentBusyError("Agent is already processing.")
        active = _Run(AbortSignal(), asyncio.Event())
        self._run = active
        self.state.is_streaming = True
        self.state.streaming_message = None
        self.state.error_message = None
        try:
            await run(active.signal)
        except Exception as exc:
            await self._fail_run(exc, active.signal.aborted)
        finally:
            self.state.is_streaming = False
            self.state.streaming_message = None
            self.state.pending_tool_calls = frozenset()
            self._run = None
            active.done.set()

    async def _fail_run(self, error: Exception, aborted: bool) -> None:
        """Close a run that raised with an error (or aborted) message, as Pi does."""
        message = failure_message(
            self.state.model, str(error) or type(error).__name__, aborted=aborted
        )
        await self._process(events.message_start(message))
        await self._process(events.message_end(message))
        await self._process(events.turn_end(message, []))
        await self._process(events.agent_end([message]))


def _as_messages(value: str | Message | Sequence[Message]) -> list[Message]:
    if isinstance(value, str):
        return [
            {
                "role": "user",
                "content": [{"type": "text", "text": value}],
                "timestamp": _now_ms(),
            }
        ]
    if isinstance(value, dict):
        return [value]
    return list(value)


def _now_ms() -> int:
    return int(time.time() * 1000)
