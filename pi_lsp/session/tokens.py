"""How many tokens a session's context holds, as Pi reckons it (spec §10.1–§10.3).

Pi never tokenizes. It takes the newest trustworthy number a provider reported (the ``usage``
of the last assistant message that finished normally) and adds a chars/4 estimate for every
message after it. This module holds those rules, the compaction settings, and the threshold
test ``should_compact``. Messages are Pi's JSON dicts (the agent's messages, before
``convert_to_llm``); lengths are JavaScript lengths (UTF-16 code units).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pi_lsp.js.json import escape_lone_surrogates, json_stringify
from pi_lsp.js.text import utf16_len

__all__ = [
    "DEFAULT_BRANCH_SUMMARY_RESERVE_TOKENS",
    "DEFAULT_COMPACTION_SETTINGS",
    "IMAGE_CHARS",
    "CompactionSettings",
    "ContextEstimate",
    "branch_summary_reserve_tokens",
    "calculate_context_tokens",
    "compaction_settings",
    "estimate_context_tokens",
    "estimate_message_chars",
    "estimate_message_tokens",
    "estimate_messages_tokens",
    "last_assistant_usage",
    "should_compact",
    "valid_usage",
]

Message = Mapping[str, Any]

#: What one image block counts for in the estimate (about 1200 tokens).
IMAGE_CHARS = 4800

DEFAULT_BRANCH_SUMMARY_RESERVE_TOKENS = 16384


@dataclass(frozen=True, slots=True)
class CompactionSettings:
    """``compaction.*`` settings: whether auto-compaction runs, the headroom kept free below
    the context window (summary budgets derive from it) and the recent tokens kept verbatim."""

    enabled: bool = True
    reserve_tokens: int = 16384
    keep_recent_tokens: int = 20000


DEFAULT_COMPACTION_SETTINGS = CompactionSettings()


def _token_count(value: Any) -> int | None:
    """A setting that has to be a whole number of tokens (None when it is not one)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    return int(value) if value >= 0 else None


def compaction_settings(settings: Mapping[str, Any] | None) -> CompactionSettings:
    """The compaction settings of merged settings (``settings.json`` global + project).

    A missing key takes Pi's default. Pi would also use a value of the wrong type as it is;
    here such a value (a string, a negative or fractional number) falls back to the default.
    """
    section = settings.get("compaction") if settings is not None else None
    if not isinstance(section, Mapping):
        return DEFAULT_COMPACTION_SETTINGS
    defaults = DEFAULT_COMPACTION_SETTINGS
    enabled = section.get("enabled")
    reserve = _token_count(section.get("reserveTokens"))
    keep = _token_count(section.get("keepRecentTokens"))
    return CompactionSettings(
        enabled=enabled if isinstance(enabled, bool) else defaults.enabled,
        reserve_tokens=defaults.reserve_tokens if reserve is None else reserve,
        keep_recent_tokens=defaults.keep_recent_tokens if keep is None else keep,
    )


def branch_summary_reserve_tokens(settings: Mapping[str, Any] | None) -> int:
    """``branchSummary.reserveTokens`` (default 16384): the headroom of a branch summary's input."""
    section = settings.get("branchSummary") if settings is not None else None
    value = _token_count(section.get("reserveTokens")) if isinstance(section, Mapping) else None
    return DEFAULT_BRANCH_SUMMARY_RESERVE_TOKENS if value is None else value


# ---------------------------------------------------------------------------------------------
# Usage reported by a provider


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return value if math.isfinite(value) else 0


def calculate_context_tokens(usage: Mapping[str, Any] | None) -> int:
    """Tokens a usage says the context held: ``totalTokens``, or the sum of its parts when that
    is zero or missing (input + output + cache read + cache write)."""
    if not isinstance(usage, Mapping):
        return 0
    total = _number(usage.get("totalTokens"))
    if total:
        return int(total)
    parts = ("input", "output", "cacheRead", "cacheWrite")
    return int(sum(_number(usage.get(key)) for key in parts))


def valid_usage(message: Message) -> Mapping[str, Any] | None:
    """The usage of ``message`` if Pi trusts it: an assistant message that was neither aborted
    nor failed, whose usage counts more than zero tokens."""
    if message.get("role") != "assistant":
        return None
    if message.get("stopReason") in ("aborted", "error"):
        return None
    usage = message.get("usage")
    if not isinstance(usage, Mapping) or calculate_context_tokens(usage) <= 0:
        return None
    return usage


def last_assistant_usage(entries: Iterable[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """``getLastAssistantUsage``: the newest valid usage among ``message`` entries."""
    found: Mapping[str, Any] | None = None
    for entry in entries:
        if entry.get("type") != "message":
            continue
        message = entry.get("message")
        if isinstance(message, Mapping):
            usage = valid_usage(message)
            if usage is not None:
                found = usage
    return found


# ---------------------------------------------------------------------------------------------
# The chars/4 estimate


def _text_length(value: Any) -> int:
    return utf16_len(value) if isinstance(value, str) else 0


#: The content blocks the estimate counts: user-like messages (user, custom, tool result) and
#: assistant messages each count their own kinds and skip the others.
_USER_LIKE_BLOCKS = frozenset({"text", "image"})
_ASSISTANT_BLOCKS = frozenset({"text", "thinking", "toolCall"})


def _not_json(value: Any) -> Any:
    raise TypeError(f"not JSON data: {type(value).__name__}")


#: ``JSON.stringify`` by the C encoder (``json.dumps(value, ensure_ascii=False,
#: separators=(",", ":"), check_circular=False)``, made once instead of per call): the same
#: text for the values :func:`_plain_json` admits, up to lone surrogates.
_make_c_encoder = getattr(json.encoder, "c_make_encoder", None)
if _make_c_encoder is not None:
    _c_encoder = _make_c_encoder(
        None, _not_json, json.encoder.encode_basestring, None, ":", ",", False, False, True
    )

    def _encode_plain(value: Any) -> str:
        return "".join(_c_encoder(value, 0))

else:  # pragma: no cover - a Python without the _json accelerator
    _py_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)

    def _encode_plain(value: Any) -> str:
        return _py_encoder.encode(value)


#: From here on an integer prints in exponent form in JavaScript (``1e+21``).
_PLAIN_INT_LIMIT = 10**21


def _plain_json(value: Any) -> bool:
    """Whether ``json.dumps`` writes ``value`` as ``JSON.stringify`` does (up to lone
    surrogates, escaped afterwards): only dicts with string keys none of which starts with a
    digit (no array-index key, so insertion order is JavaScript's), lists, strings, ``None``,
    booleans and integers below 1e21 (no floats: their text differs, ``1.0`` against ``1``)."""
    stack = [value]
    pop = stack.pop
    extend = stack.extend
    while stack:
        item = pop()
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is dict:
            for key in item:
                if type(key) is not str or key[:1].isdigit():
                    return False
            extend(item.values())
        elif kind is list:
            extend(item)
        elif kind is int:
            if not -_PLAIN_INT_LIMIT < item < _PLAIN_INT_LIMIT:
                return False
        else:
            return False
    return True


def _stringified_length(value: Any) -> int:
    """``JSON.stringify(value).length``, by the C encoder where it gives the same text."""
    if _plain_json(value):
        try:
            text = _encode_plain(value)
        except (ValueError, TypeError, RecursionError):  # e.g. nesting too deep for C
            pass
        else:
            return utf16_len(escape_lone_surrogates(text))
    return utf16_len(json_stringify(value))


def _blocks_chars(content: Any, kinds: frozenset[str]) -> int:
    """Characters of the content blocks of the ``kinds`` counted (none unless a list)."""
    if not isinstance(content, list):
        return 0
    total = 0
    for block in content:
        if type(block) is not dict and not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if type(kind) is not str or kind not in kinds:
            continue
        if kind == "text":
            text = block.get("text")
        elif kind == "thinking":
            text = block.get("thinking")
        elif kind == "toolCall":
            total += _text_length(block.get("name"))
            total += _stringified_length(block.get("arguments", {}))
            continue
        else:  # image
            total += IMAGE_CHARS
            continue
        if type(text) is str:
            total += len(text) if text.isascii() else utf16_len(text)
        elif isinstance(text, str):
            total += utf16_len(text)
    return total


def estimate_message_chars(message: Message) -> int:
    """The characters Pi's estimate counts for one message (see the module docstring)."""
    role = message.get("role")
    content = message.get("content")
    if role == "assistant":
        return _blocks_chars(content, _ASSISTANT_BLOCKS)
    if role in ("user", "custom", "toolResult"):
        if isinstance(content, str):
            return utf16_len(content)
        return _blocks_chars(content, _USER_LIKE_BLOCKS)
    if role == "bashExecution":
        return _text_length(message.get("command")) + _text_length(message.get("output"))
    if role in ("branchSummary", "compactionSummary"):
        return _text_length(message.get("summary"))
    return 0


def estimate_message_tokens(message: Message) -> int:
    """``estimateTokens(message)``: its characters divided by four, rounded up.

    * user, custom, tool result: text (a string, or the text blocks) + 4800 per image;
    * assistant: text + thinking + for each tool call its name and ``JSON.stringify(arguments)``;
    * ``!command`` runs: command + output;
    * branch and compaction summaries: the summary alone (the wrapper is not counted).
    """
    return math.ceil(estimate_message_chars(message) / 4)


def estimate_messages_tokens(messages: Iterable[Message]) -> int:
    """The plain sum of the per-message estimates (no usage); Pi's ``estimatedTokensAfter``."""
    return sum(estimate_message_tokens(message) for message in messages)


@dataclass(frozen=True, slots=True)
class ContextEstimate:
    """``estimateContextTokens``: the total and where it came from.

    ``usage_tokens`` is the newest valid usage's count (0 without one), ``trailing_tokens`` the
    estimate of the messages after it (of every message without one), ``last_usage_index`` the
    index of the message that carried the usage (None without one).
    """

    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None


def estimate_context_tokens(messages: Sequence[Message]) -> ContextEstimate:
    """Context tokens of ``messages``: the newest valid usage plus estimates of what follows."""
    for index in range(len(messages) - 1, -1, -1):
        usage = valid_usage(messages[index])
        if usage is None:
            continue
        usage_tokens = calculate_context_tokens(usage)
        trailing = estimate_messages_tokens(messages[index + 1 :])
        return ContextEstimate(usage_tokens + trailing, usage_tokens, trailing, index)
    trailing = estimate_messages_tokens(messages)
    return ContextEstimate(trailing, 0, trailing, None)


def should_compact(context_tokens: int, context_window: int, settings: CompactionSettings) -> bool:
    """``shouldCompact``: enabled and the context passes ``window - reserveTokens`` (strictly)."""
    return settings.enabled and context_tokens > context_window - settings.reserve_tokens
