"""The contract between the agent loop and the providers: models, requests, stream events.

Messages and events are plain dicts in Pi's JSON shape, as everywhere in the History boundary:

- an assistant message is ``{"role": "assistant", "content": [blocks], "api", "provider",
  "model", "usage": {"input", "output", "cacheRead", "cacheWrite", "reasoning"?, "totalTokens",
  "cost": {…}}, "stopReason": "stop" | "length" | "toolUse" | "error" | "aborted",
  "timestamp": epoch ms, "responseId"?, "rawStopReason"?, "errorMessage"?}`` with blocks
  ``{"type": "text", "text"}``, ``{"type": "thinking", "thinking", "thinkingSignature"?}``,
  ``{"type": "toolCall", "id", "name", "arguments": {…}}``;
- a stream yields Pi's assistant-message events, each a dict with ``"type"``: ``start``
  (``partial``), ``text_start`` / ``text_delta`` / ``text_end``, ``thinking_start`` /
  ``thinking_delta`` / ``thinking_end``, ``toolcall_start`` / ``toolcall_delta`` /
  ``toolcall_end`` (each with ``contentIndex``, ``delta`` where it applies, and ``partial``: the
  assistant message so far), then exactly one of ``done`` (``reason``, ``message``) or ``error``
  (``reason``: "error" | "aborted", ``error``: the final assistant message with
  ``errorMessage``). A provider never raises for API or network failures: it ends the stream
  with ``error``; the loop decides about retries and compaction.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, get_args

from pi_lsp.tools.base import AbortSignal

#: The wire formats of Pi's catalogue. pi-lsp speaks those of ``SUPPORTED_APIS``
#: (:mod:`pi_lsp.agent.providers.config`); a model of another api is listed but not reachable.
Api = Literal[
    "openai-completions",
    "anthropic-messages",
    "openai-responses",
    "google-generative-ai",
    "azure-openai-responses",
    "openai-codex-responses",
    "google-vertex",
    "bedrock-converse-stream",
    "mistral-conversations",
]
ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
#: Pi's thinking levels, lowest first (the one place they are written out)
THINKING_LEVELS: tuple[ThinkingLevel, ...] = get_args(ThinkingLevel)


def thinking_level_or_off(value: object) -> ThinkingLevel:
    """``value`` when it names a thinking level, else ``"off"``."""
    for level in THINKING_LEVELS:
        if level == value:
            return level
    return "off"


def supported_thinking_levels(model: ModelInfo) -> list[ThinkingLevel]:
    """The levels a model offers (pi-ai's ``getSupportedThinkingLevels``): none but ``off``
    without reasoning; else every level its ``thinkingLevelMap`` does not map to null
    (``xhigh`` and ``max`` only where the map names them)."""
    if not model.reasoning:
        return ["off"]
    levels: list[ThinkingLevel] = []
    for level in THINKING_LEVELS:
        present = level in model.thinking_level_map
        mapped = model.thinking_level_map.get(level)
        if present and mapped is None:
            continue
        if level in ("xhigh", "max") and not present:
            continue
        levels.append(level)
    return levels


def clamp_thinking_level(model: ModelInfo, level: ThinkingLevel) -> ThinkingLevel:
    """The nearest level the model offers: the level itself, else the next higher, else the
    next lower (pi-ai's ``clampThinkingLevel``)."""
    available = supported_thinking_levels(model)
    if level in available:
        return level
    start = THINKING_LEVELS.index(level)
    for candidate in (*THINKING_LEVELS[start:], *reversed(THINKING_LEVELS[:start])):
        if candidate in available:
            return candidate
    return available[0] if available else "off"


def empty_usage() -> dict[str, Any]:
    """The usage of an assistant message before the provider reported any (Pi's zero usage)."""
    return {
        "input": 0,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 0,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


@dataclass(frozen=True)
class ModelInfo:
    """One model of one provider, as ``models.json`` (or a built-in default) describes it."""

    id: str
    provider: str
    api: Api
    base_url: str
    context_window: int = 128_000
    max_tokens: int = 16_384
    reasoning: bool = False
    input: tuple[str, ...] = ("text",)
    name: str | None = None
    #: provider quirks (``supportsDeveloperRole``, ``maxTokensField``, …), as in models.json
    compat: dict[str, Any] = field(default_factory=dict)
    cost: dict[str, float] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    #: Pi's ``thinkingLevelMap``: level → the provider's own value, ``None`` where the model
    #: has no such level; a level not named keeps its usual meaning
    thinking_level_map: dict[str, str | None] = field(default_factory=dict)

    @property
    def accepts_images(self) -> bool:
        return "image" in self.input


@dataclass
class ModelRequest:
    """One request: the system prompt, the LLM messages (after ``convert_to_llm``), the tools."""

    model: ModelInfo
    system_prompt: str
    messages: list[dict[str, Any]]
    #: ``{"name", "description", "parameters"}`` per active tool; empty for summaries
    tools: list[dict[str, Any]] = field(default_factory=list)
    #: already clamped by the caller (spec §13.2); ``None``: the model's ``max_tokens``
    max_tokens: int | None = None
    thinking_level: ThinkingLevel = "off"
    #: the API key resolved for this request (never logged, never stored)
    api_key: str | None = field(default=None, repr=False)
    #: the session's id (Pi's ``sessionId``): prompt-cache key and session headers where the
    #: API has them; None outside a session
    session_id: str | None = None
    #: prompt caching: ``"none"`` for one-off requests (summaries), ``"short"`` / ``"long"``;
    #: None: ``long`` when ``PI_CACHE_RETENTION=long``, else ``short`` (Pi's default)
    cache_retention: Literal["none", "short", "long"] | None = None


class Provider(Protocol):
    """Streams one assistant response for a request."""

    def stream(
        self, request: ModelRequest, signal: AbortSignal | None = None
    ) -> AsyncIterator[dict[str, Any]]: ...
