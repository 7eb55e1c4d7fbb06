"""The output budget of a model request: the clamp every request goes through (spec §13.2).

Before a request Pi lowers ``maxTokens`` so that input and output fit the context window with
a 4096-token margin: ``min(requested, max(1, window - estimate - 4096))``. The formula is
:func:`pi_lsp.session.summarizer.clamp_output_budget` (summaries use it too); this module holds
the estimate the provider layer makes of a request's input, which differs from the session's
own estimate (spec §15.11):

* the usage of the last assistant message that finished normally counts, plus chars/4 of every
  message after it — but only if no message before it is newer than it (a compaction summary
  inserted after a response makes that response's usage describe a context that no longer
  exists);
* without such a usage: chars/4 of every message, of the system prompt and of the tool
  definitions as JSON.

Messages are the LLM messages of the request (after ``convert_to_llm``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pi_lsp.agent.model_api import ModelInfo
from pi_lsp.js.json import json_stringify
from pi_lsp.js.text import utf16_len
from pi_lsp.session.summarizer import clamp_output_budget
from pi_lsp.session.tokens import calculate_context_tokens, estimate_message_tokens

__all__ = ["estimate_request_tokens", "request_max_tokens"]

Message = Mapping[str, Any]


def _timestamp(message: Message) -> float:
    value = message.get("timestamp")
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        return -math.inf
    return float(value)


def _usage_index(messages: Sequence[Message]) -> int | None:
    """The last assistant message whose usage still describes its prefix (see the module)."""
    newest_before = -math.inf
    found: int | None = None
    for index, message in enumerate(messages):
        if message.get("role") == "assistant":
            usage = message.get("usage")
            if (
                _timestamp(message) >= newest_before
                and message.get("stopReason") not in ("aborted", "error")
                and isinstance(usage, Mapping)
                and calculate_context_tokens(usage) > 0
            ):
                found = index
        newest_before = max(newest_before, _timestamp(message))
    return found


def _text_tokens(text: str) -> int:
    return math.ceil(utf16_len(text) / 4)


def estimate_request_tokens(
    system_prompt: str, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]
) -> int:
    """The provider layer's estimate of a request's input tokens (see the module docstring)."""
    index = _usage_index(messages)
    if index is not None:
        usage = messages[index].get("usage")
        assert isinstance(usage, Mapping)
        trailing = sum(estimate_message_tokens(m) for m in messages[index + 1 :])
        return calculate_context_tokens(usage) + trailing
    tokens = sum(estimate_message_tokens(m) for m in messages)
    if system_prompt:
        tokens += _text_tokens(system_prompt)
    if tools:
        tokens += _text_tokens(json_stringify(list(tools)))
    return tokens


def request_max_tokens(
    model: ModelInfo,
    system_prompt: str,
    messages: Sequence[Message],
    tools: Sequence[Mapping[str, Any]],
    requested: int | None = None,
) -> int:
    """``maxTokens`` for a request: ``requested`` (default: the model's cap), clamped."""
    wanted = model.max_tokens if requested is None else requested
    if model.context_window <= 0:
        return max(1, wanted)
    used = estimate_request_tokens(system_prompt, messages, tools)
    return clamp_output_budget(wanted, model.context_window, used)
