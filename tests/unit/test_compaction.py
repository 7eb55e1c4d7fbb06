"""Compaction: the cut, the preparation, the requests, the summary and the entry (spec §10.4–8)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from pi_lsp.js.text import js_slice
from pi_lsp.session.compaction import (
    ALREADY_COMPACTED,
    NO_PRIOR_HISTORY,
    NOTHING_TO_COMPACT,
    SPLIT_TURN_SEPARATOR,
    AfterCompactEvent,
    BeforeCompactDecision,
    BeforeCompactEvent,
    CompactionCancelled,
    CompactionRefused,
    CompactionResult,
    appender,
    compact,
    compaction_entry,
    compaction_requests,
    prepare_compaction,
    prepare_compaction_or_reason,
    run_compaction,
)
from pi_lsp.session.cut_point import find_cut_point, is_cut_point, is_turn_start
from pi_lsp.session.file_ops import FileOperations, format_file_operations, js_sorted
from pi_lsp.session.serialization import conversation_prompt, serialize_conversation
from pi_lsp.session.session_file import SessionFile
from pi_lsp.session.summarizer import (
    SummaryAborted,
    SummaryError,
    SummaryModel,
    SummaryResponse,
    add_usage,
    clamp_output_budget,
)
from pi_lsp.session.summary_prompts import (
    BRANCH_SUMMARY_PROMPT,
    HISTORY_SUMMARY_PROMPT,
    TURN_PREFIX_PROMPT,
    UPDATE_SUMMARY_PROMPT,
)
from pi_lsp.session.tokens import CompactionSettings
from tests.scripted_summarizer import ScriptedSummarizer
from tests.unit.compaction_builders import (
    assistant,
    chain,
    compaction,
    custom_message,
    model_change,
    tool_call,
    tool_result,
    usage,
    user,
)

MODEL = SummaryModel(context_window=0, max_tokens=0)


def settings(keep: int, reserve: int = 4000) -> CompactionSettings:
    return CompactionSettings(True, reserve, keep)


def ids(entries: Any) -> list[str]:
    return [entry["id"] for entry in entries]


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# --- cut point -----------------------------------------------------------------------------------


def test_cut_point_kinds() -> None:
    entries = chain(
        user("u"),
        assistant("a"),
        tool_result("t"),
        model_change(),
        custom_message("c"),
        {"role": "bashExecution", "command": "ls", "output": "", "exitCode": 0},
        compaction("s", "e1"),
        {"type": "branch_summary", "fromId": "root", "summary": "b"},
        {"type": "branch_summary", "fromId": "root", "summary": ""},
    )
    assert [is_cut_point(e) for e in entries] == [
        True, True, False, False, True, True, False, True, False,
    ]  # fmt: skip
    assert [is_turn_start(e) for e in entries] == [
        True, False, False, False, True, True, False, True, False,
    ]  # fmt: skip


def test_custom_message_turns_from_the_spec() -> None:
    # [user "hi", assistant "hello", custom_message "x"*4000, assistant "ok"]
    entries = chain(user("hi"), assistant("hello"), custom_message("x" * 4000), assistant("ok"))
    cut = find_cut_point(entries, 0, 4, 1)
    assert (cut.first_kept_entry_index, cut.is_split_turn, cut.turn_start_index) == (3, True, 2)
    cut = find_cut_point(entries, 0, 4, 2)
    assert (cut.first_kept_entry_index, cut.is_split_turn) == (2, False)


def test_ten_turns_keep_at_least_the_recent_tokens_and_cut_on_a_message() -> None:
    payloads: list[dict[str, Any]] = []
    for n in range(10):
        payloads += [user(f"question {n} " + "q" * 400), assistant(f"answer {n} " + "a" * 3600)]
    entries = chain(*payloads)
    cut = find_cut_point(entries, 0, len(entries), 2500)
    kept = entries[cut.first_kept_entry_index :]
    assert entries[cut.first_kept_entry_index]["message"]["role"] in ("user", "assistant")
    assert sum(len(e["message"]["content"][0]["text"]) for e in kept) / 4 >= 2500
    assert cut.first_kept_entry_index == 15  # 903 + 103 + 903 + 103 + 903: answer 7 crosses
    assert cut.is_split_turn and cut.turn_start_index == 14


def test_never_cuts_at_a_tool_result() -> None:
    entries = chain(
        user("go " + "u" * 400),
        assistant(tool_call("read", path="a.txt")),
        tool_result("r" * 4000),
        assistant("done"),
    )
    cut = find_cut_point(entries, 0, 4, 1001)
    assert cut.first_kept_entry_index == 3  # the crossing entry (index 2) is a tool result
    assert cut.is_split_turn and cut.turn_start_index == 0


def test_message_less_entries_before_the_cut_are_kept_with_it() -> None:
    entries = chain(
        user("old " + "o" * 4000),
        assistant("old answer"),
        model_change(),
        {"type": "thinking_level_change", "thinkingLevel": "high"},
        user("new " + "n" * 400),
        assistant("new answer"),
    )
    cut = find_cut_point(entries, 0, 6, 100)
    assert cut.first_kept_entry_index == 2
    assert not cut.is_split_turn  # decided on the user message the cut was moved in front of


def test_pi_quirk_a_cut_moved_onto_a_model_change_splits_the_previous_turn() -> None:
    entries = chain(
        user("old " + "o" * 4000),
        assistant("old answer"),
        model_change(),
        user("new " + "n" * 400),
        assistant("new answer"),
    )
    cut = find_cut_point(entries, 0, 5, 100, pi_quirks=True)
    assert (cut.first_kept_entry_index, cut.is_split_turn, cut.turn_start_index) == (2, True, 0)


def test_a_large_trailing_tool_result_still_lets_the_history_be_compacted() -> None:
    entries = chain(
        user("first " + "f" * 400),
        assistant("first answer"),
        user("second"),
        assistant(tool_call("bash", command="cat big")),
        tool_result("x" * 40000),
    )
    cut = find_cut_point(entries, 0, 5, 1000)
    assert (cut.first_kept_entry_index, cut.is_split_turn, cut.turn_start_index) == (3, True, 2)
    # Pi 0.85 (spec §15.4): no cut point at or after the tool result -> the oldest one, so
    # nothing is summarized
    quirk = find_cut_point(entries, 0, 5, 1000, pi_quirks=True)
    assert (quirk.first_kept_entry_index, quirk.is_split_turn) == (0, False)
    assert prepare_compaction(entries, settings(1000), pi_quirks=True) is None
    prepared = prepare_compaction(entries, settings(1000))
    assert prepared is not None and prepared.first_kept_entry_id == "e4"


def test_without_any_cut_point_the_cut_is_the_start() -> None:
    entries = chain(model_change(), tool_result("t"))
    cut = find_cut_point(entries, 0, 2, 1)
    assert (cut.first_kept_entry_index, cut.turn_start_index, cut.is_split_turn) == (0, -1, False)


def test_when_the_total_never_reaches_the_budget_everything_is_kept() -> None:
    entries = chain(model_change(), user("a"), assistant("b"))
    assert find_cut_point(entries, 0, 3, 10_000).first_kept_entry_index == 0


def test_compaction_entries_in_the_span_count_toward_the_kept_tokens() -> None:
    entries = chain(
        user("a" * 400),
        assistant("b" * 400),
        compaction("s" * 400, "e1"),
        user("c" * 40),
        assistant("d" * 40),
    )
    # 10 + 10 + 100 (the compaction) reaches 120 at the compaction; first cut point after it
    assert find_cut_point(entries, 0, 5, 120).first_kept_entry_index == 3
    assert find_cut_point(entries, 0, 5, 121).first_kept_entry_index == 1


# --- preparation ---------------------------------------------------------------------------------


def test_prepare_after_a_previous_compaction_builds_on_its_summary() -> None:
    entries = chain(
        user("user msg 1"),
        assistant("reply 1"),
        user("user msg 2"),
        assistant("reply 2"),
        compaction("First summary", "e3"),
        user("user msg 3"),
        assistant("reply 3"),
        user("user msg 4"),
        assistant("reply 4"),
    )
    prepared = prepare_compaction(entries, settings(4))
    assert prepared is not None
    texts = [m["content"][0]["text"] for m in prepared.messages_to_summarize]
    assert texts == ["user msg 2", "reply 2", "user msg 3", "reply 3"]
    assert prepared.previous_summary == "First summary"
    assert prepared.first_kept_entry_id == "e8"
    assert prepared.span_start == 2 and prepared.previous_compaction_index == 4
    assert prepared.moved_cut_from is None


def test_a_branch_ending_with_a_compaction_is_already_compacted() -> None:
    entries = chain(user("a" * 400), assistant("b"), compaction("s", "e2"))
    assert prepare_compaction_or_reason(entries, settings(1)) == ALREADY_COMPACTED
    assert prepare_compaction(entries, settings(1)) is None


def test_nothing_to_compact() -> None:
    assert prepare_compaction_or_reason([], settings(1)) == NOTHING_TO_COMPACT
    small = chain(user("hi"), assistant("hello"))
    assert prepare_compaction_or_reason(small, settings(20000)) == NOTHING_TO_COMPACT


def test_tokens_before_come_from_the_last_usage_and_the_estimate_after_it() -> None:
    entries = chain(
        user("x" * 4000),
        assistant("y", tokens=5000),
        user("z" * 800),
        assistant(tool_call("bash", command="ls")),
        tool_result("w" * 400),
    )
    entries[3]["message"]["usage"] = usage(0)
    prepared = prepare_compaction(entries, settings(100))
    assert prepared is not None
    call_tokens = -(-(len("bash") + len('{"command":"ls"}')) // 4)
    assert prepared.tokens_before == 5000 + 200 + call_tokens + 100


def test_split_turn_lists_history_and_prefix_separately() -> None:
    entries = chain(
        user("first " + "f" * 400),
        assistant("first answer"),
        user("second " + "s" * 40),
        assistant(tool_call("read", "c1", path="notes.txt")),
        tool_result("n" * 400, "c1", "read"),
        assistant(tool_call("edit", "c2", path="b.py", edits=[])),
        tool_result("edited", "c2", "edit"),
        assistant("done " + "d" * 400),
    )
    prepared = prepare_compaction(entries, settings(105))
    assert prepared is not None
    assert prepared.is_split_turn and prepared.first_kept_entry_id == "e6"
    assert [m["role"] for m in prepared.messages_to_summarize] == ["user", "assistant"]
    assert [m["role"] for m in prepared.turn_prefix_messages] == [
        "user",
        "assistant",
        "toolResult",
    ]
    # the kept edit is not listed; the read in the prefix is
    assert prepared.file_ops.read_files == ["notes.txt"]
    assert prepared.file_ops.modified_files == []
    assert ids(prepared.summarized_entries) == ["e1", "e2", "e3", "e4", "e5"]
    assert ids(prepared.kept_entries) == ["e6", "e7", "e8"]


# --- file operations -----------------------------------------------------------------------------


def test_file_operations_from_tool_calls() -> None:
    ops = FileOperations()
    ops.add_message(
        assistant(
            tool_call("read", path="src/a.py"),
            tool_call("read", path="./src/a.py"),
            tool_call("read", path="b.md"),
            tool_call("write", path="b.md"),
            tool_call("edit", path="c.txt"),
            tool_call("read", path=""),
            tool_call("bash", path="ignored.txt"),
            tool_call("read"),
        )
    )
    ops.add_message(user("read the file please"))
    ops.add_message({**tool_result("x"), "content": [tool_call("read", path="not-me")]})
    assert ops.read_files == ["./src/a.py", "src/a.py"]  # as written, not normalized
    assert ops.modified_files == ["b.md", "c.txt"]
    assert ops.details() == {"readFiles": ops.read_files, "modifiedFiles": ops.modified_files}


def test_file_lists_are_sorted_by_utf16_units() -> None:
    assert js_sorted(["\uff41", "😀", "b", "B"]) == ["B", "b", "😀", "\uff41"]


def test_file_lists_format() -> None:
    assert format_file_operations([], []) == ""
    assert format_file_operations(["a"], []) == "\n\n<read-files>\na\n</read-files>"
    assert format_file_operations(["a", "b"], ["c"]) == (
        "\n\n<read-files>\na\nb\n</read-files>\n\n<modified-files>\nc\n</modified-files>"
    )


def _with_previous(details: Any, from_hook: Any) -> list[dict[str, Any]]:
    extra: dict[str, Any] = {"details": details}
    if from_hook is not None:
        extra["fromHook"] = from_hook
    return chain(
        user("one " + "o" * 400),
        assistant("one done"),
        compaction("earlier", "e1", **extra),
        user("two " + "t" * 400),
        assistant(tool_call("write", path="new.txt")),
        tool_result("ok"),
        user("three " + "h" * 400),
        assistant("three done"),
    )


@pytest.mark.parametrize(
    ("from_hook", "seeded"), [(False, True), (None, True), (True, False), (0, True)]
)
def test_file_lists_carry_over_from_a_pi_generated_compaction(from_hook: Any, seeded: bool) -> None:
    details = {"readFiles": ["old-read.txt"], "modifiedFiles": ["old-mod.txt"]}
    prepared = prepare_compaction(_with_previous(details, from_hook), settings(100))
    assert prepared is not None
    expected_modified = ["new.txt", "old-mod.txt"] if seeded else ["new.txt"]
    assert prepared.file_ops.modified_files == expected_modified
    assert prepared.file_ops.read_files == (["old-read.txt"] if seeded else [])


def test_malformed_previous_details_are_ignored() -> None:
    prepared = prepare_compaction(
        _with_previous({"readFiles": "x", "modifiedFiles": [1, "m"]}, False), settings(100)
    )
    assert prepared is not None
    assert prepared.file_ops.details() == {"readFiles": [], "modifiedFiles": ["m", "new.txt"]}


# --- serialization -------------------------------------------------------------------------------


def test_serialization_labels_and_order() -> None:
    messages = [
        user([{"type": "text", "text": "look "}, {"type": "image"}, {"type": "text", "text": "x"}]),
        user(""),
        assistant(
            tool_call("bash", command="head -c 4000 /dev/zero | tr '\\0' o"),
            "first",
            {"type": "thinking", "thinking": "think 1"},
            "",
            {"type": "thinking", "thinking": "think 2"},
            tool_call("read", path="a.txt", offset=2),
        ),
        tool_result(""),
        tool_result("out"),
        assistant({"type": "thinking", "thinking": "only thinking"}),
    ]
    assert serialize_conversation(messages) == (
        "[User]: look x\n\n"
        "[Assistant thinking]: think 1\nthink 2\n\n"
        "[Assistant]: first\n\n\n"
        "[Assistant tool calls]: bash(command=\"head -c 4000 /dev/zero | tr '\\\\0' o\"); "
        'read(path="a.txt", offset=2)\n\n'
        "[Tool result]: out\n\n"
        "[Assistant thinking]: only thinking"
    )


def test_tool_results_are_cut_after_2000_characters() -> None:
    text = serialize_conversation([tool_result("x" * 5000)])
    assert text == "[Tool result]: " + "x" * 2000 + "\n\n[... 3000 more characters truncated]"
    assert serialize_conversation([tool_result("y" * 2000)]) == "[Tool result]: " + "y" * 2000


def test_the_cut_counts_utf16_units_and_keeps_a_lone_high_surrogate() -> None:
    text = serialize_conversation([tool_result("a" * 1999 + "😀" + "b" * 10)])
    assert (
        text == "[Tool result]: " + "a" * 1999 + "\ud83d" + "\n\n[... 11 more characters truncated]"
    )
    assert js_slice("😀😀", 3) == "😀\ud83d"
    assert js_slice("ab", 5) == "ab"
    assert js_slice("ab", 0) == ""


def test_tool_call_arguments_render_as_json_in_javascript_order() -> None:
    call = tool_call("edit", path="é.txt", edits=[{"oldText": 'a"b', "newText": "\t"}])
    call["arguments"]["1"] = 0
    assert serialize_conversation([assistant(call)]) == (
        '[Assistant tool calls]: edit(1=0, path="é.txt", '
        'edits=[{"oldText":"a\\"b","newText":"\\t"}])'
    )


def test_conversation_prompt_layout() -> None:
    assert conversation_prompt("T", "DO") == "<conversation>\nT\n</conversation>\n\nDO"
    assert conversation_prompt("T", "DO", "OLD") == (
        "<conversation>\nT\n</conversation>\n\n<previous-summary>\nOLD\n</previous-summary>\n\nDO"
    )
    assert conversation_prompt("T", "DO", "") == "<conversation>\nT\n</conversation>\n\nDO"


# --- the prompts (pi-lsp's words, Pi's section structure) ----------------------------------------


def headings(text: str) -> list[str]:
    return re.findall(r"^#{2,3} .*$", text, re.MULTILINE)


HISTORY_SECTIONS = [
    "## Goal",
    "## Constraints & Preferences",
    "## Progress",
    "### Done",
    "### In Progress",
    "### Blocked",
    "## Key Decisions",
    "## Next Steps",
    "## Critical Context",
]


def test_prompt_sections() -> None:
    assert headings(HISTORY_SUMMARY_PROMPT) == HISTORY_SECTIONS
    assert headings(UPDATE_SUMMARY_PROMPT) == HISTORY_SECTIONS
    assert headings(BRANCH_SUMMARY_PROMPT) == HISTORY_SECTIONS[:-1]
    assert headings(TURN_PREFIX_PROMPT) == [
        "## Original Request",
        "## Early Progress",
        "## Context for Suffix",
    ]
    for prompt in (HISTORY_SUMMARY_PROMPT, UPDATE_SUMMARY_PROMPT, BRANCH_SUMMARY_PROMPT):
        assert "- [x] " in prompt and "- [ ] " in prompt and "- **[Decision]**" in prompt
        assert "\n1. " in prompt


# --- compact -------------------------------------------------------------------------------------


def _plain_history() -> list[dict[str, Any]]:
    return chain(
        user("start " + "s" * 400),
        assistant(tool_call("read", path="notes.txt")),
        tool_result("n" * 400, name="read"),
        assistant("read it"),
        user("next " + "x" * 400),
        assistant("ok " + "k" * 400),
    )


def test_one_history_request_for_an_unsplit_cut() -> None:
    prepared = prepare_compaction(_plain_history(), settings(150))
    assert prepared is not None and not prepared.is_split_turn
    summarizer = ScriptedSummarizer(["## Goal\nG", "unused"])
    result = run(compact(prepared, summarizer, SummaryModel(), custom_instructions="tests"))
    assert len(summarizer.requests) == 1
    request = summarizer.requests[0]
    assert request.label == "Summarization"
    assert request.max_tokens == 3200
    assert request.reasoning is None
    assert request.messages[0]["role"] == "user"
    assert len(request.messages[0]["content"]) == 1
    text = request.prompt_text
    assert text.startswith("<conversation>\n[User]: start ")
    assert "<previous-summary>" not in text
    assert text.endswith(HISTORY_SUMMARY_PROMPT + "\n\nAdditional focus: tests")
    assert result == CompactionResult(
        summary="## Goal\nG\n\n<read-files>\nnotes.txt\n</read-files>",
        first_kept_entry_id="e5",
        tokens_before=prepared.tokens_before,
        details={"readFiles": ["notes.txt"], "modifiedFiles": []},
        usage=usage(110, output=10),
    )


def test_an_update_request_when_there_is_a_previous_summary() -> None:
    entries = _with_previous({"readFiles": [], "modifiedFiles": []}, False)
    prepared = prepare_compaction(entries, settings(100))
    assert prepared is not None
    summarizer = ScriptedSummarizer(["updated"])
    result = run(compact(prepared, summarizer, MODEL))
    text = summarizer.requests[0].prompt_text
    assert "\n</conversation>\n\n<previous-summary>\nearlier\n</previous-summary>\n\n" in text
    assert text.endswith(UPDATE_SUMMARY_PROMPT)
    assert result.summary == "updated\n\n<modified-files>\nnew.txt\n</modified-files>"


def test_a_split_turn_summarizes_history_then_prefix() -> None:
    entries = chain(
        user("first " + "f" * 400),
        assistant("first answer"),
        user("second " + "s" * 40),
        assistant(tool_call("read", "c1", path="notes.txt")),
        tool_result("n" * 400, "c1", "read"),
        assistant("done " + "d" * 400),
    )
    prepared = prepare_compaction(entries, settings(105))
    assert prepared is not None and prepared.is_split_turn
    summarizer = ScriptedSummarizer(
        [
            SummaryResponse.of_text("HISTORY", usage(310, output=10)),
            SummaryResponse(
                ({"type": "thinking", "thinking": "x"}, {"type": "text", "text": "PRE"}),
                "stop",
                usage(50, output=5),
            ),
        ]
    )
    result = run(compact(prepared, summarizer, SummaryModel(20000, 16384)))
    history, prefix = summarizer.requests
    assert (history.label, history.max_tokens) == ("Summarization", 3200)
    assert (prefix.label, prefix.max_tokens) == ("Turn prefix summarization", 2000)
    assert prefix.prompt_text.endswith("</conversation>\n\n" + TURN_PREFIX_PROMPT)
    assert "[Tool result]: nnn" in prefix.prompt_text
    assert result.summary == (
        "HISTORY" + SPLIT_TURN_SEPARATOR + "PRE" + "\n\n<read-files>\nnotes.txt\n</read-files>"
    )
    assert SPLIT_TURN_SEPARATOR == "\n\n---\n\n**Turn Context (split turn):**\n\n"
    assert result.usage is not None
    assert result.usage["totalTokens"] == 360 and result.usage["output"] == 15
    assert result.usage["cost"]["total"] == 0


def test_a_split_turn_with_nothing_before_it_has_no_history_request() -> None:
    entries = chain(
        user("only turn " + "o" * 40),
        assistant(tool_call("read", path="notes.txt")),
        tool_result("n" * 2000, name="read"),
        assistant(tool_call("write", "c2", path="out.txt", content="q" * 2000)),
        tool_result("Successfully wrote to out.txt", "c2", "write"),
        assistant("all done " + "d" * 400),
    )
    prepared = prepare_compaction(entries, settings(1000))
    assert prepared is not None and prepared.is_split_turn
    assert prepared.messages_to_summarize == ()
    summarizer = ScriptedSummarizer(["## Original Request\nP"])
    result = run(compact(prepared, summarizer, MODEL))
    assert [r.label for r in summarizer.requests] == ["Turn prefix summarization"]
    assert result.summary.startswith(NO_PRIOR_HISTORY + SPLIT_TURN_SEPARATOR)


def test_summary_budgets_follow_the_reserve_and_the_models_cap() -> None:
    entries = chain(
        user("a" * 400), assistant("b" * 400), user("c" * 40), assistant(tool_call("x")),
        tool_result("t" * 400), assistant("d" * 400),
    )  # fmt: skip
    prepared = prepare_compaction(entries, settings(105, reserve=500000))
    assert prepared is not None and prepared.is_split_turn
    history, prefix = compaction_requests(prepared, SummaryModel(0, 128000))
    assert history is not None and prefix is not None
    assert (history.max_tokens, prefix.max_tokens) == (128000, 128000)
    history, prefix = compaction_requests(prepared, SummaryModel(0, 0))
    assert history is not None and prefix is not None
    assert (history.max_tokens, prefix.max_tokens) == (400000, 250000)
    # the provider clamp: window - input estimate - 4096, at least 1
    history, _ = compaction_requests(prepared, SummaryModel(5000, 128000))
    assert history is not None and 1 <= history.max_tokens < 5000 - 4096
    assert clamp_output_budget(3200, 0, 10**6) == 3200
    assert clamp_output_budget(3200, 20000, 1000) == 3200
    assert clamp_output_budget(3200, 20000, 15000) == 904
    assert clamp_output_budget(3200, 20000, 19000) == 1


def test_reasoning_is_the_thinking_level_when_the_model_reasons() -> None:
    prepared = prepare_compaction(_plain_history(), settings(150))
    assert prepared is not None
    reasoning_model = SummaryModel(0, 0, reasoning=True)
    history, _ = compaction_requests(prepared, reasoning_model, thinking_level="high")
    assert history is not None and history.reasoning == "high"
    history, _ = compaction_requests(prepared, reasoning_model, thinking_level="off")
    assert history is not None and history.reasoning is None
    history, _ = compaction_requests(prepared, SummaryModel(), thinking_level="high")
    assert history is not None and history.reasoning is None


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (
            SummaryResponse.of_text("partial", stop_reason="length"),
            "Summarization failed: generation hit the token cap and the summary is incomplete",
        ),
        (SummaryResponse((), "error", None, "boom"), "Summarization failed: boom"),
        (SummaryResponse((), "error"), "Summarization failed: Unknown error"),
        (
            SummaryResponse(({"type": "toolCall", "name": "read", "arguments": {}},), "toolUse"),
            "Summarization attempted to call a tool",
        ),
    ],
)
def test_refused_summaries_raise_and_nothing_is_appended(
    response: SummaryResponse, message: str
) -> None:
    appended: list[dict[str, Any]] = []

    def append(fields: dict[str, Any]) -> dict[str, Any]:
        appended.append(fields)
        return fields

    with pytest.raises(SummaryError) as caught:
        run(
            run_compaction(
                _plain_history(),
                settings(150),
                ScriptedSummarizer([response]),
                MODEL,
                append_entry=append,
            )
        )
    assert str(caught.value) == message
    assert appended == []


def test_a_refused_turn_prefix_names_itself() -> None:
    entries = chain(
        user("only " + "o" * 40),
        assistant(tool_call("read", path="a")),
        tool_result("n" * 2000),
        assistant("done " + "d" * 4000),
    )
    prepared = prepare_compaction(entries, settings(1000))
    assert prepared is not None and prepared.is_split_turn
    summarizer = ScriptedSummarizer([SummaryResponse.of_text("x", stop_reason="length")])
    with pytest.raises(SummaryError, match=r"^Turn prefix summarization failed: generation hit"):
        run(compact(prepared, summarizer, MODEL))


def test_an_aborted_summary() -> None:
    prepared = prepare_compaction(_plain_history(), settings(150))
    assert prepared is not None
    summarizer = ScriptedSummarizer([SummaryResponse((), "aborted")])
    with pytest.raises(SummaryAborted):
        run(compact(prepared, summarizer, MODEL))


def test_add_usage() -> None:
    assert add_usage([None, None]) is None
    assert add_usage([usage(5)]) == usage(5)
    assert add_usage([{"input": 1, "x": "a"}, {"input": 2, "x": "b", "y": 3}]) == {
        "input": 3,
        "x": "b",
        "y": 3,
    }


# --- the entry and the hooks ---------------------------------------------------------------------


def test_the_entry_pi_writes() -> None:
    result = CompactionResult("S", "e5", 17000, {"readFiles": [], "modifiedFiles": []}, usage(3))
    entry = compaction_entry(result)
    assert list(entry) == [
        "type",
        "summary",
        "firstKeptEntryId",
        "tokensBefore",
        "details",
        "usage",
        "fromHook",
    ]
    assert entry["fromHook"] is False
    bare = compaction_entry(CompactionResult("S", "e5", 1), from_hook=True)
    assert bare == {
        "type": "compaction",
        "summary": "S",
        "firstKeptEntryId": "e5",
        "tokensBefore": 1,
        "fromHook": True,
    }


def test_run_compaction_appends_to_a_session_and_tells_the_after_hook(tmp_path: Any) -> None:
    session = SessionFile.in_memory(str(tmp_path), entries=_plain_history())
    seen: list[AfterCompactEvent] = []

    async def after(event: AfterCompactEvent) -> None:
        seen.append(event)

    outcome = run(
        run_compaction(
            session.get_branch(),
            settings(150),
            ScriptedSummarizer(["## Goal\nG"]),
            MODEL,
            reason="threshold",
            append_entry=appender(session),
            after_compact=after,
        )
    )
    assert outcome is not None and not outcome.from_hook
    stored = session.get_leaf_entry()
    assert stored is not None and stored is outcome.entry
    assert list(stored)[:4] == ["type", "id", "parentId", "timestamp"]
    assert stored["parentId"] == "e6" and stored["firstKeptEntryId"] == "e5"
    assert stored["fromHook"] is False
    assert seen and seen[0].entry is stored and seen[0].reason == "threshold"


def test_a_hook_can_supply_the_summary() -> None:
    events: list[BeforeCompactEvent] = []

    async def before(event: BeforeCompactEvent) -> BeforeCompactDecision:
        events.append(event)
        supplied = CompactionResult("from an extension", event.preparation.first_kept_entry_id, 7)
        return BeforeCompactDecision(compaction=supplied)

    summarizer = ScriptedSummarizer()
    outcome = run(
        run_compaction(
            _plain_history(),
            settings(150),
            summarizer,
            MODEL,
            custom_instructions="focus",
            before_compact=before,
        )
    )
    assert outcome is not None and outcome.from_hook
    assert summarizer.requests == []
    assert outcome.entry == {
        "type": "compaction",
        "summary": "from an extension",
        "firstKeptEntryId": "e5",
        "tokensBefore": 7,
        "fromHook": True,
    }
    assert events[0].custom_instructions == "focus" and events[0].reason == "manual"
    assert len(events[0].branch_entries) == 6


def test_a_hook_can_cancel() -> None:
    async def before(event: BeforeCompactEvent) -> BeforeCompactDecision:
        return BeforeCompactDecision(cancel=True)

    with pytest.raises(CompactionCancelled, match="Compaction cancelled"):
        run(
            run_compaction(
                _plain_history(), settings(150), ScriptedSummarizer(), MODEL, before_compact=before
            )
        )


def test_manual_compaction_with_nothing_to_do_raises_and_automatic_returns_none() -> None:
    entries = chain(user("hi"), assistant("hello"))
    with pytest.raises(CompactionRefused, match=re.escape(NOTHING_TO_COMPACT)):
        run(run_compaction(entries, settings(20000), ScriptedSummarizer(), MODEL))
    outcome = run(
        run_compaction(entries, settings(20000), ScriptedSummarizer(), MODEL, reason="threshold")
    )
    assert outcome is None


# --- pi-lsp's corrections around a previous compaction (spec §15.3) ------------------------------


def _second_compaction_splits_the_kept_turn() -> list[dict[str, Any]]:
    """The shape of conformance case compaction-split-after-compaction before C2."""
    return chain(
        user("turn one " + "a" * 400),
        assistant("answer one"),
        user("turn two " + "b" * 400),
        assistant(tool_call("read", path="notes.txt")),
        tool_result("n" * 2000, name="read"),
        assistant("answer two " + "y" * 1200),
        compaction("## Goal\nTURN ONE", "e3", details={"readFiles": [], "modifiedFiles": []}),
        user("turn three " + "c" * 800),
        assistant("answer three " + "z" * 90),
    )


def test_pi_keeps_the_previous_compaction_inside_the_new_kept_range() -> None:
    entries = _second_compaction_splits_the_kept_turn()
    prepared = prepare_compaction(entries, settings(1000), pi_quirks=True)
    assert prepared is not None
    assert prepared.first_kept_entry_id == "e6" and prepared.is_split_turn
    assert prepared.messages_to_summarize == () and not prepared.carry_previous_summary
    result = run(compact(prepared, ScriptedSummarizer(["PREFIX"]), MODEL))
    assert result.summary.startswith(NO_PRIOR_HISTORY)


def test_pi_lsp_cuts_past_the_previous_compaction() -> None:
    entries = _second_compaction_splits_the_kept_turn()
    prepared = prepare_compaction(entries, settings(1000))
    assert prepared is not None
    assert prepared.moved_cut_from == 5
    assert prepared.first_kept_entry_id == "e8" and not prepared.is_split_turn
    assert [m["role"] for m in prepared.messages_to_summarize] == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
    ]
    summarizer = ScriptedSummarizer(["MERGED"])
    result = run(compact(prepared, summarizer, MODEL))
    assert "<previous-summary>\n## Goal\nTURN ONE\n</previous-summary>" in (
        summarizer.requests[0].prompt_text
    )
    assert result.summary == "MERGED\n\n<read-files>\nnotes.txt\n</read-files>"


def test_pi_lsp_carries_the_previous_summary_into_a_split_turn_with_no_history() -> None:
    # the previous compaction happened mid-run, so the turn it kept continues after it
    entries = chain(
        user("turn one " + "a" * 400),
        assistant("answer one"),
        user("turn two " + "b" * 400),
        assistant(tool_call("read", "c1", path="notes.txt")),
        tool_result("n" * 2000, "c1", "read"),
        compaction(
            "## Goal\nTURN ONE\n\n<read-files>\nold.txt\n</read-files>",
            "e3",
            details={"readFiles": ["old.txt"], "modifiedFiles": []},
        ),
        assistant(tool_call("read", "c2", path="more.txt")),
        tool_result("m" * 2000, "c2", "read"),
        assistant("answer two " + "y" * 400),
    )
    prepared = prepare_compaction(entries, settings(600))
    assert prepared is not None
    assert prepared.first_kept_entry_id == "e9" and prepared.moved_cut_from is None
    assert prepared.is_split_turn and prepared.turn_start_index == 2
    assert prepared.messages_to_summarize == () and prepared.carry_previous_summary
    summarizer = ScriptedSummarizer(["PREFIX"])
    result = run(compact(prepared, summarizer, MODEL))
    assert [r.label for r in summarizer.requests] == ["Turn prefix summarization"]
    assert result.summary == (
        "## Goal\nTURN ONE" + SPLIT_TURN_SEPARATOR + "PREFIX"
        "\n\n<read-files>\nmore.txt\nnotes.txt\nold.txt\n</read-files>"
    )
    quirk = prepare_compaction(entries, settings(600), pi_quirks=True)
    assert quirk is not None and not quirk.carry_previous_summary


def test_an_older_summary_inside_the_span_reaches_the_model() -> None:
    # a Pi-written file: C2 kept a range holding C1 (the 0.85 accident); a third compaction
    entries = chain(
        user("turn one " + "a" * 400),
        assistant("answer one"),
        user("turn two " + "b" * 400),
        assistant("answer two " + "y" * 1200),
        compaction("C1 SUMMARY", "e3", id="c1"),
        user("turn three " + "c" * 800),
        assistant("answer three"),
        compaction("C2 SUMMARY", "e4", id="c2"),
        user("turn four " + "d" * 800),
        assistant("answer four"),
    )
    prepared = prepare_compaction(entries, settings(150))
    assert prepared is not None
    assert prepared.previous_summary == "C2 SUMMARY" and prepared.first_kept_entry_id == "e9"
    roles = [m["role"] for m in prepared.messages_to_summarize]
    assert roles == ["assistant", "compactionSummary", "user", "assistant"]
    assert "c1" in ids(prepared.summarized_entries)
    transcript = serialize_conversation(
        [m for m in prepared.messages_to_summarize if m["role"] != "compactionSummary"]
    )
    assert "C1 SUMMARY" not in transcript
    history, _ = compaction_requests(prepared, MODEL)
    assert history is not None and "C1 SUMMARY" in history.prompt_text
    quirk = prepare_compaction(entries, settings(150), pi_quirks=True)
    assert quirk is not None
    assert [m["role"] for m in quirk.messages_to_summarize] == ["assistant", "user", "assistant"]
