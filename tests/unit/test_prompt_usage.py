"""The context breakdown of the editor's meter: prompt parts, tools, messages, summaries."""

from __future__ import annotations

import json
from typing import Any

from pi_lsp.prompt.system_prompt import (
    PromptContextFile,
    PromptInputs,
    PromptSkill,
    build_system_prompt,
)
from pi_lsp.prompt.tokens import count_tokens
from pi_lsp.prompt.usage import CATEGORY_KINDS, context_usage, tool_definition_tokens
from pi_lsp.session.tokens import estimate_context_tokens
from pi_lsp.tools.registry import BUILTIN_TOOLS

RULES = "# Rules\n\n" + "- Always run the tests before you commit anything at all.\n" * 40
SKILL = PromptSkill("release", "Cut a release: bump, tag, publish notes.", "/s/release/SKILL.md")


def definitions(*names: str) -> list[dict[str, Any]]:
    return [
        {
            "name": n,
            "description": BUILTIN_TOOLS[n].description,
            "parameters": BUILTIN_TOOLS[n].parameters,
        }
        for n in names
    ]


def by_kind(usage: Any) -> dict[str, int]:
    return {c.kind: c.tokens for c in usage.categories}


def test_prompt_parts_fall_in_their_own_categories() -> None:
    bare = build_system_prompt(PromptInputs(cwd="/p"))
    full = build_system_prompt(
        PromptInputs(
            cwd="/p",
            context_files=(PromptContextFile("/p/AGENTS.md", RULES),),
            skills=(SKILL,),
        )
    )
    plain = context_usage(bare, [])
    usage = context_usage(full, [])
    assert [c.kind for c in usage.categories] == list(CATEGORY_KINDS)
    assert [c.label for c in usage.categories][:3] == ["System prompt", "Context files", "Skills"]
    # the file and the skills list add to their own categories; the rest of the prompt stays
    assert by_kind(plain)["contextFiles"] == 0 and by_kind(plain)["skills"] == 0
    assert by_kind(usage)["systemPrompt"] == by_kind(plain)["systemPrompt"] > 0
    assert by_kind(usage)["contextFiles"] > count_tokens(RULES) * 0.9
    assert 10 < by_kind(usage)["skills"] < 200
    # the parts add up to the prompt's span counts, which is what pi/systemPrompt reports
    assert sum(by_kind(usage)[k] for k in CATEGORY_KINDS[:3]) == sum(full.span_tokens)
    assert abs(usage.total - full.tokens) <= len(full.spans)
    assert usage.estimated is False


def test_tools_are_counted_as_the_json_a_request_carries() -> None:
    doc = build_system_prompt(PromptInputs(cwd="/p"))
    tools = definitions("read", "bash", "edit", "write")
    usage = context_usage(doc, tools)
    sent = json.dumps(tools, separators=(",", ":"), ensure_ascii=False)
    assert by_kind(usage)["tools"] == count_tokens(sent) > 200
    assert tool_definition_tokens(definitions("read")) < by_kind(usage)["tools"]
    assert tool_definition_tokens([]) == 0


def test_messages_and_summaries_are_pis_chars_over_four_estimate() -> None:
    doc = build_system_prompt(PromptInputs(cwd="/p"))
    messages = [
        {"role": "compactionSummary", "summary": "s" * 400, "tokensBefore": 9000},
        {"role": "user", "content": "u" * 100},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "a" * 41},
                {"type": "thinking", "thinking": "t" * 40},
            ],
        },
        {"role": "branchSummary", "summary": "b" * 8, "fromId": "x"},
    ]
    usage = context_usage(doc, [], messages)
    assert by_kind(usage)["summaries"] == 100 + 2
    assert by_kind(usage)["messages"] == 25 + 21  # 81 characters round up
    assert usage.estimated is True
    assert usage.total == sum(by_kind(usage).values())


def _answer(text: str, total: int, stop: str = "stop") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "stopReason": stop,
        "usage": {"input": total - 10, "output": 10, "totalTokens": total},
    }


def test_with_a_usage_the_total_is_what_compaction_compares_with_the_threshold() -> None:
    doc = build_system_prompt(PromptInputs(cwd="/p"))
    tools = definitions("read", "bash")
    messages = [
        {"role": "compactionSummary", "summary": "s" * 400, "tokensBefore": 9000},
        {"role": "user", "content": "u" * 100},
        _answer("a" * 40, 30_000),
        {"role": "user", "content": "v" * 80},  # after the usage: estimated, 20 tokens
    ]
    usage = context_usage(doc, tools, messages)
    assert usage.usage_tokens == 30_000
    assert usage.total == estimate_context_tokens(messages).tokens == 30_020
    parts = by_kind(usage)
    assert parts["summaries"] == 100
    assert parts["messages"] == 30_020 - parts["systemPrompt"] - parts["tools"] - 100
    assert usage.estimated is True


def test_an_implausible_or_failed_usage_falls_back_to_the_estimate() -> None:
    doc = build_system_prompt(PromptInputs(cwd="/p"))
    tools = definitions("read", "bash")
    user = {"role": "user", "content": "u" * 100}
    plain = context_usage(doc, tools, [user, _answer("a" * 40, 1, "error")])
    tiny = context_usage(doc, tools, [user, _answer("a" * 40, 12)])  # less than the prompt
    for usage in (plain, tiny):
        assert usage.usage_tokens == 0
        assert by_kind(usage)["messages"] == 25 + 10
