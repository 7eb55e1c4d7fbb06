"""Context tokens as Pi counts them: usage, the chars/4 estimate, the threshold (spec §10.1–3)."""

from __future__ import annotations

import math

import pytest

from pi_lsp.js.json import json_stringify
from pi_lsp.session.tokens import (
    DEFAULT_COMPACTION_SETTINGS,
    CompactionSettings,
    branch_summary_reserve_tokens,
    calculate_context_tokens,
    compaction_settings,
    estimate_context_tokens,
    estimate_message_tokens,
    estimate_messages_tokens,
    last_assistant_usage,
    should_compact,
    valid_usage,
)
from tests.unit.compaction_builders import assistant, chain, tool_call, tool_result, usage, user

# --- settings ------------------------------------------------------------------------------------


def test_default_settings_are_pis() -> None:
    assert compaction_settings(None) == CompactionSettings(True, 16384, 20000)
    assert compaction_settings({}) == DEFAULT_COMPACTION_SETTINGS
    assert branch_summary_reserve_tokens({}) == 16384


def test_settings_read_from_the_compaction_section() -> None:
    merged = {"compaction": {"reserveTokens": 4000, "keepRecentTokens": 2500, "enabled": False}}
    assert compaction_settings(merged) == CompactionSettings(False, 4000, 2500)
    assert compaction_settings({"compaction": {"keepRecentTokens": 100}}).reserve_tokens == 16384
    assert branch_summary_reserve_tokens({"branchSummary": {"reserveTokens": 9000}}) == 9000


@pytest.mark.parametrize("bad", ["4000", -1, 2.5, True, None, [1]])
def test_a_value_of_the_wrong_kind_falls_back_to_the_default(bad: object) -> None:
    settings = compaction_settings({"compaction": {"reserveTokens": bad, "enabled": "no"}})
    assert settings == DEFAULT_COMPACTION_SETTINGS


def test_an_integral_float_is_a_token_count() -> None:
    assert compaction_settings({"compaction": {"reserveTokens": 4000.0}}).reserve_tokens == 4000


# --- usage ---------------------------------------------------------------------------------------


def test_calculate_context_tokens_prefers_the_total() -> None:
    parts = {"input": 1000, "output": 500, "cacheRead": 200, "cacheWrite": 100}
    assert calculate_context_tokens({**parts, "totalTokens": 1800}) == 1800
    assert calculate_context_tokens({**parts, "totalTokens": 0}) == 1800
    assert calculate_context_tokens(parts) == 1800
    assert calculate_context_tokens(None) == 0
    assert calculate_context_tokens({"input": "many", "output": 3}) == 3


@pytest.mark.parametrize(
    ("message", "valid"),
    [
        (assistant("ok", tokens=10), True),
        (assistant("ok", tokens=10, stop_reason="toolUse"), True),
        (assistant("ok", tokens=10, stop_reason="length"), True),
        (assistant("ok", tokens=10, stop_reason="aborted"), False),
        (assistant("ok", tokens=10, stop_reason="error"), False),
        (assistant("ok", tokens=0), False),
        ({**user("hi"), "usage": usage(10)}, False),
        ({"role": "assistant", "content": [], "stopReason": "stop"}, False),
    ],
)
def test_which_usages_count(message: dict[str, object], valid: bool) -> None:
    assert (valid_usage(message) is not None) is valid


def test_last_assistant_usage_is_the_newest_valid_one() -> None:
    entries = chain(
        user("a"),
        assistant("b", tokens=100),
        user("c"),
        assistant("d", tokens=200),
        assistant("e", tokens=999, stop_reason="error"),
        {"type": "model_change", "provider": "p", "modelId": "m"},
    )
    found = last_assistant_usage(entries)
    assert found is not None and found["totalTokens"] == 200
    assert last_assistant_usage(chain(user("x"))) is None


# --- the estimate --------------------------------------------------------------------------------


def test_user_and_tool_result_count_text_and_images() -> None:
    assert estimate_message_tokens(user("abcde")) == 2
    image = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    blocks = user([{"type": "text", "text": "abcd"}, image, {"type": "text", "text": "efgh"}])
    assert estimate_message_tokens(blocks) == math.ceil((8 + 4800) / 4)
    result = {**tool_result("x" * 10), "content": [{"type": "text", "text": "x" * 10}, image]}
    assert estimate_message_tokens(result) == math.ceil(4810 / 4)
    assert estimate_message_tokens({"role": "user", "content": "plain string"}) == 3
    custom = {"role": "custom", "customType": "n", "content": "12345678", "display": True}
    assert estimate_message_tokens(custom) == 2


def test_lengths_are_utf16_units() -> None:
    assert estimate_message_tokens(user("😀")) == 1  # two units
    assert estimate_message_tokens(user("😀😀😀")) == 2  # six units, not three code points
    assert estimate_message_tokens(user("ééééé")) == 2


def test_assistant_counts_text_thinking_and_tool_calls() -> None:
    call = tool_call("bash", command="ls -la", timeout=1.0)
    message = assistant("hi", {"type": "thinking", "thinking": "hmm"}, call)
    arguments = json_stringify({"command": "ls -la", "timeout": 1.0})
    assert arguments == '{"command":"ls -la","timeout":1}'
    assert estimate_message_tokens(message) == math.ceil((2 + 3 + 4 + len(arguments)) / 4)


def test_other_roles() -> None:
    bash = {"role": "bashExecution", "command": "ls", "output": "a\nb", "exitCode": 0}
    assert estimate_message_tokens(bash) == math.ceil(5 / 4)
    summary = {"role": "compactionSummary", "summary": "x" * 21, "tokensBefore": 1}
    assert estimate_message_tokens(summary) == 6  # the wrapper is not counted
    assert estimate_message_tokens({"role": "branchSummary", "summary": "abcd"}) == 1
    assert estimate_message_tokens({"role": "somethingElse", "content": "x" * 100}) == 0


def test_each_message_is_rounded_up_on_its_own() -> None:
    messages = [user("a"), user("b"), user("c")]
    assert estimate_messages_tokens(messages) == 3  # not ceil(3 / 4)


def test_context_tokens_take_the_newest_usage_plus_what_follows() -> None:
    messages = [
        user("x" * 40),
        assistant("y" * 40, tokens=1000),
        tool_result("z" * 9000),
        assistant("w", tokens=5, stop_reason="aborted"),
    ]
    estimate = estimate_context_tokens(messages)
    assert estimate.last_usage_index == 1
    assert estimate.usage_tokens == 1000
    assert estimate.trailing_tokens == 2250 + 1
    assert estimate.tokens == 3251


def test_context_tokens_without_usage_are_the_plain_sum() -> None:
    estimate = estimate_context_tokens([user("x" * 8), assistant("y" * 4)])
    assert (estimate.tokens, estimate.last_usage_index, estimate.usage_tokens) == (3, None, 0)


def test_the_compaction_threshold_is_strict() -> None:
    settings = CompactionSettings(True, 10000, 20000)
    assert should_compact(95000, 100000, settings)
    assert not should_compact(89000, 100000, settings)
    assert not should_compact(90000, 100000, settings)
    assert should_compact(90001, 100000, settings)
    assert not should_compact(95000, 100000, CompactionSettings(False, 10000, 20000))


def test_json_stringify_orders_index_keys_first_and_prints_numbers_as_javascript() -> None:
    value = {"b": 1, "2": [1.5, None, True], "1": "é\n\ud800", "a": {"x": 1e21}}
    assert json_stringify(value) == '{"1":"é\\n\\ud800","2":[1.5,null,true],"b":1,"a":{"x":1e+21}}'
    assert json_stringify(float("nan")) == "null"
    assert json_stringify(2**60) == "1152921504606846976"
