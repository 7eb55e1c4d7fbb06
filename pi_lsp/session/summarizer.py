"""The model interface summaries are written with, and the rules around one request.

Compaction and branch summaries need one thing from a model: answer one request (a system
prompt and a single user message) with text. ``Summarizer`` is that interface; the agent loop
implements it with the session's real provider, tests with ``ScriptedSummarizer``. This module
also holds what Pi decides around such a request: the output budget (the share of
``reserveTokens`` a summary may use, the model's own cap, and the provider-level clamp of
spec §13.2), how the answer becomes text, and which answers are refused.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pi_lsp.js.text import utf16_len
from pi_lsp.session.tokens import estimate_messages_tokens

__all__ = [
    "BRANCH_LABEL",
    "HISTORY_LABEL",
    "OUTPUT_CLAMP_MARGIN",
    "TURN_PREFIX_LABEL",
    "Summarizer",
    "SummaryAborted",
    "SummaryError",
    "SummaryModel",
    "SummaryRequest",
    "SummaryResponse",
    "add_usage",
    "checked_text",
    "clamp_output_budget",
    "make_summary_request",
    "response_text",
    "summary_budget",
    "summary_failure",
]

Message = dict[str, Any]

#: How each kind of summary names itself in error messages (Pi's labels).
HISTORY_LABEL = "Summarization"
TURN_PREFIX_LABEL = "Turn prefix summarization"
BRANCH_LABEL = "Branch summarization"

#: Tokens the provider-level clamp keeps free on top of the estimated input.
OUTPUT_CLAMP_MARGIN = 4096


class SummaryError(Exception):
    """A summary could not be made (the model failed, stopped at its token cap, or tried to
    call a tool). Nothing is written to the session."""


class SummaryAborted(Exception):
    """The summary request was aborted; nothing is written to the session."""


@dataclass(frozen=True, slots=True)
class SummaryModel:
    """What the summary code needs to know of the session's current model.

    ``context_window`` and ``max_tokens`` are 0 when unknown; ``reasoning`` says whether the
    model accepts a thinking level.
    """

    context_window: int = 0
    max_tokens: int = 0
    reasoning: bool = False


@dataclass(frozen=True, slots=True)
class SummaryRequest:
    """One request to a summarizing model, in Pi's message shapes.

    ``messages`` is a single user message whose one text block holds the transcript and the
    instructions. ``max_tokens`` is final (budget and provider clamp already applied).
    ``reasoning`` is the thinking level to ask for, or None for no reasoning option. Pi sends
    summaries without tools, with prompt caching off and a fresh session id per request; an
    implementation does the same and reuses the session's retry policy.
    """

    label: str
    system_prompt: str
    messages: tuple[Message, ...]
    max_tokens: int
    reasoning: str | None = None

    @property
    def prompt_text(self) -> str:
        """The text of the user message (transcript + instructions)."""
        content = self.messages[0].get("content") if self.messages else None
        if isinstance(content, list) and content and isinstance(content[0], Mapping):
            text = content[0].get("text")
            return text if isinstance(text, str) else ""
        return ""


@dataclass(frozen=True, slots=True)
class SummaryResponse:
    """A model's answer: content blocks in Pi's shape, stop reason, usage."""

    content: tuple[Mapping[str, Any], ...] = ()
    stop_reason: str = "stop"
    usage: Mapping[str, Any] | None = None
    error_message: str | None = None

    @classmethod
    def of_text(
        cls, text: str, usage: Mapping[str, Any] | None = None, stop_reason: str = "stop"
    ) -> SummaryResponse:
        return cls(({"type": "text", "text": text},), stop_reason, usage)


class Summarizer(Protocol):
    """Anything that can answer a summary request (the agent loop's provider, a script).

    An implementation streams one completion with the session's model and retry policy and
    returns the final answer; provider failures come back as ``stop_reason="error"`` with an
    ``error_message`` (not as exceptions), an abort as ``stop_reason="aborted"``. Cancelling
    the awaiting task cancels the request.
    """

    async def complete(self, request: SummaryRequest) -> SummaryResponse: ...


def clamp_output_budget(requested: int, context_window: int, input_tokens: int) -> int:
    """The provider-level output clamp (spec §13.2): with a known window, the budget may not
    exceed what is left after the estimated input and a 4096-token margin (at least 1)."""
    if context_window <= 0:
        return requested
    return min(requested, max(1, context_window - input_tokens - OUTPUT_CLAMP_MARGIN))


def summary_budget(share_of_reserve: float, reserve_tokens: int, model: SummaryModel) -> int:
    """A summary's output budget before the clamp: a share of ``reserveTokens``, never above
    the model's own output cap when that is known."""
    budget = math.floor(share_of_reserve * reserve_tokens)
    return min(budget, model.max_tokens) if model.max_tokens > 0 else budget


def make_summary_request(
    label: str,
    system_prompt: str,
    prompt_text: str,
    max_tokens: int,
    model: SummaryModel,
    *,
    reasoning: str | None = None,
    timestamp_ms: int = 0,
) -> SummaryRequest:
    """The request for ``prompt_text`` with ``max_tokens`` clamped as the provider would.

    With no assistant usage in the request, the provider's input estimate is chars/4 of the
    system prompt plus the messages.
    """
    message: Message = {
        "role": "user",
        "content": [{"type": "text", "text": prompt_text}],
        "timestamp": timestamp_ms,
    }
    input_tokens = math.ceil(utf16_len(system_prompt) / 4) + estimate_messages_tokens([message])
    budget = clamp_output_budget(max_tokens, model.context_window, input_tokens)
    return SummaryRequest(label, system_prompt, (message,), budget, reasoning)


def response_text(response: SummaryResponse) -> str:
    """The summary text of an answer: its text blocks joined by newlines (thinking dropped)."""
    texts = [
        block["text"]
        for block in response.content
        if block.get("type") == "text" and isinstance(block.get("text"), str)
    ]
    return "\n".join(texts)


def summary_failure(response: SummaryResponse, label: str) -> str | None:
    """Why an answer cannot be used as a summary, or None when it can.

    An error, a stop at the token cap (the summary would be cut short) and a tool call are
    refused, with Pi's messages.
    """
    if response.stop_reason == "error":
        return f"{label} failed: {response.error_message or 'Unknown error'}"
    if response.stop_reason == "length":
        return f"{label} failed: generation hit the token cap and the summary is incomplete"
    if any(block.get("type") == "toolCall" for block in response.content):
        return f"{label} attempted to call a tool"
    return None


def checked_text(response: SummaryResponse, label: str) -> str:
    """The summary text of an acceptable answer; raises for an aborted or refused one."""
    if response.stop_reason == "aborted":
        raise SummaryAborted(f"{label} aborted")
    failure = summary_failure(response, label)
    if failure is not None:
        raise SummaryError(failure)
    return response_text(response)


def add_usage(usages: Sequence[Mapping[str, Any] | None]) -> dict[str, Any] | None:
    """The field-by-field sum of several usages (nested ``cost`` included); None if none."""
    present = [usage for usage in usages if isinstance(usage, Mapping)]
    if not present:
        return None
    if len(present) == 1:
        return dict(present[0])
    return _sum_mappings(present)


def _sum_mappings(items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    keys: list[str] = []
    for item in items:
        keys.extend(key for key in item if key not in keys)
    total: dict[str, Any] = {}
    for key in keys:
        values = [item[key] for item in items if key in item]
        if all(isinstance(v, Mapping) for v in values):
            total[key] = _sum_mappings(values)
        elif all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            total[key] = sum(values)
        else:
            total[key] = values[-1]
    return total
