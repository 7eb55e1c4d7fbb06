"""What fills a model's context window, by kind: the meter of an editor's chat view.

Six categories, always in this order:

* ``systemPrompt`` — the system prompt without its context files and skills list (the role,
  tool lines and guidelines or the custom ``SYSTEM.md``, appended text, the working directory);
* ``contextFiles`` — the ``<project_context>`` block: every context file with its wrapper;
* ``skills`` — the ``<available_skills>`` block and the paragraph before it;
* ``tools`` — the tool definitions a request carries (name, description, JSON Schema of the
  parameters), as compact JSON;
* ``messages`` — the context's messages other than summaries;
* ``summaries`` — compaction and branch summaries in the context.

The first four are counted with the tokenizer the prompt document uses (cl100k_base, see
:mod:`pi_lsp.prompt.tokens`): the prompt's span counts summed by category, so they add up to
what ``pi/systemPrompt`` reports span by span. Summaries take Pi's chars/4 estimate (the summary
text alone, :func:`pi_lsp.session.tokens.estimate_message_tokens`). Messages too — unless the
context holds a valid assistant usage: then the total is what Pi's compaction compares with the
threshold (that usage plus the chars/4 estimate of the messages after it,
:func:`pi_lsp.session.tokens.estimate_context_tokens`), and messages are the part of it the
other categories do not account for. A usage smaller than the prompt and tools alone (another
tokenizer's count, a provider's cache accounting) is not trusted: the estimate is used. The
breakdown is ``estimated`` when any category holds an estimate.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pi_lsp.prompt.system_prompt import PromptDocument
from pi_lsp.prompt.tokens import count_tokens
from pi_lsp.session.tokens import estimate_context_tokens, estimate_message_tokens

__all__ = [
    "CATEGORY_KINDS",
    "CATEGORY_LABELS",
    "SUMMARY_ROLES",
    "ContextUsage",
    "UsageCategory",
    "context_usage",
    "message_tokens",
    "prompt_tokens_by_category",
    "tool_definition_tokens",
]

CATEGORY_KINDS = ("systemPrompt", "contextFiles", "skills", "tools", "messages", "summaries")
CATEGORY_LABELS = {
    "systemPrompt": "System prompt",
    "contextFiles": "Context files",
    "skills": "Skills",
    "tools": "Tools",
    "messages": "Messages",
    "summaries": "Summaries",
}

#: The roles of the summary messages a context holds.
SUMMARY_ROLES = frozenset({"compactionSummary", "branchSummary"})

#: Prompt span kinds (see :mod:`pi_lsp.prompt.system_prompt`) outside the ``systemPrompt``
#: category; every other kind belongs to it.
_SPAN_CATEGORY = {
    "context-wrapper": "contextFiles",
    "context-file": "contextFiles",
    "skills": "skills",
    "skill": "skills",
}


@dataclass(frozen=True, slots=True)
class UsageCategory:
    kind: str
    label: str
    tokens: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "label": self.label, "tokens": self.tokens}


@dataclass(frozen=True, slots=True)
class ContextUsage:
    """The categories in :data:`CATEGORY_KINDS` order; ``estimated`` when any of them holds a
    chars/4 estimate (there are messages or summaries)."""

    categories: tuple[UsageCategory, ...]
    estimated: bool
    #: the newest valid assistant usage the total is built on (0: none, all estimated)
    usage_tokens: int = 0

    @property
    def total(self) -> int:
        return sum(category.tokens for category in self.categories)

    def tokens(self, kind: str) -> int:
        return next((c.tokens for c in self.categories if c.kind == kind), 0)


def prompt_tokens_by_category(document: PromptDocument) -> dict[str, int]:
    """``systemPrompt``, ``contextFiles`` and ``skills`` tokens of a prompt document."""
    totals = {"systemPrompt": 0, "contextFiles": 0, "skills": 0}
    for span, tokens in zip(document.spans, document.span_tokens, strict=True):
        totals[_SPAN_CATEGORY.get(span.kind, "systemPrompt")] += tokens
    return totals


def tool_definition_tokens(definitions: Sequence[Mapping[str, Any]]) -> int:
    """Tokens of the tool definitions as compact JSON (``[{"name", "description",
    "parameters"}, …]``); 0 without tools."""
    if not definitions:
        return 0
    text = json.dumps(list(definitions), ensure_ascii=False, separators=(",", ":"))
    return count_tokens(text)


def message_tokens(messages: Iterable[Mapping[str, Any]]) -> tuple[int, int]:
    """(messages, summaries): Pi's chars/4 estimate of the context's messages, split."""
    plain = summaries = 0
    for message in messages:
        tokens = estimate_message_tokens(message)
        if message.get("role") in SUMMARY_ROLES:
            summaries += tokens
        else:
            plain += tokens
    return plain, summaries


def context_usage(
    document: PromptDocument,
    tool_definitions: Sequence[Mapping[str, Any]],
    messages: Sequence[Mapping[str, Any]] = (),
) -> ContextUsage:
    """The breakdown of one request: its system prompt, its tools and its context messages."""
    prompt = prompt_tokens_by_category(document)
    plain, summaries = message_tokens(messages)
    tools = tool_definition_tokens(tool_definitions)
    usage_tokens = 0
    if messages:
        context = estimate_context_tokens(messages)
        fixed = sum(prompt.values()) + tools + summaries
        if context.usage_tokens > sum(prompt.values()) + tools:
            usage_tokens = context.usage_tokens
            plain = max(0, context.tokens - fixed)
    values = {**prompt, "tools": tools, "messages": plain, "summaries": summaries}
    categories = tuple(
        UsageCategory(kind, CATEGORY_LABELS[kind], values[kind]) for kind in CATEGORY_KINDS
    )
    return ContextUsage(categories, estimated=bool(messages), usage_tokens=usage_tokens)
