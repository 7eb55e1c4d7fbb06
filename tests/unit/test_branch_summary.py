"""Branch summaries and tree navigation (spec §11), checked against the spec (no golden)."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.session.branch_summary import (
    BRANCH_SUMMARY_PREAMBLE,
    NOTHING_TO_SUMMARIZE,
    BeforeTreeDecision,
    NavigationError,
    NavigationResult,
    TreeNavigation,
    branch_summary_entry,
    branch_summary_request,
    collect_entries_for_branch_summary,
    generate_branch_summary,
    navigate_tree,
    prepare_branch_entries,
)
from pi_lsp.session.context import build_session_context
from pi_lsp.session.session_file import SessionFile
from pi_lsp.session.summarizer import SummaryError, SummaryModel, SummaryResponse
from pi_lsp.session.summary_prompts import BRANCH_SUMMARY_PROMPT
from pi_lsp.session.tokens import estimate_message_tokens
from pi_lsp.session.tree import index_entries
from tests.scripted_summarizer import ScriptedSummarizer
from tests.unit.compaction_builders import (
    assistant,
    chain,
    compaction,
    tool_call,
    tool_result,
    usage,
    user,
)

MODEL = SummaryModel(context_window=200000, max_tokens=8192)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def entry(entry_id: str, parent: str | None, payload: dict[str, Any]) -> dict[str, Any]:
    base: dict[str, Any] = {"type": "message", "id": entry_id, "parentId": parent}
    base["timestamp"] = "2026-01-01T00:00:00.000Z"
    if "role" in payload:
        base["message"] = payload
    else:
        base.update(payload)
    return base


def forked_tree() -> list[dict[str, Any]]:
    """A─B─C─D (old leaf) and A─E─F (target)."""
    return [
        entry("A", None, user("start")),
        entry("B", "A", assistant(tool_call("read", path="a.txt"))),
        entry("C", "B", tool_result("contents of a")),
        entry("D", "C", assistant("first try")),
        entry("E", "A", assistant("second try")),
        entry("F", "E", user("and then")),
    ]


# --- collecting ----------------------------------------------------------------------------------


def test_collects_the_abandoned_entries_up_to_the_common_ancestor() -> None:
    collection = collect_entries_for_branch_summary(index_entries(forked_tree()), "D", "F")
    assert [e["id"] for e in collection.entries] == ["B", "C", "D"]
    assert collection.common_ancestor_id == "A"


def test_nothing_to_collect() -> None:
    by_id = index_entries(forked_tree())
    assert collect_entries_for_branch_summary(by_id, None, "F").entries == ()
    # moving down the same branch abandons nothing
    assert collect_entries_for_branch_summary(by_id, "B", "D").entries == ()
    # moving up: the entries below the target are abandoned
    up = collect_entries_for_branch_summary(by_id, "D", "B")
    assert [e["id"] for e in up.entries] == ["C", "D"] and up.common_ancestor_id == "B"


def test_disjoint_roots_collect_the_whole_old_branch() -> None:
    entries = [*forked_tree(), entry("X", None, user("other root"))]
    collection = collect_entries_for_branch_summary(index_entries(entries), "D", "X")
    assert [e["id"] for e in collection.entries] == ["A", "B", "C", "D"]
    assert collection.common_ancestor_id is None


def test_summary_entries_on_the_abandoned_path_are_collected() -> None:
    entries = [
        entry("A", None, user("start")),
        entry("B", "A", compaction("old work", "A")),
        entry("C", "B", {"type": "branch_summary", "fromId": "Z", "summary": "side trip"}),
        entry("D", "C", assistant("after")),
        entry("E", "A", user("elsewhere")),
    ]
    collection = collect_entries_for_branch_summary(index_entries(entries), "D", "E")
    assert [e["id"] for e in collection.entries] == ["B", "C", "D"]


# --- preparing -----------------------------------------------------------------------------------


def test_tool_results_are_left_out_and_file_lists_carried() -> None:
    entries = [
        entry("P", None, {"type": "branch_summary", "fromId": "x", "summary": "s",
                          "details": {"readFiles": ["r0"], "modifiedFiles": ["m0"]}}),
        entry("Q", "P", {"type": "branch_summary", "fromId": "x", "summary": "hooked",
                         "fromHook": True, "details": {"readFiles": ["hook"]}}),
        entry("R", "Q", assistant(tool_call("edit", path="e.py"))),
        entry("S", "R", tool_result("edited")),
        entry("T", "S", {"type": "label", "targetId": "R", "label": "x"}),
        entry("U", "T", {"type": "custom_message", "customType": "n", "content": "note",
                         "display": True}),
    ]  # fmt: skip
    prepared = prepare_branch_entries(entries, 0)
    assert [m["role"] for m in prepared.messages] == [
        "branchSummary",
        "branchSummary",
        "assistant",
        "custom",
    ]
    assert prepared.file_ops.read_files == ["r0"]
    assert prepared.file_ops.modified_files == ["e.py", "m0"]


def test_the_budget_keeps_the_newest_messages() -> None:
    entries = chain(
        user("a" * 400),  # 100
        assistant("x" * 400, tool_call("read", path="early.txt")),  # 100 + the call
        user("b" * 400),  # 100
        assistant("c" * 400),  # 100
    )
    prepared = prepare_branch_entries(entries, 250)
    assert [m["role"] for m in prepared.messages] == ["user", "assistant"]
    assert prepared.total_tokens == 200
    # the tool call of the message that no longer fits still counts
    assert prepared.file_ops.read_files == ["early.txt"]


def test_a_summary_entry_is_taken_past_the_budget_while_under_ninety_percent() -> None:
    old = compaction("s" * 4000, "x")  # 1000 tokens
    entries = chain(user("q" * 400), old, user("b" * 400), assistant("c" * 3200))  # 100, 800
    taken = prepare_branch_entries(entries, 1000)  # 900 used < 900? no: 900 is not < 900
    assert [m["role"] for m in taken.messages] == ["user", "assistant"]
    entries = chain(user("q" * 400), old, user("b" * 400), assistant("c" * 3100))  # 100, 775
    taken = prepare_branch_entries(entries, 1000)  # 875 < 900: the summary comes along
    assert [m["role"] for m in taken.messages] == ["compactionSummary", "user", "assistant"]
    assert taken.total_tokens == 1875


# --- generating ----------------------------------------------------------------------------------


def test_generate_makes_one_request_with_the_branch_prompt() -> None:
    entries = forked_tree()[1:4]
    summarizer = ScriptedSummarizer([SummaryResponse.of_text("## Goal\nTried A", usage(42))])
    result = run(generate_branch_summary(entries, summarizer, MODEL))
    (request,) = summarizer.requests
    assert request.label == "Branch summarization"
    assert request.max_tokens == 4096
    assert request.reasoning is None
    assert request.prompt_text == (
        '<conversation>\n[Assistant tool calls]: read(path="a.txt")\n\n'
        "[Assistant]: first try\n</conversation>\n\n" + BRANCH_SUMMARY_PROMPT
    )
    assert result.summary == (
        BRANCH_SUMMARY_PREAMBLE + "## Goal\nTried A\n\n<read-files>\na.txt\n</read-files>"
    )
    assert BRANCH_SUMMARY_PREAMBLE == (
        "The user explored a different conversation branch before returning here.\n"
        "Summary of that exploration:\n\n"
    )
    assert result.details == {"readFiles": ["a.txt"], "modifiedFiles": []}
    assert result.usage == usage(42)


@pytest.mark.parametrize(("model_max", "expected"), [(8192, 4096), (1024, 1024), (0, 4096)])
def test_branch_summary_output_cap(model_max: int, expected: int) -> None:
    request = branch_summary_request([user("x")], SummaryModel(0, model_max))
    assert request.max_tokens == expected


def test_custom_instructions() -> None:
    messages = [user("x")]
    focused = branch_summary_request(messages, MODEL, custom_instructions="the bug")
    assert focused.prompt_text.endswith(BRANCH_SUMMARY_PROMPT + "\n\nAdditional focus: the bug")
    replaced = branch_summary_request(
        messages, MODEL, custom_instructions="Just list files.", replace_instructions=True
    )
    assert replaced.prompt_text.endswith("</conversation>\n\nJust list files.")
    assert branch_summary_request(messages, MODEL, replace_instructions=True).prompt_text.endswith(
        BRANCH_SUMMARY_PROMPT
    )


def test_the_input_budget_is_the_window_minus_the_reserve_with_a_fallback_window() -> None:
    big = "w" * 4 * 100_000  # 100000 tokens per message
    entries = chain(user(big), user(big), user("recent"))
    summarizer = ScriptedSummarizer(["s", "s"])
    run(generate_branch_summary(entries, summarizer, SummaryModel(0, 0), reserve_tokens=16384))
    # 128000 - 16384 leaves room for "recent" and one big message
    assert summarizer.requests[0].prompt_text.count("[User]: ") == 2
    run(generate_branch_summary(entries, summarizer, SummaryModel(300000, 0), reserve_tokens=0))
    assert summarizer.requests[1].prompt_text.count("[User]: ") == 3
    assert estimate_message_tokens(user(big)) == 100_000


def test_nothing_to_summarize_makes_no_request() -> None:
    summarizer = ScriptedSummarizer()
    entries = chain(tool_result("only a tool result"), {"type": "model_change"})
    result = run(generate_branch_summary(entries, summarizer, MODEL))
    assert result.summary == NOTHING_TO_SUMMARIZE and result.details is None
    assert summarizer.requests == []


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (
            SummaryResponse.of_text("cut", stop_reason="length"),
            "Branch summarization failed: generation hit the token cap and the summary is "
            "incomplete",
        ),
        (
            SummaryResponse(({"type": "toolCall", "name": "bash", "arguments": {}},)),
            "Branch summarization attempted to call a tool",
        ),
    ],
)
def test_refused_branch_summaries(response: SummaryResponse, message: str) -> None:
    with pytest.raises(SummaryError) as caught:
        entries = [entry("A", None, user("x"))]
        run(generate_branch_summary(entries, ScriptedSummarizer([response]), MODEL))
    assert str(caught.value) == message


def test_the_entry_fields() -> None:
    assert branch_summary_entry("root", "S") == {
        "type": "branch_summary",
        "fromId": "root",
        "summary": "S",
    }
    full = branch_summary_entry(
        "D", "S", details={"readFiles": []}, usage=usage(1), from_hook=False
    )
    assert list(full) == ["type", "fromId", "summary", "details", "usage", "fromHook"]


# --- navigating ----------------------------------------------------------------------------------


def session_at(tmp_path: Path, leaf: str = "D") -> SessionFile:
    session = SessionFile.in_memory(str(tmp_path), entries=forked_tree())
    session.branch(leaf)
    return session


def test_navigating_with_a_summary_writes_the_entry_at_the_new_position(tmp_path: Path) -> None:
    session = session_at(tmp_path)
    seen: list[NavigationResult] = []

    async def after(result: NavigationResult) -> None:
        seen.append(result)

    result = run(
        navigate_tree(
            session,
            "E",
            summarize=True,
            summarizer=ScriptedSummarizer(["## Goal\nA first try"]),
            model=MODEL,
            label="checkpoint",
            after_tree=after,
        )
    )
    summary = result.summary_entry
    assert summary is not None
    assert summary["type"] == "branch_summary"
    assert summary["parentId"] == "E"  # the target (an assistant message) is the new leaf
    assert summary["fromId"] == "D"  # the leaf before the navigation
    assert summary["summary"].startswith(BRANCH_SUMMARY_PREAMBLE + "## Goal\nA first try")
    assert summary["details"] == {"readFiles": ["a.txt"], "modifiedFiles": []}
    assert summary["fromHook"] is False
    assert result.editor_text is None and not result.cancelled
    # the label goes on the summary entry, and the label entry is the new leaf
    assert session.get_label(summary["id"]) == "checkpoint"
    leaf = session.get_leaf_entry()
    assert leaf is not None and leaf["type"] == "label" and leaf["parentId"] == summary["id"]
    assert seen == [result]
    context = build_session_context(list(session.entries), session.leaf_id)
    assert [m["role"] for m in context.messages] == ["user", "assistant", "branchSummary"]


def test_navigating_to_a_user_message_reopens_it(tmp_path: Path) -> None:
    session = session_at(tmp_path)
    result = run(navigate_tree(session, "F", summarize=False, label="here"))
    assert result.editor_text == "and then"
    assert result.summary_entry is None
    # the leaf went to the parent of the user message, the label to the target
    assert session.get_label("F") == "here"
    leaf = session.get_leaf_entry()
    assert leaf is not None and leaf["type"] == "label" and leaf["parentId"] == "E"


def test_navigating_to_a_root_user_message_resets_the_leaf(tmp_path: Path) -> None:
    session = session_at(tmp_path)
    summarizer = ScriptedSummarizer(["everything"])
    result = run(navigate_tree(session, "A", summarize=True, summarizer=summarizer, model=MODEL))
    assert result.editor_text == "start"
    summary = result.summary_entry
    assert summary is not None and summary["parentId"] is None and summary["fromId"] == "D"
    assert "[Assistant]: first try" in summarizer.requests[0].prompt_text


def test_from_id_is_root_without_a_leaf(tmp_path: Path) -> None:
    session = session_at(tmp_path)
    session.reset_leaf()
    result = run(navigate_tree(session, "B", summarize=True, summarizer=ScriptedSummarizer(),
                               model=MODEL))  # fmt: skip
    # no old leaf: nothing is abandoned, so there is nothing to summarize and no entry
    assert result.summary_entry is None and session.leaf_id == "B"


def test_nothing_abandoned_moves_without_a_summary(tmp_path: Path) -> None:
    session = session_at(tmp_path, "B")
    summarizer = ScriptedSummarizer()
    result = run(navigate_tree(session, "D", summarize=True, summarizer=summarizer, model=MODEL))
    assert result.summary_entry is None and summarizer.requests == []
    assert session.leaf_id == "D"


def test_only_tool_results_abandoned_stores_the_no_content_summary(tmp_path: Path) -> None:
    session = session_at(tmp_path, "C")
    summarizer = ScriptedSummarizer()
    result = run(navigate_tree(session, "B", summarize=True, summarizer=summarizer, model=MODEL))
    assert summarizer.requests == []
    assert result.summary_entry is not None
    assert result.summary_entry["summary"] == NOTHING_TO_SUMMARIZE
    assert "details" not in result.summary_entry


def test_navigation_refusals(tmp_path: Path) -> None:
    session = session_at(tmp_path)
    count = len(session.entries)
    same = run(navigate_tree(session, "D"))
    assert not same.cancelled and same.summary_entry is None
    with pytest.raises(NavigationError, match="Wait for the current response"):
        run(navigate_tree(session, "E", run_active=True))
    with pytest.raises(NavigationError, match=r"^No model available for summarization$"):
        run(navigate_tree(session, "E", summarize=True))
    with pytest.raises(NavigationError, match=r"^Entry nope not found$"):
        run(navigate_tree(session, "nope"))
    assert len(session.entries) == count and session.leaf_id == "D"


def test_a_refused_or_aborted_summary_leaves_the_session_unchanged(tmp_path: Path) -> None:
    session = session_at(tmp_path)
    count = len(session.entries)
    refusing = ScriptedSummarizer([SummaryResponse.of_text("x", stop_reason="length")])
    with pytest.raises(SummaryError):
        run(navigate_tree(session, "E", summarize=True, summarizer=refusing, model=MODEL))
    aborting = ScriptedSummarizer([SummaryResponse((), "aborted")])
    result = run(navigate_tree(session, "E", summarize=True, summarizer=aborting, model=MODEL))
    assert result.cancelled and result.aborted
    assert len(session.entries) == count and session.leaf_id == "D"


def test_the_before_hook_can_cancel_supply_or_override(tmp_path: Path) -> None:
    session = session_at(tmp_path)
    plans: list[TreeNavigation] = []

    async def cancel(plan: TreeNavigation) -> BeforeTreeDecision:
        plans.append(plan)
        return BeforeTreeDecision(cancel=True)

    result = run(navigate_tree(session, "E", before_tree=cancel))
    assert result.cancelled and session.leaf_id == "D"
    plan = plans[0]
    assert (plan.target_id, plan.old_leaf_id, plan.common_ancestor_id) == ("E", "D", "A")
    assert [e["id"] for e in plan.entries_to_summarize] == ["B", "C", "D"]

    async def supply(plan: TreeNavigation) -> BeforeTreeDecision:
        return BeforeTreeDecision(summary="from an extension", details={"k": 1}, label="ext")

    summarizer = ScriptedSummarizer()
    result = run(
        navigate_tree(
            session, "E", summarize=True, summarizer=summarizer, model=MODEL, before_tree=supply
        )
    )
    assert summarizer.requests == [] and result.from_hook
    summary = result.summary_entry
    assert summary is not None
    assert (summary["summary"], summary["details"], summary["fromHook"]) == (
        "from an extension",
        {"k": 1},
        True,
    )
    assert session.get_label(summary["id"]) == "ext"


def test_a_supplied_summary_is_ignored_when_none_was_asked_for(tmp_path: Path) -> None:
    session = session_at(tmp_path)

    async def supply(plan: TreeNavigation) -> BeforeTreeDecision:
        return BeforeTreeDecision(summary="unwanted", custom_instructions="x")

    result = run(navigate_tree(session, "E", before_tree=supply))
    assert result.summary_entry is None and session.leaf_id == "E"


def test_hook_overrides_reach_the_request(tmp_path: Path) -> None:
    session = session_at(tmp_path)

    async def override(plan: TreeNavigation) -> BeforeTreeDecision:
        return BeforeTreeDecision(custom_instructions="Only files.", replace_instructions=True)

    summarizer = ScriptedSummarizer(["files"])
    run(
        navigate_tree(
            session, "E", summarize=True, summarizer=summarizer, model=MODEL, before_tree=override
        )
    )
    assert summarizer.requests[0].prompt_text.endswith("</conversation>\n\nOnly files.")
    assert math.isfinite(len(session.entries))
